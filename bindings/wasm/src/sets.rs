//! `transactions(source, options)`: the transaction sets of a file of any
//! size, one at a time, as an async iterator, reading a `Blob`/`File` (its
//! `.stream()`), a `ReadableStream`, an (async) iterable of chunks or bytes
//! chunk by chunk into the core's push-fed set reader
//! (`x12kit::json::EachSetFeeder`). Nothing holds the input: the wasm memory
//! follows the largest set and the largest chunk. The objects are the Node
//! addon's and Python's (`{interchange, group, transaction, diagnostics}`).

use crate::convert::{bytes_arg, json_bytes_to_js, options_arg, serde_to_js, set};
use crate::error::{Result, argument};
use js_sys::{Function, Object, Promise, Reflect, Symbol};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{JsFuture, future_to_promise};
use x12kit::json::{EachSetFeeder, JsonOptions};
use x12kit::ops::{Part, SplitFeeder, SplitOptions};

/// Where a split over a stream puts its parts.
type Parts = Rc<RefCell<VecDeque<Part>>>;

/// What reads the chunks (boxed: the iterator holds one or the other).
enum Reader {
    /// `transactions()`: each set's object.
    Sets(Box<EachSetFeeder>),
    /// `splitStream()`: each part.
    Split(Box<SplitFeeder<'static>>, Parts),
}

/// What the iterator hands over next.
enum Item {
    Set(Vec<u8>),
    Part(Part),
}

/// Where the chunks come from.
enum Source {
    /// Something with `next()` or `read()` giving (a promise of)
    /// `{done, value}`: a `ReadableStreamDefaultReader` (`read`), an async
    /// or sync iterator (`next`).
    Pull { target: JsValue, method: Function },
    /// Bytes given whole: one chunk.
    Bytes(Option<Vec<u8>>),
    /// Read to the end, cancelled or failed.
    Done,
}

struct Inner {
    source: Source,
    /// `None` once finished (its memory freed).
    feeder: Option<Reader>,
    /// Sets or parts read but not handed over yet (a chunk may complete several).
    queue: VecDeque<Item>,
    diagnostics: Option<Vec<x12kit::Diagnostic>>,
    on_diagnostics: Option<Function>,
    read: f64,
    sets: f64,
}

/// The sets of `transactions()`: an async iterator (`for await`), with
/// `bytesRead` and `setsRead` for progress and, once it has ended,
/// `diagnostics` (every diagnostic of the input).
#[wasm_bindgen(skip_typescript)]
pub struct TransactionStream {
    inner: Rc<RefCell<Inner>>,
    /// The last `next()`'s promise: the next waits for it (calls in a row
    /// without awaiting get the sets in order).
    last: RefCell<Option<Promise>>,
    /// `next()` calls not settled yet.
    pending: Rc<std::cell::Cell<usize>>,
}

impl std::fmt::Debug for TransactionStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransactionStream").finish_non_exhaustive()
    }
}

/// `{value, done}`.
fn step_result(value: &JsValue, done: bool) -> Result<JsValue> {
    let o = Object::new();
    set(&o, "value", value)?;
    set(&o, "done", &JsValue::from_bool(done))?;
    Ok(o.into())
}

/// `v[key]` when it is a function.
fn method(v: &JsValue, key: &JsValue) -> Option<Function> {
    if !v.is_object() {
        return None;
    }
    Reflect::get(v, key).ok()?.dyn_into::<Function>().ok()
}

impl Source {
    fn of(source: &JsValue) -> Result<Source> {
        let read: JsValue = "read".into();
        // A ReadableStream: its reader. A Blob or File: its stream's reader.
        let stream = if let Some(get_reader) = method(source, &"getReader".into()) {
            Some((source.clone(), get_reader))
        } else if let (Some(stream), false) = (
            method(source, &"stream".into()),
            source.is_instance_of::<js_sys::Uint8Array>(),
        ) {
            let s = stream.call0(source)?;
            let get_reader = method(&s, &"getReader".into())
                .ok_or_else(|| argument("source.stream() did not return a ReadableStream"))?;
            Some((s, get_reader))
        } else {
            None
        };
        if let Some((s, get_reader)) = stream {
            let reader = get_reader.call0(&s)?;
            let method = method(&reader, &read)
                .ok_or_else(|| argument("the stream's reader has no read()"))?;
            return Ok(Source::Pull {
                target: reader,
                method,
            });
        }
        if source.is_string()
            || source.is_instance_of::<js_sys::Uint8Array>()
            || source.is_instance_of::<js_sys::ArrayBuffer>()
        {
            return Ok(Source::Bytes(Some(bytes_arg(source, "source")?)));
        }
        for key in [Symbol::async_iterator(), Symbol::iterator()] {
            if let Some(f) = method(source, &key) {
                let it = f.call0(source)?;
                let next = method(&it, &"next".into())
                    .ok_or_else(|| argument("the source's iterator has no next()"))?;
                return Ok(Source::Pull {
                    target: it,
                    method: next,
                });
            }
        }
        Err(argument(format!(
            "source must be a Blob or File, a ReadableStream, an (async) iterable of chunks, or X12 bytes or text; found {}",
            if source.is_null() {
                "null".into()
            } else {
                source.js_typeof().as_string().unwrap_or_default()
            }
        )))
    }
}

/// The next `{value, done}` when a set has been read already.
fn ready(inner: &Rc<RefCell<Inner>>) -> Option<Result<JsValue>> {
    let mut i = inner.borrow_mut();
    let item = i.queue.pop_front()?;
    i.sets += 1.0;
    Some(item_to_js(item).and_then(|v| step_result(&v, false)))
}

/// A set's object, or a part's (the `split` part with its bytes as `bytes`
/// instead of its text as `x12`).
fn item_to_js(item: Item) -> Result<JsValue> {
    match item {
        Item::Set(json) => json_bytes_to_js(&json),
        Item::Part(mut p) => {
            // The bytes only, not also as text (a part can be large).
            p.text = String::new();
            let o = serde_to_js(&p)?;
            Reflect::delete_property(o.unchecked_ref::<Object>(), &"x12".into())?;
            Reflect::set(&o, &"bytes".into(), &js_sys::Uint8Array::from(&p.x12[..]))?;
            Ok(o)
        }
    }
}

/// Reads the stream until a set is ready or the input ends: the next `{value, done}`.
async fn advance(inner: Rc<RefCell<Inner>>) -> Result<JsValue> {
    loop {
        if let Some(r) = ready(&inner) {
            return r;
        }
        let pull = {
            let mut i = inner.borrow_mut();
            match &mut i.source {
                Source::Done => return step_result(&JsValue::UNDEFINED, true),
                Source::Bytes(b) => Err(b.take()),
                Source::Pull { target, method } => Ok(method.call0(target)),
            }
        };
        let chunk = match pull {
            Err(bytes) => bytes,
            Ok(called) => {
                let got = match called {
                    Ok(v) => JsFuture::from(Promise::resolve(&v)).await,
                    Err(e) => Err(e),
                };
                let got = match got {
                    Ok(g) => g,
                    Err(e) => {
                        end(&inner);
                        return Err(e);
                    }
                };
                let done = Reflect::get(&got, &"done".into())?.is_truthy();
                if done {
                    None
                } else {
                    let value = Reflect::get(&got, &"value".into())?;
                    match bytes_arg(&value, "chunk") {
                        Ok(b) => Some(b),
                        Err(e) => {
                            cancel(&inner);
                            return Err(e);
                        }
                    }
                }
            }
        };
        let mut i = inner.borrow_mut();
        let i = &mut *i;
        let Some(reader) = i.feeder.as_mut() else {
            i.source = Source::Done;
            continue;
        };
        if let Some(bytes) = &chunk {
            i.read += bytes.len() as f64;
        }
        let queue = &mut i.queue;
        let ended = match reader {
            Reader::Sets(feeder) => {
                let mut each = |set: &[u8]| {
                    queue.push_back(Item::Set(set.to_vec()));
                    true
                };
                match &chunk {
                    Some(bytes) => {
                        feeder.feed(bytes, &mut each);
                        None
                    }
                    None => Some(Ok(feeder.finish(&mut each))),
                }
            }
            Reader::Split(feeder, parts) => {
                let r = match &chunk {
                    Some(bytes) => feeder.feed(bytes).map(|()| None),
                    None => feeder.finish().map(Some),
                };
                queue.extend(parts.borrow_mut().drain(..).map(Item::Part));
                match r {
                    Ok(None) => None,
                    Ok(Some(d)) => Some(Ok(d)),
                    Err(e) => Some(Err(crate::error::to_js(e))),
                }
            }
        };
        if let Some(end) = ended {
            i.feeder = None;
            i.source = Source::Done;
            let d = end?;
            if let Some(f) = i.on_diagnostics.take() {
                f.call1(&JsValue::UNDEFINED, &serde_to_js(&d)?)?;
            }
            i.diagnostics = Some(d);
        }
    }
}

/// The source failed: nothing more is read.
fn end(inner: &Rc<RefCell<Inner>>) {
    let mut i = inner.borrow_mut();
    i.source = Source::Done;
    i.feeder = None;
    i.queue.clear();
}

/// Stops reading: cancels the stream (`reader.cancel()`, `iterator.return()`).
fn cancel(inner: &Rc<RefCell<Inner>>) {
    let source = std::mem::replace(&mut inner.borrow_mut().source, Source::Done);
    end(inner);
    if let Source::Pull { target, .. } = source {
        for key in ["cancel", "return"] {
            if let Some(f) = method(&target, &key.into()) {
                // A rejected cancel has nothing to tell the caller who stopped.
                if let Ok(p) = f.call0(&target) {
                    if let Ok(p) = p.dyn_into::<Promise>() {
                        wasm_bindgen_futures::spawn_local(async move {
                            let _ = JsFuture::from(p).await;
                        });
                    }
                }
                break;
            }
        }
    }
}

#[wasm_bindgen]
impl TransactionStream {
    /// The next set: a promise of `{value, done}` (the async iterator protocol).
    pub fn next(&self) -> Promise {
        // A set already read and no read under way: no task needed.
        if self.pending.get() == 0 {
            if let Some(r) = ready(&self.inner) {
                return match r {
                    Ok(v) => Promise::resolve(&v),
                    Err(e) => Promise::reject(&e),
                };
            }
        }
        let inner = self.inner.clone();
        let before = match self.pending.get() {
            0 => None,
            _ => self.last.borrow_mut().take(),
        };
        let pending = self.pending.clone();
        pending.set(pending.get() + 1);
        let p = future_to_promise(async move {
            if let Some(b) = before {
                // The caller sees that one's outcome; this one goes on from it.
                let _ = JsFuture::from(b).await;
            }
            let r = advance(inner).await;
            pending.set(pending.get() - 1);
            r
        });
        *self.last.borrow_mut() = Some(p.clone());
        p
    }

    /// Stops reading (what `break` in `for await` calls): the stream is
    /// cancelled, the memory freed.
    #[wasm_bindgen(js_name = "return")]
    pub fn stop(&self) -> Promise {
        cancel(&self.inner);
        Promise::resolve(&step_result(&JsValue::UNDEFINED, true).unwrap_or(JsValue::UNDEFINED))
    }

    /// Bytes of the input read so far (for progress).
    #[wasm_bindgen(getter, js_name = bytesRead)]
    pub fn bytes_read(&self) -> f64 {
        self.inner.borrow().read
    }

    /// Sets (or parts) handed over so far.
    #[wasm_bindgen(getter, js_name = setsRead)]
    pub fn sets_read(&self) -> f64 {
        self.inner.borrow().sets
    }

    /// Every diagnostic of the input once the iteration has ended (`null` before).
    #[wasm_bindgen(getter)]
    pub fn diagnostics(&self) -> Result<JsValue> {
        match &self.inner.borrow().diagnostics {
            Some(d) => serde_to_js(d),
            None => Ok(JsValue::NULL),
        }
    }
}

/// The options of a stream reader less `onDiagnostics`, and that function
/// apart (not generic: the options are then read as `parse`'s and `split`'s are).
fn stream_options(options: &JsValue) -> Result<(JsValue, Option<Function>)> {
    let mut on_diagnostics = None;
    let mut options = options.clone();
    if options.is_object() && !js_sys::Array::is_array(&options) {
        let f = Reflect::get(&options, &"onDiagnostics".into())?;
        if !f.is_undefined() {
            on_diagnostics = Some(
                f.dyn_into::<Function>()
                    .map_err(|_| argument("onDiagnostics must be a function"))?,
            );
            let copy = Object::assign(&Object::new(), options.unchecked_ref());
            Reflect::delete_property(&copy, &"onDiagnostics".into())?;
            options = copy.into();
        }
    }
    Ok((options, on_diagnostics))
}

/// The iterator over `source` read by `reader`.
fn stream(source: &JsValue, reader: Reader, on_diagnostics: Option<Function>) -> Result<JsValue> {
    let source = Source::of(source)?;
    let stream = JsValue::from(TransactionStream {
        inner: Rc::new(RefCell::new(Inner {
            source,
            feeder: Some(reader),
            queue: VecDeque::new(),
            diagnostics: None,
            on_diagnostics,
            read: 0.0,
            sets: 0.0,
        })),
        last: RefCell::new(None),
        pending: Rc::default(),
    });
    // `for await` asks for `[Symbol.asyncIterator]()`, which returns the
    // stream itself: `Object.prototype.valueOf` returns its `this`, set once
    // on the class's prototype (wasm-bindgen cannot name a symbol method).
    let proto = Reflect::get_prototype_of(&stream)?;
    let key: JsValue = Symbol::async_iterator().into();
    if !Reflect::has(&proto, &key)? {
        let value_of = Reflect::get(&Object::new(), &"valueOf".into())?;
        Reflect::set(&proto, &key, &value_of)?;
    }
    Ok(stream)
}

/// The `transactions()` export (see the module docs).
pub fn transactions(source: &JsValue, options: &JsValue) -> Result<JsValue> {
    let (options, on_diagnostics) = stream_options(options)?;
    let o: JsonOptions = options_arg(&options)?;
    stream(
        source,
        Reader::Sets(Box::new(EachSetFeeder::new(&o))),
        on_diagnostics,
    )
}

/// The `splitStream()` export: the parts of `split` over a stream, each as
/// soon as it is complete (the core's `SplitFeeder`).
pub fn split_stream(source: &JsValue, options: &JsValue) -> Result<JsValue> {
    let (options, on_diagnostics) = stream_options(options)?;
    let o: SplitOptions = options_arg(&options)?;
    let parts: Parts = Rc::default();
    let into = parts.clone();
    let each = move |p| {
        into.borrow_mut().push_back(p);
        Ok(())
    };
    let feeder = SplitFeeder::new(&o, each).map_err(crate::error::to_js)?;
    stream(
        source,
        Reader::Split(Box::new(feeder), parts),
        on_diagnostics,
    )
}
