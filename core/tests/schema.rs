//! Checks the JSON contract of parse results against its JSON Schema,
//! `schema/parse-result.schema.json` (draft 2020-12).
//!
//! The schema itself is checked (valid against the 2020-12 meta-schema, every
//! property described, every diagnostic code listed, its example valid, the
//! envelope field names equal to the constants in `x12kit::json`), shown able
//! to reject wrong documents, and then used to validate the JSON of inputs the
//! project writes itself and of every file of the public corpus
//! (`../shared/corpus`, or the directory in `X12KIT_CORPUS`; when it is absent
//! the corpus test says so and passes, unless `X12KIT_REQUIRE_CORPUS=1`).
//!
//! Each document is validated twice: against the published schema, and
//! against a strict copy where every object the schema leaves open
//! (`"additionalProperties": true`, kept open for fields later versions add)
//! is closed. The strict pass fails when the parser emits a property the
//! schema does not document yet.

mod common;

use common::{corpus_dir, undescribed};

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use x12kit::json::{GE_FIELDS, GS_FIELDS, IEA_FIELDS, ISA_FIELDS, SE_FIELDS, ST_FIELDS};
use x12kit::{Code, parse, to_json, to_value};

const SCHEMA_TEXT: &str = include_str!("../../schema/parse-result.schema.json");

const ISA_4010: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~";
const ISA_5010: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000001*0*T*:~";

fn schema() -> &'static Value {
    static S: OnceLock<Value> = OnceLock::new();
    S.get_or_init(|| serde_json::from_str(SCHEMA_TEXT).expect("the schema file is not JSON"))
}

/// The published schema, compiled.
fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| jsonschema::draft202012::new(schema()).expect("the schema does not compile"))
}

/// The schema with every open object closed: catches undocumented properties.
fn strict_validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let mut s = schema().clone();
        close_open_objects(&mut s);
        jsonschema::draft202012::new(&s).expect("the strict schema does not compile")
    })
}

fn close_open_objects(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.get("additionalProperties") == Some(&Value::Bool(true)) {
                m.insert("additionalProperties".into(), Value::Bool(false));
            }
            m.values_mut().for_each(close_open_objects);
        }
        Value::Array(a) => a.iter_mut().for_each(close_open_objects),
        _ => {}
    }
}

/// Schema errors of a document (published and strict schema), as readable lines.
fn errors(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (name, v) in [
        ("schema", validator()),
        ("strict schema", strict_validator()),
    ] {
        for e in v.iter_errors(doc).take(5) {
            out.push(format!("{name}: {} at {}", e.masked(), e.instance_path()));
        }
        if !out.is_empty() {
            break;
        }
    }
    out
}

/// Validates the JSON of an input (both `to_value` and the `to_json` bytes).
fn check_input(name: &str, input: &[u8]) -> Vec<String> {
    let doc = parse(input);
    let value = to_value(&doc).unwrap();
    let json = to_json(&doc);
    let text: Value = serde_json::from_slice(&json).unwrap_or_else(|e| {
        panic!(
            "{name}: to_json is not JSON ({e}): {}",
            String::from_utf8_lossy(&json)
        )
    });
    assert_eq!(text, value, "{name}: to_json and to_value disagree");
    errors(&value)
        .into_iter()
        .map(|e| format!("{name}: {e}"))
        .collect()
}

#[test]
fn schema_is_valid_draft_2020_12() {
    let s = schema();
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    if let Err(e) = jsonschema::draft202012::meta::validate(s) {
        panic!("the schema is not a valid 2020-12 schema: {e}");
    }
    let _ = validator();
    let _ = strict_validator();
}

/// Every property and every definition says what it is: it is the contract
/// for users of every binding.
#[test]
fn schema_describes_every_property() {
    let missing = undescribed(schema());
    assert!(
        missing.is_empty(),
        "properties without a description: {missing:#?}"
    );
    assert!(
        schema()["description"]
            .as_str()
            .is_some_and(|d| d.len() > 100)
    );
}

#[test]
fn schema_lists_every_diagnostic_code() {
    let code = &schema()["$defs"]["diagnostic"]["properties"]["code"];
    let desc = code["description"].as_str().unwrap();
    let pattern = regex_lite_full_match(code["pattern"].as_str().unwrap());
    for c in Code::ALL {
        assert!(
            desc.contains(&format!("`{}`", c.as_str())),
            "the code description does not list {c}: add it to schema/parse-result.schema.json"
        );
        assert!(pattern(c.as_str()), "{c} does not match the code pattern");
    }
}

/// `^[A-Z][A-Z0-9_]*$` checked by hand, so a change of pattern is noticed.
fn regex_lite_full_match(pattern: &str) -> impl Fn(&str) -> bool {
    assert_eq!(pattern, "^[A-Z][A-Z0-9_]*$");
    |s: &str| {
        let b = s.as_bytes();
        !b.is_empty()
            && b[0].is_ascii_uppercase()
            && b.iter()
                .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
    }
}

#[test]
fn schema_field_names_match_the_serializer() {
    let defs = &schema()["$defs"];
    let names = |v: &Value| -> Vec<String> {
        let mut n: Vec<String> = v["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        n.sort();
        n
    };
    let expect = |fields: &[&str], extra: bool| -> Vec<String> {
        let mut n: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
        if extra {
            n.push("extra".into());
        }
        n.sort();
        n
    };
    let interchange = &defs["interchange"]["properties"];
    assert_eq!(names(&interchange["header"]), expect(&ISA_FIELDS, false));
    let isa_required: Vec<&str> = interchange["header"]["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        isa_required, ISA_FIELDS,
        "every ISA field is required, in order"
    );
    assert_eq!(
        names(&interchange["trailer"]["anyOf"][0]),
        expect(&IEA_FIELDS, true)
    );
    let group = &defs["group"]["properties"];
    assert_eq!(
        names(&group["header"]["anyOf"][0]),
        expect(&GS_FIELDS, true)
    );
    assert_eq!(
        names(&group["trailer"]["anyOf"][0]),
        expect(&GE_FIELDS, true)
    );
    let tx = &defs["transaction"]["properties"];
    for f in ST_FIELDS {
        assert!(
            tx.get(f).is_some(),
            "transaction property {f} is not in the schema"
        );
    }
    assert_eq!(names(&tx["trailer"]["anyOf"][0]), expect(&SE_FIELDS, true));
}

#[test]
fn schema_examples_are_valid() {
    let examples = schema()["examples"]
        .as_array()
        .expect("the schema has examples");
    assert!(!examples.is_empty());
    for (n, e) in examples.iter().enumerate() {
        assert_eq!(errors(e), Vec::<String>::new(), "example {n}");
        // The example is what the parser makes of the X12 it writes back to.
        let x12 = x12kit::write(e, &Default::default()).expect("the example writes back");
        assert_eq!(
            &to_value(&parse(&x12)).unwrap(),
            e,
            "example {n} is not the parser's output"
        );
    }
}

/// The schema can fail: documents that break the contract are rejected.
#[test]
fn schema_rejects_wrong_documents() {
    let x12 = format!(
        "{ISA_5010}\nGS*PO*S*R*20230101*1200*1*X*005010\nST*850*0001\nREF*ZZ*A:B*C^D:E\nSE*3*0001\nGE*1*1\nIEA*1*000000001\n"
    )
    .replace('\n', "~\n")
    .replace("~~", "~");
    let good = to_value(&parse(x12.as_bytes())).unwrap();
    assert_eq!(good["diagnostics"], json!([]), "{x12}");
    assert_eq!(errors(&good), Vec::<String>::new());

    let el = "/interchanges/0/groups/0/transactions/0/segments/0/elements";
    let cases: Vec<(&str, String, Value)> = vec![
        ("element as a number", format!("{el}/0"), json!(5)),
        ("element as null", format!("{el}/0"), Value::Null),
        (
            "composite with one component",
            format!("{el}/1"),
            json!(["A"]),
        ),
        (
            "composite with a number",
            format!("{el}/1"),
            json!(["A", 1]),
        ),
        (
            "repeat with one item",
            format!("{el}/2"),
            json!({"repeat": ["C"]}),
        ),
        (
            "repeat with a nested repeat",
            format!("{el}/2"),
            json!({"repeat": ["C", {"repeat": ["a", "b"]}]}),
        ),
        (
            "element object without repeat",
            format!("{el}/2"),
            json!({"components": ["C", "D"]}),
        ),
        (
            "repeat with an unknown key",
            format!("{el}/2"),
            json!({"repeat": ["C", "D"], "x": 1}),
        ),
        (
            "segment id as a number",
            format!("{}/id", el.trim_end_matches("/elements")),
            json!(1),
        ),
        (
            "two-character delimiter",
            "/interchanges/0/delimiters/element".into(),
            json!("**"),
        ),
        (
            "empty delimiter",
            "/interchanges/0/delimiters/segment".into(),
            json!(""),
        ),
        (
            "letter as delimiter",
            "/interchanges/0/delimiters/component".into(),
            json!("A"),
        ),
        (
            "delimiter beyond U+00FF",
            "/interchanges/0/delimiters/component".into(),
            json!("€"),
        ),
        (
            "unknown delimiter",
            "/interchanges/0/delimiters/decimal".into(),
            json!("."),
        ),
        (
            "line break that is not whitespace",
            "/interchanges/0/lineBreak".into(),
            json!("x"),
        ),
        (
            "override keyed by a name",
            "/interchanges/0/lineBreakOverrides".into(),
            json!({"last": ""}),
        ),
        (
            "empty overrides",
            "/interchanges/0/lineBreakOverrides".into(),
            json!({}),
        ),
        (
            "override that is not whitespace",
            "/interchanges/0/lineBreakOverrides".into(),
            json!({"3": "-"}),
        ),
        (
            "ISA field as a number",
            "/interchanges/0/header/senderId".into(),
            json!(7),
        ),
        (
            "unknown ISA field",
            "/interchanges/0/header/sender".into(),
            json!("S"),
        ),
        (
            "GS as a string",
            "/interchanges/0/groups/0/header".into(),
            json!("GS*PO"),
        ),
        (
            "unknown GE field",
            "/interchanges/0/groups/0/trailer/count".into(),
            json!("1"),
        ),
        (
            "SE count as a number",
            "/interchanges/0/groups/0/transactions/0/trailer/segmentCount".into(),
            json!(3),
        ),
        (
            "transaction type as a number",
            "/interchanges/0/groups/0/transactions/0/type".into(),
            json!(850),
        ),
        (
            "empty extra",
            "/interchanges/0/groups/0/transactions/0/extra".into(),
            json!([]),
        ),
        (
            "negative afterGroup",
            "/interchanges/0/segments".into(),
            json!([{"id": "TA1", "elements": [], "afterGroup": -1}]),
        ),
        (
            "severity fatal",
            "/diagnostics".into(),
            json!([{"severity": "fatal", "code": "NOT_X12", "message": "m"}]),
        ),
        (
            "lower-case code",
            "/diagnostics".into(),
            json!([{"severity": "error", "code": "not_x12", "message": "m"}]),
        ),
        (
            "diagnostic without message",
            "/diagnostics".into(),
            json!([{"severity": "error", "code": "NOT_X12"}]),
        ),
        (
            "element position 0",
            "/diagnostics".into(),
            json!([{"severity": "error", "code": "SE_MISSING", "message": "m", "element": 0}]),
        ),
        ("prefix with text", "/prefix".into(), json!("hello")),
    ];
    for (what, path, value) in cases {
        let mut doc = good.clone();
        set(&mut doc, &path, value);
        assert!(
            !validator().is_valid(&doc),
            "the schema accepts a document with {what}"
        );
    }
    for (what, path) in [
        ("no interchanges", "/interchanges"),
        ("no diagnostics", "/diagnostics"),
        ("no delimiters", "/interchanges/0/delimiters"),
        (
            "no repetition (null is required)",
            "/interchanges/0/delimiters/repetition",
        ),
        ("no ISA13", "/interchanges/0/header/controlNumber"),
        ("no groups", "/interchanges/0/groups"),
        (
            "no interchange trailer (null is required)",
            "/interchanges/0/trailer",
        ),
        ("no transactions", "/interchanges/0/groups/0/transactions"),
        (
            "no transaction segments",
            "/interchanges/0/groups/0/transactions/0/segments",
        ),
        (
            "no segment elements",
            "/interchanges/0/groups/0/transactions/0/segments/0/elements",
        ),
    ] {
        let mut doc = good.clone();
        remove(&mut doc, path);
        assert!(
            !validator().is_valid(&doc),
            "the schema accepts a document with {what}"
        );
    }
    // Open objects accept new properties in the published schema only.
    let mut doc = good.clone();
    set(
        &mut doc,
        "/interchanges/0/groups/0/transactions/0/laterProperty",
        json!({"poNumber": "1"}),
    );
    set(
        &mut doc,
        "/interchanges/0/groups/0/transactions/0/trailer",
        Value::Null,
    );
    assert!(validator().is_valid(&doc));
    assert!(!strict_validator().is_valid(&doc));
}

/// Sets the value at a JSON pointer, creating the last key.
fn set(doc: &mut Value, path: &str, value: Value) {
    let (parent, last) = path.rsplit_once('/').unwrap();
    let target = doc
        .pointer_mut(parent)
        .unwrap_or_else(|| panic!("no {parent}"));
    match target {
        Value::Object(m) => {
            m.insert(last.to_string(), value);
        }
        Value::Array(a) => a[last.parse::<usize>().unwrap()] = value,
        _ => panic!("{parent} is not a container"),
    }
}

fn remove(doc: &mut Value, path: &str) {
    let (parent, last) = path.rsplit_once('/').unwrap();
    let m = doc
        .pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .unwrap();
    assert!(m.remove(last).is_some(), "{path} is not in the document");
}

/// Inputs the project writes itself, chosen to reach every branch of the shape.
fn project_inputs() -> Vec<(&'static str, Vec<u8>)> {
    let gs = "GS*PO*S*R*20230101*1200*1*X*004010~";
    let tx = "ST*850*0001~BEG*00*SA*1**20230101~SE*3*0001~";
    let mut v: Vec<(&'static str, Vec<u8>)> = vec![
        ("empty input", b"".to_vec()),
        ("whitespace only", b"  \r\n\t".to_vec()),
        ("binary junk", (0u8..=255).rev().cycle().take(700).collect()),
        ("JSON text", br#"{"interchanges": [], "diagnostics": []}"#.to_vec()),
        ("XML text", b"<?xml version=\"1.0\"?><edi/>".to_vec()),
        ("UTF-16 text", "ISA*00".encode_utf16().flat_map(u16::to_le_bytes).collect()),
        ("GS without ISA", format!("{gs}{tx}GE*1*1~").into_bytes()),
        ("truncated ISA", ISA_4010.as_bytes()[..60].to_vec()),
        ("ISA alone", ISA_4010.as_bytes().to_vec()),
        ("ST outside a group", format!("{ISA_4010}{tx}IEA*0*000000001~").into_bytes()),
        ("missing SE, GE and IEA", format!("{ISA_4010}{gs}ST*850*0001~BEG*00~").into_bytes()),
        ("missing SE", format!("{ISA_4010}{gs}ST*850*0001~BEG*00~GE*1*1~IEA*1*000000001~").into_bytes()),
        ("missing GE", format!("{ISA_4010}{gs}{tx}IEA*1*000000001~").into_bytes()),
        ("short envelope segments", format!("{ISA_4010}GS~ST*850~SE~GE~IEA~").into_bytes()),
        (
            "extra envelope elements",
            format!("{ISA_4010}GS*PO*S*R*1*1*1*X*004010*Z*Y~ST*850*1*A*B:C*D^E~SE*2*1*Q~GE*1*1*R~IEA*1*000000001*S~")
                .into_bytes(),
        ),
        (
            "repeats and composites (5010)",
            format!("{ISA_5010}{gs}ST*850*0001*005010X1~REF*ZZ*A:B*C^D:E*^*:*~SE*3*0001~GE*1*1~IEA*1*000000001~")
                .into_bytes(),
        ),
        ("unexpected segments", format!("{ISA_4010}N1*X~{gs}N2*Y~{tx}GE*1*1~SE*1*1~IEA*1*000000001~N3*Z~").into_bytes()),
        ("TA1 before and after a group", format!("{ISA_4010}TA1*1*2*3*A*000~{gs}{tx}GE*1*1~TA1*1*2*3*R*022~IEA*1*000000001~").into_bytes()),
        ("empty segment ids", format!("{ISA_4010}{gs}ST*850*1~~~n1*x~SE*3*1~GE*1*1~IEA*1*000000001~").into_bytes()),
        ("no final terminator", format!("{ISA_4010}{gs}{tx}GE*1*1~IEA*1*000000001").into_bytes()),
        ("trailing data", format!("{ISA_4010}IEA*0*000000001~\ngarbage\n{ISA_4010}IEA*0*000000001~").into_bytes()),
        ("text before the ISA", format!("notes\n{ISA_4010}IEA*0*000000001~").into_bytes()),
        ("BOM, CRLF and a missing final line break", {
            let mut b = b"\xEF\xBB\xBF\r\n".to_vec();
            b.extend(format!("{ISA_4010}{gs}{tx}GE*1*1~IEA*1*000000001~").replace('~', "~\r\n").trim_end().as_bytes());
            b
        }),
        ("invalid UTF-8 in values", format!("{ISA_4010}{gs}ST*850*1~N1*ST*Caf\u{e9}~SE*3*1~GE*1*1~IEA*1*000000001~").into_bytes().into_iter().map(|b| if b == 0xC3 { 0xE9 } else { b }).collect()),
        ("line feed as terminator", format!("{ISA_4010}{gs}{tx}GE*1*1~IEA*1*000000001~").replace('~', "\n").into_bytes()),
        ("unpadded ISA", b"ISA*00**00**ZZ*S*ZZ*R*230101*1200*U*00401*1*0*P*>~IEA*0*1~".to_vec()),
        ("alphanumeric delimiter", ISA_4010.replace('~', "A").into_bytes()),
        ("bad repetition separator", ISA_5010.replace("*^*", "*U*").into_bytes()),
    ];
    // Control bytes and a byte above 0x7F as delimiters.
    let odd: Vec<u8> = format!("{ISA_4010}{gs}ST*850*1~REF*ZZ*A>B~SE*3*1~GE*1*1~IEA*1*000000001~")
        .bytes()
        .map(|b| match b {
            b'*' => 0x1D,
            b'~' => 0x85,
            b'>' => 0x1F,
            o => o,
        })
        .collect();
    v.push(("control and Latin-1 delimiters", odd));
    // Two interchanges with different delimiters.
    let mut two = format!("{ISA_4010}{gs}{tx}GE*1*1~IEA*1*000000001~\n").into_bytes();
    two.extend(
        format!("{ISA_5010}{gs}{tx}GE*1*1~IEA*1*000000001~")
            .replace('*', "|")
            .replace('~', "!\n")
            .bytes(),
    );
    v.push(("two interchanges", two));
    v
}

#[test]
fn project_inputs_match_schema() {
    let mut failures = Vec::new();
    for (name, input) in project_inputs() {
        failures.extend(check_input(name, &input));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The project inputs reach the optional parts of the shape, so the schema
/// is exercised beyond the happy path.
#[test]
fn project_inputs_reach_every_optional_part() {
    let docs: Vec<String> = project_inputs()
        .iter()
        .map(|(_, b)| String::from_utf8(to_json(&parse(b))).unwrap())
        .collect();
    let all = docs.concat();
    for needle in [
        "\"prefix\"",
        "\"lineBreakOverrides\"",
        "\"afterGroup\"",
        "\"repeat\"",
        "\"extra\"",
        "\"implementationReference\"",
        "\"trailer\":null",
        "\"header\":null",
        "\"repetition\":null",
        "\"segmentIndex\"",
        "\"warning\"",
        "\"interchanges\":[]",
    ] {
        assert!(all.contains(needle), "no project input produces {needle}");
    }
    // Every code the parser reports is produced by at least one input (the
    // validator's codes never appear in a parse result).
    for c in PARSER_CODES {
        assert!(Code::from_name(c).is_some(), "{c} is no longer a code");
        assert!(
            all.contains(&format!("\"code\":\"{c}\"")),
            "no project input produces {c}; add one"
        );
    }
}

/// The codes `parse` reports.
const PARSER_CODES: [&str; 13] = [
    "NOT_X12",
    "DELIMITERS",
    "ISA_LAYOUT",
    "IEA_MISSING",
    "GE_MISSING",
    "SE_MISSING",
    "ST_OUTSIDE_GROUP",
    "SEGMENT_ID",
    "TRAILING_DATA",
    "UNEXPECTED_SEGMENT",
    "BOM",
    "INVALID_UTF8",
    "TERMINATOR_MISSING",
];

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

#[test]
fn corpus_matches_schema() {
    let Some(dir) = corpus_dir() else { return };
    let mut files = Vec::new();
    files_under(&dir, &mut files);
    assert!(
        !files.is_empty(),
        "the corpus at {} holds no file",
        dir.display()
    );
    let mut failures = Vec::new();
    for f in &files {
        let input = std::fs::read(f).unwrap();
        let name = f.strip_prefix(&dir).unwrap().display().to_string();
        failures.extend(check_input(&name, &input));
    }
    println!("{} corpus files validated against the schema", files.len());
    assert!(
        failures.is_empty(),
        "{} schema errors:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn bug_st_without_elements_gives_valid_json() {
    let input = format!("{ISA_4010}GS~ST~SE~GE~IEA~");
    let failures = check_input("bare envelope segments", input.as_bytes());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
