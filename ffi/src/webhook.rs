//! Webhook signing and verification (`x12kit::webhook`): the service's
//! `X-Service-Signature: sha256=<hex>` scheme and Standard Webhooks
//! (`webhook-signature: v1,<base64>`); and building deliveries, the body
//! bytes with the headers signed over them (`x12kit_webhook_signer`,
//! `x12kit_webhook_delivery`). See docs/webhooks.md.

use crate::error::{
    Failure, bytes, c_string, call, free_box, guard, json_options, out, put, text, x12kit_error,
    x12kit_status,
};
use crate::string::{byte_list, give, x12kit_bytes, x12kit_string};
use std::ffi::{CString, c_char};
use std::time::Duration;
use x12kit_core::ops::{self, VerifyOptions};
use x12kit_core::webhook::{
    self, Delivery, DeliveryId, EventData, EventKind, Payload, Signer, standard,
};

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

/// `x12kit_webhook_verify` with the options of the verify operation as JSON
/// text, the same object every x12kit language takes, and the outcome also
/// as JSON.
///
/// Arguments as for `x12kit_webhook_verify`, except:
/// - `options[0..options_len]`: a JSON object (UTF-8), e.g.
///   `{"tolerance": 600}` (seconds, default 300); NULL with length 0 (or the
///   text `null`) for the defaults.
/// - `verified_out`: NULL, or receives the timestamp and the matching secret.
/// - `json_out`: NULL, or receives the same as JSON,
///   `{"timestamp":N,"secretIndex":N}`, byte for byte the core's
///   `ops::webhook_verify` serialized (free with `x12kit_string_free`; empty
///   on failure).
///
/// Returns `X12KIT_STATUS_OK` when the delivery is authentic and fresh;
/// `X12KIT_STATUS_REJECTED` as `x12kit_webhook_verify`;
/// `X12KIT_STATUS_INVALID_INPUT` with `INVALID_OPTIONS` (an unknown key, a
/// negative tolerance; `x12kit_error_path` names it) or `EMPTY_SECRET`;
/// `X12KIT_STATUS_INVALID_UTF8`, `X12KIT_STATUS_NULL_POINTER`,
/// `X12KIT_STATUS_INVALID_ARGUMENT`. Comparisons are constant-time.
/// Thread safety: may be called from many threads at once.
///
/// Ownership: `*json_out` becomes the caller's; `*verified_out` is plain
/// data. Lifetime: `*json_out` lives until `x12kit_string_free`; x12kit
/// keeps no pointer to the inputs after the call.
///
/// # Safety
/// As for `x12kit_webhook_verify`; `options` must point to `options_len`
/// readable bytes (or be NULL with length 0); `json_out` must be NULL or
/// valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_verify_with_json_options(
    secrets: *const x12kit_bytes,
    secret_count: usize,
    signature: *const c_char,
    signature_len: usize,
    timestamp: *const c_char,
    timestamp_len: usize,
    body: *const u8,
    body_len: usize,
    options: *const c_char,
    options_len: usize,
    now: u64,
    verified_out: *mut x12kit_webhook_verified,
    json_out: *mut x12kit_string,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: the caller passes NULL or a writable string.
        let json_out = unsafe { json_out.as_mut() }.map(|j| {
            *j = x12kit_string::EMPTY;
            j
        });
        // SAFETY: forwarded to the caller.
        let (secrets, signature, timestamp, body) = unsafe {
            (
                byte_list(secrets, secret_count, "secrets")?,
                text(signature, signature_len, "signature")?,
                text(timestamp, timestamp_len, "timestamp")?,
                bytes(body, body_len, "body")?,
            )
        };
        // SAFETY: forwarded to the caller.
        let options: VerifyOptions = unsafe { json_options(options, options_len) }?;
        let verified = ops::webhook_verify(&secrets, signature, timestamp, body, &options, now)?;
        if let Some(j) = json_out {
            give(j, serde_json::to_vec(&verified).map_err(internal)?);
        }
        write_verified(verified_out, verified);
        Ok(())
    })
}

/// A serialization that cannot fail, failing: a bug, reported as such.
fn internal(e: serde_json::Error) -> Failure {
    Failure::from(x12kit_core::Error::new(
        x12kit_core::ErrorCode::Internal,
        format!("internal error in x12kit (please report it): {e}"),
    ))
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

/// Builds and signs webhook deliveries with the service's signing secret, and
/// optionally a Standard Webhooks `whsec_` secret (`x12kit::webhook::Signer`).
///
/// Create it once with `x12kit_webhook_signer_new`, use it for any number of
/// `x12kit_webhook_deliver`, `x12kit_webhook_retry` and
/// `x12kit_webhook_deliver_payload` calls, and free it with
/// `x12kit_webhook_signer_free`. It holds keys derived from the secrets (not
/// the caller's buffers).
///
/// Ownership: the caller's, from `x12kit_webhook_signer_new` until
/// `x12kit_webhook_signer_free`. Lifetime: until that call; deliveries it
/// built do not borrow from it and may outlive it. Thread safety: a signer
/// never changes after creation, so any number of threads may use one signer
/// at the same time; free it once, after all of them.
#[derive(Debug)]
pub struct x12kit_webhook_signer {
    signer: Signer,
}

/// One attempt of a webhook delivery (`x12kit::webhook::Delivery`): the exact
/// body bytes and the headers signed over them, read with the
/// `x12kit_webhook_delivery_*` accessors.
///
/// Send the body byte for byte with every header (`Content-Type`,
/// `X-Service-Timestamp`, `X-Service-Event`, `X-Service-Delivery-ID`,
/// `X-Service-Signature`, and `webhook-id`, `webhook-timestamp`,
/// `webhook-signature` when the signer has a Standard Webhooks secret).
///
/// Ownership: the caller's, from `x12kit_webhook_deliver`,
/// `x12kit_webhook_retry` or `x12kit_webhook_deliver_payload` until
/// `x12kit_webhook_delivery_free`. Lifetime: the body and every string read
/// from it stay valid until it is freed. Thread safety: a delivery never
/// changes after creation, so any number of threads may read it at the same
/// time; free it once, after all readers.
#[derive(Debug)]
pub struct x12kit_webhook_delivery {
    delivery: Delivery,
    id: CString,
    event: CString,
    headers: Vec<(CString, CString)>,
}

impl x12kit_webhook_delivery {
    fn new(delivery: Delivery) -> Self {
        x12kit_webhook_delivery {
            id: c_string(&delivery.id().to_string()),
            event: c_string(delivery.event().as_str()),
            headers: delivery
                .headers()
                .iter()
                .map(|(name, value)| (c_string(name), c_string(value)))
                .collect(),
            delivery,
        }
    }
}

/// The object behind a handle argument, or `NULL_POINTER`.
///
/// # Safety
/// `ptr` must be NULL or point to a live `T`.
unsafe fn live<'a, T>(ptr: *const T, name: &str) -> Result<&'a T, Failure> {
    // SAFETY: forwarded to the caller.
    unsafe { ptr.as_ref() }.ok_or_else(|| Failure::null(name))
}

/// `timestamp` as a time since the epoch; 0 is the system clock's now.
fn attempt_time(timestamp: u64) -> Duration {
    if timestamp == 0 {
        webhook::system_now()
    } else {
        Duration::from_secs(timestamp)
    }
}

/// The core's event data from the caller's JSON text (`INVALID_JSON`, or
/// `MALFORMED_BODY` for JSON that is not the data object).
fn event_data(json: &str) -> Result<EventData, Failure> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| {
        Failure::from(x12kit_core::Error::new(
            x12kit_core::ErrorCode::InvalidJson,
            format!("`data_json` is not valid JSON: {e}"),
        ))
    })?;
    Ok(x12kit_core::ops::webhook_event_data(&v)?)
}

/// Clears `*delivery_out`, runs `build`, and hands its delivery to the caller.
fn give_delivery(
    delivery_out: *mut *mut x12kit_webhook_delivery,
    build: impl FnOnce() -> Result<Delivery, Failure>,
) -> Result<(), Failure> {
    // SAFETY: the callers document `delivery_out` as NULL or writable.
    let delivery_out = unsafe { out(delivery_out, "delivery_out") }?;
    *delivery_out = std::ptr::null_mut();
    let delivery = build()?;
    *delivery_out = Box::into_raw(Box::new(x12kit_webhook_delivery::new(delivery)));
    Ok(())
}

/// Creates a signer for building webhook deliveries.
///
/// - `secret[0..secret_len]`: the webhook signing secret, as bytes exactly as
///   configured (no decoding), as for `x12kit_webhook_sign`.
/// - `standard_secret[0..standard_secret_len]`: a Standard Webhooks secret
///   `whsec_<base64>` (UTF-8; the prefix is optional) to add the
///   `webhook-id`, `webhook-timestamp` and `webhook-signature` headers to
///   every delivery; NULL with length 0 for none.
///
/// On success `*signer_out` receives the signer (free with
/// `x12kit_webhook_signer_free`); on failure it is set to NULL.
///
/// Errors: `X12KIT_STATUS_INVALID_INPUT` with `EMPTY_SECRET` (a zero-length
/// secret, or a `whsec_` with nothing after it) or `MALFORMED_SECRET` (the
/// Standard Webhooks secret is not padded base64);
/// `X12KIT_STATUS_INVALID_UTF8` (the Standard Webhooks secret);
/// `X12KIT_STATUS_NULL_POINTER`; `X12KIT_STATUS_INVALID_ARGUMENT`.
///
/// Ownership: the signer becomes the caller's; the secrets stay the caller's
/// and x12kit keeps no pointer to them. Lifetime: until
/// `x12kit_webhook_signer_free`. Thread safety: may be called from many
/// threads at once; the signer may then be shared by any number of threads.
///
/// # Safety
/// `secret` and `standard_secret` must point to their lengths in readable
/// bytes (or be NULL with length 0); `signer_out` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_signer_new(
    secret: *const u8,
    secret_len: usize,
    standard_secret: *const c_char,
    standard_secret_len: usize,
    signer_out: *mut *mut x12kit_webhook_signer,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let signer_out = unsafe { out(signer_out, "signer_out") }?;
        *signer_out = std::ptr::null_mut();
        // SAFETY: forwarded to the caller.
        let (secret, standard_secret) = unsafe {
            (
                bytes(secret, secret_len, "secret")?,
                text(standard_secret, standard_secret_len, "standard_secret")?,
            )
        };
        let mut signer = Signer::new(secret)?;
        if !standard_secret.is_empty() {
            signer =
                signer.with_standard_webhooks(&standard::StandardSecret::parse(standard_secret)?);
        }
        *signer_out = Box::into_raw(Box::new(x12kit_webhook_signer { signer }));
        Ok(())
    })
}

/// Frees a signer; NULL is ignored. Deliveries it built stay valid.
///
/// Ownership: takes back the signer. Lifetime: `signer` is invalid afterwards.
/// Thread safety: once, after every thread using the signer is done with it.
///
/// # Safety
/// `signer` must be NULL or a signer from `x12kit_webhook_signer_new` not
/// freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_signer_free(signer: *mut x12kit_webhook_signer) {
    // SAFETY: the caller passes NULL or a handle x12kit boxed, not freed before.
    unsafe { free_box(signer) }
}

/// Builds the first attempt of a delivery for a document lifecycle event,
/// with a new delivery id (a UUID version 7).
///
/// - `event[0..event_len]`: the event kind as text (UTF-8):
///   `document.validated`, `document.routed`, `document.partner_ack` or
///   `document.error`.
/// - `data_json[0..data_json_len]`: the event data as a JSON object (UTF-8),
///   `{"documentId":…,"partnerId":…,"documentTypeCode":…,"status":…}`, all
///   four strings; other members are ignored.
/// - `timestamp`: when the event occurred and this attempt is signed, in Unix
///   seconds (the body's `timestamp` and `X-Service-Timestamp`); 0 reads the
///   system clock (which also gives the id its milliseconds).
///
/// The body is compact JSON in a fixed field order, byte for byte what the
/// Rust core builds (see docs/webhooks.md). On success
/// `*delivery_out` receives the delivery (free with
/// `x12kit_webhook_delivery_free`); on failure it is set to NULL.
///
/// Errors: `X12KIT_STATUS_INVALID_INPUT` with `UNKNOWN_EVENT` (not one of the
/// four kinds), `INVALID_JSON` (`data_json` is not JSON), `MALFORMED_BODY`
/// (JSON, but not an object with those four string members) or
/// `RANDOMNESS_UNAVAILABLE` (the OS gave no random bits for the id);
/// `X12KIT_STATUS_INVALID_UTF8`, `X12KIT_STATUS_NULL_POINTER`,
/// `X12KIT_STATUS_INVALID_ARGUMENT`.
///
/// Ownership: the delivery becomes the caller's; x12kit keeps no pointer to
/// the inputs. Lifetime: until `x12kit_webhook_delivery_free`, independent of
/// the signer. Thread safety: may be called from many threads at once, with
/// the same signer.
///
/// # Safety
/// `signer` must be NULL or a live signer; `event` and `data_json` must
/// point to their lengths in readable bytes (or be NULL with length 0);
/// `delivery_out` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_deliver(
    signer: *const x12kit_webhook_signer,
    event: *const c_char,
    event_len: usize,
    data_json: *const c_char,
    data_json_len: usize,
    timestamp: u64,
    delivery_out: *mut *mut x12kit_webhook_delivery,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        give_delivery(delivery_out, || {
            // SAFETY: forwarded to the caller.
            let (signer, event, data_json) = unsafe {
                (
                    live(signer, "signer")?,
                    text(event, event_len, "event")?,
                    text(data_json, data_json_len, "data_json")?,
                )
            };
            let event: EventKind = event.parse()?;
            let data = event_data(data_json)?;
            Ok(signer
                .signer
                .deliver(event, data, attempt_time(timestamp))?)
        })
    })
}

/// Builds the next attempt of a delivery: the same delivery id, event and
/// body bytes, with a fresh timestamp and fresh signatures, so that a retry
/// hours later still passes the receiver's 300 s check and is recognised as
/// a duplicate by its id.
///
/// `previous` is any earlier attempt (it stays valid and unchanged);
/// `timestamp` is this attempt's time in Unix seconds, 0 for the system
/// clock. Use the signer that built `previous` (or one with the same
/// secrets); the signer decides which headers the retry has. On success
/// `*delivery_out` receives the new attempt (free with
/// `x12kit_webhook_delivery_free`); on failure it is set to NULL.
///
/// Errors: `X12KIT_STATUS_NULL_POINTER` only.
///
/// Ownership: the new delivery becomes the caller's; `previous` stays the
/// caller's. Lifetime: until `x12kit_webhook_delivery_free`, independent of
/// `previous` and the signer. Thread safety: may be called from many threads
/// at once, with the same signer and the same `previous`.
///
/// # Safety
/// `signer` and `previous` must be NULL or live objects from x12kit;
/// `delivery_out` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_retry(
    signer: *const x12kit_webhook_signer,
    previous: *const x12kit_webhook_delivery,
    timestamp: u64,
    delivery_out: *mut *mut x12kit_webhook_delivery,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        give_delivery(delivery_out, || {
            // SAFETY: forwarded to the caller.
            let (signer, previous) =
                unsafe { (live(signer, "signer")?, live(previous, "previous")?) };
            Ok(signer
                .signer
                .retry(&previous.delivery, attempt_time(timestamp)))
        })
    })
}

/// Builds an attempt of a delivery kept in storage (after a restart, say):
/// the stored delivery id and body, signed at `timestamp`.
///
/// - `id[0..id_len]`: the stored `X-Service-Delivery-ID` (UTF-8), a UUID
///   version 7 such as `0190b5e2-7c4e-7a3f-8d2e-3c1f6a9b0c7d` (either case).
/// - `body[0..body_len]`: the stored body, a delivery JSON object
///   `{"event":…,"timestamp":…,"data":{…}}`. It is parsed and written again
///   in the canonical form, so a body x12kit built comes back byte for byte.
/// - `timestamp`: this attempt's time in Unix seconds, 0 for the system clock.
///
/// On success `*delivery_out` receives the delivery (free with
/// `x12kit_webhook_delivery_free`); on failure it is set to NULL.
///
/// Errors: `X12KIT_STATUS_INVALID_INPUT` with `MALFORMED_DELIVERY_ID` or
/// `MALFORMED_BODY` (not a delivery JSON object, or an unknown event);
/// `X12KIT_STATUS_INVALID_UTF8`, `X12KIT_STATUS_NULL_POINTER`,
/// `X12KIT_STATUS_INVALID_ARGUMENT`.
///
/// Ownership: the delivery becomes the caller's; x12kit keeps no pointer to
/// the inputs. Lifetime: until `x12kit_webhook_delivery_free`. Thread safety:
/// may be called from many threads at once, with the same signer.
///
/// # Safety
/// `signer` must be NULL or a live signer; `id` and `body` must point to
/// their lengths in readable bytes (or be NULL with length 0);
/// `delivery_out` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_deliver_payload(
    signer: *const x12kit_webhook_signer,
    id: *const c_char,
    id_len: usize,
    body: *const u8,
    body_len: usize,
    timestamp: u64,
    delivery_out: *mut *mut x12kit_webhook_delivery,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        give_delivery(delivery_out, || {
            // SAFETY: forwarded to the caller.
            let (signer, id, body) = unsafe {
                (
                    live(signer, "signer")?,
                    text(id, id_len, "id")?,
                    bytes(body, body_len, "body")?,
                )
            };
            let id: DeliveryId = id.parse()?;
            let payload = Payload::from_slice(body)?;
            Ok(signer
                .signer
                .deliver_payload(id, &payload, attempt_time(timestamp)))
        })
    })
}

/// Gives the body to send, byte for byte: `*data_out` receives a pointer to
/// `*len_out` bytes of compact UTF-8 JSON (not NUL-terminated). Returns
/// false, with `*data_out` NULL and `*len_out` 0, when `delivery` is NULL.
/// Either output pointer may be NULL to skip it.
///
/// Ownership: the bytes stay the delivery's, never free them. Lifetime:
/// until `x12kit_webhook_delivery_free`. Thread safety: any number of threads
/// may read a delivery at once.
///
/// # Safety
/// `delivery` must be NULL or a live delivery; `data_out` and `len_out` must
/// be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_delivery_body(
    delivery: *const x12kit_webhook_delivery,
    data_out: *mut *const u8,
    len_out: *mut usize,
) -> bool {
    guard(false, || {
        // SAFETY: forwarded to the caller.
        let body = unsafe { delivery.as_ref() }.map(|d| d.delivery.body());
        // SAFETY: forwarded to the caller.
        unsafe {
            put(data_out, body.map_or(std::ptr::null(), <[u8]>::as_ptr));
            put(len_out, body.map_or(0, <[u8]>::len));
        }
        body.is_some()
    })
}

/// Number of headers of the delivery (0 for NULL): 5, or 8 with Standard
/// Webhooks headers.
///
/// Ownership, lifetime: a plain value; nothing changes hands. Thread safety:
/// any number of threads may read a delivery at once.
///
/// # Safety
/// `delivery` must be NULL or a live delivery.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_delivery_header_count(
    delivery: *const x12kit_webhook_delivery,
) -> usize {
    // SAFETY: forwarded to the caller.
    guard(0, || {
        unsafe { delivery.as_ref() }.map_or(0, |d| d.headers.len())
    })
}

/// Gives header `index` (0-based, in the order to send them): `*name_out`
/// and `*value_out` receive NUL-terminated ASCII strings, e.g.
/// `X-Service-Signature` and `sha256=…`; returns true. Returns false, with
/// both set to NULL, when `delivery` is NULL or `index` is not below
/// `x12kit_webhook_delivery_header_count`. Either output pointer may be NULL
/// to skip it.
///
/// Ownership: the strings stay the delivery's, never free them. Lifetime:
/// until `x12kit_webhook_delivery_free`. Thread safety: any number of threads
/// may read a delivery at once.
///
/// # Safety
/// `delivery` must be NULL or a live delivery; `name_out` and `value_out`
/// must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_delivery_header(
    delivery: *const x12kit_webhook_delivery,
    index: usize,
    name_out: *mut *const c_char,
    value_out: *mut *const c_char,
) -> bool {
    guard(false, || {
        // SAFETY: forwarded to the caller.
        let header = unsafe { delivery.as_ref() }.and_then(|d| d.headers.get(index));
        let (name, value) = header.map_or((std::ptr::null(), std::ptr::null()), |(n, v)| {
            (n.as_ptr(), v.as_ptr())
        });
        // SAFETY: forwarded to the caller.
        unsafe {
            put(name_out, name);
            put(value_out, value);
        }
        header.is_some()
    })
}

/// The value of the header named `name[0..name_len]` (ASCII
/// case-insensitive, e.g. `X-Service-Signature` or `webhook-signature`), as
/// a NUL-terminated string; NULL when the delivery has no such header, or
/// `delivery` or `name` is NULL.
///
/// Ownership: the string stays the delivery's, never free it. Lifetime:
/// until `x12kit_webhook_delivery_free`. Thread safety: any number of threads
/// may read a delivery at once.
///
/// # Safety
/// `delivery` must be NULL or a live delivery; `name` must point to
/// `name_len` readable bytes (or be NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_delivery_find_header(
    delivery: *const x12kit_webhook_delivery,
    name: *const c_char,
    name_len: usize,
) -> *const c_char {
    guard(std::ptr::null(), || {
        // SAFETY: forwarded to the caller.
        let (Some(d), Ok(name)) = (unsafe { delivery.as_ref() }, unsafe {
            bytes(name.cast(), name_len, "name")
        }) else {
            return std::ptr::null();
        };
        d.headers
            .iter()
            .find(|(n, _)| n.as_bytes().eq_ignore_ascii_case(name))
            .map_or(std::ptr::null(), |(_, v)| v.as_ptr())
    })
}

/// The delivery id, as in `X-Service-Delivery-ID`: a NUL-terminated UUID
/// version 7 in lower-case text (36 characters), the same on every attempt
/// of a delivery; NULL when `delivery` is NULL.
///
/// Ownership: the string stays the delivery's, never free it. Lifetime:
/// until `x12kit_webhook_delivery_free`. Thread safety: any number of threads
/// may read a delivery at once.
///
/// # Safety
/// `delivery` must be NULL or a live delivery.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_delivery_id(
    delivery: *const x12kit_webhook_delivery,
) -> *const c_char {
    guard(std::ptr::null(), || {
        // SAFETY: forwarded to the caller.
        unsafe { delivery.as_ref() }.map_or(std::ptr::null(), |d| d.id.as_ptr())
    })
}

/// The event kind, as in `X-Service-Event` (e.g. `document.validated`), a
/// NUL-terminated string; NULL when `delivery` is NULL.
///
/// Ownership: the string stays the delivery's, never free it. Lifetime:
/// until `x12kit_webhook_delivery_free`. Thread safety: any number of threads
/// may read a delivery at once.
///
/// # Safety
/// `delivery` must be NULL or a live delivery.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_delivery_event(
    delivery: *const x12kit_webhook_delivery,
) -> *const c_char {
    guard(std::ptr::null(), || {
        // SAFETY: forwarded to the caller.
        unsafe { delivery.as_ref() }.map_or(std::ptr::null(), |d| d.event.as_ptr())
    })
}

/// This attempt's signing time in Unix seconds, as in `X-Service-Timestamp`
/// (0 when `delivery` is NULL).
///
/// Ownership, lifetime: a plain value; nothing changes hands. Thread safety:
/// any number of threads may read a delivery at once.
///
/// # Safety
/// `delivery` must be NULL or a live delivery.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_delivery_timestamp(
    delivery: *const x12kit_webhook_delivery,
) -> u64 {
    // SAFETY: forwarded to the caller.
    guard(0, || {
        unsafe { delivery.as_ref() }.map_or(0, |d| d.delivery.timestamp())
    })
}

/// Frees a delivery; NULL is ignored.
///
/// Ownership: takes back the delivery. Lifetime: the delivery, its body and
/// every string read from it are invalid afterwards. Thread safety: once,
/// after every reader of the delivery.
///
/// # Safety
/// `delivery` must be NULL or a delivery from x12kit not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_webhook_delivery_free(delivery: *mut x12kit_webhook_delivery) {
    // SAFETY: the caller passes NULL or a handle x12kit boxed, not freed before.
    unsafe { free_box(delivery) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{x12kit_error_code, x12kit_error_free, x12kit_error_new};
    use std::ffi::CStr;
    use std::ptr::{null, null_mut};

    const DATA: &str = r#"{"documentId":"doc_01HZX","partnerId":"partner_acme","documentTypeCode":"850","status":"validated"}"#;
    const WHSEC: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    fn signer(standard: &str) -> *mut x12kit_webhook_signer {
        let mut signer = null_mut();
        // SAFETY: valid buffers and output.
        let status = unsafe {
            x12kit_webhook_signer_new(
                b"my-signing-secret".as_ptr(),
                17,
                standard.as_ptr().cast(),
                standard.len(),
                &mut signer,
                null_mut(),
            )
        };
        assert_eq!(status, x12kit_status::Ok);
        signer
    }

    fn deliver(
        signer: *const x12kit_webhook_signer,
        event: &str,
        data: &str,
        err: *mut x12kit_error,
    ) -> (x12kit_status, *mut x12kit_webhook_delivery) {
        let mut delivery = std::ptr::dangling_mut(); // must be cleared
        // SAFETY: valid buffers and output.
        let status = unsafe {
            x12kit_webhook_deliver(
                signer,
                event.as_ptr().cast(),
                event.len(),
                data.as_ptr().cast(),
                data.len(),
                1_700_000_000,
                &mut delivery,
                err,
            )
        };
        (status, delivery)
    }

    /// The C delivery holds exactly the core's body and headers, and a retry
    /// keeps the id and body.
    #[test]
    fn deliveries_are_the_cores() {
        let signer = signer(WHSEC);
        let (status, delivery) = deliver(signer, "document.validated", DATA, null_mut());
        assert_eq!(status, x12kit_status::Ok);
        // SAFETY: live delivery.
        let d = unsafe { &*delivery };
        let data: EventData = serde_json::from_str(DATA).unwrap();
        let expected = Payload::new(EventKind::DocumentValidated, 1_700_000_000, data);
        assert_eq!(d.delivery.body(), expected.to_bytes());
        let core = Signer::new("my-signing-secret")
            .unwrap()
            .with_standard_webhooks(&standard::StandardSecret::parse(WHSEC).unwrap())
            .deliver_payload(
                d.delivery.id(),
                &expected,
                Duration::from_secs(1_700_000_000),
            );
        assert_eq!(d.delivery, core);

        let (mut name, mut value) = (null(), null());
        // SAFETY: live delivery, writable outputs; the strings live as long as it.
        unsafe {
            assert_eq!(x12kit_webhook_delivery_header_count(delivery), 8);
            for (i, (n, v)) in core.headers().iter().enumerate() {
                assert!(x12kit_webhook_delivery_header(
                    delivery, i, &mut name, &mut value
                ));
                assert_eq!(CStr::from_ptr(name).to_str().unwrap(), *n);
                assert_eq!(CStr::from_ptr(value).to_str().unwrap(), v);
            }
            assert!(!x12kit_webhook_delivery_header(
                delivery, 8, &mut name, &mut value
            ));
            assert!(name.is_null() && value.is_null());
            let found = x12kit_webhook_delivery_find_header(delivery, c"WEBHOOK-ID".as_ptr(), 10);
            assert_eq!(
                CStr::from_ptr(found),
                CStr::from_ptr(x12kit_webhook_delivery_id(delivery))
            );

            let mut retry = null_mut();
            let status =
                x12kit_webhook_retry(signer, delivery, 1_700_000_060, &mut retry, null_mut());
            assert_eq!(status, x12kit_status::Ok);
            assert_eq!((*retry).delivery, core_retry(&core));
            x12kit_webhook_delivery_free(retry);
            x12kit_webhook_delivery_free(delivery);
            x12kit_webhook_signer_free(signer);
        }
    }

    fn core_retry(first: &Delivery) -> Delivery {
        Signer::new("my-signing-secret")
            .unwrap()
            .with_standard_webhooks(&standard::StandardSecret::parse(WHSEC).unwrap())
            .retry(first, Duration::from_secs(1_700_000_060))
    }

    #[test]
    fn bad_event_data_gives_the_cores_codes() {
        let signer = signer("");
        let err = x12kit_error_new();
        for (event, data, status, code) in [
            (
                "document.sent",
                DATA,
                x12kit_status::InvalidInput,
                "UNKNOWN_EVENT",
            ),
            (
                "document.validated",
                "{",
                x12kit_status::InvalidInput,
                "INVALID_JSON",
            ),
            (
                "document.validated",
                "",
                x12kit_status::InvalidInput,
                "INVALID_JSON",
            ),
            (
                "document.validated",
                "[]",
                x12kit_status::InvalidInput,
                "MALFORMED_BODY",
            ),
            (
                "document.validated",
                r#"{"documentId":"d"}"#,
                x12kit_status::InvalidInput,
                "MALFORMED_BODY",
            ),
        ] {
            let (got, delivery) = deliver(signer, event, data, err);
            assert!(delivery.is_null());
            // SAFETY: live error object.
            let got_code = unsafe { CStr::from_ptr(x12kit_error_code(err)) };
            assert_eq!(
                (got, got_code.to_str().unwrap()),
                (status, code),
                "{event} {data}"
            );
        }
        let (got, delivery) = deliver(null(), "document.validated", DATA, err);
        assert_eq!((got, delivery), (x12kit_status::NullPointer, null_mut()));
        // SAFETY: from x12kit_error_new / x12kit_webhook_signer_new.
        unsafe {
            x12kit_error_free(err);
            x12kit_webhook_signer_free(signer);
        }
    }
}
