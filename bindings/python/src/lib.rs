//! The Python module `x12kit` (native part `x12kit._x12kit`): thin pyo3
//! wrappers of the core's operations (`x12kit::ops`). Bytes and plain options
//! in, bytes / JSON-shaped Python objects / lazy views out; every error is a
//! typed exception from `x12kit._errors` carrying the core's stable code; the
//! GIL is released while the core works; no Rust panic reaches Python.

mod errors;
mod input;
mod native;
mod ops;
mod pyjson;
mod pyser;
mod sets;
mod stream;
mod text;
mod tree;
mod webhook;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// Test-only, not part of the API: raises a Rust panic inside the guard (the
/// suite proves it becomes `X12kitError(code="INTERNAL")`). An attribute of
/// the private `x12kit._x12kit` only, kept out of its `__all__` and the stubs.
#[pyfunction]
fn _panic_for_tests() -> PyResult<()> {
    errors::guard(|| -> PyResult<()> { panic!("a deliberate panic for the tests") })
}

#[pymodule(name = "_x12kit")]
fn x12kit_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(ops::parse, m)?)?;
    m.add_function(wrap_pyfunction!(ops::parse_json, m)?)?;
    m.add_function(wrap_pyfunction!(ops::validate, m)?)?;
    m.add_function(wrap_pyfunction!(ops::validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(ops::acknowledge, m)?)?;
    m.add_function(wrap_pyfunction!(ops::read_acknowledgement, m)?)?;
    m.add_function(wrap_pyfunction!(ops::read_acknowledgement_json, m)?)?;
    m.add_function(wrap_pyfunction!(ops::render, m)?)?;
    m.add_function(wrap_pyfunction!(ops::render_document, m)?)?;
    m.add_function(wrap_pyfunction!(ops::document_schema, m)?)?;
    m.add_function(wrap_pyfunction!(ops::document_schema_json, m)?)?;
    m.add_function(wrap_pyfunction!(ops::partner_schema, m)?)?;
    m.add_function(wrap_pyfunction!(ops::partner_schema_json, m)?)?;
    m.add_function(wrap_pyfunction!(ops::describe_segment, m)?)?;
    m.add_function(wrap_pyfunction!(ops::describe_segment_json, m)?)?;
    m.add_function(wrap_pyfunction!(ops::payloads_from_csv, m)?)?;
    m.add_function(wrap_pyfunction!(ops::payloads_from_csv_json, m)?)?;
    m.add_function(wrap_pyfunction!(ops::split, m)?)?;
    m.add_function(wrap_pyfunction!(ops::split_json, m)?)?;
    m.add_function(wrap_pyfunction!(ops::rebuild_part, m)?)?;
    m.add_function(wrap_pyfunction!(ops::rebuild_part_json, m)?)?;
    m.add_function(wrap_pyfunction!(ops::merge, m)?)?;
    m.add_function(wrap_pyfunction!(ops::write, m)?)?;
    m.add_function(wrap_pyfunction!(stream::iter_segments, m)?)?;
    m.add_function(wrap_pyfunction!(sets::iter_transactions, m)?)?;
    m.add_function(wrap_pyfunction!(stream::validate_stream, m)?)?;
    m.add_class::<tree::ParseResult>()?;
    m.add_class::<tree::PyInterchange>()?;
    m.add_class::<tree::PyGroup>()?;
    m.add_class::<tree::PyTransaction>()?;
    m.add_class::<tree::PySegment>()?;
    m.add_class::<tree::PyElement>()?;
    m.add_class::<tree::PyDiagnostic>()?;
    m.add_class::<tree::SegmentIterator>()?;
    m.add_class::<stream::SegmentStream>()?;
    m.add_class::<sets::TransactionStream>()?;
    m.add_class::<ops::PyValidation>()?;
    m.add_class::<ops::PyRendered>()?;
    webhook::register(m)?;
    m.add(
        "DOCUMENT_TYPES",
        PyTuple::new(py, x12kit::ops::DOCUMENT_TYPES.iter().copied())?,
    )?;
    m.add(
        "ERROR_CODES",
        PyTuple::new(py, x12kit::ErrorCode::ALL.iter().map(|c| c.as_str()))?,
    )?;
    let kinds = PyDict::new(py);
    for c in x12kit::ErrorCode::ALL {
        kinds.set_item(c.as_str(), c.kind().as_str())?;
    }
    m.add("ERROR_KINDS", kinds)?;
    m.add(
        "DIAGNOSTIC_CODES",
        PyTuple::new(py, x12kit::Code::ALL.iter().map(|c| c.as_str()))?,
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // `setattr`, unlike `add_function`, does not list it in `__all__`.
    m.setattr("_panic_for_tests", wrap_pyfunction!(_panic_for_tests, m)?)?;
    Ok(())
}
