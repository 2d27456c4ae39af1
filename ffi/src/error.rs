//! Status codes, the error object, and the guards every exported function
//! runs its body in: argument checks, error mapping and `catch_unwind`.

use serde::de::DeserializeOwned;
use std::any::Any;
use std::borrow::Cow;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use x12kit_core::{DateTime, ErrorKind, clock};

/// What a call returned: `X12KIT_STATUS_OK` or the kind of failure.
///
/// The values never change meaning once released; new kinds get new numbers.
/// On failure, the `x12kit_error` passed to the call (if any) holds a stable
/// code string that says more (for example `SIGNATURE_MISMATCH` within
/// `X12KIT_STATUS_REJECTED`) and a message for a person.
///
/// Ownership, lifetime, thread safety: a plain value, copied freely.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum x12kit_status {
    /// The call succeeded.
    Ok = 0,
    /// A required pointer argument was NULL (code `NULL_POINTER`).
    NullPointer = 1,
    /// A text argument is not valid UTF-8 (code `INVALID_UTF8`).
    InvalidUtf8 = 2,
    /// An argument is unusable: a length larger than any buffer, a call the
    /// object does not support in its state, ... (code `INVALID_ARGUMENT`).
    InvalidArgument = 3,
    /// The data given cannot be used as it is: JSON that does not parse or is
    /// not a parse result, unusable delimiters or options, an empty or
    /// malformed secret, ... (the core's codes of kind `invalid_input`, e.g.
    /// `INVALID_JSON`, `INVALID_PARSE_RESULT`, `INVALID_OPTIONS`, `EMPTY_SECRET`).
    InvalidInput = 4,
    /// Well-formed data whose content is refused: a payload or partner profile
    /// with problems, a value containing a delimiter, a webhook delivery that
    /// is not authentic or not fresh (the core's codes of kind `rejected`, e.g.
    /// `INVALID_PAYLOAD`, `CONTAINS_DELIMITER`, `SIGNATURE_MISMATCH`).
    Rejected = 5,
    /// A bug in x12kit was caught before it could cross into C (code `INTERNAL`).
    /// The call had no effect on its outputs; please report the message.
    Panic = 6,
}

/// Details of a failed call: status, stable code and message.
///
/// Create one with `x12kit_error_new`, pass it to any number of calls, read it
/// after a call returned a status other than `X12KIT_STATUS_OK`, and free it
/// with `x12kit_error_free`. A call that fails overwrites it; a call that
/// succeeds leaves it unchanged. Passing NULL instead of an error object is
/// allowed everywhere: the status is still returned, the details are dropped.
///
/// Thread safety: an error object is not synchronised. Use one per thread (or
/// guard it); it may be moved between threads.
///
/// Ownership: the caller's, from `x12kit_error_new` until `x12kit_error_free`.
/// Lifetime: the strings it returns live until its next failure or its free.
#[derive(Debug)]
pub struct x12kit_error {
    status: x12kit_status,
    code: CString,
    message: CString,
    path: Option<CString>,
}

/// An internal failure, before it is written to an `x12kit_error`.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: x12kit_status,
    pub(crate) code: Cow<'static, str>,
    pub(crate) message: String,
    pub(crate) path: Option<String>,
}

impl Failure {
    pub(crate) fn new(
        status: x12kit_status,
        code: impl Into<Cow<'static, str>>,
        message: impl Into<String>,
    ) -> Self {
        Failure {
            status,
            code: code.into(),
            message: message.into(),
            path: None,
        }
    }

    /// A required pointer was NULL.
    pub(crate) fn null(name: &str) -> Self {
        Self::new(
            x12kit_status::NullPointer,
            "NULL_POINTER",
            format!("`{name}` is NULL; pass a valid pointer"),
        )
    }

    /// An argument is unusable.
    pub(crate) fn argument(message: impl Into<String>) -> Self {
        Self::new(x12kit_status::InvalidArgument, "INVALID_ARGUMENT", message)
    }

    fn panic(payload: Box<dyn Any + Send>) -> Self {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Self::new(
            x12kit_status::Panic,
            "INTERNAL",
            format!("internal error in x12kit (please report it): {what}"),
        )
    }
}

impl From<x12kit_core::Error> for Failure {
    /// The status follows the error's kind: invalid input, rejected content
    /// (a refused payload, a webhook that is not authentic), or a caught bug.
    fn from(e: x12kit_core::Error) -> Self {
        let status = match e.kind() {
            ErrorKind::InvalidInput | ErrorKind::Io => x12kit_status::InvalidInput,
            ErrorKind::Rejected => x12kit_status::Rejected,
            ErrorKind::Internal => x12kit_status::Panic,
        };
        let mut f = Failure::new(status, e.code().as_str(), e.to_string());
        f.path = e.pointer().map(str::to_string);
        f
    }
}

impl From<x12kit_core::webhook::WebhookError> for Failure {
    fn from(e: x12kit_core::webhook::WebhookError) -> Self {
        x12kit_core::Error::from(e).into()
    }
}

/// A C string of `s`, with any NUL byte (which C cannot hold) shown as U+FFFD.
pub(crate) fn c_string(s: &str) -> CString {
    match CString::new(s) {
        Ok(c) => c,
        Err(_) => CString::new(s.replace('\0', "\u{FFFD}")).unwrap_or_default(),
    }
}

impl x12kit_error {
    fn set(&mut self, f: Failure) {
        self.status = f.status;
        self.code = c_string(&f.code);
        self.message = c_string(&f.message);
        self.path = f.path.as_deref().map(c_string);
    }
}

/// Writes `failure` into `err` (when not NULL) and returns its status.
pub(crate) fn report(err: *mut x12kit_error, failure: Failure) -> x12kit_status {
    let status = failure.status;
    if !err.is_null() {
        // Filling the error only allocates; guard it anyway.
        let _ = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: the caller passes NULL or a pointer from `x12kit_error_new`.
            unsafe { (*err).set(failure) }
        }));
    }
    status
}

/// Runs `f` for a function that returns a status: maps its failure (or a panic) into `err`.
pub(crate) fn call(
    err: *mut x12kit_error,
    f: impl FnOnce() -> Result<(), Failure>,
) -> x12kit_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => x12kit_status::Ok,
        Ok(Err(failure)) => report(err, failure),
        Err(payload) => report(err, Failure::panic(payload)),
    }
}

/// Runs `f` for a function that cannot report an error: a panic gives `fallback`.
pub(crate) fn guard<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

/// The body of every `x12kit_*_free` of a boxed handle: drops the box behind
/// `handle`; NULL is ignored.
///
/// # Safety
/// `handle` must be NULL or a pointer from `Box::into_raw` of the same type,
/// not freed before.
pub(crate) unsafe fn free_box<T>(handle: *mut T) {
    guard((), || {
        if !handle.is_null() {
            // SAFETY: per this function's contract, from Box::into_raw, not freed before.
            drop(unsafe { Box::from_raw(handle) });
        }
    })
}

/// The bytes `ptr[0..len]`. `ptr` may be NULL (or dangling) only when `len` is 0.
///
/// # Safety
/// When `len > 0` and `ptr` is not NULL, `ptr` must point to `len` readable bytes
/// that stay valid and unmodified for `'a`.
pub(crate) unsafe fn bytes<'a>(
    ptr: *const u8,
    len: usize,
    name: &str,
) -> Result<&'a [u8], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Failure::null(name));
    }
    if len > isize::MAX as usize || (ptr as usize).checked_add(len).is_none() {
        return Err(Failure::argument(format!(
            "the length given for `{name}` ({len}) is larger than any buffer can be; pass the number of bytes `{name}` points to"
        )));
    }
    // SAFETY: non-NULL, length checked against the address space; the caller
    // guarantees `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// The UTF-8 text `ptr[0..len]` (not NUL-terminated).
///
/// # Safety
/// As for [`bytes`].
pub(crate) unsafe fn text<'a>(
    ptr: *const c_char,
    len: usize,
    name: &str,
) -> Result<&'a str, Failure> {
    // SAFETY: forwarded to the caller.
    let b = unsafe { bytes(ptr.cast(), len, name) }?;
    std::str::from_utf8(b).map_err(|e| {
        Failure::new(
            x12kit_status::InvalidUtf8,
            "INVALID_UTF8",
            format!(
                "`{name}` is not valid UTF-8 (invalid byte sequence at byte {}); pass UTF-8 text",
                e.valid_up_to()
            ),
        )
    })
}

/// The object behind an output pointer, or `NULL_POINTER`.
///
/// # Safety
/// `ptr` must be NULL or valid for writes of a `T`.
pub(crate) unsafe fn out<'a, T>(ptr: *mut T, name: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: forwarded to the caller.
    unsafe { ptr.as_mut() }.ok_or_else(|| Failure::null(name))
}

/// Writes `value` through an optional output pointer (NULL skips it).
///
/// # Safety
/// `ptr` must be NULL or valid for writes of a `T`.
pub(crate) unsafe fn put<T>(ptr: *mut T, value: T) {
    // SAFETY: forwarded to the caller.
    if let Some(slot) = unsafe { ptr.as_mut() } {
        *slot = value;
    }
}

/// The options struct of an operation from the caller's JSON text
/// `ptr[0..len]` through the core's option reader (`ops::options_str`: the
/// JSON every language passes, `INVALID_OPTIONS` with the pointer of the
/// offending key); NULL (with length 0) is the defaults.
///
/// # Safety
/// As for [`text`].
pub(crate) unsafe fn json_options<T: DeserializeOwned + Default>(
    ptr: *const c_char,
    len: usize,
) -> Result<T, Failure> {
    // SAFETY: forwarded to the caller.
    match unsafe { text_or_empty(ptr, len) }? {
        None => Ok(T::default()),
        Some(options) => Ok(x12kit_core::ops::options_str(options)?),
    }
}

/// The options' JSON text, `None` for NULL with length 0 (the defaults).
///
/// # Safety
/// As [`text`].
pub(crate) unsafe fn text_or_empty<'a>(
    ptr: *const c_char,
    len: usize,
) -> Result<Option<&'a str>, Failure> {
    if ptr.is_null() && len == 0 {
        return Ok(None);
    }
    // SAFETY: forwarded to the caller.
    Ok(Some(unsafe { text(ptr, len, "options") }?))
}

/// The time a call is made at: `now` Unix seconds, or the system clock for 0.
pub(crate) fn now_or_clock(now: u64) -> DateTime {
    if now == 0 {
        clock::now()
    } else {
        DateTime::from_unix(now)
    }
}

/// Creates an error object for use with any number of calls.
///
/// Ownership: the caller owns the result and frees it with `x12kit_error_free`.
/// Lifetime: until that call. Returns NULL only if memory cannot be allocated
/// (x12kit otherwise aborts on out-of-memory, like all Rust code).
/// Thread safety: callable from any thread.
#[unsafe(no_mangle)]
pub extern "C" fn x12kit_error_new() -> *mut x12kit_error {
    guard(std::ptr::null_mut(), || {
        Box::into_raw(Box::new(x12kit_error {
            status: x12kit_status::Ok,
            code: c"OK".to_owned(),
            message: CString::default(),
            path: None,
        }))
    })
}

/// Frees an error object; NULL is ignored.
///
/// Ownership: takes back the object. Lifetime: `err` and every string read from
/// it are invalid afterwards. Thread safety: not while another thread uses
/// `err`.
///
/// # Safety
/// `err` must be NULL or a pointer from `x12kit_error_new` not freed before.
/// Strings returned by the accessors of this error become invalid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_error_free(err: *mut x12kit_error) {
    // SAFETY: the caller passes NULL or a handle x12kit boxed, not freed before.
    unsafe { free_box(err) }
}

/// The status of the last failed call that used `err` (`X12KIT_STATUS_OK` if
/// none failed yet). A NULL `err` gives `X12KIT_STATUS_NULL_POINTER`.
///
/// Ownership, lifetime: a plain value; nothing changes hands. Thread safety:
/// not while another thread's call writes `err`.
///
/// # Safety
/// `err` must be NULL or a live pointer from `x12kit_error_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_error_status(err: *const x12kit_error) -> x12kit_status {
    // SAFETY: forwarded to the caller.
    guard(x12kit_status::Panic, || match unsafe { err.as_ref() } {
        Some(e) => e.status,
        None => x12kit_status::NullPointer,
    })
}

/// The stable code of the last failure, an UPPER_SNAKE ASCII string such as
/// `INVALID_JSON`, `SIGNATURE_MISMATCH` or `NULL_POINTER` (`OK` if none failed yet).
///
/// Codes never change meaning; compare them with `strcmp`. Lifetime: the
/// string is owned by `err` and valid until `err` is next written by a failed
/// call or freed; copy it to keep it. A NULL `err` gives the static string
/// `NULL_POINTER`. Never returns NULL.
///
/// Ownership: the string stays `err`'s. Thread safety: not while another
/// thread's call writes `err`.
///
/// # Safety
/// `err` must be NULL or a live pointer from `x12kit_error_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_error_code(err: *const x12kit_error) -> *const c_char {
    // SAFETY: forwarded to the caller.
    guard(c"INTERNAL".as_ptr(), || match unsafe { err.as_ref() } {
        Some(e) => e.code.as_ptr(),
        None => c"NULL_POINTER".as_ptr(),
    })
}

/// A sentence describing the last failure for a person, in UTF-8 (empty if
/// none failed yet).
///
/// Lifetime: owned by `err`, valid until `err` is next written by a failed
/// call or freed. A NULL `err` gives a static message. Never returns NULL.
///
/// Ownership: the string stays `err`'s. Thread safety: not while another
/// thread's call writes `err`.
///
/// # Safety
/// `err` must be NULL or a live pointer from `x12kit_error_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_error_message(err: *const x12kit_error) -> *const c_char {
    // SAFETY: forwarded to the caller.
    guard(c"".as_ptr(), || match unsafe { err.as_ref() } {
        Some(e) => e.message.as_ptr(),
        None => c"the x12kit_error pointer is NULL".as_ptr(),
    })
}

/// The JSON pointer of the offending value (for example
/// `/interchanges/0/groups/0/transactions/0/segments/2/elements/1`) when the
/// last failure concerns one value of a JSON input; NULL otherwise.
///
/// Lifetime: owned by `err`, valid until `err` is next written by a failed
/// call or freed.
///
/// Ownership: the string stays `err`'s. Thread safety: not while another
/// thread's call writes `err`.
///
/// # Safety
/// `err` must be NULL or a live pointer from `x12kit_error_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_error_path(err: *const x12kit_error) -> *const c_char {
    // SAFETY: forwarded to the caller.
    guard(std::ptr::null(), || match unsafe { err.as_ref() } {
        Some(e) => e.path.as_deref().map_or(std::ptr::null(), CStr::as_ptr),
        None => std::ptr::null(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(err: *const x12kit_error) -> (x12kit_status, String, String) {
        // SAFETY: live error object.
        unsafe {
            (
                x12kit_error_status(err),
                CStr::from_ptr(x12kit_error_code(err))
                    .to_str()
                    .unwrap()
                    .to_string(),
                CStr::from_ptr(x12kit_error_message(err))
                    .to_str()
                    .unwrap()
                    .to_string(),
            )
        }
    }

    #[test]
    fn a_panic_becomes_a_status_and_never_unwinds() {
        let err = x12kit_error_new();
        let status = call(err, || panic!("boom"));
        assert_eq!(status, x12kit_status::Panic);
        let (s, code, message) = read(err);
        assert_eq!((s, code.as_str()), (x12kit_status::Panic, "INTERNAL"));
        assert!(message.contains("boom"), "{message}");
        let formatted = call(err, || panic!("{} {}", "formatted", 42));
        assert_eq!(formatted, x12kit_status::Panic);
        assert!(read(err).2.contains("formatted 42"));
        // A NULL error object still gets the status.
        assert_eq!(
            call(std::ptr::null_mut(), || panic!("x")),
            x12kit_status::Panic
        );
        assert_eq!(guard(7, || panic!("x")), 7);
        // SAFETY: from x12kit_error_new.
        unsafe { x12kit_error_free(err) };
    }

    #[test]
    fn success_leaves_the_error_unchanged() {
        let err = x12kit_error_new();
        assert_eq!(read(err).0, x12kit_status::Ok);
        assert_eq!(read(err).1, "OK");
        call(err, || Err(Failure::null("x")));
        assert_eq!(call(err, || Ok(())), x12kit_status::Ok);
        assert_eq!(read(err).1, "NULL_POINTER");
        // SAFETY: from x12kit_error_new.
        unsafe { x12kit_error_free(err) };
    }

    #[test]
    fn nul_bytes_in_messages_are_replaced() {
        assert_eq!(c_string("a\0b").to_str().unwrap(), "a\u{FFFD}b");
    }

    #[test]
    fn lengths_beyond_the_address_space_are_refused() {
        let b = [1u8; 4];
        // SAFETY: the lengths are checked before any read.
        unsafe {
            assert_eq!(
                bytes(b.as_ptr(), usize::MAX, "x").unwrap_err().status,
                x12kit_status::InvalidArgument
            );
            assert_eq!(
                bytes(b.as_ptr(), isize::MAX as usize + 1, "x")
                    .unwrap_err()
                    .status,
                x12kit_status::InvalidArgument
            );
            assert_eq!(bytes(std::ptr::null(), 0, "x").unwrap(), b"");
            assert_eq!(
                bytes(std::ptr::null(), 1, "x").unwrap_err().status,
                x12kit_status::NullPointer
            );
        }
    }
}
