//! HTTPS against the real binary (README "Deploying"): certificates made by the openssl
//! commands the README shows (a test CA and a server certificate for 127.0.0.1), clients
//! that trust only that CA, rotation under load without a failed request, a replacement
//! that does not load keeping the old certificate serving, old protocols and plain HTTP
//! refused without harm, the redirect listener, and bad `[tls]` settings refused at start.

mod common;
#[path = "common/deploy.rs"]
mod helpers;

use helpers::make_ca_and_server;

use common::ALPHA;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

struct Tls {
    child: Child,
    base: String,
    redirect: Option<String>,
    dir: tempfile::TempDir,
    stderr: PathBuf,
}

impl Drop for Tls {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The demo configuration (its profile path made absolute) with `extra` at the end.
fn config(dir: &Path, extra: &str) -> PathBuf {
    helpers::demo_config(dir, |demo| format!("{demo}\n{extra}\n"))
}

fn start(dir: tempfile::TempDir, extra: &str, redirect: bool) -> Tls {
    let config = config(dir.path(), extra);
    let stderr = dir.path().join("stderr.log");
    let (child, mut out, base) = helpers::spawn(&config, dir.path(), &stderr, &[]);
    let mut line = String::new();
    assert!(base.starts_with("https://127.0.0.1:"), "{base}");
    let mut redirect_base = None;
    if redirect {
        // The first lines: listening, the dashboard, a call to try, then the redirect.
        for _ in 0..6 {
            line.clear();
            out.read_line(&mut line).unwrap();
            if let Some(r) = line.trim().strip_prefix("redirecting ") {
                redirect_base = Some(r.strip_suffix(" to https").unwrap().to_string());
                break;
            }
        }
        assert!(redirect_base.is_some(), "no redirect line");
    }
    Tls {
        child,
        base,
        redirect: redirect_base,
        dir,
        stderr,
    }
}

const TLS_TOML: &str = "[tls]\ncert_file = \"server.crt\"\nkey_file = \"server.key\"\n";

/// A client that trusts only the CA files given, and opens a new connection (a new
/// handshake) for every request.
fn client(cas: &[&Path]) -> reqwest::blocking::Client {
    let mut b = reqwest::blocking::Client::builder()
        .tls_built_in_root_certs(false)
        .pool_max_idle_per_host(0)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(20));
    for ca in cas {
        let pem = std::fs::read(ca).unwrap();
        b = b.add_root_certificate(reqwest::Certificate::from_pem(&pem).unwrap());
    }
    b.build().unwrap()
}

/// `GET /healthz` (never rate-limited: the load of the rotation test).
fn healthz(c: &reqwest::blocking::Client, base: &str) -> reqwest::Result<u16> {
    c.get(format!("{base}/healthz"))
        .send()
        .map(|r| r.status().as_u16())
}

fn transactions(c: &reqwest::blocking::Client, base: &str) -> reqwest::Result<u16> {
    c.get(format!("{base}/api/v1/transactions"))
        .bearer_auth(ALPHA)
        .send()
        .map(|r| r.status().as_u16())
}

#[test]
fn https_with_a_test_ca_hsts_and_plain_http_or_old_tls_refused_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    make_ca_and_server(dir.path(), "server");
    let s = start(dir, TLS_TOML, false);
    let ca = s.dir.path().join("server-ca.crt");
    let trusted = client(&[&ca]);
    let r = trusted
        .get(format!("{}/api/v1/transactions", s.base))
        .bearer_auth(ALPHA)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["strict-transport-security"], "max-age=31536000");
    // A client that trusts another CA does not connect.
    let other = tempfile::tempdir().unwrap();
    make_ca_and_server(other.path(), "other");
    let stranger = client(&[&other.path().join("other-ca.crt")]);
    assert!(transactions(&stranger, &s.base).is_err());
    // Plain HTTP to the TLS port: the request fails, the server goes on.
    let plain = s.base.replace("https://", "http://");
    let r = reqwest::blocking::Client::new()
        .get(format!("{plain}/healthz"))
        .timeout(Duration::from_secs(10))
        .send();
    assert!(r.is_err() || r.unwrap().status() != 200);
    // TLS 1.1 (and 1.0): refused in the handshake.
    let port = s.base.rsplit(':').next().unwrap().to_string();
    for old in ["-tls1_1", "-tls1"] {
        let out = Command::new("openssl")
            .args([
                "s_client",
                "-connect",
                &format!("127.0.0.1:{port}"),
                old,
                "-cipher",
                "DEFAULT@SECLEVEL=0",
                "-CAfile",
            ])
            .arg(&ca)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{old} was accepted");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("Cipher is (NONE)") || text.contains("no peer certificate"),
            "{old}: {text}"
        );
    }
    // TLS 1.2 is served.
    let out = Command::new("openssl")
        .args([
            "s_client",
            "-connect",
            &format!("127.0.0.1:{port}"),
            "-tls1_2",
            "-CAfile",
        ])
        .arg(&ca)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Verify return code: 0 (ok)"), "{text}");
    assert_eq!(transactions(&trusted, &s.base).unwrap(), 200);
    assert!(s.child.id() > 0);
}

#[test]
fn the_certificate_rotates_under_load_without_a_failed_request() {
    let dir = tempfile::tempdir().unwrap();
    make_ca_and_server(dir.path(), "server");
    make_ca_and_server(dir.path(), "next");
    let mut s = start(dir, TLS_TOML, false);
    let d = s.dir.path().to_path_buf();
    let (old_ca, new_ca) = (d.join("server-ca.crt"), d.join("next-ca.crt"));
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(std::sync::Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let (stop, done, failures) = (stop.clone(), done.clone(), failures.clone());
            let (base, c) = (s.base.clone(), client(&[&old_ca, &new_ca]));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match healthz(&c, &base) {
                        Ok(200) => {
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                        other => {
                            let mut f = failures.lock().unwrap();
                            if f.len() < 10 {
                                f.push(format!("{other:?}"));
                            }
                        }
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    // Replace the pair the way certbot does (new files renamed over the old), then SIGHUP.
    std::fs::copy(d.join("next.key"), d.join("server.key.new")).unwrap();
    std::fs::copy(d.join("next.crt"), d.join("server.crt.new")).unwrap();
    std::fs::rename(d.join("server.key.new"), d.join("server.key")).unwrap();
    std::fs::rename(d.join("server.crt.new"), d.join("server.crt")).unwrap();
    let status = Command::new("kill")
        .args(["-HUP", &s.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    // New handshakes get the new certificate: a client trusting only the new CA connects.
    let only_new = client(&[&new_ca]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while healthz(&only_new, &s.base).is_err() {
        assert!(
            Instant::now() < deadline,
            "the new certificate is not served"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    // A replacement that does not parse: the new certificate keeps serving, an error logged.
    std::fs::write(
        d.join("server.crt"),
        "-----BEGIN CERTIFICATE-----\nnot base64\n",
    )
    .unwrap();
    let status = Command::new("kill")
        .args(["-HUP", &s.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    std::thread::sleep(Duration::from_millis(3000));
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    let failures = failures.lock().unwrap();
    assert!(failures.is_empty(), "failed requests: {failures:?}");
    assert!(
        done.load(Ordering::Relaxed) >= 20,
        "too few requests to tell"
    );
    assert_eq!(transactions(&only_new, &s.base).unwrap(), 200);
    let log = std::fs::read_to_string(&s.stderr).unwrap();
    assert!(log.contains("TLS certificate reloaded"), "{log}");
    assert!(
        log.contains(
            "the new TLS certificate or key does not load; the one in force keeps serving"
        ),
        "{log}"
    );
    assert!(log.contains("tls.cert_file"), "{log}");
    assert!(s.child.try_wait().unwrap().is_none(), "the server stopped");
}

#[test]
fn the_redirect_listener_sends_plain_http_to_https() {
    let dir = tempfile::tempdir().unwrap();
    make_ca_and_server(dir.path(), "server");
    let s = start(
        dir,
        &format!("{TLS_TOML}redirect_listen = \"127.0.0.1:0\"\n"),
        true,
    );
    let http = s.redirect.clone().unwrap();
    let port = s.base.rsplit(':').next().unwrap();
    let plain = reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = plain
        .get(format!("{http}/api/v1/transactions?limit=1"))
        .send()
        .unwrap();
    assert_eq!(r.status(), 308);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    assert_eq!(
        location,
        format!("https://127.0.0.1:{port}/api/v1/transactions?limit=1")
    );
    // No key reaches the plain listener's handlers: it answers the redirect only.
    let r = plain
        .post(format!("{http}/api/v1/documents/outbound"))
        .bearer_auth(ALPHA)
        .body("{}")
        .send()
        .unwrap();
    assert_eq!(r.status(), 308);
    let trusted = client(&[&s.dir.path().join("server-ca.crt")]);
    let r = trusted.get(&location).bearer_auth(ALPHA).send().unwrap();
    assert_eq!(r.status(), 200);
}

#[test]
fn bad_tls_settings_stop_the_start_with_exit_2_naming_the_setting() {
    let dir = tempfile::tempdir().unwrap();
    make_ca_and_server(dir.path(), "server");
    std::fs::write(dir.path().join("garbage.crt"), "hello\n").unwrap();
    let cases = [
        (
            "[tls]\ncert_file = \"missing.crt\"\nkey_file = \"server.key\"",
            "tls.cert_file: cannot read",
        ),
        (
            "[tls]\ncert_file = \"server.crt\"\nkey_file = \"missing.key\"",
            "tls.key_file: cannot read",
        ),
        (
            "[tls]\ncert_file = \"garbage.crt\"\nkey_file = \"server.key\"",
            "tls.cert_file:",
        ),
        (
            "[tls]\ncert_file = \"server.crt\"\nkey_file = \"server-ca.key\"",
            "is not the key of the certificate",
        ),
        (
            "[tls]\ncert_file = \"server.crt\"\nkey_file = \"server.crt\"",
            "tls.key_file:",
        ),
        (
            "[tls]\ncert_file = \"server.crt\"",
            "missing field `key_file`",
        ),
    ];
    for (extra, message) in cases {
        let config = config(dir.path(), extra);
        let (code, stderr) = helpers::exit_of(&config, &dir.path().join("server.db"));
        assert_eq!(code, Some(2), "{extra}: {stderr}");
        assert!(stderr.contains(message), "{extra}: {stderr}");
    }
}
