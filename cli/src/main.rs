//! The `x12kit` command-line tool: parse X12 to JSON, write JSON back to
//! X12, inspect an interchange's outline, render outbound documents from
//! JSON, and sign or verify webhooks.
//!
//! Exit codes: 0 clean, 1 the input has error diagnostics (or is refused),
//! 2 usage or I/O error. Errors go to stderr, prefixed with the file name.

mod files;
mod guides;
mod inspect;
mod render;
mod split;
mod validate;
mod webhook;

use clap::{Parser, Subcommand, ValueEnum};
use files::{
    drop_pages, emit, fail, map_input, raw_stdout, read_input, release_pages, report, show,
    usage_error,
};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "x12kit", version, about = "Parse, write, inspect and sign X12 EDI", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse X12 and print the JSON parse result (interchanges, groups, sets, diagnostics).
    Parse {
        /// X12 file, or `-` for standard input.
        #[arg(default_value = "-")]
        file: PathBuf,
        /// Indent the JSON.
        #[arg(long)]
        pretty: bool,
        /// Leave out `document` (the payload mapped back for the 18 known set
        /// types): several times faster for bulk conversion.
        #[arg(long)]
        no_documents: bool,
        /// The cap on one transaction set, in bytes (0: none; default 64 MiB): a
        /// larger set is a SET_TOO_LARGE error, written without its segments,
        /// and the sets after it follow.
        #[arg(long, value_name = "BYTES")]
        max_set_bytes: Option<u64>,
        /// The options as JSON, with the names every language uses (`{"documents": false}`), instead of the flags.
        #[arg(long, value_name = "JSON", conflicts_with_all = ["no_documents", "max_set_bytes"])]
        options: Option<String>,
        /// Worker threads that turn batches of transaction sets into JSON; the
        /// output is the same bytes for any N. Default (or 0): one per CPU,
        /// started only when the input has work to divide (a batch of about
        /// 2,000 segments of sets fills), so a small file, small interchanges
        /// or one huge set are written by the reading thread alone, as with 1.
        /// 1: the reading thread alone.
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
    /// Turn a JSON parse result back into X12.
    Write {
        /// JSON file (as printed by `x12kit parse`), or `-` for standard input.
        #[arg(default_value = "-")]
        file: PathBuf,
        /// Line breaks after each segment terminator: keep those recorded in the JSON, or force one.
        #[arg(long, value_enum, default_value_t = LineBreak::Keep)]
        line_break: LineBreak,
        /// The options as JSON (`{"lineBreak": "\r\n"}`), instead of the flags.
        #[arg(long, value_name = "JSON", conflicts_with = "line_break")]
        options: Option<String>,
    },
    /// Print a human-readable outline of an X12 file, streaming it with bounded memory.
    Inspect {
        /// X12 file, or `-` for standard input.
        #[arg(default_value = "-")]
        file: PathBuf,
        /// Never show a progress bar.
        #[arg(long)]
        no_progress: bool,
        /// List at most this many transaction sets per group before summarising the rest.
        #[arg(long, default_value_t = 10)]
        max_sets: usize,
    },
    /// Check the envelope rules (ISA/IEA, GS/GE, ST/SE): report, or `--json`; exit 1 on any error.
    /// A regular file is streamed with bounded memory, with the whole-document result.
    Validate(validate::ValidateArgs),
    /// Write the TA1 / 997 / 999 acknowledgement of an X12 file to stdout.
    Ack(validate::AckArgs),
    /// Print what the TA1 / 997 / 999 in an X12 file accept or reject, as JSON.
    ReadAck {
        /// X12 file holding acknowledgements, or `-` for standard input.
        #[arg(default_value = "-")]
        file: PathBuf,
    },
    /// Sign or verify webhook deliveries (HMAC-SHA256 over `timestamp.body`).
    #[command(subcommand)]
    Webhook(webhook::WebhookCommand),
    /// Render a payload JSON into a complete interchange for a trading partner (X12 on stdout).
    Render(render::RenderArgs),
    /// Split X12 into complete interchanges of a set (or `--max-sets` sets,
    /// or a group) each, counts right, control numbers kept or renumbered.
    Split(split::SplitArgs),
    /// Make a part of a split again from its recipe (`split --json` gives one
    /// per part) and the input, reading only the recipe's byte ranges (X12 on stdout).
    RebuildPart(split::RebuildPartArgs),
    /// Merge interchanges of one sender/receiver pair into one (X12 on stdout).
    Merge(split::MergeArgs),
    /// Read a CSV of documents of one type into their payloads, with every problem at its
    /// row, column and JSON pointer (JSON on stdout; exit 1 when there are problems):
    /// what `render --csv` renders.
    Csv(render::CsvArgs),
    /// Print the JSON Schema of a document type's payload (`850`, …) or of the partner profile (`partner`).
    Schema(render::SchemaArgs),
    /// Print what x12kit knows of a segment as JSON (`null` when it does not
    /// describe it): its name and each element's data element number, name,
    /// type, lengths and code meanings.
    Describe {
        /// The segment identifier (`BEG`, `N1`, `ISA`).
        segment: String,
        /// The transaction set (ST01: `850`, …); envelope and acknowledgment segments need none.
        #[arg(long = "set", value_name = "TYPE", default_value = "")]
        set_type: String,
        /// The edition: a group's version (GS08: `004010`, `005010X222A1`) or an
        /// interchange's (ISA12: `00401`, `00501`); default the base edition (004010).
        #[arg(
            id = "x12_version",
            long = "version",
            value_name = "VERSION",
            default_value = ""
        )]
        version: String,
        /// Indent the JSON.
        #[arg(long)]
        pretty: bool,
    },
}

/// What `write` puts after each segment terminator.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum LineBreak {
    /// As recorded in the JSON (the original file's line breaks).
    Keep,
    /// Nothing: one long line.
    None,
    /// A line feed.
    Lf,
    /// A carriage return and line feed.
    Crlf,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Parse {
            file,
            pretty,
            no_documents,
            max_set_bytes,
            options,
            threads,
        } => {
            let threads = threads.unwrap_or(x12kit::json::AUTO_THREADS);
            match options
                .as_deref()
                .map(x12kit::ops::options_str::<x12kit::ops::ParseOptions>)
            {
                None => {
                    let mut o = x12kit::ops::ParseOptions {
                        documents: !no_documents,
                        ..Default::default()
                    };
                    if let Some(n) = max_set_bytes {
                        o.max_set_bytes = x12kit::envelope::SetCap::bytes(n);
                    }
                    parse(&file, pretty, &o, threads)
                }
                Some(Ok(o)) => parse(&file, pretty, &o, threads),
                Some(Err(e)) => usage_error(&e),
            }
        }
        Command::Write {
            file,
            line_break,
            options,
        } => write(&file, line_break, options.as_deref()),
        Command::ReadAck { file } => match read_input(&file) {
            Ok(input) => {
                let mut json = x12kit::ops::read_acknowledgement_json(&input);
                json.push(b'\n');
                emit(&file, &json)
            }
            Err(e) => fail(&file, e),
        },
        Command::Inspect {
            file,
            no_progress,
            max_sets,
        } => inspect::run(&file, !no_progress, max_sets),
        Command::Validate(args) => validate::run_validate(args),
        Command::Ack(args) => validate::run_ack(args),
        Command::Webhook(cmd) => webhook::run(cmd),
        Command::Split(a) => split::split(&a),
        Command::RebuildPart(a) => split::rebuild_part(&a),
        Command::Merge(a) => split::merge(&a),
        Command::Render(args) => render::run_render(args),
        Command::Csv(args) => render::run_csv(args),
        Command::Schema(args) => render::run_schema(args),
        Command::Describe {
            segment,
            set_type,
            version,
            pretty,
        } => describe(&set_type, &version, &segment, pretty),
    }
}

/// Runs `x12kit describe`: the core's description JSON and a line feed.
fn describe(set_type: &str, version: &str, segment: &str, pretty: bool) -> ExitCode {
    match x12kit::ops::describe_segment(set_type, version, segment) {
        Ok(d) => {
            let mut text = if pretty {
                serde_json::to_string_pretty(&d).unwrap_or_default()
            } else {
                serde_json::to_string(&d).unwrap_or_default()
            };
            text.push('\n');
            emit(Path::new("-"), text.as_bytes())
        }
        Err(e) => {
            eprintln!("x12kit: describe: {e}");
            ExitCode::from(2)
        }
    }
}

fn parse(file: &Path, pretty: bool, options: &x12kit::JsonOptions, threads: usize) -> ExitCode {
    let input = match map_input(file) {
        Ok(b) => b,
        Err(e) => return fail(file, e),
    };
    let mut out = io::BufWriter::with_capacity(1 << 16, raw_stdout());
    // The core writes one transaction set at a time and says which input it
    // is done with: the pages of a mapped file behind that point are
    // dropped, and so are those its read-ahead of a large interchange's
    // envelope went through, so the memory held follows the largest set,
    // not the file nor an interchange.
    let mut released = 0;
    let mut release = |upto: usize| released = release_pages(&input, released, upto);
    let mut ahead = |from: usize, to: usize| drop_pages(&input, from, to);
    let written = x12kit::json::to_json_stream_mapped(
        &input,
        &mut out,
        pretty,
        options,
        threads,
        &mut release,
        &mut ahead,
    )
    .and_then(|d| {
        out.write_all(b"\n")?;
        out.flush()?;
        Ok(d)
    });
    let diagnostics = match written {
        Ok(d) => d,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return ExitCode::SUCCESS,
        Err(e) => return fail(file, e),
    };
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        eprintln!(
            "x12kit: {}: {errors} error diagnostic{} (see \"diagnostics\" in the output)",
            show(file),
            if errors == 1 { "" } else { "s" }
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

fn write(file: &Path, line_break: LineBreak, options: Option<&str>) -> ExitCode {
    let input = match read_input(file) {
        Ok(b) => b,
        Err(e) => return fail(file, e),
    };
    let options = match options.map(x12kit::ops::options_str::<x12kit::ops::WriteOptions>) {
        Some(Ok(o)) => o,
        Some(Err(e)) => return usage_error(&e),
        None => x12kit::ops::WriteOptions {
            line_break: match line_break {
                LineBreak::Keep => None,
                LineBreak::None => Some(String::new()),
                LineBreak::Lf => Some("\n".into()),
                LineBreak::Crlf => Some("\r\n".into()),
            },
        },
    };
    match x12kit::ops::write_json(&input, &options) {
        Ok(x12) => emit(file, &x12),
        Err(e) => {
            report(file, &e);
            ExitCode::from(1)
        }
    }
}
