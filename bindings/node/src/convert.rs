//! The conversions every entry point shares: core results, JS options, the
//! clock argument, and the result objects that more than one module returns
//! (a validation with its handle, a rendered interchange). A leaf below the
//! entry points (`lib.rs`, `tasks.rs`, `segments.rs`, `stream.rs`,
//! `webhook.rs`), so that none of them depends on another.

use crate::bytes::JsBytes;
use crate::held::{self, Handle, State};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;
use x12kit::ops;

/// A result of the core.
pub(crate) type Core<T> = std::result::Result<T, x12kit::Error>;

/// Builds an options struct from a JS options object (`undefined`/`null`: defaults).
pub(crate) fn opts<T: serde::de::DeserializeOwned + Default>(o: Option<Value>) -> Core<T> {
    ops::options(o.unwrap_or(Value::Null))
}

/// The core's JSON bytes are UTF-8 (serde_json writes only UTF-8).
pub(crate) fn into_string(json: Vec<u8>) -> String {
    String::from_utf8(json).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A validation result: its JSON, and a handle on the native result that
/// `acknowledge` uses without validating again (see `held.rs`).
#[napi(object, object_from_js = false)]
pub struct Validated {
    /// The validation result JSON (= `x12kit validate --json`).
    pub json: String,
    /// The handle (an opaque value; keep it with the result).
    #[napi(ts_type = "object")]
    pub handle: Handle,
}

/// The JSON of `v` and a handle that owns `v`.
pub(crate) fn validated(env: &Env, v: x12kit::Validation) -> Result<Validated> {
    let json = into_string(v.to_json());
    // About what the result holds natively; its JSON is a fair measure.
    let bytes = json.len();
    let handle = held::with(env, |h| h.insert(env, State::Validation(v), bytes))?;
    Ok(Validated { json, handle })
}

/// The current time for the operations that date their output.
pub(crate) fn now_from(now: Option<f64>) -> Core<x12kit::DateTime> {
    Ok(x12kit::DateTime::from_unix(unix_from(now)?))
}

/// Unix seconds from an optional JS number (the system clock when absent).
pub(crate) fn unix_from(now: Option<f64>) -> Core<u64> {
    match now {
        None => Ok(x12kit::clock::unix_now()),
        Some(n)
            if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= 9.007_199_254_740_991e15 =>
        {
            Ok(n as u64)
        }
        Some(n) => Err(x12kit::Error::new(
            x12kit::ErrorCode::InvalidArgument,
            format!("now must be a whole number of Unix seconds >= 0, got {n}"),
        )),
    }
}

/// A rendered interchange.
#[napi(object, object_from_js = false)]
pub struct RenderOutput {
    /// The X12 bytes.
    #[napi(ts_type = "Buffer")]
    pub x12: JsBytes,
    /// The payload as the X12 maps back (defaults filled in), as JSON text.
    pub document: String,
    /// Warnings (e.g. `UNKNOWN_FIELD`), as JSON text.
    pub warnings: String,
}

pub(crate) fn render_output(r: x12kit::Rendered) -> RenderOutput {
    RenderOutput {
        x12: r.x12.into(),
        document: r.document.to_string(),
        warnings: serde_json::to_string(&r.warnings).unwrap_or_else(|_| "[]".into()),
    }
}
