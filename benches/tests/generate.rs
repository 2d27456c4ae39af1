//! The generated inputs are valid X12 and their expected counts are what
//! x12kit finds.

use x12kit::{Token, Tokenizer};
use x12kit_benches::{Counts, Version, generate, generate_with};

/// Counts what x12kit's tokenizer and envelope parser find.
fn measured(data: &[u8]) -> Counts {
    let mut c = Counts::default();
    for t in Tokenizer::new(data) {
        match t {
            Token::Segment(s) => {
                c.segments += 1;
                for e in s.elements() {
                    c.elements += 1;
                    for r in e.repetitions() {
                        for p in r.components() {
                            c.pieces += 1;
                            c.piece_bytes += p.raw().len();
                        }
                    }
                }
            }
            Token::Diagnostic(d) => panic!("unexpected diagnostic: {d}"),
        }
    }
    let doc = x12kit::parse(data);
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    c.interchanges = doc.interchanges.len();
    for i in &doc.interchanges {
        let iea = i.iea.expect("IEA");
        assert_eq!(iea.value(1), i.groups.len().to_string().as_bytes());
        assert_eq!(iea.value(2), i.isa.value(13));
        c.groups += i.groups.len();
        for g in &i.groups {
            let (gs, ge) = (g.gs.expect("GS"), g.ge.expect("GE"));
            assert_eq!(ge.value(1), g.transactions.len().to_string().as_bytes());
            assert_eq!(ge.value(2), gs.value(6));
            c.transactions += g.transactions.len();
            for t in &g.transactions {
                assert_eq!(t.kind(), b"850");
                let body: Vec<_> = doc.body(t).collect();
                let se = t.se.expect("SE");
                assert_eq!(se.value(1), (body.len() + 2).to_string().as_bytes());
                assert_eq!(se.value(2), t.control_number());
                let lines = body.iter().filter(|s| s.is(b"PO1")).count();
                let ctt = body.iter().find(|s| s.is(b"CTT")).expect("CTT");
                assert_eq!(ctt.value(1), lines.to_string().as_bytes());
                c.body_segments += body.len();
            }
        }
    }
    c
}

#[test]
fn generated_inputs_parse_cleanly_with_the_expected_counts() {
    for version in [Version::V4010, Version::V5010, Version::Mixed] {
        for size in [0, 1, 5_000, 300_000, 1_000_000] {
            let g = generate_with(size, version);
            assert!(
                g.data.len() + 64 >= size,
                "{version:?} {size}: {}",
                g.data.len()
            );
            assert!(
                g.data.len() <= size + 64 * 1024,
                "{version:?} {size}: {}",
                g.data.len()
            );
            assert!(g.data.ends_with(b"~\n"));
            assert_eq!(measured(&g.data), g.counts, "{version:?} {size}");
            assert!(g.counts.interchanges >= 1 && g.counts.transactions >= 1);
        }
    }
}

#[test]
fn inputs_are_deterministic_and_realistic() {
    let a = generate(1_000_000);
    assert_eq!(a, generate(1_000_000));
    let g = generate_with(1_000_000, Version::Mixed);
    assert_eq!(a, g.data);
    assert!(g.counts.interchanges >= 2, "{:?}", g.counts);
    assert!(g.counts.groups > g.counts.interchanges, "{:?}", g.counts);
    let text = std::str::from_utf8(&a).unwrap();
    for needle in [
        "*00401*",
        "*00501*",
        "\nN1*ST*",
        "\nN3*",
        "\nN4*",
        "\nCTT*",
        "\nDTM*002*",
        "**VP*SKU",
    ] {
        assert!(text.contains(needle), "{needle}");
    }

    // Composites in 004010, composites and repetitions in 005010.
    let composites_and_repeats = |v| {
        let g = generate_with(200_000, v);
        let (mut composite, mut repeated) = (0, 0);
        for s in x12kit::segments(&g.data).filter(|s| !s.is(b"ISA")) {
            for e in s.elements() {
                composite += usize::from(e.is_composite());
                repeated += usize::from(e.is_repeated());
            }
        }
        (composite, repeated)
    };
    let (c4, r4) = composites_and_repeats(Version::V4010);
    assert!(c4 > 100 && r4 == 0, "{c4} {r4}");
    let (c5, r5) = composites_and_repeats(Version::V5010);
    assert!(c5 > 100 && r5 > 10, "{c5} {r5}");
}
