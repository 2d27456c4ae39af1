//! `ops::transaction_document_json` (and `documents::document_json` under
//! it), the per-set document a binding's lazy accessor hands out, against
//! the `document` of the same set inside `ops::parse_json`'s output: byte
//! for byte (so the same keys, in the same order, with the same values),
//! absent exactly where the parse result has none. Inputs: every X12 input
//! of the cross-language vectors and every file of the corpus (skipped, and
//! said so, without the corpus; a failure with `X12KIT_REQUIRE_CORPUS=1`).

mod common;

use common::{corpus_dir, corpus_files};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use x12kit::{ErrorCode, ops};

/// Where the JSON value starting at `b[i]` (no leading space: the core
/// writes compact JSON) ends.
fn value_end(b: &[u8], mut i: usize) -> usize {
    match b[i] {
        b'"' => {
            i += 1;
            while b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i + 1
        }
        b'{' | b'[' => {
            let mut depth = 0usize;
            loop {
                match b[i] {
                    b'"' => {
                        i = value_end(b, i);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            while i < b.len() && !matches!(b[i], b',' | b']' | b'}') {
                i += 1;
            }
            i
        }
    }
}

/// The members of a compact JSON object, in order, each value as its text.
fn members(b: &[u8]) -> Vec<(String, &[u8])> {
    assert_eq!(b[0], b'{');
    let mut out = Vec::new();
    let mut i = 1;
    while b[i] != b'}' {
        let k_end = value_end(b, i);
        let key: String = serde_json::from_slice(&b[i..k_end]).expect("a key");
        assert_eq!(b[k_end], b':');
        let v_end = value_end(b, k_end + 1);
        out.push((key, &b[k_end + 1..v_end]));
        i = v_end;
        if b[i] == b',' {
            i += 1;
        }
    }
    out
}

/// The items of a compact JSON array, each as its text.
fn items(b: &[u8]) -> Vec<&[u8]> {
    assert_eq!(b[0], b'[');
    let mut out = Vec::new();
    let mut i = 1;
    while b[i] != b']' {
        let end = value_end(b, i);
        out.push(&b[i..end]);
        i = end;
        if b[i] == b',' {
            i += 1;
        }
    }
    out
}

fn member<'a>(b: &'a [u8], key: &str) -> Option<&'a [u8]> {
    members(b)
        .into_iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
}

/// Compares every set of `input`; returns how many documents were compared.
fn check(name: &str, input: &[u8]) -> usize {
    let json = ops::parse_json(input, &ops::ParseOptions::default());
    // The splitter above reads the same values serde_json reads.
    let whole: Value = serde_json::from_slice(&json).expect("the parse result is JSON");
    let doc = x12kit::parse(input);
    let mut compared = 0;
    let ics = items(member(&json, "interchanges").expect("interchanges"));
    assert_eq!(ics.len(), doc.interchanges.len(), "{name}: interchanges");
    for (i, (ic_json, ic)) in ics.iter().zip(&doc.interchanges).enumerate() {
        let groups = items(member(ic_json, "groups").expect("groups"));
        assert_eq!(groups.len(), ic.groups.len(), "{name}: groups of {i}");
        for (g, (g_json, grp)) in groups.iter().zip(&ic.groups).enumerate() {
            let sets = items(member(g_json, "transactions").expect("transactions"));
            assert_eq!(
                sets.len(),
                grp.transactions.len(),
                "{name}: sets of {i}/{g}"
            );
            for (t, t_json) in sets.iter().enumerate() {
                let want = member(t_json, "document");
                let got = ops::transaction_document_json(&doc, i, g, t)
                    .unwrap_or_else(|e| panic!("{name}: {i}/{g}/{t}: {e}"));
                assert_eq!(
                    got.as_deref(),
                    want,
                    "{name}: set {i}/{g}/{t}: {} vs {}",
                    String::from_utf8_lossy(got.as_deref().unwrap_or(b"(none)")),
                    String::from_utf8_lossy(want.unwrap_or(b"(none)")),
                );
                if let Some(w) = want {
                    let pointer = format!("/interchanges/{i}/groups/{g}/transactions/{t}/document");
                    let parsed: Value = serde_json::from_slice(w).expect("a document is JSON");
                    assert_eq!(Some(&parsed), whole.pointer(&pointer), "{name}: {pointer}");
                    compared += 1;
                }
            }
        }
    }
    compared
}

#[test]
fn every_vector_input_gives_the_documents_of_its_parse_result() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(root.join("manifest.json")).unwrap()).unwrap();
    let inputs: BTreeSet<String> = manifest["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            matches!(
                c["op"].as_str(),
                Some("parse" | "validate" | "acknowledge" | "readAcknowledgement")
            )
        })
        .filter_map(|c| c["args"]["input"].as_str().map(str::to_string))
        .collect();
    assert!(inputs.len() > 50, "{} inputs", inputs.len());
    let mut compared = 0;
    for rel in &inputs {
        let input = std::fs::read(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        compared += check(rel, &input);
    }
    eprintln!(
        "{compared} documents of {} vector inputs compared",
        inputs.len()
    );
    assert!(compared >= 100, "only {compared} documents compared");
}

#[test]
fn every_corpus_file_gives_the_documents_of_its_parse_result() {
    let Some(dir) = corpus_dir() else { return };
    let files = corpus_files(&dir);
    assert!(
        !files.is_empty(),
        "the corpus at {} is empty",
        dir.display()
    );
    let mut compared = 0;
    for (name, path) in &files {
        compared += check(name, &std::fs::read(path).unwrap());
    }
    eprintln!(
        "{compared} documents of {} corpus files compared",
        files.len()
    );
    assert!(compared >= 120, "only {compared} documents compared");
}

#[test]
fn sets_without_a_document_and_indices_out_of_range() {
    let x12 = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*3*0001~ST*999*0002~AK1*PO*1~SE*3*0002~GE*2*1~IEA*1*000000001~";
    let doc = x12kit::parse(x12);
    let d = ops::transaction_document_json(&doc, 0, 0, 0).unwrap();
    assert_eq!(
        d.as_deref(),
        Some(&br#"{"purpose":"00","orderType":"SA","purchaseOrderNumber":"PO-1","orderDate":"2023-01-01"}"#[..])
    );
    // A 999 is not a declared set: no document, as in the parse result.
    assert_eq!(ops::transaction_document_json(&doc, 0, 0, 1).unwrap(), None);
    for (i, g, t, says) in [
        (1, 0, 0, "no interchange 1: the parse result has 1"),
        (0, 1, 0, "no group 1: the parse result has 1"),
        (0, 0, 2, "no transaction set 2: the parse result has 2"),
    ] {
        let e = ops::transaction_document_json(&doc, i, g, t).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert!(e.to_string().contains(says), "{e}");
    }
}
