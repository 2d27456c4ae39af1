//! Owned output bytes (`x12kit_string`) and borrowed input views (`x12kit_bytes`).

use crate::error::{Failure, bytes};
use std::ffi::c_char;

/// Bytes produced by x12kit (JSON, X12, a signature) and owned by the caller.
///
/// `data` points to `len` bytes followed by one NUL byte, so text results can
/// be used as C strings; X12 output can contain a NUL byte only if the
/// interchange uses NUL as a delimiter, so use `len` for X12. An empty result
/// has `len` 0 and `data` pointing to a lone NUL.
///
/// Ownership: a function that fills an `x12kit_string` hands the bytes to the
/// caller, who releases them with `x12kit_string_free` (never `free`). Do not
/// change `data` or `len`. A function that fails sets `data` to NULL and `len`
/// to 0. Filling a string that still holds bytes leaks them: free it first.
/// Thread safety: plain memory; share or move it like any buffer.
///
/// Lifetime: until `x12kit_string_free`.
#[repr(C)]
#[derive(Debug)]
pub struct x12kit_string {
    /// The bytes, NUL-terminated; NULL after a failure or `x12kit_string_free`.
    pub data: *mut c_char,
    /// Number of bytes before the terminating NUL.
    pub len: usize,
}

impl x12kit_string {
    pub(crate) const EMPTY: x12kit_string = x12kit_string {
        data: std::ptr::null_mut(),
        len: 0,
    };

    /// Hands `bytes` to C, NUL-terminated.
    pub(crate) fn from_vec(mut bytes: Vec<u8>) -> x12kit_string {
        let len = bytes.len();
        bytes.push(0);
        let raw = Box::into_raw(bytes.into_boxed_slice());
        x12kit_string {
            data: raw.cast(),
            len,
        }
    }
}

/// A borrowed byte range given to x12kit: `len` bytes at `data`.
///
/// `data` may be NULL only when `len` is 0. x12kit reads the bytes during the
/// call and keeps no pointer to them afterwards.
///
/// Ownership: the caller's, as are the bytes. Lifetime: the duration of the
/// call. Thread safety: plain data.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct x12kit_bytes {
    /// The first byte.
    pub data: *const u8,
    /// Number of bytes.
    pub len: usize,
}

/// Frees the bytes of an `x12kit_string` and sets `data` to NULL and `len` to 0.
///
/// NULL, and a string whose `data` is already NULL (never filled, failed, or
/// freed), are ignored, so freeing twice through the same struct is harmless.
///
/// Ownership: takes back the bytes. Lifetime: `s->data` is invalid afterwards
/// (NULL). Thread safety: once per string, after every reader of it.
///
/// # Safety
/// `s` must be NULL or point to an `x12kit_string` that is zeroed or was filled
/// by x12kit and not changed since.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_string_free(s: *mut x12kit_string) {
    crate::error::guard((), || {
        // SAFETY: the caller passes NULL or a valid x12kit_string.
        let Some(s) = (unsafe { s.as_mut() }) else {
            return;
        };
        if !s.data.is_null() {
            let whole = std::ptr::slice_from_raw_parts_mut(s.data.cast::<u8>(), s.len + 1);
            // SAFETY: data/len came from `from_vec`: a boxed slice of len + 1 bytes.
            drop(unsafe { Box::from_raw(whole) });
        }
        *s = x12kit_string::EMPTY;
    })
}

/// Writes `bytes` into the caller's string.
pub(crate) fn give(out: &mut x12kit_string, bytes: Vec<u8>) {
    *out = x12kit_string::from_vec(bytes);
}

/// The `count` byte ranges of `list`.
///
/// # Safety
/// `list` must point to `count` readable `x12kit_bytes`, each valid as documented.
pub(crate) unsafe fn byte_list<'a>(
    list: *const x12kit_bytes,
    count: usize,
    name: &str,
) -> Result<Vec<&'a [u8]>, Failure> {
    let items = if count == 0 {
        &[][..]
    } else if list.is_null() {
        return Err(Failure::null(name));
    } else if count > isize::MAX as usize / std::mem::size_of::<x12kit_bytes>() {
        return Err(Failure::argument(format!(
            "the count given for `{name}` ({count}) is larger than any array can be"
        )));
    } else {
        // SAFETY: non-NULL; the caller guarantees `count` elements.
        unsafe { std::slice::from_raw_parts(list, count) }
    };
    items
        .iter()
        .enumerate()
        // SAFETY: each entry is documented to point to `len` readable bytes.
        .map(|(i, b)| unsafe { bytes(b.data, b.len, &format!("{name}[{i}].data")) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_nul_terminated_and_free_is_idempotent() {
        let mut s = x12kit_string::from_vec(b"abc".to_vec());
        assert_eq!(s.len, 3);
        // SAFETY: 4 bytes were allocated.
        assert_eq!(
            unsafe { std::slice::from_raw_parts(s.data.cast::<u8>(), 4) },
            b"abc\0"
        );
        // SAFETY: filled by from_vec.
        unsafe {
            x12kit_string_free(&mut s);
            assert!(s.data.is_null());
            x12kit_string_free(&mut s);
            x12kit_string_free(std::ptr::null_mut());
        }
        let mut empty = x12kit_string::from_vec(Vec::new());
        assert!(!empty.data.is_null());
        // SAFETY: filled by from_vec.
        unsafe { x12kit_string_free(&mut empty) };
    }
}
