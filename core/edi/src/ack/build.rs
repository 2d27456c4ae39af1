//! Writing TA1, 997 and 999 acknowledgements from validation summaries.

use super::options::{AckKind, AckOptions};
use crate::codes;
use crate::codes::{AckElement, to_997};
use crate::validate::check;
use crate::validate::{GroupSummary, InterchangeSummary, SetSummary, Status, Validation};
use x12kit_syntax::delimiters::{Delimiters, is_valid_delimiter};
use x12kit_syntax::error::{Error, ErrorCode};
use x12kit_syntax::time::DateTime;

/// The two functional acknowledgements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fa {
    F997,
    F999,
}

/// Implementation convention of the 999 (reference §5.1).
const X231: &str = "005010X231A1";

/// Segments of one acknowledgement interchange, joined with its delimiters.
struct Out<'o> {
    buf: &'o mut Vec<u8>,
    d: Delimiters,
    /// Delimiters values must not contain (the repetition separator only when in use).
    forbidden: Vec<u8>,
    line_break: &'o str,
    /// Segments written since the last ST.
    count: usize,
}

impl Out<'_> {
    fn segment(&mut self, id: &str, elements: &[&str], path: &str) -> Result<(), Error> {
        let bytes: Vec<&[u8]> = elements.iter().map(|e| e.as_bytes()).collect();
        self.write(id, &bytes, path, true)
    }

    /// Writes a segment; `check` false lets values hold delimiters (ISA11, ISA16).
    fn write(
        &mut self,
        id: &str,
        elements: &[&[u8]],
        path: &str,
        check: bool,
    ) -> Result<(), Error> {
        let mut end = elements.len();
        while end > 0 && elements[end - 1].is_empty() {
            end -= 1;
        }
        self.buf.extend_from_slice(id.as_bytes());
        for (i, e) in elements[..end].iter().enumerate() {
            if let Some(&b) = e.iter().find(|b| check && self.forbidden.contains(b)) {
                return Err(Error::new(ErrorCode::ContainsDelimiter, format!(
                        "{id}{:02} would be \"{}\", which contains {}, a delimiter of the acknowledgement; choose other delimiters",
                        i + 1,
                        String::from_utf8_lossy(e),
                        x12kit_syntax::delimiters::show_byte(b)
                    )).at(format!("{path}/{id}{:02}", i + 1)));
            }
            self.buf.push(self.d.element);
            self.buf.extend_from_slice(e);
        }
        self.buf.push(self.d.segment);
        self.buf.extend_from_slice(self.line_break.as_bytes());
        self.count += 1;
        Ok(())
    }

    /// Replaces what cannot be written in an echoed value: a delimiter of
    /// the acknowledgement, a control character, or a character outside
    /// ASCII (the acknowledgement is plain ASCII, its ISA exactly 106 bytes).
    fn clean(&self, v: &str) -> String {
        let safe = ['?', '.', '-', '_', '#']
            .into_iter()
            .find(|c| !self.forbidden.contains(&(*c as u8)))
            .unwrap_or(' ');
        v.chars()
            .map(|c| {
                if !c.is_ascii() || self.forbidden.contains(&(c as u8)) || c.is_control() {
                    safe
                } else {
                    c
                }
            })
            .collect()
    }
}

/// A received value if it satisfies `ok`, else `fallback`.
fn echo(v: &str, ok: impl Fn(&str) -> bool, fallback: &str) -> String {
    if ok(v) {
        v.to_string()
    } else {
        fallback.to_string()
    }
}

fn len_between(v: &str, min: usize, max: usize) -> bool {
    (min..=max).contains(&v.chars().count())
}

/// A received number as an N0 element of at most `max` digits.
fn number(v: &str, max: usize) -> String {
    let digits: String = v.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_start_matches('0');
    match digits.len() {
        0 => "0".to_string(),
        n if n > max => digits[n - max..].to_string(),
        _ => digits.to_string(),
    }
}

/// A received ISA13 as exactly 9 digits.
fn control9(v: &str) -> String {
    format!("{:0>9}", number(v, 9))
}

fn pad(v: &str, width: usize) -> String {
    let cut: String = v.chars().take(width).collect();
    format!("{cut:<width$}")
}

fn segment_id(v: &str) -> String {
    let ok = len_between(v, 2, 3)
        && v.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
    if ok {
        return v.to_string();
    }
    let cleaned: String = v
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .take(3)
        .collect();
    if cleaned.len() >= 2 {
        cleaned
    } else {
        "ZZ".to_string()
    }
}

/// The delimiters of the acknowledgement of `ic` and its ISA11 / ISA12.
fn delimiters(
    ic: &InterchangeSummary,
    options: &AckOptions,
    wants_999: bool,
) -> Result<(Delimiters, Vec<u8>, String), Error> {
    let base = options.delimiters.or(ic.delimiters).unwrap_or_default();
    let version = if codes::one_of(codes::VERSIONS, ic.version.as_bytes()) {
        ic.version.clone()
    } else if wants_999 {
        "00501".to_string()
    } else {
        "00401".to_string()
    };
    let mut d = base;
    let isa11 = if version.as_str() >= "00402" {
        let taken = [d.element, d.component, d.segment];
        let rep = d
            .repetition
            .filter(|r| is_valid_delimiter(*r) && !taken.contains(r))
            .or_else(|| {
                [b'^', b'!', b'|', b'{', b'}', b'`', b'\\']
                    .into_iter()
                    .find(|c| !taken.contains(c))
            });
        d.repetition = rep;
        rep.map_or(b"U".to_vec(), |r| vec![r])
    } else {
        d.repetition = None;
        b"U".to_vec()
    };
    d.check().map_err(|message| {
        Error::new(ErrorCode::InvalidDelimiters, message).at("/delimiters".to_string())
    })?;
    Ok((d, isa11, version))
}

/// Which acknowledgement a group gets. A group of functional
/// acknowledgements (GS01 `FA`: 997s and 999s) gets none, whatever the kind:
/// X12 acknowledges no acknowledgement (a 997 or 999 answering one would be
/// answered in turn). Its interchange still gets the TA1 it asks for.
fn fa_for(group: &GroupSummary, kind: AckKind) -> Option<Fa> {
    if group.functional_id.as_deref()? == "FA" {
        return None;
    }
    match kind {
        AckKind::Ta1 => None,
        AckKind::Fa997 => Some(Fa::F997),
        AckKind::Fa999 => Some(Fa::F999),
        AckKind::Auto => {
            let v = group.version.as_bytes();
            let modern =
                v.len() >= 6 && v[..6].iter().all(u8::is_ascii_digit) && &v[..6] >= b"005000";
            Some(if modern { Fa::F999 } else { Fa::F997 })
        }
    }
}

fn wants_ta1(ic: &InterchangeSummary, kind: AckKind) -> bool {
    match kind {
        AckKind::Ta1 => true,
        AckKind::Fa997 | AckKind::Fa999 => false,
        AckKind::Auto => ic.ack_requested == "1" || ic.status != Status::Accepted,
    }
}

/// Writes the acknowledgements of every interchange of `v`.
pub(super) fn build(v: &Validation, options: &AckOptions) -> Result<Vec<u8>, Error> {
    let mut buf = Vec::new();
    let mut isa13 = options.interchange_control_number;
    let mut gs06 = options.group_control_number;
    let mut st02 = options.set_control_number;
    let now = options.timestamp;
    for (i, ic) in v.interchanges.iter().enumerate() {
        let ta1 = wants_ta1(ic, options.kind);
        let groups: Vec<(&GroupSummary, Fa)> = ic
            .groups
            .iter()
            .filter_map(|g| fa_for(g, options.kind).map(|f| (g, f)))
            .collect();
        if !ta1 && groups.is_empty() {
            continue;
        }
        if isa13 > 999_999_999 {
            return Err(Error::new(ErrorCode::InvalidOptions, format!(
                    "the interchange control number would be {isa13}, but ISA13 has 9 digits at most"
                )).at("/interchangeControlNumber".to_string()));
        }
        let path = format!("/interchanges/{i}");
        let stamp = now.unwrap_or_else(|| received_stamp(&ic.date, &ic.time));
        let wants_999 = groups.iter().any(|(_, f)| *f == Fa::F999);
        let (d, isa11, version) = delimiters(ic, options, wants_999)?;
        let mut forbidden = vec![d.element, d.component, d.segment];
        forbidden.extend(d.repetition);
        // A line break after the terminator must read as whitespace, so not
        // when a line break is one of the delimiters.
        let breaks_are_delimiters = d.is_delimiter(b'\n') || d.is_delimiter(b'\r');
        let line_break = match &options.line_break {
            Some(lb)
                if lb
                    .bytes()
                    .any(|b| !matches!(b, b'\n' | b'\r') || d.is_delimiter(b)) =>
            {
                return Err(Error::new(ErrorCode::InvalidOptions, format!(
                        "the line break {lb:?} must be made of CR and LF only, and none of them may be a delimiter of the acknowledgement"
                    )).at("/lineBreak".to_string()));
            }
            Some(lb) => lb.as_str(),
            None if breaks_are_delimiters => "",
            None => "\n",
        };
        let mut out = Out {
            buf: &mut buf,
            d,
            forbidden,
            line_break,
            count: 0,
        };
        let qualifier = |q: &str| {
            echo(
                q,
                |q| codes::one_of(codes::ID_QUALIFIERS, q.as_bytes()),
                "ZZ",
            )
        };
        let id = |v: &str| {
            let v = out.clean(v.trim());
            pad(if v.is_empty() { "UNKNOWN" } else { &v }, 15)
        };
        let usage = echo(
            &ic.usage,
            |u| codes::one_of(codes::USAGE, u.as_bytes()),
            "P",
        );
        let component = [d.component];
        let control = format!("{isa13:09}");
        let (sender, receiver) = (id(&ic.receiver_id), id(&ic.sender_id));
        out.write(
            "ISA",
            &[
                b"00",
                b"          ",
                b"00",
                b"          ",
                qualifier(&ic.receiver_qualifier).as_bytes(),
                sender.as_bytes(),
                qualifier(&ic.sender_qualifier).as_bytes(),
                receiver.as_bytes(),
                stamp.yymmdd().as_bytes(),
                stamp.hhmm().as_bytes(),
                &isa11,
                version.as_bytes(),
                control.as_bytes(),
                b"0",
                usage.as_bytes(),
                &component,
            ],
            &path,
            false,
        )?;
        if ta1 {
            let date = echo(&ic.date, |d| check::date6(d.as_bytes()), &stamp.yymmdd());
            let time = echo(&ic.time, |t| check::time(t.as_bytes(), 4, 4), &stamp.hhmm());
            out.segment(
                "TA1",
                &[
                    &control9(&ic.control_number),
                    &date,
                    &time,
                    ic.ta1.code,
                    ic.ta1.note,
                ],
                &path,
            )?;
        }
        let mut written_groups = 0;
        for (k, (g, fa)) in groups.iter().enumerate() {
            if gs06 > 999_999_999 || st02 > 999_999_999 {
                return Err(Error::new(
                    ErrorCode::InvalidOptions,
                    "the group or set control number would exceed 9 digits".to_string(),
                )
                .at("/groupControlNumber".to_string()));
            }
            let gpath = format!("{path}/groups/{k}");
            group(
                &mut out,
                ic,
                g,
                *fa,
                gs06,
                st02,
                &stamp,
                options.errors_only,
                &gpath,
            )?;
            gs06 += 1;
            st02 += 1;
            written_groups += 1;
        }
        out.segment("IEA", &[&written_groups.to_string(), &control], &path)?;
        isa13 += 1;
    }
    Ok(buf)
}

#[allow(clippy::too_many_arguments)]
fn group(
    out: &mut Out<'_>,
    ic: &InterchangeSummary,
    g: &GroupSummary,
    fa: Fa,
    gs06: u64,
    st02: u64,
    stamp: &DateTime,
    errors_only: bool,
    path: &str,
) -> Result<(), Error> {
    let app = |v: &str, isa_id: &str| {
        let v = out.clean(v);
        if len_between(&v, 2, 15) && !v.trim().is_empty() {
            v
        } else {
            let id: String = out.clean(isa_id.trim()).chars().take(15).collect();
            if id.chars().count() >= 2 {
                id
            } else {
                "UNKNOWN".to_string()
            }
        }
    };
    let sender = app(&g.receiver_code, &ic.receiver_id);
    let receiver = app(&g.sender_code, &ic.sender_id);
    let agency = echo(&g.agency, |a| a == "X" || a == "T", "X");
    let version = match fa {
        Fa::F999 => X231.to_string(),
        Fa::F997 => {
            let v = g.version.as_bytes();
            if v.len() >= 6 && v[..6].iter().all(u8::is_ascii_digit) {
                g.version[..6].to_string()
            } else {
                "004010".to_string()
            }
        }
    };
    let gs06 = gs06.to_string();
    // Before 004000 the group date is YYMMDD.
    let date = if version.as_str() < "004000" {
        stamp.yymmdd()
    } else {
        stamp.ccyymmdd()
    };
    out.segment(
        "GS",
        &[
            "FA",
            &sender,
            &receiver,
            &date,
            &stamp.hhmm(),
            &gs06,
            &agency,
            &version,
        ],
        path,
    )?;
    let control = format!("{st02:04}");
    out.count = 0;
    match fa {
        Fa::F997 => out.segment("ST", &["997", &control], path)?,
        Fa::F999 => out.segment("ST", &["999", &control, X231], path)?,
    }
    let gs01 = out.clean(g.functional_id.as_deref().unwrap_or_default());
    let ak101 = echo(&gs01, |v| len_between(v, 2, 2), "ZZ");
    let ak102 = number(&g.control_number, 9);
    let ak103 = out.clean(&g.version);
    let ak103 = echo(&ak103, |v| len_between(v, 1, 12), "");
    match fa {
        Fa::F997 => out.segment("AK1", &[&ak101, &ak102], path)?,
        Fa::F999 => out.segment("AK1", &[&ak101, &ak102, &ak103], path)?,
    }
    for (j, t) in g.transactions.iter().enumerate() {
        if errors_only && t.status == Status::Accepted {
            continue;
        }
        set(out, t, fa, &format!("{path}/transactions/{j}"))?;
    }
    let ak9 = &g.ak9;
    let mut codes: Vec<&str> = Vec::new();
    for c in &ak9.errors {
        let c = match fa {
            Fa::F997 => to_997(AckElement::Ak905, c),
            Fa::F999 => Some(*c),
        };
        if let Some(c) = c.filter(|c| !codes.contains(c)) {
            codes.push(c);
        }
    }
    codes.truncate(5);
    let counts = [
        ak9.included.min(999_999).to_string(),
        ak9.received.min(999_999).to_string(),
        ak9.accepted.min(999_999).to_string(),
    ];
    let mut els: Vec<&str> = vec![ak9.code, &counts[0], &counts[1], &counts[2]];
    els.extend(codes.iter().copied());
    out.segment("AK9", &els, path)?;
    let count = (out.count + 1).to_string();
    out.segment("SE", &[&count, &control], path)?;
    out.segment("GE", &["1", &gs06], path)?;
    Ok(())
}

fn set(out: &mut Out<'_>, t: &SetSummary, fa: Fa, path: &str) -> Result<(), Error> {
    let kind = out.clean(&t.kind);
    let ak201 = echo(&kind, |v| len_between(v, 3, 3), "000");
    let control = out.clean(&t.control_number);
    let ak202 = match control.chars().count() {
        0 => "0000".to_string(),
        n if n < 4 => format!("{control:0>4}"),
        n if n > 9 => control.trim().chars().take(9).collect::<String>(),
        _ => control,
    };
    let ak202 = if ak202.chars().count() < 4 {
        format!("{ak202:0>4}")
    } else {
        ak202
    };
    let ak203 = t
        .implementation_reference
        .as_deref()
        .map(|v| out.clean(v))
        .filter(|v| len_between(v, 1, 35))
        .unwrap_or_default();
    match fa {
        Fa::F997 => out.segment("AK2", &[&ak201, &ak202], path)?,
        Fa::F999 => out.segment("AK2", &[&ak201, &ak202, &ak203], path)?,
    }
    let (seg_tag, el_tag, max_pos, max_loop) = match fa {
        Fa::F997 => ("AK3", "AK4", 999_999u64, 6),
        Fa::F999 => ("IK3", "IK4", 9_999_999_999u64, 4),
    };
    for s in &t.segment_errors {
        let id = segment_id(&s.segment_id);
        let position = s.position.clamp(1, max_pos).to_string();
        let loop_id = s
            .loop_id
            .as_deref()
            .map(|l| out.clean(l))
            .filter(|l| len_between(l, 1, max_loop))
            .unwrap_or_default();
        let mut codes: Vec<&str> = Vec::new();
        for c in &s.codes {
            let c = match fa {
                Fa::F997 => to_997(AckElement::Ak304, c),
                Fa::F999 => Some(*c),
            };
            if let Some(c) = c.filter(|c| !codes.contains(c)) {
                codes.push(c);
            }
        }
        if !s.elements.is_empty() && !codes.contains(&"8") {
            codes.push("8");
        }
        for code in codes {
            out.segment(seg_tag, &[&id, &position, &loop_id, code], path)?;
            if code != "8" {
                continue;
            }
            for e in &s.elements {
                let comp = out.d.component;
                let mut pos = e.position.clamp(1, 99).to_string().into_bytes();
                let mut part = |n: Option<String>| {
                    pos.push(comp);
                    if let Some(n) = n {
                        pos.extend_from_slice(n.as_bytes());
                    }
                };
                let c = e.component.map(|c| c.clamp(1, 99).to_string());
                match (c, e.repetition, fa) {
                    (c, Some(r), Fa::F999) => {
                        part(c);
                        part(Some(r.clamp(1, 9999).to_string()));
                    }
                    (Some(c), _, _) => part(Some(c)),
                    _ => {}
                }
                let reference = e
                    .reference
                    .filter(|&r| (1..=9999).contains(&r))
                    .map(|r| r.to_string())
                    .unwrap_or_default();
                let code = match fa {
                    Fa::F997 => to_997(AckElement::Ak403, e.code).unwrap_or(e.code),
                    Fa::F999 => e.code,
                };
                let value = e
                    .value
                    .as_deref()
                    .filter(|v| {
                        !v.is_empty()
                            && !v
                                .bytes()
                                .any(|b| out.forbidden.contains(&b) || !(0x20..0x7F).contains(&b))
                    })
                    .map(|v| v.chars().take(99).collect::<String>())
                    .unwrap_or_default();
                // The position composite is built with the component separator on purpose.
                let saved = std::mem::take(&mut out.forbidden);
                let without_component: Vec<u8> = saved
                    .iter()
                    .copied()
                    .filter(|&b| b != out.d.component)
                    .collect();
                out.forbidden = without_component;
                let r = out.write(
                    el_tag,
                    &[
                        &pos,
                        reference.as_bytes(),
                        code.as_bytes(),
                        value.as_bytes(),
                    ],
                    path,
                    true,
                );
                out.forbidden = saved;
                r?;
            }
        }
    }
    let mut codes: Vec<&str> = Vec::new();
    for c in &t.ak5.errors {
        let c = match fa {
            Fa::F997 => to_997(AckElement::Ak502, c),
            Fa::F999 => Some(*c),
        };
        if let Some(c) = c.filter(|c| !codes.contains(c)) {
            codes.push(c);
        }
    }
    codes.truncate(5);
    let mut els = vec![t.ak5.code];
    els.extend(codes);
    out.segment(
        match fa {
            Fa::F997 => "AK5",
            Fa::F999 => "IK5",
        },
        &els,
        path,
    )
}

/// The received ISA09/ISA10 as a date and time (the acknowledgement's stamp
/// when the caller passes none), or 2000-01-01 00:00 when they are not real.
fn received_stamp(date: &str, time: &str) -> DateTime {
    let two = |b: &[u8]| (b[0] - b'0') * 10 + (b[1] - b'0');
    let (d, t) = (date.as_bytes(), time.as_bytes());
    let (year, month, day) = if check::date6(d) {
        (
            2000 + u16::from(two(&d[0..2])),
            two(&d[2..4]),
            two(&d[4..6]),
        )
    } else {
        (2000, 1, 1)
    };
    let (hour, minute) = if check::time(t, 4, 4) {
        (two(&t[0..2]), two(&t[2..4]))
    } else {
        (0, 0)
    };
    DateTime::new(year, month, day, hour, minute)
        .or_else(|_| DateTime::new(year, month, day, 0, 0))
        .unwrap_or(DateTime::from_unix(946_684_800))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_helpers() {
        assert_eq!(number("000017", 9), "17");
        assert_eq!(number("A1B", 9), "1");
        assert_eq!(number("", 9), "0");
        assert_eq!(number("1234567890", 9), "234567890");
        assert_eq!(control9("12"), "000000012");
        assert_eq!(segment_id("gs"), "GS");
        assert_eq!(segment_id("LONGNAME"), "LON");
        assert_eq!(segment_id("*"), "ZZ");
        assert_eq!(pad("ABC", 5), "ABC  ");
    }
}
