//! The declared transaction sets: golden renders of the example payloads (004010
//! and 005010), map back and structure validation of every golden, the
//! payload error cases and partner profile rules (the declarations
//! themselves are checked by the core's `declarations_compile_and_resolve`).
//!
//! `X12KIT_BLESS=1` rewrites `tests/golden/` from the current output, for
//! review in `git diff`.

mod common;

use common::render;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use x12kit::documents::{self, TYPES};
use x12kit::{Partner, RenderOptions};
use x12kit::{Problem as Issue, Severity};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn partner() -> Partner {
    Partner::from_json(
        &std::fs::read_to_string(root().join("examples/partners/acme-retail.json")).unwrap(),
    )
    .unwrap()
}

fn partner_5010() -> Partner {
    let mut p = partner();
    p.version = Some("005010".into());
    p.versions.clear();
    p
}

fn example(code: &str) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(root().join(format!("examples/payloads/{code}.json"))).unwrap(),
    )
    .unwrap()
}

fn options() -> RenderOptions {
    common::render_options("20261122", "0930", Some(905))
}

fn golden_path(code: &str, v5010: bool) -> PathBuf {
    root().join(format!(
        "tests/golden/{code}{}.x12",
        if v5010 { "-005010" } else { "" }
    ))
}

fn errors(issues: &[Issue]) -> Vec<(String, String)> {
    issues
        .iter()
        .filter(|i| i.severity == Severity::Error)
        .map(|i| (i.code.to_string(), i.pointer.clone()))
        .collect()
}

fn render_err(code: &str, payload: &Value) -> Vec<Issue> {
    render(code, payload, &partner(), &options())
        .expect_err("the payload should be refused")
        .details()
        .to_vec()
}

#[test]
fn goldens() {
    let bless = std::env::var("X12KIT_BLESS").as_deref() == Ok("1");
    let mut mismatches = Vec::new();
    for code in TYPES {
        for (v5010, p) in [(false, partner()), (true, partner_5010())] {
            let r = render(code, &example(code), &p, &options())
                .unwrap_or_else(|e| panic!("{code} (5010: {v5010}): {e}"));
            // The one example field without a place in 005010: the 214 header
            // references (its 5010 references live in the LX loop).
            let expected_warnings: Vec<&str> = if v5010 && code == "214" {
                vec!["/refs"]
            } else {
                vec![]
            };
            let got: Vec<&str> = r.warnings.iter().map(|w| w.pointer.as_str()).collect();
            assert_eq!(got, expected_warnings, "{code}: {:?}", r.warnings);
            let path = golden_path(code, v5010);
            if bless {
                std::fs::write(&path, &r.x12).unwrap();
                continue;
            }
            let expected = std::fs::read(&path).unwrap_or_else(|_| {
                panic!("{} is missing (X12KIT_BLESS=1 writes it)", path.display())
            });
            if expected != r.x12 {
                mismatches.push(format!(
                    "{}:\n--- expected\n{}\n--- got\n{}",
                    path.display(),
                    String::from_utf8_lossy(&expected),
                    String::from_utf8_lossy(&r.x12)
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// Every golden parses clean, validates clean with x12kit's own structure
/// validation, and maps back to the normalised example payload.
#[test]
fn goldens_parse_validate_and_map_back() {
    for code in TYPES {
        for (v5010, p) in [(false, partner()), (true, partner_5010())] {
            let r = render(code, &example(code), &p, &options()).unwrap();
            let doc = x12kit::parse(&r.x12);
            assert!(doc.diagnostics.is_empty(), "{code}: {:?}", doc.diagnostics);
            let g = &doc.interchanges[0].groups[0];
            let t = &g.transactions[0];
            // x12kit's own envelope validator, with the set structure rules, finds nothing.
            let v = x12kit::Validator::new(x12kit::validate::Options::default())
                .with_rules(Box::new(x12kit::validate::Buffered::new(
                    documents::StructureRules,
                )))
                .run(&doc);
            assert!(
                v.diagnostics.is_empty(),
                "{code} (5010: {v5010}): {:#?}",
                v.diagnostics
            );
            let findings = documents::validate_transaction(&doc, g, t).unwrap();
            assert!(findings.is_empty(), "{code} (5010: {v5010}): {findings:#?}");
            let back = documents::map_back(&doc, g, t).unwrap();
            assert_eq!(back, r.document, "{code} (5010: {v5010})");
            // The JSON parse result carries the same document beside the segments.
            let v = x12kit::to_value(&doc).unwrap();
            assert_eq!(
                v["interchanges"][0]["groups"][0]["transactions"][0]["document"], r.document,
                "{code}"
            );
            // Rendering the mapped document again gives the same X12.
            let again = render(code, &back, &p, &options()).unwrap();
            assert_eq!(again.x12, r.x12, "{code}");
        }
    }
}

#[test]
fn functional_ids_and_versions() {
    let expected = [
        ("850", "PO"),
        ("810", "IN"),
        ("855", "PR"),
        ("856", "SH"),
        ("204", "SM"),
        ("210", "IM"),
        ("211", "BL"),
        ("212", "TM"),
        ("214", "QM"),
        ("753", "RF"),
        ("754", "RG"),
        ("858", "SI"),
        ("940", "OW"),
        ("943", "AR"),
        ("944", "RE"),
        ("945", "SW"),
        ("947", "AW"),
        ("990", "GF"),
    ];
    for (code, gs01) in expected {
        assert_eq!(documents::functional_id(code), Some(gs01), "{code}");
        let r = render(code, &example(code), &partner(), &options()).unwrap();
        let text = String::from_utf8(r.x12).unwrap();
        assert!(text.contains(&format!("\nGS*{gs01}*")), "{code}");
    }
    assert_eq!(documents::since("753"), Some("004030"));
    assert_eq!(documents::since("754"), Some("004030"));
    // 753/754 in 004010 are refused with a clear error.
    let mut p = partner();
    p.versions.clear();
    p.version = Some("004010".into());
    let e = render("753", &example("753"), &p, &options()).unwrap_err();
    assert_eq!(e.code(), "UNSUPPORTED_VERSION");
    assert!(e.to_string().contains("004030"), "{e}");
    // Without any version the partner default for 753 is its first version.
    p.version = None;
    let r = render("754", &example("754"), &p, &options()).unwrap();
    let t = String::from_utf8(r.x12).unwrap();
    assert!(t.contains("*00403*") && t.contains("*X*004030~"), "{t}");
    // 005010: ISA12 00501 and the repetition separator in ISA11.
    let r = render("850", &example("850"), &partner_5010(), &options()).unwrap();
    let t = String::from_utf8(r.x12).unwrap();
    assert!(t.starts_with("ISA*00*          *00*          *ZZ*WIDGETSUPPLY   *01*123456789      *261122*0930*^*00501*000000905*1*T*>~"), "{t}");
}

#[test]
fn spec_shape_850_renders_as_is() {
    // Exactly the shape of the service contract (§2.1), nothing more.
    let payload = json!({
        "purchaseOrderNumber": "PO-1",
        "lines": [{"sku": "A-1", "quantity": 2, "unitPrice": 3.5}]
    });
    let mut p = partner();
    p.required_fields.clear();
    let r = render("850", &payload, &p, &options()).unwrap();
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let t = String::from_utf8(r.x12).unwrap();
    assert!(
        t.contains("\nBEG*00*SA*PO-1**20261122~\nPO1**2*EA*3.5**SK*A-1~\nCTT*1*2~\nSE*5*0001~"),
        "{t}"
    );
    // With shipTo and lineNumber.
    let payload = json!({
        "purchaseOrderNumber": "PO-2",
        "shipTo": {"id": "ST-9", "name": "Store 9"},
        "lines": [{"lineNumber": 1, "sku": "A-1", "quantity": 2, "unitPrice": 3.5},
                  {"lineNumber": 2, "sku": "B-2", "quantity": 1.25, "unitPrice": 10}]
    });
    let r = render("850", &payload, &partner(), &options()).unwrap();
    let t = String::from_utf8(r.x12).unwrap();
    assert!(t.contains("\nN1*ST*Store 9*92*ST-9~\nPO1*1*2*EA*3.5**SK*A-1~\nPO1*2*1.25*EA*10**SK*B-2~\nCTT*2*3.25~"), "{t}");
    assert_eq!(
        r.document["shipTo"],
        json!({"id": "ST-9", "name": "Store 9", "idQualifier": "92"})
    );
    assert_eq!(r.document["orderDate"], "2026-11-22");
}

#[test]
fn all_problems_at_once_with_pointers() {
    let payload = json!({
        "purchaseOrderNumber": "PO-123456789012345678901234",
        "shipTo": {"name": "Café Ünïcode"},
        "lines": [
            {"sku": "A*1", "quantity": "2", "unitPrice": 1},
            {"sku": "B", "unitPrice": 1},
            {"sku": "C", "quantity": 1e300, "unitPrice": 1},
            {"quantity": 1, "unitPrice": 2, "lineNumber": 1.5}
        ],
        "orderDate": "2026-02-30",
        "surprise": true
    });
    let issues = render_err("850", &payload);
    let e = errors(&issues);
    for (code, ptr) in [
        ("TOO_LONG", "/purchaseOrderNumber"),
        ("INVALID_CHARACTER", "/shipTo/name"),
        ("CONTAINS_DELIMITER", "/lines/0/sku"),
        ("INVALID_FIELD", "/lines/0/quantity"),
        ("MISSING_FIELD", "/lines/1/quantity"),
        ("TOO_LONG", "/lines/2/quantity"),
        ("INVALID_FIELD", "/lines/3/lineNumber"),
        ("INVALID_FIELD", "/orderDate"),
        ("MISSING_FIELD", "/lines/0/lineNumber"),
        ("MISSING_FIELD", "/shipTo/id"),
    ] {
        assert!(
            e.contains(&(code.to_string(), ptr.to_string())),
            "{code} {ptr} not in {e:#?}"
        );
    }
    let w: Vec<_> = issues
        .iter()
        .filter(|i| i.severity == Severity::Warning)
        .map(|i| (i.code.as_str(), i.pointer.as_str()))
        .collect();
    assert_eq!(w, [("UNKNOWN_FIELD", "/surprise")]);
    // Messages say what to do.
    let m = issues.iter().find(|i| i.pointer == "/lines/0/sku").unwrap();
    assert!(m.message.contains("element separator"), "{}", m.message);
}

#[test]
fn wrong_shapes_and_empty_arrays() {
    let e = errors(&render_err(
        "850",
        &json!({"purchaseOrderNumber": "P", "lines": []}),
    ));
    assert!(
        e.contains(&("EMPTY_ARRAY".into(), "/lines".into())),
        "{e:?}"
    );
    let e = errors(&render_err("850", &json!({"purchaseOrderNumber": "P"})));
    assert!(
        e.contains(&("MISSING_FIELD".into(), "/lines".into())),
        "{e:?}"
    );
    let e = errors(&render_err(
        "850",
        &json!({"purchaseOrderNumber": 7, "lines": {"sku": "x"}}),
    ));
    assert!(
        e.contains(&("INVALID_FIELD".into(), "/purchaseOrderNumber".into())),
        "{e:?}"
    );
    assert!(
        e.contains(&("INVALID_FIELD".into(), "/lines".into())),
        "{e:?}"
    );
    let e = errors(&render_err("850", &json!([1, 2])));
    assert_eq!(e, [("INVALID_FIELD".to_string(), "/".to_string())]);
    let e = errors(&render_err(
        "850",
        &json!({"purchaseOrderNumber": "P", "lines": [7]}),
    ));
    assert!(
        e.contains(&("INVALID_FIELD".into(), "/lines/0".into())),
        "{e:?}"
    );
    // Implied decimals: more decimals than the element has is an error.
    let mut p = example("210");
    p["netAmountDue"] = json!(10.005);
    let e = errors(&render_err("210", &p));
    assert_eq!(
        e,
        [("INVALID_FIELD".to_string(), "/netAmountDue".to_string())]
    );
    // A code list that is complete is enforced.
    let mut p = example("855");
    p["acknowledgmentType"] = json!("XX");
    let e = errors(&render_err("855", &p));
    assert_eq!(
        e,
        [(
            "INVALID_CODE".to_string(),
            "/acknowledgmentType".to_string()
        )]
    );
    // Too many items for a loop's maximum.
    let mut p = example("990");
    p["refs"] = json!([{"qualifier": "CN", "value": "1"}, {"qualifier": "CN", "value": "2"}]);
    let e = errors(&render_err("990", &p));
    assert_eq!(e, [("TOO_MANY".to_string(), "/refs".to_string())]);
    // Unknown type.
    let e = render("851", &json!({}), &partner(), &options()).unwrap_err();
    assert_eq!(e.code(), "UNKNOWN_DOCUMENT_TYPE");
}

/// For every type, an empty payload reports each field the schema requires.
#[test]
fn empty_payload_lists_every_required_field() {
    let mut p = partner();
    p.required_fields.clear();
    for code in TYPES {
        let schema = documents::schema::schema(code).unwrap();
        let required: Vec<String> = schema["required"].as_array().map_or(Vec::new(), |a| {
            a.iter()
                .map(|v| format!("/{}", v.as_str().unwrap()))
                .collect()
        });
        let e = render(code, &json!({}), &p, &options());
        match e {
            Ok(_) => assert!(
                required.is_empty(),
                "{code}: renders an empty payload but requires {required:?}"
            ),
            Err(e) => {
                let mut got: Vec<String> =
                    errors(e.details()).into_iter().map(|(_, p)| p).collect();
                got.sort();
                got.dedup();
                let mut want = required.clone();
                // Required in 004010 only (B102 became optional in 005010).
                if code == "990" {
                    want.push("/shipmentId".into());
                }
                want.sort();
                assert_eq!(got, want, "{code}: {}", e);
                assert!(
                    e.details().iter().all(|i| i.code == "MISSING_FIELD"),
                    "{code}: {e}"
                );
            }
        }
    }
}

#[test]
fn partner_required_fields() {
    let payload = json!({"purchaseOrderNumber": "P", "lines": [{"sku": "a", "quantity": 1, "lineNumber": 1}, {"sku": "b", "quantity": 1}]});
    let e = errors(&render_err("850", &payload));
    assert_eq!(
        e,
        [
            ("MISSING_FIELD".into(), "/lines/1/lineNumber".into()),
            ("MISSING_FIELD".into(), "/shipTo/id".into())
        ]
    );
    let issues = render_err("850", &payload);
    assert!(
        issues[0].message.contains("acme-retail"),
        "{}",
        issues[0].message
    );
}

#[test]
fn partner_profiles_are_checked() {
    let bad = r#"{"sender": {"qualifier": "ZZZ", "id": "A-VERY-LONG-SENDER-ID"}, "receiver": {"qualifier": "ZZ", "id": "R"},
                 "version": "003040", "delimiters": {"element": "*", "component": "*"}, "requiredFields": {"850": ["lines"]}}"#;
    let e = Partner::from_json(bad).unwrap_err();
    assert_eq!(e.code(), "INVALID_PARTNER");
    let ptrs: Vec<&str> = e.details().iter().map(|i| i.pointer.as_str()).collect();
    for p in [
        "/sender/qualifier",
        "/sender/id",
        "/receiver/applicationCode",
        "/version",
        "/requiredFields/850/0",
        "/delimiters",
    ] {
        assert!(ptrs.contains(&p), "{p} not in {ptrs:?}");
    }
    let e = Partner::from_json(r#"{"sender": {}, "receiver": {}}"#).unwrap_err();
    assert!(e.details()[0].message.contains("missing field"), "{e}");
    let e = Partner::from_json(r#"{"sender": {"qualifier": "ZZ", "id": "S"}, "receiver": {"qualifier": "ZZ", "id": "RR"}, "colour": 1}"#).unwrap_err();
    assert!(e.details()[0].message.contains("colour"), "{e}");
}

#[test]
fn delimiters_of_the_partner_are_used_and_checked() {
    let mut p = partner();
    p.delimiters.element = "|".into();
    p.delimiters.segment = "\n".into();
    p.line_break = String::new();
    let r = render("990", &example("990"), &p, &options()).unwrap();
    let t = String::from_utf8(r.x12.clone()).unwrap();
    assert!(t.contains("\nB1|ABCD|LT-77120|20261122|A\n"), "{t}");
    let doc = x12kit::parse(&r.x12);
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    let mut payload = example("990");
    payload["shipmentId"] = json!("LT|771");
    let e = render("990", &payload, &p, &options()).unwrap_err();
    assert_eq!(
        errors(e.details()),
        [("CONTAINS_DELIMITER".to_string(), "/shipmentId".to_string())]
    );
    // ^ is outside the 004010 character set but fine in 005010 (when not a delimiter).
    payload["shipmentId"] = json!("LT`1");
    let e = render("990", &payload, &partner(), &options()).unwrap_err();
    assert_eq!(
        errors(e.details()),
        [("INVALID_CHARACTER".to_string(), "/shipmentId".to_string())]
    );
    assert!(render("990", &payload, &partner_5010(), &options()).is_ok());
}

#[test]
fn derived_values() {
    // 856: HL numbering and parents, child codes, CTT = number of HL and sum of SN102.
    let r = render("856", &example("856"), &partner(), &options()).unwrap();
    let t = String::from_utf8(r.x12).unwrap();
    let hl: Vec<&str> = t.lines().filter(|l| l.starts_with("HL*")).collect();
    assert_eq!(
        hl,
        [
            "HL*1**S*1~",
            "HL*2*1*O*1~",
            "HL*3*2*P*1~",
            "HL*4*3*I*0~",
            "HL*5*2*P*1~",
            "HL*6*5*I*0~"
        ]
    );
    assert!(t.contains("\nCTT*6*144~"), "{t}");
    // 810: TDS01 in implied-decimal form, defaulting to the sum of the lines.
    let r = render("810", &example("810"), &partner(), &options()).unwrap();
    let t = String::from_utf8(r.x12).unwrap();
    assert!(t.contains("\nTDS*144096~\nCTT*2*144~"), "{t}");
    assert_eq!(r.document["total"], json!(1440.96));
    // 210: B307 and L305 are N2; L305 defaults to the sum of the L104 charges.
    let r = render("210", &example("210"), &partner(), &options()).unwrap();
    let t = String::from_utf8(r.x12).unwrap();
    assert!(t.contains("*126540*"), "{t}");
    assert!(t.contains("\nL3*18250*G***126540******22~"), "{t}");
    // SE01 counts ST..SE.
    for code in TYPES {
        let r = render(code, &example(code), &partner(), &options()).unwrap();
        let t = String::from_utf8(r.x12).unwrap();
        let segs: Vec<&str> = t.lines().collect();
        let st = segs.iter().position(|s| s.starts_with("ST*")).unwrap();
        let se = segs.iter().position(|s| s.starts_with("SE*")).unwrap();
        assert!(
            segs[se].starts_with(&format!("SE*{}*0001~", se - st + 1)),
            "{code}: {}",
            segs[se]
        );
    }
}

#[test]
fn schemas_are_generated_from_the_declarations() {
    let bless = std::env::var("X12KIT_BLESS").as_deref() == Ok("1");
    for (code, schema) in documents::schema::all() {
        let path = root().join(format!("schema/documents/{code}.schema.json"));
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        if bless {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == text,
            "{} differs from the declaration; run X12KIT_BLESS=1 cargo test -p x12kit --test documents",
            path.display()
        );
        // The example payload is valid against it; an unknown field is not.
        let v = jsonschema::draft202012::new(&schema).unwrap();
        let ex = example(code);
        let errs: Vec<String> = v.iter_errors(&ex).map(|e| e.to_string()).collect();
        assert!(errs.is_empty(), "{code}: {errs:?}");
        let mut bad = ex.clone();
        bad["unknownField"] = json!(1);
        assert!(!v.is_valid(&bad), "{code}");
    }
}

#[test]
fn partner_schema_describes_the_example() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schema/partner.schema.json")).unwrap(),
    )
    .unwrap();
    let v = jsonschema::draft202012::new(&schema).unwrap();
    for f in std::fs::read_dir(root().join("examples/partners")).unwrap() {
        let f = f.unwrap().path();
        let p: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let errs: Vec<String> = v.iter_errors(&p).map(|e| e.to_string()).collect();
        assert!(errs.is_empty(), "{}: {errs:?}", f.display());
        Partner::from_json(&p.to_string()).unwrap();
    }
    assert!(!v.is_valid(&json!({"sender": {"qualifier": "ZZ", "id": "S"}})));
}
