//! The operations run on the libuv thread pool (`AsyncTask`), so that a
//! large input does not block the event loop. Each task owns a copy of its
//! input (JS may change or free the buffer while the task runs).

use crate::errors::{internal, to_napi};
use crate::{Core, RenderOutput, ValidationHandle, into_string, now_from, opts, render_output};
use napi::bindgen_prelude::*;
use napi::{Env, Task};
use napi_derive::napi;
use serde_json::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};
use x12kit::ops;

/// Runs `f` on the pool thread, catching panics.
fn run<T>(f: impl FnOnce() -> Core<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_napi(&e)),
        Err(p) => Err(to_napi(&internal(&*p))),
    }
}

/// `parseAsync`: the parse result JSON text.
pub struct ParseTask {
    input: Vec<u8>,
    options: ops::ParseOptions,
}

impl Task for ParseTask {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> Result<String> {
        let (input, o) = (std::mem::take(&mut self.input), self.options);
        run(|| Ok(into_string(ops::parse_json(&input, &o))))
    }

    fn resolve(&mut self, _env: Env, output: String) -> Result<String> {
        Ok(output)
    }
}

/// `validateAsync`: the validation result, kept native for `acknowledge`.
pub struct ValidateTask {
    input: Vec<u8>,
    options: ops::ValidateOptions,
}

impl Task for ValidateTask {
    type Output = x12kit::Validation;
    type JsValue = ValidationHandle;

    fn compute(&mut self) -> Result<x12kit::Validation> {
        let (input, o) = (std::mem::take(&mut self.input), self.options);
        run(|| Ok(ops::validate(&input, &o)))
    }

    fn resolve(&mut self, _env: Env, output: x12kit::Validation) -> Result<ValidationHandle> {
        Ok(ValidationHandle { inner: output })
    }
}

/// `renderAsync`: the rendered interchange.
pub struct RenderTask {
    document_type: String,
    payload: String,
    partner: String,
    options: ops::RenderOptions,
    now: x12kit::DateTime,
}

impl Task for RenderTask {
    type Output = x12kit::Rendered;
    type JsValue = RenderOutput;

    fn compute(&mut self) -> Result<x12kit::Rendered> {
        run(|| {
            ops::render_str(
                &self.document_type,
                &self.payload,
                &self.partner,
                &self.options,
                self.now,
            )
        })
    }

    fn resolve(&mut self, _env: Env, output: x12kit::Rendered) -> Result<RenderOutput> {
        Ok(render_output(output))
    }
}

/// Parses X12 on the thread pool; resolves to the parse result JSON text.
#[napi(ts_return_type = "Promise<string>")]
pub fn parse_to_string_async(
    input: &[u8],
    options: Option<Value>,
    signal: Option<AbortSignal>,
) -> Result<AsyncTask<ParseTask>> {
    let options: ops::ParseOptions = opts(options).map_err(|e| to_napi(&e))?;
    Ok(AsyncTask::with_optional_signal(
        ParseTask {
            input: input.to_vec(),
            options,
        },
        signal,
    ))
}

/// Validates X12 on the thread pool; resolves to a handle on the result.
#[napi(ts_return_type = "Promise<ValidationHandle>")]
pub fn validate_handle_async(
    input: &[u8],
    options: Option<Value>,
    signal: Option<AbortSignal>,
) -> Result<AsyncTask<ValidateTask>> {
    let options: ops::ValidateOptions = opts(options).map_err(|e| to_napi(&e))?;
    Ok(AsyncTask::with_optional_signal(
        ValidateTask {
            input: input.to_vec(),
            options,
        },
        signal,
    ))
}

/// Renders on the thread pool (payload and partner as JSON text).
#[napi(ts_return_type = "Promise<RenderOutput>")]
pub fn render_json_async(
    document_type: String,
    payload: String,
    partner: String,
    options: Option<Value>,
    now: Option<f64>,
    signal: Option<AbortSignal>,
) -> Result<AsyncTask<RenderTask>> {
    let options: ops::RenderOptions = opts(options).map_err(|e| to_napi(&e))?;
    let now = now_from(now).map_err(|e| to_napi(&e))?;
    Ok(AsyncTask::with_optional_signal(
        RenderTask {
            document_type,
            payload,
            partner,
            options,
            now,
        },
        signal,
    ))
}
