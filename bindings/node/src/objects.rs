//! JS values built natively from the core's JSON bytes, with Node-API calls
//! instead of `JSON.parse`.
//!
//! This is a generic JSON reader (no X12 knowledge): it walks the compact
//! JSON the core writes and creates each object, array, string and number
//! with Node-API, caching object keys and short string values so that each
//! distinct one is created once per call. `bench/parse-paths.mjs` measures
//! it against `JSON.parse` of the same bytes; the public `parse` uses
//! whichever is faster (see README, "Performance").

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
        let mut b = Builder::new(env, &val.0);
        // SAFETY: called by napi on the JS thread with a live env.
        let v = unsafe { b.value(0)? };
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
    serial: u32,
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
    env: sys::napi_env,
    json: &'j [u8],
    pos: usize,
    keys: Cache<'j>,
    values: Cache<'j>,
    scratch: Vec<u16>,
    /// Serial numbers of the open item scopes, outermost first.
    scopes: Vec<u32>,
    serial: u32,
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
    fn new(env: sys::napi_env, json: &'j [u8]) -> Self {
        Builder {
            env,
            json,
            pos: 0,
            keys: Cache::new(),
            values: Cache::new(),
            scratch: Vec::new(),
            scopes: Vec::new(),
            serial: 0,
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
    unsafe fn value(&mut self, depth: usize) -> Result<sys::napi_value> {
        if depth > MAX_DEPTH {
            return Err(self.bad("nested too deeply"));
        }
        self.ws();
        let env = self.env;
        let mut out = ptr::null_mut();
        match self.json.get(self.pos) {
            Some(b'{') => unsafe {
                self.pos += 1;
                check(sys::napi_create_object(env, &mut out))?;
                self.ws();
                if self.json.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                    return Ok(out);
                }
                loop {
                    self.expect(b'"')?;
                    let key = self.string(true)?;
                    self.expect(b':')?;
                    let v = self.value(depth + 1)?;
                    check(sys::napi_set_property(env, out, key, v))?;
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
            },
            Some(b'[') => unsafe {
                self.pos += 1;
                check(sys::napi_create_array(env, &mut out))?;
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
                    check(sys::napi_set_element(env, out, i, v))?;
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
            },
            Some(b'"') => unsafe {
                self.pos += 1;
                self.string(false)
            },
            Some(b't') => unsafe { self.word(b"true", |o| sys::napi_get_boolean(env, true, o)) },
            Some(b'f') => unsafe { self.word(b"false", |o| sys::napi_get_boolean(env, false, o)) },
            Some(b'n') => unsafe { self.word(b"null", |o| sys::napi_get_null(env, o)) },
            Some(b'-' | b'0'..=b'9') => unsafe { self.number() },
            _ => Err(self.bad("expected a value")),
        }
    }

    /// A value built in its own handle scope (its handles are freed after).
    unsafe fn scoped(&mut self, depth: usize) -> Result<sys::napi_value> {
        let env = self.env;
        let mut scope = ptr::null_mut();
        unsafe {
            check(sys::napi_open_escapable_handle_scope(env, &mut scope))?;
            self.serial = self.serial.wrapping_add(1);
            self.scopes.push(self.serial);
            let r = self.value(depth).and_then(|v| {
                let mut escaped = ptr::null_mut();
                check(sys::napi_escape_handle(env, scope, v, &mut escaped))?;
                Ok(escaped)
            });
            self.scopes.pop();
            check(sys::napi_close_escapable_handle_scope(env, scope))?;
            r
        }
    }

    unsafe fn word(
        &mut self,
        w: &[u8],
        make: impl FnOnce(*mut sys::napi_value) -> sys::napi_status,
    ) -> Result<sys::napi_value> {
        if !self.json[self.pos..].starts_with(w) {
            return Err(self.bad("expected true, false or null"));
        }
        self.pos += w.len();
        let mut out = ptr::null_mut();
        check(make(&mut out))?;
        Ok(out)
    }

    unsafe fn number(&mut self) -> Result<sys::napi_value> {
        let start = self.pos;
        while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.json.get(self.pos) {
            self.pos += 1;
        }
        let text = std::str::from_utf8(&self.json[start..self.pos]).unwrap_or("");
        let n: f64 = text.parse().map_err(|_| self.bad("not a number"))?;
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_create_double(self.env, n, &mut out) })?;
        Ok(out)
    }

    /// A string whose opening quote was just read; `key`: an object key.
    unsafe fn string(&mut self, key: bool) -> Result<sys::napi_value> {
        let json = self.json;
        let start = self.pos;
        let mut high = false;
        let mut i = start;
        loop {
            match json.get(i) {
                Some(b'"') => break,
                Some(b'\\') => return unsafe { self.escaped(start) },
                Some(&c) => {
                    high |= c >= 0x80;
                    i += 1;
                }
                None => return Err(self.bad("unterminated string")),
            }
        }
        self.pos = i + 1;
        let b = &json[start..i];
        let cached = key || b.len() <= SHORT;
        let slot = Cache::slot(b);
        if cached {
            let cache = if key { &self.keys } else { &self.values };
            let e = cache.slots[slot];
            let live = e.level == 0
                || (e.level <= self.scopes.len() && self.scopes[e.level - 1] == e.serial);
            if live && !e.value.is_null() && e.bytes == b {
                return Ok(e.value);
            }
        }
        let mut out = ptr::null_mut();
        unsafe {
            if high {
                check(sys::napi_create_string_utf8(
                    self.env,
                    b.as_ptr().cast(),
                    b.len() as isize,
                    &mut out,
                ))?;
            } else {
                check(sys::napi_create_string_latin1(
                    self.env,
                    b.as_ptr().cast(),
                    b.len() as isize,
                    &mut out,
                ))?;
            }
        }
        if cached {
            let level = self.scopes.len();
            let serial = self.scopes.last().copied().unwrap_or(0);
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
    unsafe fn escaped(&mut self, start: usize) -> Result<sys::napi_value> {
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
        let mut out = ptr::null_mut();
        let r = check(unsafe {
            sys::napi_create_string_utf16(self.env, s.as_ptr(), s.len() as isize, &mut out)
        });
        self.scratch = s;
        r.map(|()| out)
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
