//! Lazy segment views without building the tree.
//!
//! The core's tokenizer finds the segments; this module only reports where
//! they are. Each segment is described by [`FIELDS`] numbers written into a
//! `Float64Array` (a batch at a time, so that iterating costs no native call
//! per segment); `index.js` turns them into `Segment` views that keep the
//! JS buffer and ask the core for an element or its components on demand.

use crate::bytes::{JsBytes, JsNumbers};
use crate::convert::Core;
use crate::errors::guard;
use crate::held::{self, Cursor, Handle, State};
use napi::Env;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use x12kit::{Delimiters, Pull, Segment, StreamTokenizer, Token};

/// Numbers per segment in a batch: start (in the buffer the views index),
/// raw length, suffix length, segment index, identifier length, packed
/// delimiters, byte offset in the whole input, and the identifier's bytes
/// packed into one number when it is 1–3 ASCII bytes (else 0), so that JS
/// can look the identifier string up instead of decoding it.
pub const FIELDS: usize = 8;

/// How much of a whole input the cursor feeds its tokenizer at a time (what
/// it copies and holds at most, with the segment it has not finished).
const SLICE: usize = 64 << 10;

/// Delimiters and the terminated flag packed into one exact f64 integer.
fn pack(d: Delimiters, terminated: bool) -> f64 {
    let rep = d.repetition.map_or(0u64, |r| 0x100 | u64::from(r));
    let v = u64::from(d.element)
        | (u64::from(d.component) << 8)
        | (u64::from(d.segment) << 16)
        | (rep << 24)
        | (u64::from(terminated) << 33);
    v as f64
}

/// The delimiters and terminated flag of [`pack`].
fn unpack(p: f64) -> Core<(Delimiters, bool)> {
    if !(p.is_finite() && p >= 0.0 && p < (1u64 << 34) as f64 && p.fract() == 0.0) {
        return Err(bad("the segment's delimiters"));
    }
    let v = p as u64;
    let rep = (v >> 24) & 0x1ff;
    Ok((
        Delimiters {
            element: (v & 0xff) as u8,
            component: ((v >> 8) & 0xff) as u8,
            segment: ((v >> 16) & 0xff) as u8,
            repetition: (rep & 0x100 != 0).then_some((rep & 0xff) as u8),
        },
        v >> 33 & 1 == 1,
    ))
}

fn bad(what: &str) -> x12kit::Error {
    x12kit::Error::new(
        x12kit::ErrorCode::InvalidArgument,
        format!("{what} does not describe a segment of this buffer"),
    )
}

/// Writes one segment's numbers; `start` is where its raw bytes begin in
/// the buffer the JS view keeps.
fn emit(out: &mut [f64], s: &Segment<'_>, start: usize) {
    out[0] = start as f64;
    out[1] = s.raw().len() as f64;
    out[2] = s.suffix().len() as f64;
    out[3] = s.index() as f64;
    out[4] = s.id().len() as f64;
    out[5] = pack(s.delimiters(), s.terminated());
    out[6] = s.offset() as f64;
    let id = s.id();
    out[7] = if (1..=3).contains(&id.len()) && id.is_ascii() {
        id.iter()
            .fold(id.len() as u32, |acc, &b| (acc << 8) | u32::from(b)) as f64
    } else {
        0.0
    };
}

/// Rebuilds the core's view of a segment from a buffer and its numbers.
fn view(buf: &[u8], start: f64, raw_len: f64, packed: f64) -> Core<Segment<'_>> {
    let whole = |v: f64| v.is_finite() && v >= 0.0 && v.fract() == 0.0;
    if !whole(start) || !whole(raw_len) {
        return Err(bad("the position"));
    }
    let (start, len) = (start as usize, raw_len as usize);
    let raw = start
        .checked_add(len)
        .and_then(|end| buf.get(start..end))
        .ok_or_else(|| bad("the position"))?;
    let (d, terminated) = unpack(packed)?;
    Ok(Segment::new(raw, &[], start, 0, d, terminated))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Element `n` (1-based) of the segment at `start`/`rawLen` of `buf`, or
/// `null` past the last element.
#[napi]
pub fn segment_element(
    buf: &[u8],
    start: f64,
    raw_len: f64,
    packed: f64,
    n: u32,
) -> Result<Option<String>> {
    guard(|| {
        Ok(view(buf, start, raw_len, packed)?
            .element(n as usize)
            .map(|e| text(e.raw())))
    })
}

/// The elements (after the identifier) of the segment, as strings.
#[napi]
pub fn segment_elements(buf: &[u8], start: f64, raw_len: f64, packed: f64) -> Result<Vec<String>> {
    guard(|| {
        Ok(view(buf, start, raw_len, packed)?
            .elements()
            .map(|e| text(e.raw()))
            .collect())
    })
}

/// The components of element `n` (1-based) of the segment (one for a
/// simple element; empty past the last element).
#[napi]
pub fn segment_components(
    buf: &[u8],
    start: f64,
    raw_len: f64,
    packed: f64,
    n: u32,
) -> Result<Vec<String>> {
    guard(|| {
        Ok(view(buf, start, raw_len, packed)?
            .element(n as usize)
            .map(|e| e.components().map(|c| text(c.raw())).collect())
            .unwrap_or_default())
    })
}

/// The repetitions of element `n` (1-based) of the segment.
#[napi]
pub fn segment_repetitions(
    buf: &[u8],
    start: f64,
    raw_len: f64,
    packed: f64,
    n: u32,
) -> Result<Vec<String>> {
    guard(|| {
        Ok(view(buf, start, raw_len, packed)?
            .element(n as usize)
            .map(|e| e.repetitions().map(|c| text(c.raw())).collect())
            .unwrap_or_default())
    })
}

/// What a cursor holds natively, for V8's accounting: about one slice.
const CURSOR_BYTES: usize = SLICE + 1024;

/// A cursor at the start of an input: its handle.
#[napi(ts_return_type = "object")]
pub fn segment_cursor_new(env: Env) -> Result<Handle> {
    let cursor = Cursor {
        tokens: StreamTokenizer::new(),
        fed: 0,
    };
    held::with(&env, |h| {
        h.insert(&env, State::Cursor(cursor), CURSOR_BYTES)
    })
}

/// Fills `out` with the next segments of `input` ([`FIELDS`] numbers each)
/// for the cursor of `handle`; returns how many. At the end it returns 0 and
/// frees the cursor (its handle is then used up).
#[napi(ts_args_type = "handle: object, input: Uint8Array, out: Float64Array")]
pub fn segment_cursor_fill(
    env: Env,
    handle: Handle,
    input: &[u8],
    mut out: Float64ArraySlice<'_>,
) -> Result<u32> {
    // SAFETY: the call is synchronous on the JS thread, so nothing else
    // reads or writes the array while this slice lives.
    let out: &mut [f64] = unsafe { out.as_mut() };
    held::with(&env, |h| {
        let State::Cursor(cursor) = h.get(&env, &handle)? else {
            return Err(held::not_a_handle());
        };
        let n = guard(|| fill(cursor, input, out))?;
        if n == 0 {
            h.take(&env, &handle)?;
        }
        Ok(n)
    })
}

/// Frees the cursor of `handle` (an iteration stopped early).
#[napi(ts_args_type = "handle: object")]
pub fn segment_cursor_close(env: Env, handle: Handle) -> Result<()> {
    held::with(&env, |h| h.take(&env, &handle).map(drop))
}

/// The next segments of `input` after what `cursor` has seen, into `out`.
fn fill(cursor: &mut Cursor, input: &[u8], out: &mut [f64]) -> Core<u32> {
    let (tokens, fed) = (&mut cursor.tokens, &mut cursor.fed);
    let mut n = 0;
    while (n + 1) * FIELDS <= out.len() {
        match tokens.next() {
            Pull::Token(Token::Segment(s)) => {
                let start = s.offset();
                emit(&mut out[n * FIELDS..(n + 1) * FIELDS], &s, start);
                n += 1;
            }
            Pull::Token(Token::Diagnostic(_)) => {}
            Pull::NeedInput => {
                let end = input.len().min(*fed + SLICE);
                let slice = input.get(*fed..end).ok_or_else(|| bad("the input"))?;
                tokens.feed(slice);
                *fed = end;
                if end == input.len() {
                    tokens.finish();
                }
            }
            Pull::End => break,
        }
    }
    Ok(n as u32)
}

/// Splits a stream of chunks into segments, with memory bounded by the
/// longest segment plus one chunk. Its tokenizer is freed when the input
/// ends (`push(null)`), not only when Node finalizes the splitter.
#[napi]
pub struct SegmentSplitter {
    tokens: Option<StreamTokenizer>,
}

/// Segments split from the chunks fed so far (in memory V8 allocates).
#[napi(object, object_from_js = false)]
pub struct SplitBatch {
    /// The raw bytes (and suffixes) of the segments, one after another.
    #[napi(ts_type = "Buffer")]
    pub bytes: JsBytes,
    /// [`FIELDS`] numbers per segment, starts relative to `bytes`.
    #[napi(ts_type = "Float64Array")]
    pub fields: JsNumbers,
}

#[napi]
impl SegmentSplitter {
    /// A splitter waiting for its first chunk.
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        SegmentSplitter {
            tokens: Some(StreamTokenizer::new()),
        }
    }

    /// Feeds a chunk (`null` ends the input); returns the segments completed.
    #[napi]
    pub fn push(&mut self, chunk: Option<&[u8]>) -> Result<SplitBatch> {
        let last = chunk.is_none();
        let tokens = &mut self.tokens;
        let (bytes, fields) = guard(|| {
            let tokens = tokens.as_mut().ok_or_else(|| {
                x12kit::Error::new(
                    x12kit::ErrorCode::InvalidArgument,
                    "this segment splitter has ended; create a new one",
                )
            })?;
            match chunk {
                Some(c) => tokens.feed(c),
                None => tokens.finish(),
            }
            let mut bytes = Vec::new();
            let mut fields = Vec::new();
            loop {
                match tokens.next() {
                    Pull::Token(Token::Segment(s)) => {
                        let mut f = [0f64; FIELDS];
                        emit(&mut f, &s, bytes.len());
                        bytes.extend_from_slice(s.raw());
                        if s.terminated() {
                            bytes.push(s.delimiters().segment);
                        }
                        bytes.extend_from_slice(s.suffix());
                        fields.extend_from_slice(&f);
                    }
                    Pull::Token(Token::Diagnostic(_)) => {}
                    Pull::NeedInput | Pull::End => break,
                }
            }
            Ok((bytes, fields))
        })?;
        if last {
            self.tokens = None;
        }
        Ok(SplitBatch {
            bytes: bytes.into(),
            fields: fields.into(),
        })
    }
}
