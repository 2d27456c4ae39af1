//! Fuzzes the reading side: `parse`, the JSON serializers, the write-back of
//! the parse result, and the streaming tokenizer, which must yield exactly the
//! tokens of the whole-buffer tokenizer whatever the chunk sizes.
//!
//! The first byte of the input picks the chunk sizes; the rest is the X12.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use x12kit::{Pull, StreamTokenizer, Token, Tokenizer, WriteOptions};

/// An owned, comparable form of a token.
fn owned(t: &Token<'_>) -> String {
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

fn streamed(input: &[u8], sizes: &[usize]) -> Vec<String> {
    let mut st = StreamTokenizer::new();
    let mut out = Vec::new();
    let (mut at, mut k, mut finished) = (0, 0, false);
    loop {
        match st.next() {
            Pull::Token(t) => out.push(owned(&t)),
            Pull::End => return out,
            Pull::NeedInput => {
                assert!(!finished, "NeedInput after finish()");
                if at == input.len() {
                    st.finish();
                    finished = true;
                } else {
                    let n = sizes[k % sizes.len()].min(input.len() - at);
                    k += 1;
                    st.feed(&input[at..at + n]);
                    at += n;
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let sizes = common::chunk_sizes(pick);

    let whole: Vec<String> = Tokenizer::new(input).map(|t| owned(&t)).collect();
    let stream = streamed(input, sizes);
    assert_eq!(
        stream, whole,
        "stream != whole buffer, chunk sizes {sizes:?}"
    );

    let doc = x12kit::parse(input);
    let json = x12kit::to_json(&doc);
    let value: serde_json::Value = serde_json::from_slice(&json).expect("to_json gives JSON");
    assert_eq!(value, x12kit::to_value(&doc).unwrap());
    // Writing back never panics (it may return a typed error for bad input).
    let _ = x12kit::write(&value, &WriteOptions::default());
    let _ = x12kit::write(
        &value,
        &WriteOptions {
            line_break: Some("\n".into()),
        },
    );
});
