//! Writes a generated X12 file, for timing the CLI on large inputs.
//!
//! `x12kit-gen [SIZE_BYTES] [PATH]`: SIZE_BYTES defaults to 100000000, PATH
//! to `x12kit-bench-100mb.x12` in the temporary directory. Prints the path.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let size = match args.next().map(|s| s.parse::<usize>()) {
        None => 100_000_000,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("x12kit-gen: SIZE_BYTES must be a number of bytes: {e}");
            return ExitCode::from(2);
        }
    };
    let path = args.next().map(PathBuf::from).unwrap_or_else(|| {
        std::env::temp_dir().join(if size == 100_000_000 {
            "x12kit-bench-100mb.x12".to_string()
        } else {
            format!("x12kit-bench-{size}.x12")
        })
    });
    if let Err(e) = x12kit_benches::write_file(&path, size) {
        eprintln!("x12kit-gen: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    println!("{}", path.display());
    ExitCode::SUCCESS
}
