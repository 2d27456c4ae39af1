//! The parse result's JSON written a transaction set at a time
//! ([`x12kit_syntax::sets::parse_sets`]): the bytes of the whole-tree
//! writer, with memory that follows the largest set.

use super::emit::{JsonWriter, RELEASE_EVERY};
use crate::mapping::SetMapper;
use x12kit_syntax::envelope::{Document, Group, Transaction};
use x12kit_syntax::sets::{Outline, SetHandler};

/// Writes what [`parse_sets`](x12kit_syntax::sets::parse_sets) hands
/// over, in order, with the separators the whole-tree writer puts between
/// interchanges, groups and sets.
pub(super) struct SetWriter<'a, 's, 'r, M> {
    pub(super) jw: JsonWriter<'a, 's, M>,
    first_interchange: bool,
    first_group: bool,
    first_set: bool,
    released: usize,
    release: &'r mut dyn FnMut(usize),
    /// Pages read ahead that may be dropped (see [`SetHandler::read_ahead`]).
    pub(super) ahead: Option<&'r mut dyn FnMut(usize, usize)>,
}

impl<'a, 's, 'r, M: SetMapper<'a>> SetWriter<'a, 's, 'r, M> {
    pub(super) fn new(jw: JsonWriter<'a, 's, M>, release: &'r mut dyn FnMut(usize)) -> Self {
        SetWriter {
            jw,
            first_interchange: true,
            first_group: true,
            first_set: true,
            released: 0,
            release,
            ahead: None,
        }
    }
}

/// A `,` unless this is the first item of its array.
fn separate(buf: &mut Vec<u8>, first: &mut bool) {
    if !std::mem::take(first) {
        buf.push(b',');
    }
}

impl<'a, M: SetMapper<'a>> SetHandler<'a> for SetWriter<'a, '_, '_, M> {
    fn interchange(&mut self, outline: &Outline<'a>) {
        separate(&mut self.jw.buf, &mut self.first_interchange);
        self.jw
            .interchange_open(&outline.interchange, &outline.starts);
        self.first_group = true;
    }

    fn group(&mut self, outline: &Outline<'a>, n: usize) {
        separate(&mut self.jw.buf, &mut self.first_group);
        self.jw.group_open(&outline.interchange.groups[n]);
        self.first_set = true;
    }

    fn transaction(
        &mut self,
        doc: &Document<'a>,
        group: &Group<'a>,
        tx: &Transaction<'a>,
        upto: usize,
    ) {
        separate(&mut self.jw.buf, &mut self.first_set);
        self.jw.transaction(doc, group, tx);
        self.jw.maybe_flush();
        if upto >= self.released + RELEASE_EVERY {
            self.released = upto;
            (self.release)(upto);
        }
    }

    fn group_end(&mut self, outline: &Outline<'a>, n: usize) {
        self.jw
            .group_close(outline.interchange.groups[n].ge.as_ref());
    }

    fn interchange_end(&mut self, outline: &Outline<'a>, upto: usize) {
        self.jw.interchange_close(outline.interchange.iea.as_ref());
        self.jw.maybe_flush();
        self.released = upto;
        (self.release)(upto);
    }

    fn read_ahead(&mut self, from: usize, to: usize) {
        if let Some(a) = self.ahead.as_mut() {
            a(from, to);
        }
    }
}
