//! The stream tokenizer against the whole-buffer one, and what it holds.

use super::*;
use crate::lexer::Tokenizer;

use crate::testing::token_text as owned;

fn chunked(input: &[u8], size: usize) -> Vec<String> {
    crate::testing::stream_tokens(input, &[size])
}

/// The tokens of `input` fed in chunks of `size`, and the tokenizer
/// that read them (for what it counted).
fn tokenize_in_chunks(input: &[u8], size: usize) -> (Vec<String>, StreamTokenizer) {
    let mut st = StreamTokenizer::new();
    let mut out = Vec::new();
    let mut chunks = input.chunks(size);
    loop {
        match st.next() {
            Pull::Token(t) => out.push(owned(&t)),
            Pull::End => return (out, st),
            Pull::NeedInput => match chunks.next() {
                Some(c) => st.feed(c),
                None => st.finish(),
            },
        }
    }
}

#[test]
fn chunked_equals_whole_for_tricky_inputs() {
    let sample: &[u8] = b"\xEF\xBB\xBFISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000001*0*T*:~\r\nGS*PO*S*R*20230101*1200*1*X*005010~\r\nST*850*0001~BEG*00*SA*PO1**20230101~SE*3*0001~GE*1*1~IEA*1*000000001~\n\njunk\nISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000002*0*T*>\nIEA*0*000000002";
    let whole: Vec<String> = Tokenizer::new(sample).map(|t| owned(&t)).collect();
    assert!(whole.len() > 8);
    for size in [1, 2, 3, 7, 64, 4096] {
        assert_eq!(chunked(sample, size), whole, "chunk size {size}");
    }
    let r: Vec<String> = {
        let mut r = Reader::with_chunk_size(sample, 5);
        let mut v = Vec::new();
        while let Some(t) = r.next_token().unwrap() {
            v.push(owned(&t));
        }
        v
    };
    assert_eq!(r, whole);
}

/// A segment far longer than the chunks it arrives in is searched once,
/// not once per chunk: the work (blocks of the structural index
/// classified) grows linearly with the input, whatever the chunk size.
#[test]
fn a_long_segment_in_small_chunks_is_scanned_once() {
    let head: &[u8] = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~";
    let mut input = head.to_vec();
    input.extend_from_slice(b"MSG*");
    input.extend(std::iter::repeat_n(b'A', 300_000));
    input.extend_from_slice(b"~\r\n");
    input.extend(std::iter::repeat_n(b' ', 30_000));
    input.extend_from_slice(b"SE*3*0001~GE*1*1~IEA*1*000000001~");
    let whole: Vec<String> = Tokenizer::new(&input).map(|t| owned(&t)).collect();
    for size in [7, 100, 7 * 1024] {
        let (out, st) = tokenize_in_chunks(&input, size);
        assert_eq!(out, whole, "chunk size {size}");
        // One partial block per chunk plus one block per 64 bytes, twice
        // over at most; a rescan would classify ~ (len / 64) * (len / size) / 2.
        let blocks = st.lexer.blocks();
        let bound = 2 * (input.len() / size + input.len() / 64) + 64;
        assert!(
            blocks <= bound,
            "chunk size {size}: {blocks} blocks classified for {} bytes (bound {bound})",
            input.len()
        );
    }
}

#[test]
fn memory_is_bounded_by_the_longest_segment() {
    let mut input = Vec::new();
    input.extend_from_slice(b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~");
    for i in 0..20_000 {
        input.extend_from_slice(format!("PO1*{i}*1*EA*9.99**VP*SKU{i}~").as_bytes());
    }
    input.extend_from_slice(b"SE*20002*0001~GE*1*1~IEA*1*000000001~");
    let mut st = StreamTokenizer::new();
    let mut peak = 0;
    let mut n = 0;
    let mut chunks = input.chunks(4096);
    loop {
        peak = peak.max(st.buf.capacity());
        match st.next() {
            Pull::Token(Token::Segment(_)) => n += 1,
            Pull::Token(_) => {}
            Pull::End => break,
            Pull::NeedInput => match chunks.next() {
                Some(c) => st.feed(c),
                None => st.finish(),
            },
        }
    }
    assert_eq!(n, 20_006);
    assert!(
        peak < 3 * 4096,
        "peak buffer {peak} for an input of {}",
        input.len()
    );
}
