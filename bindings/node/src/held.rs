//! Native state that a JS object owns, freed without waiting for the event
//! loop.
//!
//! A `#[napi]` class instance (a wrapped object) is freed by a finalizer,
//! and Node runs those from `SetImmediate` (nodejs/node#28082): in a
//! synchronous loop that makes one per call (`validate` keeps its result
//! for `acknowledge`, `segments()` its position), every instance stays in
//! memory until the loop ends — measured at about 600 bytes for the
//! smallest one, plus what it owns. So that state lives here instead: each
//! piece is owned by a *token*, an opaque JS value (`napi_create_external`,
//! no finalizer) that JS keeps where it keeps the result, and the registry
//! holds a weak reference to it. V8 clears a weak reference when it
//! collects the token, during the garbage collection itself; the registry
//! then drops the state the next time it grows past twice what was alive
//! at its last sweep (so the work is amortized), or at once when JS says it
//! is done with it ([`Held::take`]). The bytes each piece holds are
//! reported to V8 (`napi_adjust_external_memory`), so that they count
//! towards its decision to collect.
//!
//! The registry is per Node environment (main thread, each worker), kept
//! as the addon's instance data, and used only on that environment's
//! thread.

use napi::bindgen_prelude::{FromNapiValue, ToNapiValue, TypeName, ValueType};
use napi::{Env, Error, Result, Status, sys};
use std::cell::RefCell;
use std::ffi::c_void;
use std::ptr;

/// Where a `segments()` iteration is (`segments.rs`): the core's tokenizer,
/// fed the input slice by slice. It does not keep the input: JS passes the
/// same buffer to every `segment_cursor_fill` (the views index into it, with
/// no copy). Freed when the iteration ends (or stops early), or once V8 has
/// collected an abandoned iterator.
pub(crate) struct Cursor {
    /// The tokenizer.
    pub(crate) tokens: x12kit::StreamTokenizer,
    /// How much of the input it was fed.
    pub(crate) fed: usize,
}

/// What a token owns.
pub(crate) enum State {
    /// A validation result (for `acknowledge`).
    Validation(x12kit::Validation),
    /// A push validator being fed (boxed: it is the largest by far).
    Validator(Box<x12kit::StreamValidator>),
    /// A push validator after `finish()`: nothing left but its token.
    Finished,
    /// The position of a `segments()` iteration.
    Cursor(Cursor),
}

/// A token as it crosses the boundary: the raw handle of the current call
/// (valid until the call returns; never stored).
pub struct Handle(sys::napi_value);

impl TypeName for Handle {
    fn type_name() -> &'static str {
        "object"
    }

    fn value_type() -> ValueType {
        ValueType::External
    }
}

impl FromNapiValue for Handle {
    unsafe fn from_napi_value(_env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        // Checked when used ([`Held::slot_of`]): any JS value may arrive here.
        Ok(Handle(value))
    }
}

impl ToNapiValue for Handle {
    unsafe fn to_napi_value(_env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        Ok(val.0)
    }
}

struct Slot {
    /// A weak reference (count 0) to the token.
    weak: sys::napi_ref,
    state: State,
    /// What `state` holds, as reported to V8.
    bytes: usize,
}

/// Sweep no earlier than at this many live pieces…
const MIN_SWEEP_LIVE: usize = 64;
/// …or this many bytes held.
const MIN_SWEEP_BYTES: usize = 16 << 20;

/// The registry of one environment.
#[derive(Default)]
pub(crate) struct Held {
    slots: Vec<Option<Slot>>,
    free: Vec<usize>,
    live: usize,
    bytes: usize,
    sweep_live: usize,
    sweep_bytes: usize,
}

fn check(s: sys::napi_status, what: &str) -> Result<()> {
    if s == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(Status::from(s), what.to_string()))
    }
}

/// The error of a value that is not a live token of this registry.
pub(crate) fn not_a_handle() -> Error {
    crate::errors::to_napi(&x12kit::Error::new(
        x12kit::ErrorCode::InvalidArgument,
        "this value is not a live x12kit handle (it did not come from this x12kit, or was already used up)",
    ))
}

/// Runs `f` with the registry of `env` (made on first use).
pub(crate) fn with<R>(env: &Env, f: impl FnOnce(&mut Held) -> Result<R>) -> Result<R> {
    let cell = match env.get_instance_data::<RefCell<Held>>()? {
        Some(cell) => cell,
        None => {
            env.set_instance_data(RefCell::new(Held::default()), (), |_| {})?;
            env.get_instance_data::<RefCell<Held>>()?
                .ok_or_else(|| Error::new(Status::GenericFailure, "no instance data".to_string()))?
        }
    };
    // Never nested: nothing inside `f` calls back into JS.
    let mut held = cell.try_borrow_mut().map_err(|_| {
        Error::new(
            Status::GenericFailure,
            "x12kit's registry is in use".to_string(),
        )
    })?;
    f(&mut held)
}

impl Held {
    /// Keeps `state` (holding about `bytes`) for a new token; returns the token.
    pub(crate) fn insert(&mut self, env: &Env, state: State, bytes: usize) -> Result<Handle> {
        if self.live >= self.sweep_live.max(MIN_SWEEP_LIVE)
            || self.bytes >= self.sweep_bytes.max(MIN_SWEEP_BYTES)
        {
            self.sweep(env)?;
        }
        let index = self.free.pop().unwrap_or(self.slots.len());
        let mut token = ptr::null_mut();
        // SAFETY: `env` is the live env of the current call, on its thread.
        // The external's data is the slot index carried as a pointer-sized
        // integer, never dereferenced; no finalizer (nothing to free, and so
        // nothing Node must defer).
        let status = unsafe {
            sys::napi_create_external(
                env.raw(),
                index as *mut c_void,
                None,
                ptr::null_mut(),
                &mut token,
            )
        };
        check(status, "could not create a handle")?;
        let mut weak = ptr::null_mut();
        // SAFETY: `token` was just created in the current handle scope; a
        // reference with count 0 is weak and outlives the scope (deleted in
        // `release`).
        check(
            unsafe { sys::napi_create_reference(env.raw(), token, 0, &mut weak) },
            "could not create a handle",
        )?;
        let slot = Some(Slot { weak, state, bytes });
        if index == self.slots.len() {
            self.slots.push(slot);
        } else {
            debug_assert!(self.slots[index].is_none());
            self.slots[index] = slot;
        }
        self.live += 1;
        self.bytes += bytes;
        adjust(env, bytes as i64);
        Ok(Handle(token))
    }

    /// The slot index of a live token, checked: an external of ours whose
    /// slot's weak reference is that very value.
    fn slot_of(&self, env: &Env, token: &Handle) -> Result<usize> {
        let mut kind = 0;
        // SAFETY: `token.0` is a handle of the current call (see `Handle`).
        check(
            unsafe { sys::napi_typeof(env.raw(), token.0, &mut kind) },
            "typeof",
        )?;
        if kind != sys::ValueType::napi_external {
            return Err(not_a_handle());
        }
        let mut data = ptr::null_mut();
        // SAFETY: as above; `token.0` is an external, so this reads its data pointer.
        check(
            unsafe { sys::napi_get_value_external(env.raw(), token.0, &mut data) },
            "external",
        )?;
        let index = data as usize;
        let slot = self
            .slots
            .get(index)
            .and_then(Option::as_ref)
            .ok_or_else(not_a_handle)?;
        let mut value = ptr::null_mut();
        // SAFETY: `slot.weak` is a reference this registry created and has
        // not deleted (slots are cleared only together with `release`).
        check(
            unsafe { sys::napi_get_reference_value(env.raw(), slot.weak, &mut value) },
            "reference",
        )?;
        if value.is_null() {
            return Err(not_a_handle());
        }
        let mut same = false;
        // SAFETY: both are handles of the current call.
        check(
            unsafe { sys::napi_strict_equals(env.raw(), value, token.0, &mut same) },
            "equals",
        )?;
        if same { Ok(index) } else { Err(not_a_handle()) }
    }

    /// The state a live token owns.
    pub(crate) fn get(&mut self, env: &Env, token: &Handle) -> Result<&mut State> {
        let index = self.slot_of(env, token)?;
        Ok(&mut self.slots[index]
            .as_mut()
            .expect("checked by slot_of")
            .state)
    }

    /// Takes the state a live token owns and forgets the token (JS is done with it).
    pub(crate) fn take(&mut self, env: &Env, token: &Handle) -> Result<State> {
        let index = self.slot_of(env, token)?;
        Ok(self.release(env, index))
    }

    /// Records that the state of a live token now holds about `bytes`.
    pub(crate) fn resize(&mut self, env: &Env, token: &Handle, bytes: usize) -> Result<()> {
        let index = self.slot_of(env, token)?;
        let slot = self.slots[index].as_mut().expect("checked by slot_of");
        let delta = bytes as i64 - slot.bytes as i64;
        self.bytes = self.bytes - slot.bytes + bytes;
        slot.bytes = bytes;
        adjust(env, delta);
        Ok(())
    }

    /// Drops the state of every token V8 has collected.
    fn sweep(&mut self, env: &Env) -> Result<()> {
        let mut scope = ptr::null_mut();
        // SAFETY: a handle scope for the values `napi_get_reference_value`
        // makes below, closed before returning; no handle made in it is
        // kept past the loop.
        check(
            unsafe { sys::napi_open_handle_scope(env.raw(), &mut scope) },
            "scope",
        )?;
        let mut result = Ok(());
        for index in 0..self.slots.len() {
            let Some(slot) = &self.slots[index] else {
                continue;
            };
            let mut value = ptr::null_mut();
            // SAFETY: `slot.weak` is a live reference of this registry.
            let s = unsafe { sys::napi_get_reference_value(env.raw(), slot.weak, &mut value) };
            if s != sys::Status::napi_ok {
                result = check(s, "reference");
                break;
            }
            if value.is_null() {
                drop(self.release(env, index));
            }
        }
        // SAFETY: `scope` was opened above on this env and is the innermost open scope.
        check(
            unsafe { sys::napi_close_handle_scope(env.raw(), scope) },
            "scope",
        )?;
        self.sweep_live = 2 * self.live;
        self.sweep_bytes = 2 * self.bytes;
        result
    }

    /// Empties slot `index` (deleting its weak reference); its state.
    fn release(&mut self, env: &Env, index: usize) -> State {
        let slot = self.slots[index].take().expect("a live slot");
        // SAFETY: the reference was created by `insert` and is deleted only
        // here, once (the slot is emptied above).
        let status = unsafe { sys::napi_delete_reference(env.raw(), slot.weak) };
        debug_assert_eq!(status, sys::Status::napi_ok);
        self.free.push(index);
        self.live -= 1;
        self.bytes -= slot.bytes;
        adjust(env, -(slot.bytes as i64));
        slot.state
    }
}

/// Tells V8 that native memory grew (or shrank) by `delta` bytes.
fn adjust(env: &Env, delta: i64) {
    if delta != 0 {
        // Advisory only: a failure changes nothing else.
        let _ = env.adjust_external_memory(delta);
    }
}
