//! Running the server as operators do (README "Deploying"), against the real binary:
//! `GET /metrics` parsed by the Prometheus text parser of PyPI's `prometheus-client` (the
//! Python of `X12KIT_TEST_PROM_PYTHON`, installed by test.sh), its counters moving with
//! the requests sent; its bearer token and its own listener; forwarding headers believed
//! from trusted proxies only; JSON log lines without secrets; the settings refused at start.

mod common;
#[path = "common/deploy.rs"]
mod helpers;

use common::{ALPHA, Options, Server};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::process::Command;

/// A sample: (name, sorted labels).
type Key = (String, Vec<(String, String)>);

/// The samples of an exposition, as `prometheus_client.parser` reads them (it raises on
/// anything that is not the text format, failing the test).
fn parse(text: &str) -> HashMap<Key, f64> {
    let python = std::env::var("X12KIT_TEST_PROM_PYTHON").expect(
        "X12KIT_TEST_PROM_PYTHON: a Python with PyPI's prometheus-client (examples/server/test.sh installs it in .venv-deploy)",
    );
    let script = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        out.append({"family": family.name, "type": family.type, "name": s.name, "labels": s.labels, "value": s.value})
print(json.dumps(out))
"#;
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run the Prometheus parser");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the parser refused:\n{text}");
    let samples: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut map = HashMap::new();
    for s in samples {
        let mut labels: Vec<(String, String)> = s["labels"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect();
        labels.sort();
        let key = (s["name"].as_str().unwrap().to_string(), labels);
        assert!(
            map.insert(key.clone(), s["value"].as_f64().unwrap())
                .is_none(),
            "sample {key:?} twice"
        );
    }
    map
}

fn key(name: &str, labels: &[(&str, &str)]) -> Key {
    let mut l: Vec<(String, String)> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    l.sort();
    (name.to_string(), l)
}

fn value(m: &HashMap<Key, f64>, name: &str, labels: &[(&str, &str)]) -> f64 {
    m.get(&key(name, labels)).copied().unwrap_or(0.0)
}

fn scrape(url: &str, token: Option<&str>) -> HashMap<Key, f64> {
    let client = reqwest::blocking::Client::new();
    let mut r = client.get(url);
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    let r = r.send().unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    parse(&r.text().unwrap())
}

#[test]
fn metrics_are_prometheus_text_and_move_with_the_requests_sent() {
    let s = Server::start();
    let url = format!("{}/metrics", s.base);
    let before = scrape(&url, None);
    assert_eq!(
        value(
            &before,
            "x12kit_build_info",
            &[("version", env!("CARGO_PKG_VERSION"))]
        ),
        1.0
    );
    assert_eq!(value(&before, "x12kit_store_up", &[]), 1.0);
    for _ in 0..3 {
        assert_eq!(s.get("/api/v1/transactions", ALPHA).status(), 200);
    }
    assert_eq!(
        s.get(
            "/api/v1/transactions/00000000-0000-0000-0000-000000000000",
            ALPHA
        )
        .status(),
        404
    );
    assert_eq!(s.get("/api/v1/transactions", "x12k_wrong").status(), 401);
    assert_eq!(s.get("/no/such/secret-path", ALPHA).status(), 404);
    helpers::send_850(&s);
    let after = scrape(&url, None);
    let delta = |name: &str, labels: &[(&str, &str)]| {
        value(&after, name, labels) - value(&before, name, labels)
    };
    let list = [
        ("method", "GET"),
        ("route", "/api/v1/transactions"),
        ("status", "200"),
    ];
    assert_eq!(delta("x12kit_http_requests_total", &list), 3.0);
    assert_eq!(
        delta("x12kit_http_request_duration_seconds_count", &list),
        3.0
    );
    let mut le = list.to_vec();
    le.push(("le", "+Inf"));
    assert_eq!(
        delta("x12kit_http_request_duration_seconds_bucket", &le),
        3.0
    );
    // Routes as the router matched them (never a raw path), 404 of no route `unmatched`.
    assert_eq!(
        delta(
            "x12kit_http_requests_total",
            &[
                ("method", "GET"),
                ("route", "/api/v1/transactions/{id}"),
                ("status", "404")
            ]
        ),
        1.0
    );
    assert_eq!(
        delta(
            "x12kit_http_requests_total",
            &[
                ("method", "GET"),
                ("route", "/api/v1/transactions"),
                ("status", "401")
            ]
        ),
        1.0
    );
    assert_eq!(
        delta(
            "x12kit_http_requests_total",
            &[("method", "GET"), ("route", "unmatched"), ("status", "404")]
        ),
        1.0
    );
    assert!(
        !after
            .keys()
            .any(|(_, l)| l.iter().any(|(_, v)| v.contains("secret-path"))),
        "a raw path became a label"
    );
    assert_eq!(
        delta(
            "x12kit_http_requests_total",
            &[
                ("method", "POST"),
                ("route", "/api/v1/documents/outbound"),
                ("status", "202")
            ]
        ),
        1.0
    );
    // The document is queued (no workers here): the gauge by status moved, and the store
    // committed it (the commit histogram the metrics log line also reads).
    assert_eq!(delta("x12kit_documents", &[("status", "queued")]), 1.0);
    assert!(delta("x12kit_store_commit_seconds_count", &[]) >= 1.0);
    assert!(delta("x12kit_core_seconds_count", &[("operation", "render")]) >= 1.0);
    // The route groups' queue depth is there, at 0 with nothing waiting.
    assert_eq!(
        value(
            &after,
            "x12kit_route_group_queued",
            &[("group", "reads"), ("lane", "small")]
        ),
        0.0
    );
    assert!(value(&after, "x12kit_connections_open", &[]) >= 1.0);
    // The scrape itself is counted like any request.
    assert!(
        value(
            &after,
            "x12kit_http_requests_total",
            &[("method", "GET"), ("route", "/metrics"), ("status", "200")]
        ) >= 1.0
    );
}

#[test]
fn routing_and_webhook_outcomes_are_counted_by_result() {
    // A partner whose HTTP endpoint refuses everything, no retries; the demo webhook URL
    // points at nothing listening: each attempt fails to connect. The address is
    // 127.0.0.2 (loopback, where no test listens: they all listen on 127.0.0.1), so the
    // port freed here cannot be taken by another test's server started meanwhile.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = dead.local_addr().unwrap().port();
    drop(dead);
    let s = Server::start_with(Options {
        workers: true,
        partner: Some(format!(
            "[accounts.partners.transport]\nkind = \"http\"\nurl = \"http://127.0.0.2:{port}/edi\"\nretries = 0\ntimeout_ms = 1000\n"
        )),
        webhook_url: Some(format!("http://127.0.0.2:{port}/hook")),
        ..Options::default()
    });
    let url = format!("{}/metrics", s.base);
    helpers::send_850(&s);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let m = scrape(&url, None);
        let routed = value(
            &m,
            "x12kit_routing_attempts_total",
            &[("transport", "http"), ("result", "failed")],
        );
        let hooks = value(
            &m,
            "x12kit_webhook_attempts_total",
            &[("transport", "http"), ("result", "connection_failed")],
        );
        // The attempt is counted when it ends, the document's status a moment
        // later (in the store): wait for both rather than read one between them.
        let failed = value(&m, "x12kit_documents", &[("status", "failed")]);
        if routed >= 1.0 && hooks >= 1.0 && failed >= 1.0 {
            assert_eq!(failed, 1.0);
            assert!(value(&m, "x12kit_partner_transfer_seconds_count", &[]) >= 1.0);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no failed routing and webhook attempts and failed document counted within 30 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

#[test]
fn metrics_ask_for_their_token_when_one_is_set() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("metrics.token"), format!("{TOKEN}\n")).unwrap();
    let s = Server::start_in(
        dir,
        Options {
            append: "\n[metrics]\ntoken_file = \"metrics.token\"\n".into(),
            ..Options::default()
        },
    );
    let client = reqwest::blocking::Client::new();
    let url = format!("{}/metrics", s.base);
    for auth in [None, Some("wrong"), Some(ALPHA), Some(&TOKEN[..31])] {
        let mut r = client.get(&url);
        if let Some(a) = auth {
            r = r.bearer_auth(a);
        }
        let r = r.send().unwrap();
        assert_eq!(r.status(), 401, "{auth:?}");
        assert_eq!(r.headers()["www-authenticate"], "Bearer realm=\"metrics\"");
        let body: Value = r.json().unwrap();
        assert_eq!(body["error"]["code"], "UNAUTHORIZED");
    }
    let m = scrape(&url, Some(TOKEN));
    assert_eq!(value(&m, "x12kit_store_up", &[]), 1.0);
}

#[test]
fn metrics_on_their_own_listener_leave_the_api_port() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = free.local_addr().unwrap();
    drop(free);
    let s = Server::start_with(Options {
        append: format!("\n[metrics]\nlisten = \"{addr}\"\n"),
        ..Options::default()
    });
    assert_eq!(s.get("/metrics", ALPHA).status(), 404);
    let m = scrape(&format!("http://{addr}/metrics"), None);
    assert_eq!(value(&m, "x12kit_store_up", &[]), 1.0);
}

/// Starts the binary on a configuration and returns its exit code and stderr.
fn start_fails(config_tail: &str, files: &[(&str, &str)]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let demo = std::fs::read_to_string(common::server_dir().join("demo.toml")).unwrap();
    // The settings under test go before the first table of the demo's (top level) or as
    // their own table at the end.
    let text = if config_tail.starts_with('[') {
        format!("{demo}\n{config_tail}\n")
    } else {
        format!("{config_tail}\n{demo}")
    };
    let config = dir.path().join("server.toml");
    std::fs::write(&config, text).unwrap();
    helpers::exit_of(&config, &dir.path().join("server.db"))
}

/// (configuration added, files beside it, message expected).
type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);

#[test]
fn bad_deployment_settings_stop_the_start_with_exit_2_naming_the_setting() {
    let demo = std::fs::read_to_string(common::server_dir().join("demo.toml")).unwrap();
    assert!(
        demo.contains("\n[server]\n"),
        "the demo has a [server] table"
    );
    let cases: [Case; 4] = [
        (
            "[metrics]\ntoken_file = \"missing.token\"",
            &[],
            "metrics.token_file: cannot read",
        ),
        (
            "[metrics]\ntoken_file = \"short.token\"",
            &[("short.token", "abc\n")],
            "metrics.token_file:",
        ),
        (
            "[metrics]\ntoken_fiel = \"x\"",
            &[],
            "unknown field `token_fiel`",
        ),
        ("[tls_]\nx = 1", &[], "unknown field `tls_`"),
    ];
    for (tail, files, message) in cases {
        let (code, stderr) = start_fails(tail, files);
        assert_eq!(code, Some(2), "{tail}: {stderr}");
        assert!(stderr.contains(message), "{tail}: {stderr}");
    }
    // A malformed proxy block, in the demo's [server] table.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("server.toml");
    std::fs::write(
        &config,
        demo.replace(
            "\n[server]\n",
            "\n[server]\ntrusted_proxies = [\"127.0.0.1\", \"10.0.0.0/40\"]\n",
        ),
    )
    .unwrap();
    let (code, stderr) = helpers::exit_of(&config, &dir.path().join("server.db"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "server: trusted_proxies[1]: \"10.0.0.0/40\" is not an address or a CIDR block"
        ),
        "{stderr}"
    );
    // An unknown log format.
    let out = Command::new(env!("CARGO_BIN_EXE_x12kit-server"))
        .arg("--config")
        .arg(common::server_dir().join("demo.toml"))
        .env("X12KIT_LOG_FORMAT", "xml")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("X12KIT_LOG_FORMAT=\"xml\""), "{stderr}");
}

fn login(s: &Server, headers: &[(&str, &str)]) -> reqwest::blocking::Response {
    let mut r = s
        .client
        .post(format!("{}/api/auth/login", s.base))
        .header("content-type", "application/json")
        .body(
            json!({"email": "admin@alpha.example", "password": "alpha-demo-password"}).to_string(),
        );
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    r.send().unwrap()
}

fn proxied(trusted: bool) -> Server {
    Server::start_with(Options {
        login_per_ip: 2,
        server_toml: trusted.then(|| "trusted_proxies = [\"127.0.0.1\"]".to_string()),
        ..Options::default()
    })
}

#[test]
fn forwarding_headers_from_an_untrusted_peer_are_ignored() {
    let s = proxied(false);
    // Each sign-in claims another client and HTTPS: all are the peer's, over plain HTTP.
    for (i, spoof) in ["198.51.100.1", "198.51.100.2", "198.51.100.3"]
        .iter()
        .enumerate()
    {
        let r = login(
            &s,
            &[
                ("x-forwarded-for", spoof),
                ("x-forwarded-proto", "https"),
                ("forwarded", "for=203.0.113.9;proto=https"),
            ],
        );
        if i < 2 {
            assert_eq!(r.status(), 200);
            let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
            assert!(!cookie.contains("Secure"), "{cookie}");
        } else {
            assert_eq!(r.status(), 429, "the per-address limit counts the peer");
        }
    }
}

#[test]
fn forwarding_headers_from_a_trusted_proxy_give_the_client() {
    let s = proxied(true);
    // Three clients behind the proxy: each has its own per-address limit.
    for client in ["198.51.100.1", "198.51.100.2", "198.51.100.3"] {
        let r = login(
            &s,
            &[("x-forwarded-for", client), ("x-forwarded-proto", "https")],
        );
        assert_eq!(r.status(), 200, "{client}");
        let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
        assert!(cookie.contains("Secure"), "{cookie}");
    }
    // A client that writes its own X-Forwarded-For: the proxy appends the address it saw,
    // and the rightmost untrusted hop is the client, whatever it wrote.
    for _ in 0..2 {
        let r = login(
            &s,
            &[
                ("x-forwarded-for", "10.9.9.9, 192.0.2.50"),
                ("x-forwarded-proto", "http"),
            ],
        );
        assert_eq!(r.status(), 200);
        let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
        assert!(!cookie.contains("Secure"), "{cookie}");
    }
    let r = login(&s, &[("x-forwarded-for", "10.8.8.8, 192.0.2.50")]);
    assert_eq!(r.status(), 429, "192.0.2.50 is the client of all three");
}

#[test]
fn json_logs_are_one_object_per_line_with_the_request_and_no_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stderr.json");
    let config = helpers::demo_config(dir.path(), |demo| {
        demo.replace(
            "\n[server]\n",
            "\n[server]\ntrusted_proxies = [\"127.0.0.1\"]\n",
        )
    });
    let (mut child, _out, base) =
        helpers::spawn(&config, dir.path(), &log, &[("X12KIT_LOG_FORMAT", "json")]);
    let client = reqwest::blocking::Client::new();
    let password = "alpha-demo-password";
    let payload = common::payload("850");
    let r = client
        .post(format!("{base}/api/v1/documents/outbound"))
        .bearer_auth(ALPHA)
        .header("x-request-id", "trace-deploy-1")
        .header("x-forwarded-for", "198.51.100.77")
        .json(&json!({"partnerId": "acme-retail", "documentTypeCode": "850", "payload": payload}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 202);
    let r = client
        .post(format!("{base}/api/auth/login"))
        .json(&json!({"email": "admin@alpha.example", "password": password}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    let session = cookie.split(';').next().unwrap().to_string();
    let session_value = session.split_once('=').unwrap().1.to_string();
    let r = client
        .get(format!("{base}/api/auth/me"))
        .header("cookie", &session)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    // SIGTERM: a graceful stop flushes everything.
    unsafe_kill(child.id());
    child.wait().unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    let mut access = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not one JSON object per line ({e}): {line}"));
        assert!(v.is_object(), "{line}");
        assert!(
            v["timestamp"].is_string() && v["level"].is_string(),
            "{line}"
        );
        for secret in [ALPHA, password, session_value.as_str(), "x12k_demo_beta"] {
            assert!(!line.contains(secret), "a secret in the logs: {line}");
        }
        // No payload: the 850's purchase order number never appears.
        assert!(!line.contains("\"BEG\""), "{line}");
        if v["target"] == "x12kit_server::access" {
            access.push(v);
        }
    }
    let sent = access
        .iter()
        .find(|v| v["request_id"] == "trace-deploy-1")
        .unwrap_or_else(|| panic!("no access line of the request:\n{text}"));
    assert_eq!(sent["method"], "POST");
    assert_eq!(sent["route"], "/api/v1/documents/outbound");
    assert_eq!(sent["status"], 202);
    assert_eq!(sent["account"], "alpha");
    assert_eq!(
        sent["client"], "198.51.100.77",
        "the trusted proxy's client"
    );
    assert!(sent["duration_ms"].as_f64().unwrap() > 0.0);
    let me = access
        .iter()
        .find(|v| v["route"] == "/api/auth/me")
        .unwrap_or_else(|| panic!("no access line of /api/auth/me:\n{text}"));
    assert_eq!(me["account"], "alpha");
    assert_eq!(me["status"], 200);
}

/// SIGTERM to a child.
fn unsafe_kill(pid: u32) {
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn concurrent_scrapes_all_answer_with_current_counts() {
    let s = Server::start();
    let url = format!("{}/metrics", s.base);
    helpers::send_850(&s);
    let scrapes: Vec<_> = (0..16)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || scrape(&url, None))
        })
        .collect();
    for t in scrapes {
        let m = t.join().unwrap();
        // Each saw the document sent before it started.
        assert_eq!(value(&m, "x12kit_documents", &[("status", "queued")]), 1.0);
        assert_eq!(value(&m, "x12kit_store_up", &[]), 1.0);
    }
    helpers::send_850(&s);
    let m = scrape(&url, None);
    assert_eq!(value(&m, "x12kit_documents", &[("status", "queued")]), 2.0);
}
