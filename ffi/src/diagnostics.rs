//! Diagnostics as C structs: one finding (`x12kit_diagnostic`) and an owned
//! list of them (`x12kit_diagnostics`).

use crate::error::{c_string, free_box, guard};
use crate::string::{give, x12kit_string};
use std::ffi::{CString, c_char};
use x12kit_core::{Diagnostic, Severity};

/// Stands for "unknown" in the `size_t` position fields of `x12kit_diagnostic`
/// (`SIZE_MAX`; written into the header by ffi/cbindgen.toml, which cannot evaluate it).
pub const X12KIT_NONE: usize = usize::MAX;

/// How serious a diagnostic is.
///
/// Ownership, lifetime, thread safety: a plain value, copied freely.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum x12kit_severity {
    /// The input breaks a rule; a receiver should reject or fix it.
    Error = 0,
    /// The input is usable but unusual; worth a look.
    Warning = 1,
}

/// One finding about X12 input: how bad, a stable code, a message, and where.
///
/// This is the C form of the diagnostics in the JSON parse result. All
/// pointers are borrowed from the object that filled the struct (an
/// `x12kit_diagnostics` list or an `x12kit_reader`); see that object for how
/// long they stay valid. Strings are NUL-terminated UTF-8.
///
/// Ownership: the struct is the caller's (usually on the stack); its strings
/// are not, never free them. Lifetime: the strings live as long as the list or
/// until the next call on the reader (see above). Thread safety: plain data;
/// the strings may be read from any thread while they are valid.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct x12kit_diagnostic {
    /// Error or warning.
    pub severity: x12kit_severity,
    /// Stable UPPER_SNAKE code, e.g. `SE_MISSING`, `NOT_X12`.
    pub code: *const c_char,
    /// A sentence a person can act on.
    pub message: *const c_char,
    /// 0-based position in the input of the segment concerned, counting every
    /// segment; `X12KIT_NONE` when unknown.
    pub segment_index: usize,
    /// Identifier of the segment concerned (e.g. `SE`); NULL when unknown.
    pub segment_id: *const c_char,
    /// 1-based element position inside the segment; 0 when unknown.
    pub element: u32,
    /// Byte offset in the input where the problem starts; `X12KIT_NONE` when unknown.
    pub offset: usize,
}

/// A diagnostic with its strings in C form, kept alive while C reads it.
#[derive(Debug)]
pub(crate) struct OwnedDiagnostic {
    severity: x12kit_severity,
    code: CString,
    message: CString,
    segment_index: usize,
    segment_id: Option<CString>,
    element: u32,
    offset: usize,
}

impl OwnedDiagnostic {
    pub(crate) fn new(d: &Diagnostic) -> Self {
        OwnedDiagnostic {
            severity: match d.severity {
                Severity::Error => x12kit_severity::Error,
                Severity::Warning => x12kit_severity::Warning,
            },
            code: c_string(d.code.as_str()),
            message: c_string(&d.message),
            segment_index: d.segment_index.unwrap_or(X12KIT_NONE),
            segment_id: d.segment_id.as_deref().map(c_string),
            element: d.element.unwrap_or(0),
            offset: d.offset.unwrap_or(X12KIT_NONE),
        }
    }

    /// The C view, borrowing `self`.
    pub(crate) fn view(&self) -> x12kit_diagnostic {
        x12kit_diagnostic {
            severity: self.severity,
            code: self.code.as_ptr(),
            message: self.message.as_ptr(),
            segment_index: self.segment_index,
            segment_id: self
                .segment_id
                .as_ref()
                .map_or(std::ptr::null(), |s| s.as_ptr()),
            element: self.element,
            offset: self.offset,
        }
    }

    pub(crate) fn is_error(&self) -> bool {
        self.severity == x12kit_severity::Error
    }
}

/// An owned, immutable list of diagnostics, in the order they were found.
///
/// Ownership: returned by `x12kit_parse` to the caller, who frees it with
/// `x12kit_diagnostics_free`. Lifetime: the strings of every
/// `x12kit_diagnostic` read from the list stay valid until the list is freed.
/// Thread safety: the list never changes after creation, so any number of
/// threads may read it at the same time; free it once, after all readers.
#[derive(Debug)]
pub struct x12kit_diagnostics {
    items: Vec<OwnedDiagnostic>,
}

impl x12kit_diagnostics {
    pub(crate) fn new(diagnostics: &[Diagnostic]) -> Self {
        x12kit_diagnostics {
            items: diagnostics.iter().map(OwnedDiagnostic::new).collect(),
        }
    }
}

/// Number of diagnostics in the list (0 for NULL).
///
/// Ownership, lifetime: a plain value; nothing changes hands. Thread safety:
/// any number of threads may read a list at once.
///
/// # Safety
/// `list` must be NULL or a live list from x12kit.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_diagnostics_count(list: *const x12kit_diagnostics) -> usize {
    // SAFETY: forwarded to the caller.
    guard(0, || unsafe { list.as_ref() }.map_or(0, |l| l.items.len()))
}

/// Number of diagnostics of severity error in the list (0 for NULL).
///
/// Ownership, lifetime: a plain value; nothing changes hands. Thread safety:
/// any number of threads may read a list at once.
///
/// # Safety
/// `list` must be NULL or a live list from x12kit.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_diagnostics_error_count(list: *const x12kit_diagnostics) -> usize {
    guard(0, || {
        // SAFETY: forwarded to the caller.
        unsafe { list.as_ref() }.map_or(0, |l| l.items.iter().filter(|d| d.is_error()).count())
    })
}

/// Fills `*out` with diagnostic `index` (0-based) and returns true; returns
/// false and leaves `*out` unchanged when `list` or `out` is NULL or `index`
/// is not below `x12kit_diagnostics_count(list)`.
///
/// Lifetime: the strings in `*out` belong to `list` and stay valid until it is freed.
///
/// Ownership: the strings stay the list's, never free them. Thread safety: any
/// number of threads may read a list at once.
///
/// # Safety
/// `list` must be NULL or a live list from x12kit; `out` must be NULL or
/// valid for writing one `x12kit_diagnostic`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_diagnostics_get(
    list: *const x12kit_diagnostics,
    index: usize,
    out: *mut x12kit_diagnostic,
) -> bool {
    guard(false, || {
        // SAFETY: forwarded to the caller.
        let (Some(list), Some(out)) = (unsafe { list.as_ref() }, unsafe { out.as_mut() }) else {
            return false;
        };
        match list.items.get(index) {
            Some(d) => {
                *out = d.view();
                true
            }
            None => false,
        }
    })
}

/// Frees a diagnostics list; NULL is ignored.
///
/// Ownership: takes back the list. Lifetime: the list and every string read
/// from it are invalid afterwards. Thread safety: once, after every reader of
/// the list.
///
/// # Safety
/// `list` must be NULL or a list from x12kit not freed before. Strings read
/// from it become invalid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_diagnostics_free(list: *mut x12kit_diagnostics) {
    // SAFETY: the caller passes NULL or a handle x12kit boxed, not freed before.
    unsafe { free_box(list) }
}

/// The `json_out` and `diagnostics_out` outputs of the calls that give a
/// JSON result and/or its diagnostics, cleared (empty string, NULL list)
/// so that a failed call leaves nothing to free.
///
/// # Safety
/// Each pointer must be NULL or valid for one write.
pub(crate) unsafe fn cleared_outputs<'a>(
    json_out: *mut x12kit_string,
    diagnostics_out: *mut *mut x12kit_diagnostics,
) -> (
    Option<&'a mut x12kit_string>,
    Option<&'a mut *mut x12kit_diagnostics>,
) {
    // SAFETY (both): forwarded to the caller.
    let json = unsafe { json_out.as_mut() }.map(|j| {
        *j = x12kit_string::EMPTY;
        j
    });
    let diagnostics = unsafe { diagnostics_out.as_mut() }.map(|d| {
        *d = std::ptr::null_mut();
        d
    });
    (json, diagnostics)
}

/// [`cleared_outputs`] for a call that must be asked for at least one of
/// them: `NULL_POINTER` when both are NULL.
///
/// # Safety
/// As for [`cleared_outputs`].
pub(crate) unsafe fn requested_outputs<'a>(
    json_out: *mut x12kit_string,
    diagnostics_out: *mut *mut x12kit_diagnostics,
) -> Result<
    (
        Option<&'a mut x12kit_string>,
        Option<&'a mut *mut x12kit_diagnostics>,
    ),
    crate::error::Failure,
> {
    // SAFETY: forwarded to the caller.
    let (json, diagnostics) = unsafe { cleared_outputs(json_out, diagnostics_out) };
    if json.is_none() && diagnostics.is_none() {
        return Err(crate::error::Failure::null("json_out and diagnostics_out"));
    }
    Ok((json, diagnostics))
}

/// Gives `diagnostics` and the JSON `json` builds to whichever of the
/// outputs of [`cleared_outputs`] the caller asked for.
pub(crate) fn give_outputs(
    diagnostics: &[Diagnostic],
    json: impl FnOnce() -> Vec<u8>,
    json_out: Option<&mut x12kit_string>,
    diagnostics_out: Option<&mut *mut x12kit_diagnostics>,
) {
    if let Some(d) = diagnostics_out {
        *d = Box::into_raw(Box::new(x12kit_diagnostics::new(diagnostics)));
    }
    if let Some(j) = json_out {
        give(j, json());
    }
}
