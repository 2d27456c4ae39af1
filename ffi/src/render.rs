//! Rendering an outbound document (`x12kit::render`): payload JSON + document
//! type + partner profile JSON → a complete interchange, with every payload
//! problem reported as an issue (code, JSON pointer, message).

use crate::diagnostics::x12kit_severity;
use crate::error::{
    Failure, c_string, call, free_box, guard, now_or_clock, out, text, text_or_empty, x12kit_error,
    x12kit_status,
};
use crate::string::{give, x12kit_string};
use std::ffi::{CString, c_char};
use x12kit_core::ops::{self, RenderControlNumbers, RenderOptions};
use x12kit_core::{Problem, Rendered, Severity, clock};

/// Control numbers and timestamp of a rendered interchange.
///
/// Pass NULL instead of a pointer to this struct for the defaults: control
/// numbers 1, 1, 1 and the current UTC date and time.
///
/// Ownership: the caller's; x12kit reads it (and the strings it points to)
/// during the call only. Lifetime: the duration of the call. Thread safety:
/// plain data.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct x12kit_render_options {
    /// ISA13 / IEA02, 1 to 999999999.
    pub interchange_control_number: u32,
    /// GS06 / GE02, 1 to 999999999.
    pub group_control_number: u32,
    /// ST02 / SE02, 1 to 999999999 (written with at least 4 digits).
    pub transaction_control_number: u32,
    /// GS04 date `CCYYMMDD` (UTF-8, `date_len` bytes), or NULL for today (UTC).
    /// `date` and `time` are given together or both NULL.
    pub date: *const c_char,
    /// Length of `date`.
    pub date_len: usize,
    /// GS05 time `HHMM`, or NULL for now (UTC).
    pub time: *const c_char,
    /// Length of `time`.
    pub time_len: usize,
}

/// One problem (or warning) of a payload or partner profile.
///
/// The strings are NUL-terminated UTF-8 owned by the `x12kit_issues` list the
/// issue was read from, valid until that list is freed.
///
/// Ownership: the struct is the caller's; its strings belong to the list, never
/// free them. Lifetime: until the list is freed. Thread safety: plain data; the
/// strings may be read from any thread while the list lives.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct x12kit_issue {
    /// Error (the document cannot be rendered) or warning (rendered; worth a look).
    pub severity: x12kit_severity,
    /// Stable code: `MISSING_FIELD`, `INVALID_FIELD`, `TOO_LONG`, `UNKNOWN_FIELD`,
    /// `INVALID_PARTNER`, `UNKNOWN_DOCUMENT_TYPE`, `INVALID_JSON`, ...
    pub code: *const c_char,
    /// JSON pointer of the field concerned, e.g. `/lines/2/quantity` (`/` for the whole input).
    pub pointer: *const c_char,
    /// What is wrong, for a person.
    pub message: *const c_char,
}

#[derive(Debug)]
struct OwnedIssue {
    severity: x12kit_severity,
    code: CString,
    pointer: CString,
    message: CString,
}

/// An owned, immutable list of issues, errors first.
///
/// Ownership: returned by `x12kit_render` to the caller, who frees it with
/// `x12kit_issues_free`. Thread safety: immutable; any number of threads may
/// read it at once.
///
/// Lifetime: the strings of every `x12kit_issue` read from it live until it is
/// freed.
#[derive(Debug)]
pub struct x12kit_issues {
    items: Vec<OwnedIssue>,
}

impl x12kit_issues {
    fn new(issues: &[Problem]) -> Self {
        x12kit_issues {
            items: issues
                .iter()
                .map(|i| OwnedIssue {
                    severity: match i.severity {
                        Severity::Error => x12kit_severity::Error,
                        Severity::Warning => x12kit_severity::Warning,
                    },
                    code: c_string(i.code.as_str()),
                    pointer: c_string(&i.pointer),
                    message: c_string(&i.message),
                })
                .collect(),
        }
    }
}

/// Renders one outbound document into a complete interchange
/// (ISA/GS/ST ... SE/GE/IEA) for a trading partner.
///
/// - `document_type[0..document_type_len]`: the transaction set, e.g. "850" (UTF-8).
/// - `payload[0..payload_len]`: the document's payload JSON (UTF-8), shaped as
///   `schema/documents/<type>.schema.json` describes.
/// - `partner[0..partner_len]`: the partner profile JSON (UTF-8), shaped as
///   `schema/partner.schema.json` describes.
/// - `options`: control numbers and timestamp, or NULL for the defaults.
/// - `x12_out`: receives the X12 on success (free with `x12kit_string_free`);
///   set to empty on failure.
/// - `issues_out`: NULL, or receives a list (free with `x12kit_issues_free`):
///   the warnings on success, every problem found on
///   `X12KIT_STATUS_REJECTED` and `X12KIT_STATUS_INVALID_INPUT`, and NULL on
///   other failures.
///
/// Returns `X12KIT_STATUS_OK`, or `X12KIT_STATUS_REJECTED` with code
/// `INVALID_PAYLOAD`, `INVALID_PARTNER`, `UNKNOWN_DOCUMENT_TYPE` or
/// `UNSUPPORTED_VERSION` (the message lists every problem), or
/// `X12KIT_STATUS_INVALID_INPUT` with `INVALID_JSON`, `INVALID_TIMESTAMP`
/// or `INVALID_CONTROL_NUMBER`, or `X12KIT_STATUS_INVALID_UTF8`,
/// `X12KIT_STATUS_NULL_POINTER`, `X12KIT_STATUS_INVALID_ARGUMENT` (e.g. a
/// date without a time).
/// Thread safety: may be called from many threads at once.
///
/// Ownership: the outputs become the caller's; x12kit keeps no pointer to the
/// inputs. Lifetime: the outputs live until freed.
///
/// # Safety
/// Each pointer must point to its length in readable bytes (or be NULL with
/// length 0); `options` must be NULL or valid; `x12_out` must be writable and
/// `issues_out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_render(
    document_type: *const c_char,
    document_type_len: usize,
    payload: *const c_char,
    payload_len: usize,
    partner: *const c_char,
    partner_len: usize,
    options: *const x12kit_render_options,
    x12_out: *mut x12kit_string,
    issues_out: *mut *mut x12kit_issues,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: the caller passes NULL or a writable pointer.
        let issues_out = unsafe { issues_out.as_mut() }.map(|i| {
            *i = std::ptr::null_mut();
            i
        });
        // SAFETY: forwarded to the caller.
        let x12_out = unsafe { out(x12_out, "x12_out") }?;
        *x12_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let (code, payload, partner) = unsafe {
            (
                text(document_type, document_type_len, "document_type")?,
                text(payload, payload_len, "payload")?,
                text(partner, partner_len, "partner")?,
            )
        };
        // SAFETY: forwarded to the caller.
        let options = match unsafe { options.as_ref() } {
            None => RenderOptions::default(),
            Some(o) => {
                // SAFETY: forwarded to the caller.
                let (date, time) = unsafe { timestamp(o) }?.unzip();
                RenderOptions {
                    control_numbers: RenderControlNumbers {
                        interchange: o.interchange_control_number,
                        group: o.group_control_number,
                        transaction: o.transaction_control_number,
                    },
                    date,
                    time,
                    guides: Default::default(),
                }
            }
        };
        give_rendered(
            ops::render_str(code, payload, partner, &options, clock::now()),
            x12_out,
            issues_out,
        )
    })
}

/// Hands a render's outcome to the caller: the X12 and the warnings, or every
/// problem (a failure without a list, e.g. `INVALID_JSON`, is one issue at
/// its pointer) and the error.
fn give_rendered(
    rendered: Result<Rendered, x12kit_core::Error>,
    x12_out: &mut x12kit_string,
    mut issues_out: Option<&mut *mut x12kit_issues>,
) -> Result<(), Failure> {
    let mut give_issues = |issues: &[Problem]| {
        if let Some(i) = issues_out.as_deref_mut() {
            *i = Box::into_raw(Box::new(x12kit_issues::new(issues)));
        }
    };
    match rendered {
        Ok(rendered) => {
            give_issues(&rendered.warnings);
            give(x12_out, rendered.x12);
            Ok(())
        }
        Err(e) => {
            if e.details().is_empty() {
                give_issues(&[Problem {
                    severity: Severity::Error,
                    code: e.code(),
                    pointer: e.pointer().unwrap_or("/").to_string(),
                    message: e.message().to_string(),
                }]);
            } else {
                give_issues(e.details());
            }
            Err(e.into())
        }
    }
}

/// `x12kit_render` with the options of the render operation as JSON text,
/// the same object every x12kit language takes, and the time of the
/// interchange as a parameter.
///
/// Arguments and outputs as for `x12kit_render`, except:
/// - `options[0..options_len]`: a JSON object (UTF-8) with any of
///   `controlNumbers` (`{"interchange", "group", "transaction"}`, each 1 to
///   999999999, default 1), `date` (`CCYYMMDD`) with `time` (`HHMM`),
///   `guides` (partners' implementation guides: a payload that breaks the
///   one of its type and version is `INVALID_PAYLOAD` with every `GUIDE_*`
///   problem at its pointer; an unusable guide is `INVALID_GUIDE`); NULL
///   with length 0 (or the text `null`) for the defaults.
/// - `now`: dates the interchange unless `date` and `time` are given: Unix
///   seconds (UTC), or 0 for the system clock.
///
/// The X12 is byte for byte the core's `ops::render_str`; `*issues_out` (when
/// not NULL) receives the warnings on success, every problem of the payload
/// or partner on failure, in the core's order.
///
/// Errors: `X12KIT_STATUS_INVALID_INPUT` with `INVALID_OPTIONS` (unknown key,
/// wrong type; `x12kit_error_path` names it), `INVALID_TIMESTAMP`,
/// `INVALID_CONTROL_NUMBER`, `INVALID_JSON` (path `/payload` or `/partner`);
/// `X12KIT_STATUS_REJECTED` with `INVALID_PAYLOAD`, `INVALID_PARTNER`,
/// `INVALID_GUIDE` (an unusable guide in the options: `*issues_out` lists its
/// problems), `UNKNOWN_DOCUMENT_TYPE` or `UNSUPPORTED_VERSION`;
/// `X12KIT_STATUS_INVALID_UTF8`, `X12KIT_STATUS_NULL_POINTER`,
/// `X12KIT_STATUS_INVALID_ARGUMENT`. `*issues_out` is NULL after these last
/// three and after `INVALID_OPTIONS`.
/// Thread safety: may be called from many threads at once.
///
/// Ownership: the outputs become the caller's; x12kit keeps no pointer to the
/// inputs. Lifetime: the outputs live until freed.
///
/// # Safety
/// Each pointer must point to its length in readable bytes (or be NULL with
/// length 0); `x12_out` must be writable and `issues_out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_render_with_json_options(
    document_type: *const c_char,
    document_type_len: usize,
    payload: *const c_char,
    payload_len: usize,
    partner: *const c_char,
    partner_len: usize,
    options: *const c_char,
    options_len: usize,
    now: u64,
    x12_out: *mut x12kit_string,
    issues_out: *mut *mut x12kit_issues,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: the caller passes NULL or a writable pointer.
        let issues_out = unsafe { issues_out.as_mut() }.map(|i| {
            *i = std::ptr::null_mut();
            i
        });
        // SAFETY: forwarded to the caller.
        let x12_out = unsafe { out(x12_out, "x12_out") }?;
        *x12_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let (code, payload, partner) = unsafe {
            (
                text(document_type, document_type_len, "document_type")?,
                text(payload, payload_len, "payload")?,
                text(partner, partner_len, "partner")?,
            )
        };
        // SAFETY: forwarded to the caller.
        let options = unsafe { text_or_empty(options, options_len) }?;
        // An unusable guide in the options: its problems are the issues, as
        // a refused payload's are.
        let options: RenderOptions = match options {
            None => RenderOptions::default(),
            Some(text) => match ops::options_str(text) {
                Ok(o) => o,
                Err(e) if e.code() == x12kit_core::ErrorCode::InvalidGuide => {
                    return give_rendered(Err(e), x12_out, issues_out);
                }
                Err(e) => return Err(e.into()),
            },
        };
        give_rendered(
            ops::render_str(code, payload, partner, &options, now_or_clock(now)),
            x12_out,
            issues_out,
        )
    })
}

/// The JSON Schema (draft 2020-12) of the payload of one of the 18 document
/// types, e.g. "850": what `x12kit_render` takes and what the parse result's
/// `document` holds.
///
/// `document_type[0..document_type_len]` is the transaction set code
/// (UTF-8). On success `*json_out` receives the schema as compact JSON (free
/// with `x12kit_string_free`), byte for byte the core's
/// `ops::document_schema` serialized; the same file is
/// `schema/documents/<type>.schema.json`.
///
/// Errors: `X12KIT_STATUS_REJECTED` with `UNKNOWN_DOCUMENT_TYPE` (the
/// message lists the 18 codes); `X12KIT_STATUS_INVALID_UTF8`,
/// `X12KIT_STATUS_NULL_POINTER`, `X12KIT_STATUS_INVALID_ARGUMENT`;
/// `*json_out` is then empty. Thread safety: may be called from many threads
/// at once.
///
/// Ownership: the output becomes the caller's; x12kit keeps no pointer to
/// `document_type`. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// `document_type` must point to `document_type_len` readable bytes (or be
/// NULL with length 0); `json_out` must be valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_document_schema(
    document_type: *const c_char,
    document_type_len: usize,
    json_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let json_out = unsafe { out(json_out, "json_out") }?;
        *json_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let code = unsafe { text(document_type, document_type_len, "document_type") }?;
        give(json_out, to_json(&ops::document_schema(code)?));
        Ok(())
    })
}

/// The JSON Schema (draft 2020-12) of a document type's payload narrowed for
/// a trading partner (`x12kit schema TYPE --partner`): the edition of the
/// partner's version for the type, its implementation guide of the type
/// (the profile's `guides`: codes as enums, fixed values as const, its
/// lengths and patterns, required elements and segments, not-used ones left
/// out) and its required fields.
///
/// `document_type[0..document_type_len]` is the transaction set code and
/// `partner[0..partner_len]` the profile's JSON text (UTF-8), its guides
/// given inline. On success `*json_out` receives the schema as compact JSON
/// (free with `x12kit_string_free`), byte for byte the core's
/// `ops::document_schema_for_partner_str` serialized.
///
/// Errors: `X12KIT_STATUS_REJECTED` with `UNKNOWN_DOCUMENT_TYPE` or
/// `INVALID_PARTNER` (the message lists every problem, a guide's as
/// `INVALID_GUIDE` at its pointer); `X12KIT_STATUS_INVALID_INPUT` with
/// `INVALID_JSON` (path `/partner`); `X12KIT_STATUS_INVALID_UTF8`,
/// `X12KIT_STATUS_NULL_POINTER`, `X12KIT_STATUS_INVALID_ARGUMENT`;
/// `*json_out` is then empty. Thread safety: may be called from many threads
/// at once.
///
/// Ownership: the output becomes the caller's; x12kit keeps no pointer to
/// the inputs. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// `document_type` and `partner` must point to their lengths in readable
/// bytes (or be NULL with length 0); `json_out` must be valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_document_schema_for_partner(
    document_type: *const c_char,
    document_type_len: usize,
    partner: *const c_char,
    partner_len: usize,
    json_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let json_out = unsafe { out(json_out, "json_out") }?;
        *json_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let (code, partner) = unsafe {
            (
                text(document_type, document_type_len, "document_type")?,
                text(partner, partner_len, "partner")?,
            )
        };
        give(
            json_out,
            to_json(&ops::document_schema_for_partner_str(code, partner)?),
        );
        Ok(())
    })
}

/// The JSON Schema (draft 2020-12) of the partner profile `x12kit_render`
/// takes (`schema/partner.schema.json`).
///
/// On success `*json_out` receives the schema as compact JSON (free with
/// `x12kit_string_free`), byte for byte the core's `ops::partner_schema`
/// serialized. Errors: `X12KIT_STATUS_NULL_POINTER` (`json_out` NULL).
/// Thread safety: may be called from many threads at once.
///
/// Ownership: the output becomes the caller's. Lifetime: until
/// `x12kit_string_free`.
///
/// # Safety
/// `json_out` must be valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_partner_schema(
    json_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let json_out = unsafe { out(json_out, "json_out") }?;
        *json_out = x12kit_string::EMPTY;
        give(json_out, to_json(&ops::partner_schema()));
        Ok(())
    })
}

/// What x12kit knows of a segment: its name and, per element, the data
/// element number, name, type, lengths, use and code meanings (the set's
/// declaration and the X12 dictionary), for an inspector or an "explain
/// this segment" feature.
///
/// `set_type[0..set_type_len]`: the transaction set (ST01: "850"; any
/// text, empty for none: envelope and acknowledgment segments such as ISA,
/// GS, ST, AK5 are described for any set). `version[0..version_len]`: the
/// edition, a group's version (GS08: "004010", "005010X222A1"), an
/// interchange's (ISA12: "00401", "00501") or empty for the base edition.
/// `segment[0..segment_len]`: the identifier ("BEG"). Each may be NULL with
/// length 0 (empty).
///
/// On success `*json_out` receives compact JSON (free with
/// `x12kit_string_free`), byte for byte the core's
/// `ops::describe_segment_json`: `{"set", "setName", "segment",
/// "segmentName", "mandatory", "maxUse", "elements": [{"position",
/// "number", "name", "type", "min", "max", "mandatory", "description",
/// "field", "codes", "knownCodes", "meanings": [{"code", "meaning"}]}]}`,
/// or `null` for a segment x12kit does not describe.
///
/// Errors: `X12KIT_STATUS_INVALID_INPUT` with `INVALID_ARGUMENT` when
/// `segment` is not a segment identifier (2 or 3 upper-case letters or
/// digits) or `version` not a version; `X12KIT_STATUS_INVALID_UTF8`,
/// `X12KIT_STATUS_NULL_POINTER`; `*json_out` is then empty. Thread safety:
/// may be called from many threads at once.
///
/// Ownership: the output becomes the caller's; x12kit keeps no pointer to
/// the arguments. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// Each of `set_type`, `version`, `segment` must point to its length in
/// readable bytes (or be NULL with length 0); `json_out` must be valid for
/// one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_describe_segment(
    set_type: *const c_char,
    set_type_len: usize,
    version: *const c_char,
    version_len: usize,
    segment: *const c_char,
    segment_len: usize,
    json_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let json_out = unsafe { out(json_out, "json_out") }?;
        *json_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let (set_type, version, segment) = unsafe {
            (
                text(set_type, set_type_len, "set_type")?,
                text(version, version_len, "version")?,
                text(segment, segment_len, "segment")?,
            )
        };
        give(
            json_out,
            ops::describe_segment_json(set_type, version, segment)?,
        );
        Ok(())
    })
}

/// Compact JSON of a value (as every x12kit language writes it).
fn to_json(v: &serde_json::Value) -> Vec<u8> {
    v.to_string().into_bytes()
}

/// The `(date, time)` of the options: both or neither.
///
/// # Safety
/// The pointers of `o` must point to their lengths in readable bytes or be NULL.
unsafe fn timestamp(o: &x12kit_render_options) -> Result<Option<(String, String)>, Failure> {
    match (o.date.is_null(), o.time.is_null()) {
        (true, true) => Ok(None),
        (false, false) => {
            // SAFETY: forwarded to the caller.
            let (date, time) = unsafe {
                (
                    text(o.date, o.date_len, "options->date")?,
                    text(o.time, o.time_len, "options->time")?,
                )
            };
            Ok(Some((date.to_string(), time.to_string())))
        }
        _ => Err(Failure::argument(
            "give options->date and options->time together (CCYYMMDD and HHMM), or both NULL for now (UTC)",
        )),
    }
}

/// Number of issues in the list (0 for NULL).
///
/// Ownership, lifetime: a plain value; nothing changes hands. Thread safety:
/// any number of threads may read a list at once.
///
/// # Safety
/// `list` must be NULL or a live list from x12kit.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_issues_count(list: *const x12kit_issues) -> usize {
    // SAFETY: forwarded to the caller.
    guard(0, || unsafe { list.as_ref() }.map_or(0, |l| l.items.len()))
}

/// Fills `*out` with issue `index` (0-based) and returns true; false (and
/// `*out` unchanged) when an argument is NULL or `index` is out of range.
///
/// Lifetime: the strings in `*out` belong to `list` and stay valid until it is freed.
///
/// Ownership: the strings stay the list's, never free them. Thread safety: any
/// number of threads may read a list at once.
///
/// # Safety
/// `list` must be NULL or a live list from x12kit; `out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_issues_get(
    list: *const x12kit_issues,
    index: usize,
    out: *mut x12kit_issue,
) -> bool {
    guard(false, || {
        // SAFETY: forwarded to the caller.
        let (Some(list), Some(out)) = (unsafe { list.as_ref() }, unsafe { out.as_mut() }) else {
            return false;
        };
        match list.items.get(index) {
            Some(i) => {
                *out = x12kit_issue {
                    severity: i.severity,
                    code: i.code.as_ptr(),
                    pointer: i.pointer.as_ptr(),
                    message: i.message.as_ptr(),
                };
                true
            }
            None => false,
        }
    })
}

/// Frees an issues list; NULL is ignored.
///
/// Ownership: takes back the list. Lifetime: the list and every string read
/// from it are invalid afterwards. Thread safety: once, after every reader of
/// the list.
///
/// # Safety
/// `list` must be NULL or a list from x12kit not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_issues_free(list: *mut x12kit_issues) {
    // SAFETY: the caller passes NULL or a handle x12kit boxed, not freed before.
    unsafe { free_box(list) }
}
