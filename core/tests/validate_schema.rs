//! Checks the JSON of validation results against its JSON Schema,
//! `schema/validation-result.schema.json` (draft 2020-12): the schema itself
//! (valid 2020-12, every property described, every diagnostic code listed,
//! the diagnostic shape a superset of the parse result's, its example
//! valid), then the results of crafted inputs that reach every part of the
//! shape and of every corpus file, against the published schema and against
//! a strict copy in which every open object is closed (so a property the
//! serializer emits but the schema does not document fails).

mod common;

use common::{corpus_dir, corpus_files, undescribed};

use serde_json::Value;
use std::sync::OnceLock;
use x12kit::Code;
use x12kit::validate::{Buffered, Options, Validator, WholeSetRules};
use x12kit::{AckCodes, Diagnostic, Segment};

const SCHEMA_TEXT: &str = include_str!("../../schema/validation-result.schema.json");
const PARSE_SCHEMA_TEXT: &str = include_str!("../../schema/parse-result.schema.json");

fn schema() -> &'static Value {
    static S: OnceLock<Value> = OnceLock::new();
    S.get_or_init(|| serde_json::from_str(SCHEMA_TEXT).expect("the schema file is not JSON"))
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

fn validators() -> &'static (jsonschema::Validator, jsonschema::Validator) {
    static V: OnceLock<(jsonschema::Validator, jsonschema::Validator)> = OnceLock::new();
    V.get_or_init(|| {
        let open = jsonschema::draft202012::new(schema()).expect("the schema does not compile");
        let mut strict = schema().clone();
        close_open_objects(&mut strict);
        let strict =
            jsonschema::draft202012::new(&strict).expect("the strict schema does not compile");
        (open, strict)
    })
}

fn errors(doc: &Value) -> Vec<String> {
    let (open, strict) = validators();
    let mut out = Vec::new();
    for (name, v) in [("schema", open), ("strict schema", strict)] {
        for e in v.iter_errors(doc).take(5) {
            out.push(format!("{name}: {} at {}", e.masked(), e.instance_path()));
        }
    }
    out
}

#[test]
fn schema_is_valid_draft_2020_12_and_describes_everything() {
    let s = schema();
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    if let Err(e) = jsonschema::draft202012::meta::validate(s) {
        panic!("the schema is not a valid 2020-12 schema: {e}");
    }
    let missing = undescribed(s);
    assert!(missing.is_empty(), "without a description: {missing:#?}");
    for example in s["examples"].as_array().unwrap() {
        let e = errors(example);
        assert!(e.is_empty(), "the example is not valid: {e:#?}");
    }
}

#[test]
fn every_code_is_listed_and_the_diagnostic_extends_the_parse_results() {
    let desc = schema()["$defs"]["diagnostic"]["properties"]["code"]["description"]
        .as_str()
        .unwrap();
    for c in Code::ALL {
        assert!(
            desc.contains(&format!("`{}`", c.as_str())),
            "{c} is not listed"
        );
    }
    let parse: Value = serde_json::from_str(PARSE_SCHEMA_TEXT).unwrap();
    let theirs = parse["$defs"]["diagnostic"]["properties"]
        .as_object()
        .unwrap();
    let ours = schema()["$defs"]["diagnostic"]["properties"]
        .as_object()
        .unwrap();
    for (k, v) in theirs {
        let mine = ours
            .get(k)
            .unwrap_or_else(|| panic!("diagnostic property {k} missing"));
        assert_eq!(mine.get("type"), v.get("type"), "{k}");
    }
    assert!(ours.contains_key("ack"));
}

const ISA4: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*1*P*>~";

/// A rule that flags every N9 segment's element 2 (to produce segment errors).
struct FlagN9;

impl WholeSetRules for FlagN9 {
    fn check(
        &mut self,
        segments: &[Segment<'_>],
        _complete: bool,
        _functional_id: Option<&[u8]>,
        _version: &[u8],
        out: &mut Vec<Diagnostic>,
    ) {
        for s in segments.iter().filter(|s| s.is(b"N9")) {
            out.push(
                Diagnostic::error(Code::Se01Count, "N902 is wrong")
                    .at_segment(s)
                    .at_element(2)
                    .with_ack(AckCodes {
                        ik4: Some("7"),
                        component: Some(1),
                        repetition: Some(1),
                        element_reference: Some(127),
                        value: Some("X".into()),
                        loop_id: Some("N9".into()),
                        ..AckCodes::default()
                    }),
            );
        }
    }
}

fn crafted() -> Vec<(&'static str, Vec<u8>)> {
    let mut broken = format!("{ISA4}GS*PO*S1*R1*20230101*1200*1*X*004010~GE*0*1~").into_bytes();
    broken[105] = b'A';
    vec![
        (
            "errors at every level",
            format!(
                "{ISA4}GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~N9*ZZ*1~bad~SE*9*0002~GE*2*9~ST*850*0001~IEA*9*000000002~"
            )
            .into_bytes(),
        ),
        ("unreadable ISA", broken),
        (
            "acknowledgements",
            format!(
                "{ISA4}TA1*000000007*230101*1200*R*021~GS*FA*R*S*20230101*1200*1*X*005010X231A1~ST*999*0001*005010X231A1~AK1*PO*5*005010~AK2*850*0001*005010~IK3*N9*3*N9*8~IK4*2:1:1*127*7*X~IK5*R*5~AK9*R*1*1*0~SE*9*0001~GE*1*1~IEA*1*000000001~"
            )
            .into_bytes(),
        ),
        (
            "partially accepted, noted",
            format!(
                "{}GS*PO*S1*R1*20230101*1200*1*X*005010~ST*850*0001~SE*2*0001~ST*850*0002~SE*9*0002~GE*2*1~IEA*1*000000001~",
                ISA4.replace("*00401*", "*00501*")
            )
            .into_bytes(),
        ),
        ("not x12", b"{\"json\": true}".to_vec()),
    ]
}

#[test]
fn crafted_results_match_the_schema_and_reach_every_part() {
    let mut all = String::new();
    for (name, input) in crafted() {
        let doc = x12kit::parse(&input);
        let v = Validator::new(Options::default())
            .with_rules(Box::new(Buffered::new(FlagN9)))
            .run(&doc);
        let mut v = v;
        v.acknowledgements = Some(x12kit::ack::read(&doc)).filter(|a| !a.is_empty());
        let json: Value = serde_json::from_slice(&v.to_json()).unwrap();
        let e = errors(&json);
        assert!(e.is_empty(), "{name}: {e:#?}\n{json:#}");
        all.push_str(&json.to_string());
    }
    for needle in [
        "\"recovered\":true",
        "\"functionalId\":null",
        "\"segmentErrors\"",
        "\"loopId\"",
        "\"elementReference\"",
        "\"interchangeAcks\"",
        "\"groupAcks\"",
        "\"ik3\"",
        "\"ik5\"",
        "\"ak9\":\"",
        "\"ta1\":\"",
        "\"partiallyAccepted\"",
        "\"acceptedWithErrors\"",
        "\"implementationReference\"",
    ] {
        assert!(all.contains(needle), "no crafted input produces {needle}");
    }
}

#[test]
fn corpus_results_match_the_schema() {
    let Some(dir) = corpus_dir() else { return };
    let files = corpus_files(&dir);
    for (name, f) in &files {
        let bytes = std::fs::read(f).unwrap();
        let v = x12kit::validate(&x12kit::parse(&bytes));
        let json: Value = serde_json::from_slice(&v.to_json()).unwrap();
        let e = errors(&json);
        assert!(e.is_empty(), "{name}: {e:#?}");
    }
    let n = files.len();
    assert!(n > 400);
}
