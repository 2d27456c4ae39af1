//! The JSON-level calls: X12 in, JSON parse result out (`x12kit_parse`), and
//! back (`x12kit_write`). Each mirrors one core function.

use crate::diagnostics::{give_outputs, requested_outputs, x12kit_diagnostics};
use crate::error::{bytes, call, json_options, out, text, x12kit_error, x12kit_status};
use crate::string::{give, x12kit_string};
use std::ffi::c_char;
use x12kit_core::JsonOptions;
use x12kit_core::ops::{self, ParseOptions, WriteOptions};

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
        let (json_out, diagnostics_out) = unsafe { requested_outputs(json_out, diagnostics_out) }?;
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

/// `x12kit_parse` with the options of the parse operation as JSON text, the
/// same object every x12kit language takes (`docs/c.md`, "Options as JSON").
///
/// `options[0..options_len]` is a JSON object (UTF-8), e.g.
/// `{"documents": false}` to leave out the `document` mapped back from each
/// of the 18 known transaction sets (default true), `{"maxSetBytes": N}` to
/// cap one transaction set at N bytes (default 64 MiB, 0 for no cap: a
/// larger set is a `SET_TOO_LARGE` diagnostic, written without its
/// segments); NULL with length 0 (or
/// the text `null`) for the defaults. The JSON output is byte for byte the
/// core's `ops::parse_json` (what `x12kit parse` prints).
///
/// Outputs as for `x12kit_parse` (at least one non-NULL). Returns
/// `X12KIT_STATUS_OK`; `X12KIT_STATUS_INVALID_INPUT` with code
/// `INVALID_OPTIONS` for options that are not JSON, not an object, or have
/// an unknown key or a value of the wrong type (`x12kit_error_path` names
/// the key, e.g. `/documents`); `X12KIT_STATUS_INVALID_UTF8` (the options
/// text), `X12KIT_STATUS_NULL_POINTER`, `X12KIT_STATUS_INVALID_ARGUMENT`.
/// On failure the outputs are empty/NULL.
/// Thread safety: may be called from many threads at once.
///
/// Ownership: the outputs become the caller's; x12kit keeps no pointer to the
/// inputs. Lifetime: the outputs live until freed, independent of the inputs.
///
/// # Safety
/// `input` and `options` must point to their lengths in readable bytes (or be
/// NULL with length 0); each output must be NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_parse_with_json_options(
    input: *const u8,
    input_len: usize,
    options: *const c_char,
    options_len: usize,
    json_out: *mut x12kit_string,
    diagnostics_out: *mut *mut x12kit_diagnostics,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: the caller passes NULL or writable outputs.
        let (json_out, diagnostics_out) = unsafe { requested_outputs(json_out, diagnostics_out) }?;
        // SAFETY: forwarded to the caller.
        let input = unsafe { bytes(input, input_len, "input") }?;
        // SAFETY: forwarded to the caller.
        let options: ParseOptions = unsafe { json_options(options, options_len) }?;
        // What ops::parse_json does, with the one parse shared by both outputs.
        let doc = x12kit_core::parse_capped(input, options.max_set_bytes);
        let json_options: JsonOptions = options;
        give_outputs(
            &doc.diagnostics,
            || x12kit_core::to_json_with(&doc, &json_options),
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
/// (CR and LF only, e.g. "\n", "\r\n", or "" with length 0 for none) is
/// written after every terminator, except in an interchange whose delimiters
/// include CR or LF (a line feed terminator already ends each line): there
/// nothing is added.
///
/// On success `*x12_out` receives the X12 bytes (free with
/// `x12kit_string_free`). On failure it is set to empty and the status is
/// `X12KIT_STATUS_INVALID_INPUT` with code `INVALID_JSON`,
/// `INVALID_PARSE_RESULT`, `INVALID_DELIMITERS` or `INVALID_OPTIONS` (a line
/// break that is not CR and LF), or
/// `X12KIT_STATUS_REJECTED` with `CONTAINS_DELIMITER` (and
/// `x12kit_error_path` names the offending value), or
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

/// `x12kit_write` with the options of the write operation as JSON text, the
/// same object every x12kit language takes, and the parse result as bytes.
///
/// `json[0..json_len]` is the parse result JSON; bytes that are not UTF-8
/// fail with code `INVALID_UTF8` and status `X12KIT_STATUS_INVALID_INPUT`
/// (a content problem of the data, as in every language; the text arguments
/// of other calls give `X12KIT_STATUS_INVALID_UTF8`).
/// `options[0..options_len]` is a JSON object, e.g. `{"lineBreak": "\r\n"}`
/// (absent or `null`: keep the line breaks recorded in the parse result),
/// or NULL with length 0 for the defaults. The output is byte for byte the
/// core's `ops::write_json`.
///
/// On success `*x12_out` receives the X12 (free with `x12kit_string_free`);
/// on failure it is set to empty. Errors: `X12KIT_STATUS_INVALID_INPUT` with
/// `INVALID_OPTIONS`, `INVALID_UTF8`, `INVALID_JSON`, `INVALID_PARSE_RESULT`
/// or `INVALID_DELIMITERS`; `X12KIT_STATUS_REJECTED` with
/// `CONTAINS_DELIMITER` (`x12kit_error_path` names the offending value);
/// `X12KIT_STATUS_INVALID_UTF8` (the options text),
/// `X12KIT_STATUS_NULL_POINTER`, `X12KIT_STATUS_INVALID_ARGUMENT`.
/// Thread safety: may be called from many threads at once.
///
/// Ownership: the output becomes the caller's; x12kit keeps no pointer to the
/// inputs. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// `json` and `options` must point to their lengths in readable bytes (or be
/// NULL with length 0); `x12_out` must be valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_write_with_json_options(
    json: *const u8,
    json_len: usize,
    options: *const c_char,
    options_len: usize,
    x12_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let x12_out = unsafe { out(x12_out, "x12_out") }?;
        *x12_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let json = unsafe { bytes(json, json_len, "json") }?;
        // SAFETY: forwarded to the caller.
        let options: WriteOptions = unsafe { json_options(options, options_len) }?;
        give(x12_out, ops::write_json(json, &options)?);
        Ok(())
    })
}
