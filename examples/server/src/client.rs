//! Who is on the other end of a request: its address and whether it came over TLS.
//! Every use (per-IP limits, the audit log, the `Secure` cookie attribute) asks
//! these two functions, so that a TLS listener or trusted proxies change them in
//! one place.

use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// The client's address: the TCP peer (unspecified when the server runs without
/// connection info, as in unit tests).
pub fn address(parts: &Parts) -> IpAddr {
    peer(&parts.extensions)
}

/// [`address`] from a request's extensions.
pub fn peer(extensions: &axum::http::Extensions) -> IpAddr {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip())
}

/// True when the request came over TLS (the server speaks plain HTTP only, so never yet).
pub fn is_secure(_parts: &Parts) -> bool {
    false
}
