//! JSON (the core's output bytes) straight into Python objects: one pass of
//! serde_json's deserializer whose visitor builds `dict` / `list` / `str` /
//! `int` / `float` / `bool` / `None`, with no intermediate `serde_json::Value`
//! and no call into Python's `json` module. Object keys repeat a lot in the
//! parse contract (`id`, `elements`, ...), so keys are interned.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

/// Builds the Python value of a JSON text produced by the core.
///
/// The cyclic garbage collector is paused while the objects are built: a
/// parse result is millions of fresh dicts and lists that cannot form cycles,
/// and every 700 container allocations would otherwise start a collection
/// that walks the growing tree again (most of the cost on large inputs).
pub fn loads<'py>(py: Python<'py>, json: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    without_gc(py, || loads_inner(py, json))
}

/// Runs `f` with the cyclic garbage collector paused (and restored after,
/// whatever `f` returns): for building large trees of fresh, acyclic objects.
pub fn without_gc<'py, T>(py: Python<'py>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    let gc = py.import("gc")?;
    let was_enabled = gc.call_method0("isenabled")?.is_truthy()?;
    if was_enabled {
        gc.call_method0("disable")?;
    }
    let out = f();
    if was_enabled {
        gc.call_method0("enable")?;
    }
    out
}

fn loads_inner<'py>(py: Python<'py>, json: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let mut de = serde_json::Deserializer::from_slice(json);
    let cache = RefCell::new(Strings::default());
    // Deep JSON comes only from the core's own output, which is shallow; keep serde's limit on.
    let v = Seed { py, cache: &cache }
        .deserialize(&mut de)
        .map_err(|e| crate::errors::internal(format!("the core's JSON could not be read: {e}")))?;
    de.end()
        .map_err(|e| crate::errors::internal(format!("the core's JSON has trailing data: {e}")))?;
    Ok(v)
}

/// Converts a `serde_json::Value` (schemas, render documents) into Python objects.
pub fn value_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => number(py, n)?,
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(value_to_py(py, x)?)?;
            }
            l.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(PyString::intern(py, k), value_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

fn number<'py>(py: Python<'py>, n: &serde_json::Number) -> PyResult<Bound<'py, PyAny>> {
    if let Some(i) = n.as_u64() {
        Ok(i.into_pyobject(py)?.into_any())
    } else if let Some(i) = n.as_i64() {
        Ok(i.into_pyobject(py)?.into_any())
    } else {
        Ok(n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any())
    }
}

/// Converts Python objects (dicts from callers: payloads, partners, parse results) into a `serde_json::Value`.
pub fn py_to_value(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<serde_json::Value> {
    use pyo3::types::{PyBool, PyFloat, PyInt, PyTuple};
    use serde_json::Value;
    if depth > 256 {
        return Err(crate::errors::invalid_argument(
            "INVALID_ARGUMENT",
            "the value is nested more than 256 levels deep",
            false,
        ));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(obj.extract::<bool>()?));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(crate::errors::invalid_argument(
            "INVALID_ARGUMENT",
            "an integer does not fit in 64 bits",
            false,
        ));
    }
    if obj.is_instance_of::<PyFloat>() {
        let f: f64 = obj.extract()?;
        return serde_json::Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| {
                crate::errors::invalid_argument(
                    "INVALID_ARGUMENT",
                    "NaN and infinite floats have no JSON form",
                    false,
                )
            });
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut m = serde_json::Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let k = k.cast::<PyString>().map_err(|_| {
                crate::errors::invalid_argument(
                    "INVALID_ARGUMENT",
                    format!(
                        "dictionary keys must be str, not {}",
                        k.get_type()
                            .name()
                            .map(|n| n.to_string())
                            .unwrap_or_default()
                    ),
                    true,
                )
            })?;
            m.insert(k.to_cow()?.into_owned(), py_to_value(&v, depth + 1)?);
        }
        return Ok(Value::Object(m));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l
            .iter()
            .map(|x| py_to_value(&x, depth + 1))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t
            .iter()
            .map(|x| py_to_value(&x, depth + 1))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array);
    }
    Err(crate::errors::invalid_argument(
        "INVALID_ARGUMENT",
        format!(
            "a {} has no JSON form (use dict, list, str, int, float, bool or None)",
            obj.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ),
        true,
    ))
}

/// Short strings already built in this call (element values such as `EA`,
/// `BP`, qualifiers, dates repeat all over a file): one object each.
#[derive(Default)]
struct Strings {
    map: HashMap<Box<str>, Py<PyString>, BuildHasherDefault<FxHash>>,
    /// Object keys, interned once per call.
    keys: HashMap<Box<str>, Py<PyString>, BuildHasherDefault<FxHash>>,
}

/// Strings up to this length are shared; longer ones are rarely repeated.
const SHARED_MAX: usize = 12;
/// A bound on the cache (a file of distinct short values must not grow it without limit).
const SHARED_ENTRIES: usize = 1 << 16;

impl Strings {
    fn key<'py>(&mut self, py: Python<'py>, k: &str) -> Bound<'py, PyString> {
        if let Some(p) = self.keys.get(k) {
            return p.bind(py).clone();
        }
        let p = PyString::intern(py, k);
        if self.keys.len() < SHARED_ENTRIES {
            self.keys.insert(k.into(), p.clone().unbind());
        }
        p
    }
    fn get<'py>(&mut self, py: Python<'py>, s: &str) -> Bound<'py, PyString> {
        if s.len() > SHARED_MAX {
            return PyString::new(py, s);
        }
        if let Some(p) = self.map.get(s) {
            return p.bind(py).clone();
        }
        let p = PyString::new(py, s);
        if self.map.len() < SHARED_ENTRIES {
            self.map.insert(s.into(), p.clone().unbind());
        }
        p
    }
}

/// A fast hash for short byte strings (the FxHash mix, eight bytes at a time).
#[derive(Default)]
pub struct FxHash(u64);

impl FxHash {
    #[inline]
    fn mix(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for FxHash {
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(w));
        }
    }
    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.mix(u64::from(n));
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }
}

#[derive(Clone, Copy)]
struct Seed<'py, 'c> {
    py: Python<'py>,
    cache: &'c RefCell<Strings>,
}

impl<'de, 'py> DeserializeSeed<'de> for Seed<'py, '_> {
    type Value = Bound<'py, PyAny>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

fn py_err<E: de::Error>(e: PyErr) -> E {
    E::custom(e.to_string())
}

impl<'de, 'py> Visitor<'de> for Seed<'py, '_> {
    type Value = Bound<'py, PyAny>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(pyo3::types::PyBool::new(self.py, v).to_owned().into_any())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into_pyobject(self.py)
            .map_or_else(|e| match e {}, |o| o.into_any()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into_pyobject(self.py)
            .map_or_else(|e| match e {}, |o| o.into_any()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(v.into_pyobject(self.py)
            .map_or_else(|e| match e {}, |o| o.into_any()))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.cache.borrow_mut().get(self.py, v).into_any())
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        self.visit_str(v)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        self.visit_str(&v)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_unit()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let l = PyList::empty(self.py);
        while let Some(x) = seq.next_element_seed(self)? {
            l.append(x).map_err(py_err)?;
        }
        Ok(l.into_any())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let d = PyDict::new(self.py);
        while let Some(k) = map.next_key_seed(Key {
            py: self.py,
            cache: self.cache,
        })? {
            let v = map.next_value_seed(self)?;
            d.set_item(k, v).map_err(py_err)?;
        }
        Ok(d.into_any())
    }
}

/// Object keys: interned (the same few names repeat in every segment).
struct Key<'py, 'c> {
    py: Python<'py>,
    cache: &'c RefCell<Strings>,
}

impl<'de, 'py> DeserializeSeed<'de> for Key<'py, '_> {
    type Value = Bound<'py, PyString>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, 'py> Visitor<'de> for Key<'py, '_> {
    type Value = Bound<'py, PyString>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.cache.borrow_mut().key(self.py, v))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        self.visit_str(v)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        self.visit_str(&v)
    }
}

/// The `document` of every transaction set of a parse result's JSON, in
/// order (`None` for a set without one), built as Python objects; the rest
/// of the JSON is skipped. `to_dict()` takes the documents from here: the
/// core writes them in one pass with reused buffers, in the contract's key order.
pub fn documents<'py>(py: Python<'py>, json: &[u8]) -> PyResult<Vec<Option<Bound<'py, PyAny>>>> {
    let mut de = serde_json::Deserializer::from_slice(json);
    let cache = RefCell::new(Strings::default());
    let out = RefCell::new(Vec::new());
    let walk = Walk {
        seed: Seed { py, cache: &cache },
        out: &out,
        level: Level::Top,
    };
    walk.deserialize(&mut de)
        .map_err(|e| crate::errors::internal(format!("the core's JSON could not be read: {e}")))?;
    de.end()
        .map_err(|e| crate::errors::internal(format!("the core's JSON has trailing data: {e}")))?;
    Ok(out.into_inner())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Top,
    Interchange,
    Group,
    Transaction,
}

/// Walks top → interchanges → groups → transactions, keeping only `document`.
#[derive(Clone, Copy)]
struct Walk<'py, 'c> {
    seed: Seed<'py, 'c>,
    out: &'c RefCell<Vec<Option<Bound<'py, PyAny>>>>,
    level: Level,
}

impl<'de> DeserializeSeed<'de> for Walk<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

/// A list of `Walk` objects one level down.
#[derive(Clone, Copy)]
struct Items<'py, 'c>(Walk<'py, 'c>);

impl<'de> DeserializeSeed<'de> for Items<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Items<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self.0)?.is_some() {}
        Ok(())
    }
}

impl<'de> Visitor<'de> for Walk<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut document = None;
        while let Some(k) = map.next_key::<&'de str>()? {
            let down = |level| Items(Walk { level, ..self });
            match (self.level, k) {
                (Level::Top, "interchanges") => map.next_value_seed(down(Level::Interchange))?,
                (Level::Interchange, "groups") => map.next_value_seed(down(Level::Group))?,
                (Level::Group, "transactions") => map.next_value_seed(down(Level::Transaction))?,
                (Level::Transaction, "document") => {
                    document = Some(map.next_value_seed(self.seed)?);
                }
                _ => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        if self.level == Level::Transaction {
            self.out.borrow_mut().push(document);
        }
        Ok(())
    }
}
