//! `ParseResult.to_dict()`: the JSON contract of a parse result
//! (`x12kit::json`, documented in `schema/parse-result.schema.json`) built as
//! Python objects straight from the core's borrowed `Document`, with no JSON
//! text in between. Keys are interned once per call; element text comes
//! from borrowed slices of the input (short values, which repeat all over a
//! file, share one `str` object); diagnostics go through the core's
//! `Serialize` impl (`pyser`). The mapped `document` of each set is read from
//! the core's JSON text of the whole input (one pass of its writer, buffers
//! reused from set to set, the contract's key order; one set's alone is
//! `x12kit::ops::transaction_document_json`, what `Transaction.document`
//! uses), reading only the documents of that text.
//!
//! The shape is the core's: the suite checks `to_dict() == json.loads(to_json())`
//! (types included) on every vector, every corpus file and fuzzed input.

use crate::pyjson;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use x12kit::Segment;
use x12kit::envelope::{Document, Group, Interchange, Transaction};
use x12kit::json::{GE_FIELDS, GS_FIELDS, IEA_FIELDS, ISA_FIELDS, SE_FIELDS, ST_FIELDS};

/// Builds the contract of `doc` (with the mapped `document` of known sets when `documents`).
///
/// The cyclic garbage collector is paused while the objects are built: a
/// parse result is millions of fresh dicts and lists that cannot form
/// cycles, and every 700 container allocations would otherwise start a
/// collection that walks the growing tree again.
pub fn document<'py>(
    py: Python<'py>,
    doc: &Document<'_>,
    documents: bool,
) -> PyResult<Bound<'py, PyAny>> {
    pyjson::without_gc(py, || {
        // Whether each set, in order, is one of the 18 mapped types.
        let known: Vec<bool> = doc
            .interchanges
            .iter()
            .flat_map(|i| &i.groups)
            .flat_map(|g| &g.transactions)
            .map(|t| documents && x12kit::documents::is_known(t.kind()))
            .collect();
        let mapped = if known.contains(&true) {
            // The mapped documents come from the core's JSON writer (one pass,
            // buffers reused from set to set, the contract's key order); only
            // the documents of that text are read (`pyjson::documents`).
            let json = py.detach(|| {
                crate::errors::guard(|| {
                    let mut out = Vec::with_capacity(doc.input().len() * 2 + 256);
                    x12kit::json::to_json_into(doc, &x12kit::JsonOptions::default(), &mut out);
                    Ok(out)
                })
            })?;
            pyjson::documents(py, &json, &known)?
        } else {
            Vec::new()
        };
        let mut b = Builder::new(py, mapped.into_iter());
        let out = b.document(doc)?;
        if b.mapped.next().is_some() {
            return Err(crate::errors::internal(
                "more mapped documents than transaction sets",
            ));
        }
        Ok(out)
    })
}

struct Keys<'py> {
    id: Bound<'py, PyString>,
    elements: Bound<'py, PyString>,
    repeat: Bound<'py, PyString>,
    after_group: Bound<'py, PyString>,
    segments: Bound<'py, PyString>,
    document: Bound<'py, PyString>,
    trailer: Bound<'py, PyString>,
    header: Bound<'py, PyString>,
    transactions: Bound<'py, PyString>,
    groups: Bound<'py, PyString>,
    extra: Bound<'py, PyString>,
    isa: Vec<Bound<'py, PyString>>,
    gs: Vec<Bound<'py, PyString>>,
    st: Vec<Bound<'py, PyString>>,
    se: Vec<Bound<'py, PyString>>,
    ge: Vec<Bound<'py, PyString>>,
    iea: Vec<Bound<'py, PyString>>,
}

impl<'py> Keys<'py> {
    fn new(py: Python<'py>) -> Self {
        let k = |s: &str| PyString::intern(py, s);
        let all = |names: &[&str]| names.iter().map(|s| k(s)).collect();
        Keys {
            id: k("id"),
            elements: k("elements"),
            repeat: k("repeat"),
            after_group: k("afterGroup"),
            segments: k("segments"),
            document: k("document"),
            trailer: k("trailer"),
            header: k("header"),
            transactions: k("transactions"),
            groups: k("groups"),
            extra: k("extra"),
            isa: all(&ISA_FIELDS),
            gs: all(&GS_FIELDS),
            st: all(&ST_FIELDS),
            se: all(&SE_FIELDS),
            ge: all(&GE_FIELDS),
            iea: all(&IEA_FIELDS),
        }
    }
}

/// Which envelope segment a field object is (its names and the ISA's delimiter fields).
#[derive(Clone, Copy)]
enum Fields {
    Isa,
    Gs,
    St,
    Se,
    Ge,
    Iea,
}

type Mapped<'py> = std::vec::IntoIter<Option<Bound<'py, PyAny>>>;

struct Builder<'py> {
    py: Python<'py>,
    /// The `document` of each set, in order (empty when not asked for).
    mapped: Mapped<'py>,
    keys: Keys<'py>,
    empty: Bound<'py, PyString>,
    /// Short values already built in this call: one `str` each.
    strings: pyjson::ShortStrings<'py>,
    /// Line break of the current interchange, and the segments whose differs.
    line_break: Vec<u8>,
    overrides: Vec<(usize, Vec<u8>)>,
    /// Component, repetition (as `Delimiters::repetition_byte` gives it: the
    /// element separator without one, which never occurs inside an element)
    /// and element separators of the current interchange.
    component: u8,
    repetition: u8,
    element: u8,
}

impl<'py> Builder<'py> {
    fn new(py: Python<'py>, mapped: Mapped<'py>) -> Self {
        Builder {
            py,
            mapped,
            keys: Keys::new(py),
            empty: PyString::new(py, ""),
            strings: pyjson::ShortStrings::new(py),
            line_break: Vec::new(),
            overrides: Vec::new(),
            component: b':',
            repetition: b'*',
            element: b'*',
        }
    }

    /// A `str` of raw bytes (lossy UTF-8, as in the JSON text).
    #[inline]
    fn text(&mut self, b: &[u8]) -> Bound<'py, PyString> {
        if b.is_empty() {
            return self.empty.clone();
        }
        self.strings.get(b)
    }

    fn document(&mut self, doc: &Document<'_>) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        let out = PyDict::new(py);
        let ics = PyList::empty(py);
        for i in &doc.interchanges {
            ics.append(self.interchange(doc, i)?)?;
        }
        out.set_item(PyString::intern(py, "interchanges"), ics)?;
        out.set_item(
            PyString::intern(py, "diagnostics"),
            crate::pyser::to_py(py, &doc.diagnostics)?,
        )?;
        if !doc.prefix.is_empty() {
            out.set_item(PyString::intern(py, "prefix"), self.text(doc.prefix))?;
        }
        if doc.unterminated {
            out.set_item(PyString::intern(py, "unterminated"), true)?;
        }
        Ok(out.into_any())
    }

    fn delimiter(&self, b: u8) -> Bound<'py, PyString> {
        PyString::new(self.py, &x12kit::json::delimiter_char(b))
    }

    fn interchange(
        &mut self,
        doc: &Document<'_>,
        i: &Interchange<'_>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let py = self.py;
        let d = i.isa.delimiters();
        self.component = d.component;
        self.repetition = d.repetition_byte();
        self.element = d.element;
        self.line_break.clear();
        self.line_break.extend_from_slice(i.isa.suffix());
        self.overrides.clear();

        let out = PyDict::new(py);
        let delims = PyDict::new(py);
        delims.set_item(PyString::intern(py, "element"), self.delimiter(d.element))?;
        delims.set_item(
            PyString::intern(py, "component"),
            self.delimiter(d.component),
        )?;
        delims.set_item(
            PyString::intern(py, "repetition"),
            d.repetition.map(|r| self.delimiter(r)),
        )?;
        delims.set_item(PyString::intern(py, "segment"), self.delimiter(d.segment))?;
        out.set_item(PyString::intern(py, "delimiters"), delims)?;
        out.set_item(PyString::intern(py, "lineBreak"), self.text(i.isa.suffix()))?;
        let header = self.fields(Fields::Isa, &i.isa)?;
        out.set_item(&self.keys.header, header)?;
        if !i.segments.is_empty() {
            let starts: Vec<usize> = i.groups.iter().map(|g| group_start(doc, g)).collect();
            let segs = PyList::empty(py);
            for seg in &i.segments {
                let after = starts.iter().filter(|&&s| s < seg.index()).count();
                segs.append(self.segment(seg, after.checked_sub(1))?)?;
            }
            out.set_item(&self.keys.segments, segs)?;
        }
        let groups = PyList::empty(py);
        for g in &i.groups {
            groups.append(self.group(doc, g)?)?;
        }
        out.set_item(&self.keys.groups, groups)?;
        let trailer = self.trailer(Fields::Iea, i.iea.as_ref())?;
        out.set_item(&self.keys.trailer, trailer)?;
        if !self.overrides.is_empty() {
            let o = PyDict::new(py);
            let overrides = std::mem::take(&mut self.overrides);
            for (k, v) in &overrides {
                o.set_item(k.to_string(), self.text(v))?;
            }
            out.set_item(PyString::intern(py, "lineBreakOverrides"), o)?;
        }
        Ok(out)
    }

    /// Records a segment whose line break differs from the interchange's.
    #[inline]
    fn note(&mut self, seg: &Segment<'_>) {
        if seg.suffix() != self.line_break.as_slice() {
            self.overrides.push((seg.index(), seg.suffix().to_vec()));
        }
    }

    fn group(&mut self, doc: &Document<'_>, g: &Group<'_>) -> PyResult<Bound<'py, PyDict>> {
        let py = self.py;
        let out = PyDict::new(py);
        let header = self.trailer(Fields::Gs, g.gs.as_ref())?;
        out.set_item(&self.keys.header, header)?;
        if !g.segments.is_empty() {
            let segs = PyList::empty(py);
            for seg in &g.segments {
                segs.append(self.segment(seg, None)?)?;
            }
            out.set_item(&self.keys.segments, segs)?;
        }
        let txs = PyList::empty(py);
        for t in &g.transactions {
            txs.append(self.transaction(doc, g, t)?)?;
        }
        out.set_item(&self.keys.transactions, txs)?;
        let trailer = self.trailer(Fields::Ge, g.ge.as_ref())?;
        out.set_item(&self.keys.trailer, trailer)?;
        Ok(out)
    }

    fn transaction(
        &mut self,
        doc: &Document<'_>,
        _g: &Group<'_>,
        t: &Transaction<'_>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let py = self.py;
        let out = PyDict::new(py);
        self.field_entries(Fields::St, &t.st, &out)?;
        let body = doc.body(t);
        let segs = PyList::empty(py);
        for seg in body {
            segs.append(self.segment(&seg, None)?)?;
        }
        out.set_item(&self.keys.segments, segs)?;
        if let Some(Some(d)) = self.mapped.next() {
            out.set_item(&self.keys.document, d)?;
        }
        let trailer = self.trailer(Fields::Se, t.se.as_ref())?;
        out.set_item(&self.keys.trailer, trailer)?;
        Ok(out)
    }

    fn trailer(&mut self, f: Fields, seg: Option<&Segment<'_>>) -> PyResult<Bound<'py, PyAny>> {
        match seg {
            Some(s) => Ok(self.fields(f, s)?.into_any()),
            None => Ok(self.py.None().into_bound(self.py)),
        }
    }

    /// An envelope segment as an object of named raw values.
    fn fields(&mut self, f: Fields, seg: &Segment<'_>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(self.py);
        self.field_entries(f, seg, &out)?;
        Ok(out)
    }

    /// Named raw values; elements beyond the names go to `extra`; absent ones are left out.
    fn field_entries(
        &mut self,
        f: Fields,
        seg: &Segment<'_>,
        out: &Bound<'py, PyDict>,
    ) -> PyResult<()> {
        self.note(seg);
        let names = match f {
            Fields::Isa => &self.keys.isa,
            Fields::Gs => &self.keys.gs,
            Fields::St => &self.keys.st,
            Fields::Se => &self.keys.se,
            Fields::Ge => &self.keys.ge,
            Fields::Iea => &self.keys.iea,
        }
        .clone();
        let isa = matches!(f, Fields::Isa);
        let mut extra = Vec::new();
        for (k, e) in seg.elements().enumerate() {
            match names.get(k) {
                Some(name) => {
                    let v = match e.raw() {
                        // ISA11 and ISA16 hold delimiters: one byte, shown like `delimiters`.
                        [b] if isa && (k == 10 || k == 15) => self.delimiter(*b).into_any(),
                        raw => self.text(raw).into_any(),
                    };
                    out.set_item(name, v)?;
                }
                None => extra.push(e.raw()),
            }
        }
        if !extra.is_empty() {
            let l = PyList::empty(self.py);
            for e in extra {
                l.append(self.element(e)?)?;
            }
            out.set_item(&self.keys.extra, l)?;
        }
        Ok(())
    }

    /// `{"id": ..., "elements": [...]}`.
    #[inline]
    fn segment(
        &mut self,
        seg: &Segment<'_>,
        after_group: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.note(seg);
        let py = self.py;
        let raw = seg.raw();
        let id = seg.id();
        let out = PyDict::new(py);
        let id = self.text(id);
        out.set_item(&self.keys.id, id)?;
        let sep = self.element;
        let elements = match raw.get(seg.id().len() + 1..) {
            Some(body) => {
                let l = new_list(py, body.iter().filter(|&&b| b == sep).count() + 1)?;
                for (k, e) in body.split(|&b| b == sep).enumerate() {
                    put(&l, k, self.element(e)?);
                }
                l
            }
            None => PyList::empty(py),
        };
        out.set_item(&self.keys.elements, elements)?;
        if let Some(g) = after_group {
            out.set_item(&self.keys.after_group, g)?;
        }
        Ok(out)
    }

    /// One element: string, components list, or `{"repeat": [...]}`.
    #[inline]
    fn element(&mut self, e: &[u8]) -> PyResult<Bound<'py, PyAny>> {
        // One pass counts both separators.
        let r = self.repetition;
        let c = self.component;
        let (mut reps, mut parts) = (0usize, 0usize);
        for &b in e {
            reps += usize::from(b == r);
            parts += usize::from(b == c);
        }
        if reps > 0 {
            let list = new_list(self.py, reps + 1)?;
            for (k, rep) in e.split(|&b| b == r).enumerate() {
                let parts = rep.iter().filter(|&&b| b == c).count();
                put(&list, k, self.composite(rep, parts)?);
            }
            let d = PyDict::new(self.py);
            d.set_item(&self.keys.repeat, list)?;
            return Ok(d.into_any());
        }
        self.composite(e, parts)
    }

    /// A string, or the list of its components when it has `separators` component separators.
    #[inline]
    fn composite(&mut self, e: &[u8], separators: usize) -> PyResult<Bound<'py, PyAny>> {
        if separators == 0 {
            return Ok(self.text(e).into_any());
        }
        let list = new_list(self.py, separators + 1)?;
        let c = self.component;
        for (k, part) in e.split(|&b| b == c).enumerate() {
            put(&list, k, self.text(part).into_any());
        }
        Ok(list.into_any())
    }
}

/// Index of a group's first segment (GS, or the first ST of an implicit group).
fn group_start(doc: &Document<'_>, g: &Group<'_>) -> usize {
    match (&g.gs, g.transactions.first()) {
        (Some(gs), _) => gs.index(),
        (None, Some(t)) => t.st.index(),
        (None, None) => doc.segment_count(),
    }
}

/// A new list of `n` slots, each to be filled once with [`put`] before the
/// list is handed out (no growth and no reallocation while it is filled; a
/// list dropped half filled is fine: CPython frees empty slots as `NULL`).
fn new_list(py: Python<'_>, n: usize) -> PyResult<Bound<'_, PyList>> {
    let n = pyo3::ffi::Py_ssize_t::try_from(n)
        .map_err(|_| crate::errors::internal("a list longer than isize::MAX"))?;
    // SAFETY: PyList_New returns a new reference to a list (or NULL with an exception set).
    unsafe { Ok(Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyList_New(n))?.cast_into_unchecked()) }
}

/// Fills slot `k` of a list made by [`new_list`] (`k` < its length, each slot once).
#[inline]
fn put(list: &Bound<'_, PyList>, k: usize, v: Bound<'_, PyAny>) {
    debug_assert!(k < list.len());
    // SAFETY: `k` is within the list (the callers split by the byte they counted), the
    // slot is still NULL, and PyList_SetItem steals the reference `into_ptr` gives up.
    unsafe {
        pyo3::ffi::PyList_SetItem(list.as_ptr(), k as pyo3::ffi::Py_ssize_t, v.into_ptr());
    }
}
