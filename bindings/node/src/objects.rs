//! JS values built natively from the core's JSON bytes, with Node-API calls
//! instead of `JSON.parse`.
//!
//! This is a generic JSON reader (no X12 knowledge): it walks the compact
//! JSON the core writes and creates each object, array, string and number
//! with Node-API, caching object keys and short string values so that each
//! distinct one is created once per call. `bench/parse-paths.mjs` measures
//! it against `JSON.parse` of the same bytes; the public `parse` uses
//! whichever is faster (see README, "Performance").
//!
//! Safety: every Node-API call goes through [`Napi`], whose only
//! constructor is `unsafe` (the env must be the live env of the current
//! callback, on its thread, for as long as the value lives). Handles: a
//! `napi_value` is valid until the handle scope it was made in closes. The
//! builder keeps one only (a) on the stack of the recursion inside the
//! scope that made it, or escaped into the parent scope (`scoped`), and (b)
//! in the caches, stamped with the scope it was made in (its level and a
//! serial number that never repeats), and a cached value is used only while
//! that very scope is still open ([`Builder::live`]). So no handle outlives
//! its scope.

use napi::bindgen_prelude::{ToNapiValue, TypeName, ValueType};
use napi::{Error, Result, Status, sys};
use std::ptr;

/// The core's JSON bytes, converted to JS values when returned to JS.
pub struct JsonObjects(pub Vec<u8>);

impl TypeName for JsonObjects {
    fn type_name() -> &'static str {
        "Object"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for JsonObjects {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        // SAFETY: napi calls `to_napi_value` on the JS thread with the live
        // env of the current callback, and the builder is dropped before it
        // returns.
        let napi = unsafe { Napi::new(env) };
        let mut b = Builder::new(napi, &val.0);
        let v = b.value(0)?;
        b.ws();
        if b.pos != b.json.len() {
            return Err(b.bad("trailing bytes"));
        }
        Ok(v)
    }
}

/// Containers up to this depth build each of their items in its own handle
/// scope, so that a large result does not hold every handle until the end
/// (in a parse result: down to each transaction).
const SCOPE_DEPTH: usize = 6;
/// Deeper nesting is refused (the core's JSON is far shallower).
const MAX_DEPTH: usize = 512;
/// Entries of each cache (a power of two).
const CACHE: usize = 4096;
/// String values up to this many bytes are cached.
const SHORT: usize = 8;

/// A direct-mapped cache of JS strings by their bytes (a slice of the JSON).
/// Each entry remembers the handle scope it was made in (its level and that
/// scope's serial number): it is valid only while that scope is open.
struct Cache<'j> {
    slots: Vec<Slot<'j>>,
}

#[derive(Clone, Copy)]
struct Slot<'j> {
    bytes: &'j [u8],
    value: sys::napi_value,
    level: usize,
    serial: u64,
}

impl<'j> Cache<'j> {
    fn new() -> Self {
        Cache {
            slots: vec![
                Slot {
                    bytes: &[],
                    value: ptr::null_mut(),
                    level: 0,
                    serial: 0,
                };
                CACHE
            ],
        }
    }

    #[inline]
    fn slot(b: &[u8]) -> usize {
        // FNV-1a over at most the first 16 bytes and the length.
        let mut h: u32 = 0x811c_9dc5 ^ b.len() as u32;
        for &c in b.iter().take(16) {
            h = (h ^ u32::from(c)).wrapping_mul(0x0100_0193);
        }
        (h as usize ^ (h as usize >> 12)) & (CACHE - 1)
    }
}

struct Builder<'j> {
    napi: Napi,
    json: &'j [u8],
    pos: usize,
    keys: Cache<'j>,
    values: Cache<'j>,
    scratch: Vec<u16>,
    /// Serial numbers of the open item scopes, outermost first.
    scopes: Vec<u64>,
    /// The last serial number given to a scope (never repeats: a u64).
    serial: u64,
    /// The last string read is `__proto__` (after escapes).
    proto_key: bool,
}

fn check(s: sys::napi_status) -> Result<()> {
    if s == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(
            Status::from(s),
            "building the result objects failed",
        ))
    }
}

impl<'j> Builder<'j> {
    fn new(napi: Napi, json: &'j [u8]) -> Self {
        Builder {
            napi,
            json,
            pos: 0,
            keys: Cache::new(),
            values: Cache::new(),
            scratch: Vec::new(),
            scopes: Vec::new(),
            serial: 0,
            proto_key: false,
        }
    }

    fn bad(&self, what: &str) -> Error {
        Error::new(
            Status::GenericFailure,
            format!("the core's JSON is malformed at byte {}: {what}", self.pos),
        )
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.json.get(self.pos) {
            self.pos += 1;
        }
    }

    #[inline]
    fn expect(&mut self, c: u8) -> Result<()> {
        self.ws();
        if self.json.get(self.pos) == Some(&c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.bad(&format!("expected '{}'", c as char)))
        }
    }

    /// One JSON value at nesting `depth`.
    fn value(&mut self, depth: usize) -> Result<sys::napi_value> {
        if depth > MAX_DEPTH {
            return Err(self.bad("nested too deeply"));
        }
        self.ws();
        match self.json.get(self.pos) {
            Some(b'{') => {
                self.pos += 1;
                let out = self.napi.object()?;
                self.ws();
                if self.json.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                    return Ok(out);
                }
                loop {
                    self.expect(b'"')?;
                    let key = self.string(true)?;
                    let proto = self.proto_key;
                    self.expect(b':')?;
                    let v = self.value(depth + 1)?;
                    if proto {
                        // An own property, as JSON.parse makes: setting
                        // `__proto__` would change the object's prototype.
                        self.napi.define_property(out, key, v)?;
                    } else {
                        self.napi.set_property(out, key, v)?;
                    }
                    self.ws();
                    match self.json.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(out);
                        }
                        _ => return Err(self.bad("expected ',' or '}'")),
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let out = self.napi.array()?;
                self.ws();
                if self.json.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                    return Ok(out);
                }
                let mut i = 0u32;
                loop {
                    let v = if depth < SCOPE_DEPTH {
                        self.scoped(depth + 1)?
                    } else {
                        self.value(depth + 1)?
                    };
                    self.napi.set_element(out, i, v)?;
                    i += 1;
                    self.ws();
                    match self.json.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(out);
                        }
                        _ => return Err(self.bad("expected ',' or ']'")),
                    }
                }
            }
            Some(b'"') => {
                self.pos += 1;
                self.string(false)
            }
            Some(b't') => self.word(b"true", |n| n.boolean(true)),
            Some(b'f') => self.word(b"false", |n| n.boolean(false)),
            Some(b'n') => self.word(b"null", Napi::null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.bad("expected a value")),
        }
    }

    /// A value built in its own handle scope (its handles are freed after;
    /// the value itself is escaped into the enclosing scope).
    fn scoped(&mut self, depth: usize) -> Result<sys::napi_value> {
        let scope = self.napi.open_escapable_scope()?;
        self.serial += 1;
        self.scopes.push(self.serial);
        let r = self.value(depth).and_then(|v| self.napi.escape(scope, v));
        self.scopes.pop();
        // Closed whatever happened, so that scopes nest as they were opened.
        self.napi.close_escapable_scope(scope)?;
        r
    }

    fn word(
        &mut self,
        w: &[u8],
        make: impl FnOnce(&Napi) -> Result<sys::napi_value>,
    ) -> Result<sys::napi_value> {
        if !self.json[self.pos..].starts_with(w) {
            return Err(self.bad("expected true, false or null"));
        }
        self.pos += w.len();
        make(&self.napi)
    }

    fn number(&mut self) -> Result<sys::napi_value> {
        let start = self.pos;
        while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.json.get(self.pos) {
            self.pos += 1;
        }
        let text = std::str::from_utf8(&self.json[start..self.pos]).unwrap_or("");
        let n: f64 = text.parse().map_err(|_| self.bad("not a number"))?;
        self.napi.double(n)
    }

    /// Whether a cache entry made at `level` in the scope numbered `serial`
    /// can be used now: that scope is still open (level 0 is the callback's
    /// own scope, open until the builder is done).
    #[inline]
    fn live(&self, level: usize, serial: u64) -> bool {
        level == 0 || (level <= self.scopes.len() && self.scopes[level - 1] == serial)
    }

    /// A string whose opening quote was just read; `key`: an object key.
    fn string(&mut self, key: bool) -> Result<sys::napi_value> {
        let json = self.json;
        let start = self.pos;
        let mut high = false;
        let mut i = start;
        loop {
            match json.get(i) {
                Some(b'"') => break,
                Some(b'\\') => return self.escaped(start),
                Some(&c) => {
                    high |= c >= 0x80;
                    i += 1;
                }
                None => return Err(self.bad("unterminated string")),
            }
        }
        self.pos = i + 1;
        let b = &json[start..i];
        self.proto_key = b == b"__proto__";
        let cached = key || b.len() <= SHORT;
        let slot = Cache::slot(b);
        if cached {
            let cache = if key { &self.keys } else { &self.values };
            let e = cache.slots[slot];
            if !e.value.is_null() && e.bytes == b && self.live(e.level, e.serial) {
                return Ok(e.value);
            }
        }
        let out = if high {
            self.napi.string_utf8(b)?
        } else {
            self.napi.string_latin1(b)?
        };
        if cached {
            let level = self.scopes.len();
            let serial = self.scopes.last().copied().unwrap_or(0);
            debug_assert!(self.live(level, serial));
            let cache = if key {
                &mut self.keys
            } else {
                &mut self.values
            };
            cache.slots[slot] = Slot {
                bytes: b,
                value: out,
                level,
                serial,
            };
        }
        Ok(out)
    }

    /// A string with escapes (never cached), built as UTF-16 so that a
    /// `\uD800` without its pair stays what `JSON.parse` makes of it.
    fn escaped(&mut self, start: usize) -> Result<sys::napi_value> {
        let json = self.json;
        let mut s = std::mem::take(&mut self.scratch);
        s.clear();
        let mut i = start;
        let mut run = start;
        loop {
            match json.get(i) {
                Some(b'"') => break,
                Some(b'\\') => {
                    self.utf16(run, i, &mut s)?;
                    let c = *json
                        .get(i + 1)
                        .ok_or_else(|| self.bad("unterminated escape"))?;
                    i += 2;
                    s.push(match c {
                        b'"' => u16::from(b'"'),
                        b'\\' => u16::from(b'\\'),
                        b'/' => u16::from(b'/'),
                        b'b' => 8,
                        b'f' => 12,
                        b'n' => u16::from(b'\n'),
                        b'r' => u16::from(b'\r'),
                        b't' => u16::from(b'\t'),
                        b'u' => {
                            i += 4;
                            self.hex4(i - 4)?
                        }
                        _ => return Err(self.bad("unknown escape")),
                    });
                    run = i;
                }
                Some(_) => i += 1,
                None => return Err(self.bad("unterminated string")),
            }
        }
        self.utf16(run, i, &mut s)?;
        self.pos = i + 1;
        self.proto_key = s.iter().copied().eq("__proto__".encode_utf16());
        let r = self.napi.string_utf16(&s);
        self.scratch = s;
        r
    }

    /// Appends `json[from..to]` (UTF-8 without escapes) as UTF-16.
    fn utf16(&self, from: usize, to: usize, s: &mut Vec<u16>) -> Result<()> {
        let text = std::str::from_utf8(&self.json[from..to]).map_err(|_| self.bad("not UTF-8"))?;
        s.extend(text.encode_utf16());
        Ok(())
    }

    fn hex4(&self, at: usize) -> Result<u16> {
        let h = self
            .json
            .get(at..at + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u16::from_str_radix(h, 16).ok());
        h.ok_or_else(|| self.bad("bad \\u escape"))
    }
}

/// The Node-API calls of the builder, each one safe to call: the env is the
/// live env of the current callback (the contract of [`Napi::new`]), every
/// out-pointer is a local, and the handles passed in are live ones (the
/// builder's rule, in the module docs).
struct Napi {
    env: sys::napi_env,
}

impl Napi {
    /// # Safety
    ///
    /// `env` is the live env of the Node-API callback running now, on its
    /// thread, and the value is dropped before that callback returns.
    unsafe fn new(env: sys::napi_env) -> Self {
        Napi { env }
    }

    fn object(&self) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: live env (see `Napi`); `out` is a local out-pointer.
        check(unsafe { sys::napi_create_object(self.env, &mut out) })?;
        Ok(out)
    }

    fn array(&self) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: live env; `out` is a local out-pointer.
        check(unsafe { sys::napi_create_array(self.env, &mut out) })?;
        Ok(out)
    }

    fn set_property(
        &self,
        object: sys::napi_value,
        key: sys::napi_value,
        v: sys::napi_value,
    ) -> Result<()> {
        // SAFETY: live env; the three handles are live (the builder's rule).
        check(unsafe { sys::napi_set_property(self.env, object, key, v) })
    }

    /// An own data property (writable, enumerable, configurable), as an
    /// object literal's or JSON.parse's, whatever the key.
    fn define_property(
        &self,
        object: sys::napi_value,
        key: sys::napi_value,
        v: sys::napi_value,
    ) -> Result<()> {
        let d = sys::napi_property_descriptor {
            utf8name: ptr::null(),
            name: key,
            method: None,
            getter: None,
            setter: None,
            value: v,
            attributes: sys::PropertyAttributes::writable
                | sys::PropertyAttributes::enumerable
                | sys::PropertyAttributes::configurable,
            data: ptr::null_mut(),
        };
        // SAFETY: live env; one descriptor read from `d`, a local, whose
        // handles are live (the builder's rule) and callbacks none.
        check(unsafe { sys::napi_define_properties(self.env, object, 1, &d) })
    }

    fn set_element(&self, array: sys::napi_value, i: u32, v: sys::napi_value) -> Result<()> {
        // SAFETY: live env; both handles are live (the builder's rule).
        check(unsafe { sys::napi_set_element(self.env, array, i, v) })
    }

    fn boolean(&self, b: bool) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: live env; `out` is a local out-pointer.
        check(unsafe { sys::napi_get_boolean(self.env, b, &mut out) })?;
        Ok(out)
    }

    fn null(&self) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: live env; `out` is a local out-pointer.
        check(unsafe { sys::napi_get_null(self.env, &mut out) })?;
        Ok(out)
    }

    fn double(&self, n: f64) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: live env; `out` is a local out-pointer.
        check(unsafe { sys::napi_create_double(self.env, n, &mut out) })?;
        Ok(out)
    }

    fn string_latin1(&self, b: &[u8]) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: live env; Node reads exactly `b.len()` bytes from `b`,
        // which outlives the call (a JSON string is far below isize::MAX).
        check(unsafe {
            sys::napi_create_string_latin1(self.env, b.as_ptr().cast(), b.len() as isize, &mut out)
        })?;
        Ok(out)
    }

    fn string_utf8(&self, b: &[u8]) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: as `string_latin1`; Node decodes the bytes as UTF-8
        // (replacing what is not), so any bytes are sound.
        check(unsafe {
            sys::napi_create_string_utf8(self.env, b.as_ptr().cast(), b.len() as isize, &mut out)
        })?;
        Ok(out)
    }

    fn string_utf16(&self, s: &[u16]) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: live env; Node reads exactly `s.len()` code units from `s`,
        // which outlives the call.
        check(unsafe {
            sys::napi_create_string_utf16(self.env, s.as_ptr(), s.len() as isize, &mut out)
        })?;
        Ok(out)
    }

    fn open_escapable_scope(&self) -> Result<sys::napi_escapable_handle_scope> {
        let mut scope = ptr::null_mut();
        // SAFETY: live env; `scope` is a local out-pointer; the caller
        // closes the scope (`close_escapable_scope`) before its parent.
        check(unsafe { sys::napi_open_escapable_handle_scope(self.env, &mut scope) })?;
        Ok(scope)
    }

    fn escape(
        &self,
        scope: sys::napi_escapable_handle_scope,
        v: sys::napi_value,
    ) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: live env; `scope` is the innermost open scope and `v` a
        // live handle made in it; Node refuses a second escape from a scope.
        check(unsafe { sys::napi_escape_handle(self.env, scope, v, &mut out) })?;
        Ok(out)
    }

    fn close_escapable_scope(&self, scope: sys::napi_escapable_handle_scope) -> Result<()> {
        // SAFETY: live env; `scope` was opened by `open_escapable_scope` and
        // every scope opened inside it is closed already (they nest).
        check(unsafe { sys::napi_close_escapable_handle_scope(self.env, scope) })
    }
}
