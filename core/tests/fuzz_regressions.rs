//! Regression tests for bugs the cargo-fuzz targets (`fuzz/`) found, each
//! with its reproducer inline. A partner profile that `Partner::from_json`
//! accepts must render interchanges that validate clean.

mod common;

use common::render;
use x12kit::validate::Options;
use x12kit::{Partner, RenderOptions};

/// The 990 of the fuzz reproducer (`examples/payloads/990.json`, shortened).
const PAYLOAD_990: &[u8] = br#"{"scac":"ABCD","shipmentId":"LT-77120","date":"2026-11-22","action":"A","refs":[{"qualifier":"CN","value":"PRO-3310021"}]}"#;

fn options() -> RenderOptions {
    common::render_options("20261123", "1200", None)
}

fn partner_json(sender: &str, receiver: &str, extra: &str) -> String {
    format!(
        r#"{{"sender":{{{sender}}},"receiver":{{{receiver}}},"delimiters":{{"element":"*","component":">","repetition":"^","segment":"~"}}{extra}}}"#
    )
}

fn pointers(text: &str) -> Vec<String> {
    let e = Partner::from_json(text).expect_err("the profile should be refused");
    assert_eq!(e.code(), "INVALID_PARTNER");
    e.details().iter().map(|i| i.pointer.clone()).collect()
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
    assert_eq!(e.details()[0].pointer, "/sender/id");
}

// ---- render: payloads of the declared types ----------------------------

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
    let i = &e.details()[0];
    assert_eq!(
        (i.code.as_str(), i.pointer.as_str(), i.message.as_str()),
        (
            "INVALID_FIELD",
            "/parties/0/address",
            "expected an object, found a string"
        ),
        "{e}"
    );
    // One error: not also the address fields it would have held.
    assert_eq!(e.details().len(), 1, "{e}");
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
                        e.details().iter().any(|i| i.code == "INVALID_FIELD"
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
    documents::map_back(&doc, g, &g.transactions[0]).expect("a declared type")
}

/// Pointers of the number fields (integers and decimals) the payload has.
fn numbers(s: &Shape, v: &Value, at: &str, out: &mut Vec<String>) {
    use x12kit::documents::PType;
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

/// `Rendered::document` is what map back gives, and renders the same X12.
fn assert_round_trip(code: &str, partner: &Partner, r: &x12kit::Rendered, what: &str) {
    let x12 = String::from_utf8_lossy(&r.x12);
    assert_eq!(mapped(&r.x12), r.document, "{code}: {what}\n{x12}");
    let again = render(code, &r.document, partner, &options())
        .unwrap_or_else(|e| panic!("{code}: {what}: the document does not render: {e}"));
    assert_eq!(String::from_utf8_lossy(&again.x12), x12, "{code}: {what}");
}

/// fuzz/render, 2026-11-23: members render treats as absent (null, `{}`,
/// `[]`, objects that hold nothing else) were kept in `Rendered::document`
/// while map back leaves them out: the reproducer's 810 (shortened) has an
/// address holding only unknown fields, which are dropped with a warning,
/// leaving `"address": {}` in the document.
#[test]
fn empty_members_are_left_out_of_the_document() {
    let reproducer = br#"{
  "invoiceNumber": "INV-20931",
  "invoiceDate": "2026-11-20",
  "currency": "USD",
  "parties": [
    { "code": "RE", "name": "Widget Supply Co", "idQualifier": "92", "id": "WS01",
      "address": { "stteet": "400 Industrial Pkwy", "curocy": "US" } }
  ],
  "refs": [],
  "terms": { "description": null },
  "lines": [
    { "lineNumber": "1", "quantity": 120, "unitPrice": 9.25, "sku": "WID-100",
      "description": {}, "productIds": [], "upc": null }
  ]
}"#;
    let payload: Value = serde_json::from_slice(reproducer).unwrap();
    let p = example_partner();
    let r = render("810", &payload, &p, &options()).unwrap();
    assert_eq!(
        r.document,
        json!({
            "invoiceNumber": "INV-20931",
            "invoiceDate": "2026-11-20",
            "currency": "USD",
            "parties": [{ "code": "RE", "name": "Widget Supply Co", "idQualifier": "92", "id": "WS01" }],
            // An identifier given as an integer is its digits (PO101/IT101 are AN).
            "lines": [{ "lineNumber": "1", "quantity": 120, "unit": "EA", "unitPrice": 9.25, "sku": "WID-100" }],
            "total": 1110
        })
    );
    assert_round_trip("810", &p, &r, "the reproducer");
    let x12 = String::from_utf8_lossy(&r.x12);
    assert!(!x12.contains("\nITD") && !x12.contains("\nPID"), "{x12}");
}

/// Found with the above: a mandatory loop given an object that holds
/// nothing (the 212's `status` of the fuzz reproducer held only unknown
/// fields) was rendered as an empty segment, `AT7~`, which X12 does not
/// allow (a segment has at least one element; X12.6 §3.7, X12 RFI 22) and
/// which mapped back to `"status": {}`. It is now the error of a missing
/// loop; and a segment that would be empty otherwise (its loop rendered
/// for its other segments, or an array item) is a MISSING_FIELD error too.
#[test]
fn a_mandatory_segment_given_nothing_is_missing() {
    let p = example_partner();
    let payload = json!({
        "scac": "ABCD",
        "manifestNumber": "MAN-2026-1125-04",
        "status": { "y": "Columbus", "snate": "OH" }
    });
    let e = render("212", &payload, &p, &options()).expect_err("AT7 is mandatory");
    let errors: Vec<(&str, &str)> = e
        .details()
        .iter()
        .filter(|i| i.severity == x12kit::Severity::Error)
        .map(|i| (i.code.as_str(), i.pointer.as_str()))
        .collect();
    assert_eq!(errors, [("MISSING_FIELD", "/status")], "{e}");
    for status in [json!({}), json!({ "code": null }), json!({ "dates": [] })] {
        let e = render(
            "212",
            &with(&payload, "/status", Some(status)),
            &p,
            &options(),
        )
        .expect_err("AT7 is mandatory");
        assert_eq!(e.details()[0].pointer, "/status", "{e}");
    }

    // The AT7 loop rendered for its G62, with nothing for the AT7 itself.
    let e = render(
        "212",
        &with(
            &payload,
            "/status",
            Some(json!({ "dates": [{ "qualifier": "10", "date": "2026-11-25" }] })),
        ),
        &p,
        &options(),
    )
    .expect_err("an empty AT7");
    let i = &e.details()[0];
    assert_eq!(
        (i.code.as_str(), i.pointer.as_str()),
        ("MISSING_FIELD", "/status/code"),
        "{e}"
    );
    assert!(i.message.contains("AT7"), "{e}");
    // An array item holding nothing for a segment of optional elements.
    let e = render(
        "212",
        &with(
            &payload,
            "/status",
            Some(json!({ "code": "X1", "dates": [{}] })),
        ),
        &p,
        &options(),
    )
    .expect_err("an empty G62");
    let i = &e.details()[0];
    assert_eq!(
        (i.code.as_str(), i.pointer.as_str()),
        ("MISSING_FIELD", "/status/dates/0/qualifier"),
        "{e}"
    );
    // 214 in 005010: the AT7 loop is mandatory in each LX.
    let e = render(
        "214",
        &json!({ "scac": "ABCD", "events": [{ "city": "Reno" }] }),
        &partner_for(true),
        &options(),
    )
    .expect_err("an empty AT7");
    assert_eq!(e.details()[0].pointer, "/events/0/status", "{e}");
}

/// Every type, both editions: each object or array the example payload
/// can hold, given an empty value (null, `{}` or `[]`, an object of nulls,
/// an object holding an empty object or array), renders exactly as the
/// payload without it (the same X12 and document, or the same errors), and
/// the document is what map back gives.
#[test]
fn every_empty_member_is_absent() {
    let mut checked = 0;
    for (code, partner, shape, payload) in cases() {
        let mut at = Vec::new();
        containers(shape, &payload, "", &mut at);
        for (ptr, s) in at {
            let mut empties = vec![json!(null)];
            match s {
                Shape::Array(..) => empties.push(json!([])),
                Shape::Object(fields, _) => {
                    empties.push(json!({}));
                    if let Some(f) = fields.iter().find(|f| matches!(f.shape, Shape::Leaf(_))) {
                        empties.push(json!({ f.name.clone(): null }));
                    }
                    for f in fields {
                        match f.shape {
                            Shape::Object(..) => empties.push(json!({ f.name.clone(): {} })),
                            Shape::Array(..) => empties.push(json!({ f.name.clone(): [] })),
                            Shape::Leaf(_) => {}
                        }
                    }
                }
                Shape::Leaf(_) => unreachable!(),
            }
            let without = render(code, &with(&payload, &ptr, None), &partner, &options());
            for v in empties {
                let what = format!("{:?}: {ptr} = {v}", partner.version);
                let r = render(
                    code,
                    &with(&payload, &ptr, Some(v.clone())),
                    &partner,
                    &options(),
                );
                match (&without, r) {
                    (Ok(w), Ok(r)) => {
                        assert_eq!(
                            String::from_utf8_lossy(&r.x12),
                            String::from_utf8_lossy(&w.x12),
                            "{code} {what}"
                        );
                        assert_eq!(r.document, w.document, "{code} {what}");
                        assert_round_trip(code, &partner, &r, &what);
                    }
                    (Err(w), Err(e)) => {
                        // A mandatory array given [] is EMPTY_ARRAY rather than MISSING_FIELD.
                        let errors = |e: &x12kit::Error| -> Vec<String> {
                            e.details()
                                .iter()
                                .filter(|i| i.severity == x12kit::Severity::Error)
                                .map(|i| i.pointer.clone())
                                .collect()
                        };
                        assert_eq!(errors(&e), errors(w), "{code} {what}:\n{e}\nwithout:\n{w}");
                    }
                    (w, r) => panic!("{code} {what}: gives {r:?}\nwithout: {w:?}"),
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked} cases");
}
