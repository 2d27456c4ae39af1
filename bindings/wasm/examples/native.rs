//! The native core on the benchmark input, for the WASM/native ratio in
//! bench/: `cargo run --release -p x12kit-wasm --example native -- FILE`.
//! Prints one JSON line: MB/s (decimal) of each operation, median of the runs.

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
    let path = std::env::args().nth(1).expect("usage: native FILE");
    let input = std::fs::read(&path).expect("read the input");
    let n = input.len();
    let parse = median_mb_s(n, || {
        ops::parse_json(&input, &ops::ParseOptions::default()).len()
    });
    let validate = median_mb_s(n, || {
        ops::validate_json(&input, &ops::ValidateOptions::default()).len()
    });
    let stream = median_mb_s(n, || {
        let mut v = ops::stream_validator(&ops::ValidateOptions::default());
        for c in input.chunks(1 << 20) {
            v.feed(c);
        }
        v.finish().to_json().len()
    });
    println!(
        "{{\"bytes\":{n},\"parseToJson\":{parse:.1},\"validateToJson\":{validate:.1},\"streamValidator\":{stream:.1}}}"
    );
}
