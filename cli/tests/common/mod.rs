//! Helpers shared by the end-to-end tests of the `x12kit` binary.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_x12kit");
/// A clean 004010 interchange of two 850s.
pub const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../examples/x12/purchase-orders-850.edi"
);
/// A clean 005010 interchange of an 856.
pub const SAMPLE_5010: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../examples/x12/ship-notice-856-5010.edi"
);

/// Runs `x12kit ARGS` with `stdin` written to its standard input.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("x12kit runs");
    // The command may exit (usage error) before reading its input: a broken
    // pipe here is not a test failure.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
