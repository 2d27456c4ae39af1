//! Partner implementation guides end to end: the demo partner's documents,
//! rendered, validate clean under its guides (`examples/guides`), and
//! guided validation of the corpus files of the guided sets: a permissive
//! guide adds no diagnostic, a strict one finds what a reading of the files
//! by hand finds. The guide schema is valid JSON Schema and describes the
//! example guides.

mod common;

use common::corpus_dir;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use x12kit::guide::{Guide, Guides};
use x12kit::{DateTime, ops};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read_json(rel: &str) -> Value {
    let text = std::fs::read(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    serde_json::from_slice(&text).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn example_guide(code: &str) -> Guide {
    Guide::from_value(&read_json(&format!(
        "examples/guides/acme-retail-{code}.json"
    )))
    .unwrap_or_else(|e| panic!("{code}: {e}"))
}

fn guided(input: &[u8], guides: Vec<Guide>) -> x12kit::Validation {
    let o = ops::ValidateOptions {
        guides: Guides::new(guides).unwrap(),
        ..Default::default()
    };
    ops::validate(input, &o)
}

const GUIDED: [&str; 4] = ["850", "810", "856", "204"];

#[test]
fn the_demo_documents_render_clean_under_their_guides() {
    let partner = read_json("examples/partners/acme-retail.json");
    for code in GUIDED {
        let payload = read_json(&format!("examples/payloads/{code}.json"));
        let r = ops::render(
            code,
            &payload,
            &partner,
            &ops::RenderOptions::default(),
            DateTime::from_unix(1_700_000_000),
        )
        .unwrap();
        let v = guided(&r.x12, vec![example_guide(code)]);
        assert!(
            v.is_valid() && v.diagnostics.is_empty(),
            "{code}: {:#?}",
            v.diagnostics
        );
    }
}

#[test]
fn the_guide_schema_is_valid_and_describes_the_examples() {
    let schema = read_json("schema/guide.schema.json");
    jsonschema::draft202012::meta::validate(&schema).expect("a draft 2020-12 schema");
    let v = jsonschema::draft202012::new(&schema).unwrap();
    for code in GUIDED {
        let g = read_json(&format!("examples/guides/acme-retail-{code}.json"));
        let errors: Vec<String> = v.iter_errors(&g).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{code}: {errors:?}");
    }
    // And refuses what the loader refuses for its shape.
    for bad in [
        json!({"id": "x", "documentType": "850", "version": "004010", "colour": 1}),
        json!({"id": "x", "documentType": "850", "version": "4010"}),
        json!({"id": "x", "documentType": "850", "version": "004010", "segments": {"BEG": {"usage": "sometimes"}}}),
        json!({"id": "x", "documentType": "850", "version": "004010", "segments": {"beg": {}}}),
    ] {
        assert!(!v.is_valid(&bad), "{bad}");
        assert!(Guide::from_value(&bad).is_err(), "{bad}");
    }
}

/// A guide for `code` and `version` that narrows nothing a valid set uses:
/// the uses the standard already has, and the set's mandatory opening segment.
fn permissive(code: &str, version: &str) -> Guide {
    let first = match code {
        "850" => "BEG",
        "810" => "BIG",
        "856" => "BSN",
        "204" => "B2",
        _ => unreachable!(),
    };
    Guide::from_value(&json!({
        "id": format!("permissive-{code}-{version}"),
        "documentType": code,
        "version": version,
        "segments": { first: { "usage": "required", "minUse": 1, "maxUse": 1 } }
    }))
    .unwrap()
}

fn codes(v: &x12kit::Validation) -> Vec<(String, Option<usize>, Option<u32>)> {
    v.diagnostics
        .iter()
        .filter(|d| d.code.as_str() != "GUIDE_NOT_APPLIED")
        .map(|d| (d.code.as_str().to_string(), d.segment_index, d.element))
        .collect()
}

#[test]
fn a_permissive_guide_adds_no_diagnostic_on_the_corpus() {
    let Some(dir) = corpus_dir() else { return };
    let mut files = 0;
    for code in GUIDED {
        let Ok(entries) = std::fs::read_dir(dir.join(code)) else {
            continue;
        };
        let guides: Vec<Guide> = ["004010", "005010"]
            .iter()
            .map(|v| permissive(code, v))
            .collect();
        for e in entries {
            let path = e.unwrap().path();
            let input = std::fs::read(&path).unwrap();
            let plain = ops::validate(
                &input,
                &ops::ValidateOptions {
                    structure: true,
                    ..Default::default()
                },
            );
            let with = guided(&input, guides.clone());
            assert_eq!(codes(&plain), codes(&with), "{}", path.display());
            assert_eq!(plain.is_valid(), with.is_valid(), "{}", path.display());
            files += 1;
        }
    }
    assert!(files >= 40, "only {files} corpus files of the guided sets");
}

/// (code, segment index, element) of the guide findings of a corpus file.
fn guide_findings(dir: &Path, file: &str, guide: Guide) -> Vec<(String, usize, Option<u32>)> {
    let input = std::fs::read(dir.join(file)).unwrap();
    guided(&input, vec![guide])
        .diagnostics
        .iter()
        .filter(|d| d.code.as_str().starts_with("GUIDE_"))
        .map(|d| {
            assert!(d.guide_pointer.is_some(), "{d}");
            (
                d.code.as_str().to_string(),
                d.segment_index.unwrap(),
                d.element,
            )
        })
        .collect()
}

fn f(code: &str, segment: usize, element: Option<u32>) -> (String, usize, Option<u32>) {
    (code.to_string(), segment, element)
}

#[test]
fn a_strict_guide_finds_what_a_reading_by_hand_finds() {
    let Some(dir) = corpus_dir() else { return };
    // ST*850 / BEG*00*NE*PO12345**20260709 / PO1**1*EA*10.00**VN*VENDORSKU / CTT*1:
    // BEG03 is not ACME's PO-nnnn, there is no N1 loop (ACME requires a
    // ship-to), and VN is not one of ACME's product id qualifiers.
    assert_eq!(
        guide_findings(
            &dir,
            "850/stupidedi__004010_PO850_pass_1.edi",
            example_guide("850")
        ),
        vec![
            f("GUIDE_PATTERN", 3, Some(3)),
            f("GUIDE_LOOP_TOO_FEW", 4, None),
            f("GUIDE_CODE_NOT_USED", 4, Some(6)),
        ]
    );
}
