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

use crate::copy::{append, put, put_key};
use crate::fields::{Fields, GE, GS, IEA, ISA, SE, ST};
use crate::mapping::{Documents, SetMapper};
use crate::plain;
use crate::pretty::Pretty;
use serde::Deserialize;
use std::io;
use x12kit_syntax::Diagnostic;
use x12kit_syntax::delimiters::Delimiters;
use x12kit_syntax::envelope::{Document, Group, Interchange, Transaction};
use x12kit_syntax::escape::escape_into;
use x12kit_syntax::segment::Segment;
use x12kit_syntax::sets::{HOLD, parse_sets};

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
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions { documents: true }
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
/// ([`HOLD`](x12kit_syntax::sets::HOLD) body segments); past that, its
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
    let doc = parse_sets(input, hold, &mut sets);
    let mut jw = sets.jw;
    jw.tail(&doc);
    jw.flush_all()?;
    Ok(doc.diagnostics)
}

/// [`to_json_stream`] on `threads` threads: this thread parses
/// ([`parse_sets`]) and writes the envelope around the sets, `threads`
/// workers turn batches of sets (about 2 000 body segments each, within an
/// interchange as well as across them) into JSON, and the results are
/// written in input order, so the bytes are the same for any number of
/// threads. At most `2 × threads + 1` batches (and their JSON) are held at
/// once. With `threads <= 1` this is [`to_json_stream`]. Not on wasm32 (no
/// threads).
#[cfg(not(target_arch = "wasm32"))]
pub fn to_json_stream_threads<D: Documents, W: io::Write + Send>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    threads: usize,
    release: &mut dyn FnMut(usize),
) -> io::Result<Vec<Diagnostic>> {
    if threads <= 1 {
        return to_json_stream::<D, W>(input, w, pretty, options, release);
    }
    threads::stream::<D, W>(input, w, pretty, options, threads, HOLD, release, None)
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
    if threads > 1 {
        return threads::stream::<D, W>(
            input,
            w,
            pretty,
            options,
            threads,
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
    let doc = parse_sets(input, HOLD, &mut sets);
    let mut jw = sets.jw;
    jw.tail(&doc);
    jw.flush_all()?;
    Ok(doc.diagnostics)
}

/// [`to_json_stream_threads`] holding an interchange whole up to `hold`
/// body segments (see [`to_json_stream_holding`]). Not part of the API.
#[cfg(not(target_arch = "wasm32"))]
#[doc(hidden)]
pub fn to_json_stream_threads_holding<D: Documents, W: io::Write + Send>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    threads: usize,
    hold: usize,
    release: &mut dyn FnMut(usize),
) -> io::Result<Vec<Diagnostic>> {
    threads::stream::<D, W>(
        input,
        w,
        pretty,
        options,
        threads.max(1),
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
    let doc = x12kit_syntax::envelope::parse_each(input, |doc, _| {
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

/// Whether two line breaks are the same: they are a few bytes, compared
/// here rather than with a call to memcmp (which a slice `==` makes).
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Index of a group's first segment (GS, or the first ST of an implicit group).
fn group_start(g: &Group<'_>) -> usize {
    match (&g.gs, g.transactions.first()) {
        (Some(gs), _) => gs.index(),
        (None, Some(t)) => t.st.index(),
        // Not reached: an implicit group opens with its first set.
        (None, None) => usize::MAX,
    }
}

// Byte classes for one interchange.
const COMPONENT: u8 = 1;
const REPETITION: u8 = 2;
/// `"`, `\` and control bytes: need a JSON escape.
const ESCAPE: u8 = 4;
/// Bytes >= 0x80: need UTF-8 checking.
const HIGH: u8 = 8;
const ELEMENT: u8 = 16;

/// Whether the component and repetition separators are text a JSON string
/// holds as it is (printable ASCII other than `"` and `\\`): then a segment
/// written by [`plain::segment`] holds nothing else in its texts, and an id
/// holding them needs no escaping either.
fn separators_clean(d: &Delimiters) -> bool {
    let clean = |c: u8| (0x20..0x80).contains(&c) && c != b'"' && c != b'\\';
    clean(d.component) && d.repetition.is_none_or(clean)
}

fn classes(d: &Delimiters) -> [u8; 256] {
    let mut t = [0u8; 256];
    for (b, c) in t.iter_mut().enumerate() {
        if b < 0x20 || b == b'"' as usize || b == b'\\' as usize {
            *c |= ESCAPE;
        }
        if b >= 0x80 {
            *c |= HIGH;
        }
    }
    // OR, not assign: a delimiter such as `\` still needs escaping where it
    // appears as a value (ISA11, ISA16).
    t[d.component as usize] |= COMPONENT;
    if let Some(r) = d.repetition {
        t[r as usize] |= REPETITION;
    }
    t[d.element as usize] |= ELEMENT;
    t
}

struct JsonWriter<'a, 's, M> {
    buf: Vec<u8>,
    flush_at: usize,
    sink: Option<Box<dyn io::Write + 's>>,
    error: Option<io::Error>,
    class: [u8; 256],
    /// [`separators_clean`] of `delims`.
    separators_clean: bool,
    delims: Delimiters,
    line_break: &'a [u8],
    /// The line break of the interchange before (see [`JsonWriter::prepare`]).
    line_break_was: &'a [u8],
    /// The opening of the last interchange written, up to its line break
    /// (see [`JsonWriter::interchange`]).
    head: Vec<u8>,
    overrides: Vec<(usize, &'a [u8])>,
    /// True while writing the ISA header.
    isa: bool,
    /// Whether to write `document` for known set types.
    documents: bool,
    /// Document mapping buffers, reused from set to set.
    mapper: M,
    /// Whether segments take [`plain::segment`] when they can (the tests
    /// turn it off to compare it with the general path).
    fast: bool,
}

impl<'a, 's, M: SetMapper<'a>> JsonWriter<'a, 's, M> {
    fn new(buf: Vec<u8>, flush_at: usize) -> Self {
        JsonWriter {
            buf,
            flush_at,
            sink: None,
            error: None,
            class: classes(&Delimiters::default()),
            separators_clean: separators_clean(&Delimiters::default()),
            delims: Delimiters::default(),
            line_break: b"",
            line_break_was: b"",
            head: Vec::new(),
            overrides: Vec::new(),
            isa: false,
            documents: true,
            mapper: Default::default(),
            fast: true,
        }
    }

    #[inline]
    fn raw(&mut self, s: &[u8]) {
        self.buf.extend_from_slice(s);
    }

    #[inline]
    fn maybe_flush(&mut self) {
        if self.buf.len() >= self.flush_at {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if let Some(sink) = &mut self.sink {
            if self.error.is_none() {
                if let Err(e) = sink.write_all(&self.buf) {
                    self.error = Some(e);
                }
            }
            self.buf.clear();
        }
    }

    fn flush_all(mut self) -> io::Result<()> {
        self.flush();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        match &mut self.sink {
            Some(s) => s.flush(),
            None => Ok(()),
        }
    }

    /// A JSON string from raw bytes: escaped, and lossily decoded if not UTF-8.
    fn string(&mut self, b: &[u8]) {
        self.buf.push(b'"');
        let flags = b.iter().fold(0u8, |f, &c| f | self.class[c as usize]);
        self.string_body(b, flags);
        self.buf.push(b'"');
    }

    /// The inside of a JSON string; `flags` are the byte classes seen in `b`.
    #[inline]
    fn string_body(&mut self, b: &[u8], flags: u8) {
        if flags & (ESCAPE | HIGH) == 0 {
            self.buf.extend_from_slice(b);
            return;
        }
        let lossy;
        let b = if flags & HIGH != 0 && std::str::from_utf8(b).is_err() {
            lossy = String::from_utf8_lossy(b).into_owned().into_bytes();
            &lossy[..]
        } else {
            b
        };
        escape_into(b, &mut self.buf);
    }

    /// `"k":`, after a `,` unless it is the first member. Keys are
    /// names of this module, which need no escaping.
    #[inline]
    fn key(&mut self, first: &mut bool, k: &str) {
        if *first {
            *first = false;
            append(&mut self.buf, b"\"");
            append(&mut self.buf, k.as_bytes());
            append(&mut self.buf, b"\":");
        } else {
            put_key(&mut self.buf, b',', k.as_bytes());
        }
    }

    fn document(&mut self, doc: &Document<'a>) {
        self.raw(b"{\"interchanges\":[");
        for (n, i) in doc.interchanges.iter().enumerate() {
            if n > 0 {
                self.buf.push(b',');
            }
            self.interchange(doc, i);
        }
        self.tail(doc);
    }

    /// What follows the interchanges: diagnostics, prefix, unterminated.
    fn tail(&mut self, doc: &Document<'a>) {
        self.raw(b"],\"diagnostics\":");
        // Diagnostics are few; serde_json writes them (to a Vec, which cannot fail).
        let _ = serde_json::to_writer(&mut self.buf, &doc.diagnostics);
        if !doc.prefix.is_empty() {
            self.raw(b",\"prefix\":");
            self.string(doc.prefix);
        }
        if doc.unterminated {
            self.raw(b",\"unterminated\":true");
        }
        self.buf.push(b'}');
        self.maybe_flush();
    }

    /// A delimiter as a one-character string, as [`delimiter_char`] gives
    /// it, without allocating.
    fn delimiter(&mut self, b: u8) {
        let mut utf8 = [0u8; 4];
        let s = char::from(b).encode_utf8(&mut utf8);
        self.string(s.as_bytes());
    }

    fn interchange(&mut self, doc: &Document<'a>, i: &Interchange<'a>) {
        let starts: Vec<usize> = if i.segments.is_empty() {
            Vec::new()
        } else {
            i.groups.iter().map(group_start).collect()
        };
        self.interchange_open(i, &starts);
        for (n, g) in i.groups.iter().enumerate() {
            if n > 0 {
                self.buf.push(b',');
            }
            self.group(doc, g);
        }
        self.interchange_close(i.iea.as_ref());
    }

    /// The delimiters of the interchange whose ISA is `isa` and its line
    /// break: the byte classes, and what notes line break overrides.
    fn prepare(&mut self, isa: &Segment<'a>) -> bool {
        let d = isa.delimiters();
        // Most inputs use the same delimiters in every interchange: the
        // table is built again only when they change.
        // (`class` and `separators_clean` always hold what `delims` give.)
        let same_delimiters = d.bytes() == self.delims.bytes();
        if !same_delimiters {
            self.class = classes(&d);
            self.separators_clean = separators_clean(&d);
        }
        self.delims = d;
        self.line_break_was = self.line_break;
        self.line_break = isa.suffix();
        same_delimiters
    }

    /// An interchange up to its groups (`"groups":[`): delimiters, line
    /// break, header and the segments directly inside it; `starts` holds
    /// the index of each group's first segment (for `afterGroup`).
    fn interchange_open(&mut self, i: &Interchange<'a>, starts: &[usize]) {
        let same_delimiters = self.prepare(&i.isa);
        let d = self.delims;
        let line_break = self.line_break;
        // So is the opening that says them and the line break: written
        // again only when one of them changes.
        // (`head` always holds the opening of `delims` and `line_break`.)
        if same_delimiters && same(line_break, self.line_break_was) && !self.head.is_empty() {
            append(&mut self.buf, &self.head);
        } else {
            let at = self.buf.len();
            self.raw(b"{\"delimiters\":{\"element\":");
            self.delimiter(d.element);
            self.raw(b",\"component\":");
            self.delimiter(d.component);
            self.raw(b",\"repetition\":");
            if d.repetition.is_some() {
                self.delimiter(d.repetition_byte());
            } else {
                self.raw(b"null");
            }
            self.raw(b",\"segment\":");
            self.delimiter(d.segment);
            self.raw(b"},\"lineBreak\":");
            self.string(line_break);
            self.head.clear();
            self.head.extend_from_slice(&self.buf[at..]);
        }
        self.overrides.clear();
        self.raw(b",\"header\":");
        self.fields(&ISA, &i.isa, true);
        if !i.segments.is_empty() {
            self.raw(b",\"segments\":[");
            for (n, seg) in i.segments.iter().enumerate() {
                if n > 0 {
                    self.buf.push(b',');
                }
                let after = starts.iter().filter(|&&s| s < seg.index()).count();
                self.segment(seg, after.checked_sub(1));
            }
            self.buf.push(b']');
        }
        self.raw(b",\"groups\":[");
    }

    /// The end of an interchange: its trailer and line break overrides.
    fn interchange_close(&mut self, iea: Option<&Segment<'a>>) {
        self.raw(b"],\"trailer\":");
        self.trailer(&IEA, iea);
        // Collected while writing every segment of the interchange above.
        let overrides = std::mem::take(&mut self.overrides);
        if !overrides.is_empty() {
            self.raw(b",\"lineBreakOverrides\":{");
            for (n, (k, v)) in overrides.iter().enumerate() {
                if n > 0 {
                    self.buf.push(b',');
                }
                self.buf.push(b'"');
                self.raw(k.to_string().as_bytes());
                self.raw(b"\":");
                self.string(v);
            }
            self.buf.push(b'}');
        }
        self.overrides = overrides;
        self.buf.push(b'}');
    }

    /// Records a segment whose line break differs from the interchange's.
    #[inline]
    fn note(&mut self, seg: &Segment<'a>) {
        if !same(seg.suffix(), self.line_break) {
            self.overrides.push((seg.index(), seg.suffix()));
        }
    }

    fn group(&mut self, doc: &Document<'a>, g: &Group<'a>) {
        self.group_open(g);
        for (n, t) in g.transactions.iter().enumerate() {
            if n > 0 {
                self.buf.push(b',');
            }
            self.transaction(doc, g, t);
        }
        self.group_close(g.ge.as_ref());
    }

    /// A group up to its sets (`"transactions":[`).
    fn group_open(&mut self, g: &Group<'a>) {
        self.raw(b"{\"header\":");
        self.trailer(&GS, g.gs.as_ref());
        if !g.segments.is_empty() {
            self.raw(b",\"segments\":[");
            for (n, seg) in g.segments.iter().enumerate() {
                if n > 0 {
                    self.buf.push(b',');
                }
                self.segment(seg, None);
            }
            self.buf.push(b']');
        }
        self.raw(b",\"transactions\":[");
    }

    /// The end of a group: its trailer.
    fn group_close(&mut self, ge: Option<&Segment<'a>>) {
        self.raw(b"],\"trailer\":");
        self.trailer(&GE, ge);
        self.buf.push(b'}');
    }

    /// One transaction set's object.
    fn transaction(&mut self, doc: &Document<'a>, g: &Group<'a>, t: &Transaction<'a>) {
        self.buf.push(b'{');
        let mut first = self.field_entries(&ST, &t.st);
        self.key(&mut first, "segments");
        self.buf.push(b'[');
        // The mapped business document, for the declared set types only;
        // its body is collected while the segments are written.
        let map = self.documents && self.mapper.maps(t.kind());
        if map {
            self.mapper.start_body();
        }
        // A segment written by `plain::segment` holds, besides element
        // separators, only component and repetition separators and
        // bytes a JSON string holds as they are: its element texts are
        // clean for the mapper when those separators are too.
        let separators_clean = self.separators_clean;
        for (k, seg) in doc.body(t).enumerate() {
            if k > 0 {
                self.buf.push(b',');
            }
            let plain = self.segment(&seg, None);
            if map {
                self.mapper.push_body(seg, plain && separators_clean);
            }
            self.maybe_flush();
        }
        self.raw(b"]");
        if map {
            let at = self.buf.len();
            self.raw(b",\"document\":");
            if !self.mapper.write_document(doc, g, t, &mut self.buf) {
                self.buf.truncate(at);
            }
        }
        self.raw(b",\"trailer\":");
        self.trailer(&SE, t.se.as_ref());
        self.buf.push(b'}');
    }

    fn trailer(&mut self, fields: &Fields, seg: Option<&Segment<'a>>) {
        match seg {
            Some(s) => self.fields(fields, s, false),
            None => self.raw(b"null"),
        }
    }

    /// An envelope segment as an object of named raw values.
    fn fields(&mut self, fields: &Fields, seg: &Segment<'a>, isa: bool) {
        self.buf.push(b'{');
        self.isa = isa;
        self.field_entries(fields, seg);
        self.isa = false;
        self.buf.push(b'}');
    }

    /// The members of an envelope segment's object (after its `{`): named
    /// raw values; elements beyond the names go to `extra`; absent ones are
    /// left out. Returns whether the object is still empty (for the caller's
    /// next key).
    fn field_entries(&mut self, fields: &Fields, seg: &Segment<'a>) -> bool {
        self.note(seg);
        let raw = seg.raw();
        let id = seg.id().len();
        let mut first = true;
        if id < raw.len() {
            let sep = seg.delimiters().element;
            // Usually every value is plain text and there are no more
            // elements than names: written in one step.
            if self.fast && plain::fields(&mut self.buf, &raw[id + 1..], sep, fields.keys) {
                return false;
            }
            let names = fields.names;
            let isa = self.isa;
            let mut extra = Vec::new();
            let mut k = 0;
            let mut start = id + 1;
            let mut flags = 0u8;
            let mut i = start;
            loop {
                let end = i == raw.len();
                if end || raw[i] == sep {
                    let e = &raw[start..i];
                    match names.get(k) {
                        Some(name) => {
                            self.key(&mut first, name);
                            match e {
                                // ISA11 and ISA16 hold delimiters: one byte, shown like `delimiters`.
                                [b] if isa && (k == 10 || k == 15) => self.delimiter(*b),
                                _ if flags & (ESCAPE | HIGH) == 0 => {
                                    put(&mut self.buf, b'"', e, b"\"")
                                }
                                _ => {
                                    self.buf.push(b'"');
                                    self.string_body(e, flags);
                                    self.buf.push(b'"');
                                }
                            }
                        }
                        None => extra.push(e),
                    }
                    if end {
                        break;
                    }
                    k += 1;
                    start = i + 1;
                    flags = 0;
                } else {
                    flags |= self.class[raw[i] as usize];
                }
                i += 1;
            }
            if !extra.is_empty() {
                self.key(&mut first, "extra");
                self.buf.push(b'[');
                for (n, e) in extra.iter().enumerate() {
                    if n > 0 {
                        self.buf.push(b',');
                    }
                    let flags = e.iter().fold(0u8, |f, &c| f | self.class[c as usize]);
                    self.element(e, flags);
                }
                self.buf.push(b']');
            }
        }
        first
    }

    /// `{"id": ..., "elements": [...]}` in one pass over the segment's bytes.
    #[inline]
    /// Writes a segment's object; true when it took [`plain::segment`]
    /// (its id and elements hold no byte that needs escaping or checking).
    fn segment(&mut self, seg: &Segment<'a>, after_group: Option<usize>) -> bool {
        self.note(seg);
        if self.fast && after_group.is_none() {
            let d = self.delims;
            let other = d.repetition_byte();
            let clean = self.separators_clean;
            if plain::segment(&mut self.buf, seg, d.element, d.component, other, clean) {
                return true;
            }
        }
        let raw = seg.raw();
        let id = seg.id();
        self.raw(b"{\"id\":");
        self.string(id);
        self.raw(b",\"elements\":[");
        if id.len() < raw.len() {
            let mut start = id.len() + 1;
            let mut flags = 0u8;
            let mut first = true;
            for (i, &b) in raw.iter().enumerate().skip(start) {
                let c = self.class[b as usize];
                if c & ELEMENT != 0 {
                    if !first {
                        self.buf.push(b',');
                    }
                    first = false;
                    self.element(&raw[start..i], flags);
                    start = i + 1;
                    flags = 0;
                } else {
                    flags |= c;
                }
            }
            if !first {
                self.buf.push(b',');
            }
            self.element(&raw[start..], flags);
        }
        self.buf.push(b']');
        if let Some(g) = after_group {
            self.raw(b",\"afterGroup\":");
            self.raw(g.to_string().as_bytes());
        }
        self.buf.push(b'}');
        false
    }

    /// One element: string, components array, or `{"repeat": [...]}`.
    #[inline]
    fn element(&mut self, e: &[u8], flags: u8) {
        if flags == 0 {
            put(&mut self.buf, b'"', e, b"\"");
        } else if flags & REPETITION != 0 {
            self.raw(b"{\"repeat\":[");
            // REPETITION is only set when the interchange has a repetition separator.
            let r = self.delims.repetition_byte();
            for (n, rep) in e.split(|&b| b == r).enumerate() {
                if n > 0 {
                    self.buf.push(b',');
                }
                let f = rep.iter().fold(0u8, |f, &c| f | self.class[c as usize]);
                self.composite(rep, f);
            }
            self.raw(b"]}");
        } else {
            self.composite(e, flags);
        }
    }

    fn composite(&mut self, e: &[u8], flags: u8) {
        if flags & COMPONENT == 0 {
            self.buf.push(b'"');
            self.string_body(e, flags);
            self.buf.push(b'"');
            return;
        }
        self.buf.push(b'[');
        let component = self.delims.component;
        for (n, part) in e.split(|&b| b == component).enumerate() {
            if n > 0 {
                self.buf.push(b',');
            }
            self.buf.push(b'"');
            self.string_body(part, flags);
            self.buf.push(b'"');
        }
        self.buf.push(b']');
    }
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
