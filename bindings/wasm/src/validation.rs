//! Validation results that `acknowledge` takes, as in the Node addon: the
//! result object of `validate` / `StreamValidator.finish` is the plain JSON
//! object, and it keeps a handle behind a non-enumerable property whose key
//! is a symbol private to this module instance (JSON, spreads and structured
//! clones leave it behind). `acknowledge` given such an object acknowledges
//! that validation; given any other object it refuses with the Node addon's
//! `INVALID_ARGUMENT` message.
//!
//! Memory: wasm memory cannot shrink, and wasm-bindgen frees the Rust side
//! of an object only from a `FinalizationRegistry` callback, which never
//! runs inside a synchronous loop. So a result keeps nothing in wasm memory
//! of its own: its handle is a plain JS object holding a serial number and,
//! for `validate`, a copy of the input in JS memory (a string is kept as it
//! is) and the options. The core's validation is kept in wasm memory for
//! the latest `validate` call only (replaced by the next one), so the usual
//! `v = validate(x); … acknowledge(v)` does not validate again; a result
//! that is no longer the latest is validated again from its input when it
//! is acknowledged (the same acknowledgement, byte for byte). A result of
//! `StreamValidator.finish` is acknowledged from the validation its
//! validator keeps (until the validator is freed).

use crate::convert::{bytes_arg, js_copy, options_and_now, options_arg};
use crate::error::{Result, argument, to_js};
use js_sys::{Object, Reflect, Uint8Array};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use x12kit::ops;
use x12kit::time::DateTime;

thread_local! {
    /// The property key: a symbol made once per module instance.
    static KEY: JsValue = JsValue::symbol(Some("x12kit.validation"));
    /// The serial number of the last result made.
    static SERIAL: Cell<f64> = const { Cell::new(0.0) };
    /// The latest result's validation (replaced by the next result).
    static LATEST: RefCell<Option<(f64, Rc<x12kit::Validation>)>> = const { RefCell::new(None) };
    /// The results of `StreamValidator.finish`, by serial: their validators own them.
    static STREAMS: RefCell<Streams> = RefCell::new(Streams::default());
}

/// Weak references to the validations of finished stream validators; the
/// dead ones are dropped whenever the map has doubled since the last sweep.
#[derive(Default)]
struct Streams {
    map: HashMap<u64, Weak<x12kit::Validation>>,
    sweep_at: usize,
}

impl Streams {
    fn insert(&mut self, serial: f64, v: &Rc<x12kit::Validation>) {
        if self.map.len() >= self.sweep_at.max(64) {
            self.map.retain(|_, w| w.strong_count() > 0);
            self.sweep_at = 2 * self.map.len();
        }
        self.map.insert(serial as u64, Rc::downgrade(v));
    }

    fn get(&self, serial: f64) -> Option<Rc<x12kit::Validation>> {
        self.map.get(&(serial as u64)).and_then(Weak::upgrade)
    }
}

/// Where a result came from: what `acknowledge` needs to validate it again.
pub enum Source<'a> {
    /// `validate(input, options)`: the input (as the caller gave it) and the options.
    Input(&'a JsValue, &'a JsValue),
    /// `StreamValidator.finish`: the validator keeps the validation.
    Stream,
}

fn set(o: &Object, key: &str, v: &JsValue) -> Result<()> {
    Reflect::set(o, &key.into(), v).map(|_| ())
}

/// Drops the latest result's validation, before the next one is made: each
/// `validate` call then finds the memory the previous one freed, in the
/// same places, so a loop of calls keeps wasm memory flat. (A result that
/// is no longer the latest is validated again from its input.)
pub fn forget_latest() {
    drop(LATEST.with(|l| l.borrow_mut().take()));
}

/// The validation result object of `v`, carrying a handle for `acknowledge`.
pub fn result(v: Rc<x12kit::Validation>, source: Source<'_>) -> Result<JsValue> {
    let obj = crate::convert::json_bytes_to_js(&v.to_json())?;
    let serial = SERIAL.with(|s| {
        s.set(s.get() + 1.0);
        s.get()
    });
    let handle = Object::new();
    set(&handle, "serial", &serial.into())?;
    match source {
        Source::Input(input, options) => {
            set(&handle, "input", &js_copy(input, "input")?)?;
            if !(options.is_undefined() || options.is_null()) {
                set(
                    &handle,
                    "options",
                    &js_sys::JSON::stringify(options)?.into(),
                )?;
            }
        }
        Source::Stream => STREAMS.with(|s| s.borrow_mut().insert(serial, &v)),
    }
    LATEST.with(|l| *l.borrow_mut() = Some((serial, v)));
    let desc = Object::new();
    set(&desc, "value", &handle)?;
    let target: &Object = obj.unchecked_ref();
    KEY.with(|k| Reflect::define_property(target, k, &desc))?;
    Ok(obj)
}

/// The validation a handle stands for: kept, or validated again from its input.
fn validation_of(handle: &JsValue) -> Result<Rc<x12kit::Validation>> {
    let serial = Reflect::get(handle, &"serial".into())?
        .as_f64()
        .ok_or_else(not_ours)?;
    if let Some(v) = LATEST.with(|l| {
        l.borrow()
            .as_ref()
            .filter(|(s, _)| *s == serial)
            .map(|(_, v)| Rc::clone(v))
    }) {
        return Ok(v);
    }
    if let Some(v) = STREAMS.with(|s| s.borrow().get(serial)) {
        return Ok(v);
    }
    let input = Reflect::get(handle, &"input".into())?;
    if input.is_undefined() {
        return Err(argument(
            "this result of StreamValidator.finish() can no longer be acknowledged: its \
             StreamValidator was freed (acknowledge before free(), or acknowledge the X12 input)",
        ));
    }
    let options = Reflect::get(handle, &"options".into())?;
    let options = match options.as_string() {
        Some(text) => js_sys::JSON::parse(&text)?,
        None => JsValue::UNDEFINED,
    };
    let o: ops::ValidateOptions = options_arg(&options)?;
    Ok(Rc::new(ops::validate(&bytes_arg(&input, "input")?, &o)))
}

fn not_ours() -> JsValue {
    argument(
        "acknowledge takes a validation result of x12kit (validate, StreamValidator.finish) \
         or the X12 input; this object did not come from x12kit",
    )
}

/// `acknowledge(validationOrInput, options)`: a result of `validate` or
/// `StreamValidator.finish`, or the X12 input.
pub fn acknowledge(v: &JsValue, options: &JsValue) -> Result<Uint8Array> {
    let bytes_like = v.is_instance_of::<Uint8Array>()
        || v.is_instance_of::<js_sys::ArrayBuffer>()
        || js_sys::ArrayBuffer::is_view(v);
    if v.is_object() && !bytes_like {
        let handle = KEY.with(|k| Reflect::get(v, k))?;
        if !handle.is_object() {
            return Err(not_ours());
        }
        let (o, now): (ops::AcknowledgeOptions, _) = options_and_now(options)?;
        let validation = validation_of(&handle)?;
        let ack = ops::acknowledge_validation(&validation, &o, DateTime::from_unix(now))
            .map_err(to_js)?;
        return Ok(Uint8Array::from(&ack[..]));
    }
    let bytes = bytes_arg(v, "validationOrInput")?;
    let (o, now): (ops::AcknowledgeOptions, _) = options_and_now(options)?;
    let ack = ops::acknowledge(&bytes, &o, DateTime::from_unix(now)).map_err(to_js)?;
    Ok(Uint8Array::from(&ack[..]))
}
