//! End-to-end tests of the `x12kit` binary: outputs, exit codes, stdin.

mod common;

use common::{SAMPLE, SAMPLE_5010, run, stderr, stdout};

#[test]
fn parse_prints_json_and_exits_0_on_clean_input() {
    let o = run(&["parse", SAMPLE], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["interchanges"][0]["groups"][0]["transactions"][1]["controlNumber"],
        "0002"
    );
    assert_eq!(v["diagnostics"], serde_json::json!([]));
    let pretty = run(&["parse", "--pretty", SAMPLE], b"");
    assert!(stdout(&pretty).starts_with("{\n  \"interchanges\""));
}

#[test]
fn parse_maps_known_sets_to_documents_unless_told_not_to() {
    let with = run(&["parse", SAMPLE], b"");
    let v: serde_json::Value = serde_json::from_slice(&with.stdout).unwrap();
    let tx = &v["interchanges"][0]["groups"][0]["transactions"][0];
    assert_eq!(tx["document"]["purchaseOrderNumber"], "PO-2026-0042");
    let without = run(&["parse", "--no-documents", SAMPLE], b"");
    assert_eq!(without.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&without.stdout).unwrap();
    let tx = &v["interchanges"][0]["groups"][0]["transactions"][0];
    assert!(tx.get("document").is_none());
    assert_eq!(tx["segments"][0]["id"], "BEG");
}

/// Several interchanges (004010 and 005010, so their delimiters differ),
/// read from a mapped file or from stdin, on 1 to 4 threads and the default,
/// compact or pretty: the same bytes every time.
#[test]
fn parse_output_is_the_same_on_any_number_of_threads() {
    let mut input = Vec::new();
    for _ in 0..4 {
        input.extend(std::fs::read(SAMPLE).unwrap());
        input.extend(std::fs::read(SAMPLE_5010).unwrap());
    }
    let path = std::env::temp_dir().join(format!("x12kit-threads-{}.edi", std::process::id()));
    std::fs::write(&path, &input).unwrap();
    let file = path.to_str().unwrap();
    for pretty in [false, true] {
        let mut args = vec!["parse"];
        if pretty {
            args.push("--pretty");
        }
        let one = run(&[&args[..], &["--threads", "1", file]].concat(), b"");
        assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
        let v: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
        assert_eq!(v["interchanges"].as_array().map(Vec::len), Some(8));
        // 0: the default's automatic threads, asked for.
        for threads in ["2", "4", "0"] {
            let o = run(&[&args[..], &["--threads", threads, file]].concat(), b"");
            assert!(o.stdout == one.stdout, "{threads} threads, pretty {pretty}");
            let o = run(&[&args[..], &["--threads", threads, "-"]].concat(), &input);
            assert!(
                o.stdout == one.stdout,
                "stdin, {threads} threads, pretty {pretty}"
            );
        }
        let o = run(&[&args[..], &[file]].concat(), b"");
        assert!(o.stdout == one.stdout, "default threads, pretty {pretty}");
    }
    let _ = std::fs::remove_file(&path);
}

#[test]
fn parse_exits_1_on_error_diagnostics_and_names_the_file() {
    let o = run(&["parse", "-"], b"ISA*00*          *00*          *ZZ*A              *ZZ*B              *261122*0930*U*00401*000000001*0*P*>~GS*PO*A*B*20261122*0930*1*X*004010~ST*850*0001~");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("<stdin>: 3 error diagnostics"),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let codes: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["SE_MISSING", "GE_MISSING", "IEA_MISSING"]);
    let o = run(&["parse", "-"], b"{\"not\": \"x12\"}");
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("NOT_X12"));
}

#[test]
fn io_and_usage_errors_exit_2() {
    let o = run(&["parse", "/definitely/not/here.edi"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("/definitely/not/here.edi"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        run(&["inspect", "/definitely/not/here.edi"], b"")
            .status
            .code(),
        Some(2)
    );
    assert_eq!(run(&["frobnicate"], b"").status.code(), Some(2));
}

#[test]
fn write_round_trips_and_normalises_line_breaks() {
    for file in [SAMPLE, SAMPLE_5010] {
        let original = std::fs::read(file).unwrap();
        let json = run(&["parse", file], b"").stdout;
        let back = run(&["write", "-"], &json);
        assert_eq!(back.status.code(), Some(0), "{}", stderr(&back));
        assert_eq!(back.stdout, original);
        let crlf = run(&["write", "--line-break", "crlf"], &json);
        assert_eq!(
            String::from_utf8(crlf.stdout)
                .unwrap()
                .matches("~\r\n")
                .count(),
            original.iter().filter(|&&b| b == b'\n').count()
        );
    }
}

#[test]
fn write_reports_typed_errors() {
    let o = run(&["write"], b"{\"interchanges\": 5}");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o)
            .contains("INVALID_PARSE_RESULT /interchanges: expected an array, found a number"),
        "{}",
        stderr(&o)
    );
    let o = run(&["write"], b"not json");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("INVALID_JSON"));
}

#[test]
fn inspect_prints_an_outline() {
    let o = run(&["inspect", SAMPLE], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("interchange 000000101  ZZ:ACMEBUYER -> ZZ:WIDGETSUPPLY"),
        "{out}"
    );
    assert!(
        out.contains("group 101  PO  ACMEBUYER -> WIDGETSUPPLY  version 004010  2 sets (850 x2)"),
        "{out}"
    );
    assert!(out.contains("set 850 0001  13 segments"), "{out}");
    assert!(
        out.contains("total: 1 interchange, 1 group, 2 transaction sets, 23 segments"),
        "{out}"
    );
    assert!(out.contains("diagnostics: none"));
}

#[test]
fn inspect_summarises_long_groups_and_reports_diagnostics() {
    let mut x12 = String::from(
        "ISA*00*          *00*          *ZZ*A              *ZZ*B              *261122*0930*U*00401*000000001*0*P*>~GS*PO*A*B*20261122*0930*1*X*004010~",
    );
    for i in 0..25 {
        x12.push_str(&format!(
            "ST*850*{i:04}~BEG*00*SA*{i}**20261122~SE*3*{i:04}~"
        ));
    }
    x12.push_str("GE*25*1~");
    let o = run(&["inspect", "--max-sets", "3", "-"], x12.as_bytes());
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("25 sets (850 x25)  (no GE)") || out.contains("25 sets (850 x25)"),
        "{out}"
    );
    assert!(out.contains("… and 22 more sets"), "{out}");
    assert!(out.contains("error IEA_MISSING"), "{out}");
}
