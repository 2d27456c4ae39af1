//! Validation results that `acknowledge` takes, as in the Node addon: the
//! result object of `validate` / `StreamValidator.finish` is the plain JSON
//! object, and it keeps the core's `Validation` behind a non-enumerable
//! property whose key is a symbol private to this module instance (JSON,
//! spreads and structured clones leave it behind, and no other code can make
//! one). `acknowledge` given such an object acknowledges that validation
//! without validating again; given any other object it refuses with the
//! Node addon's `INVALID_ARGUMENT` message.

use crate::convert::{bytes_arg, json_bytes_to_js, options_and_now};
use crate::error::{Result, argument, to_js};
use js_sys::{Function, Object, Reflect, Uint8Array};
use std::cell::OnceCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use x12kit::ops;
use x12kit::time::DateTime;

/// The core's validation, kept for `acknowledge` (internal: not in the `.d.ts`).
#[wasm_bindgen(js_name = __Validation, skip_typescript)]
#[derive(Debug)]
pub struct Handle {
    inner: Rc<x12kit::Validation>,
}

#[wasm_bindgen(js_class = __Validation)]
impl Handle {
    /// The acknowledgement of this validation (`acknowledge` calls it).
    pub fn acknowledge(&self, options: &JsValue) -> Result<Uint8Array> {
        let (o, now): (ops::AcknowledgeOptions, _) = options_and_now(options)?;
        let ack = ops::acknowledge_validation(&self.inner, &o, DateTime::from_unix(now))
            .map_err(to_js)?;
        Ok(Uint8Array::from(&ack[..]))
    }
}

thread_local! {
    /// The property key: a symbol made once per module instance.
    static KEY: JsValue = JsValue::symbol(Some("x12kit.validation"));
    /// `__Validation.prototype` (set by the first result made).
    static PROTOTYPE: OnceCell<Object> = const { OnceCell::new() };
}

/// The validation result object of `v`, carrying `v` for `acknowledge`.
pub fn result(v: Rc<x12kit::Validation>) -> Result<JsValue> {
    let obj = json_bytes_to_js(&v.to_json())?;
    let handle: JsValue = Handle { inner: v }.into();
    PROTOTYPE.with(|p| {
        p.get_or_init(|| Object::get_prototype_of(&handle));
    });
    let desc = Object::new();
    Reflect::set(&desc, &"value".into(), &handle)?;
    let target: &Object = obj.unchecked_ref();
    KEY.with(|k| Reflect::define_property(target, k, &desc))?;
    Ok(obj)
}

/// `acknowledge(validationOrInput, options)`: a result of `validate` or
/// `StreamValidator.finish` (not validated again), or the X12 input.
pub fn acknowledge(v: &JsValue, options: &JsValue) -> Result<Uint8Array> {
    let bytes_like = v.is_instance_of::<Uint8Array>()
        || v.is_instance_of::<js_sys::ArrayBuffer>()
        || js_sys::ArrayBuffer::is_view(v);
    if v.is_object() && !bytes_like {
        let handle = KEY.with(|k| Reflect::get(v, k))?;
        let proto = PROTOTYPE.with(|p| p.get().cloned());
        return match proto {
            Some(proto)
                if handle.is_object() && Object::is(&Object::get_prototype_of(&handle), &proto) =>
            {
                // `__Validation.prototype.acknowledge`, on the handle.
                let f: Function = Reflect::get(&proto, &"acknowledge".into())?.dyn_into()?;
                Ok(f.call1(&handle, options)?.dyn_into()?)
            }
            _ => Err(argument(
                "acknowledge takes a validation result of x12kit (validate, StreamValidator.finish) \
                 or the X12 input; this object did not come from x12kit",
            )),
        };
    }
    let bytes = bytes_arg(v, "validationOrInput")?;
    let (o, now): (ops::AcknowledgeOptions, _) = options_and_now(options)?;
    let ack = ops::acknowledge(&bytes, &o, DateTime::from_unix(now)).map_err(to_js)?;
    Ok(Uint8Array::from(&ack[..]))
}
