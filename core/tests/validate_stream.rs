//! Validation of an input larger than memory: a generated stream (never held
//! whole) goes through `Reader` → `Envelope` → `Validator`, and the heap in
//! use stays bounded — the same whatever the input size — while every rule
//! still runs (the counts prove every set was seen, and planted errors are
//! found).
//!
//! The push validator, `StreamValidator`, gives exactly what `validate_reader`
//! gives over every corpus file, whatever the chunk size, and keeps the heap
//! bounded the same way.
//!
//! A measuring global allocator (hence its own test binary) tracks the bytes
//! live on the heap and their peak. `X12KIT_STREAM_MB` sets the size of the
//! large run (default 48).

mod common;

use common::{corpus_dir, corpus_files};
use std::io::Read;
use std::sync::atomic::Ordering;
use std::sync::{Mutex, MutexGuard};
use x12kit::validate::{
    GroupSummary, InterchangeSummary, Options, Retain, SetSummary, Sink, StreamValidator,
};
use x12kit::{Code, Diagnostic, Envelope, Reader, Validator};

#[path = "common/measuring.rs"]
mod measuring;

use measuring::{LIVE, PEAK};

#[global_allocator]
static GLOBAL: measuring::Measuring = measuring::Measuring;

/// The heap counters are global: the tests of this binary run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

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
                let count = if self.sets.is_multiple_of(100) {
                    99
                } else {
                    12
                };
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
        if tokens.is_multiple_of(4096) {
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
    let _serial = serial();
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

/// Feeding any chunking gives what `validate_reader` gives for the same bytes.
#[test]
fn corpus_push_validation_equals_validate_reader() {
    let _serial = serial();
    let Some(dir) = corpus_dir() else { return };
    let files = corpus_files(&dir);
    assert!(!files.is_empty());
    let structure = Options {
        structure: true,
        ..Options::default()
    };
    for (name, path) in files {
        let bytes = std::fs::read(&path).unwrap();
        for options in [&Options::default(), &structure] {
            let expected = x12kit::validate_reader(&bytes[..], options).unwrap();
            for size in [1, 7, 4096] {
                let mut v = StreamValidator::new(options.clone());
                for chunk in bytes.chunks(size) {
                    v.feed(chunk);
                    assert!(v.consumed() <= bytes.len());
                }
                let pushed = v.finish();
                assert_eq!(
                    pushed.diagnostics, expected.diagnostics,
                    "{name}, chunks of {size}, structure {}: diagnostics differ",
                    options.structure
                );
                assert_eq!(
                    pushed.interchanges, expected.interchanges,
                    "{name}, chunks of {size}, structure {}: summaries differ",
                    options.structure
                );
                assert_eq!(pushed, expected, "{name}, chunks of {size}");
            }
        }
    }
}

/// Empty chunks, one whole chunk larger than the validator's piece, and a
/// last segment without terminator.
#[test]
fn push_validation_edge_chunkings() {
    let _serial = serial();
    let x12: &[u8] = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*4*0001~GE*1*1~IEA*1*000000001";
    let expected = x12kit::validate_reader(x12, &Options::default()).unwrap();
    assert!(!expected.diagnostics.is_empty());
    let mut v = StreamValidator::new(Options::default());
    v.feed(b"");
    for chunk in x12.chunks(3) {
        v.feed(chunk);
        v.feed(b"");
    }
    assert_eq!(v.finish(), expected);
    assert_eq!(
        StreamValidator::new(Options::default()).finish(),
        x12kit::validate_reader(&b""[..], &Options::default()).unwrap()
    );
    // A 1 MB chunk at once: validated in pieces, same result.
    let mut big = Vec::new();
    for _ in 0..(1_000_000 / x12.len() + 1) {
        big.extend_from_slice(x12);
        big.extend_from_slice(b"~\n");
    }
    let mut v = StreamValidator::new(Options::default());
    v.feed(&big);
    assert!(v.retained_bytes() < 64 * 1024);
    assert_eq!(
        v.finish(),
        x12kit::validate_reader(&big[..], &Options::default()).unwrap()
    );
}

/// What `push` measured.
struct Pushed {
    bytes: usize,
    interchanges: usize,
    diagnostics: usize,
    peak_heap: usize,
    peak_state: usize,
}

/// The generator's bytes pushed in `chunk`-byte pieces to a `StreamValidator`
/// with the default `Validation` sink and `Retain::Counts`, as a C program
/// would through `x12kit_stream_validator_feed`.
fn push(size: usize, chunk: usize) -> Pushed {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let mut source = Generated::new(size);
    let options = Options {
        retain: Retain::Counts,
        max_control_numbers: 1_000,
        ..Options::default()
    };
    let mut v = StreamValidator::new(options);
    let mut buf = vec![0u8; chunk];
    let mut bytes = 0;
    let mut peak_state = 0;
    loop {
        let n = source.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        bytes += n;
        v.feed(&buf[..n]);
        peak_state = peak_state.max(v.retained_bytes());
    }
    let result = v.finish();
    let peak_heap = PEAK.load(Ordering::Relaxed) - before;
    assert_eq!(
        result.diagnostics.len() as u64,
        source.sets / 100,
        "every planted SE01 error is found"
    );
    assert!(result.diagnostics.iter().all(|d| d.code == Code::Se01Count));
    assert_eq!(result.interchanges.len() as u64, source.interchange);
    assert!(
        result.interchanges.iter().all(|i| i.groups.is_empty()),
        "Retain::Counts keeps no group or set summaries"
    );
    Pushed {
        bytes,
        interchanges: result.interchanges.len(),
        diagnostics: result.diagnostics.len(),
        peak_heap,
        peak_state,
    }
}

#[test]
fn push_validation_memory_is_bounded() {
    let _serial = serial();
    let mb: usize = std::env::var("X12KIT_STREAM_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    for chunk in [7, 4096, 1 << 20] {
        let small = push(4_000_000, chunk);
        let large = push(mb * 1_000_000, chunk);
        eprintln!(
            "pushed in {chunk}-byte chunks: {} bytes: peak heap {}; {} bytes \
             ({} interchanges, {} diagnostics): peak heap {}, validator state {}",
            small.bytes,
            small.peak_heap,
            large.bytes,
            large.interchanges,
            large.diagnostics,
            large.peak_heap,
            large.peak_state
        );
        assert!(large.bytes >= mb * 1_000_000);
        // The validator itself: at most a 64 KiB piece of a chunk held, its
        // open levels and up to 1000 ISA13s, whatever the chunk size.
        assert!(
            large.peak_state <= 64 * 1024 + 16 * 1024 + 48 * 1_000,
            "validator state {} in {chunk}-byte chunks",
            large.peak_state
        );
        // The heap grows only with the result kept (no group or set
        // summaries): one summary per interchange and one diagnostic per
        // planted error, with room for their vectors doubling.
        let result = 2 * (1024 * large.interchanges + 2048 * large.diagnostics);
        assert!(
            large.peak_heap <= small.peak_heap + result,
            "peak heap {} for {} bytes vs {} for {} bytes ({chunk}-byte chunks)",
            large.peak_heap,
            large.bytes,
            small.peak_heap,
            small.bytes
        );
    }
}

/// Counts what the stream reads instead of keeping it.
#[derive(Default)]
struct AckCounts {
    interchange_acks: u64,
    group_acks: u64,
    ak2: u64,
    utf8: u64,
    recovered: u64,
    interchanges: u64,
}

impl Sink for AckCounts {
    fn diagnostic(&mut self, d: Diagnostic) {
        if d.code == Code::InvalidUtf8 {
            self.utf8 += 1;
        }
    }

    fn interchange(&mut self, i: InterchangeSummary) {
        self.interchanges += 1;
        if i.recovered {
            self.recovered += 1;
        }
    }

    fn interchange_ack(&mut self, _ack: x12kit::ack::InterchangeAck) {
        self.interchange_acks += 1;
    }

    fn group_ack(&mut self, ack: x12kit::ack::GroupAck) {
        self.group_acks += 1;
        self.ak2 += ack.transactions.len() as u64;
    }
}

/// `n` interchanges, each carrying a TA1, a 997 of 50 AK2s and a set with
/// text that is not UTF-8, each followed by an ISA that cannot be parsed
/// (ISA16 a space), pushed in 7-byte chunks with `Retain::Counts` into a sink
/// that counts: the acknowledgements are read, the unreadable interchanges
/// recovered and the UTF-8 checked, and the heap does not grow with `n`.
fn push_acks(n: u64) -> (AckCounts, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let options = Options {
        retain: Retain::Counts,
        max_control_numbers: 1_000,
        ..Options::default()
    };
    let mut v =
        StreamValidator::with_validator(Validator::with_sink(options, AckCounts::default()));
    let mut one = Vec::new();
    for i in 1..=n {
        one.clear();
        one.extend_from_slice(format!("ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*{i:09}*0*P*>~\nTA1*{i:09}*230101*1200*A*000~\nGS*FA*SENDER*RECEIVER*20230101*1200*1*X*004010~\nST*997*0001~\nAK1*PO*1~\n").as_bytes());
        for s in 1..=50 {
            one.extend_from_slice(format!("AK2*850*{s:04}~\nAK5*A~\n").as_bytes());
        }
        one.extend_from_slice(b"AK9*A*50*50*50~\nSE*104*0001~\nGE*1*1~\nGS*PO*SENDER*RECEIVER*20230101*1200*2*X*004010~\nST*850*0001~\nN1*ST*Caf\xe9 \xc3\xa9~\nSE*3*0001~\nGE*1*2~\n");
        one.extend_from_slice(format!("IEA*2*{i:09}~\nISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*{i:09}*0*P* ~\n").as_bytes());
        for chunk in one.chunks(7) {
            v.feed(chunk);
        }
    }
    let counts = v.finish();
    (counts, PEAK.load(Ordering::Relaxed) - before)
}

#[test]
fn reading_acknowledgements_utf8_and_unreadable_isas_keeps_memory_bounded() {
    let _serial = serial();
    let (small, small_peak) = push_acks(20);
    let (large, large_peak) = push_acks(2_000);
    for (c, n) in [(&small, 20), (&large, 2_000)] {
        assert_eq!(c.interchange_acks, n);
        assert_eq!(c.group_acks, n);
        assert_eq!(c.ak2, 50 * n);
        assert_eq!(c.recovered, n);
        assert_eq!(c.interchanges, 2 * n);
        // Ten reports, then one saying more follow.
        assert_eq!(c.utf8, 11);
    }
    eprintln!("peak heap: {small_peak} bytes for 20 interchanges, {large_peak} for 2000");
    // The only growth allowed: the ISA13 duplicate check, capped at 1000
    // numbers (as in `push_validation_memory_is_bounded`).
    assert!(
        large_peak <= small_peak + 48 * 1_000 + 16 * 1024,
        "peak heap {large_peak} for 2000 interchanges vs {small_peak} for 20"
    );
}
