//! Core errors as JS `Error` objects: a `TypeError` named `X12kitTypeError`
//! for invalid input (the call itself is wrong), else an `Error` named
//! `X12kitError` (the Node addon's class names); both carry the
//! core's stable `code`, its `kind`, the `pointer` when there is one, and
//! `details` (the problems of a refused render, ...).

use js_sys::Reflect;
use wasm_bindgen::prelude::*;
use x12kit::error::{ErrorCode, ErrorKind};

/// What the exported functions return: a JS exception on failure.
pub type Result<T> = std::result::Result<T, JsValue>;

/// The JS error for a core error.
pub fn to_js(e: x12kit::Error) -> JsValue {
    let err: js_sys::Error = if e.kind() == ErrorKind::InvalidInput {
        js_sys::TypeError::new(e.message()).into()
    } else {
        js_sys::Error::new(e.message())
    };
    // The names of the Node addon's classes.
    err.set_name(if e.kind() == ErrorKind::InvalidInput {
        "X12kitTypeError"
    } else {
        "X12kitError"
    });
    let details = serde_json::to_string(e.details())
        .ok()
        .and_then(|s| js_sys::JSON::parse(&s).ok())
        .unwrap_or_else(|| js_sys::Array::new().into());
    // Reflect::set on a fresh Error object cannot fail (it is extensible).
    let _ = Reflect::set(&err, &"code".into(), &e.code().as_str().into());
    let _ = Reflect::set(&err, &"kind".into(), &e.kind().as_str().into());
    if let Some(p) = e.pointer() {
        let _ = Reflect::set(&err, &"pointer".into(), &p.into());
    }
    let _ = Reflect::set(&err, &"details".into(), &details);
    err.into()
}

/// An `INVALID_ARGUMENT` error (a `TypeError`): a value of the wrong type.
pub fn argument(message: impl Into<String>) -> JsValue {
    to_js(x12kit::Error::new(ErrorCode::InvalidArgument, message))
}

/// The error of a call on a `StreamValidator` that already finished.
pub fn finished() -> JsValue {
    argument("this StreamValidator has finished; create a new one")
}

/// An `INTERNAL` error: something the core promised did not hold (a bug).
pub fn internal(what: impl std::fmt::Display) -> JsValue {
    to_js(x12kit::Error::internal(what))
}
