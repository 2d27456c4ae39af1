//! The registry of transaction set types: the sets x12kit declares (one
//! line each in [`DECLARED`], with its declaration file
//! `documents/sets/<code>.x12d`), and the other types the validator knows
//! for the `GS01_MISMATCH` check ([`SET_TYPES`]). Adding a set is its
//! declaration file and its line here: the renderer, the mapper, the
//! structure checks, the schemas and the validator's tables follow. The
//! declarations are checked by a test that always runs
//! (`documents::compiled::tests::declarations_compile_and_resolve`).
//! A leaf of the crate: it uses no other module of it.

/// A transaction set x12kit declares: it renders it, maps it back and
/// checks its structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    /// ST01, e.g. `850`.
    pub code: &'static str,
    /// The GS01 functional identifier its groups carry, e.g. `PO` (the
    /// declaration says it too; a test checks they agree).
    pub functional_id: &'static str,
    /// What the set is, for messages.
    pub name: &'static str,
    /// The JSON pointer of the payload field that is the document's business
    /// reference: what people search it by (the PO number of an 850, the
    /// invoice number of an 810, the shipment id of an 856 ...).
    pub reference: &'static str,
    /// Its declaration (`documents/sets/<code>.x12d`).
    pub source: &'static str,
}

macro_rules! declared {
    ($($code:literal $functional_id:literal $name:literal $reference:literal;)*) => {
        /// The transaction sets x12kit declares, in the order of [`TYPES`].
        pub const DECLARED: &[Declared] = &[$(Declared {
            code: $code,
            functional_id: $functional_id,
            name: $name,
            reference: $reference,
            source: include_str!(concat!("documents/sets/", $code, ".x12d")),
        },)*];
    };
}

// code, GS01, what it is, the business reference (a payload field; a test checks
// that each is a value field of the set's payload).
declared! {
    "850" "PO" "purchase order" "/purchaseOrderNumber";
    "810" "IN" "invoice" "/invoiceNumber";
    "855" "PR" "purchase order acknowledgment" "/purchaseOrderNumber";
    "856" "SH" "ship notice/manifest" "/shipmentId";
    "204" "SM" "motor carrier load tender" "/shipmentId";
    "210" "IM" "motor carrier freight details and invoice" "/invoiceNumber";
    "211" "BL" "motor carrier bill of lading" "/billOfLadingNumber";
    "212" "TM" "motor carrier delivery trailer manifest" "/manifestNumber";
    "214" "QM" "transportation carrier shipment status" "/shipmentId";
    "753" "RF" "request for routing instructions" "/requestNumber";
    "754" "RG" "routing instructions" "/referenceNumber";
    "858" "SI" "shipment information" "/shipmentId";
    "940" "OW" "warehouse shipping order" "/depositorOrderNumber";
    "943" "AR" "warehouse stock transfer shipment advice" "/depositorOrderNumber";
    "944" "RE" "warehouse stock transfer receipt advice" "/receiptNumber";
    "945" "SW" "warehouse shipping advice" "/depositorOrderNumber";
    "947" "AW" "warehouse inventory adjustment advice" "/adjustmentNumber";
    "990" "GF" "response to a load tender" "/shipmentId";
}

/// The JSON pointer of the business reference of a declared set's payload
/// (`/purchaseOrderNumber` for an 850); `None` for a type x12kit does not declare.
pub fn reference_field(code: &str) -> Option<&'static str> {
    DECLARED
        .iter()
        .find(|d| d.code == code)
        .map(|d| d.reference)
}

/// The business reference of a payload (or of a mapped document) of a
/// declared set: the text of its [`reference_field`] (a number's decimal
/// text), `None` when the field is absent, empty or not a value.
pub fn reference_of(code: &str, payload: &serde_json::Value) -> Option<String> {
    match payload.pointer(reference_field(code)?)? {
        serde_json::Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The codes of [`DECLARED`], in its order: the transaction sets x12kit
/// renders, maps back and validates.
pub const TYPES: [&str; DECLARED.len()] = {
    let mut out = [""; DECLARED.len()];
    let mut i = 0;
    while i < DECLARED.len() {
        out[i] = DECLARED[i].code;
        i += 1;
    }
    out
};

/// True when `kind` (ST01) is one of the declared sets, without allocating.
#[inline]
pub fn is_known(kind: &[u8]) -> bool {
    TYPES.iter().any(|t| t.as_bytes() == kind)
}

/// The index of `code` in [`DECLARED`] (and [`TYPES`]).
pub fn type_index(code: &str) -> Option<usize> {
    TYPES.iter().position(|t| *t == code)
}

/// A transaction set type x12kit knows about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetType {
    /// ST01, e.g. `850`.
    pub code: &'static str,
    /// The GS01 functional identifier its groups must carry, e.g. `PO`.
    pub functional_id: &'static str,
    /// True when x12kit has a definition for it (a declared set, or the
    /// 997 / 999 acknowledgements); other types get an `ST01_UNSUPPORTED`
    /// warning.
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

/// The set types x12kit knows besides [`DECLARED`] (reference §2): the
/// acknowledgements, and the HIPAA types (pyx12's GS01 list, best
/// knowledge), which only serve the `GS01_MISMATCH` check.
const OTHERS: [SetType; 11] = [
    set("997", "FA", true, "functional acknowledgment"),
    set("999", "FA", true, "implementation acknowledgment"),
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

/// Transaction set types and their functional identifiers: [`DECLARED`]
/// (supported), then the others x12kit knows.
pub const SET_TYPES: [SetType; DECLARED.len() + OTHERS.len()] = {
    let mut out = [OTHERS[0]; DECLARED.len() + OTHERS.len()];
    let mut i = 0;
    while i < DECLARED.len() {
        let d = &DECLARED[i];
        out[i] = set(d.code, d.functional_id, true, d.name);
        i += 1;
    }
    let mut j = 0;
    while j < OTHERS.len() {
        out[i + j] = OTHERS[j];
        j += 1;
    }
    out
};

/// The entry for a set type, if x12kit knows it.
pub fn set_type(code: &[u8]) -> Option<&'static SetType> {
    // Every code is three bytes: compared as arrays, without a call per entry.
    let code = <[u8; 3]>::try_from(code).ok()?;
    SET_TYPES
        .iter()
        .find(|s| s.code.as_bytes().first_chunk::<3>() == Some(&code))
}

/// True when x12kit has a definition for the set type: a declared set, or
/// the 997 or 999.
pub fn is_supported(code: &[u8]) -> bool {
    is_known(code) || code == b"997" || code == b"999"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_types_are_three_bytes_and_found() {
        assert!(SET_TYPES.iter().all(|s| s.code.len() == 3));
        for s in &SET_TYPES {
            assert_eq!(set_type(s.code.as_bytes()), Some(s));
            assert_eq!(is_supported(s.code.as_bytes()), s.supported, "{}", s.code);
        }
        assert_eq!(set_type(b"85"), None);
        assert_eq!(set_type(b"8500"), None);
        assert_eq!(
            SET_TYPES.iter().filter(|s| s.supported).count(),
            DECLARED.len() + 2
        );
        assert!(is_supported(b"850") && !is_supported(b"837") && !is_supported(b"123"));
        for t in TYPES {
            assert!(set_type(t.as_bytes()).is_some_and(|s| s.supported), "{t}");
        }
    }
}
