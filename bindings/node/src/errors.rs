//! Core errors and panics to JS errors.
//!
//! A core [`x12kit::Error`] crosses as a JS `Error` whose message is the
//! error's JSON; `index.js` rebuilds it as an `X12kitError` (or, for the
//! `invalid_input` kind, an `X12kitTypeError`, a `TypeError`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use x12kit::{Error, ErrorCode};

/// What every exported function returns.
pub(crate) type Res<T> = napi::Result<T>;

/// The JS error of a core error: its JSON as the message.
pub(crate) fn to_napi(e: &Error) -> napi::Error {
    let json = String::from_utf8(e.to_json()).unwrap_or_else(|_| {
        format!(
            "{{\"code\":\"{}\",\"kind\":\"{}\",\"message\":\"(message not UTF-8)\",\"details\":[]}}",
            e.code().as_str(),
            e.kind().as_str()
        )
    });
    napi::Error::new(napi::Status::GenericFailure, json)
}

/// The message of a caught panic.
pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// Runs `f`, catching panics (`INTERNAL`), and turns a core error into a JS one.
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, Error>) -> Res<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_napi(&e)),
        Err(p) => Err(to_napi(&internal(&*p))),
    }
}

/// The `INTERNAL` error of a caught panic.
pub(crate) fn internal(p: &(dyn std::any::Any + Send)) -> Error {
    Error::new(
        ErrorCode::Internal,
        format!(
            "x12kit panicked (a bug; please report it): {}",
            panic_message(p)
        ),
    )
}
