//! Diagnostics: the one type every structural or validation finding is
//! reported with.
//!
//! A [`Diagnostic`] is data, not an error: parsing never fails on bad X12, it
//! reports what it found. Each diagnostic carries a stable [`Code`] (its
//! UPPER_SNAKE spelling never changes once released), a [`Severity`], a message
//! a person can act on, and where known the position of the problem.

use serde::{Serialize, Serializer};
use std::fmt;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The input breaks a rule; a receiver should reject or fix it.
    Error,
    /// The input is usable but unusual; worth a look.
    Warning,
}

macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $text:literal, )*) => {
        /// Stable diagnostic codes. The string form (see [`Code::as_str`]) is the
        /// public contract shared by every language binding and the HTTP API.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code {
            $( $(#[$doc])* $variant, )*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[ $( Code::$variant, )* ];

            /// The stable UPPER_SNAKE spelling of the code.
            pub const fn as_str(self) -> &'static str {
                match self { $( Code::$variant => $text, )* }
            }

            /// Looks a code up by its UPPER_SNAKE spelling.
            pub fn from_name(name: &str) -> Option<Code> {
                match name { $( $text => Some(Code::$variant), )* _ => None }
            }
        }
    };
}

codes! {
    /// The input does not start with an ISA segment (empty, binary, JSON, UTF-16, text…).
    NotX12 = "NOT_X12",
    /// The delimiters read from the ISA are unusable (not distinct, alphanumeric, multi-byte…).
    Delimiters = "DELIMITERS",
    /// The ISA segment is not the fixed 106-byte layout (or is truncated).
    IsaLayout = "ISA_LAYOUT",
    /// An interchange has no IEA trailer.
    IeaMissing = "IEA_MISSING",
    /// A functional group has no GE trailer.
    GeMissing = "GE_MISSING",
    /// A transaction set has no SE trailer.
    SeMissing = "SE_MISSING",
    /// A transaction set (ST) appears outside a functional group (GS…GE).
    StOutsideGroup = "ST_OUTSIDE_GROUP",
    /// A segment identifier is not 2–3 upper-case letters or digits.
    SegmentId = "SEGMENT_ID",
    /// Non-whitespace data follows the last IEA (or sits between interchanges).
    TrailingData = "TRAILING_DATA",
    /// A segment appears where the envelope does not allow it (e.g. data between SE and the next ST, or a GE with no GS).
    UnexpectedSegment = "UNEXPECTED_SEGMENT",
    /// The input starts with a UTF-8 byte order mark.
    Bom = "BOM",
    /// The input is not valid UTF-8; invalid bytes are shown as U+FFFD in JSON.
    InvalidUtf8 = "INVALID_UTF8",
    /// The last segment of the input has no segment terminator.
    TerminatorMissing = "TERMINATOR_MISSING",
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One finding about the input: what, how bad, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Stable code.
    pub code: Code,
    /// A sentence a person can act on.
    pub message: String,
    /// 0-based position of the segment in the input, counting every segment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment_index: Option<usize>,
    /// Identifier of the segment concerned (e.g. `SE`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment_id: Option<String>,
    /// 1-based element position inside the segment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element: Option<u32>,
    /// Byte offset in the input where the problem starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
}

impl Diagnostic {
    /// A new error diagnostic with no position.
    pub fn error(code: Code, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, message)
    }

    /// A new warning diagnostic with no position.
    pub fn warning(code: Code, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, code, message)
    }

    fn new(severity: Severity, code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            code,
            message: message.into(),
            segment_index: None,
            segment_id: None,
            element: None,
            offset: None,
        }
    }

    /// Sets the byte offset.
    pub fn at_offset(mut self, offset: usize) -> Self {
        self.offset = Some(offset);
        self
    }

    /// Sets segment index, id and byte offset from a segment.
    pub fn at_segment(mut self, seg: &crate::segment::Segment<'_>) -> Self {
        self.segment_index = Some(seg.index());
        self.segment_id = Some(String::from_utf8_lossy(seg.id()).into_owned());
        self.offset = Some(seg.offset());
        self
    }

    /// Sets the 1-based element position.
    pub fn at_element(mut self, element: u32) -> Self {
        self.element = Some(element);
        self
    }

    /// True for [`Severity::Error`].
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev} {}: {}", self.code, self.message)?;
        let mut parts = Vec::new();
        if let Some(i) = self.segment_index {
            match &self.segment_id {
                Some(id) => parts.push(format!("segment {i} ({id})")),
                None => parts.push(format!("segment {i}")),
            }
        }
        if let Some(e) = self.element {
            parts.push(format!("element {e}"));
        }
        if let Some(o) = self.offset {
            parts.push(format!("byte {o}"));
        }
        if !parts.is_empty() {
            write!(f, " [{}]", parts.join(", "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_their_names() {
        for &c in Code::ALL {
            assert_eq!(Code::from_name(c.as_str()), Some(c));
            let s = c.as_str();
            assert!(
                s.bytes()
                    .all(|b| b.is_ascii_uppercase() || b == b'_' || b.is_ascii_digit()),
                "{s}"
            );
        }
        assert_eq!(Code::from_name("nope"), None);
    }

    #[test]
    fn serializes_camel_case_and_skips_unknown_positions() {
        let d = Diagnostic::error(Code::SeMissing, "x")
            .at_offset(7)
            .at_element(2);
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"severity":"error","code":"SE_MISSING","message":"x","element":2,"offset":7})
        );
    }
}
