//! The state every handler and worker shares: [`App`], and the [`Wake`]-ups of the
//! background workers (below the routes and the workers that use them).

use crate::config::Config;
use crate::guard::RateLimits;
use crate::store::Store;
use std::sync::Arc;
use tokio::sync::Notify;

/// Shared state of the handlers.
#[derive(Debug)]
pub struct App {
    /// The configuration.
    pub config: Config,
    /// The store.
    pub store: Store,
    /// The rate limiters.
    pub limits: RateLimits,
    /// Wake-ups of the background workers.
    pub wake: Arc<Wake>,
    /// This process's id in claims and heartbeats (a UUIDv7 per start).
    pub worker_id: String,
    /// The settings (accounts, keys, partners, webhooks) as this process sees them.
    pub settings: Arc<crate::settings::Settings>,
    /// Outgoing HTTP of the settings routes (webhook test deliveries).
    pub http: reqwest::Client,
}

/// Wake-ups of the workers when this process wrote work for them (they also poll).
#[derive(Debug, Default)]
pub struct Wake {
    /// New `queued` documents.
    pub validate: Notify,
    /// New `validated` documents.
    pub route: Notify,
    /// New webhook outbox rows.
    pub deliver: Notify,
}
