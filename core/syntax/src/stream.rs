//! Incremental tokenizing: feed the input in chunks of any size.
//!
//! [`StreamTokenizer`] is a push tokenizer: the caller [`feed`](StreamTokenizer::feed)s
//! bytes as they arrive and pulls tokens with [`next`](StreamTokenizer::next).
//! It keeps only the bytes of the segment it has not finished, so memory is
//! bounded by the longest segment plus one chunk, not by the file. It runs the
//! same state machine as [`crate::lexer::Tokenizer`] and yields exactly the
//! same tokens, with offsets counted from the start of the whole input.
//!
//! [`Reader`] wraps any [`std::io::Read`] in the same machinery.

use crate::lexer::{Lexer, Step, Token};
use std::io::{self, Read};

/// What [`StreamTokenizer::next`] has for the caller.
#[derive(Debug)]
pub enum Pull<'a> {
    /// A token; its segment borrows the tokenizer's buffer until the next call.
    Token(Token<'a>),
    /// Feed more input (or call [`StreamTokenizer::finish`]) to go on.
    NeedInput,
    /// The input is finished and every token has been returned.
    End,
}

/// A chunk-fed tokenizer with memory bounded by the longest segment.
#[derive(Debug, Default)]
pub struct StreamTokenizer {
    /// `buf[..end]` is the input held; `buf[end..]` is room kept from
    /// earlier chunks, so that [`Reader`] can read into it without zeroing.
    buf: Vec<u8>,
    end: usize,
    pos: usize,
    base: usize,
    lexer: Lexer,
    eof: bool,
}

impl StreamTokenizer {
    /// A tokenizer waiting for its first chunk.
    pub fn new() -> Self {
        Self::default()
    }

    /// A tokenizer running `lexer` (tests compare lexer paths).
    pub(crate) fn with_lexer(lexer: Lexer) -> Self {
        StreamTokenizer {
            lexer,
            ..Self::default()
        }
    }

    /// Appends a chunk of input. Bytes already tokenized are dropped first.
    pub fn feed(&mut self, chunk: &[u8]) {
        self.room(chunk.len()).copy_from_slice(chunk);
        self.end += chunk.len();
    }

    /// Reads at most `max` bytes of input from `r` straight into the buffer
    /// (no intermediate copy), retrying reads that were interrupted; returns
    /// how many were read (0 at the end of `r`).
    #[doc(hidden)]
    pub fn fill_from(&mut self, r: &mut impl Read, max: usize) -> io::Result<usize> {
        let n = loop {
            match r.read(self.room(max)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                read => break read?,
            }
        };
        // A `Read` that claims more than it was given is a bug in it; do not trust it.
        let n = n.min(max);
        self.end += n;
        Ok(n)
    }

    /// Drops the bytes already tokenized and returns `len` bytes of room
    /// after the input held.
    fn room(&mut self, len: usize) -> &mut [u8] {
        self.compact();
        if self.buf.len() < self.end + len {
            self.buf.resize(self.end + len, 0);
        }
        &mut self.buf[self.end..self.end + len]
    }

    /// Declares the end of the input.
    pub fn finish(&mut self) {
        self.eof = true;
    }

    /// Bytes held but not yet tokenized (for memory accounting).
    pub fn buffered(&self) -> usize {
        self.end - self.pos
    }

    /// Total input bytes consumed so far.
    pub fn consumed(&self) -> usize {
        self.base + self.pos
    }

    /// The input held from byte `offset` of the whole input to the end of
    /// what was fed; `None` when bytes before `offset` were already dropped.
    /// Bytes are dropped only when more are fed, so a token's bytes are held
    /// until the next feed.
    #[doc(hidden)]
    pub fn held_from(&self, offset: usize) -> Option<&[u8]> {
        let at = offset.checked_sub(self.base)?;
        self.buf[..self.end].get(at..)
    }

    /// The next token, or what is needed to produce one.
    ///
    /// Not an `Iterator`: the token borrows the tokenizer until the next call.
    #[allow(clippy::should_implement_trait)]
    #[inline(always)]
    pub fn next(&mut self) -> Pull<'_> {
        match self.advance() {
            Some(Step::Segment(raw)) => {
                Pull::Token(Token::Segment(raw.view(&self.buf[..self.end])))
            }
            Some(Step::Diagnostic(d)) => Pull::Token(Token::Diagnostic(d)),
            Some(Step::NeedMore) => Pull::NeedInput,
            Some(Step::End) | None => Pull::End,
        }
    }

    #[inline]
    fn advance(&mut self) -> Option<Step> {
        Some(
            self.lexer
                .step(&self.buf[..self.end], &mut self.pos, self.base, self.eof),
        )
    }

    fn compact(&mut self) {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.base += self.pos;
            self.pos = 0;
        }
    }
}

/// Tokenizes any [`Read`] source in chunks, with bounded memory.
#[derive(Debug)]
pub struct Reader<R> {
    inner: R,
    tokens: StreamTokenizer,
    chunk: usize,
}

impl<R: Read> Reader<R> {
    /// A reader pulling 64 KiB at a time.
    pub fn new(inner: R) -> Self {
        Self::with_chunk_size(inner, 64 * 1024)
    }

    /// A reader pulling `size` bytes at a time (at least 1).
    pub fn with_chunk_size(inner: R, size: usize) -> Self {
        Reader {
            inner,
            tokens: StreamTokenizer::new(),
            chunk: size.max(1),
        }
    }

    /// Total input bytes consumed so far.
    pub fn consumed(&self) -> usize {
        self.tokens.consumed()
    }

    /// The next token, or `None` at the end of the input.
    #[inline]
    pub fn next_token(&mut self) -> io::Result<Option<Token<'_>>> {
        loop {
            match self.tokens.advance() {
                Some(Step::Segment(raw)) => {
                    let t = &self.tokens;
                    return Ok(Some(Token::Segment(raw.view(&t.buf[..t.end]))));
                }
                Some(Step::Diagnostic(d)) => return Ok(Some(Token::Diagnostic(d))),
                Some(Step::End) | None => return Ok(None),
                Some(Step::NeedMore) => {
                    if self.tokens.fill_from(&mut self.inner, self.chunk)? == 0 {
                        self.tokens.finish();
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
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
}

#[cfg(test)]
mod fast_path_props {
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
        crate::testing::stream_tokens_with(input, cuts, lexer)
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
        }
    }
}
