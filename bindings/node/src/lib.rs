//! Node addon `x12kit` (napi-rs): the core's operations for Node.
//!
//! This crate only converts types and maps errors; every X12 and signing
//! decision is a call into [`x12kit::ops`]. The generated `binding.js` /
//! `binding.d.ts` expose these functions and classes; the hand-written
//! `index.js` (CommonJS) and `index.mjs` (ESM) wrap them into the public API
//! (argument checks, `X12kitError`, streams).
//!
//! Errors cross as a JS `Error` whose message is the core error's JSON
//! (`{"code","kind","message","pointer"?,"details"}`); `index.js` turns it
//! into an `X12kitError` (or `X12kitTypeError` for `invalid_input`). No
//! panic crosses: every entry point runs under `catch_unwind` and a caught
//! panic becomes the `INTERNAL` code.

// The exported structs hold napi handles (`Buffer`, `Uint8Array`) that have
// no `Debug`; JS never sees a Debug form anyway.
#![allow(missing_debug_implementations)]
// napi-derive compiles the JS registrations out of `cfg(test)` builds, so
// there the exported items look unused.
#![cfg_attr(test, allow(dead_code))]

mod bytes;
mod convert;
mod errors;
mod held;
mod objects;
mod segments;
mod sets;
pub(crate) mod split;
mod stream;
mod tasks;
mod webhook;

use bytes::JsBytes;
use convert::{RenderOutput, Validated, into_string, now_from, opts, render_output, validated};
use errors::{guard, to_napi};
use held::{Handle, State};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;
use x12kit::ops;

/// One entry of the core's error code list.
#[napi(object)]
pub struct ErrorCodeInfo {
    /// The stable UPPER_SNAKE code (`INVALID_OPTIONS`, `SIGNATURE_MISMATCH`, ...).
    pub code: String,
    /// What a caller does with it: `invalid_input`, `rejected`, `io` or `internal`.
    pub kind: String,
    /// The one-line meaning of the code.
    pub meaning: String,
}

/// Every error code of the core (`ErrorCode::ALL`), in declaration order.
#[napi]
pub fn error_codes() -> Vec<ErrorCodeInfo> {
    x12kit::ErrorCode::ALL
        .iter()
        .map(|c| ErrorCodeInfo {
            code: c.as_str().to_string(),
            kind: c.kind().as_str().to_string(),
            meaning: c.meaning().trim().to_string(),
        })
        .collect()
}

/// An error of `code` (one of `errorCodes()`) built by the core, thrown as
/// the binding throws any core error: for tests of the error mapping.
#[napi]
pub fn error_for_code(code: String) -> Result<()> {
    guard(|| {
        let c = x12kit::ErrorCode::from_name(&code).ok_or_else(|| {
            x12kit::Error::new(
                x12kit::ErrorCode::InvalidArgument,
                format!("\"{code}\" is not an x12kit error code"),
            )
        })?;
        Err(x12kit::Error::new(c, format!("an error with the code {code}")).at("/"))
    })
}

/// Panics inside the addon on purpose (caught: it throws `INTERNAL`), to
/// test that no panic ever crosses into Node.
#[napi]
pub fn panic_for_test() -> Result<()> {
    guard(|| panic!("panic_for_test: a deliberate panic"))
}

/// The transaction set codes that x12kit renders, maps back and validates.
#[napi]
pub fn document_types() -> Vec<String> {
    ops::DOCUMENT_TYPES.iter().map(|s| s.to_string()).collect()
}

/// Parses X12; the parse result JSON as UTF-8 bytes.
#[napi(ts_return_type = "Buffer")]
pub fn parse_to_json(input: &[u8], options: Option<Value>) -> Result<JsBytes> {
    guard(|| {
        let o: ops::ParseOptions = opts(options)?;
        Ok(ops::parse_json(input, &o).into())
    })
}

/// Parses X12; the parse result objects built natively (Node-API calls over
/// the core's JSON bytes instead of `JSON.parse`).
#[napi(ts_return_type = "any")]
pub fn parse_to_objects(input: &[u8], options: Option<Value>) -> Result<objects::JsonObjects> {
    guard(|| {
        let o: ops::ParseOptions = opts(options)?;
        Ok(objects::JsonObjects(ops::parse_json(input, &o)))
    })
}

/// Builds JS values natively from JSON bytes (the builder of
/// `parseToObjects`, for tests and benchmarks against `JSON.parse`).
#[napi(ts_return_type = "any")]
pub fn json_to_objects(json: &[u8]) -> objects::JsonObjects {
    objects::JsonObjects(json.to_vec())
}

/// Splits JSON bytes as `parseAsync` does, with runs of at most about
/// `limit` bytes (for tests of the slice-by-slice building).
#[napi]
pub fn split_json(json: &[u8], limit: u32) -> tasks::SplitJson {
    tasks::split_json(json.to_vec(), limit as usize)
}

/// Parses X12; the parse result JSON as a string (for `JSON.parse`).
#[napi]
pub fn parse_to_string(input: &[u8], options: Option<Value>) -> Result<String> {
    guard(|| {
        let o: ops::ParseOptions = opts(options)?;
        Ok(into_string(ops::parse_json(input, &o)))
    })
}

/// Validates X12: the result's JSON and its handle.
#[napi]
pub fn validate(env: Env, input: &[u8], options: Option<Value>) -> Result<Validated> {
    let v = guard(|| {
        let o: ops::ValidateOptions = opts(options)?;
        Ok(ops::validate(input, &o))
    })?;
    validated(&env, v)
}

/// Validates X12; the validation result JSON as a string.
#[napi]
pub fn validate_to_string(input: &[u8], options: Option<Value>) -> Result<String> {
    guard(|| {
        let o: ops::ValidateOptions = opts(options)?;
        Ok(into_string(ops::validate_json(input, &o)))
    })
}

/// Acknowledges X12 input (parses and validates it): the TA1/997/999 bytes.
#[napi(ts_return_type = "Buffer")]
pub fn acknowledge_input(
    input: &[u8],
    options: Option<Value>,
    now: Option<f64>,
) -> Result<JsBytes> {
    guard(|| {
        let o: ops::AcknowledgeOptions = opts(options)?;
        Ok(ops::acknowledge(input, &o, now_from(now)?)?.into())
    })
}

/// Acknowledges a validation result made by `validate` (its handle): the TA1/997/999 bytes.
#[napi(
    ts_args_type = "validation: object, options?: any | undefined | null, now?: number | undefined | null",
    ts_return_type = "Buffer"
)]
pub fn acknowledge_validation(
    env: Env,
    validation: Handle,
    options: Option<Value>,
    now: Option<f64>,
) -> Result<JsBytes> {
    let o: ops::AcknowledgeOptions = opts(options).map_err(|e| to_napi(&e))?;
    let now = now_from(now).map_err(|e| to_napi(&e))?;
    held::with(&env, |h| match h.get(&env, &validation)? {
        State::Validation(v) => guard(|| Ok(ops::acknowledge_validation(v, &o, now)?.into())),
        _ => Err(held::not_a_handle()),
    })
}

/// Reads the TA1/997/999 acknowledgements in X12 input; their JSON as a string.
#[napi]
pub fn read_acknowledgement_to_string(input: &[u8]) -> Result<String> {
    guard(|| Ok(into_string(ops::read_acknowledgement_json(input))))
}

/// Renders a document from payload and partner JSON text into an interchange.
#[napi]
pub fn render_json(
    document_type: String,
    payload: String,
    partner: String,
    options: Option<Value>,
    now: Option<f64>,
) -> Result<RenderOutput> {
    guard(|| {
        let o: ops::RenderOptions = opts(options)?;
        let r = ops::render_str(&document_type, &payload, &partner, &o, now_from(now)?)?;
        Ok(render_output(r))
    })
}

/// The JSON Schema of a document type's payload, as JSON text; with a partner
/// profile's JSON text, narrowed by its guide of the type and its required fields.
#[napi]
pub fn document_schema_json(document_type: String, partner: Option<String>) -> Result<String> {
    guard(|| {
        Ok(match partner {
            None => ops::document_schema(&document_type)?,
            Some(p) => ops::document_schema_for_partner_str(&document_type, &p)?,
        }
        .to_string())
    })
}

/// The JSON Schema of the partner profile, as JSON text.
#[napi]
pub fn partner_schema_json() -> Result<String> {
    guard(|| Ok(ops::partner_schema().to_string()))
}

/// What x12kit knows of a segment (the core's declaration and X12 dictionary), as JSON text (`null` when it does not describe it).
#[napi]
pub fn describe_segment_json(set_type: String, version: String, segment: String) -> Result<String> {
    guard(|| {
        let json = ops::describe_segment_json(&set_type, &version, &segment)?;
        String::from_utf8(json)
            .map_err(|e| x12kit::Error::new(x12kit::ErrorCode::Internal, e.to_string()))
    })
}

/// CSV intake: the documents of a type a CSV holds and every problem, as JSON text
/// (`ops::payloads_from_csv_json`).
#[napi]
pub fn payloads_from_csv_json(
    document_type: String,
    csv: &[u8],
    options: Option<Value>,
) -> Result<String> {
    guard(|| {
        let o: ops::CsvOptions = opts(options)?;
        let json = ops::payloads_from_csv_json(&document_type, csv, &o)?;
        String::from_utf8(json)
            .map_err(|e| x12kit::Error::new(x12kit::ErrorCode::Internal, e.to_string()))
    })
}

/// Splits X12 into complete interchanges of a set (or `maxSets` sets, or a group)
/// each, as JSON text (`ops::split_json`).
#[napi]
pub fn split_x12_json(input: &[u8], options: Option<Value>) -> Result<String> {
    guard(|| {
        let o: ops::SplitOptions = opts(options)?;
        let json = ops::split_json(input, &o)?;
        String::from_utf8(json)
            .map_err(|e| x12kit::Error::new(x12kit::ErrorCode::Internal, e.to_string()))
    })
}

/// A part of a split made again from its recipe and the input's bytes in the
/// recipe's ranges, as JSON text (`ops::rebuild_part_json`).
#[napi]
pub fn rebuild_part_json(recipe: Value, bytes: &[u8]) -> Result<String> {
    guard(|| {
        let r = ops::part_recipe(recipe)?;
        let json = ops::rebuild_part_json(&r, bytes)?;
        String::from_utf8(json)
            .map_err(|e| x12kit::Error::new(x12kit::ErrorCode::Internal, e.to_string()))
    })
}

/// Merges interchanges of one sender/receiver pair into one (`ops::merge`).
#[napi(ts_return_type = "Buffer")]
pub fn merge(inputs: Vec<Uint8Array>, options: Option<Value>) -> Result<JsBytes> {
    guard(|| {
        let o: ops::MergeOptions = opts(options)?;
        let slices: Vec<&[u8]> = inputs.iter().map(|b| &b[..]).collect();
        Ok(ops::merge(&slices, &o)?.into())
    })
}

/// Writes a parse result (JSON as UTF-8 bytes, possibly edited) back to X12.
#[napi(ts_return_type = "Buffer")]
pub fn write_json(parse_result: &[u8], options: Option<Value>) -> Result<JsBytes> {
    guard(|| {
        let o: ops::WriteOptions = opts(options)?;
        Ok(ops::write_json(parse_result, &o)?.into())
    })
}
