//! The one error type of the webhook module: every failure of signing,
//! verification, secret parsing and delivery building, each with a stable code.

/// Why a webhook call could not be completed. The module's calls return it
/// as the crate's [`Error`](x12kit_syntax::Error) (same code, same message);
/// [`WebhookError::code`] is stable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookError {
    /// No secret was given, or one of the given secrets is empty.
    #[error(
        "the webhook signing secret is empty or missing; pass the secret the sender signs with"
    )]
    EmptySecret,

    /// A Standard Webhooks secret is not `whsec_` followed by base64.
    #[error("the Standard Webhooks secret is malformed: {reason}; expected `whsec_<base64>`")]
    MalformedSecret {
        /// What is wrong with the secret (the secret itself is never echoed).
        reason: &'static str,
    },

    /// The signature header is absent or blank.
    #[error(
        "the signature header is missing or empty; the sender must send `sha256=<64 hex digits>` (or `v1,<base64>` for webhook-signature)"
    )]
    MissingSignature,

    /// The signature header holds no well-formed signature.
    #[error("the signature header is malformed: {reason}")]
    MalformedSignature {
        /// What is wrong with the first malformed entry.
        reason: &'static str,
    },

    /// The timestamp header is absent, blank or not Unix seconds.
    #[error("the timestamp header is malformed: {reason}")]
    MalformedTimestamp {
        /// What is wrong with the timestamp.
        reason: &'static str,
    },

    /// The timestamp is further from the current time than the tolerance allows.
    #[error(
        "the delivery timestamp {timestamp} is {} the current time {now}, beyond the tolerance of {tolerance} s; check the clocks of sender and receiver, or this may be a replayed delivery",
        skew(*timestamp, *now)
    )]
    TimestampOutOfTolerance {
        /// The timestamp from the header, in Unix seconds.
        timestamp: u64,
        /// The current time used for the check, in Unix seconds.
        now: u64,
        /// The tolerance, in whole seconds.
        tolerance: u64,
    },

    /// No signature in the header matches the body and timestamp under any secret.
    #[error(
        "no signature in the header matches this body and timestamp under any configured secret; check the secret, and verify the exact raw body bytes received (not re-serialized JSON)"
    )]
    SignatureMismatch,

    /// The Standard Webhooks `webhook-id` header is absent or blank.
    #[error("the webhook-id header is missing or empty; it is part of the signed content")]
    MissingId,

    /// A delivery id is not a version 7 UUID in its text form.
    #[error(
        "malformed delivery id: {reason}; expected a version 7 UUID such as 0190b5e2-7c4e-7a3f-8d2e-3c1f6a9b0c7d"
    )]
    MalformedDeliveryId {
        /// What is wrong with the id.
        reason: &'static str,
    },

    /// An event kind string is not one of the four known kinds.
    #[error(
        "unknown event kind {found:?}; expected one of document.validated, document.routed, document.partner_ack, document.error"
    )]
    UnknownEvent {
        /// The event kind given (cut to 64 characters).
        found: String,
    },

    /// A delivery body is not the JSON object of the delivery contract.
    #[error("the delivery body is not a valid delivery JSON object: {reason}")]
    MalformedBody {
        /// The JSON parser's description of the problem.
        reason: String,
    },

    /// The system's random number generator failed (delivery ids, secrets).
    #[error("no randomness available from the operating system or browser: {reason}")]
    RandomnessUnavailable {
        /// The underlying error.
        reason: String,
    },
}

impl WebhookError {
    /// The stable UPPER_SNAKE code of this error, the same in every language.
    pub fn code(&self) -> &'static str {
        match self {
            Self::EmptySecret => "EMPTY_SECRET",
            Self::MalformedSecret { .. } => "MALFORMED_SECRET",
            Self::MissingSignature => "MISSING_SIGNATURE",
            Self::MalformedSignature { .. } => "MALFORMED_SIGNATURE",
            Self::MalformedTimestamp { .. } => "MALFORMED_TIMESTAMP",
            Self::TimestampOutOfTolerance { .. } => "TIMESTAMP_OUT_OF_TOLERANCE",
            Self::SignatureMismatch => "SIGNATURE_MISMATCH",
            Self::MissingId => "MISSING_ID",
            Self::MalformedDeliveryId { .. } => "MALFORMED_DELIVERY_ID",
            Self::UnknownEvent { .. } => "UNKNOWN_EVENT",
            Self::MalformedBody { .. } => "MALFORMED_BODY",
            Self::RandomnessUnavailable { .. } => "RANDOMNESS_UNAVAILABLE",
        }
    }

    /// True when the error means "this delivery is not authentic or not fresh",
    /// as opposed to a configuration or programming problem on the caller's side.
    pub fn is_rejection(&self) -> bool {
        matches!(
            self,
            Self::MissingSignature
                | Self::MalformedSignature { .. }
                | Self::MalformedTimestamp { .. }
                | Self::TimestampOutOfTolerance { .. }
                | Self::SignatureMismatch
                | Self::MissingId
        )
    }

    /// Every code this type can return, for binding and documentation checks.
    pub const CODES: [&'static str; 12] = [
        "EMPTY_SECRET",
        "MALFORMED_SECRET",
        "MISSING_SIGNATURE",
        "MALFORMED_SIGNATURE",
        "MALFORMED_TIMESTAMP",
        "TIMESTAMP_OUT_OF_TOLERANCE",
        "SIGNATURE_MISMATCH",
        "MISSING_ID",
        "MALFORMED_DELIVERY_ID",
        "UNKNOWN_EVENT",
        "MALFORMED_BODY",
        "RANDOMNESS_UNAVAILABLE",
    ];
}

/// "N s before" / "N s after", for the tolerance message.
fn skew(timestamp: u64, now: u64) -> String {
    if timestamp <= now {
        format!("{} s before", now - timestamp)
    } else {
        format!("{} s after", timestamp - now)
    }
}

/// Cuts untrusted text for an error message to at most `max` characters.
pub(crate) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

impl From<WebhookError> for x12kit_syntax::Error {
    fn from(e: WebhookError) -> Self {
        let code = x12kit_syntax::ErrorCode::from_name(e.code())
            .unwrap_or(x12kit_syntax::ErrorCode::Internal);
        x12kit_syntax::Error::new(code, e.to_string())
    }
}
