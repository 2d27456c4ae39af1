//! Reading the identity of an interchange whose ISA could not be parsed
//! (unusable delimiters, broken layout), so that a TA1 can still address it.
//!
//! The ISA is fixed-width: when at least 105 bytes follow and the element
//! separator (byte 3) sits at each of the 16 separator offsets, its fields
//! are at known offsets whatever else is wrong with the delimiters. The identity is used only when the
//! fields a TA1 echoes look right (ISA13 nine digits, ISA09 six digits,
//! ISA10 four digits, printable ids); otherwise no TA1 can be addressed.

use super::check;
use super::summary::{InterchangeSummary, Status, Ta1Outcome};
use x12kit_syntax::delimiters::ISA_LEN;

/// Offsets of the 16 element separators of a fixed-width ISA (reference §1.2).
const SEPARATORS: [usize; 16] = [
    3, 6, 17, 20, 31, 34, 50, 53, 69, 76, 81, 83, 89, 99, 101, 103,
];

/// The summary of an unreadable interchange, rejected with `note`, or `None`
/// when its identity cannot be read.
pub(crate) fn recover(
    bytes: &[u8],
    offset: usize,
    note: &'static str,
) -> Option<InterchangeSummary> {
    if bytes.len() < ISA_LEN - 1 || !bytes.starts_with(b"ISA") {
        return None;
    }
    // The layout holds only if the element separator sits at all 16 places.
    let e = bytes[3];
    if SEPARATORS.iter().any(|&i| bytes[i] != e) {
        return None;
    }
    let field = |a: usize, b: usize| &bytes[a..b];
    let (isa05, isa06, isa07, isa08) = (field(32, 34), field(35, 50), field(51, 53), field(54, 69));
    let (isa09, isa10, isa12, isa13) = (field(70, 76), field(77, 81), field(84, 89), field(90, 99));
    let printable = |b: &[u8]| b.iter().all(|c| (0x20..0x7F).contains(c));
    if !(check::digits(isa13)
        && check::digits(isa09)
        && check::digits(isa10)
        && [isa05, isa06, isa07, isa08, isa12]
            .iter()
            .all(|b| printable(b)))
    {
        return None;
    }
    let text = |b: &[u8]| String::from_utf8_lossy(b).trim_end().to_string();
    Some(InterchangeSummary {
        control_number: text(isa13),
        sender_qualifier: text(isa05),
        sender_id: text(isa06),
        receiver_qualifier: text(isa07),
        receiver_id: text(isa08),
        date: text(isa09),
        time: text(isa10),
        version: text(isa12),
        ack_requested: text(field(100, 101)),
        usage: text(field(102, 103)),
        delimiters: None,
        segment_index: None,
        offset,
        recovered: true,
        status: Status::Rejected,
        ta1: Ta1Outcome { code: "R", note },
        group_count: 0,
        groups: Vec::new(),
    })
}
