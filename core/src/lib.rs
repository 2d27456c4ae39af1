//! x12kit: a fast, correct X12 EDI toolkit.
//!
//! ```
//! let x12 = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*3*0001~GE*1*1~IEA*1*000000001~";
//! let doc = x12kit::parse(x12);
//! assert!(!doc.has_errors());
//! let tx = &doc.interchanges[0].groups[0].transactions[0];
//! assert_eq!(tx.kind(), b"850");
//! assert_eq!(doc.body(tx).next().unwrap().value(3), b"PO-1");
//! let json = x12kit::to_json(&doc);
//! let back = x12kit::write_str(std::str::from_utf8(&json).unwrap(), &Default::default()).unwrap();
//! assert_eq!(back, x12);
//! ```
//!
//! The crate is organised by what each module owns:
//! - [`delimiters`]: detecting separators from the fixed-width ISA segment;
//! - [`lexer`] and [`segment`]: the zero-copy tokenizer and borrowed segment views;
//! - [`index`]: the SIMD structural index (delimiter bitmasks per 64-byte block);
//! - [`stream`]: the incremental (chunk-fed) tokenizer with bounded memory;
//! - [`envelope`]: the ISA/GS/ST envelope state machine and the borrowed tree;
//! - [`diagnostics`]: the one diagnostic type every check reports with;
//! - [`json`]: the stable JSON contract of parse results;
//! - [`write`](mod@write): turning a parse result back into X12 bytes;
//! - [`documents`]: the outbound transaction sets, declared once: render, map back, validate;
//! - [`render`](mod@render) and [`partner`]: complete interchanges for a trading partner profile;
//! - [`sets`]: the registry of transaction set types, and parsing one set at a time;
//! - [`split`](mod@split): splitting X12 into interchanges of a set or a group each, and merging them;
//! - [`error`]: typed errors with stable codes for calls that fail outright;
//! - [`webhook`]: webhook signing and verification;
//! - [`mod@validate`]: the envelope rules, their acknowledgement codes and outcomes;
//! - [`ack`]: building TA1 / 997 / 999 acknowledgements and reading received ones;
//! - [`ops`]: the operations every binding and the server call (bytes and one
//!   options struct in, owned results or an [`Error`] out);
//! - [`time`](mod@time): validated dates and times ([`DateTime`]); the core never reads the
//!   clock except in [`clock`], which exists only off `wasm32-unknown-unknown`.

// No unsafe code here: what there is lives in x12kit-syntax (the SIMD
// kernels) and x12kit-json (the writer's fast path and copies).
#![forbid(unsafe_code)]

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub use x12kit_syntax::clock;
pub mod json;
pub mod ops;
pub mod sets;
pub mod validate;
pub use x12kit_edi::{ack, csv, documents, guide, partner, render, split};
pub use x12kit_json::write;
pub use x12kit_syntax::{
    delimiters, diagnostics, envelope, error, feed, index, lexer, segment, stream, time,
};
#[cfg(feature = "webhook")]
pub use x12kit_webhook as webhook;

/// Compiles and runs the Rust examples of `docs/webhooks.md` as doctests.
#[cfg(all(doctest, feature = "webhook"))]
#[doc = include_str!("../../docs/webhooks.md")]
pub struct WebhooksGuide;

pub use ack::{AckKind, AckOptions, acknowledge};
pub use delimiters::Delimiters;
pub use diagnostics::{AckCodes, Code, Diagnostic, Severity};
pub use envelope::{
    Document, Envelope, Group, Handler, Interchange, MAX_SET_BYTES, SetCap, Transaction, parse,
    parse_capped,
};
pub use error::{Error, ErrorCode, ErrorKind, Problem};
pub use json::{JsonOptions, to_json, to_json_into, to_json_with, to_json_writer, to_value};
pub use lexer::{Token, Tokenizer, segments};
pub use partner::Partner;
pub use render::{ControlNumbers, RenderOptions, Rendered, render};
pub use segment::{Element, Segment};
pub use stream::{Pull, Reader, StreamTokenizer};
pub use time::DateTime;
pub use validate::{StreamValidator, Validation, Validator, validate, validate_reader};
pub use x12kit_json::{WriteOptions, write_str};
