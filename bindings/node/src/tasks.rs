//! The operations run on the libuv thread pool (`AsyncTask`), so that a
//! large input does not block the event loop. Each task owns a copy of its
//! input (JS may change or free the buffer while the task runs).

use crate::bytes::{JsBytes, JsNumbers};
use crate::convert::{
    Core, RenderOutput, Validated, into_string, now_from, opts, render_output, validated,
};
use crate::errors::{internal, to_napi};
use crate::split;
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

/// `parseAsync`: the parse result JSON, split for building in slices.
pub struct ParseTask {
    input: Vec<u8>,
    options: ops::ParseOptions,
}

/// JSON text split into a skeleton and runs of array items (see `split.rs`):
/// JS parses the skeleton, then each run, yielding to the event loop between
/// runs, and splices the runs' items into place.
#[napi(object, object_from_js = false)]
pub struct SplitJson {
    /// The JSON with each run replaced by `{"\u0000": k}`.
    pub skeleton: String,
    /// The whole JSON (UTF-8), which the runs index.
    #[napi(ts_type = "Buffer")]
    pub json: JsBytes,
    /// Start and end byte offsets in `json` of each run, in pairs.
    #[napi(ts_type = "Float64Array")]
    pub runs: JsNumbers,
}

pub(crate) fn split_json(json: Vec<u8>, limit: usize) -> SplitJson {
    let s = split::split(&json, limit);
    split_to_js(json, s)
}

fn split_to_js(json: Vec<u8>, s: split::Split) -> SplitJson {
    SplitJson {
        skeleton: into_string(s.skeleton),
        json: json.into(),
        runs: s.runs.into(),
    }
}

impl Task for ParseTask {
    type Output = (Vec<u8>, split::Split);
    type JsValue = SplitJson;

    fn compute(&mut self) -> Result<Self::Output> {
        let (input, o) = (std::mem::take(&mut self.input), self.options);
        run(|| {
            let json = ops::parse_json(&input, &o);
            let s = split::split(&json, split::LIMIT);
            Ok((json, s))
        })
    }

    fn resolve(&mut self, _env: Env, (json, s): Self::Output) -> Result<SplitJson> {
        Ok(split_to_js(json, s))
    }
}

/// `validateAsync`: the validation result (its JSON and handle).
pub struct ValidateTask {
    input: Vec<u8>,
    options: ops::ValidateOptions,
}

impl Task for ValidateTask {
    type Output = x12kit::Validation;
    type JsValue = Validated;

    fn compute(&mut self) -> Result<x12kit::Validation> {
        let (input, o) = (
            std::mem::take(&mut self.input),
            std::mem::take(&mut self.options),
        );
        run(|| Ok(ops::validate(&input, &o)))
    }

    fn resolve(&mut self, env: Env, output: x12kit::Validation) -> Result<Validated> {
        validated(&env, output)
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

/// Parses X12 on the thread pool; resolves to its JSON split for building
/// in slices (`SplitJson`).
#[napi(ts_return_type = "Promise<SplitJson>")]
pub fn parse_split_async(
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

/// Validates X12 on the thread pool; resolves to the result's JSON and handle.
#[napi(ts_return_type = "Promise<Validated>")]
pub fn validate_async(
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
