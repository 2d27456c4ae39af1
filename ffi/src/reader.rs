//! The zero-copy reader for C: segments as pointers and lengths into the
//! input, elements, repetitions and components split on demand.
//!
//! A reader runs the core's tokenizer ([`x12kit_core::Tokenizer`] over a whole
//! buffer, or [`x12kit_core::StreamTokenizer`] fed chunks). Splitting is the
//! core's too: `x12kit_element` and `x12kit_iter` carry the core's own
//! `Element` and iterator values in their private words, so C sees exactly
//! what Rust sees, without allocating.

use crate::diagnostics::{OwnedDiagnostic, x12kit_diagnostic};
use crate::error::{Failure, bytes, call, free_box, guard, out, x12kit_error, x12kit_status};
use std::mem::{align_of, needs_drop, size_of};
use x12kit_core::segment::{Elements, Parts};
use x12kit_core::{Delimiters, Element, Pull, Segment, StreamTokenizer, Token, Tokenizer};

/// The separators of one interchange, read from its ISA segment.
///
/// Ownership, lifetime, thread safety: plain data without pointers, copied
/// freely.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct x12kit_delimiters {
    /// Separates elements (ISA byte 3), commonly `*`.
    pub element: u8,
    /// Separates the components of a composite element (ISA16), commonly `:` or `>`.
    pub component: u8,
    /// Separates repetitions (ISA11, from version 00402); meaningful only when
    /// `has_repetition` is true.
    pub repetition: u8,
    /// False for interchanges without a repetition separator (before 00402).
    pub has_repetition: bool,
    /// Ends a segment (ISA byte 105), commonly `~`.
    pub segment: u8,
}

impl From<Delimiters> for x12kit_delimiters {
    fn from(d: Delimiters) -> Self {
        x12kit_delimiters {
            element: d.element,
            component: d.component,
            repetition: d.repetition.unwrap_or(0),
            has_repetition: d.repetition.is_some(),
            segment: d.segment,
        }
    }
}

impl From<x12kit_delimiters> for Delimiters {
    fn from(d: x12kit_delimiters) -> Self {
        Delimiters {
            element: d.element,
            component: d.component,
            repetition: d.has_repetition.then_some(d.repetition),
            segment: d.segment,
        }
    }
}

/// One segment: a view into the input, filled by `x12kit_reader_next`.
///
/// Lifetime: `data` points into the buffer given to `x12kit_reader_new` (valid
/// as long as that buffer) or, for a streaming reader, into the reader's own
/// buffer (valid until the next call on that reader: next, feed, finish or
/// free). Copy the bytes to keep them longer. The struct itself is plain data:
/// copy it freely while `data` is valid.
///
/// Ownership: the struct is the caller's; the bytes are not (never free them).
/// Thread safety: plain data; the bytes may be read from any thread while they
/// are valid.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct x12kit_segment {
    /// The segment's bytes: identifier and elements, terminator excluded. Not NUL-terminated.
    pub data: *const u8,
    /// Number of bytes at `data`.
    pub len: usize,
    /// Length of the identifier (`ISA`, `N1`, ...), which is `data[0..id_len]`.
    pub id_len: usize,
    /// Byte offset of the segment's first byte in the whole input.
    pub offset: usize,
    /// 0-based position of the segment in the input, counting every segment.
    pub index: usize,
    /// False for a last segment that ended with the input instead of a terminator.
    pub terminated: bool,
    /// The delimiters of the interchange the segment belongs to.
    pub delimiters: x12kit_delimiters,
}

/// One element, repetition or component: a view into the same bytes as the
/// segment it came from, with the same lifetime.
///
/// `data[0..len]` are its bytes (not NUL-terminated; `len` may be 0).
/// `_private` holds what x12kit needs to split it further: leave it alone,
/// and only pass elements that x12kit filled to `x12kit_element_*` functions
/// (a zeroed element is safe and has no components).
///
/// Ownership: the struct is the caller's (on the stack; nothing to free); the
/// bytes are not. Thread safety: plain data, like the segment it came from.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct x12kit_element {
    /// The first byte (never NUL-terminated).
    pub data: *const u8,
    /// Number of bytes.
    pub len: usize,
    /// Private to x12kit.
    pub _private: [u64; 4],
}

/// An iterator over the elements of a segment, or the repetitions or
/// components of an element. Lives on the caller's stack; nothing to free.
///
/// Start it with `x12kit_segment_elements`, `x12kit_element_repetitions` or
/// `x12kit_element_components`, then call `x12kit_iter_next` until it returns
/// false. A zeroed iterator yields nothing. Lifetime: as long as the segment's
/// bytes. Thread safety: plain data, owned by whoever holds it.
///
/// Ownership: the caller's; nothing to free.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct x12kit_iter {
    /// Private to x12kit.
    pub _private: [u64; 6],
}

/// Tags that mark private words as filled by x12kit ("x12kelem", "x12kiter").
const ELEMENT_TAG: u64 = u64::from_be_bytes(*b"x12kelem");
const ITER_TAG: u64 = u64::from_be_bytes(*b"x12kiter");

/// The core iterator an `x12kit_iter` holds.
#[derive(Debug, Clone)]
enum IterState<'a> {
    Elements(Elements<'a>),
    Parts(Parts<'a>),
    Done,
}

// The core values must fit the private words, and must not need dropping
// (C copies and forgets them freely).
const _: () = {
    assert!(size_of::<Element<'static>>() <= 3 * 8 && align_of::<Element<'static>>() <= 8);
    assert!(size_of::<IterState<'static>>() <= 5 * 8 && align_of::<IterState<'static>>() <= 8);
    assert!(!needs_drop::<Element<'static>>() && !needs_drop::<IterState<'static>>());
};

/// Stores `value` in `words[1..]` and the tag in `words[0]`.
fn stash<T>(words: &mut [u64], tag: u64, value: T) {
    assert!(size_of::<T>() <= (words.len() - 1) * 8);
    words[0] = tag;
    // SAFETY: the size was checked; u64 words are 8-aligned, and T's alignment is
    // at most 8 (checked above for the two types used).
    unsafe { std::ptr::write(words[1..].as_mut_ptr().cast::<T>(), value) }
}

/// The value [`stash`]ed in `words`, if the tag matches.
///
/// # Safety
/// A matching tag must mean that `words` was filled by `stash::<T>` with a
/// value whose borrowed bytes are still valid (the documented contract).
unsafe fn unstash<T>(words: &[u64], tag: u64) -> Option<T> {
    if words[0] != tag {
        return None;
    }
    // SAFETY: see above.
    Some(unsafe { std::ptr::read(words[1..].as_ptr().cast::<T>()) })
}

fn element_view(e: Element<'_>) -> x12kit_element {
    let mut el = x12kit_element {
        data: e.raw().as_ptr(),
        len: e.raw().len(),
        _private: [0; 4],
    };
    stash(&mut el._private, ELEMENT_TAG, e);
    el
}

fn segment_view(s: &Segment<'_>) -> x12kit_segment {
    x12kit_segment {
        data: s.raw().as_ptr(),
        len: s.raw().len(),
        id_len: s.id().len(),
        offset: s.offset(),
        index: s.index(),
        terminated: s.terminated(),
        delimiters: s.delimiters().into(),
    }
}

/// The core segment a C view describes (`None` for an unusable view).
///
/// # Safety
/// `seg` must be NULL or a view filled by x12kit whose bytes are still valid.
unsafe fn core_segment<'a>(seg: *const x12kit_segment) -> Option<Segment<'a>> {
    // SAFETY: forwarded to the caller.
    let seg = unsafe { seg.as_ref() }?;
    // SAFETY: as above.
    let raw = unsafe { bytes(seg.data, seg.len, "segment") }.ok()?;
    Some(Segment::new(
        raw,
        &[],
        seg.offset,
        seg.index,
        seg.delimiters.into(),
        seg.terminated,
    ))
}

/// # Safety
/// `el` must be NULL or an element filled by x12kit whose bytes are still valid (or zeroed).
unsafe fn core_element<'a>(el: *const x12kit_element) -> Option<Element<'a>> {
    // SAFETY: forwarded to the caller.
    let el = unsafe { el.as_ref() }?;
    // SAFETY: as above.
    unsafe { unstash::<Element<'a>>(&el._private, ELEMENT_TAG) }
}

fn start(it: *mut x12kit_iter, state: IterState<'_>) {
    // SAFETY: the caller passes NULL or a writable iterator.
    if let Some(it) = unsafe { it.as_mut() } {
        stash(&mut it._private, ITER_TAG, state);
    }
}

/// Starts `*it` over the elements of `seg` (those after the identifier, empty
/// ones included). An unusable `seg` gives an iterator that yields nothing.
///
/// Ownership: `*it` is the caller's; nothing to free. Lifetime: the iterator
/// and the elements it yields borrow the segment's bytes. Thread safety:
/// touches only `*it`.
///
/// # Safety
/// `seg` must be NULL or a segment filled by x12kit and still valid; `it` must
/// be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_segment_elements(seg: *const x12kit_segment, it: *mut x12kit_iter) {
    guard((), || {
        // SAFETY: forwarded to the caller.
        let state = match unsafe { core_segment(seg) } {
            Some(s) => IterState::Elements(s.elements()),
            None => IterState::Done,
        };
        start(it, state);
    })
}

/// Starts `*it` over the repetitions of `el` (one, when it does not repeat or
/// the interchange has no repetition separator).
///
/// Ownership: `*it` is the caller's; nothing to free. Lifetime: as long as the
/// element's bytes. Thread safety: touches only `*it`.
///
/// # Safety
/// `el` must be NULL, zeroed, or filled by x12kit and still valid; `it` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_element_repetitions(
    el: *const x12kit_element,
    it: *mut x12kit_iter,
) {
    guard((), || {
        // SAFETY: forwarded to the caller.
        let state = match unsafe { core_element(el) } {
            Some(e) => IterState::Parts(e.repetitions()),
            None => IterState::Done,
        };
        start(it, state);
    })
}

/// Starts `*it` over the components of `el` (one, for a simple element). For a
/// repeated element, iterate its repetitions first, then the components of each.
///
/// Ownership: `*it` is the caller's; nothing to free. Lifetime: as long as the
/// element's bytes. Thread safety: touches only `*it`.
///
/// # Safety
/// As for `x12kit_element_repetitions`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_element_components(
    el: *const x12kit_element,
    it: *mut x12kit_iter,
) {
    guard((), || {
        // SAFETY: forwarded to the caller.
        let state = match unsafe { core_element(el) } {
            Some(e) => IterState::Parts(e.components()),
            None => IterState::Done,
        };
        start(it, state);
    })
}

/// Fills `*out` with the next element, repetition or component and returns
/// true, or returns false when there are no more (or `it` or `out` is NULL).
///
/// Ownership: nothing to free. Lifetime: `*out` points into the segment's bytes
/// and is valid as long as they are. Thread safety: touches only `*it` and
/// `*out`.
///
/// # Safety
/// `it` must be NULL, zeroed, or started by x12kit over bytes that are still
/// valid; `out` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_iter_next(it: *mut x12kit_iter, out: *mut x12kit_element) -> bool {
    guard(false, || {
        // SAFETY: forwarded to the caller.
        let (Some(it), Some(out)) = (unsafe { it.as_mut() }, unsafe { out.as_mut() }) else {
            return false;
        };
        // SAFETY: a matching tag means x12kit stored the state; the bytes are
        // valid by the documented contract.
        let Some(mut state) = (unsafe { unstash::<IterState<'_>>(&it._private, ITER_TAG) }) else {
            return false;
        };
        let next = match &mut state {
            IterState::Elements(e) => e.next(),
            IterState::Parts(p) => p.next(),
            IterState::Done => None,
        };
        stash(&mut it._private, ITER_TAG, state);
        match next {
            Some(e) => {
                *out = element_view(e);
                true
            }
            None => false,
        }
    })
}

/// Number of elements after the identifier, empty trailing ones included (0
/// for NULL or an unusable segment).
///
/// Ownership, lifetime: a plain value; nothing changes hands. Thread safety:
/// reads only the segment's bytes.
///
/// # Safety
/// `seg` must be NULL or a segment filled by x12kit and still valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_segment_element_count(seg: *const x12kit_segment) -> usize {
    // SAFETY: forwarded to the caller.
    guard(0, || {
        unsafe { core_segment(seg) }.map_or(0, |s| s.element_count())
    })
}

/// Fills `*out` with element `n`, 1-based as in X12 (`n` = 3 is BEG03), and
/// returns true; returns false when the segment has fewer elements, `n` is 0,
/// or an argument is NULL. Each call scans from the start of the segment: to
/// visit every element, use `x12kit_segment_elements`.
///
/// Ownership: nothing to free. Lifetime: `*out` points into the segment's
/// bytes. Thread safety: reads only the segment's bytes.
///
/// # Safety
/// `seg` must be NULL or a segment filled by x12kit and still valid; `out`
/// must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_segment_element(
    seg: *const x12kit_segment,
    n: usize,
    out: *mut x12kit_element,
) -> bool {
    guard(false, || {
        // SAFETY: forwarded to the caller.
        let (Some(s), Some(out)) = (unsafe { core_segment(seg) }, unsafe { out.as_mut() }) else {
            return false;
        };
        match s.element(n) {
            Some(e) => {
                *out = element_view(e);
                true
            }
            None => false,
        }
    })
}

/// Fills `*out` with component `n` (1-based) of `el` and returns true; false
/// when there is no such component or an argument is NULL or zeroed.
///
/// Ownership: nothing to free. Lifetime: `*out` points into the element's
/// bytes. Thread safety: reads only the element's bytes.
///
/// # Safety
/// `el` must be NULL, zeroed, or filled by x12kit and still valid; `out` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_element_component(
    el: *const x12kit_element,
    n: usize,
    out: *mut x12kit_element,
) -> bool {
    guard(false, || {
        // SAFETY: forwarded to the caller.
        let (Some(e), Some(out)) = (unsafe { core_element(el) }, unsafe { out.as_mut() }) else {
            return false;
        };
        match n.checked_sub(1).and_then(|i| e.components().nth(i)) {
            Some(c) => {
                *out = element_view(c);
                true
            }
            None => false,
        }
    })
}

/// True if `el` holds more than one repetition.
///
/// Ownership, lifetime: a plain value; nothing changes hands. Thread safety:
/// reads only the element's bytes.
///
/// # Safety
/// `el` must be NULL, zeroed, or filled by x12kit and still valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_element_is_repeated(el: *const x12kit_element) -> bool {
    // SAFETY: forwarded to the caller.
    guard(false, || {
        unsafe { core_element(el) }.is_some_and(|e| e.is_repeated())
    })
}

/// True if `el` (or one of its repetitions) is a composite, with components.
///
/// Ownership, lifetime: a plain value; nothing changes hands. Thread safety:
/// reads only the element's bytes.
///
/// # Safety
/// `el` must be NULL, zeroed, or filled by x12kit and still valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_element_is_composite(el: *const x12kit_element) -> bool {
    // SAFETY: forwarded to the caller.
    guard(false, || {
        unsafe { core_element(el) }.is_some_and(|e| e.is_composite())
    })
}

/// What `x12kit_reader_next` produced.
///
/// Ownership, lifetime, thread safety: a plain value, copied freely.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum x12kit_read {
    /// `*segment_out` holds the next segment.
    Segment = 0,
    /// `*diagnostic_out` holds a problem found while splitting the input (a
    /// BOM, data that is not X12, a bad segment identifier, ...).
    Diagnostic = 1,
    /// Streaming reader: feed more input with `x12kit_reader_feed`, or call
    /// `x12kit_reader_finish` at the end of the input, then call next again.
    NeedInput = 2,
    /// The input is finished and everything has been returned; later calls return END again.
    End = 3,
    /// An argument is unusable; the error object says which.
    Error = 4,
}

/// A tokenizer over a caller's buffer or over fed chunks.
///
/// Created by `x12kit_reader_new` (whole buffer, zero-copy) or
/// `x12kit_reader_new_stream` (chunks, bounded memory), freed with
/// `x12kit_reader_free`. Thread safety: not synchronised; use a reader from
/// one thread at a time (it may be moved between threads). Separate readers
/// are independent.
///
/// Ownership: the caller's, from `x12kit_reader_new*` until
/// `x12kit_reader_free`. Lifetime: see `x12kit_reader_new` (the buffer must
/// outlive the reader) and `x12kit_segment`.
#[derive(Debug)]
pub struct x12kit_reader {
    source: Source,
    /// The diagnostic last handed out, kept alive until the next call.
    diagnostic: Option<OwnedDiagnostic>,
}

#[derive(Debug)]
enum Source {
    /// Borrows the caller's buffer; the lifetime is the caller's promise.
    Buffer(Tokenizer<'static>),
    Stream {
        tokens: StreamTokenizer,
        finished: bool,
    },
}

fn give_reader(reader_out: *mut *mut x12kit_reader, source: Source) -> Result<(), Failure> {
    // SAFETY: checked non-NULL by the callers.
    let reader_out = unsafe { out(reader_out, "reader_out") }?;
    *reader_out = Box::into_raw(Box::new(x12kit_reader {
        source,
        diagnostic: None,
    }));
    Ok(())
}

/// Creates a zero-copy reader over a whole input held in memory.
///
/// Lifetime: `input[0..input_len]` is not copied: the reader, and every segment and
/// element it returns, point into it, so the buffer must stay valid and
/// unchanged until the reader is freed and the views are no longer used.
/// Segment views stay valid as long as the buffer (freeing the reader does not
/// invalidate them). On success `*reader_out` receives the reader (free with
/// `x12kit_reader_free`); on failure it is set to NULL.
///
/// Thread safety: the new reader is used by one thread at a time; several
/// readers may share one buffer. Ownership: the reader is the caller's; the
/// buffer stays the caller's.
///
/// # Safety
/// `input` must point to `input_len` readable bytes (or be NULL with length
/// 0) that outlive the reader and its views; `reader_out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_reader_new(
    input: *const u8,
    input_len: usize,
    reader_out: *mut *mut x12kit_reader,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        *unsafe { out(reader_out, "reader_out") }? = std::ptr::null_mut();
        // SAFETY: the caller keeps the buffer alive and unchanged while the
        // reader and its views are used (documented above).
        let input: &'static [u8] = unsafe { bytes(input, input_len, "input") }?;
        give_reader(reader_out, Source::Buffer(Tokenizer::new(input)))
    })
}

/// Creates a streaming reader: feed it chunks of any size (down to one byte)
/// with `x12kit_reader_feed`, and call `x12kit_reader_finish` after the last.
///
/// It yields exactly the segments and diagnostics of `x12kit_reader_new` over
/// the concatenated input, with offsets counted from the start of the whole
/// input, and holds only the bytes of the segment it has not finished (memory
/// is bounded by the longest segment plus one chunk). Segment views point into
/// the reader and are valid until the next call on it. On success
/// `*reader_out` receives the reader (free with `x12kit_reader_free`).
///
/// Ownership: the reader is the caller's. Lifetime: until `x12kit_reader_free`.
/// Thread safety: the new reader is used by one thread at a time.
///
/// # Safety
/// `reader_out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_reader_new_stream(
    reader_out: *mut *mut x12kit_reader,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        give_reader(
            reader_out,
            Source::Stream {
                tokens: StreamTokenizer::new(),
                finished: false,
            },
        )
    })
}

/// Gives a streaming reader the next chunk of input. The chunk is copied: the
/// caller may reuse its memory as soon as the call returns. A zero-length
/// chunk is allowed and does nothing.
///
/// Errors: `X12KIT_STATUS_INVALID_ARGUMENT` for a whole-buffer reader or after
/// `x12kit_reader_finish`; `X12KIT_STATUS_NULL_POINTER`. Invalidates the
/// views returned so far by this reader.
///
/// Ownership: the chunk stays the caller's (it is copied). Lifetime: x12kit
/// keeps no pointer to the chunk. Thread safety: not concurrently with another
/// call on the same reader.
///
/// # Safety
/// `reader` must be NULL or a live reader; `chunk` must point to `chunk_len`
/// readable bytes (or be NULL with length 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_reader_feed(
    reader: *mut x12kit_reader,
    chunk: *const u8,
    chunk_len: usize,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let reader = unsafe { out(reader, "reader") }?;
        // SAFETY: forwarded to the caller.
        let chunk = unsafe { bytes(chunk, chunk_len, "chunk") }?;
        match &mut reader.source {
            Source::Buffer(_) => Err(Failure::argument(
                "this reader reads the buffer given to x12kit_reader_new and cannot be fed; create it with x12kit_reader_new_stream to feed chunks",
            )),
            Source::Stream { finished: true, .. } => Err(Failure::argument(
                "x12kit_reader_finish was already called on this reader: no input may follow the end",
            )),
            Source::Stream { tokens, .. } => {
                reader.diagnostic = None;
                tokens.feed(chunk);
                Ok(())
            }
        }
    })
}

/// Declares the end of a streaming reader's input, so it can return the last
/// segment (even one without a terminator) and then END. Calling it again, or
/// on a whole-buffer reader, does nothing.
///
/// Ownership, lifetime: nothing changes hands; views returned before this call
/// become invalid. Thread safety: not concurrently with another call on the
/// same reader.
///
/// # Safety
/// `reader` must be NULL or a live reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_reader_finish(
    reader: *mut x12kit_reader,
    err: *mut x12kit_error,
) -> x12kit_status {
    call(err, || {
        // SAFETY: forwarded to the caller.
        let reader = unsafe { out(reader, "reader") }?;
        if let Source::Stream { tokens, finished } = &mut reader.source {
            tokens.finish();
            *finished = true;
        }
        Ok(())
    })
}

/// Reads the next segment or diagnostic.
///
/// Returns `X12KIT_READ_SEGMENT` with `*segment_out` filled, or
/// `X12KIT_READ_DIAGNOSTIC` with `*diagnostic_out` filled, or
/// `X12KIT_READ_NEED_INPUT` (streaming reader only), or `X12KIT_READ_END`, or
/// `X12KIT_READ_ERROR` with `err` filled (a NULL `reader` or `segment_out`).
/// Pass NULL as `diagnostic_out` to skip diagnostics and get only segments.
///
/// Lifetimes: see `x12kit_segment`; the strings of a diagnostic are valid
/// until the next call on the reader. Allocates nothing for segments.
///
/// Ownership: nothing to free; `*segment_out` and `*diagnostic_out` borrow (see
/// above). Thread safety: not concurrently with another call on the same
/// reader.
///
/// # Safety
/// `reader` must be NULL or a live reader whose input is still valid;
/// `segment_out` and `diagnostic_out` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_reader_next(
    reader: *mut x12kit_reader,
    segment_out: *mut x12kit_segment,
    diagnostic_out: *mut x12kit_diagnostic,
    err: *mut x12kit_error,
) -> x12kit_read {
    let mut result = x12kit_read::Error;
    call(err, || {
        // SAFETY: forwarded to the caller.
        let reader = unsafe { out(reader, "reader") }?;
        // SAFETY: forwarded to the caller.
        let segment_out = unsafe { out(segment_out, "segment_out") }?;
        // SAFETY: forwarded to the caller.
        let diagnostic_out = unsafe { diagnostic_out.as_mut() };
        reader.diagnostic = None;
        result = next(reader, segment_out, diagnostic_out);
        Ok(())
    });
    result
}

fn next(
    reader: &mut x12kit_reader,
    segment_out: &mut x12kit_segment,
    mut diagnostic_out: Option<&mut x12kit_diagnostic>,
) -> x12kit_read {
    loop {
        let token = match &mut reader.source {
            Source::Buffer(t) => match t.next() {
                Some(token) => token,
                None => return x12kit_read::End,
            },
            Source::Stream { tokens, .. } => match tokens.next() {
                Pull::Token(token) => token,
                Pull::NeedInput => return x12kit_read::NeedInput,
                Pull::End => return x12kit_read::End,
            },
        };
        match token {
            Token::Segment(s) => {
                *segment_out = segment_view(&s);
                return x12kit_read::Segment;
            }
            Token::Diagnostic(d) => {
                if let Some(out) = diagnostic_out.as_deref_mut() {
                    let owned = reader.diagnostic.insert(OwnedDiagnostic::new(&d));
                    *out = owned.view();
                    return x12kit_read::Diagnostic;
                }
            }
        }
    }
}

/// Frees a reader; NULL is ignored. Views into a streaming reader become
/// invalid; views from a whole-buffer reader stay valid with their buffer.
///
/// Ownership: takes back the reader. Lifetime: the reader is invalid afterwards
/// (views of a whole-buffer reader stay valid with their buffer). Thread
/// safety: once, when no other thread uses the reader.
///
/// # Safety
/// `reader` must be NULL or a reader from x12kit not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn x12kit_reader_free(reader: *mut x12kit_reader) {
    // SAFETY: the caller passes NULL or a handle x12kit boxed, not freed before.
    unsafe { free_box(reader) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::{null, null_mut};

    const SAMPLE: &[u8] = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000001*0*T*:~\nGS*PO*S*R*20230101*1200*1*X*005010~\nST*850*0001~\nBEG*00*SA*PO1**20230101~\nSV1*HC:99213:25*100**UN*1***1:2^3:4*~\nSE*4*0001~\nGE*1*1~\nIEA*1*000000001~\n";

    fn s(e: &x12kit_element) -> &[u8] {
        if e.len == 0 {
            return b"";
        }
        // SAFETY: x12kit filled the element over a live buffer.
        unsafe { std::slice::from_raw_parts(e.data, e.len) }
    }

    /// Every element, repetition and component, through the C functions.
    fn walk_c(seg: &x12kit_segment) -> Vec<Vec<Vec<Vec<u8>>>> {
        let mut out = Vec::new();
        let mut it = x12kit_iter { _private: [0; 6] };
        let mut el = x12kit_element {
            data: null(),
            len: 0,
            _private: [0; 4],
        };
        // SAFETY: live views over SAMPLE.
        unsafe {
            x12kit_segment_elements(seg, &mut it);
            while x12kit_iter_next(&mut it, &mut el) {
                let mut reps = Vec::new();
                let mut rit = x12kit_iter { _private: [0; 6] };
                let mut rep = el;
                x12kit_element_repetitions(&el, &mut rit);
                while x12kit_iter_next(&mut rit, &mut rep) {
                    let mut comps = Vec::new();
                    let mut cit = x12kit_iter { _private: [0; 6] };
                    let mut c = rep;
                    x12kit_element_components(&rep, &mut cit);
                    while x12kit_iter_next(&mut cit, &mut c) {
                        comps.push(s(&c).to_vec());
                    }
                    reps.push(comps);
                }
                out.push(reps);
            }
        }
        out
    }

    fn walk_core(seg: &Segment<'_>) -> Vec<Vec<Vec<Vec<u8>>>> {
        seg.elements()
            .map(|e| {
                e.repetitions()
                    .map(|r| r.components().map(|c| c.raw().to_vec()).collect())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn c_views_split_exactly_like_the_core() {
        let mut reader = null_mut();
        // SAFETY: SAMPLE is static.
        unsafe {
            assert_eq!(
                x12kit_reader_new(SAMPLE.as_ptr(), SAMPLE.len(), &mut reader, null_mut()),
                x12kit_status::Ok
            );
        }
        let core: Vec<_> = x12kit_core::segments(SAMPLE).collect();
        let mut seg = segment_view(&core[0]);
        let mut n = 0;
        // SAFETY: live reader over SAMPLE.
        while unsafe { x12kit_reader_next(reader, &mut seg, null_mut(), null_mut()) }
            == x12kit_read::Segment
        {
            let c = &core[n];
            assert_eq!(
                (seg.offset, seg.index, seg.len),
                (c.offset(), c.index(), c.raw().len())
            );
            assert_eq!(seg.id_len, c.id().len());
            assert_eq!(walk_c(&seg), walk_core(c), "segment {n}");
            // SAFETY: live view.
            assert_eq!(
                unsafe { x12kit_segment_element_count(&seg) },
                c.element_count()
            );
            n += 1;
        }
        assert_eq!(n, core.len());
        // SAFETY: from x12kit_reader_new.
        unsafe { x12kit_reader_free(reader) };
    }

    #[test]
    fn zeroed_and_null_views_are_harmless() {
        let zero_el = x12kit_element {
            data: null(),
            len: 0,
            _private: [0; 4],
        };
        let mut it = x12kit_iter { _private: [0; 6] };
        let mut out = zero_el;
        // SAFETY: zeroed and NULL arguments are documented as allowed.
        unsafe {
            assert!(!x12kit_iter_next(&mut it, &mut out));
            x12kit_element_components(&zero_el, &mut it);
            assert!(!x12kit_iter_next(&mut it, &mut out));
            assert!(!x12kit_iter_next(null_mut(), &mut out));
            assert!(!x12kit_element_is_composite(&zero_el));
            assert!(!x12kit_element_component(&zero_el, 1, &mut out));
            x12kit_segment_elements(null(), &mut it);
            assert!(!x12kit_iter_next(&mut it, &mut out));
            assert_eq!(x12kit_segment_element_count(null()), 0);
            assert!(!x12kit_segment_element(null(), 1, &mut out));
        }
    }
}
