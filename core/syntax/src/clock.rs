//! The system clock, for native callers only (the CLI, the C library, the
//! server, the Python and Node bindings). This is the only module of the core
//! that reads the clock, and it does not exist on `wasm32-unknown-unknown`,
//! where the caller passes `Date.now()`; `scripts/check-clock.sh` checks that
//! no other module calls `SystemTime::now`.

use crate::time::DateTime;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Time since the Unix epoch (zero if the clock is set before 1970).
pub fn since_epoch() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    since_epoch().as_secs()
}

/// The current UTC date and time.
pub fn now() -> DateTime {
    DateTime::from_unix(unix_now())
}
