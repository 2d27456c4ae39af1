//! The payload shape of each set, derived from its declaration (both
//! editions merged): the JSON Schema published in `schema/documents/`, the
//! unknown-field check of the renderer, and the generator of test payloads.

use super::compiled::declaration;
use super::model::*;
pub use super::syntax::RuleKind;
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
    }
}

fn seg_fields(
    node: &Node,
    fields: &mut Vec<Field>,
    rules: &mut Vec<FieldRule>,
    required: bool,
    fixed: Option<u8>,
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
                let req = required && e.render_required() && e.default.is_none() && p.len() == 1;
                put(fields, p, Shape::Leaf(leaf(e, &node.id, true)), req);
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
                    })
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
                    put(fields, std::slice::from_ref(f), l, false);
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
                let item = Shape::Object(
                    vec![
                        Field {
                            name: "qualifier".into(),
                            shape: q,
                            required: true,
                        },
                        Field {
                            name: "id".into(),
                            shape: id,
                            required: true,
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

fn body(
    nodes: &[Node],
    fields: &mut Vec<Field>,
    rules: &mut Vec<FieldRule>,
    required: bool,
    level: Option<&str>,
    fixed: Option<u8>,
) {
    for (k, node) in nodes.iter().enumerate() {
        let Some(map) = &node.map else { continue };
        if !map.levels.is_empty() && !level.is_some_and(|l| map.levels.iter().any(|x| x == l)) {
            continue;
        }
        if !map.hier.is_empty() {
            hier(node, map, fields);
            continue;
        }
        let content = |fields: &mut Vec<Field>,
                       rules: &mut Vec<FieldRule>,
                       req: bool,
                       fixed: Option<u8>| match &node.children {
            Some(children) => {
                seg_fields(&children[0], fields, rules, req, fixed);
                body(&children[1..], fields, rules, req, level, None);
            }
            None => seg_fields(node, fields, rules, req, fixed),
        };
        if map.binds.is_empty() {
            let req = required && (node.mandatory || (k == 0 && fixed.is_some()));
            content(fields, rules, req, if k == 0 { fixed } else { None });
        } else {
            for b in &map.binds {
                if b.path.is_empty() {
                    // `.`: the fields are on the current object.
                    content(fields, rules, false, None);
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
                let shape = if b.array {
                    Shape::Array(
                        Box::new(obj),
                        bound(node).map(|m| {
                            if single {
                                m.saturating_sub(1).max(1)
                            } else {
                                m
                            }
                        }),
                    )
                } else {
                    obj
                };
                put(
                    fields,
                    &b.path,
                    shape,
                    required && node.mandatory && map.binds.len() == 1,
                );
            }
        }
    }
}

fn hier(node: &Node, map: &NodeMap, root: &mut Vec<Field>) {
    let children = node.children.as_deref().unwrap_or(&[]);
    fn level(children: &[Node], map: &NodeMap, lvl: &HlLevel, container: &mut Vec<Field>) {
        let mut obj = Vec::new();
        let mut rules = Vec::new();
        seg_fields(&children[0], &mut obj, &mut rules, true, None);
        body(
            &children[1..],
            &mut obj,
            &mut rules,
            true,
            Some(&lvl.code),
            None,
        );
        for c in map.hier.iter().filter(|c| c.under.contains(&lvl.code)) {
            if lvl.flat {
                level(children, map, c, container);
            } else {
                level(children, map, c, &mut obj);
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
        level(children, map, top, root);
    }
}

fn build(code: &str, edition: Edition) -> Option<Shape> {
    let d = declaration(code, edition)?;
    let mut fields = Vec::new();
    let mut rules = Vec::new();
    body(&d.body, &mut fields, &mut rules, true, None, None);
    Some(Shape::Object(fields, rules))
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
                props.insert(f.name.clone(), to_schema(&f.shape));
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
    let s = shape(code)?;
    let d = declaration(code, Edition::Base)?;
    let mut v = to_schema(&s);
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
