//! `x12kit.webhook`: signing and verifying webhook deliveries (the core's
//! `x12kit::webhook`, HMAC-SHA256 over `timestamp + "." + raw_body`).

use crate::errors::{core_err, guard};
use crate::input::{self, Owner};
use crate::ops::options;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use std::time::Duration;
use x12kit::ops;
use x12kit::webhook::{Delivery, Signer, Verified, Verifier};

fn secrets_of(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Owner>> {
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        obj.try_iter()?
            .map(|s| input::text_or_bytes(&s?, "each secret"))
            .collect()
    } else {
        Ok(vec![input::text_or_bytes(obj, "secret")?])
    }
}

fn timestamp_header(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    if obj.is_instance_of::<pyo3::types::PyInt>() && !obj.is_instance_of::<pyo3::types::PyBool>() {
        return Ok(obj.str()?.to_cow()?.into_owned());
    }
    Err(crate::errors::invalid_argument(
        "INVALID_ARGUMENT",
        "timestamp must be the header text (str) or Unix seconds (int)",
        true,
    ))
}

fn now_duration(now: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
    match now {
        Some(v) if !v.is_none() => {
            if v.is_instance_of::<pyo3::types::PyBool>() {
                return Err(crate::errors::invalid_argument(
                    "INVALID_ARGUMENT",
                    "now must be Unix seconds (int)",
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
                    "now must be Unix seconds (a non-negative int)",
                    true,
                )
            })
        }
        _ => Ok(x12kit::clock::unix_now()),
    }
}

fn str_of(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    let o = input::text_or_bytes(obj, what)?;
    String::from_utf8(o.as_slice().to_vec()).map_err(|_| {
        core_err(x12kit::Error::new(
            x12kit::ErrorCode::InvalidUtf8,
            format!("{what} is not UTF-8"),
        ))
    })
}

/// What a successful verification established.
#[pyclass(frozen, module = "x12kit.webhook", name = "Verified", get_all)]
#[derive(Debug)]
pub struct PyVerified {
    /// The delivery's timestamp, Unix seconds.
    timestamp: u64,
    /// Index (in the order given) of the secret that matched.
    secret_index: usize,
}

impl From<Verified> for PyVerified {
    fn from(v: Verified) -> Self {
        PyVerified {
            timestamp: v.timestamp,
            secret_index: v.secret_index,
        }
    }
}

#[pymethods]
impl PyVerified {
    /// The core's JSON: `{"timestamp":N,"secretIndex":N}`.
    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let v = Verified {
            timestamp: self.timestamp,
            secret_index: self.secret_index,
        };
        let b = serde_json::to_vec(&v).map_err(|e| crate::errors::internal(e.to_string()))?;
        Ok(PyBytes::new(py, &b))
    }
    fn __repr__(&self) -> String {
        format!(
            "<Verified timestamp={} secret_index={}>",
            self.timestamp, self.secret_index
        )
    }
}

/// `sha256=<hex>`: the signature of `body` signed at `timestamp` (Unix seconds) with `secret`.
#[pyfunction]
pub fn webhook_sign(
    secret: &Bound<'_, PyAny>,
    timestamp: &Bound<'_, PyAny>,
    body: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let secret = input::text_or_bytes(secret, "secret")?;
    let ts: u64 = timestamp.extract().map_err(|_| {
        crate::errors::invalid_argument(
            "INVALID_ARGUMENT",
            "timestamp must be Unix seconds (a non-negative int)",
            true,
        )
    })?;
    let body = input::text_or_bytes(body, "body")?;
    guard(|| ops::webhook_sign(secret.as_slice(), ts, body.as_slice()).map_err(core_err))
}

/// Verifies a delivery against one secret or a list (rotation); raises `WebhookVerificationError`.
#[pyfunction]
#[pyo3(signature = (secrets, signature, timestamp, body, *, tolerance = None, now = None, options = None))]
#[allow(clippy::too_many_arguments)]
pub fn webhook_verify(
    secrets: &Bound<'_, PyAny>,
    signature: &Bound<'_, PyAny>,
    timestamp: &Bound<'_, PyAny>,
    body: &Bound<'_, PyAny>,
    tolerance: Option<&Bound<'_, PyAny>>,
    now: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyVerified> {
    let secrets = secrets_of(secrets)?;
    let keys: Vec<&[u8]> = secrets.iter().map(|s| s.as_slice()).collect();
    let o: ops::VerifyOptions = self::options(options, &[("tolerance", tolerance)])?;
    let signature = str_of(signature, "signature")?;
    let timestamp = timestamp_header(timestamp)?;
    let body = input::text_or_bytes(body, "body")?;
    let now = now_duration(now)?;
    guard(|| {
        ops::webhook_verify(&keys, &signature, &timestamp, body.as_slice(), &o, now)
            .map(PyVerified::from)
            .map_err(core_err)
    })
}

/// Verifies deliveries against one or more secrets (rotation), within `tolerance` seconds of now.
#[pyclass(frozen, module = "x12kit.webhook", name = "Verifier")]
pub struct PyVerifier {
    inner: Verifier,
}

impl std::fmt::Debug for PyVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Verifier(tolerance={:?})", self.inner.tolerance())
    }
}

#[pymethods]
impl PyVerifier {
    #[new]
    #[pyo3(signature = (secrets, tolerance = None))]
    fn new(secrets: &Bound<'_, PyAny>, tolerance: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let secrets = secrets_of(secrets)?;
        let o: ops::VerifyOptions = options(None, &[("tolerance", tolerance)])?;
        let keys: Vec<&[u8]> = secrets.iter().map(|s| s.as_slice()).collect();
        let v = Verifier::new(&keys).map_err(core_err)?;
        Ok(PyVerifier {
            inner: v.with_tolerance(Duration::from_secs(o.tolerance)),
        })
    }
    /// The allowed distance between a delivery's timestamp and now, in seconds.
    #[getter]
    fn tolerance(&self) -> u64 {
        self.inner.tolerance().as_secs()
    }
    /// Verifies one delivery: its signature header, timestamp header and raw body.
    #[pyo3(signature = (signature, timestamp, body, *, now = None))]
    fn verify(
        &self,
        signature: &Bound<'_, PyAny>,
        timestamp: &Bound<'_, PyAny>,
        body: &Bound<'_, PyAny>,
        now: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyVerified> {
        let signature = str_of(signature, "signature")?;
        let timestamp = timestamp_header(timestamp)?;
        let body = input::text_or_bytes(body, "body")?;
        let now = now_duration(now)?;
        guard(|| {
            self.inner
                .verify(
                    &signature,
                    &timestamp,
                    body.as_slice(),
                    Duration::from_secs(now),
                )
                .map(PyVerified::from)
                .map_err(core_err)
        })
    }
    /// Verifies a delivery from a headers mapping (any case) and the raw body.
    #[pyo3(signature = (headers, body, *, now = None))]
    fn verify_headers(
        &self,
        headers: &Bound<'_, PyAny>,
        body: &Bound<'_, PyAny>,
        now: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyVerified> {
        let find = |name: &str| -> PyResult<String> {
            let get = headers.getattr("get")?;
            for candidate in [name.to_string(), name.to_ascii_lowercase()] {
                let v = get.call1((candidate,))?;
                if !v.is_none() {
                    return str_of(&v, name);
                }
            }
            Ok(String::new())
        };
        let signature = find(x12kit::webhook::HEADER_SIGNATURE)?;
        let timestamp = find(x12kit::webhook::HEADER_TIMESTAMP)?;
        let body = input::text_or_bytes(body, "body")?;
        let now = now_duration(now)?;
        guard(|| {
            self.inner
                .verify(
                    &signature,
                    &timestamp,
                    body.as_slice(),
                    Duration::from_secs(now),
                )
                .map(PyVerified::from)
                .map_err(core_err)
        })
    }
    fn __repr__(&self) -> String {
        format!("<Verifier tolerance={}s>", self.inner.tolerance().as_secs())
    }
}

/// A signed webhook delivery: the body bytes and the headers signed over them.
#[pyclass(frozen, module = "x12kit.webhook", name = "Delivery")]
#[derive(Debug)]
pub struct PyDelivery {
    inner: Delivery,
}

#[pymethods]
impl PyDelivery {
    /// The delivery id (a UUIDv7), the same on every retry.
    #[getter]
    fn id(&self) -> String {
        self.inner.id().to_string()
    }
    /// The event, e.g. `document.validated`.
    #[getter]
    fn event(&self) -> String {
        self.inner.event().to_string()
    }
    /// The signing timestamp, Unix seconds.
    #[getter]
    fn timestamp(&self) -> u64 {
        self.inner.timestamp()
    }
    /// The exact body bytes to send.
    #[getter]
    fn body<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.body())
    }
    /// The headers to send with the body (`Content-Type`, `X-Service-Signature`, ...).
    #[getter]
    fn headers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.inner.headers() {
            d.set_item(*k, v)?;
        }
        Ok(d)
    }
    /// One header by name (case-insensitive), or `None`.
    fn header(&self, name: &str) -> Option<String> {
        self.inner.header(name).map(str::to_string)
    }
    fn __repr__(&self) -> String {
        format!("<Delivery {} {}>", self.inner.event(), self.inner.id())
    }
}

/// Signs webhook deliveries with one secret.
#[pyclass(frozen, module = "x12kit.webhook", name = "Signer")]
pub struct PySigner {
    secret: Vec<u8>,
    inner: Signer,
}

impl std::fmt::Debug for PySigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signer(..)")
    }
}

#[pymethods]
impl PySigner {
    #[new]
    fn new(secret: &Bound<'_, PyAny>) -> PyResult<Self> {
        let secret = input::text_or_bytes(secret, "secret")?.as_slice().to_vec();
        let inner = Signer::new(&secret).map_err(core_err)?;
        Ok(PySigner { secret, inner })
    }
    /// `sha256=<hex>` of `body` at `timestamp` (Unix seconds).
    fn sign(&self, timestamp: &Bound<'_, PyAny>, body: &Bound<'_, PyAny>) -> PyResult<String> {
        let ts: u64 = timestamp.extract().map_err(|_| {
            crate::errors::invalid_argument(
                "INVALID_ARGUMENT",
                "timestamp must be Unix seconds (a non-negative int)",
                true,
            )
        })?;
        let body = input::text_or_bytes(body, "body")?;
        guard(|| ops::webhook_sign(&self.secret, ts, body.as_slice()).map_err(core_err))
    }
    /// A signed delivery of `event` (`document.validated`, ...) with `data`
    /// (`documentId`, `partnerId`, `documentTypeCode`, `status`) at `now`.
    #[pyo3(signature = (event, data, *, now = None))]
    fn deliver(
        &self,
        event: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        now: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyDelivery> {
        let event = str_of(event, "event")?;
        let data = crate::pyjson::py_to_value(data, 0)?;
        let now = now_duration(now)?;
        let _ = &self.inner;
        guard(|| {
            ops::webhook_deliver(&self.secret, &event, &data, now)
                .map(|inner| PyDelivery { inner })
                .map_err(core_err)
        })
    }
    fn __repr__(&self) -> String {
        "<Signer>".to_string()
    }
}

/// Registers the webhook names in the native module (re-exported by `x12kit.webhook`).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(webhook_sign, m)?)?;
    m.add_function(wrap_pyfunction!(webhook_verify, m)?)?;
    m.add_class::<PyVerified>()?;
    m.add_class::<PyVerifier>()?;
    m.add_class::<PySigner>()?;
    m.add_class::<PyDelivery>()?;
    m.add("HEADER_SIGNATURE", x12kit::webhook::HEADER_SIGNATURE)?;
    m.add("HEADER_TIMESTAMP", x12kit::webhook::HEADER_TIMESTAMP)?;
    m.add("HEADER_EVENT", x12kit::webhook::HEADER_EVENT)?;
    m.add("HEADER_DELIVERY_ID", x12kit::webhook::HEADER_DELIVERY_ID)?;
    m.add(
        "DEFAULT_TOLERANCE",
        x12kit::webhook::DEFAULT_TOLERANCE.as_secs(),
    )?;
    Ok(())
}
