//! Received documents as partners send them (issue 17): repeated segments
//! and loops each keep their data, segments the declarations do not map are
//! listed under `unmapped` with their position, structure rules follow the
//! standard's designators (M / O / X with syntax notes) of each version and
//! report one fault once, a version without its own structure gives warnings
//! only, and assigned identifiers (PO101, IT101) stay the strings received.

mod common;

use common::render;
use serde_json::{Value, json};
use std::path::Path;
use x12kit::documents::{self, Coverage, Edition, Finding};
use x12kit::{Code, Partner, RenderOptions, Severity, parse};

const ISA: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *261122*0930*U*00401*000000001*0*P*>~";

/// An interchange with one set: `set` is `ST*…~…SE*…~` as received.
fn wrap(gs01: &str, version: &str, set: &str) -> String {
    let isa = if version >= "004020" {
        ISA.replace("*U*00401*", "*^*00501*")
    } else {
        ISA.to_string()
    };
    format!(
        "{isa}GS*{gs01}*SENDER*RECEIVER*20261122*0930*1*X*{version}~{set}GE*1*1~IEA*1*000000001~"
    )
}

/// A set of `kind` with these body segments (SE01 computed).
fn set(kind: &str, body: &[&str]) -> String {
    let mut s = format!("ST*{kind}*0001~");
    for b in body {
        s.push_str(b);
        s.push('~');
    }
    s.push_str(&format!("SE*{}*0001~", body.len() + 2));
    s
}

fn mapped(x12: &str) -> Value {
    let doc = parse(x12.as_bytes());
    assert!(!doc.has_errors(), "{:?}", doc.diagnostics);
    let g = &doc.interchanges[0].groups[0];
    documents::map_back(&doc, g, &g.transactions[0]).expect("a known type")
}

fn findings(x12: &str) -> Vec<Finding> {
    let doc = parse(x12.as_bytes());
    assert!(!doc.has_errors(), "{:?}", doc.diagnostics);
    let g = &doc.interchanges[0].groups[0];
    documents::validate_transaction(&doc, g, &g.transactions[0]).expect("a known type")
}

/// (code, segment id, element) of each finding.
fn summary(x12: &str) -> Vec<(&'static str, String, Option<u32>)> {
    findings(x12)
        .into_iter()
        .map(|f| (f.code.as_str(), f.segment_id, f.element))
        .collect()
}

// ---- 1. Repeated segments and loops: one array item each, nothing dropped.

/// The 210: two L1 lines in one LX. Both charges are kept.
const TWO_L1: &str = "ST*210*0001~B3**INV1*SHIP1*PP**20240131*30000**20240131*035*ABCD~LX*1~L1*1***10000****FUE~L1*2***20000****DET****DETENTION~L3*****30000~SE*7*0001~";

#[test]
fn repeated_l1_lines_keep_each_charge() {
    let d = mapped(&wrap("IM", "004010", TWO_L1));
    assert_eq!(
        d["lines"],
        json!([{
            "charge": 100,
            "chargeCode": "FUE",
            "additionalCharges": [
                {"charge": 200, "chargeCode": "DET", "chargeDescription": "DETENTION"}
            ]
        }]),
        "{d:#}"
    );
    // B310 (035) is not mapped: the B3 is listed, whole, at its position.
    assert_eq!(
        d["unmapped"],
        json!([{"position": 2, "id": "B3", "elements": ["", "INV1", "SHIP1", "PP", "", "20240131", "30000", "", "20240131", "035", "ABCD"]}])
    );
    // It validates clean, and renders back to the same segments.
    assert!(findings(&wrap("IM", "004010", TWO_L1)).is_empty());
    let again = render_body("210", &d);
    assert!(
        again.contains("L1*1***10000****FUE~\nL1*1***20000****DET****DETENTION~"),
        "{again}"
    );
}

#[test]
fn three_l1_lines_and_the_5010_edition() {
    let body = [
        "B3**INV1*SHIP1*PP**20240131*60000**20240131*035*ABCD",
        "LX*1",
        "L1*1***10000****FUE",
        "L1*2***20000****DET****DETENTION",
        "L1*3***30000****LAY****LAYOVER",
        "L3*****60000",
    ];
    for v in ["004010", "005010"] {
        let d = mapped(&wrap("IM", v, &set("210", &body)));
        let more = d["lines"][0]["additionalCharges"].as_array().unwrap();
        assert_eq!(more.len(), 2, "{v}: {d:#}");
        assert_eq!(more[1]["chargeDescription"], "LAYOVER");
        assert_eq!(d["lines"][0]["charge"], 100);
    }
}

#[test]
fn a_second_pid_under_a_po1_and_a_second_itd() {
    let x12 = wrap(
        "PO",
        "004010",
        &set(
            "850",
            &[
                "BEG*00*SA*PO1**20240131",
                "ITD*01*3***30",
                "ITD*05*3*2**10",
                "PO1*1*10*EA*2.5**VP*A",
                "PID*F****RED",
                "PID*F****LARGE",
                "CTT*1",
            ],
        ),
    );
    let d = mapped(&x12);
    assert_eq!(d["terms"]["typeCode"], "01");
    assert_eq!(d["additionalTerms"][0]["typeCode"], "05");
    assert_eq!(d["additionalTerms"][0]["discountPercent"], 2);
    assert_eq!(d["lines"][0]["description"]["text"], "RED");
    assert_eq!(
        d["lines"][0]["additionalDescriptions"],
        json!([{"text": "LARGE"}])
    );
    assert!(findings(&x12).is_empty());
}

#[test]
fn repeated_itd_in_an_810() {
    let x12 = wrap(
        "IN",
        "004010",
        &set(
            "810",
            &[
                "BIG*20240131*INV1",
                "ITD*01*3***30",
                "ITD*14*3",
                "ITD*05*3",
                "IT1*1*1*EA*5",
                "TDS*500",
            ],
        ),
    );
    let d = mapped(&x12);
    assert_eq!(d["terms"]["typeCode"], "01");
    assert_eq!(
        d["additionalTerms"],
        json!([{"typeCode": "14", "basisDateCode": "3"}, {"typeCode": "05", "basisDateCode": "3"}])
    );
}

#[test]
fn segments_the_declaration_does_not_map_are_listed_with_their_position() {
    // SAC is in the 810's structure but not mapped; N1's N105/N106 are not
    // mapped either; ZZZ is no segment of any set (a finding, and listed).
    let x12 = wrap(
        "IN",
        "004010",
        &set(
            "810",
            &[
                "BIG*20240131*INV1",
                "N1*ST*STORE*92*12*01*XX",
                "IT1*1*1*EA*5",
                "TDS*500",
                "SAC*C*D240***1000",
                "CTT*1",
            ],
        ),
    );
    let d = mapped(&x12);
    assert_eq!(
        d["unmapped"],
        json!([
            {"position": 3, "id": "N1", "elements": ["ST", "STORE", "92", "12", "01", "XX"]},
            {"position": 6, "id": "SAC", "elements": ["C", "D240", "", "", "1000"]}
        ]),
        "{d:#}"
    );
    // N1 is still mapped as far as the declaration goes.
    assert_eq!(d["parties"][0]["name"], "STORE");
    let stray = wrap(
        "IN",
        "004010",
        &set(
            "810",
            &["BIG*20240131*INV1", "ZZZ*1", "IT1*1*1*EA*5", "TDS*500"],
        ),
    );
    assert_eq!(
        mapped(&stray)["unmapped"],
        json!([{"position": 3, "id": "ZZZ", "elements": ["1"]}])
    );
    // Render leaves `unmapped` out, without a warning.
    let r = render("810", &d, &partner(), &options()).unwrap();
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert!(r.document.get("unmapped").is_none());
}

// ---- 2. The standard's designators; one fault once.

#[test]
fn conditional_elements_are_not_mandatory() {
    // IT102/IT103/IT104 are X (P020304): a line without quantity and price is valid.
    let it1 = wrap(
        "IN",
        "004010",
        &set(
            "810",
            &["BIG*20240131*INV1", "IT1*1*****UP*012345678905", "TDS*0"],
        ),
    );
    assert_eq!(summary(&it1), vec![]);
    // PID05 is X (PID requires 04 or 05: R0405).
    for (v, gs01, kind, start, line) in [
        (
            "004010",
            "PO",
            "850",
            "BEG*00*SA*PO1**20240131",
            "PO1*1*1*EA",
        ),
        (
            "005010",
            "PO",
            "850",
            "BEG*00*SA*PO1**20240131",
            "PO1*1*1*EA",
        ),
        ("004010", "IN", "810", "BIG*20240131*INV1", "IT1*1*1*EA*1"),
        (
            "004010",
            "PR",
            "855",
            "BAK*00*AD*PO1*20240131",
            "PO1*1*1*EA",
        ),
    ] {
        let x12 = wrap(gs01, v, &set(kind, &[start, line, "PID*F*08*VI*FL"]));
        let s = summary(&x12);
        assert!(!s.iter().any(|f| f.1 == "PID"), "{kind} {v}: {s:?}");
        // Neither 04 nor 05: R0405, once.
        let x12 = wrap(gs01, v, &set(kind, &[start, line, "PID*F*08"]));
        let s = summary(&x12);
        assert_eq!(
            s.iter().filter(|f| f.1 == "PID").collect::<Vec<_>>(),
            vec![&("ELEMENT_CONDITIONAL_MISSING", "PID".to_string(), Some(4))],
            "{kind} {v}"
        );
    }
}

#[test]
fn one_fault_is_reported_once() {
    // A unit without quantity and price breaks P020304 once, at IT102.
    let x12 = wrap(
        "IN",
        "004010",
        &set("810", &["BIG*20240131*INV1", "IT1*1**EA", "TDS*0"]),
    );
    assert_eq!(
        summary(&x12),
        vec![("ELEMENT_CONDITIONAL_MISSING", "IT1".to_string(), Some(2))]
    );
    // PO102 (X; C0302) in 005010 and 004010: once, not also ELEMENT_MISSING.
    for v in ["004010", "005010"] {
        let x12 = wrap(
            "PO",
            v,
            &set("850", &["BEG*00*SA*PO1**20240131", "PO1*1**EA"]),
        );
        assert_eq!(
            summary(&x12),
            vec![("ELEMENT_CONDITIONAL_MISSING", "PO1".to_string(), Some(2))],
            "{v}"
        );
    }
}

#[test]
fn a_number_that_is_not_one_is_an_invalid_character() {
    // CTT01 is N0: "A" is AK403 6, not a 0-long value.
    let x12 = wrap(
        "PO",
        "004010",
        &set("850", &["BEG*00*SA*PO1**20240131", "PO1*1*1*EA", "CTT*A"]),
    );
    let f = findings(&x12);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].code, Code::ElementInvalidCharacter);
    assert_eq!(f[0].element_code, Some("6"));
}

#[test]
fn a_repetition_in_an_element_that_does_not_repeat() {
    let x12 = wrap(
        "PO",
        "005010",
        &set("850", &["BEG*00*SA*PO1^PO2**20240131", "PO1*1*1*EA"]),
    );
    let f = findings(&x12);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].code, Code::ElementTooManyRepetitions);
    assert_eq!((f[0].element, f[0].element_code), (Some(3), Some("12")));
}

#[test]
fn render_still_requires_what_it_needs() {
    // PO102 is conditional in the standard but render needs the quantity.
    let e = render(
        "850",
        &json!({"purchaseOrderNumber": "PO1", "lines": [{"unitPrice": 1}]}),
        &partner(),
        &options(),
    )
    .unwrap_err();
    assert!(
        e.details().iter().any(|p| p.pointer == "/lines/0/quantity"),
        "{e:?}"
    );
}

// ---- 3. Each version's own structure.

#[test]
fn a_version_without_its_own_structure_gives_warnings_only() {
    // MTX in the N9 loop is 004030 on: an 004030 850 is checked against
    // 004010's structure, and what differs is a warning.
    let body = [
        "BEG*00*SA*PO1**20240131",
        "N9*ZZ*NOTE",
        "MTX**HELLO",
        "PO1*1*1*EA",
    ];
    let x12 = wrap("PO", "004030", &set("850", &body));
    let f = findings(&x12);
    assert!(f.iter().all(|f| f.severity == Severity::Warning), "{f:?}");
    assert_eq!(f[0].code, Code::StructureVersion);
    assert!(f[0].message.contains("004010"), "{}", f[0].message);
    assert!(f.iter().any(|f| f.segment_id == "MTX"), "{f:?}");
    // Through the envelope validator with the structure rules: valid, and no
    // AK3/AK4 (warnings carry no acknowledgement codes).
    let doc = parse(x12.as_bytes());
    let v = x12kit::Validator::new(x12kit::validate::Options::default())
        .with_rules(Box::new(x12kit::validate::Buffered::new(
            documents::StructureRules,
        )))
        .run(&doc);
    assert!(v.is_valid(), "{:?}", v.diagnostics);
    assert!(v.diagnostics.iter().all(|d| d.ack.is_none()));
    // 004010 rejects it (its own structure), 005010 accepts it.
    assert!(
        findings(&wrap("PO", "004010", &set("850", &body)))
            .iter()
            .any(|f| f.severity == Severity::Error && f.segment_id == "MTX")
    );
    assert!(findings(&wrap("PO", "005010", &set("850", &body))).is_empty());
    // Earlier than any declared version: not checked, one warning.
    for v in ["003040", "003050"] {
        let f = findings(&wrap("PO", v, &set("850", &["BEG*00*SA", "ZZZ"])));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            (f[0].code, f[0].severity),
            (Code::StructureVersion, Severity::Warning)
        );
    }
    // 004020 → 004010's; 006020 → 005010's; 753 before 004030 → unchecked.
    assert_eq!(
        documents::coverage("850", "004020"),
        Some(Coverage::Nearest(Edition::Base, "004010"))
    );
    assert_eq!(
        documents::coverage("850", "006020"),
        Some(Coverage::Nearest(Edition::V5010, "005010"))
    );
    assert_eq!(
        documents::coverage("850", "004010VICS"),
        Some(Coverage::Own(Edition::Base))
    );
    assert_eq!(
        documents::coverage("753", "004010"),
        Some(Coverage::Unchecked)
    );
    assert_eq!(
        documents::coverage("753", "004030"),
        Some(Coverage::Own(Edition::Base))
    );
    assert_eq!(documents::coverage("999", "004010"), None);
    // A GS08 that is not a version (GS08_INVALID) is read as 004010, as elsewhere.
    for v in ["4010", "", "X"] {
        assert_eq!(
            documents::coverage("850", v),
            Some(Coverage::Own(Edition::Base)),
            "{v}"
        );
    }
}

// ---- 6. Assigned identifiers stay strings.

#[test]
fn assigned_identifiers_stay_the_strings_received() {
    for (line, want) in [
        ("007", "007"),
        ("A1", "A1"),
        ("001002003", "001002003"),
        ("1", "1"),
    ] {
        let x12 = wrap(
            "PO",
            "004010",
            &set(
                "850",
                &["BEG*00*SA*PO1**20240131", &format!("PO1*{line}*1*EA")],
            ),
        );
        assert_eq!(mapped(&x12)["lines"][0]["lineNumber"], json!(want));
    }
    let x12 = wrap(
        "IN",
        "004010",
        &set("810", &["BIG*20240131*INV1", "IT1*007*1*EA*1", "TDS*100"]),
    );
    assert_eq!(mapped(&x12)["lines"][0]["lineNumber"], json!("007"));
    // Render takes an integer (the service's 850 shape) or a string; the
    // rendered document gives it back as the string mapping back gives.
    for (given, text) in [(json!(7), "7"), (json!("007"), "007")] {
        let payload =
            json!({"purchaseOrderNumber": "PO1", "lines": [{"lineNumber": given, "quantity": 1}]});
        let r = render("850", &payload, &partner(), &options()).unwrap();
        let x12 = String::from_utf8(r.x12.clone()).unwrap();
        assert!(x12.contains(&format!("PO1*{text}*1*EA")), "{x12}");
        assert_eq!(r.document["lines"][0]["lineNumber"], json!(text));
    }
    let e = render(
        "850",
        &json!({"purchaseOrderNumber": "PO1", "lines": [{"lineNumber": 1.5, "quantity": 1}]}),
        &partner(),
        &options(),
    )
    .unwrap_err();
    assert!(
        e.details()
            .iter()
            .any(|p| p.pointer == "/lines/0/lineNumber"
                && p.message.contains("string or an integer")),
        "{e:?}"
    );
    // The schema says exactly that.
    let s = documents::schema::schema("850").unwrap();
    let ln = &s["properties"]["lines"]["items"]["properties"]["lineNumber"];
    assert_eq!(ln["type"], json!(["string", "integer"]));
}

/// Every declared element: JSON numbers only for N and R types.
#[test]
fn numbers_only_for_numeric_types() {
    fn walk(v: &Value, at: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                if let Some(d) = o.get("description").and_then(Value::as_str) {
                    let numeric = o.get("type").is_some_and(|t| {
                        t == "number"
                            || t == "integer"
                            || t.as_array().is_some_and(|a| a.contains(&json!("integer")))
                    });
                    let x12_numeric = d.contains(" (R ") || d.contains(" (N");
                    if numeric && !x12_numeric && !at.ends_with("/position") {
                        out.push(format!("{at}: {d}"));
                    }
                }
                for (k, x) in o {
                    walk(x, &format!("{at}/{k}"), out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, at, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for code in documents::TYPES {
        walk(&documents::schema::schema(code).unwrap(), code, &mut out);
    }
    // The one allowed exception: AN identifiers render also takes as integers.
    out.retain(|s| !s.contains("an assigned identifier"));
    assert!(out.is_empty(), "{out:#?}");
}

// ---- Every segment of every known set is mapped or listed.

/// The string values of a JSON value, as a multiset.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::String(s) => out.push(s.clone()),
        _ => {}
    }
}

/// Checks every set of a declared type in `input`: each body segment is either
/// listed under `unmapped` at its position, or each of its non-empty AN/ID
/// elements that the declaration maps to a field is a string of the
/// document (each string used once). Returns the number of segments checked.
fn check_nothing_dropped(name: &str, input: &[u8]) -> usize {
    let doc = parse(input);
    let mut checked = 0;
    for i in &doc.interchanges {
        for g in &i.groups {
            let version =
                g.gs.as_ref()
                    .map(|gs| String::from_utf8_lossy(gs.value(8)).into_owned())
                    .unwrap_or_default();
            for t in &g.transactions {
                let Some(d) = documents::map_back(&doc, g, t) else {
                    continue;
                };
                let kind = String::from_utf8_lossy(t.kind()).into_owned();
                let listed: Vec<u64> = d["unmapped"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|e| e["position"].as_u64()).collect())
                    .unwrap_or_default();
                let mut pool = Vec::new();
                strings(&d, &mut pool);
                for seg in doc.body(t) {
                    let position = (seg.index() - t.st.index() + 1) as u64;
                    checked += 1;
                    if listed.contains(&position) {
                        continue;
                    }
                    let id = String::from_utf8_lossy(seg.id()).into_owned();
                    let Some(desc) = documents::describe_segment(&kind, &version, &id) else {
                        panic!(
                            "{name}: {kind} segment {id} at {position} is neither mapped nor listed"
                        );
                    };
                    for e in desc["elements"].as_array().into_iter().flatten() {
                        let textual = matches!(e["type"].as_str(), Some("AN" | "ID"));
                        if e["field"].is_null() || !textual {
                            continue;
                        }
                        let pos = e["position"].as_u64().unwrap() as usize;
                        let v = String::from_utf8_lossy(seg.value(pos)).into_owned();
                        // The one value held by a key instead of a field:
                        // the 850's `shipTo?01=ST billTo?01=BT` (N101).
                        let keyed =
                            kind == "850" && id == "N1" && pos == 1 && (v == "ST" || v == "BT");
                        if v.is_empty() || keyed {
                            continue;
                        }
                        match pool.iter().position(|x| *x == v) {
                            Some(k) => {
                                pool.swap_remove(k);
                            }
                            None => panic!(
                                "{name}: {kind} {id}{pos:02} \"{v}\" at position {position} is not in the document, and the segment is not listed:\n{d:#}"
                            ),
                        }
                    }
                }
            }
        }
    }
    checked
}

#[test]
fn nothing_is_dropped_from_the_goldens_and_the_reproductions() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let mut checked = 0;
    for f in std::fs::read_dir(&golden).unwrap() {
        let p = f.unwrap().path();
        checked += check_nothing_dropped(&p.display().to_string(), &std::fs::read(&p).unwrap());
    }
    for x in [
        wrap("IM", "004010", TWO_L1),
        wrap(
            "PO",
            "004010",
            &set(
                "850",
                &[
                    "BEG*00*SA*PO1**20240131",
                    "ITD*01",
                    "ITD*05",
                    "PO1*1*1*EA",
                    "PID*F****A",
                    "PID*F****B",
                ],
            ),
        ),
    ] {
        checked += check_nothing_dropped("reproduction", x.as_bytes());
    }
    assert!(checked > 300, "{checked} segments");
}

#[test]
fn nothing_is_dropped_from_the_corpus() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let mut checked = 0;
    for (name, path) in common::corpus_files(&dir) {
        checked += check_nothing_dropped(&name, &std::fs::read(path).unwrap());
    }
    assert!(checked > 1000, "{checked} segments");
}

// ---- helpers

/// The example partner without its implementation guide's extra fields.
fn partner() -> Partner {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut p: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("examples/partners/acme-retail.json")).unwrap(),
    )
    .unwrap();
    p.as_object_mut().unwrap().remove("requiredFields");
    Partner::from_json(&p.to_string()).unwrap()
}

fn options() -> RenderOptions {
    common::render_options("20261122", "0930", Some(905))
}

fn render_body(code: &str, payload: &Value) -> String {
    let r = render(code, payload, &partner(), &options()).unwrap();
    String::from_utf8(r.x12).unwrap()
}
