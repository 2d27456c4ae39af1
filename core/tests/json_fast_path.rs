//! The parse result's writer: its fast paths (plain segments, envelope
//! fields) write what its general path writes, with the mapped documents
//! of the known sets (which read the fast path's "clean" flags), on every
//! committed input and its re-delimited variants, and on random segments
//! and envelopes.

mod common;

use x12kit::documents::JsonDocuments;
use x12kit::parse;

/// The whole-tree JSON written with and without the fast paths.
fn both_paths(input: &[u8]) -> (Vec<u8>, Vec<u8>) {
    x12kit_json::writer::fast_and_reference::<JsonDocuments>(&parse(input))
}

/// Every committed input and its re-delimited variants.
#[test]
fn plain_segments_are_written_as_the_general_path_writes_them() {
    let inputs = common::committed_inputs();
    assert!(inputs.len() > 300, "only {} inputs", inputs.len());
    for (name, input) in &inputs {
        let (fast, general) = both_paths(input);
        assert!(fast == general, "{name}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// Segments of every length around the 16-byte blocks, made of plain
    /// text, the delimiters and bytes that need escaping or checking;
    /// their ids are ones the 850's document maps (strings, numbers,
    /// dates, qualifier pairs, nested objects), so the documents compare
    /// mapping with the writer's clean flags against mapping without,
    /// and ids that hold a separator, a quote or a control byte. The
    /// interchanges use `:` and `^`, `:` alone, or a control byte and a
    /// quote as component and repetition separators.
    #[test]
    fn plain_segments_equal_the_general_path_on_random_segments(
        segs in proptest::collection::vec(
            (
                proptest::sample::select(&["REF", "PO1", "N1", "PID", "DTM", "N4", "ITD", "N:1", "N\"1", "N\x1f1", "N^1"][..]),
                proptest::collection::vec(
                    proptest::sample::select(&b"AB9 .-*****:::^^^\"\\\x01\x1f\x1f\x7f\xc3\xa9\xff"[..]),
                    0..70,
                ),
            ),
            1..6,
        ),
        isa in proptest::sample::select(vec![
            &b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000001*0*P*:~"[..],
            b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*:~",
            b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*\"*00501*000000001*0*P*\x1f~",
        ]),
    ) {
        let mut input = isa.to_vec();
        input.extend_from_slice(b"GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~");
        for (id, s) in &segs {
            input.extend_from_slice(id.as_bytes());
            input.push(b'*');
            input.extend_from_slice(s);
            input.push(b'~');
        }
        input.extend_from_slice(b"SE*3*0001~GE*1*1~IEA*1*000000001~");
        let (fast, general) = both_paths(&input);
        proptest::prop_assert!(fast == general, "{}", String::from_utf8_lossy(&input));
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

    /// Envelope segments (ISA values, GS, ST, SE, GE, IEA) with random
    /// values, as many elements as they have names, fewer or more
    /// (`extra`), are written by `plain::fields` as the general path
    /// writes them.
    #[test]
    fn plain_fields_equal_the_general_path_on_random_envelopes(
        envelope in proptest::collection::vec(
            proptest::collection::vec(
                proptest::collection::vec(
                    proptest::sample::select(&b"AB9 .-:^\"\\\x01\x7f\xc3\xa9\xff"[..]),
                    0..12,
                ),
                0..12,
            ),
            5,
        ),
        isa_values in proptest::sample::select(vec![&b"^"[..], b"U", b"\\", b"\"", b"\xe9"]),
    ) {
        let mut input = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*".to_vec();
        input.extend_from_slice(isa_values);
        input.extend_from_slice(b"*00501*000000001*0*P*:~");
        for (id, values) in ["GS", "ST", "SE", "GE", "IEA"].iter().zip(&envelope) {
            if *id == "SE" {
                input.extend_from_slice(b"BEG*00~");
            }
            input.extend_from_slice(id.as_bytes());
            for v in values {
                input.push(b'*');
                input.extend_from_slice(v);
            }
            input.push(b'~');
        }
        let (fast, general) = both_paths(&input);
        proptest::prop_assert!(fast == general, "{}", String::from_utf8_lossy(&input));
    }
}
