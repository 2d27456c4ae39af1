//! `ops::parse_json_to_writer` holds one interchange at a time: writing the
//! parse JSON of 400 interchanges takes no more heap than writing that of
//! 25, and far less than the input (a counting global allocator, hence
//! this file is its own test binary).

use std::sync::atomic::Ordering;
use x12kit::ops::{self, ParseOptions};

#[path = "common/measuring.rs"]
mod measuring;

use measuring::{LIVE, PEAK};

#[global_allocator]
static GLOBAL: measuring::Measuring = measuring::Measuring;

/// `n` interchanges of one group of 40 850s each (about 40 KB an interchange).
fn input(n: usize) -> Vec<u8> {
    let mut out = String::new();
    for i in 1..=n {
        out.push_str(&format!("ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*{i:09}*0*P*>~\nGS*PO*SENDER*RECEIVER*20230101*1200*{i}*X*004010~\n"));
        for s in 1..=40 {
            out.push_str(&format!("ST*850*{s:04}~\nBEG*00*SA*PO-{s}**20230101~\nREF*DP*715~\nN1*ST*ACME DC {s}*92*{s}~\nN3*500 COMMERCE DR~\nN4*RENO*NV*89502*US~\n"));
            for l in 1..=10 {
                out.push_str(&format!(
                    "PO1*{l}*2*EA*1.5**VP*SKU{l}*UP*0588{l}~\nPID*F****RED WIDGET~\n"
                ));
            }
            out.push_str(&format!("CTT*10~\nSE*{}*{s:04}~\n", 27));
        }
        out.push_str(&format!("GE*40*{i}~\nIEA*1*{i:09}~\n"));
    }
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

/// Peak heap above what was live before, and the bytes written.
fn peak_of_streaming(input: &[u8], documents: bool) -> (usize, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut out = Count(0);
    let d = ops::parse_json_to_writer(
        input,
        &ParseOptions {
            documents,
            ..Default::default()
        },
        &mut out,
    )
    .unwrap();
    assert!(d.is_empty(), "{d:?}");
    (PEAK.load(Ordering::Relaxed) - base, out.0)
}

#[test]
fn streaming_parse_memory_does_not_grow_with_the_input() {
    let small = input(25);
    let large = input(400);
    for documents in [true, false] {
        let (peak_small, written_small) = peak_of_streaming(&small, documents);
        let (peak_large, written_large) = peak_of_streaming(&large, documents);
        assert!(written_large > 15 * written_small);
        // The same interchanges: the peak is that of one, whatever their number.
        assert!(
            peak_large <= peak_small + 64 * 1024,
            "documents {documents}: {peak_small} bytes for {} KB, {peak_large} for {} KB",
            small.len() / 1000,
            large.len() / 1000
        );
        assert!(
            peak_large < large.len() / 20,
            "documents {documents}: peak {peak_large} for an input of {}",
            large.len()
        );
        eprintln!(
            "documents {documents}: peak heap {peak_small} B for {} KB, {peak_large} B for {} KB",
            small.len() / 1000,
            large.len() / 1000
        );
        // The whole tree, for comparison, holds a range per body segment.
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let doc = x12kit::parse(&large);
        let tree = PEAK.load(Ordering::Relaxed) - base;
        drop(doc);
        assert!(tree > 4 * peak_large, "tree {tree}, streaming {peak_large}");
    }
}
