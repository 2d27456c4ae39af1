//! Throughput of the operations on files of any size, on generated 850
//! purchase orders (1 MB and 20 MB, many interchanges) and on the same sets
//! as one interchange (the shape whose memory the set-by-set path bounds):
//!
//! - `json_held` / `json_set_by_set`: the parse JSON (no documents) with an
//!   interchange held whole (`to_json_stream_holding` with no limit) and
//!   streamed a set at a time (`hold` 0), the same bytes;
//! - `split_per_set` / `split_per_group`: `ops::split_each`, parts dropped;
//! - `merge`: `ops::merge` of the per-group parts back into one interchange;
//! - `each_set` / `each_set_fed`: the set objects of the bindings' set
//!   iterators (documents mapped), from the whole input (`each_set_json`,
//!   what Python and Node read a mapped file with) and pushed in 64 KiB
//!   chunks (`EachSetFeeder`, what WASM reads a `Blob` with), the same bytes.
//!
//! Every bench checks its answer (bytes written, sets in the parts, the
//! merged length) against what was measured once.

use criterion::{Criterion, SamplingMode, Throughput};
use std::hint::black_box;
use std::time::Duration;
use x12kit::json::{EachSetFeeder, JsonOptions, each_set_json, to_json_stream_holding};
use x12kit::ops::{self, MergeOptions, Per, SplitOptions};
use x12kit_benches::{Count, generate};

/// The sets of a generated input as one interchange of one group per
/// original group (ISA of the first, IEA with the right count).
fn one_interchange(data: &[u8]) -> Vec<u8> {
    let split = ops::split(
        data,
        &SplitOptions {
            per: Per::Group,
            ..Default::default()
        },
    )
    .expect("splits");
    let mut o = MergeOptions::default();
    o.renumber.group = Some(1);
    o.renumber.set = Some(1);
    o.renumber.interchange = Some(1);
    // Merging by functional id and version: the 004010 and 005010 groups
    // differ in delimiters, so only the 004010 parts merge.
    let first = split.parts[0].x12.clone();
    let isa = x12kit::parse(&first).interchanges[0]
        .isa
        .delimiters()
        .bytes();
    let parts: Vec<&[u8]> = split
        .parts
        .iter()
        .map(|p| &p.x12[..])
        .filter(|p| x12kit::parse(p).interchanges[0].isa.delimiters().bytes() == isa)
        .collect();
    ops::merge(&parts, &o).expect("merges")
}

fn json(data: &[u8], hold: usize) -> usize {
    let mut out = Count(0);
    let d = to_json_stream_holding(
        data,
        &mut out,
        false,
        &JsonOptions {
            documents: false,
            ..Default::default()
        },
        hold,
        &mut |_| {},
    )
    .expect("a counter cannot fail");
    assert!(d.is_empty());
    out.0
}

fn sets(data: &[u8], o: &SplitOptions) -> usize {
    let mut n = 0;
    ops::split_each(data, o, |p| {
        n += p.sets.len();
        Ok(())
    })
    .expect("splits");
    n
}

/// The bytes of every set object of `data`, from the slice.
fn each_set(data: &[u8]) -> usize {
    let mut n = 0;
    let d = each_set_json(
        data,
        &JsonOptions::default(),
        &mut |b| {
            n += b.len();
            true
        },
        &mut |_| {},
        &mut |_, _| {},
    );
    assert!(d.is_empty());
    n
}

/// [`each_set`] fed in 64 KiB chunks.
fn each_set_fed(data: &[u8]) -> usize {
    let mut n = 0;
    let mut r = EachSetFeeder::new(&JsonOptions::default());
    let mut each = |b: &[u8]| {
        n += b.len();
        true
    };
    for chunk in data.chunks(64 << 10) {
        r.feed(chunk, &mut each);
    }
    assert!(r.finish(&mut each).is_empty());
    n
}

fn bench(c: &mut Criterion) {
    for (name, size, samples) in [("1MB", 1_000_000, 30), ("20MB", 20_000_000, 10)] {
        let many = generate(size);
        let one = one_interchange(&many);
        for (shape, data) in [("interchanges", &many), ("one_interchange", &one)] {
            let mut group = c.benchmark_group(format!("{name}/{shape}"));
            group.throughput(Throughput::BytesDecimal(data.len() as u64));
            group.sample_size(samples);
            group.sampling_mode(SamplingMode::Flat);
            group.measurement_time(Duration::from_secs(5));
            let written = json(data, usize::MAX);
            assert_eq!(json(data, 0), written);
            let total = sets(data, &SplitOptions::default());
            group.bench_function("json_held", |b| {
                b.iter(|| assert_eq!(json(black_box(data), usize::MAX), written))
            });
            group.bench_function("json_set_by_set", |b| {
                b.iter(|| assert_eq!(json(black_box(data), 0), written))
            });
            group.bench_function("split_per_set", |b| {
                b.iter(|| assert_eq!(sets(black_box(data), &SplitOptions::default()), total))
            });
            let per_group = SplitOptions {
                per: Per::Group,
                ..Default::default()
            };
            group.bench_function("split_per_group", |b| {
                b.iter(|| assert_eq!(sets(black_box(data), &per_group), total))
            });
            let objects = each_set(data);
            assert_eq!(each_set_fed(data), objects);
            group.bench_function("each_set", |b| {
                b.iter(|| assert_eq!(each_set(black_box(data)), objects))
            });
            group.bench_function("each_set_fed", |b| {
                b.iter(|| assert_eq!(each_set_fed(black_box(data)), objects))
            });
            if shape == "one_interchange" {
                let split = ops::split(data, &per_group).expect("splits");
                let parts: Vec<&[u8]> = split.parts.iter().map(|p| &p.x12[..]).collect();
                let len = ops::merge(&parts, &MergeOptions::default())
                    .expect("merges")
                    .len();
                assert_eq!(len, data.len());
                group.bench_function("merge", |b| {
                    b.iter(|| {
                        let m = ops::merge(black_box(&parts), &MergeOptions::default());
                        assert_eq!(m.expect("merges").len(), len)
                    })
                });
            }
            group.finish();
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
