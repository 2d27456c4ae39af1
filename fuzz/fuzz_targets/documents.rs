//! Fuzzes the reading side of the declared transaction sets: `to_json` with the
//! document mapping on gives JSON, `documents::map_back` of each set, and
//! the structure checks (`documents::diagnostics`, `validate_document`,
//! `validate_transaction`) never panic.
//!
//! The whole input is the X12. Seed the corpus with real interchanges and
//! with the output of rendering `examples/payloads` (see README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use x12kit::JsonOptions;
use x12kit::documents;

fuzz_target!(|data: &[u8]| {
    let doc = x12kit::parse(data);
    let json = x12kit::to_json_with(&doc, &JsonOptions { documents: true, ..Default::default() });
    let _: serde_json::Value =
        serde_json::from_slice(&json).expect("to_json with documents gives JSON");

    let diagnostics = documents::diagnostics(&doc);
    let findings = documents::validate_document(&doc);
    assert_eq!(diagnostics.len(), findings.len());
    for (f, d) in findings.iter().zip(&diagnostics) {
        assert_eq!(d.code, f.code, "{f:?}");
    }
    let _ = serde_json::to_vec(&diagnostics).expect("diagnostics serialize");
    for i in &doc.interchanges {
        for g in &i.groups {
            for t in &g.transactions {
                let known = documents::is_known(t.kind());
                let back = documents::map_back(&doc, g, t);
                let found = documents::validate_transaction(&doc, g, t);
                assert_eq!(back.is_some(), found.is_some());
                if back.is_some() {
                    assert!(known);
                }
            }
        }
    }
});
