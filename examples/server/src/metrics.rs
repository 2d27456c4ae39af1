//! Where the time goes, and what the process did: process-wide counters of the store
//! writer, the store reads, the core calls and the outgoing HTTP of the workers
//! ([`Timer`]s), and the Prometheus families of the requests, the routing attempts and the
//! webhook deliveries ([`crate::exporter`]: `GET /metrics`).
//!
//! Every 10 s in which work was done (an API request, a document or a webhook
//! delivery moved by the workers: [`worked`]), the figures of the interval are
//! logged at `info` on the target `x12kit_server::metrics`
//! (`X12KIT_LOG=warn,x12kit_server::metrics=info` shows only them), and the
//! totals since start when the server stops. The workers' polls of an idle
//! server (a few store statements a second) are logged at `debug` only. The
//! writer's statements are also broken down by statement (its first words), so
//! that the round trips of each kind of work can be seen. Counting costs two
//! clock reads per counted call and an uncontended lock per writer statement.
//!
//! The log line and `/metrics` read the same counters: each [`Timer`] is exported as a
//! histogram (its count, its sum and its buckets).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

/// The upper bounds of the [`Timer`] buckets, in seconds (Prometheus' default buckets with
/// finer steps under 5 ms, where commits and statements fall).
pub const TIMER_BUCKETS: [f64; 15] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// A count of calls, the time spent in them, and how many fell in each bucket.
#[derive(Debug)]
pub struct Timer {
    name: &'static str,
    count: AtomicU64,
    nanos: AtomicU64,
    /// Calls per bucket of [`TIMER_BUCKETS`] (not cumulative), and over the last bound.
    buckets: [AtomicU64; TIMER_BUCKETS.len() + 1],
}

impl Timer {
    const fn new(name: &'static str) -> Timer {
        Timer {
            name,
            count: AtomicU64::new(0),
            nanos: AtomicU64::new(0),
            buckets: [const { AtomicU64::new(0) }; TIMER_BUCKETS.len() + 1],
        }
    }

    /// Adds one call that took `d`.
    pub fn add(&self, d: Duration) {
        self.count.fetch_add(1, Relaxed);
        self.nanos
            .fetch_add(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX), Relaxed);
        let s = d.as_secs_f64();
        let i = TIMER_BUCKETS.partition_point(|b| *b < s);
        self.buckets[i].fetch_add(1, Relaxed);
    }

    /// Runs `f`, counting it.
    pub fn time<T>(&self, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let r = f();
        self.add(start.elapsed());
        r
    }

    fn get(&self) -> (u64, u64) {
        (self.count.load(Relaxed), self.nanos.load(Relaxed))
    }

    /// (sum in seconds, count, [(upper bound, calls in that bucket)]) for the exporter.
    pub fn histogram(&self) -> (f64, u64, Vec<(f64, u64)>) {
        let mut buckets: Vec<(f64, u64)> = TIMER_BUCKETS
            .iter()
            .zip(&self.buckets)
            .map(|(b, n)| (*b, n.load(Relaxed)))
            .collect();
        buckets.push((
            f64::INFINITY,
            self.buckets[TIMER_BUCKETS.len()].load(Relaxed),
        ));
        // The count is the buckets' sum, so that the exposition is consistent even while
        // calls are being added.
        let count = buckets.iter().map(|b| b.1).sum();
        (self.nanos.load(Relaxed) as f64 / 1e9, count, buckets)
    }
}

/// Groups committed by the writer thread (time: the `COMMIT`, fsync included).
pub static COMMIT: Timer = Timer::new("writer commits");
/// Jobs run by the writer thread (time: the whole job, its statements included).
pub static JOB: Timer = Timer::new("writer jobs");
/// Statements run by the writer thread, savepoints included (time: each call, the round trip on PostgreSQL).
pub static STATEMENT: Timer = Timer::new("writer statements");
/// `Store::write` as its caller sees it: queued, run in a group, committed, answered.
pub static WRITE_WAIT: Timer = Timer::new("write waits");
/// `Store::read` calls (blocking pool, pooled connection).
pub static READ: Timer = Timer::new("store reads");
/// The core's render (in the writer thread, inside the accept's transaction).
pub static RENDER: Timer = Timer::new("render");
/// The core's validation of rendered documents (validate worker, blocking pool).
pub static VALIDATE: Timer = Timer::new("validate rendered");
/// The core's parse of `POST /parse` (blocking pool).
pub static PARSE: Timer = Timer::new("parse");
/// Partner transfers (HTTP or folder), retries included.
pub static ROUTE: Timer = Timer::new("partner transfers");
/// Webhook attempts (signing and HTTP).
pub static WEBHOOK: Timer = Timer::new("webhook attempts");

const ALL: [&Timer; 10] = [
    &COMMIT,
    &JOB,
    &STATEMENT,
    &WRITE_WAIT,
    &READ,
    &RENDER,
    &VALIDATE,
    &PARSE,
    &ROUTE,
    &WEBHOOK,
];

/// Every timer with its name in `/metrics` and its help (and, for the core's calls, the
/// value of the `operation` label).
pub const EXPORTED: [(&Timer, &str, Option<&str>, &str); 10] = [
    (
        &COMMIT,
        "store_commit_seconds",
        None,
        "Commits of the store writer's groups (fsync or PostgreSQL COMMIT included)",
    ),
    (
        &JOB,
        "store_job_seconds",
        None,
        "Jobs run by the store writer, their statements included",
    ),
    (
        &STATEMENT,
        "store_statement_seconds",
        None,
        "Statements run by the store writer (round trips on PostgreSQL)",
    ),
    (
        &WRITE_WAIT,
        "store_write_wait_seconds",
        None,
        "Store writes as their callers see them: queued, run in a group, committed",
    ),
    (&READ, "store_read_seconds", None, "Store reads."),
    (
        &RENDER,
        "core_seconds",
        Some("render"),
        "Calls into the x12kit core",
    ),
    (
        &VALIDATE,
        "core_seconds",
        Some("validate"),
        "Calls into the x12kit core",
    ),
    (
        &PARSE,
        "core_seconds",
        Some("parse"),
        "Calls into the x12kit core",
    ),
    (
        &ROUTE,
        "partner_transfer_seconds",
        None,
        "Transfers of documents to trading partners, retries included",
    ),
    (
        &WEBHOOK,
        "webhook_attempt_seconds",
        None,
        "Webhook delivery attempts (signing and HTTP)",
    ),
];

/// The labels of the request families: the method (one of the usual ones, else `other`),
/// the route as the router matched it (`/api/v1/transactions/{id}`, never the raw path;
/// `unmatched` for a 404 of no route), and the status.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// `GET`, `POST`, ... or `other`.
    pub method: &'static str,
    /// The matched route.
    pub route: String,
    /// The HTTP status code.
    pub status: u16,
}

/// Requests answered, by method, route and status.
pub static HTTP_REQUESTS: LazyLock<Family<RequestLabels, Counter>> = LazyLock::new(Family::default);

/// The upper bounds of the request latency buckets, in seconds (up to the default request
/// timeout).
pub const REQUEST_BUCKETS: [f64; 14] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0,
];

/// Time from a request's head to its answer's head, by method, route and status.
pub static HTTP_DURATION: LazyLock<Family<RequestLabels, Histogram>> =
    LazyLock::new(|| Family::new_with_constructor(|| Histogram::new(REQUEST_BUCKETS)));

/// The labels of an outcome: what it went through and how it ended.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabels {
    /// The partner transport (`http`, `directory`, `sftp`, `as2`, `none`), or for webhook
    /// deliveries always `http`.
    pub transport: &'static str,
    /// How it ended (a fixed set of words per family).
    pub result: &'static str,
}

/// Routing attempts (one claim of a document, the transport's retries within it), by
/// transport and result (`routed`, `failed`).
pub static ROUTING: LazyLock<Family<OutcomeLabels, Counter>> = LazyLock::new(Family::default);

/// Webhook delivery attempts by result (`delivered`, `http_error`, `timeout`,
/// `connection_failed`, `error`, `not_sent`).
pub static WEBHOOK_DELIVERIES: LazyLock<Family<OutcomeLabels, Counter>> =
    LazyLock::new(Family::default);

/// Counts one routing attempt.
pub fn routing_attempt(transport: &'static str, result: &'static str) {
    ROUTING
        .get_or_create(&OutcomeLabels { transport, result })
        .inc();
}

/// Counts one webhook delivery attempt.
pub fn webhook_attempt(result: &'static str) {
    WEBHOOK_DELIVERIES
        .get_or_create(&OutcomeLabels {
            transport: "http",
            result,
        })
        .inc();
}

/// A method as a label: the usual ones by name, any other (a client may send any token)
/// as `other`, so that the label's values stay few.
pub fn method_label(m: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    match *m {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// Counts one answered request.
pub fn request(method: &'static str, route: &str, status: u16, took: Duration) {
    let labels = RequestLabels {
        method,
        route: route.to_string(),
        status,
    };
    HTTP_REQUESTS.get_or_create(&labels).inc();
    HTTP_DURATION
        .get_or_create(&labels)
        .observe(took.as_secs_f64());
}

/// Work done: API requests, and documents, deliveries and inbox files the workers moved.
static WORK: AtomicU64 = AtomicU64::new(0);

/// Counts `n` pieces of work (what makes an interval's figures worth a line at `info`).
pub fn worked(n: u64) {
    WORK.fetch_add(n, Relaxed);
}

/// Writer statements by their first words: (count, nanoseconds).
static STATEMENTS: Mutex<Option<HashMap<String, (u64, u64)>>> = Mutex::new(None);

/// A short name for a statement: its first five words.
fn label(sql: &str) -> String {
    sql.split_whitespace().take(5).collect::<Vec<_>>().join(" ")
}

/// Counts one writer statement.
pub fn statement(sql: &str, d: Duration) {
    STATEMENT.add(d);
    if let Ok(mut m) = STATEMENTS.lock() {
        let e = m
            .get_or_insert_with(HashMap::new)
            .entry(label(sql))
            .or_default();
        e.0 += 1;
        e.1 += u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
    }
}

#[derive(Debug, Default, Clone)]
struct Snapshot {
    timers: Vec<(u64, u64)>,
    statements: HashMap<String, (u64, u64)>,
}

fn snapshot() -> Snapshot {
    Snapshot {
        timers: ALL.iter().map(|t| t.get()).collect(),
        statements: STATEMENTS
            .lock()
            .ok()
            .and_then(|m| m.clone())
            .unwrap_or_default(),
    }
}

fn ms(nanos: u64) -> f64 {
    nanos as f64 / 1e6
}

/// The figures between two snapshots, as one line.
fn describe(now: &Snapshot, before: &Snapshot) -> Option<String> {
    let mut parts = Vec::new();
    for (i, t) in ALL.iter().enumerate() {
        let (c0, n0) = before.timers.get(i).copied().unwrap_or_default();
        let (c1, n1) = now.timers[i];
        let (c, n) = (c1.saturating_sub(c0), n1.saturating_sub(n0));
        if c > 0 {
            parts.push(format!(
                "{}: {c} in {:.0} ms (mean {:.3} ms)",
                t.name,
                ms(n),
                ms(n) / c as f64
            ));
        }
    }
    if parts.is_empty() {
        return None;
    }
    let mut rows: Vec<(String, u64, u64)> = now
        .statements
        .iter()
        .map(|(k, (c, n))| {
            let (c0, n0) = before.statements.get(k).copied().unwrap_or_default();
            (k.clone(), c.saturating_sub(c0), n.saturating_sub(n0))
        })
        .filter(|r| r.1 > 0)
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.2));
    let top: Vec<String> = rows
        .iter()
        .take(12)
        .map(|(k, c, n)| format!("[{k}] {c} in {:.0} ms", ms(*n)))
        .collect();
    if !top.is_empty() {
        parts.push(format!("writer statements by kind: {}", top.join(", ")));
    }
    Some(parts.join("; "))
}

/// Logs the figures of each 10 s: at `info` when work was done in them, else (the
/// workers' idle polls) at `debug`. Runs for the life of the process.
pub async fn report_loop() {
    let mut before = snapshot();
    let mut work_before = WORK.load(Relaxed);
    loop {
        tokio::time::sleep(Duration::from_secs(10)).await;
        let now = snapshot();
        let work = WORK.load(Relaxed);
        match interval_line(&now, &before, work != work_before) {
            Some((true, line)) => tracing::info!(target: "x12kit_server::metrics", "{line}"),
            Some((false, line)) => tracing::debug!(target: "x12kit_server::metrics", "{line}"),
            None => {}
        }
        before = now;
        work_before = work;
    }
}

/// The line of an interval and whether it is worth `info` (work was done in it),
/// or none when nothing was counted at all.
fn interval_line(now: &Snapshot, before: &Snapshot, worked: bool) -> Option<(bool, String)> {
    let line = describe(now, before)?;
    Some(if worked {
        (true, format!("last 10 s: {line}"))
    } else {
        (false, format!("last 10 s (idle polls only): {line}"))
    })
}

/// Logs the totals since start (at shutdown).
pub fn log_totals() {
    let empty = Snapshot {
        timers: vec![(0, 0); ALL.len()],
        statements: HashMap::new(),
    };
    if let Some(line) = describe(&snapshot(), &empty) {
        tracing::info!(target: "x12kit_server::metrics", "since start: {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_the_difference_of_two_snapshots() {
        let mut before = Snapshot {
            timers: vec![(0, 0); ALL.len()],
            statements: HashMap::new(),
        };
        before
            .statements
            .insert("SAVEPOINT job".into(), (10, 1_000_000));
        let mut now = before.clone();
        now.timers[0] = (4, 8_000_000);
        now.statements
            .insert("SAVEPOINT job".into(), (30, 5_000_000));
        let line = describe(&now, &before).unwrap_or_default();
        assert_eq!(
            line,
            "writer commits: 4 in 8 ms (mean 2.000 ms); writer statements by kind: [SAVEPOINT job] 20 in 4 ms"
        );
        assert_eq!(describe(&before, &before), None);
        // Idle polls alone: a line at debug, not info; nothing counted: no line.
        assert_eq!(
            interval_line(&now, &before, false),
            Some((false, format!("last 10 s (idle polls only): {line}")))
        );
        assert_eq!(
            interval_line(&now, &before, true),
            Some((true, format!("last 10 s: {line}")))
        );
        assert_eq!(interval_line(&before, &before, true), None);
        assert_eq!(
            label("UPDATE documents\n   SET lease_owner = ?1 WHERE x"),
            "UPDATE documents SET lease_owner ="
        );
    }
}
