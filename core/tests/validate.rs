//! Every envelope rule: a failing input and its passing twin, asserting the
//! exact code, severity, position and acknowledgement codes; plus the
//! outcome rules (TA104, AK901, AK5) and the streaming engine.

use x12kit::delimiters::Delimiters;
use x12kit::validate::{Options, Retain, Status, Validation, Validator};
use x12kit::{AckCodes, Code, Diagnostic, Handler, Segment, Severity};

/// The 16 ISA values of the default interchange (fixed width).
const ISA: [&str; 16] = [
    "00",
    "          ",
    "00",
    "          ",
    "ZZ",
    "SENDER         ",
    "ZZ",
    "RECEIVER       ",
    "230101",
    "1200",
    "U",
    "00401",
    "000000001",
    "0",
    "P",
    ">",
];

fn isa_with(changes: &[(usize, &str)]) -> String {
    let mut v: Vec<&str> = ISA.to_vec();
    for &(n, value) in changes {
        v[n - 1] = value;
    }
    format!("ISA*{}~", v.join("*"))
}

const GS: &str = "GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~";
const SET: &str = "ST*850*0001~BEG*00*SA*PO1**20230101~SE*3*0001~";
const TAIL: &str = "GE*1*1~IEA*1*000000001~";

/// The clean interchange: ISA(0) GS(1) ST(2) BEG(3) SE(4) GE(5) IEA(6).
fn clean() -> String {
    format!("{}{GS}{SET}{TAIL}", isa_with(&[]))
}

fn run(input: &str) -> Validation {
    x12kit::validate(&x12kit::parse(input.as_bytes()))
}

/// The validator's diagnostics (BOM / layout warnings of the parser aside).
fn found(input: &str) -> Vec<Diagnostic> {
    run(input)
        .diagnostics
        .into_iter()
        .filter(|d| d.code != Code::IsaLayout || d.is_error())
        .collect()
}

#[track_caller]
fn assert_clean(input: &str) {
    let d = found(input);
    assert!(d.is_empty(), "expected no diagnostics, got {d:#?}");
}

/// Asserts exactly one diagnostic, with this code, severity, segment, element and ack codes.
#[track_caller]
fn assert_one(
    input: &str,
    code: Code,
    severity: Severity,
    segment: Option<usize>,
    element: Option<u32>,
    ack: Option<AckCodes>,
) -> Diagnostic {
    let mut d = found(input);
    assert_eq!(d.len(), 1, "expected only {code}, got {d:#?}");
    let d = d.remove(0);
    assert_eq!(d.code, code, "{d:#?}");
    assert_eq!(d.severity, severity, "{d:#?}");
    assert_eq!(d.segment_index, segment, "{d:#?}");
    assert_eq!(d.element, element, "{d:#?}");
    assert_eq!(d.ack.as_deref(), ack.as_ref(), "{d:#?}");
    assert!(d.message.len() > 30, "message too short: {}", d.message);
    d
}

fn ta1(code: &'static str) -> Option<AckCodes> {
    Some(AckCodes::ta1(code))
}

fn gs_ack(ak9: Option<&'static str>) -> Option<AckCodes> {
    Some(AckCodes {
        ak9,
        ta1: Some("024"),
        ..AckCodes::default()
    })
}

#[test]
fn the_clean_interchange_is_accepted_everywhere() {
    let v = run(&clean());
    assert!(v.diagnostics.is_empty() && v.is_valid());
    let i = &v.interchanges[0];
    assert_eq!(
        (i.status, i.ta1.code, i.ta1.note),
        (Status::Accepted, "A", "000")
    );
    assert_eq!(i.control_number, "000000001");
    assert_eq!(
        (i.sender_id.as_str(), i.receiver_id.as_str()),
        ("SENDER", "RECEIVER")
    );
    let g = &i.groups[0];
    assert_eq!(
        (g.ak9.code, g.ak9.included, g.ak9.received, g.ak9.accepted),
        ("A", 1, 1, 1)
    );
    let t = &g.transactions[0];
    assert_eq!(
        (t.kind.as_str(), t.control_number.as_str()),
        ("850", "0001")
    );
    assert_eq!(
        (t.segment_count, t.status, t.ak5.code),
        (3, Status::Accepted, "A")
    );
}

// ---------------------------------------------------------------- ISA

#[test]
fn isa_code_list_elements() {
    let cases: [(usize, &str, &str, Code, &str); 7] = [
        (1, "99", "03", Code::Isa01Invalid, "010"),
        (3, "02", "01", Code::Isa03Invalid, "012"),
        (5, "AA", "01", Code::Isa05Invalid, "005"),
        (7, "0Z", "12", Code::Isa07Invalid, "007"),
        (14, "2", "1", Code::Isa14Invalid, "019"),
        (15, "X", "T", Code::Isa15Invalid, "020"),
        (11, "X", "U", Code::Isa11Invalid, "016"),
    ];
    for (n, bad, good, code, note) in cases {
        let input = format!("{}{GS}{SET}{TAIL}", isa_with(&[(n, bad)]));
        let d = assert_one(
            &input,
            code,
            Severity::Error,
            Some(0),
            Some(n as u32),
            ta1(note),
        );
        assert_eq!(d.segment_id.as_deref(), Some("ISA"));
        let nth_separator = input.match_indices('*').nth(n - 1).unwrap().0;
        assert_eq!(d.offset, Some(nth_separator + 1), "the offset of ISA{n:02}");
        assert!(d.message.contains(&format!("ISA{n:02}")), "{}", d.message);
        let v = run(&input);
        assert_eq!(v.interchanges[0].ta1.code, "R");
        assert_eq!(v.interchanges[0].ta1.note, note);
        assert_clean(&format!("{}{GS}{SET}{TAIL}", isa_with(&[(n, good)])));
    }
}

#[test]
fn isa_fixed_width_elements() {
    let cases: [(usize, &str, &str, Code, &str); 4] = [
        (2, "SHORT", "PASSWORD  ", Code::Isa02Invalid, "011"),
        (4, "TOO LONG VALUE", "SECRET    ", Code::Isa04Invalid, "013"),
        (6, "SENDER", "OTHER SENDER   ", Code::Isa06Invalid, "006"),
        (8, "RECEIVER", "OTHER RECEIVER ", Code::Isa08Invalid, "008"),
    ];
    for (n, bad, good, code, note) in cases {
        let input = format!("{}{GS}{SET}{TAIL}", isa_with(&[(n, bad)]));
        let d = assert_one(
            &input,
            code,
            Severity::Error,
            Some(0),
            Some(n as u32),
            ta1(note),
        );
        assert!(
            d.message
                .contains(&format!("{} characters", bad.chars().count())),
            "{}",
            d.message
        );
        // The parser read the unpadded ISA with a warning; the validator says which field.
        assert!(
            run(&input)
                .diagnostics
                .iter()
                .any(|d| d.code == Code::IsaLayout && !d.is_error())
        );
        assert_clean(&format!("{}{GS}{SET}{TAIL}", isa_with(&[(n, good)])));
    }
    // A blank id has the right width but identifies nobody.
    let input = format!("{}{GS}{SET}{TAIL}", isa_with(&[(6, "               ")]));
    let d = assert_one(
        &input,
        Code::Isa06Invalid,
        Severity::Error,
        Some(0),
        Some(6),
        ta1("006"),
    );
    assert!(d.message.contains("blank"));
}

#[test]
fn isa_date_time_version_and_control_number() {
    let cases: [(usize, &str, &str, Code, &str); 4] = [
        (9, "230230", "240229", Code::Isa09Invalid, "014"),
        (10, "2460", "2359", Code::Isa10Invalid, "015"),
        (12, "00399", "00200", Code::Isa12Invalid, "017"),
        (13, "00000000A", "000000001", Code::Isa13Invalid, "018"),
    ];
    for (n, bad, good, code, note) in cases {
        let input = format!(
            "{}{GS}{SET}GE*1*1~IEA*1*{}~",
            isa_with(&[(n, bad)]),
            if n == 13 { bad } else { "000000001" }
        );
        assert_one(
            &input,
            code,
            Severity::Error,
            Some(0),
            Some(n as u32),
            ta1(note),
        );
        assert_clean(&format!("{}{GS}{SET}{TAIL}", isa_with(&[(n, good)])));
    }
    // 00501: ISA11 is the repetition separator, not U.
    assert_clean(&format!(
        "{}GS*PO*SENDER*RECEIVER*20230101*1200*1*X*005010~{SET}{TAIL}",
        isa_with(&[(11, "^"), (12, "00501")])
    ));
    // …and an unusable one is the parser's DELIMITERS warning: a warning
    // chooses no acknowledgement code, so the interchange is accepted.
    let v = run(&format!(
        "{}GS*PO*SENDER*RECEIVER*20230101*1200*1*X*005010~{SET}{TAIL}",
        isa_with(&[(12, "00501")])
    ));
    assert!(v.is_valid());
    let d = &v.diagnostics[0];
    assert_eq!((d.code, d.severity), (Code::Delimiters, Severity::Warning));
    assert_eq!(d.ack, None);
    assert_eq!(
        (
            v.interchanges[0].status,
            v.interchanges[0].ta1.code,
            v.interchanges[0].ta1.note
        ),
        (Status::Accepted, "A", "000")
    );
}

/// ISA16 cannot be wrong in a parsed ISA (the parser reads it as the
/// component separator), so this feeds the validator a hand-made segment.
#[test]
fn isa16_two_characters() {
    fn feed(raw: &[u8]) -> Validation {
        let d = Delimiters {
            element: b'*',
            component: b'>',
            repetition: None,
            segment: b'~',
        };
        let mut v = Validator::new(Options::default());
        v.interchange_start(Segment::new(raw, b"", 0, 0, d, true));
        v.interchange_end(Some(Segment::new(b"IEA*0*000000001", b"", 110, 1, d, true)));
        v.finish()
    }
    let good = isa_with(&[]);
    let good = good.trim_end_matches('~').as_bytes().to_vec();
    assert!(feed(&good).diagnostics.is_empty());
    let mut bad = good.clone();
    bad.push(b'>');
    let v = feed(&bad);
    assert_eq!(v.diagnostics.len(), 1, "{:#?}", v.diagnostics);
    let d = &v.diagnostics[0];
    assert_eq!(
        (d.code, d.element, d.segment_index),
        (Code::Isa16Invalid, Some(16), Some(0))
    );
    assert_eq!(d.ack.as_deref(), ta1("027").as_ref());
}

// ---------------------------------------------------------------- IEA

#[test]
fn iea_count_control_and_missing() {
    let isa = isa_with(&[]);
    let d = assert_one(
        &format!("{isa}{GS}{SET}GE*1*1~IEA*2*000000001~"),
        Code::Iea01Count,
        Severity::Error,
        Some(6),
        Some(1),
        ta1("021"),
    );
    assert_eq!(
        d.message,
        "IEA01 says 2 functional groups but interchange 000000001 has 1 (GS through GE)"
    );
    assert_one(
        &format!("{isa}{GS}{SET}GE*1*1~IEA*1*000000002~"),
        Code::Iea02Control,
        Severity::Error,
        Some(6),
        Some(2),
        ta1("001"),
    );
    assert_one(
        &format!("{isa}{GS}{SET}GE*1*1~"),
        Code::IeaMissing,
        Severity::Error,
        None,
        None,
        ta1("023"),
    );
    // Zero groups: IEA01 0 is right (a TA1-only interchange).
    assert_clean(&format!(
        "{isa}TA1*000000009*230101*1200*A*000~IEA*0*000000001~"
    ));
    assert_one(
        &format!("{isa}TA1*000000009*230101*1200*A*000~IEA*1*000000001~"),
        Code::Iea01Count,
        Severity::Error,
        Some(2),
        Some(1),
        ta1("021"),
    );
}

#[test]
fn isa13_duplicate_within_the_input() {
    let one = clean();
    let other = format!(
        "{}{GS}{SET}GE*1*1~IEA*1*000000002~",
        isa_with(&[(13, "000000002")])
    );
    assert_clean(&format!("{one}{other}"));
    let d = assert_one(
        &format!("{one}{one}"),
        Code::Isa13Duplicate,
        Severity::Error,
        Some(7),
        Some(13),
        ta1("025"),
    );
    assert!(d.message.contains("000000001"));
    let v = run(&format!("{one}{one}"));
    assert_eq!(v.interchanges[0].ta1.code, "A");
    assert_eq!(
        (v.interchanges[1].ta1.code, v.interchanges[1].ta1.note),
        ("R", "025")
    );
}

// ---------------------------------------------------------------- GS / GE

#[test]
fn gs_elements() {
    let cases: [(&str, &str, Code, Option<&'static str>, u32); 10] = [
        (
            "GS*ZQ*SENDER*RECEIVER*20230101*1200*1*X*004010~",
            "GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~",
            Code::Gs01Invalid,
            Some("1"),
            1,
        ),
        (
            "GS*PO*S*RECEIVER*20230101*1200*1*X*004010~",
            "GS*PO*SE*RECEIVER*20230101*1200*1*X*004010~",
            Code::Gs02Invalid,
            None,
            2,
        ),
        (
            "GS*PO*SENDER*RECEIVER56789012*20230101*1200*1*X*004010~",
            "GS*PO*SENDER*RECEIVER5678901*20230101*1200*1*X*004010~",
            Code::Gs03Invalid,
            None,
            3,
        ),
        (
            "GS*PO*SENDER*RECEIVER*20230230*1200*1*X*004010~",
            "GS*PO*SENDER*RECEIVER*20240229*1200*1*X*004010~",
            Code::Gs04Invalid,
            None,
            4,
        ),
        (
            "GS*PO*SENDER*RECEIVER*230101*1200*1*X*004010~",
            "GS*PO*SENDER*RECEIVER*230101*1200*1*X*003040~",
            Code::Gs04Invalid,
            None,
            4,
        ),
        (
            "GS*PO*SENDER*RECEIVER*20230101*1260*1*X*004010~",
            "GS*PO*SENDER*RECEIVER*20230101*12305999*1*X*004010~",
            Code::Gs05Invalid,
            None,
            5,
        ),
        (
            "GS*PO*SENDER*RECEIVER*20230101*1200*1*Y*004010~",
            "GS*PO*SENDER*RECEIVER*20230101*1200*1*T*004010~",
            Code::Gs07Invalid,
            None,
            7,
        ),
        (
            "GS*PO*SENDER*RECEIVER*20230101*1200*1*X*00401~",
            "GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010VICS~",
            Code::Gs08Invalid,
            Some("2"),
            8,
        ),
        (
            "GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010X098A1XX~",
            "GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010X098A1~",
            Code::Gs08Invalid,
            Some("2"),
            8,
        ),
        (
            "GS*PO*SENDER*RECEIVER*20230101*1200*1*X*~",
            "GS*PO*SENDER*RECEIVER*20230101*1200*1*X*005010~",
            Code::Gs08Invalid,
            Some("2"),
            8,
        ),
    ];
    let isa = isa_with(&[]);
    for (bad, good, code, ak9, n) in cases {
        let d = assert_one(
            &format!("{isa}{bad}{SET}{TAIL}"),
            code,
            Severity::Error,
            Some(1),
            Some(n),
            gs_ack(ak9),
        );
        assert!(d.message.starts_with(&format!("GS{n:02}")), "{}", d.message);
        assert_clean(&format!("{isa}{good}{SET}{TAIL}"));
        // The group is rejected; the interchange is accepted with errors (TA1 E 024).
        let v = run(&format!("{isa}{bad}{SET}{TAIL}"));
        let i = &v.interchanges[0];
        assert_eq!((i.ta1.code, i.ta1.note), ("E", "024"));
        assert_eq!(i.groups[0].ak9.code, "R");
        assert_eq!(i.groups[0].ak9.errors, ak9.into_iter().collect::<Vec<_>>());
    }
    // GS06 must be numeric, and GE02 must repeat it.
    assert_one(
        &format!(
            "{isa}GS*PO*SENDER*RECEIVER*20230101*1200*A1*X*004010~{SET}GE*1*A1~IEA*1*000000001~"
        ),
        Code::Gs06Invalid,
        Severity::Error,
        Some(1),
        Some(6),
        gs_ack(Some("6")),
    );
    assert_clean(&format!(
        "{isa}GS*PO*SENDER*RECEIVER*20230101*1200*123456789*X*004010~{SET}GE*1*123456789~IEA*1*000000001~"
    ));
}

#[test]
fn ge_count_control_missing_and_duplicate_gs06() {
    let isa = isa_with(&[]);
    let d = assert_one(
        &format!("{isa}{GS}{SET}GE*2*1~IEA*1*000000001~"),
        Code::Ge01Count,
        Severity::Error,
        Some(5),
        Some(1),
        Some(AckCodes::ak9("5")),
    );
    assert_eq!(
        d.message,
        "GE01 says 2 transaction sets but functional group 1 has 1"
    );
    assert_one(
        &format!("{isa}{GS}{SET}GE*1*2~IEA*1*000000001~"),
        Code::Ge02Control,
        Severity::Error,
        Some(5),
        Some(2),
        Some(AckCodes::ak9("4")),
    );
    assert_one(
        &format!("{isa}{GS}{SET}IEA*1*000000001~"),
        Code::GeMissing,
        Severity::Error,
        Some(5),
        None,
        gs_ack(Some("3")),
    );
    let second = "GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~SE*2*0001~GE*1*1~";
    assert_one(
        &format!("{isa}{GS}{SET}GE*1*1~{second}IEA*2*000000001~"),
        Code::Gs06Duplicate,
        Severity::Error,
        Some(6),
        Some(6),
        Some(AckCodes::ak9("19")),
    );
    assert_clean(&format!(
        "{isa}{GS}{SET}GE*1*1~{}IEA*2*000000001~",
        second.replace("*1*X*", "*2*X*").replace("GE*1*1", "GE*1*2")
    ));
    // The same GS06 in another interchange is fine.
    let other = format!(
        "{}{GS}{SET}GE*1*1~IEA*1*000000002~",
        isa_with(&[(13, "000000002")])
    );
    assert_clean(&format!("{}{other}", clean()));
}

// ---------------------------------------------------------------- ST / SE

#[test]
fn st_elements_duplicates_and_mismatch() {
    let isa = isa_with(&[]);
    let d = assert_one(
        &format!("{isa}{GS}ST*85A*0001~SE*2*0001~{TAIL}"),
        Code::St01Invalid,
        Severity::Error,
        Some(2),
        Some(1),
        Some(AckCodes::ik5("6")),
    );
    assert!(d.message.contains("\"85A\""));
    assert_one(
        &format!("{isa}{GS}ST*850*001~SE*2*001~{TAIL}"),
        Code::St02Invalid,
        Severity::Error,
        Some(2),
        Some(2),
        Some(AckCodes::ik5("7")),
    );
    assert_clean(&format!("{isa}{GS}ST*850*123456789~SE*2*123456789~{TAIL}"));
    let two = |a: &str, b: &str| {
        format!("{isa}{GS}ST*850*{a}~SE*2*{a}~ST*850*{b}~SE*2*{b}~GE*2*1~IEA*1*000000001~")
    };
    let d = assert_one(
        &two("0001", "0001"),
        Code::St02Duplicate,
        Severity::Error,
        Some(4),
        Some(2),
        Some(AckCodes::ik5("23")),
    );
    assert!(d.message.contains("0001"));
    assert_clean(&two("0001", "0002"));
    let d = assert_one(
        &format!("{isa}GS*IN*SENDER*RECEIVER*20230101*1200*1*X*004010~{SET}{TAIL}"),
        Code::Gs01Mismatch,
        Severity::Error,
        Some(2),
        Some(1),
        Some(AckCodes::ik5("6")),
    );
    assert_eq!(
        d.message,
        "transaction set 0001 (850) is a 850 (purchase order), which belongs in a functional group with GS01 PO, but its group has GS01 IN; put it in a separate PO group"
    );
    assert_clean(&format!(
        "{isa}GS*IN*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*810*0001~SE*2*0001~{TAIL}"
    ));
}

#[test]
fn se_count_control_and_missing() {
    let isa = isa_with(&[]);
    let d = assert_one(
        &format!("{isa}{GS}ST*850*0001~BEG*00*SA*PO1**20230101~SE*4*0001~{TAIL}"),
        Code::Se01Count,
        Severity::Error,
        Some(4),
        Some(1),
        Some(AckCodes::ik5("4")),
    );
    assert_eq!(
        d.message,
        "SE01 says 4 segments but the transaction set 0001 (850) has 3 (ST through SE, both included)"
    );
    let d = assert_one(
        &format!("{isa}{GS}ST*850*0001~SE*two*0001~{TAIL}"),
        Code::Se01Count,
        Severity::Error,
        Some(3),
        Some(1),
        Some(AckCodes::ik5("4")),
    );
    assert!(d.message.starts_with("SE01 is \"two\", not a number"));
    assert_one(
        &format!("{isa}{GS}ST*850*0001~SE*2*0002~{TAIL}"),
        Code::Se02Control,
        Severity::Error,
        Some(3),
        Some(2),
        Some(AckCodes::ik5("3")),
    );
    assert_one(
        &format!("{isa}{GS}ST*850*0001~BEG*00~{TAIL}"),
        Code::SeMissing,
        Severity::Error,
        Some(4),
        None,
        Some(AckCodes::ik5("2")),
    );
    let v = run(&format!("{isa}{GS}ST*850*0001~BEG*00~{TAIL}"));
    let t = &v.interchanges[0].groups[0].transactions[0];
    assert_eq!((t.ak5.code, t.ak5.errors.as_slice()), ("R", &["2"][..]));
}

#[test]
fn sets_outside_a_group() {
    let isa = isa_with(&[]);
    let input = format!("{isa}{SET}ST*850*0002~SE*2*0002~IEA*0*000000001~");
    let v = run(&input);
    let d = &v.diagnostics[0];
    assert_eq!((d.code, d.segment_index), (Code::StOutsideGroup, Some(1)));
    assert_eq!(
        d.ack.as_deref(),
        Some(&AckCodes {
            ik5: Some("18"),
            ta1: Some("022"),
            ..AckCodes::default()
        })
    );
    let i = &v.interchanges[0];
    assert_eq!((i.ta1.code, i.ta1.note), ("R", "022"));
    let g = &i.groups[0];
    assert_eq!(g.functional_id, None);
    assert!(g.transactions.iter().all(|t| t.ak5.errors == ["18"]));
    assert_eq!(g.ak9.code, "R");
}

#[test]
fn st01_unsupported_is_a_warning_once_per_group() {
    let isa = isa_with(&[]);
    let input = format!(
        "{isa}GS*HC*SENDER*RECEIVER*20230101*1200*1*X*005010X222A1~ST*837*0001~SE*2*0001~ST*837*0002~SE*2*0002~GE*2*1~IEA*1*000000001~"
    );
    let d = assert_one(
        &input,
        Code::St01Unsupported,
        Severity::Warning,
        Some(2),
        Some(1),
        None,
    );
    assert!(
        d.message.contains("837 (health care claim)"),
        "{}",
        d.message
    );
    let v = run(&input);
    assert!(v.is_valid());
    assert_eq!(v.interchanges[0].groups[0].ak9.code, "A");
    assert_clean(&clean());
}

// ---------------------------------------------------------------- parser codes

#[test]
fn parser_diagnostics_get_their_acknowledgement_codes() {
    let isa = isa_with(&[]);
    // A bad segment identifier inside a set is an AK3/IK3 code 1 at its position.
    let input = format!("{isa}{GS}ST*850*0001~bad*1~SE*3*0001~{TAIL}");
    let d = assert_one(
        &input,
        Code::SegmentId,
        Severity::Error,
        Some(3),
        None,
        Some(AckCodes::segment("1")),
    );
    assert_eq!(d.segment_id.as_deref(), Some("bad"));
    let v = run(&input);
    let t = &v.interchanges[0].groups[0].transactions[0];
    assert_eq!((t.ak5.code, t.ak5.errors.as_slice()), ("R", &["5"][..]));
    assert_eq!(t.segment_errors.len(), 1);
    assert_eq!(
        (
            t.segment_errors[0].position,
            t.segment_errors[0].codes.as_slice()
        ),
        (2, &["1"][..])
    );
    // Between sets it is the interchange's content (TA1 024); outside a group, its structure (022).
    assert_one(
        &format!("{isa}{GS}{SET}N1*ST~{TAIL}"),
        Code::UnexpectedSegment,
        Severity::Error,
        Some(5),
        None,
        ta1("024"),
    );
    assert_one(
        &format!("{isa}{GS}{SET}GE*1*1~N1*ST~IEA*1*000000001~"),
        Code::UnexpectedSegment,
        Severity::Error,
        Some(6),
        None,
        ta1("022"),
    );
    assert_one(
        &format!("{}junk", clean()),
        Code::TrailingData,
        Severity::Error,
        None,
        None,
        ta1("022"),
    );
    assert_one(
        "hello",
        Code::NotX12,
        Severity::Error,
        None,
        None,
        ta1("022"),
    );
}

#[test]
fn unreadable_isa_is_still_addressed_by_a_ta1() {
    // The segment terminator is a letter: DELIMITERS (TA105 004); the ISA's
    // fields are still at their fixed positions.
    let mut input = clean().into_bytes();
    input[105] = b'A';
    let v = x12kit::validate(&x12kit::parse(&input));
    let d = &v.diagnostics[0];
    assert_eq!((d.code, d.severity), (Code::Delimiters, Severity::Error));
    assert_eq!(d.ack.as_deref(), ta1("004").as_ref());
    let i = &v.interchanges[0];
    assert!(i.recovered);
    assert_eq!(
        (i.control_number.as_str(), i.sender_id.as_str()),
        ("000000001", "SENDER")
    );
    assert_eq!((i.ta1.code, i.ta1.note), ("R", "004"));
    // Too short to read: no interchange to address.
    let v = run("ISA*00*short~");
    assert!(v.interchanges.is_empty());
    assert_eq!(v.diagnostics[0].ack.as_deref(), ta1("022").as_ref());
}

// ---------------------------------------------------------------- outcomes

#[test]
fn ak901_accepted_partial_rejected() {
    let isa = isa_with(&[]);
    let sets = |a: &str, b: &str| {
        format!("{isa}{GS}ST*850*0001~SE*{a}*0001~ST*850*0002~SE*{b}*0002~GE*2*1~IEA*1*000000001~")
    };
    let g = |input: &str| run(input).interchanges[0].groups[0].clone();
    let a = g(&sets("2", "2"));
    assert_eq!(
        (a.status, a.ak9.code, a.ak9.accepted),
        (Status::Accepted, "A", 2)
    );
    let p = g(&sets("2", "9"));
    assert_eq!(
        (p.status, p.ak9.code, p.ak9.received, p.ak9.accepted),
        (Status::PartiallyAccepted, "P", 2, 1)
    );
    let r = g(&sets("9", "9"));
    assert_eq!(
        (r.status, r.ak9.code, r.ak9.accepted),
        (Status::Rejected, "R", 0)
    );
    // A group-level error rejects the group even when every set is fine.
    let ge = g(&format!("{isa}{GS}{SET}GE*1*9~IEA*1*000000001~"));
    assert_eq!(
        (ge.ak9.code, ge.ak9.accepted, ge.ak9.errors.as_slice()),
        ("R", 1, &["4"][..])
    );
    // AK902 is GE01 as received.
    let count = g(&format!("{isa}{GS}{SET}GE*5*1~IEA*1*000000001~"));
    assert_eq!((count.ak9.included, count.ak9.received), (5, 1));
    // Without GE, AK902 is the number received.
    let missing = g(&format!("{isa}{GS}{SET}IEA*1*000000001~"));
    assert_eq!(
        (missing.ak9.included, missing.ak9.errors.as_slice()),
        (1, &["3"][..])
    );
}

#[test]
fn retain_modes_keep_counts_and_outcomes() {
    let isa = isa_with(&[]);
    let input =
        format!("{isa}{GS}ST*850*0001~SE*2*0001~ST*850*0002~SE*9*0002~GE*2*1~IEA*1*000000001~");
    let doc = x12kit::parse(input.as_bytes());
    let all = x12kit::validate(&doc);
    for (retain, groups, sets) in [
        (Retain::All, 1, 2),
        (Retain::Errors, 1, 1),
        (Retain::Counts, 0, 0),
    ] {
        let v = x12kit::validate::validate_with(
            &doc,
            &Options {
                retain,
                ..Options::default()
            },
        );
        assert_eq!(v.diagnostics, all.diagnostics);
        assert_eq!(v.interchanges[0].groups.len(), groups, "{retain:?}");
        assert_eq!(
            v.interchanges[0]
                .groups
                .iter()
                .map(|g| g.transactions.len())
                .sum::<usize>(),
            sets
        );
        assert_eq!(v.interchanges[0].ta1, all.interchanges[0].ta1);
        if groups == 1 {
            assert_eq!(
                v.interchanges[0].groups[0].ak9,
                all.interchanges[0].groups[0].ak9
            );
        }
    }
}

#[test]
fn duplicate_checks_are_bounded() {
    let isa = isa_with(&[]);
    let input = format!(
        "{isa}{GS}ST*850*0001~SE*2*0001~ST*850*0002~SE*2*0002~ST*850*0002~SE*2*0002~GE*3*1~IEA*1*000000001~"
    );
    let doc = x12kit::parse(input.as_bytes());
    let v = x12kit::validate::validate_with(
        &doc,
        &Options {
            max_control_numbers: 1,
            ..Options::default()
        },
    );
    let codes: Vec<Code> = v.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::DuplicateCheckLimit]);
    assert_eq!(v.diagnostics[0].severity, Severity::Warning);
    assert_eq!(v.diagnostics[0].segment_index, Some(4));
    let v = x12kit::validate(&doc);
    assert_eq!(
        v.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::St02Duplicate]
    );
}

#[test]
fn streaming_equals_document_validation_for_crafted_inputs() {
    let isa = isa_with(&[]);
    for input in [
        clean(),
        format!("{isa}{GS}ST*850*0001~bad*1~SE*9*0002~GE*2*3~IEA*3*000000002~trailing"),
        format!("{isa}{SET}ST*850*0002~BEG*00~"),
        format!("{}{}", clean(), clean()),
    ] {
        let doc = x12kit::parse(input.as_bytes());
        let whole = x12kit::validate(&doc);
        for chunk in [1, 7, 4096] {
            let r = std::io::BufReader::with_capacity(chunk, input.as_bytes());
            let streamed = x12kit::validate_reader(r, &Options::default()).unwrap();
            assert_eq!(streamed.diagnostics, whole.diagnostics, "{input}");
            assert_eq!(streamed.interchanges, whole.interchanges, "{input}");
        }
    }
}

#[test]
fn json_shape() {
    let isa = isa_with(&[]);
    let v = run(&format!("{isa}{GS}ST*850*0001~SE*9*0001~{TAIL}"));
    let json: serde_json::Value = serde_json::from_slice(&v.to_json()).unwrap();
    assert_eq!(json["valid"], false);
    assert_eq!(json["errorCount"], 1);
    assert_eq!(json["warningCount"], 0);
    assert_eq!(json["diagnostics"][0]["code"], "SE01_COUNT");
    assert_eq!(
        json["diagnostics"][0]["ack"],
        serde_json::json!({"ik5": "4"})
    );
    let i = &json["interchanges"][0];
    assert_eq!(i["ta1"], serde_json::json!({"code": "A", "note": "000"}));
    assert_eq!(i["status"], "accepted");
    let g = &i["groups"][0];
    assert_eq!(
        g["ak9"],
        serde_json::json!({"code": "R", "included": 1, "received": 1, "accepted": 0, "errors": []})
    );
    assert_eq!(g["transactions"][0]["type"], "850");
    assert_eq!(
        g["transactions"][0]["ak5"],
        serde_json::json!({"code": "R", "errors": ["4"]})
    );
    assert!(json.get("acknowledgements").is_none());
}

#[test]
fn the_structure_option_installs_the_set_structure_rules() {
    // A clean envelope around an 850 with an impossible BEG05 date.
    let input = format!(
        "{}GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20231131~PO1*1*2*EA~SE*4*0001~GE*1*1~IEA*1*000000001~",
        isa_with(&[])
    );
    let doc = x12kit::parse(input.as_bytes());
    // Envelope rules only by default.
    assert!(x12kit::validate(&doc).is_valid());
    let options = Options {
        structure: true,
        ..Options::default()
    };
    let v = x12kit::validate::validate_with(&doc, &options);
    let codes: Vec<&str> = v.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["ELEMENT_INVALID_DATE"]);
    let d = &v.diagnostics[0];
    assert_eq!((d.segment_index, d.element), (Some(3), Some(5)));
    assert_eq!(d.ack.as_ref().and_then(|a| a.ik4), Some("8"));
    assert_eq!(
        v.interchanges[0].groups[0].transactions[0].status,
        Status::Rejected
    );
    // The same through the explicit rules and through the streaming reader.
    let explicit = Validator::new(Options::default())
        .with_rules(Box::new(x12kit::validate::Buffered::new(
            x12kit::documents::StructureRules,
        )))
        .run(&doc);
    assert_eq!(explicit.diagnostics, v.diagnostics);
    let streamed = x12kit::validate_reader(input.as_bytes(), &options).expect("a slice");
    assert_eq!(streamed.diagnostics, v.diagnostics);
}
