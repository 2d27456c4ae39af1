//! Standard Webhooks (standardwebhooks.com) signatures, sent beside the
//! service's own so receivers using a Standard Webhooks library verify too:
//! `webhook-signature: v1,<base64>` is HMAC-SHA256 over `id.timestamp.body`,
//! keyed with the base64-decoded part of a `whsec_<base64>` secret.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::Mac;

use crate::error::WebhookError;
use crate::signature::{
    DEFAULT_TOLERANCE, HmacSha256, Verified, check_tolerance, first_match, keyed, mac_over,
    parse_timestamp,
};

/// Header carrying the message id (the delivery id; unchanged on retries).
pub const HEADER_ID: &str = "webhook-id";
/// Header carrying the attempt's timestamp, Unix seconds.
pub const HEADER_TIMESTAMP: &str = "webhook-timestamp";
/// Header carrying space-separated `v1,<base64>` signatures.
pub const HEADER_SIGNATURE: &str = "webhook-signature";
/// The conventional prefix of a Standard Webhooks secret.
pub const SECRET_PREFIX: &str = "whsec_";
/// The signature version this module emits and checks.
const VERSION_PREFIX: &str = "v1,";
/// Length in bytes of an HMAC-SHA256 digest.
const DIGEST_LEN: usize = 32;

/// A Standard Webhooks signing key: the decoded bytes of `whsec_<base64>`.
#[derive(Clone, PartialEq, Eq)]
pub struct StandardSecret {
    key: Vec<u8>,
}

impl fmt::Debug for StandardSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StandardSecret({} bytes, redacted)", self.key.len())
    }
}

impl StandardSecret {
    /// Parses `whsec_<base64>` (the prefix is optional, as in the reference libraries).
    pub fn parse(secret: &str) -> Result<Self, x12kit_syntax::Error> {
        let encoded = secret.trim();
        let encoded = encoded.strip_prefix(SECRET_PREFIX).unwrap_or(encoded);
        if encoded.is_empty() {
            return Err(WebhookError::EmptySecret.into());
        }
        let key = BASE64
            .decode(encoded)
            .map_err(|_| WebhookError::MalformedSecret {
                reason: "the part after `whsec_` is not standard padded base64",
            })?;
        Self::from_bytes(key)
    }

    /// Uses raw key bytes (not base64) as the secret; refuses an empty key.
    pub fn from_bytes(key: impl Into<Vec<u8>>) -> Result<Self, x12kit_syntax::Error> {
        let key = key.into();
        if key.is_empty() {
            return Err(WebhookError::EmptySecret.into());
        }
        Ok(Self { key })
    }

    /// A new random 32-byte secret.
    pub fn generate() -> Result<Self, x12kit_syntax::Error> {
        let mut key = vec![0u8; 32];
        getrandom::fill(&mut key).map_err(|e| WebhookError::RandomnessUnavailable {
            reason: e.to_string(),
        })?;
        Self::from_bytes(key)
    }

    /// The decoded key bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.key
    }

    /// The secret in its shareable form, `whsec_<base64>` (handle with care: it is the secret).
    pub fn to_whsec(&self) -> String {
        format!("{SECRET_PREFIX}{}", BASE64.encode(&self.key))
    }

    fn keyed(&self) -> HmacSha256 {
        // Never fails: the key is non-empty by construction.
        keyed(&self.key).expect("a StandardSecret is never empty")
    }
}

impl FromStr for StandardSecret {
    type Err = x12kit_syntax::Error;

    /// Same as [`StandardSecret::parse`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// Signs a message: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`.
pub fn sign(secret: &StandardSecret, id: &str, timestamp: u64, body: &[u8]) -> String {
    signature_with(&secret.keyed(), id, timestamp, body)
}

/// `v1,<base64>` under an already keyed MAC.
pub(crate) fn signature_with(key: &HmacSha256, id: &str, timestamp: u64, body: &[u8]) -> String {
    let timestamp = timestamp.to_string();
    let digest = mac_over(
        key,
        &[id.as_bytes(), b".", timestamp.as_bytes(), b".", body],
    )
    .finalize()
    .into_bytes();
    format!("{VERSION_PREFIX}{}", BASE64.encode(digest))
}

/// Verifies a Standard Webhooks message from its three header values and raw body.
///
/// Pass `""` for an absent header; `now` is the time since the Unix epoch.
pub fn verify(
    secrets: &[StandardSecret],
    id_header: &str,
    signature_header: &str,
    timestamp_header: &str,
    body: &[u8],
    now: Duration,
    tolerance: Duration,
) -> Result<Verified, x12kit_syntax::Error> {
    Verifier::new(secrets)?.with_tolerance(tolerance).verify(
        id_header,
        signature_header,
        timestamp_header,
        body,
        now,
    )
}

/// Verifies Standard Webhooks messages against one or more secrets with a tolerance.
#[derive(Clone)]
pub struct Verifier {
    keys: Vec<HmacSha256>,
    tolerance: Duration,
}

impl fmt::Debug for Verifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("standard::Verifier")
            .field("secrets", &self.keys.len())
            .field("tolerance", &self.tolerance)
            .finish()
    }
}

impl Verifier {
    /// A verifier for the given secrets; fails when there are none.
    pub fn new(secrets: &[StandardSecret]) -> Result<Self, x12kit_syntax::Error> {
        if secrets.is_empty() {
            return Err(WebhookError::EmptySecret.into());
        }
        Ok(Self {
            keys: secrets.iter().map(StandardSecret::keyed).collect(),
            tolerance: DEFAULT_TOLERANCE,
        })
    }

    /// Sets the allowed distance between the message's timestamp and `now` (whole seconds).
    pub fn with_tolerance(mut self, tolerance: Duration) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Verifies one message at time `now` (since the Unix epoch); see [`verify`].
    pub fn verify(
        &self,
        id_header: &str,
        signature_header: &str,
        timestamp_header: &str,
        body: &[u8],
        now: Duration,
    ) -> Result<Verified, x12kit_syntax::Error> {
        let id = id_header.trim_matches([' ', '\t']);
        if id.is_empty() {
            return Err(WebhookError::MissingId.into());
        }
        let candidates = parse_signature_header(signature_header)?;
        let (_, timestamp) = parse_timestamp(timestamp_header)?;
        check_tolerance(timestamp, now, self.tolerance)?;
        // As the reference libraries do, the timestamp is signed in its canonical decimal form.
        let timestamp_text = timestamp.to_string();
        first_match(
            &self.keys,
            &[id.as_bytes(), b".", timestamp_text.as_bytes(), b".", body],
            &candidates,
            timestamp,
        )
    }

    /// Verifies one message against the system clock (not available on wasm32-unknown-unknown).
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    pub fn verify_now(
        &self,
        id_header: &str,
        signature_header: &str,
        timestamp_header: &str,
        body: &[u8],
    ) -> Result<Verified, x12kit_syntax::Error> {
        self.verify(
            id_header,
            signature_header,
            timestamp_header,
            body,
            crate::signature::system_now(),
        )
    }
}

/// Parses `webhook-signature`: space-separated `version,base64` entries.
///
/// Entries of other versions (`v1a`, `v2`, …) are ignored, as the specification
/// asks; with no well-formed `v1` entry the first problem is reported.
fn parse_signature_header(header: &str) -> Result<Vec<[u8; DIGEST_LEN]>, WebhookError> {
    let mut digests = Vec::new();
    let mut first_problem = None;
    for entry in header.split_ascii_whitespace() {
        let Some(encoded) = entry.strip_prefix(VERSION_PREFIX) else {
            first_problem.get_or_insert("no entry starts with `v1,`");
            continue;
        };
        let mut digest = [0u8; DIGEST_LEN];
        match BASE64.decode_slice(encoded, &mut digest) {
            Ok(DIGEST_LEN) => digests.push(digest),
            Ok(_) | Err(base64::DecodeSliceError::OutputSliceTooSmall) => {
                first_problem.get_or_insert("a `v1,` signature is not 32 bytes long");
            }
            Err(base64::DecodeSliceError::DecodeError(_)) => {
                first_problem.get_or_insert("a `v1,` signature is not standard padded base64");
            }
        }
    }
    match (digests.is_empty(), first_problem) {
        (false, _) => Ok(digests),
        (true, Some(reason)) => Err(WebhookError::MalformedSignature { reason }),
        (true, None) => Err(WebhookError::MissingSignature),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_prefix_is_optional() {
        let a = StandardSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let b = StandardSecret::parse("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_whsec(), "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        assert!(!format!("{a:?}").contains("MfKQ"));
    }

    #[test]
    fn signature_entries() {
        let good = format!("v1,{}", BASE64.encode([7u8; 32]));
        assert_eq!(parse_signature_header(&good).unwrap(), vec![[7u8; 32]]);
        assert_eq!(
            parse_signature_header("v2,abc v1a,xyz"),
            Err(WebhookError::MalformedSignature {
                reason: "no entry starts with `v1,`"
            })
        );
        let long = format!("v1,{}", BASE64.encode([7u8; 48]));
        assert!(parse_signature_header(&long).is_err());
        assert_eq!(
            parse_signature_header("  "),
            Err(WebhookError::MissingSignature)
        );
    }
}
