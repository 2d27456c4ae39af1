//! Webhook signing and verification (`X-Service-Signature`).

use crate::bytes::JsBytes;
use crate::convert::{Core, opts, unix_from};
use crate::errors::guard;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;
use std::time::Duration;
use x12kit::ops;
use x12kit::webhook;

/// What a successful verification established.
#[napi(object)]
pub struct Verified {
    /// The delivery's timestamp, in Unix seconds.
    pub timestamp: f64,
    /// Index (in the order given) of the secret that matched.
    pub secret_index: u32,
}

fn verified(v: webhook::Verified) -> Verified {
    Verified {
        timestamp: v.timestamp as f64,
        secret_index: v.secret_index as u32,
    }
}

fn whole(n: f64, what: &str) -> Core<u64> {
    if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= 9.007_199_254_740_991e15 {
        Ok(n as u64)
    } else {
        Err(x12kit::Error::new(
            x12kit::ErrorCode::InvalidArgument,
            format!("{what} must be a whole number of Unix seconds >= 0, got {n}"),
        ))
    }
}

/// The signature (`sha256=<hex>`) of `body` signed at `timestamp` with `secret`.
#[napi]
pub fn webhook_sign(secret: &[u8], timestamp: f64, body: &[u8]) -> Result<String> {
    guard(|| ops::webhook_sign(secret, whole(timestamp, "timestamp")?, body))
}

/// Verifies a delivery against any of `secrets` within `options.tolerance` seconds of `now`.
#[napi]
pub fn webhook_verify(
    secrets: Vec<Uint8Array>,
    signature: String,
    timestamp: String,
    body: &[u8],
    options: Option<Value>,
    now: Option<f64>,
) -> Result<Verified> {
    guard(|| {
        let o: ops::VerifyOptions = opts(options)?;
        let secrets: Vec<&[u8]> = secrets.iter().map(|s| &s[..]).collect();
        let v = ops::webhook_verify(&secrets, &signature, &timestamp, body, &o, unix_from(now)?)?;
        Ok(verified(v))
    })
}

/// Verifies deliveries against one or more secrets (rotation) with a tolerance.
#[napi]
pub struct Verifier {
    inner: webhook::Verifier,
}

#[napi]
impl Verifier {
    /// A verifier for `secrets` (newest first or in any order) and `{ tolerance }` in seconds.
    #[napi(constructor)]
    pub fn new(secrets: Vec<Uint8Array>, options: Option<Value>) -> Result<Self> {
        guard(|| {
            let o: ops::VerifyOptions = opts(options)?;
            let inner = webhook::Verifier::new(secrets.iter().map(|s| &s[..]))?
                .with_tolerance(Duration::from_secs(o.tolerance));
            Ok(Verifier { inner })
        })
    }

    /// The tolerance in seconds.
    #[napi(getter)]
    pub fn tolerance(&self) -> f64 {
        self.inner.tolerance().as_secs() as f64
    }

    /// Verifies the signature and timestamp headers over the raw body.
    #[napi]
    pub fn verify(
        &self,
        signature: String,
        timestamp: String,
        body: &[u8],
        now: Option<f64>,
    ) -> Result<Verified> {
        guard(|| {
            let now = Duration::from_secs(unix_from(now)?);
            let v = self.inner.verify(&signature, &timestamp, body, now)?;
            Ok(verified(v))
        })
    }
}

/// A signed delivery: the exact body and the headers signed over it.
#[napi(object, object_from_js = false)]
pub struct Delivery {
    /// The delivery id (a UUIDv7), shared by every attempt.
    pub id: String,
    /// The event (`document.validated`, ...).
    pub event: String,
    /// The signing timestamp (Unix seconds).
    pub timestamp: f64,
    /// The body to send, byte for byte.
    #[napi(ts_type = "Buffer")]
    pub body: JsBytes,
    /// The headers to send, in a fixed order, as `[name, value]` pairs.
    pub headers: Vec<Vec<String>>,
}

/// Builds and signs deliveries with a secret.
#[napi]
pub struct Signer {
    secret: Vec<u8>,
    inner: webhook::Signer,
}

#[napi]
impl Signer {
    /// A signer for `secret`.
    #[napi(constructor)]
    pub fn new(secret: &[u8]) -> Result<Self> {
        guard(|| {
            let inner = webhook::Signer::new(secret)?;
            Ok(Signer {
                secret: secret.to_vec(),
                inner,
            })
        })
    }

    /// The signature (`sha256=<hex>`) of `body` at `timestamp`.
    #[napi]
    pub fn sign(&self, timestamp: f64, body: &[u8]) -> Result<String> {
        guard(|| ops::webhook_sign(&self.secret, whole(timestamp, "timestamp")?, body))
    }

    /// A signed delivery of `event` with `data` (`{documentId, partnerId, documentTypeCode, status}`) at `now`.
    #[napi]
    pub fn deliver(&self, event: String, data: Value, now: Option<f64>) -> Result<Delivery> {
        guard(|| {
            let kind: webhook::EventKind = event.parse()?;
            let data = ops::webhook_event_data(&data)?;
            let d = self
                .inner
                .deliver(kind, data, Duration::from_secs(unix_from(now)?))?;
            Ok(Delivery {
                id: d.id().to_string(),
                event: d.event().as_str().to_string(),
                timestamp: d.timestamp() as f64,
                headers: d
                    .headers()
                    .iter()
                    .map(|(n, v)| vec![(*n).to_string(), v.clone()])
                    .collect(),
                body: d.body().to_vec().into(),
            })
        })
    }
}

/// The delivery header names (as the core sends them).
#[napi(object)]
pub struct WebhookHeaderNames {
    /// `X-Service-Signature`: `sha256=<hex>`.
    pub signature: String,
    /// `X-Service-Timestamp`: Unix seconds.
    pub timestamp: String,
    /// `X-Service-Event`: the event kind.
    pub event: String,
    /// `X-Service-Delivery-ID`: the delivery id.
    pub delivery_id: String,
}

/// The delivery header names.
#[napi]
pub fn webhook_header_names() -> WebhookHeaderNames {
    WebhookHeaderNames {
        signature: webhook::HEADER_SIGNATURE.to_string(),
        timestamp: webhook::HEADER_TIMESTAMP.to_string(),
        event: webhook::HEADER_EVENT.to_string(),
        delivery_id: webhook::HEADER_DELIVERY_ID.to_string(),
    }
}
