//! `x12kit render` and `x12kit schema`: X12 on stdout, errors as a list on
//! stderr with exit code 1, schemas printed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_x12kit"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(s) = stdin {
        // The command may exit before reading its input: a broken pipe is fine.
        let _ = child.stdin.take().unwrap().write_all(s.as_bytes());
    } else {
        drop(child.stdin.take());
    }
    child.wait_with_output().unwrap()
}

#[test]
fn renders_the_golden() {
    let o = run(
        &[
            "render",
            "--type",
            "856",
            "--partner",
            "examples/partners/acme-retail.json",
            "examples/payloads/856.json",
            "--date",
            "20261122",
            "--time",
            "0930",
            "--control-number",
            "905",
            "--group-control-number",
            "905",
        ],
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        o.stdout,
        std::fs::read(root().join("tests/golden/856.x12")).unwrap()
    );
    assert!(o.stderr.is_empty());
}

#[test]
fn errors_are_listed_on_stderr() {
    let o = run(
        &[
            "render",
            "-t",
            "850",
            "-p",
            "examples/partners/acme-retail.json",
            "-",
        ],
        Some(
            r#"{"purchaseOrderNumber": "PO-1", "lines": [{"sku": "A~1", "quantity": "2", "lineNumber": 1}], "shipTo": {"id": "S1"}, "colour": "red"}"#,
        ),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.starts_with("x12kit: <stdin>: INVALID_PAYLOAD: 2 problems\n"),
        "{err}"
    );
    assert!(
        err.contains("  INVALID_FIELD /lines/0/quantity: expected a number, found a string\n"),
        "{err}"
    );
    assert!(err.contains("  CONTAINS_DELIMITER /lines/0/sku: "), "{err}");
    assert!(err.contains("  warning UNKNOWN_FIELD /colour: "), "{err}");
}

#[test]
fn bad_partner_and_json() {
    let o = run(
        &[
            "render",
            "-t",
            "850",
            "-p",
            "examples/payloads/850.json",
            "examples/payloads/850.json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("INVALID_PARTNER"));
    let o = run(
        &[
            "render",
            "-t",
            "850",
            "-p",
            "examples/partners/acme-retail.json",
            "-",
        ],
        Some("{not json"),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("INVALID_JSON"));
    let o = run(
        &["render", "-t", "850", "-p", "no-such-file.json", "-"],
        Some("{}"),
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn warnings_do_not_fail_and_document_mode() {
    let o = run(
        &[
            "render",
            "-t",
            "990",
            "-p",
            "examples/partners/acme-retail.json",
            "--document",
            "-",
        ],
        Some(r#"{"shipmentId": "LT-1", "extra": 1}"#),
    );
    assert_eq!(o.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["shipmentId"], "LT-1");
    assert!(
        doc.get("date").is_some() && doc.get("extra").is_none(),
        "{doc}"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("warning UNKNOWN_FIELD /extra"));
}

#[test]
fn schema_subcommand() {
    let o = run(&["schema", "850"], None);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        o.stdout,
        std::fs::read(root().join("schema/documents/850.schema.json")).unwrap()
    );
    let o = run(&["schema", "partner"], None);
    assert_eq!(
        o.stdout,
        std::fs::read(root().join("schema/partner.schema.json")).unwrap()
    );
    let o = run(&["schema", "851"], None);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn parse_shows_the_document() {
    let o = run(&["parse", "tests/golden/990.x12"], None);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["interchanges"][0]["groups"][0]["transactions"][0]["document"]["shipmentId"],
        "LT-77120"
    );
}
