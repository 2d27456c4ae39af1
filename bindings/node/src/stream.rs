//! Push validation of a stream of chunks (bounded memory).

use crate::errors::guard;
use crate::{ValidationHandle, opts};
use napi::bindgen_prelude::Result;
use napi_derive::napi;
use serde_json::Value;
use x12kit::ops;

/// The core's `StreamValidator`: feed chunks of any size, then finish.
#[napi]
pub struct StreamValidator {
    inner: Option<x12kit::StreamValidator>,
}

fn finished() -> x12kit::Error {
    x12kit::Error::new(
        x12kit::ErrorCode::InvalidArgument,
        "this stream validator is finished; create a new one",
    )
}

#[napi]
impl StreamValidator {
    /// A validator with the options of `validate` (`{ structure }`).
    #[napi(constructor)]
    pub fn new(options: Option<Value>) -> Result<Self> {
        guard(|| {
            let o: ops::ValidateOptions = opts(options)?;
            Ok(StreamValidator {
                inner: Some(ops::stream_validator(&o)),
            })
        })
    }

    /// Feeds the next chunk of input.
    #[napi]
    pub fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        let inner = &mut self.inner;
        guard(|| {
            inner.as_mut().ok_or_else(finished)?.feed(chunk);
            Ok(())
        })
    }

    /// Input bytes consumed so far.
    #[napi(getter)]
    pub fn consumed(&self) -> f64 {
        self.inner.as_ref().map_or(0.0, |v| v.consumed() as f64)
    }

    /// Bytes held for findings still open (memory accounting).
    #[napi(getter)]
    pub fn retained_bytes(&self) -> f64 {
        self.inner
            .as_ref()
            .map_or(0.0, |v| v.retained_bytes() as f64)
    }

    /// Ends the input; the validation result (its JSON and `acknowledge`).
    #[napi]
    pub fn finish(&mut self) -> Result<ValidationHandle> {
        let inner = &mut self.inner;
        guard(|| {
            Ok(ValidationHandle {
                inner: inner.take().ok_or_else(finished)?.finish(),
            })
        })
    }
}
