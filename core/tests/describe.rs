//! `documents::describe_segment`: what the inspector shows of a segment,
//! from the set's declaration and the X12 dictionary it uses.

mod common;

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

/// `schema/segment-description.schema.json`, compiled.
fn description_schema() -> (Value, jsonschema::Validator) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../schema/segment-description.schema.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let v: Value = serde_json::from_str(&text).expect("the schema is JSON");
    let compiled = jsonschema::draft202012::new(&v).expect("the schema compiles");
    (v, compiled)
}

fn refusals(schema: &jsonschema::Validator, v: &Value) -> Vec<String> {
    schema
        .iter_errors(v)
        .take(3)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

#[test]
fn the_schema_is_2020_12_describes_everything_and_refuses_what_it_should() {
    let (s, schema) = description_schema();
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    if let Err(e) = jsonschema::draft202012::meta::validate(&s) {
        panic!("not a valid 2020-12 schema: {e}");
    }
    let missing = common::undescribed(&s);
    assert!(missing.is_empty(), "without a description: {missing:#?}");
    let good: Value = serde_json::from_slice(
        &x12kit::ops::describe_segment_json("850", "004010", "BEG").unwrap(),
    )
    .unwrap();
    assert_eq!(refusals(&schema, &good), Vec::<String>::new());
    assert_eq!(refusals(&schema, &Value::Null), Vec::<String>::new());
    // Each change below makes a description the schema must refuse.
    type Change = Box<dyn Fn(&mut Value)>;
    let changes: Vec<(&str, Change)> = vec![
        ("an empty object", Box::new(|v| *v = serde_json::json!({}))),
        ("an extra key", Box::new(|v| v["extra"] = 1.into())),
        (
            "no elements",
            Box::new(|v| {
                v.as_object_mut().unwrap().remove("elements");
            }),
        ),
        ("a lower-case id", Box::new(|v| v["segment"] = "beg".into())),
        ("a maxUse of 0", Box::new(|v| v["maxUse"] = 0.into())),
        (
            "an element's extra key",
            Box::new(|v| v["elements"][0]["x"] = true.into()),
        ),
        (
            "an element without field",
            Box::new(|v| {
                v["elements"][0].as_object_mut().unwrap().remove("field");
            }),
        ),
        (
            "an unknown type",
            Box::new(|v| v["elements"][0]["type"] = "XX".into()),
        ),
        (
            "a composite with lengths",
            Box::new(|v| v["elements"][0]["type"] = "composite".into()),
        ),
        (
            "an element without lengths",
            Box::new(|v| v["elements"][0]["min"] = Value::Null),
        ),
        (
            "a meaning without its code",
            Box::new(|v| {
                v["elements"][0]["meanings"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("code");
            }),
        ),
        ("a string", Box::new(|v| *v = "BEG".into())),
    ];
    for (what, change) in changes {
        let mut bad = good.clone();
        change(&mut bad);
        assert!(
            !refusals(&schema, &bad).is_empty(),
            "the schema accepts {what}: {bad}"
        );
    }
}

/// The description's JSON (as every binding and the CLI give it) matches
/// the schema: every envelope and acknowledgment segment for every set and
/// edition, and every segment of every set of the vectors' inputs and the
/// corpus, described for its set and its group's version.
#[test]
fn every_description_matches_the_schema() {
    let (_, schema) = description_schema();
    let mut checked = 0;
    let mut described = 0;
    let mut check = |set: &str, version: &str, seg: &str| {
        let Ok(json) = x12kit::ops::describe_segment_json(set, version, seg) else {
            return;
        };
        let v: Value = serde_json::from_slice(&json).expect("a description is JSON");
        let why = refusals(&schema, &v);
        assert!(why.is_empty(), "{set} {version} {seg}: {why:?}\n{v}");
        checked += 1;
        described += usize::from(!v.is_null());
    };
    let sets: Vec<&str> = TYPES.iter().copied().chain(["", "997", "999"]).collect();
    for set in &sets {
        for version in ["", "004010", "005010", "005010X222A1", "00401", "00501"] {
            for seg in ENVELOPE_SEGMENTS {
                check(set, version, seg);
            }
        }
    }
    let mut inputs: Vec<std::path::PathBuf> = Vec::new();
    let vectors = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/inputs");
    // The X12 inputs (inputs/write holds parse results as JSON).
    for f in std::fs::read_dir(&vectors).unwrap() {
        let p = f.unwrap().path();
        if p.is_file() {
            inputs.push(p);
        }
    }
    if let Some(dir) = common::corpus_dir() {
        inputs.extend(common::corpus_files(&dir).into_iter().map(|(_, p)| p));
    }
    let mut seen = std::collections::BTreeSet::new();
    for path in inputs {
        let input = std::fs::read(&path).unwrap();
        let doc = x12kit::parse(&input);
        for i in &doc.interchanges {
            for g in &i.groups {
                let version = g.gs.as_ref().map_or(&b""[..], |gs| gs.value(8));
                let version = String::from_utf8_lossy(version).into_owned();
                for t in &g.transactions {
                    let set = String::from_utf8_lossy(t.kind()).into_owned();
                    for s in doc.body(t) {
                        let id = String::from_utf8_lossy(s.id()).into_owned();
                        if seen.insert((set.clone(), version.clone(), id.clone())) {
                            check(&set, &version, &id);
                        }
                    }
                }
            }
        }
    }
    eprintln!("{checked} descriptions checked, {described} of them not null");
    assert!(
        checked > 2000 && described > 1500,
        "{checked} checked, {described} described"
    );
}
