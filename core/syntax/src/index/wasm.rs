//! The wasm32 kernel of the structural index: 128-bit SIMD (`simd128`).
//!
//! WebAssembly has no run-time feature detection: a module that uses SIMD
//! instructions only loads on an engine that has them (every current
//! browser, Node >= 16.4). So this kernel exists only in builds compiled
//! with `-C target-feature=+simd128` (`bindings/wasm/build.sh` sets it),
//! and there it is always available; other wasm32 builds run the portable
//! kernel. Same shapes and results as the SSE2 kernels of `x86.rs`: four
//! 16-byte lanes per block, one `i8x16.bitmask` per lane and class.
#![allow(unsafe_code)]

use super::masks::{BLOCK, Masks};
use core::arch::wasm32::*;

/// The four 16-byte lanes of a block.
#[inline(always)]
fn lanes(block: &[u8; BLOCK]) -> [v128; 4] {
    let p = block.as_ptr();
    // SAFETY: each load reads 16 bytes at offsets 0, 16, 32 and 48 of the
    // 64-byte array, so inside it; `v128_load` has no alignment requirement
    // (an unaligned load is valid in wasm, only possibly slower).
    unsafe {
        [
            v128_load(p.cast()),
            v128_load(p.add(16).cast()),
            v128_load(p.add(32).cast()),
            v128_load(p.add(48).cast()),
        ]
    }
}

/// Bit `i` of the result is the top bit of byte `i` of lane `lane`'s
/// comparison result, placed at bit `16 * lane + i` of the block's mask.
#[inline(always)]
fn bits(v: v128, lane: usize) -> u64 {
    (u8x16_bitmask(v) as u64) << (16 * lane)
}

/// Space or 0x09..=0x0D: `x - 9 <= 4` unsigned, or `x == ' '`.
#[inline(always)]
fn whitespace(x: v128) -> v128 {
    let t = u8x16_sub(x, u8x16_splat(9));
    v128_or(u8x16_le(t, u8x16_splat(4)), u8x16_eq(x, u8x16_splat(b' ')))
}

/// The full classification ([`super::classify_with`]). `d` is
/// [`Delimiters::bytes`](crate::delimiters::Delimiters::bytes).
#[inline]
pub(super) fn simd128(block: &[u8; BLOCK], d: [u8; 4]) -> Masks {
    let e = u8x16_splat(d[0]);
    let c = u8x16_splat(d[1]);
    let r = u8x16_splat(d[2]);
    let s = u8x16_splat(d[3]);
    let mut m = Masks::default();
    for (lane, x) in lanes(block).into_iter().enumerate() {
        m.element |= bits(u8x16_eq(x, e), lane);
        m.component |= bits(u8x16_eq(x, c), lane);
        m.repetition |= bits(u8x16_eq(x, r), lane);
        m.segment |= bits(u8x16_eq(x, s), lane);
        m.whitespace |= bits(whitespace(x), lane);
    }
    m
}

/// The kernel of [`super::structural`]: terminators and skippable
/// whitespace only. `d` is [`Delimiters::bytes`](crate::delimiters::Delimiters::bytes).
#[inline]
pub(super) fn simd128_structural(block: &[u8; BLOCK], d: [u8; 4]) -> (u64, u64) {
    let e = u8x16_splat(d[0]);
    let c = u8x16_splat(d[1]);
    let r = u8x16_splat(d[2]);
    let s = u8x16_splat(d[3]);
    let (mut seg, mut skip) = (0u64, 0u64);
    for (lane, x) in lanes(block).into_iter().enumerate() {
        seg |= bits(u8x16_eq(x, s), lane);
        let sep = v128_or(v128_or(u8x16_eq(x, e), u8x16_eq(x, c)), u8x16_eq(x, r));
        skip |= bits(v128_andnot(whitespace(x), sep), lane);
    }
    (seg, skip)
}

/// [`simd128_structural`] for two consecutive blocks in one call (the
/// delimiter splats and the call are paid once).
#[inline]
pub(super) fn simd128_structural2(blocks: &[u8; 2 * BLOCK], d: [u8; 4]) -> [(u64, u64); 2] {
    let (a, b) = blocks.split_at(BLOCK);
    match (a.first_chunk::<BLOCK>(), b.first_chunk::<BLOCK>()) {
        (Some(a), Some(b)) => [simd128_structural(a, d), simd128_structural(b, d)],
        _ => unreachable!("two 64-byte halves of a 128-byte array"),
    }
}

/// The kernel of [`super::terminators2`]: the segment terminators of two
/// consecutive blocks.
#[inline]
pub(super) fn simd128_terminators2(blocks: &[u8; 2 * BLOCK], segment: u8) -> [u64; 2] {
    let s = u8x16_splat(segment);
    let (a, b) = blocks.split_at(BLOCK);
    match (a.first_chunk::<BLOCK>(), b.first_chunk::<BLOCK>()) {
        (Some(a), Some(b)) => [a, b].map(|block| {
            let mut t = 0u64;
            for (lane, x) in lanes(block).into_iter().enumerate() {
                t |= bits(u8x16_eq(x, s), lane);
            }
            t
        }),
        _ => unreachable!("two 64-byte halves of a 128-byte array"),
    }
}
