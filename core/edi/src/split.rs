//! Splitting an input into complete interchanges, a set or a group at a
//! time, and merging interchanges of one sender/receiver pair back into one.
//!
//! [`split_each`] reads the input a transaction set at a time
//! ([`parse_sets`]): a part is written as soon as it is complete, so
//! memory follows the largest part, not the input. Each part is a complete
//! interchange: the original ISA and GS (control numbers kept or
//! renumbered), the sets copied byte for byte (ST02/SE02 renumbered only
//! when asked; SE01 untouched), and a GE and IEA whose counts are those of
//! the part. Each part says where what it holds was in the input (segment
//! index and byte offset of each set).
//!
//! [`merge`] is the reverse for interchanges of one sender/receiver pair,
//! version and delimiters: groups with the same GS (functional id,
//! application sender and receiver, version and control number; with
//! `renumber.group`, regardless of control number) become one group, in
//! the order first seen, their sets in input order. Without renumbering,
//! merging the parts of a split gives back the input byte for byte.

use serde::{Deserialize, Serialize};
use x12kit_syntax::diagnostics::Diagnostic;
use x12kit_syntax::envelope::{Document, Group, SetCap, Transaction, isa_value};
use x12kit_syntax::error::{Error, ErrorCode, Problem};
use x12kit_syntax::feed::{FedSets, SetFeeder};
use x12kit_syntax::segment::Segment;
use x12kit_syntax::sets::{HOLD, Outline, SetHandler, parse_sets};

/// The largest control number; renumbering wraps around to 1 after it.
const MAX_CONTROL: u32 = 999_999_999;

/// What a part of a [`split`] holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Per {
    /// Up to `maxSets` sets (default 1) of one group.
    #[default]
    Set,
    /// One group (all its sets, unless `maxSets` or `maxBytes` cut it).
    Group,
}

/// First control numbers to renumber from; a level left out keeps the
/// original numbers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Renumber {
    /// ISA13/IEA02 of the first part (or of the merged interchange).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interchange: Option<u32>,
    /// GS06/GE02 of the first group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<u32>,
    /// ST02/SE02 of the first set (at least four digits, as X12 asks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set: Option<u32>,
}

impl Renumber {
    fn check(&self) -> Result<(), Error> {
        for (what, n) in [
            ("interchange", self.interchange),
            ("group", self.group),
            ("set", self.set),
        ] {
            if let Some(n) = n {
                if !(1..=MAX_CONTROL).contains(&n) {
                    return Err(Error::new(
                        ErrorCode::InvalidControlNumber,
                        format!("the first {what} control number must be 1–999999999, found {n}"),
                    )
                    .at(format!("/renumber/{what}")));
                }
            }
        }
        Ok(())
    }
}

/// Options of [`split`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct SplitOptions {
    /// `set` (default) or `group`.
    pub per: Per,
    /// At most this many sets a part (default: 1 per set, no limit per group).
    pub max_sets: Option<usize>,
    /// A part is closed before a set would take it past this many bytes
    /// (a set larger than that alone makes a part).
    pub max_bytes: Option<usize>,
    /// Control numbers to renumber from.
    pub renumber: Renumber,
    /// The cap on one set, in bytes (0: none; default
    /// [`MAX_SET_BYTES`](x12kit_syntax::envelope::MAX_SET_BYTES)): a larger
    /// set is a `SET_TOO_LARGE` error and is left out of the parts.
    pub max_set_bytes: SetCap,
}

/// Where a set of a part was in the input, and its numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PartSet {
    /// ST01.
    #[serde(rename = "type")]
    pub kind: String,
    /// ST02 in the part.
    pub control_number: String,
    /// ST02 in the input.
    pub original_control_number: String,
    /// Index of its ST among the input's segments (0-based).
    pub segment: usize,
    /// Byte offset of its ST in the input.
    pub offset: usize,
    /// Its bytes in the input, ST through SE (and the line break after it).
    pub length: usize,
}

/// One part of a [`split`]: a complete interchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// ISA13 of the part.
    pub interchange_control_number: String,
    /// ISA13 in the input.
    pub original_interchange_control_number: String,
    /// GS01 (`null` for sets outside any group).
    pub functional_id: Option<String>,
    /// GS06 of the part (`null` for sets outside any group).
    pub group_control_number: Option<String>,
    /// GS06 in the input.
    pub original_group_control_number: Option<String>,
    /// The sets, in input order.
    pub sets: Vec<PartSet>,
    /// How to make the part again from the input ([`rebuild_part`]), for a
    /// caller that keeps this instead of the part.
    pub recipe: PartRecipe,
    /// The part's X12 (as text; lossy where the input is not UTF-8: the
    /// bytes are [`Part::x12`]).
    #[serde(rename = "x12")]
    pub text: String,
    /// The part's X12 bytes.
    #[serde(skip)]
    pub x12: Vec<u8>,
}

/// What [`rebuild_part`] needs to make a part of a split again from the
/// input without the rest of it: the byte ranges of the input to read (its
/// ISA, its GS, the run of its sets from the first ST to the last SE, and
/// the input's GE or IEA that closed it, when one did), and the numbers it
/// was given. A few dozen bytes, whatever the part's size: a page can keep
/// one for every part of a file of any size and rebuild a part when it is
/// asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PartRecipe {
    /// `[start, end)` byte ranges of the input, in the order to read them.
    pub ranges: Vec<[usize; 2]>,
    /// Which of `ranges` is the run of sets.
    pub sets_range: usize,
    /// The number of sets of the part.
    pub sets: usize,
    /// The input's segment index of the part's first ST.
    pub segment: usize,
    /// The numbers of the part's interchange, group and first set, for the
    /// levels the split renumbered.
    #[serde(default)]
    pub renumber: Renumber,
    /// The split's cap on one set (a set over it is left out again).
    #[serde(default)]
    pub max_set_bytes: SetCap,
}

/// The parts of an input and the diagnostics of reading it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Split {
    /// The parts, in input order.
    pub parts: Vec<Part>,
    /// What reading the input found (as `parse` reports it).
    pub diagnostics: Vec<Diagnostic>,
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `seg` with elements replaced (`(n, value)`, n 1-based), terminator and
/// line break kept; an element beyond the segment's is left out.
fn rewrite(seg: &Segment<'_>, with: &[(usize, &[u8])], out: &mut Vec<u8>) {
    let raw = seg.raw();
    let sep = seg.delimiters().element;
    for (k, e) in raw.split(|&b| b == sep).enumerate() {
        if k > 0 {
            out.push(sep);
        }
        match with.iter().find(|(n, _)| *n == k) {
            Some((_, v)) => out.extend_from_slice(v),
            None => out.extend_from_slice(e),
        }
    }
    if seg.terminated() {
        out.push(seg.delimiters().segment);
    }
    out.extend_from_slice(seg.suffix());
}

/// The length in the input of a segment, its terminator and the line break after it.
fn length(s: &Segment<'_>) -> usize {
    s.raw().len() + usize::from(s.terminated()) + s.suffix().len()
}

/// Where a segment, its terminator and the line break after it are in the input.
fn range(s: &Segment<'_>) -> [usize; 2] {
    [s.offset(), s.offset() + length(s)]
}

/// The next number of a counter that wraps around after 999999999.
fn next(n: &mut u32) -> u32 {
    let v = *n;
    *n = if v >= MAX_CONTROL { 1 } else { v + 1 };
    v
}

/// The envelope of an outline without its sets.
fn envelope<'a>(o: &Outline<'a>) -> Outline<'a> {
    let i = &o.interchange;
    Outline {
        interchange: x12kit_syntax::envelope::Interchange {
            isa: i.isa,
            segments: Vec::new(),
            groups: i
                .groups
                .iter()
                .map(|g| Group {
                    gs: g.gs,
                    segments: Vec::new(),
                    transactions: Vec::new(),
                    ge: g.ge,
                })
                .collect(),
            iea: i.iea,
        },
        starts: Vec::new(),
    }
}

/// What a built trailer (GE, IEA) takes from the header it closes: its
/// delimiters and the line break after it.
#[derive(Debug, Clone)]
struct Like {
    delimiters: x12kit_syntax::Delimiters,
    suffix: Vec<u8>,
}

impl Like {
    fn of(s: &Segment<'_>) -> Self {
        Like {
            delimiters: s.delimiters(),
            suffix: s.suffix().to_vec(),
        }
    }

    /// A segment of `elements` with this terminator and line break.
    fn build(&self, elements: &[&[u8]], out: &mut Vec<u8>) {
        for (i, e) in elements.iter().enumerate() {
            if i > 0 {
                out.push(self.delimiters.element);
            }
            out.extend_from_slice(e);
        }
        out.push(self.delimiters.segment);
        out.extend_from_slice(&self.suffix);
    }
}

/// A part being filled: its ISA and GS (numbers as they will be), its sets.
struct Filling {
    part: Part,
    /// The ISA and GS, rewritten.
    head: Vec<u8>,
    isa13: Vec<u8>,
    gs06: Option<Vec<u8>>,
    isa: Like,
    gs: Option<Like>,
    body: Vec<u8>,
    /// Input bytes of the sets so far.
    bytes: usize,
    /// Where its ISA and GS are in the input.
    envelope: Vec<[usize; 2]>,
    /// Where its sets start and end in the input.
    span: [usize; 2],
    renumber: Renumber,
}

/// The parts being made, a set at a time, from the whole input
/// ([`Splitter`]) or from a stream ([`SplitFeeder`]).
struct Parts<'f> {
    max_sets: usize,
    max_bytes: usize,
    interchange: Option<u32>,
    group: Option<u32>,
    set: Option<u32>,
    filling: Option<Filling>,
    /// `dyn`: one copy of the part writer whoever takes the parts.
    each: Box<dyn FnMut(Part) -> std::io::Result<()> + 'f>,
    error: Option<std::io::Error>,
    max_set_bytes: SetCap,
}

impl<'f> Parts<'f> {
    fn new(
        o: &SplitOptions,
        each: impl FnMut(Part) -> std::io::Result<()> + 'f,
    ) -> Result<Self, Error> {
        o.renumber.check()?;
        for (name, v) in [("maxSets", o.max_sets), ("maxBytes", o.max_bytes)] {
            if v == Some(0) {
                return Err(Error::new(
                    ErrorCode::InvalidOptions,
                    format!("{name} must be at least 1"),
                )
                .at(format!("/{name}")));
            }
        }
        Ok(Parts {
            max_sets: o.max_sets.unwrap_or(match o.per {
                Per::Set => 1,
                Per::Group => usize::MAX,
            }),
            max_bytes: o.max_bytes.unwrap_or(usize::MAX),
            interchange: o.renumber.interchange,
            group: o.renumber.group,
            set: o.renumber.set,
            filling: None,
            each: Box::new(each),
            error: None,
            max_set_bytes: o.max_set_bytes,
        })
    }

    /// Closes the part being filled: ISA, GS, the sets, then the input's GE
    /// and IEA (`ge`, `iea`) with the part's counts, or GE and IEA built
    /// like its GS and ISA when they are not given.
    fn close(&mut self, ge: Option<&Segment<'_>>, iea: Option<&Segment<'_>>) {
        let Some(f) = self.filling.take() else {
            return;
        };
        let mut out = f.head;
        out.reserve(f.body.len() + 64);
        out.extend_from_slice(&f.body);
        let mut part = f.part;
        let mut groups = 0usize;
        if let (Some(gs), Some(gs06)) = (&f.gs, &f.gs06) {
            groups = 1;
            let count = part.sets.len().to_string();
            match ge {
                Some(ge) => rewrite(ge, &[(1, count.as_bytes()), (2, gs06)], &mut out),
                None => gs.build(&[b"GE", count.as_bytes(), gs06], &mut out),
            }
        }
        let count = groups.to_string();
        match iea {
            Some(iea) => rewrite(iea, &[(1, count.as_bytes()), (2, &f.isa13)], &mut out),
            None => f.isa.build(&[b"IEA", count.as_bytes(), &f.isa13], &mut out),
        }
        let mut ranges = f.envelope;
        let sets_range = ranges.len();
        ranges.push(f.span);
        ranges.extend([ge, iea].into_iter().flatten().map(range));
        part.recipe = PartRecipe {
            ranges,
            sets_range,
            sets: part.sets.len(),
            segment: part.sets.first().map_or(0, |s| s.segment),
            renumber: f.renumber,
            max_set_bytes: self.max_set_bytes,
        };
        part.text = text(&out);
        part.x12 = out;
        if self.error.is_none() {
            if let Err(e) = (self.each)(part) {
                self.error = Some(e);
            }
        }
    }

    /// Adds a set (its body: `doc.body(tx)`, its bytes `doc.span`) of the
    /// group whose GS is `gs` in the interchange whose ISA is `isa`, closing
    /// the part being filled first (with `ge` and `iea`) when the set would
    /// not fit in it. Returns where the set ends in the input.
    #[allow(clippy::too_many_arguments)]
    fn add<'a>(
        &mut self,
        doc: &Document<'a>,
        isa: &Segment<'a>,
        gs: Option<&Segment<'a>>,
        tx: &Transaction<'a>,
        ge: Option<&Segment<'_>>,
        iea: Option<&Segment<'_>>,
    ) -> usize {
        let st = &tx.st;
        let end = match &tx.se {
            Some(se) => se.offset() + length(se),
            // No SE: the set runs through its last body segment.
            None => doc
                .body(tx)
                .last()
                .map_or(st.offset() + length(st), |s| s.offset() + length(&s)),
        };
        // Over the cap on one set (`SET_TOO_LARGE`): in no part.
        if tx.is_over_cap() {
            return end;
        }
        let len = end - st.offset();
        if self.filling.as_ref().is_some_and(|f| {
            f.part.sets.len() >= self.max_sets || (f.bytes > 0 && f.bytes + len > self.max_bytes)
        }) {
            self.close(ge, iea);
        }
        if self.filling.is_none() {
            let mut renumber = Renumber::default();
            let isa13 = match self.interchange.as_mut() {
                Some(n) => {
                    let n = next(n);
                    renumber.interchange = Some(n);
                    format!("{n:09}").into_bytes()
                }
                None => isa_value(isa, 13).into_owned(),
            };
            let mut head = Vec::with_capacity(256);
            rewrite(isa, &[(13, &isa13)], &mut head);
            let gs06 = gs.map(|gs| match self.group.as_mut() {
                Some(n) => {
                    let n = next(n);
                    renumber.group = Some(n);
                    n.to_string().into_bytes()
                }
                None => gs.value(6).to_vec(),
            });
            if let (Some(gs), Some(gs06)) = (gs, &gs06) {
                rewrite(gs, &[(6, gs06)], &mut head);
            }
            self.filling = Some(Filling {
                part: Part {
                    interchange_control_number: text(&isa13),
                    original_interchange_control_number: text(&isa_value(isa, 13)),
                    functional_id: gs.map(|gs| text(gs.value(1))),
                    group_control_number: gs06.as_deref().map(text),
                    original_group_control_number: gs.map(|gs| text(gs.value(6))),
                    sets: Vec::new(),
                    text: String::new(),
                    x12: Vec::new(),
                    recipe: PartRecipe::default(),
                },
                envelope: std::iter::once(isa).chain(gs).map(range).collect(),
                span: [st.offset(), end],
                renumber,
                head,
                isa13,
                gs06,
                isa: Like::of(isa),
                gs: gs.map(Like::of),
                body: Vec::new(),
                bytes: 0,
            });
        }
        let Some(f) = self.filling.as_mut() else {
            return end;
        };
        let original = st.value(2);
        let st02 = match self.set.as_mut() {
            Some(n) => {
                let n = next(n);
                if f.part.sets.is_empty() {
                    f.renumber.set = Some(n);
                }
                format!("{n:04}").into_bytes()
            }
            None => original.to_vec(),
        };
        f.span[1] = end;
        let span = |from: usize, to: usize| doc.span(from, to.max(from)).unwrap_or_default();
        if self.set.is_some() {
            rewrite(st, &[(2, &st02)], &mut f.body);
            let st_end = st.offset() + length(st);
            match &tx.se {
                Some(se) => {
                    f.body.extend_from_slice(span(st_end, se.offset()));
                    rewrite(se, &[(2, &st02)], &mut f.body);
                }
                None => f.body.extend_from_slice(span(st_end.min(end), end)),
            }
        } else {
            f.body.extend_from_slice(span(st.offset(), end));
        }
        f.bytes += len;
        f.part.sets.push(PartSet {
            kind: text(tx.kind()),
            control_number: text(&st02),
            original_control_number: text(original),
            segment: st.index(),
            offset: st.offset(),
            length: len,
        });
        end
    }
}

struct Splitter<'a, 'f> {
    parts: Parts<'f>,
    /// The envelope of the interchange being split.
    outline: Option<Outline<'a>>,
    /// The group the sets come from (index into the outline).
    current_group: usize,
    /// Where the last set added ends in the input.
    end: usize,
    released: usize,
    release: &'f mut dyn FnMut(usize),
    read_ahead: &'f mut dyn FnMut(usize, usize),
}

/// The input is released at most this often (a call per part would cost
/// a system call per part).
const RELEASE_EVERY: usize = 4 << 20;

impl<'a> Splitter<'a, '_> {
    /// Closes the part being filled with the trailers of its group.
    fn close(&mut self) {
        if let Some(o) = &self.outline {
            let i = &o.interchange;
            let ge = i.groups.get(self.current_group).and_then(|g| g.ge);
            self.parts.close(ge.as_ref(), i.iea.as_ref());
        }
        if self.end >= self.released + RELEASE_EVERY {
            self.released = self.end;
            (self.release)(self.end);
        }
    }
}

impl<'a> SetHandler<'a> for Splitter<'a, '_> {
    fn interchange(&mut self, outline: &Outline<'a>) {
        self.outline = Some(envelope(outline));
    }

    fn group(&mut self, _outline: &Outline<'a>, n: usize) {
        self.close();
        self.current_group = n;
    }

    fn transaction(&mut self, doc: &Document<'a>, g: &Group<'a>, tx: &Transaction<'a>, _: usize) {
        let Some(o) = &self.outline else { return };
        let i = &o.interchange;
        let ge = i.groups.get(self.current_group).and_then(|g| g.ge);
        self.end = self
            .parts
            .add(doc, &i.isa, g.gs.as_ref(), tx, ge.as_ref(), i.iea.as_ref());
    }

    fn group_end(&mut self, _outline: &Outline<'a>, _n: usize) {
        self.close();
    }

    fn interchange_end(&mut self, _outline: &Outline<'a>, _upto: usize) {
        self.close();
        self.outline = None;
    }

    fn read_ahead(&mut self, from: usize, to: usize) {
        (self.read_ahead)(from, to);
    }
}

/// Splits `input` into parts (see the [module](self) docs), handing each
/// to `each` as soon as it is complete, reading the input a set at a time.
/// Returns the diagnostics of reading the input (as `parse` reports them),
/// `INVALID_OPTIONS` / `INVALID_CONTROL_NUMBER` for unusable options, or
/// `IO` with what `each` failed with.
pub fn split_each(
    input: &[u8],
    o: &SplitOptions,
    each: impl FnMut(Part) -> std::io::Result<()>,
) -> Result<Vec<Diagnostic>, Error> {
    split_releasing(input, o, each, &mut |_| {}, &mut |_, _| {})
}

/// [`split_each`] for a caller that maps a file: `release(offset)` every
/// few MiB says the input before `offset` will not be read again except for
/// envelope segments read ahead, and `read_ahead(from, to)` that the
/// read-ahead of a large interchange's envelope went through
/// `input[from..to]`, read again later: the pages of both may be dropped.
pub fn split_releasing(
    input: &[u8],
    o: &SplitOptions,
    each: impl FnMut(Part) -> std::io::Result<()>,
    release: &mut dyn FnMut(usize),
    read_ahead: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Diagnostic>, Error> {
    let mut s = Splitter {
        parts: Parts::new(o, each)?,
        outline: None,
        current_group: 0,
        end: 0,
        released: 0,
        release,
        read_ahead,
    };
    let doc = parse_sets(input, HOLD, o.max_set_bytes, &mut s);
    if let Some(e) = s.parts.error {
        return Err(Error::new(ErrorCode::Io, e.to_string()));
    }
    Ok(doc.diagnostics)
}

/// [`split_each`] over an input fed in chunks of any size, for a caller that
/// can neither map nor spool it (the WASM binding reading a browser's
/// `File`): each part is handed to `each` as soon as it is complete, and
/// what is held is the part being filled plus the set being read, never the
/// input. The parts hold the same sets, numbers and positions as
/// [`split_each`]'s. One difference, because a stream cannot be read ahead:
/// a part closed before its group's GE (a part cut by `maxSets` or
/// `maxBytes`) or its interchange's IEA has been read ends with a GE and an
/// IEA built like its GS and ISA (their terminator and line break), where
/// [`split_each`] rewrites the input's own GE and IEA; the bytes are the
/// same whenever the input's trailers are written like its headers (the
/// usual case; the property tests check it), and differ only in the line
/// break or extra elements of an unusual trailer.
pub struct SplitFeeder<'f> {
    feeder: SetFeeder,
    parts: Parts<'f>,
}

impl std::fmt::Debug for SplitFeeder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitFeeder")
            .field("feeder", &self.feeder)
            .finish_non_exhaustive()
    }
}

impl<'f> SplitFeeder<'f> {
    /// A splitter handing each part to `each`; `INVALID_OPTIONS` /
    /// `INVALID_CONTROL_NUMBER` for unusable options (as [`split_each`]).
    pub fn new(
        o: &SplitOptions,
        each: impl FnMut(Part) -> std::io::Result<()> + 'f,
    ) -> Result<Self, Error> {
        Ok(SplitFeeder {
            feeder: SetFeeder::new(o.max_set_bytes),
            parts: Parts::new(o, each)?,
        })
    }

    /// Reads the next chunk (the parts it completes go to `each`); `IO`
    /// with what `each` failed with.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        self.feeder.feed(chunk, &mut self.parts);
        self.failed()
    }

    /// The end of the input: the last parts, and the diagnostics of reading
    /// the input (as [`split_each`] returns them).
    pub fn finish(&mut self) -> Result<Vec<Diagnostic>, Error> {
        let end = self.feeder.finish(&mut self.parts);
        self.parts.close(None, None);
        self.failed()?;
        Ok(end.diagnostics)
    }

    /// The set reader (bytes fed, what it holds).
    pub fn reader(&self) -> &SetFeeder {
        &self.feeder
    }

    fn failed(&mut self) -> Result<(), Error> {
        match self.parts.error.take() {
            Some(e) => Err(Error::new(ErrorCode::Io, e.to_string())),
            None => Ok(()),
        }
    }
}

impl FedSets for Parts<'_> {
    fn transaction<'a>(
        &mut self,
        doc: &Document<'a>,
        isa: &Segment<'a>,
        group: &Group<'a>,
        tx: &Transaction<'a>,
    ) {
        self.add(doc, isa, group.gs.as_ref(), tx, None, None);
    }

    fn group_end(&mut self, ge: Option<&Segment<'_>>) {
        self.close(ge, None);
    }

    fn interchange_end(&mut self, iea: Option<&Segment<'_>>) {
        self.close(None, iea);
    }
}

/// [`split_each`] collected: every part, with the diagnostics.
pub fn split(input: &[u8], o: &SplitOptions) -> Result<Split, Error> {
    let mut parts = Vec::new();
    let diagnostics = split_each(input, o, |p| {
        parts.push(p);
        Ok(())
    })?;
    Ok(Split { parts, diagnostics })
}

/// Makes a part of a split again from its [`PartRecipe`] and `bytes`, the
/// input's bytes in the recipe's ranges one after the other (the ISA, the
/// GS, the sets, the GE or IEA): the same part, byte for byte, with the
/// same numbers and the same positions in the input as the split gave it
/// (the streamed split's, [`SplitFeeder`], and the whole input's). It is
/// the split of those bytes as one group, renumbered from the part's
/// numbers. `INVALID_ARGUMENT` when `bytes` is not the ranges' length or
/// does not make that part (another file, or it changed since the split);
/// `INVALID_OPTIONS` for an unusable recipe.
pub fn rebuild_part(recipe: &PartRecipe, bytes: &[u8]) -> Result<Part, Error> {
    let bad = |what: String| Error::new(ErrorCode::InvalidOptions, what).at("/recipe");
    if let Err(e) = recipe.renumber.check() {
        let at = format!("/recipe{}", e.pointer().unwrap_or_default());
        return Err(e.at(at));
    }
    let mut expected = 0usize;
    let mut sets_at = None;
    for (k, [from, to]) in recipe.ranges.iter().enumerate() {
        if from > to {
            return Err(bad(format!("range {k} ends before it starts")));
        }
        if k == recipe.sets_range {
            sets_at = Some(expected);
        }
        expected = expected
            .checked_add(to - from)
            .ok_or_else(|| bad("the ranges hold more bytes than there can be".into()))?;
    }
    let Some(sets_at) = sets_at else {
        return Err(bad("setsRange is not one of the ranges".into()));
    };
    if bytes.len() != expected {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "the part's ranges hold {expected} bytes of the input; {} were given",
                bytes.len()
            ),
        ));
    }
    let o = SplitOptions {
        per: Per::Group,
        max_sets: None,
        max_bytes: None,
        renumber: recipe.renumber,
        max_set_bytes: recipe.max_set_bytes,
    };
    let mut parts = Vec::with_capacity(1);
    split_each(bytes, &o, |p| {
        parts.push(p);
        Ok(())
    })?;
    let [start, _] = recipe.ranges[recipe.sets_range];
    let mut part = match parts.pop() {
        Some(p)
            if parts.is_empty()
                && p.sets.len() == recipe.sets
                && p.sets.first().is_some_and(|s| s.offset == sets_at) =>
        {
            p
        }
        _ => {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "the bytes given do not make the part of {} sets the recipe describes (another input, or it changed since the split)",
                    recipe.sets
                ),
            ));
        }
    };
    // Positions in the input, not in `bytes`.
    let first = part.sets.first().map_or(0, |s| s.segment);
    for s in &mut part.sets {
        s.offset = s.offset - sets_at + start;
        s.segment = (s.segment - first)
            .checked_add(recipe.segment)
            .ok_or_else(|| bad("segment is past any input's segments".into()))?;
    }
    part.recipe = recipe.clone();
    Ok(part)
}

/// Options of [`merge`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct MergeOptions {
    /// Control numbers to renumber from (the interchange, its groups, its
    /// sets); with `group`, the groups of one functional id, application
    /// sender and receiver and version merge whatever their control numbers.
    pub renumber: Renumber,
}

/// A group of the merged interchange: the GS/GE it was first seen with,
/// and its sets (input, set).
struct Merging<'a, 'd> {
    key: Vec<&'a [u8]>,
    gs: Segment<'a>,
    ge: Segment<'a>,
    sets: Vec<(usize, &'d Transaction<'a>)>,
}

/// What must be equal in every interchange merged: ISA05–ISA08 (sender and
/// receiver), ISA12 (version) and the delimiters.
const SAME: [(usize, &str); 5] = [
    (5, "sender qualifier (ISA05)"),
    (6, "sender id (ISA06)"),
    (7, "receiver qualifier (ISA07)"),
    (8, "receiver id (ISA08)"),
    (12, "version (ISA12)"),
];

/// Merges the interchanges of `inputs` (each an X12 input of one or more
/// interchanges) into one interchange (see the [module](self) docs).
/// `MERGE_REFUSED`, with a problem per input at fault (pointer `/N`, the
/// input's 0-based position), when an input holds no interchange or has
/// envelope errors, or when the interchanges differ in sender, receiver,
/// version or delimiters; `INVALID_ARGUMENT` for no input;
/// `INVALID_CONTROL_NUMBER` for a renumbering start outside 1–999999999.
/// Without `renumber.set`, two sets of one control number that would end
/// in one group are refused too.
/// Segments directly inside an interchange (TA1, ISB, ISE) are not carried
/// over.
pub fn merge(inputs: &[&[u8]], o: &MergeOptions) -> Result<Vec<u8>, Error> {
    o.renumber.check()?;
    if inputs.is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            "merge needs at least one interchange",
        ));
    }
    let docs: Vec<Document<'_>> = inputs.iter().map(|i| x12kit_syntax::parse(i)).collect();
    let mut problems = Vec::new();
    let mut reference: Option<(usize, Segment<'_>)> = None;
    for (k, doc) in docs.iter().enumerate() {
        let at = format!("/{k}");
        if let Some(d) = doc.diagnostics.iter().find(|d| d.is_error()) {
            problems.push(Problem::error(
                ErrorCode::MergeRefused,
                at,
                format!("has envelope errors: {}", d.message),
            ));
            continue;
        }
        if doc.interchanges.is_empty() {
            problems.push(Problem::error(
                ErrorCode::MergeRefused,
                at,
                "holds no interchange",
            ));
            continue;
        }
        for i in &doc.interchanges {
            let Some((first, r)) = reference else {
                reference = Some((k, i.isa));
                continue;
            };
            let isa13 = text(&isa_value(&i.isa, 13));
            if i.isa.delimiters().bytes() != r.delimiters().bytes() {
                problems.push(Problem::error(
                    ErrorCode::MergeRefused,
                    at.clone(),
                    format!(
                        "interchange {isa13} has other delimiters than the first interchange (of input {first})"
                    ),
                ));
            }
            for (n, what) in SAME {
                let (a, b) = (isa_value(&i.isa, n), isa_value(&r, n));
                if a != b {
                    problems.push(Problem::error(
                        ErrorCode::MergeRefused,
                        at.clone(),
                        format!(
                            "interchange {isa13} has {what} {:?}, the first interchange (of input {first}) {:?}",
                            text(&a),
                            text(&b)
                        ),
                    ));
                }
            }
        }
    }
    if !problems.is_empty() {
        return Err(Error::from_problems(ErrorCode::MergeRefused, problems));
    }
    let (first, isa) = reference.expect("an interchange, or a problem");
    let first_iea = docs[first].interchanges[0].iea.expect("no envelope errors");
    let mut groups: Vec<Merging<'_, '_>> = Vec::new();
    for (k, doc) in docs.iter().enumerate() {
        for i in &doc.interchanges {
            for g in &i.groups {
                let (Some(gs), Some(ge)) = (g.gs, g.ge) else {
                    continue;
                };
                let mut key = vec![gs.value(1), gs.value(2), gs.value(3), gs.value(8)];
                if o.renumber.group.is_none() {
                    key.push(gs.value(6));
                }
                let at = match groups.iter().position(|m| m.key == key) {
                    Some(at) => at,
                    None => {
                        groups.push(Merging {
                            key,
                            gs,
                            ge,
                            sets: Vec::new(),
                        });
                        groups.len() - 1
                    }
                };
                groups[at]
                    .sets
                    .extend(g.transactions.iter().map(|t| (k, t)));
            }
        }
    }
    // Without renumbering, two sets with one control number would end in
    // one group: the output would not validate.
    if o.renumber.set.is_none() {
        for m in &groups {
            let mut seen = std::collections::HashMap::new();
            for &(k, t) in &m.sets {
                if let Some(was) = seen.insert(t.control_number(), k) {
                    problems.push(Problem::error(
                        ErrorCode::MergeRefused,
                        format!("/{k}"),
                        format!(
                            "set control number {} is also in input {was}, in the same group ({} {}): renumber the sets (renumber.set)",
                            text(t.control_number()),
                            text(m.gs.value(1)),
                            text(m.gs.value(6)),
                        ),
                    ));
                }
            }
        }
        if !problems.is_empty() {
            return Err(Error::from_problems(ErrorCode::MergeRefused, problems));
        }
    }
    let mut out = Vec::with_capacity(inputs.iter().map(|i| i.len()).sum::<usize>() + 256);
    let (mut interchange, mut group, mut set) =
        (o.renumber.interchange, o.renumber.group, o.renumber.set);
    let isa13 = match interchange.as_mut() {
        Some(n) => format!("{:09}", next(n)).into_bytes(),
        None => isa_value(&isa, 13).into_owned(),
    };
    rewrite(&isa, &[(13, &isa13)], &mut out);
    for m in &groups {
        let gs06 = match group.as_mut() {
            Some(n) => next(n).to_string().into_bytes(),
            None => m.gs.value(6).to_vec(),
        };
        rewrite(&m.gs, &[(6, &gs06)], &mut out);
        for &(k, t) in &m.sets {
            let input = inputs[k];
            let se = t.se.expect("no envelope errors");
            let end = se.offset() + length(&se);
            match set.as_mut() {
                Some(n) => {
                    let st02 = format!("{:04}", next(n)).into_bytes();
                    rewrite(&t.st, &[(2, &st02)], &mut out);
                    let st_end = t.st.offset() + length(&t.st);
                    out.extend_from_slice(&input[st_end..se.offset()]);
                    rewrite(&se, &[(2, &st02)], &mut out);
                }
                None => out.extend_from_slice(&input[t.st.offset()..end]),
            }
        }
        let count = m.sets.len().to_string();
        rewrite(&m.ge, &[(1, count.as_bytes()), (2, &gs06)], &mut out);
    }
    let count = groups.len().to_string();
    rewrite(&first_iea, &[(1, count.as_bytes()), (2, &isa13)], &mut out);
    Ok(out)
}
