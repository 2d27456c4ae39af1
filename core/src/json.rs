//! The JSON contract of a parse result.
//!
//! [`to_json`] / [`to_json_writer`] serialize a [`Document`] straight from the
//! borrowed tree, without building an intermediate value. The shape is
//! documented by `schema/parse-result.schema.json` and is the same in every
//! binding and in the HTTP API:
//!
//! - top level: `interchanges`, `diagnostics`, and `prefix` when the input
//!   starts with a BOM or whitespace;
//! - interchange: `delimiters`, `lineBreak` (what follows each terminator),
//!   `lineBreakOverrides` (segment index → line break, only where one differs),
//!   `header` (ISA fields by name), `segments` (TA1/ISB/ISE, only when
//!   present; each with `afterGroup` when it follows a group rather than
//!   preceding the first one),
//!   `groups`, `trailer` (IEA, or null when missing);
//! - group: `header` (GS, or null for sets found outside a group), `segments`
//!   (misplaced ones, only when present), `transactions`, `trailer` (GE or null);
//! - transaction: `type`, `controlNumber`, `implementationReference` (ST03,
//!   when present), `segments` (the body between ST and SE), `trailer` (SE or null);
//! - segment: `{"id": "N1", "elements": [...]}` where an element is a string
//!   (simple), an array of strings (a composite's components), or
//!   `{"repeat": [...]}` whose items are strings or arrays of strings.
//!
//! Envelope values are the raw element text, padding included, so that
//! writing the JSON back gives the original bytes. Delimiters and line
//! breaks are one-character strings; a byte 0x80–0xFF is written as the
//! character with the same code point (U+0080–U+00FF).

use crate::envelope::{Document, Group, Interchange, Transaction};
use crate::segment::{Element, Segment};
use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use std::borrow::Cow;
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

/// Serializes a parse result to compact JSON bytes.
pub fn to_json(doc: &Document<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(doc_size_hint(doc));
    // Writing to a Vec cannot fail, and every value is serializable.
    let _ = serde_json::to_writer(&mut out, &DocumentJson(doc));
    out
}

/// Serializes a parse result as JSON to a writer, compact or pretty.
pub fn to_json_writer<W: io::Write>(doc: &Document<'_>, w: W, pretty: bool) -> io::Result<()> {
    let r = if pretty {
        serde_json::to_writer_pretty(w, &DocumentJson(doc))
    } else {
        serde_json::to_writer(w, &DocumentJson(doc))
    };
    r.map_err(io::Error::other)
}

/// Serializes a parse result to a `serde_json::Value`.
pub fn to_value(doc: &Document<'_>) -> serde_json::Value {
    serde_json::to_value(DocumentJson(doc)).unwrap_or(serde_json::Value::Null)
}

fn doc_size_hint(doc: &Document<'_>) -> usize {
    doc.interchanges
        .first()
        .map_or(256, |i| i.isa.offset() + 256)
        .max(256)
}

/// Text of raw bytes: borrowed when valid UTF-8, else lossy.
#[inline]
fn text(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(b),
    }
}

/// A delimiter byte as a one-character string (Latin-1 mapping).
pub fn delimiter_char(b: u8) -> String {
    char::from(b).to_string()
}

struct DocumentJson<'d, 'a>(&'d Document<'a>);

impl Serialize for DocumentJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let doc = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(
            "interchanges",
            &Seq(doc.interchanges.iter().map(|i| InterchangeJson(doc, i))),
        )?;
        m.serialize_entry("diagnostics", &doc.diagnostics)?;
        if !doc.prefix.is_empty() {
            m.serialize_entry("prefix", &text(doc.prefix))?;
        }
        m.end()
    }
}

/// Serializes an iterator as a JSON array (the iterator is cloned to serialize).
struct Seq<I>(I);

impl<I, T> Serialize for Seq<I>
where
    I: Iterator<Item = T> + Clone,
    T: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for item in self.0.clone() {
            seq.serialize_element(&item)?;
        }
        seq.end()
    }
}

/// Visits an interchange's segments in document order.
pub(crate) fn walk<'a>(doc: &Document<'a>, i: &Interchange<'a>, mut f: impl FnMut(&Segment<'a>)) {
    f(&i.isa);
    i.segments.iter().for_each(&mut f);
    for g in &i.groups {
        if let Some(gs) = &g.gs {
            f(gs);
        }
        g.segments.iter().for_each(&mut f);
        for t in &g.transactions {
            f(&t.st);
            doc.body(t).iter().for_each(&mut f);
            if let Some(se) = &t.se {
                f(se);
            }
        }
        if let Some(ge) = &g.ge {
            f(ge);
        }
    }
    if let Some(iea) = &i.iea {
        f(iea);
    }
}

#[derive(Serialize)]
struct DelimitersJson {
    element: String,
    component: String,
    repetition: Option<String>,
    segment: String,
}

struct InterchangeJson<'d, 'a>(&'d Document<'a>, &'d Interchange<'a>);

impl Serialize for InterchangeJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (doc, i) = (self.0, self.1);
        let d = i.isa.delimiters();
        let line_break = i.isa.suffix();
        let mut overrides: Vec<(usize, &[u8])> = Vec::new();
        walk(doc, i, |seg| {
            if seg.suffix() != line_break {
                overrides.push((seg.index(), seg.suffix()));
            }
        });
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(
            "delimiters",
            &DelimitersJson {
                element: delimiter_char(d.element),
                component: delimiter_char(d.component),
                repetition: d.repetition.map(delimiter_char),
                segment: delimiter_char(d.segment),
            },
        )?;
        m.serialize_entry("lineBreak", &text(line_break))?;
        if !overrides.is_empty() {
            m.serialize_entry("lineBreakOverrides", &Overrides(&overrides))?;
        }
        m.serialize_entry("header", &Fields(&ISA_FIELDS, i.isa))?;
        if !i.segments.is_empty() {
            let starts: Vec<usize> = i.groups.iter().map(|g| group_start(doc, g)).collect();
            m.serialize_entry(
                "segments",
                &Seq(i.segments.iter().map(|seg| {
                    let after = starts.iter().filter(|&&s| s < seg.index()).count();
                    PlacedSegment(seg, after.checked_sub(1))
                })),
            )?;
        }
        m.serialize_entry("groups", &Seq(i.groups.iter().map(|g| GroupJson(doc, g))))?;
        m.serialize_entry("trailer", &i.iea.map(|s| Fields(&IEA_FIELDS, s)))?;
        m.end()
    }
}

/// Index of a group's first segment (GS, or the first ST of an implicit group).
fn group_start(doc: &Document<'_>, g: &Group<'_>) -> usize {
    match (&g.gs, g.transactions.first()) {
        (Some(gs), _) => gs.index(),
        (None, Some(t)) => t.st.index(),
        (None, None) => doc.segment_count(),
    }
}

/// A segment directly inside an interchange, with the group it follows
/// (`afterGroup`, 0-based) when it is not before the first group.
struct PlacedSegment<'s, 'a>(&'s Segment<'a>, Option<usize>);

impl Serialize for PlacedSegment<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        SegmentJson(self.0).entries(&mut m)?;
        if let Some(g) = self.1 {
            m.serialize_entry("afterGroup", &g)?;
        }
        m.end()
    }
}

struct Overrides<'o>(&'o [(usize, &'o [u8])]);

impl Serialize for Overrides<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(&k.to_string(), &text(v))?;
        }
        m.end()
    }
}

struct GroupJson<'d, 'a>(&'d Document<'a>, &'d Group<'a>);

impl Serialize for GroupJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (doc, g) = (self.0, self.1);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("header", &g.gs.map(|s| Fields(&GS_FIELDS, s)))?;
        if !g.segments.is_empty() {
            m.serialize_entry("segments", &Seq(g.segments.iter().map(SegmentJson)))?;
        }
        m.serialize_entry(
            "transactions",
            &Seq(g.transactions.iter().map(|t| TransactionJson(doc, t))),
        )?;
        m.serialize_entry("trailer", &g.ge.map(|s| Fields(&GE_FIELDS, s)))?;
        m.end()
    }
}

struct TransactionJson<'d, 'a>(&'d Document<'a>, &'d Transaction<'a>);

impl Serialize for TransactionJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (doc, t) = (self.0, self.1);
        let mut m = s.serialize_map(None)?;
        Fields(&ST_FIELDS, t.st).entries(&mut m)?;
        m.serialize_entry("segments", &Seq(doc.body(t).iter().map(SegmentJson)))?;
        m.serialize_entry("trailer", &t.se.map(|s| Fields(&SE_FIELDS, s)))?;
        m.end()
    }
}

/// An envelope segment as an object of named raw values. Elements beyond the
/// named ones go to `extra`; absent ones are left out (ST03 when missing).
#[derive(Clone, Copy)]
struct Fields<'n, 'a>(&'n [&'static str], Segment<'a>);

impl Fields<'_, '_> {
    fn entries<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
        let mut extra = Vec::new();
        for (k, e) in self.1.elements().enumerate() {
            match self.0.get(k) {
                Some(name) => m.serialize_entry(name, &text(e.raw()))?,
                None => extra.push(e),
            }
        }
        if !extra.is_empty() {
            m.serialize_entry("extra", &Seq(extra.iter().map(|e| ElementJson(*e))))?;
        }
        Ok(())
    }
}

impl Serialize for Fields<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        self.entries(&mut m)?;
        m.end()
    }
}

struct SegmentJson<'s, 'a>(&'s Segment<'a>);

impl SegmentJson<'_, '_> {
    fn entries<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
        let seg = self.0;
        m.serialize_entry("id", &text(seg.id()))?;
        m.serialize_entry("elements", &Seq(seg.elements().map(ElementJson)))
    }
}

impl Serialize for SegmentJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        self.entries(&mut m)?;
        m.end()
    }
}

struct ElementJson<'a>(Element<'a>);

impl Serialize for ElementJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        if e.is_repeated() {
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry("repeat", &Seq(e.repetitions().map(Composite)))?;
            m.end()
        } else {
            Composite(e).serialize(s)
        }
    }
}

/// A string for a simple value, an array of strings for a composite.
struct Composite<'a>(Element<'a>);

impl Serialize for Composite<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        if e.is_composite() {
            s.collect_seq(e.components().map(|c| text(c.raw())))
        } else {
            s.serialize_str(&text(e.raw()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::parse;
    use serde_json::json;

    #[test]
    fn shape_of_a_small_interchange() {
        let input = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000001*0*T*:~\nGS*PO*S*R*20230101*1200*1*X*005010~\nST*850*0001~\nREF*ZZ*A:B*C^D:E~\nSE*3*0001~\nGE*1*1~\nIEA*1*000000001~";
        let v = to_value(&parse(input));
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
    fn missing_trailers_are_null_and_extra_elements_kept() {
        let input = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*T*:~ST*850*0001*X*Y~";
        let v = to_value(&parse(input));
        let g = &v["interchanges"][0]["groups"][0];
        assert_eq!(g["header"], serde_json::Value::Null);
        assert_eq!(g["transactions"][0]["implementationReference"], "X");
        assert_eq!(g["transactions"][0]["extra"], json!(["Y"]));
        assert_eq!(g["transactions"][0]["trailer"], serde_json::Value::Null);
        assert_eq!(v["interchanges"][0]["trailer"], serde_json::Value::Null);
    }
}
