//! The zero-copy tokenizer.
//!
//! [`Tokenizer`] walks a whole input and yields [`Token`]s: borrowed
//! [`Segment`]s and the [`Diagnostic`]s found while splitting (BOM, unusable
//! ISA, data that is not X12, …). It allocates nothing per segment or element.
//! Each interchange brings its own delimiters, read from its ISA.
//!
//! The same state machine drives the chunk-fed tokenizer in
//! [`crate::stream`], so both yield exactly the same tokens.

use crate::bytes::is_ws;
use crate::delimiters::{Delimiters, Detect, detect, show_byte};
use crate::diagnostics::{Code, Diagnostic};
use crate::index::{Cursor, Find};
use crate::segment::Segment;
use std::collections::VecDeque;

const BOM: &[u8] = b"\xEF\xBB\xBF";
/// How many bytes of non-X12 data a message looks at.
const DESCRIBE_LEN: usize = 64;

/// One item of the token stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token<'a> {
    /// A segment.
    Segment(Segment<'a>),
    /// A problem found while splitting the input.
    Diagnostic(Diagnostic),
}

/// A segment located by position, not yet bound to a buffer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawSegment {
    start: usize,
    end: usize,
    suffix_end: usize,
    offset: usize,
    index: usize,
    delimiters: Delimiters,
    terminated: bool,
}

impl RawSegment {
    /// Binds the segment to the buffer it was found in.
    #[inline]
    pub(crate) fn view<'a>(&self, buf: &'a [u8]) -> Segment<'a> {
        let suffix_start = if self.terminated {
            self.end + 1
        } else {
            self.end
        };
        Segment::new(
            &buf[self.start..self.end],
            &buf[suffix_start..self.suffix_end],
            self.offset,
            self.index,
            self.delimiters,
            self.terminated,
        )
    }
}

/// What one step of the lexer produced.
#[derive(Debug)]
pub(crate) enum Step {
    Segment(RawSegment),
    Diagnostic(Diagnostic),
    NeedMore,
    End,
}

/// The tokenizer's state machine, independent of how input arrives.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lexer {
    delimiters: Option<Delimiters>,
    index: usize,
    started: bool,
    bom_checked: bool,
    skipping: bool,
    pending: VecDeque<Diagnostic>,
    /// The structural index of the input, walked forward.
    cursor: Cursor,
    /// What is known of a segment whose end is not in the buffer yet, so
    /// that more input resumes the search instead of repeating it.
    resume: Resume,
    /// No delimiter of the current interchange other than its terminator
    /// is whitespace, so the whitespace after a terminator is skippable
    /// byte by byte ([`is_ws`]) without the index.
    plain_ws: bool,
    /// Tests only: skip [`Lexer::common`], so that the general path alone
    /// tokenizes (to compare the two).
    #[cfg(test)]
    general_only: bool,
}

/// Progress on an unfinished segment, in absolute input offsets.
#[derive(Debug, Clone, Copy, Default)]
struct Resume {
    /// The segment's first byte (`usize::MAX`: no segment).
    start: usize,
    /// No terminator lies in `start..scanned`.
    scanned: usize,
    /// The terminator's offset, once found.
    end: Option<usize>,
    /// Only skippable whitespace lies in `end + 1..suffix`.
    suffix: usize,
}

/// The bytes of a segment identifier: upper-case ASCII letters and digits.
static ID_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).is_ascii_uppercase() || (b as u8).is_ascii_digit();
        b += 1;
    }
    t
};

/// Whitespace after a terminator: skipped unless it is a delimiter other
/// than the terminator itself (so a blank line in a file whose terminator is
/// LF is not an empty segment).
#[inline]
fn skippable(b: u8, d: &Delimiters) -> bool {
    is_ws(b) && (b == d.segment || !d.is_delimiter(b))
}

impl Lexer {
    /// The next segment: `buf[start..end]`, its terminator and what follows
    /// it up to `suffix_end`, at input offset `offset`, numbered in turn;
    /// `pos` moves past it.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn take(
        &mut self,
        start: usize,
        end: usize,
        suffix_end: usize,
        offset: usize,
        delimiters: Delimiters,
        terminated: bool,
        pos: &mut usize,
    ) -> RawSegment {
        let raw = RawSegment {
            start,
            end,
            suffix_end,
            offset,
            index: self.index,
            delimiters,
            terminated,
        };
        self.index += 1;
        *pos = suffix_end;
        raw
    }

    /// Advances over `buf[*pos..]`. `base` is the input offset of `buf[0]`;
    /// `eof` says no input follows `buf`. Positions in the result are
    /// relative to `buf`.
    #[inline(never)]
    pub(crate) fn step(&mut self, buf: &[u8], pos: &mut usize, base: usize, eof: bool) -> Step {
        match self.common(buf, pos, base) {
            Some(raw) => Step::Segment(raw),
            None => self.general(buf, pos, base, eof),
        }
    }

    /// The common segment, in a few dozen instructions: inside an
    /// interchange, nothing pending or half read, a plain identifier (2 or 3
    /// upper-case letters or digits, then the element separator; not ISA or
    /// IEA) at `buf[*pos]`, and its terminator and the end of the line
    /// breaks after it in `buf`. Such a segment has no diagnostic and no
    /// end-of-file padding, so this yields exactly what [`Lexer::general`]
    /// yields for it; anything else returns `None` and is left to
    /// `general`, which stays the reference (a unit test compares the two
    /// on random inputs).
    #[inline(always)]
    fn common(&mut self, buf: &[u8], pos: &mut usize, base: usize) -> Option<RawSegment> {
        #[cfg(test)]
        if self.general_only {
            return None;
        }
        let d = self.delimiters?;
        if self.resume.start != usize::MAX || !self.pending.is_empty() {
            return None;
        }
        self.plain(buf, pos, base, d)
    }

    /// [`Lexer::common`] once its state checks passed: `d` are the
    /// interchange's delimiters, nothing is pending or half read.
    #[inline(always)]
    fn plain(
        &mut self,
        buf: &[u8],
        pos: &mut usize,
        base: usize,
        d: Delimiters,
    ) -> Option<RawSegment> {
        let start = *pos;
        let &[b0, b1, b2, b3] = buf.get(start..)?.first_chunk::<4>()?;
        let id = |b: u8| ID_BYTE[b as usize];
        if !(id(b0) & id(b1)) {
            return None;
        }
        if b2 != d.element {
            // Three bytes: neither ISA (read by `isa`) nor IEA (ends the interchange).
            if !(id(b2) & (b3 == d.element))
                || (b0 == b'I' && (b1 == b'S' || b1 == b'E') && b2 == b'A')
            {
                return None;
            }
        }
        let abs = base + start;
        let Some(end) = self.cursor.find(Find::Terminator, buf, base, start, &d) else {
            // Resume where this search stopped.
            self.resume = Resume {
                start: abs,
                scanned: base + buf.len(),
                end: None,
                suffix: 0,
            };
            return None;
        };
        // Usually a line break or none: read byte by byte when only
        // whitespace can be skipped, else (or past a few bytes) walk the index.
        let mut from = end + 1;
        if self.plain_ws {
            while let Some(&b) = buf.get(from) {
                if !is_ws(b) || from > end + 4 {
                    break;
                }
                from += 1;
            }
        }
        let found = match buf.get(from) {
            Some(&b) if self.plain_ws && !is_ws(b) => Some(from),
            _ => self.cursor.find(Find::NotSkippable, buf, base, from, &d),
        };
        let Some(suffix_end) = found else {
            self.resume = Resume {
                start: abs,
                scanned: abs,
                end: Some(base + end),
                suffix: base + buf.len(),
            };
            return None;
        };
        Some(self.take(start, end, suffix_end, abs, d, true, pos))
    }

    /// Skips the plain body segments at `buf[*pos..]`: each segment
    /// [`Lexer::common`] reads whose identifier is not GS, GE, ST or SE
    /// (`common` leaves ISA and IEA, and every segment with a diagnostic, to
    /// the general path), passing each to `seen`; returns how many. Each
    /// is exactly what [`Lexer::step`] would have yielded at that point, with
    /// the same numbering, so a caller inside a transaction set can take
    /// them without building a token ([`Tokenizer::body_run`] for `parse`,
    /// [`StreamTokenizer::skip_body`](crate::stream::StreamTokenizer::skip_body)
    /// for validation); the run stops at anything else, which `step` then
    /// reads as usual.
    #[inline(always)]
    pub(crate) fn skip_body(
        &mut self,
        buf: &[u8],
        pos: &mut usize,
        base: usize,
        mut seen: impl FnMut(&RawSegment),
    ) -> usize {
        #[cfg(test)]
        if self.general_only {
            return 0;
        }
        // The state `common` checks first stays as it is while `plain`
        // reads segments (only the general path changes it; `plain` may
        // record where an unfinished segment stopped, and the run ends
        // there), so it is checked once, and the delimiters are read once.
        let Some(d) = self.delimiters else { return 0 };
        if self.resume.start != usize::MAX || !self.pending.is_empty() {
            return 0;
        }
        let mut n = 0;
        loop {
            let envelope = buf
                .get(*pos..)
                .and_then(|r| r.first_chunk::<3>())
                .is_some_and(|&[b0, b1, b2]| {
                    b2 == d.element && matches!([b0, b1], [b'G', b'S' | b'E'] | [b'S', b'T' | b'E'])
                });
            if envelope {
                return n;
            }
            match self.plain(buf, pos, base, d) {
                Some(raw) => {
                    seen(&raw);
                    n += 1;
                }
                None => return n,
            }
        }
    }

    /// Every case: the reference tokenizer.
    #[inline(never)]
    fn general(&mut self, buf: &[u8], pos: &mut usize, base: usize, eof: bool) -> Step {
        if let Some(d) = self.pending.pop_front() {
            return Step::Diagnostic(d);
        }
        loop {
            let rest = &buf[*pos..];
            if !self.bom_checked {
                if rest.len() < BOM.len() && !eof && BOM.starts_with(rest) {
                    return Step::NeedMore;
                }
                self.bom_checked = true;
                if rest.starts_with(BOM) {
                    *pos += BOM.len();
                    return Step::Diagnostic(
                        Diagnostic::warning(
                            Code::Bom,
                            "the input starts with a UTF-8 byte order mark; it was skipped, but many trading partners reject files that carry one",
                        )
                        .at_offset(base + *pos - BOM.len()),
                    );
                }
            }
            if self.skipping {
                match find_isa(rest) {
                    // "ISA" at the very end: the next byte decides whether it starts a segment.
                    Some(i) if i + 3 == rest.len() && !eof => {
                        *pos += i;
                        return Step::NeedMore;
                    }
                    Some(i) => {
                        *pos += i;
                        self.skipping = false;
                        continue;
                    }
                    None if eof => {
                        *pos = buf.len();
                        return Step::End;
                    }
                    None => {
                        // Keep a possible partial "ISA" for the next chunk.
                        *pos = buf.len() - rest.len().min(3);
                        return Step::NeedMore;
                    }
                }
            }
            let lead = match self.delimiters {
                // Usually the byte after a segment's line breaks starts the next one.
                Some(_) if rest.first().is_some_and(|&b| !is_ws(b)) => Some(0),
                Some(d) => self
                    .cursor
                    .find(Find::NotSkippable, buf, base, *pos, &d)
                    .map(|i| i - *pos),
                None => rest.iter().position(|&b| !is_ws(b)),
            };
            let Some(lead) = lead else {
                *pos = buf.len();
                if !eof {
                    return Step::NeedMore;
                }
                if !self.started {
                    self.started = true;
                    return Step::Diagnostic(
                        Diagnostic::error(
                            Code::NotX12,
                            "the input is empty or only whitespace; an X12 interchange must start with an ISA segment",
                        )
                        .at_offset(base + *pos),
                    );
                }
                return Step::End;
            };
            *pos += lead;
            let start = *pos;
            let rest = &buf[start..];
            if rest.len() < 4 && !eof && b"ISA".starts_with(&rest[..rest.len().min(3)]) {
                return Step::NeedMore;
            }
            if rest.starts_with(b"ISA") && (rest.len() == 3 || !rest[3].is_ascii_alphanumeric()) {
                return self.isa(buf, pos, base, eof);
            }
            let Some(d) = self.delimiters else {
                // An ISA-like start is judged on its whole 106 bytes.
                let need = if rest.starts_with(b"ISA") {
                    106
                } else {
                    DESCRIBE_LEN
                };
                if rest.len() < need && !eof {
                    // Describe the same bytes whatever the chunking.
                    return Step::NeedMore;
                }
                let diag = if let Some(sep) = letter_separator(rest) {
                    Diagnostic::error(
                        Code::Delimiters,
                        format!(
                            "this ISA uses {} as its element separator; X12 delimiters cannot be letters, digits or spaces, so the interchange cannot be read",
                            crate::delimiters::show_byte(sep)
                        ),
                    )
                } else if self.started {
                    Diagnostic::error(
                        Code::TrailingData,
                        format!(
                            "data follows the end of the interchange ({}); only whitespace, end-of-file padding (0x1A, NUL) or another ISA may follow an IEA",
                            describe(rest)
                        ),
                    )
                } else {
                    Diagnostic::error(
                        Code::NotX12,
                        format!(
                            "the input is not X12: {}; an X12 interchange must start with an ISA segment",
                            describe(rest)
                        ),
                    )
                };
                self.started = true;
                self.skipping = true;
                return Step::Diagnostic(diag.at_offset(base + start));
            };
            let abs = base + start;
            if self.resume.start != abs {
                self.resume = Resume {
                    start: abs,
                    scanned: abs,
                    end: None,
                    suffix: 0,
                };
            }
            let found = match self.resume.end {
                Some(e) => Some(e - base),
                None => {
                    let from = self.resume.scanned - base;
                    self.cursor.find(Find::Terminator, buf, base, from, &d)
                }
            };
            let (end, terminated) = match found {
                Some(t) => (t, true),
                // The last segment lacks its terminator: trailing line breaks
                // (and end-of-file padding) are its suffix, not part of its
                // last element.
                None if eof => (start + trim_padded_end(rest, &d), false),
                None => {
                    self.resume.scanned = base + buf.len();
                    return Step::NeedMore;
                }
            };
            let mut suffix_end = if terminated {
                if self.resume.end.is_none() {
                    self.resume.end = Some(base + end);
                    self.resume.suffix = base + end + 1;
                }
                let from = self.resume.suffix - base;
                match self.cursor.find(Find::NotSkippable, buf, base, from, &d) {
                    Some(e) => e,
                    None if eof => buf.len(),
                    None => {
                        self.resume.suffix = base + buf.len();
                        return Step::NeedMore;
                    }
                }
            } else {
                buf.len()
            };
            // Where end-of-file padding may start: after an IEA's line
            // breaks, or in what follows an unterminated last segment.
            let padded_from = if !terminated {
                end
            } else if is_iea(&buf[start..end], &d) {
                match padding_end(buf, suffix_end, &d, eof) {
                    Some(e) => std::mem::replace(&mut suffix_end, e),
                    None => return Step::NeedMore,
                }
            } else {
                suffix_end
            };
            self.resume.start = usize::MAX;
            let raw = self.take(start, end, suffix_end, base + start, d, terminated, pos);
            let seg = raw.view(buf);
            if !terminated {
                self.pending.push_back(
                    Diagnostic::warning(
                        Code::TerminatorMissing,
                        format!(
                            "the last segment has no segment terminator ({}); the input may be truncated",
                            show_byte(d.segment)
                        ),
                    )
                    .at_segment(&seg),
                );
            }
            if padded_from < suffix_end {
                if let Some(w) = padding_warning(buf, padded_from, suffix_end, base, &d, seg.id()) {
                    let at = w.offset.unwrap_or(base + padded_from);
                    self.pending.push_back(w.at_segment(&seg).at_offset(at));
                }
            }
            let id = seg.id();
            if !crate::segment::is_valid_id(id) {
                let hint = if id.iter().any(|&b| b == b'\n' || b == b'\r') {
                    "it holds a line break: the file looks hard-wrapped (for example at 80 columns), and a line break inside a segment other than the ISA is data; remove the line breaks inside segments"
                } else {
                    "is a delimiter misplaced or a segment terminator missing?"
                };
                self.pending.push_back(
                    Diagnostic::error(
                        Code::SegmentId,
                        format!(
                            "\"{}\" is not a segment identifier: identifiers are 2 or 3 upper-case letters or digits ({hint})",
                            preview(seg.id(), 20)
                        ),
                    )
                    .at_segment(&seg),
                );
            } else if id == b"IEA" {
                self.delimiters = None;
                self.cursor.reset();
            }
            return Step::Segment(raw);
        }
    }

    /// A lexer that never takes the [`Lexer::common`] fast path (tests
    /// compare it with the default one).
    #[cfg(test)]
    pub(crate) fn general_only() -> Self {
        Lexer {
            general_only: true,
            ..Lexer::default()
        }
    }

    /// Blocks of the structural index classified so far (tests check that
    /// the work is linear in the input).
    #[cfg(test)]
    pub(crate) fn blocks(&self) -> usize {
        self.cursor.blocks
    }

    fn isa(&mut self, buf: &[u8], pos: &mut usize, base: usize, eof: bool) -> Step {
        let start = *pos;
        let rest = &buf[start..];
        match detect(rest, eof) {
            Detect::NeedMore => Step::NeedMore,
            Detect::Invalid(d) => {
                self.delimiters = None;
                self.started = true;
                self.skipping = true;
                *pos += 3;
                Step::Diagnostic(d.at_offset(base + start))
            }
            Detect::Found(scan) => {
                let d = scan.delimiters;
                let end = start + scan.len;
                let Some(suffix_end) = suffix_end(buf, end + 1, &d, eof) else {
                    return Step::NeedMore;
                };
                let raw = self.take(start, end, suffix_end, base + start, d, true, pos);
                self.delimiters = Some(d);
                self.plain_ws = ![d.element, d.component, d.repetition_byte()]
                    .iter()
                    .any(|&b| is_ws(b) && b != d.segment);
                self.cursor.reset();
                self.started = true;
                let seg = raw.view(buf);
                for w in scan.warnings {
                    self.pending.push_back(w.at_segment(&seg));
                }
                Step::Segment(raw)
            }
        }
    }
}

/// End of the whitespace run after a terminator, or `None` if it reaches the
/// end of a buffer that more input may extend.
#[inline]
fn suffix_end(buf: &[u8], from: usize, d: &Delimiters, eof: bool) -> Option<usize> {
    match buf[from..].iter().position(|&b| !skippable(b, d)) {
        Some(i) => Some(from + i),
        None if eof => Some(buf.len()),
        None => None,
    }
}

/// End-of-file padding: a DOS end-of-file byte (0x1A, Ctrl-Z) or NUL, when
/// it is not one of the interchange's delimiters.
#[inline]
fn is_padding(b: u8, d: &Delimiters) -> bool {
    (b == 0x1A || b == 0) && !d.is_delimiter(b)
}

/// Length of the last segment `b` (which has no terminator) without its
/// trailing whitespace and end-of-file padding.
fn trim_padded_end(b: &[u8], d: &Delimiters) -> usize {
    b.iter()
        .rposition(|&c| !skippable(c, d) && !is_padding(c, d))
        .map_or(0, |i| i + 1)
}

/// True when the segment bytes `raw` are an IEA.
fn is_iea(raw: &[u8], d: &Delimiters) -> bool {
    raw.starts_with(b"IEA") && raw.get(3).is_none_or(|&b| b == d.element)
}

/// End of the end-of-file padding (with the whitespace around it) that
/// starts at `from`, after an IEA; `from` itself when there is none; `None`
/// when it reaches the end of a buffer that more input may extend. The
/// padding becomes part of the IEA's suffix: skipped like the line break
/// after a terminator and kept in the parse result, so `write` gives it back.
fn padding_end(buf: &[u8], from: usize, d: &Delimiters, eof: bool) -> Option<usize> {
    if !buf.get(from).is_some_and(|&b| is_padding(b, d)) {
        return Some(from);
    }
    match buf[from..]
        .iter()
        .position(|&b| !is_padding(b, d) && !skippable(b, d))
    {
        Some(i) => Some(from + i),
        None if eof => Some(buf.len()),
        None => None,
    }
}

/// The `TRAILING_PADDING` warning for the padding bytes in `buf[from..to]`
/// after segment `id` (an IEA, or the input's last segment when it has no
/// terminator), if any (its offset is where the padding starts).
fn padding_warning(
    buf: &[u8],
    from: usize,
    to: usize,
    base: usize,
    d: &Delimiters,
    id: &[u8],
) -> Option<Diagnostic> {
    let tail = &buf[from..to];
    let first = tail.iter().position(|&b| is_padding(b, d))?;
    let eof = tail
        .iter()
        .filter(|&&b| b == 0x1A && is_padding(b, d))
        .count();
    let nul = tail.iter().filter(|&&b| b == 0 && is_padding(b, d)).count();
    let after = if id.is_empty() {
        "the last segment".to_string()
    } else {
        format!("the {} segment", preview(id, 10))
    };
    let count = |n: usize, one: &str, many: &str| match n {
        0 => None,
        1 => Some(one.to_string()),
        n => Some(format!("{n} {many}")),
    };
    let what: Vec<String> = [
        count(
            eof,
            "a DOS end-of-file byte (0x1A)",
            "DOS end-of-file bytes (0x1A)",
        ),
        count(nul, "a NUL byte (0x00)", "NUL bytes (0x00)"),
    ]
    .into_iter()
    .flatten()
    .collect();
    Some(
        Diagnostic::warning(
            Code::TrailingPadding,
            format!(
                "{} follow{} {after}; {} not X12 and {} skipped (the parse result keeps {}, so writing it back gives the same bytes)",
                what.join(" and "),
                if eof + nul == 1 { "s" } else { "" },
                if eof + nul == 1 { "it is" } else { "they are" },
                if eof + nul == 1 { "was" } else { "were" },
                if eof + nul == 1 { "it" } else { "them" },
            ),
        )
        .at_offset(base + from + first),
    )
}

/// Rebuilds the view of a segment whose bytes are `input[start..end]`,
/// given its interchange's delimiters (used by the compact tree).
#[inline]
pub(crate) fn segment_at(
    input: &[u8],
    start: usize,
    end: usize,
    index: usize,
    d: Delimiters,
) -> Segment<'_> {
    let terminated = input.get(end) == Some(&d.segment);
    let (from, to) = if terminated {
        (
            end + 1,
            suffix_end(input, end + 1, &d, true).unwrap_or(input.len()),
        )
    } else {
        // Only the last segment of the input is unterminated.
        (end, input.len())
    };
    Segment::new(
        &input[start..end],
        &input[from..to],
        start,
        index,
        d,
        terminated,
    )
}

/// Position of the next `ISA` that can start an interchange.
fn find_isa(hay: &[u8]) -> Option<usize> {
    memchr::memmem::find_iter(hay, b"ISA")
        .find(|&i| hay.get(i + 3).is_none_or(|b| !b.is_ascii_alphanumeric()))
}

/// A short description of non-X12 data, for messages.
fn describe(rest: &[u8]) -> String {
    let head = &rest[..rest.len().min(DESCRIBE_LEN)];
    if head.starts_with(b"\xFF\xFE")
        || head.starts_with(b"\xFE\xFF")
        || (head.len() >= 4
            && (head[1] == 0 || head[0] == 0)
            && head.iter().filter(|&&b| b == 0).count() * 3 >= head.len())
    {
        return "it looks like UTF-16 text; save it as ASCII or UTF-8".to_string();
    }
    match head.first() {
        Some(b'{') | Some(b'[') => return "it looks like JSON".to_string(),
        Some(b'<') => return "it looks like XML or HTML".to_string(),
        _ => {}
    }
    let binary = head
        .iter()
        .filter(|&&b| b < 0x20 && !is_ws(b) || b == 0x7F)
        .count();
    if binary * 4 > head.len() || std::str::from_utf8(head).is_err() && binary > 0 {
        return "it looks like binary data".to_string();
    }
    for id in ["GS", "ST"] {
        if head.starts_with(id.as_bytes())
            && head.get(2).is_some_and(|b| !b.is_ascii_alphanumeric())
        {
            return format!(
                "it starts with a {id} segment, so the ISA interchange header is missing"
            );
        }
    }
    let line = head
        .split(|&b| b == b'\n' || b == b'\r')
        .next()
        .unwrap_or(head);
    format!("it starts with \"{}\"", preview(line, 40))
}

/// Up to `max` bytes of `b`, lossily decoded, control characters escaped.
#[doc(hidden)]
pub fn preview(b: &[u8], max: usize) -> String {
    let cut = &b[..b.len().min(max)];
    let mut s: String = String::from_utf8_lossy(cut)
        .chars()
        .map(|c| if c.is_control() { '·' } else { c })
        .collect();
    if b.len() > max {
        s.push('…');
    }
    s
}

/// Iterator over the tokens of a whole input held in memory.
#[derive(Debug, Clone)]
pub struct Tokenizer<'a> {
    input: &'a [u8],
    pos: usize,
    lexer: Lexer,
}

impl<'a> Tokenizer<'a> {
    /// A tokenizer with a given lexer (the tests compare its paths).
    #[cfg(test)]
    pub(crate) fn with_lexer(input: &'a [u8], lexer: Lexer) -> Self {
        Tokenizer {
            input,
            pos: 0,
            lexer,
        }
    }

    /// A tokenizer over the whole input.
    pub fn new(input: &'a [u8]) -> Self {
        Tokenizer {
            input,
            pos: 0,
            lexer: Lexer::default(),
        }
    }
}

impl<'a> Iterator for Tokenizer<'a> {
    type Item = Token<'a>;

    #[inline]
    fn next(&mut self) -> Option<Token<'a>> {
        match self.lexer.step(self.input, &mut self.pos, 0, true) {
            Step::Segment(raw) => Some(Token::Segment(raw.view(self.input))),
            Step::Diagnostic(d) => Some(Token::Diagnostic(d)),
            Step::NeedMore | Step::End => None,
        }
    }
}

impl Tokenizer<'_> {
    /// Takes the run of plain body segments ahead, the ones the envelope
    /// machine hands to [`Handler::segment`](crate::envelope::Handler::segment)
    /// inside an open transaction set: for each, calls `f(start, end)` (its
    /// bytes, terminator excluded) and advances past it, as
    /// [`Iterator::next`] would have. Stops, consuming nothing more, before
    /// any segment [`Lexer::common`] leaves to the general path and before a
    /// `GS`, `GE`, `ST` or `SE` (ISA and IEA are never common), so the
    /// caller gets everything else as tokens. Returns how many it took.
    /// `parse` uses it while a set is open: a body segment then costs the
    /// fast path and one push, with no token built or matched.
    #[inline(always)]
    pub(crate) fn body_run(&mut self, mut f: impl FnMut(usize, usize)) -> usize {
        self.lexer
            .skip_body(self.input, &mut self.pos, 0, |raw| f(raw.start, raw.end))
    }
}

/// Iterator over the segments of a whole input, diagnostics dropped.
pub fn segments(input: &[u8]) -> impl Iterator<Item = Segment<'_>> {
    Tokenizer::new(input).filter_map(|t| match t {
        Token::Segment(s) => Some(s),
        Token::Diagnostic(_) => None,
    })
}

/// The separator byte of an ISA whose element separator is a letter or
/// digit (`ISAA00A...`): the byte after `ISA`, when it occurs at least 16
/// times in the first 106 bytes, as the separators of an ISA do.
fn letter_separator(rest: &[u8]) -> Option<u8> {
    let sep = *rest.get(3)?;
    (rest.starts_with(b"ISA")
        && sep.is_ascii_alphanumeric()
        && rest[..rest.len().min(106)]
            .iter()
            .filter(|&&b| b == sep)
            .count()
            >= 16)
        .then_some(sep)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &[u8] = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000001*0*T*:~\nGS*PO*S*R*20230101*1200*1*X*005010~\nST*850*0001~\nBEG*00*SA*PO1**20230101~\nSE*3*0001~\nGE*1*1~\nIEA*1*000000001~\n";

    fn tokens(input: &[u8]) -> Vec<Token<'_>> {
        Tokenizer::new(input).collect()
    }

    fn codes(input: &[u8]) -> Vec<Code> {
        tokens(input)
            .into_iter()
            .filter_map(|t| match t {
                Token::Diagnostic(d) => Some(d.code),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn splits_segments_with_offsets_indexes_and_suffixes() {
        let segs: Vec<_> = segments(SAMPLE).collect();
        let ids: Vec<&[u8]> = segs.iter().map(|s| s.id()).collect();
        assert_eq!(
            ids,
            [&b"ISA"[..], b"GS", b"ST", b"BEG", b"SE", b"GE", b"IEA"]
        );
        assert!(segs.iter().all(|s| s.suffix() == b"\n"));
        assert_eq!(segs[1].offset(), 107);
        assert_eq!(segs[3].index(), 3);
        assert_eq!(segs[3].raw(), b"BEG*00*SA*PO1**20230101");
        assert!(codes(SAMPLE).is_empty());
    }

    #[test]
    fn bom_crlf_and_lf_terminators() {
        let mut input = BOM.to_vec();
        input.extend_from_slice(
            &SAMPLE
                .iter()
                .flat_map(|&b| {
                    if b == b'\n' {
                        vec![b'\r', b'\n']
                    } else {
                        vec![b]
                    }
                })
                .collect::<Vec<_>>(),
        );
        assert_eq!(codes(&input), [Code::Bom]);
        assert!(segments(&input).all(|s| s.suffix() == b"\r\n"));

        // LF as the terminator: blank lines are not empty segments.
        let lf: Vec<u8> = SAMPLE.iter().copied().filter(|&b| b != b'~').collect();
        let mut lf = lf.clone();
        lf.insert(lf.len() - 1, b'\n');
        let segs: Vec<_> = segments(&lf).collect();
        assert_eq!(segs.len(), 7);
        assert_eq!(segs[0].delimiters().segment, b'\n');
        assert!(codes(&lf).is_empty());
    }

    #[test]
    fn not_x12_inputs_are_diagnosed() {
        for input in [
            &b""[..],
            b"   \n",
            b"{\"a\":1}",
            b"\xFF\xFEI\0S\0A\0",
            b"\x00\x01\x02\x03\x04binary",
            b"GS*PO*A*B~",
            b"hello world",
        ] {
            let c = codes(input);
            assert_eq!(c, [Code::NotX12], "{input:?}");
        }
    }

    #[test]
    fn leading_text_is_not_x12_but_the_interchange_is_still_read() {
        let mut input = b"Some notes about the file.\n\n".to_vec();
        input.extend_from_slice(SAMPLE);
        assert_eq!(codes(&input), [Code::NotX12]);
        assert_eq!(segments(&input).count(), 7);
    }

    #[test]
    fn trailing_data_after_iea() {
        let mut input = SAMPLE.to_vec();
        input.extend_from_slice(b"garbage here\n");
        assert_eq!(codes(&input), [Code::TrailingData]);
        input.extend_from_slice(SAMPLE);
        assert_eq!(codes(&input), [Code::TrailingData]);
        assert_eq!(segments(&input).count(), 14);
    }

    #[test]
    fn bad_segment_id_and_missing_terminator() {
        let mut input = SAMPLE[..SAMPLE.len() - 2].to_vec();
        input.splice(107..107, b"gs*x~".iter().copied());
        let c = codes(&input);
        assert_eq!(c, [Code::SegmentId, Code::TerminatorMissing]);
        let last = segments(&input).last().unwrap();
        assert!(!last.terminated());
        assert_eq!(last.raw(), b"IEA*1*000000001");
    }

    #[test]
    fn several_interchanges_with_their_own_delimiters() {
        let mut second = SAMPLE.to_vec();
        for b in second.iter_mut() {
            *b = match *b {
                b'*' => b'|',
                b'~' => 0x15,
                b':' => b'>',
                o => o,
            };
        }
        let mut input = SAMPLE.to_vec();
        input.extend_from_slice(&second);
        let segs: Vec<_> = segments(&input).collect();
        assert_eq!(segs.len(), 14);
        assert_eq!(segs[11].id(), b"SE");
        assert_eq!(segs[11].delimiters().element, b'|');
        assert!(codes(&input).is_empty());
    }

    #[test]
    fn invalid_isa_skips_to_next_interchange() {
        let mut input = b"ISA*00*short~".to_vec();
        input.extend_from_slice(SAMPLE);
        let c = codes(&input);
        assert!(matches!(c[0], Code::IsaLayout | Code::Delimiters), "{c:?}");
        assert_eq!(segments(&input).count(), 7);
    }
}
