//! Memory of the set-by-set paths: writing the parse JSON of one
//! interchange of 32 000 sets (one thread or three) and splitting it take
//! no more heap than for 4 000 sets (both past the size an interchange is held whole at), a few MiB whatever the interchange's
//! size, while the whole tree of it takes several times more (a counting
//! global allocator, hence this file is its own test binary).

use std::sync::atomic::Ordering;
use x12kit::json::{JsonOptions, to_json_stream, to_json_stream_threads};
use x12kit::ops::{self, SplitOptions};

#[path = "common/measuring.rs"]
mod measuring;

use measuring::{LIVE, PEAK};

#[global_allocator]
static GLOBAL: measuring::Measuring = measuring::Measuring;

/// One interchange of `groups` groups of 400 850s (about 1 KB each).
fn input(groups: usize) -> Vec<u8> {
    let mut out = String::from(
        "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~\n",
    );
    for g in 1..=groups {
        out.push_str(&format!(
            "GS*PO*SENDER*RECEIVER*20230101*1200*{g}*X*004010~\n"
        ));
        for s in 1..=400 {
            out.push_str(&format!("ST*850*{s:04}~\nBEG*00*SA*PO-{s}**20230101~\nREF*DP*715~\nN1*ST*ACME DC {s}*92*{s}~\nN3*500 COMMERCE DR~\nN4*RENO*NV*89502*US~\n"));
            for l in 1..=10 {
                out.push_str(&format!(
                    "PO1*{l}*2*EA*1.5**VP*SKU{l}*UP*0588{l}~\nPID*F****RED WIDGET~\n"
                ));
            }
            out.push_str(&format!("CTT*10~\nSE*28*{s:04}~\n"));
        }
        out.push_str(&format!("GE*400*{g}~\n"));
    }
    out.push_str(&format!("IEA*{groups}*000000001~\n"));
    out.into_bytes()
}

/// Counts the bytes written and drops them.
struct Count(usize);

impl std::io::Write for Count {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Peak heap above what was live before while `f` runs.
fn peak(f: impl FnOnce()) -> usize {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed) - base
}

#[test]
fn set_by_set_memory_follows_the_largest_set_not_the_interchange() {
    let small = input(10);
    let large = input(80);
    assert!(large.len() > 20_000_000, "{}", large.len());
    let tree = peak(|| drop(x12kit::parse(&large)));
    let o = JsonOptions::default();
    let json = |input: &[u8], threads: usize| {
        peak(|| {
            let mut out = Count(0);
            let d = if threads == 1 {
                to_json_stream(input, &mut out, false, &o, &mut |_| {}).unwrap()
            } else {
                to_json_stream_threads(input, &mut out, false, &o, threads, &mut |_| {}).unwrap()
            };
            assert!(d.is_empty() && out.0 > input.len());
        })
    };
    let split = |input: &[u8]| {
        peak(|| {
            let mut parts = 0;
            ops::split_each(input, &SplitOptions::default(), |p| {
                parts += p.sets.len();
                Ok(())
            })
            .unwrap();
            assert_eq!(parts % 400, 0);
        })
    };
    for (what, small_peak, large_peak) in [
        ("parse JSON, 1 thread", json(&small, 1), json(&large, 1)),
        ("parse JSON, 3 threads", json(&small, 3), json(&large, 3)),
        (
            "parse JSON, automatic threads",
            json(&small, x12kit::json::AUTO_THREADS),
            json(&large, x12kit::json::AUTO_THREADS),
        ),
        ("split", split(&small), split(&large)),
    ] {
        eprintln!(
            "{what}: peak heap {small_peak} B for {} KB, {large_peak} B for {} KB (whole tree {tree} B)",
            small.len() / 1000,
            large.len() / 1000
        );
        assert!(
            large_peak <= small_peak + (1 << 20),
            "{what}: {small_peak} for {} KB, {large_peak} for {} KB",
            small.len() / 1000,
            large.len() / 1000
        );
        assert!(large_peak < 8 << 20, "{what}: {large_peak}");
        assert!(
            tree > 3 * large_peak,
            "{what}: tree {tree}, set by set {large_peak}"
        );
    }
}
