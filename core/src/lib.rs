//! x12kit: a fast, correct X12 EDI toolkit.
//!
//! The crate is organised by what each module owns:
//! - [`delimiters`]: detecting separators from the fixed-width ISA segment;
//! - [`lexer`] and [`segment`]: the zero-copy tokenizer and borrowed segment views;
//! - [`stream`]: the incremental (chunk-fed) tokenizer with bounded memory;
//! - [`envelope`]: the ISA/GS/ST envelope state machine and the borrowed tree;
//! - [`diagnostics`]: the one diagnostic type every check reports with;
//! - [`json`]: the stable JSON contract of parse results;
//! - [`write`]: turning a parse result back into X12 bytes;
//! - [`webhook`]: webhook signing and verification.

pub mod webhook;
pub mod delimiters;
pub mod diagnostics;
pub mod envelope;
pub mod lexer;
pub mod segment;
pub mod stream;
