//! What the structure checks report: a [`Finding`] is one problem of a
//! received set (a segment out of place, a missing or bad element, a broken
//! syntax rule) with its position and the AK3/AK4 (997) and IK3/IK4 (999)
//! codes an acknowledgement reports it with; [`Finding::to_diagnostic`]
//! turns it into the crate's [`Diagnostic`].

use x12kit_syntax::diagnostics::{AckCodes, Code, Diagnostic, Severity};

/// A structure or element problem in a received set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Stable code (one of the structure codes of [`Code`]).
    pub code: Code,
    /// What is wrong.
    pub message: String,
    /// 0-based index of the segment concerned (for a missing segment: where it was expected).
    pub segment_index: usize,
    /// Byte offset of that segment.
    pub offset: usize,
    /// Segment id (the missing one, for a missing segment).
    pub segment_id: String,
    /// 1-based element position, for element errors.
    pub element: Option<u32>,
    /// 1-based component position inside the element.
    pub component: Option<u32>,
    /// Segment error code for AK304/IK304.
    pub segment_code: Option<&'static str>,
    /// Element error code for AK403/IK403.
    pub element_code: Option<&'static str>,
    /// The bad value (for AK404/IK404).
    pub value: Option<String>,
    /// Loop id of the segment (AK303/IK303), when inside a loop.
    pub loop_id: Option<String>,
    /// Error, or warning: a finding of a version checked against another
    /// version's structure ([`super::Coverage::Nearest`]) and the note that
    /// says so. Warnings carry no acknowledgement codes.
    pub severity: Severity,
    /// For a departure from an implementation guide: the pointer of the
    /// guide's rule ([`Diagnostic::guide_pointer`]).
    pub guide: Option<Box<str>>,
}

impl Finding {
    /// The finding as a diagnostic, with its AK3/AK4 (997) and IK3/IK4 (999) codes.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let ack = AckCodes {
            // IK502 `I5` (implementation: one or more segments in error)
            // for a departure from a guide; a 997 writes `5`.
            ik5: Some(if self.guide.is_some() { "I5" } else { "5" }),
            ik3: self.segment_code,
            ik4: self.element_code,
            loop_id: self.loop_id.clone(),
            component: self.component,
            value: self.value.as_ref().map(|v| v.chars().take(99).collect()),
            ..AckCodes::default()
        };
        let mut d = if self.severity == Severity::Error {
            Diagnostic::error(self.code, self.message.clone())
                .at_offset(self.offset)
                .with_ack(ack)
        } else {
            Diagnostic::warning(self.code, self.message.clone()).at_offset(self.offset)
        };
        d.segment_index = Some(self.segment_index);
        d.segment_id = Some(self.segment_id.clone());
        d.element = self.element;
        d.guide_pointer = self.guide.clone();
        d
    }
}
