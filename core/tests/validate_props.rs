//! Property tests of the validator and the acknowledgement builder on
//! damaged input: a valid interchange with random bytes changed, inserted or
//! removed, and envelope segments in random order. Whatever comes in,
//! validation never panics, the streaming and document validators agree,
//! and every acknowledgement (TA1, 997, 999, auto; all sets or errors only)
//! parses and validates with no diagnostic (but `INVALID_UTF8` when the
//! received delimiters, which the acknowledgement keeps, are above 0x7F).

use proptest::prelude::*;
use x12kit::DateTime as Timestamp;
use x12kit::validate::Options;
use x12kit::{AckKind, AckOptions, Code};

const BASE_4010: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*1*P*>~\nGS*PO*SENDER*RECEIVER*20230101*1200*17*X*004010~\nST*850*0001~\nBEG*00*SA*PO1**20230101~\nREF*ZZ*A>B~\nSE*4*0001~\nST*850*0002~\nSE*2*0002~\nGE*2*17~\nIEA*1*000000001~\n";
const BASE_5010: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000001*0*T*:~GS*SH*SENDER*RECEIVER*20230101*1200*5*X*005010~ST*856*0001*005010~BSN*00*1*20230101*1200~REF*ZZ*A:B^C~SE*4*0001~GE*1*5~IEA*1*000000001~";

#[derive(Debug, Clone)]
enum Edit {
    Set(usize, u8),
    Insert(usize, u8),
    Remove(usize),
}

fn x12_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        Just(b'*'),
        Just(b'~'),
        Just(b'>'),
        Just(b':'),
        Just(b'^'),
        Just(b'\n'),
        Just(b' '),
        b'0'..=b'9',
        b'A'..=b'Z',
        any::<u8>(),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), x12_byte()).prop_map(|(i, b)| Edit::Set(i, b)),
        (any::<usize>(), x12_byte()).prop_map(|(i, b)| Edit::Insert(i, b)),
        any::<usize>().prop_map(Edit::Remove),
    ]
}

fn apply(base: &str, edits: &[Edit]) -> Vec<u8> {
    let mut v = base.as_bytes().to_vec();
    for e in edits {
        if v.is_empty() {
            break;
        }
        match *e {
            Edit::Set(i, b) => {
                let i = i % v.len();
                v[i] = b;
            }
            Edit::Insert(i, b) => {
                let i = i % (v.len() + 1);
                v.insert(i, b);
            }
            Edit::Remove(i) => {
                let i = i % v.len();
                v.remove(i);
            }
        }
    }
    v
}

fn envelope_segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*1*P*>~".to_string()),
        Just("ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000002*0*P*>~".to_string()),
        Just("GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~".to_string()),
        Just("GS*IN*SENDER*RECEIVER*230101*1200*A*Y*00401~".to_string()),
        Just("ST*850*0001~".to_string()),
        Just("ST*810*00001234567~".to_string()),
        Just("ST*999*0001*005010X231A1~".to_string()),
        Just("BEG*00*SA*1~".to_string()),
        Just("bad*1~".to_string()),
        Just("SE*3*0001~".to_string()),
        Just("SE*x*9~".to_string()),
        Just("GE*1*1~".to_string()),
        Just("GE*7~".to_string()),
        Just("IEA*1*000000001~".to_string()),
        Just("IEA~".to_string()),
        Just("TA1*000000001*230101*1200*R*001~".to_string()),
        Just("AK1*PO*1~AK2*850*0001~AK5*R*4~AK9*R*1*1*0~".to_string()),
        Just("junk\n".to_string()),
    ]
}

fn options(kind: AckKind, errors_only: bool) -> AckOptions {
    AckOptions {
        kind,
        errors_only,
        timestamp: Some(Timestamp::new(2024, 1, 2, 3, 4).unwrap()),
        ..AckOptions::default()
    }
}

fn check(input: &[u8]) -> Result<(), TestCaseError> {
    let doc = x12kit::parse(input);
    let v = x12kit::validate(&doc);
    let _ = v.to_json();
    // Streaming agrees, acknowledgements read, unreadable ISAs recovered
    // and UTF-8 checked included.
    let streamed = x12kit::validate_reader(
        std::io::BufReader::with_capacity(3, input),
        &Options::default(),
    )
    .unwrap();
    prop_assert_eq!(&streamed.diagnostics, &v.diagnostics);
    prop_assert_eq!(&streamed.interchanges, &v.interchanges);
    prop_assert_eq!(&streamed, &v);
    for kind in [AckKind::Ta1, AckKind::Fa997, AckKind::Fa999, AckKind::Auto] {
        for errors_only in [false, true] {
            let ack = x12kit::acknowledge(&v, &options(kind, errors_only)).unwrap();
            if ack.is_empty() {
                continue;
            }
            let mut av = x12kit::validate(&x12kit::parse(&ack));
            // Received delimiters above 0x7F are kept, and are not UTF-8.
            av.diagnostics
                .retain(|d| d.code != Code::InvalidUtf8 || ack.is_ascii());
            prop_assert!(
                av.diagnostics.is_empty(),
                "{:?} errors_only={}: {:#?}\ninput: {:?}\nack:\n{}",
                kind,
                errors_only,
                av.diagnostics,
                String::from_utf8_lossy(input),
                String::from_utf8_lossy(&ack)
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn damaged_interchanges(edits in prop::collection::vec(edit(), 1..6), five in any::<bool>()) {
        let input = apply(if five { BASE_5010 } else { BASE_4010 }, &edits);
        check(&input)?;
    }

    #[test]
    fn envelope_soup(segments in prop::collection::vec(envelope_segment(), 0..16)) {
        check(segments.concat().as_bytes())?;
    }
}
