//! Bounded-memory entry points over files and file objects:
//! `iter_segments` (the core's `StreamTokenizer`) and `validate_stream`
//! (the core's `StreamValidator`). Memory is one chunk plus the longest
//! segment, whatever the size of the input.

use crate::errors::guard;
use crate::input::{self, Owner};
use crate::ops::{PyValidation, options};
use crate::tree::{PyDiagnostic, PySegment};
use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::io::Read;
use x12kit::stream::{Pull, StreamTokenizer};
use x12kit::{Token, ops};

/// Default bytes read at a time.
const CHUNK: usize = 1 << 20;

/// Where the bytes come from.
#[derive(Debug)]
enum Source {
    /// A file opened from a path: read without the GIL.
    File(std::fs::File),
    /// A Python binary file object (`read(n)` returning bytes).
    Py(Py<PyAny>),
    /// Bytes already in memory (fed in chunks all the same).
    Mem(Owner, usize),
}

impl Source {
    fn of(obj: &Bound<'_, PyAny>) -> PyResult<Source> {
        Ok(match input::stream_source(obj)? {
            input::StreamSource::Path(path) => {
                Source::File(std::fs::File::open(&path).map_err(|e| {
                    crate::errors::io(&e, &format!("cannot open {}", path.display()))
                })?)
            }
            input::StreamSource::Bytes(o) => Source::Mem(o, 0),
            input::StreamSource::Reader => Source::Py(obj.clone().unbind()),
        })
    }

    /// Reads the next chunk and hands it to `sink`; false at the end of the input.
    fn next_chunk(
        &mut self,
        py: Python<'_>,
        buf: &mut Vec<u8>,
        chunk: usize,
        sink: &mut (dyn FnMut(&[u8]) + Send),
    ) -> PyResult<bool> {
        match self {
            Source::File(f) => {
                buf.resize(chunk, 0);
                py.detach(|| {
                    let n = loop {
                        match f.read(buf) {
                            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                            r => break r,
                        }
                    }
                    .map_err(|e| crate::errors::io(&e, "cannot read the file"))?;
                    if n > 0 {
                        sink(&buf[..n]);
                    }
                    Ok(n > 0)
                })
            }
            Source::Mem(o, pos) => {
                let data = o.as_slice();
                if *pos >= data.len() {
                    return Ok(false);
                }
                let end = (*pos + chunk).min(data.len());
                let piece = &data[*pos..end];
                py.detach(|| sink(piece));
                *pos = end;
                Ok(true)
            }
            Source::Py(obj) => {
                let Some(got) = input::read_chunk(obj.bind(py), chunk)? else {
                    return Ok(false);
                };
                let bytes = got.as_bytes();
                py.detach(|| sink(bytes));
                Ok(true)
            }
        }
    }
}

fn chunk_size(n: usize) -> PyResult<usize> {
    if n == 0 {
        return Err(crate::errors::invalid_argument(
            "INVALID_ARGUMENT",
            "chunk_size must be at least 1",
            false,
        ));
    }
    Ok(n)
}

/// Segments of a file or stream, one at a time, with bounded memory; each
/// `Segment` owns its bytes. Diagnostics of the tokenizer collect in `.diagnostics`.
#[pyclass(module = "x12kit", name = "SegmentStream")]
#[derive(Debug)]
pub struct SegmentStream {
    tok: StreamTokenizer,
    src: Source,
    chunk: usize,
    buf: Vec<u8>,
    eof: bool,
    diagnostics: Vec<x12kit::Diagnostic>,
}

#[pymethods]
impl SegmentStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    fn __next__(&mut self, py: Python<'_>) -> PyResult<PySegment> {
        let mut idle_after_eof = false;
        loop {
            enum Step {
                Seg(PySegment),
                Diag(x12kit::Diagnostic),
                Need,
                End,
            }
            let step = guard(|| {
                Ok(match self.tok.next() {
                    Pull::Token(Token::Segment(s)) => Step::Seg(PySegment::owned(&s)),
                    Pull::Token(Token::Diagnostic(d)) => Step::Diag(d),
                    Pull::NeedInput => Step::Need,
                    Pull::End => Step::End,
                })
            })?;
            match step {
                Step::Seg(s) => return Ok(s),
                Step::Diag(d) => self.diagnostics.push(d),
                Step::End => return Err(PyStopIteration::new_err(())),
                Step::Need if self.eof => {
                    // After `finish` the tokenizer never needs input; stop rather than spin if it did.
                    if idle_after_eof {
                        return Err(PyStopIteration::new_err(()));
                    }
                    idle_after_eof = true;
                    self.tok.finish();
                }
                Step::Need => {
                    let tok = &mut self.tok;
                    let more = self
                        .src
                        .next_chunk(py, &mut self.buf, self.chunk, &mut |c| tok.feed(c))?;
                    if !more {
                        self.eof = true;
                        self.tok.finish();
                    }
                }
            }
        }
    }
    /// Diagnostics the tokenizer reported so far (bad delimiters, bad segment ids, ...).
    #[getter]
    fn diagnostics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyDiagnostic::list(py, &self.diagnostics)
    }
    /// Input bytes consumed so far.
    #[getter]
    fn consumed(&self) -> usize {
        self.tok.consumed()
    }
}

/// Iterates the segments of a large file or stream with bounded memory.
#[pyfunction]
#[pyo3(signature = (source, *, chunk_size = CHUNK))]
pub fn iter_segments(source: &Bound<'_, PyAny>, chunk_size: usize) -> PyResult<SegmentStream> {
    Ok(SegmentStream {
        tok: StreamTokenizer::new(),
        src: Source::of(source)?,
        chunk: self::chunk_size(chunk_size)?,
        buf: Vec::new(),
        eof: false,
        diagnostics: Vec::new(),
    })
}

/// Validates a large file or stream (a path or a binary file object) without
/// holding it: memory is one chunk plus the longest segment, plus what the
/// result keeps. With the default `retain="all"` (the same result as
/// `validate`) that is a summary of every group and set, about 290 bytes a
/// set, so memory grows with the input; with `retain="counts"` (the verdict,
/// the counts and the diagnostics, no per-set summaries) memory stays flat
/// however large the input; `retain="errors"` keeps only the sets not
/// accepted cleanly. The diagnostics are always all kept.
#[pyfunction]
#[pyo3(signature = (source, *, structure = None, retain = None, guides = None, chunk_size = CHUNK, options = None))]
#[allow(clippy::too_many_arguments)]
pub fn validate_stream(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    structure: Option<&Bound<'_, PyAny>>,
    retain: Option<&Bound<'_, PyAny>>,
    guides: Option<&Bound<'_, PyAny>>,
    chunk_size: usize,
    options: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyValidation> {
    // The core reads "retain" (and names a bad value INVALID_OPTIONS at /retain).
    let o: ops::ValidateOptions = self::options(
        options,
        &[
            ("structure", structure),
            ("retain", retain),
            ("guides", guides),
        ],
    )?;
    let chunk = self::chunk_size(chunk_size)?;
    let mut src = Source::of(source)?;
    let v = ops::stream_validator(&o);
    let mut buf = Vec::new();
    let mut w = v;
    loop {
        let more = guard(|| src.next_chunk(py, &mut buf, chunk, &mut |c| w.feed(c)))?;
        if !more {
            break;
        }
    }
    let v = py.detach(move || guard(|| Ok(w.finish())))?;
    Ok(PyValidation { v })
}
