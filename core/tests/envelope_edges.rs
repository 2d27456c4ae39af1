//! Envelope edge cases found on real partner files (issue 17, envelope half):
//! warnings never choose acknowledgement codes, and the precedence when
//! several codes apply; a missing final terminator, end-of-file padding and a
//! hard-wrapped ISA are read with a warning and written back to the same
//! bytes; messages say what is there; functional acknowledgements are not
//! acknowledged; `write` with a line break when the terminator is one.
//! Each input is also validated from chunks (`StreamValidator`), which must
//! agree with the whole validation.

use x12kit::validate::{Options, SetRules, StreamValidator, Validation, Validator};
use x12kit::{AckCodes, AckKind, AckOptions, Code, DateTime, Diagnostic, Segment, Severity};

const ISA4: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*1*P*>~";
/// A 005010 interchange whose ISA11 is `U`: it cannot be the repetition separator.
const ISA5_U: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00501*000000001*1*P*:~";

fn po(version: &str, gs02: &str) -> String {
    format!(
        "GS*PO*{gs02}*RECEIVER*20230101*1200*1*X*{version}~ST*850*0001~BEG*00*SA*PO1**20230101~SE*3*0001~GE*1*1~"
    )
}

fn clean_4010() -> String {
    format!("{ISA4}{}IEA*1*000000001~", po("004010", "SENDER"))
}

fn now() -> DateTime {
    DateTime::new(2024, 2, 29, 13, 5).unwrap()
}

/// Validates the whole input and, chunk by chunk, with a `StreamValidator`;
/// both must agree (acknowledgements read from the input aside).
#[track_caller]
fn validate(input: &[u8]) -> Validation {
    let whole = x12kit::validate(&x12kit::parse(input));
    for size in [1, 2, 7, 64, 4096] {
        let mut s = StreamValidator::new(Options::default());
        for chunk in input.chunks(size) {
            s.feed(chunk);
        }
        let streamed = s.finish();
        let mut w = whole.clone();
        w.acknowledgements = None;
        assert_eq!(streamed, w, "chunks of {size}");
    }
    whole
}

fn codes(v: &Validation) -> Vec<(Severity, &'static str)> {
    v.diagnostics
        .iter()
        .map(|d| (d.severity, d.code.as_str()))
        .collect()
}

fn ta1(v: &Validation) -> Vec<String> {
    v.interchanges
        .iter()
        .map(|i| format!("{}{}", i.ta1.code, i.ta1.note))
        .collect()
}

fn ack(input: &[u8], kind: AckKind) -> String {
    let v = x12kit::validate(&x12kit::parse(input));
    let o = AckOptions {
        kind,
        timestamp: Some(now()),
        ..AckOptions::default()
    };
    String::from_utf8(x12kit::acknowledge(&v, &o).unwrap()).unwrap()
}

fn parse_json(input: &[u8]) -> serde_json::Value {
    let o = x12kit::ops::ParseOptions::default();
    serde_json::from_slice(&x12kit::ops::parse_json(input, &o)).unwrap()
}

/// `write(parse(x))`, through the operations the bindings call.
fn round_trip(input: &[u8]) -> Vec<u8> {
    let o = x12kit::ops::ParseOptions::default();
    let json = x12kit::ops::parse_json(input, &o);
    x12kit::ops::write_json(&json, &x12kit::ops::WriteOptions::default()).unwrap()
}

fn write_with(input: &[u8], line_break: &str) -> Result<Vec<u8>, x12kit::Error> {
    let o = x12kit::ops::ParseOptions::default();
    let json = x12kit::ops::parse_json(input, &o);
    x12kit::ops::write_json(
        &json,
        &x12kit::ops::WriteOptions {
            line_break: Some(line_break.to_string()),
        },
    )
}

// ---------------------------------------------------------------- item 4

#[test]
fn isa11_u_in_a_5010_interchange_is_a_warning_that_chooses_no_ta1_code() {
    let input = format!("{ISA5_U}{}IEA*1*000000001~", po("005010", "SENDER"));
    let v = validate(input.as_bytes());
    assert_eq!(codes(&v), [(Severity::Warning, "DELIMITERS")]);
    assert!(v.diagnostics[0].ack.is_none(), "{:?}", v.diagnostics[0]);
    assert!(v.is_valid());
    assert_eq!(ta1(&v), ["A000"]);
    let out = ack(input.as_bytes(), AckKind::Auto);
    assert!(out.contains("TA1*000000001*230101*1200*A*000~"), "{out}");
    assert!(
        out.contains("IK5*A~") && out.contains("AK9*A*1*1*1~"),
        "{out}"
    );
    assert_eq!(
        ack(input.as_bytes(), AckKind::Ta1).lines().nth(1).unwrap(),
        "TA1*000000001*230101*1200*A*000~"
    );
}

#[test]
fn isa11_u_does_not_replace_the_024_that_group_errors_call_for() {
    // GS02 is one character: a group error, noted in the TA1 as 024.
    let input = format!("{ISA5_U}{}IEA*1*000000001~", po("005010", "S"));
    let v = validate(input.as_bytes());
    assert_eq!(
        codes(&v),
        [
            (Severity::Warning, "DELIMITERS"),
            (Severity::Error, "GS02_INVALID")
        ]
    );
    assert_eq!(ta1(&v), ["E024"]);
    let out = ack(input.as_bytes(), AckKind::Auto);
    assert!(out.contains("TA1*000000001*230101*1200*E*024~"), "{out}");
    assert!(out.contains("AK9*R*1*1*1~"), "{out}");
}

#[test]
fn ta1_note_precedence_when_several_apply() {
    let isa = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = ISA4.as_bytes().to_vec();
        f(&mut b);
        String::from_utf8(b).unwrap()
    };
    // Two ISA errors: the first in element order (ISA05 before ISA09).
    let bad_05_09 = isa(&|b| {
        b[32..34].copy_from_slice(b"QQ");
        b[70..76].copy_from_slice(b"231399");
    });
    let v = validate(format!("{bad_05_09}{}IEA*1*000000001~", po("004010", "SENDER")).as_bytes());
    assert_eq!(ta1(&v), ["R005"]);
    // An interchange error rejects, whatever group errors are noted (024),
    // before or after it.
    let bad_09 = isa(&|b| b[70..76].copy_from_slice(b"231399"));
    let v = validate(format!("{bad_09}{}IEA*1*000000001~", po("004010", "S")).as_bytes());
    assert_eq!(ta1(&v), ["R014"]);
    let v = validate(format!("{ISA4}{}IEA*2*000000001~", po("004010", "S")).as_bytes());
    assert_eq!(
        codes(&v),
        [
            (Severity::Error, "GS02_INVALID"),
            (Severity::Error, "IEA01_COUNT")
        ]
    );
    assert_eq!(ta1(&v), ["R021"]);
    // Two interchange errors in the trailer: IEA01 before IEA02.
    let v = validate(format!("{ISA4}{}IEA*2*000000009~", po("004010", "SENDER")).as_bytes());
    assert_eq!(ta1(&v), ["R021"]);
    // Only group errors: accepted with errors, 024.
    let v = validate(format!("{ISA4}{}IEA*1*000000001~", po("004010", "S")).as_bytes());
    assert_eq!(ta1(&v), ["E024"]);
    // Warnings only: accepted.
    let v = validate(format!("\u{FEFF}{}", clean_4010()).as_bytes());
    assert_eq!(codes(&v), [(Severity::Warning, "BOM")]);
    assert_eq!(ta1(&v), ["A000"]);
}

/// Set rules that report a warning carrying acknowledgement codes.
struct WarnWithCodes;

impl SetRules for WarnWithCodes {
    fn segment(&mut self, seg: &Segment<'_>, _position: u64, out: &mut Vec<Diagnostic>) {
        out.push(
            Diagnostic::warning(Code::ElementInvalidCode, "a warning with codes")
                .at_segment(seg)
                .at_element(1)
                .with_ack(AckCodes {
                    ta1: Some("024"),
                    ak9: Some("5"),
                    ik5: Some("5"),
                    ..AckCodes::element("7")
                }),
        );
    }
}

#[test]
fn warnings_of_set_rules_choose_no_ak5_ik5_ak9_or_ta1_code() {
    let input = clean_4010();
    let v = Validator::new(Options::default())
        .with_rules(Box::new(WarnWithCodes))
        .run(&x12kit::parse(input.as_bytes()));
    assert_eq!(codes(&v), [(Severity::Warning, "ELEMENT_INVALID_CODE")]);
    assert!(v.diagnostics[0].ack.is_none());
    let g = &v.interchanges[0].groups[0];
    let t = &g.transactions[0];
    assert_eq!((t.ak5.code, t.ak5.errors.len()), ("A", 0));
    assert!(t.segment_errors.is_empty());
    assert_eq!((g.ak9.code, g.ak9.errors.len()), ("A", 0));
    assert_eq!(ta1(&v), ["A000"]);
    for kind in [AckKind::Fa997, AckKind::Fa999] {
        let out = String::from_utf8(
            x12kit::acknowledge(
                &v,
                &AckOptions {
                    kind,
                    timestamp: Some(now()),
                    ..AckOptions::default()
                },
            )
            .unwrap(),
        )
        .unwrap();
        assert!(!out.contains("AK3") && !out.contains("IK3"), "{out}");
        assert!(
            out.contains("K5*A~") && out.contains("AK9*A*1*1*1~"),
            "{out}"
        );
    }
}

// ---------------------------------------------------------------- item 5

#[test]
fn a_missing_final_terminator_is_kept_and_written_back() {
    let clean = clean_4010();
    let body = clean.strip_suffix('~').unwrap();
    for tail in ["", "\n", "\r\n", "\n\n"] {
        let input = format!("{body}{tail}");
        let v = validate(input.as_bytes());
        assert_eq!(codes(&v), [(Severity::Warning, "TERMINATOR_MISSING")]);
        assert_eq!(ta1(&v), ["A000"]);
        let json = parse_json(input.as_bytes());
        assert_eq!(json["unterminated"], true);
        assert_eq!(round_trip(input.as_bytes()), input.as_bytes(), "{tail:?}");
    }
    // Other terminators, a line feed among them.
    let lf = clean.replace('~', "\n");
    let input = lf.strip_suffix('\n').unwrap();
    assert_eq!(round_trip(input.as_bytes()), input.as_bytes());
    let quote = clean.replace('~', "'");
    let input = quote.strip_suffix('\'').unwrap();
    assert_eq!(round_trip(input.as_bytes()), input.as_bytes());
    // A terminated input says nothing; normalised line breaks write a regular file.
    assert!(parse_json(clean.as_bytes()).get("unterminated").is_none());
    let normalised = write_with(body.as_bytes(), "\n").unwrap();
    assert!(normalised.ends_with(b"IEA*1*000000001~\n"));
}

#[test]
fn write_refuses_an_unterminated_flag_that_is_not_a_boolean() {
    let mut v = parse_json(clean_4010().as_bytes());
    v["unterminated"] = serde_json::json!("yes");
    let e = x12kit::ops::write(&v, &x12kit::ops::WriteOptions::default()).unwrap_err();
    assert_eq!(
        (e.code().as_str(), e.pointer()),
        ("INVALID_PARSE_RESULT", Some("/unterminated"))
    );
}

// ---------------------------------------------------------------- item 7

#[test]
fn end_of_file_padding_after_the_last_iea_is_a_warning_and_is_written_back() {
    let clean = clean_4010();
    let nuls = "\0".repeat(128);
    for tail in [
        "\u{1A}".to_string(),
        "\r\n\u{1A}".to_string(),
        "\n\u{1A}\n".to_string(),
        nuls.clone(),
        format!("\u{1A}{nuls}"),
        "\r\n\0\0\r\n\0".to_string(),
    ] {
        let input = format!("{clean}{tail}");
        let v = validate(input.as_bytes());
        assert_eq!(
            codes(&v),
            [(Severity::Warning, "TRAILING_PADDING")],
            "{tail:?}"
        );
        assert!(v.diagnostics[0].ack.is_none());
        assert_eq!(ta1(&v), ["A000"]);
        let first = input.find(['\u{1A}', '\0']).unwrap();
        assert_eq!(v.diagnostics[0].offset, Some(first));
        assert_eq!(round_trip(input.as_bytes()), input.as_bytes(), "{tail:?}");
    }
    let v = validate(format!("{clean}\u{1A}").as_bytes());
    assert!(
        v.diagnostics[0]
            .message
            .starts_with("a DOS end-of-file byte (0x1A) follows the IEA segment; it is not X12"),
        "{}",
        v.diagnostics[0].message
    );
    let v = validate(format!("{clean}\u{1A}\0\0").as_bytes());
    assert!(
        v.diagnostics[0]
            .message
            .starts_with("a DOS end-of-file byte (0x1A) and 2 NUL bytes (0x00) follow"),
        "{}",
        v.diagnostics[0].message
    );
    // Normalised line breaks drop it.
    assert_eq!(
        write_with(format!("{clean}\u{1A}").as_bytes(), "").unwrap(),
        clean.as_bytes()
    );
}

#[test]
fn padding_between_interchanges_and_after_an_unterminated_iea() {
    let clean = clean_4010();
    let second = clean.replace("000000001", "000000002");
    let input = format!("{clean}\r\n\u{1A}{second}\u{1A}");
    let v = validate(input.as_bytes());
    assert_eq!(
        codes(&v),
        [
            (Severity::Warning, "TRAILING_PADDING"),
            (Severity::Warning, "TRAILING_PADDING")
        ]
    );
    assert_eq!(ta1(&v), ["A000", "A000"]);
    assert_eq!(round_trip(input.as_bytes()), input.as_bytes());

    let input = format!("{}\u{1A}", clean.strip_suffix('~').unwrap());
    let v = validate(input.as_bytes());
    assert_eq!(
        codes(&v),
        [
            (Severity::Warning, "TERMINATOR_MISSING"),
            (Severity::Warning, "TRAILING_PADDING")
        ]
    );
    assert_eq!(ta1(&v), ["A000"]);
    assert_eq!(round_trip(input.as_bytes()), input.as_bytes());
}

#[test]
fn data_after_padding_is_still_trailing_data() {
    let input = format!("{}\u{1A}garbage", clean_4010());
    let v = validate(input.as_bytes());
    assert_eq!(
        codes(&v),
        [
            (Severity::Warning, "TRAILING_PADDING"),
            (Severity::Error, "TRAILING_DATA")
        ]
    );
}

// ---------------------------------------------------------------- item 8

/// `input` with `brk` inserted at byte `at` of the ISA.
fn wrap(input: &str, at: usize, brk: &str) -> String {
    format!("{}{brk}{}", &input[..at], &input[at..])
}

#[test]
fn an_isa_hard_wrapped_at_80_columns_is_read_with_an_isa_layout_warning() {
    let clean = clean_4010();
    for brk in ["\r\n", "\n", "\r"] {
        let input = wrap(&clean, 80, brk);
        let doc = x12kit::parse(input.as_bytes());
        assert_eq!(doc.interchanges.len(), 1, "{brk:?}");
        let d = doc.interchanges[0].isa.delimiters();
        assert_eq!(
            (d.element, d.component, d.segment),
            (b'*', b'>', b'~'),
            "{brk:?}"
        );
        let v = validate(input.as_bytes());
        assert_eq!(codes(&v), [(Severity::Warning, "ISA_LAYOUT")], "{brk:?}");
        assert!(
            v.diagnostics[0].message.contains("hard-wrapped"),
            "{}",
            v.diagnostics[0].message
        );
        assert!(v.diagnostics[0].ack.is_none());
        let ic = &v.interchanges[0];
        assert_eq!(
            (
                ic.sender_id.as_str(),
                ic.time.as_str(),
                ic.control_number.as_str()
            ),
            ("SENDER", "1200", "000000001")
        );
        assert_eq!(ta1(&v), ["A000"]);
        assert_eq!(round_trip(input.as_bytes()), input.as_bytes(), "{brk:?}");
        let out = ack(input.as_bytes(), AckKind::Auto);
        assert!(out.contains("TA1*000000001*230101*1200*A*000~"), "{out}");
    }
}

#[test]
fn a_line_break_anywhere_inside_the_isa_is_read_the_same_way() {
    let clean = clean_4010();
    let expected = x12kit::validate(&x12kit::parse(clean.as_bytes())).interchanges;
    // After "ISA*" up to just before the terminator.
    for at in 4..=105 {
        let input = wrap(&clean, at, "\r\n");
        let v = validate(input.as_bytes());
        assert_eq!(codes(&v), [(Severity::Warning, "ISA_LAYOUT")], "at {at}");
        let mut got = v.interchanges.clone();
        got[0].offset = 0;
        assert_eq!(got[0].sender_id, expected[0].sender_id, "at {at}");
        assert_eq!(got[0].ta1, expected[0].ta1, "at {at}");
        assert_eq!(round_trip(input.as_bytes()), input.as_bytes(), "at {at}");
    }
    // Two breaks (a narrower wrap) and a wrapped file of several lines.
    let input = wrap(&wrap(&clean, 70, "\n"), 35, "\n");
    assert_eq!(
        codes(&validate(input.as_bytes())),
        [(Severity::Warning, "ISA_LAYOUT")]
    );
}

#[test]
fn a_wrapped_005010_isa_keeps_its_repetition_separator() {
    let isa5 = ISA5_U.replace("*U*00501*", "*^*00501*");
    let clean = format!("{isa5}{}IEA*1*000000001~", po("005010", "SENDER"));
    // Before, inside and after ISA11 (byte 82), the repetition separator.
    for at in [80, 82, 83, 84] {
        let input = wrap(&clean, at, "\r\n");
        let doc = x12kit::parse(input.as_bytes());
        assert_eq!(
            doc.interchanges[0].isa.delimiters().repetition,
            Some(b'^'),
            "at {at}"
        );
        let v = validate(input.as_bytes());
        assert_eq!(codes(&v), [(Severity::Warning, "ISA_LAYOUT")], "at {at}");
        assert_eq!(ta1(&v), ["A000"]);
        assert_eq!(round_trip(input.as_bytes()), input.as_bytes(), "at {at}");
    }
}

#[test]
fn padding_after_a_line_feed_terminated_iea() {
    let lf = clean_4010().replace('~', "\n");
    let input = format!("{lf}\u{1A}");
    let v = validate(input.as_bytes());
    assert_eq!(codes(&v), [(Severity::Warning, "TRAILING_PADDING")]);
    assert_eq!(round_trip(input.as_bytes()), input.as_bytes());
}

#[test]
fn a_wrapped_isa_that_is_not_fixed_width_without_its_breaks_is_still_an_error() {
    let unpadded = "ISA*00**00**ZZ*SENDER*ZZ*RECEIVER*230101*1200*U*00401*000000001*1*P*>~";
    let input = format!(
        "{}{}IEA*1*000000001~",
        wrap(unpadded, 30, "\r\n"),
        po("004010", "SENDER")
    );
    let doc = x12kit::parse(input.as_bytes());
    assert_eq!(doc.diagnostics[0].code, Code::IsaLayout);
    assert_eq!(doc.diagnostics[0].severity, Severity::Error);
    assert!(doc.interchanges.is_empty());
}

#[test]
fn a_line_feed_terminator_after_a_wrapped_isa() {
    // The terminator is a line feed: the one after ISA16 ends the ISA.
    let lf = clean_4010().replace('~', "\n");
    let input = wrap(&lf, 80, "\r\n");
    let doc = x12kit::parse(input.as_bytes());
    assert_eq!(doc.interchanges[0].isa.delimiters().segment, b'\n');
    let v = validate(input.as_bytes());
    assert_eq!(codes(&v), [(Severity::Warning, "ISA_LAYOUT")]);
    assert_eq!(round_trip(input.as_bytes()), input.as_bytes());
}

// ---------------------------------------------------------------- item 9

#[test]
fn a_106_byte_isa_that_is_not_fixed_width_is_not_called_106_bytes_instead_of_106() {
    // ISA06 one short, ISA08 one long: 106 bytes, separators shifted.
    let isa = ISA4
        .replace("*SENDER         *", "*SENDER        *")
        .replace("*RECEIVER       *", "*RECEIVER        *");
    assert_eq!(isa.len(), 106);
    let input = format!("{isa}{}IEA*1*000000001~", po("004010", "SENDER"));
    let doc = x12kit::parse(input.as_bytes());
    let m = &doc.diagnostics[0].message;
    assert_eq!(doc.diagnostics[0].code, Code::IsaLayout);
    assert!(!m.contains("instead of the fixed 106"), "{m}");
    assert!(m.starts_with("the ISA segment is 106 bytes long, but its element separators are not at the fixed positions; ISA06 is 14 characters instead of 15; ISA08 is 16 characters instead of 15"), "{m}");
}

fn unexpected(input: &str) -> String {
    let doc = x12kit::parse(input.as_bytes());
    let d = doc
        .diagnostics
        .iter()
        .find(|d| d.code == Code::UnexpectedSegment)
        .expect("UNEXPECTED_SEGMENT");
    d.message.clone()
}

#[test]
fn misplaced_segment_messages_say_what_precedes_them() {
    let gs = "GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~";
    let set = "ST*850*0001~BEG*00*SA*PO1**20230101~SE*3*0001~";
    let m = unexpected(&format!("{ISA4}{gs}N1*ST*X~{set}GE*1*1~IEA*1*000000001~"));
    assert_eq!(
        m,
        "unexpected N1 segment in functional group 1 (PO) before its first transaction set: only ST or GE may follow a GS"
    );
    let m = unexpected(&format!("{ISA4}{gs}{set}N1*ST*X~GE*1*1~IEA*1*000000001~"));
    assert_eq!(
        m,
        "unexpected N1 segment between the transaction sets of functional group 1 (PO): only ST or GE may follow an SE"
    );
    let m = unexpected(&format!("{ISA4}N1*ST*X~{gs}{set}GE*1*1~IEA*1*000000001~"));
    assert_eq!(
        m,
        "unexpected N1 segment in interchange 000000001 before its first functional group: only GS, IEA, TA1, ISB or ISE may follow the ISA"
    );
    let m = unexpected(&format!("{ISA4}{gs}{set}GE*1*1~N1*ST*X~IEA*1*000000001~"));
    assert_eq!(
        m,
        "unexpected N1 segment between the functional groups of interchange 000000001: only GS, IEA, TA1, ISB or ISE may follow a GE"
    );
    let m = unexpected(&format!("{ISA4}{set}N1*ST*X~IEA*0*000000001~"));
    assert!(m.contains("outside any functional group"), "{m}");
}

// ---------------------------------------------------------------- siblings

fn fa_997() -> String {
    format!(
        "{ISA4}GS*FA*SENDER*RECEIVER*20230101*1200*5*X*004010~ST*997*0001~AK1*PO*1~AK9*A*1*1*1~SE*4*0001~GE*1*5~IEA*1*000000001~"
    )
}

#[test]
fn functional_acknowledgements_are_not_acknowledged() {
    let input = fa_997();
    assert!(validate(input.as_bytes()).is_valid());
    // ISA14 asks for a TA1: the interchange gets it, the 997 group nothing.
    for kind in [AckKind::Auto, AckKind::Ta1, AckKind::Fa997, AckKind::Fa999] {
        let out = ack(input.as_bytes(), kind);
        assert!(!out.contains("GS*FA"), "{kind:?}: {out}");
        if kind != AckKind::Fa997 && kind != AckKind::Fa999 {
            assert!(out.contains("TA1*000000001*230101*1200*A*000~"), "{out}");
            assert!(out.ends_with("IEA*0*000000001~\n"), "{out}");
        } else {
            assert_eq!(out, "", "{kind:?}");
        }
    }
    // No TA1 asked for: nothing at all.
    let quiet = input.replacen("*1*P*>~", "*0*P*>~", 1);
    assert_eq!(ack(quiet.as_bytes(), AckKind::Auto), "");
    // A 999 group (005010) likewise; the purchase orders next to it are acknowledged.
    let mixed = format!(
        "{ISA4}GS*FA*SENDER*RECEIVER*20230101*1200*5*X*005010X231A1~ST*999*0001*005010X231A1~AK1*PO*1*005010~AK9*A*1*1*1~SE*4*0001~GE*1*5~{}IEA*2*000000001~",
        po("004010", "SENDER")
            .replace("*1*X*004010~", "*6*X*004010~")
            .replace("GE*1*1~", "GE*1*6~")
    );
    assert!(validate(mixed.as_bytes()).is_valid());
    let out = ack(mixed.as_bytes(), AckKind::Auto);
    assert_eq!(out.matches("GS*FA").count(), 1, "{out}");
    assert!(out.contains("AK1*PO*6~"), "{out}");
    assert!(!out.contains("AK1*FA"), "{out}");
}

#[test]
fn write_adds_no_line_break_when_the_terminator_is_one() {
    let lf = clean_4010().replace('~', "\n");
    for lb in ["\n", "\r\n", ""] {
        let out = write_with(lf.as_bytes(), lb).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), lf, "{lb:?}");
    }
    // A CR terminator: no CR LF added either (the LF would be a blank line).
    let cr = clean_4010().replace('~', "\r");
    assert_eq!(write_with(cr.as_bytes(), "\n").unwrap(), cr.as_bytes());
    // Elsewhere the line break is written after every terminator.
    let out = write_with(clean_4010().as_bytes(), "\n").unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        clean_4010().replace('~', "~\n")
    );
}

#[test]
fn write_refuses_a_line_break_that_is_not_cr_or_lf() {
    let e = write_with(clean_4010().as_bytes(), "\n--").unwrap_err();
    assert_eq!(
        (e.code().as_str(), e.pointer()),
        ("INVALID_OPTIONS", Some("/lineBreak"))
    );
}
