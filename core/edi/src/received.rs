//! Reading received acknowledgements: what each TA1, 997 and 999 in a parsed
//! input says about the interchanges, groups and sets it acknowledges.

use crate::codes::{Status, ak5_error, ak9_error, element_error, segment_error, ta1_note};
use serde::Serialize;
use x12kit_syntax::envelope::Document;
use x12kit_syntax::segment::Segment;

/// Every acknowledgement found in an input.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Acknowledgements {
    /// One entry per TA1 segment: the outcome of a whole interchange.
    pub interchange_acks: Vec<InterchangeAck>,
    /// One entry per 997 or 999 transaction set: the outcome of a functional
    /// group and of the sets it names.
    pub group_acks: Vec<GroupAck>,
}

impl Acknowledgements {
    /// True when the input held no TA1, 997 or 999.
    pub fn is_empty(&self) -> bool {
        self.interchange_acks.is_empty() && self.group_acks.is_empty()
    }
}

/// A code and what it means.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeText {
    /// The X12 code value as received.
    pub code: String,
    /// Its meaning, in English.
    pub description: &'static str,
}

/// What a TA1 says about one interchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InterchangeAck {
    /// TA101: the acknowledged interchange's control number (its ISA13).
    pub control_number: String,
    /// TA102: its date (YYMMDD).
    pub date: String,
    /// TA103: its time (HHMM).
    pub time: String,
    /// TA104: `A`, `E` or `R`.
    pub code: String,
    /// What TA104 means (`None` for an unknown code).
    pub status: Option<Status>,
    /// TA105: the interchange note code and its meaning.
    pub note: CodeText,
    /// 0-based index of the TA1 segment in the input.
    pub segment_index: usize,
    /// ISA13 of the interchange that carries the TA1.
    pub carried_by: String,
}

/// What a 997 or 999 says about one functional group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupAck {
    /// `997` or `999`.
    pub kind: String,
    /// ST02 of the acknowledgement set itself.
    pub ack_control_number: String,
    /// 0-based index of the acknowledgement's ST segment in the input.
    pub segment_index: usize,
    /// ISA13 of the interchange that carries the acknowledgement.
    pub carried_by: String,
    /// AK101: the acknowledged group's functional identifier (its GS01).
    pub functional_id: String,
    /// AK102: the acknowledged group's control number (its GS06).
    pub group_control_number: String,
    /// AK103 (999): the acknowledged group's version (its GS08).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// AK901: `A`, `E`, `P`, `R` (or `M`, `W`, `X`); empty when AK9 is missing.
    pub code: String,
    /// What AK901 means (`None` when unknown or missing).
    pub status: Option<Status>,
    /// AK902: sets the group said it included.
    pub included: Option<u64>,
    /// AK903: sets received.
    pub received: Option<u64>,
    /// AK904: sets accepted.
    pub accepted: Option<u64>,
    /// AK905–AK909: group error codes.
    pub errors: Vec<CodeText>,
    /// The sets the acknowledgement names (AK2 / IK5); sets it does not name
    /// were accepted when AK901 is `A`, `E` or `P` and only errors were listed.
    pub transactions: Vec<SetAck>,
}

/// What a 997 / 999 says about one transaction set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetAck {
    /// AK201: the set's type (ST01).
    #[serde(rename = "type")]
    pub kind: String,
    /// AK202: the set's control number (ST02).
    pub control_number: String,
    /// AK203 (999): its implementation convention reference (ST03).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub implementation_reference: Option<String>,
    /// AK501 / IK501: `A`, `E`, `R` (or `M`, `W`, `X`); empty when missing.
    pub code: String,
    /// What the code means.
    pub status: Option<Status>,
    /// AK502–AK506 / IK502–IK506.
    pub errors: Vec<CodeText>,
    /// AK3 / IK3 segment errors with their AK4 / IK4 element errors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub segment_errors: Vec<SegmentAck>,
}

/// One AK3 / IK3.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentAck {
    /// AK301: segment identifier.
    pub segment_id: String,
    /// AK302: position in the set (ST = 1).
    pub position: Option<u64>,
    /// AK303: loop identifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loop_id: Option<String>,
    /// AK304: segment error code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<CodeText>,
    /// AK4 / IK4 element errors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub elements: Vec<ElementAck>,
}

/// One AK4 / IK4.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ElementAck {
    /// AK401-1: element position.
    pub position: Option<u32>,
    /// AK401-2: component position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<u32>,
    /// IK401-3: repetition position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repetition: Option<u32>,
    /// AK402: data element reference number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<u32>,
    /// AK403: element error code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<CodeText>,
    /// AK404: copy of the bad value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn opt(b: &[u8]) -> Option<String> {
    (!b.is_empty()).then(|| text(b))
}

fn num<T: std::str::FromStr>(b: &[u8]) -> Option<T> {
    std::str::from_utf8(b).ok()?.trim().parse().ok()
}

fn status(code: &[u8]) -> Option<Status> {
    Some(match code {
        b"A" => Status::Accepted,
        b"E" => Status::AcceptedWithErrors,
        b"P" => Status::PartiallyAccepted,
        b"R" | b"M" | b"W" | b"X" => Status::Rejected,
        _ => return None,
    })
}

fn codes(
    seg: &Segment<'_>,
    from: usize,
    to: usize,
    describe: fn(&str) -> &'static str,
) -> Vec<CodeText> {
    (from..=to)
        .map(|n| seg.value(n))
        .filter(|v| !v.is_empty())
        .map(|v| {
            let code = text(v);
            CodeText {
                description: describe(&code),
                code,
            }
        })
        .collect()
}

fn code_text(b: &[u8], describe: fn(&str) -> &'static str) -> Option<CodeText> {
    let code = opt(b)?;
    Some(CodeText {
        description: describe(&code),
        code,
    })
}

/// What a TA1 segment says, carried by the interchange whose ISA13 is `carried_by`.
pub(crate) fn interchange_ack(seg: &Segment<'_>, carried_by: &str) -> InterchangeAck {
    InterchangeAck {
        control_number: text(seg.value(1)),
        date: text(seg.value(2)),
        time: text(seg.value(3)),
        code: text(seg.value(4)),
        status: status(seg.value(4)),
        note: CodeText {
            code: text(seg.value(5)),
            description: ta1_note(&text(seg.value(5))),
        },
        segment_index: seg.index(),
        carried_by: carried_by.to_string(),
    }
}

/// A 997 / 999 set starting at `st`: what it says so far (nothing). Its body
/// segments are added with [`group_ack_segment`].
pub(crate) fn group_ack(st: &Segment<'_>, carried_by: &str) -> GroupAck {
    GroupAck {
        kind: text(st.value(1)),
        ack_control_number: text(st.value(2)),
        segment_index: st.index(),
        carried_by: carried_by.to_string(),
        functional_id: String::new(),
        group_control_number: String::new(),
        version: None,
        code: String::new(),
        status: None,
        included: None,
        received: None,
        accepted: None,
        errors: Vec::new(),
        transactions: Vec::new(),
    }
}

/// True for the ST01 of a functional acknowledgement (997 or 999).
pub(crate) fn is_group_ack(kind: &[u8]) -> bool {
    kind == b"997" || kind == b"999"
}

/// Reads one body segment of a 997 / 999 set into `ack`; `component` is the
/// component separator of its interchange.
pub(crate) fn group_ack_segment(ack: &mut GroupAck, seg: &Segment<'_>, component: u8) {
    match seg.id() {
        b"AK1" => {
            ack.functional_id = text(seg.value(1));
            ack.group_control_number = text(seg.value(2));
            ack.version = opt(seg.value(3));
        }
        b"AK2" => ack.transactions.push(SetAck {
            kind: text(seg.value(1)),
            control_number: text(seg.value(2)),
            implementation_reference: opt(seg.value(3)),
            code: String::new(),
            status: None,
            errors: Vec::new(),
            segment_errors: Vec::new(),
        }),
        b"AK3" | b"IK3" => {
            if let Some(set) = ack.transactions.last_mut() {
                set.segment_errors.push(SegmentAck {
                    segment_id: text(seg.value(1)),
                    position: num(seg.value(2)),
                    loop_id: opt(seg.value(3)),
                    error: code_text(seg.value(4), segment_error),
                    elements: Vec::new(),
                });
            }
        }
        b"AK4" | b"IK4" => {
            let Some(s) = ack
                .transactions
                .last_mut()
                .and_then(|t| t.segment_errors.last_mut())
            else {
                return;
            };
            let pos = seg.value(1);
            let mut parts = pos.split(|&b| b == component);
            let mut next = || parts.next().and_then(num::<u32>);
            let (position, component, repetition) = (next(), next(), next());
            s.elements.push(ElementAck {
                position,
                component,
                repetition,
                reference: num(seg.value(2)),
                error: code_text(seg.value(3), element_error),
                value: opt(seg.value(4)),
            });
        }
        b"AK5" | b"IK5" => {
            if let Some(set) = ack.transactions.last_mut() {
                set.code = text(seg.value(1));
                set.status = status(seg.value(1));
                set.errors = codes(seg, 2, 6, ak5_error);
            }
        }
        b"AK9" => {
            ack.code = text(seg.value(1));
            ack.status = status(seg.value(1));
            ack.included = num(seg.value(2));
            ack.received = num(seg.value(3));
            ack.accepted = num(seg.value(4));
            ack.errors = codes(seg, 5, 9, ak9_error);
        }
        _ => {}
    }
}

/// Reads every TA1, 997 and 999 of a parsed input.
pub fn read(doc: &Document<'_>) -> Acknowledgements {
    let mut out = Acknowledgements::default();
    for ic in &doc.interchanges {
        let carried_by = text(&x12kit_syntax::envelope::isa_value(&ic.isa, 13));
        for seg in ic.segments.iter().filter(|s| s.is(b"TA1")) {
            out.interchange_acks.push(interchange_ack(seg, &carried_by));
        }
        for g in &ic.groups {
            for t in &g.transactions {
                if !is_group_ack(t.kind()) {
                    continue;
                }
                let mut ack = group_ack(&t.st, &carried_by);
                let component = t.st.delimiters().component;
                for seg in doc.body(t) {
                    group_ack_segment(&mut ack, &seg, component);
                }
                out.group_acks.push(ack);
            }
        }
    }
    out
}
