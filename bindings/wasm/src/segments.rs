//! `segments(input)`: a lazy iterator of segment views, as in the Node addon.
//!
//! Memory: wasm memory cannot shrink, and wasm-bindgen frees the Rust side
//! of an exported object only from a `FinalizationRegistry` callback, which
//! never runs inside a synchronous loop. So nothing here keeps wasm memory
//! past the iteration:
//!
//! - the input is copied once into JS memory (a `Uint8Array`; a string is
//!   encoded), never whole into wasm memory: the core's tokenizer is fed
//!   64 KiB slices of it as the iterator advances;
//! - a segment view is a plain JS object (its `id`, `index`, `offset`,
//!   `length`, and the input and delimiters under symbol keys) whose
//!   prototype's methods call into the core with the segment's bytes: the
//!   garbage collector frees it like any object;
//! - the iterator frees its tokenizer and lets go of the input as soon as it
//!   is done, or stopped early (`return()`, which `for…of` calls on `break`).
//!
//! The prototype's methods are `Proxy` objects whose `apply` trap receives
//! the view as `thisArg`; the traps are static methods of the iterator's
//! class (exported functions, behind wasm-bindgen's call guard): no
//! JavaScript source is evaluated (the page's CSP forbids it), and since a
//! view holds no wasm state, it keeps working after a panic reset the module.

use crate::convert::{bytes_arg, u64_arg};
use crate::error::{Result, argument};
use js_sys::{Array, Object, Proxy, Reflect, Uint8Array};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use wasm_bindgen::prelude::*;
use x12kit::{Delimiters, Pull, StreamTokenizer, Token};

#[wasm_bindgen]
extern "C" {
    // `Reflect.set` and `Object.create` with typed arguments: a number goes
    // across as a number (no JS value made and dropped for it), so that a
    // view costs a few calls into JS rather than a few dozen.
    #[wasm_bindgen(js_namespace = Reflect, js_name = set)]
    fn set_number(target: &Object, key: &JsValue, value: f64) -> bool;
    #[wasm_bindgen(js_namespace = Reflect, js_name = set)]
    fn set_value(target: &Object, key: &JsValue, value: &JsValue) -> bool;
    #[wasm_bindgen(js_namespace = Reflect, js_name = set)]
    fn set_bool(target: &Object, key: &JsValue, value: bool) -> bool;
    #[wasm_bindgen(js_namespace = Object, js_name = create)]
    fn create(proto: &Object) -> Object;
}

/// How much of the input the tokenizer is given at a time (it keeps its own
/// buffer of what it has not tokenized yet, bounded by this plus the longest
/// segment).
const SLICE: usize = 64 * 1024;

/// The distinct identifiers whose JS strings are kept (a file has a few dozen).
const IDS: usize = 4096;

thread_local! {
    /// Whether `SegmentIterator.prototype` inherits from `%IteratorPrototype%` yet.
    static ITERABLE: Cell<bool> = const { Cell::new(false) };
    /// The prototype of the views, made on first use.
    static PROTO: RefCell<Option<Object>> = const { RefCell::new(None) };
    /// Property keys, made once.
    static KEYS: Keys = Keys::new();
    /// Identifier strings by their bytes.
    static ID_STRINGS: RefCell<HashMap<Vec<u8>, JsValue>> = RefCell::new(HashMap::new());
}

struct Keys {
    id: JsValue,
    index: JsValue,
    offset: JsValue,
    length: JsValue,
    value: JsValue,
    done: JsValue,
    /// The view's input (`Uint8Array`), under a symbol key (not listed by `Object.keys`, JSON).
    input: JsValue,
    /// The view's delimiters and terminated flag, packed in one number.
    packed: JsValue,
}

impl Keys {
    fn new() -> Self {
        Keys {
            id: "id".into(),
            index: "index".into(),
            offset: "offset".into(),
            length: "length".into(),
            value: "value".into(),
            done: "done".into(),
            // `Symbol.for`: the same keys in a module re-instantiated after a
            // panic, so that views made before it keep working.
            input: js_sys::Symbol::for_("x12kit.segment.input").into(),
            packed: js_sys::Symbol::for_("x12kit.segment.delimiters").into(),
        }
    }
}

/// The iterator `segments()` returns: `next()` gives `{value: Segment, done}`;
/// it is iterable (`for…of`, spread) because its prototype inherits from the
/// built-in `%IteratorPrototype%` (whose `[Symbol.iterator]` returns `this`,
/// and which carries the iterator helpers where the engine has them).
#[wasm_bindgen(skip_typescript)]
#[derive(Debug)]
pub struct SegmentIterator {
    /// `None` once done or stopped: nothing is kept then.
    cursor: Option<Box<Cursor>>,
}

#[derive(Debug)]
struct Cursor {
    /// The copy of the input in JS memory that the views share.
    input: Uint8Array,
    len: usize,
    tokens: StreamTokenizer,
    fed: usize,
    /// The slice being fed (reused).
    scratch: Vec<u8>,
    /// The views' prototype (looked up once per iteration).
    proto: Option<Object>,
}

/// The input as a `Uint8Array` in JS memory (a copy: the caller may change
/// theirs; a string is encoded as UTF-8).
fn input_copy(input: &JsValue) -> Result<Uint8Array> {
    if input.is_string() {
        let bytes = bytes_arg(input, "input")?;
        return Ok(Uint8Array::from(&bytes[..]));
    }
    crate::convert::js_copy(input, "input").map(JsCast::unchecked_into)
}

/// The iterator over the segments of `input`.
pub fn segments(input: &JsValue) -> Result<JsValue> {
    let input = input_copy(input)?;
    let len = input.length() as usize;
    let it: JsValue = SegmentIterator {
        cursor: Some(Box::new(Cursor {
            input,
            len,
            tokens: StreamTokenizer::new(),
            fed: 0,
            scratch: Vec::new(),
            proto: None,
        })),
    }
    .into();
    if !ITERABLE.get() {
        // %IteratorPrototype% is the prototype of an array iterator's prototype.
        let array_iter: JsValue = Array::new().values().into();
        let iterator_proto = Object::get_prototype_of(&Object::get_prototype_of(&array_iter));
        let proto = Object::get_prototype_of(&it);
        Object::set_prototype_of(&proto, &iterator_proto);
        ITERABLE.set(true);
    }
    if PROTO.with(|p| p.borrow().is_none()) {
        let class = Reflect::get(&Object::get_prototype_of(&it), &"constructor".into())?;
        let p = make_proto(&class)?;
        PROTO.with(|cell| *cell.borrow_mut() = Some(p));
    }
    Ok(it)
}

/// What a view needs to rebuild the core's view of its segment.
struct Found {
    start: usize,
    len: usize,
    /// The identifier's bytes (up to 3; longer ones are not X12 identifiers
    /// and are read from the input).
    id: [u8; 3],
    id_len: usize,
    index: usize,
    delimiters: Delimiters,
    terminated: bool,
}

impl Cursor {
    /// The next segment, feeding the tokenizer from the input as needed.
    fn next_segment(&mut self) -> Option<Found> {
        loop {
            match self.tokens.next() {
                Pull::Token(Token::Segment(s)) => {
                    let mut id = [0u8; 3];
                    let n = s.id().len().min(3);
                    id[..n].copy_from_slice(&s.id()[..n]);
                    return Some(Found {
                        start: s.offset(),
                        len: s.raw().len(),
                        id,
                        id_len: s.id().len(),
                        index: s.index(),
                        delimiters: s.delimiters(),
                        terminated: s.terminated(),
                    });
                }
                Pull::Token(Token::Diagnostic(_)) => {}
                Pull::NeedInput => {
                    let end = self.len.min(self.fed + SLICE);
                    self.scratch.resize(end - self.fed, 0);
                    self.input
                        .subarray(self.fed as u32, end as u32)
                        .copy_to(&mut self.scratch);
                    self.tokens.feed(&self.scratch);
                    self.fed = end;
                    if end == self.len {
                        self.tokens.finish();
                    }
                }
                Pull::End => return None,
            }
        }
    }

    /// The identifier of `f` as a JS string (kept per distinct identifier).
    fn id(&self, f: &Found) -> JsValue {
        if f.id_len > 3 {
            let bytes = self
                .input
                .subarray(f.start as u32, (f.start + f.id_len) as u32)
                .to_vec();
            return JsValue::from_str(&text(&bytes));
        }
        let key = &f.id[..f.id_len];
        ID_STRINGS.with(|ids| {
            if let Some(s) = ids.borrow().get(key) {
                return s.clone();
            }
            let s = JsValue::from_str(&text(key));
            let mut ids = ids.borrow_mut();
            if ids.len() < IDS {
                ids.insert(key.to_vec(), s.clone());
            }
            s
        })
    }

    /// The view of `f`: a plain object on the views' prototype.
    fn view(&self, f: &Found, proto: &Object) -> Object {
        let v = create(proto);
        KEYS.with(|k| {
            set_value(&v, &k.id, &self.id(f));
            set_number(&v, &k.index, f.index as f64);
            set_number(&v, &k.offset, f.start as f64);
            set_number(&v, &k.length, f.len as f64);
            set_value(&v, &k.input, &self.input);
            set_number(&v, &k.packed, pack(f.delimiters, f.terminated));
        });
        v
    }
}

fn step(value: &JsValue, done: bool) -> Object {
    let r = Object::new();
    KEYS.with(|k| {
        set_value(&r, &k.value, value);
        set_bool(&r, &k.done, done);
    });
    r
}

#[wasm_bindgen]
impl SegmentIterator {
    /// The iterator protocol: `{value: Segment, done: false}`, then `{value: undefined, done: true}`.
    pub fn next(&mut self) -> Result<Object> {
        if let Some(c) = self.cursor.as_mut() {
            if let Some(f) = c.next_segment() {
                if c.proto.is_none() {
                    c.proto = PROTO.with(|p| p.borrow().clone());
                }
                let proto = c
                    .proto
                    .as_ref()
                    .ok_or_else(|| argument("no segment prototype"))?;
                let view = c.view(&f, proto);
                return Ok(step(&view, false));
            }
            // Done: the tokenizer and the input go now, not when JS collects the iterator.
            self.cursor = None;
        }
        Ok(step(&JsValue::UNDEFINED, true))
    }

    /// Stops early (`for…of` calls it on `break`): frees the tokenizer and lets go of the input.
    #[wasm_bindgen(js_name = "return")]
    pub fn stop(&mut self, value: JsValue) -> Result<Object> {
        self.cursor = None;
        Ok(step(&value, true))
    }

    /// Consumes the remaining segments without making views; returns how many there were.
    #[wasm_bindgen(js_name = skipRest)]
    pub fn skip_rest(&mut self) -> f64 {
        let mut n = 0u64;
        if let Some(c) = self.cursor.as_mut() {
            while c.next_segment().is_some() {
                n += 1;
            }
        }
        self.cursor = None;
        n as f64
    }
}

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
fn unpack(p: f64) -> Option<(Delimiters, bool)> {
    if !(p.is_finite() && p >= 0.0 && p < (1u64 << 34) as f64 && p.fract() == 0.0) {
        return None;
    }
    let v = p as u64;
    let rep = (v >> 24) & 0x1ff;
    Some((
        Delimiters {
            element: (v & 0xff) as u8,
            component: ((v >> 8) & 0xff) as u8,
            segment: ((v >> 16) & 0xff) as u8,
            repetition: (rep & 0x100 != 0).then_some((rep & 0xff) as u8),
        },
        v >> 33 & 1 == 1,
    ))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn strings<'a>(parts: impl Iterator<Item = x12kit::Element<'a>>) -> Array {
    parts.map(|p| JsValue::from_str(&text(p.raw()))).collect()
}

/// A view's segment: its bytes (copied from the input for the call) and
/// delimiters; an `INVALID_ARGUMENT` error when `this` is not a view.
struct Bytes {
    raw: Vec<u8>,
    start: usize,
    delimiters: Delimiters,
    terminated: bool,
}

impl Bytes {
    fn of(this: &JsValue) -> Result<Bytes> {
        let not_a_view = || argument("this is not a segment view of x12kit");
        if !this.is_object() {
            return Err(not_a_view());
        }
        let (input, packed, start, len) = KEYS.with(|k| -> Result<_> {
            Ok((
                Reflect::get(this, &k.input)?,
                Reflect::get(this, &k.packed)?,
                Reflect::get(this, &k.offset)?,
                Reflect::get(this, &k.length)?,
            ))
        })?;
        let input: Uint8Array = input.dyn_into().map_err(|_| not_a_view())?;
        let (delimiters, terminated) = packed.as_f64().and_then(unpack).ok_or_else(not_a_view)?;
        let whole = |v: &JsValue| {
            v.as_f64()
                .filter(|n| n.is_finite() && *n >= 0.0 && n.fract() == 0.0)
                .map(|n| n as usize)
        };
        let (start, len) = (
            whole(&start).ok_or_else(not_a_view)?,
            whole(&len).ok_or_else(not_a_view)?,
        );
        let end = start
            .checked_add(len)
            .filter(|e| *e <= input.length() as usize)
            .ok_or_else(not_a_view)?;
        Ok(Bytes {
            raw: input.subarray(start as u32, end as u32).to_vec(),
            start,
            delimiters,
            terminated,
        })
    }

    fn view(&self) -> x12kit::Segment<'_> {
        x12kit::Segment::new(
            &self.raw,
            &[],
            self.start,
            0,
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

/// The methods and getters of the views' prototype.
#[derive(Clone, Copy)]
enum Method {
    Raw,
    Element,
    Elements,
    Components,
    Repetitions,
    ToJson,
}

fn call(method: Method, this: &JsValue, args: &Array) -> Result<JsValue> {
    let b = Bytes::of(this)?;
    let arg = args.get(0);
    Ok(match method {
        Method::Raw => JsValue::from_str(&text(&b.raw)),
        Method::Element => match b.element_at(&arg)? {
            Some(e) => JsValue::from_str(&text(e.raw())),
            None => JsValue::UNDEFINED,
        },
        Method::Elements => strings(b.view().elements()).into(),
        Method::Components => match b.element_at(&arg)? {
            Some(e) => strings(e.components()).into(),
            None => Array::new().into(),
        },
        Method::Repetitions => match b.element_at(&arg)? {
            Some(e) => strings(e.repetitions()).into(),
            None => Array::new().into(),
        },
        Method::ToJson => {
            let o = Object::new();
            KEYS.with(|k| -> Result<()> {
                Reflect::set(&o, &k.id, &Reflect::get(this, &k.id)?)?;
                Reflect::set(&o, &k.index, &Reflect::get(this, &k.index)?)?;
                Reflect::set(&o, &k.offset, &Reflect::get(this, &k.offset)?)?;
                Ok(())
            })?;
            Reflect::set(&o, &"elements".into(), &strings(b.view().elements()))?;
            o.into()
        }
    })
}

/// The handlers of the views' methods: `apply` traps (`target`, `thisArg`,
/// `args`), static methods of the iterator's class (not in the `.d.ts`).
#[wasm_bindgen]
impl SegmentIterator {
    #[wasm_bindgen(js_name = __raw)]
    pub fn trap_raw(_target: JsValue, this: JsValue, args: Array) -> Result<JsValue> {
        call(Method::Raw, &this, &args)
    }
    #[wasm_bindgen(js_name = __element)]
    pub fn trap_element(_target: JsValue, this: JsValue, args: Array) -> Result<JsValue> {
        call(Method::Element, &this, &args)
    }
    #[wasm_bindgen(js_name = __elements)]
    pub fn trap_elements(_target: JsValue, this: JsValue, args: Array) -> Result<JsValue> {
        call(Method::Elements, &this, &args)
    }
    #[wasm_bindgen(js_name = __components)]
    pub fn trap_components(_target: JsValue, this: JsValue, args: Array) -> Result<JsValue> {
        call(Method::Components, &this, &args)
    }
    #[wasm_bindgen(js_name = __repetitions)]
    pub fn trap_repetitions(_target: JsValue, this: JsValue, args: Array) -> Result<JsValue> {
        call(Method::Repetitions, &this, &args)
    }
    #[wasm_bindgen(js_name = __toJSON)]
    pub fn trap_to_json(_target: JsValue, this: JsValue, args: Array) -> Result<JsValue> {
        call(Method::ToJson, &this, &args)
    }
}

/// A function that runs the handler `name` of `class` with the `this` it is
/// called with: a `Proxy` of the handler itself whose `apply` trap is it.
fn method_function(class: &JsValue, name: &str) -> Result<JsValue> {
    let trap = Reflect::get(class, &name.into())?;
    if !trap.is_function() {
        return Err(argument(format!("SegmentIterator.{name} is missing")));
    }
    let handler = Object::new();
    Reflect::set(&handler, &"apply".into(), &trap)?;
    Ok(Proxy::new(&trap, &handler).into())
}

/// The views' prototype, its methods the handlers of `class` (the
/// iterator's class, from its first instance).
fn make_proto(class: &JsValue) -> Result<Object> {
    let p = Object::new();
    for (name, handler) in [
        ("element", "__element"),
        ("elements", "__elements"),
        ("components", "__components"),
        ("repetitions", "__repetitions"),
        ("toJSON", "__toJSON"),
    ] {
        let desc = Object::new();
        Reflect::set(&desc, &"value".into(), &method_function(class, handler)?)?;
        Object::define_property(&p, &name.into(), &desc);
    }
    let raw = Object::new();
    Reflect::set(&raw, &"get".into(), &method_function(class, "__raw")?)?;
    Object::define_property(&p, &"raw".into(), &raw);
    // A view holds no wasm memory: `free()` is kept, as a no-op, for the code
    // written when views were wasm-bindgen objects. `Function.prototype` is
    // the built-in function that does nothing.
    let object_function: JsValue = Object::new().constructor().into();
    let noop = Object::get_prototype_of(&object_function);
    let free = Object::new();
    Reflect::set(&free, &"value".into(), &noop)?;
    Object::define_property(&p, &"free".into(), &free);
    Ok(p)
}
