//! A request body read by its route as it arrives (the streamed routes of
//! [`super::admit`]): the same minimum rate and size limit as a body read whole
//! beforehand, enforced frame by frame. A fault ends the body with a [`BodyFault`],
//! which the route answers as the buffered path would have (408, 413, 400).

use axum::body::{Body, Bytes};
use std::future::Future as _;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// Why a streamed body ended early.
#[derive(Debug)]
pub enum BodyFault {
    /// More than the limit (the configuration's `max_body_bytes`).
    TooLarge(usize),
    /// Slower than `body_min_bytes_per_second` after `body_grace_ms`: the message.
    TooSlow(String),
    /// The client's body could not be read (a broken connection, bad chunking).
    Read(axum::Error),
}

impl std::fmt::Display for BodyFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyFault::TooLarge(limit) => write!(f, "the body is over {limit} bytes"),
            BodyFault::TooSlow(m) => f.write_str(m),
            BodyFault::Read(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for BodyFault {}

impl BodyFault {
    /// The fault an error of a [`Metered`] body carries (wrapped once or more by axum).
    pub fn of<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a BodyFault> {
        let mut at: Option<&'a (dyn std::error::Error + 'static)> = Some(e);
        while let Some(err) = at {
            if let Some(f) = err.downcast_ref::<BodyFault>() {
                return Some(f);
            }
            at = err.source();
        }
        None
    }
}

/// A body that enforces a limit and a minimum rate while its route reads it.
pub struct Metered {
    inner: Body,
    limit: usize,
    received: usize,
    started: Instant,
    grace: Duration,
    rate: u64,
    deadline: Pin<Box<tokio::time::Sleep>>,
    done: bool,
}

impl Metered {
    /// `body`, at most `limit` bytes, at `rate` bytes per second on average after `grace`.
    pub fn new(body: Body, limit: usize, grace: Duration, rate: u64) -> Self {
        let started = Instant::now();
        Metered {
            inner: body,
            limit,
            received: 0,
            started,
            grace,
            rate: rate.max(1),
            deadline: Box::pin(tokio::time::sleep_until((started + grace).into())),
            done: false,
        }
    }

    /// By `grace + received / rate` after the start, the next bytes must have come.
    fn allowed(&self) -> Instant {
        self.started + self.grace + Duration::from_secs_f64(self.received as f64 / self.rate as f64)
    }
}

impl http_body::Body for Metered {
    type Data = Bytes;
    type Error = BodyFault;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, BodyFault>>> {
        if self.done {
            return Poll::Ready(None);
        }
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    self.received += data.len();
                    if self.received > self.limit {
                        self.done = true;
                        return Poll::Ready(Some(Err(BodyFault::TooLarge(self.limit))));
                    }
                    let next = self.allowed();
                    self.deadline.as_mut().reset(next.into());
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => {
                self.done = true;
                Poll::Ready(Some(Err(BodyFault::Read(e))))
            }
            Poll::Ready(None) => {
                self.done = true;
                Poll::Ready(None)
            }
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    self.done = true;
                    let message = format!(
                        "the request body arrived too slowly: {} bytes in {:.1} s; after {} s it must come at {} bytes per second at least",
                        self.received,
                        self.started.elapsed().as_secs_f64(),
                        self.grace.as_secs_f64(),
                        self.rate
                    );
                    Poll::Ready(Some(Err(BodyFault::TooSlow(message))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
