//! Crash safety: the server is killed with SIGKILL while documents are being
//! accepted (and rendered), while they are routed and while webhooks are
//! delivered, and restarted on the same database each time. Afterwards every
//! document reaches its final state, and the receiver (failing the first three
//! attempts of every delivery) got every webhook under the delivery id the
//! store shows.
//!
//! The partner side is at least once, never silently twice: a kill between the
//! partner's 2xx and the commit of `routed` cannot be told from a kill before the
//! POST, so such a document is sent again after the restart. No transport can
//! make that exactly once over HTTP; what the server guarantees, and these tests
//! check against the partner's counts and the store as each kill left it, is
//! that every document reaches the partner, that a resend is byte-identical
//! with the same `Idempotency-Key` (and ISA13) so the partner deduplicates it,
//! that only documents whose `routed` was not committed at a kill are ever
//! sent again, and that every resend is marked as one in the transaction
//! (`routingAttempts[0].result = "interrupted"`, and the history's reason), so
//! the customer can tell.

mod common;

use common::partner::Partner;
use common::*;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// Sends documents from `threads` threads until `stop`, counting the 202s.
fn flood(
    base: String,
    threads: usize,
    stop: Arc<AtomicBool>,
    accepted: Arc<AtomicUsize>,
) -> Vec<std::thread::JoinHandle<()>> {
    (0..threads)
        .map(|_| {
            let base = base.clone();
            let stop = stop.clone();
            let accepted = accepted.clone();
            std::thread::spawn(move || {
                let client = reqwest::blocking::Client::new();
                let body = serde_json::json!({"partnerId": "acme-retail", "documentTypeCode": "850", "payload": payload("850")});
                while !stop.load(Ordering::SeqCst) {
                    let r = client
                        .post(format!("{base}/api/v1/documents/outbound"))
                        .bearer_auth(ALPHA)
                        .header("content-type", "application/json")
                        .body(body.to_string())
                        .send();
                    match r {
                        Ok(r) if r.status() == 202 => {
                            accepted.fetch_add(1, Ordering::SeqCst);
                        }
                        _ => return, // the server was killed
                    }
                }
            })
        })
        .collect()
}

/// The partner side of a run: what it got, per Idempotency-Key (bodies in arrival order).
type Got = HashMap<String, Vec<String>>;

/// What a run leaves to check: the document ids, what the partner got, and the
/// documents resent after an interrupted attempt, as the store marks them.
struct Run {
    ids: Vec<String>,
    got: Got,
    interrupted: HashSet<String>,
}

#[test]
fn sigkill_across_the_pipeline_with_the_http_transport() {
    let partner = Partner::start(0, 200, Duration::from_millis(150));
    let run = crash_run(&http_partner(&partner.url, None), || {
        let mut m: Got = HashMap::new();
        for r in partner.received() {
            m.entry(r.key).or_default().push(r.body);
        }
        m
    });
    // Every POST of a document carried the same ISA13 header as its body.
    for r in partner.received() {
        assert_eq!(&r.body[90..99], format!("{:0>9}", r.control), "{}", r.key);
    }
    // The partner answers in 150 ms and the second kill comes while documents arrive
    // faster than that: POSTs were under way at that kill, so their documents were
    // claimed by the killed process and are marked as resent.
    assert!(
        !run.interrupted.is_empty(),
        "no routing was interrupted by the kill during routing"
    );
    let resent = run.got.values().filter(|b| b.len() > 1).count();
    eprintln!(
        "crash test (http): {} documents, {} POSTs, {resent} sent twice, {} marked as resent",
        run.ids.len(),
        run.got.values().map(Vec::len).sum::<usize>(),
        run.interrupted.len()
    );
}

#[test]
fn sigkill_across_the_pipeline_with_the_directory_transport() {
    let files = tempfile::tempdir().unwrap();
    let outbox = files.path().join("out");
    let settings = format!(
        "[accounts.partners.transport]\nkind = \"directory\"\noutbox = {:?}\n",
        outbox.to_string_lossy()
    );
    let run = crash_run(&settings, || {
        let mut m: Got = HashMap::new();
        for e in std::fs::read_dir(&outbox).into_iter().flatten() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(!name.starts_with('.'), "temporary file left: {name}");
            let id = name
                .split_once('-')
                .unwrap()
                .1
                .trim_end_matches(".x12")
                .to_string();
            m.entry(id)
                .or_default()
                .push(std::fs::read_to_string(e.path()).unwrap());
        }
        m
    });
    // One file per document, whatever the kills: a rewrite replaces the same name.
    assert!(run.got.values().all(|b| b.len() == 1));
    assert_eq!(run.got.len(), run.ids.len());
}

/// Kills the server, notes which documents the store had not yet recorded as `routed`
/// (only those may be sent again), and starts it again on the same database.
fn kill_and_restart(s: Server, in_doubt: &mut HashSet<String>) -> Server {
    let stopped = s.kill();
    in_doubt.extend(
        stopped
            .statuses()
            .into_iter()
            .filter(|(_, status)| status == "queued" || status == "validated")
            .map(|(id, _)| id),
    );
    stopped.start()
}

/// Runs the kills against a partner reached by `partner_settings`; `partner_side` lists
/// what the partner got.
fn crash_run(partner_settings: &str, partner_side: impl Fn() -> Got) -> Run {
    let mut in_doubt = HashSet::new();
    let receiver = Receiver::start(&[ALPHA_SECRET], 3);
    let s = Server::start_with(Options::lifecycle(partner_settings, &receiver.url));

    // 1. Killed while documents are accepted (each rendered inside its accept).
    let stop = Arc::new(AtomicBool::new(false));
    let accepted = Arc::new(AtomicUsize::new(0));
    let senders = flood(s.base.clone(), 4, stop.clone(), accepted.clone());
    wait_for(60, "20 documents accepted", || {
        (accepted.load(Ordering::SeqCst) >= 20).then_some(())
    });
    let s = kill_and_restart(s, &mut in_doubt);
    stop.store(true, Ordering::SeqCst);
    for t in senders {
        t.join().unwrap();
    }
    let phase1 = accepted.load(Ordering::SeqCst);

    // 2. Killed while documents are routed (the partner takes 150 ms each).
    let stop = Arc::new(AtomicBool::new(false));
    let senders = flood(s.base.clone(), 2, stop.clone(), accepted.clone());
    wait_for(60, "some documents routed while more arrive", || {
        let st = s.stats();
        (st["documents"]["routed"].as_i64() >= Some(5)).then_some(())
    });
    stop.store(true, Ordering::SeqCst);
    for t in senders {
        t.join().unwrap();
    }
    let s = kill_and_restart(s, &mut in_doubt);

    // 3. Killed while webhooks are delivered (the receiver fails the first three attempts).
    wait_for(60, "webhooks delivered and pending", || {
        let st = s.stats();
        (st["webhooks"]["delivered"].as_i64() >= Some(2)
            && st["webhooks"]["pending"].as_i64() > Some(0))
        .then_some(())
    });
    let s = kill_and_restart(s, &mut in_doubt);

    // 4. Everything settles.
    let ids = s.all_ids(ALPHA);
    assert!(
        ids.len() >= phase1 && ids.len() >= 20,
        "{} documents",
        ids.len()
    );
    // The last stats read go into the failure message (a run on PostgreSQL
    // once timed out here with nothing else to tell what was left).
    let deadline = std::time::Instant::now() + Duration::from_secs(180);
    loop {
        let st = s.stats();
        if st["documents"]["routed"].as_u64() == Some(ids.len() as u64)
            && st["webhooks"]["pending"] == 0
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for every document routed and every webhook delivered ({} documents): {st}",
            ids.len()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let st = s.stats();
    assert_eq!(st["webhooks"]["failed"], 0, "{st}");
    assert_eq!(
        st["webhooks"]["delivered"].as_u64(),
        Some(2 * ids.len() as u64),
        "{st}"
    );

    // Every document reached the partner at least once, and nothing else did.
    let got = partner_side();
    let routed: HashSet<&str> = got.keys().map(String::as_str).collect();
    let all: HashSet<&str> = ids.iter().map(String::as_str).collect();
    assert_eq!(routed, all);
    let mut interrupted = HashSet::new();
    for id in &ids {
        let t = s.transaction(id);
        let sent = t["x12"].as_str().unwrap();
        let bodies = &got[id.as_str()];
        // Every copy is the stored interchange, byte for byte (same ISA13), under the
        // same key (the document id).
        assert!(
            bodies.iter().all(|b| b == sent),
            "{id} sent with other bytes"
        );
        let attempts = t["routingAttempts"].as_array().unwrap();
        let marked = attempts[0]["result"] == "interrupted";
        let reason = t["statusHistory"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["status"] == "routed")
            .unwrap()["reason"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(marked, reason.contains("sent again"), "{id}: {t}");
        if marked {
            assert_eq!(attempts[0]["resent"], true, "{t}");
            interrupted.insert(id.clone());
        }
        // Sent twice only if its `routed` was not committed at a kill, and then the
        // transaction says so.
        if bodies.len() > 1 {
            assert!(
                in_doubt.contains(id),
                "{id} was sent {} times though the store had it routed at every kill",
                bodies.len()
            );
            assert!(
                marked,
                "{id} was sent {} times and its transaction does not say so: {t}",
                bodies.len()
            );
        }
        // Marked only when a killed process held it for routing.
        if marked {
            assert!(in_doubt.contains(id), "{id} marked as resent: {t}");
        }
    }

    // Every webhook the store shows was received, under its delivery id, after three failures.
    let received: HashMap<String, Value> = receiver
        .received()
        .into_iter()
        .map(|e| (e["deliveryId"].as_str().unwrap().to_string(), e))
        .collect();
    let mut stored = HashSet::new();
    for id in &ids {
        let t = s.transaction(id);
        assert_eq!(t["status"], "routed");
        let mut events = Vec::new();
        for d in t["webhookDeliveries"].as_array().unwrap() {
            let delivery = d["id"].as_str().unwrap();
            assert_eq!(d["state"], "delivered", "{d}");
            let e = received
                .get(delivery)
                .unwrap_or_else(|| panic!("delivery {delivery} of {id} never received"));
            assert_eq!(e["data"]["documentId"], id.as_str());
            assert_eq!(e["event"], d["event"]);
            assert!(e["attempt"].as_u64() >= Some(4), "{e}");
            events.push(d["event"].as_str().unwrap().to_string());
            stored.insert(delivery.to_string());
        }
        assert_eq!(events, ["document.validated", "document.routed"], "{id}");
    }
    let extra: Vec<&String> = received.keys().filter(|k| !stored.contains(*k)).collect();
    assert!(
        extra.is_empty(),
        "deliveries the store does not know: {extra:?}"
    );
    Run {
        ids,
        got,
        interrupted,
    }
}
