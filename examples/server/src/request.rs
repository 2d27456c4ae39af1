//! What the route modules share to read a request and page their answers: the body, the
//! query string, `limit`, cursors, canonical JSON, and core calls off the async threads.
//! (Apart from the router in `api.rs`, which names the route modules.)

use crate::error::{ApiError, ApiResult, Detail};
use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::http::{StatusCode, Uri};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

/// Bodies above this size are parsed on the blocking pool (8 KiB parse in well under
/// 0.1 ms; anything longer must not hold a runtime thread, which serves every connection).
pub(crate) const BLOCKING_ABOVE: usize = 8 * 1024;

pub(crate) fn body_bytes(body: Result<Bytes, BytesRejection>, limit: usize) -> ApiResult<Bytes> {
    body.map_err(|r| {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::too_large(limit)
        } else {
            ApiError::bad_request(
                "INVALID_BODY",
                format!("the request body could not be read: {r}"),
            )
        }
    })
}

/// What a body that failed while being read answers: 413 over `limit`, 408 too slow
/// (a [`Metered`](crate::serve::metered::Metered) body), else 400 `INVALID_BODY`. The
/// rest of the body is not read: the connection closes after the answer.
pub(crate) fn body_error(e: &axum::Error, limit: usize) -> ApiError {
    use crate::serve::metered::BodyFault;
    let error = match BodyFault::of(e) {
        Some(BodyFault::TooLarge(_)) => ApiError::too_large(limit),
        Some(BodyFault::TooSlow(m)) => return crate::serve::capacity::request_timeout(m.clone()),
        Some(BodyFault::Read(e)) => invalid_body(e),
        None => invalid_body(e),
    };
    error.with_header(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    )
}

fn invalid_body(e: &dyn std::fmt::Display) -> ApiError {
    ApiError::bad_request(
        "INVALID_BODY",
        format!("the request body could not be read: {e}"),
    )
}

/// A body's data as it arrives, for a core call on the blocking pool (each
/// [`next`](Iterator::next) waits for the next frame on the runtime): at most `limit`
/// bytes, empty frames skipped, a read failure as [`body_error`]'s answer.
pub(crate) struct Frames {
    body: Body,
    limit: usize,
    read: usize,
    runtime: tokio::runtime::Handle,
    ended: bool,
}

impl Frames {
    /// Must be made on the runtime (it keeps its handle).
    pub(crate) fn new(body: Body, limit: usize) -> Self {
        Frames {
            body,
            limit,
            read: 0,
            runtime: tokio::runtime::Handle::current(),
            ended: false,
        }
    }
}

impl Iterator for Frames {
    type Item = ApiResult<Bytes>;

    fn next(&mut self) -> Option<ApiResult<Bytes>> {
        if self.ended {
            return None;
        }
        let next = self
            .runtime
            .block_on(next_data(&mut self.body, &mut self.read, self.limit));
        if !matches!(next, Some(Ok(_))) {
            self.ended = true;
        }
        next
    }
}

/// The next data of a body (empty frames skipped), counting what was `read` against
/// `limit`; a read failure or the limit passed as [`body_error`]'s answer.
pub(crate) async fn next_data(
    body: &mut Body,
    read: &mut usize,
    limit: usize,
) -> Option<ApiResult<Bytes>> {
    use http_body_util::BodyExt;
    loop {
        let data = match body.frame().await? {
            Err(e) => return Some(Err(body_error(&e, limit))),
            Ok(f) => match f.into_data() {
                Ok(d) if !d.is_empty() => d,
                _ => continue,
            },
        };
        *read += data.len();
        if *read > limit {
            return Some(Err(body_error(
                &axum::Error::new(crate::serve::metered::BodyFault::TooLarge(limit)),
                limit,
            )));
        }
        return Some(Ok(data));
    }
}

/// Reads a whole body of at most `limit` bytes (see [`Frames`] for the errors).
pub(crate) async fn read_whole(mut body: Body, limit: usize) -> ApiResult<Bytes> {
    use http_body_util::BodyExt;
    let mut buf: Vec<u8> = Vec::new();
    let mut first: Option<Bytes> = None;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| body_error(&e, limit))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let have = first.as_ref().map_or(0, Bytes::len) + buf.len();
        if have + data.len() > limit {
            return Err(body_error(
                &axum::Error::new(crate::serve::metered::BodyFault::TooLarge(limit)),
                limit,
            ));
        }
        match &first {
            None if buf.is_empty() => first = Some(data),
            _ => {
                if let Some(f) = first.take() {
                    buf.extend_from_slice(&f);
                }
                buf.extend_from_slice(&data);
            }
        }
    }
    Ok(first.unwrap_or_else(|| Bytes::from(buf)))
}

/// Parses a query string into `T` (unknown or repeated parameters are 400s).
pub(crate) fn query<T: serde::de::DeserializeOwned>(uri: &Uri) -> ApiResult<T> {
    serde_urlencoded::from_str(uri.query().unwrap_or("")).map_err(|e| {
        ApiError::bad_request(
            "INVALID_QUERY",
            format!("the query string is not valid: {e}"),
        )
    })
}

pub(crate) fn query_error(param: &str, message: String) -> ApiError {
    ApiError::bad_request("INVALID_QUERY", message.clone()).with_details(vec![Detail::error(
        "INVALID_QUERY",
        param,
        message,
    )])
}

/// Serializes JSON with object keys sorted at every level (idempotency hashes).
pub(crate) fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&m[k], out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The `limit` parameter of a list: 1 to `max`, 50 when absent.
pub(crate) fn limit_param(value: Option<&str>, max: usize) -> ApiResult<usize> {
    match value {
        None => Ok(50),
        Some(l) => l
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| {
                query_error(
                    "limit",
                    format!("limit must be an integer from 1 to {max}, found {l:?}"),
                )
            }),
    }
}

pub(crate) fn encode_cursor(seq: i64) -> String {
    URL_SAFE_NO_PAD.encode(format!("v1:{seq}"))
}

/// A cursor over a text key (a delivery id), as opaque as [`encode_cursor`]'s.
pub(crate) fn encode_cursor_text(key: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("v1:{key}"))
}

/// The key of an [`encode_cursor_text`] cursor.
pub(crate) fn decode_cursor_text(c: &str) -> Option<String> {
    let raw = URL_SAFE_NO_PAD.decode(c).ok()?;
    let text = String::from_utf8(raw).ok()?;
    text.strip_prefix("v1:")
        .filter(|k| !k.is_empty() && k.len() <= 128)
        .map(str::to_string)
}

pub(crate) fn decode_cursor(c: &str) -> Option<i64> {
    let raw = URL_SAFE_NO_PAD.decode(c).ok()?;
    let text = std::str::from_utf8(&raw).ok()?;
    text.strip_prefix("v1:")?
        .parse::<i64>()
        .ok()
        .filter(|n| *n > 0)
}

/// Core calls on the blocking pool at once: one per core (more cannot go faster, and
/// each holds its input and output in memory); the others wait without a thread.
fn core_slots() -> &'static tokio::sync::Semaphore {
    static SLOTS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    SLOTS.get_or_init(|| {
        tokio::sync::Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get()))
    })
}

/// `POST /parse` reads a raw body as it arrives (spooled, its answer streamed) when its
/// size is unknown or over this; a smaller one is parsed whole into a reused buffer and
/// answered with its length.
const PARSE_STREAM_ABOVE: u64 = 8 * 1024 * 1024;

/// Whether `POST /parse` streams a raw body of this declared size (see
/// [`PARSE_STREAM_ABOVE`]).
pub(crate) fn parse_streams(declared: Option<u64>) -> bool {
    declared.is_none_or(|n| n > PARSE_STREAM_ABOVE)
}

/// A core slot for a call that runs on the blocking pool by itself (one that answers
/// before it ends, as a streamed parse does).
pub(crate) async fn core_slot() -> ApiResult<tokio::sync::SemaphorePermit<'static>> {
    core_slots()
        .acquire()
        .await
        .map_err(|_| ApiError::internal())
}

/// A body's data copied into an anonymous temporary file, mapped (see [`Frames`] for
/// the errors; a temporary file that cannot be written is a logged 500). Memory: one
/// 64 KiB buffer and the frame at hand.
pub(crate) fn spool(mut frames: Frames) -> ApiResult<x12kit_mapped::Input> {
    let mut pending = Bytes::new();
    let mut failed = None;
    let spooled = x12kit_mapped::Input::spool(64 * 1024, |buf| {
        while pending.is_empty() {
            match frames.next() {
                None => return Ok(0),
                Some(Ok(b)) => pending = b,
                Some(Err(e)) => {
                    failed = Some(e);
                    return Err(std::io::Error::other("the request body ended early"));
                }
            }
        }
        let n = buf.len().min(pending.len());
        buf[..n].copy_from_slice(&pending.split_to(n));
        Ok(n)
    });
    if let Some(e) = failed {
        return Err(e);
    }
    spooled.map_err(|e| {
        tracing::error!(target: "x12kit_server::api", error = %e, "cannot spool a request body to a temporary file");
        ApiError::internal()
    })
}

/// A response body made on the blocking pool as it is sent: the chunks of a
/// [`ChannelWriter`], through a channel of a few chunks (what is held in between).
pub(crate) struct ChannelBody(tokio::sync::mpsc::Receiver<Bytes>);

impl http_body::Body for ChannelBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        self.0
            .poll_recv(cx)
            .map(|chunk| chunk.map(|b| Ok(http_body::Frame::data(b))))
    }
}

/// Writes into a [`ChannelBody`] in chunks of 64 KiB, waiting while the client reads;
/// `BrokenPipe` once the client has gone. It holds the writing call's core slot, and
/// gives it back while it waits for a slow client (the channel full), taking one again
/// when the client has read: a client reading slowly holds a blocking thread and the
/// few chunks in the channel, never a core that others' calls wait for.
pub(crate) struct ChannelWriter {
    tx: tokio::sync::mpsc::Sender<Bytes>,
    buf: Vec<u8>,
    slot: Option<tokio::sync::SemaphorePermit<'static>>,
    runtime: tokio::runtime::Handle,
}

/// Chunks of a [`ChannelWriter`].
const CHUNK: usize = 64 * 1024;

/// A response body and the writer that makes it (at most 4 chunks in between), the
/// writer holding the core slot `slot` (see [`ChannelWriter`]). Must be made on the runtime.
pub(crate) fn channel_body(
    slot: tokio::sync::SemaphorePermit<'static>,
) -> (ChannelBody, ChannelWriter) {
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    (
        ChannelBody(rx),
        ChannelWriter {
            tx,
            buf: Vec::with_capacity(CHUNK),
            slot: Some(slot),
            runtime: tokio::runtime::Handle::current(),
        },
    )
}

impl ChannelWriter {
    fn send(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
        let gone = || std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let chunk = match self.tx.try_send(chunk) {
            Ok(()) => return Ok(()),
            Err(tokio::sync::mpsc::error::TrySendError::Closed(_)) => return Err(gone()),
            Err(tokio::sync::mpsc::error::TrySendError::Full(chunk)) => chunk,
        };
        // The client reads slower than the core writes: its core slot goes back while
        // it waits, and is taken again (behind the others waiting) once it has read.
        let held = self.slot.take().is_some();
        self.tx.blocking_send(chunk).map_err(|_| gone())?;
        if held {
            let slot = self.runtime.block_on(core_slot()).map_err(|_| gone())?;
            self.slot = Some(slot);
        }
        Ok(())
    }
}

impl std::io::Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.send()
    }
}

/// Runs a core call on a small input at once, on a larger one on the blocking pool,
/// at most [`core_slots`] at a time.
pub(crate) async fn off_thread<T: Send + 'static>(
    size: usize,
    f: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    if size <= BLOCKING_ABOVE {
        return f();
    }
    let Ok(_slot) = core_slots().acquire().await else {
        return Err(ApiError::internal());
    };
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        tracing::error!(target: "x12kit_server::api", error = %e, "core call panicked");
        Err(ApiError::internal())
    })
}
