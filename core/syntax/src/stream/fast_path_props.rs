//! The lexer's fast path (`Lexer::common`) against the general path alone, on
//! random X12 with random delimiters and every oddity the fast path
//! must leave to the general one: line breaks and spaces between
//! segments, empty segments, bad or lower-case identifiers, identifiers
//! without elements, ISA and IEA, end-of-file padding, text between
//! interchanges, a missing last terminator, and random chunk boundaries.

use super::*;
use crate::lexer::Tokenizer;
use proptest::prelude::*;

const DELIMS: &[u8] =
    b"*|~^:>!\"#$%&'()+,-./;<=?@[\\]_`{}\x1c\x1d\x1e\x1f\x07\n\r\t\x0b\x0c\x85\xff";

use crate::testing::{isa, token_text as owned};

fn whole(input: &[u8], lexer: Lexer) -> Vec<String> {
    Tokenizer::with_lexer(input, lexer)
        .map(|t| owned(&t))
        .collect()
}

fn chunked(input: &[u8], cuts: &[usize], lexer: Lexer) -> Vec<String> {
    crate::testing::inputs::stream_tokens_with(input, cuts, lexer)
}

/// The tokens of `input` fed at `cuts`, calling `skip_body` before every
/// `next` (the segments it skips are listed where `next` would have
/// yielded them), and how many were skipped.
fn chunked_skipping(input: &[u8], cuts: &[usize]) -> Result<(Vec<String>, usize), TestCaseError> {
    let mut st = StreamTokenizer::new();
    let mut out = Vec::new();
    let (mut at, mut i, mut skipped) = (0, 0, 0);
    loop {
        let mut ids = Vec::new();
        let n = st.skip_body_with(|raw, buf| {
            let seg = raw.view(buf);
            ids.push(seg.id().to_vec());
            out.push(owned(&Token::Segment(seg)));
        });
        prop_assert_eq!(n, ids.len());
        for id in ids {
            let envelope: [&[u8]; 6] = [b"ISA", b"IEA", b"GS", b"GE", b"ST", b"SE"];
            prop_assert!(!envelope.contains(&id.as_slice()), "skipped {:?}", id);
        }
        skipped += n;
        match st.next() {
            Pull::Token(t) => out.push(owned(&t)),
            Pull::End => return Ok((out, skipped)),
            Pull::NeedInput if at < input.len() => {
                let n = cuts[i % cuts.len()].max(1).min(input.len() - at);
                i += 1;
                st.feed(&input[at..at + n]);
                at += n;
            }
            Pull::NeedInput => st.finish(),
        }
    }
}

/// One piece of input: `k` picks what, `v` varies it.
fn piece(out: &mut Vec<u8>, d: [u8; 4], k: u8, v: u8) {
    let [e, c, r, s] = d;
    let ids: [&[u8]; 12] = [
        b"GS", b"ST", b"N1", b"PO1", b"SE", b"GE", b"IEA", b"ISA", b"n1", b"N", b"ABCD", b"I1",
    ];
    match k % 16 {
        0..=5 => {
            // A segment: identifier, elements, terminator.
            out.extend_from_slice(ids[v as usize % ids.len()]);
            for i in 0..(v % 5) {
                out.push(e);
                out.extend_from_slice(&b"AB12 X"[..(i as usize + v as usize) % 6]);
                if v % 7 == i {
                    out.push(c);
                    out.push(b'9');
                }
                if v % 11 == i {
                    out.push(r);
                }
            }
            out.push(s);
        }
        6 => out.extend_from_slice(&b"\r\n"[..1 + (v as usize % 2)]),
        7 => out.push(b'\n'),
        8 => out.extend_from_slice(&b"   \t"[..1 + v as usize % 4]),
        9 => out.push(s), // an empty segment
        10 => out.push([e, c, r, 0x1A, 0, b'x'][v as usize % 6]),
        11 => out.extend_from_slice(&[b'X'; 70][..v as usize % 70]),
        12 => out.extend_from_slice(b"IEA*1*000000001"),
        13 => out.extend_from_slice(ids[v as usize % ids.len()]),
        14 => out.extend_from_slice(b"ISA*00*short"),
        _ => out.extend_from_slice(&isa(e, c, Some(r).filter(|_| v.is_multiple_of(2)), s)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_fast_path_yields_what_the_general_path_yields(
        d in prop::sample::subsequence(DELIMS.to_vec(), 4).prop_shuffle(),
        rep in any::<bool>(),
        pieces in prop::collection::vec((0u8..16, any::<u8>()), 0..120),
        plain in 0u8..4,
        cuts in prop::collection::vec(1usize..150, 1..5),
    ) {
        let dl = [d[0], d[1], d[2], d[3]];
        let mut input = isa(d[0], d[1], rep.then_some(d[2]), d[3]);
        for (k, v) in pieces {
            // Mostly plain segments, like real files.
            let k = if plain > 0 && k % 3 != 0 { 0 } else { k };
            piece(&mut input, dl, k, v);
        }
        let want = whole(&input, Lexer::general_only());
        prop_assert_eq!(&whole(&input, Lexer::default()), &want);
        prop_assert_eq!(&chunked(&input, &cuts, Lexer::default()), &want);
        prop_assert_eq!(&chunked(&input, &cuts, Lexer::general_only()), &want);
        // Skipping body segments yields the same segments, in the same places.
        let (skipping, _) = chunked_skipping(&input, &cuts)?;
        prop_assert_eq!(&skipping, &want);
    }
}

#[test]
fn skip_body_skips_plain_segments_and_stops_at_envelope_ones() {
    let mut input = isa(b'*', b'>', None, b'~');
    input.extend_from_slice(b"\nGS*PO*A*B*20230101*1200*1*X*004010~\nST*850*0001~\nBEG*00*SA*1**20230101~\nN1*ST*X~\r\nPO1*1*2*EA~\nSE*5*0001~\nGE*1*1~\nIEA*1*000000001~\n");
    let (tokens, skipped) = chunked_skipping(&input, &[input.len()]).unwrap();
    assert_eq!(tokens, whole(&input, Lexer::general_only()));
    // BEG, N1, PO1; and GS and GE are not skipped (nor ISA, ST, SE, IEA).
    assert_eq!(skipped, 3);
}
