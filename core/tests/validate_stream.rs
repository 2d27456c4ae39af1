//! Validation of an input larger than memory: a generated stream (never held
//! whole) goes through `Reader` → `Envelope` → `Validator`, and the heap in
//! use stays bounded — the same whatever the input size — while every rule
//! still runs (the counts prove every set was seen, and planted errors are
//! found).
//!
//! A measuring global allocator (hence its own test binary) tracks the bytes
//! live on the heap and their peak. `X12KIT_STREAM_MB` sets the size of the
//! large run (default 48).

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use x12kit::validate::{GroupSummary, InterchangeSummary, Options, Retain, SetSummary, Sink};
use x12kit::{Code, Diagnostic, Envelope, Reader, Validator};

struct Measuring;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(n: usize) {
    let now = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Measuring {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grow(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Measuring = Measuring;

/// Generates interchanges of 850s on the fly, `size` bytes in all (rounded
/// up to a whole interchange). Every 100th set has a wrong SE01.
struct Generated {
    size: usize,
    produced: usize,
    pending: Vec<u8>,
    at: usize,
    interchange: u64,
    sets: u64,
}

impl Generated {
    fn new(size: usize) -> Self {
        Generated {
            size,
            produced: 0,
            pending: Vec::new(),
            at: 0,
            interchange: 0,
            sets: 0,
        }
    }

    fn refill(&mut self) {
        self.pending.clear();
        self.at = 0;
        if self.produced >= self.size {
            return;
        }
        self.interchange += 1;
        let n = self.interchange;
        let out = &mut self.pending;
        out.extend_from_slice(format!("ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*{n:09}*0*P*>~\n").as_bytes());
        for g in 1..=5u64 {
            out.extend_from_slice(
                format!("GS*PO*SENDER*RECEIVER*20230101*1200*{g}*X*004010~\n").as_bytes(),
            );
            for s in 1..=40u64 {
                self.sets += 1;
                out.extend_from_slice(
                    format!("ST*850*{s:04}~\nBEG*00*SA*PO{n}-{g}-{s}**20230101~\n").as_bytes(),
                );
                for line in 1..=8 {
                    out.extend_from_slice(
                        format!("PO1*{line}*10*EA*9.95**VP*SKU-{line}-{s}*BP*ITEM{line}~\n")
                            .as_bytes(),
                    );
                }
                let count = if self.sets % 100 == 0 { 99 } else { 12 };
                out.extend_from_slice(format!("CTT*8~\nSE*{count}*{s:04}~\n").as_bytes());
            }
            out.extend_from_slice(format!("GE*40*{g}~\n").as_bytes());
        }
        out.extend_from_slice(format!("IEA*5*{n:09}~\n").as_bytes());
        self.produced += self.pending.len();
    }
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.pending.len() {
            self.refill();
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Counts instead of keeping.
#[derive(Default)]
struct Counts {
    errors: usize,
    se01: usize,
    sets: u64,
    groups: u64,
    interchanges: u64,
    accepted: u64,
}

impl Sink for Counts {
    fn diagnostic(&mut self, d: Diagnostic) {
        if d.is_error() {
            self.errors += 1;
        }
        if d.code == Code::Se01Count {
            self.se01 += 1;
        }
    }

    fn transaction(&mut self, _set: &SetSummary) {
        self.sets += 1;
    }

    fn group(&mut self, g: &GroupSummary) {
        self.groups += 1;
        self.accepted += g.ak9.accepted;
    }

    fn interchange(&mut self, _i: InterchangeSummary) {
        self.interchanges += 1;
    }
}

struct Run {
    bytes: usize,
    counts: Counts,
    /// Peak heap in use during the run, above what was live before it.
    peak_heap: usize,
    /// Largest `Validator::retained_bytes` seen.
    peak_state: usize,
}

fn stream(size: usize, max_control_numbers: usize) -> Run {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let mut source = Generated::new(size);
    let options = Options {
        retain: Retain::Counts,
        max_control_numbers,
        ..Options::default()
    };
    let mut validator = Validator::with_sink(options, Counts::default());
    let mut reader = Reader::new(&mut source);
    let mut env = Envelope::new();
    let mut tokens = 0u64;
    let mut peak_state = 0;
    while let Some(t) = reader.next_token().unwrap() {
        env.push(t, &mut validator);
        tokens += 1;
        if tokens % 4096 == 0 {
            peak_state = peak_state.max(validator.retained_bytes());
        }
    }
    let bytes = reader.consumed();
    env.finish(bytes, &mut validator);
    peak_state = peak_state.max(validator.retained_bytes());
    let counts = validator.finish();
    let peak_heap = PEAK.load(Ordering::Relaxed) - before;
    drop(reader);
    Run {
        bytes,
        counts,
        peak_heap,
        peak_state,
    }
}

#[test]
fn validation_memory_does_not_grow_with_the_input() {
    let mb: usize = std::env::var("X12KIT_STREAM_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    let cap = Options::default().max_control_numbers;
    let small = stream(4_000_000, cap);
    let large = stream(mb * 1_000_000, cap);
    // With a small duplicate-check limit, nothing at all grows with the input.
    let capped = stream(mb * 1_000_000, 1_000);
    for run in [&small, &large, &capped] {
        let c = &run.counts;
        assert_eq!(c.sets, c.groups * 40, "every set was seen");
        assert_eq!(c.groups, c.interchanges * 5);
        assert_eq!(
            c.se01 as u64,
            c.sets / 100,
            "every planted SE01 error is found"
        );
        assert_eq!(c.errors, c.se01);
        assert_eq!(c.accepted, c.sets - c.sets / 100);
    }
    assert!(large.bytes >= mb * 1_000_000);
    let interchanges = large.counts.interchanges as usize;
    eprintln!(
        "streamed {} bytes ({} sets, {interchanges} interchanges): peak heap {} bytes, validator state {} bytes; \
         with max_control_numbers 1000: peak heap {}, state {}; {} bytes: peak heap {}",
        large.bytes,
        large.counts.sets,
        large.peak_heap,
        large.peak_state,
        capped.peak_heap,
        capped.peak_state,
        small.bytes,
        small.peak_heap
    );
    // Bounded: a 64 KiB read chunk, the stream buffer, one interchange of the
    // generator, the validator's open levels; the only growth is the ISA13
    // duplicate check, one number (about 34 bytes of hash table) per
    // interchange, up to max_control_numbers.
    let isa13 = 48 * interchanges.min(cap);
    assert!(
        large.peak_state <= 16 * 1024 + isa13,
        "validator state {} for {interchanges} interchanges",
        large.peak_state
    );
    assert!(
        large.peak_heap <= small.peak_heap + isa13 + 64 * 1024,
        "peak heap {} for {} bytes vs {} for {} bytes",
        large.peak_heap,
        large.bytes,
        small.peak_heap,
        small.bytes
    );
    assert!(
        capped.peak_state <= 16 * 1024 + 48 * 1_000,
        "capped validator state {}",
        capped.peak_state
    );
    assert!(
        capped.peak_heap < 512 * 1024,
        "capped peak heap {}",
        capped.peak_heap
    );
}
