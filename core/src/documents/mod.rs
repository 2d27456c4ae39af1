//! The 18 outbound transaction sets: one declaration per set, as data, drives
//! rendering (payload JSON → body segments), mapping back (segments → the
//! same JSON), required-field errors, the payload JSON Schemas, and the
//! structure validation of received sets.
//!
//! Declarations live in `sets/<code>.x12d` (the language is described in
//! `dsl.rs`) with shared building blocks (parties, references, dates,
//! product ids) in `sets/common.x12d`. Each is compiled once per edition:
//! the base edition (004010; 004030 for 753/754) and 005010, the versions
//! with a structure of their own (others: [`coverage`]). To add a set,
//! write its file and add it to `SOURCES`: the renderer, mapper, validator
//! and schema follow. The test `declarations_compile_and_resolve` checks
//! every declaration and names the file and line of a fault.
//!
//! Public here: the set registry ([`TYPES`], [`is_known`], [`name`],
//! [`functional_id`], [`since`], [`edition`], [`describe_segment`]), map-back ([`map_back`],
//! [`canonical`]; a mapped document lists the received segments it could
//! not place under `unmapped`), the structure checks ([`validate_transaction`],
//! [`validate_document`], [`diagnostics`], [`StructureRules`], [`Finding`],
//! with the versions that have their own structure: [`versions`],
//! [`coverage`], [`Coverage`]),
//! and the payload shapes and JSON Schemas ([`schema`], with the field
//! types [`PType`], [`XType`] and [`Edition`]). Rendering is reached through
//! [`crate::render()`] and [`crate::ops`]. The rest is internal, one module
//! each: `dsl` (the declaration language) and `model` (its compiled form),
//! `syntax` (the P/R/C/E/L syntax rules), `encode` (payload → segments),
//! `matcher` (received segments → the declaration's tree), `elements` (the
//! element checks), `finding` (what the checks report), `decode` (the
//! map-back arena) and `value` (JSON ↔ X12 element values).

mod decode;
mod dsl;
mod elements;
pub(crate) mod encode;
mod finding;
mod matcher;
mod model;
pub mod schema;
mod syntax;
pub(crate) mod value;

pub use finding::Finding;
pub use model::{Edition, PType, XType};

use crate::diagnostics::Diagnostic;
use crate::envelope::{Document, Group, Transaction};
use crate::error::ErrorCode;
use model::SetDecl;
use serde_json::Value;
use std::sync::OnceLock;

/// The transaction sets x12kit renders, maps back and validates.
pub const TYPES: [&str; 18] = [
    "850", "810", "855", "856", "204", "210", "211", "212", "214", "753", "754", "858", "940",
    "943", "944", "945", "947", "990",
];

const COMMON: &str = include_str!("sets/common.x12d");

const SOURCES: [(&str, &str); 18] = [
    ("850", include_str!("sets/850.x12d")),
    ("810", include_str!("sets/810.x12d")),
    ("855", include_str!("sets/855.x12d")),
    ("856", include_str!("sets/856.x12d")),
    ("204", include_str!("sets/204.x12d")),
    ("210", include_str!("sets/210.x12d")),
    ("211", include_str!("sets/211.x12d")),
    ("212", include_str!("sets/212.x12d")),
    ("214", include_str!("sets/214.x12d")),
    ("753", include_str!("sets/753.x12d")),
    ("754", include_str!("sets/754.x12d")),
    ("858", include_str!("sets/858.x12d")),
    ("940", include_str!("sets/940.x12d")),
    ("943", include_str!("sets/943.x12d")),
    ("944", include_str!("sets/944.x12d")),
    ("945", include_str!("sets/945.x12d")),
    ("947", include_str!("sets/947.x12d")),
    ("990", include_str!("sets/990.x12d")),
];

/// The index of `code` in [`TYPES`] (and `SOURCES`).
pub(crate) fn type_index(code: &str) -> Option<usize> {
    TYPES.iter().position(|t| *t == code)
}

/// True when `kind` (ST01) is one of the 18 types, without allocating.
#[inline]
pub fn is_known(kind: &[u8]) -> bool {
    TYPES.iter().any(|t| t.as_bytes() == kind)
}

/// One problem of a payload: the crate's [`Problem`](crate::error::Problem).
pub(crate) type Issue = crate::error::Problem;
pub(crate) use crate::diagnostics::Severity;

/// One set, compiled for both editions on first use (a run that sees only
/// 850s compiles only the 850).
struct Compiled {
    /// Base and 005010 declarations.
    decls: (SetDecl, SetDecl),
    /// Segment ids of each declaration.
    ids: (Vec<String>, Vec<String>),
    /// Whether each declaration's payload keys need no JSON escaping.
    keys_clean: (bool, bool),
    /// Segment keys of each declaration, for matching.
    shapes: (matcher::Shape, matcher::Shape),
}

/// The named blocks of `common.x12d` (`block NAME` and its lines).
type Blocks = Vec<(String, Vec<dsl::Line>)>;

/// The blocks of `common.x12d`, or its first fault (`common.x12d:LINE: …`).
fn blocks() -> Result<&'static [(String, Vec<dsl::Line>)], &'static str> {
    static B: OnceLock<Result<Blocks, String>> = OnceLock::new();
    B.get_or_init(|| dsl::parse_blocks(COMMON).map_err(|e| located("common.x12d", &e)))
        .as_ref()
        .map(Vec::as_slice)
        .map_err(String::as_str)
}

/// A declaration fault `line N: …` as `FILE:N: …` (a fault in a block of
/// `common.x12d` used by the file: `common.x12d:N: … (used by FILE)`).
fn located(file: &str, e: &str) -> String {
    let (place, rest) = match e.split_once(": ") {
        Some((p, r)) => (p, r),
        None => return format!("{file}: {e}"),
    };
    if let Some(n) = place.strip_prefix("line ") {
        format!("{file}:{n}: {rest}")
    } else if let Some(n) = place.strip_prefix("common.x12d line ") {
        format!("common.x12d:{n}: {rest} (used by {file})")
    } else {
        format!("{file}: {e}")
    }
}

/// Parses and compiles a set's file for both editions, with the numbers of
/// its own `seg`/`loop` lines that name a node in neither edition
/// (declaration typos, which the declarations test reports); `Err`: the
/// first fault, as `FILE:LINE: message`.
fn compile_set(i: usize) -> Result<(Compiled, Vec<usize>), String> {
    let (code, text) = SOURCES[i];
    let file = format!("{code}.x12d");
    let src = dsl::parse_source(text, blocks()?).map_err(|e| located(&file, &e))?;
    let (mut base, a) = dsl::compile(&src, Edition::Base).map_err(|e| located(&file, &e))?;
    let (mut v5, b) =
        dsl::compile(&src, Edition::V5010).map_err(|e| located(&file, &format!("{e} (005010)")))?;
    if base.code != code {
        return Err(format!("{file}:1: declares set {}, not {code}", base.code));
    }
    decode::seal(&mut base.body);
    decode::seal(&mut v5.body);
    let mut unresolved = dsl::own_map_lines(&src);
    unresolved.retain(|n| !a.contains(n) && !b.contains(n));
    let compiled = Compiled {
        ids: (matcher::ids(&base), matcher::ids(&v5)),
        keys_clean: (decode::keys_clean(&base.body), decode::keys_clean(&v5.body)),
        shapes: (
            matcher::Shape::new(&base.body),
            matcher::Shape::new(&v5.body),
        ),
        decls: (base, v5),
    };
    Ok((compiled, unresolved))
}

/// The compiled set at index `i` of [`TYPES`] (and `SOURCES`); `None` only
/// for a declaration that does not compile, which the declarations test
/// (`tests::declarations_compile_and_resolve`) reports with its file and
/// line: the set is then treated as one x12kit does not know, never a panic.
fn compiled(i: usize) -> Option<&'static Compiled> {
    static C: [OnceLock<Result<Compiled, String>>; 18] = [const { OnceLock::new() }; 18];
    C.get(i)?
        .get_or_init(|| compile_set(i).map(|(c, _)| c))
        .as_ref()
        .ok()
}

/// The fault of each of the 18 declarations that does not compile
/// (`FILE:LINE: message`), and of each mapping line that names no node
/// in either edition.
#[cfg(test)]
fn declaration_faults() -> Vec<String> {
    let mut out = Vec::new();
    for (i, code) in TYPES.iter().enumerate() {
        match compile_set(i) {
            Err(e) => out.push(e),
            Ok((_, unresolved)) => out.extend(unresolved.iter().map(|n| {
                format!(
                    "{code}.x12d:{n}: names a segment or loop that is in neither edition's structure"
                )
            })),
        }
    }
    out
}

/// Segment ids of all the sets, both editions (compiles every set).
fn known_ids() -> &'static [String] {
    static K: OnceLock<Vec<String>> = OnceLock::new();
    K.get_or_init(|| {
        let mut known: Vec<String> = Vec::new();
        for c in (0..TYPES.len()).filter_map(compiled) {
            for id in c.ids.0.iter().chain(&c.ids.1) {
                if !known.contains(id) {
                    known.push(id.clone());
                }
            }
        }
        known
    })
}

/// The edition of a version string (`004010`, `004030`, `005010`, `005010X…`).
pub fn edition(version: &str) -> Edition {
    if version.get(..6).is_some_and(|v| v >= "005010") {
        Edition::V5010
    } else {
        Edition::Base
    }
}

/// The compiled declaration of a set for an edition.
pub(crate) fn declaration(code: &str, edition: Edition) -> Option<&'static SetDecl> {
    declared(code.as_bytes(), edition).map(|d| d.decl)
}

/// A compiled declaration with what mapping a set needs of it, found once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Declared {
    pub decl: &'static SetDecl,
    /// Its payload keys need no JSON escaping.
    pub keys_clean: bool,
    pub shape: &'static matcher::Shape,
    /// The segment ids it uses.
    pub ids: &'static [String],
}

/// The compiled declaration of set type `code` (ST01) for an edition.
fn declared(code: &[u8], edition: Edition) -> Option<Declared> {
    let c = compiled(type_index(std::str::from_utf8(code).ok()?)?)?;
    Some(match edition {
        Edition::Base => Declared {
            decl: &c.decls.0,
            keys_clean: c.keys_clean.0,
            shape: &c.shapes.0,
            ids: &c.ids.0,
        },
        Edition::V5010 => Declared {
            decl: &c.decls.1,
            keys_clean: c.keys_clean.1,
            shape: &c.shapes.1,
            ids: &c.ids.1,
        },
    })
}

/// The segment ids a declaration uses (cached).
pub(crate) fn set_ids(decl: &SetDecl) -> &'static [String] {
    match type_index(&decl.code).and_then(compiled) {
        Some(c) if decl.edition == Edition::Base => &c.ids.0,
        Some(c) => &c.ids.1,
        None => &[],
    }
}

/// The matching shape of a compiled declaration (`None` for another one).
pub(crate) fn shape(decl: &SetDecl) -> Option<&'static matcher::Shape> {
    let c = compiled(type_index(&decl.code)?)?;
    if std::ptr::eq(decl, &c.decls.0) {
        Some(&c.shapes.0)
    } else if std::ptr::eq(decl, &c.decls.1) {
        Some(&c.shapes.1)
    } else {
        None
    }
}

/// The first segment node with this id in a node list (depth first).
fn find_segment<'d>(nodes: &'d [model::Node], id: &str) -> Option<&'d model::Node> {
    nodes.iter().find_map(|n| match &n.children {
        Some(children) => find_segment(children, id),
        None => (n.id == id).then_some(n),
    })
}

/// The segments described for any set (or without one): the envelopes
/// and the acknowledgments (TA1, 997, 999).
pub const ENVELOPE_SEGMENTS: [&str; 17] = [
    "ISA", "IEA", "GS", "GE", "ST", "SE", "TA1", "AK1", "AK2", "AK3", "AK4", "AK5", "AK9", "IK3",
    "IK4", "IK5", "CTX",
];

const DICTIONARY: &str = include_str!("sets/dictionary.x12d");

/// The dictionary of `sets/dictionary.x12d`, or its first fault
/// (`dictionary.x12d:LINE: …`), which the dictionary tests report.
fn dictionary_or_fault() -> Result<&'static model::Dictionary, &'static str> {
    static D: OnceLock<Result<model::Dictionary, String>> = OnceLock::new();
    D.get_or_init(|| dsl::parse_dictionary(DICTIONARY).map_err(|e| located("dictionary.x12d", &e)))
        .as_ref()
        .map_err(String::as_str)
}

/// The dictionary (`None` only when it does not parse, which the tests report).
pub(crate) fn dictionary() -> Option<&'static model::Dictionary> {
    dictionary_or_fault().ok()
}

/// Code meanings of the acknowledgment error elements, which the
/// acknowledgment code keeps (`crate::validate::mapping`): the codes with a
/// meaning among the candidates.
fn ack_meanings(number: &str) -> Vec<(String, String)> {
    use crate::validate::mapping as m;
    let (f, three): (fn(&str) -> &'static str, bool) = match number {
        "I18" => (m::ta1_note, true),
        "716" => (m::ak9_error, false),
        "718" | "618" => (m::ak5_error, false),
        "720" | "620" => (m::segment_error, false),
        "723" | "621" => (m::element_error, false),
        _ => return Vec::new(),
    };
    let candidates: Vec<String> = if three {
        (0..100).map(|n| format!("{n:03}")).collect()
    } else {
        (1..40)
            .map(|n| n.to_string())
            .chain((1..20).map(|n| format!("I{n}")))
            .collect()
    };
    let unknown = f("\u{1}");
    candidates
        .into_iter()
        .filter_map(|c| {
            let t = f(&c);
            (t != unknown).then(|| (c, t.to_string()))
        })
        .collect()
}

/// The `meanings` of a data element: `[{code, meaning}]`.
fn meanings(number: Option<&str>) -> Value {
    let Some(number) = number else {
        return Value::Array(Vec::new());
    };
    let mut list: Vec<(String, String)> = dictionary()
        .and_then(|d| d.element(number))
        .map(|e| e.codes.clone())
        .unwrap_or_default();
    if list.is_empty() {
        list = ack_meanings(number);
    }
    Value::Array(
        list.into_iter()
            .map(|(code, meaning)| serde_json::json!({"code": code, "meaning": meaning}))
            .collect(),
    )
}

/// What a code of the element at a position of a segment means (in either
/// edition), from the dictionary: for the schemas' descriptions.
pub(crate) fn code_meaning(segment: &str, pos: u8, code: &str) -> Option<&'static str> {
    let d = dictionary()?;
    let s = d.segment(segment)?;
    [Edition::Base, Edition::V5010]
        .into_iter()
        .filter_map(|ed| s.number_at(pos, ed))
        .filter_map(|n| d.element(n))
        .find_map(|e| e.meaning(code))
}

/// Number and name of the element at a position of a segment, from the dictionary.
fn element_at(segment: &str, pos: u8, ed: Edition) -> (Option<&'static str>, Option<&'static str>) {
    let Some(d) = dictionary() else {
        return (None, None);
    };
    let number = d.segment(segment).and_then(|s| s.number_at(pos, ed));
    let name = number.and_then(|n| d.element(n)).map(|e| e.name.as_str());
    (number, name)
}

/// What x12kit knows of a segment, for inspectors: the set's declaration
/// and the X12 dictionary it uses (`sets/dictionary.x12d`).
///
/// `{set, setName, segment, segmentName, mandatory, maxUse, elements:
/// [{position, number, name, type, min, max, mandatory, description,
/// field, codes, knownCodes, meanings: [{code, meaning}]}]}`:
/// `segmentName`, an element's `number` (its data element number, e.g.
/// `353`) and `name` come from the dictionary; `meanings` lists the codes
/// x12kit knows for the element with what each means; `codes` (the allowed
/// codes, when the list is closed) and `knownCodes` (the codes the
/// declaration knows) are the declaration's. `maxUse` is null when
/// unbounded; `field` is the payload path of a mapped element. A run of
/// qualifier/id pairs (PO106/PO107 …) is listed position by position.
///
/// A segment of [`ENVELOPE_SEGMENTS`] (ISA … SE, TA1 and the 997/999
/// segments) is described from the dictionary for any `set_type` (`""`
/// for none): `set`/`setName` are null unless the set is one of the 18,
/// `mandatory` and `maxUse` are null, and each element's `mandatory` is
/// the standard's. `None`: a segment that is neither in the set's
/// declaration nor an envelope or acknowledgment segment. `version` picks
/// the edition: a group's version (GS08: `004010`, `005010`, …), an
/// interchange's (ISA12: `00401`, `00501`), or `""` for the base edition.
pub fn describe_segment(set_type: &str, version: &str, segment: &str) -> Option<Value> {
    let ed = match version {
        v if v.len() == 5 && v.bytes().all(|b| b.is_ascii_digit()) => {
            if v >= "00501" {
                Edition::V5010
            } else {
                Edition::Base
            }
        }
        v => edition(v),
    };
    let decl = declaration(set_type, ed);
    let segment_name = |id: &str| {
        dictionary()
            .and_then(|d| d.segment(id))
            .map(|s| s.name(ed).to_string())
    };
    if let Some(node) = decl.and_then(|d| find_segment(&d.body, segment)) {
        let decl = decl?;
        let mut elements: Vec<Value> = Vec::new();
        for e in node.map.iter().flat_map(|m| &m.elements) {
            if let model::Target::Pairs(p) = &e.target {
                for k in 0..2 * p.count {
                    let pos = e.pos + k;
                    let (number, name) = element_at(&node.id, pos, ed);
                    let (xt, (min, max)) = if k % 2 == 0 {
                        ("ID", p.qualifier_len)
                    } else {
                        ("AN", p.id_len)
                    };
                    elements.push(serde_json::json!({
                        "position": pos,
                        "number": number,
                        "name": name,
                        "type": xt,
                        "min": min,
                        "max": max,
                        "mandatory": e.mandatory && k < 2,
                        "description": Value::Null,
                        "field": Value::Null,
                        "codes": Value::Null,
                        "knownCodes": if k % 2 == 0 {
                            Some(p.promote.iter().map(|(q, _)| q.clone()).collect::<Vec<_>>())
                        } else {
                            None
                        },
                        "meanings": if k % 2 == 0 { meanings(number) } else { Value::Array(Vec::new()) },
                    }));
                }
                continue;
            }
            let (number, name) = element_at(&node.id, e.pos, ed);
            elements.push(serde_json::json!({
                "position": e.pos,
                "number": number,
                "name": name,
                "type": e.xtype.name(),
                "min": e.min,
                "max": e.max,
                "mandatory": e.mandatory,
                "description": e.doc,
                "field": match &e.target {
                    model::Target::Field(path) => Some(path.join("/")),
                    _ => None,
                },
                "codes": e.codes,
                "knownCodes": e.known,
                "meanings": meanings(number),
            }));
        }
        return Some(serde_json::json!({
            "set": decl.code,
            "setName": decl.name,
            "segment": node.id,
            "segmentName": segment_name(&node.id),
            "mandatory": node.mandatory,
            "maxUse": if node.max == u32::MAX { None } else { Some(node.max) },
            "elements": elements,
        }));
    }
    if !ENVELOPE_SEGMENTS.contains(&segment) {
        return None;
    }
    let d = dictionary()?;
    let seg = d.segment(segment)?;
    let elements: Vec<Value> = seg
        .positions
        .iter()
        .filter_map(|p| {
            let number = match ed {
                Edition::Base => p.base.as_deref(),
                Edition::V5010 => p.v5010.as_deref(),
            }?;
            let el = d.element(number)?;
            let (min, max) = el.lengths(ed);
            Some(serde_json::json!({
                "position": p.pos,
                "number": number,
                "name": el.name,
                "type": if el.xtype == "C" { "composite" } else { el.xtype.as_str() },
                "min": (el.xtype != "C").then_some(min),
                "max": (el.xtype != "C").then_some(max),
                "mandatory": p.mandatory,
                "description": Value::Null,
                "field": Value::Null,
                "codes": Value::Null,
                "knownCodes": Value::Null,
                "meanings": meanings(Some(number)),
            }))
        })
        .collect();
    Some(serde_json::json!({
        "set": decl.map(|d| d.code.as_str()),
        "setName": decl.map(|d| d.name.as_str()),
        "segment": seg.id,
        "segmentName": seg.name(ed),
        "mandatory": Value::Null,
        "maxUse": Value::Null,
        "elements": elements,
    }))
}

/// Name of a set (`Purchase Order`).
pub fn name(code: &str) -> Option<&'static str> {
    declaration(code, Edition::Base).map(|d| d.name.as_str())
}

/// GS01 functional identifier of a set (`PO` for 850).
pub fn functional_id(code: &str) -> Option<&'static str> {
    declaration(code, Edition::Base).map(|d| d.functional_id.as_str())
}

/// Earliest version of a set (`004010`; `004030` for 753/754).
pub fn since(code: &str) -> Option<&'static str> {
    declaration(code, Edition::Base).map(|d| d.since.as_str())
}

/// A rendered body: segments (id first, then elements) and the normalised payload.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    /// Segments between ST and SE.
    pub segments: Vec<Vec<String>>,
    /// The payload as map-back will return it: defaults filled in, numbers
    /// canonical, ignored (unknown) fields removed, and the members rendered
    /// as absent left out (null, `[]`, objects with nothing else).
    pub normalized: Value,
    /// Warnings (unknown fields).
    pub warnings: Vec<Issue>,
}

/// Renders a payload into body segments. Errors: every problem found, at once.
pub(crate) fn render_body(
    code: &str,
    version: &str,
    payload: &Value,
    ctx: &encode::Context,
) -> Result<Body, Vec<Issue>> {
    let Some(decl) = declaration(code, edition(version)) else {
        return Err(vec![Issue {
            severity: Severity::Error,
            code: ErrorCode::UnknownDocumentType,
            pointer: "/".into(),
            message: format!(
                "x12kit does not render transaction set {code}; known: {}",
                TYPES.join(", ")
            ),
        }]);
    };
    let mut enc = encode::Encoder::new(decl, ctx);
    enc.run(payload);
    let mut issues = enc.issues;
    let mut warnings = Vec::new();
    schema::unknown_fields(code, decl.edition, payload, &mut warnings);
    if issues.iter().any(|i| i.severity == Severity::Error) {
        issues.extend(warnings);
        sort(&mut issues);
        return Err(issues);
    }
    let mut normalized = canonical(payload);
    let ignored: Vec<String> = warnings
        .iter()
        .filter(|w| w.code == ErrorCode::UnknownField)
        .map(|w| w.pointer.clone())
        .collect();
    schema::remove(&mut normalized, &ignored);
    if let Value::Object(o) = &mut normalized {
        o.remove(schema::UNMAPPED);
    }
    drop_empty(&mut normalized);
    for (ptr, v) in enc.defaults {
        insert(&mut normalized, &ptr, v);
    }
    // Innermost first: an outer move carries the inner result along.
    for (obj, arr) in enc.moves.iter().rev() {
        move_first(&mut normalized, obj, arr);
    }
    warnings.extend(issues);
    sort(&mut warnings);
    Ok(Body {
        segments: enc.out,
        normalized,
        warnings,
    })
}

fn sort(issues: &mut [Issue]) {
    issues.sort_by(|a, b| {
        (a.severity != Severity::Error)
            .cmp(&(b.severity != Severity::Error))
            .then_with(|| a.pointer.cmp(&b.pointer))
    });
}

/// Numbers in canonical form (integral values as integers), recursively.
pub fn canonical(v: &Value) -> Value {
    let mut c = v.clone();
    canonical_in_place(&mut c);
    c
}

/// [`canonical`] on a value of one's own (a clone is cheaper than a rebuild).
fn canonical_in_place(v: &mut Value) {
    match v {
        Value::Number(_) => *v = value::canonical(v),
        Value::Array(a) => a.iter_mut().for_each(canonical_in_place),
        Value::Object(o) => o.values_mut().for_each(canonical_in_place),
        _ => {}
    }
}

/// Leaves out the object members render treats as absent: null, `[]`,
/// and objects with nothing else (`{}`), at any depth. Array items stay
/// (an item is an occurrence even when it holds nothing). True when `v`
/// itself is such a value.
fn drop_empty(v: &mut Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(o) => {
            o.retain(|_, m| !drop_empty(m));
            o.is_empty()
        }
        Value::Array(a) => {
            for m in a.iter_mut() {
                drop_empty(m);
            }
            a.is_empty()
        }
        _ => false,
    }
}

/// Moves the first item of the array at pointer `arr` onto the object at
/// pointer `obj` (its members added), dropping the array when it empties.
fn move_first(root: &mut Value, obj: &str, arr: &str) {
    let Some(Value::Array(a)) = root.pointer_mut(arr) else {
        return;
    };
    if a.is_empty() {
        return;
    }
    let first = a.remove(0);
    let empty = a.is_empty();
    let key = arr
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .replace("~1", "/")
        .replace("~0", "~");
    if empty {
        let parent = &arr[..arr.len() - arr.rsplit('/').next().map_or(0, str::len) - 1];
        if let Some(Value::Object(p)) = root.pointer_mut(parent) {
            p.remove(&key);
        }
    }
    match (root.pointer_mut(obj), first) {
        (Some(Value::Object(o)), Value::Object(item)) => merge_into(o, item),
        (None, first) => insert(root, obj, first),
        _ => {}
    }
}

/// Adds the members of `from` to `to`, merging objects member by member
/// (N3's `address/street` beside N4's `address/city`).
fn merge_into(to: &mut serde_json::Map<String, Value>, from: serde_json::Map<String, Value>) {
    for (k, v) in from {
        match (to.get_mut(&k), v) {
            (Some(Value::Object(a)), Value::Object(b)) => merge_into(a, b),
            (_, v) => {
                to.insert(k, v);
            }
        }
    }
}

/// A JSON pointer part unescaped (`~1` is `/`, `~0` is `~`), without
/// allocating when it has no `~`.
pub(crate) fn unescape(p: &str) -> std::borrow::Cow<'_, str> {
    if p.contains('~') {
        p.replace("~1", "/").replace("~0", "~").into()
    } else {
        p.into()
    }
}

fn insert(root: &mut Value, ptr: &str, v: Value) {
    let mut cur = root;
    let mut parts = ptr.split('/').skip(1).peekable();
    while let Some(p) = parts.next() {
        let last = parts.peek().is_none();
        cur = match cur {
            Value::Object(o) => {
                let p = unescape(p);
                if last {
                    o.insert(p.into_owned(), v);
                    return;
                }
                // An existing member is found without a key of its own.
                if o.contains_key(&*p) {
                    let Some(x) = o.get_mut(&*p) else { return };
                    x
                } else {
                    o.entry(p.into_owned())
                        .or_insert_with(|| Value::Object(Default::default()))
                }
            }
            Value::Array(a) => match p.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                Some(x) => x,
                None => return,
            },
            _ => return,
        };
    }
}

/// The edition of the functional group's version (GS08; `004010` when
/// absent), without allocating for a UTF-8 version.
fn group_edition(g: &Group<'_>) -> Edition {
    let v = g.gs.as_ref().map_or(&[][..], |gs| gs.value(8));
    if v.is_empty() {
        return edition("004010");
    }
    // ASCII (every real version): compared as bytes, as `edition` compares.
    if v.len() >= 6 && v[..6].is_ascii() {
        return if &v[..6] >= b"005010" {
            Edition::V5010
        } else {
            Edition::Base
        };
    }
    match std::str::from_utf8(v) {
        Ok(s) => edition(s),
        Err(_) => edition(&String::from_utf8_lossy(v)),
    }
}

fn known(id: &str) -> bool {
    known_ids().iter().any(|k| k == id) || matches!(id, "ST" | "SE" | "GS" | "GE" | "ISA" | "IEA")
}

/// Maps a received transaction set back to its payload JSON; `None` for sets
/// that are not among the 18.
pub fn map_back(doc: &Document<'_>, group: &Group<'_>, tx: &Transaction<'_>) -> Option<Value> {
    map_back_tree(doc, group, tx).map(|j| j.to_value())
}

/// Buffers of document mapping, reused from set to set (the parse JSON
/// writer keeps one).
pub(crate) type Mapper<'a> = decode::Mapping<'a>;

/// The known sets' mapping, plugged into the parse result's writer
/// ([`crate::json`]): each set of a known type gets its `document`.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonDocuments;

impl x12kit_json::Documents for JsonDocuments {
    type Mapper<'a> = Mapper<'a>;
}

impl<'a> x12kit_json::SetMapper<'a> for Mapper<'a> {
    #[inline]
    fn maps(&self, kind: &[u8]) -> bool {
        is_known(kind)
    }

    #[inline]
    fn start_body(&mut self) {
        self.clear_body();
    }

    #[inline]
    fn push_body(&mut self, seg: crate::segment::Segment<'a>, clean: bool) {
        self.push_body_checked(seg, clean);
    }

    #[inline]
    fn write_document(
        &mut self,
        doc: &Document<'a>,
        group: &Group<'a>,
        tx: &Transaction<'a>,
        out: &mut Vec<u8>,
    ) -> bool {
        write_document_with(self, doc, group, tx, true, out)
    }
}

/// Appends the mapped document of a set as compact JSON (what the parse
/// result carries as `document`), with buffers kept from the previous sets;
/// false for sets not among the 18.
/// `collected`: the set's body segments were already given to `m`
/// ([`Mapper::push_body`]) while writing them.
pub(crate) fn write_document_with<'a>(
    m: &mut Mapper<'a>,
    doc: &Document<'a>,
    group: &Group<'a>,
    tx: &Transaction<'a>,
    collected: bool,
    out: &mut Vec<u8>,
) -> bool {
    if !collected {
        m.clear_body();
        for seg in doc.body(tx) {
            m.push_body(seg);
        }
    }
    // Only written: one-key fields may go straight to JSON text.
    m.tree.use_runs = true;
    match map_into(m, group, tx) {
        Some(root) => {
            m.tree.write(root, out);
            true
        }
        None => false,
    }
}

/// The mapped document of one transaction set as compact JSON: the bytes
/// the parse result ([`crate::json`]) carries as that set's `document`,
/// keys in the contract's order (unlike [`map_back`], whose
/// `serde_json::Value` sorts them). `None` where the parse result has no
/// `document`: a set not among the 18. For a binding's per-set accessor:
/// the cost is the set's size, not the file's.
pub fn document_json<'a>(
    doc: &Document<'a>,
    group: &Group<'a>,
    tx: &Transaction<'a>,
) -> Option<Vec<u8>> {
    if !is_known(tx.kind()) {
        return None;
    }
    let mut out = Vec::new();
    write_document_with(&mut Mapper::default(), doc, group, tx, false, &mut out).then_some(out)
}

/// Matches and maps a set whose body is collected in `m`; the root object
/// of `m.tree`.
fn map_into(m: &mut Mapper<'_>, group: &Group<'_>, tx: &Transaction<'_>) -> Option<u32> {
    // The GS as received, and its element separator, decide the edition.
    let (gs, sep) = group
        .gs
        .as_ref()
        .map_or((&[][..], 0), |gs| (gs.raw(), gs.delimiters().element));
    let edition = match &m.edition {
        Some((raw, e)) if raw.split_last() == Some((&sep, gs)) => *e,
        _ => {
            let e = group_edition(group);
            let mut key = gs.to_vec();
            key.push(sep);
            m.edition = Some((key, e));
            e
        }
    };
    // Sets of one type follow each other: the last one's declaration is kept.
    let kind = tx.kind();
    let d = match &m.declared {
        Some((k, e, d)) if *e == edition && k.as_slice() == kind => *d,
        _ => {
            let d = declared(kind, edition)?;
            m.declared = Some((kind.to_vec(), edition, d));
            d
        }
    };
    let end = tx.se.as_ref().map_or((0, 0), |s| (s.index(), s.offset()));
    Some(m.map(d, tx.st.index(), end, &known))
}

fn map_back_tree<'a>(
    doc: &Document<'a>,
    group: &Group<'a>,
    tx: &Transaction<'a>,
) -> Option<decode::J<'a>> {
    let mut m = Mapper::default();
    for seg in doc.body(tx) {
        m.push_body(seg);
    }
    let root = map_into(&mut m, group, tx)?;
    Some(m.tree.to_j(root))
}

/// The versions whose structure x12kit declares for a set: its base
/// version ([`since`]: 004010, or 004030 for 753/754) and 005010.
pub fn versions(code: &str) -> Option<[&'static str; 2]> {
    Some([since(code)?, "005010"])
}

/// Which structure a received set of version `version` (GS08) is checked
/// against ([`versions`] lists the ones x12kit declares).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// The version's own structure: findings are errors.
    Own(Edition),
    /// A version x12kit does not declare (e.g. 004020, 004030, 006020),
    /// checked against the nearest earlier one it does (named): a
    /// `STRUCTURE_VERSION` warning says so, and the findings are warnings,
    /// never errors from another version's rules.
    Nearest(Edition, &'static str),
    /// A version earlier than any x12kit declares for the set (e.g. 003040):
    /// not structure-checked, with a `STRUCTURE_VERSION` warning.
    Unchecked,
}

/// How a set of type `code` and version `version` (GS08) is
/// structure-checked; `None` for a type that is not among the 18. A GS08
/// that does not start with 6 digits (empty, or `GS08_INVALID`) is taken as
/// 004010, as the rest of x12kit does.
pub fn coverage(code: &str, version: &str) -> Option<Coverage> {
    let [base, v5] = versions(code)?;
    let v = match version.get(..6) {
        Some(v) if v.bytes().all(|b| b.is_ascii_digit()) => v,
        _ => "004010",
    };
    Some(if v == base {
        Coverage::Own(Edition::Base)
    } else if v == v5 {
        Coverage::Own(Edition::V5010)
    } else if v > v5 {
        Coverage::Nearest(Edition::V5010, v5)
    } else if v > base {
        Coverage::Nearest(Edition::Base, base)
    } else {
        Coverage::Unchecked
    })
}

/// Structure and element findings of a received set of one of the 18 types
/// (`None` for other types), sorted by position; for a version without its
/// own structure, warnings only ([`coverage`]).
pub fn validate_transaction(
    doc: &Document<'_>,
    group: &Group<'_>,
    tx: &Transaction<'_>,
) -> Option<Vec<Finding>> {
    let code = std::str::from_utf8(tx.kind()).ok()?;
    let version = group.gs.as_ref().map_or(&[][..], |gs| gs.value(8));
    let version = String::from_utf8_lossy(version);
    let segs: Vec<_> = doc.body(tx).collect();
    let end = match &tx.se {
        Some(s) => (s.index(), s.offset()),
        None => segs
            .last()
            .map_or((tx.st.index() + 1, tx.st.offset()), |s| {
                (s.index() + 1, s.offset() + s.raw().len())
            }),
    };
    checked(code, &version, &tx.st, &segs, end)
}

/// The findings of a set of type `code` and version `version`, body
/// `body`, by its [`coverage`]; `None` for a type not among the 18.
fn checked(
    code: &str,
    version: &str,
    st: &crate::segment::Segment<'_>,
    body: &[crate::segment::Segment<'_>],
    end: (usize, usize),
) -> Option<Vec<Finding>> {
    let shown = if version.is_empty() {
        "(none)"
    } else {
        version
    };
    let note = |message: String| Finding {
        code: crate::diagnostics::Code::StructureVersion,
        message,
        segment_index: st.index(),
        offset: st.offset(),
        segment_id: "ST".into(),
        element: None,
        component: None,
        segment_code: None,
        element_code: None,
        value: None,
        loop_id: None,
        severity: Severity::Warning,
    };
    Some(match coverage(code, version)? {
        Coverage::Own(ed) => findings(declaration(code, ed)?, body, end),
        Coverage::Nearest(ed, other) => {
            let mut f = findings(declaration(code, ed)?, body, end);
            for x in &mut f {
                x.severity = Severity::Warning;
                x.message = format!("{} (by the {other} structure)", x.message);
            }
            f.insert(
                0,
                note(format!(
                    "x12kit has no {code} structure for version {shown}: checked against {other}'s, whose findings are warnings here"
                )),
            );
            f
        }
        Coverage::Unchecked => vec![note(format!(
            "x12kit has no {code} structure for version {shown} or an earlier one (it has {}): the set's structure is not checked",
            versions(code)?.join(" and ")
        ))],
    })
}

fn findings(
    decl: &SetDecl,
    body: &[crate::segment::Segment<'_>],
    end: (usize, usize),
) -> Vec<Finding> {
    let (occ, mut findings) = matcher::match_body(decl, body, end, &known);
    elements::check_elements(&decl.body, &occ, body, None, &mut findings);
    findings.sort_by_key(|f| (f.segment_index, f.element.unwrap_or(0)));
    findings
}

/// The structure validation of the 18 sets as whole-set rules of the
/// envelope validator, so that its diagnostics (and the TA1/997/999 built
/// from them) include AK3/AK4 and IK3/IK4 findings:
///
/// ```
/// use x12kit::validate::{Buffered, Options, Validator};
/// let x12 = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *261122*0930*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20261122*0930*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20261131~PO1*1*2*EA~SE*4*0001~GE*1*1~IEA*1*000000001~";
/// let v = Validator::new(Options::default())
///     .with_rules(Box::new(Buffered::new(x12kit::documents::StructureRules)))
///     .run(&x12kit::parse(x12));
/// assert_eq!(v.diagnostics[0].code.as_str(), "ELEMENT_INVALID_DATE");
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct StructureRules;

impl crate::validate::WholeSetRules for StructureRules {
    fn check(
        &mut self,
        segments: &[crate::segment::Segment<'_>],
        complete: bool,
        _functional_id: Option<&[u8]>,
        version: &[u8],
        out: &mut Vec<Diagnostic>,
    ) {
        let Some(st) = segments.first() else { return };
        let Ok(code) = std::str::from_utf8(st.value(1)) else {
            return;
        };
        let version = String::from_utf8_lossy(version);
        let (body, end) = match segments.last() {
            Some(se) if complete && segments.len() >= 2 => {
                (&segments[1..segments.len() - 1], (se.index(), se.offset()))
            }
            Some(last) => (
                &segments[1..],
                (last.index() + 1, last.offset() + last.raw().len()),
            ),
            None => return,
        };
        if let Some(f) = checked(code, &version, st, body, end) {
            out.extend(f.iter().map(Finding::to_diagnostic));
        }
    }
}

/// Structure validation of every set of the 18 types in a parsed document,
/// as diagnostics with their acknowledgement codes (other sets are skipped).
pub fn diagnostics(doc: &Document<'_>) -> Vec<Diagnostic> {
    validate_document(doc)
        .iter()
        .map(Finding::to_diagnostic)
        .collect()
}

/// Structure findings of every known set of a parsed document, in order.
pub fn validate_document(doc: &Document<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for i in &doc.interchanges {
        for g in &i.groups {
            for t in &g.transactions {
                if let Some(f) = validate_transaction(doc, g, t) {
                    out.extend(f);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::Node;

    /// Mandatory nodes without a mapping line: render could not produce them.
    fn unmapped(code: &str, ed: Edition, nodes: &[Node], path: &str, out: &mut Vec<String>) {
        for n in nodes {
            if n.mandatory && n.map.is_none() {
                out.push(format!(
                    "{code}.x12d: mandatory {} at {path}/ ({ed:?} structure) has no mapping line, so render could not produce it",
                    n.id
                ));
            }
            if let (Some(children), Some(_)) = (&n.children, &n.map) {
                unmapped(code, ed, &children[1..], &format!("{path}/{}", n.id), out);
            }
        }
    }

    /// Mapped nodes that may repeat but would not give each occurrence its
    /// own array item (a repeat would merge into, or be refused by, the
    /// first one's object): every repeatable node's last binding must be an
    /// unconditional array (`name[]`, or `. name[]`, `first name[]`).
    fn merging_repeats(code: &str, ed: Edition, nodes: &[Node], path: &str, out: &mut Vec<String>) {
        for (k, n) in nodes.iter().enumerate() {
            let Some(map) = &n.map else { continue };
            let here = format!("{path}/{}", n.id);
            // (The start segment of a loop, node 0, occurs once per occurrence.)
            if map.hier.is_empty() && n.max > 1 && (k != 0 || path.is_empty()) {
                let ok = map
                    .binds
                    .last()
                    .is_some_and(|b| b.array && b.when.is_none());
                if !ok {
                    out.push(format!(
                        "{code}.x12d: {here} ({ed:?} structure) repeats (max {}) but its occurrences do not each get an array item",
                        if n.max == u32::MAX { ">1".to_string() } else { n.max.to_string() }
                    ));
                }
            }
            if let Some(children) = &n.children {
                merging_repeats(code, ed, children, &here, out);
            }
        }
    }

    /// The one check of the 18 declarations (`sets/*.x12d`, with the blocks
    /// of `common.x12d`): each parses and compiles for both editions, each
    /// `seg`/`loop` line names a node of at least one edition, and every
    /// mandatory node is mapped. Lists every fault as `FILE:LINE: message`.
    #[test]
    fn declarations_compile_and_resolve() {
        let mut faults = declaration_faults();
        for code in TYPES {
            for ed in [Edition::Base, Edition::V5010] {
                if let Some(d) = declaration(code, ed) {
                    assert_eq!(d.code, code);
                    unmapped(code, ed, &d.body, "", &mut faults);
                    merging_repeats(code, ed, &d.body, "", &mut faults);
                }
            }
        }
        assert!(
            faults.is_empty(),
            "bad declarations:\n{}",
            faults.join("\n")
        );
    }

    /// Segment ids of the 18 declarations that the dictionary does not
    /// name: none could be confirmed against a source here (see the
    /// dictionary's header); the inspector shows them without a name.
    const UNNAMED: [&str; 4] = ["CMC", "LP", "SL1", "V5"];

    /// The codes a declaration's description lists in its last
    /// parentheses ("… (00 original, 01 cancellation)"), for ID elements.
    fn doc_codes(doc: &str) -> Vec<String> {
        let Some(open) = doc.rfind('(') else {
            return Vec::new();
        };
        let inner = doc[open + 1..].trim_end_matches(')');
        inner
            .split(", ")
            .filter_map(|item| {
                let item = item.trim().trim_start_matches("e.g. ");
                let mut w = item.split_whitespace();
                let code = w.next()?;
                let next = w.next();
                let code_like = code
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
                (code_like && code != "ISO" && next != Some("only")).then(|| code.to_string())
            })
            .collect()
    }

    /// What a declaration says of a position: (position, type, lengths, known codes).
    type Wanted<'a> = (u8, &'a str, (u16, u16), Vec<String>);

    /// Every fault of the dictionary against the declarations: a declared
    /// element without a number or name, a type or length that differs,
    /// a known or listed code without a meaning, a segment without a name.
    fn dictionary_faults() -> Vec<String> {
        let d = match dictionary_or_fault() {
            Ok(d) => d,
            Err(e) => return vec![e.to_string()],
        };
        let mut out = Vec::new();
        for (i, code) in TYPES.iter().enumerate() {
            let Some(c) = compiled(i) else {
                out.push(format!("{code}: does not compile"));
                continue;
            };
            for decl in [&c.decls.0, &c.decls.1] {
                let ed = decl.edition;
                let tag = format!("{code} ({ed:?})");
                for id in set_ids(decl) {
                    if d.segment(id).is_none() && !UNNAMED.contains(&id.as_str()) {
                        out.push(format!("{tag}: segment {id} has no name"));
                    }
                }
                let mut stack: Vec<&model::Node> = decl.body.iter().collect();
                while let Some(node) = stack.pop() {
                    stack.extend(node.children.iter().flatten());
                    let Some(m) = node.map.as_ref().filter(|_| node.children.is_none()) else {
                        continue;
                    };
                    for e in &m.elements {
                        // (position, type, lengths, known codes)
                        let mut wanted: Vec<Wanted<'_>> = Vec::new();
                        let name = e.xtype.name();
                        match &e.target {
                            model::Target::Pairs(p) => {
                                for k in 0..2 * p.count {
                                    wanted.push(if k % 2 == 0 {
                                        (
                                            e.pos + k,
                                            "ID",
                                            p.qualifier_len,
                                            p.promote.iter().map(|(q, _)| q.clone()).collect(),
                                        )
                                    } else {
                                        (e.pos + k, "AN", p.id_len, Vec::new())
                                    });
                                }
                            }
                            _ => {
                                let mut known: Vec<String> =
                                    e.known.iter().chain(&e.codes).flatten().cloned().collect();
                                if e.xtype == XType::ID {
                                    known.extend(
                                        e.doc.as_deref().map(doc_codes).unwrap_or_default(),
                                    );
                                }
                                wanted.push((e.pos, &name, (e.min, e.max), known));
                            }
                        }
                        for (pos, xt, len, known) in wanted {
                            let at = format!("{tag}: {}{pos:02}", node.id);
                            let Some(number) =
                                d.segment(&node.id).and_then(|s| s.number_at(pos, ed))
                            else {
                                out.push(format!("{at} has no data element number"));
                                continue;
                            };
                            let Some(el) = d.element(number) else {
                                out.push(format!(
                                    "{at}: element {number} is not in the dictionary"
                                ));
                                continue;
                            };
                            if el.xtype != xt || el.lengths(ed) != len {
                                out.push(format!(
                                    "{at} is {xt} {}/{} but element {number} is {} {}/{}",
                                    len.0,
                                    len.1,
                                    el.xtype,
                                    el.lengths(ed).0,
                                    el.lengths(ed).1
                                ));
                            }
                            for k in known {
                                if el.meaning(&k).is_none() {
                                    out.push(format!(
                                        "{at}: code {k} of element {number} has no meaning"
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
        for id in ENVELOPE_SEGMENTS {
            if d.segment(id).is_none_or(|s| s.positions.is_empty()) {
                out.push(format!("envelope segment {id} is not described"));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn dictionary_covers_the_declarations() {
        let faults = dictionary_faults();
        assert!(
            faults.is_empty(),
            "{} faults:\n{}",
            faults.len(),
            faults.join("\n")
        );
    }

    #[test]
    fn dictionary_language_reports_its_faults() {
        let bad = |t: &str| dsl::parse_dictionary(t).unwrap_err();
        assert!(bad("segment BEG \"B\"\n  01 353\n").contains("no `element` entry"));
        assert!(bad("element 1 ID 2 \"x\"\n").contains("line 1"));
        assert!(bad("element 1 ID 1/2 x\n").contains("line 1"));
        assert!(
            bad("segment BEG \"B\"\n  02 1\n  01 1\nelement 1 ID 1/1 \"x\"\n").contains("increase")
        );
        assert!(bad("element 1 ID 1/1 \"x\"\n  A\n").contains("line 2"));
        assert!(bad("element 1 ID 1/1 \"x\"\nelement 1 ID 1/1 \"y\"\n").contains("twice"));
        assert!(bad("thing X\n").contains("line 1"));
        let d = dsl::parse_dictionary(
            "segment N1 \"Name\" 5010=\"Party Identification\"\n  01 98 M\n  03 - 5010=1705\n\
             element 98 ID 2/3 \"Entity Identifier Code\"\n  ST Ship To\n\
             element 1705 AN 1/35 \"Implementation Convention Reference\"\n",
        )
        .unwrap();
        let n1 = d.segment("N1").unwrap();
        assert_eq!(n1.name(Edition::V5010), "Party Identification");
        assert_eq!(n1.number_at(3, Edition::Base), None);
        assert_eq!(n1.number_at(3, Edition::V5010), Some("1705"));
        assert_eq!(d.element("98").unwrap().meaning("ST"), Some("Ship To"));
    }

    #[test]
    fn ack_meanings_come_from_the_acknowledgment_code() {
        let m = meanings(Some("720"));
        assert!(m.as_array().unwrap().iter().any(|c| c["code"] == "1"));
        let ta1 = meanings(Some("I18"));
        assert!(ta1.as_array().unwrap().iter().any(|c| c["code"] == "000"));
    }

    #[test]
    fn describes_a_declared_segment() {
        let d = describe_segment("850", "004010", "BEG").expect("declared");
        assert_eq!(d["setName"], "Purchase Order");
        assert_eq!(d["mandatory"], true);
        assert_eq!(d["maxUse"], 1);
        assert_eq!(d["elements"][0]["position"], 1);
        assert_eq!(d["elements"][0]["type"], "ID");
        assert_eq!(d["elements"][0]["field"], "purpose");
        // A segment inside a loop (depth first), and the unbounded maxUse.
        let n1 = describe_segment("850", "005010", "N1").expect("in a loop");
        assert_eq!(n1["segment"], "N1");
        let po1 = describe_segment("850", "004010", "PO1").expect("in a loop");
        assert_eq!(po1["maxUse"], 1);
        assert!(describe_segment("850", "004010", "ZZZ").is_none());
        assert!(describe_segment("999", "004010", "BEG").is_none());
    }

    /// What the declarations test reports for a broken declaration: its
    /// file and line, from parsing, the structure notation and compiling.
    #[test]
    fn bad_declarations_name_their_file_and_line() {
        let blocks = blocks().expect("common.x12d");
        let fault = |text: &str| -> String {
            let e = dsl::parse_source(text, blocks)
                .and_then(|s| dsl::compile(&s, Edition::Base).map(|_| ()))
                .expect_err("a bad declaration");
            located("999.x12d", &e)
        };
        let good = "set 999 XX 004010 \"Test\"\nstructure\n  BEG M1 REF O>1\n  [N1 O200: N2 O2]\nmap\nseg BEG\n  01 purpose ID 2/2 M\n";
        assert!(dsl::parse_source(good, blocks).is_ok());
        let cases = [
            (
                good.replace("REF O>1", "REF X1"),
                "999.x12d:3: structure: bad requirement `X1`",
            ),
            (
                good.replace("REF O>1", "REF"),
                "999.x12d:4: structure: bad requirement `[`",
            ),
            (
                good.replace("REF O>1", "ref O1"),
                "999.x12d:3: structure: bad segment id `ref`",
            ),
            (
                good.replace("N2 O2]", "N2 O2"),
                "999.x12d:4: structure: loop N1 is not closed",
            ),
            (
                good.replace("[N1 O200:", "[N1 O200"),
                "999.x12d:4: structure: expected `:` after loop N1",
            ),
            (
                good.replace("BEG M1", "BEG M0"),
                "999.x12d:3: structure: bad max `M0`",
            ),
            (
                good.replace("2/2 M", "2/2 M\n  rule X0102"),
                "999.x12d:8: bad rule `X0102`",
            ),
            (
                good.replace("2/2 M", "2/2 M\n  rule P0100"),
                "999.x12d:8: bad rule `P0100`",
            ),
            (
                good.replace("2/2 M", "2/2 M\n  rule É0102"),
                "999.x12d:8: bad rule `É0102`",
            ),
            (
                good.replace("01 purpose", "00 purpose"),
                "999.x12d:7: bad position `00`",
            ),
            (
                good.replace("2/2 M", "3/2 M"),
                "999.x12d:7: bad length `3/2`",
            ),
            (
                good.replace("ID 2/2", "XX 2/2"),
                "999.x12d:7: bad type `XX`",
            ),
            (
                good.replace("2/2 M", "2/2 M\n  pairs 02 0 ids[] 2/2 1/48"),
                "999.x12d:8: bad count `0`",
            ),
            (
                good.replace("2/2 M", "2/2 M\n  bogus 1"),
                "999.x12d:8: unexpected `bogus` in a segment",
            ),
            (
                good.replace("seg BEG", "use nosuchblock"),
                "999.x12d:6: unknown block `nosuchblock`",
            ),
            (good.replace("map\n", ""), "999.x12d:5: unexpected `seg`"),
            (
                good.replace("structure\n", ""),
                "999.x12d:2: text outside a section",
            ),
            (
                good.replace("set 999", "sat 999"),
                "999.x12d:1: unexpected `sat`",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(fault(&text), want, "{text}");
        }
    }

    /// Maps every set of an input three ways: with one mapper reused for all
    /// sets (as the parse JSON does), with a fresh one, and through the
    /// [`decode::J`] tree of `map_back` written by [`decode::J::write_json`];
    /// all give the same bytes. Returns how many documents were mapped.
    fn check(input: &[u8]) -> usize {
        let doc = crate::parse(input);
        let mut reused_mapper = Mapper::default();
        let mut mapped = 0;
        for i in &doc.interchanges {
            for g in &i.groups {
                for t in &g.transactions {
                    let mut reused = Vec::new();
                    let a = write_document_with(&mut reused_mapper, &doc, g, t, false, &mut reused);
                    let mut fresh = Vec::new();
                    let b =
                        write_document_with(&mut Mapper::default(), &doc, g, t, false, &mut fresh);
                    let j = map_back_tree(&doc, g, t);
                    assert_eq!(a, j.is_some());
                    // The tree with runs converts to the same values.
                    if a {
                        let root = map_into(&mut reused_mapper, g, t).expect("mapped");
                        assert!(reused_mapper.tree.use_runs);
                        assert_eq!(reused_mapper.tree.to_j(root), j.clone().expect("tree"));
                    }
                    assert_eq!(b, a);
                    let mut tree = Vec::new();
                    if let Some(j) = j {
                        j.write_json(&mut tree);
                        let parsed: Value = serde_json::from_slice(&tree).expect("JSON");
                        assert_eq!(Some(parsed), map_back(&doc, g, t));
                        mapped += 1;
                    }
                    assert_eq!(
                        String::from_utf8_lossy(&reused),
                        String::from_utf8_lossy(&tree)
                    );
                    assert_eq!(fresh, tree);
                }
            }
        }
        mapped
    }

    #[test]
    fn arena_writer_matches_the_tree() {
        // Text that needs escaping or is not UTF-8, numbers on every path
        // (direct, exponent, too long), promoted and plain qualifier pairs,
        // a repeated single field, sets of both editions in one input.
        let mut x12 = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO \"1\"\\x**20230101~CUR*BY*USD~REF*DP*\t715~REF*IA*".to_vec();
        x12.extend_from_slice(b"caf\xC3\xA9 bad\xFF~PER*BD*A\x01B~ITD*01*3*2.50**030**60~DTM*002*20230229~DTM*010*230101~N1*ST*DC \"4\"*92*4367~N1*ST*DUP~N1*BT*BILL~N3*1 MAIN~N4*RENO*NV*89502~");
        x12.extend_from_slice(b"PO1*1*251*EA*224.38**VP*SKU1*UP*0588*VP*SKU2*BP*B1*IN*X~PID*F****RED~PO1*002*0.0000001*EA*123456789012345678**SK*S~PO1*x*-0*CA*-.5~PO1*4*1E5*PK*99999999999999999~CTT*4~SE*19*0001~GE*1*1~");
        x12.extend_from_slice(b"GS*IN*S*R*20230101*1200*2*X*005010~ST*810*0002~BIG*20230101*INV-1*20230101*PO-1~IT1*1*2*EA*9.99**VP*SKU~TDS*1998~CTT*1~SE*6*0002~GE*1*2~IEA*2*000000001~");
        assert_eq!(check(&x12), 2);
    }

    #[test]
    fn arena_writer_matches_the_tree_on_goldens_and_corpus() {
        let mut files = Vec::new();
        let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
        let mut dirs = vec![golden];
        if let Some(c) = std::env::var_os("X12KIT_CORPUS") {
            dirs.push(c.into());
        }
        while let Some(d) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else {
                    files.push(p);
                }
            }
        }
        let mapped: usize = files
            .iter()
            .filter_map(|f| std::fs::read(f).ok())
            .map(|b| check(&b))
            .sum();
        assert!(mapped >= 18, "{mapped} documents");
    }
}
