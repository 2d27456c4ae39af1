//! Webhook signing, verification and delivery building for x12kit, re-exported as `x12kit::webhook` (the EDI integration service's API, §2.5, §5 and §6 of its specification, which is not in this repository).
//!
//! This module owns everything a sender or a receiver of x12kit webhooks needs
//! and nothing about HTTP: [`sign`] and [`verify`] (with [`Verifier`] for
//! secret rotation and a timestamp tolerance) implement the service's
//! `X-Service-Signature: sha256=<hex>` scheme, HMAC-SHA256 over
//! `timestamp + "." + raw_body`; [`EventKind`], [`EventData`] and [`Payload`]
//! are the four lifecycle events and their exact JSON body; [`Signer`] turns an
//! event into a [`Delivery`], the body bytes together with the headers signed
//! over them, and re-signs retries under the same [`DeliveryId`] (a UUIDv7);
//! [`standard`] adds Standard Webhooks headers (`webhook-id`,
//! `webhook-timestamp`, `webhook-signature: v1,<base64>`) beside the service's
//! own. Time is always a parameter (`now`, since the Unix epoch) so that every
//! call works in WASM; the `*_now` conveniences read the system clock. Every
//! failure is an [`Error`](x12kit_syntax::Error) with a stable code (the reasons are
//! the [`WebhookError`] variants, converted); no input panics.
//!
//! ```
//! use std::time::Duration;
//! use x12kit_webhook::{EventData, EventKind, Signer, Verifier};
//!
//! let now = Duration::from_secs(1_700_000_000);
//! let signer = Signer::new(b"my-signing-secret")?;
//! let data = EventData {
//!     document_id: "doc_1".into(),
//!     partner_id: "partner_9".into(),
//!     document_type_code: "850".into(),
//!     status: "validated".into(),
//!     resend: false,
//! };
//! let delivery = signer.deliver(EventKind::DocumentValidated, data, now)?;
//!
//! // The receiver, with the raw body and two header values:
//! let verifier = Verifier::new([b"my-signing-secret"])?;
//! let verified = verifier.verify(
//!     delivery.header("X-Service-Signature").unwrap(),
//!     delivery.header("X-Service-Timestamp").unwrap(),
//!     delivery.body(),
//!     now + Duration::from_secs(2),
//! )?;
//! assert_eq!(verified.timestamp, 1_700_000_000);
//! # Ok::<(), x12kit_syntax::Error>(())
//! ```

#![forbid(unsafe_code)]

mod delivery;
mod error;
mod event;
mod headers;
mod signature;
pub mod standard;

pub use delivery::{CONTENT_TYPE, Delivery, DeliveryId, Signer};
pub use error::WebhookError;
pub use event::{EventData, EventKind, Payload};
pub use headers::{HEADER_DELIVERY_ID, HEADER_EVENT, HEADER_SIGNATURE, HEADER_TIMESTAMP};
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub use signature::system_now;
pub use signature::{DEFAULT_TOLERANCE, SIGNATURE_PREFIX, Verified, Verifier, sign, verify};
