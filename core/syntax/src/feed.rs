//! Transaction sets read from a stream fed in chunks: the push-fed form of
//! [`parse_sets`](crate::sets::parse_sets), for callers that cannot map or
//! spool their input (a browser reading a `File`, a socket).
//!
//! [`SetFeeder`] takes chunks of any size ([`feed`](SetFeeder::feed), 1
//! byte to many MiB) and hands each complete transaction set to a
//! [`FedSets`] as soon as its SE arrives (or the segment or the end that
//! closes it without one), with its interchange's ISA and its group's GS.
//! The set's segments, positions (segment indexes and byte offsets in the
//! whole input) and diagnostics are those [`parse_sets`](crate::sets::parse_sets)
//! gives for the same input, whatever the chunking; so is the list of every
//! diagnostic that [`finish`](SetFeeder::finish) returns (same order).
//!
//! What is held: the bytes of the set not finished yet (from its ST; none
//! once it is over the [`SetCap`]), the segment not finished yet, the ISA
//! and GS around it, and the diagnostics. Never the input: memory follows
//! the largest set, not the file.
//!
//! Unlike [`parse_sets`](crate::sets::parse_sets), no outline of the
//! interchange (its trailers, the segments after its sets) is known when a
//! set is handed over: a stream cannot be read ahead.

use crate::delimiters::Delimiters;
use crate::diagnostics::Diagnostic;
use crate::envelope::{
    Document, Envelope, Group, Handler, SetCap, Span, Transaction, prefix, set_too_large,
};
use crate::lexer::{Step, Token};
use crate::segment::Segment;
use crate::stream::StreamTokenizer;
use crate::utf8::Utf8Check;

/// Receives the sets of a [`SetFeeder`], one at a time.
pub trait FedSets {
    /// One complete set: its body is `doc.body(tx)`, `doc.diagnostics`
    /// every diagnostic found so far (those at the set's segments among
    /// them); `isa` is its interchange's ISA, `group` has its group's GS
    /// (`None` for sets outside any GS) and nothing else.
    fn transaction<'a>(
        &mut self,
        doc: &Document<'a>,
        isa: &Segment<'a>,
        group: &Group<'a>,
        tx: &Transaction<'a>,
    );

    /// The group of the sets before ends, with its GE (`None`: without one).
    fn group_end(&mut self, ge: Option<&Segment<'_>>) {
        let _ = ge;
    }

    /// The interchange of the sets before ends, with its IEA (`None`: without one).
    fn interchange_end(&mut self, iea: Option<&Segment<'_>>) {
        let _ = iea;
    }
}

impl<F> FedSets for F
where
    F: for<'a> FnMut(&Document<'a>, &Segment<'a>, &Group<'a>, &Transaction<'a>),
{
    fn transaction<'a>(
        &mut self,
        doc: &Document<'a>,
        isa: &Segment<'a>,
        group: &Group<'a>,
        tx: &Transaction<'a>,
    ) {
        self(doc, isa, group, tx)
    }
}

/// What [`parse_sets`](crate::sets::parse_sets) returns besides the sets,
/// for a fed input.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FedEnd {
    /// Every diagnostic, in the order found (the `INVALID_UTF8` ones last).
    pub diagnostics: Vec<Diagnostic>,
    /// The bytes before the first ISA when they are only a BOM and whitespace.
    pub prefix: Vec<u8>,
    /// The last segment of the input has no segment terminator.
    pub unterminated: bool,
}

/// A segment copied out of the stream (an ISA, a GS, an ST), to be viewed
/// again after the bytes it came from are gone.
#[derive(Debug, Clone)]
struct Owned {
    /// Its bytes, then its suffix (the line break after its terminator).
    bytes: Vec<u8>,
    raw: usize,
    offset: usize,
    index: usize,
    delimiters: Delimiters,
    terminated: bool,
}

impl Owned {
    fn of(seg: &Segment<'_>) -> Self {
        let mut bytes = Vec::with_capacity(seg.raw().len() + seg.suffix().len());
        bytes.extend_from_slice(seg.raw());
        bytes.extend_from_slice(seg.suffix());
        Owned {
            bytes,
            raw: seg.raw().len(),
            offset: seg.offset(),
            index: seg.index(),
            delimiters: seg.delimiters(),
            terminated: seg.terminated(),
        }
    }

    fn view(&self) -> Segment<'_> {
        Segment::new(
            &self.bytes[..self.raw],
            &self.bytes[self.raw..],
            self.offset,
            self.index,
            self.delimiters,
            self.terminated,
        )
    }
}

/// A push-fed set reader (see the [module](self) docs).
#[derive(Debug)]
pub struct SetFeeder {
    tokens: StreamTokenizer,
    env: Envelope,
    state: State,
    /// [`finish`](SetFeeder::finish) was called.
    finished: bool,
}

#[derive(Debug)]
struct State {
    cap: SetCap,
    diagnostics: Vec<Diagnostic>,
    /// The open set's body segments (offsets in the whole input).
    body: Vec<Span>,
    isa: Option<Owned>,
    gs: Option<Owned>,
    /// The open set's ST.
    st: Option<Owned>,
    /// Body segments ending past this offset are over the cap.
    limit: usize,
    /// The open set went over the cap.
    over: bool,
    /// The input from this offset on is still needed (the open set's).
    keep: Option<usize>,
    utf8: Utf8Check,
    /// Bytes fed so far.
    fed: usize,
    /// No ISA has been seen yet.
    first: bool,
    /// The input from its start while it is only a BOM and whitespace
    /// (what [`prefix`] may keep of it).
    head: Vec<u8>,
    head_done: bool,
    prefix: Vec<u8>,
    unterminated: bool,
    sets: usize,
    /// The set the end of the input closed (its ST and SE), handed over
    /// once the envelope is closed too.
    closed: Option<(Owned, Option<Owned>)>,
    /// The ends of groups (`false`) and interchanges (`true`) after `closed`,
    /// with their trailers, told after it.
    ends: Vec<(bool, Option<Owned>)>,
}

impl SetFeeder {
    /// A reader whose sets are capped at `cap` (a larger one is handed
    /// over with no body, after its `SET_TOO_LARGE`).
    pub fn new(cap: SetCap) -> Self {
        SetFeeder {
            tokens: StreamTokenizer::new(),
            env: Envelope::new(),
            state: State {
                cap,
                diagnostics: Vec::new(),
                body: Vec::new(),
                isa: None,
                gs: None,
                st: None,
                limit: usize::MAX,
                over: false,
                keep: None,
                utf8: Utf8Check::default(),
                fed: 0,
                first: true,
                head: Vec::new(),
                head_done: false,
                prefix: Vec::new(),
                unterminated: false,
                sets: 0,
                closed: None,
                ends: Vec::new(),
            },
            finished: false,
        }
    }

    /// Reads the next chunk of the input, handing the sets it completes to `h`.
    pub fn feed(&mut self, chunk: &[u8], h: &mut dyn FedSets) {
        if self.finished {
            return;
        }
        let s = &mut self.state;
        s.utf8.feed(chunk);
        if !s.head_done {
            // A BOM is at most 3 bytes; then only whitespace can be a prefix.
            let n = chunk
                .iter()
                .enumerate()
                .position(|(i, &b)| s.fed + i >= 3 && !crate::bytes::is_ws(b))
                .unwrap_or(chunk.len());
            s.head.extend_from_slice(&chunk[..n]);
            s.head_done = n < chunk.len();
        }
        s.fed += chunk.len();
        self.tokens.feed(chunk);
        self.pump(h, false);
    }

    /// Declares the end of the input: hands over the set it leaves open (if
    /// any) and returns every diagnostic, the prefix and whether the input
    /// ends unterminated. Later calls return the same without reading.
    pub fn finish(&mut self, h: &mut dyn FedSets) -> FedEnd {
        if !self.finished {
            self.tokens.finish();
            self.pump(h, true);
            let (buf, base) = self.tokens.held();
            let mut run = Run {
                buf,
                base,
                s: &mut self.state,
                h: &mut *h,
                at_end: true,
            };
            self.env.finish(run.s.fed, &mut run);
            let s = &mut self.state;
            flush_closed(s, buf, base, h);
            let tail = std::mem::take(&mut s.utf8).finish();
            s.diagnostics.extend(tail);
            s.body = Vec::new();
            s.keep = None;
            self.tokens.keep_from(None);
            self.finished = true;
        }
        let s = &self.state;
        FedEnd {
            diagnostics: s.diagnostics.clone(),
            prefix: s.prefix.clone(),
            unterminated: s.unterminated,
        }
    }

    /// Bytes fed so far.
    pub fn fed(&self) -> usize {
        self.state.fed
    }

    /// Sets handed over so far.
    pub fn sets(&self) -> usize {
        self.state.sets
    }

    /// Every diagnostic found so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.state.diagnostics
    }

    /// Bytes of the input held (the open set's and the segment not
    /// finished): what the reader costs besides the diagnostics.
    pub fn held(&self) -> usize {
        self.tokens.held().0.len()
    }

    /// Tokenizes what has been fed, through the envelope machine.
    /// `at_end`: the input is finished (see [`Run::at_end`]).
    fn pump(&mut self, h: &mut dyn FedSets, at_end: bool) {
        loop {
            let step = self.tokens.advance();
            let (buf, base) = self.tokens.held();
            let mut run = Run {
                buf,
                base,
                s: &mut self.state,
                h: &mut *h,
                at_end,
            };
            match step {
                Some(Step::Segment(raw)) => {
                    let seg = raw.view(buf);
                    run.s.unterminated = !seg.terminated();
                    self.env.push(Token::Segment(seg), &mut run);
                }
                Some(Step::Diagnostic(d)) => self.env.push(Token::Diagnostic(d), &mut run),
                Some(Step::NeedMore | Step::End) | None => break,
            }
            let keep = self.state.keep;
            self.tokens.keep_from(keep);
        }
    }
}

/// The envelope machine's handler for the tokens of one feed, viewed in
/// the bytes held (`buf`, whose first byte is at `base` in the input).
struct Run<'b, 's> {
    buf: &'b [u8],
    base: usize,
    s: &'s mut State,
    /// `dyn`: one copy of the envelope machine whatever reads the sets.
    h: &'s mut dyn FedSets,
    /// The end of the input is being read: a set it closes waits in
    /// `closed` for the diagnostics of the rest of the envelope.
    at_end: bool,
}

impl Run<'_, '_> {
    /// Something new opens: the set the end closed (and the ends after it)
    /// go first, with the envelope they were in.
    fn opening(&mut self) {
        if self.s.closed.is_some() {
            flush_closed(self.s, self.buf, self.base, &mut *self.h);
        }
    }
}

impl<'b> Handler<'b> for Run<'b, '_> {
    fn interchange_start(&mut self, isa: Segment<'b>) {
        self.opening();
        let s = &mut *self.s;
        if s.first {
            s.first = false;
            if s.head.len() >= isa.offset() {
                s.prefix = prefix(&s.head, isa.offset()).to_vec();
            }
            s.head = Vec::new();
            s.head_done = true;
        }
        s.isa = Some(Owned::of(&isa));
        s.gs = None;
    }

    fn group_start(&mut self, gs: Option<Segment<'b>>) {
        self.opening();
        self.s.gs = gs.as_ref().map(Owned::of);
    }

    fn transaction_start(&mut self, st: Segment<'b>) {
        self.opening();
        let s = &mut *self.s;
        s.body.clear();
        s.limit = s.cap.limit(st.offset());
        s.over = false;
        s.keep = Some(st.offset());
        s.st = Some(Owned::of(&st));
    }

    #[inline]
    fn segment(&mut self, seg: Segment<'b>) {
        let s = &mut *self.s;
        let (start, end) = (seg.offset(), seg.offset() + seg.raw().len());
        if end <= s.limit {
            s.body.push(Span { start, end });
        } else if !s.over {
            s.over = true;
            s.body.clear();
            s.keep = None;
            if let Some(st) = &s.st {
                s.diagnostics.push(set_too_large(&st.view(), s.cap));
            }
        }
    }

    fn transaction_end(&mut self, se: Option<Segment<'b>>) {
        let s = &mut *self.s;
        s.keep = None;
        let Some(st) = s.st.take() else {
            return;
        };
        if self.at_end {
            // The end closes the set: the diagnostics that the end of its
            // group and interchange give at the input's end are the set's
            // too (its last segment may end there), as `parse_sets` has them.
            flush_closed(s, self.buf, self.base, &mut *self.h);
            s.closed = Some((st, se.as_ref().map(Owned::of)));
            return;
        }
        hand(s, self.buf, self.base, &mut *self.h, &st.view(), se);
    }

    fn group_end(&mut self, ge: Option<Segment<'b>>) {
        if self.s.closed.is_some() {
            self.s.ends.push((false, ge.as_ref().map(Owned::of)));
        } else {
            self.h.group_end(ge.as_ref());
        }
    }

    fn interchange_end(&mut self, iea: Option<Segment<'b>>) {
        if self.s.closed.is_some() {
            self.s.ends.push((true, iea.as_ref().map(Owned::of)));
        } else {
            self.h.interchange_end(iea.as_ref());
        }
    }

    fn diagnostic(&mut self, d: Diagnostic) {
        self.s.diagnostics.push(d);
    }
}

/// Hands over the set the end of the input closed, then the ends of the
/// group and interchange that came after it.
fn flush_closed(s: &mut State, buf: &[u8], base: usize, h: &mut dyn FedSets) {
    if let Some((st, se)) = s.closed.take() {
        hand(s, buf, base, h, &st.view(), se.as_ref().map(Owned::view));
    }
    for (interchange, trailer) in std::mem::take(&mut s.ends) {
        let t = trailer.as_ref().map(Owned::view);
        if interchange {
            h.interchange_end(t.as_ref());
        } else {
            h.group_end(t.as_ref());
        }
    }
}

/// Hands the set that `st` opened and `se` (or nothing) closed to `h`.
fn hand<'a>(
    s: &mut State,
    buf: &'a [u8],
    base: usize,
    h: &mut dyn FedSets,
    st: &Segment<'a>,
    se: Option<Segment<'a>>,
) {
    let Some(isa) = &s.isa else { return };
    let n = s.body.len();
    let doc = Document {
        input: buf,
        base,
        body: std::mem::take(&mut s.body),
        diagnostics: std::mem::take(&mut s.diagnostics),
        ..Document::default()
    };
    let group = Group {
        gs: s.gs.as_ref().map(Owned::view),
        segments: Vec::new(),
        transactions: Vec::new(),
        ge: None,
    };
    let tx = Transaction {
        kind: st.value(1),
        st: *st,
        se,
        body: 0..n,
        over: std::mem::take(&mut s.over),
    };
    h.transaction(&doc, &isa.view(), &group, &tx);
    s.sets += 1;
    s.body = doc.body;
    s.body.clear();
    s.diagnostics = doc.diagnostics;
    s.limit = usize::MAX;
}

#[cfg(test)]
mod tests;
