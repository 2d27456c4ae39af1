//! Faults, survived and recovered, against the real binary: SQLite on a full disk (a
//! size-limited tmpfs the test mounts), a partner endpoint that accepts the connection
//! and never answers, a webhook receiver that reads the body a byte at a time, and (in
//! the PostgreSQL pass of test.sh) PostgreSQL restarted under load.

mod common;

use common::partner::Partner;
use common::*;
use serde_json::{Value, json};
use sha2::Digest;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A tmpfs of `size` mounted on a fresh folder (unmounted on drop).
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .expect("mount");
        assert!(
            status.success(),
            "cannot mount a tmpfs (this test needs root, as test.sh and CI run it)"
        );
        Tmpfs { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fills the file system with one file until it is full; the file's path.
    fn fill(&self) -> PathBuf {
        use std::io::Write;
        let path = self.path().join("filler");
        let mut f = std::fs::File::create(&path).unwrap();
        let chunk = vec![0u8; 64 * 1024];
        while f.write_all(&chunk).is_ok() {}
        // What a 64 KiB write could not take, byte by byte.
        while f.write_all(&[0]).is_ok() {}
        let _ = f.sync_all();
        path
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// Sends an 850 for alpha's partner: the status and the document id of a 202.
fn send_850(s: &Server, key: Option<&str>) -> (u16, Value, Option<String>) {
    let mut r = s
        .post("/api/v1/documents/outbound", ALPHA)
        .header("content-type", "application/json");
    if let Some(k) = key {
        r = r.header("idempotency-key", k);
    }
    let r = r
        .body(
            json!({"partnerId": "acme-retail", "documentTypeCode": "850", "payload": payload("850")})
                .to_string(),
        )
        .send()
        .unwrap();
    let status = r.status().as_u16();
    let retry = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    let v: Value = r.json().unwrap();
    if status == 503 {
        assert_eq!(retry.as_deref(), Some("5"), "{v}");
    }
    let id = (status == 202).then(|| v["documentId"].as_str().unwrap().to_string());
    (status, v, id)
}

fn directory_partner(outbox: &Path) -> String {
    format!(
        "[accounts.partners.transport]\nkind = \"directory\"\noutbox = {:?}\n",
        outbox.to_string_lossy()
    )
}

#[test]
#[ignore = "needs root to mount a size-limited tmpfs: test.sh runs it when root (as CI is)"]
fn sqlite_on_a_full_disk_answers_503_writes_nothing_half_and_resumes() {
    let disk = Tmpfs::mount("4m");
    let files = tempfile::tempdir().unwrap();
    let outbox = files.path().join("out");
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let db = disk.path().join("server.db");
    let s = Server::start_with(Options {
        database: Some(db.to_string_lossy().into_owned()),
        ..Options::lifecycle(&directory_partner(&outbox), &receiver.url)
    });
    let mut accepted: Vec<String> = (0..5).map(|_| send_850(&s, None).2.expect("202")).collect();
    for id in &accepted {
        s.wait_status(id, &["routed"], 30);
    }

    // The disk fills up: writes are answered 503 STORE_UNAVAILABLE, with Retry-After.
    let filler = disk.fill();
    let mut refused = 0;
    for _ in 0..2000 {
        match send_850(&s, None) {
            (202, _, Some(id)) => accepted.push(id),
            (503, v, _) => {
                assert_eq!(v["error"]["code"], "STORE_UNAVAILABLE", "{v}");
                assert_eq!(v["error"]["retryAfterSeconds"], 5, "{v}");
                refused += 1;
                if refused == 10 {
                    break;
                }
            }
            (status, v, _) => panic!("{status} {v}"),
        }
    }
    assert_eq!(refused, 10, "the full disk never refused a write");
    wait_for(10, "/readyz to say STORE_UNAVAILABLE", || {
        let r = s.client.get(format!("{}/readyz", s.base)).send().unwrap();
        let status = r.status().as_u16();
        let v: Value = r.json().unwrap();
        (status == 503 && v["error"]["code"] == "STORE_UNAVAILABLE").then_some(())
    });
    // Reads go on.
    assert_eq!(s.get("/api/v1/transactions", ALPHA).status(), 200);

    // Nothing half-written: the file is sound, every accepted document is there with its
    // first history row, no refused one is, and every status has the history row that
    // made it.
    {
        let c =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .unwrap();
        let check: String = c
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
        let ids: HashSet<String> = c
            .prepare("SELECT id FROM documents")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(ids, accepted.iter().cloned().collect::<HashSet<_>>());
        let unexplained: i64 = c
            .query_row(
                "SELECT COUNT(*) FROM documents d WHERE d.status <> (
                     SELECT h.status FROM status_history h WHERE h.document_id = d.id
                     ORDER BY h.id DESC LIMIT 1)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            unexplained, 0,
            "a status without the history row that made it"
        );
    }

    // Space returns: the workers resume by themselves, writes are taken again, and every
    // accepted document reaches its final state with its webhooks.
    std::fs::remove_file(filler).unwrap();
    wait_for(30, "/readyz to say ready", || {
        let r = s.client.get(format!("{}/readyz", s.base)).send().unwrap();
        (r.status() == 200).then_some(())
    });
    accepted.push(send_850(&s, None).2.expect("a 202 once space is back"));
    for id in &accepted {
        s.wait_status(id, &["routed"], 60);
    }
    wait_for(60, "every webhook delivered", || {
        let st = s.stats();
        (st["webhooks"]["pending"] == 0).then_some(st)
    });
    let st = s.stats();
    assert_eq!(
        st["webhooks"]["delivered"].as_u64(),
        Some(2 * accepted.len() as u64),
        "{st}"
    );
    assert_eq!(st["webhooks"]["failed"], 0, "{st}");
    // One file per document in the partner's outbox: none sent twice, none missing.
    let sent = std::fs::read_dir(&outbox).unwrap().count();
    assert_eq!(sent, accepted.len());
    eprintln!(
        "full disk: {} documents accepted, 10 refused with 503 STORE_UNAVAILABLE, all routed after space returned",
        accepted.len()
    );
    drop(s);
}

/// A listener that accepts connections and never reads nor answers (held until dropped).
struct Stalled {
    url: String,
    accepted: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Stalled {
    /// `trickle`: read the request a byte every 100 ms instead of not at all.
    fn start(trickle: bool) -> Stalled {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}/edi", listener.local_addr().unwrap());
        let accepted = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (a, st) = (accepted.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut held = Vec::new();
            while !st.load(Ordering::SeqCst) {
                while let Ok((c, _)) = listener.accept() {
                    a.fetch_add(1, Ordering::SeqCst);
                    c.set_nonblocking(true).unwrap();
                    held.push(c);
                }
                if trickle {
                    for c in &mut held {
                        let mut b = [0u8; 1];
                        let _ = c.read(&mut b);
                    }
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Stalled {
            url,
            accepted,
            stop,
        }
    }
}

impl Drop for Stalled {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// A third account, `gamma` (key `x12k_test_gamma`), with a partner `globex` reached by
/// `transport` and a webhook endpoint at `webhook`.
fn gamma(transport: &str, webhook: &str) -> String {
    let hash = hex::encode(sha2::Sha256::digest(b"x12k_test_gamma"));
    let profile = repo_root().join("examples/partners/acme-retail.json");
    format!(
        "\n[[accounts]]\nid = \"gamma\"\n\n[[accounts.keys]]\nname = \"test\"\nsha256 = \"{hash}\"\n\n[[accounts.partners]]\nid = \"globex\"\nprofile = {:?}\n{transport}\n[[accounts.webhooks]]\nurl = {webhook:?}\nsecrets = [\"whsec_gamma_for_tests\"]\n",
        profile.to_string_lossy()
    )
}

fn send_globex(s: &Server) -> String {
    let r = s.post_json(
        "/api/v1/documents/outbound",
        "x12k_test_gamma",
        &json!({"partnerId": "globex", "documentTypeCode": "850", "payload": payload("850")}),
    );
    assert_eq!(r.status(), 202);
    r.json::<Value>().unwrap()["documentId"]
        .as_str()
        .unwrap()
        .to_string()
}

fn status_of(s: &Server, key: &str, id: &str) -> Value {
    let r = s.get(&format!("/api/v1/transactions/{id}"), key);
    assert_eq!(r.status(), 200);
    r.json::<Value>().unwrap()["data"].clone()
}

#[test]
fn a_stalled_partner_is_timed_out_retried_and_holds_only_its_share() {
    let stalled = Stalled::start(false);
    let healthy = Partner::start(0, 200, Duration::ZERO);
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let gamma_hooks = Receiver::start(&["whsec_gamma_for_tests"], 0);
    let acme = format!(
        "[accounts.partners.transport]\nkind = \"http\"\nurl = {:?}\nretries = 1\nbackoff_ms = 100\ntimeout_ms = 700\n",
        stalled.url
    );
    let globex = format!(
        "[accounts.partners.transport]\nkind = \"http\"\nurl = {:?}\nretries = 1\nbackoff_ms = 100\ntimeout_ms = 5000\n",
        healthy.url
    );
    let s = Server::start_with(Options {
        workers_toml: FAST_WORKERS.replace(
            "concurrency = 16",
            "concurrency = 4\nconcurrency_per_partner = 2",
        ),
        append: gamma(&globex, &gamma_hooks.url),
        ..Options::lifecycle(&acme, &receiver.url)
    });
    let stuck: Vec<String> = (0..20).map(|_| send_850(&s, None).2.unwrap()).collect();
    // Let the stalled partner's documents be claimed first.
    wait_for(10, "the stalled partner to be called", || {
        (stalled.accepted.load(Ordering::SeqCst) >= 2).then_some(())
    });
    let sent = Instant::now();
    let ours: Vec<String> = (0..3).map(|_| send_globex(&s)).collect();
    for id in &ours {
        wait_for(10, "the other partner's documents routed", || {
            (status_of(&s, "x12k_test_gamma", id)["status"] == "routed").then_some(())
        });
    }
    let took = sent.elapsed();
    // The stalled partner's documents are still being tried meanwhile: 20 documents, 2 at
    // a time, 2 attempts of 0.7 s each (with the 4 transfers at once shared by all
    // partners, the other partner would have waited 5 rounds of 1.5 s).
    let waiting = stuck
        .iter()
        .filter(|id| status_of(&s, ALPHA, id)["status"] == "validated")
        .count();
    assert!(waiting > 0, "the stalled partner's documents were all done");
    assert!(
        took < Duration::from_secs(4),
        "the other partner waited {took:?} behind the stalled one"
    );
    // At most its share (2) of the 4 transfers at once ever reached the stalled partner.
    assert!(
        stalled.accepted.load(Ordering::SeqCst) <= 2 * 20,
        "{}",
        stalled.accepted.load(Ordering::SeqCst)
    );
    // Each attempt is timed out, recorded, retried, and the document fails with them.
    let t = s.wait_status(&stuck[0], &["failed"], 30);
    let attempts = t["routingAttempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{t}");
    for a in attempts {
        assert_eq!(a["result"], "timeout", "{t}");
        assert!(a["durationMs"].as_u64() >= Some(600), "{t}");
    }
    assert!(
        t["failureReason"]
            .as_str()
            .unwrap()
            .contains("timeout after 2 attempts"),
        "{t}"
    );
    eprintln!(
        "stalled partner: the other partner's 3 documents routed in {took:?}; {waiting} of the stalled partner's 20 still being tried"
    );
}

#[test]
fn a_webhook_receiver_that_trickles_is_timed_out_and_retried_while_others_are_delivered() {
    let trickle = Stalled::start(true);
    let healthy = Receiver::start(&["whsec_gamma_for_tests"], 0);
    let files = tempfile::tempdir().unwrap();
    let s = Server::start_with(Options {
        workers_toml: "enabled = true\npoll_ms = 50\nconcurrency = 4\nconcurrency_per_endpoint = 2\nwebhook_retry_ms = [300, 300]\nwebhook_timeout_ms = 800\n".into(),
        append: gamma(
            &directory_partner(&files.path().join("globex")),
            &healthy.url,
        ),
        ..Options::lifecycle(&directory_partner(&files.path().join("acme")), &trickle.url)
    });
    // 40 deliveries to the trickling receiver (2 events each), 0.8 s per attempt: with the 4
    // deliveries at once shared by all endpoints, the healthy one would wait about 8 s.
    let alpha: Vec<String> = (0..20).map(|_| send_850(&s, None).2.unwrap()).collect();
    wait_for(10, "the trickling receiver to be called", || {
        (trickle.accepted.load(Ordering::SeqCst) >= 2).then_some(())
    });
    let sent = Instant::now();
    let ours: Vec<String> = (0..3).map(|_| send_globex(&s)).collect();
    // Their 6 deliveries (validated, routed) reach the healthy receiver promptly.
    wait_for(15, "gamma's webhooks delivered", || {
        let got: HashSet<String> = healthy
            .received()
            .iter()
            .map(|e| e["data"]["documentId"].as_str().unwrap().to_string())
            .collect();
        (ours.iter().all(|id| got.contains(id)) && healthy.received().len() >= 6).then_some(())
    });
    let took = sent.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "the healthy endpoint waited {took:?} behind the trickling one"
    );
    // The trickling receiver's attempts time out, are recorded, and are retried later.
    let t = wait_for(
        20,
        "a timed-out webhook attempt recorded with its retry",
        || {
            alpha.iter().find_map(|id| {
                let t = status_of(&s, ALPHA, id);
                let d = t["webhookDeliveries"].as_array()?.first()?.clone();
                (d["attempts"].as_u64() >= Some(1)).then_some(d)
            })
        },
    );
    let first = &t["attemptLog"][0];
    assert_eq!(first["result"], "timeout", "{t}");
    assert!(first["durationMs"].as_u64() >= Some(700), "{t}");
    assert!(
        t["state"] == "failed"
            || t["nextAttemptAt"].is_string()
            || t["attempts"].as_u64() >= Some(2),
        "no retry scheduled: {t}"
    );
    eprintln!("trickling receiver: the healthy endpoint got its 6 deliveries in {took:?}");
}

/// Sends documents with their own `Idempotency-Key`s from `threads` threads until `stop`,
/// each one again (same key) until it is accepted: the answers seen, by status, and the
/// keys accepted with their document ids.
fn keyed_senders(
    base: String,
    threads: usize,
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<HashMap<String, usize>>>,
    accepted: Arc<Mutex<HashMap<String, String>>>,
) -> Vec<std::thread::JoinHandle<()>> {
    (0..threads)
        .map(|t| {
            let (base, stop, seen, accepted) =
                (base.clone(), stop.clone(), seen.clone(), accepted.clone());
            std::thread::spawn(move || {
                let client = reqwest::blocking::Client::builder()
                    .timeout(Duration::from_secs(30))
                    .build()
                    .unwrap();
                let body = json!({"partnerId": "acme-retail", "documentTypeCode": "850", "payload": payload("850")}).to_string();
                let mut n = 0;
                while !stop.load(Ordering::SeqCst) {
                    let key = format!("chaos-{t}-{n}");
                    n += 1;
                    // Until accepted: a key given up on could have committed unseen.
                    let give_up = Instant::now() + Duration::from_secs(300);
                    while Instant::now() < give_up {
                        let r = client
                            .post(format!("{base}/api/v1/documents/outbound"))
                            .bearer_auth(ALPHA)
                            .header("content-type", "application/json")
                            .header("idempotency-key", &key)
                            .body(body.clone())
                            .send();
                        let outcome = match &r {
                            Ok(r) => r.status().as_u16().to_string(),
                            Err(_) => "no answer".to_string(),
                        };
                        *seen.lock().unwrap().entry(outcome).or_default() += 1;
                        match r {
                            Ok(r) if r.status() == 202 => {
                                let v: Value = r.json().unwrap();
                                accepted.lock().unwrap().insert(
                                    key.clone(),
                                    v["documentId"].as_str().unwrap().to_string(),
                                );
                                break;
                            }
                            Ok(r) if r.status() == 503 => {
                                let v: Value = r.json().unwrap();
                                assert_eq!(v["error"]["code"], "STORE_UNAVAILABLE", "{v}");
                                std::thread::sleep(Duration::from_millis(100));
                            }
                            Ok(r) => panic!("{}: {}", r.status(), r.text().unwrap()),
                            Err(_) => std::thread::sleep(Duration::from_millis(100)),
                        }
                    }
                }
            })
        })
        .collect()
}

#[test]
fn postgresql_restarted_under_load_on_postgresql() {
    let (Ok(_), Ok(restart)) = (
        std::env::var("X12KIT_TEST_POSTGRES"),
        std::env::var("X12KIT_TEST_PG_RESTART"),
    ) else {
        panic!(
            "needs X12KIT_TEST_POSTGRES and X12KIT_TEST_PG_RESTART (a command restarting that PostgreSQL): test.sh sets them in its PostgreSQL pass"
        );
    };
    let partner = Partner::start(0, 200, Duration::from_millis(20));
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let s = Server::start_with(Options::lifecycle(
        &http_partner(&partner.url, None),
        &receiver.url,
    ));
    let stop = Arc::new(AtomicBool::new(false));
    let seen: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let accepted: Arc<Mutex<HashMap<String, String>>> = Arc::default();
    let senders = keyed_senders(
        s.base.clone(),
        4,
        stop.clone(),
        seen.clone(),
        accepted.clone(),
    );
    wait_for(30, "documents accepted before the restart", || {
        (accepted.lock().unwrap().len() >= 20).then_some(())
    });
    let status = std::process::Command::new("sh")
        .args(["-c", &restart])
        .status()
        .unwrap();
    assert!(status.success(), "{restart}");
    let after = accepted.lock().unwrap().len();
    wait_for(60, "documents accepted after the restart", || {
        (accepted.lock().unwrap().len() >= after + 20).then_some(())
    });
    stop.store(true, Ordering::SeqCst);
    for t in senders {
        t.join().unwrap();
    }
    let seen = seen.lock().unwrap().clone();
    let accepted = accepted.lock().unwrap().clone();
    // Requests in flight during the restart got 503 STORE_UNAVAILABLE (checked by the
    // senders), never a 500.
    assert!(!seen.contains_key("500"), "{seen:?}");
    // Nothing accepted is lost or doubled: each key has one document, every document in
    // the store was accepted under one key, and every one is routed once.
    let ids: HashSet<&String> = accepted.values().collect();
    assert_eq!(ids.len(), accepted.len(), "two keys share a document");
    let stored: HashSet<String> = s.all_ids(ALPHA).into_iter().collect();
    assert_eq!(
        stored,
        ids.iter().map(|s| s.to_string()).collect::<HashSet<_>>(),
        "the store and the accepted documents differ"
    );
    for id in &stored {
        s.wait_status(id, &["routed"], 120);
    }
    let mut got: HashMap<String, usize> = HashMap::new();
    for r in partner.received() {
        *got.entry(r.key).or_default() += 1;
    }
    for id in &stored {
        // One process, never killed: an outcome it could not record during the restart is
        // recorded once the database is back, never sent again.
        assert_eq!(
            got.get(id),
            Some(&1),
            "{id} reached the partner {:?} times",
            got.get(id)
        );
    }
    eprintln!(
        "PostgreSQL restarted under load: {} documents accepted, answers {seen:?}, {} sent twice to the partner",
        stored.len(),
        got.values().filter(|n| **n > 1).count()
    );
    wait_for(30, "/readyz back", || {
        let r = s.client.get(format!("{}/readyz", s.base)).send().unwrap();
        (r.status() == 200).then_some(())
    });
}
