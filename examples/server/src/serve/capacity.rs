//! Bounded work: what a request holds, from its body to its last response byte.
//!
//! Every API request passes, after authentication and its rate limit, through
//! [`admit`], in three steps:
//!
//! 1. **Its body's memory.** A body above [`SMALL_BODY`] reserves its declared size (a
//!    body of unknown length: the largest allowed) from one budget of
//!    `body_memory_bytes` before a byte of it is read; while the budget is spent it
//!    waits, at most `queue_timeout_ms`, then is answered 503 `OVERLOADED`. Waiting
//!    costs nothing but the socket: its body stays in the client and the kernel.
//! 2. **Its body, at a minimum rate.** After `body_grace_ms`, the body must have come at
//!    `body_min_bytes_per_second` on average, or 408 `REQUEST_TIMEOUT` (a slow-body client
//!    holds only what it has sent, and not for long). Over `max_body_bytes`: 413.
//! 3. **Its route group.** Each group (x12, outbound, reads, other) handles `concurrency`
//!    requests at once; `queue` more may wait, at most `queue_timeout_ms`; beyond that,
//!    503 `OVERLOADED` with `Retry-After` (load shedding). Requests with a body of at
//!    most [`SMALL_BODY`] (and those without one) have a lane of their own in each group,
//!    with the same figures, so that a queue of large files never delays a small request.
//!
//! The body's reservation and the group's slot are held until the response's last byte
//! has been handed to the socket (the response body owns them), so the result of a
//! large parse being sent still counts. CPU is bounded inside the groups, by the core
//! slots of `api.rs` (one core call per core on the blocking pool). The bound on memory
//! this gives is in the README ("Memory").

use super::settings::{Kind, Resolved, SMALL_BODY};
use crate::error::{ApiError, Detail};
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How long after a refusal `/readyz` still reports it.
const SHED_MEMORY_MS: u64 = 5_000;

/// A route group's slots and the requests waiting for them (one lane of the group).
#[derive(Debug)]
struct Gate {
    kind: Kind,
    /// The lane of requests whose body is at most [`SMALL_BODY`].
    small: bool,
    slots: Arc<Semaphore>,
    concurrency: usize,
    queue: usize,
    waiting: AtomicUsize,
    shed: AtomicU64,
    last_shed: AtomicU64,
}

/// The capacity of the process: the body budget and the route groups.
#[derive(Debug)]
pub struct Capacity {
    settings: Resolved,
    body_budget: Arc<Semaphore>,
    body_waiting: AtomicUsize,
    body_shed: AtomicU64,
    body_last_shed: AtomicU64,
    /// Per group (in the order of [`Kind::ALL`]): the lane of large bodies, then the lane
    /// of small ones (and of requests without a body), so that a queue of large files never
    /// delays a small request.
    gates: [[Gate; 2]; 4],
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
const BODY_QUEUE: usize = 1024;

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
        let now = super::now_ms();
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

/// Takes a slot of `semaphore` (`n` permits), waiting at most `timeout` and only if fewer
/// than `queue` others wait.
async fn enter(
    semaphore: &Arc<Semaphore>,
    n: u32,
    waiting: &AtomicUsize,
    queue: usize,
    timeout: Duration,
) -> Option<OwnedSemaphorePermit> {
    if let Ok(p) = semaphore.clone().try_acquire_many_owned(n) {
        return Some(p);
    }
    if waiting.fetch_add(1, Relaxed) >= queue {
        waiting.fetch_sub(1, Relaxed);
        return None;
    }
    let got = tokio::time::timeout(timeout, semaphore.clone().acquire_many_owned(n)).await;
    waiting.fetch_sub(1, Relaxed);
    got.ok().and_then(Result::ok)
}

/// What a request holds until its response body is dropped.
#[derive(Debug, Default)]
struct Held {
    _body: Option<OwnedSemaphorePermit>,
    _slot: Option<OwnedSemaphorePermit>,
}

/// The middleware of every API route (after authentication and the rate limit); see the
/// module. Without the serving layer's [`super::Serving`] (unit tests of the router) it
/// passes requests through.
pub async fn admit(req: Request, next: Next) -> Response {
    let Some(serving) = req.extensions().get::<Arc<super::Serving>>().cloned() else {
        return next.run(req).await;
    };
    // The full path: inside the nested API router the URI has lost its prefix.
    let path = match req.extensions().get::<axum::extract::OriginalUri>() {
        Some(o) => o.0.path().to_string(),
        None => req.uri().path().to_string(),
    };
    let Some(kind) = group_of(&path) else {
        return next.run(req).await;
    };
    let capacity = &serving.capacity;
    let settings = &capacity.settings;
    let phase = req.extensions().get::<Phase>().cloned().unwrap_or_default();
    let mut held = Held::default();
    let (parts, body) = req.into_parts();
    let body = match read_body(capacity, &phase, &mut held, &parts.headers, body).await {
        Ok(b) => b,
        Err(e) => return e.into_response(),
    };
    phase.0.store(WORKING, Relaxed);
    let small = {
        use http_body::Body as _;
        body.size_hint()
            .exact()
            .is_some_and(|n| n <= SMALL_BODY as u64)
    };
    let gate = &capacity.gates[kind as usize][usize::from(small)];
    match enter(
        &gate.slots,
        1,
        &gate.waiting,
        gate.queue,
        settings.queue_timeout,
    )
    .await
    {
        Some(slot) => held._slot = Some(slot),
        None => {
            gate.shed.fetch_add(1, Relaxed);
            gate.last_shed.store(super::now_ms(), Relaxed);
            return overloaded(
                settings,
                format!(
                    "{} requests of the {} group at once and {} waiting",
                    gate.concurrency,
                    kind.name(),
                    gate.queue
                ),
            )
            .into_response();
        }
    }
    let response = next.run(Request::from_parts(parts, body)).await;
    response.map(|b| {
        Body::new(Holding {
            inner: b,
            held: Some(held),
        })
    })
}

/// The body's size, known when the request declares it (`Content-Length`).
fn declared(headers: &axum::http::HeaderMap, body: &Body) -> Option<u64> {
    use http_body::Body as _;
    if headers.contains_key(header::CONTENT_LENGTH) || body.is_end_stream() {
        body.size_hint().exact()
    } else {
        None
    }
}

/// Reserves and reads the body (steps 1 and 2 of the module).
async fn read_body(
    capacity: &Capacity,
    phase: &Phase,
    held: &mut Held,
    headers: &axum::http::HeaderMap,
    mut body: Body,
) -> Result<Body, ApiError> {
    let settings = &capacity.settings;
    let limit = settings.max_body_bytes;
    let size = declared(headers, &body);
    if size == Some(0) {
        return Ok(body);
    }
    if size.is_some_and(|n| n > limit as u64) {
        return Err(ApiError::too_large(limit)
            .with_header(header::CONNECTION, HeaderValue::from_static("close")));
    }
    let reserve = size.map_or(limit, |n| n as usize);
    if reserve > SMALL_BODY {
        match enter(
            &capacity.body_budget,
            reserve as u32,
            &capacity.body_waiting,
            BODY_QUEUE,
            settings.queue_timeout,
        )
        .await
        {
            Some(p) => held._body = Some(p),
            None => {
                capacity.body_shed.fetch_add(1, Relaxed);
                capacity.body_last_shed.store(super::now_ms(), Relaxed);
                return Err(overloaded(
                    settings,
                    format!(
                        "{} bytes of request bodies in memory",
                        settings.body_memory_bytes
                    ),
                )
                .with_header(header::CONNECTION, HeaderValue::from_static("close")));
            }
        }
    }
    phase.0.store(READING_BODY, Relaxed);
    let started = Instant::now();
    let mut buf: Vec<u8> = Vec::with_capacity(reserve.min(limit));
    loop {
        // By `grace + received / rate` after the start, the next bytes must have come.
        let allowed = settings.body_grace
            + Duration::from_secs_f64(buf.len() as f64 / settings.body_min_rate.max(1) as f64);
        let frame = match tokio::time::timeout_at((started + allowed).into(), body.frame()).await {
            Ok(Some(Ok(f))) => f,
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                return Err(ApiError::bad_request(
                    "INVALID_BODY",
                    format!("the request body could not be read: {e}"),
                )
                .with_header(header::CONNECTION, HeaderValue::from_static("close")));
            }
            Err(_) => {
                return Err(request_timeout(format!(
                    "the request body arrived too slowly: {} bytes in {:.1} s; after {} s it must come at {} bytes per second at least",
                    buf.len(),
                    started.elapsed().as_secs_f64(),
                    settings.body_grace.as_secs_f64(),
                    settings.body_min_rate
                )));
            }
        };
        if let Ok(data) = frame.into_data() {
            if buf.len() + data.len() > limit {
                return Err(ApiError::too_large(limit)
                    .with_header(header::CONNECTION, HeaderValue::from_static("close")));
            }
            buf.extend_from_slice(&data);
        }
    }
    if let (Some(p), true) = (held._body.as_mut(), buf.len() < reserve) {
        // A body of unknown length gives back what it did not use.
        drop(p.split(reserve - buf.len()));
    }
    Ok(Body::from(Bytes::from(buf)))
}

/// A response body that holds the request's reservation and slot until it is dropped.
struct Holding {
    inner: Body,
    held: Option<Held>,
}

impl http_body::Body for Holding {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let r = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(None) = r {
            // Sent: free the slot now rather than when hyper drops the body.
            self.held = None;
        }
        r
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
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

    #[tokio::test]
    async fn a_full_queue_refuses_at_once_and_a_wait_ends_at_the_timeout() {
        let s = Arc::new(Semaphore::new(1));
        let waiting = AtomicUsize::new(0);
        let held = enter(&s, 1, &waiting, 1, Duration::from_millis(10))
            .await
            .unwrap();
        let started = Instant::now();
        assert!(
            enter(&s, 1, &waiting, 1, Duration::from_millis(50))
                .await
                .is_none()
        );
        assert!(started.elapsed() >= Duration::from_millis(50));
        // One waits; the next finds the queue full and is refused without waiting.
        let (a, b) = tokio::join!(
            enter(&s, 1, &waiting, 1, Duration::from_millis(300)),
            async {
                tokio::time::sleep(Duration::from_millis(20)).await;
                let t = Instant::now();
                let r = enter(&s, 1, &waiting, 1, Duration::from_secs(5)).await;
                (r.is_none(), t.elapsed())
            }
        );
        assert!(a.is_none());
        assert!(b.0 && b.1 < Duration::from_millis(100), "{b:?}");
        drop(held);
        assert!(
            enter(&s, 1, &waiting, 0, Duration::from_millis(1))
                .await
                .is_some()
        );
    }
}
