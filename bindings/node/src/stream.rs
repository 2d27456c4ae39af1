//! Push validation of a stream of chunks (bounded memory).
//!
//! The core's `StreamValidator` lives in the registry of `held.rs`, owned
//! by a token that `index.js`'s `StreamValidator` class keeps: `finish()`
//! frees it at once, and a validator dropped unfinished is freed once V8
//! has collected its token, even inside a synchronous loop.

use crate::convert::{Validated, opts, validated};
use crate::errors::{guard, to_napi};
use crate::held::{self, Handle, State};
use napi::Env;
use napi::bindgen_prelude::Result;
use napi_derive::napi;
use serde_json::Value;
use x12kit::ops;

fn finished() -> napi::Error {
    to_napi(&x12kit::Error::new(
        x12kit::ErrorCode::InvalidArgument,
        "this stream validator is finished; create a new one",
    ))
}

/// What a validator holds natively, for V8's accounting.
fn footprint(v: &x12kit::StreamValidator) -> usize {
    v.retained_bytes() + (64 << 10)
}

/// A validator with the options of `validate` (`{ structure, retain }`): its handle.
#[napi(ts_return_type = "object")]
pub fn stream_validator_new(env: Env, options: Option<Value>) -> Result<Handle> {
    let v = guard(|| {
        let o: ops::ValidateOptions = opts(options)?;
        Ok(ops::stream_validator(&o))
    })?;
    let bytes = footprint(&v);
    held::with(&env, |h| {
        h.insert(&env, State::Validator(Box::new(v)), bytes)
    })
}

/// Feeds the next chunk of input to the validator of `handle`.
#[napi(ts_args_type = "handle: object, chunk: Uint8Array")]
pub fn stream_validator_feed(env: Env, handle: Handle, chunk: &[u8]) -> Result<()> {
    held::with(&env, |h| {
        let bytes = match h.get(&env, &handle)? {
            State::Validator(v) => {
                guard(|| {
                    v.feed(chunk);
                    Ok(())
                })?;
                footprint(v)
            }
            State::Finished => return Err(finished()),
            _ => return Err(held::not_a_handle()),
        };
        h.resize(&env, &handle, bytes)
    })
}

/// `[consumed, retainedBytes]` of the validator of `handle` (zeros once finished).
#[napi(ts_args_type = "handle: object")]
pub fn stream_validator_counts(env: Env, handle: Handle) -> Result<Vec<f64>> {
    held::with(&env, |h| match h.get(&env, &handle)? {
        State::Validator(v) => Ok(vec![v.consumed() as f64, v.retained_bytes() as f64]),
        State::Finished => Ok(vec![0.0, 0.0]),
        _ => Err(held::not_a_handle()),
    })
}

/// Ends the input of the validator of `handle`; the validation result. The
/// validator's memory is freed now; its handle only says "finished" after.
#[napi(ts_args_type = "handle: object")]
pub fn stream_validator_finish(env: Env, handle: Handle) -> Result<Validated> {
    let v = held::with(&env, |h| {
        let state = h.get(&env, &handle)?;
        match std::mem::replace(state, State::Finished) {
            State::Validator(v) => {
                h.resize(&env, &handle, 0)?;
                Ok(v)
            }
            State::Finished => Err(finished()),
            other => {
                *state = other;
                Err(held::not_a_handle())
            }
        }
    })?;
    let v = guard(|| Ok((*v).finish()))?;
    validated(&env, v)
}
