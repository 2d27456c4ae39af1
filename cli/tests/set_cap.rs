//! `--max-set-bytes` on `parse` and `split`: a set over the cap is a
//! `SET_TOO_LARGE` error (exit 1), written without its segments (`parse`,
//! on any number of threads) or left out of the parts (`split`), and the
//! sets after it follow; `--options '{"maxSetBytes": N}'` is the same.

mod common;

use common::{run, stderr, stdout};

const INPUT: &str = "../tests/vectors/inputs/set-too-large.edi";

fn sets(json: &[u8]) -> Vec<(String, usize)> {
    let v: serde_json::Value = serde_json::from_slice(json).unwrap();
    v["interchanges"][0]["groups"][0]["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["controlNumber"].as_str().unwrap().to_string(),
                t["segments"].as_array().unwrap().len(),
            )
        })
        .collect()
}

#[test]
fn parse_cuts_the_set_over_the_cap_and_keeps_the_others() {
    let whole = run(&["parse", INPUT], b"");
    assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
    assert_eq!(
        sets(&whole.stdout),
        [("0001".into(), 3), ("0002".into(), 14), ("0003".into(), 4)]
    );
    let capped = run(&["parse", "--max-set-bytes", "300", INPUT], b"");
    assert_eq!(capped.status.code(), Some(1), "{}", stderr(&capped));
    assert!(
        stderr(&capped).contains("1 error diagnostic"),
        "{}",
        stderr(&capped)
    );
    assert_eq!(
        sets(&capped.stdout),
        [("0001".into(), 3), ("0002".into(), 0), ("0003".into(), 4)]
    );
    let v: serde_json::Value = serde_json::from_slice(&capped.stdout).unwrap();
    assert_eq!(v["diagnostics"][0]["code"], "SET_TOO_LARGE");
    assert_eq!(v["diagnostics"][0]["segmentId"], "ST");
    // The same bytes on threads, from stdin, and through --options.
    for args in [
        &["parse", "--max-set-bytes", "300", "--threads", "2", INPUT][..],
        &["parse", "--options", r#"{"maxSetBytes": 300}"#, INPUT][..],
    ] {
        let o = run(args, b"");
        assert!(o.stdout == capped.stdout, "{args:?}: {}", stdout(&o));
    }
    let input = std::fs::read(INPUT).unwrap();
    let o = run(&["parse", "--max-set-bytes", "300", "-"], &input);
    assert!(o.stdout == capped.stdout);
    // 0: no cap.
    let o = run(&["parse", "--max-set-bytes", "0", INPUT], b"");
    assert!(o.stdout == whole.stdout);
    // Not a number of bytes: a usage error.
    let o = run(&["parse", "--max-set-bytes", "-5", INPUT], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = run(
        &["parse", "--options", r#"{"maxSetBytes": "big"}"#, INPUT],
        b"",
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("/maxSetBytes"), "{}", stderr(&o));
}

#[test]
fn split_leaves_the_set_over_the_cap_out() {
    let o = run(
        &["split", INPUT, "--out", "-", "--max-set-bytes", "300"],
        b"",
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("SET_TOO_LARGE"), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.matches("ISA*").count(), 2, "{out}");
    assert!(
        out.contains("ST*850*0001") && out.contains("ST*850*0003"),
        "{out}"
    );
    assert!(!out.contains("ST*850*0002"), "{out}");
    let all = run(&["split", INPUT, "--out", "-"], b"");
    assert_eq!(all.status.code(), Some(0), "{}", stderr(&all));
    assert_eq!(stdout(&all).matches("ISA*").count(), 3);
}
