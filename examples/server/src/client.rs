//! Who is on the other end of a request: its address and whether it came over TLS.
//!
//! The one place that decides both, for a connection and for each request on it:
//!
//! - [`connection_key`]: what a connection counts against for the per-address connection
//!   limit (`serve::limit`), or nothing when it comes from a trusted proxy (one proxy
//!   carries many clients).
//! - [`resolve`]: the client of a request. From a peer that is not a trusted proxy, the
//!   TCP peer and the connection's own TLS; from a trusted proxy, the address and scheme
//!   its forwarding headers give (`X-Forwarded-For` and `X-Forwarded-Proto`, or RFC 7239
//!   `Forwarded`, as the configuration says), walking the chain of hops from the right and
//!   skipping the trusted ones, so that what a client writes in those headers itself is
//!   never believed.
//! - [`address`], [`is_secure`], [`limit_key`]: what per-IP limits, the audit log, the
//!   logs and the `Secure` cookie attribute ask.

use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use axum::http::{Extensions, HeaderMap};
use ipnet::IpNet;
use serde::Deserialize;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Which forwarding headers a trusted proxy sets (`proxy_headers` in the configuration).
/// Only one kind is read: a proxy that sets one kind usually passes the other through as
/// the client sent it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum ProxyHeaders {
    /// `X-Forwarded-For` and `X-Forwarded-Proto` (nginx, HAProxy, most load balancers).
    #[default]
    #[serde(rename = "x-forwarded")]
    XForwarded,
    /// `Forwarded` (RFC 7239).
    #[serde(rename = "forwarded")]
    Forwarded,
}

/// The trusted proxies (`trusted_proxies`) and the headers they set.
#[derive(Debug, Clone, Default)]
pub struct Proxies {
    nets: Vec<IpNet>,
    headers: ProxyHeaders,
}

impl Proxies {
    /// The proxies of `cidrs` (`10.0.0.0/8`, `2001:db8::/32`, or one address), or a message
    /// naming the entry that is neither.
    pub fn parse(cidrs: &[String], headers: ProxyHeaders) -> Result<Proxies, String> {
        let mut nets = Vec::with_capacity(cidrs.len());
        for (i, text) in cidrs.iter().enumerate() {
            let t = text.trim();
            let net = t
                .parse::<IpNet>()
                .map(|n| n.trunc())
                .or_else(|_| t.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| {
                    format!(
                        "trusted_proxies[{i}]: {text:?} is not an address or a CIDR block (such as \"10.0.0.0/8\" or \"2001:db8::/32\")"
                    )
                })?;
            nets.push(match net {
                IpNet::V6(v6) => match v6.addr().to_ipv4_mapped() {
                    // `::ffff:10.0.0.0/104` is `10.0.0.0/8`: peers are compared as IPv4.
                    Some(v4) if v6.prefix_len() >= 96 => {
                        IpNet::new(IpAddr::V4(v4), v6.prefix_len() - 96).unwrap_or(net)
                    }
                    _ => net,
                },
                v4 => v4,
            });
        }
        Ok(Proxies { nets, headers })
    }

    /// True when `ip` is a trusted proxy.
    pub fn trusts(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.nets.iter().any(|n| n.contains(&ip))
    }
}

/// The client of one request, as [`resolve`] decided it (a request extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Client {
    /// The TCP peer (the proxy, when there is one).
    pub peer: SocketAddr,
    /// The client's address: the peer, or what a trusted proxy says.
    pub address: IpAddr,
    /// The client used HTTPS: to this server (TLS), or to a trusted proxy (what it says).
    pub secure: bool,
    /// The connection to this server is TLS (`Strict-Transport-Security` goes on its answers).
    pub tls: bool,
}

/// An IPv4-mapped IPv6 address as its IPv4 address (a dual-stack socket's IPv4 peers).
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// What an address counts as for per-address limits: IPv4 addresses one by one, IPv6
/// addresses by their /64 (the block one host or one customer usually holds, so that a
/// client cannot take a fresh limit with each address of it).
pub fn limit_key(ip: IpAddr) -> IpAddr {
    match canonical(ip) {
        IpAddr::V6(v6) => {
            let s = v6.segments();
            IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
        }
        v4 => v4,
    }
}

/// What a connection from `peer` counts against for the per-address connection limit, or
/// `None` when it counts only against the total: a trusted proxy's connections carry many
/// clients.
pub fn connection_key(peer: SocketAddr, proxies: &Proxies) -> Option<IpAddr> {
    (!proxies.trusts(peer.ip())).then(|| limit_key(peer.ip()))
}

/// One hop of `X-Forwarded-For` or a `for=` node of `Forwarded`: an address, with or
/// without a port (`192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`, `[2001:db8::1]:4711`), or
/// `None` (`unknown`, an obfuscated name, anything else).
fn hop_address(text: &str) -> Option<IpAddr> {
    let t = text.trim().trim_matches('"');
    if let Ok(ip) = t.parse::<IpAddr>() {
        return Some(canonical(ip));
    }
    if let Ok(sa) = t.parse::<SocketAddr>() {
        return Some(canonical(sa.ip()));
    }
    t.strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .and_then(|r| r.parse::<IpAddr>().ok())
        .map(canonical)
}

/// `http` or `https` (any case), else `None`.
fn scheme_secure(text: &str) -> Option<bool> {
    let t = text.trim().trim_matches('"');
    if t.eq_ignore_ascii_case("https") {
        Some(true)
    } else if t.eq_ignore_ascii_case("http") {
        Some(false)
    } else {
        None
    }
}

/// The comma-separated items of every value of a header, in order (several header lines are
/// one list, RFC 9110 §5.3), without splitting inside quoted strings.
fn items<'a>(headers: &'a HeaderMap, name: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    for v in headers.get_all(name) {
        let Ok(s) = v.to_str() else {
            continue;
        };
        let mut start = 0;
        let mut quoted = false;
        for (i, c) in s.char_indices() {
            match c {
                '"' => quoted = !quoted,
                ',' if !quoted => {
                    out.push(s[start..i].trim());
                    start = i + 1;
                }
                _ => {}
            }
        }
        out.push(s[start..].trim());
    }
    out.retain(|s| !s.is_empty());
    out
}

/// The client of a request from `peer` on a connection that is TLS or not.
///
/// From a peer that is not a trusted proxy: the peer and the connection's TLS, whatever the
/// headers say. From a trusted proxy: the hops its headers list are walked from the right
/// (the hop the proxy itself added first); each trusted hop is skipped, and the first that
/// is not trusted is the client. A hop that is not an address ends the walk at the last
/// trusted one, so that a client can never pick the address it is counted under. The
/// scheme is the proxy's `X-Forwarded-Proto` (its last value), or the `proto=` of the
/// client's `Forwarded` element.
pub fn resolve(peer: SocketAddr, tls: bool, headers: &HeaderMap, proxies: &Proxies) -> Client {
    let peer_ip = canonical(peer.ip());
    let mut client = Client {
        peer,
        address: peer_ip,
        secure: tls,
        tls,
    };
    if !proxies.trusts(peer_ip) {
        return client;
    }
    match proxies.headers {
        ProxyHeaders::XForwarded => {
            for hop in items(headers, "x-forwarded-for").iter().rev() {
                match hop_address(hop) {
                    Some(ip) => {
                        client.address = ip;
                        if !proxies.trusts(ip) {
                            break;
                        }
                    }
                    None => break,
                }
            }
            if let Some(secure) = items(headers, "x-forwarded-proto")
                .last()
                .and_then(|p| scheme_secure(p))
            {
                client.secure = secure;
            }
        }
        ProxyHeaders::Forwarded => {
            for element in items(headers, "forwarded").iter().rev() {
                let mut node = None;
                let mut proto = None;
                for pair in element.split(';') {
                    let Some((k, v)) = pair.split_once('=') else {
                        continue;
                    };
                    match k.trim().to_ascii_lowercase().as_str() {
                        "for" => node = Some(hop_address(v)),
                        "proto" => proto = scheme_secure(v),
                        _ => {}
                    }
                }
                let Some(Some(ip)) = node else {
                    break;
                };
                client.address = ip;
                if let Some(secure) = proto {
                    client.secure = secure;
                }
                if !proxies.trusts(ip) {
                    break;
                }
            }
        }
    }
    client
}

/// The client of a request's extensions: what the serving layer resolved, else the TCP
/// peer (a router called without the serving layer, as in unit tests).
pub fn of(extensions: &Extensions) -> Client {
    if let Some(c) = extensions.get::<Client>() {
        return *c;
    }
    let peer = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0), |c| {
            c.0
        });
    Client {
        peer,
        address: canonical(peer.ip()),
        secure: false,
        tls: false,
    }
}

/// The client's address (per-IP limits, the audit log, the logs).
pub fn address(parts: &Parts) -> IpAddr {
    of(&parts.extensions).address
}

/// True when the client used HTTPS (the `Secure` cookie attribute).
pub fn is_secure(parts: &Parts) -> bool {
    of(&parts.extensions).secure
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(cidrs: &[&str], headers: ProxyHeaders) -> Proxies {
        Proxies::parse(
            &cidrs.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            headers,
        )
        .unwrap()
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h
    }

    fn at(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn bad_cidrs_are_refused_with_the_entry_named() {
        for bad in ["10.0.0.0/33", "10.0.0", "example.com", "", "::1/129"] {
            let e = Proxies::parse(&["10.0.0.0/8".into(), bad.into()], ProxyHeaders::XForwarded)
                .unwrap_err();
            assert!(e.starts_with("trusted_proxies[1]: "), "{e}");
        }
        let p = proxies(
            &[
                "10.1.2.3/8",
                "192.0.2.7",
                "2001:db8::/32",
                "::ffff:172.16.0.0/108",
            ],
            ProxyHeaders::XForwarded,
        );
        assert!(p.trusts(ip("10.200.0.1")), "host bits are dropped");
        assert!(p.trusts(ip("192.0.2.7")) && !p.trusts(ip("192.0.2.8")));
        assert!(p.trusts(ip("2001:db8:5::1")) && !p.trusts(ip("2001:db9::1")));
        assert!(
            p.trusts(ip("172.16.3.4")),
            "a mapped CIDR matches IPv4 peers"
        );
        assert!(
            p.trusts(ip("::ffff:10.0.0.1")),
            "a mapped peer matches IPv4 CIDRs"
        );
    }

    #[test]
    fn an_untrusted_peers_forwarding_headers_are_ignored() {
        let p = proxies(&["10.0.0.0/8"], ProxyHeaders::XForwarded);
        let h = headers(&[
            ("x-forwarded-for", "203.0.113.9"),
            ("x-forwarded-proto", "https"),
            ("forwarded", "for=198.51.100.1;proto=https"),
        ]);
        let c = resolve(at("192.0.2.1:5000"), false, &h, &p);
        assert_eq!(c.address, ip("192.0.2.1"));
        assert!(!c.secure);
        // No proxy trusted at all: the same.
        let c = resolve(at("10.0.0.1:5000"), true, &h, &Proxies::default());
        assert_eq!((c.address, c.secure, c.tls), (ip("10.0.0.1"), true, true));
    }

    #[test]
    fn x_forwarded_for_is_walked_from_the_right_skipping_trusted_hops() {
        let p = proxies(&["10.0.0.0/8", "127.0.0.1"], ProxyHeaders::XForwarded);
        // The client wrote a spoofed first hop; the proxy appended the real client.
        let h = headers(&[
            ("x-forwarded-for", "198.51.100.7, 203.0.113.9"),
            ("x-forwarded-for", "10.1.1.1"),
            ("x-forwarded-proto", "http, https"),
        ]);
        let c = resolve(at("127.0.0.1:1"), false, &h, &p);
        assert_eq!(c.address, ip("203.0.113.9"));
        assert!(c.secure && !c.tls);
        // Every hop trusted: the leftmost.
        let h = headers(&[("x-forwarded-for", "10.9.9.9,10.1.1.1")]);
        assert_eq!(
            resolve(at("127.0.0.1:1"), false, &h, &p).address,
            ip("10.9.9.9")
        );
        // A hop that is not an address stops the walk at the last trusted one.
        let h = headers(&[("x-forwarded-for", "203.0.113.9, garbage, 10.1.1.1")]);
        assert_eq!(
            resolve(at("127.0.0.1:1"), false, &h, &p).address,
            ip("10.1.1.1")
        );
        // Ports and brackets, mapped addresses.
        let h = headers(&[("x-forwarded-for", "[2001:db8::5]:443, 203.0.113.9:80")]);
        assert_eq!(
            resolve(at("127.0.0.1:1"), false, &h, &p).address,
            ip("203.0.113.9")
        );
        let h = headers(&[("x-forwarded-for", "::ffff:203.0.113.4")]);
        assert_eq!(
            resolve(at("127.0.0.1:1"), false, &h, &p).address,
            ip("203.0.113.4")
        );
        // No header: the proxy itself (its own health checks); an unknown scheme is ignored.
        let h = headers(&[("x-forwarded-proto", "gopher")]);
        let c = resolve(at("[::ffff:127.0.0.1]:1"), true, &h, &p);
        assert_eq!((c.address, c.secure), (ip("127.0.0.1"), true));
        // The other kind of header is not read.
        let h = headers(&[("forwarded", "for=203.0.113.9;proto=https")]);
        let c = resolve(at("127.0.0.1:1"), false, &h, &p);
        assert_eq!((c.address, c.secure), (ip("127.0.0.1"), false));
    }

    #[test]
    fn forwarded_elements_are_walked_from_the_right() {
        let p = proxies(&["10.0.0.0/8", "127.0.0.1"], ProxyHeaders::Forwarded);
        let h = headers(&[(
            "Forwarded",
            "for=198.51.100.7;proto=http, for=\"[2001:db8:cafe::17]:4711\";proto=https;by=10.0.0.2, For=10.0.0.3;proto=http",
        )]);
        let c = resolve(at("127.0.0.1:1"), false, &h, &p);
        assert_eq!(c.address, ip("2001:db8:cafe::17"));
        assert!(c.secure, "the client's element says https");
        let h = headers(&[("forwarded", "for=unknown, for=10.0.0.3")]);
        assert_eq!(
            resolve(at("127.0.0.1:1"), false, &h, &p).address,
            ip("10.0.0.3")
        );
        let h = headers(&[("x-forwarded-for", "203.0.113.9")]);
        assert_eq!(
            resolve(at("127.0.0.1:1"), false, &h, &p).address,
            ip("127.0.0.1")
        );
    }

    #[test]
    fn connections_count_by_address_or_64_and_not_for_trusted_proxies() {
        let none = Proxies::default();
        assert_eq!(
            connection_key(at("[2001:db8:1:2:aaaa::1]:5"), &none),
            connection_key(at("[2001:db8:1:2:bbbb::9]:6"), &none)
        );
        assert_ne!(
            connection_key(at("[2001:db8:1:2::1]:5"), &none),
            connection_key(at("[2001:db8:1:3::1]:5"), &none)
        );
        assert_eq!(
            connection_key(at("[::ffff:10.1.2.3]:5"), &none),
            Some(ip("10.1.2.3"))
        );
        let p = proxies(&["10.0.0.0/8"], ProxyHeaders::XForwarded);
        assert_eq!(connection_key(at("10.1.2.3:5"), &p), None);
        assert_eq!(connection_key(at("[::ffff:10.1.2.3]:5"), &p), None);
        assert_eq!(connection_key(at("11.1.2.3:5"), &p), Some(ip("11.1.2.3")));
    }
}
