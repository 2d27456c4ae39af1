//! Writing a parse result (the JSON of [`crate::writer`]) back to X12 bytes.
//!
//! For input without error diagnostics, `write(parse(x))` gives `x` back byte
//! for byte: delimiters, envelope padding, empty trailing elements, the line
//! breaks after each terminator, a leading BOM, a last segment without its
//! terminator (`TERMINATOR_MISSING`: the parse result says `unterminated`),
//! end-of-file padding after an IEA (`TRAILING_PADDING`: kept as that IEA's
//! line break) and the line breaks inside a hard-wrapped ISA (`ISA_LAYOUT`:
//! kept in its values) are all kept. One warned case is not reproduced:
//! bytes that are not UTF-8 (`INVALID_UTF8`: JSON holds U+FFFD instead).
//! [`WriteOptions::line_break`] normalises line breaks instead (then the
//! padding and the missing terminator are not reproduced either).
//!
//! A value that contains a delimiter is refused with
//! `CONTAINS_DELIMITER` rather than written as corrupt X12.

use crate::fields::{GE_FIELDS, GS_FIELDS, IEA_FIELDS, ISA_FIELDS, SE_FIELDS, ST_FIELDS};
use crate::text::value_kind;
use serde::Deserialize;
use serde_json::{Map, Value};
use x12kit_syntax::delimiters::{Delimiters, show_byte};
use x12kit_syntax::error::{Error, ErrorCode, Result};

/// Options for [`write()`] (JSON `{"lineBreak"}`, as every binding takes them).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct WriteOptions {
    /// `None` keeps the line breaks (and BOM) recorded in the parse result;
    /// `Some(s)` (CR and LF only, else `INVALID_OPTIONS`) writes `s` after
    /// every terminator and drops the prefix, except in an interchange whose
    /// delimiters include CR or LF (a terminator that is a line break already
    /// ends each line): there nothing is added.
    pub line_break: Option<String>,
}

/// Writes a parse result given as JSON text.
pub fn write_str(json: &str, options: &WriteOptions) -> Result<Vec<u8>> {
    let v: Value = serde_json::from_str(json).map_err(|e| Error::invalid_json("input", e))?;
    write(&v, options)
}

/// Writes a parse result given as a JSON value.
pub fn write(v: &Value, options: &WriteOptions) -> Result<Vec<u8>> {
    if let Some(lb) = &options.line_break {
        if lb.bytes().any(|b| b != b'\n' && b != b'\r') {
            return Err(Error::new(
                ErrorCode::InvalidOptions,
                format!(
                    "the line break {lb:?} must be made of CR and LF only (\"\", \"\\n\" or \"\\r\\n\"): anything else after a terminator would be read as the start of the next segment"
                ),
            )
            .at("/lineBreak"));
        }
    }
    let root = object(v, "")?;
    let mut w = Writer {
        out: Vec::new(),
        index: 0,
        options,
        d: Delimiters::default(),
        line_break: Vec::new(),
        overrides: None,
        last_terminator: None,
    };
    if options.line_break.is_none() {
        if let Some(p) = root.get("prefix") {
            w.out.extend_from_slice(string(p, "/prefix")?.as_bytes());
        }
    }
    let interchanges = array(field(root, "", "interchanges")?, "/interchanges")?;
    for (n, i) in interchanges.iter().enumerate() {
        w.interchange(i, &format!("/interchanges/{n}"))?;
    }
    let unterminated = match root.get("unterminated") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(shape(
                "/unterminated",
                format!("expected a boolean, found {}", value_kind(other)),
            ));
        }
    };
    // The input's last segment had no terminator: leave it off again
    // (unless line breaks are normalised, which writes a regular file).
    if let (true, None, Some(at)) = (unterminated, &options.line_break, w.last_terminator) {
        w.out.remove(at);
    }
    Ok(w.out)
}

struct Writer<'o, 'v> {
    out: Vec<u8>,
    index: usize,
    options: &'o WriteOptions,
    d: Delimiters,
    line_break: Vec<u8>,
    overrides: Option<&'v Map<String, Value>>,
    /// Where the last segment terminator was written.
    last_terminator: Option<usize>,
}

fn shape(path: &str, message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidParseResult, message).at(if path.is_empty() { "/" } else { path })
}

fn object<'v>(v: &'v Value, path: &str) -> Result<&'v Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| shape(path, format!("expected an object, found {}", value_kind(v))))
}

fn array<'v>(v: &'v Value, path: &str) -> Result<&'v Vec<Value>> {
    v.as_array()
        .ok_or_else(|| shape(path, format!("expected an array, found {}", value_kind(v))))
}

fn string<'v>(v: &'v Value, path: &str) -> Result<&'v str> {
    v.as_str()
        .ok_or_else(|| shape(path, format!("expected a string, found {}", value_kind(v))))
}

fn field<'v>(m: &'v Map<String, Value>, path: &str, name: &str) -> Result<&'v Value> {
    m.get(name)
        .ok_or_else(|| shape(path, format!("the field \"{name}\" is missing")))
}

/// A one-character delimiter string as its byte (U+0000–U+00FF).
fn delimiter(v: &Value, path: &str) -> Result<u8> {
    let s = string(v, path)?;
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if (c as u32) < 256 => Ok(c as u32 as u8),
        _ => Err(Error::new(
            ErrorCode::InvalidDelimiters,
            format!(
                "a delimiter must be exactly one character between U+0000 and U+00FF, found \"{s}\""
            ),
        )
        .at(path)),
    }
}

impl<'v> Writer<'_, 'v> {
    fn interchange(&mut self, v: &'v Value, path: &str) -> Result<()> {
        let i = object(v, path)?;
        let dp = format!("{path}/delimiters");
        let dm = object(field(i, path, "delimiters")?, &dp)?;
        let repetition = match dm.get("repetition") {
            None | Some(Value::Null) => None,
            Some(r) => Some(delimiter(r, &format!("{dp}/repetition"))?),
        };
        self.d = Delimiters {
            element: delimiter(field(dm, &dp, "element")?, &format!("{dp}/element"))?,
            component: delimiter(field(dm, &dp, "component")?, &format!("{dp}/component"))?,
            repetition,
            segment: delimiter(field(dm, &dp, "segment")?, &format!("{dp}/segment"))?,
        };
        self.d
            .check()
            .map_err(|message| Error::new(ErrorCode::InvalidDelimiters, message).at(dp.clone()))?;
        self.line_break = match &self.options.line_break {
            // A terminator that is itself a line break already ends each
            // line, and a line break that is another delimiter would start
            // a segment: such an interchange gets no line break added.
            Some(_) if self.d.is_delimiter(b'\n') || self.d.is_delimiter(b'\r') => Vec::new(),
            Some(lb) => lb.clone().into_bytes(),
            None => match i.get("lineBreak") {
                None | Some(Value::Null) => Vec::new(),
                Some(lb) => string(lb, &format!("{path}/lineBreak"))?
                    .as_bytes()
                    .to_vec(),
            },
        };
        self.overrides = match (&self.options.line_break, i.get("lineBreakOverrides")) {
            (None, Some(o)) => Some(object(o, &format!("{path}/lineBreakOverrides"))?),
            _ => None,
        };

        let hp = format!("{path}/header");
        self.fields("ISA", &ISA_FIELDS, field(i, path, "header")?, &hp, true)?;
        let sp = format!("{path}/segments");
        let placed = match i.get("segments") {
            None => Vec::new(),
            Some(v) => array(v, &sp)?
                .iter()
                .enumerate()
                .map(|(n, seg)| {
                    let after = match seg.get("afterGroup") {
                        None | Some(Value::Null) => Ok(None),
                        Some(a) => a.as_u64().map(Some).ok_or_else(|| {
                            shape(
                                &format!("{sp}/{n}/afterGroup"),
                                format!("expected a group index, found {}", value_kind(a)),
                            )
                        }),
                    };
                    after.map(|a| (n, seg, a))
                })
                .collect::<Result<Vec<_>>>()?,
        };
        let at = |w: &mut Self, after: Option<u64>| -> Result<()> {
            for (n, seg, _) in placed.iter().filter(|p| p.2 == after) {
                w.segment(seg, &format!("{sp}/{n}"))?;
            }
            Ok(())
        };
        at(self, None)?;
        let groups = array(field(i, path, "groups")?, &format!("{path}/groups"))?;
        if let Some((n, _, Some(g))) = placed
            .iter()
            .find(|p| p.2.is_some_and(|g| g >= groups.len() as u64))
        {
            return Err(shape(
                &format!("{sp}/{n}/afterGroup"),
                format!(
                    "afterGroup is {g}, but the interchange has {} group(s)",
                    groups.len()
                ),
            ));
        }
        for (n, g) in groups.iter().enumerate() {
            self.group(g, &format!("{path}/groups/{n}"))?;
            at(self, Some(n as u64))?;
        }
        self.trailer(
            "IEA",
            &IEA_FIELDS,
            i.get("trailer"),
            &format!("{path}/trailer"),
        )
    }

    fn group(&mut self, v: &'v Value, path: &str) -> Result<()> {
        let g = object(v, path)?;
        match field(g, path, "header")? {
            Value::Null => {}
            h => self.fields("GS", &GS_FIELDS, h, &format!("{path}/header"), false)?,
        }
        self.segments(g.get("segments"), &format!("{path}/segments"))?;
        let txs = array(
            field(g, path, "transactions")?,
            &format!("{path}/transactions"),
        )?;
        for (n, t) in txs.iter().enumerate() {
            let tp = format!("{path}/transactions/{n}");
            self.fields("ST", &ST_FIELDS, t, &tp, false)?;
            let t = object(t, &tp)?;
            self.segments(Some(field(t, &tp, "segments")?), &format!("{tp}/segments"))?;
            self.trailer("SE", &SE_FIELDS, t.get("trailer"), &format!("{tp}/trailer"))?;
        }
        self.trailer(
            "GE",
            &GE_FIELDS,
            g.get("trailer"),
            &format!("{path}/trailer"),
        )
    }

    fn trailer(&mut self, id: &str, names: &[&str], v: Option<&Value>, path: &str) -> Result<()> {
        match v {
            None | Some(Value::Null) => Ok(()),
            Some(t) => self.fields(id, names, t, path, false),
        }
    }

    /// An envelope segment from named raw values (plus `extra` elements).
    fn fields(&mut self, id: &str, names: &[&str], v: &Value, path: &str, isa: bool) -> Result<()> {
        let m = object(v, path)?;
        let last = names.iter().rposition(|n| m.contains_key(*n));
        self.out.extend_from_slice(id.as_bytes());
        for (k, name) in names.iter().enumerate().take(last.map_or(0, |l| l + 1)) {
            self.out.push(self.d.element);
            if let Some(val) = m.get(*name) {
                let fp = format!("{path}/{name}");
                let s = string(val, &fp)?;
                // ISA11 and ISA16 hold delimiters themselves; other envelope
                // values may hold components or repetitions verbatim.
                if isa && (k == 10 || k == 15) {
                    // A delimiter value: one character U+0000-U+00FF stands for its byte.
                    let mut chars = s.chars();
                    match (chars.next(), chars.next()) {
                        (Some(c), None) if (c as u32) < 256 => self.out.push(c as u32 as u8),
                        _ => self.value(s, &fp, Check::None)?,
                    }
                } else if isa {
                    self.value(s, &fp, Check::Isa)?;
                } else {
                    self.value(s, &fp, Check::Envelope)?;
                }
            }
        }
        if let Some(extra) = m.get("extra") {
            let ep = format!("{path}/extra");
            for (n, e) in array(extra, &ep)?.iter().enumerate() {
                self.out.push(self.d.element);
                self.element(e, &format!("{ep}/{n}"))?;
            }
        }
        self.end_segment(path)
    }

    fn segments(&mut self, v: Option<&Value>, path: &str) -> Result<()> {
        let Some(v) = v else { return Ok(()) };
        for (n, s) in array(v, path)?.iter().enumerate() {
            self.segment(s, &format!("{path}/{n}"))?;
        }
        Ok(())
    }

    fn segment(&mut self, s: &Value, sp: &str) -> Result<()> {
        let seg = object(s, sp)?;
        let id = string(field(seg, sp, "id")?, &format!("{sp}/id"))?;
        if id.is_empty() {
            return Err(shape(&format!("{sp}/id"), "a segment id must not be empty"));
        }
        self.value(id, &format!("{sp}/id"), Check::All)?;
        let ep = format!("{sp}/elements");
        for (k, e) in array(field(seg, sp, "elements")?, &ep)?.iter().enumerate() {
            self.out.push(self.d.element);
            self.element(e, &format!("{ep}/{k}"))?;
        }
        self.end_segment(sp)
    }

    fn element(&mut self, v: &Value, path: &str) -> Result<()> {
        match v {
            Value::Object(m) => {
                let Some(reps) = m.get("repeat") else {
                    return Err(shape(
                        path,
                        "an element object must have a \"repeat\" array",
                    ));
                };
                let Some(r) = self.d.repetition else {
                    return Err(Error::new(ErrorCode::ContainsDelimiter, "this element repeats, but the interchange has no repetition separator (ISA12 before 00402)").at(path));
                };
                let rp = format!("{path}/repeat");
                let reps = array(reps, &rp)?;
                if reps.is_empty() {
                    return Err(shape(
                        &rp,
                        "a repeated element needs at least one repetition",
                    ));
                }
                for (n, rep) in reps.iter().enumerate() {
                    if n > 0 {
                        self.out.push(r);
                    }
                    self.composite(rep, &format!("{rp}/{n}"))?;
                }
                Ok(())
            }
            other => self.composite(other, path),
        }
    }

    fn composite(&mut self, v: &Value, path: &str) -> Result<()> {
        match v {
            Value::String(s) => self.value(s, path, Check::All),
            Value::Array(parts) => {
                for (n, p) in parts.iter().enumerate() {
                    if n > 0 {
                        self.out.push(self.d.component);
                    }
                    let cp = format!("{path}/{n}");
                    self.value(string(p, &cp)?, &cp, Check::All)?;
                }
                Ok(())
            }
            other => Err(shape(
                path,
                format!(
                    "an element must be a string, an array of strings (components) or {{\"repeat\": [...]}}, found {}",
                    value_kind(other)
                ),
            )),
        }
    }

    fn value(&mut self, s: &str, path: &str, check: Check) -> Result<()> {
        let d = self.d;
        let bad = |b: u8| match check {
            Check::None => false,
            Check::Envelope => b == d.element || b == d.segment,
            // The line breaks of a hard-wrapped ISA are read as such even
            // when the terminator is one.
            Check::Isa => b == d.element || (b == d.segment && b != b'\n' && b != b'\r'),
            Check::All => d.is_delimiter(b),
        };
        if let Some(b) = s.bytes().find(|&b| bad(b)) {
            return Err(Error::new(ErrorCode::ContainsDelimiter, format!(
                    "the value \"{s}\" contains {}, which is a delimiter of this interchange; writing it would corrupt the X12",
                    show_byte(b)
                )).at(path));
        }
        self.out.extend_from_slice(s.as_bytes());
        Ok(())
    }

    fn end_segment(&mut self, path: &str) -> Result<()> {
        self.last_terminator = Some(self.out.len());
        self.out.push(self.d.segment);
        let key = self.index.to_string();
        match self.overrides.and_then(|o| o.get(&key)) {
            Some(lb) => {
                let s = string(lb, &format!("{path}/lineBreakOverrides/{key}"))?;
                self.out.extend_from_slice(s.as_bytes());
            }
            None => self.out.extend_from_slice(&self.line_break),
        }
        self.index += 1;
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Check {
    None,
    Envelope,
    Isa,
    All,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use x12kit_syntax::envelope::parse;

    fn to_value(doc: &x12kit_syntax::Document<'_>) -> Result<Value> {
        crate::writer::to_value::<crate::NoDocuments>(doc)
    }

    const SAMPLE: &[u8] = b"\xEF\xBB\xBFISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000001*0*T*:~\r\nGS*PO*S*R*20230101*1200*1*X*005010~\r\nST*850*0001*X~\r\nREF*ZZ*A:B*C^D:E**~\r\nSE*3*0001~\r\nGE*1*1~\r\nIEA*1*000000001~";

    #[test]
    fn round_trips_byte_for_byte() {
        let v = to_value(&parse(SAMPLE)).unwrap();
        assert_eq!(write(&v, &WriteOptions::default()).unwrap(), SAMPLE);
    }

    #[test]
    fn normalises_line_breaks_on_request() {
        let v = to_value(&parse(SAMPLE)).unwrap();
        let out = write(
            &v,
            &WriteOptions {
                line_break: Some("\n".into()),
            },
        )
        .unwrap();
        assert!(out.starts_with(b"ISA*"));
        assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 7);
        assert!(!out.contains(&b'\r'));
    }

    #[test]
    fn refuses_delimiters_in_values_and_bad_shapes() {
        let mut v = to_value(&parse(SAMPLE)).unwrap();
        v["interchanges"][0]["groups"][0]["transactions"][0]["segments"][0]["elements"][0] =
            json!("A~B");
        let e = write(&v, &WriteOptions::default()).unwrap_err();
        assert_eq!(e.code(), "CONTAINS_DELIMITER");
        assert_eq!(
            e.pointer(),
            Some("/interchanges/0/groups/0/transactions/0/segments/0/elements/0")
        );

        v["interchanges"][0]["groups"][0]["transactions"][0]["segments"][0]["elements"][0] =
            json!(5);
        let e = write(&v, &WriteOptions::default()).unwrap_err();
        assert_eq!(e.code(), "INVALID_PARSE_RESULT");
        assert!(e.to_string().contains("found a number"), "{e}");

        v["interchanges"][0]["delimiters"]["segment"] = json!("*");
        assert_eq!(
            write(&v, &WriteOptions::default()).unwrap_err().code(),
            "INVALID_DELIMITERS"
        );
        assert_eq!(
            write_str("{", &WriteOptions::default()).unwrap_err().code(),
            "INVALID_JSON"
        );
        assert_eq!(
            write_str("[]", &WriteOptions::default())
                .unwrap_err()
                .code(),
            "INVALID_PARSE_RESULT"
        );
    }
}
