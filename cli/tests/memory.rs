//! Peak memory of the CLI on large generated files (about 100 MB each: one
//! interchange of 135 000 850s, and 1 300 interchanges of 100, written to a
//! temporary file one at a time and removed): `parse` (one thread, two and
//! the default, with and without documents), `split` and `validate` stay under 64 MiB of
//! resident memory, the whole process; and `split` of a 1 GB interchange
//! (`X12KIT_SPLIT_TEST_GROUPS` groups of about 0.75 MB, 1 400 by default)
//! likewise, from the file and from a pipe
//! (each child's own peak RSS, read with `wait4`). Linux only (procfs,
//! `wait4`'s maximum resident set size in KiB).
#![cfg(target_os = "linux")]

mod common;

use common::BIN;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Writes one interchange of `groups` groups of 1000 850s (about 1 MB a group).
fn generate(path: &Path, groups: usize) -> u64 {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    w.write_all(b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~\n").unwrap();
    for g in 1..=groups {
        writeln!(w, "GS*PO*SENDER*RECEIVER*20230101*1200*{g}*X*004010~").unwrap();
        for s in 1..=1000 {
            write!(w, "ST*850*{s:04}~\nBEG*00*SA*PO-{g}-{s}**20230101~\nREF*DP*715~\nN1*ST*ACME DC {s}*92*{s}~\nN3*500 COMMERCE DR~\nN4*RENO*NV*89502*US~\n").unwrap();
            for l in 1..=10 {
                write!(
                    w,
                    "PO1*{l}*{s}*EA*1.5**VP*SKU{l}-{g}*UP*0588{l}~\nPID*F****RED WIDGET~\n"
                )
                .unwrap();
            }
            write!(w, "CTT*10~\nSE*28*{s:04}~\n").unwrap();
        }
        writeln!(w, "GE*1000*{g}~").unwrap();
    }
    writeln!(w, "IEA*{groups}*000000001~").unwrap();
    w.flush().unwrap();
    std::fs::metadata(path).unwrap().len()
}

/// Writes `n` interchanges of one group of 100 850s (about 75 KB each).
fn generate_many(path: &Path, n: usize) -> u64 {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for i in 1..=n {
        write!(w, "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*{i:09}*0*P*>~\nGS*PO*SENDER*RECEIVER*20230101*1200*{i}*X*004010~\n").unwrap();
        for s in 1..=100 {
            write!(w, "ST*850*{s:04}~\nBEG*00*SA*PO-{i}-{s}**20230101~\nREF*DP*715~\nN1*ST*ACME DC {s}*92*{s}~\nN3*500 COMMERCE DR~\nN4*RENO*NV*89502*US~\n").unwrap();
            for l in 1..=10 {
                write!(
                    w,
                    "PO1*{l}*{s}*EA*1.5**VP*SKU{l}-{i}*UP*0588{l}~\nPID*F****RED WIDGET~\n"
                )
                .unwrap();
            }
            write!(w, "CTT*10~\nSE*28*{s:04}~\n").unwrap();
        }
        write!(w, "GE*100*{i}~\nIEA*1*{i:09}~\n").unwrap();
    }
    w.flush().unwrap();
    std::fs::metadata(path).unwrap().len()
}

/// Runs `x12kit ARGS` with `stdin` as its standard input and its output
/// dropped: (exit code, peak RSS in bytes).
fn peak_rss(args: &[&str], stdin: Stdio) -> (i32, u64) {
    let child = Command::new(BIN)
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("x12kit runs");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value; wait4 reaps our own child
    // (std's `Child` is not waited on afterwards).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    std::mem::forget(child);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (code, usage.ru_maxrss as u64 * 1024)
}

/// Runs `x12kit ARGS` (standard input `stdin`) on a file of `len` bytes and
/// asserts that it exits 0 with a peak RSS under 64 MiB; prints the figure.
fn assert_bounded(args: &[&str], stdin: Stdio, len: u64) {
    let (code, peak) = peak_rss(args, stdin);
    eprintln!(
        "x12kit {}: peak RSS {} MiB for {} MB",
        args.join(" "),
        peak >> 20,
        len / 1_000_000
    );
    assert_eq!(code, 0, "x12kit {args:?}");
    assert!(
        peak < 64 << 20,
        "x12kit {args:?}: peak RSS {} MiB",
        peak >> 20
    );
}

#[test]
fn large_files_in_bounded_memory() {
    let dir = std::env::temp_dir().join(format!("x12kit-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("one-interchange.x12");
    let len = generate(&file, 135);
    assert!(len > 90_000_000, "{len}");
    let f = file.to_str().unwrap();
    for args in [
        vec!["parse", f],
        vec!["parse", "--threads", "1", f],
        vec!["parse", "--threads", "2", f],
        vec!["parse", "--no-documents", "--threads", "2", f],
        vec!["parse", "--no-documents", f],
        vec!["split", f, "--out", "-"],
        vec!["split", f, "--per", "group", "--out", "-"],
        vec!["validate", f],
    ] {
        assert_bounded(&args, Stdio::null(), len);
    }
    std::fs::remove_file(&file).unwrap();
    // Many small interchanges: each is held whole, then its pages dropped
    // (with those a fault mapped again around them).
    let many = dir.join("many-interchanges.x12");
    let len = generate_many(&many, 1300);
    assert!(len > 90_000_000, "{len}");
    let f = many.to_str().unwrap();
    for args in [vec!["parse", f], vec!["split", f, "--out", "-"]] {
        assert_bounded(&args, Stdio::null(), len);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Writes one interchange of `groups` groups of the same 1000 850s, each
/// group built once (so that a gigabyte is written in a few seconds even by
/// a debug build).
fn generate_fast(path: &Path, groups: usize) -> u64 {
    let mut sets = Vec::new();
    for s in 1..=1000 {
        write!(sets, "ST*850*{s:04}~\nBEG*00*SA*PO-{s}**20230101~\nREF*DP*715~\nN1*ST*ACME DC {s}*92*{s}~\nN3*500 COMMERCE DR~\nN4*RENO*NV*89502*US~\n").unwrap();
        for l in 1..=10 {
            write!(
                sets,
                "PO1*{l}*{s}*EA*1.5**VP*SKU{l}-{s}*UP*0588{l}~\nPID*F****RED WIDGET~\n"
            )
            .unwrap();
        }
        write!(sets, "CTT*10~\nSE*28*{s:04}~\n").unwrap();
    }
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    w.write_all(b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~\n").unwrap();
    for g in 1..=groups {
        writeln!(w, "GS*PO*SENDER*RECEIVER*20230101*1200*{g}*X*004010~").unwrap();
        w.write_all(&sets).unwrap();
        writeln!(w, "GE*1000*{g}~").unwrap();
    }
    writeln!(w, "IEA*{groups}*000000001~").unwrap();
    w.flush().unwrap();
    std::fs::metadata(path).unwrap().len()
}

#[test]
fn split_of_a_gigabyte_in_bounded_memory() {
    let groups: usize = std::env::var("X12KIT_SPLIT_TEST_GROUPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1400);
    let dir = std::env::temp_dir().join(format!("x12kit-split-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("one-interchange.x12");
    let len = generate_fast(&file, groups);
    assert!(len as usize > groups * 700_000, "{len}");
    let f = file.to_str().unwrap();
    // Every set its own interchange, and groups of up to 5 000 sets or 4 MB.
    for args in [
        vec!["split", f, "--out", "-"],
        vec![
            "split",
            f,
            "--per",
            "group",
            "--max-sets",
            "5000",
            "--max-bytes",
            "4000000",
            "--out",
            "-",
        ],
    ] {
        assert_bounded(&args, Stdio::null(), len);
    }
    // The same gigabyte as a stream on standard input (a pipe from `cat`,
    // which cannot be mapped): spooled to a temporary file, not held.
    let mut cat = Command::new("cat")
        .arg(&file)
        .stdout(Stdio::piped())
        .spawn()
        .expect("cat runs");
    let pipe = Stdio::from(cat.stdout.take().unwrap());
    assert_bounded(&["split", "-", "--out", "-"], pipe, len);
    assert!(cat.wait().unwrap().success());
    std::fs::remove_dir_all(&dir).unwrap();
}
