//! The middleware of every API route: [`admit`] takes a request through the three steps
//! of [`super::capacity`] (its body's memory, its body's rate, its route group's slot) and
//! holds what it took until its response's last byte.

use super::capacity::{
    BODY_QUEUE, Capacity, Phase, READING_BODY, WORKING, group_of, overloaded, request_timeout,
};
use super::settings::{Kind, SMALL_BODY, STREAMED_BODY};
use crate::error::ApiError;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

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
/// module. Without the serving layer's [`super::serving::Serving`] (unit tests of the router) it
/// passes requests through.
pub async fn admit(req: Request, next: Next) -> Response {
    let Some(serving) = req
        .extensions()
        .get::<Arc<super::serving::Serving>>()
        .cloned()
    else {
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
    let streamed =
        kind == Kind::X12 && streamed(&path, &parts.headers, declared(&parts.headers, &body));
    let read = if streamed {
        stream_body(capacity, &mut held, &parts.headers, body).await
    } else {
        read_body(capacity, &phase, &mut held, &parts.headers, body).await
    };
    let body = match read {
        Ok(b) => b,
        Err(e) => return e.into_response(),
    };
    phase.0.store(WORKING, Relaxed);
    let small = !streamed && {
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
            gate.last_shed.store(super::clock::now_ms(), Relaxed);
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
        reserve_memory(capacity, held, reserve).await?;
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

/// Reserves `reserve` bytes of the body budget for the request (step 1 of the module).
async fn reserve_memory(
    capacity: &Capacity,
    held: &mut Held,
    reserve: usize,
) -> Result<(), ApiError> {
    let settings = &capacity.settings;
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
            capacity
                .body_last_shed
                .store(super::clock::now_ms(), Relaxed);
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
    Ok(())
}

/// Whether the route reads its body as it arrives ([`stream_body`]) rather than whole
/// beforehand: raw X12 to `POST /validate`, and to `POST /parse` when its size is
/// unknown or large (a JSON wrapper is read whole).
fn streamed(path: &str, headers: &axum::http::HeaderMap, size: Option<u64>) -> bool {
    let raw = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .is_some_and(|m| {
            matches!(
                m.as_str(),
                "application/edi-x12" | "text/plain" | "application/octet-stream"
            )
        });
    raw && (path.ends_with("/validate")
        || ((path.ends_with("/parse") || path.ends_with("/documents/inbound"))
            && crate::request::parse_streams(size)))
}

/// Admits a body its route reads as it arrives: over `max_body_bytes` by its declared
/// size, 413 at once; else it reserves what the route holds of it at once
/// ([`STREAMED_BODY`], or its declared size or the limit when smaller), not its size, and is handed
/// on [`Metered`](super::metered::Metered) (the same limit and minimum rate, enforced
/// on the bytes as the route reads them). What such a route holds beyond its buffer
/// follows its sets, not its size (the largest set, capped by `max_set_bytes`; a
/// summary per set), and is bounded by the x12 group's concurrency, since its body is
/// read only once it has its slot (the README's "Memory").
async fn stream_body(
    capacity: &Capacity,
    held: &mut Held,
    headers: &axum::http::HeaderMap,
    body: Body,
) -> Result<Body, ApiError> {
    let settings = &capacity.settings;
    let limit = settings.max_body_bytes;
    let size = declared(headers, &body);
    if size.is_some_and(|n| n > limit as u64) {
        return Err(ApiError::too_large(limit)
            .with_header(header::CONNECTION, HeaderValue::from_static("close")));
    }
    let reserve = size.map_or(limit, |n| n as usize).min(STREAMED_BODY);
    if reserve > SMALL_BODY {
        reserve_memory(capacity, held, reserve).await?;
    }
    Ok(Body::new(super::metered::Metered::new(
        body,
        limit,
        settings.body_grace,
        settings.body_min_rate,
    )))
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
