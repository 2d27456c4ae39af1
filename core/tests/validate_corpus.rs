//! Runs the envelope validator and the acknowledgement builder over every
//! file of the public corpus (`../shared/corpus`, or the directory in
//! `X12KIT_CORPUS`), read in place and never copied into the repository.
//!
//! For each file:
//! - the error and warning codes and the TA1 / AK9 outcomes equal the
//!   decision recorded in `tests/validation-expectations.tsv` (with a note
//!   for every file that is not clean);
//! - validating the stream (64-byte chunks through `validate_reader`) gives
//!   the same result as validating the parsed document (acknowledgements
//!   read, `INVALID_UTF8`, the TA1 identity of unreadable ISAs included);
//! - every acknowledgement built from it (TA1, 997, 999, auto; all sets or
//!   errors only) parses and validates with no error and no warning, and
//!   reading it back gives the outcomes it was built from.
//!
//! `X12KIT_BLESS=1` rewrites the codes columns of the expectations file from
//! the current output (keeping the notes), for review in `git diff`. When the
//! corpus is absent the tests say so and pass, unless
//! `X12KIT_REQUIRE_CORPUS=1`, which makes that a failure.

mod common;

use common::{corpus_dir, corpus_files};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use x12kit::DateTime as Timestamp;
use x12kit::validate::{Options, Status, Validation};
use x12kit::{AckKind, AckOptions};

fn expectations_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/validation-expectations.tsv")
}

/// file -> (columns, note)
fn read_expectations() -> BTreeMap<String, (Vec<String>, String)> {
    let text = std::fs::read_to_string(expectations_path()).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            let get = |i: usize| c.get(i).copied().unwrap_or_default().to_string();
            (get(0), (vec![get(1), get(2), get(3), get(4)], get(5)))
        })
        .collect()
}

fn codes(v: &Validation, errors: bool) -> String {
    let mut c: Vec<&str> = v
        .diagnostics
        .iter()
        .filter(|d| d.is_error() == errors)
        .map(|d| d.code.as_str())
        .collect();
    c.sort();
    c.dedup();
    c.join(",")
}

/// TA104+TA105 per interchange (`*` when its ISA was unreadable).
fn ta1s(v: &Validation) -> String {
    v.interchanges
        .iter()
        .map(|i| {
            format!(
                "{}{}{}",
                i.ta1.code,
                i.ta1.note,
                if i.recovered { "*" } else { "" }
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// AK901 and AK905 codes per functional group (`-` for sets outside any group).
fn ak9s(v: &Validation) -> String {
    v.interchanges
        .iter()
        .flat_map(|i| &i.groups)
        .map(|g| {
            if g.functional_id.is_none() {
                return "-".to_string();
            }
            let mut s = g.ak9.code.to_string();
            for c in &g.ak9.errors {
                s.push(':');
                s.push_str(c);
            }
            s
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn columns(v: &Validation) -> Vec<String> {
    vec![codes(v, true), codes(v, false), ta1s(v), ak9s(v)]
}

#[test]
fn corpus_validation_matches_expectations() {
    let Some(dir) = corpus_dir() else { return };
    let bless = std::env::var("X12KIT_BLESS").as_deref() == Ok("1");
    let expected = read_expectations();
    let mut lines = vec![
        "# Validator outcome decided for each corpus file: error codes, warning codes, TA1 (TA104+TA105 per interchange, * = ISA unreadable),".to_string(),
        "# AK9 (AK901[:AK905…] per group, - = sets outside a group), and why when the file is not clean.".to_string(),
        "# Regenerate the codes with X12KIT_BLESS=1 cargo test -p x12kit --test validate_corpus, then review the diff.".to_string(),
        "# file\terrors\twarnings\tta1\tak9\tnote".to_string(),
    ];
    let mut failures = Vec::new();
    let mut clean = 0;
    for (name, path) in corpus_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let doc = x12kit::parse(&bytes);
        let v = x12kit::validate(&doc);
        let got = columns(&v);
        if got[0].is_empty() {
            clean += 1;
        }
        let note = expected.get(&name).map(|e| e.1.clone()).unwrap_or_default();
        match expected.get(&name) {
            Some((cols, _)) if *cols == got => {}
            Some((cols, _)) => failures.push(format!("{name}: expected {cols:?}, got {got:?}")),
            None => failures.push(format!(
                "{name}: not in tests/validation-expectations.tsv (got {got:?})"
            )),
        }
        if !got[0].is_empty() && note.trim().is_empty() && !bless {
            failures.push(format!(
                "{name}: has errors [{}] but no note saying why",
                got[0]
            ));
        }
        lines.push(format!("{name}\t{}\t{note}", got.join("\t")));
    }
    if bless {
        std::fs::write(expectations_path(), lines.join("\n") + "\n").unwrap();
        return;
    }
    assert!(clean > 200, "only {clean} corpus files validate clean");
    assert!(
        failures.is_empty(),
        "{} corpus mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The streaming validator sees exactly what the document validator sees.
#[test]
fn corpus_streaming_validation_equals_document_validation() {
    let Some(dir) = corpus_dir() else { return };
    for (name, path) in corpus_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let doc = x12kit::parse(&bytes);
        let whole = x12kit::validate(&doc);
        let reader = std::io::BufReader::with_capacity(64, &bytes[..]);
        let streamed = x12kit::validate_reader(reader, &Options::default()).unwrap();
        assert_eq!(
            streamed.diagnostics, whole.diagnostics,
            "{name}: streamed diagnostics differ"
        );
        assert_eq!(
            streamed.interchanges, whole.interchanges,
            "{name}: streamed summaries differ"
        );
        assert_eq!(streamed, whole, "{name}: streamed acknowledgements differ");
    }
}

fn ack_options(kind: AckKind, errors_only: bool) -> AckOptions {
    AckOptions {
        kind,
        errors_only,
        interchange_control_number: 900_000_001,
        group_control_number: 42,
        set_control_number: 7,
        timestamp: Some(Timestamp::new(2024, 2, 29, 23, 59).unwrap()),
        ..AckOptions::default()
    }
}

/// Every acknowledgement of every corpus file is itself clean X12, and says
/// what the validation decided.
#[test]
fn corpus_acknowledgements_parse_validate_clean_and_read_back() {
    let Some(dir) = corpus_dir() else { return };
    let mut built = 0;
    for (name, path) in corpus_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let doc = x12kit::parse(&bytes);
        let v = x12kit::validate(&doc);
        for kind in [AckKind::Ta1, AckKind::Fa997, AckKind::Fa999, AckKind::Auto] {
            for errors_only in [false, true] {
                let ack = x12kit::acknowledge(&v, &ack_options(kind, errors_only))
                    .unwrap_or_else(|e| panic!("{name} {kind:?}: {e}"));
                if ack.is_empty() {
                    continue;
                }
                built += 1;
                let ack_doc = x12kit::parse(&ack);
                let av = x12kit::validate(&ack_doc);
                assert!(
                    av.diagnostics.is_empty(),
                    "{name} {kind:?} errors_only={errors_only}: the acknowledgement is not clean: {:#?}\n{}",
                    av.diagnostics,
                    String::from_utf8_lossy(&ack)
                );
                check_read_back(&name, &v, &ack_doc, kind, errors_only);
            }
        }
    }
    assert!(built > 1000, "only {built} acknowledgements built");
}

/// With the transaction-set structure rules of the declared types plugged in,
/// the acknowledgements carry AK3/AK4 and IK3/IK4 (copies of bad values
/// included) and are still clean.
#[test]
fn corpus_acknowledgements_with_structure_findings_are_clean() {
    use x12kit::validate::{Buffered, Validator};
    let Some(dir) = corpus_dir() else { return };
    let (mut with_findings, mut ak4) = (0, 0);
    for (name, path) in corpus_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let doc = x12kit::parse(&bytes);
        let v = Validator::new(Options::default())
            .with_rules(Box::new(Buffered::new(x12kit::documents::StructureRules)))
            .run(&doc);
        let findings = v
            .interchanges
            .iter()
            .flat_map(|i| &i.groups)
            .flat_map(|g| &g.transactions)
            .any(|t| !t.segment_errors.is_empty());
        if !findings {
            continue;
        }
        with_findings += 1;
        for kind in [AckKind::Fa997, AckKind::Fa999] {
            let ack = x12kit::acknowledge(&v, &ack_options(kind, true)).unwrap();
            if ack.is_empty() {
                // Only groups of acknowledgements, which are not acknowledged.
                assert!(
                    v.interchanges
                        .iter()
                        .flat_map(|i| &i.groups)
                        .all(|g| g.functional_id.as_deref() == Some("FA")),
                    "{name} {kind:?}: nothing acknowledged"
                );
                continue;
            }
            ak4 += memchr_count(&ack, b"K4*");
            let av = x12kit::validate(&x12kit::parse(&ack));
            assert!(
                av.diagnostics.is_empty(),
                "{name} {kind:?}: {:#?}\n{}",
                av.diagnostics,
                String::from_utf8_lossy(&ack)
            );
            check_read_back(&name, &v, &x12kit::parse(&ack), kind, true);
        }
    }
    eprintln!("{with_findings} files with structure findings, {ak4} AK4/IK4 written");
    assert!(
        with_findings > 10 && ak4 > 10,
        "only {with_findings} files with findings, {ak4} AK4/IK4"
    );
}

fn memchr_count(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).filter(|w| *w == needle).count()
}

/// Reading the acknowledgement gives back the outcomes it was built from.
fn check_read_back(
    name: &str,
    v: &Validation,
    ack_doc: &x12kit::Document<'_>,
    kind: AckKind,
    errors_only: bool,
) {
    let read = x12kit::ack::read(ack_doc);
    let ta1: Vec<(String, String)> = read
        .interchange_acks
        .iter()
        .map(|t| (t.code.clone(), t.note.code.clone()))
        .collect();
    let expect_ta1: Vec<(String, String)> = v
        .interchanges
        .iter()
        .filter(|i| match kind {
            AckKind::Ta1 => true,
            AckKind::Auto => i.ack_requested == "1" || i.status != Status::Accepted,
            _ => false,
        })
        .map(|i| (i.ta1.code.to_string(), i.ta1.note.to_string()))
        .collect();
    assert_eq!(ta1, expect_ta1, "{name} {kind:?}: TA1 read back");
    if kind == AckKind::Ta1 {
        assert!(read.group_acks.is_empty());
        return;
    }
    let groups: Vec<_> = v
        .interchanges
        .iter()
        .flat_map(|i| &i.groups)
        // Groups of acknowledgements (GS01 FA) are not acknowledged.
        .filter(|g| g.functional_id.as_deref().is_some_and(|f| f != "FA"))
        .collect();
    assert_eq!(read.group_acks.len(), groups.len(), "{name} {kind:?}");
    for (g, a) in groups.iter().zip(&read.group_acks) {
        assert_eq!(a.code, g.ak9.code, "{name}: AK901");
        assert_eq!(
            (a.included, a.received, a.accepted),
            (
                Some(g.ak9.included),
                Some(g.ak9.received),
                Some(g.ak9.accepted)
            ),
            "{name}: AK902-AK904"
        );
        let listed: Vec<_> = g
            .transactions
            .iter()
            .filter(|t| !errors_only || t.status != Status::Accepted)
            .collect();
        assert_eq!(a.transactions.len(), listed.len(), "{name}: AK2 count");
        for (t, s) in listed.iter().zip(&a.transactions) {
            assert_eq!(
                s.code, t.ak5.code,
                "{name}: AK501 of set {}",
                t.control_number
            );
        }
    }
}

/// The `invalid/` and `TA1/` files whose MANIFEST notes state an outcome the
/// envelope rules can see produce it: (file, codes that must be reported,
/// TA104+TA105 of the first interchange or "" when none can be addressed,
/// and, for one set, its AK5 codes).
#[test]
fn invalid_files_produce_what_their_manifest_notes_say() {
    let Some(dir) = corpus_dir() else { return };
    type Case<'a> = (&'a str, &'a [&'a str], &'a str, Option<&'a [&'a str]>);
    let cases: &[Case<'_>] = &[
        // "SE01, GE01 and IEA02 wrong"
        (
            "invalid/214_edi-x12-toolkit__214-broken.edi",
            &["SE01_COUNT", "GE01_COUNT", "IEA02_CONTROL"],
            "R001",
            Some(&["4"]),
        ),
        // "unknown segment in 270; SE01 mismatch"
        (
            "invalid/270_badx12__unknown_segment_error.edi",
            &["SE01_COUNT", "UNEXPECTED_SEGMENT"],
            "E024",
            Some(&["4"]),
        ),
        // "SE01 wrong, SE02 != ST02, GE01 wrong, GE02 != GS06, IEA mismatches"
        (
            "invalid/835_badx12__error_validation.edi",
            &[
                "SE01_COUNT",
                "SE02_CONTROL",
                "GE01_COUNT",
                "GE02_CONTROL",
                "IEA01_COUNT",
                "IEA02_CONTROL",
            ],
            "R021",
            Some(&["3", "4"]),
        ),
        // "ISA02 only 9 chars"
        (
            "invalid/837_imsweb__x12_bad_first_line.txt",
            &["ISA02_INVALID"],
            "R011",
            None,
        ),
        // "unknown segment identifier"
        (
            "invalid/837_imsweb__x12_bad_segment_identifier.txt",
            &["SEGMENT_ID"],
            // The set is rejected (AK5); the interchange is accepted: its
            // only other finding, ISA11 U with 00501, is a warning.
            "A000",
            Some(&["4", "5"]),
        ),
        // "file starts at GS, no ISA"
        (
            "invalid/837_imsweb__x12_no_isa_line.txt",
            &["NOT_X12"],
            "",
            None,
        ),
        // "AK5*R*2 (Transaction Set Trailer Missing), TA1 R 023"
        (
            "invalid/837_pyx12__x12testdata_837miss.txt",
            &["SE_MISSING", "GE_MISSING", "IEA_MISSING"],
            "R023",
            Some(&["2"]),
        ),
        // "TA1 R 015 (invalid ISA/IEA control values)"
        (
            "invalid/837_pyx12__x12testdata_ele.txt",
            &["ISA10_INVALID", "ST02_INVALID", "SE02_CONTROL"],
            "R015",
            Some(&["3", "7"]),
        ),
        // "no IEA trailer (file ends at GE), SE*0 wrong count; TA1 R 023"
        (
            "invalid/837_pyx12__x12testdata_fail_no_IEA.txt",
            &["IEA_MISSING", "SE01_COUNT"],
            "R023",
            Some(&["4"]),
        ),
        // "pyx12 997 AK5*R*4 + TA1 R 018": x12kit reports IEA01 (021) first, see the pyx12 comparison.
        (
            "invalid/837_pyx12__x12testdata_trailer_errors.txt",
            &["SE01_COUNT", "GE02_CONTROL", "IEA01_COUNT", "IEA02_CONTROL"],
            "R021",
            Some(&["4"]),
        ),
        // "ISA06/ISA08 14 chars, ISA09 '000000', ISA13 11 digits, GS08 '00501', ST02 non-numeric, SE01=0"
        // (a non-numeric ST02 is a valid AN value).
        (
            "invalid/837_vscode-edi-x12__bad-header.edi",
            &[
                "ISA06_INVALID",
                "ISA08_INVALID",
                "ISA09_INVALID",
                "ISA13_INVALID",
                "GS08_INVALID",
                "SE01_COUNT",
            ],
            "R006",
            Some(&["4"]),
        ),
        // "Wrong segment tag (should be ISA)"
        (
            "invalid/940_xtypes__v004010_test_940__test_940_invalid_isa_tag_9.edi",
            &["NOT_X12"],
            "",
            None,
        ),
        // "ISA16 component separator is a 4-byte emoji"
        (
            "invalid/940_xtypes__v004010_test_940__test_940_invalid_unicode_characters_validation_32.edi",
            &["DELIMITERS"],
            "R027",
            None,
        ),
        // "Test invalid usage indicator value"
        (
            "invalid/940_xtypes__v004010_test_940__test_940_usage_indicator_invalid_value_34.edi",
            &["ISA15_INVALID"],
            "R020",
            None,
        ),
        // "GS04 BAD_DATE, GS05 bad time 295335, …, GE02 too long/non-numeric"
        (
            "invalid/997_staedi__invalid997_min.edi",
            &["GS04_INVALID", "GS05_INVALID", "GE02_CONTROL"],
            "E024",
            None,
        ),
        // "SE01=16 but 18 segments"
        (
            "invalid/999_staedi__invalid999.edi",
            &["SE01_COUNT"],
            "A000",
            Some(&["4"]),
        ),
        // "824 / 997 group without transaction set"
        (
            "invalid/x_mymove__process_edi824_test__throw_an_error_when_edi824_is_missing_a_transaction_set.edi",
            &["GE01_COUNT"],
            "R018",
            None,
        ),
        (
            "invalid/x_mymove__process_edi997_test__throw_an_error_when_edi997_is_missing_a_transaction_set.edi",
            &["GE01_COUNT"],
            "R018",
            None,
        ),
        // "ISA with missing fields", "ISA cut off", "ISA01 too short" …: the ISA cannot be read.
        (
            "invalid/x_xtypes__v004010_test_940__test_940_invalid_isa_missing_fields_6.edi",
            &["ISA_LAYOUT"],
            "",
            None,
        ),
        (
            "invalid/x_xtypes__v004010_test_940__test_940_truncated_isa_26.edi",
            &["ISA_LAYOUT"],
            "",
            None,
        ),
        (
            "invalid/x_xtypes__v004010_test_940__test_940_validation_failures_10.edi",
            &["ISA_LAYOUT"],
            "",
            None,
        ),
        (
            "invalid/x_xtypes__v004010_test_940__test_940_multiple_component_separators_28.edi",
            &["DELIMITERS"],
            "R027",
            None,
        ),
        // TA1-only interchanges whose IEA01 counts a group that is not there.
        (
            "TA1/staedi__wiki_x12_interchange_ack.txt",
            &["IEA01_COUNT"],
            "R021",
            None,
        ),
        (
            "TA1/uhin__TA1.edi",
            &["IEA01_COUNT", "ISA06_INVALID", "ISA08_INVALID"],
            "R011",
            None,
        ),
    ];
    for (name, must, ta1, ak5) in cases {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let v = x12kit::validate(&x12kit::parse(&bytes));
        let got: Vec<&str> = v.diagnostics.iter().map(|d| d.code.as_str()).collect();
        for code in *must {
            assert!(
                got.contains(code),
                "{name}: {code} not reported (got {got:?})"
            );
        }
        assert!(!v.is_valid(), "{name}");
        let first = v
            .interchanges
            .first()
            .map(|i| format!("{}{}", i.ta1.code, i.ta1.note))
            .unwrap_or_default();
        assert_eq!(first, *ta1, "{name}: TA1");
        if let Some(codes) = ak5 {
            let set = v
                .interchanges
                .iter()
                .flat_map(|i| &i.groups)
                .flat_map(|g| &g.transactions)
                .find(|t| t.status == Status::Rejected)
                .unwrap_or_else(|| panic!("{name}: no rejected set"));
            assert_eq!(set.ak5.errors, *codes, "{name}: AK5");
        }
    }
}
