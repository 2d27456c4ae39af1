//! The acknowledgement code tables: what each TA1 / AK / IK error code
//! means, and the 005010 codes' 004010 (997) equivalents. The validator
//! reports with these codes, the acknowledgement builder writes them, the
//! reader of received acknowledgements and the segment descriptions explain
//! them (a leaf).

/// The 997 (004010) code for a 005010 code of the given element, when they differ.
///
/// - 716 (AK905): `19` means "GS06 not unique" only in 005010; the 004010
///   equivalent is `6` (what pyx12 uses for a duplicate).
/// - 620 (AK304): the I-codes do not exist in 720: I4/I9 → `2`, I6/I7/I8 → `3`.
/// - 621 (AK403): 12/13 and the I-codes do not exist in 723: 12/13 → `3`,
///   I6/I12 → `7`, I9 → `1`, I10/I13 → `10`, I11 → `2`.
/// - 618 (AK502): `18` and `I5`/`I6` are 5010-only: `18` → none (a set outside
///   a group has no 997 to go in), `I5` → `5`, `I6` → `1`.
pub fn to_997(element: AckElement, code: &'static str) -> Option<&'static str> {
    Some(match (element, code) {
        (AckElement::Ak905, "19") => "6",
        (AckElement::Ak304, "I4" | "I9") => "2",
        (AckElement::Ak304, "I6" | "I7" | "I8") => "3",
        (AckElement::Ak403, "12" | "13") => "3",
        (AckElement::Ak403, "I6" | "I12") => "7",
        (AckElement::Ak403, "I9") => "1",
        (AckElement::Ak403, "I10" | "I13") => "10",
        (AckElement::Ak403, "I11") => "2",
        (AckElement::Ak502, "18") => return None,
        (AckElement::Ak502, "I5") => "5",
        (AckElement::Ak502, "I6") => "1",
        _ => code,
    })
}

/// The acknowledgement elements whose code lists differ between 997 and 999.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckElement {
    /// AK905 (716).
    Ak905,
    /// AK502 / IK502 (718 / 618).
    Ak502,
    /// AK304 / IK304 (720 / 620).
    Ak304,
    /// AK403 / IK403 (723 / 621).
    Ak403,
}

/// What a TA105 interchange note code (I18) means.
pub fn ta1_note(code: &str) -> &'static str {
    match code {
        "000" => "no error",
        "001" => "the interchange control numbers in the header and trailer do not match",
        "002" => "this standard as noted in the control standards identifier is not supported",
        "003" => "this version of the controls is not supported",
        "004" => "the segment terminator is invalid",
        "005" => "invalid interchange ID qualifier for sender",
        "006" => "invalid interchange sender ID",
        "007" => "invalid interchange ID qualifier for receiver",
        "008" => "invalid interchange receiver ID",
        "009" => "unknown interchange receiver ID",
        "010" => "invalid authorization information qualifier value",
        "011" => "invalid authorization information value",
        "012" => "invalid security information qualifier value",
        "013" => "invalid security information value",
        "014" => "invalid interchange date value",
        "015" => "invalid interchange time value",
        "016" => "invalid interchange standards identifier value",
        "017" => "invalid interchange version ID value",
        "018" => "invalid interchange control number value",
        "019" => "invalid acknowledgment requested value",
        "020" => "invalid test indicator value",
        "021" => "invalid number of included groups value",
        "022" => "invalid control structure",
        "023" => "improper (premature) end-of-file (transmission)",
        "024" => "invalid interchange content (e.g. invalid GS segment)",
        "025" => "duplicate interchange control number",
        "026" => "invalid data element separator",
        "027" => "invalid component element separator",
        "028" => "invalid delivery date in deferred delivery request",
        "029" => "invalid delivery time in deferred delivery request",
        "030" => "invalid delivery time code in deferred delivery request",
        "031" => "invalid grade of service code",
        "032" => "invalid repetition separator",
        _ => "unknown interchange note code",
    }
}

/// What an AK905 / AK9 group error code (716) means.
pub fn ak9_error(code: &str) -> &'static str {
    match code {
        "1" => "functional group not supported",
        "2" => "functional group version not supported",
        "3" => "functional group trailer (GE) missing",
        "4" => "group control number in the header (GS06) and trailer (GE02) do not agree",
        "5" => "number of included transaction sets (GE01) does not match the actual count",
        "6" => "group control number violates syntax",
        "10" => "authentication key name unknown",
        "11" => "encryption key name unknown",
        "12" => "requested service (authentication or encryption) not available",
        "13" => "unknown security recipient",
        "14" => "unknown security originator",
        "15" => "syntax error in decrypted text",
        "16" => "security not supported",
        "17" => "incorrect message length (encryption only)",
        "18" => "message authentication code failed",
        "19" => "functional group control number not unique within the interchange (005010)",
        "23" | "24" | "25" | "26" => "security segment pairing error",
        _ => "unknown functional group error code",
    }
}

/// What an AK502 / IK502 set error code (718 / 618) means.
pub fn ak5_error(code: &str) -> &'static str {
    match code {
        "1" => "transaction set not supported",
        "2" => "transaction set trailer (SE) missing",
        "3" => {
            "transaction set control number in the header (ST02) and trailer (SE02) do not match"
        }
        "4" => "number of included segments (SE01) does not match the actual count",
        "5" => "one or more segments in error",
        "6" => "missing or invalid transaction set identifier (ST01)",
        "7" => "missing or invalid transaction set control number (ST02)",
        "8" => "authentication key name unknown",
        "9" => "encryption key name unknown",
        "10" => "requested service (authentication or encryption) not available",
        "11" => "unknown security recipient",
        "12" => "incorrect message length (encryption only)",
        "13" => "message authentication code failed",
        "15" => "unknown security originator",
        "16" => "syntax error in decrypted text",
        "17" => "security not supported",
        "18" => "transaction set not in a functional group",
        "19" => "invalid transaction set implementation convention reference (ST03)",
        "23" => "transaction set control number not unique within the functional group",
        "I5" => "implementation: one or more segments in error",
        "I6" => "implementation convention not supported",
        _ => "unknown transaction set error code",
    }
}

/// What an AK304 / IK304 segment error code (720 / 620) means.
pub fn segment_error(code: &str) -> &'static str {
    match code {
        "1" => "unrecognized segment ID",
        "2" => "unexpected segment",
        "3" => "required segment missing",
        "4" => "loop occurs over maximum times",
        "5" => "segment exceeds maximum use",
        "6" => "segment not in defined transaction set",
        "7" => "segment not in proper sequence",
        "8" => "segment has data element errors",
        "I4" => "implementation \"not used\" segment present",
        "I6" => "implementation dependent segment missing",
        "I7" => "implementation loop occurs under minimum times",
        "I8" => "implementation segment below minimum use",
        "I9" => "implementation dependent \"not used\" segment present",
        _ => "unknown segment error code",
    }
}

/// What an AK403 / IK403 element error code (723 / 621) means.
pub fn element_error(code: &str) -> &'static str {
    match code {
        "1" => "required data element missing",
        "2" => "conditional required data element missing",
        "3" => "too many data elements",
        "4" => "data element too short",
        "5" => "data element too long",
        "6" => "invalid character in data element",
        "7" => "invalid code value",
        "8" => "invalid date",
        "9" => "invalid time",
        "10" => "exclusion condition violated",
        "12" => "too many repetitions",
        "13" => "too many components",
        "I6" => "code value not used in implementation",
        "I9" => "implementation dependent data element missing",
        "I10" => "implementation \"not used\" data element present",
        "I11" => "implementation too few repetitions",
        "I12" => "implementation pattern match failure",
        "I13" => "implementation dependent \"not used\" data element present",
        _ => "unknown data element error code",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_997() {
        assert_eq!(to_997(AckElement::Ak905, "19"), Some("6"));
        assert_eq!(to_997(AckElement::Ak905, "5"), Some("5"));
        assert_eq!(to_997(AckElement::Ak502, "18"), None);
        assert_eq!(to_997(AckElement::Ak403, "I10"), Some("10"));
    }
}
