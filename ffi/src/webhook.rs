//! Webhook signing and verification (`x12kit::webhook`): the service's
//! `X-Service-Signature: sha256=<hex>` scheme and Standard Webhooks
//! (`webhook-signature: v1,<base64>`). See docs/webhooks.md.

use crate::error::{Failure, bytes, call, out, text, x12kit_error, x12kit_status};
use crate::string::{give, x12kit_bytes, x12kit_string};
use std::ffi::c_char;
use std::time::Duration;
use x12kit_core::webhook::{self, standard};

/// What a successful verification established.
///
/// Ownership, lifetime, thread safety: plain data without pointers, filled by
/// x12kit and owned by the caller.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct x12kit_webhook_verified {
    /// The delivery's timestamp, in Unix seconds.
    pub timestamp: u64,
    /// 0-based index, in the order given, of the secret that matched (tells
    /// when an old secret can be retired after a rotation).
    pub secret_index: usize,
}

/// The `count` byte ranges of `list`.
///
/// # Safety
/// `list` must point to `count` readable `x12kit_bytes`, each valid as documented.
unsafe fn byte_list<'a>(
    list: *const x12kit_bytes,
    count: usize,
    name: &str,
) -> Result<Vec<&'a [u8]>, Failure> {
    let items = if count == 0 {
        &[][..]
    } else if list.is_null() {
        return Err(Failure::null(name));
    } else if count > isize::MAX as usize / std::mem::size_of::<x12kit_bytes>() {
        return Err(Failure::argument(format!(
            "the count given for `{name}` ({count}) is larger than any array can be"
        )));
    } else {
        // SAFETY: non-NULL; the caller guarantees `count` elements.
        unsafe { std::slice::from_raw_parts(list, count) }
    };
    items
        .iter()
        .enumerate()
        // SAFETY: each entry is documented to point to `len` readable bytes.
        .map(|(i, b)| unsafe { bytes(b.data, b.len, &format!("{name}[{i}].data")) })
        .collect()
}

fn write_verified(out: *mut x12kit_webhook_verified, v: webhook::Verified) {
    // SAFETY: the caller passes NULL or a writable struct.
    if let Some(out) = unsafe { out.as_mut() } {
        *out = x12kit_webhook_verified {
            timestamp: v.timestamp,
            secret_index: v.secret_index,
        };
    }
}

/// Signs a webhook delivery: `sha256=` + 64 lower-case hex digits of
/// HMAC-SHA256, keyed with the secret's bytes, over `timestamp "." body`.
///
/// `secret[0..secret_len]` is the signing secret exactly as configured (no
/// decoding); `timestamp` the Unix seconds sent in `X-Service-Timestamp`;
/// `body[0..body_len]` the raw request body. On success `*signature_out`
/// receives the `X-Service-Signature` value (free with `x12kit_string_free`).
///
/// Errors: `X12KIT_STATUS_INVALID_INPUT` / `EMPTY_SECRET` (a zero-length
/// secret), `X12KIT_STATUS_NULL_POINTER`, `X12KIT_STATUS_INVALID_ARGUMENT`.
/// Thread safety: may be called from many threads at once.
///
/// Ownership: the signature becomes the caller's; x12kit keeps no pointer to
/// the inputs. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// Each pointer must point to its length in readable bytes (or be NULL with
/// length 0); `signature_out` must be valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_sign(
    secret: *const u8,
    secret_len: usize,
    timestamp: u64,
    body: *const u8,
    body_len: usize,
    signature_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let signature_out = unsafe { out(signature_out, "signature_out") }?;
        *signature_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let (secret, body) = unsafe {
            (
                bytes(secret, secret_len, "secret")?,
                bytes(body, body_len, "body")?,
            )
        };
        give(
            signature_out,
            webhook::sign(secret, timestamp, body)?.into_bytes(),
        );
        Ok(())
    })
}

/// Verifies a webhook delivery against one or more secrets (several during a
/// secret rotation): authentic when any signature in the header matches under
/// any secret, and fresh when its timestamp is within `tolerance_seconds` of
/// `now` (the edge included).
///
/// - `secrets[0..secret_count]`: the secrets as bytes, exactly as configured.
/// - `signature[0..signature_len]`: the `X-Service-Signature` header value
///   (UTF-8; pass length 0 for an absent header).
/// - `timestamp[0..timestamp_len]`: the `X-Service-Timestamp` header value as
///   received (UTF-8; length 0 when absent).
/// - `body[0..body_len]`: the raw body exactly as received.
/// - `now`: the current time in Unix seconds, e.g. `(uint64_t)time(NULL)`.
/// - `tolerance_seconds`: 300 is the service's default.
/// - `verified_out`: NULL, or receives the timestamp and the matching secret.
///
/// Returns `X12KIT_STATUS_OK` when the delivery is authentic and fresh;
/// `X12KIT_STATUS_REJECTED` when it must not be trusted (code
/// `MISSING_SIGNATURE`, `MALFORMED_SIGNATURE`, `MALFORMED_TIMESTAMP`,
/// `TIMESTAMP_OUT_OF_TOLERANCE` or `SIGNATURE_MISMATCH`);
/// `X12KIT_STATUS_INVALID_INPUT` / `EMPTY_SECRET` when no secret or an empty
/// one is given; `X12KIT_STATUS_INVALID_UTF8`, `X12KIT_STATUS_NULL_POINTER`,
/// `X12KIT_STATUS_INVALID_ARGUMENT` for unusable arguments. Comparisons are
/// constant-time. Thread safety: may be called from many threads at once.
///
/// Ownership: nothing to free; `*verified_out` is plain data. Lifetime: x12kit
/// keeps no pointer to the inputs after the call.
///
/// # Safety
/// `secrets` must point to `secret_count` `x12kit_bytes` (or be NULL with
/// count 0), each pointing to its length in readable bytes; the other pointers
/// must point to their lengths in readable bytes (or be NULL with length 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_verify(
    secrets: *const x12kit_bytes,
    secret_count: usize,
    signature: *const c_char,
    signature_len: usize,
    timestamp: *const c_char,
    timestamp_len: usize,
    body: *const u8,
    body_len: usize,
    now: u64,
    tolerance_seconds: u64,
    verified_out: *mut x12kit_webhook_verified,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let (secrets, signature, timestamp, body) = unsafe {
            (
                byte_list(secrets, secret_count, "secrets")?,
                text(signature, signature_len, "signature")?,
                text(timestamp, timestamp_len, "timestamp")?,
                bytes(body, body_len, "body")?,
            )
        };
        let verified = webhook::verify(
            &secrets,
            signature,
            timestamp,
            body,
            Duration::from_secs(now),
            Duration::from_secs(tolerance_seconds),
        )?;
        write_verified(verified_out, verified);
        Ok(())
    })
}

/// Signs a message the Standard Webhooks way: `v1,` + base64 of HMAC-SHA256
/// over `id "." timestamp "." body`, keyed with the decoded secret.
///
/// `secret[0..secret_len]` is the `whsec_<base64>` secret (UTF-8; the
/// `whsec_` prefix is optional); `id[0..id_len]` the `webhook-id` value
/// (UTF-8); `timestamp` the `webhook-timestamp` in Unix seconds;
/// `body[0..body_len]` the raw body. On success `*signature_out` receives the
/// `webhook-signature` value (free with `x12kit_string_free`).
///
/// Errors: `X12KIT_STATUS_INVALID_INPUT` with `EMPTY_SECRET` or
/// `MALFORMED_SECRET`; `X12KIT_STATUS_INVALID_UTF8`,
/// `X12KIT_STATUS_NULL_POINTER`, `X12KIT_STATUS_INVALID_ARGUMENT`.
/// Thread safety: may be called from many threads at once.
///
/// Ownership: the signature becomes the caller's; x12kit keeps no pointer to
/// the inputs. Lifetime: until `x12kit_string_free`.
///
/// # Safety
/// As for `x12kit_webhook_sign`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_standard_sign(
    secret: *const c_char,
    secret_len: usize,
    id: *const c_char,
    id_len: usize,
    timestamp: u64,
    body: *const u8,
    body_len: usize,
    signature_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let signature_out = unsafe { out(signature_out, "signature_out") }?;
        *signature_out = x12kit_string::EMPTY;
        // SAFETY: forwarded to the caller.
        let (secret, id, body) = unsafe {
            (
                text(secret, secret_len, "secret")?,
                text(id, id_len, "id")?,
                bytes(body, body_len, "body")?,
            )
        };
        let secret = standard::StandardSecret::parse(secret)?;
        give(
            signature_out,
            standard::sign(&secret, id, timestamp, body).into_bytes(),
        );
        Ok(())
    })
}

/// Verifies a Standard Webhooks message from its three header values and raw
/// body, against one or more `whsec_` secrets.
///
/// `secrets[0..secret_count]` are the `whsec_<base64>` secrets (UTF-8);
/// `id`, `signature` and `timestamp` are the `webhook-id`,
/// `webhook-signature` and `webhook-timestamp` values (UTF-8, length 0 when
/// absent); the rest is as for `x12kit_webhook_verify`.
///
/// Returns `X12KIT_STATUS_OK`; `X12KIT_STATUS_REJECTED` with
/// `MISSING_ID`, `MISSING_SIGNATURE`, `MALFORMED_SIGNATURE`,
/// `MALFORMED_TIMESTAMP`, `TIMESTAMP_OUT_OF_TOLERANCE` or
/// `SIGNATURE_MISMATCH`; `X12KIT_STATUS_INVALID_INPUT` with `EMPTY_SECRET` or
/// `MALFORMED_SECRET`; or an argument status. Thread safety: may be called
/// from many threads at once.
///
/// Ownership: nothing to free; `*verified_out` is plain data. Lifetime: x12kit
/// keeps no pointer to the inputs after the call.
///
/// # Safety
/// As for `x12kit_webhook_verify`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_standard_verify(
    secrets: *const x12kit_bytes,
    secret_count: usize,
    id: *const c_char,
    id_len: usize,
    signature: *const c_char,
    signature_len: usize,
    timestamp: *const c_char,
    timestamp_len: usize,
    body: *const u8,
    body_len: usize,
    now: u64,
    tolerance_seconds: u64,
    verified_out: *mut x12kit_webhook_verified,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let (secrets, id, signature, timestamp, body) = unsafe {
            (
                byte_list(secrets, secret_count, "secrets")?,
                text(id, id_len, "id")?,
                text(signature, signature_len, "signature")?,
                text(timestamp, timestamp_len, "timestamp")?,
                bytes(body, body_len, "body")?,
            )
        };
        let secrets = secrets
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let s = std::str::from_utf8(s).map_err(|_| {
                    Failure::new(
                        x12kit_status::InvalidUtf8,
                        "INVALID_UTF8",
                        format!("`secrets[{i}]` is not valid UTF-8; a whsec_ secret is ASCII"),
                    )
                })?;
                Ok(standard::StandardSecret::parse(s)?)
            })
            .collect::<Result<Vec<_>, Failure>>()?;
        let verified = standard::verify(
            &secrets,
            id,
            signature,
            timestamp,
            body,
            Duration::from_secs(now),
            Duration::from_secs(tolerance_seconds),
        )?;
        write_verified(verified_out, verified);
        Ok(())
    })
}
