//! Core errors -> the Python exception tree.
//!
//! The classes live in `x12kit/_errors.py` (multiple inheritance such as
//! `InvalidArgument(X12kitError, ValueError)` is plain Python there); this
//! file builds their instances from the core's error (code, kind, message,
//! pointer, details) through `x12kit._errors._from_core`, which picks the one
//! class of each code.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList};

static FROM_CORE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// One error as the Python side receives it.
pub struct Raised<'a> {
    pub code: &'a str,
    pub kind: &'a str,
    pub message: &'a str,
    pub pointer: Option<&'a str>,
    /// The problems of the `details` list.
    pub details: &'a [x12kit::Problem],
    /// Raise the `TypeError` flavour of `InvalidArgument` (a wrong Python type).
    pub wrong_type: bool,
}

/// Builds the Python exception for an error.
pub fn raise(py: Python<'_>, r: Raised<'_>) -> PyErr {
    match build(py, &r) {
        Ok(e) => e,
        // The exception module itself failed (cannot happen in an installed package); keep the message.
        Err(e) => e,
    }
}

fn build(py: Python<'_>, r: &Raised<'_>) -> PyResult<PyErr> {
    let f = FROM_CORE.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("x12kit._errors")?.getattr("_from_core")?.unbind())
    })?;
    let kw = PyDict::new(py);
    kw.set_item("code", r.code)?;
    kw.set_item("kind", r.kind)?;
    kw.set_item("message", r.message)?;
    kw.set_item("pointer", r.pointer)?;
    // Each problem as a dict with the keys in the order the core's JSON
    // of a problem gives them when read into a sorted map.
    let details = PyList::empty(py);
    for p in r.details {
        let d = PyDict::new(py);
        d.set_item("code", p.code.as_str())?;
        d.set_item("message", &p.message)?;
        d.set_item("pointer", &p.pointer)?;
        d.set_item("severity", p.severity.as_str())?;
        details.append(d)?;
    }
    kw.set_item("details", details)?;
    kw.set_item("wrong_type", r.wrong_type)?;
    let exc = f.bind(py).call((), Some(&kw))?;
    Ok(PyErr::from_value(exc))
}

/// The core error as its Python exception.
pub fn core_err(e: x12kit::Error) -> PyErr {
    Python::attach(|py| {
        raise(
            py,
            Raised {
                code: e.code().as_str(),
                kind: e.kind().as_str(),
                message: e.message(),
                pointer: e.pointer(),
                details: e.details(),
                wrong_type: false,
            },
        )
    })
}

/// A bug (a caught panic, an impossible state): code `INTERNAL`.
pub fn internal(message: impl AsRef<str>) -> PyErr {
    Python::attach(|py| {
        raise(
            py,
            Raised {
                code: "INTERNAL",
                kind: "internal",
                message: message.as_ref(),
                pointer: None,
                details: &[],
                wrong_type: false,
            },
        )
    })
}

/// The call itself is wrong (a wrong value, or with `wrong_type` a wrong Python type).
pub fn invalid_argument(code: &str, message: impl AsRef<str>, wrong_type: bool) -> PyErr {
    Python::attach(|py| {
        raise(
            py,
            Raised {
                code,
                kind: "invalid_input",
                message: message.as_ref(),
                pointer: None,
                details: &[],
                wrong_type,
            },
        )
    })
}

/// An I/O failure reading a path or a file object.
pub fn io(e: &std::io::Error, what: &str) -> PyErr {
    Python::attach(|py| {
        raise(
            py,
            Raised {
                code: "IO",
                kind: "io",
                message: &format!("{what}: {e}"),
                pointer: None,
                details: &[],
                wrong_type: false,
            },
        )
    })
}

/// Runs `f`, turning a Rust panic into `X12kitError(code="INTERNAL")` (no panic reaches Python).
pub fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(internal(format!(
                "internal error (a bug in x12kit, please report it): {what}"
            )))
        }
    }
}
