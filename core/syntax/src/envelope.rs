//! The envelope: interchanges (ISA…IEA) hold functional groups (GS…GE),
//! which hold transaction sets (ST…SE).
//!
//! [`Envelope`] is a state machine fed one token at a time; it reports
//! structure to a [`Handler`] and structural problems as diagnostics
//! (`IEA_MISSING`, `GE_MISSING`, `SE_MISSING`, `ST_OUTSIDE_GROUP`,
//! `UNEXPECTED_SEGMENT`). It stores no segments itself, so it runs over
//! inputs of any size through [`crate::stream`]. [`Document`] is the handler
//! that builds the borrowed tree of a whole input: [`parse`].

use crate::diagnostics::{Code, Diagnostic};
use crate::lexer::{Token, Tokenizer, preview, segment_at};
use crate::segment::Segment;
use crate::utf8::Utf8Check;
use std::ops::Range;

/// Receives the structure found by [`Envelope`]. Every method has an empty default.
#[allow(unused_variables)]
pub trait Handler<'a> {
    /// An ISA opens an interchange.
    fn interchange_start(&mut self, isa: Segment<'a>) {}
    /// A segment directly inside an interchange (TA1, ISB, ISE, or a misplaced one).
    fn interchange_segment(&mut self, seg: Segment<'a>) {}
    /// A GS opens a group; `None` for the implicit group of an ST outside any GS.
    fn group_start(&mut self, gs: Option<Segment<'a>>) {}
    /// A misplaced segment inside a group but outside any transaction set.
    fn group_segment(&mut self, seg: Segment<'a>) {}
    /// An ST opens a transaction set.
    fn transaction_start(&mut self, st: Segment<'a>) {}
    /// A segment of a transaction set's body (between ST and SE).
    fn segment(&mut self, seg: Segment<'a>) {}
    /// A transaction set ends, with its SE or without one.
    fn transaction_end(&mut self, se: Option<Segment<'a>>) {}
    /// A group ends, with its GE or without one.
    fn group_end(&mut self, ge: Option<Segment<'a>>) {}
    /// An interchange ends, with its IEA or without one.
    fn interchange_end(&mut self, iea: Option<Segment<'a>>) {}
    /// A diagnostic from the tokenizer or the envelope.
    fn diagnostic(&mut self, d: Diagnostic) {}
}

/// A short copy of an identifying value (control number, set type), for messages.
#[derive(Debug, Clone, Copy, Default)]
struct Tag {
    bytes: [u8; 15],
    len: u8,
}

impl Tag {
    fn new(b: &[u8]) -> Self {
        let mut t = Tag::default();
        let n = b.len().min(15);
        t.bytes[..n].copy_from_slice(&b[..n]);
        t.len = n as u8;
        t
    }

    fn show(&self) -> String {
        String::from_utf8_lossy(&self.bytes[..self.len as usize]).into_owned()
    }
}

/// Where an open envelope level started.
#[derive(Debug, Clone, Copy, Default)]
struct Open {
    index: usize,
    control: Tag,
    kind: Tag,
    implicit: bool,
    /// A child level (group of an interchange, set of a group) has been seen.
    filled: bool,
}

impl Open {
    fn of(seg: &Segment<'_>, control: usize, kind: usize) -> Self {
        let (control, kind) = if kind == 0 {
            (seg.value(control), &[][..])
        } else {
            seg.values2(control, kind)
        };
        Open {
            index: seg.index(),
            control: Tag::new(control),
            kind: Tag::new(kind),
            implicit: false,
            filled: false,
        }
    }

    /// `functional group 1 (PO)` or `interchange 000000001`, for messages.
    fn describe(&self, level: &str) -> String {
        if self.kind.len == 0 {
            format!("{level} {}", self.control.show())
        } else {
            format!("{level} {} ({})", self.control.show(), self.kind.show())
        }
    }
}

/// Why an open level is being closed without its trailer.
enum Cause<'s, 'a> {
    Segment(&'s Segment<'a>),
    End(usize),
}

impl Cause<'_, '_> {
    fn text(&self) -> String {
        match self {
            Cause::Segment(s) => format!(
                "before the {} at segment {}",
                String::from_utf8_lossy(s.id()),
                s.index()
            ),
            Cause::End(_) => "before the input ends".to_string(),
        }
    }

    fn place(&self, d: Diagnostic) -> Diagnostic {
        match self {
            Cause::Segment(s) => d.at_segment(s),
            Cause::End(o) => d.at_offset(*o),
        }
    }
}

/// The envelope state machine.
#[derive(Debug, Clone, Default)]
pub struct Envelope {
    interchange: Option<Open>,
    group: Option<Open>,
    transaction: Option<Open>,
}

impl Envelope {
    /// A machine outside any interchange.
    pub fn new() -> Self {
        Self::default()
    }

    /// True while a transaction set is open: every segment but ISA, IEA,
    /// GS, GE, ST and SE then goes to [`Handler::segment`] (and nowhere
    /// else), which is when [`StreamTokenizer::skip_body`](crate::stream::StreamTokenizer::skip_body)
    /// may count them instead.
    #[inline]
    pub fn in_transaction(&self) -> bool {
        self.transaction.is_some()
    }

    /// Feeds one token.
    #[inline]
    pub fn push<'a, H: Handler<'a>>(&mut self, token: Token<'a>, h: &mut H) {
        match token {
            Token::Diagnostic(d) => h.diagnostic(d),
            Token::Segment(seg) => self.segment(seg, h),
        }
    }

    /// Closes whatever is still open at the end of the input (`offset` = input length).
    pub fn finish<'a, H: Handler<'a>>(&mut self, offset: usize, h: &mut H) {
        self.close_interchange(&Cause::End(offset), h);
    }

    fn segment<'a, H: Handler<'a>>(&mut self, seg: Segment<'a>, h: &mut H) {
        match seg.id() {
            b"ISA" => {
                self.close_interchange(&Cause::Segment(&seg), h);
                self.interchange = Some(Open {
                    index: seg.index(),
                    control: Tag::new(&isa_value(&seg, 13)),
                    ..Open::default()
                });
                h.interchange_start(seg);
            }
            b"IEA" if self.interchange.is_some() => {
                self.close_group(&Cause::Segment(&seg), h);
                self.interchange = None;
                h.interchange_end(Some(seg));
            }
            b"GS" if self.interchange.is_some() => {
                self.close_group(&Cause::Segment(&seg), h);
                if let Some(i) = self.interchange.as_mut() {
                    i.filled = true;
                }
                self.group = Some(Open::of(&seg, 6, 1));
                h.group_start(Some(seg));
            }
            b"GE" if self.group.is_some_and(|g| !g.implicit) => {
                self.close_transaction(&Cause::Segment(&seg), h);
                self.group = None;
                h.group_end(Some(seg));
            }
            b"ST" if self.interchange.is_some() => {
                self.close_transaction(&Cause::Segment(&seg), h);
                if self.group.is_none() {
                    h.diagnostic(
                        Diagnostic::error(
                            Code::StOutsideGroup,
                            format!(
                                "transaction set {} ({}) is not inside a functional group: a GS segment must come before its ST",
                                String::from_utf8_lossy(seg.value(2)),
                                String::from_utf8_lossy(seg.value(1))
                            ),
                        )
                        .at_segment(&seg),
                    );
                    self.group = Some(Open {
                        implicit: true,
                        ..Open::default()
                    });
                    if let Some(i) = self.interchange.as_mut() {
                        i.filled = true;
                    }
                    h.group_start(None);
                }
                if let Some(g) = self.group.as_mut() {
                    g.filled = true;
                }
                self.transaction = Some(Open::of(&seg, 2, 1));
                h.transaction_start(seg);
            }
            b"SE" if self.transaction.is_some() => {
                self.transaction = None;
                h.transaction_end(Some(seg));
            }
            _ if self.transaction.is_some() => h.segment(seg),
            id => {
                if let Some(why) = self.misplaced(id) {
                    h.diagnostic(
                        Diagnostic::error(
                            Code::UnexpectedSegment,
                            format!("unexpected {} segment {why}", preview(id, 10)),
                        )
                        .at_segment(&seg),
                    );
                }
                if self.group.is_some() {
                    h.group_segment(seg);
                } else {
                    h.interchange_segment(seg);
                }
            }
        }
    }

    /// Why segment `id`, outside any transaction set, is misplaced (`None`
    /// for a service segment directly inside an interchange). The text says
    /// where the segment is: what precedes it and what may come there.
    fn misplaced(&self, id: &[u8]) -> Option<String> {
        let service = matches!(id, b"TA1" | b"ISB" | b"ISE" | b"ISX");
        let (Some(i), group) = (self.interchange, self.group) else {
            return Some("outside any interchange (after its IEA or before an ISA)".to_string());
        };
        Some(match (id, group) {
            (_, None) if service => return None,
            (b"GE", _) => "without a matching GS: there is no functional group open".to_string(),
            (b"SE", _) => "without a matching ST: there is no transaction set open".to_string(),
            (_, Some(g)) if g.implicit => {
                "between transaction sets that are outside any functional group: only ST, GS or IEA may follow an SE here".to_string()
            }
            (_, Some(g)) if g.filled => format!(
                "between the transaction sets of {}: only ST or GE may follow an SE",
                g.describe("functional group")
            ),
            (_, Some(g)) => format!(
                "in {} before its first transaction set: only ST or GE may follow a GS",
                g.describe("functional group")
            ),
            (_, None) if i.filled => format!(
                "between the functional groups of {}: only GS, IEA, TA1, ISB or ISE may follow a GE",
                i.describe("interchange")
            ),
            (_, None) => format!(
                "in {} before its first functional group: only GS, IEA, TA1, ISB or ISE may follow the ISA",
                i.describe("interchange")
            ),
        })
    }

    fn close_transaction<'a, H: Handler<'a>>(&mut self, cause: &Cause<'_, 'a>, h: &mut H) {
        if let Some(t) = self.transaction.take() {
            h.diagnostic(cause.place(Diagnostic::error(
                Code::SeMissing,
                format!(
                    "transaction set {} ({}) that starts at segment {} has no SE trailer {}",
                    t.control.show(),
                    t.kind.show(),
                    t.index,
                    cause.text()
                ),
            )));
            h.transaction_end(None);
        }
    }

    fn close_group<'a, H: Handler<'a>>(&mut self, cause: &Cause<'_, 'a>, h: &mut H) {
        self.close_transaction(cause, h);
        if let Some(g) = self.group.take() {
            if !g.implicit {
                h.diagnostic(cause.place(Diagnostic::error(
                    Code::GeMissing,
                    format!(
                        "functional group {} ({}) that starts at segment {} has no GE trailer {}",
                        g.control.show(),
                        g.kind.show(),
                        g.index,
                        cause.text()
                    ),
                )));
            }
            h.group_end(None);
        }
    }

    fn close_interchange<'a, H: Handler<'a>>(&mut self, cause: &Cause<'_, 'a>, h: &mut H) {
        self.close_group(cause, h);
        if let Some(i) = self.interchange.take() {
            h.diagnostic(cause.place(Diagnostic::error(
                Code::IeaMissing,
                format!(
                    "interchange {} that starts at segment {} has no IEA trailer {}",
                    i.control.show(),
                    i.index,
                    cause.text()
                ),
            )));
            h.interchange_end(None);
        }
    }
}

/// The value of element `n` (1-based) of an ISA segment, without the line
/// breaks of a hard-wrapped ISA.
///
/// The segment of a wrapped ISA (an `ISA_LAYOUT` warning: line breaks
/// inside its 106 bytes, as some mainframes send) keeps its bytes, so that
/// writing a parse result back gives the input; its values are what remains
/// without the line breaks. For any other segment this is [`Segment::value`].
pub fn isa_value<'a>(isa: &Segment<'a>, n: usize) -> std::borrow::Cow<'a, [u8]> {
    use crate::delimiters::{ISA_LEN, ISA_SEPARATORS, fixed_separators};
    let raw = isa.raw();
    let d = isa.delimiters();
    // The usual fixed-width ISA: its values are at their fixed places
    // (and it is not wrapped), read without splitting it.
    if (1..=ISA_SEPARATORS.len()).contains(&n)
        && raw.len() == ISA_LEN - 1
        && fixed_separators(raw, d.element)
    {
        let end = ISA_SEPARATORS.get(n).map_or(raw.len(), |&e| e);
        return raw[ISA_SEPARATORS[n - 1] + 1..end].into();
    }
    let v = isa.value(n);
    // A line break that is the element or component separator is data.
    let wrapping = |b: u8| (b == b'\n' || b == b'\r') && b != d.element && b != d.component;
    // The value is short: looked at before the whole segment.
    if v.iter().any(|&b| wrapping(b)) && is_wrapped_isa(isa) {
        v.iter()
            .copied()
            .filter(|&b| !wrapping(b))
            .collect::<Vec<u8>>()
            .into()
    } else {
        v.into()
    }
}

/// True for the segment of a hard-wrapped ISA: longer than the fixed 105
/// bytes (terminator excluded) and holding line breaks (the tokenizer reads
/// no other ISA with line breaks inside its values).
fn is_wrapped_isa(isa: &Segment<'_>) -> bool {
    isa.raw().len() > crate::delimiters::ISA_LEN - 1
        && isa.id() == b"ISA"
        && isa.raw().iter().any(|&b| b == b'\n' || b == b'\r')
}

/// A parsed input: the envelope tree, borrowing the input, plus diagnostics.
#[derive(Debug, Clone, Default)]
pub struct Document<'a> {
    /// The interchanges, in input order.
    pub interchanges: Vec<Interchange<'a>>,
    /// Every diagnostic, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// Bytes before the first ISA when they are only a BOM and whitespace.
    pub prefix: &'a [u8],
    /// True when the last segment of the input has no segment terminator
    /// (`TERMINATOR_MISSING`); the JSON says so, and `write` leaves it off too.
    pub unterminated: bool,
    pub(crate) input: &'a [u8],
    /// Offset in the whole input of `input[0]`: 0, except for a set read
    /// from a stream ([`crate::feed`]), whose bytes are a window of it.
    pub(crate) base: usize,
    /// Body segments of every transaction set, as compact byte ranges (offsets in the whole input): a
    /// segment view is rebuilt on demand, which keeps the tree small.
    pub(crate) body: Vec<Span>,
    /// Emptied group and set lists of interchanges already handed over
    /// ([`parse_each`]), reused by the next ones instead of allocated again.
    pub(crate) spare: Spare<'a>,
    /// The cap on one set (see [`SetCap`]) and the state of the open set.
    pub(crate) cap: Capping<'a>,
}

/// The cap on the size of one transaction set: the bytes from the start of
/// its ST to the end of the last segment before its SE. A set that grows
/// past it is a `SET_TOO_LARGE` error at its ST; its body is not kept (the
/// set is in the result with its ST and SE and no segments, and no mapped
/// `document`), and the parse goes on after its SE (or the envelope
/// segment that ends it) with the sets that follow.
///
/// The default, [`MAX_SET_BYTES`], bounds what one set costs while it is
/// held: its segment list (16 bytes a segment) and its mapped document
/// take about 16 times its size (near 1 GiB at the default), about twice
/// without the document; a 64 MiB set is larger than the single sets met
/// in practice (an 834 full file, a large payer's 835).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(transparent)]
pub struct SetCap(pub u64);

/// The default cap on one set: 64 MiB (see [`SetCap`]).
pub const MAX_SET_BYTES: u64 = 64 << 20;

impl Default for SetCap {
    fn default() -> Self {
        SetCap(MAX_SET_BYTES)
    }
}

impl SetCap {
    /// No cap (0 in the options).
    pub const NONE: SetCap = SetCap(0);

    /// The cap given in options: `0` for none.
    pub fn bytes(n: u64) -> Self {
        SetCap(n)
    }

    /// The offset past which the body of a set whose ST starts at `st` is over the cap.
    pub(crate) fn limit(self, st: usize) -> usize {
        match self.0 {
            0 => usize::MAX,
            n => st.saturating_add(usize::try_from(n).unwrap_or(usize::MAX)),
        }
    }
}

/// [`Document`]'s state of the cap on one set.
#[derive(Debug, Clone)]
pub(crate) struct Capping<'a> {
    /// The cap (`None`: no cap, as a document built by hand has).
    cap: Option<SetCap>,
    /// The offset past which the open set's body segments are over the cap.
    limit: usize,
    /// Index in `body` of the open set's first body segment.
    from: usize,
    /// The open set's ST.
    st: Option<Segment<'a>>,
    /// The open set went over the cap: its body is no longer kept.
    over: bool,
}

impl Default for Capping<'_> {
    fn default() -> Self {
        Capping {
            cap: None,
            limit: usize::MAX,
            from: 0,
            st: None,
            over: false,
        }
    }
}

/// See [`Document`]'s `spare`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Spare<'a> {
    groups: Vec<Vec<Group<'a>>>,
    transactions: Vec<Vec<Transaction<'a>>>,
}

/// How many emptied lists of each kind [`Spare`] keeps.
const SPARE_KEPT: usize = 8;

impl<'a> Document<'a> {
    /// A document of `input` whose sets are capped at `cap`.
    pub(crate) fn capped(input: &'a [u8], cap: SetCap) -> Self {
        Document {
            input,
            cap: Capping {
                cap: Some(cap),
                ..Capping::default()
            },
            ..Document::default()
        }
    }

    /// A set opens with `st`; its body starts at `body.len()`.
    #[inline]
    pub(crate) fn open_set(&mut self, st: &Segment<'a>) {
        let c = &mut self.cap;
        c.limit = c.cap.map_or(usize::MAX, |cap| cap.limit(st.offset()));
        c.from = self.body.len();
        c.over = false;
        c.st = Some(*st);
    }

    /// The open set's body starts at `body[from]` (its earlier part was moved).
    pub(crate) fn rebase_set(&mut self, from: usize) {
        self.cap.from = from;
    }

    /// The open set closes: whether it went over the cap.
    #[inline]
    pub(crate) fn close_set(&mut self) -> bool {
        self.cap.limit = usize::MAX;
        std::mem::take(&mut self.cap.over)
    }

    /// Adds a body segment of the open set (`input[start..end]`), unless
    /// the set is over the cap.
    #[inline(always)]
    pub(crate) fn push_body(&mut self, start: usize, end: usize) {
        if end <= self.cap.limit {
            self.body.push(Span { start, end });
        } else {
            self.over_cap();
        }
    }

    /// The open set went past the cap: drops its body, once, with the diagnostic.
    #[cold]
    fn over_cap(&mut self) {
        let c = &mut self.cap;
        if c.over {
            return;
        }
        c.over = true;
        self.body.truncate(c.from);
        let (Some(st), Some(cap)) = (&c.st, c.cap) else {
            return;
        };
        self.diagnostics.push(set_too_large(st, cap));
    }

    /// Drops the interchanges, keeping their (emptied) group and set lists
    /// for the next ones.
    pub(crate) fn recycle_interchanges(&mut self) {
        for mut i in self.interchanges.drain(..) {
            for g in i.groups.drain(..) {
                let mut t = g.transactions;
                if self.spare.transactions.len() < SPARE_KEPT && t.capacity() > 0 {
                    t.clear();
                    self.spare.transactions.push(t);
                }
            }
            if self.spare.groups.len() < SPARE_KEPT && i.groups.capacity() > 0 {
                self.spare.groups.push(i.groups);
            }
        }
    }
}

/// The `SET_TOO_LARGE` error of the set that `st` opens, over `cap`.
pub(crate) fn set_too_large(st: &Segment<'_>, cap: SetCap) -> Diagnostic {
    Diagnostic::error(
        Code::SetTooLarge,
        format!(
            "transaction set {} ({}) that starts at segment {} is larger than the cap of {} bytes on one set (maxSetBytes): its segments are skipped up to its SE, not kept or mapped",
            preview(st.value(2), 15),
            preview(st.value(1), 15),
            st.index(),
            cap.0
        ),
    )
    .at_segment(st)
}

/// Byte range of a body segment in the input (terminator excluded).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// Iterator over the body segments of a transaction set.
#[derive(Debug, Clone)]
pub struct Body<'d, 'a> {
    input: &'a [u8],
    base: usize,
    spans: std::slice::Iter<'d, Span>,
    index: usize,
    delimiters: crate::delimiters::Delimiters,
}

impl<'a> Iterator for Body<'_, 'a> {
    type Item = Segment<'a>;

    // Always: the JSON writer's per-set loop runs it for every body segment.
    #[inline(always)]
    fn next(&mut self) -> Option<Segment<'a>> {
        let s = self.spans.next()?;
        let b = self.base;
        let seg = segment_at(
            self.input,
            s.start - b,
            s.end - b,
            self.index,
            self.delimiters,
        );
        self.index += 1;
        Some(if b == 0 { seg } else { seg.rebased(b) })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.spans.size_hint()
    }
}

impl ExactSizeIterator for Body<'_, '_> {}

/// One ISA…IEA interchange.
#[derive(Debug, Clone)]
pub struct Interchange<'a> {
    /// The ISA segment.
    pub isa: Segment<'a>,
    /// Segments directly inside the interchange (TA1, ISB, ISE, misplaced ones).
    pub segments: Vec<Segment<'a>>,
    /// The functional groups.
    pub groups: Vec<Group<'a>>,
    /// The IEA segment, when present.
    pub iea: Option<Segment<'a>>,
}

impl<'a> Interchange<'a> {
    /// A copy of the interchange's envelope without its transaction sets:
    /// the ISA, IEA and loose segments, and each group's GS, GE and loose
    /// segments (what the set-by-set paths hand over before the sets).
    pub fn envelope_only(&self) -> Interchange<'a> {
        Interchange {
            isa: self.isa,
            segments: self.segments.clone(),
            groups: self
                .groups
                .iter()
                .map(|g| Group {
                    gs: g.gs,
                    segments: g.segments.clone(),
                    transactions: Vec::new(),
                    ge: g.ge,
                })
                .collect(),
            iea: self.iea,
        }
    }
}

/// One GS…GE functional group.
#[derive(Debug, Clone)]
pub struct Group<'a> {
    /// The GS segment; `None` for the implicit group of sets found outside any GS.
    pub gs: Option<Segment<'a>>,
    /// Misplaced segments inside the group but outside any set.
    pub segments: Vec<Segment<'a>>,
    /// The transaction sets.
    pub transactions: Vec<Transaction<'a>>,
    /// The GE segment, when present.
    pub ge: Option<Segment<'a>>,
}

/// One ST…SE transaction set.
#[derive(Debug, Clone)]
pub struct Transaction<'a> {
    /// The ST segment.
    pub st: Segment<'a>,
    /// The SE segment, when present.
    pub se: Option<Segment<'a>>,
    pub(crate) body: Range<usize>,
    /// ST01, found once (every writer and the mapper ask for it).
    pub(crate) kind: &'a [u8],
    /// The set went over the cap on one set ([`SetCap`]): its body was not kept.
    pub(crate) over: bool,
}

impl<'a> Transaction<'a> {
    /// The transaction set identifier (ST01), e.g. `850`.
    pub fn kind(&self) -> &'a [u8] {
        self.kind
    }

    /// The control number (ST02).
    pub fn control_number(&self) -> &'a [u8] {
        self.st.value(2)
    }

    /// True when the set went over the cap on one set ([`SetCap`],
    /// `SET_TOO_LARGE`): its body was skipped, not kept, so it has no
    /// segments and no mapped document.
    pub fn is_over_cap(&self) -> bool {
        self.over
    }
}

impl<'a> Document<'a> {
    /// The body segments of a transaction set (between ST and SE), in order.
    pub fn body<'d>(&'d self, t: &Transaction<'a>) -> Body<'d, 'a> {
        Body {
            input: self.input,
            base: self.base,
            spans: self.body[t.body.clone()].iter(),
            index: t.st.index() + 1,
            delimiters: t.st.delimiters(),
        }
    }

    /// Moves the interchanges out (with what their sets' bodies need) into a
    /// document of their own, without diagnostics, leaving this one with
    /// none: how a [`parse_each`] caller keeps an interchange, for example
    /// to write it on another thread.
    pub fn take_interchanges(&mut self) -> Document<'a> {
        Document {
            interchanges: std::mem::take(&mut self.interchanges),
            diagnostics: Vec::new(),
            prefix: b"",
            unterminated: false,
            input: self.input,
            base: self.base,
            body: {
                let keep = Vec::with_capacity(self.body.len());
                std::mem::replace(&mut self.body, keep)
            },
            spare: Spare::default(),
            cap: Capping::default(),
        }
    }

    /// The input the document borrows.
    pub fn input(&self) -> &'a [u8] {
        self.input
    }

    /// The input's bytes from offset `from` to `to` (offsets in the whole
    /// input): `None` when they are not all held (a set read from a stream
    /// holds its own bytes, from its ST through what closes it).
    pub fn span(&self, from: usize, to: usize) -> Option<&'a [u8]> {
        self.input
            .get(from.checked_sub(self.base)?..to.checked_sub(self.base)?)
    }

    /// True if any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Number of segments in the tree, envelope segments included.
    pub fn segment_count(&self) -> usize {
        self.interchanges
            .iter()
            .map(|i| {
                1 + i.segments.len()
                    + usize::from(i.iea.is_some())
                    + i.groups
                        .iter()
                        .map(|g| {
                            usize::from(g.gs.is_some())
                                + usize::from(g.ge.is_some())
                                + g.segments.len()
                                + g.transactions
                                    .iter()
                                    .map(|t| 1 + usize::from(t.se.is_some()) + t.body.len())
                                    .sum::<usize>()
                        })
                        .sum::<usize>()
            })
            .sum()
    }
}

impl<'a> Handler<'a> for Document<'a> {
    fn interchange_start(&mut self, isa: Segment<'a>) {
        let groups = self.spare.groups.pop().unwrap_or_default();
        self.interchanges.push(Interchange {
            isa,
            segments: Vec::new(),
            groups,
            iea: None,
        });
    }

    fn interchange_segment(&mut self, seg: Segment<'a>) {
        if let Some(i) = self.interchanges.last_mut() {
            i.segments.push(seg);
        }
    }

    fn group_start(&mut self, gs: Option<Segment<'a>>) {
        if let Some(i) = self.interchanges.last_mut() {
            let transactions = self.spare.transactions.pop().unwrap_or_default();
            i.groups.push(Group {
                gs,
                segments: Vec::new(),
                transactions,
                ge: None,
            });
        }
    }

    fn group_segment(&mut self, seg: Segment<'a>) {
        if let Some(g) = self
            .interchanges
            .last_mut()
            .and_then(|i| i.groups.last_mut())
        {
            g.segments.push(seg);
        }
    }

    fn transaction_start(&mut self, st: Segment<'a>) {
        let at = self.body.len();
        self.open_set(&st);
        if let Some(g) = self
            .interchanges
            .last_mut()
            .and_then(|i| i.groups.last_mut())
        {
            g.transactions.push(Transaction {
                kind: st.value(1),
                st,
                se: None,
                body: at..at,
                over: false,
            });
        }
    }

    #[inline]
    fn segment(&mut self, seg: Segment<'a>) {
        self.push_body(seg.offset(), seg.offset() + seg.raw().len());
    }

    fn transaction_end(&mut self, se: Option<Segment<'a>>) {
        let end = self.body.len();
        let over = self.close_set();
        if let Some(t) = self
            .interchanges
            .last_mut()
            .and_then(|i| i.groups.last_mut())
            .and_then(|g| g.transactions.last_mut())
        {
            t.se = se;
            t.body.end = end;
            t.over = over;
        }
    }

    fn group_end(&mut self, ge: Option<Segment<'a>>) {
        if let Some(g) = self
            .interchanges
            .last_mut()
            .and_then(|i| i.groups.last_mut())
        {
            g.ge = ge;
        }
    }

    fn interchange_end(&mut self, iea: Option<Segment<'a>>) {
        if let Some(i) = self.interchanges.last_mut() {
            i.iea = iea;
        }
    }

    fn diagnostic(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }
}

/// Feeds the tokens of a whole input through the envelope machine to `h`,
/// whose [`Document`] (`doc(h)`) records `unterminated` and takes the body
/// segments: inside a set, plain body segments (all terminated) go straight
/// to its body in a batch ([`Tokenizer::body_run`]), as
/// [`Document::segment`] would put them, with no token built or matched.
#[inline(always)]
fn run<'a, H: Handler<'a>>(input: &'a [u8], h: &mut H, doc: impl Fn(&mut H) -> &mut Document<'a>) {
    let mut env = Envelope::new();
    let mut tokens = Tokenizer::new(input);
    loop {
        if env.in_transaction() {
            let d = doc(h);
            if tokens.body_run(|start, end| d.push_body(start, end)) > 0 {
                d.unterminated = false;
            }
        }
        let Some(token) = tokens.next() else { break };
        if let Token::Segment(seg) = &token {
            doc(h).unterminated = !seg.terminated();
        }
        env.push(token, h);
    }
    env.finish(input.len(), h);
}

/// Parses a whole input into its envelope tree, borrowing the input.
///
/// Never fails: problems are reported in [`Document::diagnostics`]. Sets
/// are capped at the default [`SetCap`] ([`MAX_SET_BYTES`]); see
/// [`parse_capped`].
pub fn parse(input: &[u8]) -> Document<'_> {
    parse_capped(input, SetCap::default())
}

/// [`parse`] with a cap on one set's size: a set larger than `cap` is a
/// `SET_TOO_LARGE` error and its body is not kept ([`SetCap`]).
pub fn parse_capped(input: &[u8], cap: SetCap) -> Document<'_> {
    let mut doc = Document {
        // Most segments are 20-60 bytes; reserving up front avoids
        // repeated growth of the largest allocation.
        body: Vec::with_capacity(input.len() / 32),
        ..Document::capped(input, cap)
    };
    run(input, &mut doc, |d| d);
    if let Some(first) = doc.interchanges.first() {
        let head = &input[..first.isa.offset()];
        let ws = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
        if ws.iter().all(|&b| crate::bytes::is_ws(b)) {
            doc.prefix = head;
        }
    }
    let mut utf8 = Utf8Check::default();
    utf8.feed(input);
    doc.diagnostics.extend(utf8.finish());
    doc
}

/// Parses a whole input like [`parse`], one interchange at a time, so that
/// what is held follows the largest interchange rather than the input.
///
/// `each` receives a [`Document`] holding one interchange (with the
/// segments after its IEA that [`parse`] attaches to it) as soon as the next
/// ISA or the end of the input closes it, with the offset before which the
/// input will not be read again. Its segment indexes and offsets are those
/// of the whole input; `each` may keep it with [`Document::take_interchanges`].
/// The document returned holds what [`parse`] gives
/// besides the interchanges: every diagnostic (in the same order),
/// `prefix` and `unterminated`. Sets are capped at `cap` ([`SetCap`]).
pub fn parse_each<'a>(
    input: &'a [u8],
    cap: SetCap,
    mut each: impl FnMut(&mut Document<'a>, usize),
) -> Document<'a> {
    struct Each<'a, F> {
        doc: Document<'a>,
        each: F,
        utf8: Utf8Check,
        /// The input before this offset went through `utf8`.
        checked: usize,
        first: bool,
    }
    impl<'a, F: FnMut(&mut Document<'a>, usize)> Each<'a, F> {
        /// Hands over the interchange held, if any: the input before `upto` is done.
        fn emit(&mut self, upto: usize) {
            let input = self.doc.input;
            self.utf8.feed(&input[self.checked..upto]);
            self.checked = upto;
            if !self.doc.interchanges.is_empty() {
                (self.each)(&mut self.doc, upto);
                self.doc.recycle_interchanges();
                self.doc.body.clear();
            }
        }
    }
    impl<'a, F: FnMut(&mut Document<'a>, usize)> Handler<'a> for Each<'a, F> {
        fn interchange_start(&mut self, isa: Segment<'a>) {
            if self.first {
                self.first = false;
                self.doc.prefix = prefix(self.doc.input, isa.offset());
            }
            self.emit(isa.offset());
            self.doc.interchange_start(isa);
        }
        fn interchange_segment(&mut self, seg: Segment<'a>) {
            self.doc.interchange_segment(seg);
        }
        fn group_start(&mut self, gs: Option<Segment<'a>>) {
            self.doc.group_start(gs);
        }
        fn group_segment(&mut self, seg: Segment<'a>) {
            self.doc.group_segment(seg);
        }
        fn transaction_start(&mut self, st: Segment<'a>) {
            self.doc.transaction_start(st);
        }
        #[inline]
        fn segment(&mut self, seg: Segment<'a>) {
            self.doc.segment(seg);
        }
        fn transaction_end(&mut self, se: Option<Segment<'a>>) {
            self.doc.transaction_end(se);
        }
        fn group_end(&mut self, ge: Option<Segment<'a>>) {
            self.doc.group_end(ge);
        }
        fn interchange_end(&mut self, iea: Option<Segment<'a>>) {
            self.doc.interchange_end(iea);
        }
        fn diagnostic(&mut self, d: Diagnostic) {
            self.doc.diagnostics.push(d);
        }
    }
    let mut h = Each {
        doc: Document::capped(input, cap),
        each: &mut each,
        utf8: Utf8Check::default(),
        checked: 0,
        first: true,
    };
    run(input, &mut h, |h| &mut h.doc);
    h.emit(input.len());
    let mut doc = h.doc;
    doc.diagnostics.extend(h.utf8.finish());
    doc
}

/// The bytes before the first ISA (at `isa`) when they are only a BOM and whitespace.
pub(crate) fn prefix(input: &[u8], isa: usize) -> &[u8] {
    let head = &input[..isa];
    let ws = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if ws.iter().all(|&b| crate::bytes::is_ws(b)) {
        head
    } else {
        b""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISA: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~";

    fn codes(input: &str) -> Vec<&'static str> {
        parse(input.as_bytes())
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect()
    }

    proptest::proptest! {
        /// `isa_value` reads a fixed-width ISA at its fixed places: the
        /// values `Segment::value` splits, for every element number, on
        /// ISAs with separators moved, added or removed.
        #[test]
        fn isa_values_at_fixed_places_are_the_split_values(
            edits in proptest::collection::vec((0usize..105, proptest::sample::select(&b"*xA\n"[..])), 0..3),
            cut in 100usize..110,
        ) {
            let mut raw = ISA.as_bytes()[..ISA.len() - 1].to_vec();
            raw.extend_from_slice(b"*EXTRA");
            for (i, b) in edits {
                raw[i] = b;
            }
            raw.truncate(cut);
            let seg = Segment::new(&raw, b"", 0, 0, crate::Delimiters::default(), true);
            for n in 0..20 {
                let v = isa_value(&seg, n);
                // No line break: the value as split; with one, the split
                // value less its line breaks (what a wrapped ISA gives).
                let mut want = seg.value(n).to_vec();
                if raw.len() > crate::delimiters::ISA_LEN - 1
                    && seg.id() == b"ISA"
                    && raw.contains(&b'\n')
                {
                    want.retain(|&b| b != b'\n');
                }
                proptest::prop_assert_eq!(&v[..], &want[..], "element {}", n);
            }
        }
    }

    #[test]
    fn a_letter_as_element_separator_is_a_delimiters_error() {
        let x12 = b"ISAA00A          A00A          AZZASENDER         AZZARECEIVER       A230101A1200AUA00401A000000001A0APA>~";
        let doc = parse(x12);
        assert_eq!(doc.diagnostics.len(), 1, "{:?}", doc.diagnostics);
        assert_eq!(doc.diagnostics[0].code, Code::Delimiters);
        assert!(
            doc.diagnostics[0].message.contains("'A'") || doc.diagnostics[0].message.contains("A")
        );
        // Ordinary text that merely starts with ISA is still NOT_X12.
        let doc = parse(b"ISABELLA went to the market with a list of things to buy for the week");
        assert_eq!(doc.diagnostics[0].code, Code::NotX12);
    }

    #[test]
    fn builds_the_tree() {
        let input = format!(
            "{ISA}GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*1**20230101~PO1*1*2*EA~SE*4*0001~ST*850*0002~BEG*00*SA*2**20230101~SE*3*0002~GE*2*1~IEA*1*000000001~"
        );
        let doc = parse(input.as_bytes());
        assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
        assert_eq!(doc.interchanges.len(), 1);
        let g = &doc.interchanges[0].groups[0];
        assert_eq!(g.transactions.len(), 2);
        assert_eq!(g.transactions[0].kind(), b"850");
        assert_eq!(g.transactions[1].control_number(), b"0002");
        let body: Vec<_> = doc.body(&g.transactions[0]).collect();
        let ids: Vec<&[u8]> = body.iter().map(|s| s.id()).collect();
        assert_eq!(ids, [&b"BEG"[..], b"PO1"]);
        assert_eq!(
            (body[1].index(), body[1].offset(), body[1].suffix()),
            (4, input.find("PO1").unwrap(), &b""[..])
        );
        assert_eq!(body[1].raw(), b"PO1*1*2*EA");
        assert_eq!(doc.segment_count(), 11);
    }

    #[test]
    fn missing_trailers() {
        assert_eq!(
            codes(&format!(
                "{ISA}GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~BEG*00~"
            )),
            ["SE_MISSING", "GE_MISSING", "IEA_MISSING"]
        );
        assert_eq!(
            codes(&format!(
                "{ISA}GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~BEG*00~GE*1*1~IEA*1*000000001~"
            )),
            ["SE_MISSING"]
        );
        assert_eq!(
            codes(&format!(
                "{ISA}GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~SE*2*0001~IEA*1*000000001~"
            )),
            ["GE_MISSING"]
        );
        let d = &parse(format!("{ISA}GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~ST*850*0002~SE*2*0002~GE*1*1~IEA*1*000000001~").as_bytes()).diagnostics[0];
        assert_eq!(d.code, Code::SeMissing);
        assert_eq!(d.segment_index, Some(3));
        assert!(d.message.contains("0001 (850)"), "{}", d.message);
    }

    #[test]
    fn st_outside_group_and_unexpected_segments() {
        assert_eq!(
            codes(&format!("{ISA}ST*850*0001~SE*2*0001~IEA*0*000000001~")),
            ["ST_OUTSIDE_GROUP"]
        );
        assert_eq!(
            codes(&format!(
                "{ISA}GS*PO*S*R*20230101*1200*1*X*004010~N1*ST~GE*0*1~IEA*1*000000001~"
            )),
            ["UNEXPECTED_SEGMENT"]
        );
        assert_eq!(
            codes(&format!("{ISA}GE*0*1~IEA*0*000000001~")),
            ["UNEXPECTED_SEGMENT"]
        );
        assert_eq!(
            codes(&format!(
                "{ISA}TA1*000000001*230101*1200*A*000~IEA*0*000000001~"
            )),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn prefix_keeps_bom_and_whitespace_and_utf8_is_checked() {
        let doc = parse(b"\xEF\xBB\xBF\n ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~IEA*0*000000001~N\xFF~");
        assert_eq!(doc.prefix, b"\xEF\xBB\xBF\n ");
        let c: Vec<_> = doc.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(c, [Code::Bom, Code::TrailingData, Code::InvalidUtf8]);
    }
}
