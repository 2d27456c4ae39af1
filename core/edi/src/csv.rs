//! CSV intake: a spreadsheet of documents of one declared type → their
//! payloads, with every problem at its row, column and JSON pointer.
//!
//! - The header row names JSON pointers into the payload (`/purchaseOrderNumber`,
//!   `/shipTo/id`); a `*` stands for the items of an array (`/lines/*/sku`):
//!   each row with a value in such a column adds one item to that array. Each
//!   pointer must lead to a value field of the set's payload shape (both
//!   editions), with one `*` at most.
//! - Consecutive rows with the same document key (the first column, or the
//!   `documentKey` column) are one document; a key that comes back after
//!   other documents is a problem. A document's other columns without a `*`
//!   take the value of its rows (empty or the same in each).
//! - Values become the declaration's JSON types (strings, integers, numbers);
//!   a date written as X12 writes it (`CCYYMMDD`) or with slashes
//!   (`YYYY/MM/DD`) becomes the payload's `YYYY-MM-DD`, a time written `HHMM`
//!   or `HHMMSS` becomes `HH:MM` or `HH:MM:SS`; any other date or time stays
//!   text for the renderer to check (so `11/22/2026`, which could be either
//!   day-first or month-first, is a problem at its cell, never a guess); an
//!   empty cell is an absent field.
//! - Each document is then checked as the renderer checks a payload (the
//!   partner's implementation guide too, when a partner is given), and each
//!   problem's pointer is traced back to the row and column it came from.
//!
//! Problems are reported, not thrown: row (1-based, the header is 1),
//! column (the header cell, or the pointer with `*` of a field the file lacks),
//! pointer into the document's payload, stable code and message. Only an
//! unusable call is an [`Error`]: a type x12kit does not declare, bad options,
//! a broken partner profile. The `csv` crate reads the file (quoted fields,
//! CRLF or LF, a UTF-8 byte order mark, `,` or `;`).

use crate::documents::PType;
use crate::documents::schema::{Leaf, Shape, shape};
use crate::partner::Partner;
use crate::render::{RenderOptions, render};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use x12kit_syntax::diagnostics::Severity;
use x12kit_syntax::error::{Error, ErrorCode};
use x12kit_syntax::time::DateTime;

/// Rows under the header one call reads at most, unless `maxRows` says otherwise.
pub const MAX_ROWS: usize = 10_000;

/// Options of [`payloads_from_csv`] (JSON `{"delimiter", "documentKey", "maxRows", "partner", "table"}`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct CsvOptions {
    /// The field separator: `","` (default) or `";"`.
    pub delimiter: Option<String>,
    /// The header cell of the column whose value groups rows into documents
    /// (default: the first column).
    pub document_key: Option<String>,
    /// Rows under the header read at most (default [`MAX_ROWS`]).
    pub max_rows: Option<usize>,
    /// A partner profile: its implementation guide's required fields are checked too.
    pub partner: Option<Value>,
    /// Also answer the rows as read (`table`: each row's cells as text), for previews.
    pub table: bool,
}

/// What a CSV makes: its documents and every problem.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CsvPayloads {
    /// The type of every document.
    pub document_type_code: String,
    /// The header row's cells.
    pub header: Vec<String>,
    /// The documents, in the file's order (also those with problems).
    pub documents: Vec<CsvDocument>,
    /// Every problem, in the file's order; none means every document renders.
    pub problems: Vec<CsvProblem>,
    /// With `table`: the rows under the header, each row's cells as text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<Vec<Vec<String>>>,
}

/// One document of a CSV.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CsvDocument {
    /// Its document key (the value of the key column).
    pub key: String,
    /// Its business reference ([`crate::sets::reference_of`]).
    pub reference: Option<String>,
    /// Its first and last rows (1-based, the header is 1).
    pub rows: [usize; 2],
    /// The payload.
    pub payload: Value,
}

/// One problem of a CSV.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CsvProblem {
    /// 1-based; the header is row 1.
    pub row: usize,
    /// The header cell of the column; for a field the file has no column of,
    /// its pointer with `*` (the column to add); empty for the whole row or file.
    pub column: String,
    /// JSON pointer into the document's payload (empty when there is none).
    pub pointer: String,
    /// Stable code (`CSV_*`, or the renderer's `MISSING_FIELD`, `INVALID_FIELD` ...).
    pub code: ErrorCode,
    /// What is wrong, for a person.
    pub message: String,
}

/// A step of a column's pointer.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Field(String),
    Each,
}

/// A header cell that names a value of the payload.
#[derive(Debug)]
struct Column {
    steps: Vec<Step>,
    ptype: PType,
}

impl Column {
    /// The steps up to the `*` (the array), if the column has one.
    fn array(&self) -> Option<&[Step]> {
        let i = self.steps.iter().position(|s| *s == Step::Each)?;
        Some(&self.steps[..i])
    }
}

fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn pointer_of(steps: &[Step], index: Option<usize>) -> String {
    let mut out = String::new();
    for s in steps {
        out.push('/');
        match s {
            Step::Field(f) => out.push_str(&escape(f)),
            Step::Each => match index {
                Some(i) => out.push_str(&i.to_string()),
                None => out.push('*'),
            },
        }
    }
    out
}

/// Reads a header cell against the payload shape: the column, or why not.
fn column(cell: &str, root: &Shape) -> Result<Column, (ErrorCode, String)> {
    let Some(rest) = cell.strip_prefix('/') else {
        return Err((
            ErrorCode::CsvUnknownColumn,
            format!(
                "{cell:?} is not a JSON pointer into the payload: a column is named like /purchaseOrderNumber or /lines/*/sku"
            ),
        ));
    };
    let mut steps = Vec::new();
    let mut shape = root;
    let mut at = String::new();
    for raw in rest.split('/') {
        let part = raw.replace("~1", "/").replace("~0", "~");
        match shape {
            Shape::Object(fields, _) => {
                let Some(f) = fields.iter().find(|f| f.name == part) else {
                    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
                    return Err((
                        ErrorCode::UnknownField,
                        format!(
                            "the payload has no field {part:?}{}; the fields there are {}",
                            if at.is_empty() {
                                String::new()
                            } else {
                                format!(" under {at}")
                            },
                            names.join(", ")
                        ),
                    ));
                };
                steps.push(Step::Field(part));
                shape = &f.shape;
            }
            Shape::Array(item, _) => {
                if part != "*" {
                    return Err((
                        ErrorCode::CsvUnknownColumn,
                        format!(
                            "{at} is a list: name its items with * ({at}/*/...), one item per row"
                        ),
                    ));
                }
                if steps.contains(&Step::Each) {
                    return Err((
                        ErrorCode::CsvUnknownColumn,
                        format!(
                            "{cell} has two *: a row adds one item to one list, so a column has one * at most"
                        ),
                    ));
                }
                steps.push(Step::Each);
                shape = item;
            }
            Shape::Leaf(_) => {
                return Err((
                    ErrorCode::UnknownField,
                    format!("{at} is a value: it has no field {part:?}"),
                ));
            }
        }
        at = pointer_of(&steps, None);
    }
    match shape {
        Shape::Leaf(Leaf { ptype, .. }) => Ok(Column {
            steps,
            ptype: *ptype,
        }),
        Shape::Object(fields, _) => Err((
            ErrorCode::CsvUnknownColumn,
            format!(
                "{cell} is an object: a column names one of its values ({})",
                fields
                    .iter()
                    .take(4)
                    .map(|f| format!("{cell}/{}", escape(&f.name)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
        Shape::Array(..) => Err((
            ErrorCode::CsvUnknownColumn,
            format!("{cell} is a list: name its items with * ({cell}/*...), one item per row"),
        )),
    }
}

/// A date cell in the payload's `YYYY-MM-DD` when it is written in one of the
/// unambiguous forms `CCYYMMDD` or `YYYY/MM/DD`; else the text as it is (the
/// renderer then says what it expects).
fn date_text(text: &str) -> String {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() == 8 && digits(0..8) {
        format!("{}-{}-{}", &text[..4], &text[4..6], &text[6..])
    } else if b.len() == 10
        && b[4] == b'/'
        && b[7] == b'/'
        && digits(0..4)
        && digits(5..7)
        && digits(8..10)
    {
        text.replace('/', "-")
    } else {
        text.to_string()
    }
}

/// A time cell in the payload's `HH:MM` or `HH:MM:SS` when it is written as
/// X12 writes it (`HHMM`, `HHMMSS`); else the text as it is.
fn time_text(text: &str) -> String {
    let b = text.as_bytes();
    if !b.iter().all(u8::is_ascii_digit) {
        return text.to_string();
    }
    match b.len() {
        4 => format!("{}:{}", &text[..2], &text[2..]),
        6 => format!("{}:{}:{}", &text[..2], &text[2..4], &text[4..]),
        _ => text.to_string(),
    }
}

/// A cell as the declaration's JSON type.
fn convert(text: &str, ptype: PType) -> Result<Value, String> {
    match ptype {
        PType::Str | PType::StrOrInt => Ok(Value::String(text.to_string())),
        PType::Date => Ok(Value::String(date_text(text))),
        PType::Time => Ok(Value::String(time_text(text))),
        PType::Int => text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("expected a whole number, found {text:?}")),
        PType::Num => text
            .parse::<serde_json::Number>()
            .ok()
            .filter(|_| !text.starts_with('+') && !text.starts_with('.'))
            .map(Value::Number)
            .ok_or_else(|| format!("expected a number such as 12 or 9.25 (a . for decimals, no thousands separator), found {text:?}")),
    }
}

/// Sets `value` at `steps` of `root` (array steps already resolved to `index`).
fn set(root: &mut Value, steps: &[Step], index: usize, value: Value) {
    let mut at = root;
    for (i, s) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        match s {
            Step::Field(f) => {
                let Value::Object(m) = at else { return };
                if last {
                    m.insert(f.clone(), value);
                    return;
                }
                let next_is_array = steps[i + 1] == Step::Each;
                at = m.entry(f.clone()).or_insert_with(|| {
                    if next_is_array {
                        Value::Array(Vec::new())
                    } else {
                        Value::Object(Map::new())
                    }
                });
            }
            Step::Each => {
                let Value::Array(a) = at else { return };
                while a.len() <= index {
                    a.push(if last {
                        Value::Null
                    } else {
                        Value::Object(Map::new())
                    });
                }
                if last {
                    a[index] = value;
                    return;
                }
                at = &mut a[index];
            }
        }
    }
}

/// The rows of one document being read.
struct Building {
    key: String,
    first: usize,
    last: usize,
    payload: Value,
    /// The value of each column without `*`, and its row.
    single: Vec<Option<(String, usize)>>,
    /// Per array (its steps): the row of each item.
    items: Vec<(Vec<Step>, Vec<usize>)>,
    /// The pointers of the values that could not be converted (not reported again).
    refused: Vec<String>,
}

/// The header cell that names `pointer` with its indexes as `*`, or that pattern itself.
fn column_of(pointer: &str, header: &[String], columns: &[Option<Column>]) -> String {
    let pattern: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|p| {
            if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) {
                "*".to_string()
            } else {
                p.to_string()
            }
        })
        .collect();
    let pattern = format!("/{}", pattern.join("/"));
    for (cell, c) in header.iter().zip(columns) {
        if c.as_ref()
            .is_some_and(|c| pointer_of(&c.steps, None) == pattern)
        {
            return cell.clone();
        }
    }
    if pointer.is_empty() || pointer == "/" {
        String::new()
    } else {
        pattern
    }
}

/// The row a payload pointer of a document came from: the row of the array item it
/// goes through, else the document's first row.
fn row_of(pointer: &str, doc: &Building) -> usize {
    for (steps, rows) in &doc.items {
        let prefix = pointer_of(steps, None);
        if let Some(rest) = pointer.strip_prefix(&prefix) {
            let index = rest.trim_start_matches('/').split('/').next().unwrap_or("");
            if rest.starts_with('/') {
                if let Some(r) = index.parse::<usize>().ok().and_then(|i| rows.get(i)) {
                    return *r;
                }
            }
        }
    }
    doc.first
}

fn problem(
    row: usize,
    column: impl Into<String>,
    pointer: impl Into<String>,
    code: ErrorCode,
    message: impl Into<String>,
) -> CsvProblem {
    CsvProblem {
        row,
        column: column.into(),
        pointer: pointer.into(),
        code,
        message: message.into(),
    }
}

/// The partner the documents are checked for: the given profile, or a stand-in
/// whose ids only let the renderer check the payload itself.
fn partner_of(o: &CsvOptions) -> Result<Partner, Error> {
    match &o.partner {
        Some(p) => Partner::from_value(p).map_err(|e| e.at("/partner")),
        None => Partner::from_value(&serde_json::json!({
            "sender": {"qualifier": "ZZ", "id": "CSV"},
            "receiver": {"qualifier": "ZZ", "id": "CSV"}
        })),
    }
}

/// Reads a CSV of documents of `code` (see the module's description).
pub fn payloads_from_csv(code: &str, csv: &[u8], o: &CsvOptions) -> Result<CsvPayloads, Error> {
    let Some(root) = shape(code) else {
        return Err(Error::new(
            ErrorCode::UnknownDocumentType,
            format!(
                "x12kit has no declaration of transaction set \"{code}\"; known: {}",
                crate::sets::TYPES.join(", ")
            ),
        ));
    };
    let delimiter = match o.delimiter.as_deref() {
        None | Some(",") => b',',
        Some(";") => b';',
        Some(other) => {
            return Err(Error::new(
                ErrorCode::InvalidOptions,
                format!("delimiter is \",\" or \";\", found {other:?}"),
            )
            .at("/delimiter"));
        }
    };
    let partner = partner_of(o)?;
    let max_rows = o.max_rows.unwrap_or(MAX_ROWS);
    let mut out = CsvPayloads {
        document_type_code: code.to_string(),
        header: Vec::new(),
        documents: Vec::new(),
        problems: Vec::new(),
        table: o.table.then(Vec::new),
    };
    let bytes = csv.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(csv);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        out.problems.push(problem(
            1,
            "",
            "",
            ErrorCode::CsvEmpty,
            "the file is empty: its first row names the columns (JSON pointers such as /purchaseOrderNumber, /lines/*/sku), each row under it holds values",
        ));
        return Ok(out);
    }
    let mut reader = ::csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    // The records as text (the first not UTF-8 ends the reading: one problem).
    let mut rows: Vec<(usize, Vec<String>)> = Vec::new();
    let mut record = ::csv::ByteRecord::new();
    let mut width = 0;
    loop {
        let row = rows.len() + 1;
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                out.problems.push(problem(
                    e.position().map_or(row, |p| p.line() as usize),
                    "",
                    "",
                    ErrorCode::CsvMalformed,
                    format!("the CSV reader cannot read this row: {e}"),
                ));
                return Ok(out);
            }
        }
        if row > max_rows + 1 {
            out.problems.push(problem(
                row,
                "",
                "",
                ErrorCode::CsvTooManyRows,
                format!(
                    "the file has more than {max_rows} rows under the header, the limit: split it"
                ),
            ));
            return Ok(out);
        }
        let mut cells = Vec::with_capacity(record.len());
        for (i, field) in record.iter().enumerate() {
            match std::str::from_utf8(field) {
                Ok(t) => cells.push(t.to_string()),
                Err(e) => {
                    let bad = field.get(e.valid_up_to()).copied().unwrap_or(0);
                    let column = if row == 1 {
                        String::new()
                    } else {
                        rows.first()
                            .and_then(|(_, h)| h.get(i))
                            .cloned()
                            .unwrap_or_default()
                    };
                    out.problems.push(problem(
                        row,
                        column,
                        "",
                        ErrorCode::CsvNotUtf8,
                        format!(
                            "the file is not UTF-8 text (byte 0x{bad:02X} in field {} of this row): save it as CSV UTF-8",
                            i + 1
                        ),
                    ));
                    return Ok(out);
                }
            }
        }
        if row == 1 {
            width = cells.len();
        } else if cells.len() != width && !(cells.len() == 1 && cells[0].is_empty()) {
            out.problems.push(problem(
                row,
                "",
                "",
                ErrorCode::CsvMalformed,
                format!(
                    "this row has {} field{}, the header has {width}",
                    cells.len(),
                    if cells.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        rows.push((row, cells));
    }
    // A row the reader could not read: nothing else is said of a file in that state.
    if !out.problems.is_empty() {
        return Ok(out);
    }
    let (_, header) = rows.remove(0);
    let header: Vec<String> = header.into_iter().map(|h| h.trim().to_string()).collect();
    out.header = header.clone();
    // Blank lines are not rows of a document.
    rows.retain(|(_, cells)| cells.iter().any(|c| !c.trim().is_empty()));
    if let Some(t) = &mut out.table {
        t.extend(rows.iter().map(|(_, c)| c.clone()));
    }
    // The columns.
    let mut columns: Vec<Option<Column>> = Vec::with_capacity(header.len());
    for (i, cell) in header.iter().enumerate() {
        if header[..i].contains(cell) {
            out.problems.push(problem(
                1,
                cell.clone(),
                "",
                ErrorCode::CsvUnknownColumn,
                format!("{cell} is in the header twice"),
            ));
            columns.push(None);
            continue;
        }
        match column(cell, &root) {
            Ok(c) => columns.push(Some(c)),
            Err((code, message)) => {
                out.problems
                    .push(problem(1, cell.clone(), "", code, message));
                columns.push(None);
            }
        }
    }
    let key_index = match &o.document_key {
        None => 0,
        Some(k) => match header.iter().position(|h| h == k) {
            Some(i) => i,
            None => {
                out.problems.push(problem(
                    1,
                    k.clone(),
                    "",
                    ErrorCode::CsvUnknownColumn,
                    format!("the document key column {k:?} is not in the header"),
                ));
                return Ok(out);
            }
        },
    };
    // A column the type does not have is one problem at the header; the rows are
    // still read with the other columns, so every problem of the file is said at once.
    let header_problems = !out.problems.is_empty();
    if rows.is_empty() {
        if out.problems.is_empty() {
            out.problems.push(problem(
                2,
                "",
                "",
                ErrorCode::CsvEmpty,
                "the file has a header and no row: each document is one or more rows under it",
            ));
        }
        return Ok(out);
    }
    // The documents.
    let arrays: Vec<Vec<Step>> = {
        let mut a: Vec<Vec<Step>> = Vec::new();
        for c in columns.iter().flatten() {
            if let Some(steps) = c.array() {
                if !a.iter().any(|x| x == steps) {
                    a.push(steps.to_vec());
                }
            }
        }
        a
    };
    let mut seen: Vec<(String, usize)> = Vec::new();
    let mut building: Option<Building> = None;
    let mut done: Vec<Building> = Vec::new();
    for (row, cells) in &rows {
        let key = cells.get(key_index).map_or("", |k| k.trim()).to_string();
        if key.is_empty() {
            out.problems.push(problem(
                *row,
                header.get(key_index).cloned().unwrap_or_default(),
                "",
                ErrorCode::CsvMissingKey,
                "this row has no document key: each row names the document it belongs to",
            ));
            continue;
        }
        if building.as_ref().is_none_or(|b| b.key != key) {
            if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
                out.problems.push(problem(
                    *row,
                    header[key_index].clone(),
                    "",
                    ErrorCode::CsvMixedKeys,
                    format!("document {key} comes back here after other documents (it began at row {first}): a document's rows are consecutive"),
                ));
                continue;
            }
            seen.push((key.clone(), *row));
            if let Some(b) = building.take() {
                done.push(b);
            }
            building = Some(Building {
                key: key.clone(),
                first: *row,
                last: *row,
                payload: Value::Object(Map::new()),
                single: columns.iter().map(|_| None).collect(),
                items: arrays.iter().map(|a| (a.clone(), Vec::new())).collect(),
                refused: Vec::new(),
            });
        }
        let Some(doc) = building.as_mut() else {
            continue;
        };
        doc.last = *row;
        // The items this row adds: one per array with a value in this row.
        let mut index: Vec<Option<usize>> = vec![None; arrays.len()];
        for (a, steps) in arrays.iter().enumerate() {
            let has = columns.iter().zip(cells).any(|(c, v)| {
                c.as_ref()
                    .is_some_and(|c| c.array() == Some(steps.as_slice()))
                    && !v.trim().is_empty()
            });
            if has {
                let items = &mut doc.items[a].1;
                index[a] = Some(items.len());
                items.push(*row);
            }
        }
        for (i, (c, v)) in columns.iter().zip(cells).enumerate() {
            let Some(c) = c else { continue };
            let v = v.trim();
            if v.is_empty() {
                continue;
            }
            let item = c
                .array()
                .and_then(|steps| arrays.iter().position(|a| a == steps))
                .and_then(|a| index[a]);
            let pointer = pointer_of(&c.steps, item);
            let value = match convert(v, c.ptype) {
                Ok(value) => value,
                Err(message) => {
                    doc.refused.push(pointer.clone());
                    out.problems.push(problem(
                        *row,
                        header[i].clone(),
                        pointer,
                        ErrorCode::InvalidField,
                        message,
                    ));
                    continue;
                }
            };
            match (c.array(), &doc.single[i]) {
                (Some(_), _) => set(&mut doc.payload, &c.steps, item.unwrap_or(0), value),
                (None, Some((first, at))) => {
                    if first != v {
                        out.problems.push(problem(
                            *row,
                            header[i].clone(),
                            pointer,
                            ErrorCode::CsvConflictingValue,
                            format!("document {} has {first:?} here in row {at}: a field of the document (no * in its column) has one value, in its first row or repeated", doc.key),
                        ));
                    }
                }
                (None, None) => {
                    doc.single[i] = Some((v.to_string(), *row));
                    set(&mut doc.payload, &c.steps, 0, value);
                }
            }
        }
    }
    done.extend(building);
    // Each document as the renderer checks it, its problems traced to their rows.
    let at = DateTime::from_unix(0);
    for doc in done {
        // With a column not read, a field it meant to give would be said missing: the
        // header's problem is the one to fix first.
        let checked = if header_problems {
            Ok(())
        } else {
            render(code, &doc.payload, &partner, &RenderOptions::default(), at).map(|_| ())
        };
        if let Err(e) = checked {
            if e.code() == ErrorCode::InvalidPartner || e.code() == ErrorCode::UnsupportedVersion {
                return Err(e.at("/partner"));
            }
            let details = e.details();
            if details.is_empty() {
                out.problems
                    .push(problem(doc.first, "", "", e.code(), e.message()));
            }
            // A value already refused (not converted) is not reported again as missing,
            // nor is the list or object it would have been in.
            let fresh = |p: &&x12kit_syntax::error::Problem| {
                p.severity == Severity::Error
                    && !doc.refused.iter().any(|r| {
                        *r == p.pointer
                            || r.strip_prefix(p.pointer.as_str())
                                .is_some_and(|rest| rest.starts_with('/'))
                    })
            };
            for p in details.iter().filter(fresh) {
                let pointer = if p.pointer == "/" {
                    String::new()
                } else {
                    p.pointer.clone()
                };
                out.problems.push(problem(
                    row_of(&pointer, &doc),
                    column_of(&pointer, &header, &columns),
                    pointer,
                    p.code,
                    p.message.clone(),
                ));
            }
        }
        out.documents.push(CsvDocument {
            reference: crate::sets::reference_of(code, &doc.payload),
            key: doc.key,
            rows: [doc.first, doc.last],
            payload: doc.payload,
        });
    }
    out.problems.sort_by_key(|p| p.row);
    Ok(out)
}

/// A header row for a CSV of `code`: the business reference first, then every value
/// of the payload a column can name (a `*` for the items of a list; values inside a
/// list of a list are left out: a row adds one item to one list).
pub fn csv_template(code: &str) -> Option<String> {
    fn walk(shape: &Shape, at: &mut Vec<Step>, out: &mut Vec<String>) {
        match shape {
            Shape::Leaf(_) => out.push(pointer_of(at, None)),
            Shape::Array(item, _) => {
                if at.contains(&Step::Each) {
                    return;
                }
                at.push(Step::Each);
                walk(item, at, out);
                at.pop();
            }
            Shape::Object(fields, _) => {
                for f in fields {
                    at.push(Step::Field(f.name.clone()));
                    walk(&f.shape, at, out);
                    at.pop();
                }
            }
        }
    }
    let root = shape(code)?;
    let mut cells = Vec::new();
    walk(&root, &mut Vec::new(), &mut cells);
    if let Some(r) = crate::sets::reference_field(code) {
        if let Some(i) = cells.iter().position(|c| c == r) {
            let first = cells.remove(i);
            cells.insert(0, first);
        }
    }
    let line: Vec<String> = cells
        .into_iter()
        .map(|c| {
            if c.contains([',', '"', ';']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c
            }
        })
        .collect();
    Some(format!("{}\n", line.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(csv: &str, o: CsvOptions) -> CsvPayloads {
        payloads_from_csv("850", csv.as_bytes(), &o).unwrap()
    }

    const HEADER: &str = "/purchaseOrderNumber,/shipTo/id,/shipTo/name,/lines/*/lineNumber,/lines/*/sku,/lines/*/quantity,/lines/*/unitPrice\n";

    #[test]
    fn dates_and_times_in_their_unambiguous_forms_become_the_payloads() {
        for (cell, want) in [
            ("20261122", "2026-11-22"),
            ("2026/11/22", "2026-11-22"),
            ("2026-11-22", "2026-11-22"),
            // day-first or month-first: left for the renderer to refuse
            ("11/22/2026", "11/22/2026"),
            ("261122", "261122"),
            ("2026112", "2026112"),
        ] {
            assert_eq!(convert(cell, PType::Date), Ok(Value::from(want)), "{cell}");
        }
        for (cell, want) in [
            ("0930", "09:30"),
            ("093015", "09:30:15"),
            ("09:30", "09:30"),
            ("930", "930"),
        ] {
            assert_eq!(convert(cell, PType::Time), Ok(Value::from(want)), "{cell}");
        }
    }

    #[test]
    fn each_declared_sets_reference_is_a_value_of_its_payload() {
        for d in crate::sets::DECLARED {
            let c = column(d.reference, &shape(d.code).unwrap());
            assert!(c.is_ok(), "{} {}: {:?}", d.code, d.reference, c.err());
            assert!(
                csv_template(d.code)
                    .unwrap()
                    .starts_with(&format!("{},", d.reference))
            );
        }
    }

    #[test]
    fn consecutive_rows_with_one_key_are_one_document_and_star_columns_add_items() {
        let r = read(
            &format!(
                "\u{feff}{HEADER}PO-1,0003947268292,ACME DC,1,WID-100,120,9.25\r\nPO-1,,,2,WID-200,24,13.79\r\n\"PO-2\",0003947268292,\"ACME, Inc.\",1,WID-100,60,9.25\r\n"
            ),
            CsvOptions::default(),
        );
        assert_eq!(r.problems, vec![]);
        assert_eq!(r.documents.len(), 2);
        assert_eq!(r.documents[0].rows, [2, 3]);
        assert_eq!(r.documents[0].reference.as_deref(), Some("PO-1"));
        assert_eq!(
            r.documents[0].payload,
            json!({"purchaseOrderNumber": "PO-1", "shipTo": {"id": "0003947268292", "name": "ACME DC"},
                   "lines": [{"lineNumber": "1", "sku": "WID-100", "quantity": 120, "unitPrice": 9.25},
                             {"lineNumber": "2", "sku": "WID-200", "quantity": 24, "unitPrice": 13.79}]})
        );
        assert_eq!(r.documents[1].payload["shipTo"]["name"], "ACME, Inc.");
        assert_eq!(r.documents[1].rows, [4, 4]);
    }

    #[test]
    fn every_problem_is_at_its_row_column_and_pointer() {
        let partner = json!({"id": "acme", "sender": {"qualifier": "ZZ", "id": "US"}, "receiver": {"qualifier": "ZZ", "id": "THEM"},
                             "requiredFields": {"850": ["/shipTo/id"]}});
        let r = read(
            &format!(
                "{HEADER}PO-1,0003947268292,ACME DC,1,WID-100,120,9.25\nPO-1,,,2,WID-200,many,13.79\nPO-2,,ACME DC,1,WID-100,5,1\nPO-1,,,3,WID-300,1,1\n"
            ),
            CsvOptions {
                partner: Some(partner),
                ..CsvOptions::default()
            },
        );
        let got: Vec<(usize, &str, &str, &str)> = r
            .problems
            .iter()
            .map(|p| {
                (
                    p.row,
                    p.column.as_str(),
                    p.pointer.as_str(),
                    p.code.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (3, "/lines/*/quantity", "/lines/1/quantity", "INVALID_FIELD"),
                (4, "/shipTo/id", "/shipTo/id", "MISSING_FIELD"),
                (5, "/purchaseOrderNumber", "", "CSV_MIXED_KEYS"),
            ],
            "{:#?}",
            r.problems
        );
        assert!(r.problems[0].message.contains("\"many\""));
        assert!(
            r.problems[1]
                .message
                .contains("implementation guide of partner acme"),
            "{}",
            r.problems[1].message
        );
    }

    #[test]
    fn a_render_problem_of_an_item_is_at_the_row_of_that_item() {
        let r = read(
            &format!(
                "{HEADER}PO-1,12345,A,1,WID-1,1,1\nPO-1,,,2,{},2,1\n",
                "W".repeat(60)
            ),
            CsvOptions::default(),
        );
        assert_eq!(r.problems.len(), 1, "{:#?}", r.problems);
        let p = &r.problems[0];
        assert_eq!(
            (p.row, p.column.as_str(), p.pointer.as_str()),
            (3, "/lines/*/sku", "/lines/1/sku")
        );
    }

    #[test]
    fn a_refused_value_is_not_said_missing_nor_is_its_list() {
        let r = read(
            "/purchaseOrderNumber,/lines/*/quantity\nPO-1,many\n",
            CsvOptions::default(),
        );
        let got: Vec<(usize, &str, &str)> = r
            .problems
            .iter()
            .map(|p| (p.row, p.column.as_str(), p.code.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![(2, "/lines/*/quantity", "INVALID_FIELD")],
            "{:#?}",
            r.problems
        );
    }

    #[test]
    fn bad_headers_each_say_why() {
        let r = read(
            "/purchaseOrderNumber,sku,/lines/*/colour,/shipTo,/lines,/lines/*/sku,/lines/*/sku\nPO-1,a,b,c,d,e,f\n",
            CsvOptions::default(),
        );
        let got: Vec<(&str, &str)> = r
            .problems
            .iter()
            .map(|p| (p.column.as_str(), p.code.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("sku", "CSV_UNKNOWN_COLUMN"),
                ("/lines/*/colour", "UNKNOWN_FIELD"),
                ("/shipTo", "CSV_UNKNOWN_COLUMN"),
                ("/lines", "CSV_UNKNOWN_COLUMN"),
                ("/lines/*/sku", "CSV_UNKNOWN_COLUMN"),
            ]
        );
        assert!(r.problems.iter().all(|p| p.row == 1));
        // The rows are read with the columns that are known.
        assert_eq!(r.documents.len(), 1);
    }

    #[test]
    fn a_bad_column_and_a_bad_value_are_both_said_and_nothing_is_said_missing() {
        let r = read(
            "/purchaseOrderNumber,/shipTo/id,/lines/*/lineNumber,/lines/*/sku,/lines/*/quantty,/lines/*/quantity\nPO-1,12345,1,WID-1,1,12x\n",
            CsvOptions::default(),
        );
        let got: Vec<(usize, &str, &str)> = r
            .problems
            .iter()
            .map(|p| (p.row, p.column.as_str(), p.code.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, "/lines/*/quantty", "UNKNOWN_FIELD"),
                (2, "/lines/*/quantity", "INVALID_FIELD")
            ],
            "{:#?}",
            r.problems
        );
    }

    #[test]
    fn files_that_cannot_be_read_are_one_problem_each() {
        let one = |csv: &[u8], o: CsvOptions| {
            let r = payloads_from_csv("850", csv, &o).unwrap();
            assert_eq!(r.problems.len(), 1, "{:#?}", r.problems);
            let p = r.problems[0].clone();
            (p.row, p.code.as_str().to_string())
        };
        assert_eq!(one(b"", CsvOptions::default()), (1, "CSV_EMPTY".into()));
        assert_eq!(
            one(b"\xEF\xBB\xBF\r\n", CsvOptions::default()),
            (1, "CSV_EMPTY".into())
        );
        assert_eq!(
            one(HEADER.as_bytes(), CsvOptions::default()),
            (2, "CSV_EMPTY".into())
        );
        let latin1 = [HEADER.as_bytes(), b"PO-1,1,Caf\xE9,1,A,1,1\n"].concat();
        assert_eq!(
            one(&latin1, CsvOptions::default()),
            (2, "CSV_NOT_UTF8".into())
        );
        let rows: String = (0..4)
            .map(|i| format!("PO-{i},12345,A,1,WID,1,1\n"))
            .collect();
        assert_eq!(
            one(
                format!("{HEADER}{rows}").as_bytes(),
                CsvOptions {
                    max_rows: Some(3),
                    ..CsvOptions::default()
                }
            ),
            (5, "CSV_TOO_MANY_ROWS".into())
        );
        assert_eq!(
            one(
                format!("{HEADER}PO-1,1,A\n").as_bytes(),
                CsvOptions::default()
            )
            .1,
            "CSV_MALFORMED"
        );
        assert_eq!(
            one(
                format!("{HEADER},12345,A,1,WID,1,1\n").as_bytes(),
                CsvOptions::default()
            ),
            (2, "CSV_MISSING_KEY".into())
        );
        assert_eq!(
            one(
                format!("{HEADER}PO-1,12345,A,1,WID,1,1\nPO-1,12346,A,2,WID,1,1\n").as_bytes(),
                CsvOptions::default()
            ),
            (3, "CSV_CONFLICTING_VALUE".into())
        );
    }

    #[test]
    fn semicolons_another_key_column_and_the_table() {
        let csv = "/lines/*/sku;/purchaseOrderNumber;/lines/*/quantity\nA;PO-9;1\nB;PO-9;2\n";
        let r = read(
            csv,
            CsvOptions {
                delimiter: Some(";".into()),
                document_key: Some("/purchaseOrderNumber".into()),
                table: true,
                ..CsvOptions::default()
            },
        );
        assert_eq!(r.documents.len(), 1, "{:#?}", r.problems);
        assert_eq!(r.documents[0].key, "PO-9");
        assert_eq!(r.table.as_ref().unwrap()[1], vec!["B", "PO-9", "2"]);
        let e = payloads_from_csv(
            "850",
            b"x",
            &CsvOptions {
                delimiter: Some("|".into()),
                ..CsvOptions::default()
            },
        )
        .unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidOptions);
        let e = payloads_from_csv("851", b"x", &CsvOptions::default()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::UnknownDocumentType);
    }
}
