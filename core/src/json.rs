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

/// Parses `input` and appends the compact JSON of the parse result to `out`:
/// the bytes of [`to_json_into`] of [`parse`](crate::parse())`(input)`,
/// holding one interchange's tree at a time (see [`to_json_stream`]).
pub fn parse_to_json_into(input: &[u8], options: &JsonOptions, out: &mut Vec<u8>) {
    let mut jw = JsonWriter::new(std::mem::take(out), usize::MAX);
    jw.buf.reserve(input.len() * 2 + 256);
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
    delims: Delimiters,
    line_break: &'a [u8],
    overrides: Vec<(usize, &'a [u8])>,
    /// True while writing the ISA header.
    isa: bool,
    /// Whether to write `document` for known set types.
    documents: bool,
    /// Document mapping buffers, reused from set to set.
    mapper: crate::documents::Mapper<'a>,
}

const HEX: &[u8; 16] = b"0123456789abcdef";

impl<'a, 's> JsonWriter<'a, 's> {
    fn new(buf: Vec<u8>, flush_at: usize) -> Self {
        JsonWriter {
            buf,
            flush_at,
            sink: None,
            error: None,
            class: classes(&Delimiters::default()),
            delims: Delimiters::default(),
            line_break: b"",
            overrides: Vec::new(),
            isa: false,
            documents: true,
            mapper: Default::default(),
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

    fn key(&mut self, first: &mut bool, k: &str) {
        if !*first {
            self.buf.push(b',');
        }
        *first = false;
        self.buf.push(b'"');
        self.buf.extend_from_slice(k.as_bytes());
        self.raw(b"\":");
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

    fn delimiter(&mut self, b: u8) {
        let s = delimiter_char(b);
        self.string(s.as_bytes());
    }

    fn interchange(&mut self, doc: &Document<'a>, i: &Interchange<'a>) {
        let d = i.isa.delimiters();
        self.class = classes(&d);
        self.delims = d;
        let line_break = i.isa.suffix();
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
        self.line_break = line_break;
        self.overrides.clear();
        self.raw(b",\"header\":");
        self.fields(&ISA_FIELDS, &i.isa, true);
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
        self.trailer(&IEA_FIELDS, i.iea.as_ref());
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
        if seg.suffix() != self.line_break {
            self.overrides.push((seg.index(), seg.suffix()));
        }
    }

    fn group(&mut self, doc: &Document<'a>, g: &Group<'a>) {
        self.raw(b"{\"header\":");
        self.trailer(&GS_FIELDS, g.gs.as_ref());
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
            let mut first = self.field_entries(&ST_FIELDS, &t.st, true);
            self.key(&mut first, "segments");
            self.buf.push(b'[');
            // The mapped business document, for the 18 known set types only;
            // its body is collected while the segments are written.
            let map = self.documents && crate::documents::is_known(t.kind());
            if map {
                self.mapper.clear_body();
            }
            for (k, seg) in doc.body(t).enumerate() {
                if k > 0 {
                    self.buf.push(b',');
                }
                self.segment(&seg, None);
                if map {
                    self.mapper.push_body(seg);
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
            self.trailer(&SE_FIELDS, t.se.as_ref());
            self.buf.push(b'}');
        }
        self.raw(b"],\"trailer\":");
        self.trailer(&GE_FIELDS, g.ge.as_ref());
        self.buf.push(b'}');
    }

    fn trailer(&mut self, names: &[&str], seg: Option<&Segment<'a>>) {
        match seg {
            Some(s) => self.fields(names, s, false),
            None => self.raw(b"null"),
        }
    }

    /// An envelope segment as an object of named raw values.
    fn fields(&mut self, names: &[&str], seg: &Segment<'a>, isa: bool) {
        self.buf.push(b'{');
        self.isa = isa;
        self.field_entries(names, seg, true);
        self.isa = false;
        self.buf.push(b'}');
    }

    /// Named raw values; elements beyond the names go to `extra`; absent ones are left out.
    /// Returns whether the object is still empty (for the caller's next key).
    fn field_entries(&mut self, names: &[&str], seg: &Segment<'a>, mut first: bool) -> bool {
        self.note(seg);
        let isa = self.isa;
        let mut extra = Vec::new();
        for (k, e) in seg.elements().enumerate() {
            match names.get(k) {
                Some(name) => {
                    self.key(&mut first, name);
                    match e.raw() {
                        // ISA11 and ISA16 hold delimiters: one byte, shown like `delimiters`.
                        [b] if isa && (k == 10 || k == 15) => self.delimiter(*b),
                        raw => self.string(raw),
                    }
                }
                None => extra.push(e.raw()),
            }
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
        first
    }

    /// `{"id": ..., "elements": [...]}` in one pass over the segment's bytes.
    #[inline]
    fn segment(&mut self, seg: &Segment<'a>, after_group: Option<usize>) {
        self.note(seg);
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
    }

    /// One element: string, components array, or `{"repeat": [...]}`.
    #[inline]
    fn element(&mut self, e: &[u8], flags: u8) {
        if flags == 0 {
            self.buf.push(b'"');
            self.buf.extend_from_slice(e);
            self.buf.push(b'"');
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

/// Appends the inside of a JSON string holding `b` (UTF-8): `"`, `\` and
/// control characters escaped as serde_json does (`\n`, `\b`, …, else
/// `\u00XX`), everything else as it is.
pub(crate) fn escape_into(b: &[u8], out: &mut Vec<u8>) {
    let mut run = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0C => b"\\f",
            0..=0x1F => b"",
            _ => continue,
        };
        out.extend_from_slice(&b[run..i]);
        if esc.is_empty() {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(c >> 4) as usize],
                HEX[(c & 15) as usize],
            ]);
        } else {
            out.extend_from_slice(esc);
        }
        run = i + 1;
    }
    out.extend_from_slice(&b[run..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::parse;
    use serde_json::json;

    #[test]
    fn escape_into_writes_what_serde_json_writes() {
        let all: String = (0u8..0x80).map(char::from).chain("é€😀".chars()).collect();
        let mut out = vec![b'"'];
        super::escape_into(all.as_bytes(), &mut out);
        out.push(b'"');
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string(&all).unwrap()
        );
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
