//! An adapter for rules that check a whole transaction set at once (segment
//! order, loops, counts): [`Buffered`] copies each set's segments as they
//! stream by and hands them over together when the set ends, so memory is
//! bounded by the largest set, not by the input.

use super::engine::SetRules;
use x12kit_syntax::delimiters::Delimiters;
use x12kit_syntax::diagnostics::Diagnostic;
use x12kit_syntax::segment::Segment;

/// Checks of one complete transaction set.
pub trait WholeSetRules {
    /// `segments` are the set from ST through SE (or through its last
    /// segment when SE is missing, `complete` false); `functional_id` and
    /// `version` are the group's GS01 and GS08. Segment views keep the input's
    /// segment index and byte offset, so diagnostics can be positioned with
    /// [`Diagnostic::at_segment`].
    fn check(
        &mut self,
        segments: &[Segment<'_>],
        complete: bool,
        functional_id: Option<&[u8]>,
        version: &[u8],
        out: &mut Vec<Diagnostic>,
    );
}

/// Makes [`WholeSetRules`] usable as the validator's streaming [`SetRules`].
#[derive(Debug)]
pub struct Buffered<R> {
    rules: R,
    bytes: Vec<u8>,
    /// (start, end, index, offset) of each buffered segment in `bytes`.
    spans: Vec<(usize, usize, usize, usize)>,
    delimiters: Option<Delimiters>,
    functional_id: Option<Vec<u8>>,
    version: Vec<u8>,
}

impl<R: WholeSetRules> Buffered<R> {
    /// Wraps whole-set rules.
    pub fn new(rules: R) -> Self {
        Buffered {
            rules,
            bytes: Vec::new(),
            spans: Vec::new(),
            delimiters: None,
            functional_id: None,
            version: Vec::new(),
        }
    }

    /// The wrapped rules.
    pub fn into_inner(self) -> R {
        self.rules
    }

    fn push(&mut self, seg: &Segment<'_>) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(seg.raw());
        self.spans
            .push((start, self.bytes.len(), seg.index(), seg.offset()));
    }
}

impl<R: WholeSetRules> SetRules for Buffered<R> {
    fn start(&mut self, st: &Segment<'_>, functional_id: Option<&[u8]>, version: &[u8]) {
        self.bytes.clear();
        self.spans.clear();
        self.delimiters = Some(st.delimiters());
        self.functional_id = functional_id.map(<[u8]>::to_vec);
        self.version = version.to_vec();
        self.push(st);
    }

    fn segment(&mut self, seg: &Segment<'_>, _position: u64, _out: &mut Vec<Diagnostic>) {
        self.push(seg);
    }

    fn end(&mut self, se: Option<&Segment<'_>>, out: &mut Vec<Diagnostic>) {
        if let Some(se) = se {
            self.push(se);
        }
        let Some(d) = self.delimiters else { return };
        let segments: Vec<Segment<'_>> = self
            .spans
            .iter()
            .map(|&(s, e, index, offset)| {
                Segment::new(&self.bytes[s..e], b"", offset, index, d, true)
            })
            .collect();
        self.rules.check(
            &segments,
            se.is_some(),
            self.functional_id.as_deref(),
            &self.version,
            out,
        );
    }
}
