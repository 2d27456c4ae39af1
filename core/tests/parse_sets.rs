//! The parse JSON written a transaction set at a time
//! (`x12kit_syntax::sets::parse_sets` under `json::to_json_stream`) is the
//! whole-tree writer's, byte for byte, whatever the point at which an
//! interchange stops being held and is streamed (`hold` 0, 1, 2, 5 body
//! segments), on this thread and on 1-3 workers: every committed input and its variants, every vector input,
//! every corpus file, and generated inputs with misplaced segments inside
//! and after groups, after IEAs, implicit groups, missing trailers and
//! changes of delimiters and line breaks.

mod common;

use common::{corpus_dir, corpus_files};
use proptest::prelude::*;
use x12kit::SetCap;
use x12kit::json::{
    EachSetFeeder, JsonOptions, to_json_stream_holding, to_json_stream_threads_holding,
};

fn check(name: &str, input: &[u8]) {
    check_capped(name, input, SetCap::default());
}

/// [`check`] with a cap on one set (`maxSetBytes`): every path gives the
/// whole tree's JSON of the capped parse, and `parse_json` (one
/// interchange at a time) too.
fn check_capped(name: &str, input: &[u8], cap: SetCap) {
    let doc = x12kit::parse_capped(input, cap);
    for documents in [true, false] {
        let o = JsonOptions {
            documents,
            max_set_bytes: cap,
        };
        assert!(
            x12kit::ops::parse_json(input, &o) == x12kit::to_json_with(&doc, &o),
            "{name}: parse_json, cap {cap:?}"
        );
        for pretty in [false, true] {
            let mut whole = Vec::new();
            x12kit::to_json_writer(&doc, &mut whole, pretty, &o).unwrap();
            for hold in [0, 1, 2, 5] {
                let mut out = Vec::new();
                let mut released = Vec::new();
                let d = to_json_stream_holding(input, &mut out, pretty, &o, hold, &mut |at| {
                    released.push(at)
                })
                .unwrap();
                assert!(
                    out == whole,
                    "{name}: hold {hold}, pretty {pretty}, documents {documents}\n{}\n{}",
                    String::from_utf8_lossy(&out),
                    String::from_utf8_lossy(&whole)
                );
                assert_eq!(d, doc.diagnostics, "{name}: hold {hold}");
                assert!(released.windows(2).all(|w| w[0] <= w[1]), "{name}");
                assert!(released.iter().all(|&r| r <= input.len()), "{name}");
                assert!(released.len() >= doc.interchanges.len(), "{name}");
                for (threads, auto) in [(1, false), (2, false), (3, false), (2, true)] {
                    let mut out = Vec::new();
                    let d = to_json_stream_threads_holding(
                        input,
                        &mut out,
                        pretty,
                        &o,
                        threads,
                        auto,
                        hold,
                        &mut |_| {},
                    )
                    .unwrap();
                    assert!(
                        out == whole,
                        "{name}: {threads} threads, auto {auto}, hold {hold}"
                    );
                    assert_eq!(d, doc.diagnostics, "{name}: {threads} threads");
                }
            }
        }
        each_set(name, input, &doc, &o);
    }
}

/// `each_set_json` hands over every set of the parse result, in order, as
/// the parse JSON's set object with its interchange's and group's headers
/// and the diagnostics at its segments, whatever the hold.
fn each_set(name: &str, input: &[u8], doc: &x12kit::Document<'_>, o: &JsonOptions) {
    let whole: serde_json::Value =
        serde_json::from_slice(&x12kit::json::to_json_with(doc, o)).unwrap();
    let mut want = Vec::new();
    for i in whole["interchanges"].as_array().unwrap() {
        for g in i["groups"].as_array().unwrap() {
            for t in g["transactions"].as_array().unwrap() {
                want.push((i["header"].clone(), g["header"].clone(), t.clone()));
            }
        }
    }
    let all: Vec<serde_json::Value> = doc
        .diagnostics
        .iter()
        .map(|d| serde_json::to_value(d).unwrap())
        .collect();
    for hold in [0, 2, x12kit::sets::HOLD] {
        let mut got = Vec::new();
        let d = x12kit::json::each_set_json_holding(input, o, hold, &mut |b| {
            got.push(serde_json::from_slice::<serde_json::Value>(b).unwrap());
            true
        });
        assert_eq!(d, doc.diagnostics, "{name}: hold {hold}");
        assert_eq!(got.len(), want.len(), "{name}: hold {hold}");
        for (g, (isa, gs, t)) in got.iter().zip(&want) {
            assert_eq!(&g["interchange"], isa, "{name}: hold {hold}");
            assert_eq!(&g["group"], gs, "{name}: hold {hold}");
            assert_eq!(&g["transaction"], t, "{name}: hold {hold}");
            for d in g["diagnostics"].as_array().unwrap() {
                assert!(all.contains(d), "{name}: {d}");
            }
        }
        if hold == 0 {
            fed(name, input, o, &got, &d);
        }
        // Stopping after the first set hands over no other.
        let mut n = 0;
        x12kit::json::each_set_json_holding(input, o, hold, &mut |_| {
            n += 1;
            false
        });
        assert_eq!(n, want.len().min(1), "{name}: hold {hold}");
    }
}

/// The sets of `input` fed in chunks of the sizes of `cuts` in turn
/// (`EachSetFeeder`), and every diagnostic.
fn fed_sets(
    input: &[u8],
    o: &JsonOptions,
    cuts: &[usize],
) -> (Vec<Vec<u8>>, Vec<x12kit::Diagnostic>) {
    let mut reader = EachSetFeeder::new(o);
    let mut got = Vec::new();
    let mut rest = input;
    let mut k = 0;
    while !rest.is_empty() {
        let n = cuts[k % cuts.len()].clamp(1, rest.len());
        k += 1;
        reader.feed(&rest[..n], &mut |b| {
            got.push(b.to_vec());
            true
        });
        rest = &rest[n..];
    }
    let d = reader.finish(&mut |b| {
        got.push(b.to_vec());
        true
    });
    (got, d)
}

/// Fed in chunks of any size, the sets are `each_set_json`'s (`want`, with
/// every interchange streamed: a stream hands a set over at its SE), byte
/// for byte, and so are the diagnostics (`all`).
fn fed(
    name: &str,
    input: &[u8],
    o: &JsonOptions,
    want: &[serde_json::Value],
    all: &[x12kit::Diagnostic],
) {
    let mut slice = Vec::new();
    x12kit::json::each_set_json_holding(input, o, 0, &mut |b| {
        slice.push(b.to_vec());
        true
    });
    assert_eq!(slice.len(), want.len());
    for cuts in [&[1][..], &[2, 7, 1], &[4096], &[usize::MAX]] {
        let (got, d) = fed_sets(input, o, cuts);
        assert!(got == slice, "{name}: cuts {cuts:?}");
        assert_eq!(d, all, "{name}: cuts {cuts:?}");
    }
}

#[test]
fn committed_inputs_set_by_set_equal_the_whole_tree() {
    let inputs = common::committed_inputs();
    assert!(inputs.len() > 300, "only {} inputs", inputs.len());
    for (name, input) in &inputs {
        check(name, input);
        check_capped(name, input, SetCap::bytes(64));
    }
}

#[test]
fn corpus_set_by_set_equals_the_whole_tree() {
    let Some(dir) = corpus_dir() else { return };
    let files = corpus_files(&dir);
    assert!(!files.is_empty());
    for (name, path) in &files {
        check(name, &std::fs::read(path).unwrap());
    }
}

const ISA: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~\n";

/// The shared pieces (x12kit_syntax::testing::envelope_pieces) with this test's own, and
/// a few random bytes, each as likely as any one piece.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    let pieces = x12kit_syntax::testing::envelope_pieces(&[
        ISA.replace("~\n", "~").as_bytes(),
        b"ST*850*0003~\nBEG*00*SA*PO1**20230101~\nN1*ST*Caf\xc3\xa9 \"q\" \\ \xe2\x82\xac~SE*4*0003~\n",
        b"REF*DP*1~",
    ]);
    let n = pieces.len() as u32;
    prop_oneof![
        n => proptest::sample::select(pieces),
        1 => proptest::collection::vec(any::<u8>(), 0..6),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn generated_inputs_set_by_set_equal_the_whole_tree(
        pieces in proptest::collection::vec(piece(), 1..30),
    ) {
        check("generated", &pieces.concat());
    }

    /// With a cap small enough to catch some sets (`SET_TOO_LARGE`), every
    /// path still gives the same bytes and diagnostics.
    #[test]
    fn generated_inputs_capped_set_by_set_equal_the_whole_tree(
        pieces in proptest::collection::vec(piece(), 1..30),
        cap in 1u64..160,
    ) {
        check_capped("generated, capped", &pieces.concat(), SetCap::bytes(cap));
    }

    /// Random inputs fed in random chunkings give the objects and the
    /// diagnostics of the slice (`each_set_json`), byte for byte.
    #[test]
    fn generated_inputs_fed_in_random_chunks_equal_the_slice(
        pieces in proptest::collection::vec(piece(), 1..30),
        cuts in proptest::collection::vec(1usize..64, 1..8),
        cap in prop_oneof![Just(0u64), Just(64 << 20), 1u64..200],
        documents in any::<bool>(),
    ) {
        let input = pieces.concat();
        let o = JsonOptions { documents, max_set_bytes: SetCap::bytes(cap) };
        let mut slice = Vec::new();
        let d = x12kit::json::each_set_json_holding(&input, &o, 0, &mut |b| {
            slice.push(b.to_vec());
            true
        });
        let (got, fd) = fed_sets(&input, &o, &cuts);
        prop_assert!(got == slice, "{}", String::from_utf8_lossy(&input));
        prop_assert_eq!(fd, d);
    }
}
