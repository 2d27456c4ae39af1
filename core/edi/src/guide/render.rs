//! A guide's checks of a payload being rendered (`render` with `guides`,
//! or a partner profile's `guides`): the same rules as the checks of a
//! received set ([`super::check`]), applied as the encoder writes each node
//! and segment, so that every departure is refused at the payload pointer
//! that causes it, before any control number is taken. The encoder asks
//! two questions: how often a node may occur ([`count_faults`]) and what a
//! written segment's elements break ([`element_faults`]).

use super::check::element_fault;
use super::compile::{Compiled, node_key};
use crate::documents::model::Node;
use x12kit_syntax::diagnostics::Code;
use x12kit_syntax::error::ErrorCode;

/// Where a count fault is: at an occurrence written, or where the node is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// At occurrence `k` (0-based) of the node.
    At(usize),
    /// The node would be missing, or occur too few times.
    Missing,
}

/// One departure found while rendering.
#[derive(Debug, Clone)]
pub(crate) struct Fault {
    /// The problem's code (`GUIDE_*`).
    pub code: ErrorCode,
    /// The message, naming the guide's rule.
    pub message: String,
}

/// The render error code of a guide finding's code.
fn error_code(c: Code) -> ErrorCode {
    match c {
        Code::GuideSegmentNotUsed => ErrorCode::GuideSegmentNotUsed,
        Code::GuideSegmentMissing => ErrorCode::GuideSegmentMissing,
        Code::GuideSegmentTooFew => ErrorCode::GuideSegmentTooFew,
        Code::GuideSegmentTooMany => ErrorCode::GuideSegmentTooMany,
        Code::GuideLoopTooFew => ErrorCode::GuideLoopTooFew,
        Code::GuideLoopTooMany => ErrorCode::GuideLoopTooMany,
        Code::GuideElementMissing => ErrorCode::GuideElementMissing,
        Code::GuideElementNotUsed => ErrorCode::GuideElementNotUsed,
        Code::GuideCodeNotUsed => ErrorCode::GuideCodeNotUsed,
        Code::GuideValue => ErrorCode::GuideValue,
        Code::GuidePattern => ErrorCode::GuidePattern,
        Code::GuideElementTooShort => ErrorCode::GuideElementTooShort,
        Code::GuideElementTooLong => ErrorCode::GuideElementTooLong,
        _ => ErrorCode::InvalidPayload,
    }
}

/// The faults of `node` written `n` times in one occurrence of its parent
/// (the set, or one occurrence of its loop), each with its place.
pub(crate) fn count_faults(c: &Compiled, node: &Node, n: usize) -> Vec<(Place, Fault)> {
    let Some(rules) = c.by_node.get(&node_key(node)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for r in rules {
        let what = if r.is_loop { "loop" } else { "segment" };
        if r.not_used {
            if n > 0 {
                out.push((
                    Place::At(0),
                    Fault {
                        code: ErrorCode::GuideSegmentNotUsed,
                        message: format!(
                            "would write the {what} {}, which the partner's guide marks not used (rule {}/usage)",
                            r.key, r.pointer
                        ),
                    },
                ));
            }
            continue;
        }
        if let Some(max) = r.max.filter(|&m| n > m as usize) {
            let code = if r.is_loop {
                ErrorCode::GuideLoopTooMany
            } else {
                ErrorCode::GuideSegmentTooMany
            };
            out.push((
                Place::At(max as usize),
                Fault {
                    code,
                    message: format!(
                        "would write the {what} {} {n} times; the partner's guide allows at most {max} (rule {}/maxUse)",
                        r.key, r.pointer
                    ),
                },
            ));
        }
        if (n as u64) < u64::from(r.min) {
            let (code, message) = if r.required && n == 0 && !r.is_loop {
                (
                    ErrorCode::GuideSegmentMissing,
                    format!(
                        "is required: the partner's guide requires the segment {} (rule {}/usage), and the payload has nothing for it",
                        r.key, r.pointer
                    ),
                )
            } else {
                let field = if r.required && n == 0 {
                    "usage"
                } else {
                    "minUse"
                };
                let code = if r.is_loop {
                    ErrorCode::GuideLoopTooFew
                } else {
                    ErrorCode::GuideSegmentTooFew
                };
                (
                    code,
                    format!(
                        "would write the {what} {} {n} time{}; the partner's guide requires at least {} (rule {}/{field})",
                        r.key,
                        if n == 1 { "" } else { "s" },
                        r.min,
                        r.pointer
                    ),
                )
            };
            out.push((Place::Missing, Fault { code, message }));
        }
    }
    out
}

/// The faults of a segment about to be written: `value(pos, component)`
/// is the text of an element (or component), empty when absent. Each
/// fault with the element's 1-based position.
pub(crate) fn element_faults(
    c: &Compiled,
    node: &Node,
    value: &dyn Fn(u8, Option<u8>) -> String,
) -> Vec<(u8, Fault)> {
    let Some(rules) = c.elements.get(&node_key(node)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for r in rules {
        let v = value(r.pos, r.component);
        if let Some((code, _, message, field)) = element_fault(r, &v) {
            out.push((
                r.pos,
                Fault {
                    code: error_code(code),
                    message: format!("{message} (rule {}/{field})", r.pointer),
                },
            ));
        }
    }
    out
}
