//! The x86-64 kernels of the structural index: SSE2 (baseline on x86-64).
//!
//! Each kernel is a `#[target_feature(enable = "sse2")]` function
//! (`*_inner`) behind a safe wrapper, whose one `unsafe` block is the call:
//! SSE2 is part of the x86-64 baseline, so every x86-64 processor runs it
//! (the compiler asks for the block all the same). The kernels read their
//! arrays with one unaligned load per 16-byte lane (`load16`, which checks
//! that the lane is inside the array); building the vectors from two
//! words instead cost 1.2 % more instructions on `x12kit parse
//! --no-documents` (`benches/README.md`, "Unsafe code").
#![allow(unsafe_code)]

use super::masks::{BLOCK, Masks};
use std::arch::x86_64::*;

/// The 16 bytes at `16 * lane` of `b` as a vector.
#[inline]
#[target_feature(enable = "sse2")]
fn load16<const N: usize>(b: &[u8; N], lane: usize) -> __m128i {
    assert!(16 * lane + 16 <= N, "lane {lane} is outside the {N} bytes");
    // SAFETY: the 16 bytes from `16 * lane` are inside the array (checked
    // above; the callers' constant lanes let the compiler drop the check);
    // the load has no alignment requirement.
    unsafe { _mm_loadu_si128(b.as_ptr().add(16 * lane).cast()) }
}

/// The vectors the kernels compare with: each of the four delimiters, the
/// space, and the 9 and 4 of the control whitespace test.
#[inline]
#[target_feature(enable = "sse2")]
fn broadcasts(d: [u8; 4]) -> [__m128i; 7] {
    [
        _mm_set1_epi8(d[0] as i8),
        _mm_set1_epi8(d[1] as i8),
        _mm_set1_epi8(d[2] as i8),
        _mm_set1_epi8(d[3] as i8),
        _mm_set1_epi8(b' ' as i8),
        _mm_set1_epi8(9),
        _mm_set1_epi8(4),
    ]
}

/// SSE2 kernel: four 16-byte lanes per block.
#[inline]
pub(super) fn sse2(block: &[u8; BLOCK], d: [u8; 4]) -> Masks {
    // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64 processor runs it.
    unsafe { sse2_inner(block, d) }
}

#[inline]
#[target_feature(enable = "sse2")]
fn sse2_inner(block: &[u8; BLOCK], d: [u8; 4]) -> Masks {
    {
        let [e, c, r, s, space, nine, four] = broadcasts(d);
        let mut m = Masks::default();
        for lane in 0..4 {
            let x = load16(block, lane);
            let shift = lane * 16;
            let bits = |v: __m128i| ((_mm_movemask_epi8(v) as u32 as u64) & 0xFFFF) << shift;
            m.element |= bits(_mm_cmpeq_epi8(x, e));
            m.component |= bits(_mm_cmpeq_epi8(x, c));
            m.repetition |= bits(_mm_cmpeq_epi8(x, r));
            m.segment |= bits(_mm_cmpeq_epi8(x, s));
            // 0x09..=0x0D: (x - 9) as unsigned <= 4, i.e. min(x - 9, 4) == x - 9.
            let t = _mm_sub_epi8(x, nine);
            let ctl = _mm_cmpeq_epi8(_mm_min_epu8(t, four), t);
            m.whitespace |= bits(_mm_or_si128(ctl, _mm_cmpeq_epi8(x, space)));
        }
        m
    }
}

/// SSE2 kernel of [`super::structural`]: terminators and skippable
/// whitespace only. `d` is [`Delimiters::bytes`](crate::delimiters::Delimiters::bytes).
#[inline]
pub(super) fn sse2_structural(block: &[u8; BLOCK], d: [u8; 4]) -> (u64, u64) {
    // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64 processor runs it.
    unsafe { sse2_structural_inner(block, d) }
}

#[inline]
#[target_feature(enable = "sse2")]
fn sse2_structural_inner(block: &[u8; BLOCK], d: [u8; 4]) -> (u64, u64) {
    {
        let [e, c, r, s, space, nine, four] = broadcasts(d);
        let (mut seg, mut skip) = (0u64, 0u64);
        for lane in 0..4 {
            let x = load16(block, lane);
            let shift = lane * 16;
            let bits = |v: __m128i| ((_mm_movemask_epi8(v) as u32 as u64) & 0xFFFF) << shift;
            seg |= bits(_mm_cmpeq_epi8(x, s));
            let t = _mm_sub_epi8(x, nine);
            let ws = _mm_or_si128(
                _mm_cmpeq_epi8(_mm_min_epu8(t, four), t),
                _mm_cmpeq_epi8(x, space),
            );
            let sep = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(x, e), _mm_cmpeq_epi8(x, c)),
                _mm_cmpeq_epi8(x, r),
            );
            skip |= bits(_mm_andnot_si128(sep, ws));
        }
        (seg, skip)
    }
}

/// SSE2 kernel of [`super::terminators2`]: the segment terminators of two
/// consecutive blocks.
#[inline]
pub(super) fn sse2_terminators2(blocks: &[u8; 2 * BLOCK], segment: u8) -> [u64; 2] {
    // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64 processor runs it.
    unsafe { sse2_terminators2_inner(blocks, segment) }
}

#[inline]
#[target_feature(enable = "sse2")]
fn sse2_terminators2_inner(blocks: &[u8; 2 * BLOCK], segment: u8) -> [u64; 2] {
    {
        let s = _mm_set1_epi8(segment as i8);
        let mut t = [0u64; 2];
        for lane in 0..8 {
            let x = load16(blocks, lane);
            let bits = (_mm_movemask_epi8(_mm_cmpeq_epi8(x, s)) as u32 as u64) & 0xFFFF;
            t[lane / 4] |= bits << ((lane % 4) * 16);
        }
        t
    }
}
