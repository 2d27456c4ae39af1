//! The EDI layer of x12kit: what the transaction sets mean.
//!
//! - [`documents`]: the declared transaction sets, one declaration each:
//!   rendering, mapping back, the structure checks of received sets, the
//!   payload JSON Schemas and the X12 dictionary;
//! - [`mod@validate`]: the envelope rules, their acknowledgement codes and
//!   outcomes; [`validation`]: the validator with the declared sets' structure rules;
//! - [`codes`]: the code lists and acknowledgement codes validate and ack share;
//! - [`guide`]: partners' implementation guides, which validation applies;
//! - [`sets`]: the registry of transaction set types (and each one's business reference);
//! - [`mod@csv`]: CSV intake, a spreadsheet of documents → their payloads and every problem;
//! - [`received`]: the acknowledgements an input carries;
//! - [`ack`]: building TA1 / 997 / 999 acknowledgements and reading received ones;
//! - [`render`](mod@render) and [`partner`]: complete interchanges for a trading partner profile.
//!
//! The crate `x12kit` re-exports each module under the same name; use it
//! rather than this crate.

#![forbid(unsafe_code)]

pub mod ack;
pub mod codes;
pub mod csv;
pub mod documents;
pub mod guide;
pub mod partner;
pub mod received;
pub mod render;
pub mod sets;
pub mod split;
pub mod validate;
pub mod validation;
