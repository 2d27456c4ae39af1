//! The names of the service's webhook headers (a leaf).

/// Header carrying the signing timestamp, Unix seconds.
pub const HEADER_TIMESTAMP: &str = "X-Service-Timestamp";
/// Header carrying the event kind, e.g. `document.validated`.
pub const HEADER_EVENT: &str = "X-Service-Event";
/// Header carrying the delivery id, the same on every retry.
pub const HEADER_DELIVERY_ID: &str = "X-Service-Delivery-ID";
/// Header carrying `sha256=<lower-case hex>`.
pub const HEADER_SIGNATURE: &str = "X-Service-Signature";
