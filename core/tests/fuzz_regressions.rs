//! Regression tests for bugs the cargo-fuzz targets (`fuzz/`) found, each
//! with its reproducer inline. A partner profile that `Partner::from_json`
//! accepts must render interchanges that validate clean.

use x12kit::validate::Options;
use x12kit::{Partner, RenderOptions, render};

/// The 990 of the fuzz reproducer (`examples/payloads/990.json`, shortened).
const PAYLOAD_990: &[u8] = br#"{"scac":"ABCD","shipmentId":"LT-77120","date":"2026-11-22","action":"A","refs":[{"qualifier":"CN","value":"PRO-3310021"}]}"#;

fn options() -> RenderOptions {
    RenderOptions {
        timestamp: Some(("20261123".into(), "1200".into())),
        ..Default::default()
    }
}

fn partner_json(sender: &str, receiver: &str, extra: &str) -> String {
    format!(
        r#"{{"sender":{{{sender}}},"receiver":{{{receiver}}},"delimiters":{{"element":"*","component":">","repetition":"^","segment":"~"}}{extra}}}"#
    )
}

fn pointers(text: &str) -> Vec<String> {
    let issues = Partner::from_json(text).expect_err("the profile should be refused");
    assert!(issues.iter().all(|i| i.code == "INVALID_PARTNER"));
    issues.into_iter().map(|i| i.pointer).collect()
}

/// fuzz/render, 2026-11-23: a receiver qualifier of "00" was accepted (any
/// two letters or digits were), and the 990 rendered with ISA07 = 00 failed
/// validation with ISA07_INVALID. The reproducer's partner, shortened.
#[test]
fn partner_qualifiers_are_the_ones_the_validator_accepts() {
    let reproducer: &[u8] = br#"{
  "sender": { "qualifier": "ZZ", "id": "WIDGETSUPPLY", "applicationCode": "WIDGETSUPPLY" },
  "receiver": { "qualifier": "00", "id": "123456789", "applicationCode": "ACMERCRETAIL" },
  "version": "004010",
  "usage": "test",
  "acknowledgementRequested": true,
  "lineBreak": "\n"
}"#;
    let text = std::str::from_utf8(reproducer).unwrap();
    assert_eq!(pointers(text), ["/receiver/qualifier"]);

    // With a qualifier the validator knows, the same profile renders clean.
    let fixed = Partner::from_json(&text.replace(r#""00""#, r#""01""#)).unwrap();
    let payload = serde_json::from_slice(PAYLOAD_990).unwrap();
    let r = render("990", &payload, &fixed, &options()).unwrap();
    let v = x12kit::validate::validate_with(
        &x12kit::parse(&r.x12),
        &Options {
            structure: true,
            ..Default::default()
        },
    );
    assert!(v.diagnostics.is_empty(), "{:#?}", v.diagnostics);

    // The same holds for ISA01 and ISA03.
    let ok = r#""qualifier":"ZZ","id":"A1""#;
    assert_eq!(
        pointers(&partner_json(
            ok,
            ok,
            r#","authorization":{"qualifier":"07"},"security":{"qualifier":"02"}"#
        )),
        ["/authorization/qualifier", "/security/qualifier"]
    );
    // A blank id renders a blank ISA06 (ISA06_INVALID).
    assert_eq!(
        pointers(&partner_json(
            r#""qualifier":"ZZ","id":"   ","applicationCode":"AB""#,
            ok,
            ""
        )),
        ["/sender/id"]
    );
}

/// Found while fixing the above: an id holding a delimiter made the envelope
/// unreadable; one holding the repetition separator did so only from 00402.
#[test]
fn partner_values_must_not_hold_a_delimiter() {
    let ok = r#""qualifier":"ZZ","id":"A1""#;
    assert_eq!(
        pointers(&partner_json(
            r#""qualifier":"ZZ","id":"A~B","applicationCode":"A*B""#,
            ok,
            r#","security":{"qualifier":"01","information":"p>w"}"#
        )),
        [
            "/sender/id",
            "/sender/applicationCode",
            "/security/information"
        ]
    );

    let text = partner_json(r#""qualifier":"ZZ","id":"A^B""#, ok, "");
    let p = Partner::from_json(&text).expect("^ is data in 004010");
    let payload = serde_json::from_slice(PAYLOAD_990).unwrap();
    render("990", &payload, &p, &options()).expect("004010 has no repetition separator");
    let p5 = Partner::from_json(&text.replacen(
        r#""delimiters""#,
        r#""version":"005010","delimiters""#,
        1,
    ))
    .expect("the repetition separator is checked at render time");
    let e = render("990", &payload, &p5, &options()).expect_err("^ is the repetition separator");
    assert_eq!(e.code(), "INVALID_PARTNER");
    assert_eq!(e.issues[0].pointer, "/sender/id");
}

// ---- render: payloads of the 18 types -----------------------------------

use serde_json::{Value, json};
use x12kit::documents::schema::{Shape, shape_ref};
use x12kit::documents::{self, TYPES};

fn example_partner() -> Partner {
    Partner::from_json(include_str!("../../examples/partners/acme-retail.json")).unwrap()
}

/// The example partner in 004010 (004030 for 753/754) or in 005010.
fn partner_for(v5010: bool) -> Partner {
    let mut p = example_partner();
    if v5010 {
        p.version = Some("005010".into());
        p.versions.clear();
    }
    p
}

fn example(code: &str) -> Value {
    let path = format!(
        "{}/../examples/payloads/{code}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every type in both editions: (type, partner, payload shape, example payload).
fn cases() -> Vec<(&'static str, Partner, &'static Shape, Value)> {
    let mut out = Vec::new();
    for code in TYPES {
        for v5010 in [false, true] {
            let p = partner_for(v5010);
            let ed = documents::edition(&p.version_for(code));
            out.push((code, p, shape_ref(code, ed).unwrap(), example(code)));
        }
    }
    out
}

/// Pointers of the objects and arrays the shape has where the payload has
/// their parent (array items: every item the payload has), each with its shape.
fn containers<'s>(s: &'s Shape, v: &Value, at: &str, out: &mut Vec<(String, &'s Shape)>) {
    match (s, v) {
        (Shape::Object(fields, _), Value::Object(o)) => {
            for f in fields {
                let p = format!("{at}/{}", f.name);
                if !matches!(f.shape, Shape::Leaf(_)) {
                    out.push((p.clone(), &f.shape));
                }
                if let Some(x) = o.get(&f.name) {
                    containers(&f.shape, x, &p, out);
                }
            }
        }
        (Shape::Array(inner, _), Value::Array(a)) => {
            for (i, x) in a.iter().enumerate() {
                containers(inner, x, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The payload with the member at `ptr` set to `v` (`None`: removed).
fn with(payload: &Value, ptr: &str, v: Option<Value>) -> Value {
    let mut out = payload.clone();
    let (parent, key) = ptr.rsplit_once('/').unwrap();
    let o = out.pointer_mut(parent).unwrap().as_object_mut().unwrap();
    match v {
        Some(v) => o.insert(key.to_string(), v),
        None => o.remove(key),
    };
    out
}

/// fuzz/render, 2026-11-23: a value of the wrong type where the declaration
/// has an object was ignored: the 810 of the reproducer (shortened) with
/// `"address": "AC05"` rendered without N3/N4, and `Rendered::document`
/// kept `"AC05"`. The encoder read `address/street` through a path lookup
/// that took a string for "absent".
#[test]
fn a_nested_object_of_the_wrong_type_is_refused() {
    let reproducer = br#"{
  "invoiceNumber": "INV-20931",
  "invoiceDate": "2026-11-20",
  "purchaseOrderNumber": "PO-10045",
  "currency": "USD",
  "parties": [
    { "code": "RE", "name": "8WiCo", "idQualifier": "92", "id": "WS01",
      "address": "AC05" }
  ]
}"#;
    let payload: Value = serde_json::from_slice(reproducer).unwrap();
    let e = render("810", &payload, &example_partner(), &options())
        .expect_err("a string is not an address");
    let i = &e.issues[0];
    assert_eq!(
        (i.code, i.pointer.as_str(), i.message.as_str()),
        (
            "INVALID_FIELD",
            "/parties/0/address",
            "expected an object, found a string"
        ),
        "{e}"
    );
    // One error: not also the address fields it would have held.
    assert_eq!(e.issues.len(), 1, "{e}");
}

/// The same for every object and array of every type, both editions: each
/// container the example payload can hold, given a value of another type
/// (or an array given an item that is not an object), is an `INVALID_FIELD`
/// error at its pointer that names the type expected.
#[test]
fn every_object_and_array_of_the_wrong_type_is_refused() {
    let mut checked = 0;
    for (code, partner, shape, payload) in cases() {
        let mut at = Vec::new();
        containers(shape, &payload, "", &mut at);
        for (ptr, s) in at {
            let array = matches!(s, Shape::Array(..));
            let other = if array { json!({}) } else { json!([]) };
            let mut bad = vec![
                (ptr.clone(), json!("oops")),
                (ptr.clone(), json!(7)),
                (ptr.clone(), json!(false)),
                (ptr.clone(), other),
            ];
            if array {
                bad.push((format!("{ptr}/0"), json!(["oops"])));
                bad.push((format!("{ptr}/0"), json!([[]])));
            }
            for (want, v) in bad {
                let p = with(&payload, &ptr, Some(v.clone()));
                let expected = if array && want == ptr {
                    "expected an array"
                } else {
                    "expected an object"
                };
                match render(code, &p, &partner, &options()) {
                    Ok(r) => panic!(
                        "{code} {:?}: {ptr} = {v} renders\n{}",
                        partner.version,
                        String::from_utf8_lossy(&r.x12)
                    ),
                    Err(e) => assert!(
                        e.issues.iter().any(|i| i.code == "INVALID_FIELD"
                            && i.pointer == want
                            && i.message.starts_with(expected)),
                        "{code} {:?}: {ptr} = {v}: no INVALID_FIELD at {want} ({expected}):\n{e}",
                        partner.version
                    ),
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked} cases");
}

/// The set `render` wrote, mapped back.
fn mapped(x12: &[u8]) -> Value {
    let doc = x12kit::parse(x12);
    let g = &doc.interchanges[0].groups[0];
    documents::map_back(&doc, g, &g.transactions[0]).expect("one of the 18")
}

/// Pointers of the number fields (integers and decimals) the payload has.
fn numbers(s: &Shape, v: &Value, at: &str, out: &mut Vec<String>) {
    use x12kit::documents::model::PType;
    match (s, v) {
        (Shape::Object(fields, _), Value::Object(o)) => {
            for f in fields {
                let p = format!("{at}/{}", f.name);
                match (&f.shape, o.get(&f.name)) {
                    (Shape::Leaf(l), Some(_)) if matches!(l.ptype, PType::Int | PType::Num) => {
                        out.push(p)
                    }
                    (s, Some(x)) => numbers(s, x, &p, out),
                    _ => {}
                }
            }
        }
        (Shape::Array(inner, _), Value::Array(a)) => {
            for (i, x) in a.iter().enumerate() {
                numbers(inner, x, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// fuzz/render, 2026-11-23: a negative zero was written as `-0` (W1902 of
/// the reproducer's 947, shortened) while the document said 0, so the
/// mapped document rendered `0`: JSON `-0` reads as the float -0.0, whose
/// decimal text is "-0". X12 numbers have no negative zero.
#[test]
fn negative_zero_renders_as_zero() {
    let reproducer = br#"{
  "date": "2026-11-21",
  "adjustmentNumber": "ADJ-301",
  "parties": [ { "code": "WH", "name": "Central Warehouse", "id": "WH01" } ],
  "adjustments": [
    { "reason": "AA", "quantity": -0, "unit": "CA", "sku": "WID-200" },
    { "reason": "AA", "quantity": 2, "unit": "CA", "sku": "WID-100" }
  ]
}"#;
    let payload: Value = serde_json::from_slice(reproducer).unwrap();
    let r = render("947", &payload, &example_partner(), &options()).unwrap();
    let x12 = String::from_utf8(r.x12.clone()).unwrap();
    assert!(x12.contains("\nW19*AA*0*CA**SK*WID-200~"), "{x12}");
    assert_eq!(r.document["adjustments"][0]["quantity"], json!(0));
    assert_eq!(mapped(&r.x12), r.document);
}

/// The same for every number field of every type, both editions (R, N0,
/// N2 with implied decimals, integers in AN elements, and the totals
/// derived from them): `-0` and `-0.0` render exactly as `0` does.
#[test]
fn every_negative_zero_renders_as_zero() {
    let mut checked = 0;
    for (code, partner, shape, payload) in cases() {
        let mut at = Vec::new();
        numbers(shape, &payload, "", &mut at);
        for ptr in at {
            let zero = render(
                code,
                &with(&payload, &ptr, Some(json!(0))),
                &partner,
                &options(),
            );
            for text in ["-0", "-0.0", "-0e3"] {
                let v: Value = serde_json::from_str(text).unwrap();
                let r = render(code, &with(&payload, &ptr, Some(v)), &partner, &options());
                match (&zero, r) {
                    (Ok(z), Ok(r)) => {
                        assert_eq!(
                            String::from_utf8_lossy(&r.x12),
                            String::from_utf8_lossy(&z.x12),
                            "{code} {:?}: {ptr} = {text}",
                            partner.version
                        );
                        assert_eq!(r.document, z.document, "{code}: {ptr} = {text}");
                        assert_eq!(mapped(&r.x12), r.document, "{code}: {ptr} = {text}");
                    }
                    (Err(z), Err(e)) => assert_eq!(&e, z, "{code}: {ptr} = {text}"),
                    (z, r) => panic!("{code}: {ptr} = 0 gives {z:?}, = {text} gives {r:?}"),
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked} cases");
}
