//! Generates `include/x12kit.h` from `ffi/src` with cbindgen.
//!
//! `x12kit-ffi-header` writes the header; `x12kit-ffi-header --verify` only
//! compares a fresh generation with the committed file and exits 1 when they
//! differ (CI runs this through `scripts/gen-header.sh --verify`).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let verify = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--verify") => true,
        Some(other) => {
            eprintln!("usage: x12kit-ffi-header [--verify]  (unknown argument {other:?})");
            return ExitCode::from(2);
        }
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ffi = root.join("ffi");
    let header = root.join("include/x12kit.h");
    let config = match cbindgen::Config::from_file(ffi.join("cbindgen.toml")) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("x12kit-ffi-header: ffi/cbindgen.toml: {e}");
            return ExitCode::from(2);
        }
    };
    // A source file, not `with_crate`: no `cargo metadata` run, and the
    // result depends only on ffi/src and the config.
    let bindings = match cbindgen::Builder::new()
        .with_config(config)
        .with_src(ffi.join("src/lib.rs"))
        .generate()
    {
        Ok(b) => b,
        Err(e) => {
            eprintln!("x12kit-ffi-header: cbindgen failed: {e}");
            return ExitCode::from(2);
        }
    };
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let committed = std::fs::read(&header).unwrap_or_default();
    if verify {
        if fresh == committed {
            println!("include/x12kit.h is up to date");
            return ExitCode::SUCCESS;
        }
        let fresh_text = String::from_utf8_lossy(&fresh);
        let committed_text = String::from_utf8_lossy(&committed);
        let line = fresh_text
            .lines()
            .zip(committed_text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| {
                fresh_text
                    .lines()
                    .count()
                    .min(committed_text.lines().count())
            });
        eprintln!(
            "include/x12kit.h is out of date (first difference at line {}): run scripts/gen-header.sh and commit the result",
            line + 1
        );
        return ExitCode::FAILURE;
    }
    if fresh == committed {
        println!("include/x12kit.h unchanged");
    } else if let Err(e) = std::fs::write(&header, &fresh) {
        eprintln!("x12kit-ffi-header: cannot write {}: {e}", header.display());
        return ExitCode::from(2);
    } else {
        println!("wrote include/x12kit.h");
    }
    ExitCode::SUCCESS
}
