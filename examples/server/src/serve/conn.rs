//! One connection: hyper's HTTP/1 with the header timeout and header limits, a
//! watchdog for idle connections and for clients that stop reading their response,
//! the whole-request timeout, `Connection: close` after the last request a connection
//! may make, and a lingering close (so that a client still sending a body it will not
//! be asked for reads the answer instead of a reset).

use super::capacity::{Phase, READING_BODY};
use super::clock::now_ms;
use super::serving::Serving;
use crate::error::ApiError;
use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tower::ServiceExt;

/// What the watchdog reads of a connection.
#[derive(Debug, Default)]
pub struct Activity {
    /// [`now_ms`] of the last byte read or written.
    last_io: AtomicU64,
    /// The last write found the socket full (the client is not reading).
    write_blocked: AtomicBool,
    /// Requests being handled (their handler has not answered yet).
    in_flight: AtomicUsize,
    /// Requests received on the connection.
    requests: AtomicU64,
}

/// The socket, noting every byte that moves (for the watchdog).
pub struct Tracked<I> {
    inner: I,
    activity: Arc<Activity>,
}

impl<I: AsyncRead + Unpin> AsyncRead for Tracked<I> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.last_io.store(now_ms(), Relaxed);
        }
        r
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Tracked<I> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.note(&r);
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.note(&r);
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

impl<I> Tracked<I> {
    fn note(&self, r: &Poll<std::io::Result<usize>>) {
        match r {
            Poll::Pending => self.activity.write_blocked.store(true, Relaxed),
            Poll::Ready(Ok(n)) if *n > 0 => {
                self.activity.write_blocked.store(false, Relaxed);
                self.activity.last_io.store(now_ms(), Relaxed);
            }
            Poll::Ready(_) => {}
        }
    }
}

/// The requests of one connection: each gets the client's address, a request id, the
/// whole-request timeout and, when it is the connection's last, `Connection: close`.
#[derive(Clone)]
struct ConnService {
    router: Router,
    serving: Arc<Serving>,
    activity: Arc<Activity>,
    peer: SocketAddr,
    /// Plain or TLS.
    transport: Transport,
}

/// What a connection runs over.
#[derive(Debug, Clone)]
pub enum Transport {
    /// Plain TCP.
    Plain,
    /// TLS, and the `Strict-Transport-Security` value of its answers (none: not sent).
    Tls(Option<HeaderValue>),
}

/// A request id (UUIDv7) for a request that has none, so that an answer made here (a
/// timeout) and the router's logs name the same request.
fn request_id() -> HeaderValue {
    let mut buf = [0u8; uuid::fmt::Hyphenated::LENGTH];
    let id = uuid::Uuid::now_v7().hyphenated().encode_lower(&mut buf);
    HeaderValue::from_str(id).unwrap_or(HeaderValue::from_static("-"))
}

struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Relaxed);
        self.0.last_io.store(now_ms(), Relaxed);
    }
}

impl hyper::service::Service<Request<Incoming>> for ConnService {
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn call(&self, req: Request<Incoming>) -> Self::Future {
        self.activity.in_flight.fetch_add(1, Relaxed);
        let guard = InFlight(self.activity.clone());
        let n = self.activity.requests.fetch_add(1, Relaxed) + 1;
        let last = n >= self.serving.settings.max_requests_per_connection;
        let mut req = req.map(Body::new);
        let id = match req.headers().get("x-request-id") {
            Some(v) => v.clone(),
            None => {
                let v = request_id();
                req.headers_mut().insert("x-request-id", v.clone());
                v
            }
        };
        let phase = Phase::default();
        let client = crate::client::resolve(
            self.peer,
            matches!(self.transport, Transport::Tls(_)),
            req.headers(),
            &self.serving.settings.proxies,
        );
        let note = super::observe::Note::default();
        req.extensions_mut().insert(client);
        req.extensions_mut().insert(note.clone());
        req.extensions_mut().insert(ConnectInfo(self.peer));
        req.extensions_mut().insert(self.serving.clone());
        req.extensions_mut().insert(phase.clone());
        let router = self.router.clone();
        let timeout = self.serving.settings.request_timeout;
        let started = std::time::Instant::now();
        let hsts = match &self.transport {
            Transport::Tls(h) => h.clone(),
            Transport::Plain => None,
        };
        Box::pin(async move {
            let method = req.method().clone();
            let path = req.uri().path().to_string();
            let mut response = match tokio::time::timeout(timeout, router.oneshot(req)).await {
                Ok(Ok(r)) => r,
                Ok(Err(e)) => match e {},
                Err(_) => {
                    tracing::warn!(%method, %path, request_id = ?id, "request timed out");
                    let mut r =
                        timed_out(phase.0.load(Relaxed) == READING_BODY, timeout).into_response();
                    r.headers_mut().insert("x-request-id", id.clone());
                    r
                }
            };
            if let Some(hsts) = &hsts {
                response
                    .headers_mut()
                    .entry(header::STRICT_TRANSPORT_SECURITY)
                    .or_insert(hsts.clone());
            }
            super::observe::answered(
                &note,
                &method,
                response.status().as_u16(),
                started.elapsed(),
                id.to_str().unwrap_or("-"),
                client.address,
            );
            if last {
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            drop(guard);
            Ok(response)
        })
    }
}

fn timed_out(reading_body: bool, timeout: Duration) -> ApiError {
    let s = timeout.as_secs_f64();
    if reading_body {
        super::capacity::request_timeout(format!(
            "the request body did not arrive within {s} s (the whole request's time)"
        ))
    } else {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "SERVER_TIMEOUT",
            format!("the server could not answer within {s} s; retry later"),
        )
        .with_header(header::RETRY_AFTER, HeaderValue::from(1u64))
    }
}

/// Why the watchdog closes a connection, if it does now; else when to look again.
fn verdict(a: &Activity, serving: &Serving, now: u64) -> Result<u64, &'static str> {
    let s = &serving.settings;
    let last = a.last_io.load(Relaxed);
    let quiet = now.saturating_sub(last);
    if a.write_blocked.load(Relaxed) {
        let limit = s.send_timeout.as_millis() as u64;
        return if quiet >= limit {
            Err("the client stopped reading its response")
        } else {
            Ok(last + limit)
        };
    }
    // A write may block before the next look: look again within the send timeout.
    let step = s.keep_alive_idle.min(s.send_timeout).as_millis() as u64;
    if a.in_flight.load(Relaxed) > 0 {
        // The request timeout bounds a request being handled.
        return Ok(now + step);
    }
    let limit = s.keep_alive_idle.as_millis() as u64;
    if quiet >= limit {
        Err("idle")
    } else {
        Ok((last + limit).min(last + step))
    }
}

/// Serves one admitted connection until it ends, the watchdog closes it, or shutdown.
pub async fn serve<I>(
    io: I,
    peer: SocketAddr,
    transport: Transport,
    router: Router,
    serving: Arc<Serving>,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let activity = Arc::new(Activity::default());
    activity.last_io.store(now_ms(), Relaxed);
    let s = &serving.settings;
    let io = Tracked {
        inner: io,
        activity: activity.clone(),
    };
    let service = ConnService {
        router,
        serving: serving.clone(),
        activity: activity.clone(),
        peer,
        transport,
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(s.header_read_timeout)
        .max_buf_size(s.max_header_bytes)
        .max_headers(100)
        .keep_alive(true);
    let mut conn = builder.serve_connection(TokioIo::new(io), service);
    let at =
        |ms: u64| tokio::time::Instant::from_std(super::clock::epoch() + Duration::from_millis(ms));
    let mut check = at(now_ms() + s.keep_alive_idle.min(s.send_timeout).as_millis() as u64);
    let mut stopping = false;
    let ended = loop {
        tokio::select! {
            r = std::future::poll_fn(|cx| conn.poll_without_shutdown(cx)) => break r,
            _ = tokio::time::sleep_until(check) => {
                match verdict(&activity, &serving, now_ms()) {
                    Ok(next) => check = at(next.max(now_ms() + 10)),
                    Err(why) => {
                        tracing::debug!(%peer, why, "closing the connection");
                        return;
                    }
                }
            }
            _ = shutdown.changed(), if !stopping => {
                stopping = true;
                Pin::new(&mut conn).graceful_shutdown();
            }
        }
    };
    if let Err(e) = ended {
        // A header timeout, a malformed request, a reset: nothing more to say to it.
        tracing::debug!(%peer, error = %e, "connection ended");
        return;
    }
    let mut io = conn.into_parts().io.into_inner();
    linger(&mut io, Duration::from_secs(10), s.max_body_bytes).await;
}

/// Closes a connection as a careful server does: the answer is sent (FIN), then what the
/// client still sends (the rest of a body the server did not want: a refused upload) is
/// read and dropped until the client closes, stops sending for a second, or `within` and
/// `most` bytes are spent, so that the client's TCP stack does not answer unread data with
/// a reset that could destroy the response before the client reads it.
pub async fn linger<I: AsyncRead + AsyncWrite + Unpin>(io: &mut I, within: Duration, most: usize) {
    let deadline = tokio::time::Instant::now() + within;
    if tokio::time::timeout_at(deadline, io.shutdown())
        .await
        .is_err()
    {
        return;
    }
    let mut buf = vec![0u8; 64 * 1024];
    let mut read = 0;
    while read < most {
        let quiet = (tokio::time::Instant::now() + Duration::from_secs(1)).min(deadline);
        match tokio::time::timeout_at(quiet, io.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => read += n,
            _ => return,
        }
    }
}

/// Answers a refused connection with a canned response and closes it. The response comes
/// after the request's head (or half a second of waiting for it): an HTTP client that
/// finds an answer before it has sent its request takes it for a broken connection.
pub async fn refuse(mut stream: tokio::net::TcpStream, response: Arc<[u8]>) {
    let mut head = [0u8; 8192];
    let mut n = 0;
    let wait = tokio::time::Instant::now() + Duration::from_millis(500);
    while n < head.len() && !head[..n].windows(4).any(|w| w == b"\r\n\r\n") {
        match tokio::time::timeout_at(wait, stream.read(&mut head[n..])).await {
            Ok(Ok(m)) if m > 0 => n += m,
            _ => break,
        }
    }
    let written =
        tokio::time::timeout(Duration::from_millis(500), stream.write_all(&response)).await;
    if matches!(written, Ok(Ok(()))) {
        linger(&mut stream, Duration::from_millis(500), 64 * 1024).await;
    }
}

/// The bytes of a refusal: an HTTP/1.1 response with the one error body, closing.
pub fn refusal(status: StatusCode, code: &str, message: &str, retry_after: u64) -> Arc<[u8]> {
    let body = serde_json::json!({"ok": false, "error": {
        "code": code, "message": message, "details": [], "retryAfterSeconds": retry_after,
    }})
    .to_string();
    format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\nretry-after: {retry_after}\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    )
    .into_bytes()
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watchdog_looks_within_the_send_timeout_and_closes_idle_or_stalled_connections() {
        let settings = super::super::Settings {
            keep_alive_idle_ms: 5000,
            send_timeout_ms: 1000,
            ..Default::default()
        };
        let serving = Serving::new(settings.resolve(1 << 20).unwrap());
        let a = Activity::default();
        a.last_io.store(10_000, Relaxed);
        // Quiet, nothing blocked: look again by the send timeout, since a write may block.
        assert_eq!(verdict(&a, &serving, 10_000), Ok(11_000));
        // Idle past keep_alive_idle: closed.
        assert_eq!(verdict(&a, &serving, 15_000), Err("idle"));
        // A request being handled is never closed here.
        a.in_flight.store(1, Relaxed);
        assert_eq!(verdict(&a, &serving, 15_000), Ok(16_000));
        // A blocked write: closed once nothing moved for the send timeout, whatever runs.
        a.write_blocked.store(true, Relaxed);
        assert_eq!(verdict(&a, &serving, 10_500), Ok(11_000));
        assert_eq!(
            verdict(&a, &serving, 11_000),
            Err("the client stopped reading its response")
        );
    }
}
