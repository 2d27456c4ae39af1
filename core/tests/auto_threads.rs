//! The threaded JSON writer's default (`json::AUTO_THREADS`) and its two
//! cases on the calling thread, on the three input shapes of
//! `benches/gen_shapes.py` at test size and two more:
//!
//! - every number of threads, the default included, writes the bytes of
//!   one thread;
//! - the default starts its workers only once a batch of sets fills (one
//!   interchange of many sets, many interchanges of 100 sets), and never for
//!   an input whose interchanges are all smaller than a batch, nor for one
//!   huge set; a given number of workers starts at the first batch sent, so
//!   not for one huge set either (threads counted in `/proc/self/task` from
//!   the sink, which runs on the calling thread);
//! - one huge set is written on the calling thread with any number of
//!   workers, so that its JSON is not held whole by a worker and copied: the
//!   heap it takes with two workers is that of one thread (a measuring
//!   global allocator, and a thread count that only this test may change,
//!   hence one test in a binary of its own).

use std::sync::atomic::Ordering;
use x12kit::json::{
    AUTO_THREADS, JsonOptions, to_json_stream_threads, to_json_stream_threads_holding,
};
use x12kit::sets::HOLD;

#[path = "common/measuring.rs"]
mod measuring;

use measuring::{LIVE, PEAK};

#[global_allocator]
static GLOBAL: measuring::Measuring = measuring::Measuring;

const ISA: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*{:09}*0*P*>~\n";

/// An 850 with `lines` PO1/PID pairs (2 × lines + 7 body segments).
fn set(out: &mut String, n: usize, lines: usize) {
    out.push_str(&format!("ST*850*{n:04}~\nBEG*00*SA*PO-{n}**20230101~\nREF*DP*715~\nN1*ST*ACME DC {n}*92*{n}~\nN3*500 COMMERCE DR~\nN4*RENO*NV*89502*US~\n"));
    for l in 1..=lines {
        out.push_str(&format!(
            "PO1*{l}*{}*EA*1.5**VP*SKU{l}*UP*0588{l}~\nPID*F****RED WIDGET~\n",
            l % 90 + 1
        ));
    }
    out.push_str(&format!("CTT*{lines}~\nSE*{}*{n:04}~\n", 2 * lines + 8));
}

/// `interchanges` interchanges, each of one group of the sets whose line
/// counts `lines` gives.
fn shape(interchanges: usize, lines: &[usize]) -> Vec<u8> {
    let mut out = String::new();
    for i in 1..=interchanges {
        out.push_str(&ISA.replace("{:09}", &format!("{i:09}")));
        out.push_str(&format!(
            "GS*PO*SENDER*RECEIVER*20230101*1200*{i}*X*004010~\n"
        ));
        for (n, &l) in lines.iter().enumerate() {
            set(&mut out, n + 1, l);
        }
        out.push_str(&format!("GE*{}*{i}~\nIEA*1*{i:09}~\n", lines.len()));
    }
    out.into_bytes()
}

/// Threads of this process.
fn threads_now() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, |d| d.count())
}

/// Threads of this process once the workers of a run before have left (a
/// joined thread may still be listed for a moment): those at the first call.
fn threads_settled() -> usize {
    static BASE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let base = *BASE.get_or_init(threads_now);
    for _ in 0..400 {
        if threads_now() <= base {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(threads_now(), base, "the workers of a run before are gone");
    base
}

/// Keeps the bytes written (unless `count` only counts them), and the most
/// threads the process had at a write.
#[derive(Default)]
struct Sink {
    bytes: Vec<u8>,
    count: bool,
    len: usize,
    threads: usize,
}

impl std::io::Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if !self.count {
            self.bytes.extend_from_slice(b);
        }
        self.len += b.len();
        self.threads = self.threads.max(threads_now());
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The output of `workers` workers (`auto`: started as the default starts
/// them), the most threads beside the caller's during it, and the peak heap
/// (with `count`, the output is only counted: its length, and no bytes).
fn run(input: &[u8], workers: usize, auto: bool, count: bool) -> (Vec<u8>, usize, usize, usize) {
    let before = threads_settled();
    let mut sink = Sink {
        count,
        ..Sink::default()
    };
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let o = JsonOptions::default();
    let d = if workers == 1 && !auto {
        to_json_stream_threads(input, &mut sink, false, &o, 1, &mut |_| {}).unwrap()
    } else {
        to_json_stream_threads_holding(
            input,
            &mut sink,
            false,
            &o,
            workers,
            auto,
            HOLD,
            &mut |_| {},
        )
        .unwrap()
    };
    assert!(d.is_empty(), "{d:?}");
    let peak = PEAK.load(Ordering::Relaxed) - base;
    let started = sink.threads.saturating_sub(before);
    (sink.bytes, sink.len, started, peak)
}

#[test]
fn the_default_takes_threads_only_where_they_pay_and_writes_the_same_bytes() {
    let one_big = 12_000;
    // (name, input, whether the default starts workers, whether a given
    // number of workers starts: at the first batch sent, which one huge
    // set is not).
    let shapes: [(&str, Vec<u8>, bool, bool); 6] = [
        // One interchange of 1 200 sets: batches fill.
        ("one interchange", shape(1, &[10; 1200]), true, true),
        // Interchanges of 100 sets (about 2 700 body segments each).
        ("many interchanges", shape(20, &[10; 100]), true, true),
        // Interchanges of 3 sets: no batch ever fills.
        ("small interchanges", shape(200, &[10; 3]), false, true),
        // One huge set (24 000 body segments).
        ("one huge set", shape(1, &[one_big]), false, false),
        // A huge set, then more than its size in small sets: a batch of
        // its own, sent to a worker.
        (
            "a huge set, then more",
            shape(1, &[&[one_big][..], &[10; 1400]].concat()),
            true,
            true,
        ),
        // Small sets, then a huge set as large as what came before.
        (
            "then a huge set",
            shape(1, &[&[10; 1000][..], &[one_big]].concat()),
            true,
            true,
        ),
    ];
    for (name, input, divides, sends) in &shapes {
        let whole = x12kit::to_json_with(&x12kit::parse(input), &JsonOptions::default());
        let (one, _, t, _) = run(input, 1, false, false);
        assert!(one == whole, "{name}: one thread");
        assert_eq!(t, 0, "{name}: one thread");
        for (workers, auto) in [(1, true), (2, false), (2, true), (3, false), (3, true)] {
            let (out, _, started, _) = run(input, workers, auto, false);
            assert!(out == whole, "{name}: {workers} workers, auto {auto}");
            if cfg!(target_os = "linux") {
                let expected = if (auto && *divides) || (!auto && *sends) {
                    workers
                } else {
                    0
                };
                assert_eq!(
                    started, expected,
                    "{name}: {workers} workers started, auto {auto}"
                );
            }
        }
        let mut out = Vec::new();
        to_json_stream_threads(
            input,
            &mut out,
            false,
            &JsonOptions::default(),
            AUTO_THREADS,
            &mut |_| {},
        )
        .unwrap();
        assert!(out == whole, "{name}: the default");
    }
    // One huge set: the heap of one thread, with workers or without.
    let (_, huge, _, _) = &shapes[3];
    let (_, _, _, alone) = run(huge, 1, false, true);
    for (workers, auto) in [(2, false), (2, true)] {
        let (_, len, _, peak) = run(huge, workers, auto, true);
        assert!(
            peak <= alone + (1 << 20) && len > 2 * (1 << 20),
            "{workers} workers, auto {auto}: {peak} B of heap, one thread {alone} B, JSON {len} B"
        );
    }
}
