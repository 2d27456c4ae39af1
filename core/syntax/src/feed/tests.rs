//! The push-fed set reader against [`parse_sets`]: the same sets (segments,
//! positions, ISA and GS around them), the same diagnostics, prefix and
//! `unterminated`, whatever the chunking; and what it holds.

use super::*;
use crate::sets::{HOLD, Outline, SetHandler, parse_sets};
use proptest::prelude::*;

/// A segment as text with its position, suffix and terminator.
fn seg(s: &Segment<'_>) -> String {
    format!(
        "{}@{}#{}{}{}",
        String::from_utf8_lossy(s.raw()),
        s.offset(),
        s.index(),
        if s.terminated() { "~" } else { "" },
        String::from_utf8_lossy(s.suffix()).escape_debug()
    )
}

/// One set as text: ISA, GS, ST, body, SE, over the cap.
fn set<'a>(
    doc: &Document<'a>,
    isa: &Segment<'a>,
    gs: Option<&Segment<'a>>,
    tx: &Transaction<'a>,
) -> String {
    let mut out = format!(
        "{} | {} | {} | ",
        seg(isa),
        gs.map_or("-".into(), seg),
        seg(&tx.st)
    );
    for b in doc.body(tx) {
        out.push_str(&seg(&b));
        out.push(' ');
    }
    out.push_str(&format!(
        "| {} | {}",
        tx.se.as_ref().map_or("-".into(), seg),
        tx.is_over_cap()
    ));
    out
}

/// A set of [`parse_sets`] as text but its ISA (kept from the outline).
fn set_with<'a>(doc: &Document<'a>, g: &Group<'a>, tx: &Transaction<'a>) -> String {
    let mut out = format!(
        "{} | {} | ",
        g.gs.as_ref().map_or("-".into(), seg),
        seg(&tx.st)
    );
    for b in doc.body(tx) {
        out.push_str(&seg(&b));
        out.push(' ');
    }
    out.push_str(&format!(
        "| {} | {}",
        tx.se.as_ref().map_or("-".into(), seg),
        tx.is_over_cap()
    ));
    out
}

/// The sets and end of `input` through [`parse_sets`] (holding `hold`).
fn whole(input: &[u8], hold: usize, cap: SetCap) -> (Vec<String>, FedEnd) {
    struct H(Vec<String>, String);
    impl<'a> SetHandler<'a> for H {
        fn interchange(&mut self, o: &Outline<'a>) {
            self.1 = seg(&o.interchange.isa);
        }
        fn transaction(
            &mut self,
            doc: &Document<'a>,
            g: &Group<'a>,
            tx: &Transaction<'a>,
            _: usize,
        ) {
            self.0
                .push(format!("{} | {}", self.1, set_with(doc, g, tx)));
        }
    }
    let mut h = H(Vec::new(), String::new());
    let doc = parse_sets(input, hold, cap, &mut h);
    (
        h.0,
        FedEnd {
            diagnostics: doc.diagnostics,
            prefix: doc.prefix.to_vec(),
            unterminated: doc.unterminated,
        },
    )
}

/// The sets and end of `input` fed in chunks of the sizes of `cuts`, in turn.
fn fed(input: &[u8], cuts: &[usize], cap: SetCap) -> (Vec<String>, FedEnd, usize) {
    let mut sets = Vec::new();
    let mut f = SetFeeder::new(cap);
    let mut most = 0;
    let mut h = |doc: &Document<'_>, isa: &Segment<'_>, g: &Group<'_>, tx: &Transaction<'_>| {
        sets.push(set(doc, isa, g.gs.as_ref(), tx));
    };
    let mut rest = input;
    let mut k = 0;
    while !rest.is_empty() {
        let n = cuts[k % cuts.len()].clamp(1, rest.len());
        k += 1;
        f.feed(&rest[..n], &mut h);
        most = most.max(f.held());
        rest = &rest[n..];
    }
    let end = f.finish(&mut h);
    assert_eq!(f.finish(&mut h), end, "finish again");
    (sets, end, most)
}

fn check(input: &[u8], cuts: &[usize], cap: SetCap) {
    let (want, want_end) = whole(input, HOLD, cap);
    let (got, got_end, _) = fed(input, cuts, cap);
    assert_eq!(got, want, "cuts {cuts:?}");
    assert_eq!(got_end, want_end, "cuts {cuts:?}");
    let (streamed, streamed_end) = whole(input, 0, cap);
    assert_eq!(streamed, want);
    assert_eq!(streamed_end, want_end);
}

const ISA: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~\n";

/// The shared pieces (crate::testing::envelope_pieces) with this test's own, and
/// a few random bytes, each as likely as any one piece.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    let pieces = crate::testing::envelope_pieces(&[
        ISA.replace("~\n", "~").as_bytes(),
        ISA.replace("~\n", "\r\n").replace('*', "|").as_bytes(),
        b"ST*850*0003~\nBEG*00*SA*PO1**20230101~\nN1*ST*Caf\xc3\xa9 \"q\" \\ \xe2\x82\xac~SE*4*0003~\n",
        b"REF*DP*1~",
        b"  \r\n",
    ]);
    let n = pieces.len() as u32;
    prop_oneof![
        n => proptest::sample::select(pieces),
        1 => proptest::collection::vec(any::<u8>(), 0..6),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// Random inputs fed in random chunkings give what the slice gives.
    #[test]
    fn fed_sets_equal_the_slice(
        pieces in proptest::collection::vec(piece(), 1..30),
        cuts in proptest::collection::vec(1usize..40, 1..8),
        cap in prop_oneof![Just(0u64), Just(64 << 20), 1u64..200],
    ) {
        check(&pieces.concat(), &cuts, SetCap::bytes(cap));
    }
}

#[test]
fn committed_inputs_fed_byte_by_byte_and_in_chunks() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors");
    let mut n = 0;
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .is_some_and(|x| x == "x12" || x == "edi" || x == "txt")
            {
                let input = std::fs::read(&p).unwrap();
                for cuts in [&[1][..], &[3, 1, 7], &[4096], &[usize::MAX]] {
                    check(&input, cuts, SetCap::default());
                }
                check(&input, &[5, 2], SetCap::bytes(40));
                n += 1;
            }
        }
    }
    assert!(n > 20, "only {n} inputs");
}

/// A long interchange of many sets: what the reader holds stays near one
/// set and one chunk, not the input.
#[test]
fn holds_one_set_not_the_input() {
    let mut input = ISA.as_bytes().to_vec();
    input.extend_from_slice(b"GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~\n");
    let set =
        b"ST*850*0001~\nBEG*00*SA*PO-1**20230101~\nPO1*1*2*EA*1.5**VP*SKU1~\nCTT*1~\nSE*5*0001~\n";
    for _ in 0..20_000 {
        input.extend_from_slice(set);
    }
    input.extend_from_slice(b"GE*20000*1~\nIEA*1*000000001~\n");
    let (sets, end, most) = fed(&input, &[4096], SetCap::default());
    assert_eq!(sets.len(), 20_000);
    assert!(end.diagnostics.is_empty(), "{:?}", end.diagnostics);
    assert!(
        most < 2 * 4096 + set.len(),
        "held {most} bytes of {}",
        input.len()
    );
    // A set over the cap is not held either.
    let mut big = ISA.as_bytes().to_vec();
    big.extend_from_slice(b"ST*850*0001~\n");
    for _ in 0..50_000 {
        big.extend_from_slice(b"PO1*1*2*EA*1.5**VP*SKU1~\n");
    }
    big.extend_from_slice(b"SE*50001*0001~\nIEA*1*000000001~\n");
    let (sets, end, most) = fed(&big, &[4096], SetCap::bytes(10_000));
    assert_eq!(sets.len(), 1);
    assert!(
        end.diagnostics
            .iter()
            .any(|d| d.code == crate::Code::SetTooLarge)
    );
    assert!(most < 3 * 4096, "held {most} bytes");
    check(&big, &[4096, 1], SetCap::bytes(10_000));
}
