//! Reading inputs and writing outputs: files, standard input and output,
//! and how a problem with them (or with `--options`) is reported (a leaf:
//! every subcommand uses it).

use std::io::{self, Read, Write};
use std::path::Path;
use std::process::ExitCode;

/// Reports an I/O or usage problem and returns exit code 2.
pub(crate) fn fail(file: &Path, e: impl std::fmt::Display) -> ExitCode {
    eprintln!("x12kit: {}: {e}", show(file));
    ExitCode::from(2)
}

/// Reports options that cannot be used (`--options`): exit 2.
pub(crate) fn usage_error(e: &x12kit::Error) -> ExitCode {
    eprintln!("x12kit: --options: {e}");
    ExitCode::from(2)
}

/// Reports an error of the core (`x12kit: FILE: CODE: message` and one
/// indented line per problem) on stderr.
pub(crate) fn report(file: &Path, e: &x12kit::Error) {
    eprintln!("x12kit: {}: {e}", show(file));
}

/// Writes bytes to stdout; a closed pipe is not an error.
pub(crate) fn emit(file: &Path, bytes: &[u8]) -> ExitCode {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(file, e),
    }
}

/// How a path is shown in messages (`-` is standard input).
pub(crate) fn show(file: &Path) -> String {
    if file == Path::new("-") {
        "<stdin>".to_string()
    } else {
        file.display().to_string()
    }
}

/// Reads a whole file, or standard input for `-`.
pub(crate) fn read_input(file: &Path) -> io::Result<Vec<u8>> {
    if file == Path::new("-") {
        let mut buf = Vec::new();
        io::stdin().lock().read_to_end(&mut buf)?;
        Ok(buf)
    } else {
        std::fs::read(file)
    }
}

/// Input bytes: a read-only memory map for regular files (no copy), a buffer otherwise.
pub(crate) enum Input {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for Input {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Input::Mapped(m) => m,
            Input::Read(v) => v,
        }
    }
}

/// Standard output without its line buffering: the standard handle looks
/// for the last line break in every chunk it is given (about 4 % of
/// `x12kit parse`), which is useless for JSON written in large chunks. On
/// Unix a duplicate of the descriptor, else the standard handle.
pub(crate) fn raw_stdout() -> Box<dyn Write + Send> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() {
            return Box::new(std::fs::File::from(fd));
        }
    }
    Box::new(io::stdout())
}

/// Drops the resident pages of a mapped input from `from` (where the last
/// call ended; 2 MiB before it, see below) to `upto` (whole pages only),
/// which the parser will not read again; returns where the dropped range
/// ends. A no-op for a buffer.
pub(crate) fn release_pages(input: &Input, from: usize, upto: usize) -> usize {
    #[cfg(unix)]
    if let Input::Mapped(m) = input {
        const PAGE: usize = 1 << 16;
        // A fault maps the whole folio around the page read (up to 2 MiB on
        // a file system with large folios), so pages just before `from`,
        // dropped by the last call, can be mapped again: the range dropped
        // starts that much earlier.
        const BEHIND: usize = 2 << 20;
        let end = upto / PAGE * PAGE;
        if end > from {
            let start = from.saturating_sub(BEHIND) / PAGE * PAGE;
            // SAFETY: the map is private and read-only and was never written:
            // MADV_DONTNEED only drops its pages, and a later read of that
            // range (the input's prefix) loads the same file bytes again.
            let _ = unsafe {
                m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
            };
            return end;
        }
    }
    let _ = upto;
    from
}

/// Drops the resident pages of a mapped input within `from..to` (whole
/// pages only): input read ahead that is read again later (loaded again
/// then). A no-op for a buffer.
pub(crate) fn drop_pages(input: &Input, from: usize, to: usize) {
    #[cfg(unix)]
    if let Input::Mapped(m) = input {
        const PAGE: usize = 1 << 16;
        let (start, end) = (from.div_ceil(PAGE) * PAGE, to / PAGE * PAGE);
        if end > start {
            // SAFETY: as in `release_pages`: a private read-only map that was
            // never written; a later read loads the same file bytes again.
            let _ = unsafe {
                m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
            };
        }
    }
    let _ = (input, from, to);
}

/// Opens a file for whole-input parsing, mapping it when possible.
pub(crate) fn map_input(file: &Path) -> io::Result<Input> {
    if file != Path::new("-") {
        let f = std::fs::File::open(file)?;
        let meta = f.metadata()?;
        if meta.is_file() && meta.len() > 0 {
            // SAFETY: the map is read-only and lives only for this command; as
            // with any mmap-based tool, truncating the file while x12kit reads
            // it is undefined behaviour, which is documented in the README.
            if let Ok(m) = unsafe { memmap2::Mmap::map(&f) } {
                return Ok(Input::Mapped(m));
            }
        }
    }
    read_input(file).map(Input::Read)
}
