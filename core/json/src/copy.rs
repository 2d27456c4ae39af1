//! Appending short byte runs to a `Vec<u8>` with one reservation and
//! word-sized copies that make no library call (the writer's keys and
//! values, and the mapped documents' text in `x12kit-edi`).
//!
//! The safe API is [`put`], [`put_key`] and [`append`]: each reserves its
//! room, checks (in debug builds) that the capacity holds what it writes,
//! and sets the length to what it wrote. It earns its `unsafe`: with
//! `extend_from_slice` instead (a `memcpy` call per value), `x12kit parse`
//! with documents runs 5.5 % more instructions and 7 % more time
//! (`benches/README.md`, "Unsafe code").
#![allow(unsafe_code)]

/// Appends `head`, `b` and `tail` (`tail` at most 2 bytes), with short
/// copies that make no library call.
#[inline(always)]
pub fn put(out: &mut Vec<u8>, head: u8, b: &[u8], tail: &[u8]) {
    debug_assert!(tail.len() <= 2);
    out.reserve(b.len() + 3);
    debug_assert!(out.capacity() - out.len() >= 1 + b.len() + tail.len());
    // SAFETY: `reserve` gives room for the 1 + b.len() + 2 bytes written.
    unsafe {
        let len = out.len();
        let dst = out.as_mut_ptr().add(len);
        *dst = head;
        copy(b.as_ptr(), dst.add(1), b.len());
        let t = dst.add(1 + b.len());
        for (k, &c) in tail.iter().enumerate() {
            *t.add(k) = c;
        }
        out.set_len(len + 1 + b.len() + tail.len());
    }
}

/// Appends `sep` (`{` or `,`) and the member name `"key":` of a key
/// that needs no escaping, with one reservation and short copies.
#[inline(always)]
pub fn put_key(out: &mut Vec<u8>, sep: u8, key: &[u8]) {
    out.reserve(key.len() + 4);
    debug_assert!(out.capacity() - out.len() >= key.len() + 4);
    // SAFETY: `reserve` gives room for the 2 + key.len() + 2 bytes written.
    unsafe {
        let len = out.len();
        let dst = out.as_mut_ptr().add(len);
        *dst = sep;
        *dst.add(1) = b'"';
        copy(key.as_ptr(), dst.add(2), key.len());
        let t = dst.add(2 + key.len());
        *t = b'"';
        *t.add(1) = b':';
        out.set_len(len + key.len() + 4);
    }
}

/// Appends `b`, with a short copy that makes no library call.
#[inline(always)]
pub fn append(out: &mut Vec<u8>, b: &[u8]) {
    out.reserve(b.len());
    debug_assert!(out.capacity() - out.len() >= b.len());
    // SAFETY: `reserve` gives room for the b.len() bytes written.
    unsafe {
        let len = out.len();
        copy(b.as_ptr(), out.as_mut_ptr().add(len), b.len());
        out.set_len(len + b.len());
    }
}

/// Copies `len` bytes without a library call for short runs (overlapping
/// word loads and stores).
///
/// # Safety
/// `src..src+len` readable, `dst..dst+len` writable, not overlapping.
#[inline(always)]
pub(crate) unsafe fn copy(src: *const u8, dst: *mut u8, len: usize) {
    // SAFETY: the caller's: every read is within `src..src + len` and every
    // write within `dst..dst + len` (the two word copies overlap each
    // other, never the ends).
    unsafe {
        if len >= 8 {
            if len <= 16 {
                let a = (src as *const u64).read_unaligned();
                let b = (src.add(len - 8) as *const u64).read_unaligned();
                (dst as *mut u64).write_unaligned(a);
                (dst.add(len - 8) as *mut u64).write_unaligned(b);
            } else {
                dst.copy_from_nonoverlapping(src, len);
            }
        } else if len >= 4 {
            let a = (src as *const u32).read_unaligned();
            let b = (src.add(len - 4) as *const u32).read_unaligned();
            (dst as *mut u32).write_unaligned(a);
            (dst.add(len - 4) as *mut u32).write_unaligned(b);
        } else if len > 0 {
            *dst = *src;
            *dst.add(len / 2) = *src.add(len / 2);
            *dst.add(len - 1) = *src.add(len - 1);
        }
    }
}
