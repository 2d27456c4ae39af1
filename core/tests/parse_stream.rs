//! The streaming parse JSON (`json::to_json_stream`, its threaded form
//! `json::to_json_stream_threads`, `ops::parse_json_to_writer`,
//! and `ops::parse_json`, which now holds one interchange at a time) writes
//! exactly what the JSON writer writes from the whole tree
//! (`to_json_with(&parse(input))`, `to_json_writer`), byte for byte, compact
//! and pretty, with and without documents: for every vector input, every
//! corpus file and generated inputs with several interchanges, segments
//! after groups and after IEAs, misplaced segments, a BOM prefix, missing
//! trailers, an unterminated end and invalid UTF-8 across interchanges.

mod common;

use common::{corpus_dir, corpus_files};
use proptest::prelude::*;
use std::path::Path;
use x12kit::json::{JsonOptions, to_json_stream, to_json_stream_threads};
use x12kit::ops::{self, ParseOptions};

/// Checks every streaming entry point against the whole-tree writer.
fn check(name: &str, input: &[u8]) {
    let doc = x12kit::parse(input);
    for documents in [true, false] {
        let o = JsonOptions {
            documents,
            ..Default::default()
        };
        let whole = x12kit::to_json_with(&doc, &o);
        let po = ParseOptions {
            documents,
            ..Default::default()
        };
        assert!(
            ops::parse_json(input, &po) == whole,
            "{name}: parse_json, documents {documents}"
        );
        let mut reused = b"left over".to_vec();
        reused.clear();
        ops::parse_json_into(input, &po, &mut reused);
        assert!(reused == whole, "{name}: parse_json_into");
        let mut streamed = Vec::new();
        let diagnostics = ops::parse_json_to_writer(input, &po, &mut streamed).unwrap();
        assert!(
            streamed == whole,
            "{name}: parse_json_to_writer, documents {documents}"
        );
        assert_eq!(diagnostics, doc.diagnostics, "{name}: diagnostics");
        let mut pretty_whole = Vec::new();
        x12kit::to_json_writer(&doc, &mut pretty_whole, true, &o).unwrap();
        let mut pretty = Vec::new();
        let mut released = Vec::new();
        to_json_stream(input, &mut pretty, true, &o, &mut |at| released.push(at)).unwrap();
        assert!(
            pretty == pretty_whole,
            "{name}: pretty, documents {documents}"
        );
        // One release per interchange, in order, within the input.
        assert_eq!(released.len(), doc.interchanges.len(), "{name}");
        assert!(released.windows(2).all(|w| w[0] <= w[1]), "{name}");
        assert!(released.iter().all(|&r| r <= input.len()), "{name}");
        // On worker threads: the same bytes and releases, in input order.
        for threads in [2, 3, x12kit::json::AUTO_THREADS] {
            for (pretty, expected) in [(false, &whole), (true, &pretty_whole)] {
                let mut out = Vec::new();
                let mut on_threads = Vec::new();
                let d = to_json_stream_threads(input, &mut out, pretty, &o, threads, &mut |at| {
                    on_threads.push(at)
                })
                .unwrap();
                assert!(
                    out == *expected,
                    "{name}: {threads} threads, pretty {pretty}, documents {documents}"
                );
                assert_eq!(d, doc.diagnostics, "{name}");
                assert_eq!(on_threads, released, "{name}");
            }
        }
    }
}

#[test]
fn vector_inputs_stream_equals_the_whole_tree() {
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/inputs")];
    let mut n = 0;
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            check(&p.display().to_string(), &std::fs::read(&p).unwrap());
            n += 1;
        }
    }
    assert!(n > 10, "{n} inputs");
}

/// The comparison that always runs: every committed input and its variants.
#[test]
fn committed_stream_equals_the_whole_tree() {
    let inputs = common::committed_inputs();
    assert!(inputs.len() > 300, "only {} inputs", inputs.len());
    for (name, input) in &inputs {
        check(name, input);
    }
}

#[test]
fn corpus_stream_equals_the_whole_tree() {
    let Some(dir) = corpus_dir() else { return };
    let files = corpus_files(&dir);
    assert!(!files.is_empty());
    for (name, path) in &files {
        check(name, &std::fs::read(path).unwrap());
    }
    eprintln!("{} corpus files equal", files.len());
}

#[test]
fn write_errors_reach_the_caller() {
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let input = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/inputs/850-basic.edi"),
    )
    .unwrap();
    let e = ops::parse_json_to_writer(&input, &ParseOptions::default(), Broken).unwrap_err();
    assert_eq!(e.to_string(), "disk full");
    let e = to_json_stream_threads(
        &input,
        Broken,
        false,
        &JsonOptions::default(),
        2,
        &mut |_| {},
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "disk full");
}

const ISA: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~\n";

/// The shared pieces (x12kit_syntax::testing::envelope_pieces) with this test's own, and
/// a few random bytes, each as likely as any one piece.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    let pieces = x12kit_syntax::testing::envelope_pieces(&[
        ISA.replace('*', "A").as_bytes(),
        b"ST*850*0003~\nBEG*00*SA*PO1**20230101~\nN1*ST*Caf\xc3\xa9 \"q\" \\ \xe2\x82\xac~\nSE*4*0003~\n",
        b"\xe2\x82",
    ]);
    let n = pieces.len() as u32;
    prop_oneof![
        n => proptest::sample::select(pieces),
        1 => proptest::collection::vec(any::<u8>(), 0..6),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn generated_inputs_stream_equal_the_whole_tree(
        pieces in proptest::collection::vec(piece(), 1..24),
    ) {
        check("generated", &pieces.concat());
    }
}
