//! The outcome of validation per interchange, functional group and
//! transaction set: what a TA1, AK9 and AK5 / IK5 report.

use serde::Serialize;
use x12kit_syntax::delimiters::Delimiters;
use x12kit_syntax::diagnostics::Diagnostic;

pub use crate::codes::Status;

/// The result of validating an input: per-interchange summaries and every
/// diagnostic (the parser's, with their acknowledgement codes, and the
/// validator's), in input order.
///
/// Serializes as `{"valid", "errorCount", "warningCount", "interchanges",
/// "diagnostics", "acknowledgements"?}`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Validation {
    /// One summary per interchange, in input order (see [`InterchangeSummary::recovered`]).
    pub interchanges: Vec<InterchangeSummary>,
    /// Every diagnostic, in input order.
    pub diagnostics: Vec<Diagnostic>,
    /// What the received acknowledgements (TA1, 997, 999) in the input say, when there are any.
    pub acknowledgements: Option<crate::received::Acknowledgements>,
}

impl Validation {
    /// True when no diagnostic is an error.
    pub fn is_valid(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Number of error diagnostics.
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// Number of warning diagnostics.
    pub fn warning_count(&self) -> usize {
        self.diagnostics.len() - self.error_count()
    }
}

/// What TA104 / TA105 say about an interchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ta1Outcome {
    /// TA104: `A`, `E` or `R`.
    pub code: &'static str,
    /// TA105: the interchange note code, `000` when there is no error.
    pub note: &'static str,
}

/// One interchange: its identity (what an acknowledgement echoes) and outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InterchangeSummary {
    /// ISA13 as received.
    pub control_number: String,
    /// ISA05.
    pub sender_qualifier: String,
    /// ISA06, padding removed.
    pub sender_id: String,
    /// ISA07.
    pub receiver_qualifier: String,
    /// ISA08, padding removed.
    pub receiver_id: String,
    /// ISA09 (YYMMDD).
    pub date: String,
    /// ISA10 (HHMM).
    pub time: String,
    /// ISA12.
    pub version: String,
    /// ISA14 (`1`: the sender asks for a TA1).
    pub ack_requested: String,
    /// ISA15 (`P`, `T` or `I`).
    pub usage: String,
    /// The interchange's delimiters (not serialized; the ack builder writes with them).
    #[serde(skip)]
    pub delimiters: Option<Delimiters>,
    /// 0-based index of the ISA segment (absent when [`Self::recovered`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment_index: Option<usize>,
    /// Byte offset of the ISA.
    pub offset: usize,
    /// True when the ISA could not be parsed and these fields were read at
    /// their fixed positions, only to address a TA1 (no groups are known).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub recovered: bool,
    /// Accepted, accepted with errors, or rejected.
    pub status: Status,
    /// TA104 / TA105.
    pub ta1: Ta1Outcome,
    /// Number of functional groups (GS) received.
    pub group_count: usize,
    /// The functional groups (kept as [`super::Options::retain`] says).
    pub groups: Vec<GroupSummary>,
}

/// AK9 of a functional group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ak9Outcome {
    /// AK901: `A`, `P` or `R` (see [`Status`]).
    pub code: &'static str,
    /// AK902: transaction sets included, as GE01 says (the count received when GE01 is missing or unreadable).
    pub included: u64,
    /// AK903: transaction sets received.
    pub received: u64,
    /// AK904: transaction sets accepted (`A` or `E`).
    pub accepted: u64,
    /// AK905–AK909: group error codes (element 716; at most five are written).
    pub errors: Vec<&'static str>,
}

/// One functional group: its identity and outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupSummary {
    /// GS01; `None` for the implicit group of sets found outside any GS.
    pub functional_id: Option<String>,
    /// GS02.
    pub sender_code: String,
    /// GS03.
    pub receiver_code: String,
    /// GS06 as received.
    pub control_number: String,
    /// GS07.
    pub agency: String,
    /// GS08.
    pub version: String,
    /// 0-based index of the GS segment (of the first ST for an implicit group).
    pub segment_index: usize,
    /// Accepted, partially accepted, or rejected.
    pub status: Status,
    /// What AK9 reports.
    pub ak9: Ak9Outcome,
    /// The transaction sets (kept as [`super::Options::retain`] says).
    pub transactions: Vec<SetSummary>,
}

/// AK5 / IK5 of a transaction set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ak5Outcome {
    /// AK501 / IK501: `A` or `R` (see [`Status`]).
    pub code: &'static str,
    /// AK502–AK506 / IK502–IK506: set error codes (element 718 / 618; at most five are written).
    pub errors: Vec<&'static str>,
}

/// One transaction set: its identity and outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetSummary {
    /// ST01.
    #[serde(rename = "type")]
    pub kind: String,
    /// ST02.
    pub control_number: String,
    /// ST03, when present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub implementation_reference: Option<String>,
    /// 0-based index of the ST segment.
    pub segment_index: usize,
    /// Segments counted from ST through SE (or through the last segment when SE is missing).
    pub segment_count: usize,
    /// Accepted or rejected.
    pub status: Status,
    /// What AK5 / IK5 report.
    pub ak5: Ak5Outcome,
    /// Segment and element findings: what AK3/AK4 and IK3/IK4 report.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub segment_errors: Vec<SegmentError>,
}

/// A segment with errors (AK3 / IK3) and its element errors (AK4 / IK4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentError {
    /// AK301 / IK301: the segment identifier.
    pub segment_id: String,
    /// AK302 / IK302: position in the set, ST = 1.
    pub position: u64,
    /// 0-based index of the segment in the input.
    pub segment_index: usize,
    /// AK303 / IK303: loop identifier, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loop_id: Option<String>,
    /// AK304 / IK304 codes of the segment itself (element 620); `8` is added
    /// when writing if there are element errors.
    pub codes: Vec<&'static str>,
    /// The element errors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub elements: Vec<ElementError>,
}

/// An element error (AK4 / IK4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ElementError {
    /// AK401-1 / IK401-1: element position in the segment.
    pub position: u32,
    /// AK401-2 / IK401-2: component position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<u32>,
    /// IK401-3: repetition position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repetition: Option<u32>,
    /// AK402 / IK402: data element reference number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<u32>,
    /// AK403 / IK403 (element 621).
    pub code: &'static str,
    /// AK404 / IK404: copy of the bad value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}
