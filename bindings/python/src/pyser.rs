//! A `serde::Serializer` whose output is Python objects: the core's
//! `Serialize` values (diagnostics, validation outcomes, render warnings)
//! become `dict` / `list` / `str` / `int` / `float` / `bool` / `None` in one
//! pass, with no JSON text in between. Field names are `&'static str`, so
//! each becomes one interned Python string, looked up by address.

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde::ser::{self, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

/// Builds the Python value of `v` (the same value `serde_json` would write).
pub fn to_py<'py, T: Serialize + ?Sized>(py: Python<'py>, v: &T) -> PyResult<Bound<'py, PyAny>> {
    let keys = RefCell::new(Keys::default());
    v.serialize(Ser { py, keys: &keys }).map_err(|e| e.0)
}

/// Interned Python strings of `&'static str` field names, by address.
#[derive(Default)]
struct Keys {
    map: HashMap<(usize, usize), Py<PyString>>,
}

impl Keys {
    fn get<'py>(&mut self, py: Python<'py>, k: &'static str) -> Bound<'py, PyString> {
        let id = (k.as_ptr() as usize, k.len());
        self.map
            .entry(id)
            .or_insert_with(|| PyString::intern(py, k).unbind())
            .bind(py)
            .clone()
    }
}

/// A Python error carried through serde.
#[derive(Debug)]
pub struct Error(PyErr);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(crate::errors::internal(msg.to_string()))
    }
}

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Self {
        Error(e)
    }
}

type R<'py> = Result<Bound<'py, PyAny>, Error>;

#[derive(Clone, Copy)]
struct Ser<'py, 'k> {
    py: Python<'py>,
    keys: &'k RefCell<Keys>,
}

impl<'py, 'k> Ser<'py, 'k> {
    fn int<T>(self, v: T) -> R<'py>
    where
        T: IntoPyObject<'py>,
    {
        Ok(v.into_bound_py_any(self.py)?)
    }
    fn key(self, k: &'static str) -> Bound<'py, PyString> {
        self.keys.borrow_mut().get(self.py, k)
    }
}

struct Seq<'py, 'k> {
    s: Ser<'py, 'k>,
    list: Bound<'py, PyList>,
}

struct Map<'py, 'k> {
    s: Ser<'py, 'k>,
    dict: Bound<'py, PyDict>,
    key: Option<Bound<'py, PyAny>>,
}

/// `{variant: value}` (serde_json's externally tagged enum shape).
struct Variant<'py, 'k, T> {
    s: Ser<'py, 'k>,
    name: &'static str,
    inner: T,
}

impl<'py, 'k> ser::Serializer for Ser<'py, 'k> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    type SerializeSeq = Seq<'py, 'k>;
    type SerializeTuple = Seq<'py, 'k>;
    type SerializeTupleStruct = Seq<'py, 'k>;
    type SerializeTupleVariant = Variant<'py, 'k, Seq<'py, 'k>>;
    type SerializeMap = Map<'py, 'k>;
    type SerializeStruct = Map<'py, 'k>;
    type SerializeStructVariant = Variant<'py, 'k, Map<'py, 'k>>;

    fn serialize_bool(self, v: bool) -> R<'py> {
        self.int(v)
    }
    fn serialize_i8(self, v: i8) -> R<'py> {
        self.int(v)
    }
    fn serialize_i16(self, v: i16) -> R<'py> {
        self.int(v)
    }
    fn serialize_i32(self, v: i32) -> R<'py> {
        self.int(v)
    }
    fn serialize_i64(self, v: i64) -> R<'py> {
        self.int(v)
    }
    fn serialize_i128(self, v: i128) -> R<'py> {
        self.int(v)
    }
    fn serialize_u8(self, v: u8) -> R<'py> {
        self.int(v)
    }
    fn serialize_u16(self, v: u16) -> R<'py> {
        self.int(v)
    }
    fn serialize_u32(self, v: u32) -> R<'py> {
        self.int(v)
    }
    fn serialize_u64(self, v: u64) -> R<'py> {
        self.int(v)
    }
    fn serialize_u128(self, v: u128) -> R<'py> {
        self.int(v)
    }
    fn serialize_f32(self, v: f32) -> R<'py> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> R<'py> {
        // serde_json writes NaN and infinities as null.
        if v.is_finite() {
            self.int(v)
        } else {
            self.serialize_unit()
        }
    }
    fn serialize_char(self, v: char) -> R<'py> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> R<'py> {
        Ok(PyString::new(self.py, v).into_any())
    }
    fn serialize_bytes(self, v: &[u8]) -> R<'py> {
        let list = PyList::empty(self.py);
        for b in v {
            list.append(*b)?;
        }
        Ok(list.into_any())
    }
    fn serialize_none(self) -> R<'py> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> R<'py> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> R<'py> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> R<'py> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _name: &'static str, _i: u32, variant: &'static str) -> R<'py> {
        Ok(self.key(variant).into_any())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, v: &T) -> R<'py> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        v: &T,
    ) -> R<'py> {
        let d = PyDict::new(self.py);
        d.set_item(self.key(variant), v.serialize(self)?)?;
        Ok(d.into_any())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Seq<'py, 'k>, Error> {
        Ok(Seq {
            s: self,
            list: PyList::empty(self.py),
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'py, 'k>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Seq<'py, 'k>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<'py, 'k, Seq<'py, 'k>>, Error> {
        Ok(Variant {
            s: self,
            name: variant,
            inner: self.serialize_seq(Some(len))?,
        })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'py, 'k>, Error> {
        Ok(Map {
            s: self,
            dict: PyDict::new(self.py),
            key: None,
        })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Map<'py, 'k>, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<'py, 'k, Map<'py, 'k>>, Error> {
        Ok(Variant {
            s: self,
            name: variant,
            inner: self.serialize_map(Some(len))?,
        })
    }
}

impl<'py> ser::SerializeSeq for Seq<'py, '_> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.list.append(v.serialize(self.s)?)?;
        Ok(())
    }
    fn end(self) -> R<'py> {
        Ok(self.list.into_any())
    }
}

impl<'py> ser::SerializeTuple for Seq<'py, '_> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> R<'py> {
        ser::SerializeSeq::end(self)
    }
}

impl<'py> ser::SerializeTupleStruct for Seq<'py, '_> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> R<'py> {
        ser::SerializeSeq::end(self)
    }
}

impl<'py> ser::SerializeMap for Map<'py, '_> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Error> {
        // JSON object keys are strings: serde_json writes numbers and the like as their text.
        let k = k.serialize(self.s)?;
        let k = if k.is_instance_of::<PyString>() {
            k
        } else {
            k.str()?.into_any()
        };
        self.key = Some(k);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        let k = self
            .key
            .take()
            .ok_or_else(|| Error(crate::errors::internal("a map value came before its key")))?;
        self.dict.set_item(k, v.serialize(self.s)?)?;
        Ok(())
    }
    fn end(self) -> R<'py> {
        Ok(self.dict.into_any())
    }
}

impl<'py> ser::SerializeStruct for Map<'py, '_> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        k: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.dict.set_item(self.s.key(k), v.serialize(self.s)?)?;
        Ok(())
    }
    fn end(self) -> R<'py> {
        Ok(self.dict.into_any())
    }
}

impl<'py> ser::SerializeTupleVariant for Variant<'py, '_, Seq<'py, '_>> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(&mut self.inner, v)
    }
    fn end(self) -> R<'py> {
        let d = PyDict::new(self.s.py);
        d.set_item(self.s.key(self.name), self.inner.list)?;
        Ok(d.into_any())
    }
}

impl<'py> ser::SerializeStructVariant for Variant<'py, '_, Map<'py, '_>> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        k: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(&mut self.inner, k, v)
    }
    fn end(self) -> R<'py> {
        let d = PyDict::new(self.s.py);
        d.set_item(self.s.key(self.name), self.inner.dict)?;
        Ok(d.into_any())
    }
}
