//! The service's own signature scheme (§5 of the EDI integration service's API): `X-Service-Signature:
//! sha256=<hex>` is HMAC-SHA256, keyed with the secret's bytes, over the bytes
//! `timestamp + "." + raw_body`; receivers check it against one or more secrets
//! and reject timestamps outside a tolerance.

use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::error::WebhookError;

/// HMAC-SHA256, the only MAC the webhook module uses.
pub(crate) type HmacSha256 = Hmac<Sha256>;

/// The prefix of every value of the `X-Service-Signature` header.
pub const SIGNATURE_PREFIX: &str = "sha256=";

/// How far a delivery's timestamp may be from the receiver's clock by default (300 s).
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(300);

/// Length in bytes of an HMAC-SHA256 digest.
const DIGEST_LEN: usize = 32;

/// Signs a delivery: `sha256=` + lower-case hex HMAC-SHA256 of `timestamp.raw_body`.
///
/// The secret is used as the bytes given (no decoding); an empty secret is
/// refused with `WebhookError::EmptySecret` (as an [`Error`](x12kit_syntax::Error)).
pub fn sign(
    secret: &[u8],
    timestamp: u64,
    raw_body: &[u8],
) -> Result<String, x12kit_syntax::Error> {
    let key = keyed(secret)?;
    Ok(signature_with(&key, &timestamp.to_string(), raw_body))
}

/// Verifies a delivery against `secrets`, accepting when any listed signature matches any secret.
///
/// `signature_header` and `timestamp_header` are the raw values of
/// `X-Service-Signature` and `X-Service-Timestamp` (pass `""` for an absent
/// header); `raw_body` is the body exactly as received; `now` is the current
/// time since the Unix epoch. See [`Verifier`] to reuse keyed secrets.
pub fn verify<S: AsRef<[u8]>>(
    secrets: &[S],
    signature_header: &str,
    timestamp_header: &str,
    raw_body: &[u8],
    now: Duration,
    tolerance: Duration,
) -> Result<Verified, x12kit_syntax::Error> {
    Verifier::new(secrets)?.with_tolerance(tolerance).verify(
        signature_header,
        timestamp_header,
        raw_body,
        now,
    )
}

/// What a successful verification established (JSON: `{"timestamp", "secretIndex"}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verified {
    /// The delivery's timestamp, in Unix seconds.
    pub timestamp: u64,
    /// Index (in the order given) of the secret that matched, to tell when an old secret can retire.
    pub secret_index: usize,
}

/// Verifies deliveries against one or more secrets (rotation) with a tolerance.
#[derive(Clone)]
pub struct Verifier {
    keys: Vec<HmacSha256>,
    tolerance: Duration,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("secrets", &self.keys.len())
            .field("tolerance", &self.tolerance)
            .finish()
    }
}

impl Verifier {
    /// Keys a verifier with the given secrets (as bytes); fails on none or on an empty one.
    pub fn new<I, S>(secrets: I) -> Result<Self, x12kit_syntax::Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<[u8]>,
    {
        let keys = keyed_all(secrets)?;
        Ok(Self {
            keys,
            tolerance: DEFAULT_TOLERANCE,
        })
    }

    /// Sets the allowed distance between the delivery's timestamp and `now` (whole seconds).
    pub fn with_tolerance(mut self, tolerance: Duration) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// The allowed distance between the delivery's timestamp and `now`.
    pub fn tolerance(&self) -> Duration {
        self.tolerance
    }

    /// Verifies one delivery at time `now` (since the Unix epoch); see [`verify`].
    pub fn verify(
        &self,
        signature_header: &str,
        timestamp_header: &str,
        raw_body: &[u8],
        now: Duration,
    ) -> Result<Verified, x12kit_syntax::Error> {
        let candidates = parse_signature_header(signature_header)?;
        let (timestamp_text, timestamp) = parse_timestamp(timestamp_header)?;
        check_tolerance(timestamp, now, self.tolerance)?;
        first_match(
            &self.keys,
            &[timestamp_text.as_bytes(), b".", raw_body],
            &candidates,
            timestamp,
        )
    }

    /// Verifies one delivery against the system clock (not available on wasm32-unknown-unknown).
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    pub fn verify_now(
        &self,
        signature_header: &str,
        timestamp_header: &str,
        raw_body: &[u8],
    ) -> Result<Verified, x12kit_syntax::Error> {
        self.verify(signature_header, timestamp_header, raw_body, system_now())
    }
}

/// The time since the Unix epoch by the system clock (zero if the clock is before 1970).
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub fn system_now() -> Duration {
    x12kit_syntax::clock::since_epoch()
}

/// An HMAC-SHA256 keyed with `secret`, refusing an empty secret.
pub(crate) fn keyed(secret: &[u8]) -> Result<HmacSha256, x12kit_syntax::Error> {
    if secret.is_empty() {
        return Err(WebhookError::EmptySecret.into());
    }
    // HMAC takes keys of any length, so this never fails.
    Ok(<HmacSha256 as Mac>::new_from_slice(secret).expect("HMAC accepts keys of any length"))
}

/// The keys of a rotation (newest first): refuses an empty list or an empty secret.
pub(crate) fn keyed_all<I, S>(secrets: I) -> Result<Vec<HmacSha256>, x12kit_syntax::Error>
where
    I: IntoIterator<Item = S>,
    S: AsRef<[u8]>,
{
    let keys = secrets
        .into_iter()
        .map(|s| keyed(s.as_ref()))
        .collect::<Result<Vec<_>, _>>()?;
    if keys.is_empty() {
        return Err(WebhookError::EmptySecret.into());
    }
    Ok(keys)
}

/// A copy of `key` fed with `parts`, ready to finalize or verify.
/// The first of `keys` whose MAC over `parts` is one of `candidates`
/// (compared in constant time), as the [`Verified`] of a delivery signed
/// at `timestamp`; `SIGNATURE_MISMATCH` when none is.
pub(crate) fn first_match(
    keys: &[HmacSha256],
    parts: &[&[u8]],
    candidates: &[[u8; DIGEST_LEN]],
    timestamp: u64,
) -> Result<Verified, x12kit_syntax::Error> {
    for (secret_index, key) in keys.iter().enumerate() {
        let mac = mac_over(key, parts);
        // `verify_slice` compares in constant time.
        if candidates
            .iter()
            .any(|candidate| mac.clone().verify_slice(candidate).is_ok())
        {
            return Ok(Verified {
                timestamp,
                secret_index,
            });
        }
    }
    Err(WebhookError::SignatureMismatch.into())
}

pub(crate) fn mac_over(key: &HmacSha256, parts: &[&[u8]]) -> HmacSha256 {
    let mut mac = key.clone();
    for part in parts {
        mac.update(part);
    }
    mac
}

/// `sha256=<hex>` of `timestamp.body` under an already keyed MAC.
pub(crate) fn signature_with(key: &HmacSha256, timestamp: &str, body: &[u8]) -> String {
    let digest = mac_over(key, &[timestamp.as_bytes(), b".", body])
        .finalize()
        .into_bytes();
    format!("{SIGNATURE_PREFIX}{}", hex::encode(digest))
}

/// Parses `X-Service-Signature`: entries separated by `,` or whitespace, each `sha256=<64 hex>`.
///
/// Entries that are not well formed are skipped when another one is; with none
/// well formed, the first entry's problem is reported.
fn parse_signature_header(header: &str) -> Result<Vec<[u8; DIGEST_LEN]>, WebhookError> {
    let mut digests = Vec::new();
    let mut first_problem = None;
    let entries = header
        .split(|c: char| c == ',' || c.is_ascii_whitespace())
        .filter(|entry| !entry.is_empty());
    for entry in entries {
        match parse_signature_entry(entry) {
            Ok(digest) => digests.push(digest),
            Err(reason) => {
                first_problem.get_or_insert(reason);
            }
        }
    }
    match (digests.is_empty(), first_problem) {
        (false, _) => Ok(digests),
        (true, Some(reason)) => Err(WebhookError::MalformedSignature { reason }),
        (true, None) => Err(WebhookError::MissingSignature),
    }
}

/// Parses one `sha256=<64 hex digits>` entry (hex digits of either case).
fn parse_signature_entry(entry: &str) -> Result<[u8; DIGEST_LEN], &'static str> {
    let hex_digits = entry
        .strip_prefix(SIGNATURE_PREFIX)
        .ok_or("a signature does not start with `sha256=`")?;
    if hex_digits.len() != 2 * DIGEST_LEN {
        return Err("the digest after `sha256=` must be exactly 64 hex digits (32 bytes)");
    }
    let mut digest = [0u8; DIGEST_LEN];
    hex::decode_to_slice(hex_digits, &mut digest)
        .map_err(|_| "the digest after `sha256=` is not hexadecimal")?;
    Ok(digest)
}

/// Parses a timestamp header: Unix seconds as ASCII digits, surrounding spaces or tabs ignored.
///
/// Returns the digits as sent (they are what was signed) and their value.
pub(crate) fn parse_timestamp(header: &str) -> Result<(&str, u64), x12kit_syntax::Error> {
    let text = header.trim_matches([' ', '\t']);
    if text.is_empty() {
        return Err(WebhookError::MalformedTimestamp {
            reason: "the timestamp header is missing or empty",
        }
        .into());
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(WebhookError::MalformedTimestamp {
            reason: "it must be Unix time in seconds, written with the digits 0-9 only",
        }
        .into());
    }
    let value = text
        .parse::<u64>()
        .map_err(|_| WebhookError::MalformedTimestamp {
            reason: "the number is too large to be Unix time in seconds",
        })?;
    Ok((text, value))
}

/// Rejects a timestamp more than `tolerance` (whole seconds) before or after `now`.
pub(crate) fn check_tolerance(
    timestamp: u64,
    now: Duration,
    tolerance: Duration,
) -> Result<(), x12kit_syntax::Error> {
    let now = now.as_secs();
    let tolerance = tolerance.as_secs();
    if timestamp.abs_diff(now) > tolerance {
        return Err(WebhookError::TimestampOutOfTolerance {
            timestamp,
            now,
            tolerance,
        }
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_the_timestamp_dot_body_bytes() {
        // Independently computed: HMAC-SHA256(key="secret", "1700000000.{}").
        let expected = {
            let mut mac = <HmacSha256 as Mac>::new_from_slice(b"secret").unwrap();
            mac.update(b"1700000000.{}");
            format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
        };
        assert_eq!(sign(b"secret", 1_700_000_000, b"{}").unwrap(), expected);
    }

    #[test]
    fn separators_are_commas_and_whitespace() {
        let good = format!("sha256={}", "ab".repeat(32));
        for header in [
            good.clone(),
            format!(" ,{good}, "),
            format!("{good}\t{good}"),
        ] {
            assert!(parse_signature_header(&header).is_ok(), "{header}");
        }
        assert_eq!(
            parse_signature_header(" , \t"),
            Err(WebhookError::MissingSignature)
        );
    }

    #[test]
    fn timestamps_are_digits_only() {
        assert_eq!(parse_timestamp(" 12 ").unwrap(), ("12", 12));
        for bad in [
            "",
            "  ",
            "-1",
            "+1",
            "1e9",
            "1.5",
            "０",
            "99999999999999999999999",
        ] {
            assert!(parse_timestamp(bad).is_err(), "{bad:?}");
        }
    }
}
