//! The fast path of a segment's elements: plain text between element
//! separators, written as `"a","b",...` with a 16-byte scan (SSE2 on
//! x86-64) and small copies, instead of a byte-class lookup per byte.
//!
//! Its unsafe code is pointer writes into capacity reserved up front and
//! loads from the segment or padded copies on the stack. The safe API is
//! [`segment`] and [`fields`]: each reserves its room, computes where it
//! ends, and every write below checks (in debug builds: `room`) that it
//! stays before that end; the length is set only to what was written.
//! It earns its place: without it `x12kit parse` runs 24 % more
//! instructions with documents and 93 % more without (`benches/README.md`,
//! "Unsafe code"). The tests compare its output with the general path on
//! every vector input and on random segments and envelopes
//! (`core/tests/json_fast_path.rs`, and `x12kit-json`'s own tests).
#![allow(unsafe_code)]

use crate::copy::copy;
use crate::fields::Key;

const HEAD: &[u8; 7] = b"{\"id\":\"";
const MID: &[u8; 14] = b"\",\"elements\":[";

/// Checks, in debug builds, that `n` bytes written at `dst` end at or
/// before `end`, the end of the room the caller reserved.
#[inline(always)]
fn room(dst: *const u8, n: usize, end: *const u8) {
    debug_assert!(
        (dst as usize)
            .checked_add(n)
            .is_some_and(|e| e <= end as usize),
        "the JSON fast path would write {n} bytes past the room reserved"
    );
}

/// The bytes a [`copy_blocks`] of `len` bytes writes: whole 16-byte blocks.
#[inline(always)]
fn blocks(len: usize) -> usize {
    len.max(1).div_ceil(16) * 16
}

/// Writes a whole segment, `{"id":"ID","elements":["a","b",...]}`, when
/// its id and elements need nothing but quotes: no `"`, `\\`, control or
/// non-ASCII byte, and no component or repetition separator (`c`, `r`)
/// unless it is at most 64 bytes long (then an element holding them is
/// written `["a","b"]` or `{"repeat":[...]}`, as the general path
/// writes it; in the id they are text, which `clean`, what
/// [`super::separators_clean`] says of them, tells needs no escaping).
/// Returns false, writing nothing, otherwise (the caller's general
/// path), and when the segment has no element.
#[inline]
pub(crate) fn segment(
    out: &mut Vec<u8>,
    seg: &x12kit_syntax::segment::Segment<'_>,
    sep: u8,
    c: u8,
    r: u8,
    clean: bool,
) -> bool {
    let raw = seg.raw();
    let n = raw.len();
    // Every byte becomes at most 10 (a repetition separator between
    // empty items of an element: `{"repeat":["",""]},`, 19 bytes for it
    // and its element separator); 16 more for the whole-block copies
    // of `short`.
    let reserved = HEAD.len() + MID.len() + 10 * n + 32;
    out.reserve(reserved);
    let start = out.len();
    debug_assert!(out.capacity() - start >= reserved);
    let scan = Scan::new(sep, c, r);
    // SAFETY: `reserve` above gives room for everything written below
    // (`end`, which every write checks in debug builds); reads stay within
    // `raw`, `body` or padded copies on the stack; the length is set only
    // to what was written.
    unsafe {
        let base = out.as_mut_ptr();
        let dst = base.add(start);
        let end = dst.add(reserved);
        let done = if n <= 64 {
            short(dst, end, raw, &scan, clean)
        } else {
            long(dst, end, raw, seg.id(), &scan)
        };
        let Some(mut dst) = done else {
            return false;
        };
        room(dst, 2, end);
        dst.copy_from_nonoverlapping(b"]}".as_ptr(), 2);
        dst = dst.add(2);
        out.set_len(dst.offset_from(base) as usize);
    }
    true
}

/// [`segment`] of more than 64 bytes without component separators:
/// its head and elements, up to the closing `]}`.
///
/// # Safety
/// `dst..end` has room for `HEAD.len() + MID.len() + 3 * raw.len() + 2` bytes.
#[inline(always)]
unsafe fn long(
    mut dst: *mut u8,
    end: *mut u8,
    raw: &[u8],
    id: &[u8],
    scan: &Scan,
) -> Option<*mut u8> {
    if id.len() >= raw.len()
        || id.len() > 16
        || !id
            .iter()
            .all(|&b| (0x20..0x80).contains(&b) && b != b'"' && b != b'\\')
    {
        return None;
    }
    let body = &raw[id.len() + 1..];
    // SAFETY: see the caller.
    unsafe {
        room(dst, HEAD.len() + id.len() + MID.len() + 1, end);
        dst.copy_from_nonoverlapping(HEAD.as_ptr(), HEAD.len());
        dst = dst.add(HEAD.len());
        copy(id.as_ptr(), dst, id.len());
        dst = dst.add(id.len());
        dst.copy_from_nonoverlapping(MID.as_ptr(), MID.len());
        dst = dst.add(MID.len());
        *dst = b'"';
        // Each separator becomes 3 of the bytes reserved.
        elements(dst.add(1), end, body, scan, |d| {
            room(d, 3, end);
            d.copy_from_nonoverlapping(b"\",\"".as_ptr(), 3);
            Some(d.add(3))
        })
    }
}

/// The bits below `k` (all 64 from 64).
#[inline(always)]
fn below(k: usize) -> u64 {
    if k >= 64 { !0 } else { (1u64 << k) - 1 }
}

/// Copies `len` bytes as whole 16-byte blocks: up to 15 bytes more are
/// read after `src + len` and written after `dst + len`.
///
/// # Safety
/// `src..src + len + 15` readable, `dst..dst + len + 15` writable (before
/// `end`), not overlapping.
#[inline(always)]
unsafe fn copy_blocks(src: *const u8, dst: *mut u8, len: usize, end: *mut u8) {
    room(dst, blocks(len), end);
    // SAFETY: see above.
    unsafe {
        // The first block outside the loop: most pieces fit in it, and
        // the loop alone is turned into a call to memcpy.
        dst.copy_from_nonoverlapping(src, 16);
        let mut k = 16;
        while k < len {
            dst.add(k).copy_from_nonoverlapping(src.add(k), 16);
            k += 16;
        }
    }
}

/// [`segment`] of at most 64 bytes, from a padded copy on the stack:
/// one scan gives the id's end (the first separator) and the element,
/// component and repetition separators, and every piece is copied in
/// whole 16-byte blocks. Writes up to the closing `]}`.
///
/// # Safety
/// `raw.len() <= 64`; `dst..end` has room for `HEAD.len() + MID.len() + 10 *
/// raw.len() + 16` bytes.
#[inline(always)]
unsafe fn short(
    mut dst: *mut u8,
    end: *mut u8,
    raw: &[u8],
    scan: &Scan,
    clean: bool,
) -> Option<*mut u8> {
    let n = raw.len();
    debug_assert!(n <= 64, "a short segment has at most 64 bytes, not {n}");
    // The segment, then a byte that is plain text: whole blocks may be
    // scanned and copied past its end.
    let mut buf = [b'A'; 80];
    let p = buf.as_ptr();
    let (mut s, mut cr, mut bad) = (0u64, 0u64, 0u64);
    // SAFETY: loads stay within `raw` and `buf` (at most 64 + 15 bytes
    // are read from it); writes are those the caller reserved room for.
    unsafe {
        let q = buf.as_mut_ptr();
        let from = raw.as_ptr();
        if n >= 16 {
            // Blocks from 0, 16 and 32 while they end before `n`, then
            // the last 16 bytes (written out: as a loop it becomes a
            // call to memcpy).
            q.copy_from_nonoverlapping(from, 16);
            if n > 32 {
                q.add(16).copy_from_nonoverlapping(from.add(16), 16);
            }
            if n > 48 {
                q.add(32).copy_from_nonoverlapping(from.add(32), 16);
            }
            q.add(n - 16).copy_from_nonoverlapping(from.add(n - 16), 16);
        } else {
            copy(from, q, n);
        }
        // Scanned from `raw` itself, in blocks that end within it and the
        // last 16 bytes: a block loaded from `buf` just written would span
        // two of the stores above (the last one overlaps), which the CPU
        // cannot forward to the load (a stall of a dozen cycles, about 2 %
        // of `parse`). Overlapping blocks give the same bits twice.
        let mut add = |at: usize, (bs, bcr, bb): (u32, u32, u32)| {
            s |= u64::from(bs) << at;
            cr |= u64::from(bcr) << at;
            bad |= u64::from(bb) << at;
        };
        if n >= 16 {
            let mut i = 0;
            while i + 16 <= n {
                add(i, scan.block(from.add(i)));
                i += 16;
            }
            if i < n {
                add(n - 16, scan.block(from.add(n - 16)));
            }
        } else {
            add(0, scan.block(p));
        }
        let valid = below(n);
        s &= valid;
        cr &= valid;
        // No element (the general path writes `[]`), a byte that needs
        // escaping or checking, or a component or repetition separator
        // in the id that does (text there) when they are not `clean`.
        let id = s.trailing_zeros() as usize;
        if s == 0 || bad & valid != 0 || (!clean && cr & below(id) != 0) {
            return None;
        }
        room(dst, HEAD.len(), end);
        dst.copy_from_nonoverlapping(HEAD.as_ptr(), HEAD.len());
        dst = dst.add(HEAD.len());
        copy_blocks(p, dst, id, end);
        dst = dst.add(id);
        room(dst, MID.len(), end);
        dst.copy_from_nonoverlapping(MID.as_ptr(), MID.len());
        dst = dst.add(MID.len());
        s &= s - 1;
        if cr == 0 {
            // No composite or repetition: copy between separators.
            room(dst, 1, end);
            *dst = b'"';
            dst = join(dst.add(1), end, p, id + 1, n, s);
            room(dst, 1, end);
            *dst = b'"';
            return Some(dst.add(1));
        }
        Some(structured(dst, end, p, n, id + 1, s, cr & valid, scan))
    }
}

/// The elements of a [`short`] segment that holds component or
/// repetition separators (bits of `cr`), from its padded copy `p` of
/// `n` bytes: `s` has the bits of the separators after the first
/// element, which starts at `a`. Out of line, so that the usual
/// segment's path stays small.
///
/// # Safety
/// `p[..n + 16]` readable, `n <= 64`; `dst` has room for what [`short`]
/// reserves.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn structured(
    mut dst: *mut u8,
    end: *mut u8,
    p: *const u8,
    n: usize,
    mut a: usize,
    mut s: u64,
    cr: u64,
    scan: &Scan,
) -> *mut u8 {
    debug_assert!(n <= 64, "a short segment has at most 64 bytes, not {n}");
    // SAFETY: see above.
    unsafe {
        // Which separators are which.
        let mut r = 0u64;
        let mut i = 0;
        while i < n {
            r |= u64::from(scan.repetitions(p.add(i))) << i;
            i += 16;
        }
        r &= below(n);
        let c = cr & !r;
        loop {
            let b = if s == 0 {
                n
            } else {
                s.trailing_zeros() as usize
            };
            let mut reps = r & below(b) & !below(a);
            if reps == 0 {
                dst = composite(dst, end, p, a, b, c);
            } else {
                // `{"repeat":[...]}` of the items between repetition
                // separators, each a string or a components array.
                room(dst, 11, end);
                dst.copy_from_nonoverlapping(b"{\"repeat\":[".as_ptr(), 11);
                dst = dst.add(11);
                let mut x = a;
                loop {
                    let y = if reps == 0 {
                        b
                    } else {
                        reps.trailing_zeros() as usize
                    };
                    dst = composite(dst, end, p, x, y, c);
                    if reps == 0 {
                        break;
                    }
                    room(dst, 1, end);
                    *dst = b',';
                    dst = dst.add(1);
                    x = y + 1;
                    reps &= reps - 1;
                }
                room(dst, 2, end);
                dst.copy_from_nonoverlapping(b"]}".as_ptr(), 2);
                dst = dst.add(2);
            }
            if s == 0 {
                return dst;
            }
            room(dst, 1, end);
            *dst = b',';
            dst = dst.add(1);
            a = b + 1;
            s &= s - 1;
        }
    }
}

/// Writes the text `p[a..b]` as a string, or as an array of strings
/// when component separators (bits of `c`) lie in it, at `dst`, in
/// whole 16-byte blocks; returns the end.
///
/// # Safety
/// `p[a..b + 15]` readable; `dst..end` has room for what is written (up
/// to 3 bytes a byte of `p[a..b]` and 4 more) and 15 bytes after it.
#[inline(always)]
unsafe fn composite(
    mut dst: *mut u8,
    end: *mut u8,
    p: *const u8,
    a: usize,
    b: usize,
    c: u64,
) -> *mut u8 {
    let parts = c & below(b) & !below(a);
    // SAFETY: see above.
    unsafe {
        if parts == 0 {
            room(dst, 1, end);
            *dst = b'"';
            dst = join(dst.add(1), end, p, a, b, 0);
            room(dst, 1, end);
            *dst = b'"';
            return dst.add(1);
        }
        room(dst, 2, end);
        dst.copy_from_nonoverlapping(b"[\"".as_ptr(), 2);
        dst = join(dst.add(2), end, p, a, b, parts);
        room(dst, 2, end);
        dst.copy_from_nonoverlapping(b"\"]".as_ptr(), 2);
        dst.add(2)
    }
}

/// Writes `p[a..b]` cut at the bits of `cuts` (all within `a..b`), the
/// pieces joined by `","`, at `dst`, in whole 16-byte blocks; returns
/// the end.
///
/// # Safety
/// `p[a..b + 15]` readable; `dst..end` has room for what is written (3
/// bytes a cut, 1 a byte otherwise) and 15 bytes after it.
#[inline(always)]
unsafe fn join(
    mut dst: *mut u8,
    end: *mut u8,
    p: *const u8,
    a: usize,
    b: usize,
    mut cuts: u64,
) -> *mut u8 {
    let mut run = a;
    // SAFETY: see above.
    unsafe {
        while cuts != 0 {
            let k = cuts.trailing_zeros() as usize;
            copy_blocks(p.add(run), dst, k - run, end);
            dst = dst.add(k - run);
            room(dst, 3, end);
            dst.copy_from_nonoverlapping(b"\",\"".as_ptr(), 3);
            dst = dst.add(3);
            run = k + 1;
            cuts &= cuts - 1;
        }
        copy_blocks(p.add(run), dst, b - run, end);
        dst.add(b - run)
    }
}

/// Writes the elements of `body` at `dst`, after the opening `"` of the
/// first: each element's text, `between(dst)` at each separator (what
/// closes one element and opens the next; `None` gives up), and the
/// closing `"` of the last. `None` when some byte needs the general path.
///
/// # Safety
/// `dst..end` has room for `body.len() + 1` bytes plus what `between` writes.
#[inline(always)]
unsafe fn elements(
    mut dst: *mut u8,
    end: *mut u8,
    body: &[u8],
    scan: &Scan,
    mut between: impl FnMut(*mut u8) -> Option<*mut u8>,
) -> Option<*mut u8> {
    let n = body.len();
    let p = body.as_ptr();
    let mut run = 0;
    let mut i = 0;
    // SAFETY: see the caller; loads stay within `body` or `tail`.
    unsafe {
        while i + 16 <= n {
            let (s, cr, bad) = scan.block(p.add(i));
            if bad | cr != 0 {
                return None;
            }
            dst = separators(s, i, p, &mut run, dst, end, &mut between)?;
            i += 16;
        }
        if i < n {
            // The tail, padded with a byte that is plain text.
            let mut tail = [b'A'; 16];
            copy(p.add(i), tail.as_mut_ptr(), n - i);
            let (s, cr, bad) = scan.block(tail.as_ptr());
            let valid = (1u32 << (n - i)) - 1;
            if (bad | cr) & valid != 0 {
                return None;
            }
            dst = separators(s & valid, i, p, &mut run, dst, end, &mut between)?;
        }
        room(dst, n - run + 1, end);
        copy(p.add(run), dst, n - run);
        dst = dst.add(n - run);
        *dst = b'"';
        Some(dst.add(1))
    }
}

/// The elements of [`elements`] that end at the separators of mask `m`
/// (bit `j` for byte `i + j` of `p`): each one's text from `run`, then
/// `between`; `run` moves past each separator.
///
/// # Safety
/// As [`elements`]: `p[*run..i + 16]` readable (within the body), `dst..end`
/// has room for what is written.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn separators(
    mut m: u32,
    i: usize,
    p: *const u8,
    run: &mut usize,
    mut dst: *mut u8,
    end: *mut u8,
    between: &mut impl FnMut(*mut u8) -> Option<*mut u8>,
) -> Option<*mut u8> {
    // SAFETY: see above.
    unsafe {
        while m != 0 {
            let k = i + m.trailing_zeros() as usize;
            room(dst, k - *run, end);
            copy(p.add(*run), dst, k - *run);
            dst = between(dst.add(k - *run))?;
            *run = k + 1;
            m &= m - 1;
        }
    }
    Some(dst)
}

/// Writes the members of an envelope segment's object,
/// `"name1":"v1","name2":"v2",...` (`keys[k]` before element `k`), when
/// its values need nothing but quotes (no `"`, `\\`, control or
/// non-ASCII byte: component and repetition separators are text there)
/// and there are no more elements than keys. Returns false, writing
/// nothing, otherwise (the caller's general path). `body` is the
/// segment after its id and first separator.
#[inline]
pub(crate) fn fields(out: &mut Vec<u8>, body: &[u8], sep: u8, keys: &[Key]) -> bool {
    let Some(first) = keys.first() else {
        return false;
    };
    // Each key is written as a 32-byte block after a 2-byte `",`.
    let reserved = body.len() + 34 * keys.len() + 1;
    out.reserve(reserved);
    let start = out.len();
    debug_assert!(out.capacity() - start >= reserved);
    // SAFETY: `reserve` above gives room for everything written below:
    // the body's bytes, its closing quote and at most `keys.len()`
    // blocks of 34 bytes (the closure stops at the last key); reads
    // stay within `body`, `tail` (in `elements`) and the keys' blocks;
    // the length is set only to what was written.
    unsafe {
        let base = out.as_mut_ptr();
        let mut dst = base.add(start);
        let end = dst.add(reserved);
        room(dst, 32, end);
        dst.copy_from_nonoverlapping(first.bytes.as_ptr(), 32);
        dst = dst.add(first.len);
        // With the separator as the component and repetition bytes,
        // the scan reports only separators and bytes that need escaping.
        let scan = Scan::new(sep, sep, sep);
        let mut next = keys[1..].iter();
        let done = elements(dst, end, body, &scan, |d| {
            let key = next.next()?;
            room(d, 34, end);
            d.copy_from_nonoverlapping(b"\",".as_ptr(), 2);
            d.add(2).copy_from_nonoverlapping(key.bytes.as_ptr(), 32);
            Some(d.add(2 + key.len))
        });
        let Some(dst) = done else {
            return false;
        };
        out.set_len(dst.offset_from(base) as usize);
    }
    true
}

/// Per 16-byte block: the bits of element separators, of component and
/// repetition separators, and of bytes that need the general path (`"`,
/// `\\`, control and non-ASCII bytes that are none of those); the
/// repetition separators alone on request.
#[cfg(target_arch = "x86_64")]
struct Scan {
    sep: std::arch::x86_64::__m128i,
    c: std::arch::x86_64::__m128i,
    r: std::arch::x86_64::__m128i,
}

#[cfg(target_arch = "x86_64")]
impl Scan {
    #[inline(always)]
    fn new(sep: u8, c: u8, r: u8) -> Self {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86-64.
        unsafe {
            Scan {
                sep: _mm_set1_epi8(sep as i8),
                c: _mm_set1_epi8(c as i8),
                r: _mm_set1_epi8(r as i8),
            }
        }
    }

    /// # Safety
    /// 16 bytes readable at `p`.
    #[inline(always)]
    unsafe fn block(&self, p: *const u8) -> (u32, u32, u32) {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86-64; the caller gives 16 bytes.
        unsafe {
            let x = _mm_loadu_si128(p as *const __m128i);
            let s = _mm_movemask_epi8(_mm_cmpeq_epi8(x, self.sep)) as u32;
            let cr = _mm_or_si128(_mm_cmpeq_epi8(x, self.c), _mm_cmpeq_epi8(x, self.r));
            let cr = _mm_movemask_epi8(cr) as u32 & !s;
            let json = _mm_or_si128(
                _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8)),
                _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8)),
            );
            // Signed: below 0x20 or from 0x80 (controls and non-ASCII).
            let low = _mm_cmplt_epi8(x, _mm_set1_epi8(0x20));
            let bad = _mm_or_si128(json, low);
            (s, cr, _mm_movemask_epi8(bad) as u32 & !s & !cr)
        }
    }

    /// The repetition separators of a block (none when `r` is the element
    /// separator: an interchange without repetitions).
    ///
    /// # Safety
    /// 16 bytes readable at `p`.
    #[inline(always)]
    unsafe fn repetitions(&self, p: *const u8) -> u32 {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86-64; the caller gives 16 bytes.
        unsafe {
            let x = _mm_loadu_si128(p as *const __m128i);
            let r = _mm_movemask_epi8(_mm_cmpeq_epi8(x, self.r)) as u32;
            let c = _mm_movemask_epi8(_mm_cmpeq_epi8(x, self.c)) as u32;
            let s = _mm_movemask_epi8(_mm_cmpeq_epi8(x, self.sep)) as u32;
            r & !c & !s
        }
    }
}

/// The portable [`Scan`]: the same bits, a byte at a time (the x86-64
/// tests compare the two).
#[cfg(any(test, not(target_arch = "x86_64")))]
struct Portable {
    sep: u8,
    c: u8,
    r: u8,
}

#[cfg(not(target_arch = "x86_64"))]
use Portable as Scan;

#[cfg(any(test, not(target_arch = "x86_64")))]
impl Portable {
    #[inline(always)]
    fn new(sep: u8, c: u8, r: u8) -> Self {
        Portable { sep, c, r }
    }

    /// # Safety
    /// 16 bytes readable at `p`.
    #[inline(always)]
    unsafe fn block(&self, p: *const u8) -> (u32, u32, u32) {
        let (mut s, mut cr, mut bad) = (0u32, 0u32, 0u32);
        for k in 0..16 {
            // SAFETY: the caller gives 16 bytes.
            let b = unsafe { *p.add(k) };
            if b == self.sep {
                s |= 1 << k;
            } else if b == self.c || b == self.r {
                cr |= 1 << k;
            } else if !(0x20..0x80).contains(&b) || b == b'"' || b == b'\\' {
                bad |= 1 << k;
            }
        }
        (s, cr, bad)
    }

    /// # Safety
    /// 16 bytes readable at `p`.
    #[inline(always)]
    unsafe fn repetitions(&self, p: *const u8) -> u32 {
        let mut r = 0u32;
        for k in 0..16 {
            // SAFETY: the caller gives 16 bytes.
            let b = unsafe { *p.add(k) };
            if b == self.r && b != self.c && b != self.sep {
                r |= 1 << k;
            }
        }
        r
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
proptest::proptest! {
    /// The SSE2 scan gives the bits of the portable one.
    #[test]
    fn sse2_scan_equals_the_portable_scan(
        block in proptest::array::uniform16(proptest::prelude::any::<u8>()),
        d in proptest::sample::subsequence(b"*:^~>|\x1d\x1f\"\\A\xff".to_vec(), 3),
        no_repetition in proptest::bool::ANY,
    ) {
        // Without a repetition separator the writer passes the element one
        // (Delimiters::repetition_byte).
        let r = if no_repetition { d[0] } else { d[2] };
        let fast = Scan::new(d[0], d[1], r);
        let portable = Portable::new(d[0], d[1], r);
        let p = block.as_ptr();
        // SAFETY: both read the 16 bytes of `block`.
        let (a, b) = unsafe { (fast.block(p), portable.block(p)) };
        proptest::prop_assert_eq!(a, b);
        // SAFETY: as above.
        let (a, b) = unsafe { (fast.repetitions(p), portable.repetitions(p)) };
        proptest::prop_assert_eq!(a, b);
    }
}
