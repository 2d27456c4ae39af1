//! Envelope validation (`x12kit::validate`) and TA1 / 997 / 999
//! acknowledgements (`x12kit::acknowledge`) of X12 input.

use crate::diagnostics::{cleared_outputs, give_outputs, requested_outputs, x12kit_diagnostics};
use crate::error::{
    Failure, bytes, call, free_box, json_options, now_or_clock, out, text, x12kit_error,
    x12kit_status,
};
use crate::reader::x12kit_delimiters;
use crate::string::{give, x12kit_string};
use std::ffi::c_char;
use x12kit_core::ops::{self, AcknowledgeOptions, ValidateOptions};
use x12kit_core::validate::{Options, Retain, StreamValidator, Validation, validate_with};
use x12kit_core::{AckKind, DateTime, clock};

/// Which acknowledgement `x12kit_acknowledge` builds (the `kind` field of
/// `x12kit_ack_options`).
///
/// Ownership, lifetime, thread safety: a plain value, copied freely.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum x12kit_ack_kind {
    /// 997 for groups before 005010, 999 from 005010, plus a TA1 when the
    /// interchange asks for one (ISA14 = 1) or was not accepted cleanly.
    Auto = 0,
    /// Only a TA1 per interchange.
    Ta1 = 1,
    /// A 997 per functional group, whatever its version.
    Fa997 = 2,
    /// A 999 per functional group, whatever its version.
    Fa999 = 3,
}

/// How `x12kit_acknowledge` builds acknowledgements. Pass NULL instead of a
/// pointer to this struct for the defaults (automatic kind, control numbers
/// 1, every set acknowledged, received delimiters, now, line feeds, structure
/// findings of the 18 known sets in AK3/AK4 or IK3/IK4). A zero-filled struct
/// gives the same defaults, except that control numbers 0 are used as given.
///
/// Ownership: the caller's; x12kit reads it (and the strings and delimiters it
/// points to) during the call only. Lifetime: the duration of the call. Thread
/// safety: plain data.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct x12kit_ack_options {
    /// One of the `x12kit_ack_kind` values (a plain integer, so that any value
    /// can be checked: others give `X12KIT_STATUS_INVALID_ARGUMENT`).
    pub kind: u32,
    /// ISA13 of the first acknowledgement interchange (then +1 per interchange).
    pub interchange_control_number: u64,
    /// GS06 of the first acknowledgement group (then +1 per group).
    pub group_control_number: u64,
    /// ST02 of the first 997 / 999 (then +1 per set).
    pub set_control_number: u64,
    /// Write AK2 / IK5 only for sets that are not accepted without errors.
    pub errors_only: bool,
    /// Delimiters of the acknowledgements, or NULL for those of each received interchange.
    pub delimiters: *const x12kit_delimiters,
    /// Date and time of the acknowledgements as Unix seconds (UTC), or 0 for now.
    pub timestamp: u64,
    /// What follows each segment terminator (UTF-8, `line_break_len` bytes), or
    /// NULL for a line feed (nothing when the terminator is itself a line break).
    pub line_break: *const c_char,
    /// Length of `line_break`.
    pub line_break_len: usize,
    /// Check the envelope rules only: leave out the structure rules of the 18
    /// known transaction sets, whose segment and element errors are otherwise
    /// reported in AK3/AK4 (997) or IK3/IK4 (999).
    pub envelope_only: bool,
}

/// Which group and set summaries a validation keeps (the `retain` field of
/// `x12kit_validate_options`). Counts and outcomes are always kept.
///
/// Ownership, lifetime, thread safety: a plain value, copied freely.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum x12kit_retain {
    /// Every group and every transaction set (the default).
    All = 0,
    /// Every group, but only the sets that are not accepted without errors.
    Errors = 1,
    /// No group or set summaries (`groups` is empty in the JSON): memory no
    /// longer grows with the number of sets, for streams of millions of sets.
    Counts = 2,
}

/// How `x12kit_validate_with` and `x12kit_stream_validator_new` validate. A
/// zero-filled struct gives the defaults of `x12kit_validate`.
///
/// Ownership: the caller's; x12kit reads it during the call only. Lifetime:
/// the duration of the call. Thread safety: plain data.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct x12kit_validate_options {
    /// Also check the structure of the 18 known transaction sets (segment
    /// order, loops, mandatory segments and elements, types, lengths, codes),
    /// reported as diagnostics with their AK3/AK4 and IK3/IK4 codes.
    pub structure: bool,
    /// One of the `x12kit_retain` values (a plain integer, so that any value
    /// can be checked: others give `X12KIT_STATUS_INVALID_ARGUMENT`); 0 keeps
    /// every summary.
    pub retain: u32,
}

/// The core's options from the C struct (NULL for the defaults).
///
/// # Safety
/// `options` must be NULL or valid.
unsafe fn validate_options(options: *const x12kit_validate_options) -> Result<Options, Failure> {
    // SAFETY: forwarded to the caller.
    let options = unsafe { options.as_ref() }.copied().unwrap_or_default();
    let retain = match options.retain {
        0 => Retain::All,
        1 => Retain::Errors,
        2 => Retain::Counts,
        r => {
            return Err(Failure::argument(format!(
                "options->retain is {r}; use X12KIT_RETAIN_ALL (0), _ERRORS (1) or _COUNTS (2)"
            )));
        }
    };
    Ok(Options {
        structure: options.structure,
        retain,
        ..Options::default()
    })
}

/// Writes a validation to the outputs of `x12kit_validate_with` (either may
/// be NULL, not both).
fn give_validation(
    validation: &Validation,
    json_out: Option<&mut x12kit_string>,
    diagnostics_out: Option<&mut *mut x12kit_diagnostics>,
) {
    give_outputs(
        &validation.diagnostics,
        || validation.to_json(),
        json_out,
        diagnostics_out,
    );
}

/// Parses and validates X12 against the envelope rules (ISA/IEA, GS/GE,
/// ST/SE: values, counts, control numbers, duplicates, ...) and gives the
/// validation result as JSON and/or its diagnostics.
///
/// `input[0..input_len]` is the X12. Validation never fails on bad X12:
/// findings are diagnostics, each with its stable code, position and the
/// TA1 / 997 / 999 codes it maps to. Outputs (at least one non-NULL):
/// - `json_out`: the compact JSON validation result
///   (`schema/validation-result.schema.json`: `valid`, `errorCount`,
///   per-interchange / group / set summaries, `diagnostics`); free with
///   `x12kit_string_free`.
/// - `diagnostics_out`: a new list of the diagnostics (parser findings
///   included); free with `x12kit_diagnostics_free`. The input is valid when
///   `x12kit_diagnostics_error_count` is 0.
///
/// Returns `X12KIT_STATUS_OK`, `X12KIT_STATUS_NULL_POINTER` or
/// `X12KIT_STATUS_INVALID_ARGUMENT`; on failure the outputs are empty/NULL.
/// Thread safety: may be called from many threads at once.
///
/// Ownership: the outputs become the caller's; x12kit keeps no pointer to
/// `input`. Lifetime: the outputs live until freed.
///
/// # Safety
/// `input` must point to `input_len` readable bytes; each output must be NULL
/// or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_validate(
    input: *const u8,
    input_len: usize,
    json_out: *mut x12kit_string,
    diagnostics_out: *mut *mut x12kit_diagnostics,
    err: *mut x12kit_error,
) -> x12kit_status {
    // SAFETY: forwarded to the caller.
    unsafe {
        x12kit_validate_with(
            input,
            input_len,
            std::ptr::null(),
            json_out,
            diagnostics_out,
            err,
        )
    }
}

/// `x12kit_validate` with options (NULL for the defaults): with
/// `options->structure`, the structure of the 18 known transaction sets is
/// checked too; `options->retain` says which group and set summaries the
/// result keeps. Outputs and errors as for `x12kit_validate`. Thread safety:
/// may be called from many threads at once.
///
/// Ownership: the outputs become the caller's; x12kit keeps no pointer to
/// `input` or `options`. Lifetime: the outputs live until freed.
///
/// # Safety
/// As for `x12kit_validate`; `options` must be NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_validate_with(
    input: *const u8,
    input_len: usize,
    options: *const x12kit_validate_options,
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
        let options = unsafe { validate_options(options) }?;
        let doc = x12kit_core::parse_capped(input, x12kit_core::SetCap::NONE);
        let validation = validate_with(&doc, &options);
        give_validation(&validation, json_out, diagnostics_out);
        Ok(())
    })
}

/// `x12kit_validate` with the options of the validate operation as JSON
/// text, the same object every x12kit language takes (`docs/c.md`, "Options
/// as JSON").
///
/// `options[0..options_len]` is a JSON object (UTF-8), e.g.
/// `{"structure": true}` to check the structure of the 18 known transaction
/// sets too; NULL with length 0 (or the text `null`) for the defaults. The
/// JSON output is byte for byte the core's `ops::validate_json` (what
/// `x12kit validate --json` prints).
///
/// Outputs as for `x12kit_validate` (at least one non-NULL). Errors:
/// `X12KIT_STATUS_INVALID_INPUT` with `INVALID_OPTIONS` (options that are not
/// a JSON object, an unknown key, a value of the wrong type;
/// `x12kit_error_path` names the key), `X12KIT_STATUS_INVALID_UTF8` (the
/// options text), `X12KIT_STATUS_NULL_POINTER`,
/// `X12KIT_STATUS_INVALID_ARGUMENT`. On failure the outputs are empty/NULL.
/// Thread safety: may be called from many threads at once.
///
/// Ownership: the outputs become the caller's; x12kit keeps no pointer to the
/// inputs. Lifetime: the outputs live until freed.
///
/// # Safety
/// `input` and `options` must point to their lengths in readable bytes (or be
/// NULL with length 0); each output must be NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_validate_with_json_options(
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
        let options: ValidateOptions = unsafe { json_options(options, options_len) }?;
        give_validation(&ops::validate(input, &options), json_out, diagnostics_out);
        Ok(())
    })
}

/// A push validator: validates X12 fed in chunks of any size (from a socket,
/// a huge file, a queue ...) without holding the input.
///
/// Created by `x12kit_stream_validator_new`, fed with
/// `x12kit_stream_validator_feed`, finished with
/// `x12kit_stream_validator_finish` (after which it only accepts
/// `x12kit_stream_validator_free`), freed with `x12kit_stream_validator_free`.
///
/// Ownership: the caller's, from `x12kit_stream_validator_new` until
/// `x12kit_stream_validator_free`. Lifetime: until that call. Thread safety:
/// not synchronised; use a validator from one thread at a time (it may be
/// moved between threads). Separate validators are independent.
#[derive(Debug)]
pub struct x12kit_stream_validator {
    /// `None` once finished.
    validator: Option<StreamValidator>,
}

/// The failure of a call on a finished validator.
fn finished(call: &str) -> Failure {
    Failure::argument(format!(
        "x12kit_stream_validator_finish was already called on this validator: {call} is not allowed after it (only x12kit_stream_validator_free is)"
    ))
}

/// Creates a push validator with `options` (NULL for the defaults of
/// `x12kit_validate`; `options->retain` = `X12KIT_RETAIN_COUNTS` keeps memory
/// bounded for streams of millions of sets).
///
/// Feeding it the input in chunks of any size, then finishing it, gives
/// exactly the result of the core's `validate_reader` over the same bytes,
/// whatever the chunking, which is the result of `x12kit_validate_with` over
/// the whole input (acknowledgements in the input, interchanges whose ISA
/// cannot be parsed and `INVALID_UTF8` included). Memory is bounded by the
/// longest segment plus 64 KiB plus the result kept (diagnostics, the
/// summaries `retain` keeps and the acknowledgements read).
///
/// Returns the validator, or NULL with `err` filled: an unknown
/// `options->retain` gives `X12KIT_STATUS_INVALID_ARGUMENT`.
///
/// Ownership: the validator is the caller's (free it with
/// `x12kit_stream_validator_free`); x12kit keeps no pointer to `options`.
/// Lifetime: until `x12kit_stream_validator_free`. Thread safety: may be
/// called from many threads at once; the new validator is used by one thread
/// at a time.
///
/// # Safety
/// `options` must be NULL or valid; `err` must be NULL or a live error object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_stream_validator_new(
    options: *const x12kit_validate_options,
    err: *mut x12kit_error,
) -> *mut x12kit_stream_validator {
    let mut created = std::ptr::null_mut();
    call(err, || {
        // SAFETY: forwarded to the caller.
        let options = unsafe { validate_options(options) }?;
        created = Box::into_raw(Box::new(x12kit_stream_validator {
            validator: Some(StreamValidator::new(options)),
        }));
        Ok(())
    });
    created
}

/// Validates the next chunk of the input, `data[0..len]`. The chunk is
/// copied as needed: the caller may reuse its memory as soon as the call
/// returns. A zero-length chunk is allowed (`data` may then be NULL) and does
/// nothing. Validation never fails on bad X12: findings are diagnostics,
/// given by `x12kit_stream_validator_finish`.
///
/// Errors: `X12KIT_STATUS_NULL_POINTER` (a NULL `v`, or NULL `data` with a
/// length); `X12KIT_STATUS_INVALID_ARGUMENT` (code `INVALID_ARGUMENT`) after
/// `x12kit_stream_validator_finish`, or for a length larger than any buffer.
/// A failed call feeds nothing.
///
/// Ownership: the chunk stays the caller's. Lifetime: x12kit keeps no pointer
/// to `data`. Thread safety: not concurrently with another call on the same
/// validator.
///
/// # Safety
/// `v` must be NULL or a live validator; `data` must point to `len` readable
/// bytes (or be NULL with length 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_stream_validator_feed(
    v: *mut x12kit_stream_validator,
    data: *const u8,
    len: usize,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let v = unsafe { out(v, "v") }?;
        let validator = v
            .validator
            .as_mut()
            .ok_or_else(|| finished("x12kit_stream_validator_feed"))?;
        // SAFETY: forwarded to the caller.
        let data = unsafe { bytes(data, len, "data") }?;
        validator.feed(data);
        Ok(())
    })
}

/// Declares the end of the input and gives the validation result, with the
/// outputs of `x12kit_validate_with` (at least one non-NULL):
/// - `json_out`: the compact JSON validation result; free with
///   `x12kit_string_free`.
/// - `diagnostics_out`: a new list of the diagnostics; free with
///   `x12kit_diagnostics_free`.
///
/// After a successful call the validator only accepts
/// `x12kit_stream_validator_free`: feeding or finishing it again gives
/// `X12KIT_STATUS_INVALID_ARGUMENT` (code `INVALID_ARGUMENT`).
///
/// Errors: `X12KIT_STATUS_NULL_POINTER` (a NULL `v`, or both outputs NULL:
/// the validator is then left unfinished, so the call can be repeated);
/// `X12KIT_STATUS_INVALID_ARGUMENT` when already finished. On failure the
/// outputs are empty/NULL.
///
/// Ownership: the outputs become the caller's; the validator stays the
/// caller's, to free. Lifetime: the outputs live until freed, independently
/// of the validator. Thread safety: not concurrently with another call on the
/// same validator.
///
/// # Safety
/// `v` must be NULL or a live validator; each output must be NULL or valid
/// for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_stream_validator_finish(
    v: *mut x12kit_stream_validator,
    json_out: *mut x12kit_string,
    diagnostics_out: *mut *mut x12kit_diagnostics,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: the caller passes NULL or writable outputs.
        let (json_out, diagnostics_out) = unsafe { cleared_outputs(json_out, diagnostics_out) };
        // SAFETY: forwarded to the caller.
        let v = unsafe { out(v, "v") }?;
        if v.validator.is_none() {
            return Err(finished("x12kit_stream_validator_finish"));
        }
        if json_out.is_none() && diagnostics_out.is_none() {
            return Err(Failure::null("json_out and diagnostics_out"));
        }
        if let Some(validator) = v.validator.take() {
            give_validation(&validator.finish(), json_out, diagnostics_out);
        }
        Ok(())
    })
}

/// Frees a push validator, finished or not; NULL is ignored. Outputs already
/// given by `x12kit_stream_validator_finish` stay valid.
///
/// Ownership: takes back the validator. Lifetime: the validator is invalid
/// afterwards. Thread safety: once, when no other thread uses the validator.
///
/// # Safety
/// `v` must be NULL or a validator from `x12kit_stream_validator_new` not
/// freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_stream_validator_free(v: *mut x12kit_stream_validator) {
    // SAFETY: the caller passes NULL or a handle x12kit boxed, not freed before.
    unsafe { free_box(v) }
}

/// Parses and validates X12, then builds its acknowledgements: one
/// acknowledgement interchange per received interchange (sender and receiver
/// swapped), with a TA1 and/or one 997 / 999 per received functional group,
/// as `options` says. Sets of the 18 known types are also checked against
/// their structure (unless `options->envelope_only`), so segment and element
/// errors appear in AK3/AK4 (997) or IK3/IK4 (999).
///
/// On success `*x12_out` receives the acknowledgement X12 (free with
/// `x12kit_string_free`); it is empty (length 0) when nothing is to be
/// acknowledged, e.g. a 997 asked for input without functional groups. Every
/// acknowledgement x12kit writes parses and validates without errors.
///
/// Errors: `X12KIT_STATUS_INVALID_INPUT` with `INVALID_DELIMITERS` or
/// `INVALID_CONTROL_NUMBER` (e.g. a control number beyond 9 digits;
/// `x12kit_error_path` names the option); `X12KIT_STATUS_REJECTED` with
/// `CONTAINS_DELIMITER`;
/// `X12KIT_STATUS_INVALID_ARGUMENT` (unknown `kind`),
/// `X12KIT_STATUS_INVALID_UTF8` (`line_break`), `X12KIT_STATUS_NULL_POINTER`.
/// Thread safety: may be called from many threads at once.
///
/// Ownership: the output becomes the caller's; x12kit keeps no pointer to
/// `input` or `options`. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// `input` must point to `input_len` readable bytes; `options` must be NULL
/// or valid (with its pointers valid or NULL); `x12_out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_acknowledge(
    input: *const u8,
    input_len: usize,
    options: *const x12kit_ack_options,
    x12_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let x12_out = unsafe { out(x12_out, "x12_out") }?;
        *x12_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let input = unsafe { bytes(input, input_len, "input") }?;
        let (options, now) = match unsafe { options.as_ref() } {
            None => (AcknowledgeOptions::default(), clock::now()),
            // SAFETY: forwarded to the caller.
            Some(o) => unsafe { ack_options(o) }?,
        };
        give(x12_out, ops::acknowledge(input, &options, now)?);
        Ok(())
    })
}

/// `x12kit_acknowledge` with the options of the acknowledge operation as JSON
/// text, the same object every x12kit language takes, and the time of the
/// acknowledgement as a parameter.
///
/// `options[0..options_len]` is a JSON object (UTF-8) with any of `kind`
/// (`"auto"`, `"ta1"`, `"997"`, `"999"`), `structure` (default true),
/// `errorsOnly`, `interchangeControlNumber`, `groupControlNumber`,
/// `setControlNumber` (default 1 each), `date` (`CCYYMMDD`) with `time`
/// (`HHMM`), `lineBreak` and `delimiters` (`{"element", "component",
/// "repetition", "segment"}`, one-character strings); NULL with length 0 (or
/// the text `null`) for the defaults. `now` dates the acknowledgement unless
/// `date` and `time` are given: Unix seconds (UTC), or 0 for the system
/// clock. The output is byte for byte the core's `ops::acknowledge`.
///
/// On success `*x12_out` receives the acknowledgement X12 (free with
/// `x12kit_string_free`), empty when nothing is to be acknowledged; on
/// failure it is set to empty. Errors: `X12KIT_STATUS_INVALID_INPUT` with
/// `INVALID_OPTIONS` (unknown key, wrong type, unknown `kind`),
/// `INVALID_TIMESTAMP` (a date without a time, an impossible date or time),
/// `INVALID_CONTROL_NUMBER` or `INVALID_DELIMITERS` (`x12kit_error_path`
/// names the option); `X12KIT_STATUS_REJECTED` with `CONTAINS_DELIMITER`;
/// `X12KIT_STATUS_INVALID_UTF8` (the options text),
/// `X12KIT_STATUS_NULL_POINTER`, `X12KIT_STATUS_INVALID_ARGUMENT`.
/// Thread safety: may be called from many threads at once.
///
/// Ownership: the output becomes the caller's; x12kit keeps no pointer to the
/// inputs. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// `input` and `options` must point to their lengths in readable bytes (or be
/// NULL with length 0); `x12_out` must be valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_acknowledge_with_json_options(
    input: *const u8,
    input_len: usize,
    options: *const c_char,
    options_len: usize,
    now: u64,
    x12_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let x12_out = unsafe { out(x12_out, "x12_out") }?;
        *x12_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let input = unsafe { bytes(input, input_len, "input") }?;
        // SAFETY: forwarded to the caller.
        let options: AcknowledgeOptions = unsafe { json_options(options, options_len) }?;
        give(
            x12_out,
            ops::acknowledge(input, &options, now_or_clock(now))?,
        );
        Ok(())
    })
}

/// Reads the acknowledgements (TA1, 997, 999) in X12 input: what each
/// accepts or rejects, as JSON.
///
/// `input[0..input_len]` is the X12 (any bytes). On success `*json_out`
/// receives the compact JSON (free with `x12kit_string_free`), byte for
/// byte the core's `ops::read_acknowledgement_json`: the TA1s with the
/// interchange they answer and its note, the 997/999 sets with each group
/// and set response (AK1/AK2/AK5/AK9, IK5, error codes); input without
/// acknowledgements gives empty lists. Reading never fails on bad X12.
///
/// Errors: `X12KIT_STATUS_NULL_POINTER` (`json_out` NULL, or `input` NULL
/// with a length), `X12KIT_STATUS_INVALID_ARGUMENT` (an impossible length);
/// `*json_out` is then empty. Thread safety: may be called from many threads
/// at once.
///
/// Ownership: the output becomes the caller's; x12kit keeps no pointer to
/// `input`. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// `input` must point to `input_len` readable bytes (or be NULL with length
/// 0); `json_out` must be valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_read_acknowledgement(
    input: *const u8,
    input_len: usize,
    json_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let json_out = unsafe { out(json_out, "json_out") }?;
        *json_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let input = unsafe { bytes(input, input_len, "input") }?;
        give(json_out, ops::read_acknowledgement_json(input));
        Ok(())
    })
}

/// The core's options (and the acknowledgement's time) from the C struct.
///
/// # Safety
/// The pointers of `o` must be NULL or valid.
unsafe fn ack_options(o: &x12kit_ack_options) -> Result<(AcknowledgeOptions, DateTime), Failure> {
    let kind = match o.kind {
        0 => AckKind::Auto,
        1 => AckKind::Ta1,
        2 => AckKind::Fa997,
        3 => AckKind::Fa999,
        k => {
            return Err(Failure::argument(format!(
                "options->kind is {k}; use X12KIT_ACK_KIND_AUTO (0), _TA1 (1), _FA997 (2) or _FA999 (3)"
            )));
        }
    };
    let line_break = if o.line_break.is_null() {
        None
    } else {
        // SAFETY: forwarded to the caller.
        Some(unsafe { text(o.line_break, o.line_break_len, "options->line_break") }?.to_string())
    };
    let one = |b: u8| char::from(b).to_string();
    // SAFETY: forwarded to the caller.
    let delimiters = unsafe { o.delimiters.as_ref() }.map(|d| {
        let d: x12kit_core::Delimiters = (*d).into();
        ops::DelimiterOptions {
            element: one(d.element),
            component: one(d.component),
            repetition: d.repetition.map(one),
            segment: one(d.segment),
        }
    });
    let now = if o.timestamp == 0 {
        clock::now()
    } else {
        DateTime::from_unix(o.timestamp)
    };
    Ok((
        AcknowledgeOptions {
            kind,
            structure: !o.envelope_only,
            errors_only: o.errors_only,
            interchange_control_number: o.interchange_control_number,
            group_control_number: o.group_control_number,
            set_control_number: o.set_control_number,
            date: None,
            time: None,
            line_break,
            delimiters,
            guides: Default::default(),
        },
        now,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::{null, null_mut};

    #[test]
    fn stream_validator_equals_validate_reader_and_refuses_use_after_finish() {
        let x12: &[u8] = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*4*0001~GE*1*1~IEA*1*000000001~";
        let expected = x12kit_core::validate_reader(x12, &Options::default())
            .unwrap()
            .to_json();
        // SAFETY: live pointers to local data throughout.
        unsafe {
            let v = x12kit_stream_validator_new(null(), null_mut());
            assert!(!v.is_null());
            for chunk in x12.chunks(5) {
                let status =
                    x12kit_stream_validator_feed(v, chunk.as_ptr(), chunk.len(), null_mut());
                assert_eq!(status, x12kit_status::Ok);
            }
            let mut json = x12kit_string::EMPTY;
            let status = x12kit_stream_validator_finish(v, &mut json, null_mut(), null_mut());
            assert_eq!(status, x12kit_status::Ok);
            assert_eq!(
                std::slice::from_raw_parts(json.data.cast::<u8>(), json.len),
                expected
            );
            crate::string::x12kit_string_free(&mut json);
            let status = x12kit_stream_validator_feed(v, x12.as_ptr(), 1, null_mut());
            assert_eq!(status, x12kit_status::InvalidArgument);
            let status = x12kit_stream_validator_finish(v, &mut json, null_mut(), null_mut());
            assert_eq!(status, x12kit_status::InvalidArgument);
            assert!(json.data.is_null());
            x12kit_stream_validator_free(v);
            let bad = x12kit_validate_options {
                structure: false,
                retain: 9,
            };
            assert!(x12kit_stream_validator_new(&bad, null_mut()).is_null());
        }
    }
}
