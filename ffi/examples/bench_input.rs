//! Helper of ffi/bench/run.sh: writes the generated benchmark input
//! (`x12kit_benches::generate_with`, mixed 004010/005010 850s), prints the
//! counts a reader must find, and times the Rust core on the same four reads
//! the C benchmark does, with the same harness (best of N wall-clock runs), so
//! the C and Rust figures are comparable line by line.
//!
//! `cargo run --release -p x12kit-ffi --example bench_input -- PATH [SIZE_BYTES] [RUNS]`
//! prints `counts <segments> <elements> <pieces> <piece_bytes>` then one
//! `rust <name> <MB/s> <best seconds>` line per read.

use std::hint::black_box;
use std::time::Instant;
use x12kit_benches::{Version, generate_with};
use x12kit_core::{Pull, Segment, StreamTokenizer, Token, Tokenizer};

/// Chunk size of the streaming reads (the `Reader` default, as in benches/).
const CHUNK: usize = 64 * 1024;

/// One timed read: name, reader, whether it walks elements, expected answer.
type Read = (&'static str, fn(&[u8], bool) -> Counts, bool, Counts);

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts {
    segments: usize,
    elements: usize,
    pieces: usize,
    piece_bytes: usize,
}

fn walk(c: &mut Counts, s: &Segment<'_>, elements: bool) {
    c.segments += 1;
    if !elements {
        return;
    }
    for e in s.elements() {
        c.elements += 1;
        for r in e.repetitions() {
            for p in r.components() {
                c.pieces += 1;
                c.piece_bytes += p.raw().len();
            }
        }
    }
}

fn whole(data: &[u8], elements: bool) -> Counts {
    let mut c = Counts::default();
    for t in Tokenizer::new(data) {
        match t {
            Token::Segment(s) => walk(&mut c, &s, elements),
            Token::Diagnostic(d) => panic!("unexpected diagnostic {d}"),
        }
    }
    c
}

fn stream(data: &[u8], elements: bool) -> Counts {
    let mut c = Counts::default();
    let mut st = StreamTokenizer::new();
    let mut chunks = data.chunks(CHUNK);
    loop {
        match st.next() {
            Pull::Token(Token::Segment(s)) => walk(&mut c, &s, elements),
            Pull::Token(Token::Diagnostic(d)) => panic!("unexpected diagnostic {d}"),
            Pull::NeedInput => match chunks.next() {
                Some(chunk) => st.feed(chunk),
                None => st.finish(),
            },
            Pull::End => return c,
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: bench_input PATH [SIZE_BYTES] [RUNS]");
    let size: usize = args
        .next()
        .map_or(100_000_000, |s| s.parse().expect("SIZE_BYTES"));
    let runs: usize = args.next().map_or(5, |s| s.parse().expect("RUNS"));
    let g = generate_with(size, Version::Mixed);
    std::fs::write(&path, &g.data).expect("write the input file");
    let expected = Counts {
        segments: g.counts.segments,
        elements: g.counts.elements,
        pieces: g.counts.pieces,
        piece_bytes: g.counts.piece_bytes,
    };
    println!(
        "counts {} {} {} {}",
        expected.segments, expected.elements, expected.pieces, expected.piece_bytes
    );
    let segments_only = Counts {
        segments: expected.segments,
        ..Counts::default()
    };
    let reads: [Read; 4] = [
        ("buffer_segments", whole, false, segments_only),
        ("buffer_elements", whole, true, expected),
        ("stream64k_segments", stream, false, segments_only),
        ("stream64k_elements", stream, true, expected),
    ];
    for (name, read, elements, want) in reads {
        let mut best = f64::INFINITY;
        for _ in 0..runs {
            let t = Instant::now();
            let got = read(black_box(&g.data), elements);
            let secs = t.elapsed().as_secs_f64();
            assert_eq!(got, want, "{name}: wrong answer");
            best = best.min(secs);
        }
        println!(
            "rust {name} {:.0} {best:.4}",
            g.data.len() as f64 / 1e6 / best
        );
    }
}
