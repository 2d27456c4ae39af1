//! The element checks of a received set: for every matched segment that has
//! element declarations, mandatory elements, lengths, data types (numbers,
//! dates, times), complete code lists, qualifier/id pairs and the segment's
//! syntax rules (evaluated by [`super::syntax`]), each reported as a
//! [`Finding`] with its AK403/IK403 code.

use super::finding::Finding;
use super::matcher::{Item, Matched, Occ};
use super::model::*;
use super::syntax::RuleKind;
use super::value;
use x12kit_syntax::diagnostics::Code;
use x12kit_syntax::segment::Segment;

/// `ELEMENT_MISSING` (AK403/IK403 1) of the mandatory element at `pos`
/// (`what` it is, for the message).
fn missing(seg: &Segment<'_>, pos: usize, what: &str, loop_id: Option<&str>) -> Finding {
    let id = String::from_utf8_lossy(seg.id());
    el_finding(
        seg,
        pos as u32,
        None,
        Code::ElementMissing,
        "1",
        format!("mandatory element {id}{pos:02} ({what}) is missing"),
        None,
        loop_id,
    )
}

#[allow(clippy::too_many_arguments)]
fn el_finding(
    seg: &Segment<'_>,
    pos: u32,
    comp: Option<u32>,
    code: Code,
    ak4: &'static str,
    message: String,
    value: Option<String>,
    loop_id: Option<&str>,
) -> Finding {
    Finding {
        code,
        message,
        segment_index: seg.index(),
        offset: seg.offset(),
        segment_id: String::from_utf8_lossy(seg.id()).into_owned(),
        element: Some(pos),
        component: comp,
        segment_code: Some("8"),
        element_code: Some(ak4),
        value,
        loop_id: loop_id.map(str::to_string),
        severity: x12kit_syntax::diagnostics::Severity::Error,
        guide: None,
    }
}

#[allow(clippy::too_many_arguments)]
fn check_value(
    seg: &Segment<'_>,
    pos: u32,
    raw: &str,
    xt: XType,
    min: u16,
    max: u16,
    codes: Option<&Vec<String>>,
    loop_id: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let id = String::from_utf8_lossy(seg.id()).into_owned();
    let len = match xt {
        XType::R | XType::N(_) => value::digits(raw),
        _ => raw.chars().count(),
    };
    let name = format!("{id}{pos:02}");
    // A number's length counts its digits: text that is not a number is an
    // invalid character (AK403 6), not a length fault.
    let numeric = matches!(xt, XType::R | XType::N(_));
    if numeric && type_fault(seg, pos, &name, raw, xt, loop_id, out) {
        return;
    }
    if len > max as usize {
        out.push(el_finding(
            seg,
            pos,
            None,
            Code::ElementTooLong,
            "5",
            format!(
                "{name} \"{}\" is {len} long; at most {max} allowed",
                short(raw)
            ),
            Some(raw.into()),
            loop_id,
        ));
        return;
    }
    if len < min as usize {
        out.push(el_finding(
            seg,
            pos,
            None,
            Code::ElementTooShort,
            "4",
            format!("{name} \"{raw}\" is {len} long; at least {min} required"),
            Some(raw.into()),
            loop_id,
        ));
        return;
    }
    if !numeric && type_fault(seg, pos, &name, raw, xt, loop_id, out) {
        return;
    }
    if let Some(codes) = codes {
        if !codes.iter().any(|c| c == raw) {
            out.push(el_finding(
                seg,
                pos,
                None,
                Code::ElementInvalidCode,
                "7",
                format!(
                    "{name} \"{raw}\" is not one of the codes {}",
                    codes.join(", ")
                ),
                Some(raw.into()),
                loop_id,
            ));
        }
    }
}

/// Reports `raw` when it does not have type `xt` (invalid character, date or
/// time); true when it was reported.
fn type_fault(
    seg: &Segment<'_>,
    pos: u32,
    name: &str,
    raw: &str,
    xt: XType,
    loop_id: Option<&str>,
    out: &mut Vec<Finding>,
) -> bool {
    let Some((code, m)) = value::check_x12(raw, xt) else {
        return false;
    };
    let c = match code {
        "8" => Code::ElementInvalidDate,
        "9" => Code::ElementInvalidTime,
        _ => Code::ElementInvalidCharacter,
    };
    out.push(el_finding(
        seg,
        pos,
        None,
        c,
        code,
        format!("{name}: {m}"),
        Some(raw.into()),
        loop_id,
    ));
    true
}

fn short(s: &str) -> String {
    super::encode::preview(s)
}

/// Checks the declared elements and syntax rules of one received segment.
pub fn check_segment(
    map: &NodeMap,
    seg: &Segment<'_>,
    loop_id: Option<&str>,
    out: &mut Vec<Finding>,
) {
    // One fault is reported once: a rule broken at an element already
    // reported (a missing mandatory element) adds nothing.
    let first = out.len();
    let id = String::from_utf8_lossy(seg.id()).into_owned();
    // Split once: element lookups by position are then O(1).
    let els: Vec<&[u8]> = seg.elements().map(|e| e.raw()).collect();
    let raw = |p: usize| -> &[u8] {
        p.checked_sub(1)
            .and_then(|i| els.get(i))
            .copied()
            .unwrap_or(&[])
    };
    let val = |p: usize| String::from_utf8_lossy(raw(p)).into_owned();
    // The repetition separator (00402 on): none of the declared elements repeats.
    let rep = seg.delimiters().repetition;
    for e in &map.elements {
        let pos = e.pos as usize;
        let repeated = rep.and_then(|r| {
            let mut span = match &e.target {
                Target::Pairs(p) => pos..(pos + 2 * p.count as usize).min(els.len() + 1),
                _ => pos..pos + 1,
            };
            span.find(|p| raw(*p).contains(&r))
        });
        if let Some(p) = repeated {
            out.push(el_finding(
                seg,
                p as u32,
                None,
                Code::ElementTooManyRepetitions,
                "12",
                format!("{id}{p:02} does not repeat, yet it holds a repetition separator"),
                Some(val(p)),
                loop_id,
            ));
            continue;
        }
        match &e.target {
            Target::Pairs(p) => {
                if e.mandatory && val(pos).is_empty() && val(pos + 1).is_empty() {
                    out.push(missing(seg, pos, "product id qualifier", loop_id));
                }
                for k in 0..p.count as usize {
                    let (q, v) = (val(pos + 2 * k), val(pos + 2 * k + 1));
                    if q.is_empty() && v.is_empty() {
                        continue;
                    }
                    if q.is_empty() || v.is_empty() {
                        let missing = if q.is_empty() {
                            pos + 2 * k
                        } else {
                            pos + 2 * k + 1
                        };
                        out.push(el_finding(
                            seg,
                            missing as u32,
                            None,
                            Code::ElementConditionalMissing,
                            "2",
                            format!(
                                "{id}{missing:02} is required with {id}{:02} (qualifier/id pair)",
                                if q.is_empty() {
                                    missing + 1
                                } else {
                                    missing - 1
                                }
                            ),
                            None,
                            loop_id,
                        ));
                        continue;
                    }
                    check_value(
                        seg,
                        (pos + 2 * k) as u32,
                        &q,
                        XType::ID,
                        p.qualifier_len.0,
                        p.qualifier_len.1,
                        None,
                        loop_id,
                        out,
                    );
                    check_value(
                        seg,
                        (pos + 2 * k + 1) as u32,
                        &v,
                        XType::AN,
                        p.id_len.0,
                        p.id_len.1,
                        None,
                        loop_id,
                        out,
                    );
                }
            }
            _ => {
                let raw = val(pos);
                if raw.is_empty() {
                    if e.mandatory {
                        let what = e.doc.clone().unwrap_or_else(|| e.xtype.name());
                        out.push(missing(seg, pos, &what, loop_id));
                    }
                    continue;
                }
                check_value(
                    seg,
                    pos as u32,
                    &raw,
                    e.xtype,
                    e.min,
                    e.max,
                    e.codes.as_ref(),
                    loop_id,
                    out,
                );
            }
        }
    }
    let has = |p: u8| !raw(p as usize).is_empty();
    for r in &map.rules {
        let Some(v) = r.check(has) else { continue };
        // One finding per broken rule: at the (first) missing element, the
        // second present one of an exclusion.
        let (p, ak4, code, why) = match v.kind {
            RuleKind::Paired => (
                v.at[0],
                "2",
                Code::ElementConditionalMissing,
                "paired elements must be given together",
            ),
            RuleKind::Required => (
                v.at[0],
                "2",
                Code::ElementConditionalMissing,
                "at least one of the elements is required",
            ),
            RuleKind::Conditional => (
                v.at[0],
                "2",
                Code::ElementConditionalMissing,
                "required when the first element of the rule is present",
            ),
            RuleKind::Exclusion => (
                v.at[1],
                "10",
                Code::ElementExclusionViolated,
                "only one of the elements may be present",
            ),
            RuleKind::ListConditional => (
                v.at[0],
                "2",
                Code::ElementConditionalMissing,
                "one of the other elements is required when the first is present",
            ),
        };
        if out[first..]
            .iter()
            .any(|f| f.element == Some(u32::from(p)) && f.segment_index == seg.index())
        {
            continue;
        }
        out.push(el_finding(
            seg,
            p as u32,
            None,
            code,
            ak4,
            format!(
                "{id} syntax rule {}{}: {why} ({id}{p:02})",
                r.kind.letter(),
                r.digits()
            ),
            None,
            loop_id,
        ));
    }
}

/// Checks the elements of every matched segment that has declarations.
pub fn check_elements(
    nodes: &[Node],
    occ: &Occ,
    segs: &[Segment<'_>],
    loop_id: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let m = Matched {
        items: &occ.items,
        segs,
    };
    check_items(nodes, m, 0, occ.items.len(), loop_id, out);
}

fn check_items(
    nodes: &[Node],
    m: Matched<'_, '_>,
    from: usize,
    to: usize,
    loop_id: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let mut i = from;
    while i < to {
        let it: &Item = &m.items[i];
        if it.is_stray() {
            // Reported by the matcher.
            i += 1;
            continue;
        }
        let node = &nodes[it.node];
        if it.is_loop() {
            check_items(
                node.children.as_deref().unwrap_or(&[]),
                m,
                i + 1,
                it.end,
                Some(&node.id),
                out,
            );
            i = it.end;
        } else {
            if let Some(map) = &node.map {
                check_segment(map, m.seg(it), loop_id, out);
            }
            i += 1;
        }
    }
}
