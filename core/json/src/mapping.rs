//! How the writer gets the `document` of a transaction set: the mapping
//! of known sets lives in a layer above this crate (`x12kit-edi`), which
//! implements [`SetMapper`]; the writer is generic over it, so the
//! mapping is inlined into the writer as if it were one crate.

use x12kit_syntax::envelope::{Document, Group, Transaction};
use x12kit_syntax::segment::Segment;

/// Maps the body segments of a set to its `document` JSON, one set at a
/// time, with buffers kept from set to set. The writer calls, per set:
/// [`maps`](SetMapper::maps) with its type, and when true
/// [`start_body`](SetMapper::start_body), [`push_body`](SetMapper::push_body)
/// for each body segment as it writes it, then
/// [`write_document`](SetMapper::write_document).
pub trait SetMapper<'a>: Default {
    /// Whether sets of type `kind` (ST01) get a `document`.
    fn maps(&self, kind: &[u8]) -> bool;
    /// A set of a type it maps starts: forget the last set's body.
    fn start_body(&mut self);
    /// A body segment of the set; `clean`: its id and element texts need
    /// no JSON escaping (the writer's fast path wrote them as they are).
    fn push_body(&mut self, seg: Segment<'a>, clean: bool);
    /// Appends the set's document (its body pushed) as compact JSON; false,
    /// leaving `out` as it was, when the set has none.
    fn write_document(
        &mut self,
        doc: &Document<'a>,
        group: &Group<'a>,
        tx: &Transaction<'a>,
        out: &mut Vec<u8>,
    ) -> bool;
}

/// A [`SetMapper`] for each input lifetime: the type parameter of the
/// writer's functions.
pub trait Documents {
    /// The mapper of an input borrowed for `'a`.
    type Mapper<'a>: SetMapper<'a> + Send;
}

/// No mapping: no set gets a `document` (the writer's own tests, and
/// callers without the EDI layer).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoDocuments;

impl SetMapper<'_> for NoDocuments {
    fn maps(&self, _kind: &[u8]) -> bool {
        false
    }
    fn start_body(&mut self) {}
    fn push_body(&mut self, _seg: Segment<'_>, _clean: bool) {}
    fn write_document(
        &mut self,
        _doc: &Document<'_>,
        _group: &Group<'_>,
        _tx: &Transaction<'_>,
        _out: &mut Vec<u8>,
    ) -> bool {
        false
    }
}

impl Documents for NoDocuments {
    type Mapper<'a> = NoDocuments;
}
