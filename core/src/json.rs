//! The JSON contract of a parse result (`schema/parse-result.schema.json`),
//! and writing it back to X12: the crate `x12kit-json`, with the mapped
//! `document` of the known transaction sets ([`crate::documents`]) plugged
//! into its writer.
//!
//! The shape, in short: top level `interchanges`, `diagnostics`, `prefix`
//! (a BOM or whitespace before the first ISA) and `unterminated`;
//! interchange `delimiters`, `lineBreak`, `lineBreakOverrides`, `header`
//! (ISA fields by name), `segments` (TA1/ISB/ISE), `groups`, `trailer`;
//! group `header`, `segments`, `transactions`, `trailer`; transaction
//! `type`, `controlNumber`, `implementationReference`, `segments` (the body
//! between ST and SE), `document` (the payload mapped back, for the known
//! set types), `trailer`; segment `{"id": "N1", "elements": [...]}` where
//! an element is a string, an array of components, or `{"repeat": [...]}`.
//! Envelope values are the raw element text, padding included, so that
//! writing the JSON back gives the original bytes.

use crate::documents::JsonDocuments;
use crate::envelope::Document;
use crate::error::Result;
use std::io;

#[cfg(not(target_arch = "wasm32"))]
pub use x12kit_json::AUTO_THREADS;
pub use x12kit_json::{
    GE_FIELDS, GS_FIELDS, IEA_FIELDS, ISA_FIELDS, JsonOptions, ParseOptions, SE_FIELDS, ST_FIELDS,
    delimiter_char,
};

/// Serializes a parse result to compact JSON bytes.
#[inline]
pub fn to_json(doc: &Document<'_>) -> Vec<u8> {
    x12kit_json::to_json::<JsonDocuments>(doc)
}

/// Serializes a parse result to compact JSON bytes, with options.
#[inline]
pub fn to_json_with(doc: &Document<'_>, options: &JsonOptions) -> Vec<u8> {
    x12kit_json::to_json_with::<JsonDocuments>(doc, options)
}

/// Appends the compact JSON of a parse result to `out`. Reusing one buffer
/// across calls (a server, a binding) avoids the page faults of a fresh
/// allocation as large as the output.
#[inline]
pub fn to_json_into(doc: &Document<'_>, options: &JsonOptions, out: &mut Vec<u8>) {
    x12kit_json::to_json_into::<JsonDocuments>(doc, options, out)
}

/// Serializes a parse result as JSON to a writer, compact or pretty
/// (two-space indentation), in chunks, without holding the whole text.
#[inline]
pub fn to_json_writer<W: io::Write>(
    doc: &Document<'_>,
    w: W,
    pretty: bool,
    options: &JsonOptions,
) -> io::Result<()> {
    x12kit_json::to_json_writer::<JsonDocuments, W>(doc, w, pretty, options)
}

/// Parses `input` and writes the JSON of the parse result to a writer as it
/// goes, compact or pretty: byte for byte what [`to_json_writer`] writes for
/// [`parse`](crate::parse())`(input)`, without building the tree of the
/// whole input. Each interchange is parsed, written and dropped before the
/// next one is read, so the memory this takes follows the largest
/// interchange plus the diagnostics, not the input.
///
/// `release(offset)` is called after each interchange is written: the input
/// before `offset` will not be read again (a caller that maps a file can
/// drop those pages). Returns the diagnostics (also in the JSON).
#[inline]
pub fn to_json_stream<W: io::Write>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    release: &mut dyn FnMut(usize),
) -> io::Result<Vec<crate::Diagnostic>> {
    x12kit_json::to_json_stream::<JsonDocuments, W>(input, w, pretty, options, release)
}

/// [`to_json_stream`] on worker threads: this thread parses and writes the
/// envelope, workers turn batches of sets (within an interchange as well as
/// across them) into JSON, and the results are written in input order, so
/// the bytes are the same for any `threads`. At most `2 × workers + 1`
/// batches (and their JSON) are held at once. `threads`: [`AUTO_THREADS`]
/// (0) for one worker per CPU, started only when the input has work to
/// divide (never slower than one thread: a small input, small interchanges
/// or one huge set stay on this thread); 1 for this thread alone
/// ([`to_json_stream`]); N for N workers. Not on wasm32 (no threads).
#[cfg(not(target_arch = "wasm32"))]
#[inline]
pub fn to_json_stream_threads<W: io::Write + Send>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    threads: usize,
    release: &mut dyn FnMut(usize),
) -> io::Result<Vec<crate::Diagnostic>> {
    x12kit_json::to_json_stream_threads::<JsonDocuments, W>(
        input, w, pretty, options, threads, release,
    )
}

/// [`to_json_stream_threads`] for a caller that maps a file: besides
/// `release`, `read_ahead(from, to)` says that the read-ahead of a large
/// interchange's envelope went through `input[from..to]`, which is read
/// again later: its pages may be dropped now. Not on wasm32.
#[cfg(not(target_arch = "wasm32"))]
#[inline]
pub fn to_json_stream_mapped<W: io::Write + Send>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    threads: usize,
    release: &mut dyn FnMut(usize),
    read_ahead: &mut dyn FnMut(usize, usize),
) -> io::Result<Vec<crate::Diagnostic>> {
    x12kit_json::writer::to_json_stream_mapped::<JsonDocuments, W>(
        input, w, pretty, options, threads, release, read_ahead,
    )
}

/// Parses `input` and appends the compact JSON of the parse result to `out`:
/// the bytes of [`to_json_into`] of [`parse`](crate::parse())`(input)`,
/// holding one interchange's tree at a time (see [`to_json_stream`]).
#[inline]
pub fn parse_to_json_into(input: &[u8], options: &JsonOptions, out: &mut Vec<u8>) {
    x12kit_json::parse_to_json_into::<JsonDocuments>(input, options, out)
}

/// Serializes a parse result to a `serde_json::Value` (for callers that
/// edit it before [`write`](crate::write())).
#[inline]
pub fn to_value(doc: &Document<'_>) -> Result<serde_json::Value> {
    x12kit_json::to_value::<JsonDocuments>(doc)
}

/// [`to_json_stream`] holding an interchange whole up to `hold` body
/// segments before streaming it set by set (the tests use 0 and 1 to
/// stream every interchange). Not part of the API.
#[doc(hidden)]
#[inline]
pub fn to_json_stream_holding<W: io::Write>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    hold: usize,
    release: &mut dyn FnMut(usize),
) -> io::Result<Vec<crate::Diagnostic>> {
    x12kit_json::writer::to_json_stream_holding::<JsonDocuments, W>(
        input, w, pretty, options, hold, release,
    )
}

/// [`to_json_stream_threads`] holding an interchange whole up to `hold`
/// body segments (see [`to_json_stream_holding`]), on `workers` workers
/// (1 included) started at once or, with `auto`, as [`AUTO_THREADS`]
/// starts them. Not part of the API.
#[cfg(not(target_arch = "wasm32"))]
#[doc(hidden)]
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn to_json_stream_threads_holding<W: io::Write + Send>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    workers: usize,
    auto: bool,
    hold: usize,
    release: &mut dyn FnMut(usize),
) -> io::Result<Vec<crate::Diagnostic>> {
    x12kit_json::writer::to_json_stream_threads_holding::<JsonDocuments, W>(
        input, w, pretty, options, workers, auto, hold, release,
    )
}

/// Parses `input` a transaction set at a time and hands each set to `each`
/// as one compact JSON object: `{"interchange": {ISA fields}, "group": {GS
/// fields} or null, "transaction": {the parse result's set object, with its
/// mapped `document`}, "diagnostics": [those at the set's segments]}`; the
/// memory this takes follows the largest set, not the input. `each` returns
/// `false` to stop handing sets over. Returns every diagnostic of the input
/// (envelope ones included), as [`parse`](crate::parse()) reports them. What
/// the bindings' set iterators are built on (Python `iter_transactions`,
/// Node `transactions`). `release(offset)`: the input before `offset` will
/// not be read again; `read_ahead(from, to)`: `input[from..to]` was read
/// ahead and will be read again later (a caller that maps a file may drop
/// the pages of both).
#[inline]
pub fn each_set_json(
    input: &[u8],
    options: &JsonOptions,
    each: &mut dyn FnMut(&[u8]) -> bool,
    release: &mut dyn FnMut(usize),
    read_ahead: &mut dyn FnMut(usize, usize),
) -> Vec<crate::Diagnostic> {
    x12kit_json::each_set_json::<JsonDocuments>(input, options, each, release, read_ahead)
}

/// [`each_set_json`] over an input fed in chunks of any size, for callers
/// that can neither map nor spool it (the WASM binding reading a browser's
/// `File`): `feed(chunk, each)` hands each set's object (the same bytes as
/// [`each_set_json`]) to `each` as soon as the set is complete, `finish(each)`
/// the set left open and every diagnostic. Memory follows the largest set.
///
/// ```
/// use x12kit::json::{EachSetFeeder, JsonOptions};
/// let x12 = std::fs::read("../tests/vectors/inputs/850-basic.edi").unwrap();
/// let mut reader = EachSetFeeder::new(&JsonOptions::default());
/// let mut sets = Vec::new();
/// for chunk in x12.chunks(7) {
///     reader.feed(chunk, &mut |set| { sets.push(set.to_vec()); true });
/// }
/// let diagnostics = reader.finish(&mut |set| { sets.push(set.to_vec()); true });
/// assert_eq!(sets.len(), 1);
/// assert!(diagnostics.is_empty());
/// ```
pub type EachSetFeeder = x12kit_json::EachSetFeeder<JsonDocuments>;

/// [`each_set_json`] holding an interchange whole up to `hold` body
/// segments (the tests stream every interchange with 0). Not part of the API.
#[doc(hidden)]
pub fn each_set_json_holding(
    input: &[u8],
    options: &JsonOptions,
    hold: usize,
    each: &mut dyn FnMut(&[u8]) -> bool,
) -> Vec<crate::Diagnostic> {
    x12kit_json::writer::each_set_json_holding::<JsonDocuments>(
        input,
        options,
        hold,
        each,
        &mut |_| {},
        &mut |_, _| {},
    )
}
