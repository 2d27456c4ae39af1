//! Code lists the envelope rules check against, kept in one place.
//!
//! Sources (see `../shared/x12-reference.md`): the ISA code lists (I01, I03,
//! I05, I11, I13, I14) and the functional identifier codes (479) are StAEDI's
//! `X12/common.xml`; the transaction set → functional identifier table is
//! reference §2, plus the common HIPAA sets (pyx12's GS01 list), marked below.

/// A transaction set type x12kit knows about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetType {
    /// ST01, e.g. `850`.
    pub code: &'static str,
    /// The GS01 functional identifier its groups must carry, e.g. `PO`.
    pub functional_id: &'static str,
    /// True when x12kit has (or will have, issue 4) a definition for it;
    /// other types get an `ST01_UNSUPPORTED` warning.
    pub supported: bool,
    /// What the set is, for messages.
    pub name: &'static str,
}

const fn set(
    code: &'static str,
    functional_id: &'static str,
    supported: bool,
    name: &'static str,
) -> SetType {
    SetType {
        code,
        functional_id,
        supported,
        name,
    }
}

/// Transaction set types and their functional identifiers (reference §2).
///
/// The 18 outbound types and the 997 / 999 acknowledgements are `supported`
/// (a test checks this against [`crate::documents`], whose registry
/// [`is_supported`] consults); the HIPAA types (pyx12's GS01 list, best
/// knowledge) only serve the `GS01_MISMATCH` check.
pub const SET_TYPES: &[SetType] = &[
    set("850", "PO", true, "purchase order"),
    set("810", "IN", true, "invoice"),
    set("855", "PR", true, "purchase order acknowledgment"),
    set("856", "SH", true, "ship notice/manifest"),
    set("204", "SM", true, "motor carrier load tender"),
    set(
        "210",
        "IM",
        true,
        "motor carrier freight details and invoice",
    ),
    set("211", "BL", true, "motor carrier bill of lading"),
    set("212", "TM", true, "motor carrier delivery trailer manifest"),
    set("214", "QM", true, "transportation carrier shipment status"),
    set("753", "RF", true, "request for routing instructions"),
    set("754", "RG", true, "routing instructions"),
    set("858", "SI", true, "shipment information"),
    set("940", "OW", true, "warehouse shipping order"),
    set(
        "943",
        "AR",
        true,
        "warehouse stock transfer shipment advice",
    ),
    set("944", "RE", true, "warehouse stock transfer receipt advice"),
    set("945", "SW", true, "warehouse shipping advice"),
    set("947", "AW", true, "warehouse inventory adjustment advice"),
    set("990", "GF", true, "response to a load tender"),
    set("997", "FA", true, "functional acknowledgment"),
    set("999", "FA", true, "implementation acknowledgment"),
    // HIPAA (pyx12 maps; best knowledge): mismatch check only.
    set("270", "HS", false, "eligibility inquiry"),
    set("271", "HB", false, "eligibility response"),
    set("276", "HR", false, "claim status request"),
    set("277", "HN", false, "claim status response"),
    set("278", "HI", false, "health care services review"),
    set("820", "RA", false, "payment order/remittance advice"),
    set("834", "BE", false, "benefit enrollment"),
    set("835", "HP", false, "health care claim payment"),
    set("837", "HC", false, "health care claim"),
];

/// The entry for a set type, if x12kit knows it.
pub fn set_type(code: &[u8]) -> Option<&'static SetType> {
    // Every code is three bytes: compared as arrays, without a call per entry.
    let code = <[u8; 3]>::try_from(code).ok()?;
    SET_TYPES
        .iter()
        .find(|s| s.code.as_bytes().first_chunk::<3>() == Some(&code))
}

/// True when x12kit has a definition for the set type: the 18 types of
/// [`crate::documents`] (its registry decides), plus the 997 and 999.
pub fn is_supported(code: &[u8]) -> bool {
    crate::documents::is_known(code) || code == b"997" || code == b"999"
}

/// I01 authorization information qualifier (StAEDI: 00–06).
pub const ISA01: &[&str] = &["00", "01", "02", "03", "04", "05", "06"];
/// I03 security information qualifier.
pub const ISA03: &[&str] = &["00", "01"];
/// I05 interchange id qualifier (StAEDI's list).
pub const ID_QUALIFIERS: &[&str] = &[
    "01", "02", "03", "04", "07", "08", "09", "10", "11", "12", "13", "14", "15", "16", "17", "18",
    "19", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29", "30", "31", "32", "33", "34",
    "35", "36", "37", "38", "AM", "NR", "SA", "SN", "ZZ",
];
/// I11 interchange control version numbers.
pub const VERSIONS: &[&str] = &[
    "00200", "00201", "00204", "00300", "00301", "00302", "00303", "00304", "00305", "00306",
    "00307", "00400", "00401", "00402", "00403", "00404", "00405", "00406", "00500", "00501",
    "00502", "00503", "00504", "00505", "00600", "00601", "00602", "00603", "00604", "00605",
    "00700", "00701", "00702", "00703", "00704", "00800", "00801",
];
/// I14 usage indicator.
pub const USAGE: &[&str] = &["P", "T", "I"];
/// 455 responsible agency code.
pub const AGENCIES: &[&str] = &["X", "T"];

/// 479 functional identifier codes (StAEDI's list).
pub const FUNCTIONAL_IDS: &[&str] = &[
    "AA", "AB", "AC", "AD", "AE", "AF", "AG", "AH", "AI", "AK", "AL", "AM", "AN", "AO", "AP", "AQ",
    "AR", "AS", "AT", "AU", "AV", "AW", "AX", "AY", "AZ", "BA", "BB", "BC", "BD", "BE", "BF", "BL",
    "BS", "CA", "CB", "CC", "CD", "CE", "CF", "CH", "CI", "CJ", "CK", "CL", "CM", "CN", "CO", "CP",
    "CQ", "CR", "CS", "CT", "CU", "CV", "CW", "D3", "D4", "D5", "DA", "DD", "DF", "DI", "DM", "DS",
    "DX", "EC", "ED", "EI", "EN", "EP", "ER", "ES", "EV", "EX", "FA", "FB", "FC", "FG", "FR", "FT",
    "GC", "GE", "GF", "GL", "GP", "GR", "GT", "HB", "HC", "HI", "HN", "HP", "HR", "HS", "HU", "HV",
    "IA", "IB", "IC", "ID", "IE", "IF", "IG", "IH", "IJ", "IM", "IN", "IO", "IR", "IS", "JB", "KM",
    "LA", "LB", "LI", "LN", "LR", "LS", "LT", "MA", "MC", "MD", "ME", "MF", "MG", "MH", "MI", "MJ",
    "MK", "MM", "MN", "MO", "MP", "MQ", "MR", "MS", "MT", "MV", "MW", "MX", "MY", "MZ", "NC", "NL",
    "NP", "NR", "NT", "OC", "OG", "OR", "OW", "PA", "PB", "PC", "PD", "PE", "PF", "PG", "PH", "PI",
    "PJ", "PK", "PL", "PN", "PO", "PQ", "PR", "PS", "PT", "PU", "PV", "PW", "PY", "QG", "QM", "QO",
    "RA", "RB", "RC", "RD", "RE", "RF", "RG", "RH", "RI", "RJ", "RK", "RL", "RM", "RN", "RO", "RP",
    "RQ", "RR", "RS", "RT", "RU", "RV", "RW", "RX", "RY", "RZ", "SA", "SB", "SC", "SD", "SE", "SH",
    "SI", "SJ", "SL", "SM", "SN", "SO", "SP", "SQ", "SR", "SS", "ST", "SU", "SV", "SW", "TA", "TB",
    "TD", "TE", "TF", "TI", "TJ", "TM", "TN", "TO", "TP", "TR", "TS", "TT", "TU", "TX", "UA", "UB",
    "UC", "UD", "UI", "UP", "UW", "VA", "VB", "VC", "VD", "VE", "VH", "VI", "VS", "WA", "WB", "WG",
    "WI", "WL", "WR", "WT",
];

/// True when `value` is one of `list`.
pub fn one_of(list: &[&str], value: &[u8]) -> bool {
    list.iter().any(|c| c.as_bytes() == value)
}

/// [`one_of`] for a list sorted in byte order (checked by the tests for
/// the lists it is used with): a binary search, for checks made once per
/// transaction set.
pub fn one_of_sorted(list: &[&str], value: &[u8]) -> bool {
    list.binary_search_by(|c| c.as_bytes().iter().cmp(value.iter()))
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_set_type_has_a_known_functional_id_and_lists_are_sorted() {
        for s in SET_TYPES {
            assert!(one_of(FUNCTIONAL_IDS, s.functional_id.as_bytes()), "{s:?}");
        }
        for list in [ID_QUALIFIERS, VERSIONS, FUNCTIONAL_IDS] {
            assert!(list.windows(2).all(|w| w[0] < w[1]));
            for (i, c) in list.iter().enumerate() {
                assert!(one_of_sorted(list, c.as_bytes()), "{c}");
                let mut other = c.as_bytes().to_vec();
                other.push(b'0');
                assert_eq!(one_of_sorted(list, &other), one_of(list, &other), "{c}0");
                assert_eq!(
                    one_of_sorted(list, &c.as_bytes()[..1]),
                    one_of(list, &c.as_bytes()[..1]),
                    "{i}"
                );
            }
            assert!(!one_of_sorted(list, b"") && !one_of_sorted(list, b"~~~"));
        }
        assert!(SET_TYPES.iter().all(|s| s.code.len() == 3));
        for s in SET_TYPES {
            assert_eq!(set_type(s.code.as_bytes()), Some(s));
        }
        assert_eq!(set_type(b"85"), None);
        assert_eq!(set_type(b"8500"), None);
        assert_eq!(SET_TYPES.iter().filter(|s| s.supported).count(), 20);
        assert!(is_supported(b"850") && !is_supported(b"837") && !is_supported(b"123"));
    }

    /// The table agrees with the documents registry on which types exist
    /// and on their functional identifiers.
    #[test]
    fn agrees_with_the_documents_registry() {
        for s in SET_TYPES {
            assert_eq!(is_supported(s.code.as_bytes()), s.supported, "{}", s.code);
            if crate::documents::is_known(s.code.as_bytes()) {
                assert_eq!(
                    crate::documents::functional_id(s.code),
                    Some(s.functional_id),
                    "{}",
                    s.code
                );
            }
        }
        for t in crate::documents::TYPES {
            assert!(set_type(t.as_bytes()).is_some_and(|s| s.supported), "{t}");
        }
    }
}
