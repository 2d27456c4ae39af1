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

use crate::lexer::{Lexer, RawSegment, Step, Token};
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

    /// Skips the plain body segments at the front of the input held and
    /// returns how many: segments without any diagnostic whose identifier is
    /// not an envelope one (ISA, IEA, GS, GE, ST, SE), exactly the segments
    /// [`next`](Self::next) would have yielded first, numbered the same
    /// ([`Segment::index`](crate::Segment::index) of the next token counts
    /// them). For a reader inside a transaction set (see
    /// [`Envelope::in_transaction`](crate::Envelope::in_transaction)) that only
    /// counts its body segments, such as envelope validation: it reads them
    /// without building a token for each. It may skip none; `next` then
    /// reads what follows as usual.
    #[inline]
    pub fn skip_body(&mut self) -> usize {
        self.skip_body_with(|_, _| ())
    }

    /// [`skip_body`](Self::skip_body), passing each segment skipped to `seen`
    /// (tests compare them with the tokens of [`next`](Self::next)).
    #[inline(always)]
    pub(crate) fn skip_body_with(&mut self, mut seen: impl FnMut(&RawSegment, &[u8])) -> usize {
        let buf = &self.buf[..self.end];
        self.lexer
            .skip_body(buf, &mut self.pos, self.base, |raw| seen(raw, buf))
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
mod tests;

#[cfg(test)]
mod fast_path_props;
