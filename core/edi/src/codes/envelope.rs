//! The code lists of the envelope segments (ISA, GS) the validator checks
//! against and the acknowledgement builder and partner profiles keep to
//! (a leaf).
//!
//! Sources (see `../shared/x12-reference.md`): the ISA code lists (I01, I03,
//! I05, I11, I13, I14) and the functional identifier codes (479) are StAEDI's
//! `X12/common.xml`.

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
    fn lists_are_sorted_where_searched() {
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
    }
}
