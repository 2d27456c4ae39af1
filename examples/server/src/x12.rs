//! Every X12 decision of the server is one call into the core's `ops`
//! module; this file only turns HTTP-side values into the core's options
//! (through `ops::options`, so names and defaults are the core's) and the
//! core's errors into HTTP errors.

use crate::error::{ApiError, ApiResult};
use serde_json::{Value, json};
use x12kit::envelope::SetCap;
use x12kit::ops;

/// Checks a partner profile with the core (at start-up).
pub fn check_partner(profile: &Value) -> Result<(), String> {
    if let Some((kind, path)) = crate::guides::path_given(profile) {
        return Err(format!(
            "INVALID_PARTNER: /guides/{kind}: the guide is the path {path:?}; give the guide itself (a path is read only from the configuration file, relative to the profile)"
        ));
    }
    x12kit::Partner::from_value(profile)
        .map(|_| ())
        .map_err(|e| {
            let mut text = format!("{}: {}", e.code().as_str(), e.message());
            for p in e.details() {
                text.push_str(&format!("; {} {}", p.pointer, p.message));
            }
            text
        })
}

/// Runs a core call; a panic (a bug) becomes a logged 500 instead of
/// unwinding into the store's writer thread or a runtime worker.
fn guarded<T>(what: &str, f: impl FnOnce() -> ApiResult<T>) -> ApiResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        tracing::error!(call = what, "the core panicked");
        Err(ApiError::internal())
    })
}

fn core_options<T: serde::de::DeserializeOwned + Default>(v: Value) -> ApiResult<T> {
    ops::options(v).map_err(|e| ApiError::from_core(&e))
}

/// The business reference of a payload or mapped document of a type: the core's reference
/// field of the type (the PO number of an 850, ...); `None` without one.
pub fn reference(document_type: &str, payload: &Value) -> Option<String> {
    ops::document_reference(document_type, payload)
        .ok()
        .flatten()
}

/// CSV intake: the core's `payloads_from_csv` of a file, as its JSON (`options`: the
/// core's option names).
pub fn payloads_from_csv(document_type: &str, csv: &[u8], options: Value) -> ApiResult<Value> {
    let o: ops::CsvOptions = core_options(options)?;
    guarded("payloads_from_csv", || {
        let r =
            ops::payloads_from_csv(document_type, csv, &o).map_err(|e| ApiError::from_core(&e))?;
        serde_json::to_value(r).map_err(|_| ApiError::internal())
    })
}

/// A rendered document: the X12 and the render warnings (JSON array).
#[derive(Debug)]
pub struct Rendered {
    /// The interchange.
    pub x12: Vec<u8>,
    /// Warnings (`UNKNOWN_FIELD`, …) as the core's problems.
    pub warnings: Value,
}

/// Renders one document with one control number for ISA13, GS06 and ST02, dated `now_ms` (UTC).
pub fn render(
    document_type: &str,
    payload: &Value,
    partner: &Value,
    control: u64,
    now_ms: i64,
) -> ApiResult<Rendered> {
    let options: ops::RenderOptions = core_options(json!({
        "controlNumbers": {"interchange": control, "group": control, "transaction": control}
    }))?;
    let now = x12kit::DateTime::from_unix((now_ms / 1000).max(0) as u64);
    let r = crate::metrics::RENDER.time(|| {
        guarded("render", || {
            ops::render(document_type, payload, partner, &options, now)
                .map_err(|e| ApiError::from_core(&e))
        })
    })?;
    Ok(Rendered {
        x12: r.x12,
        warnings: serde_json::to_value(&r.warnings).unwrap_or_else(|_| json!([])),
    })
}

/// The core's parse options of `?documents=` and `?maxSetBytes=`.
fn parse_options(documents: bool, cap: SetCap) -> ApiResult<ops::ParseOptions> {
    core_options(json!({"documents": documents, "maxSetBytes": cap.0}))
}

/// `POST /parse`: the core's parse result JSON (what `x12kit parse` prints),
/// written into `out` (cleared first; a reused buffer of [`crate::pool`]).
pub fn parse_into(input: &[u8], documents: bool, cap: SetCap, out: &mut Vec<u8>) -> ApiResult<()> {
    let options = parse_options(documents, cap)?;
    out.clear();
    crate::metrics::PARSE.time(|| {
        guarded("parse", || {
            ops::parse_json_into(input, &options, out);
            Ok(())
        })
    })
}

/// `POST /parse` of a large body: the core's parse result JSON written to `out` as it
/// is made (the core's set-by-set writer for a mapped input, `json::to_json_stream_mapped`: one
/// interchange, or one set of a large one, at a time), the pages of the mapped input dropped behind the
/// parser. The same bytes as [`parse_into`]. An error of `out` (the client has gone)
/// ends it.
pub fn parse_stream(
    input: &x12kit_mapped::Input,
    documents: bool,
    cap: SetCap,
    mut out: impl std::io::Write + Send,
) -> ApiResult<()> {
    let options = parse_options(documents, cap)?;
    let mut released = 0;
    crate::metrics::PARSE.time(|| {
        guarded("parse", || {
            let written = x12kit::json::to_json_stream_mapped(
                input,
                &mut out,
                false,
                &options,
                1,
                &mut |offset| released = input.release(released, offset),
                &mut |from, to| input.drop_pages(from, to),
            )
            .and_then(|_| out.flush());
            written.map_err(|e| {
                tracing::debug!(error = %e, "a streamed parse result was not sent whole");
                ApiError::internal()
            })
        })
    })
}

/// `POST /validate`: the validation JSON (what `x12kit validate --json`
/// prints), with the acknowledgement X12 added as `"acknowledgement"` when asked.
pub fn validate(
    input: &[u8],
    structure: bool,
    ack: Option<&str>,
    control: u64,
) -> ApiResult<Vec<u8>> {
    let options: ops::ValidateOptions = core_options(json!({"structure": structure}))?;
    let validation = guarded("validate", || Ok(ops::validate(input, &options)))?;
    answer(validation, structure, ack, control)
}

/// `POST /validate` of a body read as it arrives: the core's push validator, fed the
/// body a batch at a time on the blocking pool ([`feed`](Self::feed)), so memory
/// follows the longest segment and the sets' summaries, not the input; its
/// [`answer`](Self::answer) is the same bytes as [`validate`] of the whole input (the
/// core's stream gives the result of its whole-input validation, whatever the chunking).
pub struct ValidateStream {
    validator: x12kit::StreamValidator,
    structure: bool,
}

impl ValidateStream {
    /// A validator for `?structure=`.
    pub fn new(structure: bool) -> ApiResult<Self> {
        let options: ops::ValidateOptions = core_options(json!({"structure": structure}))?;
        Ok(ValidateStream {
            validator: ops::stream_validator(&options),
            structure,
        })
    }

    /// Validates the next bytes of the body.
    pub fn feed(mut self, chunk: &[u8]) -> ApiResult<Self> {
        guarded("validate", || {
            self.validator.feed(chunk);
            Ok(())
        })?;
        Ok(self)
    }

    /// The answer once the body has ended: the validation JSON, with the
    /// acknowledgement asked for.
    pub fn answer(self, ack: Option<&str>, control: u64) -> ApiResult<Vec<u8>> {
        let validator = self.validator;
        let validation = guarded("validate", || Ok(validator.finish()))?;
        answer(validation, self.structure, ack, control)
    }
}

/// The validation JSON, with the acknowledgement asked for.
fn answer(
    validation: x12kit::Validation,
    structure: bool,
    ack: Option<&str>,
    control: u64,
) -> ApiResult<Vec<u8>> {
    let mut json = validation.to_json();
    if let Some(kind) = ack {
        let options: ops::AcknowledgeOptions = core_options(json!({
            "kind": kind,
            "structure": structure,
            "interchangeControlNumber": control,
            "groupControlNumber": control,
            "setControlNumber": control,
        }))?;
        let x12 = guarded("acknowledge", || {
            ops::acknowledge_validation(&validation, &options, x12kit::clock::now())
                .map_err(|e| ApiError::from_core(&e))
        })?;
        // The validation JSON is one object: add one member at its end, so
        // that everything before it stays byte-identical to the CLI's output.
        if json.last() == Some(&b'}') {
            json.pop();
            let member = json!({"kind": kind, "x12": String::from_utf8_lossy(&x12)});
            json.extend_from_slice(b",\"acknowledgement\":");
            json.extend_from_slice(member.to_string().as_bytes());
            json.push(b'}');
        } else {
            tracing::error!("the core's validation JSON is not an object");
            return Err(ApiError::internal());
        }
    }
    Ok(json)
}

/// Validates a rendered interchange with the core's envelope and set structure
/// rules: (clean, reason for the history, the validation JSON).
pub fn validate_rendered(x12: &[u8]) -> (bool, String, String) {
    let options = ops::ValidateOptions {
        structure: true,
        ..Default::default()
    };
    let run =
        crate::metrics::VALIDATE.time(|| std::panic::catch_unwind(|| ops::validate(x12, &options)));
    let Ok(validation) = run else {
        tracing::error!("the core panicked validating a rendered document");
        return (
            false,
            "validation failed: internal error".to_string(),
            "null".to_string(),
        );
    };
    let json = String::from_utf8_lossy(&validation.to_json()).into_owned();
    if validation.is_valid() {
        return (true, "validation passed".to_string(), json);
    }
    let first = validation
        .diagnostics
        .iter()
        .find(|d| d.is_error())
        .map(|d| format!("{}: {}", d.code.as_str(), d.message))
        .unwrap_or_default();
    (
        false,
        format!(
            "validation failed: {} error(s); first: {first}",
            validation.error_count()
        ),
        json,
    )
}
