//! `x12kit render` (payload JSON → a complete interchange for a partner) and
//! `x12kit schema` (the JSON Schema of a document type's payload, or of the
//! partner profile).

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
    #[arg(default_value = "-")]
    payload: PathBuf,
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
}

/// Arguments of `x12kit schema`.
#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// A document type (850, 810, …) or `partner`.
    what: String,
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
    let (partner, payload) = match (read_text(&a.partner), read_text(&a.payload)) {
        (Ok(p), Ok(v)) => (p, v),
        (Err(code), _) | (_, Err(code)) => return code,
    };
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
            date: a.date,
            time: a.time,
        },
        Some(Ok(o)) => o,
        Some(Err(e)) => return crate::files::usage_error(&e),
    };
    let now = a
        .now
        .map_or_else(x12kit::clock::now, x12kit::DateTime::from_unix);
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

/// Runs `x12kit schema`.
pub fn run_schema(a: SchemaArgs) -> ExitCode {
    let text = if a.what == "partner" {
        x12kit::partner::SCHEMA_JSON.to_string()
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
