//! X12 bytes as Python `str` (a leaf: the views and the JSON reader both
//! use it).

use pyo3::prelude::*;
use pyo3::types::PyString;

/// Lossy UTF-8 text of X12 bytes (invalid bytes become U+FFFD, as in the JSON contract).
pub fn text<'py>(py: Python<'py>, b: &[u8]) -> Bound<'py, PyString> {
    match std::str::from_utf8(b) {
        Ok(s) => PyString::new(py, s),
        Err(_) => PyString::new(py, &String::from_utf8_lossy(b)),
    }
}
