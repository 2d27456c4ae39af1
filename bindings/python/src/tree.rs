//! The lazy parse result: `ParseResult` owns the input bytes (a Python
//! `bytes` object is referenced, not copied) together with the core's
//! borrowed `Document` (one self-referential cell), and hands out views
//! (`Interchange`, `Group`, `Transaction`, `Segment`) that index into it.
//! Nothing is converted to Python objects until asked for.

use crate::errors::guard;
use crate::input::Owner;
use crate::pyjson;
use crate::text::text;
use pyo3::exceptions::{PyIndexError, PyStopIteration};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use std::sync::{Arc, Mutex};
use x12kit::envelope::{Document, Group, Interchange, Transaction};
use x12kit::{Delimiters, Segment};

self_cell::self_cell!(
    /// The input and its parsed envelope tree, in one allocation-stable cell.
    pub struct Parsed {
        owner: Owner,
        #[covariant]
        dependent: Document,
    }
    impl {Debug}
);

impl Parsed {
    /// Parses `owner` (call without the GIL).
    pub fn build(owner: Owner, cap: x12kit::envelope::SetCap) -> Parsed {
        Parsed::new(owner, |o| x12kit::envelope::parse_capped(o.as_slice(), cap))
    }
    fn doc(&self) -> &Document<'_> {
        self.borrow_dependent()
    }
    fn input(&self) -> &[u8] {
        self.borrow_owner().as_slice()
    }
}

fn value_text<'py>(py: Python<'py>, seg: Option<&Segment<'_>>, n: usize) -> Bound<'py, PyString> {
    text(py, seg.map_or(&[][..], |s| s.value(n)))
}

// ---------------------------------------------------------------- segments

/// Where a segment lies in the owned input.
#[derive(Debug, Clone, Copy)]
pub struct SegRef {
    raw: (usize, usize),
    suffix: (usize, usize),
    index: usize,
    delimiters: Delimiters,
    terminated: bool,
}

fn range_in(input: &[u8], part: &[u8]) -> (usize, usize) {
    let base = input.as_ptr() as usize;
    let p = part.as_ptr() as usize;
    if part.is_empty() || p < base || p + part.len() > base + input.len() {
        return (0, 0);
    }
    (p - base, p - base + part.len())
}

impl SegRef {
    fn of(input: &[u8], s: &Segment<'_>) -> SegRef {
        SegRef {
            raw: range_in(input, s.raw()),
            suffix: range_in(input, s.suffix()),
            index: s.index(),
            delimiters: s.delimiters(),
            terminated: s.terminated(),
        }
    }
    fn view<'a>(&self, input: &'a [u8]) -> Segment<'a> {
        Segment::new(
            &input[self.raw.0..self.raw.1],
            &input[self.suffix.0..self.suffix.1],
            self.raw.0,
            self.index,
            self.delimiters,
            self.terminated,
        )
    }
}

/// A segment read from a stream: it owns its bytes.
#[derive(Debug)]
pub struct OwnedSeg {
    raw: Box<[u8]>,
    suffix: Box<[u8]>,
    offset: usize,
    index: usize,
    delimiters: Delimiters,
    terminated: bool,
}

impl OwnedSeg {
    pub fn of(s: &Segment<'_>) -> OwnedSeg {
        OwnedSeg {
            raw: s.raw().into(),
            suffix: s.suffix().into(),
            offset: s.offset(),
            index: s.index(),
            delimiters: s.delimiters(),
            terminated: s.terminated(),
        }
    }
}

#[derive(Debug)]
enum SegSrc {
    View(Arc<Parsed>, SegRef),
    Owned(Box<OwnedSeg>),
}

/// One segment: `seg.id`, `seg[n]` (element n as text; `seg[0]` is the id),
/// `len(seg)` (number of elements), `seg.element(n)` for components and repetitions.
#[pyclass(frozen, module = "x12kit", name = "Segment")]
#[derive(Debug)]
pub struct PySegment {
    src: SegSrc,
}

impl PySegment {
    pub fn view(p: &Arc<Parsed>, s: &Segment<'_>) -> PySegment {
        PySegment {
            src: SegSrc::View(p.clone(), SegRef::of(p.input(), s)),
        }
    }
    pub fn owned(s: &Segment<'_>) -> PySegment {
        PySegment {
            src: SegSrc::Owned(Box::new(OwnedSeg::of(s))),
        }
    }
    fn with<R>(&self, f: impl FnOnce(Segment<'_>) -> R) -> R {
        match &self.src {
            SegSrc::View(p, r) => f(r.view(p.input())),
            SegSrc::Owned(o) => f(Segment::new(
                &o.raw,
                &o.suffix,
                o.offset,
                o.index,
                o.delimiters,
                o.terminated,
            )),
        }
    }
}

#[pymethods]
impl PySegment {
    /// The segment identifier (`ISA`, `N1`, ...).
    #[getter]
    fn id<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.with(|s| text(py, s.id()))
    }
    /// 0-based position of the segment in the input.
    #[getter]
    fn index(&self) -> usize {
        self.with(|s| s.index())
    }
    /// Byte offset of the segment in the input.
    #[getter]
    fn offset(&self) -> usize {
        self.with(|s| s.offset())
    }
    /// The segment's bytes, terminator excluded.
    #[getter]
    fn raw<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.with(|s| PyBytes::new(py, s.raw()))
    }
    /// False for a final segment that ended with the input instead of a terminator.
    #[getter]
    fn terminated(&self) -> bool {
        self.with(|s| s.terminated())
    }
    /// Every element's text, in order (the id excluded).
    #[getter]
    fn elements<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.with(|s| PyList::new(py, s.elements().map(|e| text(py, e.raw()))))
    }
    /// Element `n` (1-based, as in X12), or `None` when the segment has fewer elements.
    fn element(&self, n: usize) -> Option<PyElement> {
        self.with(|s| {
            s.element(n).map(|e| PyElement {
                raw: e.raw().into(),
                delimiters: s.delimiters(),
            })
        })
    }
    fn __len__(&self) -> usize {
        self.with(|s| s.element_count())
    }
    fn __getitem__<'py>(&self, py: Python<'py>, n: isize) -> PyResult<Bound<'py, PyString>> {
        self.with(|s| {
            let count = s.element_count() as isize;
            let i = if n < 0 { count + 1 + n } else { n };
            if i == 0 && n <= 0 && n != 0 {
                // seg[-len-1] would be the id: keep negative indexes to elements only.
                return Err(PyIndexError::new_err("segment element index out of range"));
            }
            if i < 0 || i > count {
                return Err(PyIndexError::new_err(format!(
                    "segment {} has {} elements; index {n} is out of range",
                    String::from_utf8_lossy(s.id()),
                    count
                )));
            }
            Ok(if i == 0 {
                text(py, s.id())
            } else {
                text(py, s.value(i as usize))
            })
        })
    }
    fn __str__<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.with(|s| text(py, s.raw()))
    }
    fn __repr__(&self) -> String {
        self.with(|s| {
            let raw = String::from_utf8_lossy(s.raw());
            let shown: String = raw.chars().take(60).collect();
            let more = if shown.len() < raw.len() { "..." } else { "" };
            format!("<Segment {} {:?}{more}>", s.index(), shown)
        })
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<PySegment>() {
            Ok(o) => self.with(|a| {
                o.get()
                    .with(|b| a.raw() == b.raw() && a.index() == b.index())
            }),
            Err(_) => false,
        }
    }
    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.with(|s| {
            s.raw().hash(&mut h);
            s.index().hash(&mut h);
        });
        h.finish()
    }
}

/// One element of a segment: its text, components and repetitions.
#[pyclass(frozen, module = "x12kit", name = "Element")]
#[derive(Debug)]
pub struct PyElement {
    raw: Box<[u8]>,
    delimiters: Delimiters,
}

impl PyElement {
    fn with<R>(&self, f: impl FnOnce(x12kit::Element<'_>) -> R) -> R {
        // An Element view over our own bytes: a one-element "segment" `X<sep><raw>`.
        let mut buf = Vec::with_capacity(self.raw.len() + 2);
        buf.extend_from_slice(b"X");
        buf.push(self.delimiters.element);
        buf.extend_from_slice(&self.raw);
        let seg = Segment::new(&buf, b"", 0, 0, self.delimiters, true);
        let e = seg
            .element(1)
            .expect("a segment built with one element has it");
        f(e)
    }
}

#[pymethods]
impl PyElement {
    /// The element's text (repetition and component separators included).
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        text(py, &self.raw)
    }
    /// The element's bytes.
    #[getter]
    fn raw<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.raw)
    }
    /// The components of a (non-repeated) element; one item for a simple element.
    #[getter]
    fn components<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.with(|e| PyList::new(py, e.components().map(|c| text(py, c.raw()))))
    }
    /// The repetitions (one item when the element does not repeat).
    #[getter]
    fn repetitions(&self) -> Vec<PyElement> {
        self.with(|e| {
            e.repetitions()
                .map(|r| PyElement {
                    raw: r.raw().into(),
                    delimiters: self.delimiters,
                })
                .collect()
        })
    }
    /// True if the element holds more than one repetition.
    #[getter]
    fn is_repeated(&self) -> bool {
        self.with(|e| e.is_repeated())
    }
    /// True if the element (or one of its repetitions) is a composite.
    #[getter]
    fn is_composite(&self) -> bool {
        self.with(|e| e.is_composite())
    }
    /// Component `n` (1-based), or `None`.
    fn component<'py>(&self, py: Python<'py>, n: usize) -> Option<Bound<'py, PyString>> {
        self.with(|e| e.component(n).map(|c| text(py, c)))
    }
    fn __str__<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        text(py, &self.raw)
    }
    fn __repr__(&self) -> String {
        format!("<Element {:?}>", String::from_utf8_lossy(&self.raw))
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        if let Ok(o) = other.cast::<PyElement>() {
            return o.get().raw == self.raw;
        }
        if let Ok(s) = other.cast::<PyString>()
            && let Ok(s) = s.to_cow()
        {
            return s.as_bytes() == &*self.raw;
        }
        false
    }
    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.raw.hash(&mut h);
        h.finish()
    }
}

type DynSegs<'a> = Box<dyn Iterator<Item = Segment<'a>> + Send + 'a>;

self_cell::self_cell!(
    struct Cursor {
        owner: Arc<Parsed>,
        #[not_covariant]
        dependent: DynSegs,
    }
);

/// An iterator of `Segment` views over a parse result.
#[pyclass(module = "x12kit", name = "SegmentIterator")]
pub struct SegmentIterator {
    cursor: Mutex<Cursor>,
}

impl std::fmt::Debug for SegmentIterator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SegmentIterator")
    }
}

#[pymethods]
impl SegmentIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    fn __next__(&self) -> PyResult<PySegment> {
        let mut c = self
            .cursor
            .lock()
            .map_err(|_| crate::errors::internal("segment iterator lock poisoned"))?;
        c.with_dependent_mut(|owner, it| it.next().map(|s| PySegment::view(owner, &s)))
            .ok_or_else(|| PyStopIteration::new_err(()))
    }
}

// ---------------------------------------------------------------- diagnostics

/// A problem found in the X12 input (not an exception: the input was still read).
#[pyclass(frozen, module = "x12kit", name = "Diagnostic", get_all)]
#[derive(Debug)]
pub struct PyDiagnostic {
    /// `"error"` or `"warning"`.
    severity: &'static str,
    /// The stable code, e.g. `"SE_MISSING"`.
    code: &'static str,
    /// A sentence a person can act on.
    message: String,
    /// 0-based position of the segment in the input.
    segment_index: Option<usize>,
    /// Identifier of the segment concerned.
    segment_id: Option<String>,
    /// 1-based element position inside the segment.
    element: Option<u32>,
    /// Byte offset in the input.
    offset: Option<usize>,
    /// The TA1/997/999 codes it maps to (`{"ta1": ..., "ak9": ..., "ik5": ...}`), or `None`.
    ack: Option<Py<PyDict>>,
}

impl PyDiagnostic {
    pub fn of(py: Python<'_>, d: &x12kit::Diagnostic) -> PyResult<PyDiagnostic> {
        let ack = match &d.ack {
            Some(a) => Some(crate::pyser::to_py(py, a)?.cast_into::<PyDict>()?.unbind()),
            None => None,
        };
        Ok(PyDiagnostic {
            severity: match d.severity {
                x12kit::Severity::Error => "error",
                x12kit::Severity::Warning => "warning",
            },
            code: d.code.as_str(),
            message: d.message.clone(),
            segment_index: d.segment_index,
            segment_id: d.segment_id.clone(),
            element: d.element,
            offset: d.offset,
            ack,
        })
    }
    pub fn list<'py>(py: Python<'py>, ds: &[x12kit::Diagnostic]) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for d in ds {
            out.append(Bound::new(py, PyDiagnostic::of(py, d)?)?)?;
        }
        Ok(out)
    }
}

#[pymethods]
impl PyDiagnostic {
    /// The diagnostic as in the JSON contract (camelCase keys, absent fields left out).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("severity", self.severity)?;
        d.set_item("code", self.code)?;
        d.set_item("message", &self.message)?;
        if let Some(v) = self.segment_index {
            d.set_item("segmentIndex", v)?;
        }
        if let Some(v) = &self.segment_id {
            d.set_item("segmentId", v)?;
        }
        if let Some(v) = self.element {
            d.set_item("element", v)?;
        }
        if let Some(v) = self.offset {
            d.set_item("offset", v)?;
        }
        if let Some(v) = &self.ack {
            d.set_item("ack", v.bind(py).copy()?)?;
        }
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!(
            "<Diagnostic {} {}: {}>",
            self.severity, self.code, self.message
        )
    }
    fn __str__(&self) -> String {
        match self.segment_index {
            Some(i) => format!(
                "{} {} at segment {i}: {}",
                self.severity, self.code, self.message
            ),
            None => format!("{} {}: {}", self.severity, self.code, self.message),
        }
    }
}

// ---------------------------------------------------------------- the tree

/// The result of `parse()`: the input, kept once, with lazy views into it.
#[pyclass(frozen, module = "x12kit", name = "ParseResult")]
#[derive(Debug)]
pub struct ParseResult {
    parsed: Arc<Parsed>,
    documents: bool,
}

impl ParseResult {
    pub fn new(parsed: Parsed, documents: bool) -> Self {
        ParseResult {
            parsed: Arc::new(parsed),
            documents,
        }
    }
    /// The contract JSON bytes (GIL released while writing).
    pub fn json(&self, py: Python<'_>) -> PyResult<Vec<u8>> {
        let p = &self.parsed;
        let documents = self.documents;
        py.detach(|| {
            guard(|| {
                let mut out = Vec::with_capacity(p.input().len() * 2 + 256);
                x12kit::json::to_json_into(
                    p.doc(),
                    &x12kit::JsonOptions {
                        documents,
                        ..Default::default()
                    },
                    &mut out,
                );
                Ok(out)
            })
        })
    }
}

#[pymethods]
impl ParseResult {
    /// The interchanges (ISA...IEA), in input order.
    #[getter]
    fn interchanges(&self) -> Vec<PyInterchange> {
        (0..self.parsed.doc().interchanges.len())
            .map(|i| PyInterchange {
                parsed: self.parsed.clone(),
                i,
            })
            .collect()
    }
    /// Every diagnostic of the parse, in the order found.
    #[getter]
    fn diagnostics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyDiagnostic::list(py, &self.parsed.doc().diagnostics)
    }
    /// True if any diagnostic is an error.
    #[getter]
    fn has_errors(&self) -> bool {
        self.parsed.doc().has_errors()
    }
    /// Number of segments in the envelope tree.
    #[getter]
    fn segment_count(&self) -> usize {
        self.parsed.doc().segment_count()
    }
    /// The input bytes the result keeps.
    #[getter]
    fn input<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        match self.parsed.borrow_owner() {
            Owner::Bytes(b) => b
                .into_pyobject(py)
                .map(|b| b.into_any())
                .unwrap_or_else(|e| match e {}),
            other => PyBytes::new(py, other.as_slice()).into_any(),
        }
    }
    /// Every segment of the input, in order, as lazy views.
    fn segments(&self) -> SegmentIterator {
        let c = Cursor::new(self.parsed.clone(), |p| {
            Box::new(x12kit::segments(p.input())) as DynSegs<'_>
        });
        SegmentIterator {
            cursor: Mutex::new(c),
        }
    }
    /// The parse result as Python objects: exactly the JSON contract (`parse_json`), built natively.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::native::document(py, self.parsed.doc(), self.documents)
    }
    /// The JSON contract bytes (the same as `parse_json(data)`).
    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let json = self.json(py)?;
        Ok(PyBytes::new(py, &json))
    }
    fn __repr__(&self) -> String {
        let d = self.parsed.doc();
        format!(
            "<ParseResult {} interchange(s), {} diagnostic(s)>",
            d.interchanges.len(),
            d.diagnostics.len()
        )
    }
}

/// One interchange (ISA...IEA); the ISA fields are attributes.
#[pyclass(frozen, module = "x12kit", name = "Interchange")]
#[derive(Debug)]
pub struct PyInterchange {
    parsed: Arc<Parsed>,
    i: usize,
}

impl PyInterchange {
    fn get(&self) -> &Interchange<'_> {
        &self.parsed.doc().interchanges[self.i]
    }
    fn isa_field<'py>(&self, py: Python<'py>, n: usize) -> Bound<'py, PyString> {
        value_text(py, Some(&self.get().isa), n)
    }
}

fn header_dict<'py>(
    py: Python<'py>,
    seg: Option<&Segment<'_>>,
    names: &[&str],
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let Some(seg) = seg else { return Ok(None) };
    let d = PyDict::new(py);
    for (k, name) in names.iter().enumerate() {
        d.set_item(*name, value_text(py, Some(seg), k + 1))?;
    }
    Ok(Some(d))
}

#[pymethods]
impl PyInterchange {
    /// ISA01.
    #[getter]
    fn authorization_qualifier<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 1)
    }
    /// ISA02.
    #[getter]
    fn authorization_info<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 2)
    }
    /// ISA03.
    #[getter]
    fn security_qualifier<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 3)
    }
    /// ISA04.
    #[getter]
    fn security_info<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 4)
    }
    /// ISA05.
    #[getter]
    fn sender_qualifier<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 5)
    }
    /// ISA06 (padding included).
    #[getter]
    fn sender_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 6)
    }
    /// ISA07.
    #[getter]
    fn receiver_qualifier<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 7)
    }
    /// ISA08 (padding included).
    #[getter]
    fn receiver_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 8)
    }
    /// ISA09 (YYMMDD).
    #[getter]
    fn date<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 9)
    }
    /// ISA10 (HHMM).
    #[getter]
    fn time<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 10)
    }
    /// ISA11 (repetition separator from 00402 on, standards id before).
    #[getter]
    fn standards_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 11)
    }
    /// ISA12 (e.g. `00501`).
    #[getter]
    fn version<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 12)
    }
    /// ISA13.
    #[getter]
    fn control_number<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 13)
    }
    /// ISA14 (`0` or `1`).
    #[getter]
    fn ack_requested<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 14)
    }
    /// ISA15 (`P` or `T`).
    #[getter]
    fn usage<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 15)
    }
    /// ISA16.
    #[getter]
    fn component_separator<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.isa_field(py, 16)
    }
    /// The ISA fields by their JSON names (`senderId`, ...).
    #[getter]
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        Ok(
            header_dict(py, Some(&self.get().isa), &x12kit::json::ISA_FIELDS)?
                .unwrap_or_else(|| PyDict::new(py)),
        )
    }
    /// The delimiters: `{"element", "component", "repetition", "segment"}` (repetition may be `None`).
    #[getter]
    fn delimiters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = self.get().isa.delimiters();
        let out = PyDict::new(py);
        out.set_item("element", x12kit::json::delimiter_char(d.element))?;
        out.set_item("component", x12kit::json::delimiter_char(d.component))?;
        out.set_item("repetition", d.repetition.map(x12kit::json::delimiter_char))?;
        out.set_item("segment", x12kit::json::delimiter_char(d.segment))?;
        Ok(out)
    }
    /// The ISA segment.
    #[getter]
    fn isa(&self) -> PySegment {
        PySegment::view(&self.parsed, &self.get().isa)
    }
    /// The IEA segment, or `None` when missing.
    #[getter]
    fn iea(&self) -> Option<PySegment> {
        self.get()
            .iea
            .as_ref()
            .map(|s| PySegment::view(&self.parsed, s))
    }
    /// Segments directly inside the interchange (TA1, ISB, ISE, misplaced ones).
    #[getter]
    fn segments(&self) -> Vec<PySegment> {
        self.get()
            .segments
            .iter()
            .map(|s| PySegment::view(&self.parsed, s))
            .collect()
    }
    /// The functional groups.
    #[getter]
    fn groups(&self) -> Vec<PyGroup> {
        (0..self.get().groups.len())
            .map(|g| PyGroup {
                parsed: self.parsed.clone(),
                i: self.i,
                g,
            })
            .collect()
    }
    fn __repr__(&self) -> String {
        format!(
            "<Interchange {} with {} group(s)>",
            String::from_utf8_lossy(self.get().isa.value(13)),
            self.get().groups.len()
        )
    }
}

/// One functional group (GS...GE); the GS fields are attributes (empty for sets found outside a GS).
#[pyclass(frozen, module = "x12kit", name = "Group")]
#[derive(Debug)]
pub struct PyGroup {
    parsed: Arc<Parsed>,
    i: usize,
    g: usize,
}

impl PyGroup {
    fn get(&self) -> &Group<'_> {
        &self.parsed.doc().interchanges[self.i].groups[self.g]
    }
    fn gs_field<'py>(&self, py: Python<'py>, n: usize) -> Bound<'py, PyString> {
        value_text(py, self.get().gs.as_ref(), n)
    }
}

#[pymethods]
impl PyGroup {
    /// GS01 (e.g. `PO`).
    #[getter]
    fn functional_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.gs_field(py, 1)
    }
    /// GS02.
    #[getter]
    fn sender_code<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.gs_field(py, 2)
    }
    /// GS03.
    #[getter]
    fn receiver_code<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.gs_field(py, 3)
    }
    /// GS04 (CCYYMMDD).
    #[getter]
    fn date<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.gs_field(py, 4)
    }
    /// GS05.
    #[getter]
    fn time<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.gs_field(py, 5)
    }
    /// GS06.
    #[getter]
    fn control_number<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.gs_field(py, 6)
    }
    /// GS07 (e.g. `X`).
    #[getter]
    fn agency<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.gs_field(py, 7)
    }
    /// GS08 (e.g. `004010`).
    #[getter]
    fn version<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.gs_field(py, 8)
    }
    /// The GS fields by their JSON names, or `None` for the implicit group of sets outside a GS.
    #[getter]
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        header_dict(py, self.get().gs.as_ref(), &x12kit::json::GS_FIELDS)
    }
    /// The GS segment, or `None`.
    #[getter]
    fn gs(&self) -> Option<PySegment> {
        self.get()
            .gs
            .as_ref()
            .map(|s| PySegment::view(&self.parsed, s))
    }
    /// The GE segment, or `None` when missing.
    #[getter]
    fn ge(&self) -> Option<PySegment> {
        self.get()
            .ge
            .as_ref()
            .map(|s| PySegment::view(&self.parsed, s))
    }
    /// Misplaced segments inside the group but outside any set.
    #[getter]
    fn segments(&self) -> Vec<PySegment> {
        self.get()
            .segments
            .iter()
            .map(|s| PySegment::view(&self.parsed, s))
            .collect()
    }
    /// The transaction sets.
    #[getter]
    fn transactions(&self) -> Vec<PyTransaction> {
        (0..self.get().transactions.len())
            .map(|t| PyTransaction {
                parsed: self.parsed.clone(),
                i: self.i,
                g: self.g,
                t,
            })
            .collect()
    }
    fn __repr__(&self) -> String {
        format!(
            "<Group {} {} with {} transaction(s)>",
            String::from_utf8_lossy(self.get().gs.as_ref().map_or(&b""[..], |s| s.value(1))),
            String::from_utf8_lossy(self.get().gs.as_ref().map_or(&b""[..], |s| s.value(6))),
            self.get().transactions.len()
        )
    }
}

/// One transaction set (ST...SE).
#[pyclass(frozen, module = "x12kit", name = "Transaction")]
#[derive(Debug)]
pub struct PyTransaction {
    parsed: Arc<Parsed>,
    i: usize,
    g: usize,
    t: usize,
}

impl PyTransaction {
    fn group(&self) -> &Group<'_> {
        &self.parsed.doc().interchanges[self.i].groups[self.g]
    }
    fn get(&self) -> &Transaction<'_> {
        &self.group().transactions[self.t]
    }
}

#[pymethods]
impl PyTransaction {
    /// ST01, the transaction set identifier (e.g. `850`).
    #[getter(r#type)]
    fn kind<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        text(py, self.get().kind())
    }
    /// ST02.
    #[getter]
    fn control_number<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        text(py, self.get().control_number())
    }
    /// ST03, or `None` when absent.
    #[getter]
    fn implementation_reference<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        self.get().st.element(3).map(|e| text(py, e.raw()))
    }
    /// The ST segment.
    #[getter]
    fn st(&self) -> PySegment {
        PySegment::view(&self.parsed, &self.get().st)
    }
    /// The SE segment, or `None` when missing.
    #[getter]
    fn se(&self) -> Option<PySegment> {
        self.get()
            .se
            .as_ref()
            .map(|s| PySegment::view(&self.parsed, s))
    }
    /// The body segments (between ST and SE), as lazy views.
    fn segments(&self) -> SegmentIterator {
        let (i, g, t) = (self.i, self.g, self.t);
        let c = Cursor::new(self.parsed.clone(), move |p| {
            let doc = p.doc();
            let tx = &doc.interchanges[i].groups[g].transactions[t];
            Box::new(doc.body(tx)) as DynSegs<'_>
        });
        SegmentIterator {
            cursor: Mutex::new(c),
        }
    }
    /// The payload mapped back from the segments, for the 18 known set types; `None` for others.
    /// The same dict, keys in the same order, as this set's `document` in `to_dict()`.
    #[getter]
    fn document<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let p = &self.parsed;
        let (i, g, t) = (self.i, self.g, self.t);
        // The core writes this set's document alone, as the parse result
        // carries it (the contract's key order): the cost is the set's size.
        let json = py.detach(|| {
            guard(|| {
                x12kit::ops::transaction_document_json(p.doc(), i, g, t)
                    .map_err(crate::errors::core_err)
            })
        })?;
        json.map(|json| pyjson::loads(py, &json)).transpose()
    }
    fn __repr__(&self) -> String {
        format!(
            "<Transaction {} {}>",
            String::from_utf8_lossy(self.get().kind()),
            String::from_utf8_lossy(self.get().control_number())
        )
    }
}
