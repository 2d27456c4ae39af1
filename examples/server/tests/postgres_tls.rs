//! TLS to PostgreSQL (README "Deploying"): the real binary on the throwaway cluster of
//! examples/server/test.sh, started with `ssl = on` and a certificate for 127.0.0.1 signed
//! by a test CA (`X12KIT_TEST_PG_ROOT`; `X12KIT_TEST_PG_WRONG_ROOT` is another CA's).
//! `verify-full` with the right root serves, its connections encrypted (pg_stat_ssl says
//! so); with the wrong root the server refuses to start; `require` encrypts without a root.
//! The tests' names end in `on_postgresql`: the SQLite pass of test.sh skips them.

mod common;
#[path = "common/deploy.rs"]
mod helpers;

use common::{ALPHA, Options, Server};
use std::process::Command;

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: run examples/server/test.sh, which starts PostgreSQL with TLS")
    })
}

/// A fresh database on the test cluster: (its plain URL, its name).
fn fresh() -> (String, String) {
    let url = common::fresh_postgres_database(&env("X12KIT_TEST_POSTGRES"));
    let name = url.rsplit('/').next().unwrap().to_string();
    (url, name)
}

/// (TLS connections, plain connections) open to database `name`, seen by the cluster.
fn connections(name: &str) -> (i64, i64) {
    let mut c = postgres::Client::connect(&env("X12KIT_TEST_POSTGRES"), postgres::NoTls).unwrap();
    let row = c
        .query_one(
            "SELECT count(*) FILTER (WHERE s.ssl), count(*) FILTER (WHERE NOT s.ssl)
               FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.datname = $1",
            &[&name],
        )
        .unwrap();
    (row.get(0), row.get(1))
}

fn serves_over_tls(query: &str) {
    let (url, name) = fresh();
    let s = Server::start_with(Options {
        database: Some(format!("{url}?{query}")),
        ..Options::default()
    });
    helpers::send_850(&s);
    assert_eq!(s.get("/api/v1/transactions", ALPHA).status(), 200);
    let (tls, plain) = connections(&name);
    assert!(tls >= 1, "no TLS connection from the server");
    assert_eq!(plain, 0, "a plain connection from the server");
}

#[test]
fn verify_full_with_the_right_root_serves_over_tls_on_postgresql() {
    serves_over_tls(&format!(
        "sslmode=verify-full&sslrootcert={}",
        env("X12KIT_TEST_PG_ROOT")
    ));
}

#[test]
fn require_encrypts_without_a_root_on_postgresql() {
    serves_over_tls("sslmode=require");
}

#[test]
fn verify_full_with_a_wrong_root_refuses_to_start_on_postgresql() {
    let (url, _) = fresh();
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_x12kit-server"))
        .arg("--config")
        .arg(common::server_dir().join("demo-api-only.toml"))
        .args(["--listen", "127.0.0.1:0", "--database"])
        .arg(format!(
            "{url}?sslmode=verify-full&sslrootcert={}",
            env("X12KIT_TEST_PG_WRONG_ROOT")
        ))
        .env("X12KIT_SECRET_KEY_FILE", common::test_key_file())
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot connect to database"), "{stderr}");
    assert!(stderr.contains("certificate verify failed"), "{stderr}");
    // A malformed sslmode: the operator's to fix (exit 2), named.
    let e = Command::new(env!("CARGO_BIN_EXE_x12kit-server"))
        .arg("--config")
        .arg(common::server_dir().join("demo-api-only.toml"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--database",
            "postgres://u@h/x?sslmode=verify_full",
        ])
        .env("X12KIT_SECRET_KEY_FILE", common::test_key_file())
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&e.stderr);
    assert_eq!(e.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("sslmode=\"verify_full\" is not one of"),
        "{stderr}"
    );
}
