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

impl Severity {
    /// The stable lowercase spelling (`error`, `warning`), as serialized.
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

macro_rules! codes {
    (
        parser { $( $(#[$pdoc:meta])* $pvariant:ident = $ptext:literal, )* }
        validator { $( $(#[$vdoc:meta])* $vvariant:ident = $vtext:literal, )* }
    ) => {
        /// Stable diagnostic codes. The string form (see [`Code::as_str`]) is the
        /// public contract shared by every language binding and the HTTP API.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code {
            $( $(#[$pdoc])* $pvariant, )*
            $( $(#[$vdoc])* $vvariant, )*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[ $( Code::$pvariant, )* $( Code::$vvariant, )* ];

            /// The codes the parser reports (in a parse result).
            pub const PARSER: &'static [Code] = &[ $( Code::$pvariant, )* ];

            /// The codes only the envelope validator (`x12kit::validate`) reports.
            pub const VALIDATOR: &'static [Code] = &[ $( Code::$vvariant, )* ];

            /// The stable UPPER_SNAKE spelling of the code.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( Code::$pvariant => $ptext, )*
                    $( Code::$vvariant => $vtext, )*
                }
            }

            /// Looks a code up by its UPPER_SNAKE spelling.
            pub fn from_name(name: &str) -> Option<Code> {
                match name {
                    $( $ptext => Some(Code::$pvariant), )*
                    $( $vtext => Some(Code::$vvariant), )*
                    _ => None,
                }
            }
        }
    };
}

codes! {
    parser {
        /// The input does not start with an ISA segment (empty, binary, JSON, UTF-16, text…).
        NotX12 = "NOT_X12",
        /// The delimiters read from the ISA are unusable (not distinct, alphanumeric, multi-byte…).
        Delimiters = "DELIMITERS",
        /// The ISA segment is not the fixed 106-byte layout: unreadable or truncated (an error), or readable but unpadded or hard-wrapped with line breaks inside it (a warning).
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
        /// Data other than whitespace and end-of-file padding follows the last IEA (or sits between interchanges).
        TrailingData = "TRAILING_DATA",
        /// A segment appears where the envelope does not allow it (e.g. data between SE and the next ST, or a GE with no GS).
        UnexpectedSegment = "UNEXPECTED_SEGMENT",
        /// The input starts with a UTF-8 byte order mark.
        Bom = "BOM",
        /// The input is not valid UTF-8; invalid bytes are shown as U+FFFD in JSON.
        InvalidUtf8 = "INVALID_UTF8",
        /// The last segment of the input has no segment terminator (a warning; `write` leaves it off too).
        TerminatorMissing = "TERMINATOR_MISSING",
        /// A DOS end-of-file byte (0x1A) or NUL padding follows an IEA; it is skipped and kept (a warning).
        TrailingPadding = "TRAILING_PADDING",
        /// A transaction set is larger than the cap on one set (`maxSetBytes`,
        /// 64 MiB by default): its segments are not kept; the parse goes on
        /// after its SE.
        SetTooLarge = "SET_TOO_LARGE",
    }
    validator {
        /// ISA01 (authorization information qualifier) is not 00–06.
        Isa01Invalid = "ISA01_INVALID",
        /// ISA02 (authorization information) is not 10 characters.
        Isa02Invalid = "ISA02_INVALID",
        /// ISA03 (security information qualifier) is not 00 or 01.
        Isa03Invalid = "ISA03_INVALID",
        /// ISA04 (security information) is not 10 characters.
        Isa04Invalid = "ISA04_INVALID",
        /// ISA05 (sender id qualifier) is not a known qualifier.
        Isa05Invalid = "ISA05_INVALID",
        /// ISA06 (sender id) is not 15 characters, or is blank.
        Isa06Invalid = "ISA06_INVALID",
        /// ISA07 (receiver id qualifier) is not a known qualifier.
        Isa07Invalid = "ISA07_INVALID",
        /// ISA08 (receiver id) is not 15 characters, or is blank.
        Isa08Invalid = "ISA08_INVALID",
        /// ISA09 (date) is not a real YYMMDD date.
        Isa09Invalid = "ISA09_INVALID",
        /// ISA10 (time) is not a real HHMM time.
        Isa10Invalid = "ISA10_INVALID",
        /// ISA11 is not `U` (00401 and earlier) or not a usable repetition separator (00402 and later).
        Isa11Invalid = "ISA11_INVALID",
        /// ISA12 (control version) is not a known version number.
        Isa12Invalid = "ISA12_INVALID",
        /// ISA13 (control number) is not 9 digits.
        Isa13Invalid = "ISA13_INVALID",
        /// ISA14 (acknowledgment requested) is not 0 or 1.
        Isa14Invalid = "ISA14_INVALID",
        /// ISA15 (usage indicator) is not P, T or I.
        Isa15Invalid = "ISA15_INVALID",
        /// ISA16 (component separator) is not one usable delimiter character.
        Isa16Invalid = "ISA16_INVALID",
        /// IEA01 does not equal the number of functional groups in the interchange.
        Iea01Count = "IEA01_COUNT",
        /// IEA02 does not equal ISA13.
        Iea02Control = "IEA02_CONTROL",
        /// An ISA13 interchange control number is used twice in the input.
        Isa13Duplicate = "ISA13_DUPLICATE",
        /// GS01 (functional identifier code) is not a known code.
        Gs01Invalid = "GS01_INVALID",
        /// GS02 (application sender's code) is not 2–15 characters.
        Gs02Invalid = "GS02_INVALID",
        /// GS03 (application receiver's code) is not 2–15 characters.
        Gs03Invalid = "GS03_INVALID",
        /// GS04 (date) is not a real CCYYMMDD date.
        Gs04Invalid = "GS04_INVALID",
        /// GS05 (time) is not a real HHMM, HHMMSS, HHMMSSD or HHMMSSDD time.
        Gs05Invalid = "GS05_INVALID",
        /// GS06 (group control number) is not 1–9 digits.
        Gs06Invalid = "GS06_INVALID",
        /// GS07 (responsible agency code) is not X or T.
        Gs07Invalid = "GS07_INVALID",
        /// GS08 (version / release / industry identifier) is not a 6-digit version plus up to 6 characters.
        Gs08Invalid = "GS08_INVALID",
        /// GE01 does not equal the number of transaction sets in the group.
        Ge01Count = "GE01_COUNT",
        /// GE02 does not equal GS06.
        Ge02Control = "GE02_CONTROL",
        /// A GS06 group control number is used twice in one interchange.
        Gs06Duplicate = "GS06_DUPLICATE",
        /// ST01 (transaction set identifier) is not 3 digits.
        St01Invalid = "ST01_INVALID",
        /// ST02 (transaction set control number) is not 4–9 characters.
        St02Invalid = "ST02_INVALID",
        /// An ST02 control number is used twice in one functional group.
        St02Duplicate = "ST02_DUPLICATE",
        /// SE01 does not equal the number of segments from ST through SE.
        Se01Count = "SE01_COUNT",
        /// SE02 does not equal ST02.
        Se02Control = "SE02_CONTROL",
        /// The transaction set's type does not belong to its group's functional identifier (GS01).
        Gs01Mismatch = "GS01_MISMATCH",
        /// x12kit has no definition for the transaction set's type (a warning).
        St01Unsupported = "ST01_UNSUPPORTED",
        /// Too many control numbers to check for duplicates; the rest were not checked (a warning).
        DuplicateCheckLimit = "DUPLICATE_CHECK_LIMIT",
        // Structure of the declared transaction sets (x12kit::documents): segment
        // findings map to AK304/IK304, element findings to AK403/IK403.
        /// A segment id that no transaction set x12kit knows uses (AK304/IK304 `1`).
        SegmentUnknown = "SEGMENT_UNKNOWN",
        /// A segment of this set that belongs in another loop (AK304/IK304 `2`).
        SegmentUnexpected = "SEGMENT_UNEXPECTED",
        /// A mandatory segment or loop is missing (AK304/IK304 `3`).
        SegmentMissing = "SEGMENT_MISSING",
        /// A loop repeats more often than its maximum (AK304/IK304 `4`).
        LoopTooMany = "LOOP_TOO_MANY",
        /// A segment repeats more often than its maximum use (AK304/IK304 `5`).
        SegmentTooMany = "SEGMENT_TOO_MANY",
        /// A segment that is not defined in this transaction set (AK304/IK304 `6`).
        SegmentNotInSet = "SEGMENT_NOT_IN_SET",
        /// A segment that belongs earlier in the set (AK304/IK304 `7`).
        SegmentOutOfOrder = "SEGMENT_OUT_OF_ORDER",
        /// A mandatory element is missing (AK403/IK403 `1`).
        ElementMissing = "ELEMENT_MISSING",
        /// An element a syntax rule (P, R, C, L) requires is missing (AK403/IK403 `2`).
        ElementConditionalMissing = "ELEMENT_CONDITIONAL_MISSING",
        /// An element is shorter than its minimum length (AK403/IK403 `4`).
        ElementTooShort = "ELEMENT_TOO_SHORT",
        /// An element is longer than its maximum length (AK403/IK403 `5`).
        ElementTooLong = "ELEMENT_TOO_LONG",
        /// An element does not have its data type (number, decimal) (AK403/IK403 `6`).
        ElementInvalidCharacter = "ELEMENT_INVALID_CHARACTER",
        /// An element's value is not in its (complete) code list (AK403/IK403 `7`).
        ElementInvalidCode = "ELEMENT_INVALID_CODE",
        /// A date element is not a real date (AK403/IK403 `8`).
        ElementInvalidDate = "ELEMENT_INVALID_DATE",
        /// A time element is not a real time (AK403/IK403 `9`).
        ElementInvalidTime = "ELEMENT_INVALID_TIME",
        /// More than one element of an exclusion (E) rule is present (AK403/IK403 `10`).
        ElementExclusionViolated = "ELEMENT_EXCLUSION_VIOLATED",
        /// An element that does not repeat holds a repetition separator (AK403/IK403 `12`).
        ElementTooManyRepetitions = "ELEMENT_TOO_MANY_REPETITIONS",
        /// The set's version (GS08) has no structure of its own in x12kit: it was checked
        /// against the nearest earlier version's, its findings as warnings, or not at all (a warning).
        StructureVersion = "STRUCTURE_VERSION",
        // A partner's implementation guide (x12kit::guide): each departure from
        // it maps to the 999's implementation codes (IK304 I4/I6/I7/I8,
        // IK403 I6/I9/I10/I12), or the nearest standard code where 620/621
        // have none; a 997 carries the nearest standard code (`docs/guides.md`).
        /// A segment (or loop) the guide marks "not used" is present (IK304 `I4`).
        GuideSegmentNotUsed = "GUIDE_SEGMENT_NOT_USED",
        /// A segment the guide requires is missing (IK304 `I6`).
        GuideSegmentMissing = "GUIDE_SEGMENT_MISSING",
        /// A segment occurs fewer times than the guide's minimum use (IK304 `I8`).
        GuideSegmentTooFew = "GUIDE_SEGMENT_TOO_FEW",
        /// A segment occurs more times than the guide's maximum use (IK304 `5`).
        GuideSegmentTooMany = "GUIDE_SEGMENT_TOO_MANY",
        /// A loop occurs fewer times than the guide's minimum (IK304 `I7`).
        GuideLoopTooFew = "GUIDE_LOOP_TOO_FEW",
        /// A loop occurs more times than the guide's maximum (IK304 `4`).
        GuideLoopTooMany = "GUIDE_LOOP_TOO_MANY",
        /// An element the guide requires is missing (IK403 `I9`).
        GuideElementMissing = "GUIDE_ELEMENT_MISSING",
        /// An element the guide marks "not used" is present (IK403 `I10`).
        GuideElementNotUsed = "GUIDE_ELEMENT_NOT_USED",
        /// A code valid in X12 that the guide does not use (IK403 `I6`).
        GuideCodeNotUsed = "GUIDE_CODE_NOT_USED",
        /// A value that is not the guide's fixed value (IK403 `I6`).
        GuideValue = "GUIDE_VALUE",
        /// A value that does not match the guide's pattern (IK403 `I12`).
        GuidePattern = "GUIDE_PATTERN",
        /// An element shorter than the guide's minimum length (IK403 `4`).
        GuideElementTooShort = "GUIDE_ELEMENT_TOO_SHORT",
        /// An element longer than the guide's maximum length (IK403 `5`).
        GuideElementTooLong = "GUIDE_ELEMENT_TOO_LONG",
        /// Guides were given for the set's type, but none for its version: the
        /// set was checked against the standard alone (a warning).
        GuideNotApplied = "GUIDE_NOT_APPLIED",
    }
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
    /// The acknowledgement codes the finding maps to (set by `x12kit::validate`);
    /// boxed so that diagnostics, which travel inside every token, stay small.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ack: Option<Box<AckCodes>>,
    /// For a departure from a partner's implementation guide: the JSON
    /// pointer of the guide's rule it breaks (`/segments/BEG/elements/BEG02/codes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guide_pointer: Option<Box<str>>,
}

/// The TA1 / 997 / 999 codes a diagnostic maps to (reference §4–5), plus the
/// details of a segment or element finding that AK3/AK4 (997) and IK3/IK4
/// (999) carry. Every field is optional; codes are the X12 code values.
///
/// The codes are those of the 005010 lists (I18, 716, 618, 620, 621); the
/// acknowledgement builder translates the few that differ in a 997 (see
/// `docs/validation.md`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AckCodes {
    /// TA105 interchange note code (element I18), e.g. `001`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ta1: Option<&'static str>,
    /// AK905 functional group syntax error code (element 716), e.g. `5`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ak9: Option<&'static str>,
    /// AK502 / IK502 transaction set syntax error code (elements 718 / 618), e.g. `4`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ik5: Option<&'static str>,
    /// AK304 / IK304 segment syntax error code (elements 720 / 620), e.g. `1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ik3: Option<&'static str>,
    /// AK403 / IK403 element syntax error code (elements 723 / 621), e.g. `7`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ik4: Option<&'static str>,
    /// AK303 / IK303: the loop identifier the segment belongs to, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loop_id: Option<String>,
    /// AK401-2 / IK401-2: 1-based component position inside the element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<u32>,
    /// IK401-3: 1-based repetition position of a repeated element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repetition: Option<u32>,
    /// AK402 / IK402: the data element reference number (e.g. 143 for ST01).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element_reference: Option<u32>,
    /// AK404 / IK404: a copy of the bad value (at most 99 characters are written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

impl AckCodes {
    /// Maps to a TA105 interchange note code.
    pub fn ta1(code: &'static str) -> Self {
        AckCodes {
            ta1: Some(code),
            ..Self::default()
        }
    }

    /// Maps to an AK905 functional group error code.
    pub fn ak9(code: &'static str) -> Self {
        AckCodes {
            ak9: Some(code),
            ..Self::default()
        }
    }

    /// Maps to an AK502 / IK502 transaction set error code.
    pub fn ik5(code: &'static str) -> Self {
        AckCodes {
            ik5: Some(code),
            ..Self::default()
        }
    }

    /// Maps to an AK304 / IK304 segment error code.
    pub fn segment(code: &'static str) -> Self {
        AckCodes {
            ik3: Some(code),
            ..Self::default()
        }
    }

    /// Maps to an AK403 / IK403 element error code (the segment gets AK304 / IK304 `8`).
    pub fn element(code: &'static str) -> Self {
        AckCodes {
            ik4: Some(code),
            ..Self::default()
        }
    }

    /// True when no code is set.
    pub fn is_empty(&self) -> bool {
        self.ta1.is_none()
            && self.ak9.is_none()
            && self.ik5.is_none()
            && self.ik3.is_none()
            && self.ik4.is_none()
    }
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
            ack: None,
            guide_pointer: None,
        }
    }

    /// Sets the byte offset.
    pub fn at_offset(mut self, offset: usize) -> Self {
        self.offset = Some(offset);
        self
    }

    /// Sets the 1-based element position.
    pub fn at_element(mut self, element: u32) -> Self {
        self.element = Some(element);
        self
    }

    /// Sets the acknowledgement codes the finding maps to.
    pub fn with_ack(mut self, ack: AckCodes) -> Self {
        self.ack = Some(Box::new(ack));
        self
    }

    /// Sets the pointer of the guide rule the finding breaks.
    pub fn with_guide_pointer(mut self, pointer: &str) -> Self {
        self.guide_pointer = Some(pointer.into());
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
        if let Some(g) = &self.guide_pointer {
            parts.push(format!("guide {g}"));
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
