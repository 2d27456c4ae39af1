//! Where the time goes: process-wide counters of the store writer, the store
//! reads, the core calls and the outgoing HTTP of the workers.
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

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// A count of calls and the time spent in them.
#[derive(Debug)]
pub struct Timer {
    name: &'static str,
    count: AtomicU64,
    nanos: AtomicU64,
}

impl Timer {
    const fn new(name: &'static str) -> Timer {
        Timer {
            name,
            count: AtomicU64::new(0),
            nanos: AtomicU64::new(0),
        }
    }

    /// Adds one call that took `d`.
    pub fn add(&self, d: Duration) {
        self.count.fetch_add(1, Relaxed);
        self.nanos
            .fetch_add(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX), Relaxed);
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
