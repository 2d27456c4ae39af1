//! Rendering a payload into the body segments of a transaction set, driven
//! by the declaration: fields to elements, defaults, derived values (counts,
//! hash totals, HL numbering, sequence numbers), and every check of the
//! payload, reported all at once with JSON pointers.

use super::model::*;
use super::syntax::{Rule, RuleKind};
use super::value::{self, Problem};
use crate::guide::Compiled;
use crate::guide::render::{Place, count_faults, element_faults};
use serde_json::{Map, Value};
use std::rc::Rc;
use x12kit_json::value_kind as kind;
use x12kit_syntax::delimiters::Delimiters;
use x12kit_syntax::diagnostics::Severity;
use x12kit_syntax::error::ErrorCode;
use x12kit_syntax::error::Problem as Issue;

/// Inputs of a body render that come from the envelope.
#[derive(Debug, Clone)]
pub struct Context {
    /// Delimiters the values must not contain.
    pub delimiters: Delimiters,
    /// The date written in GS04 (`CCYYMMDD`).
    pub date: String,
    /// The time written in GS05 (`HHMM`).
    pub time: String,
}

/// Segments: id followed by its elements (trailing empty ones removed).
pub type Seg = Vec<String>;

#[derive(Clone)]
struct Item<'v> {
    obj: Option<&'v Map<String, Value>>,
    /// JSON pointer of `obj` (shared: items are cloned per node).
    ptr: Rc<str>,
    seq: usize,
    fixed: Option<(u8, String)>,
    hl: Option<Rc<Hl>>,
}

#[derive(Clone, Debug)]
struct Hl {
    id: usize,
    parent: Option<usize>,
    level: String,
    child: bool,
}

/// The renderer of one set.
#[derive(Debug)]
pub struct Encoder<'d> {
    decl: &'d SetDecl,
    ctx: &'d Context,
    /// Rendered segments.
    pub out: Vec<Seg>,
    /// Problems found.
    pub issues: Vec<Issue>,
    /// Defaults applied, and identifiers given as integers (as strings):
    /// (pointer, payload value) set in the normalized document.
    pub defaults: Vec<(String, Value)>,
    /// (object, array) pointers of a node bound `. name[]` or `x name[]`
    /// whose payload has array items but nothing for the single binding:
    /// its first occurrence is the first item, which mapping back puts on
    /// the object, so the normalized document moves it there.
    pub moves: Vec<(String, String)>,
    hl_next: usize,
    v5010: bool,
    /// The partner's guide the payload must keep, if any.
    guide: Option<&'d Compiled>,
}

static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

/// What a field path holds in the current object.
#[derive(Clone, Copy)]
enum Found<'v> {
    /// Nothing: the field, or an object on the way to it, is absent or null.
    Absent,
    /// A value (not null).
    Value(&'v Value),
    /// Part `k` of the path (an object on the way to the field) holds this
    /// value, which is not an object.
    NotObject(usize, &'v Value),
}

/// Looks a field path up, telling absent fields from objects of the wrong type.
fn look<'v>(obj: Option<&'v Map<String, Value>>, path: &[String]) -> Found<'v> {
    let Some(mut cur) = path.first().and_then(|k| obj?.get(k)) else {
        return Found::Absent;
    };
    for (k, p) in path[1..].iter().enumerate() {
        cur = match cur {
            Value::Object(o) => match o.get(p) {
                Some(v) => v,
                None => return Found::Absent,
            },
            Value::Null => return Found::Absent,
            v => return Found::NotObject(k, v),
        };
    }
    if cur.is_null() {
        Found::Absent
    } else {
        Found::Value(cur)
    }
}

fn join(ptr: &str, path: &[String]) -> String {
    let mut s = String::with_capacity(ptr.len() + 16);
    s.push_str(ptr);
    for p in path {
        s.push('/');
        if p.contains(['~', '/']) {
            s.push_str(&p.replace('~', "~0").replace('/', "~1"));
        } else {
            s.push_str(p);
        }
    }
    s
}

/// `ptr/k`, the pointer of item `k` of the array at `ptr`.
fn index(ptr: &str, k: usize) -> String {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = k;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let mut s = String::with_capacity(ptr.len() + 1 + digits.len() - at);
    s.push_str(ptr);
    s.push('/');
    s.extend(digits[at..].iter().map(|&d| d as char));
    s
}

/// True when the node has any payload data in `obj` (so an optional node
/// renders). A value of the wrong type counts as data: rendering the node
/// reports it. Null, `[]`, and an object without data for the node (`{}`,
/// nulls, fields of other nodes) are no data: the node is absent.
pub fn present(node: &Node, obj: Option<&Map<String, Value>>, fixed: Option<u8>) -> bool {
    let Some(map) = &node.map else { return false };
    if !map.binds.is_empty() {
        return map.binds.iter().any(|b| match look(obj, &b.path) {
            // `.`: the node's fields are on the current object.
            _ if b.path.is_empty() => holds(node, obj, None),
            Found::Value(Value::Array(a)) if b.array => !a.is_empty(),
            Found::Value(Value::Object(o)) if !b.array => {
                holds(node, Some(o), b.when.as_ref().map(|w| w.0))
            }
            Found::Value(_) | Found::NotObject(..) => true,
            Found::Absent => false,
        });
    }
    holds(node, obj, fixed)
}

/// True when `obj` has data for the node's own fields and segments (its
/// binding aside): [`present`] of the object a bound node is given.
fn holds(node: &Node, obj: Option<&Map<String, Value>>, fixed: Option<u8>) -> bool {
    let Some(map) = &node.map else { return false };
    if let Some(children) = &node.children {
        return children
            .iter()
            .enumerate()
            .any(|(i, c)| present(c, obj, if i == 0 { fixed } else { None }));
    }
    map.elements.iter().any(|e| match &e.target {
        Target::Field(p) => Some(e.pos) != fixed && !matches!(look(obj, p), Found::Absent),
        Target::Pairs(p) => {
            p.promote
                .iter()
                .any(|(_, f)| obj.is_some_and(|o| o.get(f).is_some_and(|v| !v.is_null())))
                || match look(obj, &p.array) {
                    Found::Value(Value::Array(a)) => !a.is_empty(),
                    Found::Value(_) | Found::NotObject(..) => true,
                    Found::Absent => false,
                }
        }
        _ => false,
    })
}

/// The pointer of one occurrence `i` of `node` written in the occurrence
/// `it` of its parent: its own object or array item, or, for a node whose
/// fields sit on the parent's object, the first of its fields the payload
/// gives (what makes it appear).
fn occurrence_ptr(node: &Node, i: &Item<'_>, it: &Item<'_>) -> String {
    if *i.ptr != *it.ptr {
        return i.ptr.to_string();
    }
    let seg = match &node.children {
        Some(kids) => &kids[0],
        None => node,
    };
    if let Some(map) = &seg.map {
        for e in &map.elements {
            if let Target::Field(path) = &e.target {
                if let Found::Value(_) = look(i.obj, path) {
                    return join(&i.ptr, path);
                }
            }
        }
    }
    if i.ptr.is_empty() {
        "/".into()
    } else {
        i.ptr.to_string()
    }
}

/// True when `obj`, the object of a level of HL loop `node`, has data for
/// it: for the segments rendered at that level, or levels below it (unless
/// the level is flat: its children are beside it).
fn level_holds(node: &Node, lvl: &HlLevel, obj: &Map<String, Value>) -> bool {
    let (Some(map), Some(children)) = (&node.map, &node.children) else {
        return false;
    };
    let at_level = |c: &&Node| {
        c.map
            .as_ref()
            .is_some_and(|m| m.levels.is_empty() || m.levels.contains(&lvl.code))
    };
    holds(&children[0], Some(obj), None)
        || children[1..]
            .iter()
            .filter(at_level)
            .any(|c| present(c, Some(obj), None))
        || (!lvl.flat
            && map
                .hier
                .iter()
                .filter(|c| c.under.contains(&lvl.code))
                .any(|c| match look(Some(obj), &c.path) {
                    Found::Value(Value::Array(a)) if c.array => !a.is_empty(),
                    Found::Value(Value::Object(o)) if !c.array => level_holds(node, c, o),
                    Found::Value(_) | Found::NotObject(..) => true,
                    Found::Absent => false,
                }))
}

impl<'d> Encoder<'d> {
    /// A renderer for `decl`.
    pub fn new(decl: &'d SetDecl, ctx: &'d Context) -> Self {
        Encoder {
            decl,
            ctx,
            out: Vec::new(),
            issues: Vec::new(),
            defaults: Vec::new(),
            moves: Vec::new(),
            hl_next: 0,
            v5010: decl.edition == Edition::V5010,
            guide: None,
        }
    }

    /// The same renderer, checking the payload against a partner's guide
    /// compiled for the same declaration (a guide of another is not applied).
    pub fn with_guide(mut self, guide: Option<&'d Compiled>) -> Self {
        self.guide = guide.filter(|g| std::ptr::eq(g.decl, self.decl));
        self
    }

    /// The guide's count rules of `node`, written as `items` in the
    /// occurrence `it` of its parent; `missing` is where an absent node's
    /// problem is reported.
    fn guide_counts(&mut self, node: &Node, items: &[Item<'_>], it: &Item<'_>, missing: &str) {
        let Some(g) = self.guide else { return };
        for (place, f) in count_faults(g, node, items.len()) {
            let ptr = match place {
                Place::Missing => missing.to_string(),
                Place::At(k) => match items.get(k) {
                    Some(i) => occurrence_ptr(node, i, it),
                    None => missing.to_string(),
                },
            };
            self.issue(f.code, &ptr, f.message);
        }
    }

    /// The guide's element rules of a segment about to be written:
    /// `els` its elements, `ptrs` the payload fields of its positions and
    /// `pair_ptrs` those of its qualifier/id pairs.
    fn guide_elements(
        &mut self,
        node: &Node,
        els: &[Option<String>],
        ptrs: &[Option<&[String]>],
        pair_ptrs: &[Option<String>],
        it: &Item<'_>,
    ) {
        let Some(g) = self.guide else { return };
        let component = self.ctx.delimiters.component as char;
        let value = |pos: u8, c: Option<u8>| {
            let v = els
                .get(pos as usize)
                .and_then(|v| v.as_deref())
                .unwrap_or("");
            match c {
                None => v.to_string(),
                Some(k) => v
                    .split(component)
                    .nth(k as usize - 1)
                    .unwrap_or("")
                    .to_string(),
            }
        };
        for (pos, f) in element_faults(g, node, &value) {
            let ptr = match ptrs.get(pos as usize).copied().flatten() {
                Some(path) => join(&it.ptr, path),
                None => match pair_ptrs.get(pos as usize).cloned().flatten() {
                    Some(p) => p,
                    None => it.ptr.to_string(),
                },
            };
            self.issue(f.code, &ptr, f.message);
        }
    }

    fn issue(&mut self, code: ErrorCode, ptr: &str, message: String) {
        // One error per field: the first found is the most precise.
        let ptr = if ptr.is_empty() { "/" } else { ptr };
        // Nor any below a value of the wrong type (its fields were not read).
        if self
            .issues
            .iter()
            .any(|i| i.pointer == ptr || (i.code == ErrorCode::InvalidField && i.is_above(ptr)))
        {
            return;
        }
        self.issues.push(Issue {
            severity: Severity::Error,
            code,
            pointer: if ptr.is_empty() {
                "/".into()
            } else {
                ptr.into()
            },
            message,
        });
    }

    /// Reports the value at `path` (under `ptr`) that should be an object.
    fn not_object(&mut self, ptr: &str, path: &[String], v: &Value) {
        self.issue(
            ErrorCode::InvalidField,
            &join(ptr, path),
            format!("expected an object, found {}", kind(v)),
        );
    }

    /// The value at `path` in `obj` (under `ptr`), or `None` when it is
    /// absent or, reported as `INVALID_FIELD`, below a value that is not an object.
    fn value_at<'v>(
        &mut self,
        obj: Option<&'v Map<String, Value>>,
        path: &[String],
        ptr: &str,
    ) -> Option<&'v Value> {
        match look(obj, path) {
            Found::Absent => None,
            Found::Value(v) => Some(v),
            Found::NotObject(k, v) => {
                self.not_object(ptr, &path[..=k], v);
                None
            }
        }
    }

    /// Renders the whole body from the payload root.
    pub fn run(&mut self, payload: &Value) {
        let Some(root) = payload.as_object() else {
            self.issue(
                ErrorCode::InvalidField,
                "",
                format!("the payload must be a JSON object, found {}", kind(payload)),
            );
            return;
        };
        let item = Item {
            obj: Some(root),
            ptr: Rc::from(""),
            seq: 1,
            fixed: None,
            hl: None,
        };
        let decl = self.decl;
        self.nodes(&decl.body, &item);
    }

    fn nodes(&mut self, nodes: &'d [Node], it: &Item<'_>) {
        for node in nodes {
            self.node(node, it);
        }
    }

    fn node(&mut self, node: &'d Node, it: &Item<'_>) {
        let Some(map) = &node.map else { return };
        if !map.levels.is_empty() {
            match &it.hl {
                Some(h) if map.levels.contains(&h.level) => {}
                _ => return,
            }
        }
        if !map.hier.is_empty() {
            let before = self.hl_next;
            self.hier(node, map, it);
            if self.guide.is_some() {
                // Every HL occurrence is one of the loop, at the level of its first.
                let n = self.hl_next - before;
                let items = vec![it.clone(); n];
                let at = if it.ptr.is_empty() { "/" } else { &it.ptr };
                self.guide_counts(node, &items, it, at);
            }
            return;
        }
        let mut items: Vec<Item<'_>> = Vec::new();
        // Where the node's own problems are reported (built only for one).
        let where_ptr = || match map.binds.first() {
            Some(b) => join(&it.ptr, &b.path),
            None => it.ptr.to_string(),
        };
        if map.binds.is_empty() {
            if map.always || node.mandatory || present(node, it.obj, it.fixed.as_ref().map(|f| f.0))
            {
                items.push(it.clone());
            }
        } else {
            // The pointer of a single binding (`.` or an unconditional
            // object) that found no data: its occurrence is the first item
            // of the array binding after it.
            let mut single_missing: Option<String> = None;
            // The `.` binding found no data and no array item stands for it.
            let mut merge_missing = false;
            for b in &map.binds {
                if b.path.is_empty() {
                    // `.`: the node's fields are on the current object.
                    if holds(node, it.obj, None) {
                        items.push(Item {
                            fixed: None,
                            ..it.clone()
                        });
                    } else {
                        single_missing = Some(it.ptr.to_string());
                        merge_missing = true;
                    }
                    continue;
                }
                let before = items.len();
                // Array items of a node that also merges (`. name[]`) carry
                // the current item's position, as the merged occurrence does.
                let merges = map.binds.iter().any(|b| b.path.is_empty());
                let value = self.value_at(it.obj, &b.path, &it.ptr);
                // The binding's pointer, for a value found there.
                let ptr = match value {
                    Some(_) => join(&it.ptr, &b.path),
                    None => String::new(),
                };
                let fixed = &b.when;
                match value {
                    None => {}
                    Some(Value::Array(a)) if b.array => {
                        // An array after a single binding holds the further
                        // occurrences only: it may be empty.
                        let overflow = map.binds.iter().any(|x| !x.array && x.when.is_none());
                        if a.is_empty() && node.mandatory && !overflow {
                            self.issue(
                                ErrorCode::EmptyArray,
                                &ptr,
                                "must have at least one item".into(),
                            );
                        }
                        for (k, v) in a.iter().enumerate() {
                            let p = index(&ptr, k);
                            match v {
                                Value::Object(o) => items.push(Item {
                                    obj: Some(o),
                                    ptr: p.into(),
                                    seq: if merges { it.seq } else { k + 1 },
                                    fixed: fixed.clone(),
                                    hl: it.hl.clone(),
                                }),
                                _ => self.issue(
                                    ErrorCode::InvalidField,
                                    &p,
                                    format!("expected an object, found {}", kind(v)),
                                ),
                            }
                        }
                    }
                    Some(Value::Object(o))
                        if !b.array && holds(node, Some(o), fixed.as_ref().map(|f| f.0)) =>
                    {
                        items.push(Item {
                            obj: Some(o),
                            ptr: ptr.into(),
                            seq: it.seq,
                            fixed: fixed.clone(),
                            hl: it.hl.clone(),
                        })
                    }
                    // An object without data for the node is no occurrence.
                    Some(Value::Object(_)) if !b.array => {}
                    Some(v) => self.issue(
                        ErrorCode::InvalidField,
                        &ptr,
                        format!(
                            "expected {}, found {}",
                            if b.array {
                                "an array of objects"
                            } else {
                                "an object"
                            },
                            kind(v)
                        ),
                    ),
                }
                if b.array {
                    if items.len() > before {
                        if let Some(obj) = single_missing.take() {
                            self.moves.push((obj, join(&it.ptr, &b.path)));
                            merge_missing = false;
                        }
                    }
                } else if b.when.is_none() && items.len() == before {
                    single_missing = Some(join(&it.ptr, &b.path));
                }
            }
            if merge_missing && items.is_empty() && (node.mandatory || map.always) {
                // As a node without bindings: a mandatory (or `always`)
                // node merged into the current object is rendered even
                // without data (its defaults).
                items.push(Item {
                    fixed: None,
                    ..it.clone()
                });
            }
            if node.mandatory && items.is_empty() && {
                let w = where_ptr();
                !self.issues.iter().any(|i| i.pointer == w)
            } {
                let b = &map.binds[0];
                self.issue(
                    ErrorCode::MissingField,
                    &where_ptr(),
                    format!(
                        "is required: the {} {} is mandatory in the {}",
                        node.id,
                        if node.is_loop() { "loop" } else { "segment" },
                        self.decl.code
                    ) + if b.array {
                        " (give at least one item)"
                    } else {
                        ""
                    },
                );
            }
        }
        if self.guide.is_some() {
            let missing = where_ptr();
            self.guide_counts(node, &items, it, &missing);
        }
        if items.len() as u64 > node.max as u64 {
            self.issue(
                ErrorCode::TooMany,
                &where_ptr(),
                format!(
                    "has {} items; the {} {} repeats at most {} times",
                    items.len(),
                    node.id,
                    if node.is_loop() { "loop" } else { "segment" },
                    node.max
                ),
            );
            items.truncate(node.max as usize);
        }
        for item in &items {
            match &node.children {
                Some(children) => {
                    self.segment(&children[0], item);
                    // A fixed element belongs to the loop's start segment only.
                    let rest = Item {
                        fixed: None,
                        ..item.clone()
                    };
                    self.nodes(&children[1..], &rest);
                }
                None => self.segment(node, item),
            }
        }
    }

    fn hier(&mut self, node: &'d Node, map: &'d NodeMap, it: &Item<'_>) {
        let tops: Vec<&HlLevel> = map.hier.iter().filter(|l| l.under.is_empty()).collect();
        let mut any = false;
        for top in tops {
            let objs = self.level_items(node, top, it.obj, &it.ptr);
            let objs = if objs.is_empty() && !any && node.mandatory && !top.array {
                // The top level of a mandatory hierarchy is rendered even when
                // empty (and then maps back as an empty object).
                let ptr = join(&it.ptr, &top.path);
                self.defaults.push((ptr.clone(), Value::Object(Map::new())));
                vec![(Some(&*EMPTY), ptr)]
            } else {
                objs
            };
            for (obj, ptr) in objs {
                any = true;
                self.hl(node, map, top, obj, ptr, None, it.obj, &it.ptr);
            }
        }
    }

    fn level_items<'v>(
        &mut self,
        node: &Node,
        lvl: &HlLevel,
        obj: Option<&'v Map<String, Value>>,
        ptr: &str,
    ) -> Vec<(Option<&'v Map<String, Value>>, String)> {
        let p = join(ptr, &lvl.path);
        match self.value_at(obj, &lvl.path, ptr) {
            None => Vec::new(),
            // An object without data for its level is absent.
            Some(Value::Object(o)) if !lvl.array => {
                if level_holds(node, lvl, o) {
                    vec![(Some(o), p)]
                } else {
                    Vec::new()
                }
            }
            Some(Value::Array(a)) if lvl.array => {
                let mut out = Vec::new();
                for (k, v) in a.iter().enumerate() {
                    match v {
                        Value::Object(o) => out.push((Some(o), format!("{p}/{k}"))),
                        _ => self.issue(
                            ErrorCode::InvalidField,
                            &format!("{p}/{k}"),
                            format!("expected an object, found {}", kind(v)),
                        ),
                    }
                }
                out
            }
            Some(v) => {
                self.issue(
                    ErrorCode::InvalidField,
                    &p,
                    format!(
                        "expected {}, found {}",
                        if lvl.array {
                            "an array of objects"
                        } else {
                            "an object"
                        },
                        kind(v)
                    ),
                );
                Vec::new()
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn hl<'v>(
        &mut self,
        node: &'d Node,
        map: &'d NodeMap,
        lvl: &'d HlLevel,
        obj: Option<&'v Map<String, Value>>,
        ptr: String,
        parent: Option<usize>,
        container: Option<&'v Map<String, Value>>,
        container_ptr: &str,
    ) {
        self.hl_next += 1;
        let id = self.hl_next;
        let (src, src_ptr) = if lvl.flat {
            (container, container_ptr.to_string())
        } else {
            (obj, ptr.clone())
        };
        let mut kids = Vec::new();
        for c in map.hier.iter().filter(|c| c.under.contains(&lvl.code)) {
            for (o, p) in self.level_items(node, c, src, &src_ptr) {
                kids.push((c, o, p));
            }
        }
        let item = Item {
            obj,
            ptr: ptr.into(),
            seq: id,
            fixed: None,
            hl: Some(Rc::new(Hl {
                id,
                parent,
                level: lvl.code.clone(),
                child: !kids.is_empty(),
            })),
        };
        // `hl` lines are declared on loops only (the declaration parser
        // attaches them to nothing else).
        let Some((start, rest)) = node.children.as_deref().and_then(<[Node]>::split_first) else {
            return;
        };
        self.segment(start, &item);
        self.nodes(rest, &item);
        for (c, o, p) in kids {
            self.hl(node, map, c, o, p, Some(id), src, &src_ptr);
        }
    }

    fn derive(&self, d: &Derive, it: &Item<'_>) -> String {
        let hl = it.hl.as_ref();
        match d {
            Derive::Seq => it.seq.to_string(),
            Derive::HlId => hl.map_or(String::new(), |h| h.id.to_string()),
            Derive::HlParent => hl
                .and_then(|h| h.parent)
                .map_or(String::new(), |p| p.to_string()),
            Derive::HlLevel => hl.map_or(String::new(), |h| h.level.clone()),
            Derive::HlChild => hl.map_or(String::new(), |h| {
                if h.child { "1" } else { "0" }.to_string()
            }),
            Derive::Date => self.ctx.date.clone(),
            Derive::Time => self.ctx.time.clone(),
            Derive::Count(id) => self.out.iter().filter(|s| s[0] == *id).count().to_string(),
            Derive::Sum(id, el) => {
                let mut acc = (0i128, 0u32);
                let n = self.implied(id, *el);
                for s in self.out.iter().filter(|s| s[0] == *id) {
                    if let Some(v) = s.get(*el as usize) {
                        value::add_implied(&mut acc, v, n);
                    }
                }
                value::scaled_text(acc)
            }
            Derive::SumProduct(id, a, b) => {
                let mut acc = (0i128, 0u32);
                let n = (self.implied(id, *a), self.implied(id, *b));
                for s in self.out.iter().filter(|s| s[0] == *id) {
                    if let (Some(x), Some(y)) = (s.get(*a as usize), s.get(*b as usize)) {
                        if let Some(p) = value::mul(x, y, n) {
                            value::add(&mut acc, &value::scaled_text(p));
                        }
                    }
                }
                value::scaled_text(acc)
            }
        }
    }

    /// Implied decimal places of an element of a segment (Nn types), for sums.
    fn implied(&self, id: &str, pos: u8) -> u32 {
        fn find(nodes: &[Node], id: &str, pos: u8) -> Option<u32> {
            for n in nodes {
                if n.id == id && !n.is_loop() {
                    if let Some(e) = n
                        .map
                        .as_ref()
                        .and_then(|m| m.elements.iter().find(|e| e.pos == pos))
                    {
                        return Some(if let XType::N(k) = e.xtype {
                            k as u32
                        } else {
                            0
                        });
                    }
                }
                if let Some(r) = n.children.as_deref().and_then(|c| find(c, id, pos)) {
                    return Some(r);
                }
            }
            None
        }
        find(&self.decl.body, id, pos).unwrap_or(0)
    }

    /// Checks characters and delimiters of a value about to be written.
    fn check_text(&mut self, text: &str, ptr: &dyn Fn() -> String) -> bool {
        if let Some(m) = value::check_chars(text, self.v5010) {
            self.issue(
                ErrorCode::InvalidCharacter,
                &ptr(),
                format!("\"{}\" {m}", preview(text)),
            );
            return false;
        }
        let d = self.ctx.delimiters;
        if let Some(b) = text.bytes().find(|&b| d.is_delimiter(b)) {
            let which = if b == d.element {
                "element separator"
            } else if b == d.segment {
                "segment terminator"
            } else if b == d.component {
                "component separator"
            } else {
                "repetition separator"
            };
            self.issue(
                ErrorCode::ContainsDelimiter,
                &ptr(),
                format!(
                    "\"{}\" contains '{}', the partner's {which}; X12 has no escape, so remove or replace it",
                    preview(text),
                    b as char
                ),
            );
            return false;
        }
        true
    }

    fn convert(&mut self, v: &Value, e: &ElDecl, ptr: &dyn Fn() -> String) -> Option<String> {
        match value::to_x12(v, e.ptype, e.xtype, e.min, e.max) {
            Ok(t) => {
                if !self.check_text(&t, ptr) {
                    return None;
                }
                if e.ptype == PType::StrOrInt && v.is_number() {
                    // An identifier given as an integer is the string of its
                    // digits in the document, as mapping back gives it.
                    self.defaults.push((ptr(), Value::String(t.clone())));
                }
                if let Some(codes) = &e.codes {
                    if !codes.contains(&t) {
                        self.issue(
                            ErrorCode::InvalidCode,
                            &ptr(),
                            format!(
                                "\"{t}\" is not one of the allowed codes: {}",
                                codes.join(", ")
                            ),
                        );
                        return None;
                    }
                }
                Some(t)
            }
            Err(p) => {
                let (code, m) = match p {
                    Problem::Invalid(m) => (ErrorCode::InvalidField, m),
                    Problem::TooLong(m) => (ErrorCode::TooLong, m),
                    Problem::TooShort(m) => (ErrorCode::TooShort, m),
                };
                if code == ErrorCode::InvalidField {
                    if let Value::String(s) = v {
                        if !self.check_text(s, ptr) {
                            return None;
                        }
                    }
                }
                self.issue(code, &ptr(), m);
                None
            }
        }
    }

    fn default_value(&self, d: &Default, e: &ElDecl, it: &Item<'_>) -> Option<Value> {
        match d {
            Default::Literal(s) => Some(match e.ptype {
                PType::Int | PType::Num => value::number(s)?,
                _ => Value::String(s.clone()),
            }),
            Default::Derived(dv) => {
                let text = self.derive(dv, it);
                if text.is_empty() {
                    return None;
                }
                match dv {
                    Derive::Date => value::from_x12(&text, PType::Date, XType::DT),
                    Derive::Time => value::from_x12(&text, PType::Time, XType::TM),
                    _ => {
                        // Sums are rounded to the element's implied decimals (cents for N2).
                        let text = match e.xtype {
                            XType::N(n) => value::round(&text, n as u32),
                            _ => text,
                        };
                        match e.ptype {
                            PType::Str | PType::StrOrInt => Some(Value::String(text)),
                            PType::Int | PType::Num => value::number(&text),
                            _ => None,
                        }
                    }
                }
            }
        }
    }

    fn segment(&mut self, node: &'d Node, it: &Item<'_>) {
        let Some(map) = &node.map else {
            // A start segment without declaration: it would be written
            // empty, which X12 does not allow (the declaration must map it).
            self.issue(
                ErrorCode::MissingField,
                &it.ptr,
                format!(
                    "is required: the {} segment would be empty, and the {} declares no field for it",
                    node.id, self.decl.code
                ),
            );
            self.out.push(vec![node.id.clone()]);
            return;
        };
        let issues_before = self.issues.len();
        let width = map
            .elements
            .iter()
            .map(|e| match &e.target {
                Target::Pairs(p) => e.pos as usize + 2 * p.count as usize - 1,
                _ => e.pos as usize,
            })
            .max()
            .unwrap_or(0);
        let mut els: Vec<Option<String>> = vec![None; width + 1];
        // Field pointers per position, for rule messages.
        let mut ptrs: Vec<Option<&[String]>> = vec![None; width + 1];
        // The payload fields of qualifier/id pairs, for the guide's checks.
        let mut pair_ptrs: Vec<Option<String>> = Vec::new();
        let mut pending: Vec<&ElDecl> = Vec::new();
        for e in &map.elements {
            let pos = e.pos as usize;
            match &e.target {
                Target::Unmapped => {}
                Target::Const(v) => els[pos] = Some(v.clone()),
                Target::Derived(d) => {
                    let v = self.derive(d, it);
                    els[pos] = (!v.is_empty()).then_some(v);
                }
                Target::Field(path) => {
                    if let Some((fp, fv)) = &it.fixed {
                        if *fp == e.pos {
                            els[pos] = Some(fv.clone());
                            continue;
                        }
                    }
                    ptrs[pos] = Some(path);
                    match look(it.obj, path) {
                        Found::Value(v) => {
                            let ptr = || join(&it.ptr, path);
                            els[pos] = self.convert(v, e, &ptr).or(Some(String::new()))
                        }
                        Found::Absent => pending.push(e),
                        Found::NotObject(k, v) => {
                            self.not_object(&it.ptr, &path[..=k], v);
                            els[pos] = Some(String::new());
                        }
                    }
                }
                Target::Pairs(p) => {
                    if pair_ptrs.is_empty() && self.guide.is_some() {
                        pair_ptrs = vec![None; width + 1];
                    }
                    self.pairs(p, e.render_required(), pos, it, &mut els, &mut pair_ptrs)
                }
            }
        }
        // Defaults and missing fields, after the present values are known: a
        // default fills one side of a paired (P) or conditional (C) rule only
        // when the rule's other elements are there, so defaults are applied
        // until nothing changes.
        let defaults = pending.iter().any(|e| e.default.is_some());
        let mut done = if defaults {
            vec![false; pending.len()]
        } else {
            Vec::new()
        };
        let mut again = defaults;
        while again {
            let mut changed = false;
            for (k, e) in pending.iter().enumerate() {
                let (Some(d), false) = (&e.default, done[k]) else {
                    continue;
                };
                let Target::Field(path) = &e.target else {
                    continue;
                };
                // Set at all (even to an empty string) counts as there.
                let set = |q: u8| els.get(q as usize).is_some_and(|v| v.is_some());
                let blocked = map.rules.iter().any(|r| r.holds_back_default(e.pos, set));
                if blocked {
                    continue;
                }
                done[k] = true;
                let ptr = join(&it.ptr, path);
                if let Some(v) = self.default_value(d, e, it) {
                    if let Some(t) = self.convert(&v, e, &|| ptr.clone()) {
                        els[e.pos as usize] = Some(t);
                        self.defaults.push((ptr, v));
                        changed = true;
                    }
                }
            }
            again = changed;
        }
        for e in pending {
            let Target::Field(path) = &e.target else {
                continue;
            };
            if e.render_required() && els[e.pos as usize].is_none() {
                let ptr = join(&it.ptr, path);
                self.issue(
                    ErrorCode::MissingField,
                    &ptr,
                    format!("is required ({}{:02}, {})", node.id, e.pos, describe(e)),
                );
            }
        }
        for r in &map.rules {
            self.rule(node, r, &els, &ptrs, it);
        }
        self.guide_elements(node, &els, &ptrs, &pair_ptrs, it);
        els[0] = Some(node.id.clone());
        // In place: `Option<String>` and `String` have one layout.
        let mut seg: Seg = els.into_iter().map(Option::unwrap_or_default).collect();
        while seg.len() > 1 && seg.last().is_some_and(String::is_empty) {
            seg.pop();
        }
        if seg.len() == 1 && self.issues.len() == issues_before {
            self.empty_segment(node, map, it);
        }
        self.out.push(seg);
    }

    /// Reports a segment about to be written without any element: X12 has
    /// no empty segments (X12.6 §3.7: the terminator follows an element),
    /// so the payload must give one of its fields. Reported at the first
    /// field of the segment.
    fn empty_segment(&mut self, node: &Node, map: &NodeMap, it: &Item<'_>) {
        let fixed = it.fixed.as_ref().map(|f| f.0);
        let mut names: Vec<String> = Vec::new();
        let mut first: Option<String> = None;
        for e in &map.elements {
            match &e.target {
                Target::Field(path) if Some(e.pos) != fixed => {
                    first.get_or_insert_with(|| join(&it.ptr, path));
                    names.push(path.join("/"));
                }
                Target::Pairs(p) => {
                    for (_, f) in &p.promote {
                        first.get_or_insert_with(|| join(&it.ptr, std::slice::from_ref(f)));
                        names.push(f.clone());
                    }
                    first.get_or_insert_with(|| join(&it.ptr, &p.array));
                    names.push(p.array.join("/"));
                }
                _ => {}
            }
        }
        let ptr = first.unwrap_or_else(|| it.ptr.to_string());
        self.issue(
            ErrorCode::MissingField,
            &ptr,
            format!(
                "is required: the {} segment would be empty (X12 has no empty segments); give at least one of {}",
                node.id,
                names.join(", ")
            ),
        );
    }

    fn pairs(
        &mut self,
        p: &Pairs,
        mandatory: bool,
        pos: usize,
        it: &Item<'_>,
        els: &mut [Option<String>],
        pair_ptrs: &mut [Option<String>],
    ) {
        // (qualifier, id), and the payload pointers they come from.
        let mut list: Vec<(String, String)> = Vec::new();
        let mut from: Vec<(String, String)> = Vec::new();
        for (q, f) in &p.promote {
            if let Some(v) = it.obj.and_then(|o| o.get(f)).filter(|v| !v.is_null()) {
                let ptr = || format!("{}/{f}", it.ptr);
                let el = pair_element(XType::AN, p.id_len, false);
                if let Some(t) = self.convert(v, &el, &ptr) {
                    list.push((q.clone(), t));
                    from.push((ptr(), ptr()));
                }
            }
        }
        // The array's pointer, for its items and problems (built only for them).
        let aptr = || join(&it.ptr, &p.array);
        match self.value_at(it.obj, &p.array, &it.ptr) {
            None => {}
            Some(Value::Array(a)) => {
                let aptr = aptr();
                for (k, v) in a.iter().enumerate() {
                    let ip = format!("{aptr}/{k}");
                    let Value::Object(o) = v else {
                        self.issue(
                            ErrorCode::InvalidField,
                            &ip,
                            format!("expected an object {{qualifier, id}}, found {}", kind(v)),
                        );
                        continue;
                    };
                    let mut ok = true;
                    let mut vals = Vec::new();
                    for (name, (min, max)) in [("qualifier", p.qualifier_len), ("id", p.id_len)] {
                        let fp = format!("{ip}/{name}");
                        let xtype = if name == "id" { XType::AN } else { XType::ID };
                        let el = pair_element(xtype, (min, max), true);
                        match o.get(name).filter(|v| !v.is_null()) {
                            None => {
                                self.issue(ErrorCode::MissingField, &fp, "is required".into());
                                ok = false;
                            }
                            Some(v) => match self.convert(v, &el, &|| fp.clone()) {
                                Some(t) => vals.push(t),
                                None => ok = false,
                            },
                        }
                    }
                    for key in o.keys().filter(|k| *k != "qualifier" && *k != "id") {
                        self.issues.push(Issue {
                            severity: Severity::Warning,
                            code: ErrorCode::UnknownField,
                            pointer: format!("{ip}/{key}"),
                            message:
                                "is not a field of a product id ({qualifier, id}); it is ignored"
                                    .into(),
                        });
                    }
                    if ok {
                        let mut vals = vals.into_iter();
                        if let (Some(q), Some(id)) = (vals.next(), vals.next()) {
                            list.push((q, id));
                            from.push((format!("{ip}/qualifier"), format!("{ip}/id")));
                        }
                    }
                }
            }
            Some(v) => self.issue(
                ErrorCode::InvalidField,
                &aptr(),
                format!("expected an array of {{qualifier, id}}, found {}", kind(v)),
            ),
        }
        if list.len() > p.count as usize {
            self.issue(
                ErrorCode::TooMany,
                &aptr(),
                format!(
                    "{} product ids in all (named ones included); at most {} fit in the segment",
                    list.len(),
                    p.count
                ),
            );
            list.truncate(p.count as usize);
        }
        if list.is_empty() && mandatory && {
            let aptr = aptr();
            !self.issues.iter().any(|i| i.pointer.starts_with(&aptr))
        } {
            let named: Vec<&str> = p.promote.iter().map(|(_, f)| f.as_str()).collect();
            self.issue(
                ErrorCode::MissingField,
                &aptr(),
                format!(
                    "is required: give at least one product id ({} or {{qualifier, id}} items)",
                    named.join(", ")
                ),
            );
        }
        for (k, ((q, id), (qp, ip))) in list.into_iter().zip(from).enumerate() {
            els[pos + 2 * k] = Some(q);
            els[pos + 2 * k + 1] = Some(id);
            if let Some(slot) = pair_ptrs.get_mut(pos + 2 * k) {
                *slot = Some(qp);
            }
            if let Some(slot) = pair_ptrs.get_mut(pos + 2 * k + 1) {
                *slot = Some(ip);
            }
        }
    }

    fn rule(
        &mut self,
        node: &Node,
        r: &Rule,
        els: &[Option<String>],
        ptrs: &[Option<&[String]>],
        it: &Item<'_>,
    ) {
        let has = |p: u8| {
            els.get(p as usize)
                .is_some_and(|v| v.as_ref().is_some_and(|s| !s.is_empty()))
        };
        let name = |p: u8| -> String {
            match ptrs
                .get(p as usize)
                .copied()
                .flatten()
                .and_then(|x| x.last())
            {
                Some(name) => name.clone(),
                None => format!("{}{p:02}", node.id),
            }
        };
        let ptr_of = |p: u8| match ptrs.get(p as usize).copied().flatten() {
            Some(path) => join(&it.ptr, path),
            None => it.ptr.to_string(),
        };
        let Some(v) = r.check(has) else { return };
        let rule = format!("{} rule {}{}", node.id, r.kind.letter(), r.digits());
        let names = |ps: &[u8]| ps.iter().map(|&q| name(q)).collect::<Vec<_>>().join(", ");
        match v.kind {
            RuleKind::Paired => {
                let present: Vec<u8> = r.positions.iter().copied().filter(|&q| has(q)).collect();
                for &p in &v.at {
                    self.issue(
                        ErrorCode::MissingField,
                        &ptr_of(p),
                        format!("is required together with {} ({rule})", names(&present)),
                    );
                }
            }
            RuleKind::Required => self.issue(
                ErrorCode::MissingField,
                &ptr_of(r.first()),
                format!("at least one of {} is required ({rule})", names(&v.at)),
            ),
            RuleKind::Conditional => {
                for &p in &v.at {
                    self.issue(
                        ErrorCode::MissingField,
                        &ptr_of(p),
                        format!("is required when {} is given ({rule})", name(r.first())),
                    );
                }
            }
            RuleKind::Exclusion => self.issue(
                ErrorCode::InvalidField,
                &ptr_of(r.first()),
                format!("only one of {} may be given ({rule})", names(&v.at)),
            ),
            RuleKind::ListConditional => self.issue(
                ErrorCode::MissingField,
                &ptr_of(v.at[0]),
                format!(
                    "one of {} is required when {} is given ({rule})",
                    names(&v.at),
                    name(r.first())
                ),
            ),
        }
    }
}

fn describe(e: &ElDecl) -> String {
    let base = format!("{} {}/{}", e.xtype.name(), e.min, e.max);
    match &e.doc {
        Some(d) => format!("{d}, {base}"),
        None => base,
    }
}

/// The start of a long value, for messages.
pub fn preview(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// The declaration a qualifier or id of a qualifier/id pair is checked
/// against: a string of `xtype` and these lengths, mapped to no field.
fn pair_element(xtype: XType, (min, max): (u16, u16), mandatory: bool) -> ElDecl {
    ElDecl {
        pos: 0,
        xtype,
        min,
        max,
        mandatory,
        need: false,
        target: Target::Unmapped,
        ptype: PType::Str,
        default: None,
        codes: None,
        known: None,
        doc: None,
    }
}
