//! `x12kit split` and `x12kit merge`: an input into complete interchanges
//! (a file each, named by control numbers, or one stream), and
//! interchanges back into one.

use crate::files::{
    drop_pages, emit, fail, map_input, raw_stdout, read_input, release_pages, show, usage_error,
};
use clap::{Args, ValueEnum};
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use x12kit::ops::{self, MergeOptions, Part, Per, Renumber, SplitOptions};

/// What a part holds.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum PerArg {
    /// Up to `--max-sets` sets (default 1) of one group.
    Set,
    /// One group (cut by `--max-sets` or `--max-bytes` when given).
    Group,
}

/// Control numbers to renumber from.
#[derive(Args, Debug)]
pub(crate) struct RenumberArgs {
    /// Number the interchanges (ISA13/IEA02) from N.
    #[arg(long, value_name = "N")]
    renumber_interchange: Option<u32>,
    /// Number the groups (GS06/GE02) from N.
    #[arg(long, value_name = "N")]
    renumber_group: Option<u32>,
    /// Number the sets (ST02/SE02) from N.
    #[arg(long, value_name = "N")]
    renumber_set: Option<u32>,
}

impl RenumberArgs {
    fn get(&self) -> Renumber {
        Renumber {
            interchange: self.renumber_interchange,
            group: self.renumber_group,
            set: self.renumber_set,
        }
    }
}

#[derive(Args, Debug)]
pub(crate) struct SplitArgs {
    /// X12 file, or `-` for standard input.
    file: PathBuf,
    /// A directory to write each part to (created if missing; files named
    /// `ISA13-GS06-ST02.x12` by the part's control numbers), or `-` for all
    /// parts one after the other on stdout.
    #[arg(long, value_name = "DIR", required_unless_present = "json")]
    out: Option<PathBuf>,
    /// Print the split as JSON instead of writing the parts: each part's
    /// control numbers, the positions of its sets in the input and its
    /// `x12`, and the diagnostics (what every binding's `split` returns).
    #[arg(long, conflicts_with = "out")]
    json: bool,
    /// What a part holds.
    #[arg(long, value_enum, default_value_t = PerArg::Set)]
    per: PerArg,
    /// At most N sets a part.
    #[arg(long, value_name = "N")]
    max_sets: Option<usize>,
    /// Close a part before a set would take it past N bytes.
    #[arg(long, value_name = "N")]
    max_bytes: Option<usize>,
    /// The cap on one transaction set, in bytes (0: none; default 64 MiB): a
    /// larger set is a SET_TOO_LARGE error and is in no part.
    #[arg(long, value_name = "BYTES")]
    max_set_bytes: Option<u64>,
    #[command(flatten)]
    renumber: RenumberArgs,
    /// The options as JSON (`{"per": "set", "maxSets": 10, "renumber": {"set": 1}}`), instead of the flags.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["per", "max_sets", "max_bytes", "max_set_bytes", "renumber_interchange", "renumber_group", "renumber_set"])]
    options: Option<String>,
}

#[derive(Args, Debug)]
pub(crate) struct MergeArgs {
    /// X12 files, each of one or more interchanges of the same sender,
    /// receiver, version and delimiters (none: the core's `INVALID_ARGUMENT`).
    files: Vec<PathBuf>,
    #[command(flatten)]
    renumber: RenumberArgs,
    /// The options as JSON (`{"renumber": {"interchange": 1}}`), instead of the flags.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["renumber_interchange", "renumber_group", "renumber_set"])]
    options: Option<String>,
}

/// Only letters, digits, `-` and `_` of a control number go into a file name.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `ISA13-GS06-ST02.x12`, or `ISA13-GS06-ST02-ST02.x12` for several sets;
/// `.2`, `.3`, … before the extension when a name repeats.
fn name(p: &Part, used: &mut HashSet<String>) -> String {
    let mut base = format!(
        "{}-{}-{}",
        clean(p.interchange_control_number.trim()),
        clean(p.group_control_number.as_deref().unwrap_or("nogroup")),
        clean(&p.sets[0].control_number)
    );
    if p.sets.len() > 1 {
        base.push('-');
        base.push_str(&clean(&p.sets[p.sets.len() - 1].control_number));
    }
    let mut n = 1;
    let mut name = format!("{base}.x12");
    while !used.insert(name.clone()) {
        n += 1;
        name = format!("{base}.{n}.x12");
    }
    name
}

pub(crate) fn split(a: &SplitArgs) -> ExitCode {
    let o = match &a.options {
        Some(json) => match ops::options_str::<SplitOptions>(json) {
            Ok(o) => o,
            Err(e) => return usage_error(&e),
        },
        None => SplitOptions {
            per: match a.per {
                PerArg::Set => Per::Set,
                PerArg::Group => Per::Group,
            },
            max_sets: a.max_sets,
            max_bytes: a.max_bytes,
            renumber: a.renumber.get(),
            max_set_bytes: a
                .max_set_bytes
                .map_or_else(Default::default, x12kit::envelope::SetCap::bytes),
        },
    };
    let input = match map_input(&a.file) {
        Ok(b) => b,
        Err(e) => return fail(&a.file, e),
    };
    let Some(out) = a.out.as_ref() else {
        return split_json(a, &input, &o);
    };
    let to_stdout = out.as_os_str() == "-";
    if !to_stdout {
        if let Err(e) = std::fs::create_dir_all(out) {
            return fail(out, e);
        }
    }
    let mut stdout = io::BufWriter::with_capacity(1 << 16, raw_stdout());
    let mut used = HashSet::new();
    let mut released = 0;
    let mut release = |upto: usize| released = release_pages(&input, released, upto);
    let mut ahead = |from: usize, to: usize| drop_pages(&input, from, to);
    let result = ops::split_releasing(
        &input,
        &o,
        |p| {
            if to_stdout {
                stdout.write_all(&p.x12)
            } else {
                let file = name(&p, &mut used);
                std::fs::write(out.join(&file), &p.x12)?;
                writeln!(stdout, "{}", out.join(&file).display())
            }
        },
        &mut release,
        &mut ahead,
    );
    let diagnostics = match result.and_then(|d| {
        stdout
            .flush()
            .map_err(|e| x12kit::Error::new(x12kit::ErrorCode::Io, e.to_string()))?;
        Ok(d)
    }) {
        Ok(d) => d,
        Err(e) => return split_failed(a, e),
    };
    report_diagnostics(a, &diagnostics)
}

/// An error of `split`: unusable options exit 2 as a usage error, others as an I/O problem.
fn split_failed(a: &SplitArgs, e: x12kit::Error) -> ExitCode {
    if e.code() == x12kit::ErrorCode::InvalidOptions
        || e.code() == x12kit::ErrorCode::InvalidControlNumber
    {
        eprintln!("x12kit: split: {e}");
        return ExitCode::from(2);
    }
    fail(&a.file, e)
}

/// `split --json`: the core's JSON of the split on stdout.
fn split_json(a: &SplitArgs, input: &[u8], o: &SplitOptions) -> ExitCode {
    match ops::split(input, o) {
        Ok(s) => {
            let mut json = match serde_json::to_vec(&s) {
                Ok(j) => j,
                Err(e) => return fail(&a.file, e),
            };
            json.push(b'\n');
            let written = emit(&a.file, &json);
            if written != ExitCode::SUCCESS {
                return written;
            }
            report_diagnostics(a, &s.diagnostics)
        }
        Err(e) => split_failed(a, e),
    }
}

/// The error diagnostics of a split on stderr (exit 1), or exit 0.
fn report_diagnostics(a: &SplitArgs, diagnostics: &[x12kit::Diagnostic]) -> ExitCode {
    let errors: Vec<_> = diagnostics.iter().filter(|d| d.is_error()).collect();
    if !errors.is_empty() {
        for d in &errors {
            eprintln!(
                "x12kit: {}: {}: {}",
                show(&a.file),
                d.code.as_str(),
                d.message
            );
        }
        eprintln!(
            "x12kit: {}: {} error diagnostic{}: split as far as it could be",
            show(&a.file),
            errors.len(),
            if errors.len() == 1 { "" } else { "s" }
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

pub(crate) fn merge(a: &MergeArgs) -> ExitCode {
    let o = match &a.options {
        Some(json) => match ops::options_str::<MergeOptions>(json) {
            Ok(o) => o,
            Err(e) => return usage_error(&e),
        },
        None => MergeOptions {
            renumber: a.renumber.get(),
        },
    };
    let mut inputs = Vec::new();
    for f in &a.files {
        match read_input(f) {
            Ok(b) => inputs.push(b),
            Err(e) => return fail(f, e),
        }
    }
    let refs: Vec<&[u8]> = inputs.iter().map(|b| &b[..]).collect();
    match ops::merge(&refs, &o) {
        Ok(x12) => {
            let mut out = raw_stdout();
            match out.write_all(&x12).and_then(|_| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => fail(std::path::Path::new("-"), e),
            }
        }
        Err(e) if e.code() == x12kit::ErrorCode::MergeRefused => {
            eprintln!("x12kit: merge: MERGE_REFUSED: {}", e.message());
            for p in e.details() {
                let k: usize = p.pointer.trim_start_matches('/').parse().unwrap_or(0);
                let file = a.files.get(k).map(|f| show(f)).unwrap_or_default();
                eprintln!("x12kit: {file}: {}", p.message);
            }
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("x12kit: merge: {e}");
            ExitCode::from(2)
        }
    }
}

#[derive(Args, Debug)]
pub(crate) struct RebuildPartArgs {
    /// The X12 file the split read (only the recipe's ranges are read from
    /// it), or `-` for standard input; with `--bytes`, the ranges' bytes
    /// themselves, one after the other.
    file: PathBuf,
    /// The part's `recipe` as JSON, as `split --json` gives it in each part
    /// (`jq -c '.parts[3].recipe'`).
    #[arg(long, value_name = "JSON")]
    recipe: String,
    /// FILE holds the bytes of the recipe's ranges one after the other (what
    /// every binding's `rebuild_part` takes), not the whole input.
    #[arg(long)]
    bytes: bool,
    /// Print the part as JSON (as in `split --json`: numbers, sets with their
    /// positions in the input, recipe, `x12`) instead of its X12.
    #[arg(long)]
    json: bool,
}

/// The bytes of `ranges` read from `file` one after the other (seeking; the
/// whole of standard input for `-`). A range that ends before it starts, or
/// past the end of the file, gives fewer bytes than the ranges hold: the core
/// then says what is wrong.
fn read_ranges(file: &std::path::Path, ranges: &[[usize; 2]]) -> io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut out = Vec::new();
    if file.as_os_str() == "-" {
        let all = read_input(file)?;
        for &[a, b] in ranges {
            if a <= b {
                out.extend_from_slice(all.get(a.min(all.len())..b.min(all.len())).unwrap_or(&[]));
            }
        }
        return Ok(out);
    }
    let mut f = std::fs::File::open(file)?;
    for &[a, b] in ranges {
        if a > b {
            continue;
        }
        f.seek(SeekFrom::Start(a as u64))?;
        (&mut f).take((b - a) as u64).read_to_end(&mut out)?;
    }
    Ok(out)
}

/// `x12kit rebuild-part`: a part of a split made again from its recipe.
pub(crate) fn rebuild_part(a: &RebuildPartArgs) -> ExitCode {
    let recipe = match ops::part_recipe_str(&a.recipe) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("x12kit: --recipe: {e}");
            return ExitCode::from(2);
        }
    };
    let bytes = if a.bytes {
        read_input(&a.file)
    } else {
        read_ranges(&a.file, &recipe.ranges)
    };
    let bytes = match bytes {
        Ok(b) => b,
        Err(e) => return fail(&a.file, e),
    };
    let part = match ops::rebuild_part(&recipe, &bytes) {
        Ok(p) => p,
        Err(e) => return fail(&a.file, e),
    };
    if a.json {
        let mut json = match serde_json::to_vec(&part) {
            Ok(j) => j,
            Err(e) => return fail(&a.file, e),
        };
        json.push(b'\n');
        emit(&a.file, &json)
    } else {
        emit(&a.file, &part.x12)
    }
}
