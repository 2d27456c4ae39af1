//! Envelope validation: the interchange (ISA/IEA), functional group (GS/GE)
//! and transaction set (ST/SE) rules, each reported as a [`Diagnostic`] with a
//! stable [`Code`](x12kit_syntax::Code) and the TA1 / 997 / 999 codes it maps to
//! ([`AckCodes`](x12kit_syntax::diagnostics::AckCodes)), plus a [`Validation`]
//! summary per interchange, group and set (accepted / accepted with errors /
//! partially accepted / rejected, and the counts AK9 needs).
//!
//! The rules run in one engine, [`Validator`], a [`Handler`](x12kit_syntax::Handler) of the envelope
//! machine that keeps only counters and control numbers, so the same checks
//! run over a parsed [`Document`] ([`validate()`](crate::validation::validate())) and over a stream of any size
//! ([`validate_reader`](crate::validation::validate_reader) for an [`io::Read`], [`StreamValidator`] for chunks
//! pushed as they arrive, or a [`Validator`] fed by an
//! [`Envelope`](x12kit_syntax::Envelope) yourself).
//! The parser's own diagnostics (`SE_MISSING`, `SEGMENT_ID`, …) are not
//! re-detected: they pass through the engine, which maps them to their
//! acknowledgement codes. `docs/validation.md` lists every rule.
//!
//! ```
//! let x12 = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*4*0001~GE*1*1~IEA*1*000000001~";
//! let v = x12kit_edi::validation::validate(&x12kit_syntax::parse(x12));
//! assert!(!v.is_valid());
//! let d = &v.diagnostics[0];
//! assert_eq!(d.code.as_str(), "SE01_COUNT");
//! assert_eq!(d.message, "SE01 says 4 segments but the transaction set 0001 (850) has 3 (ST through SE, both included)");
//! assert_eq!(d.ack.as_ref().unwrap().ik5, Some("4"));
//! assert_eq!(v.interchanges[0].groups[0].ak9.code, "R");
//! ```

mod acks;
pub(crate) mod check;
mod engine;
pub(crate) mod mapping;
mod recover;
pub(crate) mod replay;
mod stream;
mod summary;
mod whole;

pub use engine::{Options, Retain, SetRules, Sink, Validator};
pub use stream::StreamValidator;
pub use summary::{
    Ak5Outcome, Ak9Outcome, ElementError, GroupSummary, InterchangeSummary, SegmentError,
    SetSummary, Status, Ta1Outcome, Validation,
};
pub use whole::{Buffered, WholeSetRules};

use replay::Replay;
use serde::ser::{Serialize, SerializeStruct, Serializer};
use std::io;
use x12kit_syntax::diagnostics::Diagnostic;
use x12kit_syntax::envelope::Document;

impl<S: Sink> Validator<S> {
    /// Runs the validator over a parsed document (replaying its events, not
    /// tokenizing again) and returns the sink, which also gets the
    /// acknowledgements the document carries ([`crate::ack::read`]).
    pub fn run(mut self, doc: &Document<'_>) -> S {
        self.read_acks_from_events(false);
        replay::replay(doc, &mut self);
        self.read_acks_from_events(true);
        self.acknowledgements(crate::received::read(doc));
        self.finish()
    }

    /// Runs the validator over X12 read in chunks from `reader` and returns the sink.
    /// The same path as a [`StreamValidator`] fed the chunks read.
    pub fn read<R: io::Read>(self, reader: R) -> io::Result<S> {
        StreamValidator::with_validator(self).read(reader)
    }
}

impl<'a, S: Sink> Replay<'a> for Validator<S> {
    fn wants_body(&self) -> bool {
        self.has_rules()
    }

    fn body_count(&mut self, n: usize) {
        self.add_body_segments(n);
    }

    fn unreadable_isa(&mut self, bytes: &[u8], d: &Diagnostic) {
        let scope = self.current_scope();
        if let Some(note) = mapping::parser_codes(d, scope).and_then(|a| a.ta1) {
            let offset = d.offset.unwrap_or_default();
            Validator::unreadable_isa(self, bytes, offset, note);
        }
    }
}

impl Serialize for Validation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Validation", 6)?;
        st.serialize_field("valid", &self.is_valid())?;
        st.serialize_field("errorCount", &self.error_count())?;
        st.serialize_field("warningCount", &self.warning_count())?;
        st.serialize_field("interchanges", &self.interchanges)?;
        st.serialize_field("diagnostics", &self.diagnostics)?;
        if let Some(a) = &self.acknowledgements {
            st.serialize_field("acknowledgements", a)?;
        }
        st.end()
    }
}

impl Validation {
    /// The validation result as compact JSON (the shape of
    /// `schema/validation-result.schema.json`).
    pub fn to_json(&self) -> Vec<u8> {
        x12kit_json::to_vec(self)
    }

    /// The validation result as indented JSON.
    pub fn to_json_pretty(&self) -> Vec<u8> {
        x12kit_json::to_vec_pretty(self)
    }
}
