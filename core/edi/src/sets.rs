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

/// [`reference_of`] of a payload's JSON text, read without building the
/// payload: what is not on the path to the reference field is skipped as it
/// is read, so the memory taken is the reference's, not the document's (the
/// server's inbound reads the reference of each mapped set so). `None` also
/// for text that is not JSON.
pub fn reference_in_json(code: &str, json: &[u8]) -> Option<String> {
    let tokens = pointer_tokens(reference_field(code)?);
    let mut de = serde_json::Deserializer::from_slice(json);
    let leaf = serde::de::DeserializeSeed::deserialize(Seek(&tokens), &mut de).ok()?;
    de.end().ok()?;
    match leaf? {
        serde_json::Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The unescaped tokens of a JSON pointer (RFC 6901: `~1` is `/`, `~0` is `~`).
fn pointer_tokens(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// Follows the JSON pointer `self.0` (its unescaped tokens) through the value
/// read: the value at its end, `None` when the path leads nowhere. Everything
/// else is skipped unread ([`serde::de::IgnoredAny`]); a key that appears
/// twice counts as its last appearance, as it does in a `serde_json::Value`.
struct Seek<'t>(&'t [String]);

impl<'de> serde::de::DeserializeSeed<'de> for Seek<'_> {
    type Value = Option<serde_json::Value>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        if self.0.is_empty() {
            return serde::Deserialize::deserialize(d).map(Some);
        }
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Seek<'_> {
    type Value = Option<serde_json::Value>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (head, rest) = (&self.0[0], &self.0[1..]);
        let mut found = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == head.as_str() {
                found = map.next_value_seed(Seek(rest))?;
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(found)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // An index as `Value::pointer` reads it: digits, no leading zero.
        let head = &self.0[0];
        let index = (!head.starts_with('+') && (head == "0" || !head.starts_with('0')))
            .then(|| head.parse::<usize>().ok())
            .flatten();
        let (mut found, mut at) = (None, 0usize);
        loop {
            if Some(at) == index {
                match seq.next_element_seed(Seek(&self.0[1..]))? {
                    Some(v) => found = v,
                    None => break,
                }
            } else if seq.next_element::<serde::de::IgnoredAny>()?.is_none() {
                break;
            }
            at += 1;
        }
        Ok(found)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
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
    fn the_reference_read_from_json_text_is_the_one_read_from_the_value() {
        let cases: &[&str] = &[
            r#"{"purpose":"00","purchaseOrderNumber":" PO-1 ","lines":[{"a":1}]}"#,
            r#"{"lines":[{"purchaseOrderNumber":"inner"}],"purchaseOrderNumber":42}"#,
            r#"{"purchaseOrderNumber":1.5e3}"#,
            r#"{"purchaseOrderNumber":-7}"#,
            r#"{"purchaseOrderNumber":"   "}"#,
            r#"{"purchaseOrderNumber":null}"#,
            r#"{"purchaseOrderNumber":["x"]}"#,
            r#"{"purchaseOrderNumber":{"x":"y"}}"#,
            r#"{"purchaseOrderNumber":"first","purchaseOrderNumber":"last"}"#,
            r#"{"purchaseOrderNumber":"first","purchaseOrderNumber":true}"#,
            r#"{"other":"x"}"#,
            r#"[1,2,3]"#,
            r#""a string""#,
            r#"{}"#,
            r#"{"purchaseOrderNumber":"caf\u00e9"}"#,
        ];
        for json in cases {
            let value: serde_json::Value = serde_json::from_str(json).unwrap();
            assert_eq!(
                reference_in_json("850", json.as_bytes()),
                reference_of("850", &value),
                "{json}"
            );
        }
        // Not JSON, or JSON followed by more: none.
        for bad in [
            &b"{\"purchaseOrderNumber\":\"PO\""[..],
            b"{} x",
            b"",
            b"\xff",
        ] {
            assert_eq!(reference_in_json("850", bad), None);
        }
        // A type x12kit does not declare has no reference.
        assert_eq!(
            reference_in_json("999", br#"{"purchaseOrderNumber":"x"}"#),
            None
        );
    }

    /// Any JSON, with the 850's reference key among the keys at every level.
    fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(serde_json::Value::from),
            "[ a-zA-Z0-9é\\-\"]{0,8}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
                proptest::collection::vec(
                    (
                        prop_oneof![Just("purchaseOrderNumber".to_string()), "[a-z]{1,3}"],
                        inner
                    ),
                    0..6
                )
                .prop_map(|kv| serde_json::Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn the_reference_of_any_json_text_is_the_one_of_its_value(value in json_value()) {
            // Compared with the value read back from the text (serde_json's reading of a
            // float is not always the float written).
            let text = serde_json::to_vec(&value).unwrap();
            let read: serde_json::Value = serde_json::from_slice(&text).unwrap();
            proptest::prop_assert_eq!(reference_in_json("850", &text), reference_of("850", &read));
        }
    }

    #[test]
    fn a_pointer_through_objects_and_arrays_is_followed_as_value_pointer_does() {
        let json = r#"{"a":[{"b":"x"},{"b":" y "}],"a~b":{"c/d":"z"},"n":[0,1]}"#;
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        for pointer in [
            "/a/1/b",
            "/a/0/b",
            "/a/01/b",
            "/a/+1/b",
            "/a/2/b",
            "/a~0b/c~1d",
            "/n/1",
            "/n/x",
            "/a",
        ] {
            let tokens = pointer_tokens(pointer);
            let mut de = serde_json::Deserializer::from_str(json);
            let got = serde::de::DeserializeSeed::deserialize(Seek(&tokens), &mut de).unwrap();
            assert_eq!(got.as_ref(), value.pointer(pointer), "{pointer}");
        }
    }

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
