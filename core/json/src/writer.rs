//! The JSON contract of a parse result.
//!
//! [`to_json`] / [`to_json_writer`] write a [`Document`] straight from the
//! borrowed tree, without building an intermediate value: elements are split
//! and escaped in one pass over each segment with a byte-class table built
//! from the interchange's delimiters. The shape is
//! documented by `schema/parse-result.schema.json` and is the same in every
//! binding and in the HTTP API:
//!
//! - top level: `interchanges`, `diagnostics`, `prefix` when the input
//!   starts with a BOM or whitespace, and `unterminated: true` when its last
//!   segment has no terminator;
//! - interchange: `delimiters`, `lineBreak` (what follows each terminator),
//!   `lineBreakOverrides` (segment index → line break, only where one differs),
//!   `header` (ISA fields by name), `segments` (TA1/ISB/ISE, only when
//!   present; each with `afterGroup` when it follows a group rather than
//!   preceding the first one),
//!   `groups`, `trailer` (IEA, or null when missing);
//! - group: `header` (GS, or null for sets found outside a group), `segments`
//!   (misplaced ones, only when present), `transactions`, `trailer` (GE or null);
//! - transaction: `type`, `controlNumber`, `implementationReference` (ST03,
//!   when present), `segments` (the body between ST and SE), `document` (the
//!   payload JSON mapped back, for the declared set types, through [`crate::mapping::SetMapper`]),
//!   `trailer` (SE or null);
//! - segment: `{"id": "N1", "elements": [...]}` where an element is a string
//!   (simple), an array of strings (a composite's components), or
//!   `{"repeat": [...]}` whose items are strings or arrays of strings.
//!
//! Envelope values are the raw element text, padding included, so that
//! writing the JSON back gives the original bytes. Delimiters and line
//! breaks are one-character strings; a byte 0x80–0xFF is written as the
//! character with the same code point (U+0080–U+00FF).

use crate::mapping::Documents;
use crate::pretty::Pretty;
use emit::JsonWriter;
use serde::Deserialize;
use std::io;
use x12kit_syntax::Diagnostic;
use x12kit_syntax::envelope::{Document, SetCap};
use x12kit_syntax::sets::{HOLD, parse_sets};

mod each;
pub use each::EachSetFeeder;
mod emit;
mod sets;
#[cfg(not(target_arch = "wasm32"))]
mod threads;

/// What the JSON of a parse result includes: the options of a parse
/// (JSON `{"documents"}`, as every binding takes them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ParseOptions {
    /// Map the declared transaction set types back to their payload
    /// (`document` beside `segments`). On by default; turning it off makes
    /// bulk conversion of those types several times faster.
    pub documents: bool,
    /// The cap on one transaction set, in bytes (ST up to its SE; 0: no
    /// cap). A larger set is a `SET_TOO_LARGE` error at its ST and is
    /// written with no segments and no `document`; the sets after it
    /// follow as usual. Default [`MAX_SET_BYTES`](x12kit_syntax::envelope::MAX_SET_BYTES).
    pub max_set_bytes: SetCap,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            documents: true,
            max_set_bytes: SetCap::default(),
        }
    }
}

/// [`ParseOptions`] under the name the JSON functions have always used
/// (the same type).
pub type JsonOptions = ParseOptions;

/// Serializes a parse result to compact JSON bytes.
pub fn to_json<D: Documents>(doc: &Document<'_>) -> Vec<u8> {
    to_json_with::<D>(doc, &JsonOptions::default())
}

/// Serializes a parse result to compact JSON bytes, with options.
pub fn to_json_with<D: Documents>(doc: &Document<'_>, options: &JsonOptions) -> Vec<u8> {
    let mut out = Vec::with_capacity(doc.input().len() * 2 + 256);
    to_json_into::<D>(doc, options, &mut out);
    out
}

/// Appends the compact JSON of a parse result to `out`. Reusing one buffer
/// across calls (a server, a binding) avoids the page faults of a fresh
/// allocation as large as the output.
pub fn to_json_into<D: Documents>(doc: &Document<'_>, options: &JsonOptions, out: &mut Vec<u8>) {
    let mut w = JsonWriter::<D::Mapper<'_>>::new(std::mem::take(out), usize::MAX);
    w.documents = options.documents;
    w.document(doc);
    *out = w.buf;
}

/// The JSON of `doc` written with the fast paths of plain segments and
/// envelope fields, and by the general path alone: the two the tests
/// compare (here without documents, in `x12kit` with them). Not part of
/// the API.
#[doc(hidden)]
pub fn fast_and_reference<D: Documents>(doc: &Document<'_>) -> (Vec<u8>, Vec<u8>) {
    let run = |fast: bool| {
        let mut w = JsonWriter::<D::Mapper<'_>>::new(Vec::new(), usize::MAX);
        w.fast = fast;
        w.document(doc);
        w.buf
    };
    (run(true), run(false))
}

/// Serializes a parse result as JSON to a writer, compact or pretty
/// (two-space indentation), in chunks, without holding the whole text.
pub fn to_json_writer<D: Documents, W: io::Write>(
    doc: &Document<'_>,
    w: W,
    pretty: bool,
    options: &JsonOptions,
) -> io::Result<()> {
    let sink: Box<dyn io::Write + '_> = if pretty {
        Box::new(Pretty::new(w))
    } else {
        Box::new(w)
    };
    let mut jw = JsonWriter::<D::Mapper<'_>>::new(Vec::with_capacity(1 << 16), 1 << 16);
    jw.documents = options.documents;
    jw.sink = Some(sink);
    jw.document(doc);
    jw.flush_all()
}

/// Parses `input` and writes the JSON of the parse result to a writer as it
/// goes, compact or pretty: byte for byte what [`to_json_writer`] writes for
/// [`parse`](x12kit_syntax::parse())`(input)`, without building the tree of the
/// whole input. Each transaction set is parsed, written and dropped before
/// the next one is read ([`parse_sets`]), so the memory this takes follows
/// the largest set plus the diagnostics, not the input nor an interchange:
/// an interchange is held whole only while it is small
/// ([`HOLD`] body segments); past that, its
/// envelope (which the contract writes around its sets: an interchange's
/// `segments`, wherever they appear, come before its `groups`) is read
/// ahead and its sets are written as they close.
///
/// `release(offset)` is called after each interchange is written, and every
/// few MiB of a streamed one: the input before `offset` will not be read
/// again (a caller that maps a file can drop those pages; envelope segments
/// read ahead may be read again). Returns the diagnostics (also in the JSON).
pub fn to_json_stream<D: Documents, W: io::Write>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    release: &mut dyn FnMut(usize),
) -> io::Result<Vec<Diagnostic>> {
    to_json_stream_holding::<D, W>(input, w, pretty, options, HOLD, release)
}

/// [`to_json_stream`] holding an interchange whole up to `hold` body
/// segments ([`parse_sets`]): the tests stream every interchange set by set
/// with a `hold` of 0. Not part of the API.
#[doc(hidden)]
pub fn to_json_stream_holding<D: Documents, W: io::Write>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    hold: usize,
    release: &mut dyn FnMut(usize),
) -> io::Result<Vec<Diagnostic>> {
    let sink: Box<dyn io::Write + '_> = if pretty {
        Box::new(Pretty::new(w))
    } else {
        Box::new(w)
    };
    let mut jw = JsonWriter::<D::Mapper<'_>>::new(Vec::with_capacity(1 << 17), 1 << 16);
    jw.documents = options.documents;
    jw.sink = Some(sink);
    jw.raw(b"{\"interchanges\":[");
    let mut sets = sets::SetWriter::new(jw, release);
    let doc = parse_sets(input, hold, options.max_set_bytes, &mut sets);
    let mut jw = sets.jw;
    jw.tail(&doc);
    jw.flush_all()?;
    Ok(doc.diagnostics)
}

/// [`to_json_stream`] on worker threads: this thread parses
/// ([`parse_sets`]) and writes the envelope around the sets, the workers
/// turn batches of sets (about 2 000 body segments each, within an
/// interchange as well as across them) into JSON, and the results are
/// written in input order, so the bytes are the same for any number of
/// threads. At most `2 × workers + 1` batches (and their JSON) are held at
/// once. Not on wasm32 (no threads).
///
/// `threads`: [`AUTO_THREADS`] (0) for one worker per CPU
/// ([`std::thread::available_parallelism`]) started only when the input
/// has work to divide (a batch of sets fills), so that it is never slower
/// than one thread: an input smaller than a batch, or whose interchanges
/// and groups are all smaller than one, is written on this thread alone,
/// and so is one set that is at least as large as the rest of the input
/// (with any number of workers: there is nothing to parse beside it). 1:
/// this thread alone ([`to_json_stream`]); N > 1: N workers, started at
/// once.
#[cfg(not(target_arch = "wasm32"))]
pub fn to_json_stream_threads<D: Documents, W: io::Write + Send>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    threads: usize,
    release: &mut dyn FnMut(usize),
) -> io::Result<Vec<Diagnostic>> {
    let Some((workers, pool)) = workers(threads, input.len()) else {
        return to_json_stream::<D, W>(input, w, pretty, options, release);
    };
    threads::stream::<D, W>(
        input,
        w,
        pretty,
        options.documents,
        options.max_set_bytes,
        workers,
        pool,
        HOLD,
        release,
        None,
    )
}

/// The `threads` of [`to_json_stream_threads`] that means one worker per
/// CPU, started when the input has work to divide.
#[cfg(not(target_arch = "wasm32"))]
pub const AUTO_THREADS: usize = 0;

/// The workers for `threads` ([`to_json_stream_threads`]) on an input of
/// `len` bytes and how they start, or `None` for the calling thread alone.
#[cfg(not(target_arch = "wasm32"))]
fn workers(threads: usize, len: usize) -> Option<(usize, threads::Pool)> {
    match threads {
        // Too short to fill a batch: the workers would never start.
        AUTO_THREADS if len < threads::SHORTEST_BATCH => None,
        AUTO_THREADS => {
            // Asked once: on Linux it reads the cgroup's CPU quota from
            // files, tens of microseconds (as long as a small parse).
            static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
            let n =
                *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            (n > 1).then_some((n, threads::Pool::Auto))
        }
        1 => None,
        n => Some((n, threads::Pool::Eager)),
    }
}

/// [`to_json_stream_threads`] (any `threads`, 1 included) for a caller
/// that maps a file: besides `release`, `read_ahead(from, to)` says that
/// the read-ahead of a large interchange's envelope went through
/// `input[from..to]`, which will be read again later: its pages may be
/// dropped now (they are loaded again when read), so that the memory a
/// mapped input takes stays bounded too.
#[cfg(not(target_arch = "wasm32"))]
pub fn to_json_stream_mapped<D: Documents, W: io::Write + Send>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    threads: usize,
    release: &mut dyn FnMut(usize),
    read_ahead: &mut dyn FnMut(usize, usize),
) -> io::Result<Vec<Diagnostic>> {
    if let Some((workers, pool)) = workers(threads, input.len()) {
        return threads::stream::<D, W>(
            input,
            w,
            pretty,
            options.documents,
            options.max_set_bytes,
            workers,
            pool,
            HOLD,
            release,
            Some(read_ahead),
        );
    }
    let sink: Box<dyn io::Write + '_> = if pretty {
        Box::new(Pretty::new(w))
    } else {
        Box::new(w)
    };
    let mut jw = JsonWriter::<D::Mapper<'_>>::new(Vec::with_capacity(1 << 17), 1 << 16);
    jw.documents = options.documents;
    jw.sink = Some(sink);
    jw.raw(b"{\"interchanges\":[");
    let mut sets = sets::SetWriter::new(jw, release);
    sets.ahead = Some(read_ahead);
    let doc = parse_sets(input, HOLD, options.max_set_bytes, &mut sets);
    let mut jw = sets.jw;
    jw.tail(&doc);
    jw.flush_all()?;
    Ok(doc.diagnostics)
}

/// Parses `input` a transaction set at a time ([`parse_sets`]) and hands
/// each set to `each` as one compact JSON object: `{"interchange": {the ISA
/// fields, as the parse result's interchange `header`}, "group": {the GS
/// fields} or null, "transaction": {the parse result's set object: `type`,
/// `controlNumber`, `segments`, `document`, `trailer`}, "diagnostics":
/// [the diagnostics at the set's segments, ST through SE]}`. The bytes are
/// reused from set to set; `each` returns `false` to stop (the rest of the
/// input is still read for its diagnostics, but no set is written).
/// `release(offset)` as for [`to_json_stream`], `read_ahead(from, to)` as
/// for [`to_json_stream_mapped`] (a caller that maps a file drops those
/// pages: the memory a mapped input takes stays bounded too). Returns every diagnostic of
/// the input, as [`parse`](x12kit_syntax::parse()) reports them (those of
/// the envelope included). Memory follows the largest set (plus an
/// interchange held while it is small: [`HOLD`] body segments).
pub fn each_set_json<D: Documents>(
    input: &[u8],
    options: &JsonOptions,
    each: &mut dyn FnMut(&[u8]) -> bool,
    release: &mut dyn FnMut(usize),
    read_ahead: &mut dyn FnMut(usize, usize),
) -> Vec<Diagnostic> {
    each_set_json_holding::<D>(input, options, HOLD, each, release, read_ahead)
}

/// [`each_set_json`] holding an interchange whole up to `hold` body
/// segments (the tests stream every interchange with 0). Not part of the API.
#[doc(hidden)]
pub fn each_set_json_holding<D: Documents>(
    input: &[u8],
    options: &JsonOptions,
    hold: usize,
    each: &mut dyn FnMut(&[u8]) -> bool,
    release: &mut dyn FnMut(usize),
    read_ahead: &mut dyn FnMut(usize, usize),
) -> Vec<Diagnostic> {
    let mut jw = JsonWriter::<D::Mapper<'_>>::new(Vec::with_capacity(1 << 16), usize::MAX);
    jw.documents = options.documents;
    let mut sets = each::EachSet::new(jw, each, release, read_ahead);
    parse_sets(input, hold, options.max_set_bytes, &mut sets).diagnostics
}

impl<D: Documents> EachSetFeeder<D> {
    /// A reader writing sets as `options` say (`documents`, `max_set_bytes`).
    pub fn new(options: &JsonOptions) -> Self {
        EachSetFeeder::with(options.documents, options.max_set_bytes)
    }
}

/// [`to_json_stream_threads`] holding an interchange whole up to `hold`
/// body segments (see [`to_json_stream_holding`]), on `workers` workers
/// (at least one, 1 included), started at once or, with `auto`, as
/// [`AUTO_THREADS`] starts them. Not part of the API.
#[cfg(not(target_arch = "wasm32"))]
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn to_json_stream_threads_holding<D: Documents, W: io::Write + Send>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    workers: usize,
    auto: bool,
    hold: usize,
    release: &mut dyn FnMut(usize),
) -> io::Result<Vec<Diagnostic>> {
    threads::stream::<D, W>(
        input,
        w,
        pretty,
        options.documents,
        options.max_set_bytes,
        workers.max(1),
        if auto {
            threads::Pool::Auto
        } else {
            threads::Pool::Eager
        },
        hold,
        release,
        None,
    )
}

/// Parses `input` and appends the compact JSON of the parse result to `out`:
/// the bytes of [`to_json_into`] of [`parse`](x12kit_syntax::parse())`(input)`,
/// holding one interchange's tree at a time (see [`to_json_stream`]).
pub fn parse_to_json_into<D: Documents>(input: &[u8], options: &JsonOptions, out: &mut Vec<u8>) {
    let mut jw = JsonWriter::<D::Mapper<'_>>::new(std::mem::take(out), usize::MAX);
    jw.buf
        .reserve(output_estimate(input.len(), options.documents));
    jw.documents = options.documents;
    jw.raw(b"{\"interchanges\":[");
    let mut first = true;
    let doc = x12kit_syntax::envelope::parse_each(input, options.max_set_bytes, |doc, _| {
        for i in &doc.interchanges {
            if !first {
                jw.buf.push(b',');
            }
            first = false;
            jw.interchange(doc, i);
        }
    });
    jw.tail(&doc);
    *out = jw.buf;
}

/// How many bytes of JSON to reserve for the parse result of `len` bytes
/// of X12: enough that the output is rarely grown (each growth copies all
/// of it). The JSON is about 2-3 bytes a byte of X12 without documents and
/// 4-4.5 with them; reserved pages that are not written are never touched,
/// so a generous estimate costs address space only. On wasm32 memory that
/// is reserved is memory taken, so the estimate stays low there.
fn output_estimate(len: usize, documents: bool) -> usize {
    let per_byte = if cfg!(target_arch = "wasm32") {
        2
    } else if documents {
        5
    } else {
        3
    };
    len.saturating_mul(per_byte).saturating_add(256)
}

/// Serializes a parse result to a `serde_json::Value` (for callers that
/// edit it before [`write`](crate::write())); `INTERNAL` would mean the
/// writer produced invalid JSON, which the tests rule out.
pub fn to_value<D: Documents>(
    doc: &Document<'_>,
) -> x12kit_syntax::error::Result<serde_json::Value> {
    serde_json::from_slice(&to_json::<D>(doc)).map_err(x12kit_syntax::Error::internal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoDocuments;
    use serde_json::json;
    use x12kit_syntax::envelope::parse;

    fn to_json(doc: &Document<'_>) -> Vec<u8> {
        super::to_json::<NoDocuments>(doc)
    }

    fn to_value(doc: &Document<'_>) -> x12kit_syntax::error::Result<serde_json::Value> {
        super::to_value::<NoDocuments>(doc)
    }

    #[test]
    fn each_interchange_says_its_own_delimiters_and_line_break() {
        let a = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000001*0*T*:~\nIEA*0*000000001~\n";
        let b = "ISA|00|          |00|          |ZZ|SENDER         |ZZ|RECEIVER       |230101|1200|U|00401|000000002|0|T|>!\r\nIEA|0|000000002!\r\n";
        let c = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000003*0*T*:~IEA*0*000000003~";
        let input = [a, b, a, c, c].concat();
        let v = to_value(&parse(input.as_bytes())).unwrap();
        let star = json!({"element":"*","component":":","repetition":"^","segment":"~"});
        let bar = json!({"element":"|","component":">","repetition":null,"segment":"!"});
        let expect = [
            (&star, "\n"),
            (&bar, "\r\n"),
            (&star, "\n"),
            (&star, ""),
            (&star, ""),
        ];
        for (n, (d, lb)) in expect.iter().enumerate() {
            let i = &v["interchanges"][n];
            assert_eq!(&i["delimiters"], *d, "interchange {n}");
            assert_eq!(i["lineBreak"], *lb, "interchange {n}");
        }
    }

    #[test]
    fn shape_of_a_small_interchange() {
        let input = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000001*0*T*:~\nGS*PO*S*R*20230101*1200*1*X*005010~\nST*850*0001~\nREF*ZZ*A:B*C^D:E~\nSE*3*0001~\nGE*1*1~\nIEA*1*000000001~";
        let v = to_value(&parse(input)).unwrap();
        let i = &v["interchanges"][0];
        assert_eq!(
            i["delimiters"],
            json!({"element":"*","component":":","repetition":"^","segment":"~"})
        );
        assert_eq!(i["lineBreak"], "\n");
        assert_eq!(i["lineBreakOverrides"], json!({"6": ""}));
        assert_eq!(i["header"]["senderId"], "SENDER         ");
        assert_eq!(i["header"]["componentSeparator"], ":");
        assert_eq!(
            i["trailer"],
            json!({"groupCount":"1","controlNumber":"000000001"})
        );
        let g = &i["groups"][0];
        assert_eq!(g["header"]["functionalId"], "PO");
        assert_eq!(
            g["trailer"],
            json!({"transactionCount":"1","controlNumber":"1"})
        );
        let t = &g["transactions"][0];
        assert_eq!(t["type"], "850");
        assert_eq!(t["controlNumber"], "0001");
        assert!(t.get("implementationReference").is_none());
        assert_eq!(
            t["segments"],
            json!([{"id":"REF","elements":["ZZ",["A","B"],{"repeat":["C",["D","E"]]}]}])
        );
        assert_eq!(
            t["trailer"],
            json!({"segmentCount":"3","controlNumber":"0001"})
        );
        assert_eq!(v["diagnostics"], json!([]));
        assert!(v.get("prefix").is_none());
    }

    #[test]
    fn escapes_and_decodes_like_serde_json() {
        let input = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*T*:~ST*850*0001~N1*ST*Caf\u{e9} \"Q\" \\ \t\u{1}~N2*\u{7f}*\u{1f600}:x~SE*3*0001~";
        let mut bytes = input.as_bytes().to_vec();
        bytes.extend_from_slice(b"N3*bad\xFF~");
        let doc = parse(&bytes);
        let v = to_value(&doc).unwrap();
        let segs = &v["interchanges"][0]["groups"][0]["transactions"][0]["segments"];
        assert_eq!(
            segs[0]["elements"],
            json!(["ST", "Caf\u{e9} \"Q\" \\ \t\u{1}"])
        );
        assert_eq!(segs[1]["elements"], json!(["\u{7f}", ["\u{1f600}", "x"]]));
        let mut pretty = Vec::new();
        super::to_json_writer::<NoDocuments, _>(&doc, &mut pretty, true, &JsonOptions::default())
            .unwrap();
        let expected = serde_json::to_string_pretty(&v).unwrap();
        let ours: serde_json::Value = serde_json::from_slice(&pretty).unwrap();
        assert_eq!(ours, v);
        let pretty = String::from_utf8(pretty).unwrap();
        assert!(
            pretty.starts_with(
                "{
  \"interchanges\": [
    {
      \"delimiters\": {
        \"element\": \"*\",
"
            ),
            "{pretty}"
        );
        // Same indentation style as serde_json's pretty printer.
        assert!(expected.contains(
            "
  \"interchanges\": [
    {
"
        ));
        let mut compact = Vec::new();
        super::to_json_writer::<NoDocuments, _>(&doc, &mut compact, false, &JsonOptions::default())
            .unwrap();
        assert_eq!(compact, to_json(&doc));
    }

    #[test]
    fn missing_trailers_are_null_and_extra_elements_kept() {
        let input = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*T*:~ST*850*0001*X*Y~";
        let v = to_value(&parse(input)).unwrap();
        let g = &v["interchanges"][0]["groups"][0];
        assert_eq!(g["header"], serde_json::Value::Null);
        assert_eq!(g["transactions"][0]["implementationReference"], "X");
        assert_eq!(g["transactions"][0]["extra"], json!(["Y"]));
        assert_eq!(g["transactions"][0]["trailer"], serde_json::Value::Null);
        assert_eq!(v["interchanges"][0]["trailer"], serde_json::Value::Null);
    }
}
