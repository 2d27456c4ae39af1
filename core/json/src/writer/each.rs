//! The parse result handed over a transaction set at a time, each set as a
//! JSON object of its own with the envelope headers around it: what the
//! bindings' set iterators yield (Python `iter_transactions`, Node
//! `transactions`), with memory that follows the largest set.

use super::emit::JsonWriter;
use crate::fields::{GS, ISA};
use crate::mapping::SetMapper;
use x12kit_syntax::Diagnostic;
use x12kit_syntax::envelope::{Document, Group, Transaction};
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
        self.cursor = self.cursor.min(ds.len());
        while self.cursor < ds.len() && before(&ds[self.cursor]) {
            self.cursor += 1;
        }
        let mine: Vec<&Diagnostic> = ds[self.cursor..].iter().filter(|d| inside(d)).collect();
        let jw = &mut self.jw;
        jw.buf.clear();
        jw.raw(b"{\"interchange\":");
        let isa = std::mem::take(&mut self.isa);
        jw.raw(&isa);
        self.isa = isa;
        jw.raw(b",\"group\":");
        let gs = std::mem::take(&mut self.gs);
        jw.raw(&gs);
        self.gs = gs;
        jw.raw(b",\"transaction\":");
        jw.transaction(doc, group, tx);
        jw.raw(b",\"diagnostics\":");
        // Diagnostics are few; serde_json writes them (to a Vec, which cannot fail).
        let _ = serde_json::to_writer(&mut jw.buf, &mine);
        jw.buf.push(b'}');
        // Line break overrides are the interchange's, not a set's.
        jw.overrides.clear();
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
