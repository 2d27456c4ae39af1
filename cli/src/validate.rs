//! `x12kit validate` (envelope rules, human or JSON output) and `x12kit ack`
//! (TA1 / 997 / 999 acknowledgements to stdout).

use crate::files::{fail, map_input, show};
use clap::{Args, ValueEnum};
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use x12kit::ops;
use x12kit::validate::{
    GroupSummary, InterchangeSummary, Options, Retain, SetSummary, Sink, Status, Validation,
    Validator,
};
use x12kit::{AckKind, Diagnostic, Severity};

/// Arguments of `x12kit validate`.
#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// X12 file, or `-` for standard input.
    #[arg(default_value = "-")]
    file: PathBuf,
    /// Print the JSON validation result instead of the report.
    #[arg(long)]
    json: bool,
    /// Indent the JSON.
    #[arg(long, requires = "json")]
    pretty: bool,
    /// Stream the input with bounded memory (for files larger than memory):
    /// diagnostics are printed as found and only sets with errors are listed.
    #[arg(long, conflicts_with = "json")]
    stream: bool,
    /// List at most this many transaction sets with errors per group.
    #[arg(long, default_value_t = 20)]
    max_sets: usize,
    /// Also check the structure of the 18 known transaction sets (segment
    /// order, loops, mandatory segments and elements, types, codes).
    #[arg(long)]
    structure: bool,
    /// The options as JSON, with the names every language uses
    /// (`{"structure": true, "retain": "errors"}`), instead of `--structure`.
    #[arg(long, value_name = "JSON", conflicts_with = "structure")]
    options: Option<String>,
    /// A partner's implementation guide (JSON, `schema/guide.schema.json`)
    /// to check the sets it names against; repeat for several. Implies
    /// `--structure`.
    #[arg(long = "guide", value_name = "GUIDE.json")]
    guides: Vec<PathBuf>,
    /// A trading partner profile (JSON): its `guides` are applied as
    /// `--guide` files are (a `--guide` of the same set and version wins).
    #[arg(long, short = 'p', value_name = "PARTNER.json")]
    partner: Option<PathBuf>,
}

/// Which acknowledgement `x12kit ack` writes.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Kind {
    /// A TA1 per interchange.
    Ta1,
    /// A 997 per functional group.
    #[value(name = "997")]
    F997,
    /// A 999 per functional group.
    #[value(name = "999")]
    F999,
    /// 997 for 004010 groups, 999 for 005010 groups, plus a TA1 when requested or needed.
    Auto,
}

/// What follows each segment terminator of the acknowledgement.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Break {
    /// A line feed (nothing when the terminator is itself a line break).
    Auto,
    /// Nothing.
    None,
    /// A line feed.
    Lf,
    /// A carriage return and line feed.
    Crlf,
}

/// Arguments of `x12kit ack`.
#[derive(Args, Debug)]
pub struct AckArgs {
    /// X12 file to acknowledge, or `-` for standard input.
    #[arg(default_value = "-")]
    file: PathBuf,
    /// Which acknowledgement to write.
    #[arg(long, value_enum, default_value_t = Kind::Auto)]
    kind: Kind,
    /// Only list the transaction sets with errors (AK2/IK5), not every set.
    #[arg(long)]
    errors_only: bool,
    /// ISA13 of the (first) acknowledgement interchange.
    #[arg(long, default_value_t = 1)]
    interchange_control: u64,
    /// GS06 of the (first) acknowledgement group.
    #[arg(long, default_value_t = 1)]
    group_control: u64,
    /// ST02 of the (first) 997 / 999.
    #[arg(long, default_value_t = 1)]
    set_control: u64,
    /// Delimiters of the acknowledgement as four characters: element,
    /// component, repetition, segment terminator (e.g. `*:^~`); default: the
    /// received ones.
    #[arg(long)]
    delimiters: Option<String>,
    /// Date and time of the acknowledgement, `YYYYMMDDHHMM` (UTC); default: now.
    #[arg(long)]
    timestamp: Option<String>,
    /// What follows each segment terminator.
    #[arg(long, value_enum, default_value_t = Break::Auto)]
    line_break: Break,
    /// Check the envelope rules only: leave out the structure rules of the
    /// 18 known transaction sets (by default their segment and element errors
    /// are reported in AK3/AK4 or IK3/IK4).
    #[arg(long)]
    envelope_only: bool,
    /// The options as JSON, with the names every language uses
    /// (`{"kind": "997", "errorsOnly": true}`), instead of the flags above.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["kind", "errors_only", "interchange_control", "group_control", "set_control", "delimiters", "timestamp", "line_break", "envelope_only"])]
    options: Option<String>,
    /// The current time in Unix seconds (default: the system clock), which
    /// dates the acknowledgement unless a date and time are given.
    #[arg(long, value_name = "UNIX_SECONDS")]
    now: Option<u64>,
    /// A partner's implementation guide (JSON) to validate the sets it
    /// names against: a 999 carries its implementation codes (IK304 I4,
    /// IK403 I6, …), a 997 the nearest standard ones. Repeat for several.
    #[arg(
        long = "guide",
        value_name = "GUIDE.json",
        conflicts_with = "envelope_only"
    )]
    guides: Vec<PathBuf>,
    /// A trading partner profile (JSON): its `guides` are applied as
    /// `--guide` files are (a `--guide` of the same set and version wins).
    #[arg(
        long,
        short = 'p',
        value_name = "PARTNER.json",
        conflicts_with = "envelope_only"
    )]
    partner: Option<PathBuf>,
}

/// The guides of the `--partner` profile, if one is given.
fn partner_guides(partner: &Option<PathBuf>) -> Result<Vec<ops::Guide>, ExitCode> {
    partner
        .as_deref()
        .map_or(Ok(Vec::new()), crate::guides::of_partner)
}

fn code_of(d: &Diagnostic) -> String {
    let Some(a) = &d.ack else {
        return String::new();
    };
    let mut parts = Vec::new();
    if let Some(c) = a.ta1 {
        parts.push(format!("TA105 {c}"));
    }
    if let Some(c) = a.ak9 {
        parts.push(format!("AK905 {c}"));
    }
    if let Some(c) = a.ik5 {
        parts.push(format!("AK502/IK502 {c}"));
    }
    if let Some(c) = a.ik3 {
        parts.push(format!("AK304/IK304 {c}"));
    }
    if let Some(c) = a.ik4 {
        parts.push(format!("AK403/IK403 {c}"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" -> {}", parts.join(", "))
    }
}

fn diagnostic_line(d: &Diagnostic) -> String {
    format!("  {d}{}", code_of(d))
}

fn status_text(s: Status) -> &'static str {
    match s {
        Status::Accepted => "accepted",
        Status::AcceptedWithErrors => "accepted with errors",
        Status::PartiallyAccepted => "partially accepted",
        Status::Rejected => "rejected",
    }
}

fn interchange_line(i: &InterchangeSummary) -> String {
    let mut s = format!(
        "interchange {} from {}/{} to {}/{} (ISA12 {}): {} (TA1 {} {})",
        i.control_number,
        i.sender_qualifier,
        i.sender_id,
        i.receiver_qualifier,
        i.receiver_id,
        i.version,
        status_text(i.status),
        i.ta1.code,
        i.ta1.note
    );
    if i.recovered {
        s.push_str(" [ISA unreadable: identity read at fixed positions]");
    }
    s
}

fn group_line(g: &GroupSummary) -> String {
    let a = &g.ak9;
    let head = match &g.functional_id {
        Some(f) => format!("group {} ({f}, {})", g.control_number, g.version),
        None => "transaction sets outside any group".to_string(),
    };
    let mut s = format!(
        "  {head}: {} (AK9 {}: {} included, {} received, {} accepted",
        status_text(g.status),
        a.code,
        a.included,
        a.received,
        a.accepted
    );
    if !a.errors.is_empty() {
        let _ = write!(s, "; codes {}", a.errors.join(" "));
    }
    s.push(')');
    s
}

fn set_line(t: &SetSummary) -> String {
    let mut s = format!(
        "    set {} ({}): {} (AK5 {}",
        t.control_number,
        t.kind,
        status_text(t.status),
        t.ak5.code
    );
    if !t.ak5.errors.is_empty() {
        let _ = write!(s, " {}", t.ak5.errors.join(" "));
    }
    s.push(')');
    for e in &t.segment_errors {
        let mut codes = e.codes.clone();
        if !e.elements.is_empty() && !codes.contains(&"8") {
            codes.push("8");
        }
        let _ = write!(
            s,
            "\n      segment {} at position {}: {}",
            e.segment_id,
            e.position,
            codes.join(" ")
        );
        for el in &e.elements {
            let _ = write!(s, "; element {} code {}", el.position, el.code);
        }
    }
    s
}

/// Prints the report of a whole validation.
fn report(v: &Validation, max_sets: usize, out: &mut impl Write) -> io::Result<()> {
    for i in &v.interchanges {
        writeln!(out, "{}", interchange_line(i))?;
        for g in &i.groups {
            writeln!(out, "{}", group_line(g))?;
            let bad: Vec<&SetSummary> = g
                .transactions
                .iter()
                .filter(|t| t.status != Status::Accepted)
                .collect();
            for t in bad.iter().take(max_sets) {
                writeln!(out, "{}", set_line(t))?;
            }
            if bad.len() > max_sets {
                writeln!(
                    out,
                    "    … and {} more sets with errors",
                    bad.len() - max_sets
                )?;
            }
        }
    }
    if !v.diagnostics.is_empty() {
        writeln!(out, "diagnostics:")?;
        for d in &v.diagnostics {
            writeln!(out, "{}", diagnostic_line(d))?;
        }
    }
    if let Some(a) = &v.acknowledgements {
        writeln!(out, "acknowledgements received:")?;
        for t in &a.interchange_acks {
            writeln!(
                out,
                "  TA1 for interchange {}: {} {} ({})",
                t.control_number, t.code, t.note.code, t.note.description
            )?;
        }
        for g in &a.group_acks {
            writeln!(
                out,
                "  {} for group {} ({}): AK9 {} ({} of {} sets accepted)",
                g.kind,
                g.group_control_number,
                g.functional_id,
                if g.code.is_empty() {
                    "missing"
                } else {
                    &g.code
                },
                g.accepted.map_or("?".to_string(), |n| n.to_string()),
                g.received.map_or("?".to_string(), |n| n.to_string()),
            )?;
            for t in &g.transactions {
                let codes: Vec<&str> = t.errors.iter().map(|c| c.code.as_str()).collect();
                writeln!(
                    out,
                    "    set {} ({}): {} {}",
                    t.control_number,
                    t.kind,
                    if t.code.is_empty() { "?" } else { &t.code },
                    codes.join(" ")
                )?;
            }
        }
    }
    let (e, w) = (v.error_count(), v.warning_count());
    writeln!(
        out,
        "{}: {e} error{}, {w} warning{}",
        if e == 0 { "valid" } else { "invalid" },
        if e == 1 { "" } else { "s" },
        if w == 1 { "" } else { "s" }
    )
}

/// Streams the report: diagnostics as they are found, then the summaries.
struct Printer<W: Write> {
    out: W,
    max_sets: usize,
    listed: usize,
    errors: usize,
    warnings: usize,
    failed: Option<io::Error>,
}

impl<W: Write> Printer<W> {
    fn line(&mut self, s: &str) {
        if self.failed.is_none() {
            if let Err(e) = writeln!(self.out, "{s}") {
                self.failed = Some(e);
            }
        }
    }
}

impl<W: Write> Sink for Printer<W> {
    fn diagnostic(&mut self, d: Diagnostic) {
        match d.severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
        }
        let line = diagnostic_line(&d);
        self.line(&line);
    }

    /// Only the sets with errors are listed.
    fn accepted_sets(&self) -> bool {
        false
    }

    fn transaction(&mut self, t: &SetSummary) {
        if t.status != Status::Accepted && self.listed < self.max_sets {
            self.listed += 1;
            let line = set_line(t);
            self.line(&line);
        }
    }

    fn group(&mut self, g: &GroupSummary) {
        self.listed = 0;
        let line = group_line(g);
        self.line(&line);
    }

    fn interchange(&mut self, i: InterchangeSummary) {
        let line = interchange_line(&i);
        self.line(&line);
    }
}

/// `x12kit validate`.
pub fn run_validate(args: ValidateArgs) -> ExitCode {
    let file = &args.file;
    let options = match args
        .options
        .as_deref()
        .map(ops::options_str::<ops::ValidateOptions>)
    {
        None => ops::ValidateOptions {
            structure: args.structure,
            ..Default::default()
        },
        Some(Ok(o)) => o,
        Some(Err(e)) => return crate::files::usage_error(&e),
    };
    let options = match partner_guides(&args.partner)
        .and_then(|p| crate::guides::with_more(&options.guides, &args.guides, p))
    {
        Ok(guides) => ops::ValidateOptions { guides, ..options },
        Err(code) => return code,
    };
    if args.stream {
        return stream(file, args.max_sets, options.structure, options.guides);
    }
    // The report lists only the sets that are not accepted: the others
    // need not be kept (the JSON result has every set).
    let options = if !args.json && options.retain == Retain::All {
        ops::ValidateOptions {
            retain: Retain::Errors,
            ..options
        }
    } else {
        options
    };
    let v = match streamed(file, &options) {
        Ok(Some(v)) => v,
        Ok(None) => match map_input(file) {
            Ok(input) => ops::validate(&input, &options),
            Err(e) => return fail(file, e),
        },
        Err(e) => return fail(file, e),
    };
    let stdout = io::stdout().lock();
    let mut out = io::BufWriter::new(stdout);
    let written = if args.json {
        let json = if args.pretty {
            v.to_json_pretty()
        } else {
            v.to_json()
        };
        out.write_all(&json).and_then(|_| out.write_all(b"\n"))
    } else {
        report(&v, args.max_sets, &mut out)
    }
    .and_then(|_| out.flush());
    match written {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => return fail(file, e),
        _ => {}
    }
    if v.is_valid() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Validates a regular file by streaming it (memory bounded by the longest
/// segment plus the summaries kept), giving exactly the result of
/// [`ops::validate`] on the whole file: the core's stream reads the
/// acknowledgements, recovers interchanges whose ISA cannot be parsed and
/// checks UTF-8 as the whole-document validation does. `None` for standard
/// input and other non-regular files, which take the whole-document path
/// (so the two paths can be compared on the same bytes).
fn streamed(file: &Path, options: &ops::ValidateOptions) -> io::Result<Option<Validation>> {
    if file == Path::new("-") {
        return Ok(None);
    }
    let mut f = std::fs::File::open(file)?;
    if !f.metadata()?.is_file() {
        return Ok(None);
    }
    let options = Options {
        structure: options.structure,
        retain: options.retain,
        guides: options.guides.clone(),
        ..Options::default()
    };
    Validator::with_sink(options, Validation::default())
        .read(&mut f)
        .map(Some)
}

fn stream(file: &Path, max_sets: usize, structure: bool, guides: ops::Guides) -> ExitCode {
    let reader: Box<dyn io::Read> = if file == Path::new("-") {
        Box::new(io::stdin().lock())
    } else {
        match std::fs::File::open(file) {
            Ok(f) => Box::new(f),
            Err(e) => return fail(file, e),
        }
    };
    let printer = Printer {
        out: io::BufWriter::new(io::stdout().lock()),
        max_sets,
        listed: 0,
        errors: 0,
        warnings: 0,
        failed: None,
    };
    let options = Options {
        retain: Retain::Counts,
        structure,
        guides,
        ..Options::default()
    };
    let mut p = match Validator::with_sink(options, printer).read(reader) {
        Ok(p) => p,
        Err(e) => return fail(file, e),
    };
    let (e, w) = (p.errors, p.warnings);
    let summary = format!(
        "{}: {e} error{}, {w} warning{}",
        if e == 0 { "valid" } else { "invalid" },
        if e == 1 { "" } else { "s" },
        if w == 1 { "" } else { "s" }
    );
    p.line(&summary);
    let _ = p.out.flush();
    if let Some(err) = p.failed.filter(|e| e.kind() != io::ErrorKind::BrokenPipe) {
        return fail(file, err);
    }
    if e == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `x12kit ack`: the acknowledgement on stdout. Exit 0 when the input has
/// no error diagnostics, 1 when it has some (the acknowledgement, which
/// reports them, is still written) or nothing could be acknowledged (e.g.
/// `NOT_X12`), 2 for usage and I/O errors.
pub fn run_ack(args: AckArgs) -> ExitCode {
    let file = &args.file;
    let delimiters = match args.delimiters.as_deref() {
        None => None,
        Some(s) => {
            let c: Vec<String> = s.chars().map(String::from).collect();
            if c.len() != 4 {
                eprintln!(
                    "x12kit: --delimiters must be four characters (element, component, repetition, segment terminator), e.g. \"*:^~\", not \"{s}\""
                );
                return ExitCode::from(2);
            }
            Some(ops::DelimiterOptions {
                element: c[0].clone(),
                component: c[1].clone(),
                repetition: Some(c[2].clone()),
                segment: c[3].clone(),
            })
        }
    };
    let (date, time) = match args.timestamp.as_deref() {
        None => (None, None),
        Some(t) if t.is_char_boundary(8.min(t.len())) && t.len() == 12 => {
            (Some(t[..8].to_string()), Some(t[8..].to_string()))
        }
        Some(t) => {
            eprintln!("x12kit: --timestamp must be YYYYMMDDHHMM, e.g. 202402291305, not \"{t}\"");
            return ExitCode::from(2);
        }
    };
    let flags = ops::AcknowledgeOptions {
        kind: match args.kind {
            Kind::Ta1 => AckKind::Ta1,
            Kind::F997 => AckKind::Fa997,
            Kind::F999 => AckKind::Fa999,
            Kind::Auto => AckKind::Auto,
        },
        structure: !args.envelope_only,
        errors_only: args.errors_only,
        interchange_control_number: args.interchange_control,
        group_control_number: args.group_control,
        set_control_number: args.set_control,
        date,
        time,
        line_break: match args.line_break {
            Break::Auto => None,
            Break::None => Some(String::new()),
            Break::Lf => Some("\n".to_string()),
            Break::Crlf => Some("\r\n".to_string()),
        },
        delimiters,
        guides: Default::default(),
    };
    let options = match args
        .options
        .as_deref()
        .map(ops::options_str::<ops::AcknowledgeOptions>)
    {
        None => flags,
        Some(Ok(o)) => o,
        Some(Err(e)) => return crate::files::usage_error(&e),
    };
    let options = match partner_guides(&args.partner)
        .and_then(|p| crate::guides::with_more(&options.guides, &args.guides, p))
    {
        Ok(guides) => ops::AcknowledgeOptions { guides, ..options },
        Err(code) => return code,
    };
    let now = args
        .now
        .map_or_else(x12kit::clock::now, x12kit::DateTime::from_unix);
    let input = match map_input(file) {
        Ok(b) => b,
        Err(e) => return fail(file, e),
    };
    let v = ops::validate(
        &input,
        &ops::ValidateOptions {
            structure: options.structure,
            guides: options.guides.clone(),
            ..Default::default()
        },
    );
    let x12 = match ops::acknowledge_validation(&v, &options, now) {
        Ok(x12) => x12,
        Err(e) => {
            crate::files::report(file, &e);
            return ExitCode::from(2);
        }
    };
    let errors: Vec<&Diagnostic> = v.diagnostics.iter().filter(|d| d.is_error()).collect();
    if x12.is_empty() {
        match errors.iter().find(|d| d.code == x12kit::Code::NotX12) {
            Some(d) => eprintln!("x12kit: {}: nothing to acknowledge: {d}", show(file)),
            None => eprintln!(
                "x12kit: {}: nothing to acknowledge with --kind {} (no interchange{} found)",
                show(file),
                match args.kind {
                    Kind::Ta1 => "ta1",
                    Kind::F997 => "997",
                    Kind::F999 => "999",
                    Kind::Auto => "auto",
                },
                if matches!(args.kind, Kind::Ta1) {
                    ""
                } else {
                    " with a functional group, or none that needs a TA1,"
                }
            ),
        }
        return ExitCode::from(1);
    }
    let status = crate::files::emit(file, &x12);
    if status == ExitCode::SUCCESS && !errors.is_empty() {
        eprintln!(
            "x12kit: {}: the input has {} error diagnostic{}; the acknowledgement reports {}",
            show(file),
            errors.len(),
            if errors.len() == 1 { "" } else { "s" },
            if errors.len() == 1 { "it" } else { "them" }
        );
        return ExitCode::from(1);
    }
    status
}
