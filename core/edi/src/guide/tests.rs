//! Per-rule tests of guides: loading (every `INVALID_GUIDE` problem at its
//! pointer) and the checks of received sets (each `GUIDE_*` code with its
//! 999 code), through the validator as a caller reaches them.

use super::{Guide, Guides};
use crate::validate::{Options, Validation};
use serde_json::{Value, json};
use x12kit_syntax::diagnostics::{Diagnostic, Severity};

/// An 850 (004010) with `body` between ST and SE (SE01 counted).
pub(crate) fn x850(body: &str) -> String {
    x850_version(body, "004010")
}

pub(crate) fn x850_version(body: &str, version: &str) -> String {
    let n = body.matches('~').count() + 2;
    format!(
        "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *231114*2213*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20231114*2213*1*X*{version}~ST*850*0001~{body}SE*{n}*0001~GE*1*1~IEA*1*000000001~"
    )
}

const BODY: &str = "BEG*00*SA*PO-1**20231114~REF*DP*038~N1*ST*STORE 1*92*0001~PO1*1*10*EA*9.99**VP*WID-1~PID*F****BLUE WIDGET~CTT*1~";

fn guide(v: Value) -> Guide {
    Guide::from_value(&v).unwrap_or_else(|e| panic!("{:?}", e.details()))
}

fn base(extra: Value) -> Value {
    let mut g = json!({"id": "acme-850", "documentType": "850", "version": "004010"});
    for (k, v) in extra.as_object().unwrap() {
        g[k] = v.clone();
    }
    g
}

fn problems(v: Value) -> Vec<(String, String)> {
    let e = Guide::from_value(&v).expect_err("the guide should be refused");
    assert_eq!(e.code().as_str(), "INVALID_GUIDE");
    e.details()
        .iter()
        .map(|p| (p.pointer.clone(), p.message.clone()))
        .collect()
}

fn pointers(v: Value) -> Vec<String> {
    problems(v).into_iter().map(|p| p.0).collect()
}

fn run(x12: &str, g: Guide) -> Validation {
    let o = Options {
        guides: Guides::new(vec![g]).unwrap(),
        ..Options::default()
    };
    crate::validation::validate_with(&x12kit_syntax::parse(x12.as_bytes()), &o)
}

/// (code, segment id, element, guide pointer, IK304, IK403) of the guide findings.
fn found(v: &Validation) -> Vec<(String, String, Option<u32>, String, String, String)> {
    v.diagnostics
        .iter()
        .filter(|d| d.code.as_str().starts_with("GUIDE_"))
        .map(|d: &Diagnostic| {
            let a = d.ack.as_deref().cloned().unwrap_or_default();
            (
                d.code.as_str().to_string(),
                d.segment_id.clone().unwrap_or_default(),
                d.element,
                d.guide_pointer.as_deref().unwrap_or_default().to_string(),
                a.ik3.unwrap_or_default().to_string(),
                a.ik4.unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn one(v: &Validation) -> (String, String, Option<u32>, String, String, String) {
    let f = found(v);
    assert_eq!(f.len(), 1, "{:#?}", v.diagnostics);
    f.into_iter().next().unwrap()
}

#[test]
fn a_clean_set_under_a_guide_is_valid() {
    let g = guide(base(json!({
        "segments": {"BEG": {"elements": {"BEG02": {"codes": ["SA", "NE"]}}}, "REF": {"maxUse": 2}},
        "loops": {"N1": {"minUse": 1, "maxUse": 3}}
    })));
    let v = run(&x850(BODY), g);
    assert!(v.is_valid(), "{:#?}", v.diagnostics);
    assert!(v.diagnostics.is_empty());
}

#[test]
fn segment_not_used_is_i4() {
    let g = guide(base(json!({"segments": {"REF": {"usage": "notUsed"}}})));
    let v = run(&x850(BODY), g);
    let f = one(&v);
    assert_eq!(f.0, "GUIDE_SEGMENT_NOT_USED");
    assert_eq!(
        (f.1.as_str(), f.3.as_str(), f.4.as_str()),
        ("REF", "/segments/REF/usage", "I4")
    );
    let set = &v.interchanges[0].groups[0].transactions[0];
    assert_eq!(set.ak5.code, "R");
    assert_eq!(set.ak5.errors, vec!["I5"]);
}

#[test]
fn segment_missing_is_i6_and_too_few_is_i8() {
    let g = guide(base(json!({"segments": {"PER": {"usage": "required"}}})));
    let f = one(&run(&x850(BODY), g));
    assert_eq!(
        (f.0.as_str(), f.1.as_str(), f.4.as_str()),
        ("GUIDE_SEGMENT_MISSING", "PER", "I6")
    );
    let g = guide(base(json!({"segments": {"REF": {"minUse": 2}}})));
    let f = one(&run(&x850(BODY), g));
    assert_eq!(
        (f.0.as_str(), f.1.as_str(), f.4.as_str()),
        ("GUIDE_SEGMENT_TOO_FEW", "REF", "I8")
    );
}

#[test]
fn segment_too_many_is_5() {
    let g = guide(base(json!({"segments": {"REF": {"maxUse": 1}}})));
    let body = BODY.replace("REF*DP*038~", "REF*DP*038~REF*IA*1234~");
    let v = run(&x850(&body), g);
    let f = one(&v);
    assert_eq!(
        (f.0.as_str(), f.4.as_str()),
        ("GUIDE_SEGMENT_TOO_MANY", "5")
    );
    assert_eq!(v.diagnostics[0].segment_index, Some(5));
}

#[test]
fn loops_too_few_is_i7_and_too_many_is_4() {
    let g = guide(base(json!({"loops": {"N1": {"minUse": 2}}})));
    let f = one(&run(&x850(BODY), g));
    assert_eq!(
        (f.0.as_str(), f.1.as_str(), f.4.as_str()),
        ("GUIDE_LOOP_TOO_FEW", "N1", "I7")
    );
    let g = guide(base(json!({"loops": {"PO1": {"maxUse": 1}}})));
    let body = BODY.replace("CTT*1~", "PO1*2*1*EA*1**VP*W-2~CTT*2~");
    let f = one(&run(&x850(&body), g));
    assert_eq!(
        (f.0.as_str(), f.1.as_str(), f.4.as_str()),
        ("GUIDE_LOOP_TOO_MANY", "PO1", "4")
    );
}

#[test]
fn a_segment_in_a_loop_is_required_in_each_occurrence() {
    let g = guide(base(
        json!({"segments": {"PO1/PID": {"usage": "required"}}}),
    ));
    let body = BODY.replace("CTT*1~", "PO1*2*1*EA*1**VP*W-2~CTT*2~");
    let v = run(&x850(&body), g);
    let f = one(&v);
    assert_eq!(
        (f.0.as_str(), f.1.as_str(), f.3.as_str()),
        ("GUIDE_SEGMENT_MISSING", "PID", "/segments/PO1~1PID/usage")
    );
    // Reported where the PID would be: after the second PO1, at the CTT.
    assert_eq!(v.diagnostics[0].segment_index, Some(9));
    assert_eq!(
        v.diagnostics[0].ack.as_ref().unwrap().loop_id.as_deref(),
        Some("PO1")
    );
}

#[test]
fn element_rules_each_have_their_code() {
    let cases = [
        (
            json!({"BEG": {"elements": {"BEG02": {"codes": ["NE"]}}}}),
            "GUIDE_CODE_NOT_USED",
            "I6",
        ),
        (
            json!({"BEG": {"elements": {"BEG04": {"usage": "required"}}}}),
            "GUIDE_ELEMENT_MISSING",
            "I9",
        ),
        (
            json!({"REF": {"elements": {"REF02": {"usage": "notUsed"}}}}),
            "GUIDE_ELEMENT_NOT_USED",
            "I10",
        ),
        (
            json!({"PO1": {"elements": {"PO107": {"pattern": "^[A-Z]+-[0-9]{3}$"}}}}),
            "GUIDE_PATTERN",
            "I12",
        ),
        (
            json!({"PO1/PID": {"elements": {"PID05": {"maxLength": 5}}}}),
            "GUIDE_ELEMENT_TOO_LONG",
            "5",
        ),
        (
            json!({"REF": {"elements": {"REF02": {"minLength": 4}}}}),
            "GUIDE_ELEMENT_TOO_SHORT",
            "4",
        ),
        (
            json!({"BEG": {"elements": {"BEG01": {"value": "01"}}}}),
            "GUIDE_VALUE",
            "I6",
        ),
    ];
    for (segments, code, ik4) in cases {
        let g = guide(base(json!({ "segments": segments })));
        let v = run(&x850(BODY), g);
        let f = one(&v);
        assert_eq!(
            (f.0.as_str(), f.4.as_str(), f.5.as_str()),
            (code, "8", ik4),
            "{segments}"
        );
        assert!(f.3.starts_with("/segments/"), "{f:?}");
        assert_eq!(v.diagnostics[0].severity, Severity::Error);
    }
}

#[test]
fn a_numeric_length_counts_digits() {
    // PO102 "10" is two digits; a decimal point and sign do not count.
    let g = guide(base(
        json!({"segments": {"PO1": {"elements": {"PO104": {"maxLength": 3}}}}}),
    ));
    assert!(run(&x850(BODY), g).is_valid());
}

#[test]
fn a_standard_finding_is_not_repeated_by_the_guide() {
    // BEG05 is not a date: the standard says so; the guide's pattern says nothing more.
    let g = guide(base(
        json!({"segments": {"BEG": {"elements": {"BEG05": {"pattern": "^2023"}}}}}),
    ));
    let body = BODY.replace("20231114~REF", "20231199~REF");
    let v = run(&x850(&body), g);
    let codes: Vec<_> = v.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, vec!["ELEMENT_INVALID_DATE"]);
}

#[test]
fn a_version_no_guide_names_gets_one_warning() {
    let g = guide(base(json!({"segments": {"REF": {"usage": "notUsed"}}})));
    let v = run(&x850_version(BODY, "005010"), g);
    assert!(v.is_valid(), "{:#?}", v.diagnostics);
    assert_eq!(v.diagnostics.len(), 1);
    assert_eq!(v.diagnostics[0].code.as_str(), "GUIDE_NOT_APPLIED");
    assert_eq!(v.diagnostics[0].severity, Severity::Warning);
}

#[test]
fn a_set_of_another_type_is_checked_by_the_standard_alone() {
    let g = Guide::from_value(
        &json!({"id": "x", "documentType": "810", "version": "004010",
        "segments": {"BIG": {"usage": "required"}}}),
    )
    .unwrap();
    let v = run(&x850(BODY), g);
    assert!(
        v.is_valid() && v.diagnostics.is_empty(),
        "{:#?}",
        v.diagnostics
    );
}

#[test]
fn a_997_carries_the_nearest_standard_codes() {
    let g = guide(base(json!({"segments": {"REF": {"usage": "notUsed"},
        "BEG": {"elements": {"BEG02": {"codes": ["NE"]}}}}})));
    let v = run(&x850(BODY), g);
    let o = |kind| crate::ack::AckOptions {
        kind,
        timestamp: Some(x12kit_syntax::time::DateTime::from_unix(1_700_000_000)),
        ..Default::default()
    };
    let a999 =
        String::from_utf8(crate::ack::acknowledge(&v, &o(crate::ack::AckKind::Fa999)).unwrap())
            .unwrap();
    assert!(a999.contains("IK3*BEG*2**8~"), "{a999}");
    assert!(a999.contains("IK4*2**I6*SA~"), "{a999}");
    assert!(a999.contains("IK3*REF*3**I4~"), "{a999}");
    assert!(a999.contains("IK5*R*I5~"), "{a999}");
    let a997 =
        String::from_utf8(crate::ack::acknowledge(&v, &o(crate::ack::AckKind::Fa997)).unwrap())
            .unwrap();
    assert!(a997.contains("AK4*2**7*SA~"), "{a997}");
    assert!(a997.contains("AK3*REF*3**2~"), "{a997}");
    assert!(a997.contains("AK5*R*5~"), "{a997}");
}

// Loading.

#[test]
fn the_issue_example_loads() {
    guide(json!({
      "id": "acme-850",
      "documentType": "850",
      "version": "004010",
      "segments": {
        "CUR": { "usage": "notUsed" },
        "REF": { "maxUse": 2, "elements": { "REF01": { "codes": ["DP", "IA"] } } },
        "BEG": { "elements": { "BEG02": { "codes": ["SA", "NE"] }, "BEG05": { "usage": "required" } } },
        "PO1": { "elements": { "PO103": { "codes": ["EA", "CA"] }, "PO107": { "pattern": "^[A-Z0-9-]{3,20}$" } } },
        "PO1/PID": { "usage": "required", "elements": { "PID05": { "maxLength": 40 } } }
      },
      "loops": { "N1": { "minUse": 1, "maxUse": 3 }, "PO1": { "maxUse": 500 } },
      "requiredFields": ["/shipTo/id", "/lines/*/lineNumber"]
    }));
}

#[test]
fn every_problem_is_reported_at_its_pointer() {
    let p = pointers(base(json!({
        "segments": {
            "XYZ": {"usage": "notUsed"},
            "N3": {"usage": "required"},
            "BEG": {"usage": "notUsed", "elements": {"BEG09": {}, "BEG02": {"codes": ["SA", "TOOLONG"], "maxLength": 9}, "REF01": {}}},
            "PO1": {"elements": {"PO107": {"pattern": "("}, "PO102": {"codes": ["1"]}}}
        },
        "loops": {"N1": {"maxUse": 999}, "PID": {"minUse": 1}, "PO1": {"minUse": 3, "maxUse": 2}}
    })));
    let want = [
        "/segments/BEG/usage",
        "/segments/BEG/elements/BEG02/maxLength",
        "/segments/BEG/elements/BEG02/codes/1",
        "/segments/BEG/elements/BEG09",
        "/segments/BEG/elements/REF01",
        "/segments/N3",
        "/segments/PO1/elements/PO102/codes",
        "/segments/PO1/elements/PO107/pattern",
        "/segments/XYZ",
        "/loops/N1/maxUse",
        "/loops/PID",
        "/loops/PO1/minUse",
    ];
    let mut got = p.clone();
    got.sort();
    let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn a_misplaced_segment_says_where_it_is() {
    let p = problems(base(json!({"segments": {"N3": {}}})));
    assert_eq!(p[0].0, "/segments/N3");
    assert!(p[0].1.contains("N1/N3"), "{}", p[0].1);
}

#[test]
fn shape_problems_have_pointers() {
    assert_eq!(pointers(json!([1])), vec!["/"]);
    assert_eq!(
        pointers(base(json!({"segments": {"BEG": {"usgae": "required"}}}))),
        vec!["/segments/BEG/usgae"]
    );
    assert_eq!(pointers(base(json!({"extra": 1}))), vec!["/extra"]);
    assert_eq!(
        pointers(json!({"id": "x", "version": "004010"})),
        vec!["/documentType"]
    );
    assert_eq!(
        pointers(base(json!({"documentType": "999"}))),
        vec!["/documentType"]
    );
    assert_eq!(pointers(base(json!({"version": "4010"}))), vec!["/version"]);
    assert_eq!(
        pointers(base(json!({"version": "003040"}))),
        vec!["/version"]
    );
    assert_eq!(
        pointers(base(json!({"segments": {"BEG": {"usage": "sometimes"}}}))),
        vec!["/segments/BEG/usage"]
    );
    let e = Guide::from_json(b"{not json").unwrap_err();
    assert_eq!(
        (e.code().as_str(), e.details()[0].pointer.as_str()),
        ("INVALID_GUIDE", "/")
    );
}

#[test]
fn guides_in_a_list_are_reported_under_their_index() {
    let v = json!([
        base(json!({})),
        base(json!({"segments": {"NOPE": {}}})),
        base(json!({}))
    ]);
    let e = Guides::from_value(&v, "/guides").unwrap_err();
    let p: Vec<_> = e.details().iter().map(|p| p.pointer.as_str()).collect();
    assert_eq!(p, vec!["/guides/1/segments/NOPE"]);
    let v = json!([base(json!({})), base(json!({}))]);
    let e = Guides::from_value(&v, "/guides").unwrap_err();
    assert_eq!(e.details()[0].pointer, "/guides/1");
}

#[test]
fn components_need_a_composite() {
    assert_eq!(
        pointers(base(
            json!({"segments": {"BEG": {"elements": {"BEG02-01": {}}}}})
        )),
        vec!["/segments/BEG/elements/BEG02-01"]
    );
}

// Properties of loading and checking, on guides made of random rules,
// good and bad.

mod props {
    use super::*;
    use proptest::prelude::*;

    fn pick<T: Clone + std::fmt::Debug + 'static>(items: &'static [T]) -> impl Strategy<Value = T> {
        proptest::sample::select(items)
    }

    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            pick(&["required", "optional", "notUsed", "sometimes", ""]).prop_map(|s| json!(s)),
            (0u32..6).prop_map(|n| json!(n)),
            Just(json!(-1)),
            Just(json!(null)),
            Just(json!([1])),
        ]
    }

    fn element() -> impl Strategy<Value = Value> {
        (
            proptest::option::of(scalar()),
            proptest::option::of(proptest::collection::vec(
                pick(&[
                    "SA", "NE", "DP", "IA", "EA", "CA", "VP", "ST", "X", "TOOLONG", "", "00",
                ]),
                0..4,
            )),
            proptest::option::of(0u32..30),
            proptest::option::of(0u32..30),
            proptest::option::of(pick(&[
                "^[A-Z0-9-]{3,20}$",
                "(",
                "^2023",
                "a{2,}",
                ".*",
                "^$",
            ])),
            proptest::option::of(pick(&["SA", "92", "X", "TOOLONG"])),
        )
            .prop_map(|(usage, codes, min, max, pattern, value)| {
                let mut e = serde_json::Map::new();
                if let Some(u) = usage {
                    e.insert("usage".into(), u);
                }
                if let Some(c) = codes {
                    e.insert("codes".into(), json!(c));
                }
                if let Some(m) = min {
                    e.insert("minLength".into(), json!(m));
                }
                if let Some(m) = max {
                    e.insert("maxLength".into(), json!(m));
                }
                if let Some(p) = pattern {
                    e.insert("pattern".into(), json!(p));
                }
                if let Some(v) = value {
                    e.insert("value".into(), json!(v));
                }
                Value::Object(e)
            })
    }

    const SEGMENTS: &[&str] = &[
        "BEG",
        "REF",
        "CUR",
        "N1",
        "N1/N3",
        "PO1",
        "PO1/PID",
        "CTT",
        "XYZ",
        "PO1/N1/N3",
        "BEG/REF",
        "",
        "N1/N3/N4",
        "REF01",
        "PER",
        "DTM",
        "SE",
    ];
    const ELEMENTS: &[&str] = &[
        "BEG01", "BEG02", "BEG03", "BEG05", "BEG09", "REF01", "REF02", "N101", "N102", "N103",
        "PO103", "PO106", "PO107", "PO107-02", "PID05", "CTT01", "X", "N3-01",
    ];

    fn segment() -> impl Strategy<Value = Value> {
        (
            proptest::option::of(scalar()),
            proptest::option::of(scalar()),
            proptest::option::of(scalar()),
            proptest::collection::btree_map(pick(ELEMENTS), element(), 0..3),
        )
            .prop_map(|(usage, min, max, elements)| {
                let mut s = serde_json::Map::new();
                if let Some(u) = usage {
                    s.insert("usage".into(), u);
                }
                if let Some(m) = min {
                    s.insert("minUse".into(), m);
                }
                if let Some(m) = max {
                    s.insert("maxUse".into(), m);
                }
                if !elements.is_empty() {
                    s.insert("elements".into(), json!(elements));
                }
                Value::Object(s)
            })
    }

    fn guide_json() -> impl Strategy<Value = Value> {
        (
            proptest::collection::btree_map(pick(SEGMENTS), segment(), 0..5),
            proptest::collection::btree_map(
                pick(&["N1", "PO1", "PO1/PID", "BEG", "XYZ", "N9", "CTT"]),
                (
                    proptest::option::of(scalar()),
                    proptest::option::of(scalar()),
                ),
                0..3,
            ),
            pick(&["004010", "005010", "4010", "003040"]),
            pick(&["850", "850", "810", "999"]),
            proptest::bool::weighted(0.1),
        )
            .prop_map(|(segments, loops, version, doc, extra)| {
                let loops: serde_json::Map<String, Value> = loops
                    .into_iter()
                    .map(|(k, (min, max))| {
                        let mut l = serde_json::Map::new();
                        if let Some(m) = min {
                            l.insert("minUse".into(), m);
                        }
                        if let Some(m) = max {
                            l.insert("maxUse".into(), m);
                        }
                        (k.to_string(), Value::Object(l))
                    })
                    .collect();
                let mut g = json!({"id": "p", "documentType": doc, "version": version,
                    "segments": segments, "loops": loops});
                if extra {
                    g["extra"] = json!(true);
                }
                g
            })
    }

    /// The pointer names a member of `v`, or a member missing from an
    /// object of `v` (a required key), or the whole of it.
    fn resolves(v: &Value, pointer: &str) -> bool {
        if pointer == "/" || v.pointer(pointer).is_some() {
            return true;
        }
        match pointer.rfind('/') {
            Some(0) => true,
            Some(i) => v.pointer(&pointer[..i]).is_some_and(Value::is_object),
            None => false,
        }
    }

    const INPUTS: [&str; 3] = [
        BODY,
        "BEG*00*RL*PO-1**20231114~CUR*BY*USD~REF*ZZ*1~REF*DP*2~REF*IA*3~PO1*1*1*DZ*1**VP*x~PID*F****A~PID*F****B~",
        "BEG*00*SA*PO-1**20231199~N1*ST*A~N1*BT*B~N1*BY*C~N1*ZZ*D~CTT*1~",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        #[test]
        fn loading_never_panics_and_every_problem_has_its_pointer(g in guide_json()) {
            match Guide::from_value(&g) {
                Err(e) => {
                    prop_assert_eq!(e.code().as_str(), "INVALID_GUIDE");
                    prop_assert!(!e.details().is_empty());
                    for p in e.details() {
                        prop_assert!(resolves(&g, &p.pointer), "{} in {}", p.pointer, g);
                    }
                }
                Ok(guide) => {
                    for body in INPUTS {
                        let v = run(&x850(body), guide.clone());
                        for d in &v.diagnostics {
                            if d.code.as_str().starts_with("GUIDE_") && d.is_error() {
                                let p = d.guide_pointer.as_deref().unwrap_or_default();
                                prop_assert!(g.pointer(p).is_some(), "{} in {}", p, g);
                                prop_assert!(d.ack.is_some());
                            }
                        }
                        // A guide only adds findings: the standard's stay.
                        let plain = crate::validation::validate_with(
                            &x12kit_syntax::parse(x850(body).as_bytes()),
                            &Options { structure: true, ..Options::default() },
                        );
                        for d in &plain.diagnostics {
                            prop_assert!(v.diagnostics.contains(d), "{d} lost");
                        }
                    }
                }
            }
        }

        #[test]
        fn text_that_is_not_a_guide_is_refused_with_a_pointer(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Err(e) = Guide::from_json(&bytes) {
                prop_assert_eq!(e.code().as_str(), "INVALID_GUIDE");
                prop_assert!(e.details().iter().all(|p| p.pointer.starts_with('/')));
            }
        }
    }
}
