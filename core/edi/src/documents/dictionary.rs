//! The X12 dictionary the declarations use (`sets/dictionary.x12d`):
//! segment names, the data element numbers and names of their positions,
//! and code meanings.

use super::compiled::located;
use super::dsl;
use super::model::{self, Edition};
use std::sync::OnceLock;

/// The segments described for any set (or without one): the envelopes
/// and the acknowledgments (TA1, 997, 999).
pub const ENVELOPE_SEGMENTS: [&str; 17] = [
    "ISA", "IEA", "GS", "GE", "ST", "SE", "TA1", "AK1", "AK2", "AK3", "AK4", "AK5", "AK9", "IK3",
    "IK4", "IK5", "CTX",
];

const DICTIONARY: &str = include_str!("sets/dictionary.x12d");

/// The dictionary of `sets/dictionary.x12d`, or its first fault
/// (`dictionary.x12d:LINE: …`), which the dictionary tests report.
fn dictionary_or_fault() -> Result<&'static model::Dictionary, &'static str> {
    static D: OnceLock<Result<model::Dictionary, String>> = OnceLock::new();
    D.get_or_init(|| dsl::parse_dictionary(DICTIONARY).map_err(|e| located("dictionary.x12d", &e)))
        .as_ref()
        .map_err(String::as_str)
}

/// The dictionary (`None` only when it does not parse, which the tests report).
pub(crate) fn dictionary() -> Option<&'static model::Dictionary> {
    dictionary_or_fault().ok()
}

/// What a code of the element at a position of a segment means (in either
/// edition), from the dictionary: for the schemas' descriptions.
pub(crate) fn code_meaning(segment: &str, pos: u8, code: &str) -> Option<&'static str> {
    let d = dictionary()?;
    let s = d.segment(segment)?;
    [Edition::Base, Edition::V5010]
        .into_iter()
        .filter_map(|ed| s.number_at(pos, ed))
        .filter_map(|n| d.element(n))
        .find_map(|e| e.meaning(code))
}

/// Number and name of the element at a position of a segment, from the dictionary.
pub(super) fn element_at(
    segment: &str,
    pos: u8,
    ed: Edition,
) -> (Option<&'static str>, Option<&'static str>) {
    let Some(d) = dictionary() else {
        return (None, None);
    };
    let number = d.segment(segment).and_then(|s| s.number_at(pos, ed));
    let name = number.and_then(|n| d.element(n)).map(|e| e.name.as_str());
    (number, name)
}

#[cfg(test)]
mod tests {
    use super::super::compiled::{compiled, set_ids};
    use super::super::model::XType;
    use super::*;
    use crate::sets::TYPES;
    /// Segment ids of the declarations that the dictionary does not
    /// name: none could be confirmed against a source here (see the
    /// dictionary's header); the inspector shows them without a name.
    const UNNAMED: [&str; 4] = ["CMC", "LP", "SL1", "V5"];

    /// The codes a declaration's description lists in its last
    /// parentheses ("… (00 original, 01 cancellation)"), for ID elements.
    fn doc_codes(doc: &str) -> Vec<String> {
        let Some(open) = doc.rfind('(') else {
            return Vec::new();
        };
        let inner = doc[open + 1..].trim_end_matches(')');
        inner
            .split(", ")
            .filter_map(|item| {
                let item = item.trim().trim_start_matches("e.g. ");
                let mut w = item.split_whitespace();
                let code = w.next()?;
                let next = w.next();
                let code_like = code
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
                (code_like && code != "ISO" && next != Some("only")).then(|| code.to_string())
            })
            .collect()
    }

    /// What a declaration says of a position: (position, type, lengths, known codes).
    type Wanted<'a> = (u8, &'a str, (u16, u16), Vec<String>);

    /// Every fault of the dictionary against the declarations: a declared
    /// element without a number or name, a type or length that differs,
    /// a known or listed code without a meaning, a segment without a name.
    fn dictionary_faults() -> Vec<String> {
        let d = match dictionary_or_fault() {
            Ok(d) => d,
            Err(e) => return vec![e.to_string()],
        };
        let mut out = Vec::new();
        for (i, code) in TYPES.iter().enumerate() {
            let Some(c) = compiled(i) else {
                out.push(format!("{code}: does not compile"));
                continue;
            };
            for decl in [&c.decls.0, &c.decls.1] {
                let ed = decl.edition;
                let tag = format!("{code} ({ed:?})");
                for id in set_ids(decl) {
                    if d.segment(id).is_none() && !UNNAMED.contains(&id.as_str()) {
                        out.push(format!("{tag}: segment {id} has no name"));
                    }
                }
                let mut stack: Vec<&model::Node> = decl.body.iter().collect();
                while let Some(node) = stack.pop() {
                    stack.extend(node.children.iter().flatten());
                    let Some(m) = node.map.as_ref().filter(|_| node.children.is_none()) else {
                        continue;
                    };
                    for e in &m.elements {
                        // (position, type, lengths, known codes)
                        let mut wanted: Vec<Wanted<'_>> = Vec::new();
                        let name = e.xtype.name();
                        match &e.target {
                            model::Target::Pairs(p) => {
                                for k in 0..2 * p.count {
                                    wanted.push(if k % 2 == 0 {
                                        (
                                            e.pos + k,
                                            "ID",
                                            p.qualifier_len,
                                            p.promote.iter().map(|(q, _)| q.clone()).collect(),
                                        )
                                    } else {
                                        (e.pos + k, "AN", p.id_len, Vec::new())
                                    });
                                }
                            }
                            _ => {
                                let mut known: Vec<String> =
                                    e.known.iter().chain(&e.codes).flatten().cloned().collect();
                                if e.xtype == XType::ID {
                                    known.extend(
                                        e.doc.as_deref().map(doc_codes).unwrap_or_default(),
                                    );
                                }
                                wanted.push((e.pos, &name, (e.min, e.max), known));
                            }
                        }
                        for (pos, xt, len, known) in wanted {
                            let at = format!("{tag}: {}{pos:02}", node.id);
                            let Some(number) =
                                d.segment(&node.id).and_then(|s| s.number_at(pos, ed))
                            else {
                                out.push(format!("{at} has no data element number"));
                                continue;
                            };
                            let Some(el) = d.element(number) else {
                                out.push(format!(
                                    "{at}: element {number} is not in the dictionary"
                                ));
                                continue;
                            };
                            if el.xtype != xt || el.lengths(ed) != len {
                                out.push(format!(
                                    "{at} is {xt} {}/{} but element {number} is {} {}/{}",
                                    len.0,
                                    len.1,
                                    el.xtype,
                                    el.lengths(ed).0,
                                    el.lengths(ed).1
                                ));
                            }
                            for k in known {
                                if el.meaning(&k).is_none() {
                                    out.push(format!(
                                        "{at}: code {k} of element {number} has no meaning"
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
        for id in ENVELOPE_SEGMENTS {
            if d.segment(id).is_none_or(|s| s.positions.is_empty()) {
                out.push(format!("envelope segment {id} is not described"));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn dictionary_covers_the_declarations() {
        let faults = dictionary_faults();
        assert!(
            faults.is_empty(),
            "{} faults:\n{}",
            faults.len(),
            faults.join("\n")
        );
    }

    #[test]
    fn dictionary_language_reports_its_faults() {
        let bad = |t: &str| dsl::parse_dictionary(t).unwrap_err();
        assert!(bad("segment BEG \"B\"\n  01 353\n").contains("no `element` entry"));
        assert!(bad("element 1 ID 2 \"x\"\n").contains("line 1"));
        assert!(bad("element 1 ID 1/2 x\n").contains("line 1"));
        assert!(
            bad("segment BEG \"B\"\n  02 1\n  01 1\nelement 1 ID 1/1 \"x\"\n").contains("increase")
        );
        assert!(bad("element 1 ID 1/1 \"x\"\n  A\n").contains("line 2"));
        assert!(bad("element 1 ID 1/1 \"x\"\nelement 1 ID 1/1 \"y\"\n").contains("twice"));
        assert!(bad("thing X\n").contains("line 1"));
        let d = dsl::parse_dictionary(
            "segment N1 \"Name\" 5010=\"Party Identification\"\n  01 98 M\n  03 - 5010=1705\n\
             element 98 ID 2/3 \"Entity Identifier Code\"\n  ST Ship To\n\
             element 1705 AN 1/35 \"Implementation Convention Reference\"\n",
        )
        .unwrap();
        let n1 = d.segment("N1").unwrap();
        assert_eq!(n1.name(Edition::V5010), "Party Identification");
        assert_eq!(n1.number_at(3, Edition::Base), None);
        assert_eq!(n1.number_at(3, Edition::V5010), Some("1705"));
        assert_eq!(d.element("98").unwrap().meaning("ST"), Some("Ship To"));
    }
}
