//! The parse JSON (documents mapped) on one thread and with the default
//! threads (`json::AUTO_THREADS`), side by side on the input shapes of
//! `benches/gen_shapes.py` (the same generator, at bench size) and a small
//! input:
//!
//! - `one`: one interchange, groups of 1 000 850s (20 MB);
//! - `many`: interchanges of one group of 100 850s (20 MB);
//! - `huge`: one 850 (10 MB);
//! - `small`: one interchange of 20 850s (about 20 KB), what a server or a
//!   binding parses one at a time.
//!
//! Each shape runs `threads_1` (`to_json_stream_threads` with 1: the
//! calling thread alone), `default` and `threads_2`, one after the other,
//! the output counted and checked against one thread's length. The default
//! starts workers for `one` and `many` only.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use std::hint::black_box;
use std::time::Duration;
use x12kit::json::{AUTO_THREADS, JsonOptions, to_json_stream_threads};
use x12kit_benches::Count;

/// `benches/gen_shapes.py`'s sets (a deterministic generator of its own
/// instead of Python's `random`: the same segments, other numbers).
struct Shapes(u64);

impl Shapes {
    fn next(&mut self, below: u64) -> u64 {
        // SplitMix64.
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % below
    }

    /// An 850 with `lines` PO1/PID pairs; returns its length.
    fn set(&mut self, out: &mut String, n: usize, lines: usize) -> usize {
        let at = out.len();
        out.push_str(&format!("ST*850*{n:04}~\nBEG*00*SA*PO-{n}**20230101~\nREF*DP*715~\nN1*ST*ACME DC {n}*92*{n}~\nN3*500 COMMERCE DR~\nN4*RENO*NV*89502*US~\n"));
        for l in 1..=lines {
            let (q, p, s) = (
                self.next(99) + 1,
                self.next(9999) + 1,
                self.next(999_999) + 1,
            );
            out.push_str(&format!(
                "PO1*{l}*{q}*EA*{}.{:02}**VP*SKU{s}*UP*0588{l}~\nPID*F****RED WIDGET~\n",
                p / 100,
                p % 100
            ));
        }
        out.push_str(&format!("CTT*{lines}~\nSE*{}*{n:04}~\n", 2 * lines + 8));
        out.len() - at
    }

    fn lines(&mut self) -> usize {
        5 + self.next(11) as usize
    }

    /// `shape` ("one", "many", "huge", "small") of about `size` bytes.
    fn generate(shape: &str, size: usize) -> Vec<u8> {
        let mut g = Shapes(7);
        let isa = |i: usize| {
            format!(
                "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*{i:09}*0*P*>~\n"
            )
        };
        let mut out = String::with_capacity(size + (1 << 16));
        let mut written = 0;
        match shape {
            "one" | "small" => {
                let per_group = if shape == "one" { 1000 } else { 20 };
                out.push_str(&isa(1));
                let mut groups = 0;
                while written < size {
                    groups += 1;
                    out.push_str(&format!(
                        "GS*PO*SENDER*RECEIVER*20230101*1200*{groups}*X*004010~\n"
                    ));
                    for s in 1..=per_group {
                        let lines = g.lines();
                        written += g.set(&mut out, s, lines);
                    }
                    out.push_str(&format!("GE*{per_group}*{groups}~\n"));
                }
                out.push_str(&format!("IEA*{groups}*000000001~\n"));
            }
            "many" => {
                let mut i = 0;
                while written < size {
                    i += 1;
                    out.push_str(&isa(i));
                    out.push_str(&format!(
                        "GS*PO*SENDER*RECEIVER*20230101*1200*{i}*X*004010~\n"
                    ));
                    for s in 1..=100 {
                        let lines = g.lines();
                        written += g.set(&mut out, s, lines);
                    }
                    out.push_str(&format!("GE*100*{i}~\nIEA*1*{i:09}~\n"));
                }
            }
            _ => {
                out.push_str(&isa(1));
                out.push_str("GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~\n");
                g.set(&mut out, 1, size / 70);
                out.push_str("GE*1*1~\nIEA*1*000000001~\n");
            }
        }
        out.into_bytes()
    }
}

fn json(data: &[u8], threads: usize) -> usize {
    let mut w = Count(0);
    let d = to_json_stream_threads(
        black_box(data),
        &mut w,
        false,
        &JsonOptions::default(),
        threads,
        &mut |_| {},
    )
    .expect("a counter cannot fail");
    assert!(d.is_empty(), "{d:?}");
    w.0
}

fn benches(c: &mut Criterion) {
    for (shape, size) in [
        ("small", 20_000),
        ("one", 20_000_000),
        ("many", 20_000_000),
        ("huge", 10_000_000),
    ] {
        let data = Shapes::generate(shape, size);
        let expected = json(&data, 1);
        let mut group = c.benchmark_group(format!("threads/{shape}"));
        group.throughput(Throughput::Bytes(data.len() as u64));
        if size > 1_000_000 {
            group
                .sampling_mode(SamplingMode::Flat)
                .sample_size(10)
                .warm_up_time(Duration::from_secs(1))
                .measurement_time(Duration::from_secs(6));
        } else {
            group
                .sample_size(30)
                .warm_up_time(Duration::from_secs(1))
                .measurement_time(Duration::from_secs(3));
        }
        for (name, threads) in [
            ("threads_1", 1),
            ("default", AUTO_THREADS),
            ("threads_2", 2),
        ] {
            group.bench_with_input(BenchmarkId::from_parameter(name), &data, |b, data| {
                b.iter(|| {
                    let n = json(data, threads);
                    assert_eq!(n, expected);
                    n
                })
            });
        }
        group.finish();
    }
}

criterion::criterion_group!(threads, benches);
criterion::criterion_main!(threads);
