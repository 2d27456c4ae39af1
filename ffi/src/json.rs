//! The JSON-level calls: X12 in, JSON parse result out (`x12kit_parse`), and
//! back (`x12kit_write`). Each mirrors one core function.

use crate::diagnostics::{cleared_outputs, give_outputs, x12kit_diagnostics};
use crate::error::{Failure, bytes, call, out, text, x12kit_error, x12kit_status};
use crate::string::{give, x12kit_string};
use std::ffi::c_char;

/// Parses X12 and gives its JSON parse result and/or its diagnostics.
///
/// `input[0..input_len]` is the X12 (any bytes; `input` may be NULL when
/// `input_len` is 0). Parsing never fails on bad X12: problems are
/// diagnostics, inside the JSON and in the list. The JSON is the compact,
/// byte-for-byte cross-language contract documented by
/// `schema/parse-result.schema.json` (UTF-8).
///
/// Outputs (at least one must be non-NULL):
/// - `json_out`: receives the JSON; free it with `x12kit_string_free`.
/// - `diagnostics_out`: receives a new list; free it with `x12kit_diagnostics_free`.
///
/// Returns `X12KIT_STATUS_OK`, or `X12KIT_STATUS_NULL_POINTER` (both outputs
/// NULL, or `input` NULL with a length) or `X12KIT_STATUS_INVALID_ARGUMENT`
/// (an impossible length); on failure the outputs are set to empty/NULL.
/// x12kit keeps no pointer to `input` after the call.
/// Thread safety: may be called from many threads at once.
///
/// Ownership: the outputs become the caller's. Lifetime: the outputs live until
/// freed, independent of `input`.
///
/// # Safety
/// `input` must point to `input_len` readable bytes; each output must be NULL
/// or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_parse(
    input: *const u8,
    input_len: usize,
    json_out: *mut x12kit_string,
    diagnostics_out: *mut *mut x12kit_diagnostics,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: the caller passes NULL or writable outputs.
        let (json_out, diagnostics_out) = unsafe { cleared_outputs(json_out, diagnostics_out) };
        if json_out.is_none() && diagnostics_out.is_none() {
            return Err(Failure::null("json_out and diagnostics_out"));
        }
        // SAFETY: forwarded to the caller.
        let input = unsafe { bytes(input, input_len, "input") }?;
        let doc = x12kit_core::parse(input);
        give_outputs(
            &doc.diagnostics,
            || x12kit_core::to_json(&doc),
            json_out,
            diagnostics_out,
        );
        Ok(())
    })
}

/// Writes a JSON parse result back to X12 (the inverse of `x12kit_parse`).
///
/// `json[0..json_len]` is the JSON text (UTF-8, not NUL-terminated).
/// `line_break` chooses what follows each segment terminator: NULL keeps the
/// line breaks (and leading BOM) recorded in the JSON, which reproduces a
/// parsed input byte for byte; otherwise `line_break[0..line_break_len]`
/// (UTF-8, e.g. "\n", "\r\n", or "" with length 0 for none) is written after
/// every terminator.
///
/// On success `*x12_out` receives the X12 bytes (free with
/// `x12kit_string_free`). On failure it is set to empty and the status is
/// `X12KIT_STATUS_INVALID_INPUT` with code `INVALID_JSON`,
/// `INVALID_PARSE_RESULT`, `INVALID_DELIMITERS` or `CONTAINS_DELIMITER`
/// (and `x12kit_error_path` names the offending value), or
/// `X12KIT_STATUS_INVALID_UTF8`, `X12KIT_STATUS_NULL_POINTER`,
/// `X12KIT_STATUS_INVALID_ARGUMENT`.
/// Thread safety: may be called from many threads at once.
///
/// Ownership: the output becomes the caller's; x12kit keeps no pointer to the
/// inputs. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// `json` must point to `json_len` readable bytes, `line_break` to
/// `line_break_len` bytes or be NULL; `x12_out` must be valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_write(
    json: *const c_char,
    json_len: usize,
    line_break: *const c_char,
    line_break_len: usize,
    x12_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let x12_out = unsafe { out(x12_out, "x12_out") }?;
        *x12_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let json = unsafe { text(json, json_len, "json") }?;
        let line_break = if line_break.is_null() {
            None
        } else {
            // SAFETY: forwarded to the caller.
            Some(unsafe { text(line_break, line_break_len, "line_break") }?.to_string())
        };
        let options = x12kit_core::WriteOptions { line_break };
        give(x12_out, x12kit_core::write_str(json, &options)?);
        Ok(())
    })
}
