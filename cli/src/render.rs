//! `x12kit render` (payload JSON → a complete interchange for a partner) and
//! `x12kit schema` (the JSON Schema of a document type's payload, or of the
//! partner profile).

use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use x12kit::documents::{self, Severity};
use x12kit::{ControlNumbers, Partner, RenderOptions};

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
    /// Group control number (GS06/GE02); defaults to the interchange control number.
    #[arg(long)]
    group_control_number: Option<u32>,
    /// Transaction set control number (ST02/SE02).
    #[arg(long, default_value_t = 1)]
    set_control_number: u32,
    /// Interchange date CCYYMMDD (default: today, UTC).
    #[arg(long, requires = "time")]
    date: Option<String>,
    /// Interchange time HHMM (default: now, UTC).
    #[arg(long, requires = "date")]
    time: Option<String>,
    /// Print the normalised document as JSON instead of the X12: defaults filled
    /// in, empty members (null, {}, []) left out, as `parse` maps it back.
    #[arg(long)]
    document: bool,
}

/// Arguments of `x12kit schema`.
#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// A document type (850, 810, …) or `partner`.
    what: String,
}

fn read_json(path: &std::path::Path) -> Result<serde_json::Value, ExitCode> {
    let bytes = crate::read_input(path).map_err(|e| crate::fail(path, e))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        eprintln!("x12kit: {}: INVALID_JSON: {e}", crate::show(path));
        ExitCode::from(1)
    })
}

/// Runs `x12kit render`.
pub fn run_render(a: RenderArgs) -> ExitCode {
    let text = match std::fs::read_to_string(&a.partner) {
        Ok(t) => t,
        Err(e) => return crate::fail(&a.partner, e),
    };
    let partner = match Partner::from_json(&text) {
        Ok(p) => p,
        Err(issues) => {
            eprintln!(
                "x12kit: {}: INVALID_PARTNER: {} problem{}",
                a.partner.display(),
                issues.len(),
                if issues.len() == 1 { "" } else { "s" }
            );
            for i in issues {
                eprintln!("  {} {}: {}", i.code, i.pointer, i.message);
            }
            return ExitCode::from(1);
        }
    };
    let payload = match read_json(&a.payload) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let options = RenderOptions {
        control: ControlNumbers {
            interchange: a.control_number,
            group: a.group_control_number.unwrap_or(a.control_number),
            transaction: a.set_control_number,
        },
        timestamp: a.date.zip(a.time),
    };
    match x12kit::render(&a.kind, &payload, &partner, &options) {
        Ok(r) => {
            for w in &r.warnings {
                eprintln!(
                    "x12kit: {}: warning {} {}: {}",
                    crate::show(&a.payload),
                    w.code,
                    w.pointer,
                    w.message
                );
            }
            let mut out = std::io::stdout().lock();
            let bytes = if a.document {
                let mut v = serde_json::to_vec_pretty(&r.document).unwrap_or_default();
                v.push(b'\n');
                v
            } else {
                r.x12
            };
            match out.write_all(&bytes).and_then(|_| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => crate::fail(&a.payload, e),
            }
        }
        Err(e) => {
            let n = e
                .issues
                .iter()
                .filter(|i| i.severity == Severity::Error)
                .count();
            eprintln!(
                "x12kit: {}: {}: {n} problem{}",
                crate::show(&a.payload),
                e.code(),
                if n == 1 { "" } else { "s" }
            );
            for i in &e.issues {
                let sev = if i.severity == Severity::Error {
                    ""
                } else {
                    "warning "
                };
                eprintln!("  {sev}{} {}: {}", i.code, i.pointer, i.message);
            }
            ExitCode::from(1)
        }
    }
}

const PARTNER_SCHEMA: &str = include_str!("../../schema/partner.schema.json");

/// Runs `x12kit schema`.
pub fn run_schema(a: SchemaArgs) -> ExitCode {
    let text = if a.what == "partner" {
        PARTNER_SCHEMA.to_string()
    } else {
        match documents::schema::schema(&a.what) {
            Some(s) => serde_json::to_string_pretty(&s).unwrap_or_default() + "\n",
            None => {
                eprintln!(
                    "x12kit: schema: unknown document type \"{}\"; known: {} and partner",
                    a.what,
                    documents::TYPES.join(", ")
                );
                return ExitCode::from(2);
            }
        }
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => crate::fail(&PathBuf::from("-"), e),
    }
}
