//! The serving layer's monotonic clock, in milliseconds since it started.

use std::sync::OnceLock;
use std::time::Instant;

pub fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Milliseconds since the serving layer's clock started (monotonic).
pub fn now_ms() -> u64 {
    epoch().elapsed().as_millis() as u64
}
