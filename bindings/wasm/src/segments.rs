//! `segments(input)`: a lazy iterator of segment views, as in the Node addon.
//!
//! The input is copied once into wasm memory (an `Rc<[u8]>` shared by the
//! iterator and every view). The core's tokenizer finds one segment per
//! `next()` call — nothing is built up front — and a [`Segment`] view keeps
//! only its position and delimiters: its identifier, text and elements are
//! read from that one copy when asked for (the core splits them).

use crate::convert::{bytes_arg, u64_arg};
use crate::error::{Result, argument};
use js_sys::{Object, Reflect};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use x12kit::{Delimiters, Pull, StreamTokenizer, Token};

/// How much of the input the tokenizer is given at a time (it keeps its own
/// buffer of what it has not tokenized yet, bounded by this plus the longest
/// segment).
const SLICE: usize = 64 * 1024;

thread_local! {
    /// Whether `SegmentIterator.prototype` inherits from `%IteratorPrototype%` yet.
    static ITERABLE: Cell<bool> = const { Cell::new(false) };
}

/// The iterator `segments()` returns: `next()` gives `{value: Segment, done}`;
/// it is iterable (`for…of`, spread) because its prototype inherits from the
/// built-in `%IteratorPrototype%` (whose `[Symbol.iterator]` returns `this`,
/// and which carries the iterator helpers where the engine has them).
#[wasm_bindgen(skip_typescript)]
#[derive(Debug)]
pub struct SegmentIterator {
    input: Rc<[u8]>,
    tokens: StreamTokenizer,
    fed: usize,
}

/// A lazy view of one segment of the input.
#[wasm_bindgen(skip_typescript)]
#[derive(Debug)]
pub struct Segment {
    input: Rc<[u8]>,
    start: usize,
    len: usize,
    id_len: usize,
    index: usize,
    delimiters: Delimiters,
    terminated: bool,
}

/// The iterator over the segments of `input` (copied once into wasm memory).
pub fn segments(input: &JsValue) -> Result<JsValue> {
    let input: Rc<[u8]> = bytes_arg(input, "input")?.into();
    let it: JsValue = SegmentIterator {
        input,
        tokens: StreamTokenizer::new(),
        fed: 0,
    }
    .into();
    if !ITERABLE.get() {
        // %IteratorPrototype% is the prototype of an array iterator's prototype.
        let array_iter: JsValue = js_sys::Array::new().values().into();
        let iterator_proto = Object::get_prototype_of(&Object::get_prototype_of(&array_iter));
        let proto = Object::get_prototype_of(&it);
        Object::set_prototype_of(&proto, &iterator_proto);
        ITERABLE.set(true);
    }
    Ok(it)
}

impl SegmentIterator {
    /// The next segment view, feeding the tokenizer from the input as needed.
    fn next_segment(&mut self) -> Option<Segment> {
        loop {
            match self.tokens.next() {
                Pull::Token(Token::Segment(s)) => {
                    return Some(Segment {
                        input: Rc::clone(&self.input),
                        start: s.offset(),
                        len: s.raw().len(),
                        id_len: s.id().len(),
                        index: s.index(),
                        delimiters: s.delimiters(),
                        terminated: s.terminated(),
                    });
                }
                Pull::Token(Token::Diagnostic(_)) => {}
                Pull::NeedInput => {
                    let end = self.input.len().min(self.fed + SLICE);
                    self.tokens.feed(&self.input[self.fed..end]);
                    self.fed = end;
                    if end == self.input.len() {
                        self.tokens.finish();
                    }
                }
                Pull::End => return None,
            }
        }
    }
}

#[wasm_bindgen]
impl SegmentIterator {
    /// The iterator protocol: `{value: Segment, done: false}`, then `{value: undefined, done: true}`.
    pub fn next(&mut self) -> Result<Object> {
        let r = Object::new();
        match self.next_segment() {
            Some(s) => {
                Reflect::set(&r, &"value".into(), &s.into())?;
                Reflect::set(&r, &"done".into(), &JsValue::FALSE)?;
            }
            None => {
                Reflect::set(&r, &"value".into(), &JsValue::UNDEFINED)?;
                Reflect::set(&r, &"done".into(), &JsValue::TRUE)?;
            }
        }
        Ok(r)
    }

    /// Consumes the remaining segments without making views; returns how many there were.
    #[wasm_bindgen(js_name = skipRest)]
    pub fn skip_rest(&mut self) -> f64 {
        let mut n = 0u64;
        while self.next_segment().is_some() {
            n += 1;
        }
        n as f64
    }
}

impl Segment {
    fn raw(&self) -> &[u8] {
        &self.input[self.start..self.start + self.len]
    }

    fn view(&self) -> x12kit::Segment<'_> {
        x12kit::Segment::new(
            self.raw(),
            &[],
            self.start,
            self.index,
            self.delimiters,
            self.terminated,
        )
    }

    fn element_at(&self, n: &JsValue) -> Result<Option<x12kit::Element<'_>>> {
        let n = u64_arg(n, "the element position")?;
        let n = usize::try_from(n)
            .map_err(|_| argument("the element position must be at most 2^32 - 1"))?;
        Ok(self.view().element(n))
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn strings<'a>(parts: impl Iterator<Item = x12kit::Element<'a>>) -> js_sys::Array {
    parts.map(|p| JsValue::from_str(&text(p.raw()))).collect()
}

#[wasm_bindgen]
impl Segment {
    /// The identifier (`ISA`, `BEG`, ...).
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        text(&self.raw()[..self.id_len])
    }

    /// The segment text, terminator excluded.
    #[wasm_bindgen(getter = raw)]
    pub fn raw_text(&self) -> String {
        text(self.raw())
    }

    /// 0-based position of the segment in the input.
    #[wasm_bindgen(getter)]
    pub fn index(&self) -> f64 {
        self.index as f64
    }

    /// Byte offset of the segment in the input.
    #[wasm_bindgen(getter)]
    pub fn offset(&self) -> f64 {
        self.start as f64
    }

    /// Bytes of the segment in the input, terminator excluded.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> f64 {
        self.len as f64
    }

    /// Element `n`, 1-based as in X12 (`element(1)` of `BEG*00*SA` is `'00'`); undefined past the last one.
    pub fn element(&self, n: &JsValue) -> Result<Option<String>> {
        Ok(self.element_at(n)?.map(|e| text(e.raw())))
    }

    /// The elements after the identifier.
    pub fn elements(&self) -> js_sys::Array {
        strings(self.view().elements())
    }

    /// The components of element `n` (one for a simple element; none past the last element).
    pub fn components(&self, n: &JsValue) -> Result<js_sys::Array> {
        Ok(match self.element_at(n)? {
            Some(e) => strings(e.components()),
            None => js_sys::Array::new(),
        })
    }

    /// The repetitions of element `n`.
    pub fn repetitions(&self, n: &JsValue) -> Result<js_sys::Array> {
        Ok(match self.element_at(n)? {
            Some(e) => strings(e.repetitions()),
            None => js_sys::Array::new(),
        })
    }

    /// `{id, index, offset, elements}` (what `JSON.stringify` writes).
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<Object> {
        let o = Object::new();
        Reflect::set(&o, &"id".into(), &self.id().into())?;
        Reflect::set(&o, &"index".into(), &self.index().into())?;
        Reflect::set(&o, &"offset".into(), &self.offset().into())?;
        Reflect::set(&o, &"elements".into(), &self.elements())?;
        Ok(o)
    }
}
