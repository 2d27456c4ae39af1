//! Runs the parser over every file of the public corpus (`../shared/corpus`,
//! or the directory in `X12KIT_CORPUS`), which is read in place and never
//! copied into the repository.
//!
//! For each file it checks: no panic; the streaming tokenizer with chunk
//! sizes 1, 2, 7 and 4096 yields exactly the whole-buffer tokens; the error
//! and warning codes equal the decision recorded in
//! `tests/corpus-expectations.tsv`; and files without errors write back to
//! their original bytes.
//!
//! `X12KIT_BLESS=1` rewrites the codes columns of the expectations file from
//! the current output (keeping the notes), for review in `git diff`.
//! When the corpus is absent the tests say so and pass, unless
//! `X12KIT_REQUIRE_CORPUS=1` (set by CI), which makes that a failure.

mod common;

use common::{corpus_dir, corpus_files};
use x12kit_syntax::testing::{stream_tokens, whole_tokens};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use x12kit::WriteOptions;

fn expectations_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus-expectations.tsv")
}

/// file -> (errors, warnings, note)
fn read_expectations() -> BTreeMap<String, (String, String, String)> {
    let text = std::fs::read_to_string(expectations_path()).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut c = l.split('\t');
            let f = c.next().unwrap_or_default().to_string();
            let e = c.next().unwrap_or_default().to_string();
            let w = c.next().unwrap_or_default().to_string();
            let n = c.next().unwrap_or_default().to_string();
            (f, (e, w, n))
        })
        .collect()
}

fn codes(doc: &x12kit::Document<'_>, errors: bool) -> String {
    let mut v: Vec<&str> = doc
        .diagnostics
        .iter()
        .filter(|d| d.is_error() == errors)
        .map(|d| d.code.as_str())
        .collect();
    v.sort();
    v.dedup();
    v.join(",")
}

/// The stream tokenizer in chunks of 1, 2, 7 and 4096 bytes yields the
/// whole-buffer tokens of `bytes`.
fn stream_equals_whole(name: &str, bytes: &[u8]) {
    let whole = whole_tokens(bytes);
    for size in [1, 2, 7, 4096] {
        assert!(
            stream_tokens(bytes, &[size]) == whole,
            "{name}: chunk size {size} differs from the whole-buffer tokens"
        );
    }
}

/// The comparison that always runs: every committed input and its variants.
#[test]
fn committed_streaming_equals_whole_buffer() {
    let inputs = common::committed_inputs();
    assert!(inputs.len() > 300, "only {} inputs", inputs.len());
    for (name, bytes) in &inputs {
        stream_equals_whole(name, bytes);
    }
}

#[test]
fn corpus_streaming_equals_whole_buffer() {
    let Some(dir) = corpus_dir() else { return };
    let files = corpus_files(&dir);
    assert!(files.len() > 400, "only {} corpus files found", files.len());
    for (name, path) in files {
        stream_equals_whole(&name, &std::fs::read(&path).unwrap());
    }
}

#[test]
fn corpus_diagnostics_match_expectations_and_clean_files_round_trip() {
    let Some(dir) = corpus_dir() else { return };
    let bless = std::env::var("X12KIT_BLESS").as_deref() == Ok("1");
    let expected = read_expectations();
    let mut lines = vec![
        "# Parser-level outcome decided for each corpus file: error codes, warning codes, and why.".to_string(),
        "# Regenerate the codes with X12KIT_BLESS=1 cargo test -p x12kit --test corpus, then review the diff.".to_string(),
        "# file\terrors\twarnings\tnote".to_string(),
    ];
    let mut failures = Vec::new();
    let mut round_trips = 0;
    for (name, path) in corpus_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let doc = x12kit::parse(&bytes);
        let (errors, warnings) = (codes(&doc, true), codes(&doc, false));
        let json = x12kit::to_json(&doc);
        let value: serde_json::Value = serde_json::from_slice(&json)
            .unwrap_or_else(|e| panic!("{name}: output is not JSON: {e}"));
        // Only bytes that are not UTF-8 cannot come back (JSON holds U+FFFD).
        let lossy = warnings.contains("INVALID_UTF8");
        if errors.is_empty() && !lossy {
            let back = x12kit::write(&value, &WriteOptions::default())
                .unwrap_or_else(|e| panic!("{name}: write failed: {} {e}", e.code()));
            if back != bytes {
                failures.push(format!(
                    "{name}: parse -> write does not reproduce the input"
                ));
            }
            round_trips += 1;
        }
        let note = expected.get(&name).map(|e| e.2.clone()).unwrap_or_default();
        match expected.get(&name) {
            Some((e, w, _)) if *e == errors && *w == warnings => {}
            Some((e, w, _)) => failures.push(format!(
                "{name}: expected errors [{e}] warnings [{w}], got errors [{errors}] warnings [{warnings}]"
            )),
            None => failures.push(format!(
                "{name}: not in tests/corpus-expectations.tsv (got errors [{errors}] warnings [{warnings}])"
            )),
        }
        lines.push(format!("{name}\t{errors}\t{warnings}\t{note}"));
    }
    if bless {
        std::fs::write(expectations_path(), lines.join("\n") + "\n").unwrap();
        return;
    }
    assert!(round_trips > 250, "only {round_trips} files round-tripped");
    assert!(
        failures.is_empty(),
        "{} corpus mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
