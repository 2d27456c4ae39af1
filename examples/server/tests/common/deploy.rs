//! What the deployment tests share (tests/deploy.rs, tls.rs, proxy.rs, postgres_tls.rs):
//! test certificates made by Debian's openssl command as the README shows them, a start
//! that must fail, a document sent. Included with `#[path]` beside `mod common`.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

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
