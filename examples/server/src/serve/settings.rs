//! The `[server]` section of the configuration: connection limits, timeouts and the
//! capacity of each route group, with safe defaults (see the README's "Hostile
//! traffic, overload and faults").

use serde::Deserialize;
use std::time::Duration;

/// `[server]`: how many connections, for how long, and how much work at once.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Connections open at once; more are answered 503 `SERVER_BUSY` and closed.
    pub max_connections: usize,
    /// Connections open at once from one client address (an IPv6 client: its /64); more
    /// are answered 429 `TOO_MANY_CONNECTIONS` and closed.
    pub max_connections_per_address: usize,
    /// A request's head (request line and headers) must arrive within this time of the
    /// connection's opening or of the previous response.
    pub header_read_timeout_ms: u64,
    /// A connection on which nothing arrives for this long while no request is being
    /// handled (new, or between requests) is closed.
    pub keep_alive_idle_ms: u64,
    /// A response the client stops reading for this long is abandoned and the connection
    /// closed.
    pub send_timeout_ms: u64,
    /// Requests served on one connection; the last one's answer says `Connection: close`.
    pub max_requests_per_connection: u64,
    /// Largest request head (request line and headers), in bytes; also the connection's
    /// read buffer, which bounds what pipelined requests can queue.
    pub max_header_bytes: usize,
    /// A request must be answered within this time of its head's arrival (body read,
    /// queues and work included): 408 `REQUEST_TIMEOUT` while its body was still arriving,
    /// else 503 `SERVER_TIMEOUT`.
    pub request_timeout_ms: u64,
    /// After `body_grace_ms`, a request body must have arrived at this many bytes per
    /// second on average since its head, or the request is answered 408 `REQUEST_TIMEOUT`.
    pub body_min_bytes_per_second: u64,
    /// See `body_min_bytes_per_second`.
    pub body_grace_ms: u64,
    /// Request bodies held in memory at once (bytes), those being received included:
    /// a body larger than 64 KiB reserves its size before it is read, and waits (at most
    /// `queue_timeout_ms`) when the budget is spent. Default: 4 × `max_body_bytes`.
    pub body_memory_bytes: Option<usize>,
    /// How long a request waits for its route group (or for the body budget) before it is
    /// answered 503 `OVERLOADED` with `Retry-After`.
    pub queue_timeout_ms: u64,
    /// `POST /parse`, `/validate` and `/documents/inbound` (the core's CPU-heavy work).
    pub x12: Group,
    /// `POST /documents/outbound` (render and store).
    pub outbound: Group,
    /// `GET /transactions`, `/transactions/{id}`, `/stats`.
    pub reads: Group,
    /// Every other route under `/api` and `/v1` (`/healthz`, `/readyz` and the OpenAPI
    /// document are never limited: probes must always be answered).
    pub other: Group,
    /// At shutdown, connections still busy after this long are closed.
    pub shutdown_grace_ms: u64,
    /// The reverse proxies in front of the server (addresses or CIDR blocks, such as
    /// `"127.0.0.1"` or `"10.0.0.0/8"`): only a request whose TCP peer is one of them has
    /// its forwarding headers believed, for the client's address and scheme. Empty (the
    /// default): no proxy is trusted and those headers are ignored.
    pub trusted_proxies: Vec<String>,
    /// Which forwarding headers the trusted proxies set: `"x-forwarded"`
    /// (`X-Forwarded-For` and `X-Forwarded-Proto`, the default) or `"forwarded"` (RFC 7239).
    pub proxy_headers: crate::client::ProxyHeaders,
}

/// The capacity of one route group: requests handled at once, and requests that may wait.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// Requests of the group handled at once (default: see each group).
    pub concurrency: Option<usize>,
    /// Requests that may wait for one of them (default: 4 × `concurrency`); beyond that a
    /// request is answered 503 `OVERLOADED` at once.
    pub queue: Option<usize>,
}

impl Group {
    const fn auto() -> Group {
        Group {
            concurrency: None,
            queue: None,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_connections: 1024,
            max_connections_per_address: 256,
            header_read_timeout_ms: 10_000,
            keep_alive_idle_ms: 5_000,
            send_timeout_ms: 30_000,
            max_requests_per_connection: 10_000,
            max_header_bytes: 64 * 1024,
            request_timeout_ms: 120_000,
            body_min_bytes_per_second: 4096,
            body_grace_ms: 5_000,
            body_memory_bytes: None,
            queue_timeout_ms: 2_000,
            x12: Group::auto(),
            outbound: Group::auto(),
            reads: Group::auto(),
            other: Group::auto(),
            shutdown_grace_ms: 10_000,
            trusted_proxies: Vec::new(),
            proxy_headers: crate::client::ProxyHeaders::default(),
        }
    }
}

/// Bodies up to this size are read without a reservation from the body budget (their
/// total is bounded by the connection limit instead), so that a queue of large uploads
/// never delays a small request.
pub const SMALL_BODY: usize = 64 * 1024;

/// What a route that reads its body as it arrives holds of it at once, and so reserves
/// from `body_memory_bytes`: `/validate`'s batch (1 MiB) and the frames in flight; the
/// spooling buffer of `/parse` and `/documents/inbound` (64 KiB) is less.
pub const STREAMED_BODY: usize = 2 << 20;

/// The route groups, in the order of [`Resolved::groups`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `/parse`, `/validate`, `/documents/inbound`.
    X12,
    /// `/documents/outbound`.
    Outbound,
    /// `/transactions…`, `/stats`.
    Reads,
    /// Every other API route.
    Other,
}

impl Kind {
    /// All groups.
    pub const ALL: [Kind; 4] = [Kind::X12, Kind::Outbound, Kind::Reads, Kind::Other];

    /// The name in the configuration, logs and `/readyz`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::X12 => "x12",
            Kind::Outbound => "outbound",
            Kind::Reads => "reads",
            Kind::Other => "other",
        }
    }
}

/// The settings with every default decided.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// Connections at once.
    pub max_connections: usize,
    /// Connections at once per client address.
    pub max_connections_per_address: usize,
    /// See [`Settings::header_read_timeout_ms`].
    pub header_read_timeout: Duration,
    /// See [`Settings::keep_alive_idle_ms`].
    pub keep_alive_idle: Duration,
    /// See [`Settings::send_timeout_ms`].
    pub send_timeout: Duration,
    /// See [`Settings::max_requests_per_connection`].
    pub max_requests_per_connection: u64,
    /// See [`Settings::max_header_bytes`].
    pub max_header_bytes: usize,
    /// See [`Settings::request_timeout_ms`].
    pub request_timeout: Duration,
    /// See [`Settings::body_min_bytes_per_second`].
    pub body_min_rate: u64,
    /// See [`Settings::body_grace_ms`].
    pub body_grace: Duration,
    /// Largest body (the configuration's `max_body_bytes`).
    pub max_body_bytes: usize,
    /// See [`Settings::body_memory_bytes`].
    pub body_memory_bytes: usize,
    /// See [`Settings::queue_timeout_ms`].
    pub queue_timeout: Duration,
    /// (concurrency, queue) per group, in the order of [`Kind::ALL`].
    pub groups: [(usize, usize); 4],
    /// See [`Settings::shutdown_grace_ms`].
    pub shutdown_grace: Duration,
    /// See [`Settings::trusted_proxies`].
    pub proxies: crate::client::Proxies,
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

impl Settings {
    /// Checks the values and decides the defaults; `max_body_bytes` is the configuration's.
    pub fn resolve(&self, max_body_bytes: usize) -> Result<Resolved, String> {
        let positive = [
            ("max_connections", self.max_connections as u64),
            (
                "max_connections_per_address",
                self.max_connections_per_address as u64,
            ),
            ("header_read_timeout_ms", self.header_read_timeout_ms),
            ("keep_alive_idle_ms", self.keep_alive_idle_ms),
            ("send_timeout_ms", self.send_timeout_ms),
            (
                "max_requests_per_connection",
                self.max_requests_per_connection,
            ),
            ("request_timeout_ms", self.request_timeout_ms),
            ("queue_timeout_ms", self.queue_timeout_ms),
            ("shutdown_grace_ms", self.shutdown_grace_ms),
        ];
        for (name, v) in positive {
            if v == 0 {
                return Err(format!("server: {name} must be at least 1"));
            }
        }
        if self.max_header_bytes < 8192 {
            return Err("server: max_header_bytes must be at least 8192".into());
        }
        let body_memory_bytes = self
            .body_memory_bytes
            .unwrap_or_else(|| max_body_bytes.saturating_mul(4));
        if body_memory_bytes < max_body_bytes {
            return Err(format!(
                "server: body_memory_bytes ({body_memory_bytes}) must be at least max_body_bytes ({max_body_bytes}), or no body of the largest size could ever be read"
            ));
        }
        if body_memory_bytes > u32::MAX as usize {
            return Err("server: body_memory_bytes must be below 4 GiB".into());
        }
        let n = cores();
        let defaults = [2 * n, 64, 32, 32];
        let mut groups = [(0, 0); 4];
        for (i, (g, kind)) in [self.x12, self.outbound, self.reads, self.other]
            .into_iter()
            .zip(Kind::ALL)
            .enumerate()
        {
            let concurrency = g.concurrency.unwrap_or(defaults[i]);
            if concurrency == 0 {
                return Err(format!(
                    "server: {}.concurrency must be at least 1",
                    kind.name()
                ));
            }
            groups[i] = (concurrency, g.queue.unwrap_or(4 * concurrency));
        }
        let proxies = crate::client::Proxies::parse(&self.trusted_proxies, self.proxy_headers)
            .map_err(|e| format!("server: {e}"))?;
        let ms = Duration::from_millis;
        Ok(Resolved {
            max_connections: self.max_connections,
            max_connections_per_address: self.max_connections_per_address,
            header_read_timeout: ms(self.header_read_timeout_ms),
            keep_alive_idle: ms(self.keep_alive_idle_ms),
            send_timeout: ms(self.send_timeout_ms),
            max_requests_per_connection: self.max_requests_per_connection,
            max_header_bytes: self.max_header_bytes,
            request_timeout: ms(self.request_timeout_ms),
            body_min_rate: self.body_min_bytes_per_second,
            body_grace: ms(self.body_grace_ms),
            max_body_bytes,
            body_memory_bytes,
            queue_timeout: ms(self.queue_timeout_ms),
            groups,
            shutdown_grace: ms(self.shutdown_grace_ms),
            proxies,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_resolve_and_bad_values_are_refused_with_their_name() {
        let r = Settings::default().resolve(32 << 20).unwrap();
        assert_eq!(r.body_memory_bytes, 128 << 20);
        assert_eq!(r.groups[1], (64, 256));
        let zero = Settings {
            max_connections: 0,
            ..Settings::default()
        };
        assert!(zero.resolve(1).unwrap_err().contains("max_connections"));
        let small = Settings {
            body_memory_bytes: Some(10),
            ..Settings::default()
        };
        assert!(small.resolve(11).unwrap_err().contains("body_memory_bytes"));
        let group = Settings {
            reads: Group {
                concurrency: Some(0),
                queue: None,
            },
            ..Settings::default()
        };
        assert!(group.resolve(1).unwrap_err().contains("reads.concurrency"));
        let parsed: Settings = toml::from_str(
            "max_connections = 10\nx12 = { concurrency = 3 }\nreads = { concurrency = 2, queue = 0 }",
        )
        .unwrap();
        let r = parsed.resolve(1 << 20).unwrap();
        assert_eq!(r.max_connections, 10);
        assert_eq!(r.groups[0], (3, 12));
        assert_eq!(r.groups[2], (2, 0));
        assert!(toml::from_str::<Settings>("max_conections = 1").is_err());
        let proxies: Settings =
            toml::from_str("trusted_proxies = [\"127.0.0.1\", \"10.0.0.0/33\"]").unwrap();
        let e = proxies.resolve(1).unwrap_err();
        assert!(
            e.contains("server: trusted_proxies[1]: \"10.0.0.0/33\""),
            "{e}"
        );
        let proxies: Settings = toml::from_str(
            "trusted_proxies = [\"127.0.0.1\", \"10.0.0.0/8\"]\nproxy_headers = \"forwarded\"",
        )
        .unwrap();
        let r = proxies.resolve(1).unwrap();
        assert!(r.proxies.trusts("10.9.8.7".parse().unwrap()));
        assert!(!r.proxies.trusts("11.0.0.1".parse().unwrap()));
        assert!(toml::from_str::<Settings>("proxy_headers = \"x-real-ip\"").is_err());
    }
}
