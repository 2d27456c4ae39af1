//! The one error type of every call that fails outright (as opposed to
//! diagnostics, which describe problems in X12 input that was still read).
//!
//! An [`Error`] carries a stable [`ErrorCode`] (its UPPER_SNAKE spelling is
//! the contract shared by the CLI, C, Python, Node, WASM and HTTP), an
//! [`ErrorKind`] that says what a caller does with it (HTTP 400 vs 422 vs
//! 500, `TypeError` vs the binding's own exception), a message for a person,
//! the JSON pointer of the offending value where there is one, and the
//! [`Problem`]s found (every problem of a refused payload, for example).
//! `docs/errors.md` lists every code; it is generated from [`ErrorCode::ALL`]
//! and checked for drift by the tests.

use crate::diagnostics::Severity;
use crate::escape::string_into;
use serde::ser::{Serialize, SerializeStruct, Serializer};
use std::fmt;

/// What a caller does with an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The call itself is wrong: malformed JSON, an unknown option, a value of
    /// the wrong type (HTTP 400; Python `ValueError`/`TypeError`; JS `TypeError`).
    InvalidInput,
    /// Well-formed input whose content is refused: payload problems, a
    /// webhook that is not authentic (HTTP 422; the binding's own exception).
    Rejected,
    /// Reading or writing failed.
    Io,
    /// A bug in x12kit (HTTP 500, never shown in detail); please report it.
    Internal,
}

impl ErrorKind {
    /// The stable snake_case spelling (`invalid_input`, `rejected`, `io`, `internal`).
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidInput => "invalid_input",
            ErrorKind::Rejected => "rejected",
            ErrorKind::Io => "io",
            ErrorKind::Internal => "internal",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! error_codes {
    ( $( $(#[doc = $doc:literal])* $variant:ident = $text:literal, $kind:ident; )* ) => {
        /// Stable error codes: the code of an [`Error`] and of each of its [`Problem`]s.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[ $( ErrorCode::$variant, )* ];

            /// The stable UPPER_SNAKE spelling.
            pub const fn as_str(self) -> &'static str {
                match self { $( ErrorCode::$variant => $text, )* }
            }

            /// Looks a code up by its UPPER_SNAKE spelling.
            pub fn from_name(name: &str) -> Option<ErrorCode> {
                match name { $( $text => Some(ErrorCode::$variant), )* _ => None }
            }

            /// What a caller does with an error of this code.
            pub const fn kind(self) -> ErrorKind {
                match self { $( ErrorCode::$variant => ErrorKind::$kind, )* }
            }

            /// The one-line meaning of the code (its documentation).
            pub const fn meaning(self) -> &'static str {
                match self { $( ErrorCode::$variant => concat!($( $doc ),*), )* }
            }
        }
    };
}

error_codes! {
    /// The text given as JSON does not parse as JSON.
    InvalidJson = "INVALID_JSON", InvalidInput;
    /// An option is unknown or has the wrong type or value (the pointer names it).
    InvalidOptions = "INVALID_OPTIONS", InvalidInput;
    /// An argument is unusable: a wrong type, an impossible length, a call the object does not support in its state.
    InvalidArgument = "INVALID_ARGUMENT", InvalidInput;
    /// A required pointer argument was NULL (C library).
    NullPointer = "NULL_POINTER", InvalidInput;
    /// Text that must be UTF-8 is not.
    InvalidUtf8 = "INVALID_UTF8", InvalidInput;
    /// A date or time is not a real calendar date (CCYYMMDD) and time (HHMM).
    InvalidTimestamp = "INVALID_TIMESTAMP", InvalidInput;
    /// A control number is outside 1–999999999.
    InvalidControlNumber = "INVALID_CONTROL_NUMBER", InvalidInput;
    /// The JSON is not a parse result (the pointer names the offending value).
    InvalidParseResult = "INVALID_PARSE_RESULT", InvalidInput;
    /// The delimiters given are unusable (not distinct, alphanumeric, not one byte).
    InvalidDelimiters = "INVALID_DELIMITERS", InvalidInput;
    /// A value contains one of the delimiters, so writing it would corrupt the X12 (X12 has no escape).
    ContainsDelimiter = "CONTAINS_DELIMITER", Rejected;
    /// The document type is not one that x12kit renders.
    UnknownDocumentType = "UNKNOWN_DOCUMENT_TYPE", Rejected;
    /// The document type does not exist in the partner's X12 version.
    UnsupportedVersion = "UNSUPPORTED_VERSION", Rejected;
    /// The payload cannot be rendered; the details list every problem.
    InvalidPayload = "INVALID_PAYLOAD", Rejected;
    /// The partner profile is unusable; the details list every problem.
    InvalidPartner = "INVALID_PARTNER", Rejected;
    /// An implementation guide is unusable (not JSON, unknown keys, a path or element the set does not have, a rule that widens the standard); the details list every problem with its pointer.
    InvalidGuide = "INVALID_GUIDE", Rejected;
    /// Render under a partner's guide: a field would produce a segment or loop the guide marks not used.
    GuideSegmentNotUsed = "GUIDE_SEGMENT_NOT_USED", Rejected;
    /// Render under a partner's guide: a segment the guide requires would be missing.
    GuideSegmentMissing = "GUIDE_SEGMENT_MISSING", Rejected;
    /// Render under a partner's guide: fewer occurrences of a segment than the guide's minimum use.
    GuideSegmentTooFew = "GUIDE_SEGMENT_TOO_FEW", Rejected;
    /// Render under a partner's guide: more occurrences of a segment than the guide's maximum use.
    GuideSegmentTooMany = "GUIDE_SEGMENT_TOO_MANY", Rejected;
    /// Render under a partner's guide: fewer occurrences of a loop than the guide's minimum.
    GuideLoopTooFew = "GUIDE_LOOP_TOO_FEW", Rejected;
    /// Render under a partner's guide: more occurrences of a loop than the guide's maximum.
    GuideLoopTooMany = "GUIDE_LOOP_TOO_MANY", Rejected;
    /// Render under a partner's guide: an element the guide requires would be missing.
    GuideElementMissing = "GUIDE_ELEMENT_MISSING", Rejected;
    /// Render under a partner's guide: a field fills an element the guide marks not used.
    GuideElementNotUsed = "GUIDE_ELEMENT_NOT_USED", Rejected;
    /// Render under a partner's guide: a code valid in X12 that the guide does not use.
    GuideCodeNotUsed = "GUIDE_CODE_NOT_USED", Rejected;
    /// Render under a partner's guide: a value that is not the guide's fixed value.
    GuideValue = "GUIDE_VALUE", Rejected;
    /// Render under a partner's guide: a value that does not match the guide's pattern.
    GuidePattern = "GUIDE_PATTERN", Rejected;
    /// Render under a partner's guide: a value shorter than the guide's minimum length.
    GuideElementTooShort = "GUIDE_ELEMENT_TOO_SHORT", Rejected;
    /// Render under a partner's guide: a value longer than the guide's maximum length.
    GuideElementTooLong = "GUIDE_ELEMENT_TOO_LONG", Rejected;
    /// Guides name the document type but none its version: rendered against the standard alone (a warning).
    GuideNotApplied = "GUIDE_NOT_APPLIED", Rejected;
    /// A required field is missing or empty.
    MissingField = "MISSING_FIELD", Rejected;
    /// A field has the wrong type or an impossible value.
    InvalidField = "INVALID_FIELD", Rejected;
    /// A value is longer than its X12 element allows.
    TooLong = "TOO_LONG", Rejected;
    /// A value is shorter than its X12 element allows.
    TooShort = "TOO_SHORT", Rejected;
    /// A list has more items than the segment or loop may repeat.
    TooMany = "TOO_MANY", Rejected;
    /// A required list is empty.
    EmptyArray = "EMPTY_ARRAY", Rejected;
    /// A value holds a character X12 cannot carry in that element.
    InvalidCharacter = "INVALID_CHARACTER", Rejected;
    /// A value is not one of the element's codes.
    InvalidCode = "INVALID_CODE", Rejected;
    /// A field that is not part of the document (a warning: it is ignored).
    UnknownField = "UNKNOWN_FIELD", Rejected;
    /// The interchanges cannot be merged into one: an input holds none or has envelope errors, or they differ in sender, receiver, version or delimiters (the details name each input at fault).
    MergeRefused = "MERGE_REFUSED", Rejected;
    /// CSV intake: the file is not UTF-8 text.
    CsvNotUtf8 = "CSV_NOT_UTF8", Rejected;
    /// CSV intake: the file is empty (its first row names the columns).
    CsvEmpty = "CSV_EMPTY", Rejected;
    /// CSV intake: a row the CSV reader cannot read (another number of fields than the header, a broken quote).
    CsvMalformed = "CSV_MALFORMED", Rejected;
    /// CSV intake: a header cell that is not a JSON pointer to a value of the payload (no `/`, an object, two `*`, twice the same).
    CsvUnknownColumn = "CSV_UNKNOWN_COLUMN", Rejected;
    /// CSV intake: a row without its document key.
    CsvMissingKey = "CSV_MISSING_KEY", Rejected;
    /// CSV intake: a document key that comes back after other documents (a document's rows are consecutive).
    CsvMixedKeys = "CSV_MIXED_KEYS", Rejected;
    /// CSV intake: a field of the document (not of a `*` item) with two values in its rows.
    CsvConflictingValue = "CSV_CONFLICTING_VALUE", Rejected;
    /// CSV intake: more rows than the limit.
    CsvTooManyRows = "CSV_TOO_MANY_ROWS", Rejected;
    /// No webhook signing secret was given, or one is empty.
    EmptySecret = "EMPTY_SECRET", InvalidInput;
    /// A Standard Webhooks secret is not `whsec_` followed by base64.
    MalformedSecret = "MALFORMED_SECRET", InvalidInput;
    /// The webhook signature header is missing or empty.
    MissingSignature = "MISSING_SIGNATURE", Rejected;
    /// The webhook signature header holds no well-formed signature.
    MalformedSignature = "MALFORMED_SIGNATURE", Rejected;
    /// The webhook timestamp header is missing or not Unix seconds.
    MalformedTimestamp = "MALFORMED_TIMESTAMP", Rejected;
    /// The webhook timestamp is further from now than the tolerance allows.
    TimestampOutOfTolerance = "TIMESTAMP_OUT_OF_TOLERANCE", Rejected;
    /// No webhook signature matches the body and timestamp under any secret.
    SignatureMismatch = "SIGNATURE_MISMATCH", Rejected;
    /// The Standard Webhooks `webhook-id` header is missing or empty.
    MissingId = "MISSING_ID", Rejected;
    /// A webhook delivery id is not a UUID.
    MalformedDeliveryId = "MALFORMED_DELIVERY_ID", InvalidInput;
    /// A webhook event name is not one of the four lifecycle events.
    UnknownEvent = "UNKNOWN_EVENT", InvalidInput;
    /// A webhook body or event data is not the documented JSON shape.
    MalformedBody = "MALFORMED_BODY", InvalidInput;
    /// The platform gave no random bytes (webhook delivery ids).
    RandomnessUnavailable = "RANDOMNESS_UNAVAILABLE", Io;
    /// Reading or writing failed.
    Io = "IO", Io;
    /// A bug in x12kit was caught (a panic); please report the message.
    Internal = "INTERNAL", Internal;
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for ErrorCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One problem found in a refused (or accepted with warnings) input: stable
/// code, JSON pointer, message. A render's errors and warnings are these.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// Error or warning.
    pub severity: Severity,
    /// `MISSING_FIELD`, `INVALID_FIELD`, `TOO_LONG`, `UNKNOWN_FIELD`, …
    pub code: ErrorCode,
    /// JSON pointer of the field (`/lines/2/quantity`; `/` for the whole input).
    pub pointer: String,
    /// What is wrong, for a person.
    pub message: String,
}

impl Problem {
    /// An error-severity problem.
    pub fn error(code: ErrorCode, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            severity: Severity::Error,
            code,
            pointer: pointer.into(),
            message: message.into(),
        }
    }

    /// A warning-severity problem.
    pub fn warning(
        code: ErrorCode,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Problem {
            severity: Severity::Warning,
            ..Problem::error(code, pointer, message)
        }
    }

    /// True when `pointer` is strictly below this problem's pointer
    /// (`/lines/0/qty` below `/lines/0`, not below `/line`).
    #[doc(hidden)]
    pub fn is_above(&self, pointer: &str) -> bool {
        pointer
            .strip_prefix(self.pointer.as_str())
            .is_some_and(|rest| rest.starts_with('/'))
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = self.severity.as_str();
        write!(f, "{sev} {} {}: {}", self.code, self.pointer, self.message)
    }
}

/// A call that could not complete: stable code, kind, message, pointer, problems.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: ErrorCode,
    message: String,
    pointer: Option<String>,
    details: Vec<Problem>,
}

impl Error {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            pointer: None,
            details: Vec::new(),
        }
    }

    /// The same error, naming the JSON pointer of the offending value.
    pub fn at(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = Some(pointer.into());
        self
    }

    /// The same error, with the problems found.
    pub fn with_details(mut self, details: Vec<Problem>) -> Self {
        self.details = details;
        self
    }

    /// An error made of problems: its message counts the errors among them.
    pub fn from_problems(code: ErrorCode, details: Vec<Problem>) -> Self {
        let n = details
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count();
        let message = format!("{n} problem{}", if n == 1 { "" } else { "s" });
        Error::new(code, message).with_details(details)
    }

    /// `INVALID_JSON`: "the {what} is not valid JSON: {e}" (`what`: the
    /// input, the options, the payload, …; `e`: what the JSON parser said).
    pub fn invalid_json(what: &str, e: impl fmt::Display) -> Self {
        Error::new(
            ErrorCode::InvalidJson,
            format!("the {what} is not valid JSON: {e}"),
        )
    }

    /// A caught panic: an internal error carrying what the panic said.
    pub fn internal(what: impl fmt::Display) -> Self {
        Error::new(
            ErrorCode::Internal,
            format!("internal error in x12kit (please report it): {what}"),
        )
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// What a caller does with it (from the code).
    pub fn kind(&self) -> ErrorKind {
        self.code.kind()
    }

    /// The message, for a person.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// JSON pointer of the offending value, when there is one.
    pub fn pointer(&self) -> Option<&str> {
        self.pointer.as_deref()
    }

    /// The problems found (errors first, then warnings), when the error has a list.
    pub fn details(&self) -> &[Problem] {
        &self.details
    }

    /// The error as compact JSON (`schema/error.schema.json`): the bytes
    /// serde_json writes for its [`Serialize`] form (a test compares them).
    pub fn to_json(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(96 + self.message.len());
        out.extend_from_slice(b"{\"code\":");
        string_into(self.code.as_str(), &mut out);
        out.extend_from_slice(b",\"kind\":");
        string_into(self.kind().as_str(), &mut out);
        out.extend_from_slice(b",\"message\":");
        string_into(&self.message, &mut out);
        if let Some(p) = &self.pointer {
            out.extend_from_slice(b",\"pointer\":");
            string_into(p, &mut out);
        }
        out.extend_from_slice(b",\"details\":[");
        for (n, d) in self.details.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"severity\":");
            string_into(d.severity.as_str(), &mut out);
            out.extend_from_slice(b",\"code\":");
            string_into(d.code.as_str(), &mut out);
            out.extend_from_slice(b",\"pointer\":");
            string_into(&d.pointer, &mut out);
            out.extend_from_slice(b",\"message\":");
            string_into(&d.message, &mut out);
            out.push(b'}');
        }
        out.extend_from_slice(b"]}");
        out
    }
}

impl fmt::Display for Error {
    /// `CODE: message` (`CODE /pointer: message` with a pointer), then one
    /// indented line per problem (`  CODE /pointer: message`, warnings marked).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code)?;
        if let Some(p) = &self.pointer {
            write!(f, " {p}")?;
        }
        write!(f, ": {}", self.message)?;
        for d in &self.details {
            let sev = if d.severity == Severity::Warning {
                "warning "
            } else {
                ""
            };
            write!(f, "\n  {sev}{} {}: {}", d.code, d.pointer, d.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

impl Serialize for Error {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Error", 5)?;
        st.serialize_field("code", &self.code)?;
        st.serialize_field("kind", &self.kind())?;
        st.serialize_field("message", &self.message)?;
        if let Some(p) = &self.pointer {
            st.serialize_field("pointer", p)?;
        }
        st.serialize_field("details", &self.details)?;
        st.end()
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorCode::Io, e.to_string())
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `docs/errors.md`, generated from [`ErrorCode::ALL`] (the tests check it for drift).
pub fn reference_markdown() -> String {
    let mut s = String::from(
        "# Error codes\n\n\
         Generated from `ErrorCode::ALL` (`core/syntax/src/error.rs`); `cargo test -p x12kit --test errors` fails when this file drifts\n\
         (`X12KIT_BLESS=1` rewrites it). Every call that fails outright fails with one of these codes, the same in\n\
         Rust, the CLI, C, Python, Node, WASM and the HTTP server. The kind says what a caller does with it:\n\
         `invalid_input` (HTTP 400, a `TypeError`/`ValueError`), `rejected` (HTTP 422, the binding's own error),\n\
         `io`, `internal` (a bug: HTTP 500). Codes of problems in X12 input itself are diagnostics, not errors:\n\
         see [validation.md](validation.md) and the README.\n\n\
         | code | kind | meaning |\n|---|---|---|\n",
    );
    for c in ErrorCode::ALL {
        s.push_str(&format!(
            "| `{}` | {} | {} |\n",
            c.as_str(),
            c.kind(),
            c.meaning().trim()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_json_is_what_serde_json_writes() {
        let plain = Error::new(ErrorCode::InvalidJson, "bad");
        let full = Error::new(ErrorCode::InvalidPayload, "2 problems \"é\"\n\u{1}")
            .at("/a~1b/0")
            .with_details(vec![
                Problem::error(ErrorCode::MissingField, "/x", "needs \\ x"),
                Problem::warning(ErrorCode::UnknownField, "/y\t", "unknown"),
            ]);
        for e in [plain, full] {
            assert_eq!(
                String::from_utf8(e.to_json()).unwrap(),
                serde_json::to_string(&e).unwrap()
            );
        }
    }
}
