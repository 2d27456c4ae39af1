//! End-to-end tests of `x12kit split` and `x12kit merge`: files named by
//! control numbers, one stream with `--out -`, the input given back by
//! merging the files, renumbering, `--options`, exit codes and messages.

mod common;

use common::{BIN, SAMPLE, run, stderr, stdout};
use std::process::Command;

#[test]
fn split_into_files_and_merge_back() {
    let dir = std::env::temp_dir().join(format!("x12kit-split-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_str().unwrap();
    let o = run(&["split", SAMPLE, "--out", out], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let listed: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["000000101-101-0001.x12", "000000101-101-0002.x12"]);
    assert_eq!(listed.len(), 2);
    let mut args = vec!["merge".to_string()];
    args.extend(listed);
    let merged = Command::new(BIN).args(&args).output().unwrap();
    assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
    assert_eq!(merged.stdout, std::fs::read(SAMPLE).unwrap());
    // One stream, renumbered; merged with the options as JSON.
    let o = run(
        &[
            "split",
            SAMPLE,
            "--out",
            "-",
            "--renumber-interchange",
            "5",
            "--renumber-set",
            "100",
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.matches("ISA*").count(), 2);
    assert!(
        text.contains("*000000005*") && text.contains("IEA*1*000000006"),
        "{text}"
    );
    assert!(
        text.contains("ST*850*0100") && text.contains("SE*") && text.contains("ST*850*0101"),
        "{text}"
    );
    let o = run(
        &[
            "split",
            SAMPLE,
            "--out",
            "-",
            "--options",
            r#"{"per": "group"}"#,
        ],
        b"",
    );
    assert_eq!(stdout(&o).matches("ISA*").count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_options_and_refused_merges() {
    let o = run(
        &["split", SAMPLE, "--out", "-", "--renumber-group", "0"],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("INVALID_CONTROL_NUMBER"),
        "{}",
        stderr(&o)
    );
    let o = run(
        &[
            "split",
            SAMPLE,
            "--out",
            "-",
            "--options",
            r#"{"per": "file"}"#,
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("INVALID_OPTIONS"), "{}", stderr(&o));
    let o = Command::new(BIN)
        .args(["merge", SAMPLE, SAMPLE])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("renumber the sets"), "{err}");
    let o = Command::new(BIN)
        .args(["merge", SAMPLE, SAMPLE, "--renumber-set", "1"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_truncated_file_is_split_as_far_as_it_can_be_and_exits_1() {
    let input = std::fs::read_to_string(SAMPLE).unwrap();
    let cut = &input[..input.rfind("SE*").unwrap()];
    let o = run(&["split", "-", "--out", "-"], cut.as_bytes());
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o).matches("ISA*").count(), 2, "{}", stdout(&o));
    assert!(stderr(&o).contains("SE_MISSING"), "{}", stderr(&o));
}

/// `split --json` gives each part's recipe; `rebuild-part` reads only its
/// ranges from the file (or from standard input) and writes the part again.
#[test]
fn rebuild_part_from_the_recipes_of_split_json() {
    for opts in [
        &[][..],
        &["--per", "group"][..],
        &["--renumber-set", "40"][..],
    ] {
        let mut args = vec!["split", SAMPLE, "--json"];
        args.extend_from_slice(opts);
        let o = run(&args, b"");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let split: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let parts = split["parts"].as_array().unwrap();
        assert!(!parts.is_empty());
        for p in parts {
            let recipe = p["recipe"].to_string();
            let o = run(&["rebuild-part", SAMPLE, "--recipe", &recipe], b"");
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            assert_eq!(stdout(&o), p["x12"].as_str().unwrap());
            let o = run(
                &["rebuild-part", "-", "--json", "--recipe", &recipe],
                &std::fs::read(SAMPLE).unwrap(),
            );
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            let again: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(&again, p);
        }
    }
    // Another file: INVALID_ARGUMENT; a bad recipe: INVALID_OPTIONS at /recipe.
    let o = run(&["split", SAMPLE, "--json"], b"");
    let split: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let recipe = split["parts"][1]["recipe"].to_string();
    let other = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/x12/ship-notice-856-5010.edi"
    );
    let o = run(&["rebuild-part", other, "--recipe", &recipe], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("INVALID_ARGUMENT"), "{}", stderr(&o));
    let o = run(
        &[
            "rebuild-part",
            SAMPLE,
            "--recipe",
            "{\"ranges\":[[9,0]],\"setsRange\":0,\"sets\":1,\"segment\":2}",
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("INVALID_OPTIONS /recipe:"),
        "{}",
        stderr(&o)
    );
    let o = run(&["rebuild-part", SAMPLE, "--recipe", "nope"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("x12kit: --recipe: INVALID_OPTIONS /recipe"),
        "{}",
        stderr(&o)
    );
}
