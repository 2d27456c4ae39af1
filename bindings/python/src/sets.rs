//! `iter_transactions`: a file of any size handed over a transaction set at a
//! time (the core's `json::each_set_json`, on a thread of its own), each set
//! as a dict with its interchange's and group's headers, its segments, its
//! mapped document and its diagnostics. Memory follows the largest set: a
//! path is mapped (its pages dropped behind the parser), a binary file object
//! is spooled to an anonymous temporary file first, and at most a few sets
//! wait for the caller.

use crate::errors::guard;
use crate::input::{self, Owner};
use crate::ops::options;
use crate::pyjson;
use crate::tree::PyDiagnostic;
use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use x12kit::json::JsonOptions;
use x12kit_mapped::Input;

/// Sets the worker may have written ahead of the caller.
const AHEAD: usize = 8;
/// Bytes a binary file object is read by while it is spooled.
const CHUNK: usize = 1 << 20;

/// The bytes the worker parses.
enum Held {
    /// `bytes` and buffers, kept (or copied once) as the other operations take them.
    Owner(Owner),
    /// A file mapped, or a stream spooled and mapped.
    Input(Input),
}

impl Held {
    fn as_slice(&self) -> &[u8] {
        match self {
            Held::Owner(o) => o.as_slice(),
            Held::Input(i) => i,
        }
    }

    fn of(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Held> {
        match input::stream_source(obj)? {
            input::StreamSource::Path(path) => {
                let i = py.detach(|| Input::open(&path)).map_err(|e| {
                    crate::errors::io(&e, &format!("cannot read {}", path.display()))
                })?;
                Ok(Held::Input(i))
            }
            input::StreamSource::Bytes(o) => Ok(Held::Owner(o)),
            input::StreamSource::Reader => {
                let mut failed: Option<PyErr> = None;
                let spooled = Input::spool(CHUNK, |buf| match input::read_chunk(obj, buf.len()) {
                    Ok(Some(b)) => {
                        let b = b.as_bytes();
                        let n = b.len().min(buf.len());
                        buf[..n].copy_from_slice(&b[..n]);
                        Ok(n)
                    }
                    Ok(None) => Ok(0),
                    Err(e) => {
                        failed = Some(e);
                        // Stops the spooling; the Python error is raised below.
                        Err(std::io::Error::other("source.read() failed"))
                    }
                });
                if let Some(e) = failed {
                    return Err(e);
                }
                let i = spooled.map_err(|e| crate::errors::io(&e, "cannot spool the source"))?;
                Ok(Held::Input(i))
            }
        }
    }
}

/// What the worker sends.
enum Msg {
    /// A set's JSON object.
    Set(Vec<u8>),
    /// The end: every diagnostic of the input.
    End(Vec<x12kit::Diagnostic>),
    /// The worker panicked (a bug).
    Failed(String),
}

fn work(held: Held, o: JsonOptions, tx: SyncSender<Msg>) {
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let bytes = held.as_slice();
        let mut released = 0;
        x12kit::json::each_set_json(
            bytes,
            &o,
            &mut |set| tx.send(Msg::Set(set.to_vec())).is_ok(),
            &mut |upto| {
                if let Held::Input(i) = &held {
                    released = i.release(released, upto);
                }
            },
            &mut |from, to| {
                if let Held::Input(i) = &held {
                    i.drop_pages(from, to);
                }
            },
        )
    }));
    let _ = tx.send(match run {
        Ok(d) => Msg::End(d),
        Err(p) => Msg::Failed(
            p.downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into()),
        ),
    });
}

/// The transaction sets of a file or stream, one at a time (see
/// `iter_transactions`); `.diagnostics` holds every diagnostic of the input
/// once the iteration has ended.
#[pyclass(module = "x12kit", name = "TransactionStream")]
pub struct TransactionStream {
    /// The worker's channel (in a mutex: a pyclass must be `Sync`); `None` once done.
    rx: Option<Mutex<Receiver<Msg>>>,
    diagnostics: Vec<x12kit::Diagnostic>,
}

impl std::fmt::Debug for TransactionStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransactionStream")
            .field("done", &self.rx.is_none())
            .finish()
    }
}

#[pymethods]
impl TransactionStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let Some(rx) = self.rx.as_ref() else {
            return Err(PyStopIteration::new_err(()));
        };
        let got = py.detach(|| match rx.lock() {
            Ok(rx) => rx.recv().ok(),
            Err(_) => None,
        });
        match got {
            Some(Msg::Set(json)) => {
                let v: serde_json::Value = guard(|| {
                    serde_json::from_slice(&json)
                        .map_err(|e| crate::errors::internal(e.to_string()))
                })?;
                pyjson::value_to_py(py, &v)
            }
            Some(Msg::End(d)) => {
                self.diagnostics = d;
                self.rx = None;
                Err(PyStopIteration::new_err(()))
            }
            Some(Msg::Failed(what)) => {
                self.rx = None;
                Err(crate::errors::internal(format!(
                    "internal error (a bug in x12kit, please report it): {what}"
                )))
            }
            None => {
                self.rx = None;
                Err(crate::errors::internal("the set reader stopped"))
            }
        }
    }

    /// Every diagnostic of the input, as `parse` reports them (the envelope's
    /// too): complete once the iteration has ended, empty before.
    #[getter]
    fn diagnostics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyDiagnostic::list(py, &self.diagnostics)
    }

    /// Stops reading: no more sets are handed over (the reader thread ends).
    fn close(&mut self) {
        self.rx = None;
    }
}

/// Iterates the transaction sets of a file of any size (``source``: a path, a
/// binary file object or bytes), one at a time, in bounded memory: each set as
/// a dict ``{"interchange": {ISA fields, as the parse result's interchange
/// "header"}, "group": {GS fields} or None, "transaction": {"type",
/// "controlNumber", "segments", "document" (the mapped payload of the declared
/// types; ``documents=False`` leaves it out), "trailer"}, "diagnostics": [those
/// at the set's segments]}`` (the parse result's JSON shapes). A path is mapped
/// and a file object spooled to a temporary file, so memory follows the largest
/// set, not the input; a set larger than ``max_set_bytes`` (64 MiB by default, 0
/// for no cap) comes with no segments and no document, its ``SET_TOO_LARGE``
/// diagnostic with it. After the end, ``.diagnostics`` lists every diagnostic of
/// the input (the envelope's included), as ``parse`` does.
#[pyfunction]
#[pyo3(signature = (source, *, documents = None, max_set_bytes = None, options = None))]
pub fn iter_transactions(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    documents: Option<&Bound<'_, PyAny>>,
    max_set_bytes: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyAny>>,
) -> PyResult<TransactionStream> {
    let o: JsonOptions = self::options(
        options,
        &[("documents", documents), ("maxSetBytes", max_set_bytes)],
    )?;
    let held = Held::of(py, source)?;
    let (tx, rx) = sync_channel(AHEAD);
    std::thread::Builder::new()
        .name("x12kit-sets".into())
        .spawn(move || work(held, o, tx))
        .map_err(|e| crate::errors::io(&e, "cannot start the set reader"))?;
    Ok(TransactionStream {
        rx: Some(Mutex::new(rx)),
        diagnostics: Vec::new(),
    })
}
