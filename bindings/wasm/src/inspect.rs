//! What the page's inspector shows: what the core's declarations say about a segment.

use crate::convert::serde_to_js;
use crate::error::{Result, to_js};
use wasm_bindgen::JsValue;

/// `{set, setName, segment, segmentName, mandatory, maxUse, elements:
/// [{position, number, name, type, min, max, mandatory, description, field,
/// codes, knownCodes, meanings: [{code, meaning}]}]}` for a segment of a
/// known set or an envelope/acknowledgment segment, or `null`: the core's
/// [`x12kit::ops::describe_segment`] (`INVALID_ARGUMENT` for a segment
/// identifier or version that is not one).
pub fn describe(set_type: &str, version: &str, segment: &str) -> Result<JsValue> {
    match x12kit::ops::describe_segment(set_type, version, segment).map_err(to_js)? {
        Some(d) => serde_to_js(&d),
        None => Ok(JsValue::NULL),
    }
}
