//! The connection limits: connections open at once in all, and per client address.
//!
//! The client address of a connection is [`connection_address`]: the one place that
//! decides it, so that trusted proxies (a deployment concern: behind a proxy every
//! connection comes from the proxy's address) change it there and nowhere else.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// The address a connection counts against for the per-address limit, or `None` when it
/// counts only against the total (a trusted proxy's connections carry many clients; the
/// server trusts no proxy yet). IPv4 addresses count one by one (an IPv4-mapped IPv6 peer
/// as its IPv4 address); IPv6 addresses by their /64, the block one host or one customer
/// usually holds, so that a client cannot take a fresh limit with each address of it.
pub fn connection_address(peer: SocketAddr) -> Option<IpAddr> {
    Some(match peer.ip() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    })
}

/// Why a connection was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The total is reached.
    Total,
    /// The client's address has its share.
    Address,
}

/// The open connections, counted.
#[derive(Debug)]
pub struct Connections {
    max_total: usize,
    max_per_address: usize,
    total: AtomicUsize,
    per_address: Mutex<HashMap<IpAddr, usize>>,
    /// Connections refused since start, by reason (total, address).
    refused: [AtomicUsize; 2],
}

/// An admitted connection; counted until dropped.
#[derive(Debug)]
pub struct Admitted {
    connections: Arc<Connections>,
    address: Option<IpAddr>,
}

impl Connections {
    /// Limits of `max_total` connections, `max_per_address` per client address.
    pub fn new(max_total: usize, max_per_address: usize) -> Arc<Connections> {
        Arc::new(Connections {
            max_total,
            max_per_address,
            total: AtomicUsize::new(0),
            per_address: Mutex::new(HashMap::new()),
            refused: [AtomicUsize::new(0), AtomicUsize::new(0)],
        })
    }

    /// Counts a new connection from `peer`, or says why not.
    pub fn admit(self: &Arc<Self>, peer: SocketAddr) -> Result<Admitted, Refused> {
        let address = connection_address(peer);
        if self.total.fetch_add(1, Relaxed) >= self.max_total {
            self.total.fetch_sub(1, Relaxed);
            self.refused[0].fetch_add(1, Relaxed);
            return Err(Refused::Total);
        }
        if let Some(a) = address {
            let mut per = self
                .per_address
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let n = per.entry(a).or_insert(0);
            if *n >= self.max_per_address {
                drop(per);
                self.total.fetch_sub(1, Relaxed);
                self.refused[1].fetch_add(1, Relaxed);
                return Err(Refused::Address);
            }
            *n += 1;
        }
        Ok(Admitted {
            connections: self.clone(),
            address,
        })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.total.load(Relaxed)
    }

    /// The limit of connections at once.
    pub fn max(&self) -> usize {
        self.max_total
    }

    /// Connections refused since start: (total reached, address's share reached).
    pub fn refused(&self) -> (usize, usize) {
        (self.refused[0].load(Relaxed), self.refused[1].load(Relaxed))
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        if let Some(a) = self.address {
            let mut per = self
                .connections
                .per_address
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(n) = per.get_mut(&a) {
                *n -= 1;
                if *n == 0 {
                    per.remove(&a);
                }
            }
        }
        self.connections.total.fetch_sub(1, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    #[test]
    fn the_total_and_each_address_are_limited_and_freed_on_drop() {
        let c = Connections::new(3, 2);
        let a1 = c.admit(at("127.0.0.2:1")).unwrap();
        let a2 = c.admit(at("127.0.0.2:2")).unwrap();
        assert_eq!(
            c.admit(at("127.0.0.2:3")).unwrap_err(),
            Refused::Address,
            "the address's share is 2"
        );
        let b1 = c.admit(at("127.0.0.1:1")).unwrap();
        assert_eq!(c.admit(at("127.0.0.3:1")).unwrap_err(), Refused::Total);
        assert_eq!(c.open(), 3);
        drop(a1);
        let a3 = c.admit(at("127.0.0.2:4")).unwrap();
        drop((a2, a3, b1));
        assert_eq!(c.open(), 0);
        assert!(c.per_address.lock().unwrap().is_empty());
        assert_eq!(c.refused(), (1, 1));
    }

    #[test]
    fn ipv6_clients_count_by_their_64_and_mapped_ipv4_as_ipv4() {
        assert_eq!(
            connection_address(at("[2001:db8:1:2:aaaa::1]:5")),
            connection_address(at("[2001:db8:1:2:bbbb::9]:6"))
        );
        assert_ne!(
            connection_address(at("[2001:db8:1:2::1]:5")),
            connection_address(at("[2001:db8:1:3::1]:5"))
        );
        assert_eq!(
            connection_address(at("[::ffff:10.1.2.3]:5")),
            Some("10.1.2.3".parse().unwrap())
        );
    }
}
