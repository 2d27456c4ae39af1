//! Argument and result conversions between JS values and the core's types.

use crate::error::{Result, argument, internal, to_js};
use js_sys::{ArrayBuffer, JSON, Reflect, Uint8Array};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::{JsCast, JsValue};
use x12kit::error::ErrorCode;

/// Bytes of a `Uint8Array` (or any typed-array view), an `ArrayBuffer` or a string (UTF-8).
pub fn bytes_arg(v: &JsValue, name: &str) -> Result<Vec<u8>> {
    if let Some(s) = v.as_string() {
        Ok(s.into_bytes())
    } else if let Some(a) = v.dyn_ref::<Uint8Array>() {
        Ok(a.to_vec())
    } else if let Some(b) = v.dyn_ref::<ArrayBuffer>() {
        Ok(Uint8Array::new(b).to_vec())
    } else if ArrayBuffer::is_view(v) {
        Ok(byte_view(v)?.to_vec())
    } else {
        Err(argument(format!(
            "{name} must be a Uint8Array, an ArrayBuffer or a string; found {}",
            type_name(v)
        )))
    }
}

/// A copy of bytes input made in JS memory (no wasm memory used): a string
/// as it is (strings are immutable), any byte array or `ArrayBuffer` as a
/// new `Uint8Array` (the caller may change theirs later).
pub fn js_copy(v: &JsValue, name: &str) -> Result<JsValue> {
    if v.is_string() {
        Ok(v.clone())
    } else if let Some(a) = v.dyn_ref::<Uint8Array>() {
        Ok(a.slice(0, a.length()).into())
    } else if let Some(b) = v.dyn_ref::<ArrayBuffer>() {
        Ok(Uint8Array::new(b).slice(0, b.byte_length()).into())
    } else if ArrayBuffer::is_view(v) {
        let view = byte_view(v)?;
        Ok(view.slice(0, view.length()).into())
    } else {
        Err(argument(format!(
            "{name} must be a Uint8Array, an ArrayBuffer or a string; found {}",
            type_name(v)
        )))
    }
}

/// A `Uint8Array` over the bytes of any typed-array view or `DataView`.
fn byte_view(v: &JsValue) -> Result<Uint8Array> {
    let buf = Reflect::get(v, &"buffer".into())?;
    let off = Reflect::get(v, &"byteOffset".into())?
        .as_f64()
        .unwrap_or(0.0);
    let len = Reflect::get(v, &"byteLength".into())?
        .as_f64()
        .unwrap_or(0.0);
    Ok(Uint8Array::new_with_byte_offset_and_length(
        &buf, off as u32, len as u32,
    ))
}

/// A string argument.
pub fn string_arg(v: &JsValue, name: &str) -> Result<String> {
    v.as_string()
        .ok_or_else(|| argument(format!("{name} must be a string; found {}", type_name(v))))
}

/// A non-negative integer argument (Unix seconds, ...).
pub fn u64_arg(v: &JsValue, name: &str) -> Result<u64> {
    if let Some(n) = v.as_f64() {
        if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 {
            return Ok(n as u64);
        }
        return Err(argument(format!(
            "{name} must be a non-negative integer; found {n}"
        )));
    }
    if v.is_bigint() {
        let b = js_sys::BigInt::unchecked_from_js_ref(v);
        if let Some(s) = b.to_string(10).ok().and_then(|s| s.as_string())
            && let Ok(n) = s.parse::<u64>()
        {
            return Ok(n);
        }
    }
    Err(argument(format!(
        "{name} must be a non-negative integer; found {}",
        type_name(v)
    )))
}

/// JSON text argument: a string, UTF-8 bytes (`INVALID_UTF8` unless valid),
/// or any other value converted with `JSON.stringify` (objects, arrays ...).
pub fn json_text_arg(v: &JsValue, name: &str) -> Result<String> {
    if let Some(s) = v.as_string() {
        return Ok(s);
    }
    if v.is_instance_of::<Uint8Array>() || v.is_instance_of::<ArrayBuffer>() {
        let bytes = bytes_arg(v, name)?;
        return String::from_utf8(bytes).map_err(|e| {
            to_js(
                x12kit::Error::new(
                    ErrorCode::InvalidUtf8,
                    format!(
                        "{name} is not UTF-8 text (byte {} is invalid)",
                        e.utf8_error().valid_up_to()
                    ),
                )
                .at(format!("/{name}")),
            )
        });
    }
    if v.is_object() {
        if let Some(text) = JSON::stringify(v)?.as_string() {
            return Ok(text);
        }
    }
    Err(argument(format!(
        "{name} must be an object, JSON text or UTF-8 bytes; found {}",
        type_name(v)
    )))
}

/// An options object (`undefined` or `null`: every default), read by the core's `ops::options`.
pub fn options_arg<T: DeserializeOwned + Default>(v: &JsValue) -> Result<T> {
    Ok(options_with_now(v, false)?.0)
}

/// An options object that may also hold `now` (a `Date` or Unix seconds, as
/// in the Node addon): the options, and "now" (`Date.now()` when absent).
pub fn options_and_now<T: DeserializeOwned + Default>(v: &JsValue) -> Result<(T, u64)> {
    let (o, now) = options_with_now(v, true)?;
    Ok((o, now.unwrap_or_else(secs_now)))
}

fn options_with_now<T: DeserializeOwned + Default>(
    v: &JsValue,
    take_now: bool,
) -> Result<(T, Option<u64>)> {
    if v.is_undefined() || v.is_null() {
        return Ok((T::default(), None));
    }
    // Anything JSON can hold goes to the core, which says what is wrong with it.
    let Some(text) = JSON::stringify(v)?.as_string() else {
        return Err(argument(format!(
            "options must be an object; found {}",
            type_name(v)
        )));
    };
    let mut now = None;
    if take_now && v.is_object() {
        let n = Reflect::get(v, &"now".into())?;
        if let Some(d) = n.dyn_ref::<js_sys::Date>() {
            let ms = d.get_time();
            if !ms.is_finite() || ms < 0.0 {
                return Err(argument("options.now is an invalid Date or before 1970"));
            }
            now = Some((ms / 1000.0) as u64);
        } else if !n.is_undefined() && !n.is_null() {
            now = Some(u64_arg(&n, "options.now")?);
        }
    }
    let mut value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| to_js(x12kit::Error::invalid_json("input", e)))?;
    if take_now && let Some(o) = value.as_object_mut() {
        o.remove("now");
    }
    Ok((x12kit::ops::options(value).map_err(to_js)?, now))
}

/// Secrets: one string / byte array, or an array of them.
pub fn secrets_arg(v: &JsValue) -> Result<Vec<Vec<u8>>> {
    if js_sys::Array::is_array(v) {
        js_sys::Array::from(v)
            .iter()
            .enumerate()
            .map(|(i, s)| bytes_arg(&s, &format!("secrets[{i}]")))
            .collect()
    } else {
        Ok(vec![bytes_arg(v, "secrets")?])
    }
}

/// The current time in Unix seconds, from `Date.now()`.
pub fn secs_now() -> u64 {
    (js_sys::Date::now() / 1000.0) as u64
}

/// The core's JSON bytes as a JS value (`JSON.parse`, V8's fastest object builder).
pub fn json_bytes_to_js(bytes: &[u8]) -> Result<JsValue> {
    let text = std::str::from_utf8(bytes).map_err(internal)?;
    JSON::parse(text)
}

/// Any serializable core result as a JS value.
pub fn serde_to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue> {
    json_bytes_to_js(&serde_json::to_vec(v).map_err(internal)?)
}

/// Sets a property of a fresh object.
pub fn set(o: &js_sys::Object, key: &str, v: &JsValue) -> Result<()> {
    Reflect::set(o, &key.into(), v).map(|_| ())
}

/// A short description of a value's type for error messages.
fn type_name(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if js_sys::Array::is_array(v) {
        "an array".into()
    } else {
        v.js_typeof()
            .as_string()
            .unwrap_or_else(|| "a value".into())
    }
}
