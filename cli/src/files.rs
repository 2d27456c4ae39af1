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
pub(crate) use x12kit_mapped::Input;

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

/// Drops the resident pages of a mapped input from `from` to `upto` (see
/// [`Input::release`]); returns where the dropped range ends.
pub(crate) fn release_pages(input: &Input, from: usize, upto: usize) -> usize {
    input.release(from, upto)
}

/// Drops the resident pages of a mapped input within `from..to` (see
/// [`Input::drop_pages`]).
pub(crate) fn drop_pages(input: &Input, from: usize, to: usize) {
    input.drop_pages(from, to)
}

/// Opens a file for whole-input parsing, mapping it when possible; standard
/// input is copied into an anonymous temporary file (1 MiB at a time) and
/// that is mapped, so that a stream of any size is read a set at a time as
/// a file is, never held in memory.
pub(crate) fn map_input(file: &Path) -> io::Result<Input> {
    if file != Path::new("-") {
        return Input::open(file);
    }
    let mut stdin = io::stdin().lock();
    Input::spool(1 << 20, |buf| stdin.read(buf))
}
