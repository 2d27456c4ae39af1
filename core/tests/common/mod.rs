//! Helpers shared by the integration tests (each test crate includes this
//! module with `mod common;` and uses what it needs).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The public corpus: `$X12KIT_CORPUS`, else `../shared/corpus` beside the
/// repository. It is read in place, never copied into the repository. When
/// it is absent the caller skips its corpus checks (and this says so),
/// unless `X12KIT_REQUIRE_CORPUS=1` (set by CI), which makes that a failure.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("X12KIT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("X12KIT_REQUIRE_CORPUS").as_deref() == Ok("1") {
        panic!(
            "the corpus is required (X12KIT_REQUIRE_CORPUS=1) but {} does not exist",
            dir.display()
        );
    }
    eprintln!(
        "corpus not found at {}: corpus tests skipped (set X12KIT_CORPUS to its path)",
        dir.display()
    );
    // scripts/test.sh counts these tests as skipped, not passed, and says why.
    if let Some(log) = std::env::var_os("X12KIT_SKIP_LOG") {
        use std::io::Write;
        let test = std::thread::current().name().unwrap_or("?").to_string();
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(log)
        {
            let _ = writeln!(
                f,
                "{test}: the corpus was not found at {} (set X12KIT_CORPUS)",
                dir.display()
            );
        }
    }
    None
}

/// The corpus files (one level of folders below `dir`), as (name relative
/// to `dir` with `/` separators, path), sorted by name.
pub fn corpus_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for sub in std::fs::read_dir(dir).unwrap() {
        let sub = sub.unwrap().path();
        if !sub.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&sub).unwrap() {
            let f = f.unwrap().path();
            if f.is_file() {
                let rel = f
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, f));
            }
        }
    }
    out.sort();
    out
}

/// The JSON pointers of the properties and definitions of a JSON Schema that
/// have no `description` (a published schema describes every one of them: it
/// is the contract for the users of every binding).
pub fn undescribed(schema: &serde_json::Value) -> Vec<String> {
    use serde_json::Value;
    fn walk(v: &Value, path: &str, missing: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for key in ["properties", "$defs"] {
                    if let Some(Value::Object(props)) = m.get(key) {
                        for (name, p) in props {
                            if p.get("description")
                                .and_then(Value::as_str)
                                .is_none_or(str::is_empty)
                            {
                                missing.push(format!("{path}/{key}/{name}"));
                            }
                        }
                    }
                }
                for (k, x) in m {
                    if k != "examples" {
                        walk(x, &format!("{path}/{k}"), missing);
                    }
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(x, &format!("{path}/{i}"), missing);
                }
            }
            _ => {}
        }
    }
    let mut missing = Vec::new();
    walk(schema, "", &mut missing);
    missing
}

/// Everything a reader can observe of how `input` is split, as text: every
/// token of the whole-input tokenizer with each segment's elements,
/// repetitions and components (and their `is_repeated` / `is_composite`),
/// the tokens of the chunk-fed tokenizer fed `chunks` (sizes used in turn),
/// and the parse result's JSON. Used to compare the kernels of the
/// structural index.
pub fn observe(input: &[u8], chunks: &[usize]) -> String {
    use std::fmt::Write;
    use x12kit::{Pull, StreamTokenizer, Token, Tokenizer};
    fn token(t: &Token<'_>, out: &mut String) {
        match t {
            Token::Segment(s) => {
                let _ = write!(
                    out,
                    "S {} {} {:?} {:?} {} {:?} n={} [",
                    s.index(),
                    s.offset(),
                    s.raw(),
                    s.suffix(),
                    s.terminated(),
                    s.id(),
                    s.element_count()
                );
                for e in s.elements() {
                    let _ = write!(
                        out,
                        "{:?} r{} c{} (",
                        e.raw(),
                        e.is_repeated() as u8,
                        e.is_composite() as u8
                    );
                    for r in e.repetitions() {
                        let _ = write!(out, "{:?} c{} <", r.raw(), r.is_composite() as u8);
                        for c in r.components() {
                            let _ = write!(out, "{:?},", c.raw());
                        }
                        out.push('>');
                    }
                    for c in e.components() {
                        let _ = write!(out, "{:?};", c.raw());
                    }
                    out.push(')');
                }
                out.push_str("]\n");
            }
            Token::Diagnostic(d) => {
                let _ = writeln!(out, "D {d}");
            }
        }
    }
    let mut out = String::new();
    for t in Tokenizer::new(input) {
        token(&t, &mut out);
    }
    out.push_str("--- stream\n");
    let mut st = StreamTokenizer::new();
    let mut at = 0;
    let mut n = 0;
    loop {
        match st.next() {
            Pull::Token(t) => token(&t, &mut out),
            Pull::End => break,
            Pull::NeedInput if at < input.len() => {
                let size = chunks
                    .get(n % chunks.len().max(1))
                    .copied()
                    .unwrap_or(4096)
                    .max(1);
                let end = (at + size).min(input.len());
                st.feed(&input[at..end]);
                at = end;
                n += 1;
            }
            Pull::NeedInput => st.finish(),
        }
    }
    out.push_str("--- json\n");
    out.push_str(&String::from_utf8_lossy(&x12kit::to_json(&x12kit::parse(
        input,
    ))));
    out
}

/// Render options dated `date` and `time`, with the interchange and group
/// control numbers `control` (the set's is 1), or the default ones.
pub fn render_options(date: &str, time: &str, control: Option<u32>) -> x12kit::RenderOptions {
    x12kit::RenderOptions {
        control_numbers: control.map_or_else(Default::default, |n| x12kit::ControlNumbers {
            interchange: n,
            group: n,
            transaction: 1,
        }),
        date: Some(date.into()),
        time: Some(time.into()),
        guides: Default::default(),
    }
}

/// `x12kit::render` dated as its options say (their date and time: "now"
/// is not read).
pub fn render(
    code: &str,
    payload: &serde_json::Value,
    partner: &x12kit::Partner,
    options: &x12kit::RenderOptions,
) -> x12kit::error::Result<x12kit::Rendered> {
    x12kit::render(
        code,
        payload,
        partner,
        options,
        x12kit::DateTime::from_unix(0),
    )
}

/// The X12 committed to the repository, as the comparisons of a fast path
/// with its reference read it when the corpus is not there (and beside it
/// when it is): every vector input and golden render, and each of them
/// re-delimited with `x12kit_syntax::testing::VARIANTS` (other separators,
/// line breaks or none, no repetition separator), named `FILE` or
/// `FILE (variant N)`.
pub fn committed_inputs() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests");
    let mut files: Vec<PathBuf> = ["vectors/inputs", "golden"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).expect("committed inputs"))
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.is_file() && p.extension().is_none_or(|x| x != "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for p in files {
        let name = p.strip_prefix(&root).unwrap_or(&p).display().to_string();
        let input = std::fs::read(&p).expect("readable");
        for (n, (to, rep, lb)) in x12kit_syntax::testing::VARIANTS.into_iter().enumerate() {
            if let Some(v) = x12kit_syntax::testing::redelimit(&input, to, rep, lb) {
                out.push((format!("{name} (variant {n})"), v));
            }
        }
        out.push((name, input));
    }
    out
}
