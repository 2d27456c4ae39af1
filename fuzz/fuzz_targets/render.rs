//! Fuzzes rendering: `Partner::from_json` on arbitrary text, and `render` of
//! an arbitrary payload for one of the declared types and a partner. `render` never
//! panics: it returns X12 or a typed error with a stable code. The X12 it
//! returns parses without errors, validates with no diagnostic (envelope and
//! set structure), its set maps back (`documents::map_back`) to exactly the
//! `document` that `render` returned, and that document renders the same X12.
//!
//! Input layout: byte 0 picks the type (`documents::TYPES`), byte 1 the
//! options (bit 0: partner from the input rather than the example profile;
//! bits 1-2: control numbers), then the partner JSON and the payload JSON
//! separated by the byte 0xFF (never part of UTF-8 text). Without a 0xFF the
//! whole rest is the payload.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use x12kit::documents::{self, TYPES};
use x12kit::validate::Options;
use x12kit::{ControlNumbers, Partner, RenderOptions};

/// `examples/partners/acme-retail.json`.
const EXAMPLE_PARTNER: &str = include_str!("../../examples/partners/acme-retail.json");

fn example_partner() -> &'static Partner {
    static P: OnceLock<Partner> = OnceLock::new();
    P.get_or_init(|| Partner::from_json(EXAMPLE_PARTNER).expect("the example partner is valid"))
}

fn is_code(code: &str) -> bool {
    !code.is_empty()
        && code
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

fuzz_target!(|data: &[u8]| {
    let [pick_type, flags, rest @ ..] = data else {
        return;
    };
    let code = TYPES[*pick_type as usize % TYPES.len()];
    let (partner_text, payload_text) = match rest.iter().position(|&b| b == 0xFF) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (&[][..], rest),
    };

    // Any partner JSON: a profile or every problem found, never a panic.
    let fuzzed_partner = std::str::from_utf8(partner_text)
        .ok()
        .map(Partner::from_json);
    if let Some(Err(e)) = &fuzzed_partner {
        assert!(is_code(e.code().as_str()), "{e}");
        // Text that is not JSON is INVALID_JSON; a profile that cannot be
        // used lists every problem found.
        if e.code() == x12kit::ErrorCode::InvalidPartner {
            assert!(!e.details().is_empty(), "{e}");
        }
        assert!(e.details().iter().all(|i| is_code(i.code.as_str())), "{e}");
    }
    let partner = if flags & 1 != 0 {
        match fuzzed_partner {
            Some(Ok(p)) => p,
            _ => return,
        }
    } else {
        example_partner().clone()
    };

    let Ok(payload) = serde_json::from_slice::<serde_json::Value>(payload_text) else {
        return;
    };
    let control = match (flags >> 1) & 3 {
        0 => ControlNumbers::default(),
        1 => ControlNumbers {
            interchange: 999_999_999,
            group: 999_999_999,
            transaction: 999_999_999,
        },
        2 => ControlNumbers {
            interchange: 0,
            group: 1_000_000_000,
            transaction: 7,
        },
        _ => ControlNumbers {
            interchange: 42,
            group: 4242,
            transaction: 12345,
        },
    };
    let options = RenderOptions {
        control_numbers: control,
        date: Some("20261123".into()),
        time: Some("1200".into()),
        guides: Default::default(),
    };
    // The date and time are the options': "now" is not read.
    let now = x12kit::DateTime::from_unix(0);

    let rendered = match x12kit::render(code, &payload, &partner, &options, now) {
        Ok(r) => r,
        Err(e) => {
            assert!(!e.details().is_empty());
            assert!(is_code(e.code().as_str()));
            assert!(e.details().iter().all(|i| is_code(i.code.as_str())), "{e}");
            let _ = e.to_string();
            return;
        }
    };
    assert!(rendered.warnings.iter().all(|i| is_code(i.code.as_str())));

    let doc = x12kit::parse(&rendered.x12);
    let x12 = String::from_utf8_lossy(&rendered.x12);
    assert!(
        !doc.has_errors(),
        "{code}: rendered X12 has parse errors: {:#?}\n{x12}",
        doc.diagnostics
    );
    let v = x12kit::validate::validate_with(
        &doc,
        &Options {
            structure: true,
            ..Default::default()
        },
    );
    assert!(
        v.diagnostics.is_empty(),
        "{code}: rendered X12 does not validate clean: {:#?}\n{x12}",
        v.diagnostics
    );

    let mut sets = 0;
    for i in &doc.interchanges {
        for g in &i.groups {
            for t in &g.transactions {
                sets += 1;
                let back =
                    documents::map_back(&doc, g, t).expect("a rendered set is a declared one");
                // Rendering the mapped document again gives the same X12.
                match x12kit::render(code, &back, &partner, &options, now) {
                    Ok(again) => assert!(
                        again.x12 == rendered.x12,
                        "{code}: the mapped document renders differently\nfirst:\n{x12}\nagain:\n{}\nmapped: {back}",
                        String::from_utf8_lossy(&again.x12)
                    ),
                    Err(e) => panic!(
                        "{code}: the mapped document does not render: {e}\n{x12}\nmapped: {back}"
                    ),
                }
                assert!(
                    back == rendered.document,
                    "{code}: map_back is not the rendered document\n{x12}\nmapped:   {back}\ndocument: {}",
                    rendered.document
                );
            }
        }
    }
    assert_eq!(sets, 1, "{code}: one set rendered\n{x12}");
    let _ = x12kit::to_json(&doc);
});
