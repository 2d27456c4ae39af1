//! Event kinds and the delivery body of the EDI integration service's API (§2.5 and §6; the service's specification, not part of this repository):
//! `{"event":…,"timestamp":"<unix seconds>","data":{"documentId":…,
//! "partnerId":…,"documentTypeCode":…,"status":…}}`, always serialized in that
//! field order so the same event gives the same bytes in every language.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::WebhookError;
use crate::error::cut;

/// The kind of a document lifecycle event, as sent in `event` and `X-Service-Event`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[non_exhaustive]
pub enum EventKind {
    /// `document.validated`: the document passed validation (`data.status` is `validated`).
    #[serde(rename = "document.validated")]
    DocumentValidated,
    /// `document.routed`: the document was routed to its trading partner.
    #[serde(rename = "document.routed")]
    DocumentRouted,
    /// `document.partner_ack`: the partner's acknowledgement was received.
    #[serde(rename = "document.partner_ack")]
    DocumentPartnerAck,
    /// `document.error`: an error occurred for the document.
    #[serde(rename = "document.error")]
    DocumentError,
}

impl EventKind {
    /// All event kinds, in lifecycle order.
    pub const ALL: [EventKind; 4] = [
        EventKind::DocumentValidated,
        EventKind::DocumentRouted,
        EventKind::DocumentPartnerAck,
        EventKind::DocumentError,
    ];

    /// The wire name, e.g. `document.validated`.
    pub const fn as_str(self) -> &'static str {
        match self {
            EventKind::DocumentValidated => "document.validated",
            EventKind::DocumentRouted => "document.routed",
            EventKind::DocumentPartnerAck => "document.partner_ack",
            EventKind::DocumentError => "document.error",
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EventKind {
    type Err = x12kit_syntax::Error;

    /// Parses a wire name; anything else is `WebhookError::UnknownEvent` (as an [`Error`](x12kit_syntax::Error)).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EventKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| WebhookError::UnknownEvent { found: cut(s, 64) }.into())
    }
}

/// The `data` object of a delivery: which document, for which partner, in which state.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventData {
    /// Identifier of the document (`documentId`).
    pub document_id: String,
    /// Identifier of the trading partner (`partnerId`).
    pub partner_id: String,
    /// X12 transaction set code, e.g. `850` (`documentTypeCode`).
    pub document_type_code: String,
    /// Document status, e.g. `validated` (`status`).
    pub status: String,
    /// True when the event reports a document sent again on request (a resend):
    /// it repeats an event the receiver may have had for this document
    /// (`resend`; left out of the body when false, so the bodies of other events
    /// are as before).
    #[serde(default, skip_serializing_if = "is_false")]
    pub resend: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A whole delivery body (§2.5); serializes as `event`, `timestamp`, `data` in that order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Payload {
    /// The event kind.
    pub event: EventKind,
    /// When the event occurred, Unix seconds as a decimal string.
    pub timestamp: String,
    /// The document the event is about.
    pub data: EventData,
}

impl Payload {
    /// A body for `event` that occurred at `occurred_at` (Unix seconds).
    pub fn new(event: EventKind, occurred_at: u64, data: EventData) -> Self {
        Self {
            event,
            timestamp: occurred_at.to_string(),
            data,
        }
    }

    /// The exact JSON bytes sent: compact, fixed field order, UTF-8.
    pub fn to_bytes(&self) -> Vec<u8> {
        // A struct of strings and a unit enum cannot fail to serialize.
        serde_json::to_vec(self).expect("a payload of strings always serializes")
    }

    /// Parses a received body (after verifying it); unknown extra fields are ignored.
    pub fn from_slice(body: &[u8]) -> Result<Self, x12kit_syntax::Error> {
        serde_json::from_slice(body).map_err(|e| {
            WebhookError::MalformedBody {
                reason: e.to_string(),
            }
            .into()
        })
    }
}
