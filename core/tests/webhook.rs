//! Integration tests of `x12kit::webhook`: signing and verification of the
//! service scheme (§5 of the EDI integration service's API), deliveries (§2.5, §6), Standard Webhooks
//! vectors, an independent check against Python's hmac module, and property
//! tests that nothing panics.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{Value, json};
use x12kit::webhook::{
    self, DEFAULT_TOLERANCE, Delivery, DeliveryId, EventData, EventKind, Payload, Signer, Verified,
    Verifier, WebhookError, sign, standard, verify,
};

const SECRET: &[u8] = b"whsec_service_test_secret";
const OLD_SECRET: &[u8] = b"old-secret-2025";
const NEW_SECRET: &[u8] = b"new-secret-2026";
const T: u64 = 1_700_000_000;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn check(
    secrets: &[&[u8]],
    signature: &str,
    timestamp: &str,
    body: &[u8],
    now: u64,
) -> Result<Verified, x12kit::Error> {
    verify(
        secrets,
        signature,
        timestamp,
        body,
        secs(now),
        DEFAULT_TOLERANCE,
    )
}

fn code(result: Result<Verified, x12kit::Error>) -> &'static str {
    match result {
        Ok(_) => "OK",
        Err(e) => e.code().as_str(),
    }
}

fn data() -> EventData {
    EventData {
        document_id: "doc_01HZX".into(),
        partner_id: "partner_acme".into(),
        document_type_code: "850".into(),
        status: "validated".into(),
        resend: false,
    }
}

// ---------------------------------------------------------------- sign / verify

#[test]
fn round_trip() {
    let body = br#"{"event":"document.validated"}"#;
    let signature = sign(SECRET, T, body).unwrap();
    assert!(signature.starts_with("sha256="));
    assert_eq!(signature.len(), 7 + 64);
    assert!(
        signature[7..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    );
    let verified = check(&[SECRET], &signature, &T.to_string(), body, T).unwrap();
    assert_eq!(
        verified,
        Verified {
            timestamp: T,
            secret_index: 0
        }
    );
    // Same inputs, same signature; upper-case hex is accepted too.
    assert_eq!(sign(SECRET, T, body).unwrap(), signature);
    let upper = format!("sha256={}", signature[7..].to_uppercase());
    assert!(check(&[SECRET], &upper, &T.to_string(), body, T).is_ok());
}

#[test]
fn fixed_vector() {
    // Computed with Python: hmac.new(b"secret", b"1700000000.{}", hashlib.sha256).hexdigest()
    // (the Python cross-check below recomputes such values on every run).
    assert_eq!(
        sign(b"secret", T, b"{}").unwrap(),
        "sha256=b8569b78799ff9e3cbff0fc2d63a33a2b57f3282abd07c37ae5e8e7d79a5f163"
    );
}

#[test]
fn docs_worked_example() {
    // The example table at the top of docs/webhooks.md.
    let body = br#"{"event":"document.validated","timestamp":"1700000000","data":{"documentId":"doc_01HZX","partnerId":"partner_acme","documentTypeCode":"850","status":"validated"}}"#;
    assert_eq!(
        sign(b"my-signing-secret", T, body).unwrap(),
        "sha256=fb090f6b0016619b56520638272f5b9aec18c4f1d7bb71029e4c445ad484cfac"
    );
}

#[test]
fn every_error_code() {
    let body = b"{}";
    let ts = T.to_string();
    let good = sign(SECRET, T, body).unwrap();

    // EMPTY_SECRET: signing, no secrets, an empty one among them.
    assert_eq!(sign(b"", T, body).unwrap_err().code(), "EMPTY_SECRET");
    let none: [&[u8]; 0] = [];
    assert_eq!(code(check(&none, &good, &ts, body, T)), "EMPTY_SECRET");
    assert_eq!(
        code(check(&[SECRET, b""], &good, &ts, body, T)),
        "EMPTY_SECRET"
    );
    assert_eq!(Signer::new("").unwrap_err().code(), "EMPTY_SECRET");

    // MISSING_SIGNATURE: absent or blank header.
    for header in ["", "   ", " , ,\t"] {
        assert_eq!(
            code(check(&[SECRET], header, &ts, body, T)),
            "MISSING_SIGNATURE"
        );
    }

    // MALFORMED_SIGNATURE: no prefix, bad hex, wrong length.
    let hex64 = &good[7..];
    for header in [
        hex64.to_owned(),
        format!("sha1={hex64}"),
        format!("SHA256={hex64}"),
        format!("v1,{hex64}"),
        "sha256=".to_owned(),
        format!("sha256={}", &hex64[..63]),
        format!("sha256={hex64}0"),
        format!("sha256={}", &hex64[..62]),
        format!("sha256={}zz", &hex64[..62]),
        format!("sha256={}é", &hex64[..62]),
    ] {
        assert_eq!(
            code(check(&[SECRET], &header, &ts, body, T)),
            "MALFORMED_SIGNATURE",
            "{header}"
        );
    }

    // MALFORMED_TIMESTAMP: absent, not digits, signed, fractional, too large.
    for timestamp in [
        "",
        " ",
        "abc",
        "-1700000000",
        "+1700000000",
        "1700000000.5",
        "1.7e9",
        "99999999999999999999",
        "1700000000ms",
    ] {
        assert_eq!(
            code(check(&[SECRET], &good, timestamp, body, T)),
            "MALFORMED_TIMESTAMP",
            "{timestamp:?}"
        );
    }

    // TIMESTAMP_OUT_OF_TOLERANCE and SIGNATURE_MISMATCH.
    assert_eq!(
        code(check(&[SECRET], &good, &ts, body, T + 3600)),
        "TIMESTAMP_OUT_OF_TOLERANCE"
    );
    assert_eq!(
        code(check(&[b"another secret"], &good, &ts, body, T)),
        "SIGNATURE_MISMATCH"
    );

    // The codes beyond verification.
    assert_eq!(
        standard::StandardSecret::parse("whsec_***")
            .unwrap_err()
            .code(),
        "MALFORMED_SECRET"
    );
    assert_eq!(
        "not-an-id".parse::<DeliveryId>().unwrap_err().code(),
        "MALFORMED_DELIVERY_ID"
    );
    assert_eq!(
        "document.deleted".parse::<EventKind>().unwrap_err().code(),
        "UNKNOWN_EVENT"
    );
    assert_eq!(
        Payload::from_slice(b"[1,2]").unwrap_err().code(),
        "MALFORMED_BODY"
    );
}

#[test]
fn codes_are_stable_unique_and_explained() {
    let mut seen = std::collections::BTreeSet::new();
    for code in WebhookError::CODES {
        assert!(code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'));
        assert!(seen.insert(code), "duplicate {code}");
    }
    let samples = [
        WebhookError::EmptySecret,
        WebhookError::MalformedSecret { reason: "r" },
        WebhookError::MissingSignature,
        WebhookError::MalformedSignature { reason: "r" },
        WebhookError::MalformedTimestamp { reason: "r" },
        WebhookError::TimestampOutOfTolerance {
            timestamp: 1,
            now: 400,
            tolerance: 300,
        },
        WebhookError::SignatureMismatch,
        WebhookError::MissingId,
        WebhookError::MalformedDeliveryId { reason: "r" },
        WebhookError::UnknownEvent { found: "x".into() },
        WebhookError::MalformedBody { reason: "r".into() },
        WebhookError::RandomnessUnavailable { reason: "r".into() },
    ];
    let codes: Vec<_> = samples.iter().map(WebhookError::code).collect();
    assert_eq!(codes, WebhookError::CODES);
    for error in &samples {
        assert!(error.to_string().len() > 20, "{error}");
    }
    let message = samples[5].to_string();
    assert!(message.contains("399 s before"), "{message}");
}

#[test]
fn rotation_with_two_secrets() {
    let body = b"rotating";
    let ts = T.to_string();
    let secrets = [OLD_SECRET, NEW_SECRET];
    let by_old = sign(OLD_SECRET, T, body).unwrap();
    let by_new = sign(NEW_SECRET, T, body).unwrap();
    assert_eq!(
        check(&secrets, &by_old, &ts, body, T).unwrap().secret_index,
        0
    );
    assert_eq!(
        check(&secrets, &by_new, &ts, body, T).unwrap().secret_index,
        1
    );
    // A sender mid-rotation may list both signatures.
    let both = format!("{by_old},{by_new}");
    assert!(check(&[NEW_SECRET], &both, &ts, body, T).is_ok());
    assert!(check(&[OLD_SECRET], &both, &ts, body, T).is_ok());
    // A retired secret no longer verifies.
    assert_eq!(
        code(check(&[NEW_SECRET], &by_old, &ts, body, T)),
        "SIGNATURE_MISMATCH"
    );
}

#[test]
fn tolerance_edges_past_and_future() {
    let body = b"edge";
    for (skew, ok) in [
        (0, true),
        (299, true),
        (300, true),
        (301, false),
        (100_000, false),
    ] {
        // Delivery signed `skew` seconds ago (past) and `skew` seconds ahead (future).
        for timestamp in [T - skew, T + skew] {
            let signature = sign(SECRET, timestamp, body).unwrap();
            let result = check(&[SECRET], &signature, &timestamp.to_string(), body, T);
            let expected = if ok {
                "OK"
            } else {
                "TIMESTAMP_OUT_OF_TOLERANCE"
            };
            assert_eq!(code(result), expected, "skew {skew} at {timestamp}");
        }
    }
    // Sub-second parts of `now` do not move the edge.
    let signature = sign(SECRET, T - 300, body).unwrap();
    let now = Duration::new(T, 999_999_999);
    let ts = (T - 300).to_string();
    assert!(verify(&[SECRET], &signature, &ts, body, now, DEFAULT_TOLERANCE).is_ok());
    // A custom tolerance, and zero.
    let verifier = Verifier::new([SECRET]).unwrap().with_tolerance(secs(10));
    assert_eq!(verifier.tolerance(), secs(10));
    let sig10 = sign(SECRET, T - 10, body).unwrap();
    let sig11 = sign(SECRET, T - 11, body).unwrap();
    assert!(
        verifier
            .verify(&sig10, &(T - 10).to_string(), body, secs(T))
            .is_ok()
    );
    assert_eq!(
        verifier
            .verify(&sig11, &(T - 11).to_string(), body, secs(T))
            .unwrap_err()
            .code(),
        "TIMESTAMP_OUT_OF_TOLERANCE"
    );
    let exact = Verifier::new([SECRET])
        .unwrap()
        .with_tolerance(Duration::ZERO);
    let sig = sign(SECRET, T, body).unwrap();
    assert!(exact.verify(&sig, &T.to_string(), body, secs(T)).is_ok());
    assert!(
        exact
            .verify(&sig, &T.to_string(), body, secs(T + 1))
            .is_err()
    );
    // Far-apart extremes do not overflow.
    let sig0 = sign(SECRET, 0, body).unwrap();
    assert_eq!(
        code(check(&[SECRET], &sig0, "0", body, u64::MAX)),
        "TIMESTAMP_OUT_OF_TOLERANCE"
    );
}

#[test]
fn tampered_body_and_timestamp() {
    let body = br#"{"event":"document.routed","timestamp":"1700000000"}"#.to_vec();
    let ts = T.to_string();
    let signature = sign(SECRET, T, &body).unwrap();
    assert!(check(&[SECRET], &signature, &ts, &body, T).is_ok());

    let mut flipped = body.clone();
    flipped[5] ^= 0x01;
    let mut longer = body.clone();
    longer.push(b'\n');
    let reformatted =
        serde_json::to_vec_pretty(&serde_json::from_slice::<Value>(&body).unwrap()).unwrap();
    for tampered in [
        flipped,
        longer,
        body[..body.len() - 1].to_vec(),
        reformatted,
        vec![],
    ] {
        assert_eq!(
            code(check(&[SECRET], &signature, &ts, &tampered, T)),
            "SIGNATURE_MISMATCH"
        );
    }
    // A different timestamp within tolerance, or the same value written differently:
    // the header text as sent is what was signed.
    for timestamp in [(T + 1).to_string(), (T - 1).to_string(), format!("0{T}")] {
        assert_eq!(
            code(check(&[SECRET], &signature, &timestamp, &body, T)),
            "SIGNATURE_MISMATCH",
            "{timestamp}"
        );
    }
    // Optional whitespace around header values is not part of the value.
    assert!(
        check(
            &[SECRET],
            &format!(" {signature} "),
            &format!("\t{ts} "),
            &body,
            T
        )
        .is_ok()
    );
}

#[test]
fn one_good_and_one_bad_signature() {
    let body = b"multi";
    let ts = T.to_string();
    let good = sign(SECRET, T, body).unwrap();
    let bad = sign(b"wrong", T, body).unwrap();
    for header in [
        format!("{bad},{good}"),
        format!("{good},{bad}"),
        format!("{bad} {good}"),
        format!("{good}, {bad}"),
        format!("{bad}\t{good}"),
        // Malformed entries beside a good one are skipped.
        format!("v1,abc {good}"),
        format!("sha256=zz,{good}"),
    ] {
        assert!(check(&[SECRET], &header, &ts, body, T).is_ok(), "{header}");
    }
    assert_eq!(
        code(check(&[SECRET], &format!("{bad},{bad}"), &ts, body, T)),
        "SIGNATURE_MISMATCH"
    );
    // Only malformed entries: the first problem is reported.
    assert_eq!(
        check(&[SECRET], "sha256=zz,v1,abc", &ts, body, T).unwrap_err(),
        x12kit::Error::from(WebhookError::MalformedSignature {
            reason: "the digest after `sha256=` must be exactly 64 hex digits (32 bytes)"
        })
    );
}

#[test]
fn unicode_and_binary_bodies() {
    let all_bytes: Vec<u8> = (0..=255u8).collect();
    let bodies: Vec<Vec<u8>> = vec![
        "Grüße, 日本語, emoji 🚀, RTL עברית".as_bytes().to_vec(),
        all_bytes,
        vec![0xFF, 0xFE, 0x00, 0xC3],
        vec![],
        vec![0; 1 << 20],
    ];
    for body in &bodies {
        let signature = sign(SECRET, T, body).unwrap();
        assert!(check(&[SECRET], &signature, &T.to_string(), body, T).is_ok());
    }
    // Unicode and binary secrets are used as their bytes.
    for secret in ["ключ-🔑".as_bytes(), &[0u8, 255, 10, 13]] {
        let signature = sign(secret, T, b"x").unwrap();
        assert!(check(&[secret], &signature, &T.to_string(), b"x", T).is_ok());
    }
}

#[test]
fn system_clock_conveniences() {
    let now = webhook::system_now();
    assert!(now.as_secs() > 1_600_000_000);
    let signature = sign(SECRET, now.as_secs(), b"now").unwrap();
    let verifier = Verifier::new([SECRET]).unwrap();
    assert!(
        verifier
            .verify_now(&signature, &now.as_secs().to_string(), b"now")
            .is_ok()
    );
    let delivery = Signer::new(SECRET)
        .unwrap()
        .deliver_now(EventKind::DocumentError, data())
        .unwrap();
    assert!(verify_delivery(&delivery, &[SECRET], now.as_secs()).is_ok());
}

// ---------------------------------------------------------------- events and deliveries

fn verify_delivery(d: &Delivery, secrets: &[&[u8]], now: u64) -> Result<Verified, x12kit::Error> {
    check(
        secrets,
        d.header("x-service-signature").unwrap(),
        d.header("X-Service-Timestamp").unwrap(),
        d.body(),
        now,
    )
}

#[test]
fn event_kinds() {
    let names: Vec<_> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "document.validated",
            "document.routed",
            "document.partner_ack",
            "document.error"
        ]
    );
    for kind in EventKind::ALL {
        assert_eq!(kind.to_string().parse::<EventKind>().unwrap(), kind);
        assert_eq!(serde_json::to_value(kind).unwrap(), json!(kind.as_str()));
    }
    assert!("Document.Validated".parse::<EventKind>().is_err());
}

#[test]
fn exact_body_and_headers() {
    let signer = Signer::new(SECRET).unwrap();
    let id: DeliveryId = "0190b5e2-7c4e-7a3f-8d2e-3c1f6a9b0c7d".parse().unwrap();
    let payload = Payload::new(EventKind::DocumentValidated, T, data());
    let delivery = signer.deliver_payload(id, &payload, secs(T));

    let expected_body = r#"{"event":"document.validated","timestamp":"1700000000","data":{"documentId":"doc_01HZX","partnerId":"partner_acme","documentTypeCode":"850","status":"validated"}}"#;
    assert_eq!(std::str::from_utf8(delivery.body()).unwrap(), expected_body);

    let names: Vec<_> = delivery.headers().iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "Content-Type",
            "X-Service-Timestamp",
            "X-Service-Event",
            "X-Service-Delivery-ID",
            "X-Service-Signature"
        ]
    );
    assert_eq!(delivery.header("content-type"), Some("application/json"));
    assert_eq!(delivery.header("X-Service-Timestamp"), Some("1700000000"));
    assert_eq!(
        delivery.header("X-Service-Event"),
        Some("document.validated")
    );
    assert_eq!(
        delivery.header("X-Service-Delivery-ID"),
        Some("0190b5e2-7c4e-7a3f-8d2e-3c1f6a9b0c7d")
    );
    // The signature covers exactly the body bytes returned.
    assert_eq!(
        delivery.header("X-Service-Signature").unwrap(),
        sign(SECRET, T, expected_body.as_bytes()).unwrap()
    );
    assert_eq!(delivery.id(), id);
    assert_eq!(delivery.event(), EventKind::DocumentValidated);
    assert_eq!(delivery.timestamp(), T);
    assert!(delivery.header("webhook-signature").is_none());

    // The body parses back into the same payload.
    assert_eq!(Payload::from_slice(delivery.body()).unwrap(), payload);
    let (body, headers) = delivery.into_parts();
    assert_eq!(body, expected_body.as_bytes());
    assert_eq!(headers.len(), 5);
}

#[test]
fn body_escapes_json_and_keeps_unicode() {
    let signer = Signer::new(SECRET).unwrap();
    let tricky = EventData {
        document_id: "quote \" backslash \\ newline \n".into(),
        partner_id: "Müller GmbH 🚚".into(),
        document_type_code: "810".into(),
        status: "error".into(),
        resend: false,
    };
    let delivery = signer
        .deliver(EventKind::DocumentError, tricky.clone(), secs(T))
        .unwrap();
    let value: Value = serde_json::from_slice(delivery.body()).unwrap();
    assert_eq!(value["data"]["documentId"], json!(tricky.document_id));
    assert_eq!(value["data"]["partnerId"], json!("Müller GmbH 🚚"));
    assert!(
        std::str::from_utf8(delivery.body())
            .unwrap()
            .contains("Müller GmbH 🚚")
    );
    assert!(verify_delivery(&delivery, &[SECRET], T).is_ok());
}

#[test]
fn every_event_kind_delivers_and_verifies() {
    let signer = Signer::new(SECRET).unwrap();
    for kind in EventKind::ALL {
        let delivery = signer.deliver(kind, data(), secs(T)).unwrap();
        assert_eq!(delivery.header("X-Service-Event"), Some(kind.as_str()));
        let payload = Payload::from_slice(delivery.body()).unwrap();
        assert_eq!(payload.event, kind);
        assert_eq!(payload.timestamp, T.to_string());
        assert!(verify_delivery(&delivery, &[SECRET], T + 1).is_ok());
    }
}

#[test]
fn retry_keeps_id_and_body_with_fresh_timestamp_and_signature() {
    let signer = Signer::new(SECRET).unwrap();
    let first = signer
        .deliver(EventKind::DocumentRouted, data(), secs(T))
        .unwrap();
    let retry = signer.retry(&first, secs(T + 600));
    assert_eq!(retry.id(), first.id());
    assert_eq!(
        retry.header("X-Service-Delivery-ID"),
        first.header("X-Service-Delivery-ID")
    );
    assert_eq!(retry.body(), first.body());
    assert_eq!(retry.timestamp(), T + 600);
    assert_eq!(retry.header("X-Service-Timestamp"), Some("1700000600"));
    assert_ne!(
        retry.header("X-Service-Signature"),
        first.header("X-Service-Signature")
    );
    // The first attempt is now stale; the retry verifies.
    assert_eq!(
        code(verify_delivery(&first, &[SECRET], T + 600)),
        "TIMESTAMP_OUT_OF_TOLERANCE"
    );
    assert!(verify_delivery(&retry, &[SECRET], T + 600).is_ok());
    // A retry rebuilt from storage (id + payload) gives the same bytes.
    let payload = Payload::from_slice(first.body()).unwrap();
    let rebuilt = signer.deliver_payload(first.id(), &payload, secs(T + 600));
    assert_eq!(rebuilt, retry);
}

#[test]
fn delivery_ids_are_unique_and_time_ordered() {
    let mut ids = Vec::new();
    for i in 0..2000u64 {
        // 0.25 ms apart: the sub-millisecond bits keep them ordered.
        ids.push(DeliveryId::generate(Duration::from_micros(T * 1_000_000 + i * 250)).unwrap());
    }
    let texts: Vec<String> = ids.iter().map(ToString::to_string).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert!(texts.windows(2).all(|w| w[0] < w[1]));
    // Same instant: still unique.
    let same: std::collections::HashSet<_> = (0..2000)
        .map(|_| DeliveryId::generate(secs(T)).unwrap())
        .collect();
    assert_eq!(same.len(), 2000);
    assert_eq!(ids[0].unix_millis(), T * 1000);
    // Serde uses the text form.
    let json = serde_json::to_string(&ids[0]).unwrap();
    assert_eq!(json, format!("\"{}\"", texts[0]));
    assert_eq!(serde_json::from_str::<DeliveryId>(&json).unwrap(), ids[0]);
    assert!(serde_json::from_str::<DeliveryId>("\"nope\"").is_err());
}

// ---------------------------------------------------------------- Standard Webhooks

/// Vector of the Standard Webhooks reference libraries' "sign function works" tests
/// (standard-webhooks/standard-webhooks: libraries/javascript/src/webhook.test.ts,
/// libraries/python/tests/test_webhooks.py, libraries/go/webhook_test.go).
const SW_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const SW_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const SW_TS: u64 = 1_614_265_330;
const SW_BODY: &[u8] = br#"{"test": 2432232314}"#;
const SW_SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

fn sw_check(
    secret: &str,
    id: &str,
    signature: &str,
    timestamp: &str,
    body: &[u8],
    now: u64,
) -> Result<Verified, x12kit::Error> {
    let secret = standard::StandardSecret::parse(secret)?;
    standard::verify(
        &[secret],
        id,
        signature,
        timestamp,
        body,
        secs(now),
        DEFAULT_TOLERANCE,
    )
}

#[test]
fn standard_webhooks_sign_vectors() {
    let secret = standard::StandardSecret::parse(SW_SECRET).unwrap();
    assert_eq!(standard::sign(&secret, SW_ID, SW_TS, SW_BODY), SW_SIGNATURE);
    // Rust reference library test `test_sign` (libraries/rust/src/lib.rs).
    let secret = standard::StandardSecret::parse("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD").unwrap();
    assert_eq!(
        standard::sign(
            &secret,
            "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk",
            1_649_367_553,
            br#"{"email":"test@example.com","username":"test_user"}"#
        ),
        "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw="
    );
}

#[test]
fn standard_webhooks_verify_vectors() {
    let ts = SW_TS.to_string();
    let ok = |sig: &str| sw_check(SW_SECRET, SW_ID, sig, &ts, SW_BODY, SW_TS);
    assert!(ok(SW_SIGNATURE).is_ok());
    // With and without the `whsec_` prefix (test_signature_verification_with_and_without_prefix).
    assert!(sw_check(&SW_SECRET[6..], SW_ID, SW_SIGNATURE, &ts, SW_BODY, SW_TS).is_ok());
    // Multi-signature header from the reference tests (test_multi_sig_payload_is_valid).
    let multi = format!(
        "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= {SW_SIGNATURE} v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
    );
    assert!(ok(&multi).is_ok());
    // test_invalid_signature_raises_error (Python): last character changed.
    assert_eq!(
        code(ok("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA=")),
        "SIGNATURE_MISMATCH"
    );
    // Go "invalid signature is invalid".
    assert_eq!(
        code(ok("v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=")),
        "SIGNATURE_MISMATCH"
    );
    // JS "invalid signature throws error" and "partial signature throws error".
    assert_eq!(code(ok("v1,dawfeoifkpqwoekfpqoekf")), "MALFORMED_SIGNATURE");
    assert_eq!(code(ok(&SW_SIGNATURE[..8])), "MALFORMED_SIGNATURE");
    assert_eq!(code(ok("v1,")), "MALFORMED_SIGNATURE");
    // Missing headers, invalid timestamp.
    assert_eq!(code(ok("")), "MISSING_SIGNATURE");
    assert_eq!(
        code(sw_check(SW_SECRET, "", SW_SIGNATURE, &ts, SW_BODY, SW_TS)),
        "MISSING_ID"
    );
    for bad in ["", "hello"] {
        assert_eq!(
            code(sw_check(
                SW_SECRET,
                SW_ID,
                SW_SIGNATURE,
                bad,
                SW_BODY,
                SW_TS
            )),
            "MALFORMED_TIMESTAMP"
        );
    }
    // Old and new timestamps (tolerance 5 minutes + 1 s), as in the reference tests.
    for now in [SW_TS + 301, SW_TS - 301] {
        assert_eq!(
            code(sw_check(SW_SECRET, SW_ID, SW_SIGNATURE, &ts, SW_BODY, now)),
            "TIMESTAMP_OUT_OF_TOLERANCE"
        );
    }
    // Rust reference test_no_verify_with_multiple_signatures: none of these match.
    let rust_secret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
    let rust_body = br#"{"email":"test@example.com","username":"test_user"}"#;
    let wrong = "v1,tFtCZ5RDCPxzWQRWXWPgrCgE2frDBe9gjpbWQxnVfsQ= v1,Mm7xgUVICxZfQ3bgf0h0Dof65L/IFx+PnZvnDWPCX6Q= v1,9DfC1c3eeOrXB6w/5dIDydLNQaEyww5KalE5jLBZucE=";
    let rust_id = "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk";
    assert_eq!(
        code(sw_check(
            rust_secret,
            rust_id,
            wrong,
            "1649367553",
            rust_body,
            1_649_367_553
        )),
        "SIGNATURE_MISMATCH"
    );
    let right = format!("{wrong} v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=");
    assert!(
        sw_check(
            rust_secret,
            rust_id,
            &right,
            "1649367553",
            rust_body,
            1_649_367_553
        )
        .is_ok()
    );
}

#[test]
fn standard_webhooks_secrets() {
    assert_eq!(
        standard::StandardSecret::parse("").unwrap_err().code(),
        "EMPTY_SECRET"
    );
    assert_eq!(
        standard::StandardSecret::parse("whsec_")
            .unwrap_err()
            .code(),
        "EMPTY_SECRET"
    );
    for bad in ["whsec_not base64!", "whsec_YWJj=", "whsec_YW"] {
        assert_eq!(
            standard::StandardSecret::parse(bad).unwrap_err().code(),
            "MALFORMED_SECRET",
            "{bad}"
        );
    }
    assert_eq!(
        standard::StandardSecret::from_bytes(Vec::new())
            .unwrap_err()
            .code(),
        "EMPTY_SECRET"
    );
    let generated = standard::StandardSecret::generate().unwrap();
    assert_eq!(generated.as_bytes().len(), 32);
    let again: standard::StandardSecret = generated.to_whsec().parse().unwrap();
    assert_eq!(again, generated);
    assert_eq!(
        standard::verify(
            &[],
            SW_ID,
            SW_SIGNATURE,
            "1",
            SW_BODY,
            secs(1),
            DEFAULT_TOLERANCE
        )
        .unwrap_err()
        .code(),
        "EMPTY_SECRET"
    );
}

#[test]
fn deliveries_carry_standard_webhooks_headers() {
    let sw_secret = standard::StandardSecret::parse(SW_SECRET).unwrap();
    let signer = Signer::new(SECRET)
        .unwrap()
        .with_standard_webhooks(&sw_secret);
    let first = signer
        .deliver(EventKind::DocumentPartnerAck, data(), secs(T))
        .unwrap();
    for delivery in [first.clone(), signer.retry(&first, secs(T + 90))] {
        let id = delivery.id().to_string();
        assert_eq!(delivery.header("webhook-id"), Some(id.as_str()));
        assert_eq!(
            delivery.header("webhook-timestamp"),
            delivery.header("X-Service-Timestamp")
        );
        let now = delivery.timestamp();
        let verifier = standard::Verifier::new(std::slice::from_ref(&sw_secret)).unwrap();
        let verified = verifier
            .verify(
                delivery.header("webhook-id").unwrap(),
                delivery.header("webhook-signature").unwrap(),
                delivery.header("webhook-timestamp").unwrap(),
                delivery.body(),
                secs(now),
            )
            .unwrap();
        assert_eq!(verified.timestamp, now);
        assert_eq!(
            delivery.header("webhook-signature").unwrap(),
            standard::sign(&sw_secret, &id, now, delivery.body())
        );
        // The service's own headers are unchanged by the addition.
        assert!(verify_delivery(&delivery, &[SECRET], now).is_ok());
        assert!(verifier.verify_now("", "", "", b"").is_err());
    }
}

// ---------------------------------------------------------------- Python cross-check

/// Runs the spec-only Python reference (core/tests/webhook_reference.py) on one request.
fn python(request: &Value) -> Option<Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/webhook_reference.py");
    let child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            println!("SKIPPED: python3 not found; the independent HMAC check did not run");
            return None;
        }
        Err(e) => panic!("cannot run python3: {e}"),
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(request.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "python3 failed on {request}");
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

#[test]
fn sign_matches_python_hmac() {
    let cases: Vec<(Vec<u8>, u64, Vec<u8>)> = vec![
        (b"secret".to_vec(), T, b"{}".to_vec()),
        (SECRET.to_vec(), 0, Vec::new()),
        (
            "ключ-🔑".as_bytes().to_vec(),
            u64::MAX,
            "Grüße 🚀".as_bytes().to_vec(),
        ),
        (vec![0, 255, 1, 254], 1, (0..=255u8).collect()),
        (vec![b'k'; 200], 1_614_265_330, vec![0xFF; 5000]),
    ];
    for (secret, timestamp, body) in cases {
        let request = json!({
            "op": "sign",
            "secret_hex": hex::encode(&secret),
            "timestamp": timestamp.to_string(),
            "body_hex": hex::encode(&body),
        });
        let Some(answer) = python(&request) else {
            return;
        };
        assert_eq!(
            answer["signature"],
            json!(sign(&secret, timestamp, &body).unwrap()),
            "{request}"
        );
    }
    let request = json!({
        "op": "standard_sign", "secret": SW_SECRET, "id": SW_ID,
        "timestamp": SW_TS.to_string(), "body_hex": hex::encode(SW_BODY),
    });
    if let Some(answer) = python(&request) {
        assert_eq!(answer["signature"], json!(SW_SIGNATURE));
    }
}

#[test]
fn python_spec_receiver_accepts_deliveries_unchanged() {
    let sw_secret = standard::StandardSecret::parse(SW_SECRET).unwrap();
    let signer = Signer::new(SECRET)
        .unwrap()
        .with_standard_webhooks(&sw_secret);
    let first = signer
        .deliver(EventKind::DocumentValidated, data(), secs(T))
        .unwrap();
    let retry = signer.retry(&first, secs(T + 1000));
    for (delivery, now, expected) in [
        (&first, T + 5, true),
        (&retry, T + 1000, true),
        (&first, T + 1000, false),
    ] {
        let headers: serde_json::Map<String, Value> = delivery
            .headers()
            .iter()
            .map(|(n, v)| (n.to_string(), json!(v)))
            .collect();
        let request = json!({
            "op": "receive",
            "secret_hex": hex::encode(SECRET),
            "whsec": SW_SECRET,
            "headers": headers,
            "body_hex": hex::encode(delivery.body()),
            "now": now,
        });
        let Some(answer) = python(&request) else {
            return;
        };
        assert_eq!(answer, json!({"service": expected, "standard": expected}));
    }
}

// ---------------------------------------------------------------- properties

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn verify_never_panics(
        secrets in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..4),
        signature in ".{0,200}",
        timestamp in ".{0,30}",
        body in proptest::collection::vec(any::<u8>(), 0..300),
        now in any::<u64>(),
        nanos in 0u32..1_000_000_000,
        tolerance in any::<u64>(),
    ) {
        let now = Duration::new(now, nanos);
        let _ = verify(&secrets, &signature, &timestamp, &body, now, secs(tolerance));
        if let Ok(secret) = standard::StandardSecret::from_bytes(secrets.concat()) {
            let _ = standard::verify(&[secret], &timestamp, &signature, &timestamp, &body, now, secs(tolerance));
        }
    }

    #[test]
    fn verify_never_panics_on_near_miss_headers(
        digits in "[0-9a-fA-F ,]{0,140}",
        timestamp in "[ 0-9]{0,25}",
        body in proptest::collection::vec(any::<u8>(), 0..50),
    ) {
        let header = format!("sha256={digits}");
        let _ = verify(&[SECRET], &header, &timestamp, &body, secs(T), DEFAULT_TOLERANCE);
        let _ = sw_check(SW_SECRET, SW_ID, &format!("v1,{digits}"), &timestamp, &body, SW_TS);
    }

    #[test]
    fn parsers_never_panic(text in ".{0,80}") {
        let _ = text.parse::<DeliveryId>();
        let _ = text.parse::<EventKind>();
        let _ = standard::StandardSecret::parse(&text);
        let _ = Payload::from_slice(text.as_bytes());
    }

    #[test]
    fn sign_then_verify_always_succeeds(
        secret in proptest::collection::vec(any::<u8>(), 1..80),
        other in proptest::collection::vec(any::<u8>(), 1..80),
        timestamp in any::<u64>(),
        skew in 0u64..=300,
        future in any::<bool>(),
        body in proptest::collection::vec(any::<u8>(), 0..500),
    ) {
        let signature = sign(&secret, timestamp, &body).unwrap();
        let now = if future { timestamp.saturating_sub(skew) } else { timestamp.saturating_add(skew) };
        let secrets = [other.as_slice(), secret.as_slice()];
        let verified = check(&secrets, &signature, &timestamp.to_string(), &body, now).unwrap();
        prop_assert_eq!(verified.timestamp, timestamp);
        prop_assert_eq!(verified.secret_index, if other == secret { 0 } else { 1 });

        let sw = standard::StandardSecret::from_bytes(secret.clone()).unwrap();
        let id = format!("msg_{}", hex::encode(&other));
        let sw_sig = standard::sign(&sw, &id, timestamp, &body);
        let ok = standard::verify(&[sw], &id, &sw_sig, &timestamp.to_string(), &body, secs(now), DEFAULT_TOLERANCE);
        prop_assert!(ok.is_ok());
    }

    #[test]
    fn deliveries_always_verify(
        document_id in ".{0,40}",
        partner_id in ".{0,40}",
        status in "[a-z_]{0,12}",
        kind in 0usize..4,
        at in 0u64..4_000_000_000,
        later in 0u64..10_000,
    ) {
        let signer = Signer::new(SECRET).unwrap();
        let data = EventData { document_id, partner_id, document_type_code: "856".into(), status, resend: false };
        let first = signer.deliver(EventKind::ALL[kind], data.clone(), secs(at)).unwrap();
        let retry = signer.retry(&first, secs(at + later));
        prop_assert!(verify_delivery(&first, &[SECRET], at).is_ok());
        prop_assert!(verify_delivery(&retry, &[SECRET], at + later).is_ok());
        let payload = Payload::from_slice(retry.body()).unwrap();
        prop_assert_eq!(payload.data, data);
        prop_assert_eq!(retry.id().to_string().parse::<DeliveryId>().unwrap(), first.id());
    }
}

#[test]
fn a_resend_is_marked_in_the_body_and_other_bodies_are_as_before() {
    let mut d = data();
    let plain = Payload::new(EventKind::DocumentRouted, T, d.clone()).to_bytes();
    assert!(!String::from_utf8_lossy(&plain).contains("resend"));
    d.resend = true;
    let marked = Payload::new(EventKind::DocumentRouted, T, d.clone()).to_bytes();
    assert!(
        String::from_utf8(marked.clone())
            .unwrap()
            .ends_with(r#""status":"validated","resend":true}}"#)
    );
    assert_eq!(Payload::from_slice(&marked).unwrap().data, d);
    // A receiver that reads the body as JSON sees it as data.resend.
    let v: serde_json::Value = serde_json::from_slice(&marked).unwrap();
    assert_eq!(v["data"]["resend"], true);
}
