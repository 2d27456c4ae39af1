//! Byte classes and word tricks shared by the tokenizer, the delimiter
//! detection, the envelope machine and the segment views (a leaf: it uses
//! no other module).

/// Whitespace the tokenizer skips between segments.
#[inline]
pub fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;

/// The high bit of each byte of `w` that equals `b` (exact: no carries
/// between bytes).
#[inline]
pub fn bytes_equal(w: u64, b: u8) -> u64 {
    let x = w ^ (ONES * u64::from(b));
    !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7)
}
