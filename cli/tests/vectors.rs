//! Every case of `tests/vectors/manifest.json` through the `x12kit` command:
//! the same bytes as the core (and C, Python, Node, WASM), or the same error
//! code and pointer. Options reach the command as the same JSON every
//! language uses (`--options`), so no case is left out. Formatting the CLI
//! adds is the only difference allowed: a final line feed after JSON and
//! signatures, indented schemas (compared as JSON values), and the `ok:` line
//! of `webhook verify` (compared by its numbers).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

fn run(args: &[String], env: &[(String, String)], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_x12kit"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the x12kit binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("stdin written");
    child.wait_with_output().expect("x12kit finishes")
}

fn path(rel: &Value) -> String {
    vectors()
        .join(rel.as_str().expect("a path"))
        .to_string_lossy()
        .into_owned()
}

/// The command line, environment and standard input of a case.
fn command(case: &Value) -> (Vec<String>, Vec<(String, String)>, Vec<u8>) {
    let a = &case["args"];
    let options = case.get("options").map(Value::to_string);
    let with_options = |mut v: Vec<String>| {
        if let Some(o) = &options {
            v.push("--options".into());
            v.push(o.clone());
        }
        v
    };
    let now = a.get("now").and_then(Value::as_u64);
    let with_now = |mut v: Vec<String>| {
        if let Some(n) = now {
            v.push("--now".into());
            v.push(n.to_string());
        }
        v
    };
    let body = || -> (String, Vec<u8>) {
        match a.get("bodyFile") {
            Some(f) => (path(f), Vec::new()),
            None => (
                "-".into(),
                a["body"].as_str().expect("a body").as_bytes().to_vec(),
            ),
        }
    };
    let s = |x: &str| x.to_string();
    match case["op"].as_str().expect("an op") {
        "parse" => (
            with_options(vec![s("parse"), path(&a["input"])]),
            vec![],
            vec![],
        ),
        "validate" => (
            with_options(vec![s("validate"), s("--json"), path(&a["input"])]),
            vec![],
            vec![],
        ),
        "acknowledge" => (
            with_now(with_options(vec![s("ack"), path(&a["input"])])),
            vec![],
            vec![],
        ),
        "readAcknowledgement" => (vec![s("read-ack"), path(&a["input"])], vec![], vec![]),
        "render" => {
            let payload = path(&a["payload"]);
            let partner = path(&a["partner"]);
            let v = vec![
                s("render"),
                s("--type"),
                a["documentType"].as_str().expect("a type").to_string(),
                s("--partner"),
                partner,
                payload,
            ];
            (with_now(with_options(v)), vec![], vec![])
        }
        "write" => (
            with_options(vec![s("write"), path(&a["input"])]),
            vec![],
            vec![],
        ),
        "documentSchema" => {
            let mut v = vec![s("schema"), a["documentType"].as_str().unwrap().into()];
            if let Some(p) = a.get("partner") {
                v.push(s("--partner"));
                v.push(path(p));
            }
            (v, vec![], vec![])
        }
        "partnerSchema" => (vec![s("schema"), s("partner")], vec![], vec![]),
        "describeSegment" => (
            vec![
                s("describe"),
                s("--set"),
                a["setType"].as_str().expect("a set type").into(),
                s("--version"),
                a["version"].as_str().expect("a version").into(),
                // After `--`: an argument such as "" or "BEG*00" stays the segment.
                s("--"),
                a["segment"].as_str().expect("a segment").into(),
            ],
            vec![],
            vec![],
        ),
        "webhookSign" => {
            let (file, stdin) = body();
            let v = vec![
                s("webhook"),
                s("sign"),
                s("--secret-env"),
                s("X12KIT_VECTOR_SECRET"),
                s("--timestamp"),
                a["timestamp"].as_u64().expect("a timestamp").to_string(),
                file,
            ];
            let env = vec![(
                s("X12KIT_VECTOR_SECRET"),
                a["secret"].as_str().unwrap().to_string(),
            )];
            (v, env, stdin)
        }
        "webhookVerify" => {
            let (file, stdin) = body();
            let mut v = vec![s("webhook"), s("verify")];
            let mut env = Vec::new();
            for (i, secret) in a["secrets"].as_array().expect("secrets").iter().enumerate() {
                let name = format!("X12KIT_VECTOR_SECRET_{i}");
                v.push(s("--secret-env"));
                v.push(name.clone());
                env.push((name, secret.as_str().unwrap().to_string()));
            }
            if env.is_empty() {
                // The command takes at least one secret source; the nearest it
                // has to "no secret" is an empty one, which the core refuses
                // with the same code (EMPTY_SECRET).
                v.push(s("--secret-env"));
                v.push(s("X12KIT_VECTOR_NO_SECRET"));
                env.push((s("X12KIT_VECTOR_NO_SECRET"), String::new()));
            }
            v.push(s("--signature"));
            v.push(a["signature"].as_str().unwrap().to_string());
            v.push(s("--timestamp"));
            v.push(a["timestamp"].as_str().unwrap().to_string());
            v.push(file);
            (with_now(with_options(v)), env, stdin)
        }
        "payloadsFromCsv" => {
            let v = vec![
                s("csv"),
                s("--type"),
                a["documentType"].as_str().unwrap().to_string(),
                path(&a["input"]),
            ];
            (with_options(v), Vec::new(), Vec::new())
        }
        "split" => (
            with_options(vec![s("split"), s("--json"), path(&a["input"])]),
            Vec::new(),
            Vec::new(),
        ),
        "rebuildPart" => (
            vec![
                s("rebuild-part"),
                s("--bytes"),
                s("--json"),
                s("--recipe"),
                a["recipe"].to_string(),
                path(&a["input"]),
            ],
            Vec::new(),
            Vec::new(),
        ),
        "merge" => {
            let mut v = vec![s("merge")];
            v.extend(a["inputs"].as_array().expect("inputs").iter().map(path));
            (with_options(v), Vec::new(), Vec::new())
        }
        op => panic!("{}: unknown op {op}", case["id"]),
    }
}

/// The code and pointer of the error the command reported on stderr
/// (`x12kit: WHERE: CODE[ /pointer]: message`).
fn reported(stderr: &str) -> Option<(String, Option<String>)> {
    let line = stderr.lines().next()?;
    line.split(": ").find_map(|part| {
        let mut words = part.split(' ');
        let code = words.next()?;
        let is_code = code.len() > 2
            && code
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            && x12kit::ErrorCode::from_name(code).is_some();
        is_code.then(|| {
            (
                code.to_string(),
                words
                    .next()
                    .filter(|p| p.starts_with('/'))
                    .map(str::to_string),
            )
        })
    })
}

/// Cases whose partner profile names its guide by a path: a library call
/// refuses it (`INVALID_PARTNER`), the CLI reads it relative to the profile
/// (`docs/guides.md`), so through the CLI they succeed; a render writes what
/// the same guide given inline writes.
const CLI_READS_GUIDE_PATHS: &[(&str, Option<&str>)] = &[
    (
        "render/850-partner-guide-path",
        Some("expected/render/850-guided-partner.edi"),
    ),
    ("documentSchema/850-partner-guide-path", None),
];

fn check(case: &Value) -> Result<(), String> {
    let (args, env, stdin) = command(case);
    let out = run(&args, &env, &stdin);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let op = case["op"].as_str().unwrap();
    if let Some((_, same_as)) = CLI_READS_GUIDE_PATHS
        .iter()
        .find(|(id, _)| case["id"] == *id)
    {
        if !out.status.success() {
            return Err(format!("the CLI reads the guide's path, yet: {stderr}"));
        }
        if let Some(rel) = same_as {
            let want = std::fs::read(vectors().join(rel)).map_err(|e| e.to_string())?;
            if out.stdout != want {
                return Err(format!("the output differs from {rel}"));
            }
        }
        return Ok(());
    }
    if let Some(expected) = case.get("error") {
        if out.status.success() {
            return Err(format!("succeeded, expected {}", expected["code"]));
        }
        let Some((code, pointer)) = reported(&stderr) else {
            return Err(format!("no error code on stderr: {stderr}"));
        };
        if code != expected["code"].as_str().unwrap() {
            return Err(format!(
                "code {code}, expected {}: {stderr}",
                expected["code"]
            ));
        }
        let kind = x12kit::ErrorCode::from_name(&code).unwrap().kind().as_str();
        if kind != expected["kind"].as_str().unwrap() {
            return Err(format!("kind {kind}, expected {}", expected["kind"]));
        }
        if let Some(p) = expected.get("pointer").and_then(Value::as_str) {
            if pointer.as_deref() != Some(p) {
                return Err(format!("pointer {pointer:?}, expected {p}: {stderr}"));
            }
        }
        return Ok(());
    }
    let expected = std::fs::read(vectors().join(case["expect"].as_str().unwrap()))
        .map_err(|e| format!("expected file: {e}"))?;
    // parse, validate, ack and write exit 1 when the input has errors; only
    // usage and I/O errors (2) mean the output is not the result.
    if out.status.code() == Some(2)
        || (!out.status.success() && out.stdout.is_empty() && !expected.is_empty())
    {
        return Err(format!("exit {:?}: {stderr}", out.status.code()));
    }
    let got = out.stdout;
    let same = match op {
        "parse"
        | "validate"
        | "readAcknowledgement"
        | "webhookSign"
        | "describeSegment"
        | "split"
        | "rebuildPart"
        | "payloadsFromCsv" => got.strip_suffix(b"\n") == Some(&expected[..]),
        "documentSchema" | "partnerSchema" => {
            serde_json::from_slice::<Value>(&got).ok()
                == serde_json::from_slice::<Value>(&expected).ok()
        }
        "webhookVerify" => {
            let want: Value = serde_json::from_slice(&expected).unwrap();
            let line = String::from_utf8_lossy(&got);
            line.trim_end()
                == format!(
                    "ok: signature valid (secret {} of {}, timestamp {})",
                    want["secretIndex"].as_u64().unwrap() + 1,
                    case["args"]["secrets"].as_array().unwrap().len(),
                    want["timestamp"]
                )
        }
        _ => got == expected,
    };
    if same {
        Ok(())
    } else {
        Err(format!(
            "output differs from {}:\n  got:      {}\n  expected: {}",
            case["expect"],
            String::from_utf8_lossy(&got)
                .chars()
                .take(300)
                .collect::<String>(),
            String::from_utf8_lossy(&expected)
                .chars()
                .take(300)
                .collect::<String>()
        ))
    }
}

#[test]
fn every_vector_through_the_cli() {
    let manifest: Value = serde_json::from_slice(
        &std::fs::read(vectors().join("manifest.json")).expect("the manifest"),
    )
    .expect("the manifest is JSON");
    let cases = manifest["cases"].as_array().expect("cases");
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| check(c).err().map(|e| format!("  {}: {e}", c["id"])))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} vector cases differ through the CLI:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(
        cases.len() >= 600,
        "the manifest holds {} cases",
        cases.len()
    );
}
