//! The parse result handed over a transaction set at a time, each set as a
//! JSON object of its own with the envelope headers around it: what the
//! bindings' set iterators yield (Python `iter_transactions`, Node
//! `transactions`), with memory that follows the largest set.

use super::emit::JsonWriter;
use crate::fields::{GS, ISA};
use crate::mapping::{Documents, SetMapper};
use std::marker::PhantomData;
use x12kit_syntax::Diagnostic;
use x12kit_syntax::envelope::{Document, Group, SetCap, Transaction};
use x12kit_syntax::feed::{FedSets, SetFeeder};
use x12kit_syntax::segment::Segment;
use x12kit_syntax::sets::{Outline, SetHandler};

/// Writes each set handed over as `{"interchange": {ISA fields}, "group":
/// {GS fields} | null, "transaction": {the parse result's set object},
/// "diagnostics": [those at the set's segments]}` and gives it to `each`.
pub(super) struct EachSet<'a, 'e, M> {
    pub(super) jw: JsonWriter<'a, 'static, M>,
    /// The ISA header's JSON of the open interchange.
    isa: Vec<u8>,
    /// The GS header's JSON of the open group (`null` without a GS).
    gs: Vec<u8>,
    /// Diagnostics before this index lie before the sets still to come.
    cursor: usize,
    /// Each set's object; `false` stops the handing over.
    each: &'e mut dyn FnMut(&[u8]) -> bool,
    /// `each` asked to stop.
    pub(super) stopped: bool,
    released: usize,
    release: &'e mut dyn FnMut(usize),
    read_ahead: &'e mut dyn FnMut(usize, usize),
}

impl<'a, 'e, M: SetMapper<'a>> EachSet<'a, 'e, M> {
    pub(super) fn new(
        jw: JsonWriter<'a, 'static, M>,
        each: &'e mut dyn FnMut(&[u8]) -> bool,
        release: &'e mut dyn FnMut(usize),
        read_ahead: &'e mut dyn FnMut(usize, usize),
    ) -> Self {
        EachSet {
            jw,
            isa: Vec::new(),
            gs: Vec::new(),
            cursor: 0,
            each,
            stopped: false,
            released: 0,
            release,
            read_ahead,
        }
    }
}

/// Where a diagnostic is: its segment index, else its byte offset.
fn position(d: &Diagnostic) -> (Option<usize>, Option<usize>) {
    (d.segment_index, d.offset)
}

/// The last segment of a set: its SE, else its last body segment, else its ST.
fn last<'a>(doc: &Document<'a>, tx: &Transaction<'a>) -> Segment<'a> {
    match tx.se {
        Some(se) => se,
        None => doc.body(tx).last().unwrap_or(tx.st),
    }
}

/// Writes one set's object (see [`EachSet`]) to `jw.buf` (cleared first):
/// `isa` and `gs` are its headers' JSON; the diagnostics at its segments are
/// looked for in `doc.diagnostics` from `cursor` on (moved past those that
/// lie before it).
#[allow(clippy::too_many_arguments)]
fn write_set<'a, M: SetMapper<'a>>(
    jw: &mut JsonWriter<'a, 'static, M>,
    isa: &[u8],
    gs: &[u8],
    cursor: &mut usize,
    doc: &Document<'a>,
    group: &Group<'a>,
    tx: &Transaction<'a>,
) {
    let (first, end) = (tx.st, last(doc, tx));
    let end_offset = end.offset() + end.raw().len();
    let before = |d: &Diagnostic| match position(d) {
        (Some(i), _) => i < first.index(),
        (None, Some(o)) => o < first.offset(),
        (None, None) => false,
    };
    let inside = |d: &Diagnostic| match position(d) {
        (Some(i), _) => (first.index()..=end.index()).contains(&i),
        (None, Some(o)) => (first.offset()..=end_offset).contains(&o),
        (None, None) => false,
    };
    let ds = &doc.diagnostics;
    *cursor = (*cursor).min(ds.len());
    while *cursor < ds.len() && before(&ds[*cursor]) {
        *cursor += 1;
    }
    // Owned (they are few): the same `to_writer` as the parse result's
    // diagnostics, not another copy of it for references (WASM's size).
    let mine: Vec<Diagnostic> = ds[*cursor..]
        .iter()
        .filter(|d| inside(d))
        .cloned()
        .collect();
    jw.buf.clear();
    jw.raw(b"{\"interchange\":");
    jw.raw(isa);
    jw.raw(b",\"group\":");
    jw.raw(gs);
    jw.raw(b",\"transaction\":");
    jw.transaction(doc, group, tx);
    jw.raw(b",\"diagnostics\":");
    // Diagnostics are few; serde_json writes them (to a Vec, which cannot fail).
    let _ = serde_json::to_writer(&mut jw.buf, &mine);
    jw.buf.push(b'}');
    // Line break overrides are the interchange's, not a set's.
    jw.overrides.clear();
}

impl<'a, M: SetMapper<'a>> SetHandler<'a> for EachSet<'a, '_, M> {
    fn interchange(&mut self, outline: &Outline<'a>) {
        let isa = &outline.interchange.isa;
        self.jw.prepare(isa);
        self.jw.buf.clear();
        self.jw.fields(&ISA, isa, true);
        self.isa = std::mem::take(&mut self.jw.buf);
    }

    fn group(&mut self, outline: &Outline<'a>, n: usize) {
        self.jw.buf.clear();
        self.jw
            .trailer(&GS, outline.interchange.groups[n].gs.as_ref());
        self.gs = std::mem::take(&mut self.jw.buf);
    }

    fn transaction(
        &mut self,
        doc: &Document<'a>,
        group: &Group<'a>,
        tx: &Transaction<'a>,
        upto: usize,
    ) {
        if self.stopped {
            return;
        }
        write_set(
            &mut self.jw,
            &self.isa,
            &self.gs,
            &mut self.cursor,
            doc,
            group,
            tx,
        );
        let jw = &mut self.jw;
        if !(self.each)(&jw.buf) {
            self.stopped = true;
        }
        if upto >= self.released + super::emit::RELEASE_EVERY {
            self.released = upto;
            (self.release)(upto);
        }
    }

    fn interchange_end(&mut self, _outline: &Outline<'a>, upto: usize) {
        // A new interchange's diagnostics may come before this one's tail ones.
        self.cursor = 0;
        self.released = upto;
        (self.release)(upto);
    }

    fn read_ahead(&mut self, from: usize, to: usize) {
        (self.read_ahead)(from, to);
    }
}

/// [`each_set_json`](super::each_set_json) over an input fed in chunks
/// ([`SetFeeder`]): each set's object (the same bytes) as soon as the set
/// is complete, holding one set, not the input. What the WASM binding's
/// `transactions()` reads a `Blob` or a `ReadableStream` with.
pub struct EachSetFeeder<D: Documents> {
    feeder: SetFeeder,
    out: SetObjects,
    _documents: PhantomData<D>,
}

impl<D: Documents> std::fmt::Debug for EachSetFeeder<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EachSetFeeder")
            .field("feeder", &self.feeder)
            .finish_non_exhaustive()
    }
}

/// What [`EachSetFeeder`] keeps from set to set besides the reader.
struct SetObjects {
    documents: bool,
    buf: Vec<u8>,
    /// The ISA header's JSON and the offset of the ISA it is of.
    isa: Vec<u8>,
    isa_at: usize,
    /// The GS header's JSON (`null` without a GS) and the offsets of the
    /// ISA and GS it is of.
    gs: Vec<u8>,
    gs_at: (usize, Option<usize>),
    cursor: usize,
    stopped: bool,
}

impl<D: Documents> EachSetFeeder<D> {
    /// A reader writing sets with their mapped documents or not, each set
    /// capped at `cap` ([`EachSetFeeder::new`] takes them from the options).
    pub(super) fn with(documents: bool, cap: SetCap) -> Self {
        EachSetFeeder {
            feeder: SetFeeder::new(cap),
            out: SetObjects {
                documents,
                buf: Vec::with_capacity(1 << 16),
                isa: Vec::new(),
                isa_at: usize::MAX,
                gs: Vec::new(),
                gs_at: (usize::MAX, None),
                cursor: 0,
                stopped: false,
            },
            _documents: PhantomData,
        }
    }

    /// Reads the next chunk, giving `each` the object of every set it
    /// completes (`false` stops the handing over; the rest is still read
    /// for its diagnostics).
    pub fn feed(&mut self, chunk: &[u8], each: &mut dyn FnMut(&[u8]) -> bool) {
        let mut w = Writing::<D> {
            out: &mut self.out,
            each,
            _documents: PhantomData,
        };
        self.feeder.feed(chunk, &mut w);
    }

    /// The end of the input: the object of the set it leaves open, if any,
    /// and every diagnostic of the input, as
    /// [`each_set_json`](super::each_set_json) returns them.
    pub fn finish(&mut self, each: &mut dyn FnMut(&[u8]) -> bool) -> Vec<Diagnostic> {
        let mut w = Writing::<D> {
            out: &mut self.out,
            each,
            _documents: PhantomData,
        };
        self.feeder.finish(&mut w).diagnostics
    }

    /// The reader (bytes fed, sets handed over, what it holds).
    pub fn reader(&self) -> &SetFeeder {
        &self.feeder
    }
}

struct Writing<'w, D> {
    out: &'w mut SetObjects,
    each: &'w mut dyn FnMut(&[u8]) -> bool,
    _documents: PhantomData<D>,
}

impl<D: Documents> FedSets for Writing<'_, D> {
    fn transaction<'a>(
        &mut self,
        doc: &Document<'a>,
        isa: &Segment<'a>,
        group: &Group<'a>,
        tx: &Transaction<'a>,
    ) {
        let o = &mut *self.out;
        if o.stopped {
            return;
        }
        // The mapper borrows the set's bytes: one a set (its buffers are
        // small next to the set's JSON).
        let mut jw = JsonWriter::<D::Mapper<'a>>::new(std::mem::take(&mut o.buf), usize::MAX);
        jw.documents = o.documents;
        jw.prepare(isa);
        if o.isa_at != isa.offset() {
            jw.buf.clear();
            jw.fields(&ISA, isa, true);
            std::mem::swap(&mut o.isa, &mut jw.buf);
            o.isa_at = isa.offset();
        }
        let gs_at = (isa.offset(), group.gs.map(|g| g.offset()));
        if o.gs_at != gs_at {
            jw.buf.clear();
            jw.trailer(&GS, group.gs.as_ref());
            std::mem::swap(&mut o.gs, &mut jw.buf);
            o.gs_at = gs_at;
        }
        write_set(&mut jw, &o.isa, &o.gs, &mut o.cursor, doc, group, tx);
        if !(self.each)(&jw.buf) {
            o.stopped = true;
        }
        o.buf = std::mem::take(&mut jw.buf);
    }
}
