//! The JSON layer of x12kit: the contract of a parse result
//! (`schema/parse-result.schema.json`) written straight from the borrowed
//! envelope tree ([`writer`]), and written back to X12 ([`write`](mod@write)).
//!
//! - [`writer`]: the parse result's JSON, compact or pretty, whole, streamed
//!   or on several threads; the mapped `document` of known sets comes from
//!   the layer above through [`mapping::SetMapper`];
//! - [`write`](mod@write): a parse result (possibly edited) back to X12 bytes;
//! - [`fields`]: the names of the envelope segments' elements;
//! - [`text`]: JSON text of result types and small helpers;
//! - [`de`]: typed values (options, partner profiles) read from JSON, with
//!   the pointer of the member at fault;
//! - [`copy`] and `plain`: the writer's short copies and its fast path for
//!   plain segments (the crate's only `unsafe` code: one module each, a
//!   safe API, capacity checked in debug builds).
//!
//! The crate `x12kit` re-exports it as `x12kit::json` (with the mapping of
//! the known sets plugged in); use that rather than this crate.

#![deny(unsafe_code)]

pub mod copy;
pub mod de;
pub mod fields;
pub mod mapping;
mod plain;
mod pretty;
pub mod text;
pub mod write;
pub mod writer;

pub use fields::{GE_FIELDS, GS_FIELDS, IEA_FIELDS, ISA_FIELDS, SE_FIELDS, ST_FIELDS};
pub use mapping::{Documents, NoDocuments, SetMapper};
pub use text::{delimiter_char, to_vec, to_vec_pretty, value_kind};
pub use write::{WriteOptions, write, write_str};
#[cfg(not(target_arch = "wasm32"))]
pub use writer::{AUTO_THREADS, to_json_stream_threads};
pub use writer::{
    EachSetFeeder, JsonOptions, ParseOptions, each_set_json, parse_to_json_into, to_json,
    to_json_into, to_json_stream, to_json_with, to_json_writer, to_value,
};
