//! The operations of `x12kit::ops`, one Python function each. Keyword
//! arguments become the operation's options JSON (camelCase keys, a key left
//! out when the argument is `None`), checked by the core's own options
//! struct, so names, defaults and `INVALID_OPTIONS` errors are the core's.

use crate::errors::{core_err, guard};
use crate::input::{self, Owner};
use crate::pyjson;
use crate::tree::{ParseResult, PyDiagnostic};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use serde::de::DeserializeOwned;
use serde_json::Value;
use x12kit::ops;

/// Builds an options struct from the `options=` mapping (the core's option
/// object, camelCase keys) and `(camelCaseName, value)` keyword pairs on top
/// of it (a keyword left at `None` is left out).
pub fn options<T: DeserializeOwned + Default>(
    base: Option<&Bound<'_, PyAny>>,
    pairs: &[(&str, Option<&Bound<'_, PyAny>>)],
) -> PyResult<T> {
    let mut v = match base {
        Some(b) if !b.is_none() => options_value(b)?,
        _ => Value::Object(serde_json::Map::new()),
    };
    // Not an object: the core's INVALID_OPTIONS ("options must be an object") below.
    if let Value::Object(m) = &mut v {
        for (k, val) in pairs {
            if let Some(val) = val
                && !val.is_none()
            {
                m.insert((*k).to_string(), pyjson::py_to_value(val, 0)?);
            }
        }
    }
    ops::options(v).map_err(core_err)
}

/// The JSON value of an `options=` argument: a dict or any `collections.abc.Mapping`
/// as an object; anything else as its JSON value (which the core then refuses).
fn options_value(b: &Bound<'_, PyAny>) -> PyResult<Value> {
    if b.is_instance_of::<PyDict>() {
        return pyjson::py_to_value(b, 0);
    }
    let py = b.py();
    let mapping = py.import("collections.abc")?.getattr("Mapping")?;
    if b.is_instance(&mapping)? {
        let d = py.get_type::<PyDict>().call1((b,))?;
        return pyjson::py_to_value(&d, 0);
    }
    pyjson::py_to_value(b, 0)
}

/// "now" for an operation: the given Unix seconds, or the system clock.
fn now_secs(now: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
    match now {
        None => Ok(x12kit::clock::unix_now()),
        Some(v) if v.is_none() => Ok(x12kit::clock::unix_now()),
        Some(v) => {
            if v.is_instance_of::<pyo3::types::PyBool>() {
                return Err(crate::errors::invalid_argument(
                    "INVALID_ARGUMENT",
                    "now must be an int (Unix seconds), not bool",
                    true,
                ));
            }
            if let Ok(f) = v.cast::<pyo3::types::PyFloat>() {
                let f = f.value();
                if f.is_finite() && f >= 0.0 {
                    return Ok(f as u64);
                }
            }
            v.extract::<u64>().map_err(|_| {
                crate::errors::invalid_argument(
                    "INVALID_ARGUMENT",
                    format!(
                        "now must be Unix seconds (a non-negative int), not {}",
                        v.repr().map(|r| r.to_string()).unwrap_or_default()
                    ),
                    !(v.is_instance_of::<pyo3::types::PyInt>()),
                )
            })
        }
    }
}

fn to_py_bytes<'py>(py: Python<'py>, b: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, b)
}

fn str_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    match obj.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => Err(crate::errors::invalid_argument(
            "INVALID_ARGUMENT",
            format!(
                "{what} must be str, not {}",
                obj.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ),
            true,
        )),
    }
}

// ------------------------------------------------------------------ parse

/// Parses X12 into a lazy `ParseResult` that keeps the input once.
#[pyfunction]
#[pyo3(signature = (data, *, documents = None, max_set_bytes = None, options = None))]
pub fn parse(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    documents: Option<&Bound<'_, PyAny>>,
    max_set_bytes: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyAny>>,
) -> PyResult<ParseResult> {
    let o: ops::ParseOptions = self::options(
        options,
        &[("documents", documents), ("maxSetBytes", max_set_bytes)],
    )?;
    let owner = input::take(data, "data")?;
    let parsed = py.detach(|| guard(|| Ok(crate::tree::Parsed::build(owner, o.max_set_bytes))))?;
    Ok(ParseResult::new(parsed, o.documents))
}

/// Parses X12 and returns the JSON contract bytes, straight from the core.
#[pyfunction]
#[pyo3(signature = (data, *, documents = None, max_set_bytes = None, options = None))]
pub fn parse_json<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    documents: Option<&Bound<'py, PyAny>>,
    max_set_bytes: Option<&Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let o: ops::ParseOptions = self::options(
        options,
        &[("documents", documents), ("maxSetBytes", max_set_bytes)],
    )?;
    let owner = input::take(data, "data")?;
    let out = py.detach(|| guard(|| Ok(ops::parse_json(owner.as_slice(), &o))))?;
    Ok(to_py_bytes(py, &out))
}

// ------------------------------------------------------------------ validate

/// The result of `validate()`: diagnostics with their TA1/997/999 codes and
/// the outcome of every interchange, group and set.
#[pyclass(frozen, module = "x12kit", name = "Validation")]
#[derive(Debug)]
pub struct PyValidation {
    pub(crate) v: x12kit::Validation,
}

impl PyValidation {
    fn json(&self, py: Python<'_>) -> PyResult<Vec<u8>> {
        let v = &self.v;
        py.detach(|| guard(|| Ok(v.to_json())))
    }
}

#[pymethods]
impl PyValidation {
    /// True when no diagnostic is an error.
    #[getter]
    fn is_valid(&self) -> bool {
        self.v.is_valid()
    }
    /// Number of error diagnostics.
    #[getter]
    fn error_count(&self) -> usize {
        self.v.error_count()
    }
    /// Number of warning diagnostics.
    #[getter]
    fn warning_count(&self) -> usize {
        self.v.warning_count()
    }
    /// Every diagnostic, with its `ack` codes.
    #[getter]
    fn diagnostics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyDiagnostic::list(py, &self.v.diagnostics)
    }
    /// The per-interchange outcomes (TA1, groups with AK9, sets with AK5), as in `to_dict()["interchanges"]`.
    #[getter]
    fn interchanges<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pyjson::without_gc(py, || crate::pyser::to_py(py, &self.v.interchanges))
    }
    /// The validation as Python objects: exactly the JSON of `x12kit validate --json`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pyjson::without_gc(py, || crate::pyser::to_py(py, &self.v))
    }
    /// The JSON bytes of `x12kit validate --json`.
    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let json = self.json(py)?;
        Ok(to_py_bytes(py, &json))
    }
    fn __bool__(&self) -> bool {
        self.v.is_valid()
    }
    fn __repr__(&self) -> String {
        format!(
            "<Validation valid={} errors={} warnings={}>",
            self.v.is_valid(),
            self.v.error_count(),
            self.v.warning_count()
        )
    }
}

/// Validates X12 (the envelope rules; with `structure=True` also the set structure of the 18
/// known types; with `guides=[guide, …]` also the partners' implementation guides).
#[pyfunction]
#[pyo3(signature = (data, *, structure = None, guides = None, options = None))]
pub fn validate(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    structure: Option<&Bound<'_, PyAny>>,
    guides: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyValidation> {
    let o: ops::ValidateOptions =
        self::options(options, &[("structure", structure), ("guides", guides)])?;
    let owner = input::take(data, "data")?;
    let v = py.detach(|| guard(|| Ok(ops::validate(owner.as_slice(), &o))))?;
    Ok(PyValidation { v })
}

/// Validates X12 and returns the JSON bytes of `x12kit validate --json`.
#[pyfunction]
#[pyo3(signature = (data, *, structure = None, guides = None, options = None))]
pub fn validate_json<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    structure: Option<&Bound<'py, PyAny>>,
    guides: Option<&Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let o: ops::ValidateOptions =
        self::options(options, &[("structure", structure), ("guides", guides)])?;
    let owner = input::take(data, "data")?;
    let out = py.detach(|| guard(|| Ok(ops::validate_json(owner.as_slice(), &o))))?;
    Ok(to_py_bytes(py, &out))
}

// ------------------------------------------------------------------ acknowledge

/// Builds the TA1/997/999 acknowledgement of X12 input or of a `Validation`
/// (empty bytes when there is nothing to acknowledge).
#[pyfunction]
#[pyo3(signature = (source, *, kind = None, structure = None, errors_only = None,
    interchange_control_number = None, group_control_number = None, set_control_number = None,
    date = None, time = None, line_break = None, delimiters = None, guides = None, now = None,
    options = None))]
#[allow(clippy::too_many_arguments)]
pub fn acknowledge<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    kind: Option<&Bound<'py, PyAny>>,
    structure: Option<&Bound<'py, PyAny>>,
    errors_only: Option<&Bound<'py, PyAny>>,
    interchange_control_number: Option<&Bound<'py, PyAny>>,
    group_control_number: Option<&Bound<'py, PyAny>>,
    set_control_number: Option<&Bound<'py, PyAny>>,
    date: Option<&Bound<'py, PyAny>>,
    time: Option<&Bound<'py, PyAny>>,
    line_break: Option<&Bound<'py, PyAny>>,
    delimiters: Option<&Bound<'py, PyAny>>,
    guides: Option<&Bound<'py, PyAny>>,
    now: Option<&Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let o: ops::AcknowledgeOptions = self::options(
        options,
        &[
            ("kind", kind),
            ("structure", structure),
            ("errorsOnly", errors_only),
            ("interchangeControlNumber", interchange_control_number),
            ("groupControlNumber", group_control_number),
            ("setControlNumber", set_control_number),
            ("date", date),
            ("time", time),
            ("lineBreak", line_break),
            ("delimiters", delimiters),
            ("guides", guides),
        ],
    )?;
    let now = x12kit::DateTime::from_unix(now_secs(now)?);
    let out = if let Ok(v) = source.cast::<PyValidation>() {
        let v = &v.get().v;
        py.detach(|| guard(|| ops::acknowledge_validation(v, &o, now).map_err(core_err)))?
    } else {
        let owner = input::take(source, "source")?;
        py.detach(|| guard(|| ops::acknowledge(owner.as_slice(), &o, now).map_err(core_err)))?
    };
    Ok(to_py_bytes(py, &out))
}

/// Reads the TA1/997/999 acknowledgements in X12 input: what they accept or reject.
#[pyfunction]
pub fn read_acknowledgement<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let out = read_acknowledgement_json(py, data)?;
    pyjson::loads(py, out.as_bytes())
}

/// `read_acknowledgement` as the core's JSON bytes.
#[pyfunction]
pub fn read_acknowledgement_json<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let owner = input::take(data, "data")?;
    let out = py.detach(|| guard(|| Ok(ops::read_acknowledgement_json(owner.as_slice()))))?;
    Ok(to_py_bytes(py, &out))
}

// ------------------------------------------------------------------ render / schemas / write

/// A JSON argument given as a dict/list (converted natively) or as JSON text (`str`/`bytes`).
enum JsonArg {
    Value(Value),
    Text(Owner),
}

fn json_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<JsonArg> {
    if obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<pyo3::types::PyByteArray>()
    {
        return Ok(JsonArg::Text(input::text_or_bytes(obj, what)?));
    }
    if obj.is_instance_of::<PyDict>() || obj.is_instance_of::<PyList>() {
        return Ok(JsonArg::Value(pyjson::py_to_value(obj, 0)?));
    }
    Err(crate::errors::invalid_argument(
        "INVALID_ARGUMENT",
        format!(
            "{what} must be a dict or JSON text (str or bytes), not {}",
            obj.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ),
        true,
    ))
}

fn json_value(arg: JsonArg, pointer: &str, what: &str) -> Result<Value, x12kit::Error> {
    match arg {
        JsonArg::Value(v) => Ok(v),
        JsonArg::Text(t) => serde_json::from_slice(t.as_slice()).map_err(|e| {
            x12kit::Error::new(
                x12kit::ErrorCode::InvalidJson,
                format!("the {what} is not valid JSON: {e}"),
            )
            .at(pointer)
        }),
    }
}

/// The outcome of `render_document()`: the X12, the payload as mapped back, and warnings.
#[pyclass(frozen, module = "x12kit", name = "Rendered", get_all)]
#[derive(Debug)]
pub struct PyRendered {
    /// The interchange's X12 bytes.
    x12: Py<PyBytes>,
    /// The payload as the X12 maps back (defaults filled in, ignored fields dropped).
    document: Py<PyAny>,
    /// Warnings (e.g. `UNKNOWN_FIELD`): dicts with `severity`, `code`, `pointer`, `message`.
    warnings: Py<PyList>,
}

#[pymethods]
impl PyRendered {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "<Rendered {} bytes, {} warning(s)>",
            self.x12.bind(py).as_bytes().len(),
            self.warnings.bind(py).len()
        )
    }
}

#[allow(clippy::too_many_arguments)]
fn render_impl(
    py: Python<'_>,
    document_type: &Bound<'_, PyAny>,
    payload: &Bound<'_, PyAny>,
    partner: &Bound<'_, PyAny>,
    control_numbers: Option<&Bound<'_, PyAny>>,
    date: Option<&Bound<'_, PyAny>>,
    time: Option<&Bound<'_, PyAny>>,
    guides: Option<&Bound<'_, PyAny>>,
    now: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyAny>>,
) -> PyResult<x12kit::Rendered> {
    let document_type = str_arg(document_type, "document_type")?;
    let o: ops::RenderOptions = self::options(
        options,
        &[
            ("controlNumbers", control_numbers),
            ("date", date),
            ("time", time),
            ("guides", guides),
        ],
    )?;
    let now = x12kit::DateTime::from_unix(now_secs(now)?);
    let payload = json_arg(payload, "payload")?;
    let partner = json_arg(partner, "partner")?;
    py.detach(|| {
        guard(|| {
            let payload = json_value(payload, "/payload", "payload").map_err(core_err)?;
            let partner = json_value(partner, "/partner", "partner profile").map_err(core_err)?;
            ops::render(&document_type, &payload, &partner, &o, now).map_err(core_err)
        })
    })
}

/// Renders one document (`"850"`, ...) from its payload for a partner profile: the interchange's X12 bytes.
#[pyfunction]
#[pyo3(signature = (document_type, payload, partner, *, control_numbers = None, date = None, time = None, guides = None, now = None, options = None))]
#[allow(clippy::too_many_arguments)]
pub fn render<'py>(
    py: Python<'py>,
    document_type: &Bound<'py, PyAny>,
    payload: &Bound<'py, PyAny>,
    partner: &Bound<'py, PyAny>,
    control_numbers: Option<&Bound<'py, PyAny>>,
    date: Option<&Bound<'py, PyAny>>,
    time: Option<&Bound<'py, PyAny>>,
    guides: Option<&Bound<'py, PyAny>>,
    now: Option<&Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let r = render_impl(
        py,
        document_type,
        payload,
        partner,
        control_numbers,
        date,
        time,
        guides,
        now,
        options,
    )?;
    Ok(to_py_bytes(py, &r.x12))
}

/// `render()` that also returns the payload as mapped back and the warnings.
#[pyfunction]
#[pyo3(signature = (document_type, payload, partner, *, control_numbers = None, date = None, time = None, guides = None, now = None, options = None))]
#[allow(clippy::too_many_arguments)]
pub fn render_document<'py>(
    py: Python<'py>,
    document_type: &Bound<'py, PyAny>,
    payload: &Bound<'py, PyAny>,
    partner: &Bound<'py, PyAny>,
    control_numbers: Option<&Bound<'py, PyAny>>,
    date: Option<&Bound<'py, PyAny>>,
    time: Option<&Bound<'py, PyAny>>,
    guides: Option<&Bound<'py, PyAny>>,
    now: Option<&Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyAny>>,
) -> PyResult<PyRendered> {
    let r = render_impl(
        py,
        document_type,
        payload,
        partner,
        control_numbers,
        date,
        time,
        guides,
        now,
        options,
    )?;
    Ok(PyRendered {
        x12: to_py_bytes(py, &r.x12).unbind(),
        document: pyjson::value_to_py(py, &r.document)?.unbind(),
        warnings: crate::pyser::to_py(py, &r.warnings)?
            .cast_into::<PyList>()?
            .unbind(),
    })
}

/// The schema of a document type's payload; with a partner profile (a dict or JSON
/// text), narrowed for it (`ops::document_schema_for_partner`).
fn schema_of(
    document_type: &Bound<'_, PyAny>,
    partner: Option<&Bound<'_, PyAny>>,
) -> PyResult<serde_json::Value> {
    let t = str_arg(document_type, "document_type")?;
    match partner.filter(|p| !p.is_none()) {
        None => ops::document_schema(&t).map_err(core_err),
        Some(p) => {
            let p = json_value(json_arg(p, "partner")?, "/partner", "partner profile")
                .map_err(core_err)?;
            ops::document_schema_for_partner(&t, &p).map_err(core_err)
        }
    }
}

/// The JSON Schema of a document type's payload, as a dict; with `partner` (a
/// profile), narrowed by its guide of the type and its required fields.
#[pyfunction]
#[pyo3(signature = (document_type, partner = None))]
pub fn document_schema<'py>(
    py: Python<'py>,
    document_type: &Bound<'py, PyAny>,
    partner: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let v = schema_of(document_type, partner)?;
    pyjson::value_to_py(py, &v)
}

/// The JSON Schema of a document type's payload, as the core's JSON bytes; with
/// `partner`, narrowed for it.
#[pyfunction]
#[pyo3(signature = (document_type, partner = None))]
pub fn document_schema_json<'py>(
    py: Python<'py>,
    document_type: &Bound<'py, PyAny>,
    partner: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let v = schema_of(document_type, partner)?;
    let b = serde_json::to_vec(&v).map_err(|e| crate::errors::internal(e.to_string()))?;
    Ok(to_py_bytes(py, &b))
}

/// The JSON Schema of the partner profile, as a dict.
#[pyfunction]
pub fn partner_schema(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    pyjson::value_to_py(py, &ops::partner_schema())
}

/// The JSON Schema of the partner profile, as the core's JSON bytes.
#[pyfunction]
pub fn partner_schema_json(py: Python<'_>) -> PyResult<Bound<'_, PyBytes>> {
    let b = serde_json::to_vec(&ops::partner_schema())
        .map_err(|e| crate::errors::internal(e.to_string()))?;
    Ok(to_py_bytes(py, &b))
}

/// What x12kit knows of a segment, as a dict, or None when it does not describe it.
///
/// ``describe_segment(set_type, version, segment)``: ``set_type`` is the
/// transaction set (ST01: ``"850"``; any text, ``""`` for none: the envelope
/// and acknowledgment segments ISA, IEA, GS, GE, ST, SE, TA1, AK1-AK9,
/// IK3-IK5, CTX are described for any set); ``version`` the edition, a
/// group's version (GS08: ``"004010"``, ``"005010X222A1"``), an
/// interchange's (ISA12: ``"00401"``, ``"00501"``) or ``""`` for the base
/// edition; ``segment`` the identifier (``"BEG"``).
///
/// The dict: ``set``, ``setName``, ``segment``, ``segmentName``,
/// ``mandatory``, ``maxUse`` and ``elements``, each ``{position, number,
/// name, type, min, max, mandatory, description, field, codes, knownCodes,
/// meanings: [{code, meaning}]}`` (the data element number and name and the
/// code meanings from the core's X12 dictionary). Raises ``InvalidArgument``
/// (``INVALID_ARGUMENT``) when ``segment`` is not a segment identifier or
/// ``version`` not a version, ``InvalidType`` for an argument that is not a str.
#[pyfunction]
pub fn describe_segment<'py>(
    py: Python<'py>,
    set_type: &Bound<'py, PyAny>,
    version: &Bound<'py, PyAny>,
    segment: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let (t, v, s) = (
        str_arg(set_type, "set_type")?,
        str_arg(version, "version")?,
        str_arg(segment, "segment")?,
    );
    match ops::describe_segment(&t, &v, &s).map_err(core_err)? {
        Some(d) => pyjson::value_to_py(py, &d),
        None => Ok(py.None().into_bound(py)),
    }
}

/// What x12kit knows of a segment, as the core's compact JSON bytes (``b"null"`` when it does not describe it).
#[pyfunction]
pub fn describe_segment_json<'py>(
    py: Python<'py>,
    set_type: &Bound<'py, PyAny>,
    version: &Bound<'py, PyAny>,
    segment: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (t, v, s) = (
        str_arg(set_type, "set_type")?,
        str_arg(version, "version")?,
        str_arg(segment, "segment")?,
    );
    let b = ops::describe_segment_json(&t, &v, &s).map_err(core_err)?;
    Ok(to_py_bytes(py, &b))
}

/// Writes a parse result (a `ParseResult`, its dict, or its JSON text) back to X12 bytes.
#[pyfunction]
#[pyo3(signature = (source, *, line_break = None, options = None))]
pub fn write<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    line_break: Option<&Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let o: ops::WriteOptions = self::options(options, &[("lineBreak", line_break)])?;
    let out = if let Ok(r) = source.cast::<ParseResult>() {
        let json = r.get().json(py)?;
        py.detach(|| {
            guard(|| {
                let text = std::str::from_utf8(&json)
                    .map_err(|e| crate::errors::internal(e.to_string()))?;
                ops::write_str(text, &o).map_err(core_err)
            })
        })?
    } else {
        match json_arg(source, "source")? {
            JsonArg::Value(v) => py.detach(|| guard(|| ops::write(&v, &o).map_err(core_err)))?,
            JsonArg::Text(t) => {
                py.detach(|| guard(|| ops::write_json(t.as_slice(), &o).map_err(core_err)))?
            }
        }
    };
    Ok(to_py_bytes(py, &out))
}

// ------------------------------------------------------------------ CSV intake

fn csv_result(
    py: Python<'_>,
    document_type: &Bound<'_, PyAny>,
    data: &Bound<'_, PyAny>,
    pairs: &[(&str, Option<&Bound<'_, PyAny>>)],
    options: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u8>> {
    let t = str_arg(document_type, "document_type")?;
    let o: ops::CsvOptions = self::options(options, pairs)?;
    let owner = input::take(data, "data")?;
    py.detach(|| guard(|| ops::payloads_from_csv_json(&t, owner.as_slice(), &o).map_err(core_err)))
}

/// CSV intake: the documents of ``document_type`` a CSV holds (``data``: bytes, str or
/// a path) and every problem, as a dict ``{documentTypeCode, header, documents: [{key,
/// reference, rows: [first, last], payload}], problems: [{row, column, pointer, code,
/// message}]}`` (and ``table`` with ``table=True``). The header row names JSON pointers
/// into the payload (``/purchaseOrderNumber``, ``/lines/*/sku``: a ``*`` column adds an
/// item per row); consecutive rows with one document key (the first column, or
/// ``document_key``) are one document. ``partner`` (a profile dict) also checks its
/// implementation guide. Problems of the file are in the result; raises
/// ``RenderError`` (``UNKNOWN_DOCUMENT_TYPE``, ``INVALID_PARTNER``) and
/// ``InvalidArgument`` (``INVALID_OPTIONS``) for an unusable call.
#[pyfunction]
#[pyo3(signature = (document_type, data, *, delimiter = None, document_key = None, max_rows = None, partner = None, table = None, options = None))]
#[allow(clippy::too_many_arguments)]
pub fn payloads_from_csv<'py>(
    py: Python<'py>,
    document_type: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    delimiter: Option<&Bound<'py, PyAny>>,
    document_key: Option<&Bound<'py, PyAny>>,
    max_rows: Option<&Bound<'py, PyAny>>,
    partner: Option<&Bound<'py, PyAny>>,
    table: Option<&Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let pairs = [
        ("delimiter", delimiter),
        ("documentKey", document_key),
        ("maxRows", max_rows),
        ("partner", partner),
        ("table", table),
    ];
    let json = csv_result(py, document_type, data, &pairs, options)?;
    let v: Value =
        serde_json::from_slice(&json).map_err(|e| crate::errors::internal(e.to_string()))?;
    pyjson::value_to_py(py, &v)
}

/// ``payloads_from_csv()`` as the core's compact JSON bytes.
#[pyfunction]
#[pyo3(signature = (document_type, data, *, delimiter = None, document_key = None, max_rows = None, partner = None, table = None, options = None))]
#[allow(clippy::too_many_arguments)]
pub fn payloads_from_csv_json<'py>(
    py: Python<'py>,
    document_type: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    delimiter: Option<&Bound<'py, PyAny>>,
    document_key: Option<&Bound<'py, PyAny>>,
    max_rows: Option<&Bound<'py, PyAny>>,
    partner: Option<&Bound<'py, PyAny>>,
    table: Option<&Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let pairs = [
        ("delimiter", delimiter),
        ("documentKey", document_key),
        ("maxRows", max_rows),
        ("partner", partner),
        ("table", table),
    ];
    let json = csv_result(py, document_type, data, &pairs, options)?;
    Ok(to_py_bytes(py, &json))
}

// ------------------------------------------------------------------ split and merge

fn split_result(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    pairs: &[(&str, Option<&Bound<'_, PyAny>>)],
    options: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u8>> {
    let o: ops::SplitOptions = self::options(options, pairs)?;
    let owner = input::take(data, "data")?;
    py.detach(|| guard(|| ops::split_json(owner.as_slice(), &o).map_err(core_err)))
}

/// Splits X12 (``data``: bytes, str or a path) into complete interchanges, as a dict
/// ``{parts: [{interchangeControlNumber, originalInterchangeControlNumber, functionalId,
/// groupControlNumber, originalGroupControlNumber, sets: [{type, controlNumber,
/// originalControlNumber, segment, offset, length}], recipe, x12}], diagnostics}``
/// (``recipe``: what ``rebuild_part()`` needs to make the part again). Each part
/// holds one set (``per="set"``, the default; up to ``max_sets``) or one group
/// (``per="group"``), closed before a set would take it past ``max_bytes``; a set
/// larger than ``max_set_bytes`` (64 MiB by default, 0 for no cap) is a
/// ``SET_TOO_LARGE`` diagnostic and in no part; envelopes
/// are copied with GE01/IEA01 counted, control numbers kept or renumbered from
/// ``renumber={"interchange", "group", "set"}``. An input with envelope errors is split
/// as far as it can be, with the diagnostics. Raises ``InvalidArgument``
/// (``INVALID_OPTIONS``, ``INVALID_CONTROL_NUMBER``) for unusable options.
#[pyfunction]
#[pyo3(signature = (data, *, per = None, max_sets = None, max_bytes = None, renumber = None, max_set_bytes = None, options = None))]
// One parameter per keyword argument.
#[allow(clippy::too_many_arguments)]
pub fn split<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    per: Option<&Bound<'py, PyAny>>,
    max_sets: Option<&Bound<'py, PyAny>>,
    max_bytes: Option<&Bound<'py, PyAny>>,
    renumber: Option<&Bound<'py, PyAny>>,
    max_set_bytes: Option<&Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let pairs = [
        ("per", per),
        ("maxSets", max_sets),
        ("maxBytes", max_bytes),
        ("renumber", renumber),
        ("maxSetBytes", max_set_bytes),
    ];
    let json = split_result(py, data, &pairs, options)?;
    let v: Value =
        serde_json::from_slice(&json).map_err(|e| crate::errors::internal(e.to_string()))?;
    pyjson::value_to_py(py, &v)
}

/// ``split()`` as the core's compact JSON bytes.
#[pyfunction]
#[pyo3(signature = (data, *, per = None, max_sets = None, max_bytes = None, renumber = None, max_set_bytes = None, options = None))]
// One parameter per keyword argument.
#[allow(clippy::too_many_arguments)]
pub fn split_json<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    per: Option<&Bound<'py, PyAny>>,
    max_sets: Option<&Bound<'py, PyAny>>,
    max_bytes: Option<&Bound<'py, PyAny>>,
    renumber: Option<&Bound<'py, PyAny>>,
    max_set_bytes: Option<&Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let pairs = [
        ("per", per),
        ("maxSets", max_sets),
        ("maxBytes", max_bytes),
        ("renumber", renumber),
        ("maxSetBytes", max_set_bytes),
    ];
    let json = split_result(py, data, &pairs, options)?;
    Ok(to_py_bytes(py, &json))
}

fn rebuilt_part(
    py: Python<'_>,
    recipe: &Bound<'_, PyAny>,
    data: &Bound<'_, PyAny>,
) -> PyResult<Vec<u8>> {
    let r = ops::part_recipe(options_value(recipe)?).map_err(core_err)?;
    let owner = input::take(data, "data")?;
    py.detach(|| guard(|| ops::rebuild_part_json(&r, owner.as_slice()).map_err(core_err)))
}

/// Makes a part of ``split()`` again from its ``recipe`` (the part's ``recipe`` dict) and
/// ``data``, the input's bytes in ``recipe["ranges"]`` (``[start, end)`` byte offsets: its
/// ISA, GS, run of sets, GE and IEA) one after the other: the same part dict as the split
/// gave (numbers, sets with their positions in the input, ``recipe``, ``x12``) without
/// reading the rest of the input. Keep the recipes, not the parts, of a large file.
/// Raises ``InvalidArgument``: ``INVALID_ARGUMENT`` when ``data`` is not the ranges'
/// length or does not make that part (another input, or it changed since the split),
/// ``INVALID_OPTIONS`` (``pointer`` ``/recipe`` or under it) or ``INVALID_CONTROL_NUMBER``
/// for an unusable recipe.
#[pyfunction]
#[pyo3(signature = (recipe, data))]
pub fn rebuild_part<'py>(
    py: Python<'py>,
    recipe: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let json = rebuilt_part(py, recipe, data)?;
    let v: Value =
        serde_json::from_slice(&json).map_err(|e| crate::errors::internal(e.to_string()))?;
    pyjson::value_to_py(py, &v)
}

/// ``rebuild_part()`` as the core's compact JSON bytes (byte for byte the part in
/// ``split_json()``).
#[pyfunction]
#[pyo3(signature = (recipe, data))]
pub fn rebuild_part_json<'py>(
    py: Python<'py>,
    recipe: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let json = rebuilt_part(py, recipe, data)?;
    Ok(to_py_bytes(py, &json))
}

/// Merges interchanges of one sender/receiver pair, version and delimiters (``inputs``:
/// a list of bytes, str or paths, each holding one or more interchanges) into one
/// interchange, as X12 bytes: groups with the same GS (functional id, application
/// sender and receiver, version, control number; with ``renumber["group"]`` whatever
/// their control number) become one. Raises ``MergeError`` (``MERGE_REFUSED``,
/// ``problems`` naming each input at fault by its index, ``/0``), ``InvalidArgument``
/// (``INVALID_ARGUMENT`` for no input, ``INVALID_OPTIONS``, ``INVALID_CONTROL_NUMBER``).
#[pyfunction]
#[pyo3(signature = (inputs, *, renumber = None, options = None))]
pub fn merge<'py>(
    py: Python<'py>,
    inputs: &Bound<'py, PyAny>,
    renumber: Option<&Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let o: ops::MergeOptions = self::options(options, &[("renumber", renumber)])?;
    if inputs.is_instance_of::<PyString>()
        || inputs.is_instance_of::<PyBytes>()
        || inputs.is_instance_of::<pyo3::types::PyByteArray>()
    {
        return Err(crate::errors::invalid_argument(
            "INVALID_ARGUMENT",
            "inputs must be a list of inputs (bytes, str or paths), not one input",
            true,
        ));
    }
    let mut owners = Vec::new();
    let iter = inputs.try_iter().map_err(|_| {
        crate::errors::invalid_argument(
            "INVALID_ARGUMENT",
            format!(
                "inputs must be a list of inputs (bytes, str or paths), not {}",
                inputs
                    .get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ),
            true,
        )
    })?;
    for (k, item) in iter.enumerate() {
        owners.push(input::take(&item?, &format!("inputs[{k}]"))?);
    }
    let out = py.detach(|| {
        guard(|| {
            let slices: Vec<&[u8]> = owners.iter().map(Owner::as_slice).collect();
            ops::merge(&slices, &o).map_err(core_err)
        })
    })?;
    Ok(to_py_bytes(py, &out))
}
