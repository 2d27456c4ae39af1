//! Inputs for tests that compare a fast path with its reference (in this
//! workspace's crates): committed X12 (vectors, goldens) re-delimited, so
//! that the comparisons that always run cover delimiters and line breaks
//! beyond those of the files. Not part of the API.

use crate::delimiters::Delimiters;

/// Delimiter sets the variants use: element, component, repetition (`None`:
/// none) and segment, with the line break written after each terminator.
pub const VARIANTS: [([u8; 3], Option<u8>, &[u8]); 6] = [
    ([b'|', b'^', b'!'], Some(b'\\'), b"\r\n"),
    ([b'*', b':', b'~'], Some(b'^'), b""),
    ([0x1D, 0x1F, 0x1C], Some(0x1E), b"\n"),
    ([b'+', b'>', b'\''], None, b"\n"),
    ([b'!', b'"', b'\n'], Some(b'#'), b""),
    ([b'*', b'>', b'~'], None, b"\r\n"),
];

/// `input` with the delimiters of its first interchange replaced by
/// `to` (element, component, segment) and `repetition` (when the input has
/// a repetition separator; without one it stays without) throughout, and
/// `line_break` (instead of the CR and LF there) after each terminator.
/// `None` when the input has no ISA, or a new delimiter is a byte of the
/// content (the result would read differently), or two delimiters would be
/// the same byte.
pub fn redelimit(
    input: &[u8],
    to: [u8; 3],
    repetition: Option<u8>,
    line_break: &[u8],
) -> Option<Vec<u8>> {
    let isa = crate::lexer::segments(input).find(|s| s.is(b"ISA"))?;
    let from: Delimiters = isa.delimiters();
    let [element, component, segment] = to;
    let rep = from.repetition.map(|r| repetition.unwrap_or(r));
    let mut new = vec![element, component, segment];
    new.extend(rep);
    let mut distinct = new.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != new.len() {
        return None;
    }
    let mut out = Vec::with_capacity(input.len() + input.len() / 16);
    let mut bytes = input.iter().copied().peekable();
    while let Some(b) = bytes.next() {
        let mapped = if b == from.element {
            element
        } else if b == from.component {
            component
        } else if Some(b) == from.repetition {
            rep.unwrap_or(b)
        } else if b == from.segment {
            out.push(segment);
            while bytes.next_if(|&c| c == b'\r' || c == b'\n').is_some() {}
            out.extend_from_slice(line_break);
            continue;
        } else if new.contains(&b) {
            // Content that would read as a delimiter.
            return None;
        } else {
            b
        };
        out.push(mapped);
    }
    Some(out)
}
