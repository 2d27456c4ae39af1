//! What the functions accept as X12 input: `bytes` (kept, never copied),
//! `bytearray` / `memoryview` / other buffers (copied once: they can change
//! under us), `str` (its UTF-8 bytes, kept; never taken for a file name) and
//! `os.PathLike` (the file read once into memory).

use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};

/// Input bytes owned for as long as a result needs them. `Send + Sync`, so
/// the GIL can be released while the core reads them.
#[derive(Debug)]
pub enum Owner {
    /// A Python `bytes` object, referenced (zero copy).
    Bytes(PyBackedBytes),
    /// A Python `str`, referenced through its UTF-8 form.
    Str(PyBackedStr),
    /// Bytes read from a file or copied from a mutable buffer.
    Vec(Vec<u8>),
}

impl Owner {
    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Owner::Bytes(b) => b,
            Owner::Str(s) => s.as_bytes(),
            Owner::Vec(v) => v,
        }
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// The file system path of an `os.PathLike`, if `obj` is one.
pub fn path_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<std::path::PathBuf>> {
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Ok(None);
    }
    if obj.hasattr("__fspath__")? {
        let p = obj.call_method0("__fspath__")?;
        if let Ok(s) = p.extract::<std::path::PathBuf>() {
            return Ok(Some(s));
        }
        return Err(crate::errors::invalid_argument(
            "INVALID_ARGUMENT",
            format!(
                "{}.__fspath__() returned {}, not a str path",
                type_name(obj),
                type_name(&p)
            ),
            true,
        ));
    }
    Ok(None)
}

/// Takes X12 input (`data`) the way every operation accepts it.
pub fn take(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Owner> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Owner::Bytes(PyBackedBytes::from(b.clone())));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Owner::Str(s.clone().try_into()?));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Owner::Vec(b.to_vec()));
    }
    if let Some(path) = path_of(obj)? {
        let py = obj.py();
        let v = py
            .detach(|| std::fs::read(&path))
            .map_err(|e| crate::errors::io(&e, &format!("cannot read {}", path.display())))?;
        return Ok(Owner::Vec(v));
    }
    if let Some(v) = buffer_copy(obj)? {
        return Ok(Owner::Vec(v));
    }
    Err(crate::errors::invalid_argument(
        "INVALID_ARGUMENT",
        format!(
            "{what} must be bytes, bytearray, memoryview, str (X12 text) or a path (os.PathLike), not {}",
            type_name(obj)
        ),
        true,
    ))
}

/// Takes a text argument that may be given as `str` or `bytes` (JSON text, secrets, bodies).
pub fn text_or_bytes(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Owner> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Owner::Bytes(PyBackedBytes::from(b.clone())));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Owner::Str(s.clone().try_into()?));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Owner::Vec(b.to_vec()));
    }
    if let Some(v) = buffer_copy(obj)? {
        return Ok(Owner::Vec(v));
    }
    Err(crate::errors::invalid_argument(
        "INVALID_ARGUMENT",
        format!("{what} must be str or bytes, not {}", type_name(obj)),
        true,
    ))
}

/// A copy of the bytes of any object with the buffer protocol (memoryview,
/// array.array, ...); `None` for other objects. (pyo3's buffer API is not in
/// the limited API before 3.11, so this goes through `memoryview.tobytes()`.)
fn buffer_copy(obj: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u8>>> {
    let py = obj.py();
    let view = if obj.is_instance_of::<PyMemoryView>() {
        obj.clone()
    } else {
        match py.get_type::<PyMemoryView>().call1((obj,)) {
            Ok(v) => v,
            Err(_) => return Ok(None),
        }
    };
    let b = view.call_method0("tobytes")?;
    Ok(Some(b.cast::<PyBytes>()?.as_bytes().to_vec()))
}

/// Where a streaming entry point (`iter_segments`, `validate_stream`,
/// `iter_transactions`) reads from.
#[derive(Debug)]
pub enum StreamSource {
    /// An `os.PathLike`: the file, read by the core without the GIL.
    Path(std::path::PathBuf),
    /// `bytes` or `bytearray` already in memory.
    Bytes(Owner),
    /// A binary file object (`read(n)` returning bytes).
    Reader,
}

/// What `obj` is as a streaming source; a `str` is refused (a path or X12
/// text? pass `pathlib.Path` or bytes).
pub fn stream_source(obj: &Bound<'_, PyAny>) -> PyResult<StreamSource> {
    if let Some(path) = path_of(obj)? {
        return Ok(StreamSource::Path(path));
    }
    if obj.is_instance_of::<PyString>() {
        return Err(crate::errors::invalid_argument(
            "INVALID_ARGUMENT",
            "source is a str: pass a path as pathlib.Path(...), a binary file (open(..., 'rb')) or bytes",
            true,
        ));
    }
    if obj.is_instance_of::<PyBytes>() || obj.is_instance_of::<PyByteArray>() {
        return Ok(StreamSource::Bytes(take(obj, "source")?));
    }
    if obj.hasattr("read")? {
        return Ok(StreamSource::Reader);
    }
    Err(crate::errors::invalid_argument(
        "INVALID_ARGUMENT",
        format!(
            "source must be a path (os.PathLike), a binary file object or bytes, not {}",
            type_name(obj)
        ),
        true,
    ))
}

/// One `read(n)` of a binary file object: its bytes, `None` at the end (an
/// empty read, or `None` from a non-blocking stream with nothing yet).
pub fn read_chunk<'py>(obj: &Bound<'py, PyAny>, n: usize) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let got = obj.call_method1("read", (n,))?;
    if got.is_none() {
        return Ok(None);
    }
    match got.cast_into::<PyBytes>() {
        Ok(b) if b.as_bytes().is_empty() => Ok(None),
        Ok(b) => Ok(Some(b)),
        Err(e) => Err(crate::errors::invalid_argument(
            "INVALID_ARGUMENT",
            format!(
                "source.read() returned {}, not bytes: open the file in binary mode ('rb')",
                type_name(e.into_inner().as_any())
            ),
            true,
        )),
    }
}
