//! End-to-end tests of `x12kit validate` and `x12kit ack`: output, exit
//! codes, stdin, and an acknowledgement that validates clean.

mod common;

use common::{SAMPLE, SAMPLE_5010, run, stderr, stdout};

const BAD: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*1*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*7*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*4*0001~GE*1*7~IEA*1*000000001~";

#[test]
fn validate_reports_and_exits_0_on_a_clean_file() {
    let o = run(&["validate", SAMPLE], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("accepted (TA1 A 000)"), "{text}");
    assert!(text.ends_with("valid: 0 errors, 0 warnings\n"), "{text}");
}

#[test]
fn validate_exits_1_with_the_codes_of_each_error() {
    let o = run(&["validate"], BAD.as_bytes());
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.contains("error SE01_COUNT: SE01 says 4 segments but the transaction set 0001 (850) has 3 (ST through SE, both included) [segment 4 (SE), element 1, byte 193] -> AK502/IK502 4"),
        "{text}"
    );
    assert!(
        text.contains("set 0001 (850): rejected (AK5 R 4)"),
        "{text}"
    );
    assert!(text.contains("invalid: 1 error, 0 warnings"), "{text}");
    // The same through the streaming path.
    let o = run(&["validate", "--stream"], BAD.as_bytes());
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("SE01_COUNT"), "{}", stdout(&o));
}

#[test]
fn validate_json() {
    let o = run(&["validate", "--json", "-"], BAD.as_bytes());
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["valid"], false);
    assert_eq!(v["diagnostics"][0]["ack"]["ik5"], "4");
    assert_eq!(v["interchanges"][0]["groups"][0]["ak9"]["code"], "R");
}

#[test]
fn ack_writes_x12_that_validates_clean() {
    let o = run(
        &[
            "ack",
            "--kind",
            "997",
            "--timestamp",
            "202402291305",
            "--interchange-control",
            "5",
            "--group-control",
            "6",
            "--set-control",
            "7",
        ],
        BAD.as_bytes(),
    );
    // Exit 1: the input has errors (the acknowledgement reports them).
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("the acknowledgement reports them"));
    let ack = stdout(&o);
    // SE01 is wrong (AK502 4) and the 850 has no PO1 (the structure rules:
    // AK3 segment missing, AK502 5).
    assert_eq!(
        ack,
        "ISA*00*          *00*          *ZZ*RECEIVER       *ZZ*SENDER         *240229*1305*U*00401*000000005*0*P*>~\n\
         GS*FA*RECEIVER*SENDER*20240229*1305*6*X*004010~\n\
         ST*997*0007~\n\
         AK1*PO*7~\n\
         AK2*850*0001~\n\
         AK3*PO1*3**3~\n\
         AK5*R*4*5~\n\
         AK9*R*1*1*0~\n\
         SE*7*0007~\n\
         GE*1*6~\n\
         IEA*1*000000005~\n"
    );
    let o = run(&["validate", "-"], ack.as_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // Auto on a 005010 file: a 999.
    let o = run(&["ack", SAMPLE_5010, "--errors-only"], b"");
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("ST*999*0001*005010X231A1~"),
        "{}",
        stdout(&o)
    );
    // TA1 only.
    let o = run(&["ack", "--kind", "ta1", SAMPLE], b"");
    assert!(stdout(&o).contains("\nTA1*000000101*"), "{}", stdout(&o));
}

#[test]
fn ack_refuses_bad_options_and_says_when_there_is_nothing_to_acknowledge() {
    let o = run(&["ack", "--delimiters", "**~"], BAD.as_bytes());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--delimiters"), "{}", stderr(&o));
    let o = run(&["ack", "--timestamp", "20241399"], BAD.as_bytes());
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["ack"], b"hello");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("nothing to acknowledge"),
        "{}",
        stderr(&o)
    );
    let o = run(
        &["ack", "--interchange-control", "1000000000"],
        BAD.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("INVALID_OPTIONS"), "{}", stderr(&o));
}

#[test]
fn structure_rules_feed_ak3_ak4() {
    let input = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *261122*0930*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20261122*0930*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20261131~PO1*1*2*EA~SE*4*0001~GE*1*1~IEA*1*000000001~";
    // Envelope rules only: clean.
    assert_eq!(run(&["validate"], input.as_bytes()).status.code(), Some(0));
    let o = run(&["validate", "--structure"], input.as_bytes());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("ELEMENT_INVALID_DATE"),
        "{}",
        stdout(&o)
    );
    let o = run(&["validate", "--structure", "--stream"], input.as_bytes());
    assert!(
        stdout(&o).contains("ELEMENT_INVALID_DATE"),
        "{}",
        stdout(&o)
    );
    // Acknowledgements include the structure findings by default…
    let ack = |extra: &[&str]| {
        let mut args = vec!["ack", "--kind", "997", "--timestamp", "202601010000"];
        args.extend_from_slice(extra);
        stdout(&run(&args, input.as_bytes()))
    };
    let with = ack(&[]);
    assert!(
        with.contains("AK2*850*0001~\nAK3*BEG*2**8~\nAK4*5**8*20261131~\nAK5*R*5~"),
        "{with}"
    );
    // …and leave them out when asked for the envelope rules only.
    let without = ack(&["--envelope-only"]);
    assert!(without.contains("AK2*850*0001~\nAK5*A~"), "{without}");
    assert!(!without.contains("AK3"), "{without}");
}

/// The inputs of the vectors and the files of the corpus (`X12KIT_CORPUS`,
/// else `../shared/corpus` beside the repository), when present.
fn inputs() -> (Vec<std::path::PathBuf>, bool) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("tests/vectors/inputs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    let corpus = std::env::var_os("X12KIT_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));
    let have = corpus.is_dir();
    if have {
        for sub in std::fs::read_dir(&corpus).unwrap().flatten() {
            if sub.path().is_dir() {
                files.extend(
                    std::fs::read_dir(sub.path())
                        .unwrap()
                        .flatten()
                        .map(|e| e.path())
                        .filter(|p| p.is_file()),
                );
            }
        }
    } else if std::env::var("X12KIT_REQUIRE_CORPUS").as_deref() == Ok("1") {
        panic!(
            "the corpus is required but {} does not exist",
            corpus.display()
        );
    }
    files.sort();
    (files, have)
}

/// `x12kit validate FILE` streams a regular file, always; standard input
/// takes the whole-document path. Both give
/// byte-identical output, report and JSON, with and without `--structure`,
/// on every vector input and corpus file.
#[test]
fn validate_of_a_file_streams_and_equals_the_whole_document_result() {
    let (files, corpus) = inputs();
    assert!(files.len() >= 50);
    for f in &files {
        let path = f.to_str().unwrap();
        let bytes = std::fs::read(f).unwrap();
        let mut runs: Vec<Vec<&str>> = vec![
            vec!["validate", "--json"],
            vec!["validate", "--json", "--structure"],
        ];
        if !corpus || f.to_string_lossy().contains("tests/vectors") {
            runs.push(vec!["validate", "--max-sets", "3"]);
        }
        for args in runs {
            let file = run(&[&args[..], &[path]].concat(), b"");
            let stdin = run(&[&args[..], &["-"]].concat(), &bytes);
            assert_eq!(file.status.code(), stdin.status.code(), "{path} {args:?}");
            assert!(
                file.stdout == stdin.stdout,
                "{path} {args:?}: streamed and whole outputs differ:\n{}\n---\n{}",
                stdout(&file),
                stdout(&stdin)
            );
        }
    }
}

/// `validate --partner` and `ack --partner`: the profile's guides (paths
/// read relative to the profile) apply as `--guide` files do.
#[test]
fn a_partner_profile_brings_its_guides() {
    let input = "../tests/vectors/inputs/850-guide-departures.edi";
    let partner = "../examples/partners/acme-retail-guided.json";
    let o = run(&["validate", "--partner", partner, input], b"");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    for code in [
        "GUIDE_CODE_NOT_USED",
        "GUIDE_SEGMENT_NOT_USED",
        "GUIDE_PATTERN",
    ] {
        assert!(text.contains(code), "{code}: {text}");
    }
    let with_file = run(
        &[
            "validate",
            "--guide",
            "../examples/guides/acme-retail-850.json",
            input,
        ],
        b"",
    );
    assert_eq!(stdout(&with_file), text);
    let ack = run(
        &[
            "ack",
            "--kind",
            "999",
            "--partner",
            partner,
            "--timestamp",
            "202311142213",
            input,
        ],
        b"",
    );
    assert_eq!(ack.status.code(), Some(1), "{}", stderr(&ack));
    assert!(stdout(&ack).contains("IK5*R*I5"), "{}", stdout(&ack));
    // A profile whose guide cannot be used: exit 2, the profile named.
    let o = run(
        &[
            "validate",
            "--partner",
            "../tests/vectors/partners/bad-guide.json",
            input,
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("INVALID_GUIDE /guides/850/loops/N1/maxUse"),
        "{}",
        stderr(&o)
    );
}
