//! The error model: every code is documented in `docs/errors.md` (generated
//! from `ErrorCode::ALL`, checked here for drift; `X12KIT_BLESS=1` rewrites
//! it), spelled UPPER_SNAKE, found again by name, and every error serializes
//! to `schema/error.schema.json`.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use x12kit::{DateTime, ErrorCode, ErrorKind, ops};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn docs_errors_md_is_generated_from_the_codes() {
    let path = root().join("docs/errors.md");
    let fresh = x12kit::error::reference_markdown();
    if std::env::var_os("X12KIT_BLESS").is_some() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "docs/errors.md is out of date: run `X12KIT_BLESS=1 cargo test -p x12kit --test errors` and commit it"
    );
}

#[test]
fn codes_are_unique_upper_snake_and_found_by_name() {
    let mut seen = std::collections::HashSet::new();
    for &c in ErrorCode::ALL {
        let s = c.as_str();
        assert!(seen.insert(s), "{s} twice");
        assert!(
            s.bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'),
            "{s}"
        );
        assert_eq!(ErrorCode::from_name(s), Some(c));
        assert!(!c.meaning().trim().is_empty(), "{s} has no meaning");
        // No error code is also a diagnostic code: the two lists never
        // overlap, but for INVALID_UTF8 and the rules of a partner's guide
        // (GUIDE_*), which have one name whether a render finds them in a
        // payload (a problem) or validation in received X12 (a diagnostic).
        assert!(
            x12kit::Code::from_name(s).is_none() || s == "INVALID_UTF8" || s.starts_with("GUIDE_"),
            "{s}"
        );
    }
    assert_eq!(ErrorCode::from_name("NOPE"), None);
    assert_eq!(ErrorCode::Internal.kind(), ErrorKind::Internal);
}

#[test]
fn errors_serialize_to_the_published_schema() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schema/error.schema.json")).unwrap(),
    )
    .unwrap();
    let v = jsonschema::draft202012::new(&schema).unwrap();
    let now = DateTime::from_unix(1_700_000_000);
    let partner: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("examples/partners/acme-retail.json")).unwrap(),
    )
    .unwrap();
    let errors = [
        ops::render(
            "850",
            &json!({"lines": "x"}),
            &partner,
            &Default::default(),
            now,
        )
        .unwrap_err(),
        ops::render("851", &json!({}), &partner, &Default::default(), now).unwrap_err(),
        ops::write_str("{", &Default::default()).unwrap_err(),
        ops::write_json(b"\xff", &Default::default()).unwrap_err(),
        ops::options::<ops::ParseOptions>(json!({"documentz": 1})).unwrap_err(),
        ops::webhook_verify(
            &[b"k"],
            &format!("sha256={}", "0".repeat(64)),
            "1",
            b"",
            &Default::default(),
            1,
        )
        .unwrap_err(),
        DateTime::parse("20231399", "1200").unwrap_err(),
    ];
    for e in &errors {
        let j: Value = serde_json::from_slice(&e.to_json()).unwrap();
        let errs: Vec<String> = v.iter_errors(&j).map(|e| e.to_string()).collect();
        assert!(errs.is_empty(), "{j}: {errs:?}");
        assert_eq!(j["code"], e.code().as_str());
        assert_eq!(j["kind"], e.kind().as_str());
    }
    assert_eq!(errors[0].code(), ErrorCode::InvalidPayload);
    assert_eq!(errors[0].kind(), ErrorKind::Rejected);
    assert!(!errors[0].details().is_empty());
    assert_eq!(errors[3].code(), ErrorCode::InvalidUtf8);
    assert_eq!(errors[4].pointer(), Some("/documentz"));
    assert_eq!(errors[5].code(), ErrorCode::SignatureMismatch);
    assert_eq!(errors[6].pointer(), Some("/date"));
}

#[test]
fn options_are_checked_once_with_their_pointer() {
    let e = ops::options::<ops::AcknowledgeOptions>(json!({"kind": "998"})).unwrap_err();
    assert_eq!(
        (e.code(), e.pointer()),
        (ErrorCode::InvalidOptions, Some("/kind"))
    );
    let e =
        ops::options::<ops::RenderOptions>(json!({"controlNumbers": {"group": -1}})).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidOptions);
    let e = ops::options::<ops::ValidateOptions>(json!([1])).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidOptions);
    let o: ops::AcknowledgeOptions = ops::options(Value::Null).unwrap();
    assert_eq!(o, ops::AcknowledgeOptions::default());
    let o: ops::AcknowledgeOptions =
        ops::options(json!({"kind": "999", "errorsOnly": true, "interchangeControlNumber": 7}))
            .unwrap();
    assert_eq!(
        (o.kind, o.errors_only, o.interchange_control_number),
        (x12kit::AckKind::Fa999, true, 7)
    );
    assert!(
        o.structure,
        "structure defaults to true for acknowledgements"
    );
}

#[test]
fn render_and_acknowledge_take_time_as_a_parameter() {
    // A bad date is a typed error (it used to render an ISA the validator rejects).
    let partner: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("examples/partners/acme-retail.json")).unwrap(),
    )
    .unwrap();
    let payload: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("examples/payloads/850.json")).unwrap(),
    )
    .unwrap();
    let o = ops::RenderOptions {
        date: Some("20231399".into()),
        time: Some("1200".into()),
        ..Default::default()
    };
    let now = DateTime::from_unix(1_700_000_000);
    let e = ops::render("850", &payload, &partner, &o, now).unwrap_err();
    assert_eq!(
        (e.code(), e.pointer()),
        (ErrorCode::InvalidTimestamp, Some("/date"))
    );
    // Without a date, `now` dates the interchange.
    let r = ops::render("850", &payload, &partner, &Default::default(), now).unwrap();
    let text = String::from_utf8(r.x12).unwrap();
    assert!(text.contains("*231114*2213*"), "{text}");
    let v = ops::validate(
        text.as_bytes(),
        &ops::ValidateOptions {
            structure: true,
            ..Default::default()
        },
    );
    assert!(v.is_valid(), "{:?}", v.diagnostics);
    let ack = ops::acknowledge(text.as_bytes(), &Default::default(), now).unwrap();
    assert!(String::from_utf8(ack).unwrap().contains("*231114*2213*"));
}
