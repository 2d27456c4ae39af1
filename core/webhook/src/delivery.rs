//! Building deliveries: a [`Signer`] turns an event into a [`Delivery`] that
//! holds the exact body bytes and the headers signed over them, and re-signs a
//! retry with the same [`DeliveryId`] and a fresh timestamp.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::WebhookError;
use crate::event::{EventData, EventKind, Payload};
use crate::headers::{HEADER_DELIVERY_ID, HEADER_EVENT, HEADER_SIGNATURE, HEADER_TIMESTAMP};
use crate::signature::{HmacSha256, keyed, keyed_all, signature_with};
use crate::standard::{self, StandardSecret};

/// The media type of every delivery body.
pub const CONTENT_TYPE: &str = "application/json";

/// A delivery identifier: a UUID version 7, unique and ordered by creation time.
///
/// Its 48 leading bits are Unix milliseconds and the next 12 the fraction of
/// the millisecond (RFC 9562 §6.2, method 3), so ids order by time both as
/// bytes and as lower-case text; 62 further bits are random.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeliveryId([u8; 16]);

impl DeliveryId {
    /// A new id for time `now` (since the Unix epoch), with random bits from the OS or browser.
    pub fn generate(now: Duration) -> Result<Self, x12kit_syntax::Error> {
        let mut random = [0u8; 8];
        getrandom::fill(&mut random).map_err(|e| WebhookError::RandomnessUnavailable {
            reason: e.to_string(),
        })?;
        Ok(Self::from_parts(now, random))
    }

    /// The id for time `now` with the given random bits (62 of the 64 are used).
    pub fn from_parts(now: Duration, random: [u8; 8]) -> Self {
        let millis = (now.as_millis() as u64) & 0xFFFF_FFFF_FFFF;
        let fraction = u64::from(now.subsec_nanos() % 1_000_000) * 4096 / 1_000_000;
        let mut bytes = [0u8; 16];
        bytes[..6].copy_from_slice(&millis.to_be_bytes()[2..]);
        bytes[6] = 0x70 | (fraction >> 8) as u8;
        bytes[7] = fraction as u8;
        bytes[8] = 0x80 | (random[0] & 0x3F);
        bytes[9..].copy_from_slice(&random[1..]);
        Self(bytes)
    }

    /// The Unix time in milliseconds the id was made for.
    pub fn unix_millis(&self) -> u64 {
        let mut millis = [0u8; 8];
        millis[2..].copy_from_slice(&self.0[..6]);
        u64::from_be_bytes(millis)
    }

    /// The 16 bytes of the UUID.
    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

impl fmt::Display for DeliveryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = hex::encode(self.0);
        write!(
            f,
            "{}-{}-{}-{}-{}",
            &hex[..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..]
        )
    }
}

impl fmt::Debug for DeliveryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DeliveryId({self})")
    }
}

impl FromStr for DeliveryId {
    type Err = x12kit_syntax::Error;

    /// Parses the hyphenated text form (either case) of a version 7 UUID.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let malformed = |reason| WebhookError::MalformedDeliveryId { reason }.into();
        let text = s.as_bytes();
        if text.len() != 36 || [8, 13, 18, 23].iter().any(|&i| text[i] != b'-') {
            return Err(malformed(
                "it must be 36 characters, hex digits grouped 8-4-4-4-12 by hyphens",
            ));
        }
        let digits: Vec<u8> = text.iter().copied().filter(|&b| b != b'-').collect();
        let mut bytes = [0u8; 16];
        hex::decode_to_slice(&digits, &mut bytes)
            .map_err(|_| malformed("it contains a character that is not a hex digit"))?;
        if bytes[6] >> 4 != 7 || bytes[8] >> 6 != 0b10 {
            return Err(malformed("it is a UUID, but not a version 7 one"));
        }
        Ok(Self(bytes))
    }
}

impl Serialize for DeliveryId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DeliveryId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// One attempt of a delivery: the exact body bytes and the headers signed over them.
///
/// Fields are read-only so the bytes sent are always the bytes signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    id: DeliveryId,
    event: EventKind,
    timestamp: u64,
    body: Vec<u8>,
    headers: Vec<(&'static str, String)>,
}

impl Delivery {
    /// The delivery id, shared by every attempt.
    pub fn id(&self) -> DeliveryId {
        self.id
    }

    /// The event kind.
    pub fn event(&self) -> EventKind {
        self.event
    }

    /// This attempt's signing timestamp (Unix seconds), as in `X-Service-Timestamp`.
    pub fn timestamp(&self) -> u64 {
        self.timestamp
    }

    /// The body to send, byte for byte.
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// The headers to send, in a fixed order (plus `Content-Type: application/json`).
    pub fn headers(&self) -> &[(&'static str, String)] {
        &self.headers
    }

    /// One header's value, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body and headers, for handing to an HTTP client.
    pub fn into_parts(self) -> (Vec<u8>, Vec<(&'static str, String)>) {
        (self.body, self.headers)
    }
}

/// Builds and signs deliveries with the service secret (and optionally a Standard Webhooks secret).
///
/// During a secret rotation a signer holds several secrets ([`Signer::with_secrets`],
/// [`Signer::also_standard_webhooks`]) and every one of them signs each attempt: the
/// signature header lists one signature per secret, newest first
/// (`X-Service-Signature: sha256=<new>, sha256=<old>`; `webhook-signature: v1,<new>
/// v1,<old>`), so a receiver that knows only the old secret and one that knows only
/// the new both verify ([`Verifier`](crate::Verifier) accepts when any listed signature
/// matches any of its secrets).
#[derive(Clone)]
pub struct Signer {
    keys: Vec<HmacSha256>,
    standard: Vec<HmacSha256>,
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signer")
            .field("secrets", &self.keys.len())
            .field("standard_webhooks", &self.standard.len())
            .finish()
    }
}

impl Signer {
    /// A signer keyed with the webhook signing secret's bytes; refuses an empty secret.
    pub fn new(secret: impl AsRef<[u8]>) -> Result<Self, x12kit_syntax::Error> {
        Self::with_secrets([secret])
    }

    /// A signer keyed with several secrets (a rotation: newest first), each of which signs
    /// every attempt; refuses an empty list or an empty secret.
    pub fn with_secrets<I, S>(secrets: I) -> Result<Self, x12kit_syntax::Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<[u8]>,
    {
        let keys = keyed_all(secrets)?;
        Ok(Self {
            keys,
            standard: Vec::new(),
        })
    }

    /// Also emits the `webhook-id`, `webhook-timestamp` and `webhook-signature` headers,
    /// signed with this secret only (replacing any set before).
    pub fn with_standard_webhooks(mut self, secret: &StandardSecret) -> Self {
        self.standard.clear();
        self.also_standard_webhooks(secret)
    }

    /// Adds one more Standard Webhooks secret: `webhook-signature` then carries one
    /// `v1,` signature per secret, in the order they were added.
    pub fn also_standard_webhooks(mut self, secret: &StandardSecret) -> Self {
        // A StandardSecret is never empty, so keying cannot fail.
        self.standard.extend(keyed(secret.as_bytes()).ok());
        self
    }

    /// A first attempt for an event happening at `now` (since the Unix epoch), with a new id.
    pub fn deliver(
        &self,
        event: EventKind,
        data: EventData,
        now: Duration,
    ) -> Result<Delivery, x12kit_syntax::Error> {
        let id = DeliveryId::generate(now)?;
        Ok(self.deliver_payload(id, &Payload::new(event, now.as_secs(), data), now))
    }

    /// A first attempt of an event at the system clock's time (not on wasm32-unknown-unknown).
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    pub fn deliver_now(
        &self,
        event: EventKind,
        data: EventData,
    ) -> Result<Delivery, x12kit_syntax::Error> {
        self.deliver(event, data, crate::signature::system_now())
    }

    /// An attempt with a caller-chosen id and body, signed at `now`.
    ///
    /// Use it to resend a delivery kept in storage: same id, same payload, new `now`.
    pub fn deliver_payload(&self, id: DeliveryId, payload: &Payload, now: Duration) -> Delivery {
        self.sign_attempt(id, payload.event, payload.to_bytes(), now.as_secs())
    }

    /// The next attempt of `delivery`: same id and body bytes, fresh timestamp and signatures.
    pub fn retry(&self, delivery: &Delivery, now: Duration) -> Delivery {
        self.sign_attempt(
            delivery.id,
            delivery.event,
            delivery.body.clone(),
            now.as_secs(),
        )
    }

    fn sign_attempt(
        &self,
        id: DeliveryId,
        event: EventKind,
        body: Vec<u8>,
        timestamp: u64,
    ) -> Delivery {
        let timestamp_text = timestamp.to_string();
        let id_text = id.to_string();
        let signatures: Vec<String> = self
            .keys
            .iter()
            .map(|key| signature_with(key, &timestamp_text, &body))
            .collect();
        let mut headers = vec![
            ("Content-Type", CONTENT_TYPE.to_owned()),
            (HEADER_TIMESTAMP, timestamp_text.clone()),
            (HEADER_EVENT, event.as_str().to_owned()),
            (HEADER_DELIVERY_ID, id_text.clone()),
            (HEADER_SIGNATURE, signatures.join(", ")),
        ];
        if !self.standard.is_empty() {
            let signatures: Vec<String> = self
                .standard
                .iter()
                .map(|key| standard::signature_with(key, &id_text, timestamp, &body))
                .collect();
            headers.push((standard::HEADER_ID, id_text));
            headers.push((standard::HEADER_TIMESTAMP, timestamp_text));
            headers.push((standard::HEADER_SIGNATURE, signatures.join(" ")));
        }
        Delivery {
            id,
            event,
            timestamp,
            body,
            headers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_v7_layout() {
        let now = Duration::new(1_700_000_000, 123_456_789);
        let id = DeliveryId::from_parts(now, [0xFF; 8]);
        let text = id.to_string();
        assert_eq!(text.len(), 36);
        assert_eq!(&text[14..15], "7", "version nibble: {text}");
        assert!(
            matches!(&text[19..20], "8" | "9" | "a" | "b"),
            "variant: {text}"
        );
        assert_eq!(id.unix_millis(), 1_700_000_000_123);
        assert_eq!(text.parse::<DeliveryId>().unwrap(), id);
        assert_eq!(text.to_uppercase().parse::<DeliveryId>().unwrap(), id);
    }

    #[test]
    fn ids_sort_by_time_within_a_millisecond() {
        let a = DeliveryId::from_parts(Duration::new(5, 1_000), [0xFF; 8]);
        let b = DeliveryId::from_parts(Duration::new(5, 600_000), [0; 8]);
        let c = DeliveryId::from_parts(Duration::new(5, 1_000_000), [0; 8]);
        assert!(a < b && b < c);
        assert!(a.to_string() < b.to_string() && b.to_string() < c.to_string());
    }

    #[test]
    fn every_secret_of_a_rotation_signs_and_each_alone_verifies() {
        use super::super::standard::{self, StandardSecret};
        use super::super::{Verifier, sign};
        let now = Duration::from_secs(1_700_000_000);
        let new = StandardSecret::from_bytes(b"new-secret".to_vec()).unwrap();
        let old = StandardSecret::from_bytes(b"old-secret".to_vec()).unwrap();
        let signer = Signer::with_secrets([b"new-secret", b"old-secret"])
            .unwrap()
            .also_standard_webhooks(&new)
            .also_standard_webhooks(&old);
        let payload = Payload::new(
            EventKind::DocumentRouted,
            now.as_secs(),
            EventData {
                document_id: "doc_1".into(),
                partner_id: "p".into(),
                document_type_code: "850".into(),
                status: "routed".into(),
                resend: false,
            },
        );
        let id = DeliveryId::from_parts(now, [7; 8]);
        let d = signer.deliver_payload(id, &payload, now);
        let header = d.header(HEADER_SIGNATURE).unwrap();
        assert_eq!(
            header,
            format!(
                "{}, {}",
                sign(b"new-secret", now.as_secs(), d.body()).unwrap(),
                sign(b"old-secret", now.as_secs(), d.body()).unwrap()
            )
        );
        for (secret, index) in [(&b"new-secret"[..], 0), (&b"old-secret"[..], 1)] {
            let v = Verifier::new([secret]).unwrap();
            let verified = v
                .verify(header, d.header(HEADER_TIMESTAMP).unwrap(), d.body(), now)
                .unwrap();
            assert_eq!(verified.timestamp, now.as_secs(), "{index}");
        }
        assert!(
            Verifier::new([b"other"])
                .unwrap()
                .verify(header, d.header(HEADER_TIMESTAMP).unwrap(), d.body(), now)
                .is_err()
        );
        let sw = d.header(standard::HEADER_SIGNATURE).unwrap();
        assert_eq!(sw.split(' ').count(), 2, "{sw}");
        for secret in [new, old] {
            standard::Verifier::new(&[secret])
                .unwrap()
                .verify(
                    d.header(standard::HEADER_ID).unwrap(),
                    sw,
                    d.header(standard::HEADER_TIMESTAMP).unwrap(),
                    d.body(),
                    now,
                )
                .unwrap();
        }
        // One secret: the header is exactly what it was before rotations existed.
        let one = Signer::new(b"new-secret")
            .unwrap()
            .deliver_payload(id, &payload, now);
        assert_eq!(
            one.header(HEADER_SIGNATURE).unwrap(),
            sign(b"new-secret", now.as_secs(), one.body()).unwrap()
        );
        assert_eq!(
            Signer::with_secrets(Vec::<&[u8]>::new())
                .unwrap_err()
                .code(),
            "EMPTY_SECRET"
        );
        assert_eq!(
            Signer::with_secrets([&b"a"[..], &b""[..]])
                .unwrap_err()
                .code(),
            "EMPTY_SECRET"
        );
    }

    #[test]
    fn malformed_ids() {
        for bad in [
            "",
            "0190b5e2-7c4e-7a3f-8d2e-3c1f6a9b0c7",
            "0190b5e2x7c4e-7a3f-8d2e-3c1f6a9b0c7d",
            "0190b5e2-7c4e-7a3f-8d2e-3c1f6a9b0c7g",
            "0190b5e2-7c4e-4a3f-8d2e-3c1f6a9b0c7d",
            "0190b5e2-7c4e-7a3f-cd2e-3c1f6a9b0c7d",
            "0190b5e2-7c4e-7a3f-8d2e-3c1f6a9b0cé",
        ] {
            let err = bad.parse::<DeliveryId>().unwrap_err();
            assert_eq!(err.code(), "MALFORMED_DELIVERY_ID", "{bad}");
        }
    }
}
