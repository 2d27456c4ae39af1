//! `documents::describe_segment`: what the inspector shows of a segment,
//! from the set's declaration and the X12 dictionary it uses.

use serde_json::Value;
use x12kit::documents::{self, ENVELOPE_SEGMENTS, TYPES};

fn describe(set: &str, version: &str, seg: &str) -> Value {
    documents::describe_segment(set, version, seg)
        .unwrap_or_else(|| panic!("{set} {version} {seg} is described"))
}

/// The element at a position.
fn at(d: &Value, pos: u64) -> &Value {
    d["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["position"] == pos)
        .unwrap_or_else(|| panic!("{} has no element {pos}", d["segment"]))
}

/// The meaning of a code of an element.
fn meaning<'a>(e: &'a Value, code: &str) -> Option<&'a str> {
    e["meanings"]
        .as_array()?
        .iter()
        .find(|m| m["code"] == code)
        .and_then(|m| m["meaning"].as_str())
}

#[test]
fn beg_names_its_elements_and_codes() {
    let d = describe("850", "004010", "BEG");
    assert_eq!(d["segmentName"], "Beginning Segment for Purchase Order");
    let beg01 = at(&d, 1);
    assert_eq!(beg01["number"], "353");
    assert_eq!(beg01["name"], "Transaction Set Purpose Code");
    assert_eq!(meaning(beg01, "00"), Some("Original"));
    // The declaration's own keys stay.
    assert_eq!(beg01["field"], "purpose");
    assert_eq!(beg01["type"], "ID");
    assert!(
        beg01["knownCodes"]
            .as_array()
            .unwrap()
            .contains(&"06".into())
    );
    assert_eq!(at(&d, 2)["number"], "92");
    assert_eq!(meaning(at(&d, 2), "SA"), Some("Stand-alone Order"));
    assert_eq!(at(&d, 3)["name"], "Purchase Order Number");
    assert_eq!(at(&d, 5)["name"], "Date");
}

#[test]
fn n1_entity_codes_and_the_5010_segment_name() {
    let d = describe("850", "004010", "N1");
    assert_eq!(d["segmentName"], "Name");
    let n101 = at(&d, 1);
    assert_eq!(n101["number"], "98");
    assert_eq!(n101["name"], "Entity Identifier Code");
    assert_eq!(meaning(n101, "ST"), Some("Ship To"));
    assert_eq!(meaning(n101, "BT"), Some("Bill-to-Party"));
    assert_eq!(at(&d, 3)["number"], "66");
    // 005010 renamed N1, N3, N9, REF and LX.
    assert_eq!(
        describe("850", "005010", "N1")["segmentName"],
        "Party Identification"
    );
    assert_eq!(
        describe("850", "005010", "REF")["segmentName"],
        "Reference Information"
    );
    assert_eq!(
        describe("850", "004010", "REF")["segmentName"],
        "Reference Identification"
    );
}

#[test]
fn lengths_follow_the_edition() {
    let ref02 = |v| at(&describe("850", v, "REF"), 2).clone();
    assert_eq!(ref02("004010")["number"], "127");
    assert_eq!(ref02("004010")["max"], 30);
    assert_eq!(ref02("005010")["max"], 50);
}

#[test]
fn pairs_are_listed_position_by_position() {
    let d = describe("850", "004010", "PO1");
    assert_eq!(d["segmentName"], "Baseline Item Data");
    assert_eq!(at(&d, 6)["number"], "235");
    assert_eq!(at(&d, 6)["name"], "Product/Service ID Qualifier");
    assert_eq!(
        meaning(at(&d, 6), "VP"),
        Some("Vendor's (Seller's) Part Number")
    );
    assert_eq!(at(&d, 7)["number"], "234");
    assert_eq!(at(&d, 7)["type"], "AN");
    assert_eq!(at(&d, 15)["number"], "234");
}

#[test]
fn envelope_segments_for_any_set_or_none() {
    let isa = describe("", "004010", "ISA");
    assert_eq!(isa["segmentName"], "Interchange Control Header");
    assert!(isa["set"].is_null());
    assert_eq!(isa["elements"].as_array().unwrap().len(), 16);
    assert_eq!(at(&isa, 1)["number"], "I01");
    assert_eq!(at(&isa, 6)["name"], "Interchange Sender ID");
    assert_eq!(at(&isa, 6)["min"], 15);
    assert_eq!(at(&isa, 11)["number"], "I10");
    assert_eq!(meaning(at(&isa, 15), "P"), Some("Production Data"));
    // 005010: ISA11 is the repetition separator.
    let isa5 = describe("850", "005010", "ISA");
    assert_eq!(at(&isa5, 11)["number"], "I65");
    assert_eq!(at(&isa5, 11)["name"], "Repetition Separator");
    assert_eq!(isa5["set"], "850");
    // An interchange version (ISA12) picks the edition too.
    assert_eq!(at(&describe("", "00501", "ISA"), 11)["number"], "I65");
    assert_eq!(at(&describe("", "00401", "ISA"), 11)["number"], "I10");

    let gs = describe("810", "004010", "GS");
    assert_eq!(gs["segmentName"], "Functional Group Header");
    assert_eq!(at(&gs, 1)["number"], "479");
    assert_eq!(meaning(at(&gs, 1), "IN"), Some("Invoice Information (810)"));
    assert_eq!(
        at(&gs, 8)["name"],
        "Version / Release / Industry Identifier Code"
    );
    assert_eq!(at(&gs, 6)["mandatory"], true);

    // ST03 exists from 005010 on.
    assert_eq!(
        describe("", "004010", "ST")["elements"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(at(&describe("", "005010", "ST"), 3)["number"], "1705");
    // 997 and 999 segments, with the acknowledgment code's meanings.
    let ak5 = describe("997", "004010", "AK5");
    assert_eq!(ak5["segmentName"], "Transaction Set Response Trailer");
    assert!(ak5["setName"].is_null());
    assert_eq!(meaning(at(&ak5, 1), "R"), Some("Rejected"));
    assert!(meaning(at(&ak5, 2), "5").is_some());
    let ik4 = describe("999", "005010", "IK4");
    assert_eq!(at(&ik4, 1)["type"], "composite");
    assert_eq!(at(&ik4, 3)["number"], "621");
    for id in ENVELOPE_SEGMENTS {
        assert!(
            !describe("", "005010", id)["elements"]
                .as_array()
                .unwrap()
                .is_empty()
        );
    }
}

#[test]
fn every_declared_element_of_every_set_is_named() {
    // Every set, both editions: each described segment has a name and each
    // element a number and a name (the full check against the declarations,
    // with types, lengths and code meanings, is documents::tests).
    let mut count = 0;
    for set in TYPES {
        for version in ["004010", "005010"] {
            for id in [
                "BEG", "BIG", "BAK", "BSN", "B2", "B3", "BOL", "ATA", "B10", "BGN", "BX", "W05",
                "W06", "W17", "W15", "B1", "N1", "REF", "DTM", "G62", "L11", "N9", "PER",
            ] {
                let Some(d) = documents::describe_segment(set, version, id) else {
                    continue;
                };
                assert!(d["segmentName"].is_string(), "{set} {version} {id}");
                for e in d["elements"].as_array().unwrap() {
                    assert!(e["number"].is_string(), "{set} {version} {id} {e}");
                    assert!(e["name"].is_string(), "{set} {version} {id} {e}");
                    count += 1;
                }
            }
        }
    }
    assert!(count > 400, "{count}");
}

#[test]
fn unknown_segments_are_not_described() {
    assert!(documents::describe_segment("850", "004010", "ZZZ").is_none());
    assert!(documents::describe_segment("999", "004010", "BEG").is_none());
    assert!(documents::describe_segment("", "004010", "BEG").is_none());
}
