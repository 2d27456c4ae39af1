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
    let cache = RefCell::new(Strings::new(py));
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

/// Strings already built in this call: object keys (interned) and short
/// values (element values such as `EA`, `BP`, qualifiers, dates repeat all
/// over a file): one object each.
/// A key's bytes and its interned `str`.
type KeySlot<'py> = (Box<[u8]>, Bound<'py, PyString>);

struct Strings<'py> {
    values: ShortStrings<'py>,
    /// The reader's front table of keys ([`Strings::key_bytes`]).
    key_slots: Vec<Option<KeySlot<'py>>>,
    /// Object keys, interned once per call.
    keys: HashMap<Box<str>, Py<PyString>, BuildHasherDefault<FxHash>>,
}

impl<'py> Strings<'py> {
    fn new(py: Python<'py>) -> Self {
        Strings {
            values: ShortStrings::new(py),
            key_slots: vec![None; 1 << KEY_BITS],
            keys: HashMap::default(),
        }
    }
    /// The interned key of UTF-8 bytes (the reader's keys): a direct-mapped
    /// table by length and first and last 8 bytes in front of [`Strings::key`].
    #[inline]
    fn key_bytes(&mut self, py: Python<'py>, k: &[u8]) -> Result<Bound<'py, PyString>, Fail> {
        let word = |b: &[u8]| {
            let mut w = [0u8; 8];
            w[..b.len()].copy_from_slice(b);
            u64::from_le_bytes(w)
        };
        let n = k.len();
        let h = word(&k[..n.min(8)]) ^ word(&k[n.saturating_sub(8)..]).rotate_left(29) ^ n as u64;
        let slot = (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - KEY_BITS)) as usize;
        if let Some((bytes, s)) = &self.key_slots[slot]
            && **bytes == *k
        {
            return Ok(s.clone());
        }
        let s = std::str::from_utf8(k).map_err(|_| Fail::Unexpected)?;
        let s = self.key(py, s);
        self.key_slots[slot] = Some((k.into(), s.clone()));
        Ok(s)
    }

    fn key(&mut self, py: Python<'py>, k: &str) -> Bound<'py, PyString> {
        if let Some(p) = self.keys.get(k) {
            return p.bind(py).clone();
        }
        let p = PyString::intern(py, k);
        if self.keys.len() < SHARED_ENTRIES {
            self.keys.insert(k.into(), p.clone().unbind());
        }
        p
    }
}

/// Strings up to this length are shared; longer ones are rarely repeated.
pub const SHARED_MAX: usize = 12;
/// A bound on the cache (a file of distinct short values must not grow it without limit).
const SHARED_ENTRIES: usize = 1 << 16;
/// Values up to this length go to the direct-mapped table of [`ShortStrings`].
const WORD: usize = 8;
/// log2 of the number of slots of the reader's table of keys (a few hundred distinct names).
const KEY_BITS: u32 = 10;
/// log2 of the number of slots of that table.
const SLOT_BITS: u32 = 12;

/// Python `str`s of short byte strings already built in one call, by their
/// bytes. Up to 8 bytes (most X12 values: qualifiers, codes, dates,
/// quantities) they live in a direct-mapped table: the bytes as one `u64`,
/// one multiply for the slot, one compare, no slice hashing and no `memcmp`;
/// a value whose slot is taken replaces the one there (that one is built
/// again if it comes back: more `str` objects, the same values). From 9 to
/// [`SHARED_MAX`] bytes they are in a hash map, bounded; longer ones are not
/// shared.
pub struct ShortStrings<'py> {
    py: Python<'py>,
    slots: Vec<(u64, u8, Option<Bound<'py, PyString>>)>,
    longer: HashMap<Box<[u8]>, Bound<'py, PyString>, BuildHasherDefault<FxHash>>,
}

impl<'py> ShortStrings<'py> {
    pub fn new(py: Python<'py>) -> Self {
        ShortStrings {
            py,
            slots: vec![(0, 0, None); 1 << SLOT_BITS],
            longer: HashMap::default(),
        }
    }

    /// The `str` of `b` (lossy UTF-8, as the core's JSON text has it), shared when short.
    #[inline]
    pub fn get(&mut self, b: &[u8]) -> Bound<'py, PyString> {
        if b.len() <= WORD {
            let mut w = [0u8; WORD];
            w[..b.len()].copy_from_slice(b);
            let w = u64::from_le_bytes(w);
            let len = b.len() as u8;
            let slot = ((w ^ u64::from(len)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                >> (64 - SLOT_BITS)) as usize;
            let e = &mut self.slots[slot];
            if e.0 == w
                && e.1 == len
                && let Some(s) = &e.2
            {
                return s.clone();
            }
            let s = crate::text::text(self.py, b);
            *e = (w, len, Some(s.clone()));
            return s;
        }
        if b.len() > SHARED_MAX {
            return crate::text::text(self.py, b);
        }
        if let Some(s) = self.longer.get(b) {
            return s.clone();
        }
        let s = crate::text::text(self.py, b);
        if self.longer.len() < SHARED_ENTRIES {
            self.longer.insert(b.into(), s.clone());
        }
        s
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
    cache: &'c RefCell<Strings<'py>>,
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
        Ok(self.cache.borrow_mut().values.get(v.as_bytes()).into_any())
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
    cache: &'c RefCell<Strings<'py>>,
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
/// of the JSON is not turned into objects. `to_dict()` takes the documents
/// from here: the core writes them in one pass with reused buffers, in the
/// contract's key order.
///
/// `known` says, for each transaction set in order, whether its type is one
/// of the 18 mapped ones (`x12kit::documents::is_known`): the core writes
/// `document` only for those (and leaves it out when a set of a known type
/// cannot be mapped). Fast path: the core writes a set's document right
/// after its `segments` array, as `],"document":{`, and that byte sequence
/// cannot occur anywhere else in its JSON (a `"` inside a string is always
/// escaped, so `,"` never occurs in one, and `document` is not a key of any
/// other object the core writes: mapped documents' keys are the
/// declarations' field names). When there is exactly one such sequence per
/// known set, each is read in place (memmem, then one value parsed from
/// there) and the megabytes of segments between them are never looked at.
/// Otherwise (some known set could not be mapped) every key of the text is
/// walked down to the transactions to find each set's `document`.
pub fn documents<'py>(
    py: Python<'py>,
    json: &[u8],
    known: &[bool],
) -> PyResult<Vec<Option<Bound<'py, PyAny>>>> {
    const KEY: &[u8] = b"],\"document\":{";
    let cache = RefCell::new(Strings::new(py));
    let hits: Vec<usize> = memchr::memmem::find_iter(json, KEY).collect();
    if hits.len() == known.iter().filter(|&&k| k).count() {
        let mut hits = hits.into_iter();
        let mut out = Vec::with_capacity(known.len());
        for &k in known {
            let doc = match if k { hits.next() } else { None } {
                // The value starts at the `{` that ends KEY.
                Some(at) => Some(value_at(py, &json[at + KEY.len() - 1..], &cache)?),
                None => None,
            };
            out.push(doc);
        }
        return Ok(out);
    }
    let mut de = serde_json::Deserializer::from_slice(json);
    let out = RefCell::new(Vec::with_capacity(known.len()));
    let walk = Walk {
        seed: Seed { py, cache: &cache },
        out: &out,
        level: Level::Top,
    };
    walk.deserialize(&mut de)
        .map_err(|e| crate::errors::internal(format!("the core's JSON could not be read: {e}")))?;
    de.end()
        .map_err(|e| crate::errors::internal(format!("the core's JSON has trailing data: {e}")))?;
    let out = out.into_inner();
    if out.len() != known.len() {
        return Err(crate::errors::internal(
            "the core's JSON has a different number of transaction sets than its parse tree",
        ));
    }
    Ok(out)
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

/// The Python value of the JSON value at the start of `json` (what follows
/// it is not looked at): [`Reader`], a reader for the compact JSON the core
/// writes; anything it does not expect (whitespace, an escape it does not
/// decode, a lone surrogate, a syntax error) is read again by serde_json,
/// which gives the same values and a clear error for bad text.
fn value_at<'py>(
    py: Python<'py>,
    json: &[u8],
    cache: &RefCell<Strings<'py>>,
) -> PyResult<Bound<'py, PyAny>> {
    let fast = {
        // The borrow of the cache ends with this block (serde_json's Seed borrows it again).
        let mut strings = cache.borrow_mut();
        let mut r = Reader {
            py,
            b: json,
            i: 0,
            cache: &mut strings,
            scratch: Vec::new(),
        };
        r.value(0)
    };
    match fast {
        Ok(v) => Ok(v),
        Err(Fail::Py(e)) => Err(e),
        Err(Fail::Unexpected) => {
            let mut de = serde_json::Deserializer::from_slice(json);
            Seed { py, cache }.deserialize(&mut de).map_err(|e| {
                crate::errors::internal(format!("the core's JSON could not be read: {e}"))
            })
        }
    }
}

enum Fail {
    Py(PyErr),
    /// Text the fast reader leaves to serde_json.
    Unexpected,
}

impl From<PyErr> for Fail {
    fn from(e: PyErr) -> Self {
        Fail::Py(e)
    }
}

/// Where a string read by [`Reader::raw_string`] is: in the input, or decoded into the scratch buffer.
#[derive(Clone, Copy)]
enum Span {
    Input(usize, usize),
    Scratch,
}

impl Span {
    #[inline]
    fn of<'s>(self, input: &'s [u8], scratch: &'s [u8]) -> &'s [u8] {
        match self {
            Span::Input(a, b) => &input[a..b],
            Span::Scratch => scratch,
        }
    }
}

/// Nesting deeper than this is left to serde_json (mapped documents are a few levels deep).
const READER_DEPTH: usize = 64;

/// Reads the compact JSON of the core's writers straight into Python
/// objects: no `str` validation pass before Python's own decoding, keys
/// interned, short values shared ([`ShortStrings`]), integers as `int`,
/// other numbers as `float` (as `json.loads` does).
struct Reader<'a, 'c, 'py> {
    py: Python<'py>,
    b: &'a [u8],
    i: usize,
    cache: &'c mut Strings<'py>,
    scratch: Vec<u8>,
}

impl<'py> Reader<'_, '_, 'py> {
    #[inline]
    fn peek(&self) -> Result<u8, Fail> {
        self.b.get(self.i).copied().ok_or(Fail::Unexpected)
    }

    #[inline]
    fn expect(&mut self, c: u8) -> Result<(), Fail> {
        if self.peek()? != c {
            return Err(Fail::Unexpected);
        }
        self.i += 1;
        Ok(())
    }

    fn value(&mut self, depth: usize) -> Result<Bound<'py, PyAny>, Fail> {
        if depth > READER_DEPTH {
            return Err(Fail::Unexpected);
        }
        match self.peek()? {
            b'{' => {
                self.i += 1;
                let d = PyDict::new(self.py);
                if self.peek()? == b'}' {
                    self.i += 1;
                    return Ok(d.into_any());
                }
                loop {
                    let span = self.raw_string()?;
                    let k = self
                        .cache
                        .key_bytes(self.py, span.of(self.b, &self.scratch))?;
                    self.expect(b':')?;
                    let v = self.value(depth + 1)?;
                    d.set_item(k, v)?;
                    match self.peek()? {
                        b',' => self.i += 1,
                        b'}' => {
                            self.i += 1;
                            return Ok(d.into_any());
                        }
                        _ => return Err(Fail::Unexpected),
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let l = PyList::empty(self.py);
                if self.peek()? == b']' {
                    self.i += 1;
                    return Ok(l.into_any());
                }
                loop {
                    l.append(self.value(depth + 1)?)?;
                    match self.peek()? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            return Ok(l.into_any());
                        }
                        _ => return Err(Fail::Unexpected),
                    }
                }
            }
            b'"' => {
                let span = self.raw_string()?;
                // ShortStrings decodes with text::text: no separate UTF-8 check here
                // (the core writes UTF-8; invalid bytes would become U+FFFD as in its text).
                Ok(self
                    .cache
                    .values
                    .get(span.of(self.b, &self.scratch))
                    .into_any())
            }
            b't' => {
                self.word(b"true")?;
                Ok(pyo3::types::PyBool::new(self.py, true)
                    .to_owned()
                    .into_any())
            }
            b'f' => {
                self.word(b"false")?;
                Ok(pyo3::types::PyBool::new(self.py, false)
                    .to_owned()
                    .into_any())
            }
            b'n' => {
                self.word(b"null")?;
                Ok(self.py.None().into_bound(self.py))
            }
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(Fail::Unexpected),
        }
    }

    fn word(&mut self, w: &[u8]) -> Result<(), Fail> {
        if !self.b[self.i..].starts_with(w) {
            return Err(Fail::Unexpected);
        }
        self.i += w.len();
        Ok(())
    }

    /// A string (at its opening quote): where its bytes are, escapes decoded.
    fn raw_string(&mut self) -> Result<Span, Fail> {
        self.expect(b'"')?;
        let start = self.i;
        let rest = &self.b[start..];
        // (Raw control characters, which JSON does not allow in a string and the
        // core never writes, are not looked for: Python takes them as they are.)
        let Some(n) = memchr::memchr2(b'"', b'\\', rest) else {
            return Err(Fail::Unexpected);
        };
        if rest[n] == b'"' {
            self.i = start + n + 1;
            return Ok(Span::Input(start, start + n));
        }
        // Escapes: decode into the scratch buffer.
        self.scratch.clear();
        self.scratch.extend_from_slice(&rest[..n]);
        let mut i = start + n;
        loop {
            let c = *self.b.get(i).ok_or(Fail::Unexpected)?;
            match c {
                b'"' => {
                    self.i = i + 1;
                    return Ok(Span::Scratch);
                }
                b'\\' => {
                    let e = *self.b.get(i + 1).ok_or(Fail::Unexpected)?;
                    i += 2;
                    let plain = match e {
                        b'"' => b'"',
                        b'\\' => b'\\',
                        b'/' => b'/',
                        b'b' => 0x08,
                        b'f' => 0x0C,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'u' => {
                            let hex = self.b.get(i..i + 4).ok_or(Fail::Unexpected)?;
                            let hex = std::str::from_utf8(hex).map_err(|_| Fail::Unexpected)?;
                            let u = u32::from_str_radix(hex, 16).map_err(|_| Fail::Unexpected)?;
                            i += 4;
                            // Surrogates (pairs or lone ones) are left to serde_json.
                            let ch = char::from_u32(u).ok_or(Fail::Unexpected)?;
                            let mut buf = [0u8; 4];
                            self.scratch
                                .extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                            continue;
                        }
                        _ => return Err(Fail::Unexpected),
                    };
                    self.scratch.push(plain);
                }
                c => {
                    self.scratch.push(c);
                    i += 1;
                }
            }
        }
    }

    /// A number: `int` when it has no fraction or exponent, else `float`.
    fn number(&mut self) -> Result<Bound<'py, PyAny>, Fail> {
        let start = self.i;
        let mut float = false;
        while let Some(&c) = self.b.get(self.i) {
            match c {
                b'0'..=b'9' | b'-' => {}
                b'.' | b'e' | b'E' | b'+' => float = true,
                _ => break,
            }
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.b[start..self.i]).map_err(|_| Fail::Unexpected)?;
        if float {
            let f: f64 = text.parse().map_err(|_| Fail::Unexpected)?;
            if !f.is_finite() {
                return Err(Fail::Unexpected);
            }
            return Ok(pyo3::types::PyFloat::new(self.py, f).into_any());
        }
        // Integers beyond 64 bits are left to serde_json (the core writes none).
        let n: i64 = text.parse().map_err(|_| Fail::Unexpected)?;
        Ok(pyo3::types::PyInt::new(self.py, n).into_any())
    }
}
