//! Inputs and token texts for tests that compare a fast path with its
//! reference: committed X12 (vectors, goldens) re-delimited, so that the
//! comparisons that always run cover delimiters and line breaks beyond
//! those of the files; token streams as text; ISA segments.

use crate::delimiters::Delimiters;
use crate::lexer::{Lexer, Token, Tokenizer};
use crate::stream::{Pull, StreamTokenizer};

/// A token as text, to compare token streams: a segment's index, offset,
/// bytes, suffix, whether it is terminated and its delimiters; a
/// diagnostic as it displays (severity, code, position, message).
pub fn token_text(t: &Token<'_>) -> String {
    match t {
        Token::Segment(s) => format!(
            "S {} {} {:?} {:?} {} {:?}",
            s.index(),
            s.offset(),
            s.raw(),
            s.suffix(),
            s.terminated(),
            s.delimiters()
        ),
        Token::Diagnostic(d) => format!("D {d}"),
    }
}

/// The tokens of the whole buffer `input`, as [`token_text`].
pub fn whole_tokens(input: &[u8]) -> Vec<String> {
    Tokenizer::new(input).map(|t| token_text(&t)).collect()
}

/// The tokens of `input` fed to a [`StreamTokenizer`] in chunks of the
/// sizes of `cuts` (in turn), as [`token_text`].
pub fn stream_tokens(input: &[u8], cuts: &[usize]) -> Vec<String> {
    stream_tokens_with(input, cuts, Lexer::default())
}

/// [`stream_tokens`] with a given lexer (the tests compare its paths).
pub(crate) fn stream_tokens_with(input: &[u8], cuts: &[usize], lexer: Lexer) -> Vec<String> {
    let mut st = StreamTokenizer::with_lexer(lexer);
    let mut out = Vec::new();
    let mut at = 0;
    let mut i = 0;
    loop {
        match st.next() {
            Pull::Token(t) => out.push(token_text(&t)),
            Pull::End => return out,
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

/// An ISA with these delimiters (element, component, repetition or none:
/// ISA11 `U` and version 00401, else 00501, and segment).
pub fn isa(e: u8, c: u8, r: Option<u8>, s: u8) -> Vec<u8> {
    let mut out = b"ISA".to_vec();
    let isa11 = [r.unwrap_or(b'U')];
    let version: &[u8] = if r.is_some() { b"00501" } else { b"00401" };
    let fields: [&[u8]; 16] = [
        b"00",
        b"          ",
        b"00",
        b"          ",
        b"ZZ",
        b"SENDER         ",
        b"ZZ",
        b"RECEIVER       ",
        b"230101",
        b"1200",
        &isa11,
        version,
        b"000000001",
        b"0",
        b"T",
        &[c],
    ];
    for f in fields {
        out.push(e);
        out.extend_from_slice(f);
    }
    out.push(s);
    out
}

/// Delimiter sets the variants use: element, component, repetition (`None`:
/// none) and segment, with the line break written after each terminator.
pub const VARIANTS: [([u8; 3], Option<u8>, &[u8]); 6] = [
    ([b'|', b'^', b'!'], Some(b'\\'), b"\r\n"),
    ([b'*', b':', b'~'], Some(b'^'), b""),
    ([0x1D, 0x1F, 0x1C], Some(0x1E), b"\n"),
    ([b'+', b'>', b'\''], None, b"\n"),
    ([b'!', b'"', b'\n'], Some(b'#'), b""),
    ([b'*', b'>', b'~'], None, b"\r\n"),
];

/// `input` with the delimiters of its first interchange replaced by
/// `to` (element, component, segment) and `repetition` (when the input has
/// a repetition separator; without one it stays without) throughout, and
/// `line_break` (instead of the CR and LF there) after each terminator.
/// `None` when the input has no ISA, or a new delimiter is a byte of the
/// content (the result would read differently), or two delimiters would be
/// the same byte.
pub fn redelimit(
    input: &[u8],
    to: [u8; 3],
    repetition: Option<u8>,
    line_break: &[u8],
) -> Option<Vec<u8>> {
    let isa = crate::lexer::segments(input).find(|s| s.is(b"ISA"))?;
    let from: Delimiters = isa.delimiters();
    let [element, component, segment] = to;
    let rep = from.repetition.map(|r| repetition.unwrap_or(r));
    let mut new = vec![element, component, segment];
    new.extend(rep);
    let mut distinct = new.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != new.len() {
        return None;
    }
    let mut out = Vec::with_capacity(input.len() + input.len() / 16);
    let mut bytes = input.iter().copied().peekable();
    while let Some(b) = bytes.next() {
        let mapped = if b == from.element {
            element
        } else if b == from.component {
            component
        } else if Some(b) == from.repetition {
            rep.unwrap_or(b)
        } else if b == from.segment {
            out.push(segment);
            while bytes.next_if(|&c| c == b'\r' || c == b'\n').is_some() {}
            out.extend_from_slice(line_break);
            continue;
        } else if new.contains(&b) {
            // Content that would read as a delimiter.
            return None;
        } else {
            b
        };
        out.push(mapped);
    }
    Some(out)
}

/// The ISA of [`envelope_pieces`] (004010, `>` components, no repetition separator).
pub const PIECE_ISA: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~\n";

/// Pieces that property tests of the envelope readers concatenate, in any
/// order and number, into inputs right and wrong: the ISA of 004010 and of
/// 005010 (with `^` as repetition separator), a GS of each, three complete
/// sets (one with UTF-8, a quote and a backslash), a segment in Latin-1,
/// a TA1, the trailers ISE, GE, SE and IEA on their own, and a BOM with a
/// space. Each test adds its own `extra` pieces after these.
pub fn envelope_pieces(extra: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = vec![
        PIECE_ISA.as_bytes().to_vec(),
        PIECE_ISA.replace("*U*00401", "*^*00501").into_bytes(),
        b"GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~\n".to_vec(),
        b"GS*IN*SENDER*RECEIVER*20230101*1200*2*X*005010~\n".to_vec(),
        b"ST*850*0001~\nBEG*00*SA*PO-1**20230101~\nREF*DP*7*x>y^z~\nPO1*1*2*EA*1.5**VP*SKU1~\nCTT*1~\nSE*6*0001~\n".to_vec(),
        b"ST*810*0002~\nBIG*20230101*INV-1~\nIT1*1*2*EA*9.99~\nTDS*1998~\nSE*5*0002~\n".to_vec(),
        b"N1*ST*Caf\xe9*\xff\xfe~\n".to_vec(),
        b"TA1*000000001*230101*1200*A*000~\n".to_vec(),
        b"ISE*1~\n".to_vec(),
        b"GE*1*1~\n".to_vec(),
        b"SE*2*0001~\n".to_vec(),
        b"IEA*1*000000001~\n".to_vec(),
        b"\xef\xbb\xbf \n".to_vec(),
    ];
    out.extend(extra.iter().map(|e| e.to_vec()));
    out
}
