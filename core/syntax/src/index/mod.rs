//! The structural index: where the delimiters are, 64 bytes at a time.
//!
//! In the spirit of simdjson's first stage (X12 is simpler: no quotes, no
//! escapes), a 64-byte block of input is classified into five bitmasks, bit
//! `i` standing for byte `i` of the block: the element separator, the
//! component separator, the repetition separator, the segment terminator,
//! and the whitespace the tokenizer may skip between segments. Set bits are
//! then walked with `trailing_zeros`, so the tokenizer and the element,
//! component and repetition views find each delimiter with a few bit
//! operations instead of comparing bytes one by one.
//!
//! Four kernels compute the same [`Masks`]: a portable one, which is the
//! reference (and the only one elsewhere), SSE2 and AVX2 ones chosen at run
//! time on x86-64 ([`Kernel::detect`]), and a 128-bit SIMD one on `wasm32`
//! builds compiled with the `simd128` target feature (WebAssembly has no
//! run-time detection: such a module only loads where SIMD runs). They are
//! tested against each other on every corpus file, every vector and random
//! inputs with random delimiters (the `simd128` one on wasm32, in Node and
//! in Chromium: `bindings/wasm/tests/web.rs`).
//!
//! ```
//! use x12kit_syntax::index::{Kernel, Masks, classify_with};
//!
//! let mut block = [b' '; 64];
//! block[..12].copy_from_slice(b"N1*ST*ACME~\n");
//! let d = x12kit_syntax::Delimiters::default();
//! let m: Masks = classify_with(Kernel::Portable, &block, &d);
//! assert_eq!(m.element, 0b100100);
//! assert_eq!(m.segment, 1 << 10);
//! assert_eq!(m.element, classify_with(Kernel::detect(), &block, &d).element);
//! ```

use crate::delimiters::Delimiters;
use std::sync::atomic::{AtomicU8, Ordering};

mod masks;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use masks::{BLOCK, Masks};

/// An implementation of [`classify_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Byte by byte, on every target: the reference.
    Portable,
    /// x86-64 SSE2 (every x86-64 processor). There is no AVX2 kernel: it
    /// measured the same as SSE2 (a block's work is the same few compares
    /// per class; `benches/README.md`), so its run-time dispatch did not
    /// earn its `unsafe`.
    Sse2,
    /// wasm32 128-bit SIMD, in builds with the `simd128` target feature.
    Simd128,
}

impl Kernel {
    /// The fastest kernel this processor runs.
    pub fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            Kernel::Sse2
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            Kernel::Simd128
        }
        #[cfg(not(any(
            target_arch = "x86_64",
            all(target_arch = "wasm32", target_feature = "simd128")
        )))]
        {
            Kernel::Portable
        }
    }

    /// True if this processor can run the kernel.
    pub fn is_available(self) -> bool {
        match self {
            Kernel::Portable => true,
            Kernel::Sse2 => cfg!(target_arch = "x86_64"),
            Kernel::Simd128 => cfg!(all(target_arch = "wasm32", target_feature = "simd128")),
        }
    }

    /// Every kernel this processor runs, the reference first.
    pub fn available() -> Vec<Kernel> {
        [Kernel::Portable, Kernel::Sse2, Kernel::Simd128]
            .into_iter()
            .filter(|k| k.is_available())
            .collect()
    }

    fn code(self) -> u8 {
        match self {
            Kernel::Portable => 1,
            Kernel::Sse2 => 2,
            Kernel::Simd128 => 4,
        }
    }

    fn from_code(c: u8) -> Option<Kernel> {
        match c {
            1 => Some(Kernel::Portable),
            2 => Some(Kernel::Sse2),
            4 => Some(Kernel::Simd128),
            _ => None,
        }
    }
}

/// The kernel [`classify`] uses: 0 until first use, then a [`Kernel::code`].
static ACTIVE: AtomicU8 = AtomicU8::new(0);

/// The kernel the tokenizer and the segment views use: [`Kernel::detect`]
/// unless [`set_kernel`] chose another.
#[inline]
pub fn kernel() -> Kernel {
    match Kernel::from_code(ACTIVE.load(Ordering::Relaxed)) {
        Some(k) => k,
        None => {
            let k = Kernel::detect();
            ACTIVE.store(k.code(), Ordering::Relaxed);
            k
        }
    }
}

/// Makes the whole process use `kernel` (to compare kernels or to measure
/// them: every kernel gives the same results). Returns false, changing
/// nothing, if this processor cannot run it.
pub fn set_kernel(kernel: Kernel) -> bool {
    if !kernel.is_available() {
        return false;
    }
    ACTIVE.store(kernel.code(), Ordering::Relaxed);
    true
}

/// Classifies a 64-byte block with the active [`kernel`].
#[inline]
pub fn classify(block: &[u8; BLOCK], d: &Delimiters) -> Masks {
    // `kernel()` only ever holds an available kernel.
    dispatch(kernel(), block, d)
}

/// Classifies a 64-byte block with the given kernel. A kernel this
/// processor cannot run ([`Kernel::is_available`]) falls back to the
/// portable one.
pub fn classify_with(kernel: Kernel, block: &[u8; BLOCK], d: &Delimiters) -> Masks {
    if kernel.is_available() {
        dispatch(kernel, block, d)
    } else {
        dispatch(Kernel::Portable, block, d)
    }
}

/// The two masks the tokenizer walks for a 64-byte block, with the given
/// kernel (the portable one when this processor cannot run it): the segment
/// terminators and the skippable whitespace, equal to
/// `(m.segment, m.skippable())` of [`classify_with`]'s `m`. Public so that
/// tests can compare the kernels where they run (wasm32 in a browser).
pub fn structural_with(kernel: Kernel, block: &[u8; BLOCK], d: &Delimiters) -> (u64, u64) {
    let kernel = if kernel.is_available() {
        kernel
    } else {
        Kernel::Portable
    };
    structural(kernel, block, d)
}

/// [`structural_with`] for two consecutive blocks, as the tokenizer's
/// cursor classifies them (in one call where the kernel has a two-block
/// form).
pub fn structural2_with(
    kernel: Kernel,
    blocks: &[u8; 2 * BLOCK],
    d: &Delimiters,
) -> [(u64, u64); 2] {
    let kernel = if kernel.is_available() {
        kernel
    } else {
        Kernel::Portable
    };
    structural2(kernel, blocks, d)
}

/// Runs `kernel`, which must be available on this processor.
#[inline(always)]
fn dispatch(kernel: Kernel, block: &[u8; BLOCK], d: &Delimiters) -> Masks {
    // Without a repetition separator the element separator stands in
    // (Delimiters::bytes), and the repetition mask is cleared below.
    let bytes = d.bytes();
    let mut m = match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse2 => x86::sse2(block, bytes),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Kernel::Simd128 => wasm::simd128(block, bytes),
        _ => portable(block, bytes),
    };
    if d.repetition.is_none() {
        m.repetition = 0;
    }
    m
}

/// The two masks the tokenizer walks, for a 64-byte block: the segment
/// terminators and the skippable whitespace ([`Masks::skippable`]), with
/// the given kernel (which must be available). Equal to those two fields
/// of [`classify_with`], in about half the work.
#[inline(always)]
fn structural(kernel: Kernel, block: &[u8; BLOCK], d: &Delimiters) -> (u64, u64) {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse2 => x86::sse2_structural(block, d.bytes()),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Kernel::Simd128 => wasm::simd128_structural(block, d.bytes()),
        _ => {
            let m = dispatch(Kernel::Portable, block, d);
            (m.segment, m.skippable())
        }
    }
}

/// [`structural`] for two consecutive blocks.
#[inline(always)]
fn structural2(kernel: Kernel, blocks: &[u8; 2 * BLOCK], d: &Delimiters) -> [(u64, u64); 2] {
    match kernel {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Kernel::Simd128 => wasm::simd128_structural2(blocks, d.bytes()),
        _ => {
            let (a, b) = blocks.split_at(BLOCK);
            let one = |h: &[u8]| match h.first_chunk::<BLOCK>() {
                Some(h) => structural(kernel, h, d),
                None => unreachable!("two 64-byte halves of a 128-byte array"),
            };
            [one(a), one(b)]
        }
    }
}

/// The segment terminators of two consecutive blocks (the first mask of
/// [`structural2`] for each), with the given kernel (which must be
/// available): one comparison per byte instead of the eight or so that the
/// skippable whitespace takes.
#[inline(always)]
fn terminators2(kernel: Kernel, blocks: &[u8; 2 * BLOCK], segment: u8) -> [u64; 2] {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse2 => x86::sse2_terminators2(blocks, segment),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Kernel::Simd128 => wasm::simd128_terminators2(blocks, segment),
        _ => {
            let mut t = [0u64; 2];
            for (i, &b) in blocks.iter().enumerate() {
                if b == segment {
                    t[i / BLOCK] |= 1 << (i % BLOCK);
                }
            }
            t
        }
    }
}

/// Classifies the first `len` (at most 64) bytes of `bytes`; bits at and
/// after `len` are clear.
#[inline]
pub fn classify_prefix(bytes: &[u8], d: &Delimiters) -> Masks {
    let len = bytes.len().min(BLOCK);
    let m = match bytes.first_chunk::<BLOCK>() {
        Some(block) => return classify(block, d),
        None => {
            let mut block = [0u8; BLOCK];
            block[..len].copy_from_slice(&bytes[..len]);
            classify(&block, d)
        }
    };
    let keep = if len == BLOCK {
        u64::MAX
    } else {
        (1u64 << len) - 1
    };
    Masks {
        element: m.element & keep,
        component: m.component & keep,
        repetition: m.repetition & keep,
        segment: m.segment & keep,
        whitespace: m.whitespace & keep,
    }
}

/// True for the whitespace bytes of [`Masks::whitespace`].
#[inline]
fn is_whitespace(b: u8) -> bool {
    b == b' ' || (0x09..=0x0D).contains(&b)
}

/// The reference kernel: one byte at a time.
fn portable(block: &[u8; BLOCK], [e, c, r, s]: [u8; 4]) -> Masks {
    let mut m = Masks::default();
    for (i, &b) in block.iter().enumerate() {
        let bit = 1u64 << i;
        if b == e {
            m.element |= bit;
        }
        if b == c {
            m.component |= bit;
        }
        if b == r {
            m.repetition |= bit;
        }
        if b == s {
            m.segment |= bit;
        }
        if is_whitespace(b) {
            m.whitespace |= bit;
        }
    }
    m
}

/// Which class of byte [`Cursor::find`] looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Find {
    /// The segment terminator.
    Terminator,
    /// Any byte that is not skippable whitespace ([`Masks::skippable`]).
    NotSkippable,
}

/// Walks one input forward, one classified block at a time, keeping the
/// last block's terminator bits (and, once asked for, its non-whitespace
/// bits) so that consecutive searches (a segment's terminator, then the end
/// of the whitespace after it, then the next terminator ...) classify each
/// byte about once. A block's terminators are found when the cursor
/// reaches it; its skippable whitespace only when a search needs it (most
/// segments are followed by a line break or nothing, which the tokenizer
/// skips without the index), which saves most of the SIMD work per block.
/// Positions are absolute input offsets, so the cache stays valid when a
/// stream buffer drops the bytes before it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Cursor {
    /// Absolute offset of the cached block's first byte.
    at: usize,
    /// Bytes of the cached block that were classified (0: no block).
    len: usize,
    /// Segment terminators of the cached block.
    terminators: u64,
    /// Bytes of the cached block that are not skippable whitespace (valid
    /// when `solid_known`).
    solid: u64,
    /// `solid` has been computed for the cached block.
    solid_known: bool,
    /// Blocks classified so far (tests check that the work is linear).
    pub(crate) blocks: usize,
    /// The terminators of the block after the cached one, found with it,
    /// until the cursor moves on.
    ahead: Option<u64>,
}

impl Cursor {
    /// Forgets the cached block (the delimiters changed).
    #[inline]
    pub(crate) fn reset(&mut self) {
        self.len = 0;
        self.ahead = None;
    }

    /// Position in `buf` (whose first byte is at input offset `base`) of the
    /// first byte of class `what` at or after `from`, or `None` if there is
    /// none in `buf`.
    #[inline(always)]
    pub(crate) fn find(
        &mut self,
        what: Find,
        buf: &[u8],
        base: usize,
        mut from: usize,
        d: &Delimiters,
    ) -> Option<usize> {
        loop {
            let abs = base + from;
            let off = abs.wrapping_sub(self.at);
            if off >= self.len {
                if from >= buf.len() {
                    return None;
                }
                self.load(buf, base, from, d);
                continue;
            }
            let bits = match what {
                Find::Terminator => self.terminators,
                Find::NotSkippable => {
                    if !self.solid_known && !self.fill_solid(buf, base, d) {
                        // The block's first bytes left the buffer: start a block at `from`.
                        self.reset();
                        continue;
                    }
                    self.solid
                }
            } >> off;
            let valid = self.len - off;
            // Bits past a partial block are clear (`load`, `fill_solid`).
            if bits != 0 {
                return Some(from + bits.trailing_zeros() as usize);
            }
            from += valid;
        }
    }

    /// Moves to the block of `buf` starting at `from`: the one classified
    /// ahead when it is that one, else classifies it.
    #[inline(always)]
    fn load(&mut self, buf: &[u8], base: usize, from: usize, d: &Delimiters) {
        let abs = base + from;
        if let Some(terminators) = self.ahead.take() {
            // Input bytes never change once fed, so the block classified
            // ahead holds whatever the buffer holds at its offsets now.
            if self.len == BLOCK && abs == self.at + BLOCK {
                self.at = abs;
                self.terminators = terminators;
                self.solid_known = false;
                return;
            }
        }
        self.classify(buf, base, from, d);
    }

    /// Finds the terminators of the block of `buf` starting at `from` (and
    /// of the next one too when it is in `buf`).
    #[inline(never)]
    fn classify(&mut self, buf: &[u8], base: usize, from: usize, d: &Delimiters) {
        let abs = base + from;
        self.at = abs;
        self.blocks += 1;
        self.solid_known = false;
        let rest = &buf[from..];
        if let Some(pair) = rest.first_chunk::<{ 2 * BLOCK }>() {
            let [t0, t1] = terminators2(kernel(), pair, d.segment);
            self.blocks += 1;
            self.len = BLOCK;
            self.terminators = t0;
            self.ahead = Some(t1);
            return;
        }
        let (terminators, len) = match rest.first_chunk::<BLOCK>() {
            Some(block) => (structural(kernel(), block, d).0, BLOCK),
            None => {
                let mut block = [0u8; BLOCK];
                block[..rest.len()].copy_from_slice(rest);
                let t = structural(kernel(), &block, d).0;
                (t & ((1u64 << rest.len()) - 1), rest.len())
            }
        };
        self.len = len;
        self.terminators = terminators;
    }

    /// Computes `solid` for the cached block from its bytes in `buf`;
    /// false, changing nothing, when they are no longer all in `buf`.
    #[inline(never)]
    fn fill_solid(&mut self, buf: &[u8], base: usize, d: &Delimiters) -> bool {
        let Some(start) = self.at.checked_sub(base) else {
            return false;
        };
        let Some(bytes) = buf.get(start..start + self.len) else {
            return false;
        };
        let skippable = match bytes.first_chunk::<BLOCK>() {
            Some(block) => structural(kernel(), block, d).1,
            None => {
                let mut block = [0u8; BLOCK];
                block[..bytes.len()].copy_from_slice(bytes);
                structural(kernel(), &block, d).1
            }
        };
        self.solid = if self.len == BLOCK {
            !skippable
        } else {
            !skippable & ((1u64 << self.len) - 1)
        };
        self.solid_known = true;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Delimiters of these bytes, a repetition separator in two cases of three.
    fn delimiters(bytes: [u8; 4], r: u64) -> Delimiters {
        Delimiters {
            element: bytes[0],
            component: bytes[1],
            repetition: (!(r >> 32).is_multiple_of(3)).then_some(bytes[2]),
            segment: bytes[3],
        }
    }

    fn random_block(next: &mut impl FnMut() -> u64, d: &[u8; 4]) -> [u8; BLOCK] {
        let mut b = [0u8; BLOCK];
        for x in b.iter_mut() {
            let r = next();
            *x = match r % 4 {
                0 => d[(r >> 8) as usize % 4],
                1 => [b' ', b'\t', b'\n', b'\r', 0x0B, 0x0C, 0x08, 0x0E][(r >> 8) as usize % 8],
                _ => (r >> 16) as u8,
            };
        }
        b
    }

    #[test]
    fn every_kernel_equals_the_portable_one() {
        let mut next = crate::testing::random::xorshift(0x9E37_79B9_7F4A_7C15);
        let kernels = Kernel::available();
        assert!(kernels.contains(&Kernel::Portable));
        #[cfg(target_arch = "x86_64")]
        assert!(kernels.contains(&Kernel::Sse2));
        for _ in 0..20_000 {
            let r = next();
            let bytes = [(r as u8), (r >> 8) as u8, (r >> 16) as u8, (r >> 24) as u8];
            let d = delimiters(bytes, r);
            let block = random_block(&mut next, &bytes);
            let want = classify_with(Kernel::Portable, &block, &d);
            for &k in &kernels {
                assert_eq!(classify_with(k, &block, &d), want, "{k:?} {d:?} {block:?}");
            }
        }
    }

    #[test]
    fn the_structural_masks_equal_the_full_classification() {
        let mut next = crate::testing::random::xorshift(0x2545_F491_4F6C_DD1D);
        // Whitespace delimiters too (a line-feed terminator, a tab
        // separator), which decide what is skippable.
        const POOL: &[u8] = b"*~:^>|\n\t\r \x0b\x0c\x1c\x1d\x85\xff!";
        for _ in 0..20_000 {
            let r = next();
            let mut bytes = [0u8; 4];
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = POOL[(r >> (8 * i)) as usize % POOL.len()];
            }
            let d = delimiters(bytes, r);
            let block = random_block(&mut next, &bytes);
            let m = classify_with(Kernel::Portable, &block, &d);
            let other = random_block(&mut next, &bytes);
            let o = classify_with(Kernel::Portable, &other, &d);
            let mut pair = [0u8; 2 * BLOCK];
            pair[..BLOCK].copy_from_slice(&block);
            pair[BLOCK..].copy_from_slice(&other);
            for k in Kernel::available() {
                assert_eq!(
                    structural(k, &block, &d),
                    (m.segment, m.skippable()),
                    "{k:?} {d:?} {block:?}"
                );
                assert_eq!(
                    structural2(k, &pair, &d),
                    [(m.segment, m.skippable()), (o.segment, o.skippable())],
                    "{k:?} {d:?} {pair:?}"
                );
            }
        }
    }

    #[test]
    fn a_prefix_has_no_bits_past_its_end() {
        let d = Delimiters::default();
        let m = classify_prefix(b"N1*A~ ", &d);
        assert_eq!(m.element, 1 << 2);
        assert_eq!(m.segment, 1 << 4);
        assert_eq!(m.whitespace, 1 << 5);
        assert_eq!(classify_prefix(b"", &d), Masks::default());
        let long = [b'*'; 80];
        assert_eq!(classify_prefix(&long, &d).element, u64::MAX);
    }

    #[test]
    fn skippable_whitespace_excludes_separators() {
        let d = Delimiters {
            element: b'\t',
            component: b':',
            repetition: None,
            segment: b'\n',
        };
        let m = classify_prefix(b"A\tB\n \r", &d);
        assert_eq!(m.skippable(), 0b111000);
        assert_eq!(m.repetition, 0);
    }
}
