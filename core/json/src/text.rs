//! JSON text helpers the writer, the write-back and the layers above
//! share: result types as JSON, what a JSON value is (for messages), a
//! delimiter as a string (a leaf).

/// Compact JSON of a result type (validation, acknowledgements, errors).
///
/// These types serialize with string keys only, so serde_json cannot fail on
/// them; if it ever did, the output is an `INTERNAL` error object rather
/// than empty bytes, so the failure is never silent.
pub fn to_vec<T: serde::Serialize + ?Sized>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_else(|e| internal_json(&e))
}

/// Indented JSON of a result type (see [`to_vec`]).
pub fn to_vec_pretty<T: serde::Serialize + ?Sized>(value: &T) -> Vec<u8> {
    serde_json::to_vec_pretty(value).unwrap_or_else(|e| internal_json(&e))
}

fn internal_json(e: &serde_json::Error) -> Vec<u8> {
    x12kit_syntax::Error::internal(e).to_json()
}

/// What a JSON value is, for messages: "null", "a boolean", "a number", "a
/// string", "an array", "an object".
pub fn value_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A delimiter byte as a one-character string (Latin-1 mapping).
pub fn delimiter_char(b: u8) -> String {
    char::from(b).to_string()
}
