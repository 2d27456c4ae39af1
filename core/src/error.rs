//! Errors of the calls that fail outright (as opposed to diagnostics, which
//! describe problems in X12 input that was still read).

use thiserror::Error;

/// An error with a stable code, returned by calls that cannot complete.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// The text is not JSON at all.
    #[error("the input is not valid JSON: {0}")]
    InvalidJson(#[from] serde_json::Error),
    /// The JSON does not have the parse-result shape.
    #[error("{path}: {message}")]
    InvalidParseResult {
        /// JSON pointer of the offending value.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// The delimiters given are unusable.
    #[error("{path}: {message}")]
    InvalidDelimiters {
        /// JSON pointer of the delimiters.
        path: String,
        /// What is wrong with them.
        message: String,
    },
    /// A value contains one of the interchange's delimiters, so writing it would corrupt the X12.
    #[error("{path}: {message}")]
    ValueContainsDelimiter {
        /// JSON pointer of the value.
        path: String,
        /// Which delimiter and where.
        message: String,
    },
    /// Acknowledgement options that cannot be used (e.g. a control number too large).
    #[error("{path}: {message}")]
    InvalidAckOptions {
        /// JSON pointer of the option.
        path: String,
        /// What is wrong with it.
        message: String,
    },
}

impl Error {
    /// The stable UPPER_SNAKE code of the error.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidJson(_) => "INVALID_JSON",
            Error::InvalidParseResult { .. } => "INVALID_PARSE_RESULT",
            Error::InvalidDelimiters { .. } => "INVALID_DELIMITERS",
            Error::ValueContainsDelimiter { .. } => "VALUE_CONTAINS_DELIMITER",
            Error::InvalidAckOptions { .. } => "INVALID_ACK_OPTIONS",
        }
    }

    /// JSON pointer of the offending value, when there is one.
    pub fn path(&self) -> Option<&str> {
        match self {
            Error::InvalidJson(_) => None,
            Error::InvalidParseResult { path, .. }
            | Error::InvalidDelimiters { path, .. }
            | Error::ValueContainsDelimiter { path, .. }
            | Error::InvalidAckOptions { path, .. } => Some(path),
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
