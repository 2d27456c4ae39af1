//! In-process throughput of the core on one file, every kernel of the
//! structural index side by side in one run (rounds interleaved, median
//! reported), for a loaded machine where only ratios within a run mean
//! something. See `benches/README.md`.
//!
//! ```sh
//! x12kit-speed FILE [ROUNDS] [BENCH,BENCH...]
//! ```

use std::hint::black_box;
use std::time::Instant;
use x12kit::index::{self, Kernel};
use x12kit::{JsonOptions, Pull, StreamTokenizer, Token, Tokenizer};

type Bench = (&'static str, fn(&[u8]) -> usize);

fn tokenize(data: &[u8]) -> usize {
    Tokenizer::new(data)
        .filter(|t| matches!(t, Token::Segment(_)))
        .count()
}

fn tokenize_elements(data: &[u8]) -> usize {
    let mut n = 0;
    for t in Tokenizer::new(data) {
        if let Token::Segment(s) = t {
            for e in s.elements() {
                for r in e.repetitions() {
                    for c in r.components() {
                        n += c.raw().len() + 1;
                    }
                }
            }
        }
    }
    n
}

fn stream(data: &[u8]) -> usize {
    let mut st = StreamTokenizer::new();
    let mut chunks = data.chunks(64 * 1024);
    let mut n = 0;
    loop {
        match st.next() {
            Pull::Token(Token::Segment(_)) => n += 1,
            Pull::Token(_) => {}
            Pull::NeedInput => match chunks.next() {
                Some(c) => st.feed(c),
                None => st.finish(),
            },
            Pull::End => return n,
        }
    }
}

fn validate_reader(data: &[u8]) -> usize {
    let options = x12kit::validate::Options {
        retain: x12kit::validate::Retain::Counts,
        ..Default::default()
    };
    let v = x12kit::validate_reader(data, &options).expect("reading a slice cannot fail");
    v.diagnostics.len() + v.interchanges.len()
}

fn parse_tree(data: &[u8]) -> usize {
    x12kit::parse(data).segment_count()
}

fn parse_json_no_documents(data: &[u8]) -> usize {
    let doc = x12kit::parse(data);
    let mut out = Vec::new();
    x12kit::to_json_into(
        &doc,
        &JsonOptions {
            documents: false,
            ..Default::default()
        },
        &mut out,
    );
    out.len()
}

fn parse_json(data: &[u8]) -> usize {
    x12kit::to_json(&x12kit::parse(data)).len()
}

/// Seconds to tokenize one interchange holding a 5 MB element, fed in
/// `chunk`-byte pieces (the chunk-fed tokenizer once rescanned the
/// unfinished segment on every piece: about 60 s for 7-byte pieces).
fn long_element(chunk: usize) -> f64 {
    let mut input = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~MSG*".to_vec();
    input.extend(std::iter::repeat_n(b'A', 5_000_000));
    input.extend_from_slice(b"~SE*3*0001~GE*1*1~IEA*1*000000001~");
    let t = Instant::now();
    let mut st = StreamTokenizer::new();
    let mut chunks = input.chunks(chunk);
    let mut n = 0;
    loop {
        match st.next() {
            Pull::Token(Token::Segment(_)) => n += 1,
            Pull::Token(_) => {}
            Pull::NeedInput => match chunks.next() {
                Some(c) => st.feed(c),
                None => st.finish(),
            },
            Pull::End => break,
        }
    }
    assert_eq!(n, 7);
    t.elapsed().as_secs_f64()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "/tmp/x12kit-bench-100mb.x12".into());
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5);
    let only: Option<Vec<String>> = args
        .next()
        .map(|l| l.split(',').map(String::from).collect());
    let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let benches: [Bench; 7] = [
        ("tokenize", tokenize),
        ("tokenize+elements", tokenize_elements),
        ("stream_64KiB", stream),
        ("validate_reader", validate_reader),
        ("parse_tree", parse_tree),
        ("parse_json_no_documents", parse_json_no_documents),
        ("parse_json", parse_json),
    ];
    let kernels = Kernel::available();
    println!(
        "a 5 MB element fed in 7-byte chunks: {:.3} s; in 7 KiB chunks: {:.3} s",
        long_element(7),
        long_element(7 * 1024)
    );
    let mb = data.len() as f64 / 1e6;
    println!(
        "{path}: {mb:.1} MB, {rounds} rounds, median MB/s (kernel detected: {:?})",
        Kernel::detect()
    );
    print!("| bench |");
    for k in &kernels {
        print!(" {k:?} |");
    }
    println!();
    print!("|---|");
    for _ in &kernels {
        print!("---:|");
    }
    println!();
    for (name, f) in benches {
        if only.as_ref().is_some_and(|o| !o.iter().any(|b| b == name)) {
            continue;
        }
        let mut speeds = vec![Vec::new(); kernels.len()];
        let mut answers = Vec::new();
        for _ in 0..rounds {
            for (i, &k) in kernels.iter().enumerate() {
                assert!(index::set_kernel(k));
                let t = Instant::now();
                let a = black_box(f(black_box(&data)));
                speeds[i].push(mb / t.elapsed().as_secs_f64());
                answers.push(a);
            }
        }
        assert!(
            answers.windows(2).all(|w| w[0] == w[1]),
            "{name}: kernels disagree"
        );
        print!("| `{name}` |");
        for s in speeds.iter_mut() {
            print!(" {:.0} |", median(s));
        }
        println!();
    }
}
