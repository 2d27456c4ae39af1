//! The connection limits: connections open at once in all, and per client address.
//!
//! What a connection counts against is [`crate::client::connection_key`], the one place
//! that decides a client's address: its peer's address (an IPv6 peer's /64), or nothing
//! for a trusted proxy, whose connections carry many clients.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

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

    /// Counts a new connection that counts against `address` (see
    /// [`crate::client::connection_key`]; `None`: only against the total), or says why not.
    pub fn admit(self: &Arc<Self>, address: Option<IpAddr>) -> Result<Admitted, Refused> {
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

    /// The key of a peer `s` ("address:port"), as no proxy is trusted.
    fn at(s: &str) -> Option<IpAddr> {
        crate::client::connection_key(s.parse().unwrap(), &crate::client::Proxies::default())
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
        // A trusted proxy's connections (no key) count only against the total.
        let proxied: Vec<_> = (0..3).map(|_| c.admit(None).unwrap()).collect();
        assert_eq!(c.admit(None).unwrap_err(), Refused::Total);
        drop(proxied);
    }
}
