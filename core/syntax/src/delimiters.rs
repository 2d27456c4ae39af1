//! Delimiter detection from the ISA segment.
//!
//! X12 declares its own separators inside the fixed-width, 106-byte ISA
//! segment: the element separator is byte 3, the component separator byte 104,
//! the segment terminator byte 105, and — from control version 00402 on — the
//! repetition separator byte 82 (ISA11). Real files break the fixed width now
//! and then (unpadded ids, multi-byte characters in names); when the 16
//! elements can still be read unambiguously, x12kit recovers the delimiters
//! from the element separators and reports an `ISA_LAYOUT` warning.

use crate::diagnostics::{Code, Diagnostic};

/// Length in bytes of a fixed-width ISA segment, terminator included.
pub const ISA_LEN: usize = 106;

/// Offsets of the 16 element separators in a fixed-width ISA.
pub(crate) const ISA_SEPARATORS: [usize; 16] = [
    3, 6, 17, 20, 31, 34, 50, 53, 69, 76, 81, 83, 89, 99, 101, 103,
];

/// [`ISA_SEPARATORS`] as the high bit of each byte of the 13 eight-byte
/// words of an ISA's first 104 bytes (little-endian).
const SEPARATOR_WORDS: [u64; 13] = {
    let mut words = [0u64; 13];
    let mut k = 0;
    while k < ISA_SEPARATORS.len() {
        let i = ISA_SEPARATORS[k];
        words[i / 8] |= 0x80 << (8 * (i % 8));
        k += 1;
    }
    words
};

/// True when `buf` starts with a fixed-width ISA whose element separator
/// is `e`: `e` at the 16 [`ISA_SEPARATORS`] and nowhere else in its 106
/// bytes.
fn fixed_layout(buf: &[u8], e: u8) -> bool {
    buf.len() >= ISA_LEN && fixed_separators(buf, e) && buf[ISA_LEN - 1] != e
}

/// True when the first 105 bytes of `isa` (an ISA without its terminator)
/// hold `e` at the 16 [`ISA_SEPARATORS`] and nowhere else: its elements
/// are then at their fixed places. Eight bytes at a time (this runs for
/// every ISA).
pub(crate) fn fixed_separators(isa: &[u8], e: u8) -> bool {
    let Some(isa) = isa.get(..ISA_LEN - 1) else {
        return false;
    };
    let mut diff = 0;
    for (chunk, want) in isa.chunks_exact(8).zip(SEPARATOR_WORDS) {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        diff |= crate::bytes::bytes_equal(w, e) ^ want;
    }
    // Byte 104 (ISA16) is not a separator.
    diff == 0 && isa[104] != e
}

/// Fixed widths of ISA01..ISA16.
pub const ISA_WIDTHS: [usize; 16] = [2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1];

/// How far x12kit looks for the end of a non-fixed-width ISA.
const ISA_SCAN_LIMIT: usize = 512;

/// The four X12 separators of one interchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Delimiters {
    /// Separates elements (ISA byte 3), commonly `*`.
    pub element: u8,
    /// Separates components of a composite element (ISA16), commonly `:` or `>`.
    pub component: u8,
    /// Separates repetitions (ISA11, control version 00402 and later), commonly `^`.
    pub repetition: Option<u8>,
    /// Ends a segment (ISA byte 105), commonly `~`.
    pub segment: u8,
}

impl Default for Delimiters {
    /// `*`, `:`, `^` and `~`: the most common choice.
    fn default() -> Self {
        Delimiters {
            element: b'*',
            component: b':',
            repetition: Some(b'^'),
            segment: b'~',
        }
    }
}

impl Delimiters {
    /// The repetition separator as a byte to search for: the separator, or
    /// without one the element separator, which every search already tells
    /// apart (a byte that is the element separator is never a repetition
    /// separator), so no repetition is found. The one stand-in for "no
    /// repetition separator" wherever a byte is needed (the tokenizer, the
    /// index kernels, the JSON writer); read without touching the
    /// option's payload when it is `None`.
    #[inline]
    pub fn repetition_byte(&self) -> u8 {
        match self.repetition {
            Some(r) => r,
            None => self.element,
        }
    }

    /// The four separators as bytes: element, component, repetition (as
    /// [`repetition_byte`](Self::repetition_byte) gives it) and segment.
    /// Two interchanges use the same delimiters exactly when these are equal.
    #[inline]
    pub fn bytes(&self) -> [u8; 4] {
        [
            self.element,
            self.component,
            self.repetition_byte(),
            self.segment,
        ]
    }

    /// True if `b` is one of the four separators.
    #[inline]
    pub fn is_delimiter(&self, b: u8) -> bool {
        b == self.element || b == self.component || b == self.segment || Some(b) == self.repetition
    }

    /// Checks the rules every delimiter set must keep: each one usable
    /// ([`is_valid_delimiter`]) and all of them distinct.
    pub fn check(&self) -> Result<(), String> {
        let all = [
            ("element separator", self.element),
            ("component separator", self.component),
            ("segment terminator", self.segment),
            ("repetition separator", self.repetition_byte()),
        ];
        // No allocation: this runs for every ISA the tokenizer reads.
        let named = &all[..if self.repetition.is_some() { 4 } else { 3 }];
        for &(name, b) in named {
            if !is_valid_delimiter(b) {
                return Err(format!(
                    "the {name} is {}, but a delimiter must not be a letter, a digit or a space",
                    show_byte(b)
                ));
            }
        }
        for (i, &(a, x)) in named.iter().enumerate() {
            for &(b, y) in &named[i + 1..] {
                if x == y {
                    return Err(format!(
                        "the {a} and the {b} are both {}; the delimiters must all differ",
                        show_byte(x)
                    ));
                }
            }
        }
        Ok(())
    }
}

/// True if `b` may serve as a delimiter: anything but ASCII letters, digits and space.
#[inline]
pub fn is_valid_delimiter(b: u8) -> bool {
    !(b.is_ascii_alphanumeric() || b == b' ')
}

/// Shows a byte to a person: `'~'` for printable ASCII, `0x15` otherwise.
pub fn show_byte(b: u8) -> String {
    match b {
        b'\n' => "a line feed (0x0A)".to_string(),
        b'\r' => "a carriage return (0x0D)".to_string(),
        0x21..=0x7e => format!("'{}'", b as char),
        _ => format!("0x{b:02X}"),
    }
}

/// What [`detect`] read from an ISA segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IsaScan {
    /// The delimiters of the interchange.
    pub delimiters: Delimiters,
    /// Length of the ISA segment without its terminator (105 when fixed-width).
    pub len: usize,
    /// True when the ISA has the standard fixed 106-byte layout.
    pub fixed: bool,
    /// Warnings about the ISA (layout, repetition separator), without positions.
    pub warnings: Vec<Diagnostic>,
}

/// Result of [`detect`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detect {
    /// The delimiters were read.
    Found(IsaScan),
    /// More input is needed to decide (only when not at end of input).
    NeedMore,
    /// The ISA is unusable; the diagnostic (without position) says why.
    Invalid(Diagnostic),
}

/// Reads the delimiters of the ISA segment that starts at `buf[0]`.
///
/// `eof` says whether `buf` holds everything that remains of the input; when
/// it is false and `buf` is too short to decide, [`Detect::NeedMore`] is returned.
pub fn detect(buf: &[u8], eof: bool) -> Detect {
    let need = |what: &str| {
        if eof {
            Detect::Invalid(Diagnostic::error(
                Code::IsaLayout,
                format!("the ISA segment is truncated: the input ends {what}"),
            ))
        } else {
            Detect::NeedMore
        }
    };
    if buf.len() < 4 {
        return need("before the element separator (ISA byte 3)");
    }
    debug_assert!(buf.starts_with(b"ISA"));
    let e = buf[3];
    if !is_valid_delimiter(e) {
        return invalid(
            Code::Delimiters,
            format!(
                "the element separator (byte 3 of the ISA) is {}, but a delimiter must not be a letter, a digit or a space",
                show_byte(e)
            ),
        );
    }
    if let Some(d) = multibyte(buf, 3, "element separator (byte 3 of the ISA)", eof) {
        return d;
    }
    if buf.len() < ISA_LEN + 1 && !eof {
        // Enough for the fixed layout plus one byte to rule out a multi-byte terminator.
        return Detect::NeedMore;
    }

    // A line break right before ISA16 or the terminator leaves the
    // separators in place: read it as a wrapping break when what follows is
    // a component separator and a terminator.
    if buf.len() >= ISA_LEN && (is_line_break(buf[104]) || is_line_break(buf[105])) {
        if let Some(found @ (Detect::Found(_) | Detect::NeedMore)) = wrapped(buf, e, eof) {
            return found;
        }
    }
    let fixed = fixed_layout(buf, e);

    let (len, isa11, isa12, off_width) = if fixed {
        (ISA_LEN - 1, &buf[82..83], &buf[84..89], String::new())
    } else {
        // Recover: the 16th element separator, then ISA16 (one byte), then the terminator.
        let limit = buf.len().min(ISA_SCAN_LIMIT);
        let mut seps = [0usize; 16];
        let mut n = 0;
        for (i, &b) in buf[..limit].iter().enumerate().skip(3) {
            if b == e {
                seps[n] = i;
                n += 1;
                if n == 16 {
                    break;
                }
            }
        }
        if n < 16 || seps[15] + 2 >= buf.len() {
            // More input helps while the scan limit is not reached, or, once all
            // 16 separators are found, to see ISA16 and the terminator after them.
            if !eof && (n == 16 || buf.len() < ISA_SCAN_LIMIT) {
                return Detect::NeedMore;
            }
            return invalid(
                Code::IsaLayout,
                format!(
                    "the ISA segment could not be read: it must have 16 elements separated by {}, then a one-character component separator (ISA16) and the segment terminator, but {}",
                    show_byte(e),
                    match (n < 16, buf.len() >= ISA_SCAN_LIMIT) {
                        (true, true) =>
                            format!("only {n} element separators were found in its first 512 bytes"),
                        (true, false) =>
                            format!("only {n} element separators were found before the input ends"),
                        (false, _) =>
                            "the input ends before the segment terminator that follows ISA16"
                                .to_string(),
                    },
                ),
            );
        }
        let p = seps[15];
        if let Some(nl) = buf[..p].iter().position(|&b| is_line_break(b)) {
            return match wrapped(buf, e, eof) {
                Some(found) => found,
                None => invalid(
                    Code::IsaLayout,
                    format!(
                        "the ISA segment contains a line break at byte {nl} and, without its line breaks, is still not the fixed 106-byte layout, so it could not be read; remove the line breaks inside segments and pad every ISA element to its fixed width"
                    ),
                ),
            };
        }
        let mut off_width = String::new();
        for (k, w) in ISA_WIDTHS.iter().enumerate().take(15) {
            let value = &buf[seps[k] + 1..seps[k + 1]];
            let chars = value
                .iter()
                .filter(|&&b| !(0x80..0xC0).contains(&b))
                .count();
            if chars != *w && off_width.len() < 200 {
                off_width.push_str(&format!(
                    "; ISA{:02} is {chars} characters instead of {w}",
                    k + 1
                ));
            }
        }
        (
            p + 2,
            &buf[seps[10] + 1..seps[11]],
            &buf[seps[11] + 1..seps[12]],
            off_width,
        )
    };

    let component = buf[len - 1];
    let segment = buf[len];
    if let Some(d) = multibyte(buf, len - 1, "component separator (ISA16)", eof) {
        return d;
    }
    if let Some(d) = multibyte(buf, len, "segment terminator", eof) {
        return d;
    }
    let mut delimiters = Delimiters {
        element: e,
        component,
        repetition: None,
        segment,
    };
    if let Err(why) = delimiters.check() {
        return invalid(Code::Delimiters, format!("unusable ISA delimiters: {why}"));
    }
    if fixed && buf[4..len].contains(&segment) {
        return invalid(
            Code::Delimiters,
            format!(
                "the segment terminator {} also appears inside the ISA segment's data; a delimiter must never appear in a value",
                show_byte(segment)
            ),
        );
    }
    if !fixed && buf[4..len].contains(&segment) {
        return invalid(
            Code::IsaLayout,
            format!(
                "the ISA segment could not be read: its segment terminator {} also appears inside it, so it does not have exactly 16 elements",
                show_byte(segment)
            ),
        );
    }

    let mut warnings = Vec::new();
    if !fixed {
        let what = if len + 1 == ISA_LEN {
            "the ISA segment is 106 bytes long, but its element separators are not at the fixed positions".to_string()
        } else {
            format!(
                "the ISA segment is {} bytes long instead of the fixed 106",
                len + 1
            )
        };
        warnings.push(Diagnostic::warning(
            Code::IsaLayout,
            format!(
                "{what}{off_width}; its delimiters were recovered from the element separators, but many partners reject an ISA that is not padded to fixed width"
            ),
        ));
    }
    let version = parse_version(isa12);
    if version.is_some_and(|v| v >= 402) {
        match isa11 {
            [r] if is_valid_delimiter(*r) && !delimiters.is_delimiter(*r) => {
                delimiters.repetition = Some(*r)
            }
            _ => warnings.push(Diagnostic::warning(
                Code::Delimiters,
                format!(
                    "ISA12 is {}, so ISA11 should be the repetition separator, but it is \"{}\", which cannot be one; repeated elements will not be split",
                    String::from_utf8_lossy(isa12),
                    String::from_utf8_lossy(isa11)
                ),
            )),
        }
    }
    Detect::Found(IsaScan {
        delimiters,
        len,
        fixed,
        warnings,
    })
}

fn is_line_break(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// Reads an ISA that is the fixed 106-byte layout once the line breaks
/// inside it are removed: a file hard-wrapped at 80 columns, as some
/// mainframes send. The segment keeps its bytes (line breaks included, so
/// that writing the parse result back gives the input); the validator reads
/// its values without them. `None` when the ISA is not such a layout.
///
/// The terminator is the byte after ISA16. When that byte is itself a line
/// break, it is a wrapping line break if the first byte after the line
/// breaks can be a delimiter (then that byte is the terminator), and the
/// terminator otherwise (a segment starts after it with a letter or digit).
fn wrapped(buf: &[u8], e: u8, eof: bool) -> Option<Detect> {
    if is_line_break(e) {
        return None;
    }
    // The 105 bytes before the terminator, line breaks removed, and the raw
    // position after ISA16.
    let mut isa = [0u8; ISA_LEN];
    let mut n = 0;
    let mut at = 0;
    let mut breaks = Vec::new();
    while n < ISA_LEN - 1 {
        let &b = buf.get(at).filter(|_| at < ISA_SCAN_LIMIT)?;
        if is_line_break(b) {
            breaks.push(at);
        } else {
            isa[n] = b;
            n += 1;
        }
        at += 1;
    }
    let layout = ISA_SEPARATORS.iter().all(|&i| isa[i] == e)
        && isa[..ISA_LEN - 1].iter().filter(|&&b| b == e).count() == ISA_SEPARATORS.len();
    if !layout {
        return None;
    }
    let len = match buf.get(at) {
        Some(&b) if is_line_break(b) => {
            match buf[at..].iter().position(|&c| !is_line_break(c)) {
                // A line break, then a byte that can be a delimiter: it is the
                // terminator (a segment would start with a letter or digit).
                Some(k) if is_valid_delimiter(buf[at + k]) && !crate::bytes::is_ws(buf[at + k]) => {
                    breaks.extend(at..at + k);
                    at + k
                }
                Some(_) => at,
                None if eof => at,
                None => return Some(Detect::NeedMore),
            }
        }
        Some(_) => at,
        None if eof => return None,
        None => return Some(Detect::NeedMore),
    };
    if breaks.is_empty() {
        return None;
    }
    isa[ISA_LEN - 1] = buf[len];
    if let Some(d) = multibyte(buf, len, "segment terminator", eof) {
        return Some(d);
    }
    let mut scan = match fixed_scan(&isa) {
        Detect::Found(scan) => scan,
        other => return Some(other),
    };
    scan.len = len;
    scan.fixed = false;
    // One line break per run of CR / LF bytes, named by where it starts.
    let starts: Vec<usize> = breaks
        .iter()
        .enumerate()
        .filter(|&(k, &b)| k == 0 || breaks[k - 1] + 1 != b)
        .map(|(_, &b)| b)
        .collect();
    let shown: Vec<String> = starts.iter().take(4).map(|b| b.to_string()).collect();
    let where_ = match starts.len() {
        1 => format!("a line break at byte {}", shown[0]),
        n => format!(
            "{n} line breaks, at bytes {}{}",
            shown.join(", "),
            if n > 4 { ", …" } else { "" }
        ),
    };
    scan.warnings.insert(
        0,
        Diagnostic::warning(
            Code::IsaLayout,
            format!(
                "the ISA segment contains {where_}: the file looks hard-wrapped (for example at 80 columns); the ISA was read without its line breaks, as the fixed 106-byte layout it is otherwise, but many partners reject a wrapped ISA"
            ),
        ),
    );
    Some(Detect::Found(scan))
}

/// [`detect`] over an ISA known to be the fixed layout, complete (`eof`).
fn fixed_scan(isa: &[u8; ISA_LEN]) -> Detect {
    detect(isa, true)
}

fn invalid(code: Code, message: String) -> Detect {
    Detect::Invalid(Diagnostic::error(code, message))
}

/// Rejects a delimiter that is the first byte of a multi-byte UTF-8 character.
fn multibyte(buf: &[u8], at: usize, what: &str, eof: bool) -> Option<Detect> {
    let b = buf[at];
    if b < 0xC0 {
        return None;
    }
    let width = match b {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    };
    let Some(tail) = buf.get(at + 1..at + width) else {
        // The character may continue in input not yet seen.
        return (!eof).then_some(Detect::NeedMore);
    };
    if tail.len() + 1 == width && tail.iter().all(|&c| (0x80..0xC0).contains(&c)) {
        let ch = std::str::from_utf8(&buf[at..at + width])
            .ok()
            .and_then(|s| s.chars().next());
        let shown = ch.map_or_else(|| show_byte(b), |c| format!("'{c}' (U+{:04X})", c as u32));
        return Some(invalid(
            Code::Delimiters,
            format!(
                "the {what} is the multi-byte character {shown}; X12 delimiters must be single bytes"
            ),
        ));
    }
    None
}

/// Parses ISA12 (`00401`, `00501`, …) as a number.
fn parse_version(v: &[u8]) -> Option<u32> {
    if v.len() != 5 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(v.iter().fold(0, |n, &d| n * 10 + u32::from(d - b'0')))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The word-at-a-time layout check says what the byte-at-a-time
        /// definition says: the separator at the 16 fixed places and at no
        /// other of the first 106 bytes.
        #[test]
        fn fixed_layout_is_the_separators_at_their_places_and_nowhere_else(
            flips in proptest::collection::vec((0usize..108, proptest::bool::ANY), 0..4),
            len in 100usize..110,
        ) {
            let mut buf = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000001*0*P*:~\nGS".to_vec();
            for (i, sep) in flips {
                buf[i] = if sep { b'*' } else { b'x' };
            }
            buf.truncate(len);
            let slow = buf.len() >= ISA_LEN
                && ISA_SEPARATORS.iter().all(|&i| buf[i] == b'*')
                && buf[..ISA_LEN].iter().filter(|&&b| b == b'*').count() == ISA_SEPARATORS.len();
            proptest::prop_assert_eq!(fixed_layout(&buf, b'*'), slow);
        }
    }

    pub(crate) const ISA_4010: &[u8] = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~";
    pub(crate) const ISA_5010: &[u8] = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000001*0*T*:~";

    fn found(buf: &[u8]) -> IsaScan {
        match detect(buf, true) {
            Detect::Found(s) => s,
            other => panic!("expected delimiters, got {other:?}"),
        }
    }

    fn code(buf: &[u8]) -> Code {
        match detect(buf, true) {
            Detect::Invalid(d) => d.code,
            other => panic!("expected an invalid ISA, got {other:?}"),
        }
    }

    #[test]
    fn fixed_4010_has_no_repetition_separator() {
        assert_eq!(ISA_4010.len(), ISA_LEN);
        let s = found(ISA_4010);
        assert!(s.fixed);
        assert_eq!(s.len, 105);
        assert_eq!(
            s.delimiters,
            Delimiters {
                element: b'*',
                component: b'>',
                repetition: None,
                segment: b'~'
            }
        );
        assert!(s.warnings.is_empty());
    }

    #[test]
    fn fixed_5010_reads_isa11_as_repetition_separator() {
        let s = found(ISA_5010);
        assert_eq!(s.delimiters, Delimiters::default());
    }

    #[test]
    fn any_non_alphanumeric_byte_works_including_control_bytes() {
        for (e, c, s) in [
            (b'|', b'^', b'\n'),
            (0x7f, b':', 0x15),
            (0x07, b'>', b'~'),
            (b'^', b'|', b'\r'),
        ] {
            let isa: Vec<u8> = ISA_4010
                .iter()
                .enumerate()
                .map(|(i, &b)| match (i, b) {
                    (104, _) => c,
                    (105, _) => s,
                    (_, b'*') => e,
                    _ => b,
                })
                .collect();
            let scan = found(&isa);
            assert_eq!(
                (
                    scan.delimiters.element,
                    scan.delimiters.component,
                    scan.delimiters.segment
                ),
                (e, c, s)
            );
        }
    }

    #[test]
    fn unpadded_isa_is_recovered_with_a_layout_warning() {
        let isa = b"ISA*00**00**ZZ*S*ZZ*R*230101*1200*U*00401*1*0*P*>~GS*";
        let s = found(isa);
        assert!(!s.fixed);
        assert_eq!(s.len, 49);
        assert_eq!(s.delimiters.segment, b'~');
        assert_eq!(s.warnings[0].code, Code::IsaLayout);
    }

    #[test]
    fn rejects_alphanumeric_equal_and_multibyte_delimiters() {
        let mut isa = ISA_4010.to_vec();
        isa[105] = b'*';
        assert_eq!(code(&isa), Code::Delimiters);
        isa[105] = b'A';
        assert_eq!(code(&isa), Code::Delimiters);
        isa[105] = b'>';
        assert_eq!(code(&isa), Code::Delimiters);
        let mut emoji = ISA_4010[..104].to_vec();
        emoji.extend_from_slice("🚀~".as_bytes());
        assert_eq!(code(&emoji), Code::Delimiters);
        let ohm = [b"ISA".as_slice(), "Ö00Ö".as_bytes()].concat();
        assert_eq!(code(&ohm), Code::Delimiters);
    }

    #[test]
    fn truncated_isa_asks_for_more_then_fails_at_eof() {
        assert_eq!(detect(&ISA_4010[..50], false), Detect::NeedMore);
        assert_eq!(code(&ISA_4010[..50]), Code::IsaLayout);
        assert_eq!(code(b"ISA"), Code::IsaLayout);
    }

    #[test]
    fn bad_repetition_separator_in_5010_is_a_warning() {
        let mut isa = ISA_5010.to_vec();
        isa[82] = b'U';
        let s = found(&isa);
        assert_eq!(s.delimiters.repetition, None);
        assert_eq!(s.warnings[0].code, Code::Delimiters);
    }
}
