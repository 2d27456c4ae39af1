//! Fuzzes the webhook module: `verify` / `Verifier` and the Standard Webhooks
//! `standard::verify` / `standard::Verifier` on arbitrary header values,
//! bodies, secrets and clocks never panic and fail only with one of
//! `WebhookError::CODES`; `StandardSecret::parse`, `DeliveryId::from_str`,
//! `EventKind::from_str` and `Payload::from_slice` never panic and round-trip
//! what they accept. For any non-empty secret and any body, sign → verify
//! succeeds (also beside junk signature entries and within the tolerance),
//! and fails for another body or outside the tolerance; a `Signer`'s
//! deliveries and retries verify under both schemes.
#![no_main]

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::time::Duration;
use x12kit::webhook::standard::{self, StandardSecret};
use x12kit::webhook::{
    self, DeliveryId, EventData, EventKind, HEADER_SIGNATURE, HEADER_TIMESTAMP, Payload, Signer,
    Verifier, WebhookError,
};

#[derive(Debug, Arbitrary)]
struct Input {
    secrets: Vec<Vec<u8>>,
    signature_header: String,
    timestamp_header: String,
    id_header: String,
    body: Vec<u8>,
    now: u64,
    nanos: u32,
    tolerance: u64,
    skew: u64,
    text: String,
    event: u8,
    data: [String; 4],
    random: [u8; 8],
}

/// Failures are the webhook codes (`WebhookError::CODES`), as the core's
/// errors carry them.
fn known<T>(r: &Result<T, x12kit::Error>) {
    if let Err(e) = r {
        assert!(WebhookError::CODES.contains(&e.code().as_str()), "{e:?}");
        assert!(!e.to_string().is_empty());
    }
}

fuzz_target!(|input: Input| {
    let Input {
        secrets,
        signature_header,
        timestamp_header,
        id_header,
        body,
        now,
        nanos,
        tolerance,
        skew,
        text,
        event,
        data,
        random,
    } = input;
    let now_d = Duration::new(now, nanos % 1_000_000_000);
    let tol = Duration::from_secs(tolerance);

    // Arbitrary headers, bodies, secrets and clocks: never a panic, only known codes.
    let r = webhook::verify(
        &secrets,
        &signature_header,
        &timestamp_header,
        &body,
        now_d,
        tol,
    );
    known(&r);
    if let Ok(v) = &r {
        assert!(v.secret_index < secrets.len());
    }
    match Verifier::new(&secrets) {
        Ok(verifier) => {
            let again = verifier.with_tolerance(tol).verify(
                &signature_header,
                &timestamp_header,
                &body,
                now_d,
            );
            assert_eq!(again, r);
        }
        Err(e) => assert_eq!(Err(e), r),
    }
    let keys: Vec<StandardSecret> = secrets
        .iter()
        .filter_map(|s| StandardSecret::from_bytes(s.clone()).ok())
        .collect();
    let r = standard::verify(
        &keys,
        &id_header,
        &signature_header,
        &timestamp_header,
        &body,
        now_d,
        tol,
    );
    known(&r);

    // Parsers of untrusted text.
    match StandardSecret::parse(&text) {
        Ok(s) => assert_eq!(StandardSecret::parse(&s.to_whsec()), Ok(s)),
        Err(e) => known::<()>(&Err(e)),
    }
    match text.parse::<DeliveryId>() {
        Ok(id) => {
            assert_eq!(id.to_string(), text.to_ascii_lowercase());
            assert_eq!(id.to_string().parse::<DeliveryId>(), Ok(id));
        }
        Err(e) => known::<()>(&Err(e)),
    }
    match text.parse::<EventKind>() {
        Ok(k) => assert_eq!(k.as_str(), text),
        Err(e) => known::<()>(&Err(e)),
    }
    for b in [&body[..], text.as_bytes()] {
        match Payload::from_slice(b) {
            Ok(p) => assert_eq!(Payload::from_slice(&p.to_bytes()), Ok(p)),
            Err(e) => known::<()>(&Err(e)),
        }
    }

    // Sign → verify round trips, for every non-empty secret.
    let good: Vec<&Vec<u8>> = secrets.iter().filter(|s| !s.is_empty()).collect();
    let ts = now;
    let ts_text = ts.to_string();
    // A verification time within the tolerance, either side.
    let within = if skew & 1 == 0 {
        ts.saturating_add(skew.min(tolerance))
    } else {
        ts.saturating_sub(skew.min(tolerance))
    };
    let within = Duration::from_secs(within);
    for (i, secret) in good.iter().enumerate() {
        let sig = webhook::sign(secret, ts, &body).expect("a non-empty secret signs");
        // The first secret that signs the same: HMAC pads short keys with zero
        // bytes (and hashes keys over 64 bytes), so `a` and `a\0` are one key.
        let first = good
            .iter()
            .position(|s| webhook::sign(s, ts, &body).as_ref() == Ok(&sig))
            .unwrap();
        let v = webhook::verify(&good, &sig, &ts_text, &body, within, tol)
            .unwrap_or_else(|e| panic!("secret {i}: {e}"));
        assert_eq!((v.timestamp, v.secret_index), (ts, first));
        // Beside junk entries, with spaces around the timestamp.
        let v = webhook::verify(
            &good,
            &format!("{signature_header} ,{sig}"),
            &format!(" \t{ts_text} "),
            &body,
            within,
            tol,
        )
        .unwrap_or_else(|e| panic!("secret {i} beside {signature_header:?}: {e}"));
        assert_eq!(v.secret_index, first);
        // Another body does not verify.
        let mut other = body.clone();
        other.push(b'x');
        assert_eq!(
            webhook::verify(&[secret], &sig, &ts_text, &other, within, tol),
            Err(WebhookError::SignatureMismatch.into())
        );
        // Outside the tolerance does not verify.
        if let Some(late) = ts.checked_add(tolerance).and_then(|t| t.checked_add(1)) {
            assert_eq!(
                webhook::verify(
                    &[secret],
                    &sig,
                    &ts_text,
                    &body,
                    Duration::from_secs(late),
                    tol
                )
                .map_err(|e| e.code().as_str()),
                Err("TIMESTAMP_OUT_OF_TOLERANCE")
            );
        }

        // Standard Webhooks, with the id as a receiver sees it (surrounding blanks trimmed).
        let key = StandardSecret::from_bytes(secret.to_vec()).expect("non-empty");
        let id = id_header.trim_matches([' ', '\t']);
        if !id.is_empty() {
            let sig = standard::sign(&key, id, ts, &body);
            let v = standard::verify(
                std::slice::from_ref(&key),
                &id_header,
                &format!("{signature_header} {sig}"),
                &ts_text,
                &body,
                within,
                tol,
            )
            .unwrap_or_else(|e| panic!("standard, secret {i}, id {id_header:?}: {e}"));
            assert_eq!((v.timestamp, v.secret_index), (ts, 0));
        }
        assert_eq!(StandardSecret::parse(&key.to_whsec()).as_ref(), Ok(&key));
    }

    // Deliveries: both schemes verify the first attempt and a retry.
    if let Some(secret) = good.first() {
        let key = StandardSecret::from_bytes(secret.to_vec()).expect("non-empty");
        let signer = Signer::new(secret)
            .expect("non-empty")
            .with_standard_webhooks(&key);
        let kind = EventKind::ALL[event as usize % EventKind::ALL.len()];
        let [document_id, partner_id, document_type_code, status] = data;
        let payload = Payload::new(
            kind,
            ts,
            EventData {
                document_id,
                partner_id,
                document_type_code,
                status,
                resend: false,
            },
        );
        let id = DeliveryId::from_parts(now_d, random);
        assert_eq!(id.to_string().parse::<DeliveryId>(), Ok(id));
        let first = signer.deliver_payload(id, &payload, now_d);
        let later = Duration::from_secs(ts.saturating_add(skew % 100_000));
        let retry = signer.retry(&first, later);
        for d in [&first, &retry] {
            assert_eq!(d.id(), id);
            assert_eq!(Payload::from_slice(d.body()), Ok(payload.clone()));
            let at = Duration::from_secs(d.timestamp());
            Verifier::new([secret])
                .unwrap()
                .verify(
                    d.header(HEADER_SIGNATURE).unwrap(),
                    d.header(HEADER_TIMESTAMP).unwrap(),
                    d.body(),
                    at,
                )
                .unwrap_or_else(|e| panic!("delivery: {e}"));
            standard::Verifier::new(std::slice::from_ref(&key))
                .unwrap()
                .verify(
                    d.header(standard::HEADER_ID).unwrap(),
                    d.header(standard::HEADER_SIGNATURE).unwrap(),
                    d.header(standard::HEADER_TIMESTAMP).unwrap(),
                    d.body(),
                    at,
                )
                .unwrap_or_else(|e| panic!("delivery, standard: {e}"));
            assert_eq!(
                d.header(webhook::HEADER_DELIVERY_ID)
                    .map(str::parse::<DeliveryId>),
                Some(Ok(id))
            );
        }
    }
});
