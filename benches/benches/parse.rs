//! Throughput of the tokenizer, the envelope parser, JSON output and the
//! streaming tokenizer on generated 850 purchase orders of 1 MB and 100 MB.
//!
//! Every benchmark checks the answer it computed against counts taken once
//! from the generator (which counts by its own byte scan), so a fast wrong
//! answer fails instead of being reported. See `benches/README.md`.

use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, measurement::WallTime};
use std::hint::black_box;
use std::time::Duration;
use x12kit::{Pull, StreamTokenizer, Token, Tokenizer};
use x12kit_benches::{Count, Counts, Version, generate_with};

/// Chunk size fed to the streaming tokenizer (the `Reader` default).
const CHUNK: usize = 64 * 1024;

/// Segments and diagnostics of a whole-buffer tokenize.
fn tokenize(data: &[u8]) -> (usize, usize) {
    let (mut segments, mut diagnostics) = (0, 0);
    for t in Tokenizer::new(data) {
        match t {
            Token::Segment(_) => segments += 1,
            Token::Diagnostic(_) => diagnostics += 1,
        }
    }
    (segments, diagnostics)
}

/// Every element, repetition and component: (elements, pieces, piece bytes).
fn walk_elements(data: &[u8]) -> (usize, usize, usize) {
    let (mut elements, mut pieces, mut bytes) = (0, 0, 0);
    for t in Tokenizer::new(data) {
        let Token::Segment(s) = t else {
            panic!("unexpected diagnostic");
        };
        for e in s.elements() {
            elements += 1;
            for r in e.repetitions() {
                for c in r.components() {
                    pieces += 1;
                    bytes += c.raw().len();
                }
            }
        }
    }
    (elements, pieces, bytes)
}

/// The envelope tree: (segments in the tree, transaction sets, error diagnostics).
fn parse_tree(data: &[u8]) -> (usize, usize, usize) {
    let doc = x12kit::parse(data);
    let transactions = doc
        .interchanges
        .iter()
        .flat_map(|i| &i.groups)
        .map(|g| g.transactions.len())
        .sum();
    (doc.segment_count(), transactions, doc.diagnostics.len())
}

/// Segments and diagnostics of the streaming tokenizer fed `chunk`-byte pieces.
fn stream(data: &[u8], chunk: usize) -> (usize, usize) {
    let mut st = StreamTokenizer::new();
    let mut chunks = data.chunks(chunk);
    let (mut segments, mut diagnostics) = (0, 0);
    loop {
        match st.next() {
            Pull::Token(Token::Segment(_)) => segments += 1,
            Pull::Token(Token::Diagnostic(_)) => diagnostics += 1,
            Pull::NeedInput => match chunks.next() {
                Some(c) => st.feed(c),
                None => st.finish(),
            },
            Pull::End => return (segments, diagnostics),
        }
    }
}

/// One generated input and the answers every benchmark must reproduce.
struct Input {
    data: Vec<u8>,
    counts: Counts,
    json_len: usize,
}

fn input(size: usize) -> Input {
    let g = generate_with(size, Version::Mixed);
    let c = g.counts;
    // Cross-check the generator's counts with the whole-buffer tokenizer once.
    assert_eq!(tokenize(&g.data), (c.segments, 0));
    let json = x12kit::ops::parse_json(&g.data, &Default::default());
    // Each segment object has one "elements" array; counted without the
    // mapped `document` of known types, which has arrays of that name too.
    let mut plain = Vec::new();
    x12kit::to_json_into(
        &x12kit::parse(&g.data),
        &x12kit::JsonOptions {
            documents: false,
            ..Default::default()
        },
        &mut plain,
    );
    let objects = memchr::memmem::find_iter(&plain, b"\",\"elements\":[").count();
    assert_eq!(
        objects, c.body_segments,
        "one JSON segment object per body segment"
    );
    if size <= 10_000_000 {
        let v: serde_json::Value = serde_json::from_slice(&json).expect("valid JSON");
        assert_eq!(
            v["interchanges"].as_array().map(Vec::len),
            Some(c.interchanges)
        );
    }
    Input {
        json_len: json.len(),
        data: g.data,
        counts: c,
    }
}

fn run_group(group: &mut BenchmarkGroup<'_, WallTime>, input: &Input) {
    let (data, c) = (&input.data[..], input.counts);
    group.throughput(Throughput::BytesDecimal(data.len() as u64));

    group.bench_function("tokenize", |b| {
        b.iter(|| {
            let r = tokenize(black_box(data));
            assert_eq!(r, (c.segments, 0));
            r
        })
    });
    group.bench_function("tokenize+elements", |b| {
        b.iter(|| {
            let r = walk_elements(black_box(data));
            assert_eq!(r, (c.elements, c.pieces, c.piece_bytes));
            r
        })
    });
    group.bench_function("parse_tree", |b| {
        b.iter(|| {
            let r = parse_tree(black_box(data));
            assert_eq!(r, (c.segments, c.transactions, 0));
            r
        })
    });
    group.bench_function("parse_json", |b| {
        b.iter(|| {
            let json = x12kit::ops::parse_json(black_box(data), &Default::default());
            assert_eq!(json.len(), input.json_len);
            json
        })
    });
    // Without `document` (the 850 payloads mapped back), into a buffer
    // reused across calls as a server or a binding does: the parser's own
    // JSON cost, without page faults for a fresh output allocation.
    let bare = x12kit::JsonOptions {
        documents: false,
        ..Default::default()
    };
    let bare_len = x12kit::to_json_with(&x12kit::parse(data), &bare).len();
    let mut out = Vec::new();
    group.bench_function("parse_json_no_documents_reused_buffer", |b| {
        b.iter(|| {
            out.clear();
            x12kit::ops::parse_json_into(black_box(data), &bare, &mut out);
            assert_eq!(out.len(), bare_len);
            out.len()
        })
    });
    // Streamed to a writer as `x12kit parse --threads 1` does (one
    // interchange held at a time), the bytes counted and dropped.
    for (name, documents, expected) in [
        ("parse_json_to_writer", true, input.json_len),
        ("parse_json_to_writer_no_documents", false, bare_len),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut w = Count(0);
                x12kit::ops::parse_json_to_writer(
                    black_box(data),
                    &x12kit::ops::ParseOptions {
                        documents,
                        ..Default::default()
                    },
                    &mut w,
                )
                .expect("a counter cannot fail");
                assert_eq!(w.0, expected);
                w.0
            })
        });
    }
    group.bench_function("stream_64KiB", |b| {
        b.iter(|| {
            let r = stream(black_box(data), CHUNK);
            assert_eq!(r, (c.segments, 0));
            r
        })
    });
}

fn benches(c: &mut Criterion) {
    let small = input(1_000_000);
    let mut group = c.benchmark_group("1MB");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    run_group(&mut group, &small);
    group.finish();
    drop(small);

    let large = input(100_000_000);
    let mut group = c.benchmark_group("100MB");
    // One or a few iterations per sample: each one takes tens of milliseconds
    // to seconds.
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    run_group(&mut group, &large);
    group.finish();
}

criterion::criterion_group!(parse, benches);
criterion::criterion_main!(parse);
