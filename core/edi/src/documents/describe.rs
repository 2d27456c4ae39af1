//! What x12kit knows of a segment, for inspectors: the set's declaration
//! and the dictionary, or the dictionary alone for the envelope and
//! acknowledgment segments.

use super::compiled::{declaration, edition_of};
use super::dictionary::{ENVELOPE_SEGMENTS, dictionary, element_at};
use super::model::{self, Edition};
use serde_json::Value;

/// The first segment node with this id in a node list (depth first).
fn find_segment<'d>(nodes: &'d [model::Node], id: &str) -> Option<&'d model::Node> {
    nodes.iter().find_map(|n| match &n.children {
        Some(children) => find_segment(children, id),
        None => (n.id == id).then_some(n),
    })
}

/// Code meanings of the acknowledgment error elements, which the
/// acknowledgment code keeps (`crate::validate::mapping`): the codes with a
/// meaning among the candidates.
fn ack_meanings(number: &str) -> Vec<(String, String)> {
    use crate::codes as m;
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
/// for none): `set`/`setName` are null unless the set is declared,
/// `mandatory` and `maxUse` are null, and each element's `mandatory` is
/// the standard's. `None`: a segment that is neither in the set's
/// declaration nor an envelope or acknowledgment segment. `version` picks
/// the edition: a group's version (GS08: `004010`, `005010`, …), an
/// interchange's (ISA12: `00401`, `00501`), or `""` for the base edition.
pub fn describe_segment(set_type: &str, version: &str, segment: &str) -> Option<Value> {
    // An interchange's version (ISA12, five digits) is read as the group
    // version it heads, with the release's 0: 00401 → 004010.
    let ed = match version.as_bytes() {
        v if v.len() == 5 && v.iter().all(u8::is_ascii_digit) => edition_of(&[v, b"0"].concat()),
        v => edition_of(v),
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
