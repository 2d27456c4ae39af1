//! What each answered request leaves behind: its counts in `/metrics` (by method, matched
//! route and status, with its latency) and its access log line (request id, method,
//! route, status, duration, client address, account; never a key, a cookie, a password
//! or a payload).
//!
//! The connection ([`super::conn`]) gives each request a [`Note`]; the router writes in it
//! the route it matched ([`note_route`], a layer of every router) and the authentication
//! guards the account ([`note_account`]); the connection reads it once the answer is made,
//! so that answers made outside the router (a request timeout) are counted too.

use axum::extract::{MatchedPath, Request};
use axum::http::Extensions;
use axum::middleware::Next;
use axum::response::Response;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the router noted of one request.
#[derive(Debug, Default)]
struct Noted {
    route: Option<String>,
    account: Option<String>,
}

/// The note of one request (a request extension).
#[derive(Debug, Clone, Default)]
pub struct Note(Arc<Mutex<Noted>>);

impl Note {
    /// (route, account): the route as the router matched it (`unmatched` when no route
    /// did), and the account when the request was authenticated.
    fn read(&self) -> (String, Option<String>) {
        let n = self.0.lock().unwrap_or_else(|p| p.into_inner());
        (
            n.route.clone().unwrap_or_else(|| "unmatched".into()),
            n.account.clone(),
        )
    }
}

/// A layer of every router: notes the route it matched (the innermost router's, which
/// runs last, wins; a fallback clears it, so that a 404 is `unmatched`, never its path).
pub async fn note_route(req: Request, next: Next) -> Response {
    if let Some(note) = req.extensions().get::<Note>() {
        let route = req
            .extensions()
            .get::<MatchedPath>()
            .map(|m| m.as_str().to_string());
        note.0.lock().unwrap_or_else(|p| p.into_inner()).route = route;
    }
    next.run(req).await
}

/// Notes the account a request was authenticated for.
pub fn note_account(extensions: &Extensions, account: &str) {
    if let Some(note) = extensions.get::<Note>() {
        note.0.lock().unwrap_or_else(|p| p.into_inner()).account = Some(account.to_string());
    }
}

/// Counts an answered request in `/metrics` and writes its access log line (at `info`,
/// target `x12kit_server::access`).
pub fn answered(
    note: &Note,
    method: &axum::http::Method,
    status: u16,
    took: Duration,
    request_id: &str,
    client: std::net::IpAddr,
) {
    let (route, account) = note.read();
    let method = crate::metrics::method_label(method);
    crate::metrics::request(method, &route, status, took);
    tracing::info!(
        target: "x12kit_server::access",
        request_id,
        method,
        route = route.as_str(),
        status,
        duration_ms = took.as_secs_f64() * 1000.0,
        client = %client,
        account = account.as_deref().unwrap_or("-"),
        "answered"
    );
}
