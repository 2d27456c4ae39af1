//! Property test of the structural index: X12 with random delimiters
//! (any usable byte, line breaks included), random element lengths (some
//! past a 64-byte block) and random chunk boundaries is split alike by every
//! kernel (`x12kit::index`), whole and chunk-fed. One test in this file:
//! the active kernel is process-wide.

mod common;

use proptest::prelude::*;
use proptest::test_runner::Config;
use x12kit::index::{self, Kernel};

/// Bytes usable as delimiters: not letters, digits or space.
const DELIMS: &[u8] =
    b"*|~^:>!\"#$%&'()+,-./;<=?@[\\]_`{}\x1c\x1d\x1e\x1f\x07\n\r\t\x0b\x0c\x85\xff";

/// Four distinct delimiters: element, component, repetition (or none), segment.
fn delimiters() -> impl Strategy<Value = (u8, u8, Option<u8>, u8)> {
    (
        prop::sample::subsequence(DELIMS.to_vec(), 4).prop_shuffle(),
        any::<bool>(),
    )
        .prop_map(|(d, rep)| (d[0], d[1], rep.then_some(d[2]), d[3]))
}

/// A segment body piece: text, a delimiter, whitespace, or a long run.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[A-Z0-9]{0,6}".prop_map(String::into_bytes),
        3 => (0u8..4).prop_map(|k| vec![k]), // replaced by delimiter k below
        1 => prop::sample::select(vec![b" ".to_vec(), b"\r\n".to_vec(), b"\t".to_vec(), b"\n".to_vec()]),
        1 => (60usize..140).prop_map(|n| vec![b'X'; n]),
    ]
}

fn build(d: (u8, u8, Option<u8>, u8), segs: &[(u8, Vec<Vec<u8>>, u8)]) -> Vec<u8> {
    let (e, c, r, s) = d;
    let delim = [e, c, r.unwrap_or(e), s];
    let mut out = x12kit_syntax::testing::isa(e, c, r, s);
    let ids: [&[u8]; 6] = [b"GS", b"ST", b"N1", b"PO1", b"SE", b"GE"];
    for (id, pieces, brk) in segs {
        out.extend_from_slice(ids[*id as usize % ids.len()]);
        out.push(e);
        for p in pieces {
            match p.as_slice() {
                [k] if *k < 4 => out.push(delim[*k as usize]),
                _ => out.extend_from_slice(p),
            }
        }
        out.push(s);
        out.extend_from_slice(match brk % 4 {
            0 => &b""[..],
            1 => b"\n",
            2 => b"\r\n",
            _ => b"  \n",
        });
    }
    out
}

proptest! {
    #![proptest_config(Config {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(192),
        failure_persistence: None,
        ..Config::default()
    })]

    #[test]
    fn every_kernel_splits_random_x12_alike(
        d in delimiters(),
        segs in prop::collection::vec((any::<u8>(), prop::collection::vec(piece(), 0..12), any::<u8>()), 0..40),
        cut in prop::collection::vec(1usize..200, 1..6),
        tail in any::<bool>(),
    ) {
        let mut input = build(d, &segs);
        if tail {
            // A last segment without its terminator.
            input.extend_from_slice(b"IEA*1*000000001");
        }
        let kernels = Kernel::available();
        let mut seen = Vec::new();
        for &k in &kernels {
            prop_assert!(index::set_kernel(k));
            seen.push(common::observe(&input, &cut));
        }
        for (k, got) in kernels.iter().zip(&seen).skip(1) {
            prop_assert_eq!(got, &seen[0], "{:?} vs portable on {:?}", k, String::from_utf8_lossy(&input));
        }
    }
}
