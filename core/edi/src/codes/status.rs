//! The outcome codes of TA104, AK501 / IK501 and AK901 (a leaf).

use serde::Serialize;

/// Accepted, accepted with errors noted, partially accepted, or rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    /// No error: code `A`.
    Accepted,
    /// Accepted, but errors were noted: code `E`. The validator gives it to
    /// an interchange whose only errors are in its groups (TA105 024); a set
    /// or group is accepted or rejected (warnings never count).
    AcceptedWithErrors,
    /// Groups only: some sets rejected, some accepted: code `P`.
    PartiallyAccepted,
    /// Rejected: code `R`.
    Rejected,
}

impl Status {
    /// The X12 code: `A`, `E`, `P` or `R` (TA104, AK501 / IK501, AK901).
    pub fn code(self) -> &'static str {
        match self {
            Status::Accepted => "A",
            Status::AcceptedWithErrors => "E",
            Status::PartiallyAccepted => "P",
            Status::Rejected => "R",
        }
    }

    /// True for `A` and `E` (what AK904 counts).
    pub fn is_accepted(self) -> bool {
        matches!(self, Status::Accepted | Status::AcceptedWithErrors)
    }
}
