//! `x12kit render` (payload JSON → a complete interchange for a partner),
//! `x12kit csv` (a CSV → the payloads of its documents and every problem, as
//! JSON) and `x12kit schema` (the JSON Schema of a document type's payload, or
//! of the partner profile).

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use x12kit::ops;

/// Arguments of `x12kit render`.
#[derive(Args, Debug)]
pub struct RenderArgs {
    /// Document type: 850, 810, 855, 856, 204, 210, 211, 212, 214, 753, 754, 858, 940, 943, 944, 945, 947 or 990.
    #[arg(long = "type", short = 't')]
    kind: String,
    /// Trading partner profile (JSON, see `x12kit schema partner`).
    #[arg(long, short = 'p')]
    partner: PathBuf,
    /// Payload JSON file, or `-` for standard input (see `x12kit schema TYPE`).
    #[arg(default_value = "-", conflicts_with = "csv")]
    payload: PathBuf,
    /// Render every document of a CSV instead (one interchange, one transaction set per
    /// document): its header row names JSON pointers into the payload, consecutive rows
    /// with one document key are one document (see `x12kit schema TYPE --csv-template`).
    /// Every problem is printed with its row and column, and nothing is rendered.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// With --csv: the field separator, `,` or `;`.
    #[arg(long, default_value = ",", requires = "csv")]
    delimiter: String,
    /// With --csv: the header cell of the document key column (default: the first column).
    #[arg(long, value_name = "COLUMN", requires = "csv")]
    document_key: Option<String>,
    /// Interchange control number (ISA13/IEA02).
    #[arg(long, default_value_t = 1)]
    control_number: u32,
    /// Group control number (GS06/GE02).
    #[arg(long, default_value_t = 1)]
    group_control_number: u32,
    /// Transaction set control number (ST02/SE02).
    #[arg(long, default_value_t = 1)]
    set_control_number: u32,
    /// Interchange date CCYYMMDD, a real date (default: today, UTC).
    #[arg(long, requires = "time")]
    date: Option<String>,
    /// Interchange time HHMM (default: now, UTC).
    #[arg(long, requires = "date")]
    time: Option<String>,
    /// Print the normalised document as JSON instead of the X12: defaults filled
    /// in, empty members (null, {}, []) left out, as `parse` maps it back.
    #[arg(long)]
    document: bool,
    /// The options as JSON, with the names every language uses
    /// (`{"controlNumbers": {"interchange": 7}, "date": "20261122", "time": "0930"}`),
    /// instead of the control number, date and time flags.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["control_number", "group_control_number", "set_control_number", "date", "time"])]
    options: Option<String>,
    /// The current time in Unix seconds (default: the system clock), which
    /// dates the interchange unless a date and time are given.
    #[arg(long, value_name = "UNIX_SECONDS")]
    now: Option<u64>,
    /// A partner's implementation guide (JSON, `schema/guide.schema.json`)
    /// the payload must keep: a payload that breaks it is refused with every
    /// problem (`GUIDE_*`) at its pointer. Repeat for several; the one of
    /// the document type and the partner's version applies, before the
    /// profile's own `guides`.
    #[arg(long = "guide", value_name = "GUIDE.json")]
    guides: Vec<PathBuf>,
}

/// Arguments of `x12kit csv`.
#[derive(Args, Debug)]
pub struct CsvArgs {
    /// Document type: 850, 810, … (see `x12kit render --help`).
    #[arg(long = "type", short = 't')]
    kind: String,
    /// CSV file, or `-` for standard input: its header row names JSON pointers into the
    /// payload (see `x12kit schema TYPE --csv-template`).
    #[arg(default_value = "-")]
    file: PathBuf,
    /// A trading partner profile (JSON): its implementation guide's required fields are checked too.
    #[arg(long, short = 'p')]
    partner: Option<PathBuf>,
    /// The field separator, `,` or `;`.
    #[arg(long)]
    delimiter: Option<String>,
    /// The header cell of the document key column (default: the first column).
    #[arg(long, value_name = "COLUMN")]
    document_key: Option<String>,
    /// Rows under the header read at most (default 10000).
    #[arg(long, value_name = "N")]
    max_rows: Option<usize>,
    /// Also print the rows as read (`table`: each row's cells as text).
    #[arg(long)]
    table: bool,
    /// Indent the JSON.
    #[arg(long)]
    pretty: bool,
    /// The options as JSON, with the names every language uses
    /// (`{"delimiter": ";", "documentKey": "/purchaseOrderNumber", "maxRows": 500, "table": true}`,
    /// `partner` a profile object), instead of the flags.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["partner", "delimiter", "document_key", "max_rows", "table"])]
    options: Option<String>,
}

/// Arguments of `x12kit schema`.
#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// A document type (850, 810, …) or `partner`.
    what: String,
    /// Print a CSV header row for the document type instead (for `x12kit render --csv`):
    /// its business reference first, then every field a column can name.
    #[arg(long)]
    csv_template: bool,
    /// A trading partner profile (JSON): the payload schema narrowed for it, by
    /// its version for the type, its guide of the type (codes, lengths,
    /// patterns, fixed values, required and not-used fields) and its required fields.
    #[arg(
        long,
        short = 'p',
        value_name = "PARTNER.json",
        conflicts_with = "csv_template"
    )]
    partner: Option<PathBuf>,
}

/// A JSON file's text; `INVALID_UTF8` (exit 1) when it is not UTF-8.
fn read_text(path: &std::path::Path) -> Result<String, ExitCode> {
    let bytes = crate::files::read_input(path).map_err(|e| crate::files::fail(path, e))?;
    String::from_utf8(bytes).map_err(|e| {
        let e = x12kit::Error::new(
            x12kit::ErrorCode::InvalidUtf8,
            format!(
                "the file is not UTF-8 text (byte {} is not valid UTF-8); JSON is UTF-8",
                e.utf8_error().valid_up_to()
            ),
        );
        crate::files::report(path, &e);
        ExitCode::from(1)
    })
}

/// Runs `x12kit render`.
pub fn run_render(a: RenderArgs) -> ExitCode {
    if let Some(csv) = a.csv.clone() {
        return render_csv(a, &csv);
    }
    let (partner, payload) = match (read_text(&a.partner), read_text(&a.payload)) {
        (Ok(p), Ok(v)) => (p, v),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let partner = match resolved_partner(&a.partner, partner) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let (options, now) = match options_of(&a) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let options = match crate::guides::with_files(&options.guides, &a.guides) {
        Ok(guides) => ops::RenderOptions { guides, ..options },
        Err(code) => return code,
    };
    match ops::render_str(&a.kind, &payload, &partner, &options, now) {
        Ok(r) => {
            for w in &r.warnings {
                eprintln!(
                    "x12kit: {}: warning {} {}: {}",
                    crate::files::show(&a.payload),
                    w.code,
                    w.pointer,
                    w.message
                );
            }
            let bytes = if a.document {
                let mut v = serde_json::to_vec_pretty(&r.document).unwrap_or_default();
                v.push(b'\n');
                v
            } else {
                r.x12
            };
            crate::files::emit(&a.payload, &bytes)
        }
        Err(e) => {
            let at = if e.code() == x12kit::ErrorCode::InvalidPartner
                || e.pointer() == Some("/partner")
            {
                &a.partner
            } else {
                &a.payload
            };
            crate::files::report(at, &e);
            ExitCode::from(1)
        }
    }
}

/// The partner profile's text with its guides given as paths read
/// (relative to the profile); text that is not JSON is left for the core
/// to report.
fn resolved_partner(path: &std::path::Path, text: String) -> Result<String, ExitCode> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(text);
    };
    if !v.get("guides").is_some_and(serde_json::Value::is_object) {
        return Ok(text);
    }
    let v = crate::guides::resolve_profile(path, v)?;
    Ok(v.to_string())
}

/// The render options and "now" of the flags (or of `--options`).
fn options_of(a: &RenderArgs) -> Result<(ops::RenderOptions, x12kit::DateTime), ExitCode> {
    let options = match a
        .options
        .as_deref()
        .map(ops::options_str::<ops::RenderOptions>)
    {
        None => ops::RenderOptions {
            control_numbers: ops::RenderControlNumbers {
                interchange: a.control_number,
                group: a.group_control_number,
                transaction: a.set_control_number,
            },
            date: a.date.clone(),
            time: a.time.clone(),
            guides: ops::Guides::default(),
        },
        Some(Ok(o)) => o,
        Some(Err(e)) => return Err(crate::files::usage_error(&e)),
    };
    let now = a
        .now
        .map_or_else(x12kit::clock::now, x12kit::DateTime::from_unix);
    Ok((options, now))
}

/// A partner profile file as JSON; `INVALID_UTF8` or `INVALID_JSON` (exit 1) when it is not.
fn read_partner(path: &std::path::Path) -> Result<serde_json::Value, ExitCode> {
    serde_json::from_str(&read_text(path)?).map_err(|e| {
        crate::files::report(path, &x12kit::Error::invalid_json("partner profile", e));
        ExitCode::from(1)
    })
}

/// Runs `x12kit csv`: the core's `payloads_from_csv` as JSON on stdout; exit 1 when the
/// file has problems (they are in the JSON), 2 for options that cannot be used.
pub fn run_csv(a: CsvArgs) -> ExitCode {
    let options = match a
        .options
        .as_deref()
        .map(ops::options_str::<ops::CsvOptions>)
    {
        Some(Ok(o)) => o,
        Some(Err(e)) => return crate::files::usage_error(&e),
        None => ops::CsvOptions {
            delimiter: a.delimiter.clone(),
            document_key: a.document_key.clone(),
            max_rows: a.max_rows,
            partner: match a.partner.as_deref().map(read_partner).transpose() {
                Ok(p) => p,
                Err(code) => return code,
            },
            table: a.table,
        },
    };
    let bytes = match crate::files::read_input(&a.file) {
        Ok(b) => b,
        Err(e) => return crate::files::fail(&a.file, e),
    };
    let read = match ops::payloads_from_csv(&a.kind, &bytes, &options) {
        Ok(r) => r,
        Err(e) => {
            let at = match (&a.partner, e.pointer()) {
                (Some(p), Some("/partner")) => p,
                _ => &a.file,
            };
            crate::files::report(at, &e);
            return ExitCode::from(1);
        }
    };
    let json = if a.pretty {
        serde_json::to_vec_pretty(&read)
    } else {
        serde_json::to_vec(&read)
    };
    let mut out = match json {
        Ok(v) => v,
        Err(e) => {
            crate::files::report(
                &a.file,
                &x12kit::Error::internal(format!("the CSV result: {e}")),
            );
            return ExitCode::from(2);
        }
    };
    out.push(b'\n');
    match crate::files::emit(&a.file, &out) {
        code if code != ExitCode::SUCCESS => code,
        _ if read.problems.is_empty() => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    }
}

/// `x12kit render --csv`: every document of the CSV in one interchange, or every problem.
fn render_csv(a: RenderArgs, csv: &std::path::Path) -> ExitCode {
    let partner = match read_partner(&a.partner) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let bytes = match crate::files::read_input(csv) {
        Ok(b) => b,
        Err(e) => return crate::files::fail(csv, e),
    };
    let (options, now) = match options_of(&a) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let csv_options = ops::CsvOptions {
        delimiter: Some(a.delimiter.clone()),
        document_key: a.document_key.clone(),
        partner: Some(partner.clone()),
        ..ops::CsvOptions::default()
    };
    let read = match ops::payloads_from_csv(&a.kind, &bytes, &csv_options) {
        Ok(r) => r,
        Err(e) => {
            let at = if e.pointer() == Some("/partner") {
                &a.partner
            } else {
                csv
            };
            crate::files::report(at, &e);
            return ExitCode::from(1);
        }
    };
    if !read.problems.is_empty() {
        let shown = crate::files::show(csv);
        for p in &read.problems {
            let column = if p.column.is_empty() {
                String::new()
            } else {
                format!(" {}", p.column)
            };
            let pointer = if p.pointer.is_empty() || p.pointer == p.column {
                String::new()
            } else {
                format!(" ({})", p.pointer)
            };
            eprintln!(
                "x12kit: {shown}:{}:{column}{pointer}: {} {}",
                p.row, p.code, p.message
            );
        }
        eprintln!(
            "x12kit: {shown}: {} problem{}: nothing rendered",
            read.problems.len(),
            if read.problems.len() == 1 { "" } else { "s" }
        );
        return ExitCode::from(1);
    }
    let payloads: Vec<serde_json::Value> = read.documents.into_iter().map(|d| d.payload).collect();
    match ops::render_sets(&a.kind, &payloads, &partner, &options, now) {
        Ok(r) => {
            for w in &r.warnings {
                eprintln!(
                    "x12kit: {}: warning {} {}: {}",
                    crate::files::show(csv),
                    w.code,
                    w.pointer,
                    w.message
                );
            }
            let bytes = if a.document {
                let mut v = serde_json::to_vec_pretty(&r.documents).unwrap_or_default();
                v.push(b'\n');
                v
            } else {
                r.x12
            };
            crate::files::emit(csv, &bytes)
        }
        Err(e) => {
            crate::files::report(csv, &e);
            ExitCode::from(1)
        }
    }
}

/// Runs `x12kit schema`.
pub fn run_schema(a: SchemaArgs) -> ExitCode {
    if a.csv_template {
        return match ops::csv_template(&a.what) {
            Ok(t) => crate::files::emit(&PathBuf::from("-"), t.as_bytes()),
            Err(e) => {
                eprintln!("x12kit: schema: {e}");
                ExitCode::from(2)
            }
        };
    }
    let text = if a.what == "partner" {
        if a.partner.is_some() {
            eprintln!(
                "x12kit: schema: --partner narrows a document type's schema, not the profile's"
            );
            return ExitCode::from(2);
        }
        x12kit::partner::SCHEMA_JSON.to_string()
    } else if let Some(path) = &a.partner {
        let text = match read_text(path) {
            Ok(t) => t,
            Err(code) => return code,
        };
        // As render reports a profile that is not JSON: at `/partner`.
        let profile = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                let e = x12kit::Error::invalid_json("partner profile", e).at("/partner");
                crate::files::report(path, &e);
                return ExitCode::from(1);
            }
        };
        let profile = match crate::guides::resolve_profile(path, profile) {
            Ok(v) => v,
            Err(code) => return code,
        };
        match ops::document_schema_for_partner(&a.what, &profile) {
            Ok(s) => serde_json::to_string_pretty(&s).unwrap_or_default() + "\n",
            Err(e) if e.code() == x12kit::ErrorCode::UnknownDocumentType => {
                eprintln!("x12kit: schema: {e}");
                return ExitCode::from(2);
            }
            Err(e) => {
                crate::files::report(path, &e);
                return ExitCode::from(1);
            }
        }
    } else {
        match ops::document_schema(&a.what) {
            Ok(s) => serde_json::to_string_pretty(&s).unwrap_or_default() + "\n",
            Err(e) => {
                eprintln!("x12kit: schema: {e} (or partner)");
                return ExitCode::from(2);
            }
        }
    };
    crate::files::emit(&PathBuf::from("-"), text.as_bytes())
}
