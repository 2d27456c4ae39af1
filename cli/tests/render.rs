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

const ORDERS: &str = "/purchaseOrderNumber,/shipTo/id,/lines/*/lineNumber,/lines/*/sku,/lines/*/quantity\r\n\
PO-1,0003947268292,1,WID-100,12\r\nPO-1,,2,WID-200,6\r\nPO-2,0003947268292,1,WID-100,3\r\n";

#[test]
fn render_csv_makes_one_set_per_document_or_lists_every_problem() {
    let args = [
        "render",
        "--type",
        "850",
        "--partner",
        "examples/partners/acme-retail.json",
        "--csv",
        "-",
        "--date",
        "20261122",
        "--time",
        "0930",
    ];
    let o = run(&args, Some(ORDERS));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let x12 = String::from_utf8(o.stdout).unwrap();
    assert_eq!(x12.matches("ST*850*").count(), 2, "{x12}");
    assert!(x12.contains("BEG*00*SA*PO-1**20261122~"), "{x12}");
    assert!(x12.contains("PO1*2*6*EA***SK*WID-200~"), "{x12}");
    assert!(x12.contains("GE*2*1~"), "{x12}");

    // A bad quantity and a missing ship-to of the partner's guide: each at its row, nothing rendered.
    let bad = ORDERS
        .replace(",12\r\n", ",12x\r\n")
        .replace("PO-2,0003947268292", "PO-2,");
    let o = run(&args, Some(&bad));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(o.stdout.is_empty());
    assert!(
        stderr.contains("<stdin>:2: /lines/*/quantity (/lines/0/quantity): INVALID_FIELD"),
        "{stderr}"
    );
    assert!(
        stderr.contains("<stdin>:4: /shipTo/id: MISSING_FIELD"),
        "{stderr}"
    );
    assert!(
        stderr.contains("<stdin>: 2 problems: nothing rendered"),
        "{stderr}"
    );
}

#[test]
fn csv_prints_the_payloads_and_problems_and_exits_1_on_problems() {
    let o = run(&["csv", "--type", "850", "-"], Some(ORDERS));
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["documents"].as_array().unwrap().len(), 2);
    assert_eq!(v["documents"][0]["rows"], serde_json::json!([2, 3]));
    assert_eq!(v["documents"][0]["payload"]["lines"][1]["quantity"], 6);
    assert_eq!(v["problems"], serde_json::json!([]));

    // The same result as the core's JSON, byte for byte (plus a line feed).
    let core = x12kit::ops::payloads_from_csv_json(
        "850",
        ORDERS.as_bytes(),
        &x12kit::ops::CsvOptions::default(),
    )
    .unwrap();
    assert_eq!(o.stdout.strip_suffix(b"\n"), Some(&core[..]));

    let o = run(
        &[
            "csv",
            "-t",
            "850",
            "--partner",
            "examples/partners/acme-retail.json",
            "--pretty",
            "-",
        ],
        Some(&ORDERS.replace(",12\r\n", ",12x\r\n")),
    );
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["problems"][0]["row"], 2);
    assert_eq!(v["problems"][0]["column"], "/lines/*/quantity");
    assert_eq!(v["problems"][0]["code"], "INVALID_FIELD");

    // Semicolons, another key column, and the table, by flags or by --options.
    let semi = ORDERS.replace(',', ";");
    let flags = run(
        &[
            "csv",
            "-t",
            "850",
            "--delimiter",
            ";",
            "--document-key",
            "/purchaseOrderNumber",
            "--table",
            "-",
        ],
        Some(&semi),
    );
    let options = run(
        &[
            "csv",
            "-t",
            "850",
            "--options",
            r#"{"delimiter":";","documentKey":"/purchaseOrderNumber","table":true}"#,
            "-",
        ],
        Some(&semi),
    );
    assert_eq!(
        flags.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&flags.stderr)
    );
    assert_eq!(flags.stdout, options.stdout);
    let v: serde_json::Value = serde_json::from_slice(&flags.stdout).unwrap();
    assert_eq!(v["table"].as_array().unwrap().len(), 3);

    // An unusable call: the core's code, exit 1; options that are no options: exit 2.
    let o = run(&["csv", "-t", "851", "-"], Some(ORDERS));
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("UNKNOWN_DOCUMENT_TYPE"));
    let o = run(
        &["csv", "-t", "850", "--options", r#"{"separator":";"}"#, "-"],
        Some(ORDERS),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("INVALID_OPTIONS /separator"));
}

#[test]
fn schema_csv_template_starts_with_the_reference() {
    for (ty, first) in [("850", "/purchaseOrderNumber"), ("810", "/invoiceNumber")] {
        let o = run(&["schema", ty, "--csv-template"], None);
        assert_eq!(o.status.code(), Some(0));
        let line = String::from_utf8(o.stdout).unwrap();
        assert!(line.ends_with('\n'));
        assert_eq!(line.trim_end().split(',').next(), Some(first));
        assert!(line.contains("/lines/*/"), "{line}");
    }
    assert_eq!(
        run(&["schema", "851", "--csv-template"], None)
            .status
            .code(),
        Some(2)
    );
}

/// `render --guide` and a profile's guides given as paths (read relative to
/// the profile): a payload that breaks the guide is refused at its
/// pointers, exit 1, nothing on stdout; the example payloads keep them.
#[test]
fn render_refuses_what_the_partners_guide_does_not_allow() {
    let dated = ["--date", "20261122", "--time", "0930"];
    let bad = "tests/vectors/payloads/850-breaks-guide.json";
    for how in [
        vec![
            "--partner",
            "examples/partners/acme-retail.json",
            "--guide",
            "examples/guides/acme-retail-850.json",
        ],
        vec!["--partner", "examples/partners/acme-retail-guided.json"],
    ] {
        let mut args = vec!["render", "--type", "850"];
        args.extend(&how);
        args.extend(dated);
        args.push(bad);
        let o = run(&args, None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{how:?}: {err}");
        assert!(o.stdout.is_empty());
        for line in [
            "GUIDE_SEGMENT_NOT_USED /currency:",
            "GUIDE_ELEMENT_TOO_LONG /lines/0/description/text:",
            "GUIDE_CODE_NOT_USED /lines/0/unit:",
            "GUIDE_PATTERN /purchaseOrderNumber:",
        ] {
            assert!(err.contains(line), "{how:?}: {line} in {err}");
        }
    }
    for t in ["204", "810", "850", "856"] {
        let payload = format!("examples/payloads/{t}.json");
        let mut args = vec![
            "render",
            "--type",
            t,
            "--partner",
            "examples/partners/acme-retail-guided.json",
        ];
        args.extend(dated);
        args.push(&payload);
        let o = run(&args, None);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{t}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        // The X12 is the one rendered without the guides.
        let mut plain = vec![
            "render",
            "--type",
            t,
            "--partner",
            "examples/partners/acme-retail.json",
        ];
        plain.extend(dated);
        plain.push(&payload);
        assert_eq!(o.stdout, run(&plain, None).stdout, "{t}");
    }
    // A guide file that is missing: the error names it.
    let o = run(
        &[
            "render",
            "--type",
            "850",
            "--partner",
            "examples/partners/acme-retail.json",
            "--guide",
            "no-such-guide.json",
            "examples/payloads/850.json",
        ],
        None,
    );
    assert_ne!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no-such-guide.json"));
}

/// `schema TYPE --partner`: the core's narrowed schema (the profile's guide
/// paths read), and an unusable profile reported at its path.
#[test]
fn schema_narrowed_for_a_partner() {
    let o = run(
        &[
            "schema",
            "850",
            "--partner",
            "examples/partners/acme-retail-guided.json",
        ],
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        s["properties"]["orderType"]["enum"],
        serde_json::json!(["SA", "NE"])
    );
    assert!(s["properties"].get("currency").is_none());
    // The same as the library's, given the guides inline.
    let inline: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/vectors/partners/acme-guided.json")).unwrap(),
    )
    .unwrap();
    let lib = x12kit::ops::document_schema_for_partner("850", &inline).unwrap();
    assert_eq!(s["properties"], lib["properties"]);
    let o = run(
        &[
            "schema",
            "850",
            "--partner",
            "tests/vectors/partners/bad-guide.json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("INVALID_GUIDE /guides/850/segments/N3"));
}
