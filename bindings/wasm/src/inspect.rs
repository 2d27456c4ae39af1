//! What the page's inspector shows: the input's segments from the core's
//! tokenizer, and what the core's declarations say about a segment.

use crate::convert::{serde_to_js, set};
use crate::error::Result;
use js_sys::Array;
use serde_json::{Value, json};
use wasm_bindgen::JsValue;
use x12kit::documents::model::{Node, Target};
use x12kit::documents::{declaration, edition};

/// `[{id, index, offset, length, elements}]`: every segment with its byte
/// offset and length (terminator excluded) and its elements as text.
pub fn segments(input: &[u8]) -> Array {
    let out = Array::new();
    for s in x12kit::segments(input) {
        let o = js_sys::Object::new();
        let elements: Array = s
            .elements()
            .map(|e| JsValue::from_str(&String::from_utf8_lossy(e.raw())))
            .collect();
        // Setting properties of a fresh object cannot fail.
        let _ = set(&o, "id", &String::from_utf8_lossy(s.id()).as_ref().into());
        let _ = set(&o, "index", &(s.index() as f64).into());
        let _ = set(&o, "offset", &(s.offset() as f64).into());
        let _ = set(&o, "length", &(s.raw().len() as f64).into());
        let _ = set(&o, "elements", &elements);
        out.push(&o);
    }
    out
}

/// The first segment node with this id in a set's declaration (depth first).
fn find<'a>(nodes: &'a [Node], id: &str) -> Option<&'a Node> {
    for n in nodes {
        match &n.children {
            Some(children) => {
                if let Some(found) = find(children, id) {
                    return Some(found);
                }
            }
            None if n.id == id => return Some(n),
            None => {}
        }
    }
    None
}

/// `{set, setName, segment, mandatory, maxUse, elements: [{position, type, min,
/// max, mandatory, description, field, codes, knownCodes}]}` for a segment of
/// a known set, or `null` (unknown set or a segment the set does not declare).
pub fn describe(set_type: &str, version: &str, segment: &str) -> Result<JsValue> {
    let Some(decl) = declaration(set_type, edition(version)) else {
        return Ok(JsValue::NULL);
    };
    let Some(node) = find(&decl.body, segment) else {
        return Ok(JsValue::NULL);
    };
    let elements: Vec<Value> = node
        .map
        .iter()
        .flat_map(|m| &m.elements)
        .map(|e| {
            json!({
                "position": e.pos,
                "type": e.xtype.name(),
                "min": e.min,
                "max": e.max,
                "mandatory": e.mandatory,
                "description": e.doc,
                "field": match &e.target {
                    Target::Field(path) => Some(path.join("/")),
                    _ => None,
                },
                "codes": e.codes,
                "knownCodes": e.known,
            })
        })
        .collect();
    serde_to_js(&json!({
        "set": decl.code,
        "setName": decl.name,
        "segment": node.id,
        "mandatory": node.mandatory,
        "maxUse": if node.max == u32::MAX { None } else { Some(node.max) },
        "elements": elements,
    }))
}
