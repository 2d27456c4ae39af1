//! Bounded work: what a request holds, from its body to its last response byte.
//!
//! Every API request passes, after authentication and its rate limit, through
//! [`super::admit::admit`], in three steps:
//!
//! 1. **Its body's memory.** A body above [`SMALL_BODY`](super::settings::SMALL_BODY) reserves its declared size (a
//!    body of unknown length: the largest allowed) from one budget of
//!    `body_memory_bytes` before a byte of it is read; while the budget is spent it
//!    waits, at most `queue_timeout_ms`, then is answered 503 `OVERLOADED`. Waiting
//!    costs nothing but the socket: its body stays in the client and the kernel. A body
//!    its route reads as it arrives (raw X12 to `/validate`, and to `/parse` and
//!    `/documents/inbound` when large or of unknown size) reserves only what the route
//!    holds of it at once, [`STREAMED_BODY`](super::settings::STREAMED_BODY) (2 MiB),
//!    and is read only once it has its route group's slot (step 3), so what it holds
//!    beyond that (its largest set, its sets' summaries) is bounded by that group's
//!    concurrency.
//! 2. **Its body, at a minimum rate.** After `body_grace_ms`, the body must have come at
//!    `body_min_bytes_per_second` on average, or 408 `REQUEST_TIMEOUT` (a slow-body client
//!    holds only what it has sent, and not for long). Over `max_body_bytes`: 413
//!    (counted on the bytes read, for a streamed body too).
//! 3. **Its route group.** Each group (x12, outbound, reads, other) handles `concurrency`
//!    requests at once; `queue` more may wait, at most `queue_timeout_ms`; beyond that,
//!    503 `OVERLOADED` with `Retry-After` (load shedding). Requests with a body of at
//!    most [`SMALL_BODY`](super::settings::SMALL_BODY) (and those without one) have a lane of their own in each group,
//!    with the same figures, so that a queue of large files never delays a small request.
//!
//! The body's reservation and the group's slot are held until the response's last byte
//! has been handed to the socket (the response body owns them), so the result of a
//! large parse being sent still counts. CPU is bounded inside the groups, by the core
//! slots of `request.rs` (one core call per core on the blocking pool). The bound on memory
//! this gives is in the README ("Memory").

use super::settings::{Kind, Resolved};
use crate::error::{ApiError, Detail};
use axum::http::{HeaderValue, StatusCode, header};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering::Relaxed};
use tokio::sync::Semaphore;

/// How long after a refusal `/readyz` still reports it.
const SHED_MEMORY_MS: u64 = 5_000;

/// A route group's slots and the requests waiting for them (one lane of the group).
#[derive(Debug)]
pub(super) struct Gate {
    pub(super) kind: Kind,
    /// The lane of requests whose body is at most [`SMALL_BODY`](super::settings::SMALL_BODY).
    pub(super) small: bool,
    pub(super) slots: Arc<Semaphore>,
    pub(super) concurrency: usize,
    pub(super) queue: usize,
    pub(super) waiting: AtomicUsize,
    pub(super) shed: AtomicU64,
    pub(super) last_shed: AtomicU64,
}

/// The capacity of the process: the body budget and the route groups.
#[derive(Debug)]
pub struct Capacity {
    pub(super) settings: Resolved,
    pub(super) body_budget: Arc<Semaphore>,
    pub(super) body_waiting: AtomicUsize,
    pub(super) body_shed: AtomicU64,
    pub(super) body_last_shed: AtomicU64,
    /// Per group (in the order of [`Kind::ALL`]): the lane of large bodies, then the lane
    /// of small ones (and of requests without a body), so that a queue of large files never
    /// delays a small request.
    pub(super) gates: [[Gate; 2]; 4],
}

/// Where a request is, for the whole-request timeout's answer (408 while its body was
/// still arriving, 503 after).
#[derive(Debug, Clone, Default)]
pub struct Phase(pub Arc<AtomicU8>);

/// [`Phase`]: reading the body.
pub const READING_BODY: u8 = 1;
/// [`Phase`]: the body is read (waiting for a slot, or being handled).
pub const WORKING: u8 = 2;

/// The most that may wait for the body budget at once (each costs only its socket).
pub(super) const BODY_QUEUE: usize = 1024;

impl Capacity {
    /// The capacity of `settings`.
    pub fn new(settings: &Resolved) -> Capacity {
        let gate = |i: usize, small: bool| {
            let (concurrency, queue) = settings.groups[i];
            Gate {
                kind: Kind::ALL[i],
                small,
                slots: Arc::new(Semaphore::new(concurrency)),
                concurrency,
                queue,
                waiting: AtomicUsize::new(0),
                shed: AtomicU64::new(0),
                last_shed: AtomicU64::new(0),
            }
        };
        Capacity {
            settings: settings.clone(),
            body_budget: Arc::new(Semaphore::new(settings.body_memory_bytes)),
            body_waiting: AtomicUsize::new(0),
            body_shed: AtomicU64::new(0),
            body_last_shed: AtomicU64::new(0),
            gates: [0, 1, 2, 3].map(|i| [gate(i, false), gate(i, true)]),
        }
    }

    /// Per route group lane (for `/metrics`): (group, `small` or `large` bodies, requests
    /// being handled, requests waiting, requests refused since start).
    pub fn lanes(&self) -> Vec<(&'static str, &'static str, usize, usize, u64)> {
        self.gates
            .iter()
            .flatten()
            .map(|g| {
                (
                    g.kind.name(),
                    if g.small { "small" } else { "large" },
                    g.concurrency - g.slots.available_permits(),
                    g.waiting.load(Relaxed),
                    g.shed.load(Relaxed),
                )
            })
            .collect()
    }

    /// What is shedding now (refused work in the last few seconds), for `/readyz`: one
    /// detail per route group (and the body budget), empty when nothing is.
    pub fn shedding(&self) -> Vec<Detail> {
        let now = super::clock::now_ms();
        let recent = |t: &AtomicU64| {
            let t = t.load(Relaxed);
            t != 0 && now.saturating_sub(t) < SHED_MEMORY_MS
        };
        let mut out = Vec::new();
        for g in self.gates.iter().flatten() {
            if recent(&g.last_shed) {
                out.push(Detail::error(
                    "SHEDDING",
                    g.kind.name(),
                    format!(
                        "route group {} ({} bodies): {} at once, {} waiting; {} refused since start",
                        g.kind.name(),
                        if g.small { "small" } else { "large" },
                        g.concurrency - g.slots.available_permits(),
                        g.waiting.load(Relaxed),
                        g.shed.load(Relaxed)
                    ),
                ));
            }
        }
        if recent(&self.body_last_shed) {
            out.push(Detail::error(
                "SHEDDING",
                "body_memory_bytes",
                format!(
                    "request bodies: {} of {} bytes reserved, {} waiting; {} refused since start",
                    self.settings.body_memory_bytes - self.body_budget.available_permits(),
                    self.settings.body_memory_bytes,
                    self.body_waiting.load(Relaxed),
                    self.body_shed.load(Relaxed)
                ),
            ));
        }
        out
    }
}

/// The route group of a path, or `None` for the routes that are never limited.
pub fn group_of(path: &str) -> Option<Kind> {
    let rest = path
        .strip_prefix("/api/v1")
        .or_else(|| path.strip_prefix("/v1"))
        .or_else(|| path.strip_prefix("/api"))?;
    if rest == "/openapi.json" {
        return None;
    }
    let mut parts = rest.trim_start_matches('/').split('/');
    Some(match (parts.next(), parts.next()) {
        (Some("parse" | "validate"), _) | (Some("documents"), Some("inbound")) => Kind::X12,
        // CSV intake renders documents as the outbound route does.
        (Some("documents"), Some("outbound")) | (Some("upload"), _) => Kind::Outbound,
        (Some("transactions" | "stats"), _) => Kind::Reads,
        _ => Kind::Other,
    })
}

fn retry_after(settings: &Resolved) -> u64 {
    settings.queue_timeout.as_secs().max(1)
}

/// 503 `OVERLOADED` with `Retry-After`.
pub fn overloaded(settings: &Resolved, what: String) -> ApiError {
    let wait = retry_after(settings);
    let mut e = ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "OVERLOADED",
        format!("the server is at capacity ({what}); retry after {wait} seconds"),
    )
    .with_header(header::RETRY_AFTER, HeaderValue::from(wait));
    e.extra = Some(("retryAfterSeconds", serde_json::json!(wait)));
    e
}

/// 408 `REQUEST_TIMEOUT`, closing the connection (the rest of the body is not read).
pub fn request_timeout(message: String) -> ApiError {
    ApiError::new(StatusCode::REQUEST_TIMEOUT, "REQUEST_TIMEOUT", message)
        .with_header(header::CONNECTION, HeaderValue::from_static("close"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_fall_into_their_groups_and_probes_into_none() {
        assert_eq!(group_of("/api/v1/parse"), Some(Kind::X12));
        assert_eq!(group_of("/v1/validate"), Some(Kind::X12));
        assert_eq!(group_of("/api/v1/documents/inbound"), Some(Kind::X12));
        assert_eq!(group_of("/v1/documents/outbound"), Some(Kind::Outbound));
        assert_eq!(group_of("/api/v1/transactions/doc_1"), Some(Kind::Reads));
        assert_eq!(group_of("/api/v1/stats"), Some(Kind::Reads));
        assert_eq!(group_of("/api/v1/nope"), Some(Kind::Other));
        assert_eq!(group_of("/api/settings/partners"), Some(Kind::Other));
        assert_eq!(group_of("/api/upload"), Some(Kind::Outbound));
        assert_eq!(group_of("/api/v1/openapi.json"), None);
        assert_eq!(group_of("/healthz"), None);
        assert_eq!(group_of("/readyz"), None);
    }
}
