//! The cross-language vectors (`tests/vectors/`, format in its README): every
//! case of `manifest.json` run through `x12kit::ops`, its output compared byte
//! for byte with the expected file, or its error with the expected code,
//! kind, pointer and details.
//!
//! `X12KIT_BLESS=1 cargo test -p x12kit --test vectors` rewrites the expected
//! files under `tests/vectors/expected/` and the `error` blocks of the
//! manifest from the core's output (review the diff before committing). It
//! never rewrites a file outside `expected/`: a case whose `expect` names an
//! input (a round trip) must match as it is.

use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use x12kit::{Code, DateTime, Error, ErrorCode, Problem, ops};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

fn bless() -> bool {
    std::env::var_os("X12KIT_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The keys a case may have.
const CASE_KEYS: &[&str] = &[
    "id", "op", "note", "args", "options", "expect", "warnings", "error",
];

/// The `args` each op reads.
const ARGS: &[(&str, &[&str])] = &[
    ("parse", &["input"]),
    ("validate", &["input"]),
    ("acknowledge", &["input", "now"]),
    ("readAcknowledgement", &["input"]),
    ("render", &["documentType", "payload", "partner", "now"]),
    ("write", &["input"]),
    ("documentSchema", &["documentType", "partner"]),
    ("partnerSchema", &[]),
    ("describeSegment", &["setType", "version", "segment"]),
    ("payloadsFromCsv", &["documentType", "input"]),
    ("split", &["input"]),
    ("rebuildPart", &["recipe", "input"]),
    ("merge", &["inputs"]),
    ("webhookSign", &["secret", "timestamp", "body", "bodyFile"]),
    (
        "webhookVerify",
        &[
            "secrets",
            "signature",
            "timestamp",
            "body",
            "bodyFile",
            "now",
        ],
    ),
];

/// The ops a case may name, with the extension of their expected file.
const OPS: &[(&str, &str)] = &[
    ("parse", "json"),
    ("validate", "json"),
    ("acknowledge", "edi"),
    ("readAcknowledgement", "json"),
    ("render", "edi"),
    ("write", "edi"),
    ("documentSchema", "json"),
    ("partnerSchema", "json"),
    ("describeSegment", "json"),
    ("payloadsFromCsv", "json"),
    ("split", "json"),
    ("rebuildPart", "json"),
    ("merge", "edi"),
    ("webhookSign", "txt"),
    ("webhookVerify", "json"),
];

/// Why a case could not even be run (a broken manifest entry, a missing file).
type Broken = String;

struct Case<'a> {
    op: &'a str,
    args: &'a Map<String, Value>,
    options: Value,
}

impl Case<'_> {
    fn arg(&self, name: &str) -> Result<&Value, Broken> {
        self.args
            .get(name)
            .ok_or_else(|| format!("args.{name} is missing"))
    }

    fn str_arg(&self, name: &str) -> Result<&str, Broken> {
        self.arg(name)?
            .as_str()
            .ok_or_else(|| format!("args.{name} must be a string"))
    }

    fn u64_arg(&self, name: &str) -> Result<u64, Broken> {
        self.arg(name)?
            .as_u64()
            .ok_or_else(|| format!("args.{name} must be a non-negative integer"))
    }

    /// The bytes of the file an argument names (relative to tests/vectors).
    fn file(&self, name: &str) -> Result<Vec<u8>, Broken> {
        let rel = self.str_arg(name)?;
        std::fs::read(root().join(rel)).map_err(|e| format!("args.{name}: cannot read {rel}: {e}"))
    }

    fn text(&self, name: &str) -> Result<String, Broken> {
        String::from_utf8(self.file(name)?)
            .map_err(|_| format!("args.{name}: the file is not UTF-8"))
    }

    /// A string argument given inline (`body`) or as a file (`bodyFile`).
    fn bytes_or_file(&self, name: &str) -> Result<Vec<u8>, Broken> {
        let file = format!("{name}File");
        if self.args.contains_key(&file) {
            self.file(&file)
        } else {
            Ok(self.str_arg(name)?.as_bytes().to_vec())
        }
    }

    fn options<T: serde::de::DeserializeOwned + Default>(&self) -> Result<T, Error> {
        ops::options(self.options.clone())
    }
}

/// Runs one case: `Ok(Ok(bytes))` the output, `Ok(Err(e))` the operation's
/// error, `Err(_)` a case that cannot run.
fn run(
    c: &Case<'_>,
    warnings: &mut Vec<Problem>,
    checks: &mut Vec<String>,
) -> Result<Result<Vec<u8>, Error>, Broken> {
    Ok(match c.op {
        "parse" => {
            let input = c.file("input")?;
            c.options().map(|o| ops::parse_json(&input, &o))
        }
        "validate" => {
            let input = c.file("input")?;
            let o: ops::ValidateOptions = match c.options() {
                Ok(o) => o,
                Err(e) => return Ok(Err(e)),
            };
            let whole = ops::validate_json(&input, &o);
            // The stream validator, fed in chunks of any size, gives exactly
            // the whole-document result (acknowledgements, `INVALID_UTF8` and
            // recovered interchanges included).
            for size in [1, 7, 4096, input.len().max(1)] {
                let mut stream = ops::stream_validator(&o);
                for chunk in input.chunks(size) {
                    stream.feed(chunk);
                }
                let streamed = stream.finish().to_json();
                if streamed != whole {
                    checks.push(format!(
                        "ops::stream_validator in chunks of {size} differs from ops::validate_json{}",
                        first_difference(&whole, &streamed)
                    ));
                }
            }
            Ok(whole)
        }
        "acknowledge" => {
            let input = c.file("input")?;
            let now = DateTime::from_unix(c.u64_arg("now")?);
            let o: ops::AcknowledgeOptions = match c.options() {
                Ok(o) => o,
                Err(e) => return Ok(Err(e)),
            };
            let out = ops::acknowledge(&input, &o, now);
            // The same from a validation made first with the same structure
            // setting and guides.
            let v = ops::validate(
                &input,
                &ops::ValidateOptions {
                    structure: o.structure,
                    guides: o.guides.clone(),
                    ..Default::default()
                },
            );
            if ops::acknowledge_validation(&v, &o, now) != out {
                checks.push("ops::acknowledge_validation disagrees with ops::acknowledge".into());
            }
            out
        }
        "readAcknowledgement" => Ok(ops::read_acknowledgement_json(&c.file("input")?)),
        "render" => {
            let document_type = c.str_arg("documentType")?;
            let payload = c.text("payload")?;
            let partner = c.text("partner")?;
            let now = DateTime::from_unix(c.u64_arg("now")?);
            let o: ops::RenderOptions = match c.options() {
                Ok(o) => o,
                Err(e) => return Ok(Err(e)),
            };
            let from_text = ops::render_str(document_type, &payload, &partner, &o, now);
            // The same case through the JSON-value form, when both files are JSON.
            if let (Ok(p), Ok(q)) = (
                serde_json::from_str::<Value>(&payload),
                serde_json::from_str::<Value>(&partner),
            ) {
                let from_values = ops::render(document_type, &p, &q, &o, now);
                let same = match (&from_text, &from_values) {
                    (Ok(a), Ok(b)) => a.x12 == b.x12 && a.warnings == b.warnings,
                    (Err(a), Err(b)) => a == b,
                    _ => false,
                };
                if !same {
                    checks
                        .push("ops::render_str and ops::render (JSON values) disagree".to_string());
                }
            }
            from_text.map(|r| {
                *warnings = r.warnings;
                r.x12
            })
        }
        "write" => {
            let input = c.file("input")?;
            let o: ops::WriteOptions = match c.options() {
                Ok(o) => o,
                Err(e) => return Ok(Err(e)),
            };
            let from_bytes = ops::write_json(&input, &o);
            // The text form agrees wherever the file is UTF-8.
            if let Ok(text) = std::str::from_utf8(&input) {
                if ops::write_str(text, &o) != from_bytes {
                    checks.push("ops::write_json and ops::write_str disagree".to_string());
                }
            }
            from_bytes
        }
        "documentSchema" => {
            let document_type = c.str_arg("documentType")?;
            if c.args.contains_key("partner") {
                // Narrowed for a partner: the text form and the value form agree.
                let partner = c.text("partner")?;
                let from_text = ops::document_schema_for_partner_str(document_type, &partner);
                if let Ok(p) = serde_json::from_str::<Value>(&partner) {
                    if ops::document_schema_for_partner(document_type, &p) != from_text {
                        checks.push(
                            "ops::document_schema_for_partner_str and _for_partner disagree".into(),
                        );
                    }
                }
                from_text.map(|v| to_json(&v))
            } else {
                ops::document_schema(document_type).map(|v| to_json(&v))
            }
        }
        "partnerSchema" => Ok(to_json(&ops::partner_schema())),
        "describeSegment" => {
            let (set_type, version, segment) = (
                c.str_arg("setType")?,
                c.str_arg("version")?,
                c.str_arg("segment")?,
            );
            let json = ops::describe_segment_json(set_type, version, segment);
            // The JSON is the value form serialized (`null` for none).
            let value = ops::describe_segment(set_type, version, segment);
            let same = match (&value, &json) {
                (Ok(v), Ok(j)) => to_json(v) == *j,
                (Err(a), Err(b)) => a == b,
                _ => false,
            };
            if !same {
                checks.push("ops::describe_segment and ops::describe_segment_json disagree".into());
            }
            json
        }
        "payloadsFromCsv" => {
            let document_type = c.str_arg("documentType")?;
            let input = c.file("input")?;
            let o: ops::CsvOptions = match c.options() {
                Ok(o) => o,
                Err(e) => return Ok(Err(e)),
            };
            let json = ops::payloads_from_csv_json(document_type, &input, &o);
            // The JSON is the value form serialized.
            let value = ops::payloads_from_csv(document_type, &input, &o);
            let same = match (&value, &json) {
                (Ok(v), Ok(j)) => to_json(v) == *j,
                (Err(a), Err(b)) => a == b,
                _ => false,
            };
            if !same {
                checks
                    .push("ops::payloads_from_csv and ops::payloads_from_csv_json disagree".into());
            }
            json
        }
        "split" => {
            let input = c.file("input")?;
            let o: ops::SplitOptions = match c.options() {
                Ok(o) => o,
                Err(e) => return Ok(Err(e)),
            };
            let json = ops::split_json(&input, &o);
            let value = ops::split(&input, &o);
            let same = match (&value, &json) {
                (Ok(v), Ok(j)) => to_json(v) == *j,
                (Err(a), Err(b)) => a == b,
                _ => false,
            };
            if !same {
                checks.push("ops::split and ops::split_json disagree".into());
            }
            // Every part of an input without envelope errors parses clean.
            if let Ok(v) = &value {
                if !v.diagnostics.iter().any(|d| d.is_error()) {
                    for p in &v.parts {
                        if x12kit::parse(&p.x12).has_errors() {
                            checks.push(format!(
                                "part {} of a clean input has envelope errors",
                                p.interchange_control_number
                            ));
                        }
                    }
                }
            }
            json
        }
        "rebuildPart" => {
            let input = c.file("input")?;
            let recipe = match ops::part_recipe(c.arg("recipe")?.clone()) {
                Ok(r) => r,
                Err(e) => return Ok(Err(e)),
            };
            // The text form reads the same recipe.
            let text = c.arg("recipe")?.to_string();
            if ops::part_recipe_str(&text).as_ref() != Ok(&recipe) {
                checks.push("ops::part_recipe and ops::part_recipe_str disagree".into());
            }
            let json = ops::rebuild_part_json(&recipe, &input);
            let same = match (ops::rebuild_part(&recipe, &input), &json) {
                (Ok(v), Ok(j)) => to_json(&v) == *j,
                (Err(a), Err(b)) => a == *b,
                _ => false,
            };
            if !same {
                checks.push("ops::rebuild_part and ops::rebuild_part_json disagree".into());
            }
            json
        }
        "merge" => {
            let names: Vec<String> = serde_json::from_value(c.arg("inputs")?.clone())
                .map_err(|_| "args.inputs must be an array of file names".to_string())?;
            let mut inputs = Vec::new();
            for rel in &names {
                inputs.push(
                    std::fs::read(root().join(rel))
                        .map_err(|e| format!("args.inputs: cannot read {rel}: {e}"))?,
                );
            }
            let slices: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
            c.options().and_then(|o| ops::merge(&slices, &o))
        }
        "webhookSign" => {
            let secret = c.str_arg("secret")?;
            let timestamp = c.u64_arg("timestamp")?;
            let body = c.bytes_or_file("body")?;
            ops::webhook_sign(secret.as_bytes(), timestamp, &body).map(String::into_bytes)
        }
        "webhookVerify" => {
            let secrets: Vec<String> = serde_json::from_value(c.arg("secrets")?.clone())
                .map_err(|_| "args.secrets must be an array of strings".to_string())?;
            let signature = c.str_arg("signature")?;
            let timestamp = c.str_arg("timestamp")?;
            let body = c.bytes_or_file("body")?;
            let now = c.u64_arg("now")?;
            c.options()
                .and_then(|o| ops::webhook_verify(&secrets, signature, timestamp, &body, &o, now))
                .map(|v| to_json(&v))
        }
        other => return Err(format!("unknown op {other:?}")),
    })
}

fn to_json<T: serde::Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).expect("a JSON value serializes")
}

/// The `error` block of a case for an error: code, kind, pointer when there
/// is one, details when there are any.
fn error_block(e: &Error) -> Value {
    let mut m = Map::new();
    m.insert("code".into(), json!(e.code().as_str()));
    m.insert("kind".into(), json!(e.kind().as_str()));
    if let Some(p) = e.pointer() {
        m.insert("pointer".into(), json!(p));
    }
    if !e.details().is_empty() {
        m.insert(
            "details".into(),
            serde_json::to_value(e.details()).expect("problems serialize"),
        );
    }
    Value::Object(m)
}

/// Differences between an expected error block and an actual error.
fn error_diff(expected: &Value, actual: &Error) -> Vec<String> {
    let mut out = Vec::new();
    let field = |k: &str| expected.get(k);
    if field("code").and_then(Value::as_str) != Some(actual.code().as_str()) {
        out.push(format!(
            "code: expected {}, got {}",
            field("code").unwrap_or(&Value::Null),
            actual.code()
        ));
    }
    if field("kind").and_then(Value::as_str) != Some(actual.kind().as_str()) {
        out.push(format!(
            "kind: expected {}, got {}",
            field("kind").unwrap_or(&Value::Null),
            actual.kind()
        ));
    }
    if field("pointer").and_then(Value::as_str) != actual.pointer() {
        out.push(format!(
            "pointer: expected {}, got {:?}",
            field("pointer").unwrap_or(&Value::Null),
            actual.pointer()
        ));
    }
    let details = serde_json::to_value(actual.details()).expect("problems serialize");
    let want = field("details").cloned().unwrap_or_else(|| json!([]));
    if want != details {
        out.push(format!("details: expected {want}, got {details}"));
    }
    for k in expected.as_object().into_iter().flatten().map(|(k, _)| k) {
        if !["code", "kind", "pointer", "details"].contains(&k.as_str()) {
            out.push(format!("error.{k}: not a field of an error block"));
        }
    }
    out
}

/// Every code in an expected error block (its own and its details').
fn expected_codes(error: &Value) -> Vec<(String, Option<String>)> {
    let mut out = vec![(
        error
            .get("code")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        error
            .get("kind")
            .and_then(Value::as_str)
            .map(str::to_string),
    )];
    for d in error
        .get("details")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push((
            d.get("code")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            None,
        ));
    }
    out
}

/// The published JSON Schemas the outputs must match.
struct Schemas {
    parse: jsonschema::Validator,
    validate: jsonschema::Validator,
    error: jsonschema::Validator,
    describe: jsonschema::Validator,
    documents: BTreeMap<String, jsonschema::Validator>,
}

impl Schemas {
    fn load() -> Self {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema");
        let compile = |path: PathBuf| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let v: Value = serde_json::from_str(&text).expect("a schema is JSON");
            jsonschema::draft202012::new(&v)
                .unwrap_or_else(|e| panic!("{} does not compile: {e}", path.display()))
        };
        Schemas {
            parse: compile(dir.join("parse-result.schema.json")),
            validate: compile(dir.join("validation-result.schema.json")),
            error: compile(dir.join("error.schema.json")),
            describe: compile(dir.join("segment-description.schema.json")),
            documents: ops::DOCUMENT_TYPES
                .iter()
                .map(|t| {
                    (
                        (*t).to_string(),
                        compile(dir.join(format!("documents/{t}.schema.json"))),
                    )
                })
                .collect(),
        }
    }

    fn document(&self, t: &str) -> Option<&jsonschema::Validator> {
        self.documents.get(t)
    }
}

/// Why `v` does not match `schema` (the first few errors), or `None`.
fn schema_errors(schema: &jsonschema::Validator, v: &Value) -> Option<String> {
    let errors: Vec<String> = schema
        .iter_errors(v)
        .take(3)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    (!errors.is_empty()).then(|| errors.join("; "))
}

/// A number in the case that a JSON reader using doubles (JavaScript) would
/// not read exactly, or a fraction where only integers are used.
fn big_number(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => {
            let exact = n.as_u64().is_some_and(|u| u < 1 << 53)
                || n.as_i64().is_some_and(|i| i.unsigned_abs() < 1 << 53);
            (!exact).then(|| n.to_string())
        }
        Value::Array(a) => a.iter().find_map(big_number),
        Value::Object(m) => m.values().find_map(big_number),
        _ => None,
    }
}

/// Collects the `code` of every diagnostic anywhere in a parse result.
fn diagnostic_codes(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(ds)) = m.get("diagnostics") {
                for d in ds {
                    if let Some(c) = d.get("code").and_then(Value::as_str) {
                        out.insert(c.to_string());
                    }
                }
            }
            for v in m.values() {
                diagnostic_codes(v, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|v| diagnostic_codes(v, out)),
        _ => {}
    }
}

/// Key order of the manifest as written (other keys follow, alphabetically).
const KEY_ORDER: &[&str] = &[
    "version", "cases", "id", "op", "note", "args", "options", "expect", "warnings", "error",
    "severity", "code", "kind", "pointer", "message", "details",
];

/// A JSON value on one line, `{"a": 1, "b": [2, 3]}`, keys in [`KEY_ORDER`].
fn inline(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by_key(|k| {
                KEY_ORDER
                    .iter()
                    .position(|o| o == k)
                    .unwrap_or(KEY_ORDER.len())
            });
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{}: ", json!(k));
                inline(&m[*k], out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                inline(v, out);
            }
            out.push(']');
        }
        v => out.push_str(&v.to_string()),
    }
}

/// The manifest as written: one case per line (see [`inline`]).
fn manifest_text(top: &Map<String, Value>, cases: &[Value]) -> String {
    let mut s = String::from("{\n");
    for (k, v) in top {
        if k != "cases" {
            let _ = write!(s, "  {}: ", json!(k));
            inline(v, &mut s);
            s.push_str(",\n");
        }
    }
    s.push_str("  \"cases\": [\n");
    for (i, c) in cases.iter().enumerate() {
        s.push_str("    ");
        inline(c, &mut s);
        s.push_str(if i + 1 < cases.len() { ",\n" } else { "\n" });
    }
    s.push_str("  ]\n}\n");
    s
}

#[test]
fn vectors() {
    let bless = bless();
    let manifest_path = root().join("manifest.json");
    let text = std::fs::read_to_string(&manifest_path).expect("tests/vectors/manifest.json");
    let manifest: Value = serde_json::from_str(&text).expect("manifest.json is JSON");
    let top = manifest
        .as_object()
        .expect("the manifest is an object")
        .clone();
    assert_eq!(top.get("version"), Some(&json!(1)), "manifest version 1");
    let mut cases = top["cases"].as_array().expect("cases is an array").clone();

    let mut failures: Vec<String> = Vec::new();
    let mut ids = BTreeSet::new();
    let mut by_op: BTreeMap<String, usize> = BTreeMap::new();
    let mut referenced: BTreeSet<PathBuf> = BTreeSet::new();
    let mut parser_codes_seen = BTreeSet::new();
    let mut validator_codes_seen = BTreeSet::new();
    let mut manifest_changed = false;
    let schemas = Schemas::load();
    for (op, _) in OPS {
        assert!(ARGS.iter().any(|(o, _)| o == op), "ARGS lacks the op {op}");
    }
    // The schema checks below can fail: each schema refuses an empty object.
    for (name, schema) in [
        ("error", &schemas.error),
        ("parse", &schemas.parse),
        ("validate", &schemas.validate),
        ("segment description", &schemas.describe),
        ("850", schemas.document("850").expect("850")),
    ] {
        assert!(
            schema_errors(schema, &json!({})).is_some(),
            "the {name} schema accepts {{}}"
        );
    }

    for case in cases.iter_mut() {
        let id = case
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let mut fail = |why: String| failures.push(format!("{id}: {why}"));
        let Some(op) = case.get("op").and_then(Value::as_str).map(str::to_string) else {
            fail("no op".into());
            continue;
        };
        let Some(&(_, ext)) = OPS.iter().find(|(o, _)| *o == op) else {
            fail(format!("unknown op {op:?}"));
            continue;
        };
        if !ids.insert(id.clone()) {
            fail("duplicate id".into());
        }
        let name = match id.strip_prefix(&format!("{op}/")) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => {
                fail(format!("the id must be {op}/<name>"));
                continue;
            }
        };
        *by_op.entry(op.clone()).or_default() += 1;
        for key in case.as_object().into_iter().flat_map(|m| m.keys()) {
            if !CASE_KEYS.contains(&key.as_str()) {
                fail(format!("unknown key {key:?} (a case has {CASE_KEYS:?})"));
            }
        }
        let known_args = ARGS
            .iter()
            .find(|(o, _)| *o == op)
            .map_or(&[][..], |(_, a)| a);
        for key in case
            .get("args")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|m| m.keys())
        {
            if !known_args.contains(&key.as_str()) {
                fail(format!(
                    "{op} has no argument {key:?} (it reads {known_args:?})"
                ));
            }
        }
        if let Some(n) = big_number(case) {
            fail(format!(
                "{n} is not an integer of magnitude below 2^53: JavaScript runners cannot read it exactly"
            ));
        }
        let empty = Map::new();
        let args = case
            .get("args")
            .map_or(Some(&empty), Value::as_object)
            .unwrap_or(&empty)
            .clone();
        let c = Case {
            op: &op,
            args: &args,
            options: case.get("options").cloned().unwrap_or(Value::Null),
        };
        let mut warnings = Vec::new();
        let mut checks = Vec::new();
        // A panic in the core fails this case, not the whole run.
        let outcome = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run(&c, &mut warnings, &mut checks)
        })) {
            Ok(Ok(o)) => o,
            Ok(Err(why)) => {
                fail(format!("cannot run: {why}"));
                continue;
            }
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_string()))
                    .unwrap_or_default();
                fail(format!("the core panicked: {what}"));
                continue;
            }
        };
        for check in checks {
            fail(check);
        }
        let has_expect = case.get("expect").is_some();
        let has_error = case.get("error").is_some();
        if has_expect && has_error {
            fail("gives both expect and error".into());
            continue;
        }
        match outcome {
            Ok(bytes) => {
                // Render warnings: `warnings` lists them, absent when there are none.
                let got = serde_json::to_value(&warnings).expect("problems serialize");
                let want = case.get("warnings").cloned().unwrap_or_else(|| json!([]));
                if got != want {
                    if bless {
                        let m = case.as_object_mut().expect("object");
                        if warnings.is_empty() {
                            m.remove("warnings");
                        } else {
                            m.insert("warnings".into(), got);
                        }
                        manifest_changed = true;
                    } else {
                        fail(format!("warnings differ: expected {want}, got {got}"));
                    }
                }
                if op == "parse" || op == "validate" {
                    match serde_json::from_slice::<Value>(&bytes) {
                        Ok(v) => {
                            if op == "parse" {
                                diagnostic_codes(&v, &mut parser_codes_seen);
                            } else {
                                diagnostic_codes(&v, &mut validator_codes_seen);
                            }
                            let schema = if op == "parse" {
                                &schemas.parse
                            } else {
                                &schemas.validate
                            };
                            if let Some(why) = schema_errors(schema, &v) {
                                fail(format!("the {op} output does not match its schema: {why}"));
                            }
                        }
                        Err(_) => fail(format!("the {op} output is not JSON")),
                    }
                }
                if op == "describeSegment" {
                    match serde_json::from_slice::<Value>(&bytes) {
                        Ok(v) => {
                            if let Some(why) = schema_errors(&schemas.describe, &v) {
                                fail(format!(
                                    "the describeSegment output does not match schema/segment-description.schema.json: {why}"
                                ));
                            }
                        }
                        Err(_) => fail("the describeSegment output is not JSON".into()),
                    }
                }
                // A payload that renders without warnings is one its schema accepts.
                if op == "render" && warnings.is_empty() {
                    let t = args
                        .get("documentType")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let payload = args.get("payload").and_then(Value::as_str).unwrap_or("");
                    let payload: Value = std::fs::read(root().join(payload))
                        .ok()
                        .and_then(|b| serde_json::from_slice(&b).ok())
                        .unwrap_or(Value::Null);
                    match schemas.document(t) {
                        Some(schema) => {
                            if let Some(why) = schema_errors(schema, &payload) {
                                fail(format!(
                                    "the payload renders, but schema/documents/{t}.schema.json refuses it: {why}"
                                ));
                            }
                        }
                        None => fail(format!("no schema/documents/{t}.schema.json")),
                    }
                }
                let rel = match case.get("expect").and_then(Value::as_str) {
                    Some(rel) => rel.to_string(),
                    None if bless => {
                        let rel = format!("expected/{op}/{name}.{ext}");
                        let m = case.as_object_mut().expect("object");
                        m.remove("error");
                        m.insert("expect".into(), json!(rel));
                        manifest_changed = true;
                        rel
                    }
                    None if has_error => {
                        fail(format!(
                            "expected error {}, but the operation succeeded",
                            case["error"]
                        ));
                        continue;
                    }
                    None => {
                        fail("gives neither expect nor error".into());
                        continue;
                    }
                };
                let path = root().join(&rel);
                referenced.insert(path.clone());
                let want = std::fs::read(&path).ok();
                if want.as_deref() != Some(&bytes[..]) {
                    if bless && rel.starts_with("expected/") {
                        std::fs::create_dir_all(path.parent().expect("a parent"))
                            .expect("create expected dir");
                        std::fs::write(&path, &bytes).expect("write expected file");
                    } else if want.is_none() {
                        fail(format!("{rel} is missing (X12KIT_BLESS=1 writes it)"));
                    } else {
                        fail(format!(
                            "output differs from {rel} ({} bytes, expected {}){}",
                            bytes.len(),
                            want.as_ref().map_or(0, Vec::len),
                            first_difference(want.as_deref().unwrap_or(&[]), &bytes)
                        ));
                    }
                }
            }
            Err(e) => {
                let json: Value = serde_json::from_slice(&e.to_json()).expect("an error is JSON");
                if let Some(why) = schema_errors(&schemas.error, &json) {
                    fail(format!(
                        "the error does not match schema/error.schema.json: {why}"
                    ));
                }
                let block = error_block(&e);
                match case.get("error") {
                    Some(want) => {
                        let diff = error_diff(want, &e);
                        if !diff.is_empty() {
                            if bless {
                                case["error"] = block;
                                manifest_changed = true;
                            } else {
                                fail(format!("error differs: {}", diff.join("; ")));
                            }
                        }
                    }
                    None if bless => {
                        let m = case.as_object_mut().expect("object");
                        m.remove("expect");
                        m.insert("error".into(), block);
                        manifest_changed = true;
                    }
                    None => fail(format!(
                        "failed with {} instead of giving {}: {}",
                        e.code(),
                        case.get("expect").unwrap_or(&Value::Null),
                        e
                    )),
                }
            }
        }
    }

    // Every code a case expects is a real error code of the kind it says.
    for case in &cases {
        let id = case.get("id").and_then(Value::as_str).unwrap_or("");
        if let Some(err) = case.get("error") {
            for (code, kind) in expected_codes(err) {
                match ErrorCode::from_name(&code) {
                    None => {
                        failures.push(format!("{id}: expects {code:?}, which is not an ErrorCode"))
                    }
                    Some(c) => {
                        if let Some(kind) = kind.filter(|k| k != c.kind().as_str()) {
                            failures.push(format!(
                                "{id}: expects {code} with kind {kind}, but its kind is {}",
                                c.kind()
                            ));
                        }
                    }
                }
            }
        }
    }

    // Every validator code appears in some validate vector, but those no
    // small input can raise.
    const VALIDATOR_UNREACHED: &[(&str, &str)] = &[
        (
            "ISA16_INVALID",
            "an unusable ISA16 is a parser DELIMITERS (or ISA_LAYOUT) finding first",
        ),
        (
            "DUPLICATE_CHECK_LIMIT",
            "needs more control numbers than a vector should hold",
        ),
    ];
    for code in Code::VALIDATOR {
        let unreached = VALIDATOR_UNREACHED.iter().any(|(c, _)| *c == code.as_str());
        if validator_codes_seen.contains(code.as_str()) == unreached {
            failures.push(format!(
                "(coverage): the validator code {} {}",
                code.as_str(),
                if unreached {
                    "is listed as unreached but appears in a vector: drop it from VALIDATOR_UNREACHED"
                } else {
                    "appears in no validate vector's output"
                }
            ));
        }
    }

    // Every diagnostic code the parser emits appears in some parse vector.
    for code in Code::PARSER {
        if !parser_codes_seen.contains(code.as_str()) {
            failures.push(format!(
                "(coverage): no parse vector's output has the parser diagnostic {}",
                code.as_str()
            ));
        }
    }

    // The README documents every op the runner knows.
    let readme =
        std::fs::read_to_string(root().join("README.md")).expect("tests/vectors/README.md");
    for (op, _) in OPS {
        if !readme.contains(&format!("| `{op}` |")) {
            failures.push(format!("(readme): README.md has no table row for op {op}"));
        }
    }

    // The README's example cases are real cases, as the manifest writes them.
    let written = manifest_text(&top, &cases);
    for line in readme
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("{\"id\""))
    {
        let line = line.trim_end_matches(',');
        if !written
            .lines()
            .any(|m| m.trim().trim_end_matches(',') == line)
        {
            failures.push(format!(
                "(readme): the example case is not in the manifest as written: {line}"
            ));
        }
    }

    // Every expected file belongs to a case (no stale files).
    let mut stack = vec![root().join("expected")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if !referenced.contains(&p) {
                if bless {
                    std::fs::remove_file(&p).expect("remove a stale expected file");
                } else {
                    failures.push(format!(
                        "(stale): {} is no case's expected file",
                        p.strip_prefix(root()).unwrap_or(&p).display()
                    ));
                }
            }
        }
    }

    if bless && manifest_changed {
        std::fs::write(&manifest_path, manifest_text(&top, &cases)).expect("rewrite manifest");
    }

    let summary: Vec<String> = by_op.iter().map(|(op, n)| format!("{op} {n}")).collect();
    eprintln!("vectors: {} cases ({})", cases.len(), summary.join(", "));
    assert!(
        failures.is_empty(),
        "{} of {} vector checks failed{}:\n  {}",
        failures.len(),
        cases.len(),
        if bless { " (even after blessing)" } else { "" },
        failures.join("\n  ")
    );
}

/// Where two outputs first differ, for the failure message.
fn first_difference(want: &[u8], got: &[u8]) -> String {
    let at = want
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(got.len()));
    let show = |b: &[u8]| {
        let end = (at + 40).min(b.len());
        String::from_utf8_lossy(&b[at.min(end)..end]).into_owned()
    };
    format!(
        "; first difference at byte {at}: expected {:?}, got {:?}",
        show(want),
        show(got)
    )
}
