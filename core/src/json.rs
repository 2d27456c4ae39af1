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
//!   payload JSON mapped back, for the 18 set types of [`crate::documents`]),
//!   `trailer` (SE or null);
//! - segment: `{"id": "N1", "elements": [...]}` where an element is a string
//!   (simple), an array of strings (a composite's components), or
//!   `{"repeat": [...]}` whose items are strings or arrays of strings.
//!
//! Envelope values are the raw element text, padding included, so that
//! writing the JSON back gives the original bytes. Delimiters and line
//! breaks are one-character strings; a byte 0x80–0xFF is written as the
//! character with the same code point (U+0080–U+00FF).

use crate::delimiters::Delimiters;
use crate::envelope::{Document, Group, Interchange};
use crate::segment::Segment;
use std::io;
pub(crate) use x12kit_syntax::escape::escape_into;

/// Names of ISA01..ISA16 in the JSON `header` of an interchange.
pub const ISA_FIELDS: [&str; 16] = [
    "authorizationQualifier",
    "authorizationInfo",
    "securityQualifier",
    "securityInfo",
    "senderQualifier",
    "senderId",
    "receiverQualifier",
    "receiverId",
    "date",
    "time",
    "standardsId",
    "version",
    "controlNumber",
    "ackRequested",
    "usage",
    "componentSeparator",
];
/// Names of GS01..GS08.
pub const GS_FIELDS: [&str; 8] = [
    "functionalId",
    "senderCode",
    "receiverCode",
    "date",
    "time",
    "controlNumber",
    "agency",
    "version",
];
/// Names of ST01..ST03 (at the transaction's top level).
pub const ST_FIELDS: [&str; 3] = ["type", "controlNumber", "implementationReference"];
/// Names of SE01..SE02.
pub const SE_FIELDS: [&str; 2] = ["segmentCount", "controlNumber"];
/// Names of GE01..GE02.
pub const GE_FIELDS: [&str; 2] = ["transactionCount", "controlNumber"];
/// Names of IEA01..IEA02.
pub const IEA_FIELDS: [&str; 2] = ["groupCount", "controlNumber"];

/// A member name as the writer puts it before a value, `"name":"`, in a
/// block of 32 bytes that is copied whole (two 16-byte moves) and then
/// counted for `len` bytes.
#[derive(Clone, Copy)]
struct Key {
    bytes: [u8; 32],
    len: usize,
}

/// The names of an envelope segment's elements, and their [`Key`]s.
struct Fields {
    names: &'static [&'static str],
    keys: &'static [Key],
}

/// The keys of `names`, built at compile time (a name longer than 28 bytes
/// fails the build).
const fn keys<const N: usize>(names: &[&str; N]) -> [Key; N] {
    let mut out = [Key {
        bytes: [0; 32],
        len: 0,
    }; N];
    let mut k = 0;
    while k < N {
        let name = names[k].as_bytes();
        assert!(name.len() + 4 <= 32, "field name too long for a Key");
        let key = &mut out[k];
        key.bytes[0] = b'"';
        let mut i = 0;
        while i < name.len() {
            key.bytes[1 + i] = name[i];
            i += 1;
        }
        key.bytes[1 + i] = b'"';
        key.bytes[2 + i] = b':';
        key.bytes[3 + i] = b'"';
        key.len = name.len() + 4;
        k += 1;
    }
    out
}

/// The [`Fields`] of each envelope segment, named like it.
macro_rules! fields {
    ($($segment:ident: $names:ident),*) => {
        $(const $segment: Fields = Fields {
            names: &$names,
            keys: &keys(&$names),
        };)*
    };
}

fields!(ISA: ISA_FIELDS, GS: GS_FIELDS, ST: ST_FIELDS, SE: SE_FIELDS, GE: GE_FIELDS, IEA: IEA_FIELDS);

/// What the JSON of a parse result includes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonOptions {
    /// Map the 18 known transaction set types back to their payload
    /// (`document` beside `segments`). On by default; turning it off makes
    /// bulk conversion of those types several times faster.
    pub documents: bool,
}

impl Default for JsonOptions {
    fn default() -> Self {
        JsonOptions { documents: true }
    }
}

/// Serializes a parse result to compact JSON bytes.
pub fn to_json(doc: &Document<'_>) -> Vec<u8> {
    to_json_with(doc, &JsonOptions::default())
}

/// Serializes a parse result to compact JSON bytes, with options.
pub fn to_json_with(doc: &Document<'_>, options: &JsonOptions) -> Vec<u8> {
    let mut out = Vec::with_capacity(doc.input().len() * 2 + 256);
    to_json_into(doc, options, &mut out);
    out
}

/// Appends the compact JSON of a parse result to `out`. Reusing one buffer
/// across calls (a server, a binding) avoids the page faults of a fresh
/// allocation as large as the output.
pub fn to_json_into(doc: &Document<'_>, options: &JsonOptions, out: &mut Vec<u8>) {
    let mut w = JsonWriter::new(std::mem::take(out), usize::MAX);
    w.documents = options.documents;
    w.document(doc);
    *out = w.buf;
}

/// Serializes a parse result as JSON to a writer, compact or pretty
/// (two-space indentation), in chunks, without holding the whole text.
pub fn to_json_writer<W: io::Write>(
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
    let mut jw = JsonWriter::new(Vec::with_capacity(1 << 16), 1 << 16);
    jw.documents = options.documents;
    jw.sink = Some(sink);
    jw.document(doc);
    jw.flush_all()
}

/// Parses `input` and writes the JSON of the parse result to a writer as it
/// goes, compact or pretty: byte for byte what [`to_json_writer`] writes for
/// [`parse`](crate::parse())`(input)`, without building the tree of the
/// whole input. Each interchange is parsed, written and dropped before the
/// next one is read, so the memory this takes follows the largest
/// interchange (its segment ranges, 16 bytes a body segment) plus the
/// diagnostics, not the input: the contract writes an interchange's
/// `segments` (TA1, ISB, ISE and misplaced ones, wherever they appear)
/// before its `groups`, so one interchange is the unit that must be held.
///
/// `release(offset)` is called after each interchange is written: the input
/// before `offset` will not be read again (a caller that maps a file can
/// drop those pages). Returns the diagnostics (also in the JSON).
pub fn to_json_stream<W: io::Write>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    release: &mut dyn FnMut(usize),
) -> io::Result<Vec<crate::Diagnostic>> {
    let sink: Box<dyn io::Write + '_> = if pretty {
        Box::new(Pretty::new(w))
    } else {
        Box::new(w)
    };
    let mut jw = JsonWriter::new(Vec::with_capacity(1 << 17), 1 << 16);
    jw.documents = options.documents;
    jw.sink = Some(sink);
    jw.raw(b"{\"interchanges\":[");
    let mut first = true;
    let doc = crate::envelope::parse_each(input, |doc, upto| {
        for i in &doc.interchanges {
            if !first {
                jw.buf.push(b',');
            }
            first = false;
            jw.interchange(doc, i);
        }
        jw.maybe_flush();
        release(upto);
    });
    jw.tail(&doc);
    jw.flush_all()?;
    Ok(doc.diagnostics)
}

/// [`to_json_stream`] on `threads` threads: this thread parses and writes,
/// `threads` workers turn whole interchanges into JSON (an interchange's
/// JSON depends on nothing outside it: segment indexes are global), and the
/// results are written in input order, so the bytes are the same. At most
/// `2 × threads + 1` interchanges (and their JSON) are held at once. With
/// `threads <= 1` this is [`to_json_stream`]. Not on wasm32 (no threads).
#[cfg(not(target_arch = "wasm32"))]
pub fn to_json_stream_threads<W: io::Write + Send>(
    input: &[u8],
    w: W,
    pretty: bool,
    options: &JsonOptions,
    threads: usize,
    release: &mut dyn FnMut(usize),
) -> io::Result<Vec<crate::Diagnostic>> {
    use std::collections::VecDeque;
    use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
    use std::sync::{Arc, Mutex};
    if threads <= 1 {
        return to_json_stream(input, w, pretty, options, release);
    }
    type Job<'a> = (Document<'a>, SyncSender<Vec<u8>>);
    let mut sink: Box<dyn io::Write + Send + '_> = if pretty {
        Box::new(Pretty::new(w))
    } else {
        Box::new(w)
    };
    let documents = options.documents;
    std::thread::scope(|scope| {
        let (jobs, queue) = sync_channel::<Job<'_>>(threads);
        let queue = Arc::new(Mutex::new(queue));
        for _ in 0..threads {
            let queue = Arc::clone(&queue);
            scope.spawn(move || {
                let mut jw = JsonWriter::new(Vec::new(), usize::MAX);
                jw.documents = documents;
                loop {
                    // The lock is held only to take the next job.
                    let job = queue
                        .lock()
                        .map_err(|_| ())
                        .and_then(|q| q.recv().map_err(|_| ()));
                    let Ok((doc, done)) = job else { return };
                    jw.buf = Vec::with_capacity(1 << 18);
                    for i in &doc.interchanges {
                        jw.interchange(&doc, i);
                    }
                    let _ = done.send(std::mem::take(&mut jw.buf));
                }
            });
        }
        let mut error: Option<io::Error> = None;
        let mut first = true;
        // Results to write, in input order, with where each interchange's input ends.
        let mut pending: VecDeque<(Receiver<Vec<u8>>, usize)> = VecDeque::new();
        let mut write_one = |pending: &mut VecDeque<(Receiver<Vec<u8>>, usize)>,
                             sink: &mut Box<dyn io::Write + Send + '_>,
                             error: &mut Option<io::Error>| {
            if let Some((done, upto)) = pending.pop_front() {
                // A worker that panicked drops its sender: that is a bug, reported as such.
                let json = done.recv().unwrap_or_default();
                if error.is_none() {
                    let sep: &[u8] = if first { b"" } else { b"," };
                    first = false;
                    if let Err(e) = sink.write_all(sep).and_then(|_| sink.write_all(&json)) {
                        *error = Some(e);
                    }
                }
                release(upto);
            }
        };
        if let Err(e) = sink.write_all(b"{\"interchanges\":[") {
            error = Some(e);
        }
        let doc = crate::envelope::parse_each(input, |doc, upto| {
            let (done, result) = sync_channel(1);
            pending.push_back((result, upto));
            // Workers live until `jobs` is dropped: sending cannot fail.
            let _ = jobs.send((doc.take_interchanges(), done));
            while pending.len() > 2 * threads {
                write_one(&mut pending, &mut sink, &mut error);
            }
        });
        drop(jobs);
        while !pending.is_empty() {
            write_one(&mut pending, &mut sink, &mut error);
        }
        if let Some(e) = error {
            return Err(e);
        }
        let mut jw = JsonWriter::new(Vec::new(), usize::MAX);
        jw.tail(&doc);
        sink.write_all(&jw.buf)?;
        sink.flush()?;
        Ok(doc.diagnostics)
    })
}

/// Parses `input` and appends the compact JSON of the parse result to `out`:
/// the bytes of [`to_json_into`] of [`parse`](crate::parse())`(input)`,
/// holding one interchange's tree at a time (see [`to_json_stream`]).
pub fn parse_to_json_into(input: &[u8], options: &JsonOptions, out: &mut Vec<u8>) {
    let mut jw = JsonWriter::new(std::mem::take(out), usize::MAX);
    jw.buf
        .reserve(output_estimate(input.len(), options.documents));
    jw.documents = options.documents;
    jw.raw(b"{\"interchanges\":[");
    let mut first = true;
    let doc = crate::envelope::parse_each(input, |doc, _| {
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

/// The four delimiters as one number, to tell whether they changed. Not
/// `Delimiters`' derived `==`: with `repetition: None` the option's payload
/// byte is uninitialised, and the compiled comparison may read it (valgrind
/// reports a jump that depends on it in the C tests' garbage inputs).
fn delimiters_key(d: &Delimiters) -> u64 {
    u64::from(d.element)
        | u64::from(d.component) << 8
        | u64::from(d.segment) << 16
        | d.repetition.map_or(0x100, u64::from) << 24
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
pub fn to_value(doc: &Document<'_>) -> crate::error::Result<serde_json::Value> {
    serde_json::from_slice(&to_json(doc)).map_err(crate::Error::internal)
}

/// Compact JSON of a result type (validation, acknowledgements, errors).
///
/// These types serialize with string keys only, so serde_json cannot fail on
/// them; if it ever did, the output is an `INTERNAL` error object rather
/// than empty bytes, so the failure is never silent.
pub(crate) fn to_vec<T: serde::Serialize + ?Sized>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_else(|e| internal_json(&e))
}

/// Indented JSON of a result type (see [`to_vec`]).
pub(crate) fn to_vec_pretty<T: serde::Serialize + ?Sized>(value: &T) -> Vec<u8> {
    serde_json::to_vec_pretty(value).unwrap_or_else(|e| internal_json(&e))
}

fn internal_json(e: &serde_json::Error) -> Vec<u8> {
    let mut out = br#"{"code":"INTERNAL","kind":"internal","message":"#.to_vec();
    out.push(b'"');
    escape_into(
        format!("internal error in x12kit (please report it): {e}").as_bytes(),
        &mut out,
    );
    out.extend_from_slice(br#"","details":[]}"#);
    out
}

/// What a JSON value is, for messages: "null", "a boolean", "a number", "a
/// string", "an array", "an object".
pub(crate) fn value_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A delimiter byte as a one-character string (Latin-1 mapping).
pub fn delimiter_char(b: u8) -> String {
    char::from(b).to_string()
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

struct JsonWriter<'a, 's> {
    buf: Vec<u8>,
    flush_at: usize,
    sink: Option<Box<dyn io::Write + 's>>,
    error: Option<io::Error>,
    class: [u8; 256],
    /// [`separators_clean`] of `delims`.
    separators_clean: bool,
    delims: Delimiters,
    line_break: &'a [u8],
    /// The opening of the last interchange written, up to its line break
    /// (see [`JsonWriter::interchange`]).
    head: Vec<u8>,
    overrides: Vec<(usize, &'a [u8])>,
    /// True while writing the ISA header.
    isa: bool,
    /// Whether to write `document` for known set types.
    documents: bool,
    /// Document mapping buffers, reused from set to set.
    mapper: crate::documents::Mapper<'a>,
    /// Whether segments take [`plain::segment`] when they can (the tests
    /// turn it off to compare it with the general path).
    fast: bool,
}

impl<'a, 's> JsonWriter<'a, 's> {
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
    /// it, without allocating. Not inlined: inlined into `interchange`, the
    /// compiler computes it from `repetition`'s payload before testing the
    /// option's tag, and with `None` that byte is uninitialised (valgrind
    /// reports the jump in the C tests' garbage inputs).
    #[inline(never)]
    fn delimiter(&mut self, b: u8) {
        let mut utf8 = [0u8; 4];
        let s = char::from(b).encode_utf8(&mut utf8);
        self.string(s.as_bytes());
    }

    fn interchange(&mut self, doc: &Document<'a>, i: &Interchange<'a>) {
        let d = i.isa.delimiters();
        // Most inputs use the same delimiters in every interchange: the
        // table is built again only when they change.
        // (`class` and `separators_clean` always hold what `delims` give.)
        let same_delimiters = delimiters_key(&d) == delimiters_key(&self.delims);
        if !same_delimiters {
            self.class = classes(&d);
            self.separators_clean = separators_clean(&d);
        }
        self.delims = d;
        let line_break = i.isa.suffix();
        // So is the opening that says them and the line break: written
        // again only when one of them changes.
        // (`head` always holds the opening of `delims` and `line_break`.)
        if same_delimiters && same(line_break, self.line_break) && !self.head.is_empty() {
            append(&mut self.buf, &self.head);
        } else {
            let at = self.buf.len();
            self.raw(b"{\"delimiters\":{\"element\":");
            self.delimiter(d.element);
            self.raw(b",\"component\":");
            self.delimiter(d.component);
            self.raw(b",\"repetition\":");
            match d.repetition {
                Some(r) => self.delimiter(r),
                None => self.raw(b"null"),
            }
            self.raw(b",\"segment\":");
            self.delimiter(d.segment);
            self.raw(b"},\"lineBreak\":");
            self.string(line_break);
            self.head.clear();
            self.head.extend_from_slice(&self.buf[at..]);
        }
        self.line_break = line_break;
        self.overrides.clear();
        self.raw(b",\"header\":");
        self.fields(&ISA, &i.isa, true);
        if !i.segments.is_empty() {
            let starts: Vec<usize> = i.groups.iter().map(group_start).collect();
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
        for (n, g) in i.groups.iter().enumerate() {
            if n > 0 {
                self.buf.push(b',');
            }
            self.group(doc, g);
        }
        self.raw(b"],\"trailer\":");
        self.trailer(&IEA, i.iea.as_ref());
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
        for (n, t) in g.transactions.iter().enumerate() {
            if n > 0 {
                self.buf.push(b',');
            }
            self.buf.push(b'{');
            let mut first = self.field_entries(&ST, &t.st);
            self.key(&mut first, "segments");
            self.buf.push(b'[');
            // The mapped business document, for the 18 known set types only;
            // its body is collected while the segments are written.
            let map = self.documents && crate::documents::is_known(t.kind());
            if map {
                self.mapper.clear_body();
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
                    self.mapper
                        .push_body_checked(seg, plain && separators_clean);
                }
                self.maybe_flush();
            }
            self.raw(b"]");
            if map {
                let at = self.buf.len();
                self.raw(b",\"document\":");
                if !crate::documents::write_document_with(
                    &mut self.mapper,
                    doc,
                    g,
                    t,
                    true,
                    &mut self.buf,
                ) {
                    self.buf.truncate(at);
                }
            }
            self.raw(b",\"trailer\":");
            self.trailer(&SE, t.se.as_ref());
            self.buf.push(b'}');
        }
        self.raw(b"],\"trailer\":");
        self.trailer(&GE, g.ge.as_ref());
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
            let other = d.repetition.unwrap_or(d.component);
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
            let r = self.delims.repetition.unwrap_or(self.delims.element);
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

pub(crate) use plain::{append, put, put_key};

/// The fast path of a segment's elements: plain text between element
/// separators, written as `"a","b",...` with a 16-byte scan (SSE2 on
/// x86-64) and small copies, instead of a byte-class lookup per byte. Its
/// unsafe code (like that of [`crate::index`]'s kernels) is pointer writes
/// into reserved capacity and bounded loads; the tests compare its output
/// with the general path on every vector, corpus file and random input.
#[allow(unsafe_code)]
mod plain {
    use super::Key;

    const HEAD: &[u8; 7] = b"{\"id\":\"";
    const MID: &[u8; 14] = b"\",\"elements\":[";

    /// Writes a whole segment, `{"id":"ID","elements":["a","b",...]}`, when
    /// its id and elements need nothing but quotes: no `"`, `\\`, control or
    /// non-ASCII byte, and no component or repetition separator (`c`, `r`)
    /// unless it is at most 64 bytes long (then an element holding them is
    /// written `["a","b"]` or `{"repeat":[...]}`, as the general path
    /// writes it; in the id they are text, which `clean`, what
    /// [`super::separators_clean`] says of them, tells needs no escaping).
    /// Returns false, writing nothing, otherwise (the caller's general
    /// path), and when the segment has no element.
    #[inline]
    pub(super) fn segment(
        out: &mut Vec<u8>,
        seg: &crate::segment::Segment<'_>,
        sep: u8,
        c: u8,
        r: u8,
        clean: bool,
    ) -> bool {
        let raw = seg.raw();
        let n = raw.len();
        // Every byte becomes at most 10 (a repetition separator between
        // empty items of an element: `{"repeat":["",""]},`, 19 bytes for it
        // and its element separator); 16 more for the whole-block copies
        // of `short`.
        out.reserve(HEAD.len() + MID.len() + 10 * n + 32);
        let start = out.len();
        let scan = Scan::new(sep, c, r);
        // SAFETY: `reserve` above gives room for everything written below;
        // reads stay within `raw`, `body` or padded copies on the stack; the
        // length is set only to what was written.
        unsafe {
            let base = out.as_mut_ptr();
            let dst = base.add(start);
            let done = if n <= 64 {
                short(dst, raw, &scan, clean)
            } else {
                long(dst, raw, seg.id(), &scan)
            };
            let Some(mut dst) = done else {
                return false;
            };
            dst.copy_from_nonoverlapping(b"]}".as_ptr(), 2);
            dst = dst.add(2);
            out.set_len(dst.offset_from(base) as usize);
        }
        true
    }

    /// [`segment`] of more than 64 bytes without component separators:
    /// its head and elements, up to the closing `]}`.
    ///
    /// # Safety
    /// `dst` has room for `HEAD.len() + MID.len() + 3 * raw.len() + 2` bytes.
    #[inline(always)]
    unsafe fn long(mut dst: *mut u8, raw: &[u8], id: &[u8], scan: &Scan) -> Option<*mut u8> {
        if id.len() >= raw.len()
            || id.len() > 16
            || !id
                .iter()
                .all(|&b| (0x20..0x80).contains(&b) && b != b'"' && b != b'\\')
        {
            return None;
        }
        let body = &raw[id.len() + 1..];
        // SAFETY: see the caller.
        unsafe {
            dst.copy_from_nonoverlapping(HEAD.as_ptr(), HEAD.len());
            dst = dst.add(HEAD.len());
            copy(id.as_ptr(), dst, id.len());
            dst = dst.add(id.len());
            dst.copy_from_nonoverlapping(MID.as_ptr(), MID.len());
            dst = dst.add(MID.len());
            *dst = b'"';
            // Each separator becomes 3 of the bytes reserved.
            elements(dst.add(1), body, scan, |d| {
                d.copy_from_nonoverlapping(b"\",\"".as_ptr(), 3);
                Some(d.add(3))
            })
        }
    }

    /// The bits below `k` (all 64 from 64).
    #[inline(always)]
    fn below(k: usize) -> u64 {
        if k >= 64 { !0 } else { (1u64 << k) - 1 }
    }

    /// Copies `len` bytes as whole 16-byte blocks: up to 15 bytes more are
    /// read after `src + len` and written after `dst + len`.
    ///
    /// # Safety
    /// `src..src + len + 15` readable, `dst..dst + len + 15` writable, not
    /// overlapping.
    #[inline(always)]
    unsafe fn copy_blocks(src: *const u8, dst: *mut u8, len: usize) {
        // SAFETY: see above.
        unsafe {
            // The first block outside the loop: most pieces fit in it, and
            // the loop alone is turned into a call to memcpy.
            dst.copy_from_nonoverlapping(src, 16);
            let mut k = 16;
            while k < len {
                dst.add(k).copy_from_nonoverlapping(src.add(k), 16);
                k += 16;
            }
        }
    }

    /// [`segment`] of at most 64 bytes, from a padded copy on the stack:
    /// one scan gives the id's end (the first separator) and the element,
    /// component and repetition separators, and every piece is copied in
    /// whole 16-byte blocks. Writes up to the closing `]}`.
    ///
    /// # Safety
    /// `raw.len() <= 64`; `dst` has room for `HEAD.len() + MID.len() + 10 *
    /// raw.len() + 16` bytes.
    #[inline(always)]
    unsafe fn short(mut dst: *mut u8, raw: &[u8], scan: &Scan, clean: bool) -> Option<*mut u8> {
        let n = raw.len();
        // The segment, then a byte that is plain text: whole blocks may be
        // scanned and copied past its end.
        let mut buf = [b'A'; 80];
        let p = buf.as_ptr();
        let (mut s, mut cr, mut bad) = (0u64, 0u64, 0u64);
        // SAFETY: loads stay within `raw` and `buf` (at most 64 + 15 bytes
        // are read from it); writes are those the caller reserved room for.
        unsafe {
            let q = buf.as_mut_ptr();
            let from = raw.as_ptr();
            if n >= 16 {
                // Blocks from 0, 16 and 32 while they end before `n`, then
                // the last 16 bytes (written out: as a loop it becomes a
                // call to memcpy).
                q.copy_from_nonoverlapping(from, 16);
                if n > 32 {
                    q.add(16).copy_from_nonoverlapping(from.add(16), 16);
                }
                if n > 48 {
                    q.add(32).copy_from_nonoverlapping(from.add(32), 16);
                }
                q.add(n - 16).copy_from_nonoverlapping(from.add(n - 16), 16);
            } else {
                copy(from, q, n);
            }
            let mut i = 0;
            while i < n {
                let (bs, bcr, bb) = scan.block(p.add(i));
                s |= u64::from(bs) << i;
                cr |= u64::from(bcr) << i;
                bad |= u64::from(bb) << i;
                i += 16;
            }
            let valid = below(n);
            s &= valid;
            cr &= valid;
            // No element (the general path writes `[]`), a byte that needs
            // escaping or checking, or a component or repetition separator
            // in the id that does (text there) when they are not `clean`.
            let id = s.trailing_zeros() as usize;
            if s == 0 || bad & valid != 0 || (!clean && cr & below(id) != 0) {
                return None;
            }
            dst.copy_from_nonoverlapping(HEAD.as_ptr(), HEAD.len());
            dst = dst.add(HEAD.len());
            copy_blocks(p, dst, id);
            dst = dst.add(id);
            dst.copy_from_nonoverlapping(MID.as_ptr(), MID.len());
            dst = dst.add(MID.len());
            s &= s - 1;
            if cr == 0 {
                // No composite or repetition: copy between separators.
                *dst = b'"';
                dst = join(dst.add(1), p, id + 1, n, s);
                *dst = b'"';
                return Some(dst.add(1));
            }
            Some(structured(dst, p, n, id + 1, s, cr & valid, scan))
        }
    }

    /// The elements of a [`short`] segment that holds component or
    /// repetition separators (bits of `cr`), from its padded copy `p` of
    /// `n` bytes: `s` has the bits of the separators after the first
    /// element, which starts at `a`. Out of line, so that the usual
    /// segment's path stays small.
    ///
    /// # Safety
    /// `p[..n + 16]` readable, `n <= 64`; `dst` has room for what [`short`]
    /// reserves.
    #[inline(never)]
    unsafe fn structured(
        mut dst: *mut u8,
        p: *const u8,
        n: usize,
        mut a: usize,
        mut s: u64,
        cr: u64,
        scan: &Scan,
    ) -> *mut u8 {
        // SAFETY: see above.
        unsafe {
            // Which separators are which.
            let mut r = 0u64;
            let mut i = 0;
            while i < n {
                r |= u64::from(scan.repetitions(p.add(i))) << i;
                i += 16;
            }
            r &= below(n);
            let c = cr & !r;
            loop {
                let b = if s == 0 {
                    n
                } else {
                    s.trailing_zeros() as usize
                };
                let mut reps = r & below(b) & !below(a);
                if reps == 0 {
                    dst = composite(dst, p, a, b, c);
                } else {
                    // `{"repeat":[...]}` of the items between repetition
                    // separators, each a string or a components array.
                    dst.copy_from_nonoverlapping(b"{\"repeat\":[".as_ptr(), 11);
                    dst = dst.add(11);
                    let mut x = a;
                    loop {
                        let y = if reps == 0 {
                            b
                        } else {
                            reps.trailing_zeros() as usize
                        };
                        dst = composite(dst, p, x, y, c);
                        if reps == 0 {
                            break;
                        }
                        *dst = b',';
                        dst = dst.add(1);
                        x = y + 1;
                        reps &= reps - 1;
                    }
                    dst.copy_from_nonoverlapping(b"]}".as_ptr(), 2);
                    dst = dst.add(2);
                }
                if s == 0 {
                    return dst;
                }
                *dst = b',';
                dst = dst.add(1);
                a = b + 1;
                s &= s - 1;
            }
        }
    }

    /// Writes the text `p[a..b]` as a string, or as an array of strings
    /// when component separators (bits of `c`) lie in it, at `dst`, in
    /// whole 16-byte blocks; returns the end.
    ///
    /// # Safety
    /// `p[a..b + 15]` readable; `dst` has room for what is written (up to
    /// 3 bytes a byte of `p[a..b]` and 4 more) and 15 bytes after it.
    #[inline(always)]
    unsafe fn composite(mut dst: *mut u8, p: *const u8, a: usize, b: usize, c: u64) -> *mut u8 {
        let parts = c & below(b) & !below(a);
        // SAFETY: see above.
        unsafe {
            if parts == 0 {
                *dst = b'"';
                dst = join(dst.add(1), p, a, b, 0);
                *dst = b'"';
                return dst.add(1);
            }
            dst.copy_from_nonoverlapping(b"[\"".as_ptr(), 2);
            dst = join(dst.add(2), p, a, b, parts);
            dst.copy_from_nonoverlapping(b"\"]".as_ptr(), 2);
            dst.add(2)
        }
    }

    /// Writes `p[a..b]` cut at the bits of `cuts` (all within `a..b`), the
    /// pieces joined by `","`, at `dst`, in whole 16-byte blocks; returns
    /// the end.
    ///
    /// # Safety
    /// `p[a..b + 15]` readable; `dst` has room for what is written (3 bytes
    /// a cut, 1 a byte otherwise) and 15 bytes after it.
    #[inline(always)]
    unsafe fn join(mut dst: *mut u8, p: *const u8, a: usize, b: usize, mut cuts: u64) -> *mut u8 {
        let mut run = a;
        // SAFETY: see above.
        unsafe {
            while cuts != 0 {
                let k = cuts.trailing_zeros() as usize;
                copy_blocks(p.add(run), dst, k - run);
                dst = dst.add(k - run);
                dst.copy_from_nonoverlapping(b"\",\"".as_ptr(), 3);
                dst = dst.add(3);
                run = k + 1;
                cuts &= cuts - 1;
            }
            copy_blocks(p.add(run), dst, b - run);
            dst.add(b - run)
        }
    }

    /// Writes the elements of `body` at `dst`, after the opening `"` of the
    /// first: each element's text, `between(dst)` at each separator (what
    /// closes one element and opens the next; `None` gives up), and the
    /// closing `"` of the last. `None` when some byte needs the general path.
    ///
    /// # Safety
    /// `dst` has room for `body.len() + 1` bytes plus what `between` writes.
    #[inline(always)]
    unsafe fn elements(
        mut dst: *mut u8,
        body: &[u8],
        scan: &Scan,
        mut between: impl FnMut(*mut u8) -> Option<*mut u8>,
    ) -> Option<*mut u8> {
        let n = body.len();
        let p = body.as_ptr();
        let mut run = 0;
        let mut i = 0;
        // SAFETY: see the caller; loads stay within `body` or `tail`.
        unsafe {
            while i + 16 <= n {
                let (s, cr, bad) = scan.block(p.add(i));
                if bad | cr != 0 {
                    return None;
                }
                let mut m = s;
                while m != 0 {
                    let k = i + m.trailing_zeros() as usize;
                    copy(p.add(run), dst, k - run);
                    dst = between(dst.add(k - run))?;
                    run = k + 1;
                    m &= m - 1;
                }
                i += 16;
            }
            if i < n {
                // The tail, padded with a byte that is plain text.
                let mut tail = [b'A'; 16];
                copy(p.add(i), tail.as_mut_ptr(), n - i);
                let (s, cr, bad) = scan.block(tail.as_ptr());
                let valid = (1u32 << (n - i)) - 1;
                if (bad | cr) & valid != 0 {
                    return None;
                }
                let mut m = s & valid;
                while m != 0 {
                    let k = i + m.trailing_zeros() as usize;
                    copy(p.add(run), dst, k - run);
                    dst = between(dst.add(k - run))?;
                    run = k + 1;
                    m &= m - 1;
                }
            }
            copy(p.add(run), dst, n - run);
            dst = dst.add(n - run);
            *dst = b'"';
            Some(dst.add(1))
        }
    }

    /// Writes the members of an envelope segment's object,
    /// `"name1":"v1","name2":"v2",...` (`keys[k]` before element `k`), when
    /// its values need nothing but quotes (no `"`, `\\`, control or
    /// non-ASCII byte: component and repetition separators are text there)
    /// and there are no more elements than keys. Returns false, writing
    /// nothing, otherwise (the caller's general path). `body` is the
    /// segment after its id and first separator.
    #[inline]
    pub(super) fn fields(out: &mut Vec<u8>, body: &[u8], sep: u8, keys: &[Key]) -> bool {
        let Some(first) = keys.first() else {
            return false;
        };
        // Each key is written as a 32-byte block after a 2-byte `",`.
        out.reserve(body.len() + 34 * keys.len() + 1);
        let start = out.len();
        // SAFETY: `reserve` above gives room for everything written below:
        // the body's bytes, its closing quote and at most `keys.len()`
        // blocks of 34 bytes (the closure stops at the last key); reads
        // stay within `body`, `tail` (in `elements`) and the keys' blocks;
        // the length is set only to what was written.
        unsafe {
            let base = out.as_mut_ptr();
            let mut dst = base.add(start);
            dst.copy_from_nonoverlapping(first.bytes.as_ptr(), 32);
            dst = dst.add(first.len);
            // With the separator as the component and repetition bytes,
            // the scan reports only separators and bytes that need escaping.
            let scan = Scan::new(sep, sep, sep);
            let mut next = keys[1..].iter();
            let done = elements(dst, body, &scan, |d| {
                let key = next.next()?;
                d.copy_from_nonoverlapping(b"\",".as_ptr(), 2);
                d.add(2).copy_from_nonoverlapping(key.bytes.as_ptr(), 32);
                Some(d.add(2 + key.len))
            });
            let Some(dst) = done else {
                return false;
            };
            out.set_len(dst.offset_from(base) as usize);
        }
        true
    }

    /// Appends `head`, `b` and `tail` (`tail` at most 2 bytes), with short
    /// copies that make no library call.
    #[inline(always)]
    pub(crate) fn put(out: &mut Vec<u8>, head: u8, b: &[u8], tail: &[u8]) {
        debug_assert!(tail.len() <= 2);
        out.reserve(b.len() + 3);
        // SAFETY: `reserve` gives room for the 1 + b.len() + 2 bytes written.
        unsafe {
            let len = out.len();
            let dst = out.as_mut_ptr().add(len);
            *dst = head;
            copy(b.as_ptr(), dst.add(1), b.len());
            let t = dst.add(1 + b.len());
            for (k, &c) in tail.iter().enumerate() {
                *t.add(k) = c;
            }
            out.set_len(len + 1 + b.len() + tail.len());
        }
    }

    /// Appends `sep` (`{` or `,`) and the member name `"key":` of a key
    /// that needs no escaping, with one reservation and short copies.
    #[inline(always)]
    pub(crate) fn put_key(out: &mut Vec<u8>, sep: u8, key: &[u8]) {
        out.reserve(key.len() + 4);
        // SAFETY: `reserve` gives room for the 2 + key.len() + 2 bytes written.
        unsafe {
            let len = out.len();
            let dst = out.as_mut_ptr().add(len);
            *dst = sep;
            *dst.add(1) = b'"';
            copy(key.as_ptr(), dst.add(2), key.len());
            let t = dst.add(2 + key.len());
            *t = b'"';
            *t.add(1) = b':';
            out.set_len(len + key.len() + 4);
        }
    }

    /// Appends `b`, with a short copy that makes no library call.
    #[inline(always)]
    pub(crate) fn append(out: &mut Vec<u8>, b: &[u8]) {
        out.reserve(b.len());
        // SAFETY: `reserve` gives room for the b.len() bytes written.
        unsafe {
            let len = out.len();
            copy(b.as_ptr(), out.as_mut_ptr().add(len), b.len());
            out.set_len(len + b.len());
        }
    }

    /// Copies `len` bytes without a library call for short runs (overlapping
    /// word loads and stores).
    ///
    /// # Safety
    /// `src..src+len` readable, `dst..dst+len` writable, not overlapping.
    #[inline(always)]
    unsafe fn copy(src: *const u8, dst: *mut u8, len: usize) {
        unsafe {
            if len >= 8 {
                if len <= 16 {
                    let a = (src as *const u64).read_unaligned();
                    let b = (src.add(len - 8) as *const u64).read_unaligned();
                    (dst as *mut u64).write_unaligned(a);
                    (dst.add(len - 8) as *mut u64).write_unaligned(b);
                } else {
                    dst.copy_from_nonoverlapping(src, len);
                }
            } else if len >= 4 {
                let a = (src as *const u32).read_unaligned();
                let b = (src.add(len - 4) as *const u32).read_unaligned();
                (dst as *mut u32).write_unaligned(a);
                (dst.add(len - 4) as *mut u32).write_unaligned(b);
            } else if len > 0 {
                *dst = *src;
                *dst.add(len / 2) = *src.add(len / 2);
                *dst.add(len - 1) = *src.add(len - 1);
            }
        }
    }

    /// Per 16-byte block: the bits of element separators, of component and
    /// repetition separators, and of bytes that need the general path (`"`,
    /// `\\`, control and non-ASCII bytes that are none of those); the
    /// repetition separators alone on request.
    #[cfg(target_arch = "x86_64")]
    struct Scan {
        sep: std::arch::x86_64::__m128i,
        c: std::arch::x86_64::__m128i,
        r: std::arch::x86_64::__m128i,
    }

    #[cfg(target_arch = "x86_64")]
    impl Scan {
        #[inline(always)]
        fn new(sep: u8, c: u8, r: u8) -> Self {
            use std::arch::x86_64::*;
            // SAFETY: SSE2 is part of x86-64.
            unsafe {
                Scan {
                    sep: _mm_set1_epi8(sep as i8),
                    c: _mm_set1_epi8(c as i8),
                    r: _mm_set1_epi8(r as i8),
                }
            }
        }

        /// # Safety
        /// 16 bytes readable at `p`.
        #[inline(always)]
        unsafe fn block(&self, p: *const u8) -> (u32, u32, u32) {
            use std::arch::x86_64::*;
            // SAFETY: SSE2 is part of x86-64; the caller gives 16 bytes.
            unsafe {
                let x = _mm_loadu_si128(p as *const __m128i);
                let s = _mm_movemask_epi8(_mm_cmpeq_epi8(x, self.sep)) as u32;
                let cr = _mm_or_si128(_mm_cmpeq_epi8(x, self.c), _mm_cmpeq_epi8(x, self.r));
                let cr = _mm_movemask_epi8(cr) as u32 & !s;
                let json = _mm_or_si128(
                    _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8)),
                    _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8)),
                );
                // Signed: below 0x20 or from 0x80 (controls and non-ASCII).
                let low = _mm_cmplt_epi8(x, _mm_set1_epi8(0x20));
                let bad = _mm_or_si128(json, low);
                (s, cr, _mm_movemask_epi8(bad) as u32 & !s & !cr)
            }
        }

        /// The repetition separators of a block (none when `r` is the
        /// component separator: an interchange without repetitions).
        ///
        /// # Safety
        /// 16 bytes readable at `p`.
        #[inline(always)]
        unsafe fn repetitions(&self, p: *const u8) -> u32 {
            use std::arch::x86_64::*;
            // SAFETY: SSE2 is part of x86-64; the caller gives 16 bytes.
            unsafe {
                let x = _mm_loadu_si128(p as *const __m128i);
                let r = _mm_movemask_epi8(_mm_cmpeq_epi8(x, self.r)) as u32;
                let c = _mm_movemask_epi8(_mm_cmpeq_epi8(x, self.c)) as u32;
                let s = _mm_movemask_epi8(_mm_cmpeq_epi8(x, self.sep)) as u32;
                r & !c & !s
            }
        }
    }

    /// The portable [`Scan`]: the same bits, a byte at a time (the x86-64
    /// tests compare the two).
    #[cfg(any(test, not(target_arch = "x86_64")))]
    struct Portable {
        sep: u8,
        c: u8,
        r: u8,
    }

    #[cfg(not(target_arch = "x86_64"))]
    use Portable as Scan;

    #[cfg(any(test, not(target_arch = "x86_64")))]
    impl Portable {
        #[inline(always)]
        fn new(sep: u8, c: u8, r: u8) -> Self {
            Portable { sep, c, r }
        }

        /// # Safety
        /// 16 bytes readable at `p`.
        #[inline(always)]
        unsafe fn block(&self, p: *const u8) -> (u32, u32, u32) {
            let (mut s, mut cr, mut bad) = (0u32, 0u32, 0u32);
            for k in 0..16 {
                // SAFETY: the caller gives 16 bytes.
                let b = unsafe { *p.add(k) };
                if b == self.sep {
                    s |= 1 << k;
                } else if b == self.c || b == self.r {
                    cr |= 1 << k;
                } else if !(0x20..0x80).contains(&b) || b == b'"' || b == b'\\' {
                    bad |= 1 << k;
                }
            }
            (s, cr, bad)
        }

        /// # Safety
        /// 16 bytes readable at `p`.
        #[inline(always)]
        unsafe fn repetitions(&self, p: *const u8) -> u32 {
            let mut r = 0u32;
            for k in 0..16 {
                // SAFETY: the caller gives 16 bytes.
                let b = unsafe { *p.add(k) };
                if b == self.r && b != self.c && b != self.sep {
                    r |= 1 << k;
                }
            }
            r
        }
    }

    #[cfg(all(test, target_arch = "x86_64"))]
    proptest::proptest! {
        /// The SSE2 scan gives the bits of the portable one.
        #[test]
        fn sse2_scan_equals_the_portable_scan(
            block in proptest::array::uniform16(proptest::prelude::any::<u8>()),
            d in proptest::sample::subsequence(b"*:^~>|\x1d\x1f\"\\A\xff".to_vec(), 3),
            no_repetition in proptest::bool::ANY,
        ) {
            // Without a repetition separator the writer passes the component one.
            let r = if no_repetition { d[1] } else { d[2] };
            let fast = Scan::new(d[0], d[1], r);
            let portable = Portable::new(d[0], d[1], r);
            let p = block.as_ptr();
            // SAFETY: both read the 16 bytes of `block`.
            let (a, b) = unsafe { (fast.block(p), portable.block(p)) };
            proptest::prop_assert_eq!(a, b);
            // SAFETY: as above.
            let (a, b) = unsafe { (fast.repetitions(p), portable.repetitions(p)) };
            proptest::prop_assert_eq!(a, b);
        }
    }
}

/// Re-indents compact JSON on the fly, like `serde_json`'s pretty printer.
struct Pretty<W> {
    inner: W,
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// An opening bracket whose line break waits to see if the container is empty.
    open: Option<u8>,
    out: Vec<u8>,
}

impl<W: io::Write> Pretty<W> {
    fn new(inner: W) -> Self {
        Pretty {
            inner,
            depth: 0,
            in_string: false,
            escaped: false,
            open: None,
            out: Vec::with_capacity(1 << 16),
        }
    }

    fn newline(&mut self) {
        self.out.push(b'\n');
        for _ in 0..self.depth {
            self.out.extend_from_slice(b"  ");
        }
    }
}

impl<W: io::Write> io::Write for Pretty<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for &b in buf {
            if let Some(o) = self.open.take() {
                let close = if o == b'[' { b']' } else { b'}' };
                if b == close {
                    self.out.extend_from_slice(&[o, close]);
                    continue;
                }
                self.out.push(o);
                self.depth += 1;
                self.newline();
            }
            if self.in_string {
                self.out.push(b);
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    self.out.push(b);
                }
                b'[' | b'{' => self.open = Some(b),
                b']' | b'}' => {
                    self.depth = self.depth.saturating_sub(1);
                    self.newline();
                    self.out.push(b);
                }
                b',' => {
                    self.out.push(b);
                    self.newline();
                }
                b':' => self.out.extend_from_slice(b": "),
                _ => self.out.push(b),
            }
        }
        if self.out.len() >= 1 << 16 {
            self.inner.write_all(&self.out)?;
            self.out.clear();
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(o) = self.open.take() {
            self.out.push(o);
        }
        self.inner.write_all(&self.out)?;
        self.out.clear();
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::parse;
    use serde_json::json;

    /// The whole-tree JSON written with and without [`plain::segment`].
    fn both_paths(input: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let doc = parse(input);
        let run = |fast: bool| {
            let mut w = JsonWriter::new(Vec::new(), usize::MAX);
            w.fast = fast;
            w.document(&doc);
            w.buf
        };
        (run(true), run(false))
    }

    #[test]
    fn plain_segments_are_written_as_the_general_path_writes_them() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/inputs");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                let (fast, general) = both_paths(&std::fs::read(&p).unwrap());
                assert!(fast == general, "{}", p.display());
                n += 1;
            }
        }
        assert!(n > 10);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Segments of every length around the 16-byte blocks, made of plain
        /// text, the delimiters and bytes that need escaping or checking;
        /// their ids are ones the 850's document maps (strings, numbers,
        /// dates, qualifier pairs, nested objects), so the documents compare
        /// mapping with the writer's clean flags against mapping without,
        /// and ids that hold a separator, a quote or a control byte. The
        /// interchanges use `:` and `^`, `:` alone, or a control byte and a
        /// quote as component and repetition separators.
        #[test]
        fn plain_segments_equal_the_general_path_on_random_segments(
            segs in proptest::collection::vec(
                (
                    proptest::sample::select(&["REF", "PO1", "N1", "PID", "DTM", "N4", "ITD", "N:1", "N\"1", "N\x1f1", "N^1"][..]),
                    proptest::collection::vec(
                        proptest::sample::select(&b"AB9 .-*****:::^^^\"\\\x01\x1f\x1f\x7f\xc3\xa9\xff"[..]),
                        0..70,
                    ),
                ),
                1..6,
            ),
            isa in proptest::sample::select(vec![
                &b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000001*0*P*:~"[..],
                b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*:~",
                b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*\"*00501*000000001*0*P*\x1f~",
            ]),
        ) {
            let mut input = isa.to_vec();
            input.extend_from_slice(b"GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~");
            for (id, s) in &segs {
                input.extend_from_slice(id.as_bytes());
                input.push(b'*');
                input.extend_from_slice(s);
                input.push(b'~');
            }
            input.extend_from_slice(b"SE*3*0001~GE*1*1~IEA*1*000000001~");
            let (fast, general) = both_paths(&input);
            proptest::prop_assert!(fast == general, "{}", String::from_utf8_lossy(&input));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

        /// Envelope segments (ISA values, GS, ST, SE, GE, IEA) with random
        /// values, as many elements as they have names, fewer or more
        /// (`extra`), are written by `plain::fields` as the general path
        /// writes them.
        #[test]
        fn plain_fields_equal_the_general_path_on_random_envelopes(
            envelope in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::collection::vec(
                        proptest::sample::select(&b"AB9 .-:^\"\\\x01\x7f\xc3\xa9\xff"[..]),
                        0..12,
                    ),
                    0..12,
                ),
                5,
            ),
            isa_values in proptest::sample::select(vec![&b"^"[..], b"U", b"\\", b"\"", b"\xe9"]),
        ) {
            let mut input = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*".to_vec();
            input.extend_from_slice(isa_values);
            input.extend_from_slice(b"*00501*000000001*0*P*:~");
            for (id, values) in ["GS", "ST", "SE", "GE", "IEA"].iter().zip(&envelope) {
                if *id == "SE" {
                    input.extend_from_slice(b"BEG*00~");
                }
                input.extend_from_slice(id.as_bytes());
                for v in values {
                    input.push(b'*');
                    input.extend_from_slice(v);
                }
                input.push(b'~');
            }
            let (fast, general) = both_paths(&input);
            proptest::prop_assert!(fast == general, "{}", String::from_utf8_lossy(&input));
        }
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
        to_json_writer(&doc, &mut pretty, true, &JsonOptions::default()).unwrap();
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
        to_json_writer(&doc, &mut compact, false, &JsonOptions::default()).unwrap();
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
