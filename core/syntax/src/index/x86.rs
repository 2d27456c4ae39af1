//! The x86-64 kernels of the structural index: SSE2 (baseline on x86-64)
//! and AVX2 (used only after run-time detection).
#![allow(unsafe_code)]

use super::masks::{BLOCK, Masks};
use std::arch::x86_64::*;

/// SSE2 kernel: four 16-byte lanes per block.
#[inline]
pub(super) fn sse2(block: &[u8; BLOCK], d: [u8; 4]) -> Masks {
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // always available; every load reads 16 bytes inside the 64-byte array.
    unsafe {
        let e = _mm_set1_epi8(d[0] as i8);
        let c = _mm_set1_epi8(d[1] as i8);
        let r = _mm_set1_epi8(d[2] as i8);
        let s = _mm_set1_epi8(d[3] as i8);
        let space = _mm_set1_epi8(b' ' as i8);
        let nine = _mm_set1_epi8(9);
        let four = _mm_set1_epi8(4);
        let mut m = Masks::default();
        for lane in 0..4 {
            let x = _mm_loadu_si128(block.as_ptr().add(lane * 16).cast());
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

/// AVX2 kernel: two 32-byte lanes per block.
#[inline]
pub(super) fn avx2(block: &[u8; BLOCK], d: [u8; 4]) -> Masks {
    debug_assert!(std::arch::is_x86_feature_detected!("avx2"));
    // SAFETY: `dispatch` only runs this kernel after `Kernel::detect`,
    // `set_kernel` or `classify_with` confirmed AVX2 at run time.
    unsafe { avx2_inner(block, d) }
}

#[target_feature(enable = "avx2")]
fn avx2_inner(block: &[u8; BLOCK], d: [u8; 4]) -> Masks {
    let e = _mm256_set1_epi8(d[0] as i8);
    let c = _mm256_set1_epi8(d[1] as i8);
    let r = _mm256_set1_epi8(d[2] as i8);
    let s = _mm256_set1_epi8(d[3] as i8);
    let space = _mm256_set1_epi8(b' ' as i8);
    let nine = _mm256_set1_epi8(9);
    let four = _mm256_set1_epi8(4);
    // SAFETY: both loads read 32 bytes inside the 64-byte array.
    let (lo, hi) = unsafe {
        (
            _mm256_loadu_si256(block.as_ptr().cast()),
            _mm256_loadu_si256(block.as_ptr().add(32).cast()),
        )
    };
    let bits = |a: __m256i, b: __m256i| {
        (_mm256_movemask_epi8(a) as u32 as u64) | ((_mm256_movemask_epi8(b) as u32 as u64) << 32)
    };
    let ws = |x: __m256i| {
        let t = _mm256_sub_epi8(x, nine);
        let ctl = _mm256_cmpeq_epi8(_mm256_min_epu8(t, four), t);
        _mm256_or_si256(ctl, _mm256_cmpeq_epi8(x, space))
    };
    Masks {
        element: bits(_mm256_cmpeq_epi8(lo, e), _mm256_cmpeq_epi8(hi, e)),
        component: bits(_mm256_cmpeq_epi8(lo, c), _mm256_cmpeq_epi8(hi, c)),
        repetition: bits(_mm256_cmpeq_epi8(lo, r), _mm256_cmpeq_epi8(hi, r)),
        segment: bits(_mm256_cmpeq_epi8(lo, s), _mm256_cmpeq_epi8(hi, s)),
        whitespace: bits(ws(lo), ws(hi)),
    }
}

/// SSE2 kernel of [`super::structural`]: terminators and skippable
/// whitespace only. `d` is [`Delimiters::bytes`](crate::delimiters::Delimiters::bytes).
#[inline]
pub(super) fn sse2_structural(block: &[u8; BLOCK], d: [u8; 4]) -> (u64, u64) {
    // SAFETY: SSE2 is part of the x86-64 baseline; every load reads 16
    // bytes inside the 64-byte array.
    unsafe {
        let e = _mm_set1_epi8(d[0] as i8);
        let c = _mm_set1_epi8(d[1] as i8);
        let r = _mm_set1_epi8(d[2] as i8);
        let s = _mm_set1_epi8(d[3] as i8);
        let space = _mm_set1_epi8(b' ' as i8);
        let nine = _mm_set1_epi8(9);
        let four = _mm_set1_epi8(4);
        let (mut seg, mut skip) = (0u64, 0u64);
        for lane in 0..4 {
            let x = _mm_loadu_si128(block.as_ptr().add(lane * 16).cast());
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

/// AVX2 kernel of [`super::structural`].
#[inline]
pub(super) fn avx2_structural(block: &[u8; BLOCK], d: [u8; 4]) -> (u64, u64) {
    debug_assert!(std::arch::is_x86_feature_detected!("avx2"));
    // SAFETY: as for `avx2`: only run after AVX2 was confirmed at run time.
    unsafe { avx2_structural_inner(block, d) }
}

#[target_feature(enable = "avx2")]
fn avx2_structural_inner(block: &[u8; BLOCK], d: [u8; 4]) -> (u64, u64) {
    let e = _mm256_set1_epi8(d[0] as i8);
    let c = _mm256_set1_epi8(d[1] as i8);
    let r = _mm256_set1_epi8(d[2] as i8);
    let s = _mm256_set1_epi8(d[3] as i8);
    let space = _mm256_set1_epi8(b' ' as i8);
    let nine = _mm256_set1_epi8(9);
    let four = _mm256_set1_epi8(4);
    // SAFETY: both loads read 32 bytes inside the 64-byte array.
    let (lo, hi) = unsafe {
        (
            _mm256_loadu_si256(block.as_ptr().cast()),
            _mm256_loadu_si256(block.as_ptr().add(32).cast()),
        )
    };
    let bits = |a: __m256i, b: __m256i| {
        (_mm256_movemask_epi8(a) as u32 as u64) | ((_mm256_movemask_epi8(b) as u32 as u64) << 32)
    };
    let skip = |x: __m256i| {
        let t = _mm256_sub_epi8(x, nine);
        let ws = _mm256_or_si256(
            _mm256_cmpeq_epi8(_mm256_min_epu8(t, four), t),
            _mm256_cmpeq_epi8(x, space),
        );
        let sep = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(x, e), _mm256_cmpeq_epi8(x, c)),
            _mm256_cmpeq_epi8(x, r),
        );
        _mm256_andnot_si256(sep, ws)
    };
    (
        bits(_mm256_cmpeq_epi8(lo, s), _mm256_cmpeq_epi8(hi, s)),
        bits(skip(lo), skip(hi)),
    )
}

/// AVX2 kernel of [`super::structural`] for two consecutive blocks in one
/// call (the delimiter broadcasts and the call are paid once).
#[inline]
pub(super) fn avx2_structural2(blocks: &[u8; 2 * BLOCK], d: [u8; 4]) -> [(u64, u64); 2] {
    debug_assert!(std::arch::is_x86_feature_detected!("avx2"));
    // SAFETY: as for `avx2`: only run after AVX2 was confirmed at run time.
    unsafe { avx2_structural2_inner(blocks, d) }
}

#[target_feature(enable = "avx2")]
fn avx2_structural2_inner(blocks: &[u8; 2 * BLOCK], d: [u8; 4]) -> [(u64, u64); 2] {
    let (a, b) = blocks.split_at(BLOCK);
    match (a.first_chunk::<BLOCK>(), b.first_chunk::<BLOCK>()) {
        (Some(a), Some(b)) => [avx2_structural_inner(a, d), avx2_structural_inner(b, d)],
        _ => unreachable!("two 64-byte halves of a 128-byte array"),
    }
}

/// SSE2 kernel of [`super::terminators2`]: the segment terminators of two
/// consecutive blocks.
#[inline]
pub(super) fn sse2_terminators2(blocks: &[u8; 2 * BLOCK], segment: u8) -> [u64; 2] {
    // SAFETY: SSE2 is part of the x86-64 baseline; every load reads 16
    // bytes inside the 128-byte array.
    unsafe {
        let s = _mm_set1_epi8(segment as i8);
        let mut t = [0u64; 2];
        for lane in 0..8 {
            let x = _mm_loadu_si128(blocks.as_ptr().add(lane * 16).cast());
            let bits = (_mm_movemask_epi8(_mm_cmpeq_epi8(x, s)) as u32 as u64) & 0xFFFF;
            t[lane / 4] |= bits << ((lane % 4) * 16);
        }
        t
    }
}

/// AVX2 kernel of [`super::terminators2`].
#[inline]
pub(super) fn avx2_terminators2(blocks: &[u8; 2 * BLOCK], segment: u8) -> [u64; 2] {
    debug_assert!(std::arch::is_x86_feature_detected!("avx2"));
    // SAFETY: as for `avx2`: only run after AVX2 was confirmed at run time.
    unsafe { avx2_terminators2_inner(blocks, segment) }
}

#[target_feature(enable = "avx2")]
fn avx2_terminators2_inner(blocks: &[u8; 2 * BLOCK], segment: u8) -> [u64; 2] {
    let s = _mm256_set1_epi8(segment as i8);
    let mut t = [0u64; 2];
    for half in 0..4 {
        // SAFETY: each load reads 32 bytes inside the 128-byte array.
        let x = unsafe { _mm256_loadu_si256(blocks.as_ptr().add(half * 32).cast()) };
        let bits = _mm256_movemask_epi8(_mm256_cmpeq_epi8(x, s)) as u32 as u64;
        t[half / 2] |= bits << ((half % 2) * 32);
    }
    t
}
