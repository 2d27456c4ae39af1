//! Structure validation of received sets of the declared types: segment order,
//! loop repeats, mandatory segments and elements, types, lengths, code
//! values and syntax rules, each reported with its AK3/AK4 (997) and
//! IK3/IK4 (999) codes.

use x12kit::documents::{self, Finding};
use x12kit::{Code, parse};

const ISA: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *261122*0930*U*00401*000000001*0*P*>~";

/// An interchange with one set of `kind` and these body segments (SE01 computed).
fn wrap(kind: &str, gs01: &str, version: &str, body: &[&str]) -> String {
    let isa = if version >= "005010" {
        ISA.replace("*U*00401*", "*^*00501*")
    } else {
        ISA.to_string()
    };
    let mut s =
        format!("{isa}GS*{gs01}*SENDER*RECEIVER*20261122*0930*1*X*{version}~ST*{kind}*0001~");
    for b in body {
        s.push_str(b);
        s.push('~');
    }
    s.push_str(&format!(
        "SE*{}*0001~GE*1*1~IEA*1*000000001~",
        body.len() + 2
    ));
    s
}

fn findings(x12: &str) -> Vec<Finding> {
    let doc = parse(x12.as_bytes());
    assert!(!doc.has_errors(), "{:?}", doc.diagnostics);
    let g = &doc.interchanges[0].groups[0];
    documents::validate_transaction(&doc, g, &g.transactions[0]).expect("a known type")
}

/// (code, segment id, element, AK304, AK403) of a finding.
type Summary = (
    &'static str,
    String,
    Option<u32>,
    Option<&'static str>,
    Option<&'static str>,
);

fn summary(x12: &str) -> Vec<Summary> {
    findings(x12)
        .into_iter()
        .map(|f| {
            (
                f.code.as_str(),
                f.segment_id,
                f.element,
                f.segment_code,
                f.element_code,
            )
        })
        .collect()
}

const PO: [&str; 4] = [
    "BEG*00*SA*PO-1**20261122",
    "N1*ST*STORE*92*99",
    "PO1*1*2*EA*3.5**SK*A",
    "CTT*1*2",
];

#[test]
fn clean_set_has_no_findings() {
    assert_eq!(summary(&wrap("850", "PO", "004010", &PO)), []);
}

#[test]
fn segment_findings() {
    // Mandatory BEG missing (AK304 3), reported where it was expected.
    let s = summary(&wrap("850", "PO", "004010", &PO[1..]));
    assert_eq!(
        s,
        [("SEGMENT_MISSING", "BEG".into(), None, Some("3"), None)]
    );
    // Mandatory PO1 loop missing at the end of the set.
    let s = summary(&wrap("850", "PO", "004010", &[PO[0], PO[1]]));
    assert_eq!(
        s,
        [("SEGMENT_MISSING", "PO1".into(), None, Some("3"), None)]
    );
    // CUR twice (max use 1): AK304 5.
    let s = summary(&wrap(
        "850",
        "PO",
        "004010",
        &[PO[0], "CUR*BY*USD", "CUR*BY*CAD", PO[1], PO[2]],
    ));
    assert_eq!(
        s,
        [("SEGMENT_TOO_MANY", "CUR".into(), None, Some("5"), None)]
    );
    // BEG after the N1 loop: out of order (AK304 7).
    let s = summary(&wrap(
        "850",
        "PO",
        "004010",
        &[PO[0], PO[1], "BEG*00*SA*X**20261122", PO[2]],
    ));
    assert_eq!(
        s,
        [("SEGMENT_OUT_OF_ORDER", "BEG".into(), None, Some("7"), None)]
    );
    // A segment of another set (AK304 6) and an unknown one (AK304 1).
    let s = summary(&wrap(
        "850",
        "PO",
        "004010",
        &[PO[0], "BSN*00*X*20261122*1200", "ZZZ*1", PO[2]],
    ));
    assert_eq!(
        s,
        [
            ("SEGMENT_NOT_IN_SET", "BSN".into(), None, Some("6"), None),
            ("SEGMENT_UNKNOWN", "ZZZ".into(), None, Some("1"), None)
        ]
    );
    // 753: the ship-from N1 loop (M1) twice: AK304 4.
    let s = summary(&wrap(
        "753",
        "RF",
        "004030",
        &[
            "BGN*00*R1*20261122",
            "N1*SF*A",
            "N1*SF*B",
            "LX*1",
            "N1*ST*C",
            "OID*1",
        ],
    ));
    assert_eq!(s, [("LOOP_TOO_MANY", "N1".into(), None, Some("4"), None)]);
    // 856: a segment of the HL loop before any HL belongs in another loop (AK304 2).
    let s = summary(&wrap(
        "856",
        "SH",
        "004010",
        &["BSN*00*A1*20261122*1200", "PRF*PO1", "HL*1**S", "CTT*1"],
    ));
    assert_eq!(
        s,
        [("SEGMENT_UNEXPECTED", "PRF".into(), None, Some("2"), None)]
    );
}

#[test]
fn element_findings() {
    let body = [
        "BEG*00*SA*PO-123456789012345678901234**20261131",
        "N1*ST*STORE*92",
        "PO1*1*2X*EA*3.5**SK*A",
        "PO1*2*1*EA*1**SK",
        "CTT*2",
    ];
    let s = summary(&wrap("850", "PO", "004010", &body));
    assert_eq!(
        s,
        [
            (
                "ELEMENT_TOO_LONG",
                "BEG".into(),
                Some(3),
                Some("8"),
                Some("5")
            ),
            (
                "ELEMENT_INVALID_DATE",
                "BEG".into(),
                Some(5),
                Some("8"),
                Some("8")
            ),
            (
                "ELEMENT_CONDITIONAL_MISSING",
                "N1".into(),
                Some(4),
                Some("8"),
                Some("2")
            ),
            (
                "ELEMENT_INVALID_CHARACTER",
                "PO1".into(),
                Some(2),
                Some("8"),
                Some("6")
            ),
            (
                "ELEMENT_CONDITIONAL_MISSING",
                "PO1".into(),
                Some(7),
                Some("8"),
                Some("2")
            ),
        ]
    );
    // Missing mandatory element (AK403 1), invalid code of a complete list (AK403 7), bad time (9).
    let s = summary(&wrap("855", "PR", "004010", &["BAK*00*XX**20261122"]));
    assert_eq!(
        s,
        [
            (
                "ELEMENT_INVALID_CODE",
                "BAK".into(),
                Some(2),
                Some("8"),
                Some("7")
            ),
            (
                "ELEMENT_MISSING",
                "BAK".into(),
                Some(3),
                Some("8"),
                Some("1")
            ),
        ]
    );
    let s = summary(&wrap(
        "856",
        "SH",
        "004010",
        &["BSN*00*A1*20261122*2561", "HL*1**S", "CTT*1"],
    ));
    assert_eq!(
        s,
        [(
            "ELEMENT_INVALID_TIME",
            "BSN".into(),
            Some(4),
            Some("8"),
            Some("9")
        )]
    );
    // Exclusion rule (AK403 10): AT7 status and appointment status together.
    let s = summary(&wrap(
        "214",
        "QM",
        "004010",
        &["B10*PRO1**ABCD", "LX*1", "AT7*X1*NS*AA*NS"],
    ));
    assert_eq!(
        s,
        [(
            "ELEMENT_EXCLUSION_VIOLATED",
            "AT7".into(),
            Some(3),
            Some("8"),
            Some("10")
        )]
    );
}

#[test]
fn versions_select_the_structure() {
    // 990 in 005010: L11 instead of N9, and B101 (SCAC) is mandatory.
    let v4 = wrap("990", "GF", "004010", &["B1**LT-1*20261122*A", "N9*CN*1"]);
    assert_eq!(summary(&v4), []);
    let v5 = wrap("990", "GF", "005010", &["B1**LT-1*20261122*A", "N9*CN*1"]);
    assert_eq!(
        summary(&v5),
        [
            (
                "ELEMENT_MISSING",
                "B1".into(),
                Some(1),
                Some("8"),
                Some("1")
            ),
            ("SEGMENT_NOT_IN_SET", "N9".into(), None, Some("6"), None)
        ]
    );
}

#[test]
fn findings_as_diagnostics_with_ack_codes() {
    let x12 = wrap(
        "850",
        "PO",
        "004010",
        &["BEG*00*SA*P**20261131", PO[1], PO[2]],
    );
    let doc = parse(x12.as_bytes());
    let d = documents::diagnostics(&doc);
    assert_eq!(d.len(), 1);
    let d = &d[0];
    assert_eq!(d.code, Code::ElementInvalidDate);
    assert_eq!(
        (d.segment_index, d.segment_id.as_deref(), d.element),
        (Some(3), Some("BEG"), Some(5))
    );
    let ack = d.ack.as_ref().unwrap();
    assert_eq!(
        (ack.ik5, ack.ik3, ack.ik4, ack.value.as_deref()),
        (Some("5"), Some("8"), Some("8"), Some("20261131"))
    );
    // Inside a loop the loop id is given (AK303/IK303).
    let x12 = wrap("850", "PO", "004010", &[PO[0], PO[1], "PO1*1*X*EA"]);
    let d = documents::diagnostics(&parse(x12.as_bytes()));
    assert_eq!(d[0].ack.as_ref().unwrap().loop_id.as_deref(), Some("PO1"));
    // Every finding code is a diagnostic code.
    for c in [
        "SEGMENT_UNKNOWN",
        "SEGMENT_UNEXPECTED",
        "SEGMENT_MISSING",
        "LOOP_TOO_MANY",
        "SEGMENT_TOO_MANY",
        "SEGMENT_NOT_IN_SET",
        "SEGMENT_OUT_OF_ORDER",
        "ELEMENT_MISSING",
        "ELEMENT_CONDITIONAL_MISSING",
        "ELEMENT_TOO_SHORT",
        "ELEMENT_TOO_LONG",
        "ELEMENT_INVALID_CHARACTER",
        "ELEMENT_INVALID_CODE",
        "ELEMENT_INVALID_DATE",
        "ELEMENT_INVALID_TIME",
        "ELEMENT_EXCLUSION_VIOLATED",
    ] {
        assert!(Code::from_name(c).is_some(), "{c}");
    }
}

#[test]
fn other_types_are_not_validated() {
    let x12 = wrap("997", "FA", "004010", &["AK1*PO*1", "AK9*A*1*1*1"]);
    let doc = parse(x12.as_bytes());
    let g = &doc.interchanges[0].groups[0];
    assert!(documents::validate_transaction(&doc, g, &g.transactions[0]).is_none());
    assert!(documents::map_back(&doc, g, &g.transactions[0]).is_none());
    let v = x12kit::to_value(&doc).unwrap();
    assert!(
        v["interchanges"][0]["groups"][0]["transactions"][0]
            .get("document")
            .is_none()
    );
}

/// Through the envelope validator and the acknowledgement builder: the
/// structure findings become AK3/AK4 in a 997 and IK3/IK4 in a 999.
#[test]
fn findings_reach_the_997_and_999() {
    use x12kit::validate::{Buffered, Options, Validator};
    use x12kit::{AckKind, AckOptions, acknowledge};
    let run = |x12: &str| {
        Validator::new(Options::default())
            .with_rules(Box::new(Buffered::new(documents::StructureRules)))
            .run(&parse(x12.as_bytes()))
    };
    let body = [
        "BEG*00*SA*PO-1**20261131",
        "CUR*BY*USD",
        "CUR*BY*CAD",
        "N1*ST*STORE*92*99",
        "PO1*1*2X*EA",
    ];
    let v = run(&wrap("850", "PO", "004010", &body));
    let codes: Vec<&str> = v.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(
        codes,
        [
            "ELEMENT_INVALID_DATE",
            "SEGMENT_TOO_MANY",
            "ELEMENT_INVALID_CHARACTER"
        ]
    );
    let opts = |kind| AckOptions {
        kind,
        ..AckOptions::default()
    };
    let ack997 = String::from_utf8(acknowledge(&v, &opts(AckKind::Fa997)).unwrap())
        .unwrap()
        .replace('\n', "");
    assert!(
        ack997.contains("AK2*850*0001~AK3*BEG*2**8~AK4*5**8*20261131~AK3*CUR*4**5~AK3*PO1*6*PO1*8~AK4*2**6*2X~AK5*R*5~"),
        "{ack997}"
    );
    let v5 = run(&wrap("850", "PO", "005010", &body));
    let ack999 = String::from_utf8(acknowledge(&v5, &opts(AckKind::Fa999)).unwrap())
        .unwrap()
        .replace('\n', "");
    assert!(
        ack999.contains(
            "IK3*BEG*2**8~IK4*5**8*20261131~IK3*CUR*4**5~IK3*PO1*6*PO1*8~IK4*2**6*2X~IK5*R*5~"
        ),
        "{ack999}"
    );
    // A clean set: accepted.
    let v = run(&wrap("850", "PO", "004010", &PO));
    assert!(v.is_valid(), "{:?}", v.diagnostics);
}
