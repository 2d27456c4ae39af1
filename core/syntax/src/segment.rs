//! Borrowed, zero-copy views of segments, elements, repetitions and components.
//!
//! A [`Segment`] is a slice of the input plus its position; elements,
//! repetitions and components are split lazily, on demand, without
//! allocating.

use crate::bytes::bytes_equal;
use crate::delimiters::Delimiters;
use crate::diagnostics::Diagnostic;
use std::fmt;

/// One segment: its bytes (without terminator) borrowed from the input.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Segment<'a> {
    raw: &'a [u8],
    suffix: &'a [u8],
    offset: usize,
    index: usize,
    delimiters: Delimiters,
    terminated: bool,
}

impl<'a> Segment<'a> {
    /// Builds a segment view (used by the tokenizer and by tests).
    pub fn new(
        raw: &'a [u8],
        suffix: &'a [u8],
        offset: usize,
        index: usize,
        delimiters: Delimiters,
        terminated: bool,
    ) -> Self {
        Segment {
            raw,
            suffix,
            offset,
            index,
            delimiters,
            terminated,
        }
    }

    /// The same view with its offset moved on by `base` (a segment of a
    /// window of the input, whose first byte is at `base`).
    #[inline]
    pub(crate) fn rebased(mut self, base: usize) -> Self {
        self.offset += base;
        self
    }

    /// The segment's bytes, identifier included, terminator excluded.
    #[inline]
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// Whitespace that followed the terminator in the input (line breaks).
    #[inline]
    pub fn suffix(&self) -> &'a [u8] {
        self.suffix
    }

    /// Byte offset of the segment's first byte in the input.
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// 0-based position of the segment in the input.
    #[inline]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The delimiters of the interchange this segment belongs to.
    #[inline]
    pub fn delimiters(&self) -> Delimiters {
        self.delimiters
    }

    /// False for a final segment that ended with the input instead of a terminator.
    #[inline]
    pub fn terminated(&self) -> bool {
        self.terminated
    }

    /// The segment identifier (`ISA`, `N1`, …): the bytes before the first element separator.
    #[inline]
    pub fn id(&self) -> &'a [u8] {
        let e = self.delimiters.element;
        // The usual 2- or 3-byte id, without a search.
        if let [a, b, c, d, ..] = *self.raw {
            if a != e && b != e {
                if c == e {
                    return &self.raw[..2];
                }
                if d == e {
                    return &self.raw[..3];
                }
            }
        }
        let n = self.raw.len().min(4);
        match self.raw[..n].iter().position(|&b| b == e) {
            Some(i) => &self.raw[..i],
            None if self.raw.len() <= 3 => self.raw,
            None => match memchr::memchr(e, self.raw) {
                Some(i) => &self.raw[..i],
                None => self.raw,
            },
        }
    }

    /// True if the identifier equals `id`.
    #[inline]
    pub fn is(&self, id: &[u8]) -> bool {
        self.id() == id
    }

    /// True if the identifier is 2–3 upper-case ASCII letters or digits.
    pub fn has_valid_id(&self) -> bool {
        is_valid_id(self.id())
    }

    /// The elements after the identifier, split lazily.
    #[inline]
    pub fn elements(&self) -> Elements<'a> {
        let id_len = self.id().len();
        let rest = if id_len < self.raw.len() {
            &self.raw[id_len + 1..]
        } else {
            &[][..]
        };
        Parts {
            rest,
            sep: Some(self.delimiters.element),
            done: id_len >= self.raw.len(),
            delimiters: self.delimiters,
        }
    }

    /// The raw elements of [`elements`](Self::elements) into the first
    /// places of `els`, at most `max` of them and 32, eight bytes at a time:
    /// for hot loops that look elements up by position. Returns how many,
    /// and which are not empty (bit `k` for `els[k]`).
    #[inline]
    #[doc(hidden)]
    pub fn split_elements(&self, els: &mut [&'a [u8]; 32], max: usize) -> (usize, u32) {
        let raw = self.raw();
        let id = self.id().len();
        let max = max.min(32);
        if id >= raw.len() || max == 0 {
            return (0, 0);
        }
        let body = &raw[id + 1..];
        let sep = self.delimiters().element;
        let mut n = 0;
        let mut full = 0u32;
        let mut start = 0;
        // Records the element that ends at separator `p`; true once `max` are.
        let mut end_at = |p: usize| {
            els[n] = &body[start..p];
            full |= u32::from(p > start) << n;
            n += 1;
            start = p + 1;
            n == max
        };
        if body.len() <= 64 {
            // Most segments: every separator's position in one mask, then
            // one step per element.
            let mut s = separators64(body, sep);
            while s != 0 {
                if end_at(s.trailing_zeros() as usize) {
                    return (n, full);
                }
                s &= s - 1;
            }
        } else {
            let mut chunks = body.chunks_exact(8);
            let mut at = 0;
            for chunk in &mut chunks {
                let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                let mut m = bytes_equal(w, sep);
                while m != 0 {
                    if end_at(at + (m.trailing_zeros() / 8) as usize) {
                        return (n, full);
                    }
                    m &= m - 1;
                }
                at += 8;
            }
            for (k, &b) in chunks.remainder().iter().enumerate() {
                if b == sep && end_at(at + k) {
                    return (n, full);
                }
            }
        }
        els[n] = &body[start..];
        full |= u32::from(body.len() > start) << n;
        (n + 1, full)
    }

    /// Element `n`, 1-based as in X12 (`element(1)` of `BEG*00*SA` is `00`).
    pub fn element(&self, n: usize) -> Option<Element<'a>> {
        if n == 0 {
            return None;
        }
        // One pass counting separators (what `elements().nth(n - 1)` finds,
        // without building each element on the way).
        let raw = self.raw;
        let id = self.id().len();
        if id >= raw.len() {
            return None;
        }
        let body = &raw[id + 1..];
        let sep = self.delimiters.element;
        let at = |a: usize, b: usize| Element {
            raw: &body[a..b],
            delimiters: self.delimiters,
        };
        if body.len() <= 64 {
            // Most segments: element `n` lies between separators `n - 1`
            // and `n` of one mask.
            let (start, end) = element_in(separators64(body, sep), body.len(), n)?;
            return Some(at(start, end));
        }
        // Element `k` starts at `start`; separators found eight bytes at a time.
        let mut k = 1;
        let mut start = 0;
        let mut chunks = body.chunks_exact(8);
        let mut base = 0;
        for chunk in &mut chunks {
            let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            let mut m = bytes_equal(w, sep);
            while m != 0 {
                let p = base + (m.trailing_zeros() / 8) as usize;
                if k == n {
                    return Some(at(start, p));
                }
                k += 1;
                start = p + 1;
                m &= m - 1;
            }
            base += 8;
        }
        for (j, &b) in chunks.remainder().iter().enumerate() {
            if b == sep {
                if k == n {
                    return Some(at(start, base + j));
                }
                k += 1;
                start = base + j + 1;
            }
        }
        (k == n).then(|| at(start, body.len()))
    }

    /// Element `n` as bytes, or empty when absent.
    pub fn value(&self, n: usize) -> &'a [u8] {
        self.element(n).map_or(&[][..], |e| e.raw())
    }

    /// [`value`](Self::value) of elements `a` and `b`, from one scan of a
    /// body of up to 64 bytes (an ST's or a GS's type and control number).
    pub(crate) fn values2(&self, a: usize, b: usize) -> (&'a [u8], &'a [u8]) {
        let raw = self.raw;
        let id = self.id().len();
        if a >= 1 && b >= 1 && id < raw.len() && raw.len() - id - 1 <= 64 {
            let body = &raw[id + 1..];
            let s = separators64(body, self.delimiters.element);
            let get = |n| element_in(s, body.len(), n).map_or(&[][..], |(x, y)| &body[x..y]);
            return (get(a), get(b));
        }
        (self.value(a), self.value(b))
    }

    /// Number of elements (after the identifier), empty trailing ones included.
    pub fn element_count(&self) -> usize {
        if self.id().len() >= self.raw.len() {
            0
        } else {
            memchr::memchr_iter(self.delimiters.element, self.raw).count()
        }
    }
}

impl fmt::Debug for Segment<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Segment")
            .field("raw", &String::from_utf8_lossy(self.raw))
            .field("index", &self.index)
            .field("offset", &self.offset)
            .finish()
    }
}

/// True if `id` is 2–3 upper-case ASCII letters or digits.
#[inline]
pub fn is_valid_id(id: &[u8]) -> bool {
    (2..=3).contains(&id.len())
        && id
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

/// Iterator over a segment's elements (the same splitter as [`Parts`]).
pub type Elements<'a> = Parts<'a>;

/// One element; may hold repetitions and components.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Element<'a> {
    raw: &'a [u8],
    delimiters: Delimiters,
}

impl<'a> Element<'a> {
    /// The element's bytes as they appear in the input.
    #[inline]
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// True when the element is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// True if the element holds more than one repetition.
    #[inline]
    pub fn is_repeated(&self) -> bool {
        self.delimiters
            .repetition
            .is_some_and(|r| self.raw.contains(&r))
    }

    /// True if the element (or one of its repetitions) is a composite.
    #[inline]
    pub fn is_composite(&self) -> bool {
        self.raw.contains(&self.delimiters.component)
    }

    /// The repetitions (one, when the element does not repeat).
    #[inline]
    pub fn repetitions(&self) -> Parts<'a> {
        Parts::new(self.raw, self.delimiters.repetition, self.delimiters)
    }

    /// The components of a non-repeated element (one, for a simple element).
    #[inline]
    pub fn components(&self) -> Parts<'a> {
        Parts::new(self.raw, Some(self.delimiters.component), self.delimiters)
    }

    /// Component `n`, 1-based.
    pub fn component(&self, n: usize) -> Option<&'a [u8]> {
        if n == 0 {
            return None;
        }
        self.components().nth(n - 1).map(|p| p.raw)
    }
}

impl fmt::Debug for Element<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Element({:?})", String::from_utf8_lossy(self.raw))
    }
}

/// Iterator over the parts of a segment or element split on one delimiter:
/// its elements, an element's repetitions, or its components.
#[derive(Debug, Clone)]
pub struct Parts<'a> {
    rest: &'a [u8],
    sep: Option<u8>,
    done: bool,
    delimiters: Delimiters,
}

impl<'a> Parts<'a> {
    fn new(raw: &'a [u8], sep: Option<u8>, delimiters: Delimiters) -> Self {
        Parts {
            rest: raw,
            sep,
            done: false,
            delimiters,
        }
    }
}

impl<'a> Iterator for Parts<'a> {
    type Item = Element<'a>;

    #[inline]
    fn next(&mut self) -> Option<Element<'a>> {
        if self.done {
            return None;
        }
        // Parts are short: a plain scan beats memchr's setup cost.
        let found = self
            .sep
            .and_then(|s| self.rest.iter().position(|&b| b == s));
        let raw = match found {
            Some(i) => {
                let v = &self.rest[..i];
                self.rest = &self.rest[i + 1..];
                v
            }
            None => {
                self.done = true;
                self.rest
            }
        };
        Some(Element {
            raw,
            delimiters: self.delimiters,
        })
    }
}

/// Where element `n` (1-based) lies in a body of `len` bytes, at most 64,
/// whose separators are the bits of `s`: between separators `n - 1` and `n`.
#[inline]
fn element_in(mut s: u64, len: usize, n: usize) -> Option<(usize, usize)> {
    let mut start = 0;
    for _ in 1..n {
        if s == 0 {
            return None;
        }
        start = s.trailing_zeros() as usize + 1;
        s &= s - 1;
    }
    let end = if s == 0 {
        len
    } else {
        s.trailing_zeros() as usize
    };
    Some((start, end))
}

/// Bit `i` set when `body[i] == sep` (`body` at most 64 bytes), reading
/// the body where it is: whole 16-byte blocks, the last one overlapping the
/// one before it; bodies under 16 bytes in 8-byte words.
#[inline(always)]
fn separators64(body: &[u8], sep: u8) -> u64 {
    debug_assert!(body.len() <= 64);
    let n = body.len();
    if n < 16 {
        return separators_short(body, sep);
    }
    let mut s = 0u64;
    let mut i = 0;
    while i + 16 <= n {
        s |= separators16(&body[i..i + 16], sep) << i;
        i += 16;
    }
    if i < n {
        // The last 16 bytes, of which the first `16 - (n - i)` were seen.
        s |= (separators16(&body[n - 16..], sep) >> (16 - (n - i))) << i;
    }
    s
}

/// [`separators64`] of a body under 16 bytes.
#[inline(always)]
fn separators_short(body: &[u8], sep: u8) -> u64 {
    let n = body.len();
    if n >= 8 {
        // Two words, the second overlapping the first.
        let a = u64::from_le_bytes(body[..8].try_into().expect("8 bytes"));
        let b = u64::from_le_bytes(body[n - 8..].try_into().expect("8 bytes"));
        gather(bytes_equal(a, sep)) | (gather(bytes_equal(b, sep)) << (n - 8))
    } else {
        body.iter()
            .enumerate()
            .fold(0, |s, (i, &b)| s | u64::from(b == sep) << i)
    }
}

impl Diagnostic {
    /// Sets segment index, id and byte offset from a segment (here rather
    /// than in [`crate::diagnostics`], which knows nothing of segments).
    pub fn at_segment(mut self, seg: &Segment<'_>) -> Self {
        self.segment_index = Some(seg.index());
        self.segment_id = Some(String::from_utf8_lossy(seg.id()).into_owned());
        self.offset = Some(seg.offset());
        self
    }
}

/// The high bits of the eight bytes of `m` ([`bytes_equal`]) as the low
/// eight bits, byte `k` as bit `k`.
#[inline(always)]
fn gather(m: u64) -> u64 {
    (m >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Bit `i` set when `block[i] == sep`, for 16 bytes: SSE2, one compare.
/// Worth its `unsafe` (the call of a `#[target_feature]` function, no
/// pointer read): the eight-byte-word version costs 2.2 % more
/// instructions on `x12kit parse` with documents, whose mapping splits
/// every element with it (`benches/README.md`, "Unsafe code").
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[inline(always)]
fn separators16(block: &[u8], sep: u8) -> u64 {
    let block: &[u8; 16] = block.try_into().expect("16 bytes");
    // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64 processor runs it.
    unsafe { separators16_sse2(block, sep) }
}

#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "sse2")]
fn separators16_sse2(block: &[u8; 16], sep: u8) -> u64 {
    use std::arch::x86_64::*;
    let lo = u64::from_le_bytes(block[..8].try_into().expect("8 bytes"));
    let hi = u64::from_le_bytes(block[8..].try_into().expect("8 bytes"));
    let x = _mm_set_epi64x(hi as i64, lo as i64);
    _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(sep as i8))) as u32 as u64
}

/// Bit `i` set when `block[i] == sep`, for 16 bytes: two 8-byte words
/// (where SSE2 is not there; the x86-64 tests compare the two).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn separators16_words(block: &[u8], sep: u8) -> u64 {
    let a = u64::from_le_bytes(block[..8].try_into().expect("8 bytes"));
    let b = u64::from_le_bytes(block[8..16].try_into().expect("8 bytes"));
    gather(bytes_equal(a, sep)) | (gather(bytes_equal(b, sep)) << 8)
}

#[cfg(not(target_arch = "x86_64"))]
use separators16_words as separators16;

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(raw: &[u8]) -> Segment<'_> {
        Segment::new(raw, b"", 0, 0, Delimiters::default(), true)
    }

    #[test]
    fn separator_masks_match_a_byte_at_a_time() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..5_000 {
            let mut body = [0u8; 64];
            for b in &mut body {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = [b'*', b'A', 0, 0xFF, b'~'][(x % 5) as usize];
            }
            for sep in [b'*', 0, 0xFF, b'|'] {
                for n in 0..=64 {
                    let body = &body[..n];
                    let want = (0..n).fold(0u64, |m, i| m | u64::from(body[i] == sep) << i);
                    assert_eq!(separators64(body, sep), want, "{body:?} {sep}");
                    if n == 16 {
                        assert_eq!(separators16(body, sep), want);
                        assert_eq!(separators16_words(body, sep), want);
                    }
                }
            }
        }
    }

    #[test]
    fn split_element_and_values_match_the_element_iterator() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let d = Delimiters::default();
        for _ in 0..20_000 {
            let mut els = [&[][..]; 32];
            let len = (next() % 140) as usize;
            let mut raw: Vec<u8> = b"PO1".to_vec();
            if next() % 8 != 0 {
                raw.push(d.element);
            }
            raw.extend((0..len).map(|_| match next() % 6 {
                0 | 1 => d.element,
                2 => (next() % 256) as u8,
                _ => b'A' + (next() % 26) as u8,
            }));
            let seg = Segment::new(&raw, b"", 0, 0, d, true);
            // `element(n)` is the n-th of the iterator, found in one pass.
            let all: Vec<&[u8]> = seg.elements().map(|e| e.raw()).collect();
            for n in 0..all.len() + 3 {
                let want = n.checked_sub(1).and_then(|k| all.get(k)).copied();
                assert_eq!(
                    seg.element(n).map(|e| e.raw()),
                    want,
                    "{:?} element {n}",
                    String::from_utf8_lossy(&raw)
                );
            }
            // `values2` is two `value`s.
            for (a, b) in [(1, 2), (2, 1), (1, 6), (0, 3), (3, 3), (5, 9)] {
                assert_eq!(
                    seg.values2(a, b),
                    (seg.value(a), seg.value(b)),
                    "{:?} values {a}, {b}",
                    String::from_utf8_lossy(&raw)
                );
            }
            for max in [0, 1, 2, 5, 25, 31, 32, 40] {
                let (n, full) = seg.split_elements(&mut els, max);
                let want: Vec<&[u8]> = seg.elements().take(max.min(32)).map(|e| e.raw()).collect();
                let want_full = want
                    .iter()
                    .enumerate()
                    .fold(0u32, |f, (k, e)| f | u32::from(!e.is_empty()) << k);
                assert_eq!(
                    full,
                    want_full,
                    "{:?} max {max}",
                    String::from_utf8_lossy(&raw)
                );
                assert_eq!(
                    els[..n],
                    want,
                    "{:?} max {max}",
                    String::from_utf8_lossy(&raw)
                );
            }
        }
    }

    #[test]
    fn id_is_what_comes_before_the_first_element_separator() {
        let d = Delimiters::default();
        let alphabet = [b'A', b'1', d.element, b'~', b' '];
        // Every raw of up to 6 bytes over the alphabet.
        for len in 0..=6u32 {
            for code in 0..alphabet.len().pow(len) {
                let mut c = code;
                let raw: Vec<u8> = (0..len)
                    .map(|_| {
                        let b = alphabet[c % alphabet.len()];
                        c /= alphabet.len();
                        b
                    })
                    .collect();
                let seg = Segment::new(&raw, b"", 0, 0, d, true);
                let want = raw
                    .iter()
                    .position(|&b| b == d.element)
                    .map_or(&raw[..], |i| &raw[..i]);
                assert_eq!(seg.id(), want, "{:?}", String::from_utf8_lossy(&raw));
            }
        }
    }

    #[test]
    fn splits_elements_components_and_repetitions() {
        let s = seg(b"SV1*HC:99213:25*100**UN*1***1:2^3:4*");
        assert_eq!(s.id(), b"SV1");
        let els: Vec<&[u8]> = s.elements().map(|e| e.raw()).collect();
        assert_eq!(
            els,
            vec![
                &b"HC:99213:25"[..],
                b"100",
                b"",
                b"UN",
                b"1",
                b"",
                b"",
                b"1:2^3:4",
                b""
            ]
        );
        assert_eq!(s.element_count(), 9);
        let e1 = s.element(1).unwrap();
        assert!(e1.is_composite() && !e1.is_repeated());
        assert_eq!(e1.component(2), Some(&b"99213"[..]));
        let e8 = s.element(8).unwrap();
        let reps: Vec<Vec<&[u8]>> = e8
            .repetitions()
            .map(|r| r.components().map(|c| c.raw()).collect())
            .collect();
        assert_eq!(reps, vec![vec![&b"1"[..], b"2"], vec![&b"3"[..], b"4"]]);
        assert_eq!(s.value(42), b"");
        assert!(s.element(0).is_none());
    }

    #[test]
    fn segment_without_elements() {
        let s = seg(b"LE");
        assert_eq!(s.id(), b"LE");
        assert_eq!(s.elements().count(), 0);
        assert_eq!(s.element_count(), 0);
        assert!(s.has_valid_id());
        let s = seg(b"N1*");
        assert_eq!(s.elements().count(), 1);
        assert_eq!(s.element_count(), 1);
    }

    #[test]
    fn identifier_rules() {
        assert!(seg(b"N1*x").has_valid_id());
        assert!(seg(b"ISA*x").has_valid_id());
        assert!(!seg(b"n1*x").has_valid_id());
        assert!(!seg(b"N*x").has_valid_id());
        assert!(!seg(b"ABCD*x").has_valid_id());
        assert!(!seg(b"").has_valid_id());
        assert!(!seg(b"1a*x").has_valid_id());
        assert_eq!(seg(b"LONGNAME*x").id(), b"LONGNAME");
    }
}
