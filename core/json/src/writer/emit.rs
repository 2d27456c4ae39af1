//! The writer behind every entry point of [`super`]: the parse result's
//! JSON in one pass over each segment, from a whole tree or a set at a time
//! (a leaf: the entry points and the set-by-set handlers use it, it uses
//! none of them).

use crate::copy::{append, put, put_key};
use crate::fields::{Fields, GE, GS, IEA, ISA, SE, ST};
use crate::mapping::SetMapper;
use crate::plain;
use std::io;
use x12kit_syntax::delimiters::Delimiters;
use x12kit_syntax::envelope::{Document, Group, Interchange, Transaction};
use x12kit_syntax::escape::escape_into;
use x12kit_syntax::segment::Segment;

/// Input released at most this often while an interchange is streamed (a
/// call per set would cost a system call per set).
pub(super) const RELEASE_EVERY: usize = 4 << 20;

/// Whether two line breaks are the same: they are a few bytes, compared
/// here rather than with a call to memcmp (which a slice `==` makes).
#[inline]
pub(super) fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Index of a group's first segment (GS, or the first ST of an implicit group).
pub(super) fn group_start(g: &Group<'_>) -> usize {
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

pub(super) struct JsonWriter<'a, 's, M> {
    pub(super) buf: Vec<u8>,
    pub(super) flush_at: usize,
    pub(super) sink: Option<Box<dyn io::Write + 's>>,
    pub(super) error: Option<io::Error>,
    pub(super) class: [u8; 256],
    /// [`separators_clean`] of `delims`.
    pub(super) separators_clean: bool,
    pub(super) delims: Delimiters,
    pub(super) line_break: &'a [u8],
    /// The line break of the interchange before (see [`JsonWriter::prepare`]).
    pub(super) line_break_was: &'a [u8],
    /// The opening of the last interchange written, up to its line break
    /// (see [`JsonWriter::interchange`]).
    pub(super) head: Vec<u8>,
    pub(super) overrides: Vec<(usize, &'a [u8])>,
    /// True while writing the ISA header.
    pub(super) isa: bool,
    /// Whether to write `document` for known set types.
    pub(super) documents: bool,
    /// Document mapping buffers, reused from set to set.
    pub(super) mapper: M,
    /// Whether segments take [`plain::segment`] when they can (the tests
    /// turn it off to compare it with the general path).
    pub(super) fast: bool,
}

impl<'a, 's, M: SetMapper<'a>> JsonWriter<'a, 's, M> {
    pub(super) fn new(buf: Vec<u8>, flush_at: usize) -> Self {
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
    pub(super) fn raw(&mut self, s: &[u8]) {
        self.buf.extend_from_slice(s);
    }

    #[inline]
    pub(super) fn maybe_flush(&mut self) {
        if self.buf.len() >= self.flush_at {
            self.flush();
        }
    }

    pub(super) fn flush(&mut self) {
        if let Some(sink) = &mut self.sink {
            if self.error.is_none() {
                if let Err(e) = sink.write_all(&self.buf) {
                    self.error = Some(e);
                }
            }
            self.buf.clear();
        }
    }

    /// Appends JSON written elsewhere (a worker's batch): a large piece goes
    /// to the sink as it is, after what is buffered, rather than through a
    /// copy into the buffer.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn put(&mut self, json: &[u8]) {
        match &mut self.sink {
            Some(sink) if json.len() >= self.flush_at => {
                if self.error.is_none() {
                    let written = sink
                        .write_all(&self.buf)
                        .and_then(|()| sink.write_all(json));
                    if let Err(e) = written {
                        self.error = Some(e);
                    }
                }
                self.buf.clear();
            }
            _ => self.buf.extend_from_slice(json),
        }
    }

    pub(super) fn flush_all(mut self) -> io::Result<()> {
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
    pub(super) fn string(&mut self, b: &[u8]) {
        self.buf.push(b'"');
        let flags = b.iter().fold(0u8, |f, &c| f | self.class[c as usize]);
        self.string_body(b, flags);
        self.buf.push(b'"');
    }

    /// The inside of a JSON string; `flags` are the byte classes seen in `b`.
    #[inline]
    pub(super) fn string_body(&mut self, b: &[u8], flags: u8) {
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
    pub(super) fn key(&mut self, first: &mut bool, k: &str) {
        if *first {
            *first = false;
            append(&mut self.buf, b"\"");
            append(&mut self.buf, k.as_bytes());
            append(&mut self.buf, b"\":");
        } else {
            put_key(&mut self.buf, b',', k.as_bytes());
        }
    }

    pub(super) fn document(&mut self, doc: &Document<'a>) {
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
    pub(super) fn tail(&mut self, doc: &Document<'a>) {
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
    pub(super) fn delimiter(&mut self, b: u8) {
        let mut utf8 = [0u8; 4];
        let s = char::from(b).encode_utf8(&mut utf8);
        self.string(s.as_bytes());
    }

    pub(super) fn interchange(&mut self, doc: &Document<'a>, i: &Interchange<'a>) {
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
    pub(super) fn prepare(&mut self, isa: &Segment<'a>) -> bool {
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
    pub(super) fn interchange_open(&mut self, i: &Interchange<'a>, starts: &[usize]) {
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
    pub(super) fn interchange_close(&mut self, iea: Option<&Segment<'a>>) {
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
    pub(super) fn note(&mut self, seg: &Segment<'a>) {
        if !same(seg.suffix(), self.line_break) {
            self.overrides.push((seg.index(), seg.suffix()));
        }
    }

    pub(super) fn group(&mut self, doc: &Document<'a>, g: &Group<'a>) {
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
    pub(super) fn group_open(&mut self, g: &Group<'a>) {
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
    pub(super) fn group_close(&mut self, ge: Option<&Segment<'a>>) {
        self.raw(b"],\"trailer\":");
        self.trailer(&GE, ge);
        self.buf.push(b'}');
    }

    /// One transaction set's object.
    // Not inlined: its callers (the whole-tree, set-by-set and fed writers)
    // share one copy (WASM's size); it runs once a set.
    #[inline(never)]
    pub(super) fn transaction(&mut self, doc: &Document<'a>, g: &Group<'a>, t: &Transaction<'a>) {
        self.buf.push(b'{');
        let mut first = self.field_entries(&ST, &t.st);
        self.key(&mut first, "segments");
        self.buf.push(b'[');
        // The mapped business document, for the declared set types only;
        // its body is collected while the segments are written.
        let map = self.documents && !t.is_over_cap() && self.mapper.maps(t.kind());
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

    pub(super) fn trailer(&mut self, fields: &Fields, seg: Option<&Segment<'a>>) {
        match seg {
            Some(s) => self.fields(fields, s, false),
            None => self.raw(b"null"),
        }
    }

    /// An envelope segment as an object of named raw values.
    pub(super) fn fields(&mut self, fields: &Fields, seg: &Segment<'a>, isa: bool) {
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
    pub(super) fn field_entries(&mut self, fields: &Fields, seg: &Segment<'a>) -> bool {
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
    pub(super) fn segment(&mut self, seg: &Segment<'a>, after_group: Option<usize>) -> bool {
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
    pub(super) fn element(&mut self, e: &[u8], flags: u8) {
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

    pub(super) fn composite(&mut self, e: &[u8], flags: u8) {
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
