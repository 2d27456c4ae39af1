//! The payload shape of each set, derived from its declaration (both
//! editions merged): the JSON Schema published in `schema/documents/`, the
//! unknown-field check of the renderer, and the generator of test payloads.

use super::compiled::declaration;
use super::model::*;
pub use super::syntax::RuleKind;
use crate::guide::{Compiled, Usage};
use crate::sets::TYPES;
use serde_json::{Map, Value, json};
use x12kit_syntax::diagnostics::Severity;
use x12kit_syntax::error::ErrorCode;
use x12kit_syntax::error::Problem;

/// The JSON shape of a payload.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// An object with named fields (in declaration order) and the syntax
    /// rules that tie some of them together.
    Object(Vec<Field>, Vec<FieldRule>),
    /// An array of items, with the loop's maximum when it is bounded.
    Array(Box<Shape>, Option<u32>),
    /// A value.
    Leaf(Leaf),
}

/// A segment syntax rule over fields of one object (see [`RuleKind`]: `P`
/// paired, `R` at least one, `C` if the first then all, `E` at most one,
/// `L` if the first then one of the others).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRule {
    /// Rule kind.
    pub kind: RuleKind,
    /// Field names, in the rule's element order.
    pub fields: Vec<String>,
}

/// A named field of an object shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Field name.
    pub name: String,
    /// Its shape.
    pub shape: Shape,
    /// Required in the payload.
    pub required: bool,
    /// The fewest items of an array field (a partner's guide's `minUse`).
    pub min_items: Option<u32>,
}

/// What a value field accepts.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaf {
    /// JSON type.
    pub ptype: PType,
    /// X12 type of the element.
    pub xtype: XType,
    /// Minimum X12 length.
    pub min: u16,
    /// Maximum X12 length.
    pub max: u16,
    /// Enforced code list.
    pub codes: Option<Vec<String>>,
    /// Known codes (documentation).
    pub known: Option<Vec<String>>,
    /// Description.
    pub doc: Option<String>,
    /// Default value (payload form), or a description of a computed one.
    pub default: Option<Value>,
    /// Where the value goes, e.g. `BEG03`.
    pub element: String,
    /// For a product id promoted from qualifier/id pairs: the pairs' array
    /// field and how many pairs the segment holds (shared with the array).
    pub pairs: Option<(String, u8)>,
    /// A partner's guide's pattern for the value.
    pub pattern: Option<String>,
    /// A partner's guide's fixed value.
    pub value: Option<String>,
}

fn merge(a: &mut Shape, b: Shape) {
    match (a, b) {
        (Shape::Object(fa, ra), Shape::Object(fb, rb)) => {
            for r in rb {
                if !ra.contains(&r) {
                    ra.push(r);
                }
            }
            for f in fb {
                match fa.iter_mut().find(|x| x.name == f.name) {
                    Some(x) => {
                        x.required = x.required && f.required;
                        merge(&mut x.shape, f.shape);
                    }
                    None => fa.push(f),
                }
            }
        }
        (Shape::Array(a, ma), Shape::Array(b, mb)) => {
            *ma = match (*ma, mb) {
                (Some(x), Some(y)) => Some(x.max(y)),
                _ => None,
            };
            merge(a, *b)
        }
        (Shape::Leaf(a), Shape::Leaf(b)) => {
            a.min = a.min.min(b.min);
            a.max = a.max.max(b.max);
        }
        _ => {}
    }
}

fn put(fields: &mut Vec<Field>, path: &[String], shape: Shape, required: bool) {
    if path.len() == 1 {
        let f = Field {
            name: path[0].clone(),
            shape,
            required,
            min_items: None,
        };
        match fields.iter_mut().find(|x| x.name == f.name) {
            Some(x) => {
                x.required = x.required || f.required;
                merge(&mut x.shape, f.shape);
            }
            None => fields.push(f),
        }
        return;
    }
    let i = match fields.iter().position(|x| x.name == path[0]) {
        Some(i) => i,
        None => {
            fields.push(Field {
                name: path[0].clone(),
                shape: Shape::Object(Vec::new(), Vec::new()),
                required: false,
                min_items: None,
            });
            fields.len() - 1
        }
    };
    if let Shape::Object(inner, _) = &mut fields[i].shape {
        put(inner, &path[1..], shape, required);
    }
}

fn leaf(e: &ElDecl, seg: &str, date: bool) -> Leaf {
    Leaf {
        ptype: e.ptype,
        xtype: e.xtype,
        min: e.min,
        max: e.max,
        codes: e.codes.clone(),
        known: e.known.clone(),
        doc: e.doc.clone(),
        default: match &e.default {
            Some(Default::Literal(s)) => Some(match e.ptype {
                PType::Int | PType::Num => {
                    super::value::number(s).unwrap_or(Value::String(s.clone()))
                }
                _ => Value::String(s.clone()),
            }),
            Some(Default::Derived(d)) if date => Some(Value::String(
                match d {
                    Derive::Seq => "the item's position (1, 2, …)",
                    Derive::Date => "the interchange date",
                    Derive::Time => "the interchange time",
                    _ => "computed from the lines",
                }
                .into(),
            )),
            _ => None,
        },
        element: format!("{seg}{:02}", e.pos),
        pairs: None,
        pattern: None,
        value: None,
    }
}

/// A guide's rule of element `pos` (not of a component) of a segment node.
fn rule_at<'g>(
    g: Option<&'g Compiled>,
    node: &Node,
    pos: u8,
) -> Option<&'g crate::guide::ElementRule> {
    g?.element_rules(node)
        .iter()
        .find(|r| r.pos == pos && r.component.is_none())
}

/// Narrows a leaf by a guide's element rule: codes, fixed value, lengths
/// and pattern of a string (numbers, dates and times keep the standard's:
/// their X12 text is not the payload's).
fn narrow(l: &mut Leaf, r: &crate::guide::ElementRule) {
    if !matches!(l.ptype, PType::Str | PType::StrOrInt) {
        return;
    }
    if let Some(c) = &r.codes {
        l.codes = Some(c.clone());
    }
    if let Some(v) = &r.value {
        l.value = Some(v.clone());
    }
    if let Some(m) = r.min_length {
        l.min = l.min.max(m);
    }
    if let Some(m) = r.max_length {
        l.max = l.max.min(m);
    }
    if let Some((text, _)) = &r.pattern {
        l.pattern = Some(text.clone());
    }
}

fn seg_fields(
    node: &Node,
    fields: &mut Vec<Field>,
    rules: &mut Vec<FieldRule>,
    required: bool,
    fixed: Option<u8>,
    g: Option<&Compiled>,
) {
    let Some(map) = &node.map else { return };
    for r in &map.rules {
        // Only rules whose elements are all plain fields of this object.
        let names: Option<Vec<String>> = r
            .positions
            .iter()
            .map(
                |p| match map.elements.iter().find(|e| e.pos == *p).map(|e| &e.target) {
                    Some(Target::Field(path)) if path.len() == 1 && Some(*p) != fixed => {
                        Some(path[0].clone())
                    }
                    _ => None,
                },
            )
            .collect();
        if let Some(fields) = names {
            let fr = FieldRule {
                kind: r.kind,
                fields,
            };
            if !rules.contains(&fr) {
                rules.push(fr);
            }
        }
    }
    for e in &map.elements {
        match &e.target {
            Target::Field(p) if Some(e.pos) != fixed => {
                let r = rule_at(g, node, e.pos);
                if r.is_some_and(|r| r.usage == Some(Usage::NotUsed)) {
                    continue;
                }
                let guide_req = r.is_some_and(|r| r.usage == Some(Usage::Required));
                let req = required
                    && (e.render_required() || guide_req)
                    && e.default.is_none()
                    && p.len() == 1;
                let mut l = leaf(e, &node.id, true);
                if let Some(r) = r {
                    narrow(&mut l, r);
                }
                put(fields, p, Shape::Leaf(l), req);
            }
            Target::Pairs(p) => {
                let text = |min, max, xtype, doc: &str, at: u8, pairs| {
                    Shape::Leaf(Leaf {
                        ptype: PType::Str,
                        xtype,
                        min,
                        max,
                        codes: None,
                        known: None,
                        doc: Some(doc.to_string()),
                        default: None,
                        element: format!("{}{:02}", node.id, at),
                        pairs,
                        pattern: None,
                        value: None,
                    })
                };
                // A guide's rules of the first pair narrow every pair (the
                // first one written may be any of them).
                let id_rule = rule_at(g, node, e.pos + 1);
                let q_rule = rule_at(g, node, e.pos);
                let narrowed = |mut s: Shape, r: Option<&crate::guide::ElementRule>| {
                    if let (Shape::Leaf(l), Some(r)) = (&mut s, r) {
                        narrow(l, r);
                    }
                    s
                };
                for (q, f) in &p.promote {
                    let l = text(
                        p.id_len.0,
                        p.id_len.1,
                        XType::AN,
                        &format!("product id with qualifier {q}"),
                        e.pos,
                        Some((p.array.join("/"), p.count)),
                    );
                    put(fields, std::slice::from_ref(f), narrowed(l, id_rule), false);
                }
                let q = text(
                    p.qualifier_len.0,
                    p.qualifier_len.1,
                    XType::ID,
                    "product/service id qualifier (e.g. IN buyer's item, MG manufacturer's part, EN EAN)",
                    e.pos,
                    None,
                );
                let id = text(
                    p.id_len.0,
                    p.id_len.1,
                    XType::AN,
                    "product/service id",
                    e.pos + 1,
                    None,
                );
                let (q, id) = (narrowed(q, q_rule), narrowed(id, id_rule));
                let item = Shape::Object(
                    vec![
                        Field {
                            name: "qualifier".into(),
                            shape: q,
                            required: true,
                            min_items: None,
                        },
                        Field {
                            name: "id".into(),
                            shape: id,
                            required: true,
                            min_items: None,
                        },
                    ],
                    Vec::new(),
                );
                put(
                    fields,
                    &p.array,
                    Shape::Array(Box::new(item), Some(p.count as u32)),
                    false,
                );
            }
            _ => {}
        }
    }
}

fn bound(n: &Node) -> Option<u32> {
    (n.max != u32::MAX).then_some(n.max)
}

/// A guide's use of a node: not used, the fewest and the most occurrences.
#[derive(Default)]
struct Uses {
    not_used: bool,
    min: u32,
    max: Option<u32>,
}

fn uses(g: Option<&Compiled>, node: &Node) -> Uses {
    let mut u = Uses::default();
    for c in g.map_or(&[][..], |g| g.count_rules(node)) {
        u.not_used |= c.not_used;
        u.min = u.min.max(c.min);
        u.max = match (u.max, c.max) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    u
}

/// The field at `path` under `fields`.
fn field_mut<'f>(fields: &'f mut [Field], path: &[String]) -> Option<&'f mut Field> {
    let (first, rest) = path.split_first()?;
    let f = fields.iter_mut().find(|f| f.name == *first)?;
    if rest.is_empty() {
        return Some(f);
    }
    match &mut f.shape {
        Shape::Object(inner, _) => field_mut(inner, rest),
        _ => None,
    }
}

fn body(
    nodes: &[Node],
    fields: &mut Vec<Field>,
    rules: &mut Vec<FieldRule>,
    required: bool,
    level: Option<&str>,
    fixed: Option<u8>,
    g: Option<&Compiled>,
) {
    for (k, node) in nodes.iter().enumerate() {
        let Some(map) = &node.map else { continue };
        if !map.levels.is_empty() && !level.is_some_and(|l| map.levels.iter().any(|x| x == l)) {
            continue;
        }
        let u = uses(g, node);
        if u.not_used {
            // The partner does not use it: none of its fields is allowed.
            continue;
        }
        if !map.hier.is_empty() {
            hier(node, map, fields, g);
            continue;
        }
        let content = |fields: &mut Vec<Field>,
                       rules: &mut Vec<FieldRule>,
                       req: bool,
                       fixed: Option<u8>| match &node.children {
            Some(children) => {
                seg_fields(&children[0], fields, rules, req, fixed, g);
                body(&children[1..], fields, rules, req, level, None, g);
            }
            None => seg_fields(node, fields, rules, req, fixed, g),
        };
        if map.binds.is_empty() {
            let req = required && (node.mandatory || u.min > 0 || (k == 0 && fixed.is_some()));
            content(fields, rules, req, if k == 0 { fixed } else { None });
        } else {
            for b in &map.binds {
                if b.path.is_empty() {
                    // `.`: the fields are on the current object.
                    content(
                        fields,
                        rules,
                        required && u.min > 0 && map.binds.len() == 1,
                        None,
                    );
                    continue;
                }
                let mut item = Vec::new();
                let mut item_rules = Vec::new();
                content(
                    &mut item,
                    &mut item_rules,
                    true,
                    b.when.as_ref().map(|w| w.0),
                );
                let obj = Shape::Object(item, item_rules);
                // After a single occurrence (`.` or an unconditional object:
                // `terms additionalTerms[]`), the array holds the others.
                let single = map.binds.iter().any(|x| !x.array && x.when.is_none());
                let max = match (bound(node), u.max) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                let shape = if b.array {
                    Shape::Array(
                        Box::new(obj),
                        max.map(|m| {
                            if single {
                                m.saturating_sub(1).max(u32::from(u.max.is_none()))
                            } else {
                                m
                            }
                        }),
                    )
                } else {
                    obj
                };
                let only = map.binds.len() == 1;
                put(
                    fields,
                    &b.path,
                    shape,
                    required && (node.mandatory || u.min > 0) && only,
                );
                if b.array && only && required && u.min > 1 {
                    if let Some(f) = field_mut(fields, &b.path) {
                        f.min_items = Some(u.min);
                    }
                }
            }
        }
    }
}

fn hier(node: &Node, map: &NodeMap, root: &mut Vec<Field>, g: Option<&Compiled>) {
    let children = node.children.as_deref().unwrap_or(&[]);
    fn level(
        children: &[Node],
        map: &NodeMap,
        lvl: &HlLevel,
        container: &mut Vec<Field>,
        g: Option<&Compiled>,
    ) {
        let mut obj = Vec::new();
        let mut rules = Vec::new();
        seg_fields(&children[0], &mut obj, &mut rules, true, None, g);
        body(
            &children[1..],
            &mut obj,
            &mut rules,
            true,
            Some(&lvl.code),
            None,
            g,
        );
        for c in map.hier.iter().filter(|c| c.under.contains(&lvl.code)) {
            if lvl.flat {
                level(children, map, c, container, g);
            } else {
                level(children, map, c, &mut obj, g);
            }
        }
        let o = Shape::Object(obj, rules);
        let shape = if lvl.array {
            Shape::Array(Box::new(o), None)
        } else {
            o
        };
        put(container, &lvl.path, shape, false);
    }
    for top in map.hier.iter().filter(|l| l.under.is_empty()) {
        level(children, map, top, root, g);
    }
}

fn build(code: &str, edition: Edition) -> Option<Shape> {
    build_guided(code, edition, None)
}

/// The shape of a set in one edition, narrowed by a guide compiled for
/// that edition's declaration (another one's is not applied).
fn build_guided(code: &str, edition: Edition, g: Option<&Compiled>) -> Option<Shape> {
    let d = declaration(code, edition)?;
    let g = g.filter(|g| std::ptr::eq(g.decl, d));
    let mut fields = Vec::new();
    let mut rules = Vec::new();
    body(&d.body, &mut fields, &mut rules, true, None, None, g);
    Some(Shape::Object(fields, rules))
}

/// Marks the field at a required-field pointer (`/lines/*/lineNumber`:
/// `*` every item) and the objects on the way to it as required.
fn require(s: &mut Shape, parts: &[&str]) {
    let Some((first, rest)) = parts.split_first() else {
        return;
    };
    match s {
        Shape::Object(fields, _) => {
            let name = first.replace("~1", "/").replace("~0", "~");
            if let Some(f) = fields.iter_mut().find(|f| f.name == name) {
                f.required = true;
                require(&mut f.shape, rest);
            }
        }
        Shape::Array(inner, _) if *first == "*" || first.parse::<usize>().is_ok() => {
            require(inner, rest)
        }
        _ => {}
    }
}

/// The payload shape of a set in one edition (built once per set, on its
/// first use: a render of one type neither compiles nor shapes the others).
pub fn shape_ref(code: &str, edition: Edition) -> Option<&'static Shape> {
    // `None` for a set whose declaration does not compile (which the
    // declarations test reports).
    type Shapes = Option<(Shape, Shape)>;
    static SHAPES: [std::sync::OnceLock<Shapes>; TYPES.len()] =
        [const { std::sync::OnceLock::new() }; TYPES.len()];
    let i = crate::sets::type_index(code)?;
    let (base, v5) = SHAPES
        .get(i)?
        .get_or_init(|| {
            let c = TYPES[i];
            Some((build(c, Edition::Base)?, build(c, Edition::V5010)?))
        })
        .as_ref()?;
    Some(match edition {
        Edition::Base => base,
        Edition::V5010 => v5,
    })
}

/// The payload shape of a set in one edition.
pub fn shape_for(code: &str, edition: Edition) -> Option<Shape> {
    shape_ref(code, edition).cloned()
}

/// The payload shape of a set (both editions merged: a field is required
/// only when both require it).
pub fn shape(code: &str) -> Option<Shape> {
    let mut out = shape_for(code, Edition::Base)?;
    merge(&mut out, shape_for(code, Edition::V5010)?);
    Some(out)
}

fn leaf_schema(l: &Leaf) -> Value {
    let mut m = Map::new();
    let mut desc = l.doc.clone().unwrap_or_default();
    if !desc.is_empty() {
        desc.push_str(". ");
    }
    desc.push_str(&format!(
        "X12 {} ({} {}/{})",
        l.element,
        l.xtype.name(),
        l.min,
        l.max
    ));
    if let Some(k) = &l.known {
        // With what each means, from the X12 dictionary (`sets/dictionary.x12d`).
        let (seg, pos) = l.element.split_at(l.element.len().saturating_sub(2));
        let pos = pos.parse::<u8>().unwrap_or(0);
        let listed: Vec<String> = k
            .iter()
            .map(|c| match super::dictionary::code_meaning(seg, pos, c) {
                Some(m) => format!("{c} = {m}"),
                None => c.clone(),
            })
            .collect();
        desc.push_str(&format!(". Common codes: {}", listed.join("; ")));
    }
    match l.ptype {
        PType::Str => {
            m.insert("type".into(), json!("string"));
            m.insert("minLength".into(), json!(l.min));
            m.insert("maxLength".into(), json!(l.max));
            m.insert("pattern".into(), json!("^[ -~]*$"));
        }
        PType::StrOrInt => {
            m.insert("type".into(), json!(["string", "integer"]));
            m.insert("minLength".into(), json!(l.min));
            m.insert("maxLength".into(), json!(l.max));
            m.insert("pattern".into(), json!("^[ -~]*$"));
            desc.push_str(
                "; an assigned identifier: mapped documents give the string received \
                 (leading zeros kept), render also takes an integer (written as its digits)",
            );
        }
        PType::Int => {
            m.insert("type".into(), json!("integer"));
        }
        PType::Num => {
            m.insert("type".into(), json!("number"));
            if let XType::N(n) = l.xtype {
                if n > 0 {
                    desc.push_str(&format!(
                        "; written with {n} implied decimals (970.25 → 97025)"
                    ));
                }
            }
        }
        PType::Date => {
            m.insert("type".into(), json!("string"));
            m.insert("format".into(), json!("date"));
            m.insert("pattern".into(), json!("^[0-9]{4}-[0-9]{2}-[0-9]{2}$"));
        }
        PType::Time => {
            m.insert("type".into(), json!("string"));
            m.insert(
                "pattern".into(),
                json!("^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,2})?)?$"),
            );
        }
    }
    if let Some(c) = &l.codes {
        m.insert("enum".into(), json!(c));
    }
    if let Some(v) = &l.value {
        m.insert("const".into(), json!(v));
    }
    if let Some(p) = &l.pattern {
        // Beside the printable-characters pattern: both must match.
        m.insert("allOf".into(), json!([{ "pattern": p }]));
        desc.push_str(&format!("; the partner's guide's pattern {p}"));
    }
    match &l.default {
        Some(Value::String(s)) if s.contains(' ') => desc.push_str(&format!("; default: {s}")),
        Some(d) => {
            m.insert("default".into(), d.clone());
        }
        None => {}
    }
    m.insert("description".into(), json!(desc));
    Value::Object(m)
}

/// The JSON Schema of a shape.
pub fn to_schema(s: &Shape) -> Value {
    match s {
        Shape::Leaf(l) => leaf_schema(l),
        Shape::Array(inner, max) => {
            let mut m = json!({"type": "array", "items": to_schema(inner)});
            if let Some(max) = max {
                m["maxItems"] = json!(max);
            }
            m
        }
        Shape::Object(fields, rules) => {
            let mut props = Map::new();
            let mut req = Vec::new();
            for f in fields {
                let mut fs = to_schema(&f.shape);
                if let (Some(n), Some(o)) = (f.min_items, fs.as_object_mut()) {
                    o.insert("minItems".into(), json!(n));
                }
                props.insert(f.name.clone(), fs);
                if f.required {
                    req.push(f.name.clone());
                }
            }
            let mut m = Map::new();
            m.insert("type".into(), json!("object"));
            m.insert("properties".into(), Value::Object(props));
            if !req.is_empty() {
                m.insert("required".into(), json!(req));
            }
            // Paired and conditional rules: JSON Schema's dependentRequired.
            let mut dep = Map::new();
            for r in rules {
                let pairs = r.kind.dependencies(&r.fields);
                // A field with a default is filled in by render: never required.
                let defaulted = |name: &String| {
                    fields.iter().any(|x| {
                        x.name == *name && matches!(&x.shape, Shape::Leaf(l) if l.default.is_some())
                    })
                };
                for (f, others) in pairs {
                    let others: Vec<&String> =
                        others.into_iter().filter(|o| !defaulted(o)).collect();
                    if others.is_empty() {
                        continue;
                    }
                    if let Value::Array(a) = dep.entry(f.clone()).or_insert_with(|| json!([])) {
                        for o in others {
                            if !a.contains(&json!(o)) {
                                a.push(json!(o));
                            }
                        }
                    }
                }
            }
            if !dep.is_empty() {
                m.insert("dependentRequired".into(), Value::Object(dep));
            }
            m.insert("additionalProperties".into(), json!(false));
            Value::Object(m)
        }
    }
}

/// The root member of a mapped document that lists the received segments
/// the declaration does not map (see `unmapped_schema`).
pub const UNMAPPED: &str = "unmapped";

/// The schema of [`UNMAPPED`]: what parse adds to a mapped document, and
/// render leaves out.
fn unmapped_schema() -> Value {
    json!({
        "type": "array",
        "description": "Set by x12kit parse, never required: each received segment of the set that the declaration does not map, or maps only in part (an element it does not map, a repeat beyond what the payload shape holds, a segment out of place), in input order, so that no received data is dropped. Render leaves this member out (no segment is written from it, and no warning is given).",
        "items": {
            "type": "object",
            "properties": {
                "position": {"type": "integer", "minimum": 1, "description": "Position of the segment in the transaction set, ST being 1 (as AK302/IK302 count)."},
                "id": {"type": "string", "description": "Segment id, e.g. L1."},
                "elements": {"type": "array", "items": {"type": "string"}, "description": "The segment's elements as received (composites and repeats as their text)."}
            },
            "required": ["position", "id", "elements"],
            "additionalProperties": false
        }
    })
}

/// The published JSON Schema of a set's payload (`schema/documents/<code>.schema.json`).
pub fn schema(code: &str) -> Option<Value> {
    wrap(code, &shape(code)?, None)
}

/// The JSON Schema of a set's payload for one partner: the shape of the
/// edition of `version` (the partner's for the set), narrowed by the
/// partner's guide compiled for it (enums of its codes, `const` of a fixed
/// value, its lengths and patterns, `required` of its required elements,
/// segments and loops, `minItems`/`maxItems` of its uses, not-used
/// segments and elements left out) and by `required_fields` (the profile's
/// and the guide's pointers). `who` names the partner and the guide in the
/// description.
pub(crate) fn schema_narrowed(
    code: &str,
    version: &str,
    guide: Option<&Compiled>,
    required_fields: &[String],
    who: &str,
) -> Option<Value> {
    let edition = super::compiled::edition(version);
    let mut s = build_guided(code, edition, guide)?;
    for p in required_fields {
        let parts: Vec<&str> = p.split('/').skip(1).collect();
        require(&mut s, &parts);
    }
    wrap(code, &s, Some((version, who)))
}

/// The schema document of a shape: `$schema`, `$id`, title, description.
fn wrap(code: &str, s: &Shape, partner: Option<(&str, &str)>) -> Option<Value> {
    let d = declaration(code, Edition::Base)?;
    let mut v = to_schema(s);
    let m = v.as_object_mut()?;
    let mut out = Map::new();
    out.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    out.insert(
        "$id".into(),
        json!(format!(
            "https://example.invalid/x12kit/schema/documents/{code}.schema.json"
        )),
    );
    out.insert("title".into(), json!(format!("{code} {} payload", d.name)));
    out.insert(
        "description".into(),
        json!(format!(
            "Payload of an outbound {code} ({}; GS01 {}; from version {}) for x12kit render, and the `document` x12kit parse maps a received {code} back to. Generated from the declaration core/src/documents/sets/{code}.x12d: do not edit by hand. Dates are YYYY-MM-DD, times HH:MM[:SS], amounts JSON numbers. Fields not listed here are ignored by render with an UNKNOWN_FIELD warning.",
            d.name, d.functional_id, d.since
        )),
    );
    // The business reference (an annotation, as OpenAPI's `x-` members): what people
    // search the document by, the same field in every language.
    if let Some((version, who)) = partner {
        out.insert(
            "$id".into(),
            json!(format!(
                "https://example.invalid/x12kit/schema/documents/{code}.partner.schema.json"
            )),
        );
        out.insert(
            "title".into(),
            json!(format!("{code} {} payload for {who}", d.name)),
        );
        if let Some(Value::String(desc)) = out.get_mut("description") {
            desc.push_str(&format!(
                " Narrowed for {who} (version {version}): the partner's guide's codes, fixed values, lengths, patterns, required and not-used fields, and its required fields; a payload this schema accepts still goes through render's checks."
            ));
        }
    }
    if let Some(r) = crate::sets::reference_field(code) {
        out.insert("x-reference".into(), json!(r));
    }
    for (k, val) in std::mem::take(m) {
        out.insert(k, val);
    }
    if let Some(Value::Object(props)) = out.get_mut("properties") {
        props.insert(UNMAPPED.into(), unmapped_schema());
    }
    Some(Value::Object(out))
}

/// Adds an `UNKNOWN_FIELD` warning for every payload field the set does not
/// map in this edition (a field of the other edition only is named as such).
pub(crate) fn unknown_fields(
    code: &str,
    edition: Edition,
    payload: &Value,
    out: &mut Vec<Problem>,
) {
    if let Some(s) = shape_ref(code, edition) {
        let at = out.len();
        walk(s, payload, &mut Vec::new(), out);
        let other = shape_ref(
            code,
            if edition == Edition::Base {
                Edition::V5010
            } else {
                Edition::Base
            },
        );
        for i in &mut out[at..] {
            if other.as_ref().is_some_and(|o| has_pointer(o, &i.pointer)) {
                i.message = format!(
                    "is mapped only in {}, not in the version of this document; it is ignored",
                    if edition == Edition::Base {
                        "005010"
                    } else {
                        "004010"
                    }
                );
            }
        }
    }
}

fn has_pointer(s: &Shape, ptr: &str) -> bool {
    let mut cur = s;
    for part in ptr.split('/').skip(1) {
        cur = match cur {
            Shape::Object(f, _) => match f.iter().find(|x| x.name == part) {
                Some(x) => &x.shape,
                None => return false,
            },
            Shape::Array(inner, _) if part.parse::<usize>().is_ok() => inner,
            _ => return false,
        };
    }
    true
}

/// Removes the fields at these pointers (the ignored unknown ones) from a value.
pub(crate) fn remove(v: &mut Value, pointers: &[String]) {
    for p in pointers.iter().rev() {
        let Some((parent, last)) = p.rsplit_once('/') else {
            continue;
        };
        let last = last.replace("~1", "/").replace("~0", "~");
        let target = if parent.is_empty() {
            Some(&mut *v)
        } else {
            v.pointer_mut(parent)
        };
        if let Some(Value::Object(o)) = target {
            o.remove(&last);
        }
    }
}

fn escape(k: &str) -> std::borrow::Cow<'_, str> {
    if k.contains(['~', '/']) {
        k.replace('~', "~0").replace('/', "~1").into()
    } else {
        k.into()
    }
}

/// A part of the pointer [`walk`] is at: a member (escaped) or an item.
enum Part<'v> {
    Key(std::borrow::Cow<'v, str>),
    Item(usize),
}

/// Walks the payload against the shape; the pointer is a stack of parts,
/// joined only for the (rare) unknown fields.
fn walk<'v>(s: &Shape, v: &'v Value, at: &mut Vec<Part<'v>>, out: &mut Vec<Problem>) {
    match (s, v) {
        (Shape::Object(fields, _), Value::Object(o)) => {
            for (k, val) in o {
                if at.is_empty() && k == UNMAPPED {
                    // What parse could not map: render leaves it out.
                    continue;
                }
                match fields.iter().find(|f| f.name == *k) {
                    Some(f) if matches!(f.shape, Shape::Leaf(_)) => {}
                    Some(f) => {
                        at.push(Part::Key(escape(k)));
                        walk(&f.shape, val, at, out);
                        at.pop();
                    }
                    None => {
                        let mut pointer = String::new();
                        for p in at.iter() {
                            pointer.push('/');
                            match p {
                                Part::Key(k) => pointer.push_str(k),
                                Part::Item(i) => pointer.push_str(&i.to_string()),
                            }
                        }
                        pointer.push('/');
                        pointer.push_str(&escape(k));
                        out.push(Problem {
                            severity: Severity::Warning,
                            code: ErrorCode::UnknownField,
                            pointer,
                            message: format!(
                                "is not a field of this document{}; it is ignored",
                                suggestion(k, fields)
                                    .map(|s| format!(" (did you mean \"{s}\"?)"))
                                    .unwrap_or_default()
                            ),
                        })
                    }
                }
            }
        }
        (Shape::Array(inner, _), Value::Array(a)) => {
            for (i, item) in a.iter().enumerate() {
                at.push(Part::Item(i));
                walk(inner, item, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn suggestion<'f>(k: &str, fields: &'f [Field]) -> Option<&'f str> {
    let lk = k.to_ascii_lowercase();
    fields.iter().map(|f| f.name.as_str()).find(|n| {
        let ln = n.to_ascii_lowercase();
        ln == lk || (lk.len() > 3 && (ln.starts_with(&lk) || lk.starts_with(&ln)))
    })
}

/// Every set's schema, in [`TYPES`] order.
pub fn all() -> Vec<(&'static str, Value)> {
    TYPES
        .iter()
        .filter_map(|c| schema(c).map(|s| (*c, s)))
        .collect()
}
