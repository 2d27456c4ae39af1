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
