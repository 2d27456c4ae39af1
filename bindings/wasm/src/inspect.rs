//! What the page's inspector shows: the input's segments from the core's
//! tokenizer, and what the core's declarations say about a segment.

use crate::convert::{serde_to_js, set};
use crate::error::Result;
use js_sys::Array;
use wasm_bindgen::JsValue;

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

/// `{set, setName, segment, mandatory, maxUse, elements: [{position, type, min,
/// max, mandatory, description, field, codes, knownCodes}]}` for a segment of
/// a known set, or `null` (unknown set or a segment the set does not declare):
/// the core's [`x12kit::documents::describe_segment`].
pub fn describe(set_type: &str, version: &str, segment: &str) -> Result<JsValue> {
    match x12kit::documents::describe_segment(set_type, version, segment) {
        Some(d) => serde_to_js(&d),
        None => Ok(JsValue::NULL),
    }
}
