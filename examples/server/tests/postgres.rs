//! Two server processes on one PostgreSQL database share the work without
//! processing a document or a webhook twice, and one of them killed leaves its
//! work to the other. Needs `X12KIT_TEST_POSTGRES` (the URL of a PostgreSQL
//! server's maintenance database); `examples/server/test.sh` starts one.

mod common;

use common::partner::Partner;
use common::*;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

fn postgres_url() -> String {
    std::env::var("X12KIT_TEST_POSTGRES").expect(
        "set X12KIT_TEST_POSTGRES to a PostgreSQL URL (examples/server/test.sh starts a server and sets it)",
    )
}

fn send(s: &Server) -> String {
    let r = s.send("/api/v1", ALPHA, "acme-retail", "850", &payload("850"));
    assert_eq!(r.status(), 202);
    r.json::<Value>().unwrap()["documentId"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn two_processes_on_postgresql_share_the_work_without_doing_anything_twice() {
    let database = fresh_postgres_database(&postgres_url());
    let partner = Partner::start(0, 200, Duration::from_millis(20));
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let mut options = Options::lifecycle(&http_partner(&partner.url, None), &receiver.url);
    options.database = Some(database);
    let a = Server::start_with(options.clone());
    let b = Server::start_with(options.clone());
    // 60 documents, half through each process, from 4 threads.
    let ids: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let s = if t % 2 == 0 { &a } else { &b };
                scope.spawn(move || (0..15).map(|_| send(s)).collect::<Vec<_>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(ids.len(), 60);
    wait_for(90, "60 routed, 120 webhooks delivered", || {
        let st = a.stats();
        (st["documents"]["routed"] == 60 && st["webhooks"]["delivered"] == 120).then_some(())
    });
    // Each document reached the partner exactly once, each control number once.
    let got = partner.received();
    assert_eq!(got.len(), 60, "a document was routed twice");
    let keys: HashSet<&str> = got.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys.len(), 60);
    let controls: HashSet<&str> = got.iter().map(|r| r.control.as_str()).collect();
    assert_eq!(controls.len(), 60, "a control number was used twice");
    // Each webhook was sent once: one attempt each, each id received once.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for id in &ids {
        let t = b.transaction(id);
        assert_eq!(t["status"], "routed");
        assert_eq!(t["statusHistory"].as_array().unwrap().len(), 3, "{t}");
        for d in t["webhookDeliveries"].as_array().unwrap() {
            assert_eq!(d["attempts"], 1, "{d}");
            *seen
                .entry(d["id"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
    }
    assert_eq!(seen.len(), 120);
    assert_eq!(receiver.received().len(), 120);
}

#[test]
fn on_postgresql_a_refused_document_takes_no_control_number() {
    let s = Server::start_with(Options {
        database: Some(fresh_postgres_database(&postgres_url())),
        ..Options::default()
    });
    let mut numbers = Vec::new();
    for round in 0..3 {
        // A payload the partner's guide refuses (no /shipTo/id): 422, nothing stored.
        let mut p = payload("850");
        p["shipTo"].as_object_mut().unwrap().remove("id");
        let r = s.send("/api/v1", ALPHA, "acme-retail", "850", &p);
        assert_eq!(r.status(), 422, "round {round}");
        let r = s.send("/api/v1", ALPHA, "acme-retail", "850", &payload("850"));
        assert_eq!(r.status(), 202);
        let v: Value = r.json().unwrap();
        numbers.push(v["data"]["controlNumbers"]["interchange"].as_i64().unwrap());
    }
    // The sequence gave each accepted document the next number: no gaps from refusals.
    assert_eq!(numbers, [1, 2, 3]);
}

#[test]
fn on_postgresql_a_killed_process_leaves_its_work_to_the_other() {
    let database = fresh_postgres_database(&postgres_url());
    // A slow partner, so that the first process holds claims when it is killed.
    let partner = Partner::start(0, 200, Duration::from_millis(200));
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let mut options = Options::lifecycle(&http_partner(&partner.url, None), &receiver.url);
    options.database = Some(database);
    let a = Server::start_with(options.clone());
    let ids: Vec<String> = (0..30).map(|_| send(&a)).collect();
    wait_for(30, "some routed", || {
        (a.stats()["documents"]["routed"].as_i64() >= Some(3)).then_some(())
    });
    drop(a); // SIGKILL
    let b = Server::start_with(options);
    wait_for(120, "every document routed by the second process", || {
        let st = b.stats();
        (st["documents"]["routed"] == 30 && st["webhooks"]["pending"] == 0).then_some(())
    });
    let keys: HashSet<String> = partner.received().into_iter().map(|r| r.key).collect();
    assert_eq!(keys, ids.iter().cloned().collect::<HashSet<_>>());
    for id in &ids {
        let t = b.transaction(id);
        let events: Vec<&str> = t["webhookDeliveries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["event"].as_str().unwrap())
            .collect();
        assert_eq!(events, ["document.validated", "document.routed"]);
    }
}

#[test]
fn on_postgresql_concurrent_accepts_are_batched_numbered_without_gaps_and_routed_once() {
    // Two processes, each answering 12 clients at once: each process writes the accepts
    // that arrive together in one batch (one statement for their control numbers, one for
    // the documents), and the workers record routings and webhook attempts in batches.
    let database = fresh_postgres_database(&postgres_url());
    let partner = Partner::start(0, 200, Duration::from_millis(5));
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let mut options = Options::lifecycle(&http_partner(&partner.url, None), &receiver.url);
    options.database = Some(database);
    let a = Server::start_with(options.clone());
    let b = Server::start_with(options);
    let accepted: Vec<(String, i64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..24)
            .map(|t| {
                let s = if t % 2 == 0 { &a } else { &b };
                scope.spawn(move || {
                    (0..10)
                        .map(|_| {
                            let r = s.send("/api/v1", ALPHA, "acme-retail", "850", &payload("850"));
                            assert_eq!(r.status(), 202);
                            let v: Value = r.json().unwrap();
                            let d = &v["data"];
                            let n = d["controlNumbers"]["interchange"].as_i64().unwrap();
                            assert_eq!(d["controlNumbers"]["group"], n);
                            assert_eq!(d["controlNumbers"]["transaction"], n);
                            (d["documentId"].as_str().unwrap().to_string(), n)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(accepted.len(), 240);
    // One sequence for the partner: 1..=240, each once, whatever process took it.
    let mut numbers: Vec<i64> = accepted.iter().map(|(_, n)| *n).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=240).collect::<Vec<_>>());
    wait_for(120, "240 routed, 480 webhooks delivered", || {
        let st = a.stats();
        (st["documents"]["routed"] == 240 && st["webhooks"]["delivered"] == 480).then_some(())
    });
    // The partner got each document once, with the control number its 202 announced.
    let got = partner.received();
    assert_eq!(got.len(), 240, "a document was routed twice");
    let by_key: HashMap<&str, &str> = got
        .iter()
        .map(|r| (r.key.as_str(), r.control.as_str()))
        .collect();
    for (id, n) in &accepted {
        let control = by_key
            .get(id.as_str())
            .unwrap_or_else(|| panic!("{id} never routed"));
        assert_eq!(control.trim_start_matches('0'), n.to_string(), "{id}");
        let t = a.transaction(id);
        let history: Vec<&str> = t["statusHistory"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["status"].as_str().unwrap())
            .collect();
        assert_eq!(history, ["queued", "validated", "routed"], "{t}");
        let events: Vec<&str> = t["webhookDeliveries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                assert_eq!(d["attempts"], 1, "{d}");
                d["event"].as_str().unwrap()
            })
            .collect();
        assert_eq!(events, ["document.validated", "document.routed"]);
    }
    assert_eq!(receiver.received().len(), 480);
}

#[test]
fn on_postgresql_concurrent_requests_with_one_idempotency_key_store_one_document() {
    // Several writer connections per process: requests with one key still store one
    // document, and every caller gets it (accepted or replayed).
    let s = Server::start_with(Options {
        database: Some(fresh_postgres_database(&postgres_url())),
        ..Options::default()
    });
    let body = serde_json::json!({"partnerId": "acme-retail", "documentTypeCode": "850", "payload": payload("850")})
        .to_string();
    let ids: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..16)
            .map(|t| {
                let body = body.clone();
                let s = &s;
                scope.spawn(move || {
                    let r = s
                        .post("/api/v1/documents/outbound", ALPHA)
                        .header("content-type", "application/json")
                        .header("idempotency-key", if t < 8 { "same" } else { "other" })
                        .body(body)
                        .send()
                        .unwrap();
                    assert_eq!(r.status(), 202);
                    (t, read_ack(&r.json().unwrap()).0)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .map(|(_, id)| id)
            .collect()
    });
    assert!(ids[..8].iter().all(|i| i == &ids[0]), "{ids:?}");
    assert!(ids[8..].iter().all(|i| i == &ids[8]), "{ids:?}");
    assert_ne!(ids[0], ids[8]);
    let mut stored = s.all_ids(ALPHA);
    stored.sort();
    let mut want = vec![ids[0].clone(), ids[8].clone()];
    want.sort();
    assert_eq!(stored, want);
}
