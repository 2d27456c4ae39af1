//! The state of the serving layer, shared by every connection.

use super::settings::Resolved;
use super::{capacity, limit};
use crate::error::Detail;
use std::sync::Arc;

/// The state of the serving layer, shared by every connection (and given to each
/// request as an extension, for [`super::admit::admit`] and `/readyz`).
#[derive(Debug)]
pub struct Serving {
    /// The settings in force.
    pub settings: Resolved,
    /// The open connections.
    pub connections: Arc<limit::Connections>,
    /// The body budget and the route groups.
    pub capacity: capacity::Capacity,
}

impl Serving {
    /// The state of `settings`.
    pub fn new(settings: Resolved) -> Arc<Serving> {
        Arc::new(Serving {
            connections: limit::Connections::new(
                settings.max_connections,
                settings.max_connections_per_address,
            ),
            capacity: capacity::Capacity::new(&settings),
            settings,
        })
    }

    /// What keeps the process from taking more work now (for `/readyz`): route groups
    /// and the body budget that refused requests in the last seconds, and the connection
    /// limit when it is reached. Empty when the process takes work.
    pub fn pressure(&self) -> Vec<Detail> {
        let mut out = self.capacity.shedding();
        let open = self.connections.open();
        if open >= self.connections.max() {
            let (total, per_address) = self.connections.refused();
            out.push(Detail::error(
                "CONNECTIONS_FULL",
                "max_connections",
                format!(
                    "{open} connections open, the limit; more are refused (503 SERVER_BUSY); refused since start: {total} over the limit, {per_address} over an address's share"
                ),
            ));
        }
        out
    }
}
