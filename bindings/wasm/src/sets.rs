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
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use x12kit::json::{EachSetFeeder, JsonOptions};
use x12kit::ops::{Part, SplitFeeder, SplitOptions};

thread_local! {
    /// The panic of `__panicInStreamForTests`, taken by the next step that reads a chunk.
    pub static PANIC_FOR_TESTS: RefCell<Option<String>> = const { RefCell::new(None) };
}

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
    Part(Box<Part>),
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
    pending: Rc<Cell<usize>>,
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

/// Runs `f` with the outcome of `p` once it has settled, fulfilled or
/// rejected (`Promise.allSettled([p])`'s `{status, value | reason}`):
/// the promise returned settles as `f` returns (a promise it returns is
/// adopted), or rejects with what it throws. The step runs as a promise
/// reaction, not in a task queue: a panic inside it (the hook throws the
/// `INTERNAL` error out of the wasm frames) rejects the promise returned,
/// where a task of wasm-bindgen-futures would have thrown it into the
/// event loop and left the promise pending forever.
fn after(p: &JsValue, f: impl FnOnce(JsValue) -> Result<JsValue> + 'static) -> Result<Promise> {
    let settled = Promise::all_settled(&js_sys::Array::of1(p));
    let step = Closure::once_into_js(move |outcomes: JsValue| -> Result<JsValue> {
        f(Reflect::get_u32(&outcomes, 0)?)
    });
    let then = method(&settled, &"then".into())
        .ok_or_else(|| crate::error::internal("a promise without then()"))?;
    Ok(then.call1(&settled, &step)?.unchecked_into())
}

/// What the iterator does next.
enum Step {
    /// Settles the `next()`.
    Done(Result<JsValue>),
    /// Waits for a read of the source (a promise of `{done, value}`).
    Read(JsValue),
}

/// Hands over a set already read, or reads the input given whole, or
/// starts the next read of the source.
fn advance(inner: &Rc<RefCell<Inner>>) -> Step {
    loop {
        if let Some(r) = ready(inner) {
            return Step::Done(r);
        }
        let pull = {
            let mut i = inner.borrow_mut();
            match &mut i.source {
                Source::Done => return Step::Done(step_result(&JsValue::UNDEFINED, true)),
                Source::Bytes(b) => Err(b.take()),
                Source::Pull { target, method } => Ok(method.call0(target)),
            }
        };
        match pull {
            Err(bytes) => {
                if let Err(e) = feed(inner, bytes) {
                    return Step::Done(Err(e));
                }
            }
            Ok(Ok(read)) => return Step::Read(read),
            Ok(Err(e)) => {
                end(inner);
                return Step::Done(Err(e));
            }
        }
    }
}

/// The next `{value, done}`: a set read already, or a promise of it that
/// reads the source until a set is ready or the input ends. `pending`
/// counts down when it settles.
fn next_step(inner: Rc<RefCell<Inner>>, pending: Rc<Cell<usize>>) -> Result<JsValue> {
    let read = match advance(&inner) {
        Step::Done(r) => {
            pending.set(pending.get() - 1);
            return r;
        }
        Step::Read(read) => read,
    };
    let count = pending.clone();
    let then = after(&read, move |got| {
        let chunk = match chunk_of(&got) {
            Ok(c) => c,
            Err((e, stop)) => {
                if stop {
                    cancel(&inner);
                } else {
                    end(&inner);
                }
                pending.set(pending.get() - 1);
                return Err(e);
            }
        };
        if let Err(e) = feed(&inner, chunk) {
            pending.set(pending.get() - 1);
            return Err(e);
        }
        next_step(inner, pending)
    });
    match then {
        Ok(p) => Ok(p.into()),
        Err(e) => {
            count.set(count.get() - 1);
            Err(e)
        }
    }
}

/// The chunk of a settled read (`None`: the end of the input), or why
/// not: the read failed (the source is done), or its value is not bytes
/// (`true`: the source is cancelled).
fn chunk_of(outcome: &JsValue) -> std::result::Result<Option<Vec<u8>>, (JsValue, bool)> {
    let get = |v: &JsValue, k: &str| Reflect::get(v, &k.into()).map_err(|e| (e, false));
    if get(outcome, "status")?.as_string().as_deref() != Some("fulfilled") {
        return Err((get(outcome, "reason")?, false));
    }
    let got = get(outcome, "value")?;
    if !got.is_object() {
        return Err((
            argument("the source's read() or next() did not give a {done, value} object"),
            true,
        ));
    }
    if get(&got, "done")?.is_truthy() {
        return Ok(None);
    }
    bytes_arg(&get(&got, "value")?, "chunk")
        .map(Some)
        .map_err(|e| (e, true))
}

/// Reads a chunk (`None`: the end of the input) into the reader: the sets
/// or parts it completes join the queue; at the end, the diagnostics.
fn feed(inner: &Rc<RefCell<Inner>>, chunk: Option<Vec<u8>>) -> Result<()> {
    if let Some(m) = PANIC_FOR_TESTS.with(|p| p.borrow_mut().take()) {
        panic!("{m}");
    }
    let Some(ended) = feed_reader(&mut inner.borrow_mut(), chunk) else {
        return Ok(());
    };
    let d = ended?;
    let js = serde_to_js(&d)?;
    let f = {
        let mut i = inner.borrow_mut();
        i.diagnostics = Some(d);
        i.on_diagnostics.take()
    };
    // Called with nothing borrowed: the callback may read the iterator.
    if let Some(f) = f {
        f.call1(&JsValue::UNDEFINED, &js)?;
    }
    Ok(())
}

/// [`feed`]'s reading: `Some` at the end of the input (the reader is
/// dropped), with the diagnostics or the error that ended it.
fn feed_reader(i: &mut Inner, chunk: Option<Vec<u8>>) -> Option<Result<Vec<x12kit::Diagnostic>>> {
    let Some(reader) = i.feeder.as_mut() else {
        i.source = Source::Done;
        return None;
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
            queue.extend(
                parts
                    .borrow_mut()
                    .drain(..)
                    .map(|p| Item::Part(Box::new(p))),
            );
            match r {
                Ok(None) => None,
                Ok(Some(d)) => Some(Ok(d)),
                Err(e) => Some(Err(crate::error::to_js(e))),
            }
        }
    };
    if ended.is_some() {
        i.feeder = None;
        i.source = Source::Done;
    }
    ended
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
                        // Handled (allSettled): nobody is told of its rejection.
                        let _ = Promise::all_settled(&js_sys::Array::of1(&p));
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
        let pending = self.pending.clone();
        let before = match pending.get() {
            0 => None,
            _ => self.last.borrow_mut().take(),
        };
        pending.set(pending.get() + 1);
        // After the last one (the caller sees that one's outcome; this one
        // goes on from it), or at once: either way as a promise reaction,
        // where a panic rejects it.
        let before = before.unwrap_or_else(|| Promise::resolve(&JsValue::UNDEFINED));
        let p = after(&before, move |_| next_step(inner, pending));
        let p = p.unwrap_or_else(|e| {
            self.pending.set(self.pending.get() - 1);
            Promise::reject(&e)
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

/// The `rebuildPart()` export: a part of `splitStream` made again from its
/// `recipe` and `bytes`, the input's bytes in the recipe's `ranges` one
/// after the other (`x12kit::ops::rebuild_part`), as `splitStream` gives it.
pub fn rebuild_part(recipe: &JsValue, bytes: &JsValue) -> Result<JsValue> {
    let r = recipe_arg(recipe)?;
    let bytes = bytes_arg(bytes, "bytes")?;
    let part = x12kit::ops::rebuild_part(&r, &bytes).map_err(crate::error::to_js)?;
    item_to_js(Item::Part(Box::new(part)))
}

/// A part's `recipe` as the core reads it (`ops::part_recipe`):
/// `INVALID_OPTIONS` at `/recipe` or the member under it, as in every
/// language; a value JSON cannot hold (`undefined`, a function) is not a
/// recipe either.
fn recipe_arg(recipe: &JsValue) -> Result<x12kit::ops::PartRecipe> {
    let text = js_sys::JSON::stringify(recipe)
        .ok()
        .and_then(|t| t.as_string());
    let value = match text {
        Some(t) => {
            serde_json::from_str(&t).map_err(|e| crate::error::to_js(x12kit::Error::internal(e)))?
        }
        None => serde_json::Value::Null,
    };
    x12kit::ops::part_recipe(value).map_err(crate::error::to_js)
}
