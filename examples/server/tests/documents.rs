//! POST /documents/outbound and GET /transactions[/{id}], over HTTP against the real binary.

mod common;

use common::*;
use serde_json::{Value, json};
use std::collections::HashSet;

fn ack_top(v: &Value) -> (String, String) {
    (
        v["documentId"].as_str().unwrap().into(),
        v["status"].as_str().unwrap().into(),
    )
}

fn ack_data(v: &Value) -> (String, String) {
    (
        v["data"]["documentId"].as_str().unwrap().into(),
        v["data"]["status"].as_str().unwrap().into(),
    )
}

#[test]
fn the_18_types_are_accepted_under_both_prefixes_with_both_ack_shapes() {
    let s = Server::start();
    let payloads = payloads();
    assert_eq!(payloads.len(), 18);
    let mut ids = Vec::new();
    let mut numbers = HashSet::new();
    for (i, (code, payload)) in payloads.iter().enumerate() {
        let prefix = PREFIXES[i % 2];
        let r = s.send(prefix, ALPHA, "acme-retail", code, payload);
        assert_eq!(r.status(), 202, "{code}");
        let location = r.headers()["location"].to_str().unwrap().to_string();
        let v: Value = r.json().unwrap();
        assert_eq!(ack_top(&v), ack_data(&v), "{v}");
        let (id, status) = read_ack(&v);
        assert_eq!(status, "queued");
        assert_eq!(location, format!("{prefix}/transactions/{id}"));
        assert_eq!(v["data"]["documentTypeCode"], code.as_str());
        assert_eq!(v["data"]["partnerId"], "acme-retail");
        let n = v["data"]["controlNumbers"]["interchange"].as_i64().unwrap();
        assert!(numbers.insert(n), "control number {n} reused");
        // The full status, under the other prefix.
        let other = PREFIXES[(i + 1) % 2];
        let d = s.get(&format!("{other}/transactions/{id}"), ALPHA);
        assert_eq!(d.status(), 200);
        let d: Value = d.json().unwrap();
        let t = &d["data"];
        assert_eq!(t["documentId"], id.as_str());
        assert_eq!(t["status"], "queued");
        assert_eq!(t["direction"], "outbound");
        assert_eq!(t["documentTypeCode"], code.as_str());
        let x12 = t["x12"].as_str().unwrap();
        assert!(x12.starts_with("ISA*"), "{x12}");
        assert!(x12.contains(&format!("ST*{code}*")), "{x12}");
        assert!(x12.contains(&format!("*{n:09}*")), "ISA13 {n} in {x12}");
        assert_eq!(t["statusHistory"][0]["status"], "queued");
        assert_eq!(t["statusHistory"][0]["reason"], "accepted");
        assert!(t["webhookDeliveries"].as_array().unwrap().is_empty());
        assert!(t["partnerAcknowledgement"].is_null());
        assert!(t["createdAt"].as_str().unwrap().ends_with('Z'));
        // The X12 is what the core renders, and it validates.
        let validation: Value = serde_json::from_slice(&x12kit::ops::validate_json(
            x12.as_bytes(),
            &Default::default(),
        ))
        .unwrap();
        assert_eq!(validation["valid"], true, "{code}: {validation}");
        ids.push(id);
    }
    // Newest first.
    ids.reverse();
    assert_eq!(s.all_ids(ALPHA), ids);
}

#[test]
fn render_problems_are_422_with_every_pointer_and_nothing_is_stored() {
    let s = Server::start();
    for prefix in PREFIXES {
        // Payload missing the order number, with a bad quantity.
        let r = s.send(
            prefix,
            ALPHA,
            "acme-retail",
            "850",
            &json!({"shipTo": {"id": "1", "name": "x"}, "lines": [{"lineNumber": 1, "sku": "A", "quantity": "many", "unitPrice": 1}]}),
        );
        let v = error_body(r, 422, "INVALID_PAYLOAD");
        let pointers: Vec<&str> = v["error"]["details"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["pointer"].as_str().unwrap())
            .collect();
        assert!(pointers.contains(&"/purchaseOrderNumber"), "{v}");
        assert!(pointers.contains(&"/lines/0/quantity"), "{v}");
        // The partner's implementation guide requires /shipTo/id for 850.
        let mut p = payload("850");
        p["shipTo"].as_object_mut().unwrap().remove("id");
        let v = error_body(
            s.send(prefix, ALPHA, "acme-retail", "850", &p),
            422,
            "INVALID_PAYLOAD",
        );
        assert!(
            v["error"]["details"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["pointer"] == "/shipTo/id"),
            "{v}"
        );
        // Unknown type.
        error_body(
            s.send(prefix, ALPHA, "acme-retail", "999", &json!({})),
            422,
            "UNKNOWN_DOCUMENT_TYPE",
        );
    }
    assert!(s.all_ids(ALPHA).is_empty());
    // The control numbers of refused documents are not used: the next document gets 1.
    let v: Value = s
        .send("/api/v1", ALPHA, "acme-retail", "850", &payload("850"))
        .json()
        .unwrap();
    assert_eq!(v["data"]["controlNumbers"]["interchange"], 1);
}

#[test]
fn unknown_and_other_accounts_partners_are_404() {
    let s = Server::start();
    for prefix in PREFIXES {
        error_body(
            s.send(prefix, ALPHA, "nobody", "850", &payload("850")),
            404,
            "PARTNER_NOT_FOUND",
        );
        // acme-retail belongs to alpha, not beta.
        error_body(
            s.send(prefix, BETA, "acme-retail", "850", &payload("850")),
            404,
            "PARTNER_NOT_FOUND",
        );
    }
    assert!(s.all_ids(ALPHA).is_empty());
    assert!(s.all_ids(BETA).is_empty());
}

#[test]
fn every_bad_request_is_answered_with_its_code_and_nothing_is_stored() {
    let s = Server::start_with(Options {
        max_body_bytes: 64 * 1024,
        ..Options::default()
    });
    let good =
        json!({"partnerId": "acme-retail", "documentTypeCode": "850", "payload": payload("850")});
    for prefix in PREFIXES {
        let url = format!("{prefix}/documents/outbound");
        let raw = |ct: Option<&str>, body: Vec<u8>| {
            let mut b = s.post(&url, ALPHA).body(body);
            if let Some(ct) = ct {
                b = b.header("content-type", ct);
            }
            b.send().unwrap()
        };
        let json = Some("application/json");
        error_body(raw(json, b"{\"partnerId\": ".to_vec()), 400, "INVALID_JSON");
        error_body(raw(json, Vec::new()), 400, "EMPTY_BODY");
        error_body(raw(json, b"  \n".to_vec()), 400, "EMPTY_BODY");
        error_body(
            raw(json, vec![0xff, 0x00, 0x9c, 0x12, 0x80]),
            400,
            "INVALID_JSON",
        );
        error_body(raw(json, b"[1, 2]".to_vec()), 400, "INVALID_REQUEST");
        error_body(
            raw(Some("text/plain"), good.to_string().into_bytes()),
            415,
            "UNSUPPORTED_MEDIA_TYPE",
        );
        error_body(
            raw(Some("application/x-www-form-urlencoded"), b"a=b".to_vec()),
            415,
            "UNSUPPORTED_MEDIA_TYPE",
        );
        error_body(
            raw(None, good.to_string().into_bytes()),
            415,
            "UNSUPPORTED_MEDIA_TYPE",
        );
        // Huge body: over the 64 KiB limit of this server.
        let mut huge = good.clone();
        huge["payload"]["note"] = Value::String("x".repeat(100 * 1024));
        error_body(
            raw(json, huge.to_string().into_bytes()),
            413,
            "PAYLOAD_TOO_LARGE",
        );
        // Missing fields, wrong types, unknown fields: all reported at once.
        let v = error_body(
            s.post_json(
                &url,
                ALPHA,
                &json!({"partnerId": 5, "payload": [], "extra": true}),
            ),
            400,
            "INVALID_REQUEST",
        );
        let details = v["error"]["details"].as_array().unwrap();
        let found: HashSet<(String, String)> = details
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap().into(),
                    d["pointer"].as_str().unwrap().into(),
                )
            })
            .collect();
        for (code, pointer) in [
            ("INVALID_FIELD", "/partnerId"),
            ("MISSING_FIELD", "/documentTypeCode"),
            ("INVALID_FIELD", "/payload"),
            ("UNKNOWN_FIELD", "/extra"),
        ] {
            assert!(
                found.contains(&(code.into(), pointer.into())),
                "{code} {pointer}: {v}"
            );
        }
        error_body(
            s.post_json(
                &url,
                ALPHA,
                &json!({"partnerId": "", "documentTypeCode": "850", "payload": {}}),
            ),
            400,
            "INVALID_REQUEST",
        );
        error_body(
            s.post_json(
                &url,
                ALPHA,
                &json!({"partnerId": "acme-retail", "documentTypeCode": "850"}),
            ),
            400,
            "INVALID_REQUEST",
        );
        // A bad Idempotency-Key.
        let r = s
            .post(&url, ALPHA)
            .header("content-type", "application/json")
            .header("idempotency-key", "x".repeat(300))
            .body(good.to_string())
            .send()
            .unwrap();
        error_body(r, 400, "INVALID_IDEMPOTENCY_KEY");
    }
    assert!(s.all_ids(ALPHA).is_empty());
    // The same server still accepts a good request.
    assert_eq!(
        s.post_json("/api/v1/documents/outbound", ALPHA, &good)
            .status(),
        202
    );
}

#[test]
fn idempotency_key_returns_the_first_document_and_refuses_another_body() {
    let s = Server::start();
    let body =
        json!({"partnerId": "acme-retail", "documentTypeCode": "850", "payload": payload("850")});
    let send = |prefix: &str, key: &str, body: String| {
        s.post(&format!("{prefix}/documents/outbound"), ALPHA)
            .header("content-type", "application/json")
            .header("idempotency-key", key)
            .body(body)
            .send()
            .unwrap()
    };
    let first = send("/api/v1", "order-1", body.to_string());
    assert_eq!(first.status(), 202);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let first: Value = first.json().unwrap();
    // Same key, same body (other key order and spacing, other prefix): the first document.
    let reordered = format!(
        "{{ \"payload\": {}, \"documentTypeCode\": \"850\",  \"partnerId\": \"acme-retail\" }}",
        payload("850")
    );
    let again = send("/v1", "order-1", reordered);
    assert_eq!(again.status(), 202);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let again: Value = again.json().unwrap();
    assert_eq!(again, first);
    // Same key, another body: 409.
    let mut other = body.clone();
    other["payload"]["purchaseOrderNumber"] = json!("PO-OTHER");
    error_body(
        send("/api/v1", "order-1", other.to_string()),
        409,
        "IDEMPOTENCY_KEY_REUSED",
    );
    // Keys are per account: beta's "order-1" is its own (and 404s on the partner).
    let r = s
        .post("/api/v1/documents/outbound", BETA)
        .header("content-type", "application/json")
        .header("idempotency-key", "order-1")
        .body(body.to_string())
        .send()
        .unwrap();
    error_body(r, 404, "PARTNER_NOT_FOUND");
    // Another key: a new document.
    let v: Value = send("/api/v1", "order-2", body.to_string()).json().unwrap();
    assert_ne!(read_ack(&v).0, read_ack(&first).0);
    assert_eq!(s.all_ids(ALPHA).len(), 2);
}

#[test]
fn concurrent_requests_with_one_idempotency_key_store_one_document() {
    let s = Server::start();
    let body =
        json!({"partnerId": "acme-retail", "documentTypeCode": "850", "payload": payload("850")})
            .to_string();
    let ids: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let body = body.clone();
                let s = &s;
                scope.spawn(move || {
                    let r = s
                        .post("/api/v1/documents/outbound", ALPHA)
                        .header("content-type", "application/json")
                        .header("idempotency-key", "same")
                        .body(body)
                        .send()
                        .unwrap();
                    assert_eq!(r.status(), 202);
                    read_ack(&r.json().unwrap()).0
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(ids.iter().all(|i| i == &ids[0]), "{ids:?}");
    assert_eq!(s.all_ids(ALPHA), vec![ids[0].clone()]);
}

#[test]
fn list_filters_limits_and_pages_without_repeats_or_skips() {
    let s = Server::start();
    let p = payload("850");
    for _ in 0..7 {
        assert_eq!(
            s.send("/api/v1", ALPHA, "acme-retail", "850", &p).status(),
            202
        );
    }
    for prefix in PREFIXES {
        for status in ["queued", "QUEUED", "Queued"] {
            let v: Value = s
                .get(&format!("{prefix}/transactions?status={status}"), ALPHA)
                .json()
                .unwrap();
            assert_eq!(v["data"].as_array().unwrap().len(), 7, "{status}");
            assert!(v["nextCursor"].is_null());
        }
        for status in ["FAILED", "failed"] {
            let v: Value = s
                .get(&format!("{prefix}/transactions?status={status}"), ALPHA)
                .json()
                .unwrap();
            assert!(v["data"].as_array().unwrap().is_empty());
        }
        for bad in [
            "limit=0",
            "limit=501",
            "limit=-1",
            "limit=abc",
            "limit=",
            "status=done",
            "cursor=nope",
            "cursor=",
            "other=1",
            "limit=1&limit=2",
        ] {
            let r = s.get(&format!("{prefix}/transactions?{bad}"), ALPHA);
            let code = if bad.starts_with("cursor") {
                "INVALID_CURSOR"
            } else {
                "INVALID_QUERY"
            };
            error_body(r, 400, code);
        }
        let v: Value = s
            .get(&format!("{prefix}/transactions?limit=500"), ALPHA)
            .json()
            .unwrap();
        assert_eq!(v["data"].as_array().unwrap().len(), 7);
    }
    // Pages of 3 while new documents arrive between pages: no repeat, no skip.
    let before = s.all_ids(ALPHA);
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/api/v1/transactions?limit=3&cursor={c}"),
            None => "/api/v1/transactions?limit=3".to_string(),
        };
        let v: Value = s.get(&path, ALPHA).json().unwrap();
        let page = v["data"].as_array().unwrap();
        assert!(page.len() <= 3);
        seen.extend(
            page.iter()
                .map(|t| t["documentId"].as_str().unwrap().to_string()),
        );
        assert_eq!(
            s.send("/api/v1", ALPHA, "acme-retail", "850", &p).status(),
            202
        );
        match v["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, before);
    // Default limit is 50.
    for _ in 0..50 {
        s.send("/api/v1", ALPHA, "acme-retail", "850", &p);
    }
    let v: Value = s.get("/api/v1/transactions", ALPHA).json().unwrap();
    assert_eq!(v["data"].as_array().unwrap().len(), 50);
    assert!(v["nextCursor"].is_string());
}

#[test]
fn another_accounts_ids_are_404_never_403() {
    let s = Server::start();
    let mut ids = Vec::new();
    for (code, payload) in payloads().iter().take(5) {
        let v: Value = s
            .send("/api/v1", ALPHA, "acme-retail", code, payload)
            .json()
            .unwrap();
        ids.push(read_ack(&v).0);
    }
    ids.push("doc_00000000000000000000000000000000".into());
    ids.push("nothing-here".into());
    for prefix in PREFIXES {
        for id in &ids {
            let v = error_body(
                s.get(&format!("{prefix}/transactions/{id}"), BETA),
                404,
                "TRANSACTION_NOT_FOUND",
            );
            assert!(!v.to_string().contains("alpha"), "{v}");
        }
        let v: Value = s
            .get(&format!("{prefix}/transactions"), BETA)
            .json()
            .unwrap();
        assert!(v["data"].as_array().unwrap().is_empty());
    }
    // Alpha reads its own.
    assert_eq!(
        s.get(&format!("/api/v1/transactions/{}", ids[0]), ALPHA)
            .status(),
        200
    );
}

#[test]
fn a_restart_keeps_every_transaction_and_control_numbers_go_on() {
    let s = Server::start();
    let mut sent = Vec::new();
    for (code, payload) in payloads() {
        let v: Value = s
            .send("/api/v1", ALPHA, "acme-retail", &code, &payload)
            .json()
            .unwrap();
        sent.push(read_ack(&v).0);
    }
    let before = s.all_ids(ALPHA);
    let detail: Value = s
        .get(&format!("/api/v1/transactions/{}", sent[3]), ALPHA)
        .json()
        .unwrap();
    // Killed without a graceful shutdown, then started on the same database.
    let s = s.restart();
    assert_eq!(s.all_ids(ALPHA), before);
    let again: Value = s
        .get(&format!("/api/v1/transactions/{}", sent[3]), ALPHA)
        .json()
        .unwrap();
    assert_eq!(again, detail);
    let v: Value = s
        .send("/api/v1", ALPHA, "acme-retail", "850", &payload("850"))
        .json()
        .unwrap();
    assert_eq!(v["data"]["controlNumbers"]["interchange"], 19);
}
