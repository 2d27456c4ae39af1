//! Which acknowledgement codes each parser diagnostic maps to.
//!
//! The validator's own rules set their codes where they report; this module
//! maps the parser's diagnostics (which know nothing about acknowledgements).
//! The code lists themselves, and the 005010 → 004010 (997) translation,
//! are [`crate::codes`].

use x12kit_syntax::diagnostics::{AckCodes, Code, Diagnostic, Severity};

/// Where a diagnostic was found: the innermost envelope level open at the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Outside any interchange (before the first ISA, after an IEA).
    Input,
    /// Inside an interchange, outside any group.
    Interchange,
    /// Inside a group, outside any transaction set.
    Group,
    /// Inside a transaction set.
    Set,
}

/// The acknowledgement codes of a parser diagnostic found in `scope`, or `None`
/// when it has no acknowledgement meaning.
///
/// Only errors have codes: a warning (BOM, INVALID_UTF8, TERMINATOR_MISSING,
/// TRAILING_PADDING, an ISA that is not fixed width or is wrapped, an ISA11
/// that cannot be the repetition separator of a 00402+ interchange) is
/// reported but never chooses a TA1, AK9 or AK5 / IK5 code.
pub fn parser_codes(d: &Diagnostic, scope: Scope) -> Option<AckCodes> {
    if d.severity != Severity::Error {
        return None;
    }
    let codes = match d.code {
        Code::NotX12 => AckCodes::ta1("022"),
        Code::Delimiters => AckCodes::ta1(delimiter_note(&d.message)),
        Code::IsaLayout => AckCodes::ta1(if d.message.contains("truncated") {
            "023"
        } else {
            "022"
        }),
        Code::IeaMissing => AckCodes::ta1("023"),
        Code::GeMissing => AckCodes {
            ak9: Some("3"),
            ta1: Some("024"),
            ..AckCodes::default()
        },
        Code::SeMissing => AckCodes::ik5("2"),
        // The set was not read past the cap: rejected, its segments unchecked.
        Code::SetTooLarge => AckCodes::ik5("5"),
        Code::StOutsideGroup => AckCodes {
            ik5: Some("18"),
            ta1: Some("022"),
            ..AckCodes::default()
        },
        Code::SegmentId => match scope {
            Scope::Set => AckCodes::segment("1"),
            Scope::Group => AckCodes::ta1("024"),
            _ => AckCodes::ta1("022"),
        },
        Code::UnexpectedSegment => match scope {
            Scope::Group | Scope::Set => AckCodes::ta1("024"),
            _ => AckCodes::ta1("022"),
        },
        Code::TrailingData => AckCodes::ta1("022"),
        _ => return None,
    };
    Some(codes)
}

/// TA105 for an unusable delimiter, from the parser's message: element
/// separator `026`, component separator `027`, segment terminator `004`.
fn delimiter_note(message: &str) -> &'static str {
    // The first delimiter named is the one at fault ("the X and the Y are both…").
    let named = [
        ("element separator", "026"),
        ("component separator", "027"),
        ("segment terminator", "004"),
        ("repetition separator", "016"),
    ];
    named
        .iter()
        .filter_map(|(name, code)| message.find(name).map(|at| (at, *code)))
        .min()
        .map_or("022", |(_, code)| code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use x12kit_syntax::delimiters::{Detect, detect};

    fn delimiter_error(isa: &[u8]) -> Diagnostic {
        match detect(isa, true) {
            Detect::Invalid(d) => d,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn delimiter_errors_map_to_the_delimiter_at_fault() {
        let good = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~".to_vec();
        let mut bad = good.clone();
        bad[105] = b'A';
        assert_eq!(delimiter_note(&delimiter_error(&bad).message), "004");
        let mut bad = good.clone();
        bad[104] = b'A';
        assert_eq!(delimiter_note(&delimiter_error(&bad).message), "027");
        let mut bad = good.clone();
        bad[104] = b'*';
        assert_eq!(delimiter_note(&delimiter_error(&bad).message), "026");
        let bad: Vec<u8> = good
            .iter()
            .map(|&b| if b == b'*' { b'A' } else { b })
            .collect();
        assert_eq!(delimiter_note(&delimiter_error(&bad).message), "026");
        let mut bad = good[..105].to_vec();
        bad.extend_from_slice("…".as_bytes());
        assert_eq!(delimiter_note(&delimiter_error(&bad).message), "004");
    }
}
