//! What the deployment tests share (tests/deploy.rs, tls.rs, proxy.rs, postgres_tls.rs):
//! test certificates made by Debian's openssl command as the README shows them, a start
//! that must fail, a document sent. Included with `#[path]` beside `mod common`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};

pub fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run openssl (Debian's openssl package; test.sh installs it)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA `NAME-ca.crt` / `NAME-ca.key` and a server certificate for 127.0.0.1 and localhost
/// signed by it, `NAME.crt` / `NAME.key`: the README's commands.
pub fn make_ca_and_server(dir: &Path, name: &str) {
    let ca = format!("{name}-ca");
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-days",
            "2",
            "-subj",
            &format!("/CN={ca}"),
            "-keyout",
            &format!("{ca}.key"),
            "-out",
            &format!("{ca}.crt"),
        ],
    );
    std::fs::write(
        dir.join("san.ext"),
        "subjectAltName = IP:127.0.0.1, DNS:localhost\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-subj",
            "/CN=localhost",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.csr"),
        ],
    );
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &format!("{name}.csr"),
            "-CA",
            &format!("{ca}.crt"),
            "-CAkey",
            &format!("{ca}.key"),
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "san.ext",
            "-out",
            &format!("{name}.crt"),
        ],
    );
}

/// Runs the binary on `config` and `database` until it exits: (exit code, stderr).
pub fn exit_of(config: &Path, database: &Path) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_x12kit-server"))
        .arg("--config")
        .arg(config)
        .args(["--listen", "127.0.0.1:0", "--database"])
        .arg(database)
        .env("X12KIT_SECRET_KEY_FILE", crate::common::test_key_file())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Sends the example 850 to alpha's partner and checks that it is accepted.
pub fn send_850(s: &crate::common::Server) {
    let r = s.send(
        "/api/v1",
        crate::common::ALPHA,
        "acme-retail",
        "850",
        &crate::common::payload("850"),
    );
    assert_eq!(r.status(), 202, "{}", r.text().unwrap());
}

/// demo.toml with its partner profile path made absolute, changed by `edit`, written as
/// `server.toml` in `dir`.
pub fn demo_config(dir: &Path, edit: impl FnOnce(String) -> String) -> PathBuf {
    let demo = std::fs::read_to_string(crate::common::server_dir().join("demo.toml")).unwrap();
    // The demo's profile (with its guides, read relative to the profile's file).
    let text = demo.replace(
        "profile = \"../partners/acme-retail-guided.json\"",
        &format!(
            "profile = {:?}",
            crate::common::repo_root()
                .join("examples/partners/acme-retail-guided.json")
                .to_string_lossy()
        ),
    );
    assert_ne!(text, demo, "demo.toml names another profile");
    let p = dir.join("server.toml");
    std::fs::write(&p, edit(text)).unwrap();
    p
}

/// Starts the binary without workers on `config`, its database in `dir`, its stderr into
/// `stderr`, with `env` (`X12KIT_LOG=info` unless given): the child, the rest of its stdout
/// and the address of its first line.
pub fn spawn(
    config: &Path,
    dir: &Path,
    stderr: &Path,
    env: &[(&str, &str)],
) -> (Child, BufReader<ChildStdout>, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_x12kit-server"));
    command
        .arg("--config")
        .arg(config)
        .args(["--listen", "127.0.0.1:0", "--no-workers", "--database"])
        .arg(dir.join("server.db"))
        .env("X12KIT_SECRET_KEY_FILE", crate::common::test_key_file())
        .env("X12KIT_LOG", "info");
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(stderr).unwrap())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let base = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("{line:?}: {}", std::fs::read_to_string(stderr).unwrap()))
        .to_string();
    (child, out, base)
}
