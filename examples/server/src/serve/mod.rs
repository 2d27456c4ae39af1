//! The serving layer: the accept loop, the connection limits, the timeouts and the
//! capacity of each route group, between the socket and the router (axum's own
//! `serve` sets none of them).
//!
//! - **Accept** ([`run`]): each accepted connection is counted against `max_connections`
//!   and `max_connections_per_address` ([`limit`]); one over a limit gets a canned 503
//!   `SERVER_BUSY` or 429 `TOO_MANY_CONNECTIONS` and is closed (by a small bounded set of
//!   tasks; beyond them it is closed at once), so the accept loop never waits on a client.
//!   An accept that fails for want of file descriptors or memory (EMFILE, ENFILE,
//!   ENOBUFS, ENOMEM) backs off (5 ms doubling to 1 s) instead of spinning. At start the
//!   process raises its open-file limit to what `max_connections` needs, or lowers
//!   `max_connections` to what the hard limit allows (logged).
//! - **A connection** ([`conn`]): hyper's HTTP/1 with `header_read_timeout_ms`,
//!   `max_header_bytes` (also the read buffer, which bounds pipelined requests), a
//!   watchdog closing it after `keep_alive_idle_ms` without a byte while no request is
//!   handled and after `send_timeout_ms` without the client reading its answer,
//!   `request_timeout_ms` per request, `Connection: close` after
//!   `max_requests_per_connection`, and a lingering close.
//! - **A request** ([`capacity`]): its body's memory, its body's rate and its route
//!   group's slot, after authentication.
//!
//! With `[tls]`, the rustls handshake ([`tls`], within `header_read_timeout_ms`) goes
//! between the accept and [`conn::serve`], which takes any `AsyncRead + AsyncWrite`
//! stream; the client address a connection counts against is
//! [`crate::client::connection_key`] (none for a trusted proxy), and each request's
//! client is [`crate::client::resolve`]d there. [`observe`] counts each answer for
//! `/metrics` and writes its access log line.

pub mod admit;
pub mod capacity;
pub mod clock;
mod conn;
pub mod limit;
pub mod metered;
pub mod observe;
pub mod openapi;
pub mod serving;
pub mod settings;
pub mod tls;

pub use conn::Transport;
pub use settings::Settings;

use axum::Router;
use axum::http::StatusCode;
use serving::Serving;
use settings::Resolved;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// File descriptors the process keeps for other things than client connections (store
/// connections, outgoing HTTP, inbox files, refusals being answered).
const RESERVED_FILES: u64 = 512;

/// Raises the open-file limit towards what `max_connections` needs; returns the number of
/// connections the limit allows.
#[cfg(unix)]
fn fit_open_files(max_connections: usize) -> usize {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read and write the one struct given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } != 0 {
        return max_connections;
    }
    let wanted = max_connections as u64 + RESERVED_FILES;
    if r.rlim_cur < wanted {
        let raised = libc::rlimit {
            rlim_cur: wanted.min(r.rlim_max),
            rlim_max: r.rlim_max,
        };
        // SAFETY: as above.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            r.rlim_cur = raised.rlim_cur;
        }
    }
    let reserve = RESERVED_FILES.min(r.rlim_cur / 2);
    let fits = r.rlim_cur.saturating_sub(reserve).max(16) as usize;
    if fits < max_connections {
        tracing::warn!(
            max_connections,
            open_files = r.rlim_cur,
            allowed = fits,
            "the open-file limit (ulimit -n, hard limit {}) is too low for max_connections; serving at most {fits} connections",
            r.rlim_max
        );
        return fits;
    }
    max_connections
}

#[cfg(not(unix))]
fn fit_open_files(max_connections: usize) -> usize {
    max_connections
}

/// True for the accept errors that concern one connection only (the next accept may work
/// at once); the others (out of file descriptors or memory) call for a pause.
fn only_this_connection(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionAborted
            | ConnectionReset
            | ConnectionRefused
            | Interrupted
            | WouldBlock
            | TimedOut
    )
}

/// Refusals being answered at once (each a task with its socket for up to a second);
/// beyond them a refused connection is closed without an answer.
const REFUSALS: usize = 256;

/// The serving state of the API listener: `max_connections` fitted to the open-file
/// limit, the settings logged.
pub fn prepare(mut settings: Resolved) -> Arc<Serving> {
    settings.max_connections = fit_open_files(settings.max_connections);
    tracing::info!(
        max_connections = settings.max_connections,
        per_address = settings.max_connections_per_address,
        header_read_timeout_ms = settings.header_read_timeout.as_millis() as u64,
        request_timeout_ms = settings.request_timeout.as_millis() as u64,
        body_memory_bytes = settings.body_memory_bytes,
        groups = ?settings.groups,
        "serving"
    );
    Serving::new(settings)
}

/// Serves `router` on `listener` until `shutdown` resolves, then lets busy connections
/// finish for `shutdown_grace_ms`.
pub async fn run(
    listener: tokio::net::TcpListener,
    router: Router,
    serving: Arc<Serving>,
    tls: Option<(tokio_rustls::TlsAcceptor, Transport)>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), String> {
    let busy = conn::refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        "SERVER_BUSY",
        "the server has as many connections open as it serves; retry in a moment",
        1,
    );
    let crowded = conn::refusal(
        StatusCode::TOO_MANY_REQUESTS,
        "TOO_MANY_CONNECTIONS",
        "too many connections from your address; close some or retry in a moment",
        1,
    );
    let refusals = Arc::new(tokio::sync::Semaphore::new(REFUSALS));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    let mut backoff = Duration::ZERO;
    let mut failures = 0u64;
    let mut last_report = Instant::now() - Duration::from_secs(60);
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(a) => {
                backoff = Duration::ZERO;
                a
            }
            Err(e) if only_this_connection(&e) => continue,
            Err(e) => {
                failures += 1;
                if last_report.elapsed() >= Duration::from_secs(10) {
                    tracing::error!(error = %e, failures, "cannot accept connections; pausing accepts until it passes");
                    last_report = Instant::now();
                }
                backoff = (backoff * 2).clamp(Duration::from_millis(5), Duration::from_secs(1));
                tokio::select! {
                    () = tokio::time::sleep(backoff) => continue,
                    () = &mut shutdown => break,
                }
            }
        };
        let _ = stream.set_nodelay(true);
        let key = crate::client::connection_key(peer, &serving.settings.proxies);
        match serving.connections.admit(key) {
            Ok(admitted) => {
                let router = router.clone();
                let serving = serving.clone();
                let stop = stop_rx.clone();
                let tls = tls.clone();
                tokio::spawn(async move {
                    match tls {
                        None => {
                            conn::serve(stream, peer, Transport::Plain, router, serving, stop)
                                .await;
                        }
                        Some((acceptor, transport)) => {
                            // The handshake within the header timeout: a client that
                            // opens and says nothing holds a slot no longer than that.
                            let within = serving.settings.header_read_timeout;
                            match tokio::time::timeout(within, acceptor.accept(stream)).await {
                                Ok(Ok(s)) => {
                                    conn::serve(s, peer, transport, router, serving, stop).await;
                                }
                                Ok(Err(e)) => {
                                    tracing::debug!(%peer, error = %e, "TLS handshake failed");
                                }
                                Err(_) => {
                                    tracing::debug!(%peer, "TLS handshake timed out");
                                }
                            }
                        }
                    }
                    drop(admitted);
                });
            }
            Err(why) => {
                tracing::debug!(%peer, ?why, "connection refused");
                let canned = match why {
                    limit::Refused::Total => busy.clone(),
                    limit::Refused::Address => crowded.clone(),
                };
                if let Ok(p) = refusals.clone().try_acquire_owned() {
                    tokio::spawn(async move {
                        conn::refuse(stream, canned).await;
                        drop(p);
                    });
                }
            }
        }
    }
    drop(listener);
    let _ = stop_tx.send(true);
    drop(stop_rx);
    let grace = serving.settings.shutdown_grace;
    if tokio::time::timeout(grace, stop_tx.closed()).await.is_err() {
        tracing::warn!(
            open = serving.connections.open(),
            "connections still busy after the shutdown grace; closing them"
        );
    }
    Ok(())
}
