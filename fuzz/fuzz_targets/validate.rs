//! Fuzzes validation and acknowledgements: `validate` and `validate_with`
//! (envelope rules alone and with the structure of the declared sets), the
//! validation JSON, `ack::read`, and `acknowledge` (TA1, 997, 999 or auto;
//! all sets or errors only). Every acknowledgement built must itself parse
//! and validate with no diagnostic (the contract of `core/edi/src/ack/mod.rs`,
//! checked the same way as `core/tests/validate_props.rs`). `validate_reader` over the same
//! bytes in chunks must give exactly what `validate_with` gives.
//!
//! The first byte picks the chunk sizes (bits 0-1), a small duplicate-check
//! limit (bit 2), structure checks in the lighter retention modes (bit 3), the
//! acknowledgement kind (bits 4-5) and errors only (bit 6); the rest is the X12.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use std::io::Read;
use x12kit::DateTime as Timestamp;
use x12kit::validate::{Options, Retain, Validation};
use x12kit::{AckKind, AckOptions, Code};

/// A reader that hands out its bytes in chunks of the given sizes, in turn.
struct Chunked<'a> {
    data: &'a [u8],
    sizes: &'a [usize],
    k: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.sizes[self.k % self.sizes.len()]
            .min(buf.len())
            .min(self.data.len());
        self.k += 1;
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn ack_options(kind: AckKind, errors_only: bool) -> AckOptions {
    AckOptions {
        kind,
        errors_only,
        timestamp: Some(Timestamp::new(2026, 11, 23, 12, 0).unwrap()),
        ..AckOptions::default()
    }
}

fn check_json(v: &Validation) {
    let json = v.to_json();
    let value: serde_json::Value =
        serde_json::from_slice(&json).expect("Validation::to_json gives JSON");
    assert_eq!(value["valid"], serde_json::Value::Bool(v.is_valid()));
    assert_eq!(value["errorCount"], v.error_count());
}

/// Builds the acknowledgement of `kind` and checks it parses and validates
/// with no diagnostic, and reads back.
fn check_ack(v: &Validation, input: &[u8], kind: AckKind, errors_only: bool) {
    let ack = match x12kit::acknowledge(v, &ack_options(kind, errors_only)) {
        Ok(ack) => ack,
        Err(e) => {
            assert_eq!(
                x12kit::ErrorCode::from_name(e.code().as_str()),
                Some(e.code())
            );
            return;
        }
    };
    if ack.is_empty() {
        return;
    }
    let doc = x12kit::parse(&ack);
    // Envelope rules only: 997, 999 and TA1 are not among the declared sets
    // whose structure `Options::structure` checks.
    let mut av = x12kit::validate(&doc);
    // Received delimiters above 0x7F are kept, and are not UTF-8.
    av.diagnostics
        .retain(|d| d.code != Code::InvalidUtf8 || ack.is_ascii());
    assert!(
        av.diagnostics.is_empty(),
        "{kind:?} errors_only={errors_only}: {:#?}\ninput: {:?}\nack:\n{}",
        av.diagnostics,
        String::from_utf8_lossy(input),
        String::from_utf8_lossy(&ack)
    );
    // What the acknowledgement says reads back.
    let read = x12kit::ack::read(&doc);
    assert!(
        !read.is_empty(),
        "{kind:?}: ack::read found nothing in\n{}",
        String::from_utf8_lossy(&ack)
    );
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let sizes = common::chunk_sizes(pick);
    // A small duplicate-check limit now and then, to reach DUPLICATE_CHECK_LIMIT.
    let max_control_numbers = if pick & 4 != 0 { 2 } else { 100_000 };

    let doc = x12kit::parse(input);
    let _ = serde_json::to_vec(&x12kit::ack::read(&doc)).expect("ack::read serializes");

    let plain = x12kit::validate(&doc);
    check_json(&plain);
    let structured = x12kit::validate::validate_with(
        &doc,
        &Options {
            structure: true,
            max_control_numbers,
            ..Default::default()
        },
    );
    check_json(&structured);

    // Streaming over the same bytes gives exactly the whole-document result
    // (interchanges recovered from unreadable ISAs, UTF-8 warnings and the
    // acknowledgements read included), as core/tests/validate_stream_parity.rs
    // checks on the vectors and the corpus.
    for (options, whole) in [
        (Options::default(), &plain),
        (
            Options {
                structure: true,
                max_control_numbers,
                ..Default::default()
            },
            &structured,
        ),
    ] {
        let reader = Chunked {
            data: input,
            sizes,
            k: 0,
        };
        let streamed =
            x12kit::validate_reader(reader, &options).expect("reading a slice never fails");
        assert_eq!(&streamed, whole, "structure={}", options.structure);
    }
    // The lighter retention modes never panic either.
    for retain in [Retain::Errors, Retain::Counts] {
        let reader = Chunked {
            data: input,
            sizes,
            k: 0,
        };
        let v = x12kit::validate_reader(
            reader,
            &Options {
                retain,
                structure: pick & 8 != 0,
                max_control_numbers,
                ..Options::default()
            },
        )
        .expect("reading a slice never fails");
        let _ = v.to_json();
    }

    // One kind per input (all eight over a run: the fuzzer varies the first
    // byte), which keeps the target about twice as fast as building all eight.
    let kind =
        [AckKind::Auto, AckKind::Ta1, AckKind::Fa997, AckKind::Fa999][usize::from(pick >> 4) & 3];
    let errors_only = pick & 0x40 != 0;
    check_ack(&plain, input, kind, errors_only);
    check_ack(&structured, input, kind, errors_only);
});
