//! Throughput of envelope validation on generated 850 purchase orders of
//! 1 MB and 100 MB: parse alone (the baseline, in the same run), parse +
//! validate, validate alone on a parsed document,
//! streaming validation (64 KiB chunks, bounded memory), and building the
//! 997/999 acknowledgement.
//!
//! Every benchmark checks its answer against counts taken once from the
//! generator: the input is valid, and every set is seen and accepted.

use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, measurement::WallTime};
use std::hint::black_box;
use std::time::Duration;
use x12kit::DateTime as Timestamp;
use x12kit::validate::{GroupSummary, InterchangeSummary, Options, Retain, Sink, Validation};
use x12kit::{AckKind, AckOptions, Diagnostic, Validator};
use x12kit_benches::{Counts, Version, generate_with};

/// (sets received, sets accepted, error diagnostics) of a validation.
fn outcome(v: &Validation) -> (u64, u64, usize) {
    let groups = v.interchanges.iter().flat_map(|i| &i.groups);
    let (mut received, mut accepted) = (0, 0);
    for g in groups {
        received += g.ak9.received;
        accepted += g.ak9.accepted;
    }
    (received, accepted, v.error_count())
}

/// Counts what the streaming validator reports, keeping nothing.
#[derive(Default)]
struct Tally {
    received: u64,
    accepted: u64,
    errors: usize,
}

impl Sink for Tally {
    fn diagnostic(&mut self, d: Diagnostic) {
        self.errors += usize::from(d.is_error());
    }

    fn group(&mut self, g: &GroupSummary) {
        self.received += g.ak9.received;
        self.accepted += g.ak9.accepted;
    }

    fn interchange(&mut self, _i: InterchangeSummary) {}
}

fn stream(data: &[u8]) -> (u64, u64, usize) {
    let options = Options {
        retain: Retain::Counts,
        ..Options::default()
    };
    let t = Validator::with_sink(options, Tally::default())
        .read(data)
        .expect("reading a slice cannot fail");
    (t.received, t.accepted, t.errors)
}

fn run_group(group: &mut BenchmarkGroup<'_, WallTime>, data: &[u8], c: Counts) {
    group.throughput(Throughput::BytesDecimal(data.len() as u64));
    let sets = c.transactions as u64;
    let expected = (sets, sets, 0);

    group.bench_function("parse", |b| {
        b.iter(|| {
            let doc = x12kit::parse(black_box(data));
            let n = doc.interchanges.len();
            assert_eq!((n, doc.has_errors()), (c.interchanges, false));
            n
        })
    });
    group.bench_function("parse+validate", |b| {
        b.iter(|| {
            let doc = x12kit::parse(black_box(data));
            let v = x12kit::validate(&doc);
            let r = outcome(&v);
            assert_eq!(r, expected);
            r
        })
    });
    let doc = x12kit::parse(data);
    group.bench_function("validate", |b| {
        b.iter(|| {
            let v = x12kit::validate(black_box(&doc));
            let r = outcome(&v);
            assert_eq!(r, expected);
            r
        })
    });
    group.bench_function("stream_validate_64KiB", |b| {
        b.iter(|| {
            let r = stream(black_box(data));
            assert_eq!(r, expected);
            r
        })
    });
    let v = x12kit::validate(&doc);
    let options = AckOptions {
        kind: AckKind::Auto,
        timestamp: Some(Timestamp::new(2024, 1, 1, 0, 0).unwrap()),
        ..AckOptions::default()
    };
    group.bench_function("acknowledge_all_sets", |b| {
        b.iter(|| {
            let ack = x12kit::acknowledge(black_box(&v), &options).unwrap();
            // One AK2 per set received.
            let ak2 = memchr::memmem::find_iter(&ack, b"AK2*").count();
            assert_eq!(ak2 as u64, sets);
            ack.len()
        })
    });
}

fn benches(c: &mut Criterion) {
    let small = generate_with(1_000_000, Version::Mixed);
    let mut group = c.benchmark_group("validate_1MB");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    run_group(&mut group, &small.data, small.counts);
    group.finish();
    drop(small);

    let large = generate_with(100_000_000, Version::Mixed);
    let mut group = c.benchmark_group("validate_100MB");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    run_group(&mut group, &large.data, large.counts);
    group.finish();
}

criterion::criterion_group!(validate, benches);
criterion::criterion_main!(validate);
