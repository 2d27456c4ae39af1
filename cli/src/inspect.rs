//! `x12kit inspect`: a human-readable outline of an X12 input, streamed
//! through the core's chunk tokenizer and envelope machine, so memory stays
//! bounded whatever the file size.

use crate::files::{fail, show};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::path::Path;
use std::process::ExitCode;
use x12kit::{Diagnostic, Envelope, Handler, Reader, Segment, Severity};

/// Diagnostics kept for printing; the rest are only counted.
const MAX_DIAGNOSTICS: usize = 200;

/// Builds the outline from envelope events.
struct Outline<W: Write> {
    out: W,
    max_sets: usize,
    interchanges: usize,
    groups: usize,
    sets: usize,
    segments: usize,
    group: Option<GroupOutline>,
    set: Option<(String, String, usize)>,
    diagnostics: Vec<Diagnostic>,
    errors: usize,
    warnings: usize,
    io_error: Option<io::Error>,
}

struct GroupOutline {
    header: String,
    lines: Vec<String>,
    sets: usize,
    by_type: BTreeMap<String, usize>,
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim_end().to_string()
}

impl<W: Write> Outline<W> {
    fn emit(&mut self, line: &str) {
        if self.io_error.is_none() {
            if let Err(e) = writeln!(self.out, "{line}") {
                self.io_error = Some(e);
            }
        }
    }
}

impl<'a, W: Write> Handler<'a> for Outline<W> {
    fn interchange_start(&mut self, isa: Segment<'a>) {
        self.interchanges += 1;
        self.segments += 1;
        let d = isa.delimiters();
        let show = |b: u8| match b {
            b'\n' => "\\n".to_string(),
            b'\r' => "\\r".to_string(),
            0x21..=0x7e => (b as char).to_string(),
            _ => format!("0x{b:02X}"),
        };
        let line = format!(
            "interchange {}  {}:{} -> {}:{}  date {} {}  version {}  usage {}  delimiters element {} component {} repetition {} segment {}",
            text(&x12kit::envelope::isa_value(&isa, 13)),
            text(&x12kit::envelope::isa_value(&isa, 5)),
            text(&x12kit::envelope::isa_value(&isa, 6)),
            text(&x12kit::envelope::isa_value(&isa, 7)),
            text(&x12kit::envelope::isa_value(&isa, 8)),
            text(&x12kit::envelope::isa_value(&isa, 9)),
            text(&x12kit::envelope::isa_value(&isa, 10)),
            text(&x12kit::envelope::isa_value(&isa, 12)),
            text(&x12kit::envelope::isa_value(&isa, 15)),
            show(d.element),
            show(d.component),
            d.repetition.map_or("none".to_string(), show),
            show(d.segment),
        );
        self.emit(&line);
    }

    fn interchange_segment(&mut self, seg: Segment<'a>) {
        self.segments += 1;
        let line = format!("  {} segment: {}", text(seg.id()), text(seg.raw()));
        self.emit(&line);
    }

    fn group_start(&mut self, gs: Option<Segment<'a>>) {
        self.groups += 1;
        let header = match gs {
            Some(gs) => {
                self.segments += 1;
                format!(
                    "  group {}  {}  {} -> {}  version {}",
                    text(gs.value(6)),
                    text(gs.value(1)),
                    text(gs.value(2)),
                    text(gs.value(3)),
                    text(gs.value(8)),
                )
            }
            None => "  transaction sets outside any group".to_string(),
        };
        self.group = Some(GroupOutline {
            header,
            lines: Vec::new(),
            sets: 0,
            by_type: BTreeMap::new(),
        });
    }

    fn group_segment(&mut self, _seg: Segment<'a>) {
        self.segments += 1;
    }

    fn transaction_start(&mut self, st: Segment<'a>) {
        self.sets += 1;
        self.segments += 1;
        self.set = Some((text(st.value(1)), text(st.value(2)), 1));
    }

    #[inline]
    fn segment(&mut self, _seg: Segment<'a>) {
        self.segments += 1;
        if let Some(s) = &mut self.set {
            s.2 += 1;
        }
    }

    fn transaction_end(&mut self, se: Option<Segment<'a>>) {
        let Some((kind, control, mut count)) = self.set.take() else {
            return;
        };
        let trailer = if se.is_some() {
            self.segments += 1;
            count += 1;
            ""
        } else {
            "  (no SE)"
        };
        if let Some(g) = &mut self.group {
            g.sets += 1;
            *g.by_type.entry(kind.clone()).or_default() += 1;
            if g.lines.len() < self.max_sets {
                g.lines.push(format!(
                    "    set {kind} {control}  {count} segment{}{trailer}",
                    if count == 1 { "" } else { "s" }
                ));
            }
        }
    }

    fn group_end(&mut self, ge: Option<Segment<'a>>) {
        if ge.is_some() {
            self.segments += 1;
        }
        let Some(g) = self.group.take() else { return };
        let mut types = String::new();
        for (t, n) in &g.by_type {
            let _ = write!(
                types,
                "{}{t} x{n}",
                if types.is_empty() { "" } else { ", " }
            );
        }
        let header = format!(
            "{}  {} set{} ({types}){}",
            g.header,
            g.sets,
            if g.sets == 1 { "" } else { "s" },
            if ge.is_some() { "" } else { "  (no GE)" }
        );
        self.emit(&header);
        for l in &g.lines {
            self.emit(l);
        }
        if g.sets > g.lines.len() {
            let more = format!("    … and {} more sets", g.sets - g.lines.len());
            self.emit(&more);
        }
    }

    fn interchange_end(&mut self, iea: Option<Segment<'a>>) {
        match iea {
            Some(_) => self.segments += 1,
            None => self.emit("  (no IEA)"),
        }
    }

    fn diagnostic(&mut self, d: Diagnostic) {
        match d.severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
        }
        if self.diagnostics.len() < MAX_DIAGNOSTICS {
            self.diagnostics.push(d);
        }
    }
}

/// Runs `x12kit inspect`.
pub fn run(file: &Path, progress: bool, max_sets: usize) -> ExitCode {
    let (source, len): (Box<dyn Read>, Option<u64>) = if file == Path::new("-") {
        (Box::new(io::stdin().lock()), None)
    } else {
        match std::fs::File::open(file) {
            Ok(f) => {
                let len = f.metadata().ok().map(|m| m.len());
                (Box::new(f), len)
            }
            Err(e) => return fail(file, e),
        }
    };
    let bar = match len {
        Some(n) if progress && n >= 8 << 20 => {
            let bar = ProgressBar::new(n);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        }
        _ => ProgressBar::hidden(),
    };
    let stdout = io::stdout().lock();
    let mut outline = Outline {
        out: io::BufWriter::new(stdout),
        max_sets,
        interchanges: 0,
        groups: 0,
        sets: 0,
        segments: 0,
        group: None,
        set: None,
        diagnostics: Vec::new(),
        errors: 0,
        warnings: 0,
        io_error: None,
    };
    outline.emit(&format!("{}:", show(file)));
    let mut reader = Reader::with_chunk_size(source, 256 * 1024);
    let mut env = Envelope::new();
    let mut tick = 0u32;
    loop {
        match reader.next_token() {
            Ok(Some(token)) => {
                env.push(token, &mut outline);
                tick = tick.wrapping_add(1);
                if tick.is_multiple_of(65536) {
                    bar.set_position(reader.consumed() as u64);
                }
            }
            Ok(None) => break,
            Err(e) => {
                bar.finish_and_clear();
                return fail(file, e);
            }
        }
    }
    env.finish(reader.consumed(), &mut outline);
    bar.finish_and_clear();
    let plural = |n: usize, s: &str| format!("{n} {s}{}", if n == 1 { "" } else { "s" });
    let summary = format!(
        "total: {}, {}, {}, {}, {} bytes",
        plural(outline.interchanges, "interchange"),
        plural(outline.groups, "group"),
        plural(outline.sets, "transaction set"),
        plural(outline.segments, "segment"),
        reader.consumed()
    );
    outline.emit(&summary);
    if outline.errors + outline.warnings == 0 {
        outline.emit("diagnostics: none");
    } else {
        let head = format!(
            "diagnostics: {}, {}",
            plural(outline.errors, "error"),
            plural(outline.warnings, "warning")
        );
        outline.emit(&head);
        let lines: Vec<String> = outline
            .diagnostics
            .iter()
            .map(|d| format!("  {d}"))
            .collect();
        for l in &lines {
            outline.emit(l);
        }
        let shown = outline.diagnostics.len();
        if outline.errors + outline.warnings > shown {
            let more = format!("  … and {} more", outline.errors + outline.warnings - shown);
            outline.emit(&more);
        }
    }
    let flushed = outline.out.flush();
    match outline.io_error.map_or(flushed, Err) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => return fail(file, e),
        Ok(()) => {}
    }
    if outline.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
