//! Rendering under a partner's guide, and the payload schema narrowed by
//! it (issue 30, items 3 and 4):
//!
//! - a property test: the demo payloads of the guided sets, changed at
//!   random (values replaced by other codes and texts, fields removed,
//!   array items repeated or dropped), rendered under the demo partner's
//!   guide. What render accepts is the X12 it writes without the guide, and
//!   guided validation passes it clean; what render refuses for the guide
//!   (a `GUIDE_*` problem), guided validation of the X12 written without
//!   the guide finds too. Render and validation apply one guide the same way.
//! - the narrowed schema of each guided set accepts the demo payload and
//!   refuses payloads that break the guide.

use proptest::prelude::*;
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

const GUIDED: [&str; 4] = ["850", "810", "856", "204"];

fn guide_json(code: &str) -> Value {
    read_json(&format!("examples/guides/acme-retail-{code}.json"))
}

fn guides(code: &str) -> Guides {
    Guides::new(vec![Guide::from_value(&guide_json(code)).unwrap()]).unwrap()
}

fn render(code: &str, payload: &Value, guides: Guides) -> Result<x12kit::Rendered, x12kit::Error> {
    let o = ops::RenderOptions {
        date: Some("20261128".into()),
        time: Some("1200".into()),
        guides,
        ..Default::default()
    };
    ops::render(
        code,
        payload,
        &read_json("examples/partners/acme-retail.json"),
        &o,
        DateTime::from_unix(0),
    )
}

/// A change to a payload: at the `n`-th leaf (mod their count) or array.
#[derive(Debug, Clone)]
enum Change {
    /// Replace a string leaf with this text.
    Text(usize, String),
    /// Remove a member.
    Remove(usize),
    /// Repeat an array's last item this many times.
    Repeat(usize, u8),
    /// Add a member of the schema that the payload lacks (a string).
    Add(usize, String),
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        // Codes of the guided elements, in and out of the guides' lists.
        prop::sample::select(vec![
            "EA", "CA", "BX", "SA", "NE", "RL", "00", "01", "05", "DP", "IA", "ZZ", "92", "91",
            "ST", "BT", "BY", "SK", "VP", "UP", "CN", "BM", "PO", "CP", "PP", "CC", "DS", "SH",
            "WID-100", "PO-12345", "12345",
        ])
        .prop_map(str::to_string),
        "[A-Za-z0-9 -]{1,50}",
    ]
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        4 => (any::<usize>(), text()).prop_map(|(n, t)| Change::Text(n, t)),
        2 => any::<usize>().prop_map(Change::Remove),
        1 => (any::<usize>(), 1u8..4).prop_map(|(n, k)| Change::Repeat(n, k)),
        2 => (any::<usize>(), text()).prop_map(|(n, t)| Change::Add(n, t)),
    ]
}

/// The pointers of the payload's string leaves, members and arrays.
fn walk(
    v: &Value,
    at: String,
    leaves: &mut Vec<String>,
    members: &mut Vec<String>,
    arrays: &mut Vec<String>,
) {
    match v {
        Value::Object(o) => {
            for (k, m) in o {
                let p = format!("{at}/{k}");
                members.push(p.clone());
                walk(m, p, leaves, members, arrays);
            }
        }
        Value::Array(a) => {
            arrays.push(at.clone());
            for (i, m) in a.iter().enumerate() {
                walk(m, format!("{at}/{i}"), leaves, members, arrays);
            }
        }
        Value::String(_) => leaves.push(at),
        _ => {}
    }
}

/// String fields of the schema's top level and of the first line item
/// (`(object pointer, name)`), which a change may add.
fn addable(code: &str) -> Vec<(String, String)> {
    let s = ops::document_schema(code).unwrap();
    let mut out = Vec::new();
    let strings = |props: &Value, at: &str, out: &mut Vec<(String, String)>| {
        if let Some(p) = props.as_object() {
            for (k, f) in p {
                if f["type"] == "string" {
                    out.push((at.to_string(), k.clone()));
                }
            }
        }
    };
    strings(&s["properties"], "", &mut out);
    for (k, f) in s["properties"].as_object().unwrap() {
        if f["type"] == "array" {
            strings(&f["items"]["properties"], &format!("/{k}/0"), &mut out);
        }
    }
    out
}

fn apply(code: &str, payload: &mut Value, changes: &[Change]) {
    let add = addable(code);
    for c in changes {
        let (mut leaves, mut members, mut arrays) = (Vec::new(), Vec::new(), Vec::new());
        walk(
            payload,
            String::new(),
            &mut leaves,
            &mut members,
            &mut arrays,
        );
        match c {
            Change::Text(n, t) if !leaves.is_empty() => {
                if let Some(v) = payload.pointer_mut(&leaves[n % leaves.len()]) {
                    *v = json!(t);
                }
            }
            Change::Remove(n) if !members.is_empty() => {
                let p = &members[n % members.len()];
                let (parent, key) = p.rsplit_once('/').unwrap();
                if let Some(Value::Object(o)) = payload.pointer_mut(parent) {
                    o.remove(key);
                }
            }
            Change::Repeat(n, k) if !arrays.is_empty() => {
                if let Some(Value::Array(a)) = payload.pointer_mut(&arrays[n % arrays.len()]) {
                    if let Some(last) = a.last().cloned() {
                        a.extend(std::iter::repeat_n(last, *k as usize));
                    }
                }
            }
            Change::Add(n, t) if !add.is_empty() => {
                let (at, name) = &add[n % add.len()];
                if let Some(Value::Object(o)) = payload.pointer_mut(at) {
                    o.entry(name.clone()).or_insert_with(|| json!(t));
                }
            }
            _ => {}
        }
    }
}

fn guide_codes(v: &x12kit::Validation) -> Vec<String> {
    v.diagnostics
        .iter()
        .filter(|d| d.code.as_str().starts_with("GUIDE_"))
        .map(|d| format!("{} {}", d.code.as_str(), d.message))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn render_and_validation_apply_a_guide_alike(
        which in 0..GUIDED.len(),
        changes in prop::collection::vec(change(), 0..5),
    ) {
        let code = GUIDED[which];
        let mut payload = read_json(&format!("examples/payloads/{code}.json"));
        apply(code, &mut payload, &changes);
        // A payload the standard refuses says nothing of the guide.
        let Ok(plain) = render(code, &payload, Guides::default()) else {
            return Ok(());
        };
        let validated = ops::validate(&plain.x12, &ops::ValidateOptions {
            guides: guides(code),
            ..Default::default()
        });
        match render(code, &payload, guides(code)) {
            Ok(r) => {
                prop_assert_eq!(&r.x12, &plain.x12);
                prop_assert!(
                    validated.is_valid() && validated.diagnostics.is_empty(),
                    "{code}: render accepted {payload}, validation finds {:#?}",
                    validated.diagnostics
                );
            }
            Err(e) => {
                prop_assert_eq!(e.code().as_str(), "INVALID_PAYLOAD");
                let by_guide: Vec<_> = e
                    .details()
                    .iter()
                    .filter(|p| p.code.as_str().starts_with("GUIDE_"))
                    .collect();
                // Every refusal names the guide's rule and a payload pointer.
                for p in &by_guide {
                    prop_assert!(p.pointer.starts_with('/'), "{p:?}");
                    prop_assert!(p.message.contains("(rule /"), "{p:?}");
                }
                if !by_guide.is_empty() {
                    prop_assert!(
                        !guide_codes(&validated).is_empty(),
                        "{code}: render refused {payload} with {by_guide:#?}; validation of the X12 finds no guide departure"
                    );
                }
            }
        }
    }
}

#[test]
fn the_narrowed_schemas_accept_the_demo_payloads_and_refuse_what_the_guides_do_not_allow() {
    let partner = read_json("tests/vectors/partners/acme-guided.json");
    for code in GUIDED {
        let s = ops::document_schema_for_partner(code, &partner).unwrap();
        let v = jsonschema::draft202012::new(&s).unwrap_or_else(|e| panic!("{code}: {e}"));
        let payload = read_json(&format!("examples/payloads/{code}.json"));
        let errs: Vec<String> = v.iter_errors(&payload).map(|e| e.to_string()).collect();
        assert!(errs.is_empty(), "{code}: {errs:?}");
        // The unnarrowed schema is the standard's: narrowing only removes.
        let plain = ops::document_schema(code).unwrap();
        assert_ne!(plain, s, "{code}");
    }
    let s = ops::document_schema_for_partner("850", &partner).unwrap();
    let v = jsonschema::draft202012::new(&s).unwrap();
    let bad = read_json("tests/vectors/payloads/850-breaks-guide.json");
    let mut at: Vec<String> = v
        .iter_errors(&bad)
        .map(|e| e.instance_path().to_string())
        .collect();
    at.sort();
    at.dedup();
    for p in [
        "",
        "/lines/0/description/text",
        "/lines/0/sku",
        "/lines/0/unit",
        "/lines/1",
        "/purchaseOrderNumber",
        "/purpose",
    ] {
        // "": `currency`, a segment the guide does not use, is not allowed;
        // /lines/1: its lineNumber, a required field, is missing.
        assert!(at.contains(&p.to_string()), "{p} in {at:?}");
    }
}

/// A profile's guides are checked when it is read: its key is the guide's
/// type, its version the partner's for the type; a path is for the CLI and
/// the server to read; options' guides of another version only warn.
#[test]
fn a_profiles_guides_are_checked_with_it() {
    let mut p = read_json("examples/partners/acme-retail.json");
    let problems = |p: &Value| -> Vec<(String, String)> {
        match x12kit::Partner::from_value(p) {
            Ok(_) => Vec::new(),
            Err(e) => e
                .details()
                .iter()
                .map(|d| (d.code.as_str().to_string(), d.pointer.clone()))
                .collect(),
        }
    };
    p["guides"] = json!({"810": guide_json("850")});
    assert_eq!(
        problems(&p),
        [("INVALID_FIELD".into(), "/guides/810/documentType".into())]
    );
    let mut g = guide_json("850");
    g["version"] = json!("005010");
    p["guides"] = json!({ "850": g });
    assert_eq!(
        problems(&p),
        [("INVALID_FIELD".into(), "/guides/850/version".into())]
    );
    p["guides"] = json!("guides.json");
    assert_eq!(problems(&p), [("INVALID_FIELD".into(), "/guides".into())]);
    p["guides"] = json!({"850": "../guides/acme-retail-850.json"});
    assert!(problems(&p).is_empty(), "a path is read later");
    let e = render(
        "850",
        &read_json("examples/payloads/850.json"),
        Guides::default(),
    );
    assert!(e.is_ok());
    // Options' guides of another version: rendered against the standard, with a warning.
    let mut g = guide_json("850");
    g["version"] = json!("005010");
    let other = Guides::new(vec![Guide::from_value(&g).unwrap()]).unwrap();
    let r = render("850", &read_json("examples/payloads/850.json"), other).unwrap();
    assert_eq!(r.warnings.len(), 1);
    assert_eq!(r.warnings[0].code.as_str(), "GUIDE_NOT_APPLIED");
}
