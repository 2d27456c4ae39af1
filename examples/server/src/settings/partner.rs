//! A trading partner as the workers and the API use it (from the snapshot of
//! `settings/mod.rs`): a leaf, so that the store can take one without naming the
//! settings that load it from the store.

use crate::config::TransportConfig;
use serde_json::Value;

/// A trading partner, as the workers and the API use it.
#[derive(Debug)]
pub struct Partner {
    /// The `partnerId`.
    pub id: String,
    /// The core's partner profile (checked by the core when saved).
    pub profile: Value,
    /// How the partner is reached (credentials opened).
    pub transport: Option<TransportConfig>,
    /// Acknowledgement window in seconds.
    pub ack_window_seconds: Option<u64>,
    /// `997` or `999` to acknowledge inbound sets with.
    pub acknowledge_inbound: Option<String>,
    /// False: no new documents for it, its inbox is not read.
    pub enabled: bool,
}
