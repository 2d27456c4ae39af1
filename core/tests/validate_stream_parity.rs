//! The push validator (`ops::stream_validator`, `StreamValidator`) and
//! `validate_reader` give exactly the whole-document result
//! (`ops::validate_json`), byte for byte, for every vector input and corpus
//! file fed in chunks of 1, 7, 4096 bytes and whole, with and without the
//! set structure, and for generated and damaged interchanges in random
//! chunkings: acknowledgements read (TA1, 997, 999), interchanges whose ISA
//! cannot be parsed recovered, UTF-8 checked across chunk boundaries.

mod common;

use common::{corpus_dir, corpus_files};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use x12kit::ops::{self, ValidateOptions};
use x12kit::validate::Retain;

const SIZES: [usize; 4] = [1, 7, 4096, usize::MAX];

/// The result of the push validator fed `input` in chunks of `size` bytes
/// (in turn from `sizes` when several), as JSON.
fn pushed(input: &[u8], o: &ValidateOptions, sizes: &[usize]) -> Vec<u8> {
    let mut v = ops::stream_validator(o);
    let mut at = 0;
    let mut k = 0;
    while at < input.len() {
        let size = sizes[k % sizes.len()].max(1);
        let end = at.saturating_add(size).min(input.len());
        v.feed(&input[at..end]);
        at = end;
        k += 1;
    }
    v.finish().to_json()
}

fn options() -> Vec<ValidateOptions> {
    [false, true]
        .into_iter()
        .map(|structure| ValidateOptions {
            structure,
            ..ValidateOptions::default()
        })
        .collect()
}

/// Compares every chunking of `input` with the whole result; returns the runs.
fn check(name: &str, input: &[u8]) -> usize {
    let mut runs = 0;
    for o in options() {
        let whole = ops::validate_json(input, &o);
        for size in SIZES {
            let got = pushed(input, &o, &[size]);
            assert!(
                got == whole,
                "{name}, chunks of {size}, structure {}:\nstream {}\nwhole  {}",
                o.structure,
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&whole)
            );
            runs += 1;
        }
        let options = x12kit::validate::Options {
            structure: o.structure,
            ..Default::default()
        };
        let read = x12kit::validate_reader(input, &options).unwrap().to_json();
        assert!(
            read == whole,
            "{name}, validate_reader, structure {}",
            o.structure
        );
    }
    runs
}

fn vector_inputs() -> Vec<(String, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/inputs");
    let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    files.sort();
    files
}

#[test]
fn vector_inputs_stream_equals_whole_validation() {
    let files = vector_inputs();
    assert!(files.len() >= 90, "{} vector inputs", files.len());
    let mut runs = 0;
    for (name, path) in &files {
        runs += check(name, &std::fs::read(path).unwrap());
    }
    assert_eq!(runs, files.len() * SIZES.len() * 2);
    eprintln!("{} vector inputs, {runs} chunked runs equal", files.len());
}

/// The three kinds of input the stream used to get wrong, each still
/// showing what it is about (so the comparison above covers them).
#[test]
fn the_cases_that_differed_are_covered() {
    let read = |n: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/vectors/inputs")
            .join(n);
        std::fs::read(path).unwrap()
    };
    let o = ValidateOptions::default();
    for (name, needle) in [
        (
            "ta1-accepted.edi",
            &br#""acknowledgements":{"interchangeAcks":[{"controlNumber":"000000001""#[..],
        ),
        ("invalid-utf8.edi", br#""code":"INVALID_UTF8""#),
        ("isa16-space.edi", br#""recovered":true"#),
    ] {
        let input = read(name);
        let whole = ops::validate_json(&input, &o);
        assert!(
            whole.windows(needle.len()).any(|w| w == needle),
            "{name}: {}",
            String::from_utf8_lossy(&whole)
        );
        for size in SIZES {
            assert_eq!(
                pushed(&input, &o, &[size]),
                whole,
                "{name} in chunks of {size}"
            );
        }
    }
    // Two warnings, one per invalid byte, the second right after the first.
    let v = ops::validate(&read("invalid-utf8.edi"), &o);
    let utf8: Vec<_> = v
        .diagnostics
        .iter()
        .filter(|d| d.code.as_str() == "INVALID_UTF8")
        .map(|d| d.offset)
        .collect();
    assert_eq!(utf8, [Some(219), Some(220)]);
}

/// The comparison that always runs: every committed input and its variants.
#[test]
fn committed_stream_equals_whole_validation() {
    let inputs = common::committed_inputs();
    assert!(inputs.len() > 300, "only {} inputs", inputs.len());
    let mut runs = 0;
    for (name, input) in &inputs {
        runs += check(name, input);
    }
    assert_eq!(runs, inputs.len() * SIZES.len() * 2);
}

#[test]
fn corpus_stream_equals_whole_validation() {
    let Some(dir) = corpus_dir() else { return };
    let files = corpus_files(&dir);
    assert!(!files.is_empty());
    let mut runs = 0;
    for (name, path) in &files {
        runs += check(name, &std::fs::read(path).unwrap());
    }
    assert_eq!(runs, files.len() * SIZES.len() * 2);
    eprintln!("{} corpus files, {runs} chunked runs equal", files.len());
}

/// `retain` keeps working: with `errors` and `counts` the stream still
/// equals the whole result (acknowledgements and recovered interchanges
/// included).
#[test]
fn retained_summaries_stream_equal_whole_validation() {
    let mut n = 0;
    for (name, path) in vector_inputs() {
        let input = std::fs::read(path).unwrap();
        for retain in [Retain::Errors, Retain::Counts] {
            for structure in [false, true] {
                let o = ValidateOptions {
                    structure,
                    retain,
                    ..Default::default()
                };
                let whole = ops::validate_json(&input, &o);
                for size in [1, 4096] {
                    assert!(
                        pushed(&input, &o, &[size]) == whole,
                        "{name}, {retain:?}, structure {structure}, chunks of {size}"
                    );
                    n += 1;
                }
            }
        }
    }
    assert!(n > 0);
}

const ISA: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~\n";

/// Pieces an interchange is made of: envelopes, acknowledgements, text
/// with non-ASCII characters, invalid UTF-8 and ISAs that cannot be read.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(ISA.as_bytes().to_vec()),
        Just(ISA.replace("*>~", "* ~").into_bytes()),
        Just(ISA.replace('*', "A").into_bytes()),
        Just(ISA.replace("*>~", "*>>~").into_bytes()),
        Just(ISA.replace("*>~", "*~~").into_bytes()),
        Just(ISA.as_bytes()[..40].to_vec()),
        Just(b"GS*FA*SENDER*RECEIVER*20230101*1200*1*X*004010~\n".to_vec()),
        Just(b"GS*PO*SENDER*RECEIVER*20230101*1200*2*X*004010~\n".to_vec()),
        Just(b"ST*997*0001~\nAK1*PO*1~\nAK2*850*0001~\nAK3*N1*2*N1*8~\nAK4*1:2*98*7*X~\nAK5*R*5~\nAK9*R*1*1*0*5~\nSE*9*0001~\n".to_vec()),
        Just(b"ST*999*0002*005010X231A1~\nAK1*PO*1*005010~\nAK2*850*0001~\nIK3*N1*2**8~\nIK4*1**7*X~\nIK5*A~\nAK9*A*1*1*1~\nSE*8*0002~\n".to_vec()),
        Just(b"ST*850*0003~\nBEG*00*SA*PO1**20230101~\nN1*ST*Caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80~\nSE*4*0003~\n".to_vec()),
        Just(b"N1*ST*Caf\xe9*\xff\xfe~\n".to_vec()),
        Just(b"TA1*000000001*230101*1200*A*000~\n".to_vec()),
        Just(b"TA1*000000002*230101*1200*R*022~\n".to_vec()),
        Just(b"GE*1*1~\n".to_vec()),
        Just(b"IEA*1*000000001~\n".to_vec()),
        Just(b"\xef\xbb\xbf".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..6),
    ]
}

fn interchange() -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec(piece(), 1..14),
        proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
    )
        .prop_map(|(pieces, edits)| {
            let mut input: Vec<u8> = pieces.concat();
            for (at, b) in edits {
                if !input.is_empty() {
                    let i = at.index(input.len());
                    input[i] = b;
                }
            }
            input
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn generated_interchanges_stream_equal_whole_validation(
        input in interchange(),
        sizes in proptest::collection::vec(1usize..120, 1..6),
        structure in any::<bool>(),
        retain in prop_oneof![Just(Retain::All), Just(Retain::Errors), Just(Retain::Counts)],
    ) {
        let o = ValidateOptions { structure, retain, ..Default::default() };
        let whole = ops::validate_json(&input, &o);
        for s in [&sizes[..], &[1], &[usize::MAX]] {
            let got = pushed(&input, &o, s);
            prop_assert!(
                got == whole,
                "chunks {:?}:\nstream {}\nwhole  {}",
                s,
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&whole)
            );
        }
    }
}
