//! Memory of a set over the cap on one set (`maxSetBytes`): it is not held
//! by the paths that build sets one at a time (a counting global
//! allocator, hence this file is its own test binary).

use std::sync::atomic::Ordering;
use x12kit::json::{JsonOptions, to_json_stream, to_json_stream_threads};
use x12kit::ops::{self, SplitOptions};

#[path = "common/measuring.rs"]
mod measuring;

use measuring::{LIVE, PEAK};

#[global_allocator]
static GLOBAL: measuring::Measuring = measuring::Measuring;

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

/// One huge set (about 8 MB, 200 000 segments) between two small ones:
/// under a 64 KiB cap on one set, the paths that build sets one at a time
/// (the set-by-set JSON on one and two threads, the sets handed over one
/// at a time, split) take a small heap whatever the huge set's size, while
/// without the cap the set is held and mapped (several times its size).
/// (The whole parse reserves its segment list for the whole input up
/// front, cap or not.)
#[test]
fn a_set_over_the_cap_is_not_held() {
    let isa = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~\n";
    let small = |n: u32| {
        format!(
            "ST*850*{n:04}~\nBEG*00*SA*PO-{n}**20230101~\nPO1*1*2*EA*1.5**VP*SKU1~\nCTT*1~\nSE*5*{n:04}~\n"
        )
    };
    let mut x12 = format!(
        "{isa}GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~\n{}ST*850*0002~\nBEG*00*SA*PO-2**20230101~\n",
        small(1)
    );
    let lines = 200_000;
    for l in 1..=lines {
        x12.push_str(&format!("PO1*{l}*2*EA*1.5**VP*SKU{l}~\n"));
    }
    x12.push_str(&format!(
        "CTT*{lines}~\nSE*{}*0002~\n{}GE*3*1~\nIEA*1*000000001~\n",
        lines + 4,
        small(3)
    ));
    let input = x12.as_bytes();
    assert!(input.len() > 6_000_000, "{}", input.len());
    let cap = x12kit::SetCap::bytes(64 << 10);
    let o = JsonOptions {
        max_set_bytes: cap,
        ..JsonOptions::default()
    };
    let free = peak(|| {
        let mut out = Count(0);
        to_json_stream(input, &mut out, false, &JsonOptions::default(), &mut |_| {}).unwrap();
    });
    assert!(free > 3 * input.len(), "{free}");
    let bound = 2 << 20;
    for threads in [1, 2, x12kit::json::AUTO_THREADS] {
        let streamed = peak(|| {
            let mut out = Count(0);
            let d =
                to_json_stream_threads(input, &mut out, false, &o, threads, &mut |_| {}).unwrap();
            assert_eq!(d[0].code, x12kit::Code::SetTooLarge);
        });
        assert!(streamed < bound, "{threads} threads: {streamed}");
    }
    let each = peak(|| {
        let mut n = 0;
        x12kit::json::each_set_json(
            input,
            &o,
            &mut |_| {
                n += 1;
                true
            },
            &mut |_| {},
            &mut |_, _| {},
        );
        assert_eq!(n, 3);
    });
    assert!(each < bound, "each set: {each}");
    let split = peak(|| {
        let so: SplitOptions = ops::options(serde_json::json!({"maxSetBytes": 65536})).unwrap();
        let s = ops::split(input, &so).unwrap();
        assert_eq!(s.parts.len(), 2);
    });
    assert!(split < bound, "split: {split}");
}
