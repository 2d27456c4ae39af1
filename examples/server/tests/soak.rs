//! Soak: the real server under steady, mixed traffic on loopback, its memory
//! sampled every second (issue 34). For `X12KIT_SOAK_SECONDS` (60 by
//! default, as CI runs it; README, "Memory under sustained load", for a
//! longer run by hand) client threads send outbound documents (routed over
//! HTTP to a partner endpoint, with webhooks to the receiver example), the
//! partner's 997 for each routed document (inbound), parses and validations
//! of 100 KB interchanges, and transaction lists and lookups. The server's
//! RSS after the first 10 seconds (warm: pools, caches, the store's pages)
//! may grow by less than 10 % until the end: the median over the second
//! half of the time after the first 10 seconds against the median over the
//! first half (`X12KIT_SOAK_WARMUP` moves the 10 seconds for a long run). Every request must succeed, and
//! at the end every document is acknowledged and every webhook delivered.

mod common;

use common::partner::Partner;
use common::*;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The server process's resident set, in KiB (Linux /proc).
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// About `size` bytes of valid X12: the example purchase orders, interchange after interchange.
fn interchanges(size: usize) -> Vec<u8> {
    let one = std::fs::read(repo_root().join("examples/x12/purchase-orders-850.edi")).unwrap();
    let mut out = Vec::with_capacity(size + one.len());
    while out.len() < size {
        out.extend_from_slice(&one);
        if !one.ends_with(b"\n") {
            out.push(b'\n');
        }
    }
    out
}

/// The partner's 997 for the interchange `x12`, control numbers `control` (made by the core).
fn ack_997(x12: &str, control: u64) -> Vec<u8> {
    let o: x12kit::ops::AcknowledgeOptions = x12kit::ops::options(json!({
        "kind": "997",
        "interchangeControlNumber": control,
        "groupControlNumber": control,
        "setControlNumber": control,
    }))
    .unwrap();
    x12kit::ops::acknowledge(x12.as_bytes(), &o, x12kit::clock::now()).unwrap()
}

/// Requests made and failed, per kind.
#[derive(Default)]
struct Counts {
    made: [AtomicU64; 5],
    failed: Mutex<Vec<String>>,
}

const OUTBOUND: usize = 0;
const INBOUND: usize = 1;
const PARSE: usize = 2;
const VALIDATE: usize = 3;
const READ: usize = 4;

impl Counts {
    fn check(&self, kind: usize, what: &str, status: u16, expected: u16) {
        self.made[kind].fetch_add(1, Ordering::Relaxed);
        if status != expected {
            self.failed
                .lock()
                .unwrap()
                .push(format!("{what}: {status}"));
        }
    }
}

/// Runs `f` every `every` until `stop`.
fn paced(stop: &AtomicBool, every: Duration, mut f: impl FnMut()) {
    let mut next = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        f();
        next += every;
        match next.checked_duration_since(Instant::now()) {
            Some(d) => std::thread::sleep(d),
            None => next = Instant::now(),
        }
    }
}

#[test]
fn memory_stays_flat_under_sustained_mixed_traffic() {
    let seconds: u64 = std::env::var("X12KIT_SOAK_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    // What is measured starts after this warm-up (10 s in CI; a longer run
    // by hand can start later, see the README).
    let warmup: u64 = std::env::var("X12KIT_SOAK_WARMUP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    assert!(
        seconds >= warmup + 20,
        "X12KIT_SOAK_SECONDS must be at least X12KIT_SOAK_WARMUP + 20"
    );
    let partner = Partner::start(0, 200, Duration::ZERO);
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let s = Arc::new(Server::start_with(Options::lifecycle(
        &http_partner(&partner.url, Some(3600)),
        &receiver.url,
    )));
    let pid = s.pid();
    let body = Arc::new(interchanges(100_000));
    let stop = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(Counts::default());
    // Sent documents not yet answered with the partner's 997.
    let pending: Arc<Mutex<Vec<String>>> = Arc::default();
    let payload = payload("850");

    let mut threads = Vec::new();
    {
        // Outbound documents, 20 a second.
        let (s, stop, counts, pending) = (s.clone(), stop.clone(), counts.clone(), pending.clone());
        threads.push(std::thread::spawn(move || {
            paced(&stop, Duration::from_millis(50), || {
                let r = s.send("/api/v1", ALPHA, "acme-retail", "850", &payload);
                let status = r.status().as_u16();
                counts.check(OUTBOUND, "POST /documents/outbound", status, 202);
                if status == 202 {
                    let v: Value = r.json().unwrap();
                    pending
                        .lock()
                        .unwrap()
                        .push(v["documentId"].as_str().unwrap().to_string());
                }
            })
        }));
    }
    {
        // The partner's 997 for each routed document (inbound, then acknowledged and a webhook).
        let (s, stop, counts, pending) = (s.clone(), stop.clone(), counts.clone(), pending.clone());
        threads.push(std::thread::spawn(move || {
            let mut control = 5000u64;
            paced(&stop, Duration::from_millis(20), || {
                let Some(id) = pending.lock().unwrap().first().cloned() else {
                    return;
                };
                let t = s.transaction(&id);
                counts.check(READ, "GET /transactions/{id}", 200, 200);
                if t["status"] != "routed" {
                    return;
                }
                pending.lock().unwrap().retain(|p| *p != id);
                control += 1;
                let ack = ack_997(t["x12"].as_str().unwrap(), control);
                let r = s
                    .post("/api/v1/documents/inbound", ALPHA)
                    .header("content-type", "application/edi-x12")
                    .body(ack)
                    .send()
                    .unwrap();
                counts.check(INBOUND, "POST /documents/inbound", r.status().as_u16(), 200);
            })
        }));
    }
    for (kind, path, every) in [
        (PARSE, "/api/v1/parse", 200),
        (VALIDATE, "/api/v1/validate?structure=true", 200),
    ] {
        // Parses and validations of 100 KB interchanges, 5 a second each.
        let (s, stop, counts, body) = (s.clone(), stop.clone(), counts.clone(), body.clone());
        threads.push(std::thread::spawn(move || {
            paced(&stop, Duration::from_millis(every), || {
                let r = s
                    .post(path, ALPHA)
                    .header("content-type", "application/edi-x12")
                    .body(body.to_vec())
                    .send()
                    .unwrap();
                let status = r.status().as_u16();
                let _ = r.bytes();
                counts.check(kind, path, status, 200);
            })
        }));
    }
    {
        // Transaction lists, 20 a second.
        let (s, stop, counts) = (s.clone(), stop.clone(), counts.clone());
        threads.push(std::thread::spawn(move || {
            paced(&stop, Duration::from_millis(50), || {
                let r = s.get("/api/v1/transactions?limit=50", ALPHA);
                let status = r.status().as_u16();
                let _ = r.bytes();
                counts.check(READ, "GET /transactions", status, 200);
            })
        }));
    }

    // The server's RSS every second.
    let start = Instant::now();
    let mut samples: Vec<(u64, u64)> = Vec::new();
    while start.elapsed() < Duration::from_secs(seconds) {
        std::thread::sleep(Duration::from_secs(1));
        samples.push((start.elapsed().as_secs(), rss_kib(pid)));
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }

    let failed = counts.failed.lock().unwrap().clone();
    let made: Vec<u64> = counts
        .made
        .iter()
        .map(|c| c.load(Ordering::Relaxed))
        .collect();
    // The server's RSS moves with the requests in flight (a 100 KB parse
    // answers about 500 KB of JSON) and the allocator's and SQLite's caches
    // (a band of about 15 % over any 10 s): compare the two halves of the
    // time after the warm-up by their medians.
    let peak = |from: u64, to: u64| {
        samples
            .iter()
            .filter(|(t, _)| (from..to).contains(t))
            .map(|&(_, r)| r)
            .max()
            .unwrap_or(0)
    };
    // And the median of each window, which a transient does not move.
    let median = |from: u64, to: u64| {
        let mut w: Vec<u64> = samples
            .iter()
            .filter(|(t, _)| (from..to).contains(t))
            .map(|&(_, r)| r)
            .collect();
        w.sort_unstable();
        w.get(w.len() / 2).copied().unwrap_or(0)
    };
    let mid = (warmup + seconds) / 2;
    let warm = median(warmup, mid);
    let end = median(mid, seconds + 1);
    let max_after = peak(warmup, seconds + 1);
    let mib = |k: u64| k as f64 / 1024.0;
    println!(
        "soak {seconds} s: outbound {}, inbound 997s {}, parse {}, validate {}, reads {}; \
         median RSS {:.1} MiB over {warmup}-{mid} s, {:.1} MiB over {mid}-{seconds} s ({:+.1} %), \
         {:.1} MiB at most after {warmup} s",
        made[OUTBOUND],
        made[INBOUND],
        made[PARSE],
        made[VALIDATE],
        made[READ],
        mib(warm),
        mib(end),
        (end as f64 / warm as f64 - 1.0) * 100.0,
        mib(max_after),
    );
    // The median and peak of each of about 15 windows (the README's figures).
    let width = (seconds / 15).max(10);
    let table: Vec<String> = (0..seconds)
        .step_by(width as usize)
        .map(|from| {
            format!(
                "{from}-{} s: {:.1}/{:.1}",
                from + width,
                mib(median(from, from + width)),
                mib(peak(from, from + width))
            )
        })
        .collect();
    println!("RSS median/peak (MiB) per {width} s: {}", table.join(", "));
    assert!(
        failed.is_empty(),
        "{} requests failed, e.g. {:?}",
        failed.len(),
        &failed[..failed.len().min(5)]
    );
    assert!(
        made[OUTBOUND] >= seconds * 10,
        "only {} documents sent",
        made[OUTBOUND]
    );
    assert!(made[INBOUND] > 0 && made[PARSE] > 0 && made[VALIDATE] > 0);

    // The documents answered during the run end acknowledged; every webhook is delivered.
    let st = wait_for(60, "the workers to catch up", || {
        let st = s.stats();
        let d = &st["documents"];
        let w = &st["webhooks"];
        (d["queued"] == 0 && d["validated"] == 0 && w["pending"] == 0).then_some(st)
    });
    assert_eq!(st["documents"]["failed"], 0, "{st}");
    assert_eq!(st["webhooks"]["failed"], 0, "{st}");
    assert_eq!(st["documents"]["acknowledged"], made[INBOUND], "{st}");
    assert!(
        st["webhooks"]["delivered"].as_u64().unwrap() >= 3 * made[INBOUND],
        "{st}"
    );
    // Last, so that a long run by hand checks everything else first.
    assert!(
        end * 10 < warm * 11,
        "RSS grew from a median of {warm} KiB over {warmup}-{mid} s to {end} KiB over {mid}-{seconds} s (>= 10 %): {table:?}"
    );
}
