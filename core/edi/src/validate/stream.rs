//! Push-style validation: the caller feeds chunks as they arrive.

use super::engine::{Sink, Validator};
use super::mapping;
use super::summary::Validation;
use std::collections::VecDeque;
use std::io;
use x12kit_syntax::delimiters::ISA_LEN;
use x12kit_syntax::diagnostics::{Code, Diagnostic};
use x12kit_syntax::envelope::Envelope;
use x12kit_syntax::lexer::Token;
use x12kit_syntax::stream::{Pull, StreamTokenizer};
use x12kit_syntax::utf8::Utf8Check;

/// The most input [`StreamValidator::feed`] copies into its buffer before
/// validating it, and what [`Validator::read`] asks of its reader at a time.
const PIECE: usize = 64 * 1024;

/// A push validator: [`feed`](Self::feed) it the input in chunks of any size
/// (as they come from a socket, a file, a queue ...), then
/// [`finish`](Self::finish) it for the result.
///
/// It runs a [`StreamTokenizer`], the [`Envelope`] machine and a
/// [`Validator`] — the same path as [`validate_reader`](crate::validation::validate_reader),
/// which is built on it — and, whatever the chunking, the result equals that
/// of [`validate_with`](crate::validation::validate_with) over the whole input: the
/// acknowledgements the input carries (TA1, 997, 999) are read as they
/// stream by, an interchange whose ISA cannot be parsed is recovered from its
/// first 106 bytes, and the input is checked as UTF-8 across chunk
/// boundaries. Memory is bounded by the longest segment plus 64 KiB (a larger
/// chunk is validated piece by piece) plus what [`Options::retain`](super::Options::retain) keeps
/// (and the acknowledgements read): use
/// [`Retain::Counts`](super::Retain::Counts) for inputs with millions of sets.
///
/// ```
/// use x12kit_edi::validate::{Options, StreamValidator};
///
/// let x12: &[u8] = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*4*0001~GE*1*1~IEA*1*000000001~";
/// let mut v = StreamValidator::new(Options::default());
/// for chunk in x12.chunks(10) {
///     v.feed(chunk); // e.g. each read from a socket
/// }
/// assert!(v.consumed() <= x12.len()); // the rest waits for more input or `finish`
/// let result = v.finish();
/// assert_eq!(result.diagnostics[0].code.as_str(), "SE01_COUNT");
/// assert_eq!(result, x12kit_edi::validation::validate_reader(x12, &Options::default()).unwrap());
/// assert_eq!(result, x12kit_edi::validation::validate(&x12kit_syntax::parse(x12)));
/// ```
#[derive(Debug)]
pub struct StreamValidator<S: Sink = Validation> {
    tokens: StreamTokenizer,
    envelope: Envelope,
    validator: Validator<S>,
    /// Input bytes fed so far.
    fed: usize,
    /// The input ended ([`finish`](Self::finish)).
    eof: bool,
    utf8: Utf8Check,
    /// Interchanges whose ISA could not be parsed, waiting for the bytes
    /// their identity is read from (at most 106 each, and fewer than 36
    /// waiting: each starts 3 bytes or more after the one before, and all
    /// of them are within the 106 bytes the first one waits for).
    unreadable: VecDeque<Unreadable>,
}

/// An interchange whose ISA could not be parsed.
#[derive(Debug)]
struct Unreadable {
    offset: usize,
    note: &'static str,
    /// The input from `offset`, up to [`ISA_LEN`] bytes.
    bytes: Vec<u8>,
}

impl<S: Sink> StreamValidator<S> {
    /// Drives `validator` (with its own [`Sink`] or
    /// [`SetRules`](super::SetRules)) from fed chunks.
    pub fn with_validator(validator: Validator<S>) -> Self {
        StreamValidator {
            tokens: StreamTokenizer::new(),
            envelope: Envelope::new(),
            validator,
            fed: 0,
            eof: false,
            utf8: Utf8Check::default(),
            unreadable: VecDeque::new(),
        }
    }

    /// Validates the next `chunk` of the input (any size, empty included).
    /// The bytes of a segment not yet complete are kept for the next call.
    pub fn feed(&mut self, chunk: &[u8]) {
        for piece in chunk.chunks(PIECE) {
            self.tokens.feed(piece);
            self.arrived(piece.len());
            self.drain();
        }
    }

    /// Declares the end of the input, validates what was held back (a last
    /// segment without terminator, unclosed envelopes) and returns the sink.
    pub fn finish(mut self) -> S {
        self.tokens.finish();
        self.eof = true;
        self.drain();
        self.recover();
        self.envelope
            .finish(self.tokens.consumed(), &mut self.validator);
        // `parse` checks UTF-8 after the rest, and its warnings come last.
        for d in self.utf8.finish() {
            x12kit_syntax::envelope::Handler::diagnostic(&mut self.validator, d);
        }
        self.validator.finish()
    }

    /// Input bytes validated so far (the bytes of an incomplete segment are
    /// not counted until it completes).
    pub fn consumed(&self) -> usize {
        self.tokens.consumed()
    }

    /// Bytes held by the validator: the incomplete segment and the
    /// [`Validator::retained_bytes`] of its state (not the buffer capacity).
    pub fn retained_bytes(&self) -> usize {
        self.tokens.buffered()
            + self.validator.retained_bytes()
            + self.utf8.retained_bytes()
            + self
                .unreadable
                .iter()
                .map(|u| u.bytes.capacity())
                .sum::<usize>()
    }

    /// The validator, e.g. to look at its [`sink`](Validator::sink) so far.
    pub fn validator(&self) -> &Validator<S> {
        &self.validator
    }

    /// Checks the `n` bytes just fed to the tokenizer as UTF-8 and gives
    /// the unreadable interchanges waiting for them their bytes.
    fn arrived(&mut self, n: usize) {
        let from = self.fed;
        self.fed += n;
        let new = self.tokens.held_from(from).unwrap_or_default();
        self.utf8.feed(new);
        for u in &mut self.unreadable {
            let want = ISA_LEN - u.bytes.len();
            u.bytes.extend_from_slice(&new[..want.min(new.len())]);
        }
        self.recover();
    }

    /// Pushes every complete token to the envelope machine.
    fn drain(&mut self) {
        loop {
            // Inside a set whose body is only counted (no set rules, no
            // acknowledgement being read), the plain body segments are
            // counted without a token each: the envelope machine would pass
            // them to `Handler::segment` alone, which counts them. The
            // whole-document validation, which replays a parsed tree, is the
            // reference (`core/tests/validate_stream_parity.rs`).
            if self.envelope.in_transaction() && self.validator.counts_body_only() {
                let n = self.tokens.skip_body();
                self.validator.add_body_segments(n);
            }
            let Pull::Token(t) = self.tokens.next() else {
                break;
            };
            // An ISA that cannot be parsed: its interchange is recovered
            // right after the diagnostic, as `validate` does (replay.rs).
            let unreadable = match &t {
                Token::Diagnostic(d) if is_unreadable_isa(d) => Some(d.clone()),
                _ => None,
            };
            self.envelope.push(t, &mut self.validator);
            if let Some(d) = unreadable {
                self.unreadable_isa(&d);
            }
        }
    }

    /// Notes an interchange whose ISA could not be parsed; it is recovered
    /// once its first 106 bytes (or all that is left of the input) are fed.
    fn unreadable_isa(&mut self, d: &Diagnostic) {
        let scope = self.validator.current_scope();
        let Some(note) = mapping::parser_codes(d, scope).and_then(|a| a.ta1) else {
            return;
        };
        let Some(offset) = d.offset else { return };
        let Some(held) = self.tokens.held_from(offset).filter(|b| !b.is_empty()) else {
            return;
        };
        self.unreadable.push_back(Unreadable {
            offset,
            note,
            bytes: held[..held.len().min(ISA_LEN)].to_vec(),
        });
        self.recover();
    }

    /// Recovers the waiting interchanges whose bytes are all there (all of
    /// them once the input has ended), in input order.
    fn recover(&mut self) {
        while let Some(u) = self.unreadable.front() {
            if u.bytes.len() < ISA_LEN && !self.eof {
                return;
            }
            if let Some(u) = self.unreadable.pop_front() {
                self.validator.unreadable_isa(&u.bytes, u.offset, u.note);
            }
        }
    }

    /// Reads `reader` to its end (straight into the tokenizer's buffer,
    /// [`PIECE`] bytes at a time) and returns the sink.
    pub(super) fn read<R: io::Read>(mut self, mut reader: R) -> io::Result<S> {
        loop {
            let n = self.tokens.fill_from(&mut reader, PIECE)?;
            if n == 0 {
                break;
            }
            self.arrived(n);
            self.drain();
        }
        Ok(self.finish())
    }
}

/// An error about an ISA whose delimiters or layout cannot be read (the
/// diagnostics after which `validate` recovers the interchange).
fn is_unreadable_isa(d: &Diagnostic) -> bool {
    matches!(d.code, Code::Delimiters | Code::IsaLayout) && d.is_error()
}
