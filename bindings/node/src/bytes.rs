//! Results handed to JS in memory that V8 allocates and frees.
//!
//! napi-rs turns a `Vec<u8>` (or `Vec<f64>`) into an *external* buffer
//! whose finalizer frees the Rust allocation. Node runs those finalizers
//! from `SetImmediate` (nodejs/node#28082), so a synchronous loop that gets
//! a result per call holds every result's native memory until the loop
//! ends: a batch job over files runs out of memory. The types here copy the
//! bytes into a buffer V8 allocates instead (`napi_create_buffer_copy`,
//! `napi_create_arraybuffer`), which the garbage collector frees with the
//! JS object, in the loop; the Rust allocation is dropped before the call
//! returns. The copy costs a `memcpy` of the result (README, "Memory").

use napi::bindgen_prelude::{ToNapiValue, TypeName, ValueType};
use napi::{Error, Result, Status, sys};
use std::ptr;

/// Bytes that cross to JS as a `Buffer` allocated by V8.
pub struct JsBytes(pub Vec<u8>);

impl From<Vec<u8>> for JsBytes {
    fn from(v: Vec<u8>) -> Self {
        JsBytes(v)
    }
}

fn check(s: sys::napi_status, what: &str) -> Result<()> {
    if s == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(Status::from(s), what.to_string()))
    }
}

impl TypeName for JsBytes {
    fn type_name() -> &'static str {
        "Buffer"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for JsBytes {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        let mut data = ptr::null_mut();
        // SAFETY: `env` is the live env of the current call (napi calls
        // `to_napi_value` on the JS thread). `napi_create_buffer_copy` reads
        // exactly `len` bytes from `val.0`, which owns them and outlives the
        // call; with `len == 0` it reads nothing (`Vec`'s dangling pointer
        // is never dereferenced). `data` receives a pointer we do not use.
        let status = unsafe {
            sys::napi_create_buffer_copy(
                env,
                val.0.len(),
                val.0.as_ptr().cast(),
                &mut data,
                &mut out,
            )
        };
        check(status, "could not allocate the result Buffer")?;
        Ok(out)
    }
}

/// Numbers that cross to JS as a `Float64Array` over an `ArrayBuffer`
/// allocated by V8.
pub struct JsNumbers(pub Vec<f64>);

impl From<Vec<f64>> for JsNumbers {
    fn from(v: Vec<f64>) -> Self {
        JsNumbers(v)
    }
}

impl TypeName for JsNumbers {
    fn type_name() -> &'static str {
        "Float64Array"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for JsNumbers {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let n = val.0.len();
        let bytes = n
            .checked_mul(size_of::<f64>())
            .ok_or_else(|| Error::new(Status::GenericFailure, "too many numbers".to_string()))?;
        let mut buffer = ptr::null_mut();
        let mut data: *mut std::ffi::c_void = ptr::null_mut();
        // SAFETY: `env` is the live env of the current call. On success
        // `data` points to `bytes` writable bytes that V8 allocated for the
        // new ArrayBuffer (null or dangling only when `bytes == 0`).
        let status = unsafe { sys::napi_create_arraybuffer(env, bytes, &mut data, &mut buffer) };
        check(status, "could not allocate the result ArrayBuffer")?;
        if bytes > 0 {
            debug_assert!(!data.is_null());
            // SAFETY: `data` is valid for `bytes` bytes (just allocated, no
            // JS code has run since, so nothing else refers to them), and
            // `val.0` holds exactly `bytes` bytes of f64s; the two regions
            // are distinct allocations. ArrayBuffer memory is at least
            // 8-byte aligned, but a byte copy needs no alignment anyway.
            unsafe {
                ptr::copy_nonoverlapping(val.0.as_ptr().cast::<u8>(), data.cast::<u8>(), bytes)
            };
        }
        let mut out = ptr::null_mut();
        // SAFETY: `buffer` is the ArrayBuffer just created in this scope,
        // `n` f64s from offset 0 fit it exactly.
        let status = unsafe {
            sys::napi_create_typedarray(
                env,
                sys::TypedarrayType::float64_array,
                n,
                buffer,
                0,
                &mut out,
            )
        };
        check(status, "could not create the result Float64Array")?;
        Ok(out)
    }
}
