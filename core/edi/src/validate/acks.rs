//! Reading the acknowledgements an input carries (TA1 segments, 997 / 999
//! sets) as the envelope events stream by, exactly as
//! [`crate::received::read`] reads them from a parsed [`x12kit_syntax::Document`]: a TA1
//! directly inside an interchange (or after its IEA, before the next ISA)
//! belongs to the last interchange started; a 997 / 999 is read from its ST
//! through its last body segment. Only the acknowledgement being read is
//! held; each one goes to the [`Sink`](super::Sink) when it is complete.

use crate::received::{self, GroupAck, InterchangeAck};
use x12kit_syntax::envelope::isa_value;
use x12kit_syntax::segment::Segment;

#[derive(Debug, Default)]
pub(crate) struct AckReader {
    /// Off while replaying a parsed document (its acknowledgements are read
    /// from the tree, whose bodies the replay may skip).
    pub(crate) off: bool,
    /// ISA13 of the last interchange started.
    carried_by: Option<String>,
    /// The 997 / 999 being read, with its component separator.
    open: Option<(GroupAck, u8)>,
}

impl AckReader {
    pub(crate) fn interchange_start(&mut self, isa: &Segment<'_>) {
        if !self.off {
            self.carried_by = Some(String::from_utf8_lossy(&isa_value(isa, 13)).into_owned());
        }
    }

    pub(crate) fn interchange_segment(&mut self, seg: &Segment<'_>) -> Option<InterchangeAck> {
        if self.off || !seg.is(b"TA1") {
            return None;
        }
        let carried_by = self.carried_by.as_deref()?;
        Some(received::interchange_ack(seg, carried_by))
    }

    /// A set starts; `st01` is its ST01.
    pub(crate) fn transaction_start(&mut self, st: &Segment<'_>, st01: &[u8]) {
        self.open = None;
        if self.off || !received::is_group_ack(st01) {
            return;
        }
        if let Some(carried_by) = self.carried_by.as_deref() {
            self.open = Some((
                received::group_ack(st, carried_by),
                st.delimiters().component,
            ));
        }
    }

    /// A 997 / 999 is being read: its body segments are needed.
    #[inline]
    pub(crate) fn reading(&self) -> bool {
        self.open.is_some()
    }

    pub(crate) fn segment(&mut self, seg: &Segment<'_>) {
        if let Some((a, component)) = self.open.as_mut() {
            received::group_ack_segment(a, seg, *component);
        }
    }

    pub(crate) fn transaction_end(&mut self) -> Option<GroupAck> {
        self.open.take().map(|(a, _)| a)
    }

    /// Approximate heap bytes of the acknowledgement being read.
    pub(crate) fn retained_bytes(&self) -> usize {
        self.open.as_ref().map_or(0, |(a, _)| {
            std::mem::size_of::<GroupAck>()
                + a.transactions.capacity() * std::mem::size_of::<received::SetAck>()
        })
    }
}
