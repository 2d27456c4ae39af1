//! The X12 syntax layer of x12kit: everything that reads X12 bytes without
//! knowing what a transaction set means.
//!
//! - [`delimiters`]: detecting separators from the fixed-width ISA segment;
//! - [`index`]: the SIMD structural index (delimiter bitmasks per 64-byte block);
//! - [`lexer`] and [`segment`]: the zero-copy tokenizer and borrowed segment views;
//! - [`stream`]: the incremental (chunk-fed) tokenizer with bounded memory;
//! - [`envelope`]: the ISA/GS/ST envelope state machine and the borrowed tree;
//! - [`diagnostics`]: the one diagnostic type every check reports with;
//! - [`error`]: typed errors with stable codes for calls that fail outright;
//! - [`time`](mod@time): validated dates and times; [`clock`] reads the
//!   system clock (the only module that does, and not on `wasm32-unknown-unknown`);
//! - [`utf8`]: the `INVALID_UTF8` report, whole or chunk by chunk;
//! - [`bytes`]: byte classes and word tricks the modules above share;
//! - [`escape`]: JSON string escaping (for [`Error::to_json`] here, and the
//!   parse result's writer in `x12kit-json`).
//!
//! It depends on no JSON library. The crate `x12kit` re-exports each module
//! under the same name; use it rather than this crate.

// Only the SIMD kernels use `unsafe`: `index`'s SSE2 kernels (the call
// of each `#[target_feature]` kernel and its lane loads) and wasm32
// kernel, and the segment views' 16-byte separator mask (the call).
#![deny(unsafe_code)]

pub mod bytes;
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub mod clock;
pub mod delimiters;
pub mod diagnostics;
pub mod envelope;
pub mod error;
pub mod escape;
pub mod feed;
pub mod index;
pub mod lexer;
pub mod segment;
pub mod sets;
pub mod stream;
#[doc(hidden)]
pub mod testing;
pub mod time;
pub mod utf8;

pub use delimiters::Delimiters;
pub use diagnostics::{AckCodes, Code, Diagnostic, Severity};
pub use envelope::{
    Document, Envelope, Group, Handler, Interchange, MAX_SET_BYTES, SetCap, Transaction, parse,
    parse_capped,
};
pub use error::{Error, ErrorCode, ErrorKind, Problem};
pub use lexer::{Token, Tokenizer, segments};
pub use segment::{Element, Segment};
pub use stream::{Pull, Reader, StreamTokenizer};
pub use time::DateTime;
