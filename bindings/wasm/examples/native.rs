//! The native core on the benchmark input, for the WASM/native ratio in
//! bench/: `cargo run --release -p x12kit-wasm --example native -- FILE [OPS]`.
//! Prints one JSON line: MB/s (decimal) of each operation, median of the runs.
//! OPS (comma-separated: parseToJson, validateToJson, streamValidator)
//! limits the run to those (`bench/native-ratio.mjs` runs the validators).

use std::time::Instant;
use x12kit::ops;

fn median_mb_s(bytes: usize, mut f: impl FnMut() -> usize) -> f64 {
    f(); // warm-up
    let mut runs = Vec::new();
    let start = Instant::now();
    while runs.len() < 5 || (start.elapsed().as_secs_f64() < 3.0 && runs.len() < 50) {
        let t = Instant::now();
        std::hint::black_box(f());
        runs.push(bytes as f64 / 1e6 / t.elapsed().as_secs_f64());
    }
    runs.sort_by(f64::total_cmp);
    runs[runs.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: native FILE [OPS]");
    let which = args
        .next()
        .unwrap_or_else(|| "parseToJson,validateToJson,streamValidator".into());
    let input = std::fs::read(&path).expect("read the input");
    let n = input.len();
    let mut fields = vec![format!("\"bytes\":{n}")];
    for op in which.split(',') {
        let mb_s = match op {
            "parseToJson" => median_mb_s(n, || {
                ops::parse_json(&input, &ops::ParseOptions::default()).len()
            }),
            "validateToJson" => median_mb_s(n, || {
                ops::validate_json(&input, &ops::ValidateOptions::default()).len()
            }),
            "streamValidator" => median_mb_s(n, || {
                let mut v = ops::stream_validator(&ops::ValidateOptions::default());
                for c in input.chunks(1 << 20) {
                    v.feed(c);
                }
                v.finish().to_json().len()
            }),
            other => panic!("unknown operation {other:?}"),
        };
        fields.push(format!("\"{op}\":{mb_s:.1}"));
    }
    println!("{{{}}}", fields.join(","));
}
