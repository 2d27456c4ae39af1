//! Authentication and rate limits, run before every API handler.
//!
//! A key is `Authorization: Bearer <key>`; the server keeps only SHA-256
//! hashes and compares the presented key's hash with every configured hash in
//! constant time (no early exit, no hash-map lookup on secret-derived data).
//! Limits are GCRA (governor) per key and route group; every answer after
//! authentication carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and
//! `X-RateLimit-Reset` (Unix time at which the whole budget is back).

use crate::config::Limits;
use crate::error::{ApiError, ApiResult};
use crate::settings::write::Actor;
use crate::settings::{Account, Key};
use axum::http::StatusCode;
use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use sha2::{Digest, Sha256};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;
use subtle::{ConditionallySelectable, ConstantTimeEq};

/// The authenticated caller of an `/api/v1` route: an API key, or a signed-in person's
/// session (the dashboard, or curl with the cookie).
#[derive(Debug, Clone)]
pub struct Caller {
    /// The key's (or the person's) account.
    pub account: Arc<Account>,
    /// The key's id (`key_…`); empty for a session.
    pub key_id: String,
    /// The key's name (for logs); the person's e-mail for a session.
    pub key_name: String,
    /// The rate-limit key: the first 8 bytes of the key's hash (of the user id for a session).
    pub limiter: u64,
    /// The signed-in person, when the caller is a session.
    pub user: Option<SessionUser>,
    /// The client's address (the audit log's).
    pub client: std::net::IpAddr,
}

impl Caller {
    /// Who the audit log names: the person, or the API key (`key_…`, `API key <name>`).
    pub fn actor(&self) -> crate::settings::write::Actor {
        match &self.user {
            Some(u) => u.actor(),
            None => crate::settings::write::Actor {
                id: self.key_id.clone(),
                name: format!("API key {}", self.key_name),
                client: Some(self.client.to_string()),
            },
        }
    }
}

/// Finds the account of the `Authorization` header among the active keys.
pub fn authenticate(keys: &[Key], headers: &HeaderMap) -> Result<Caller, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(ApiError::unauthorized(
            "send Authorization: Bearer <API key>",
            "invalid_request",
        ));
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|v| {
            let (scheme, token) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_graphic()));
    let Some(token) = token else {
        return Err(ApiError::unauthorized(
            "the Authorization header must be Bearer <API key>",
            "invalid_request",
        ));
    };
    let hash: [u8; 32] = Sha256::digest(token.as_bytes()).into();
    let mut found = u64::MAX;
    for (i, k) in keys.iter().enumerate() {
        let equal = k.hash.ct_eq(&hash);
        found = u64::conditional_select(&found, &(i as u64), equal);
    }
    match keys.get(found as usize) {
        Some(k) => Ok(Caller {
            account: k.account.clone(),
            key_id: k.id.clone(),
            key_name: k.name.clone(),
            limiter: u64::from_be_bytes(k.hash[..8].try_into().unwrap_or_default()),
            user: None,
            client: std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
        }),
        None => Err(ApiError::unauthorized(
            "the API key is not valid",
            "invalid_token",
        )),
    }
}

/// A signed-in person, as the session routes see them.
#[derive(Debug, Clone)]
pub struct SessionUser {
    /// `usr_…`.
    pub user_id: String,
    /// Sign-in address.
    pub email: String,
    /// `admin` or `member`.
    pub role: String,
    /// The account.
    pub account: String,
    /// The session's CSRF token.
    pub csrf: String,
    /// SHA-256 (hex) of the session id.
    pub session_hash: String,
    /// Sign-in time (ms).
    pub created_at: i64,
    /// The absolute end (ms).
    pub expires_at: i64,
    /// The client's address.
    pub client: String,
}

impl SessionUser {
    /// The person as the audit log names them.
    pub fn actor(&self) -> Actor {
        Actor {
            id: self.user_id.clone(),
            name: self.email.clone(),
            client: Some(self.client.clone()),
        }
    }

    /// 403 `FORBIDDEN` unless an admin.
    pub fn admin(&self) -> ApiResult<()> {
        if self.role == "admin" {
            Ok(())
        } else {
            Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "FORBIDDEN",
                "only an admin of the account can do this (members read settings)",
            ))
        }
    }
}

/// Route groups of spec §8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// `/transactions…`
    Transactions,
    /// `/parse`, `/validate`
    ParseValidate,
    /// Everything else under the API prefixes.
    Other,
}

impl Group {
    /// The group of a path below the version prefix (`/transactions/doc_1`).
    pub fn of(rest: &str) -> Group {
        let first = rest.trim_start_matches('/').split('/').next().unwrap_or("");
        match first {
            "transactions" => Group::Transactions,
            "parse" | "validate" => Group::ParseValidate,
            _ => Group::Other,
        }
    }
}

type Limiter<K> =
    RateLimiter<K, DefaultKeyedStateStore<K>, DefaultClock, StateInformationMiddleware>;

/// One keyed GCRA limit of `per_minute` requests.
#[derive(Debug)]
pub struct Limit<K: std::hash::Hash + Eq + Clone> {
    clock: DefaultClock,
    limit: u32,
    limiter: Limiter<K>,
}

/// Every limit of the server.
#[derive(Debug)]
pub struct RateLimits {
    groups: [Limit<u64>; 3],
    /// The routes of a signed-in person (`/api/auth/me`, `/api/auth/logout`,
    /// `/api/settings`), per user id.
    pub session: Limit<String>,
    /// `POST /api/auth/login`, per client address.
    pub login: Limit<std::net::IpAddr>,
    /// `POST /api/upload`, per user id.
    pub upload_user: Limit<String>,
    /// `POST /api/upload`, per client network ([`network`]).
    pub upload_network: Limit<std::net::IpAddr>,
}

/// The network of a client address, as the upload limit counts it: the /24 of an IPv4
/// address, the /64 of an IPv6 one (what one site or one customer usually holds).
pub fn network(ip: std::net::IpAddr) -> std::net::IpAddr {
    match ip {
        std::net::IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            std::net::IpAddr::V4(std::net::Ipv4Addr::new(a, b, c, 0))
        }
        std::net::IpAddr::V6(v6) => {
            let s = v6.segments();
            std::net::IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
        }
    }
}

/// The answer of a limit check: the headers to add and, when over, the 429.
#[derive(Debug)]
pub struct Verdict {
    /// `X-RateLimit-*` (and `Retry-After` when over).
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Seconds to wait, when over the limit.
    pub retry_after: Option<u64>,
}

impl Verdict {
    /// The 429 of a refused request (`whose`: "for this API key", ...), with the headers.
    pub fn refusal(&self, whose: &str) -> Option<ApiError> {
        let wait = self.retry_after?;
        let mut e = ApiError::new(
            axum::http::StatusCode::TOO_MANY_REQUESTS,
            "RATE_LIMITED",
            format!("too many requests {whose}; retry after {wait} seconds"),
        );
        e.extra = Some(("retryAfterSeconds", serde_json::json!(wait)));
        Some(e)
    }

    /// Adds the headers to a response.
    pub fn apply(self, resp: &mut axum::response::Response) {
        for (k, v) in self.headers {
            resp.headers_mut().insert(k, v);
        }
    }
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl<K: std::hash::Hash + Eq + Clone> Limit<K> {
    /// `per_minute` requests per key and minute (GCRA: one comes back every 60/n s).
    pub fn new(per_minute: u32) -> Self {
        let n = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        Limit {
            clock: DefaultClock::default(),
            limit: n.get(),
            limiter: RateLimiter::keyed(Quota::per_minute(n))
                .with_middleware::<StateInformationMiddleware>(),
        }
    }

    /// Forgets the keys whose budget is whole again (bounds the memory of many keys).
    pub fn forget_idle(&self) {
        self.limiter.retain_recent();
    }

    /// Takes one request of `key`.
    pub fn check(&self, key: &K) -> Verdict {
        let limit = self.limit;
        let per_cell = Duration::from_secs(60) / limit;
        let now = unix_now();
        let header = |v: u64| HeaderValue::from(v);
        match self.limiter.check_key(key) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let refill = per_cell * (limit - remaining.min(limit));
                Verdict {
                    headers: vec![
                        (
                            HeaderName::from_static("x-ratelimit-limit"),
                            header(limit.into()),
                        ),
                        (
                            HeaderName::from_static("x-ratelimit-remaining"),
                            header(remaining.into()),
                        ),
                        (
                            HeaderName::from_static("x-ratelimit-reset"),
                            header(now + refill.as_secs_f64().ceil() as u64),
                        ),
                    ],
                    retry_after: None,
                }
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(self.clock.now());
                let retry = (wait.as_secs_f64().ceil() as u64).max(1);
                let full = wait + per_cell * (limit - 1);
                Verdict {
                    headers: vec![
                        (
                            HeaderName::from_static("x-ratelimit-limit"),
                            header(limit.into()),
                        ),
                        (HeaderName::from_static("x-ratelimit-remaining"), header(0)),
                        (
                            HeaderName::from_static("x-ratelimit-reset"),
                            header(now + full.as_secs_f64().ceil() as u64),
                        ),
                        (header::RETRY_AFTER, header(retry)),
                    ],
                    retry_after: Some(retry),
                }
            }
        }
    }
}

impl RateLimits {
    /// Limiters for the configured figures.
    pub fn new(l: &Limits) -> Self {
        RateLimits {
            groups: [
                Limit::new(l.transactions_per_minute),
                Limit::new(l.parse_validate_per_minute),
                Limit::new(l.other_per_minute),
            ],
            session: Limit::new(l.session_per_minute),
            login: Limit::new(l.auth_per_ip_per_minute),
            upload_user: Limit::new(l.upload_per_user_per_minute),
            upload_network: Limit::new(l.upload_per_network_per_minute),
        }
    }

    /// Takes one request of the API key `key` in `group`.
    pub fn check(&self, key: u64, group: Group) -> Verdict {
        self.groups[group as usize].check(&key)
    }

    /// Forgets idle keys of every limit.
    pub fn forget_idle(&self) {
        for g in &self.groups {
            g.forget_idle();
        }
        self.session.forget_idle();
        self.login.forget_idle();
        self.upload_user.forget_idle();
        self.upload_network.forget_idle();
    }
}
