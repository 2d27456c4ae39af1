//! Push-style validation: the caller feeds chunks as they arrive.

use super::engine::{Options, Sink, Validator};
use super::summary::Validation;
use crate::envelope::Envelope;
use crate::stream::{Pull, StreamTokenizer};
use std::io;

/// The most input [`StreamValidator::feed`] copies into its buffer before
/// validating it, and what [`Validator::read`] asks of its reader at a time.
const PIECE: usize = 64 * 1024;

/// A push validator: [`feed`](Self::feed) it the input in chunks of any size
/// (as they come from a socket, a file, a queue ...), then
/// [`finish`](Self::finish) it for the result.
///
/// It runs a [`StreamTokenizer`], the [`Envelope`] machine and a
/// [`Validator`] — the same path as [`validate_reader`](super::validate_reader),
/// which is built on it — so whatever the chunking, the result equals that of
/// `validate_reader` over the same bytes. Memory is bounded by the longest
/// segment plus 64 KiB (a larger chunk is validated piece by piece) plus what
/// [`Options::retain`] keeps: use [`Retain::Counts`](super::Retain::Counts)
/// for inputs with millions of sets. As with `validate_reader`,
/// acknowledgements in the input are not read and interchanges whose ISA
/// cannot be parsed get no summary.
///
/// ```
/// use x12kit::validate::{Options, StreamValidator};
///
/// let x12: &[u8] = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*4*0001~GE*1*1~IEA*1*000000001~";
/// let mut v = StreamValidator::new(Options::default());
/// for chunk in x12.chunks(10) {
///     v.feed(chunk); // e.g. each read from a socket
/// }
/// assert!(v.consumed() <= x12.len()); // the rest waits for more input or `finish`
/// let result = v.finish();
/// assert_eq!(result.diagnostics[0].code.as_str(), "SE01_COUNT");
/// assert_eq!(result, x12kit::validate_reader(x12, &Options::default()).unwrap());
/// ```
#[derive(Debug)]
pub struct StreamValidator<S: Sink = Validation> {
    tokens: StreamTokenizer,
    envelope: Envelope,
    validator: Validator<S>,
}

impl StreamValidator<Validation> {
    /// A validator collecting a [`Validation`], waiting for its first chunk.
    pub fn new(options: Options) -> Self {
        Self::with_validator(Validator::new(options))
    }
}

impl<S: Sink> StreamValidator<S> {
    /// Drives `validator` (with its own [`Sink`] or
    /// [`SetRules`](super::SetRules)) from fed chunks.
    pub fn with_validator(validator: Validator<S>) -> Self {
        StreamValidator {
            tokens: StreamTokenizer::new(),
            envelope: Envelope::new(),
            validator,
        }
    }

    /// Validates the next `chunk` of the input (any size, empty included).
    /// The bytes of a segment not yet complete are kept for the next call.
    pub fn feed(&mut self, chunk: &[u8]) {
        for piece in chunk.chunks(PIECE) {
            self.tokens.feed(piece);
            self.drain();
        }
    }

    /// Declares the end of the input, validates what was held back (a last
    /// segment without terminator, unclosed envelopes) and returns the sink.
    pub fn finish(mut self) -> S {
        self.tokens.finish();
        self.drain();
        self.envelope
            .finish(self.tokens.consumed(), &mut self.validator);
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
        self.tokens.buffered() + self.validator.retained_bytes()
    }

    /// The validator, e.g. to look at its [`sink`](Validator::sink) so far.
    pub fn validator(&self) -> &Validator<S> {
        &self.validator
    }

    /// Pushes every complete token to the envelope machine.
    fn drain(&mut self) {
        while let Pull::Token(t) = self.tokens.next() {
            self.envelope.push(t, &mut self.validator);
        }
    }

    /// Reads `reader` to its end (straight into the tokenizer's buffer,
    /// [`PIECE`] bytes at a time) and returns the sink.
    pub(super) fn read<R: io::Read>(mut self, mut reader: R) -> io::Result<S> {
        while self.tokens.fill_from(&mut reader, PIECE)? > 0 {
            self.drain();
        }
        Ok(self.finish())
    }
}
