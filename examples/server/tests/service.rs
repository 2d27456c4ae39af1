//! Authentication, parse/validate, limits, service routes and `new-key`, over HTTP against the real binary.

mod common;

use common::*;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::time::Instant;

fn corpus_files() -> Vec<PathBuf> {
    let root = std::env::var_os("X12KIT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared/corpus"));
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.metadata().is_ok_and(|m| m.len() < 4 * 1024 * 1024) {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(!out.is_empty(), "no corpus files under {}", root.display());
    out
}

fn examples_x12() -> Vec<Vec<u8>> {
    ["purchase-orders-850.edi", "ship-notice-856-5010.edi"]
        .iter()
        .map(|f| std::fs::read(repo_root().join("examples/x12").join(f)).unwrap())
        .collect()
}

#[test]
fn the_first_line_is_the_bound_address() {
    let s = Server::start();
    let port: u16 = s.base.rsplit(':').next().unwrap().parse().unwrap();
    assert_ne!(port, 0);
}

#[test]
fn health_ready_and_openapi_need_no_key() {
    let s = Server::start();
    for path in ["/healthz", "/readyz"] {
        let r = s.client.get(format!("{}{path}", s.base)).send().unwrap();
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(r.json::<Value>().unwrap(), json!({"ok": true}));
    }
    let committed = std::fs::read_to_string(server_dir().join("openapi.json")).unwrap();
    for path in ["/api/v1/openapi.json", "/v1/openapi.json"] {
        let r = s.client.get(format!("{}{path}", s.base)).send().unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(
            r.text().unwrap(),
            committed,
            "served OpenAPI differs from examples/server/openapi.json"
        );
    }
    let v: Value = serde_json::from_str(&committed).unwrap();
    assert!(v["openapi"].as_str().unwrap().starts_with("3.1"));
}

#[test]
fn every_api_route_needs_a_valid_bearer_key() {
    let s = Server::start();
    let routes = [
        ("GET", "/transactions"),
        ("GET", "/transactions/doc_1"),
        ("POST", "/documents/outbound"),
        ("POST", "/parse"),
        ("POST", "/validate"),
        ("GET", "/no-such-route"),
    ];
    let bad: [Option<&str>; 7] = [
        None,
        Some("Basic eDEyazpkZW1v"),
        Some("Bearer"),
        Some("Bearer "),
        Some("Bearer x12k_demo_gamma"),
        Some("x12k_demo_alpha"),
        Some("Bearer x12k_demo_alpha_"),
    ];
    for prefix in PREFIXES {
        for (method, route) in routes {
            for auth in bad {
                let mut b = s
                    .client
                    .request(
                        method.parse().unwrap(),
                        format!("{}{prefix}{route}", s.base),
                    )
                    .header("content-type", "application/json")
                    .body("{}");
                if let Some(a) = auth {
                    b = b.header("authorization", a);
                }
                let r = b.send().unwrap();
                let challenge = r.headers()["www-authenticate"]
                    .to_str()
                    .unwrap()
                    .to_string();
                assert!(challenge.starts_with("Bearer "), "{challenge}");
                error_body(r, 401, "UNAUTHORIZED");
            }
        }
    }
    // The scheme is case-insensitive.
    let r = s
        .client
        .get(format!("{}/api/v1/transactions", s.base))
        .header("authorization", "bearer x12k_demo_beta")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[test]
fn parse_is_the_cores_parse_json_for_every_content_type_and_prefix() {
    let s = Server::start();
    let inputs = examples_x12();
    for (i, input) in inputs.iter().enumerate() {
        let expected = x12kit::ops::parse_json(input, &Default::default());
        let prefix = PREFIXES[i % 2];
        let ct = [
            "application/edi-x12",
            "text/plain",
            "application/octet-stream",
        ][i % 3];
        let r = s
            .post(&format!("{prefix}/parse"), ALPHA)
            .header("content-type", ct)
            .body(input.clone())
            .send()
            .unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["content-type"], "application/json");
        assert_eq!(
            r.bytes().unwrap().as_ref(),
            expected.as_slice(),
            "input {i}"
        );
    }
    // JSON-wrapped, and ?documents=false.
    let input = &inputs[0];
    let text = String::from_utf8(input.clone()).unwrap();
    let r = s.post_json("/v1/parse?documents=false", ALPHA, &json!({"x12": text}));
    assert_eq!(r.status(), 200);
    let o: x12kit::ops::ParseOptions = x12kit::ops::options(json!({"documents": false})).unwrap();
    assert_eq!(
        r.bytes().unwrap().as_ref(),
        x12kit::ops::parse_json(input, &o).as_slice()
    );
    // Binary garbage is X12 content with problems: diagnostics, not an HTTP error.
    let r = s
        .post("/api/v1/parse", ALPHA)
        .header("content-type", "application/octet-stream")
        .body(vec![0u8, 159, 146, 150, 255])
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().unwrap();
    assert!(!v["diagnostics"].as_array().unwrap().is_empty());
}

#[test]
fn parse_is_the_cores_parse_json_on_the_corpus() {
    let s = Server::start();
    for (i, path) in corpus_files().iter().enumerate() {
        let input = std::fs::read(path).unwrap();
        let expected = x12kit::ops::parse_json(&input, &Default::default());
        let r = s
            .post(&format!("{}/parse", PREFIXES[i % 2]), ALPHA)
            .header("content-type", "application/edi-x12")
            .body(input)
            .send()
            .unwrap();
        assert_eq!(r.status(), 200, "{}", path.display());
        assert_eq!(
            r.bytes().unwrap().as_ref(),
            expected.as_slice(),
            "{}",
            path.display()
        );
    }
}

/// `/parse` writes into reused buffers (src/pool.rs): large and small results
/// interleaved from several connections at once never carry another's bytes, and
/// each is a sized body (Content-Length), not a chunked one.
#[test]
fn parse_results_in_reused_buffers_are_each_the_cores() {
    let s = Server::start();
    let one = examples_x12();
    // About 200 KB (parsed on the blocking pool) and the two small examples (at once).
    let mut large = Vec::new();
    while large.len() < 200_000 {
        large.extend_from_slice(&one[0]);
    }
    let inputs = [large, one[0].clone(), one[1].clone()];
    let expected: Vec<Vec<u8>> = inputs
        .iter()
        .map(|i| x12kit::ops::parse_json(i, &Default::default()))
        .collect();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (s, inputs, expected) = (&s, &inputs, &expected);
            scope.spawn(move || {
                for n in 0..6 {
                    let k = (t + n) % inputs.len();
                    let r = s
                        .post("/api/v1/parse", ALPHA)
                        .header("content-type", "application/edi-x12")
                        .body(inputs[k].clone())
                        .send()
                        .unwrap();
                    assert_eq!(r.status(), 200);
                    assert_eq!(r.headers()["content-type"], "application/json");
                    assert_eq!(
                        r.headers()["content-length"].to_str().unwrap(),
                        expected[k].len().to_string()
                    );
                    assert!(r.headers().get("transfer-encoding").is_none());
                    assert_eq!(
                        r.bytes().unwrap().as_ref(),
                        expected[k].as_slice(),
                        "input {k}"
                    );
                }
            });
        }
    });
}

#[test]
fn validate_is_the_cores_validation_with_structure_and_acknowledgements() {
    let s = Server::start();
    for (i, input) in examples_x12().iter().enumerate() {
        for structure in [false, true] {
            let prefix = PREFIXES[i % 2];
            let o: x12kit::ops::ValidateOptions =
                x12kit::ops::options(json!({"structure": structure})).unwrap();
            let expected = x12kit::ops::validate_json(input, &o);
            let r = s
                .post(&format!("{prefix}/validate?structure={structure}"), ALPHA)
                .header("content-type", "application/edi-x12")
                .body(input.clone())
                .send()
                .unwrap();
            assert_eq!(r.status(), 200);
            assert_eq!(r.bytes().unwrap().as_ref(), expected.as_slice());
        }
        for ack in ["997", "999", "ta1", "auto", "AUTO"] {
            let r = s
                .post(
                    &format!("/api/v1/validate?ack={ack}&controlNumber=42"),
                    ALPHA,
                )
                .header("content-type", "text/plain")
                .body(input.clone())
                .send()
                .unwrap();
            assert_eq!(r.status(), 200, "{ack}");
            let v: Value = r.json().unwrap();
            let x12 = v["acknowledgement"]["x12"].as_str().unwrap();
            assert_eq!(v["acknowledgement"]["kind"], ack.to_ascii_lowercase());
            if ack == "997" || ack == "999" {
                assert!(x12.contains(&format!("ST*{ack}*")), "{x12}");
            }
            if !x12.is_empty() {
                assert!(
                    x12.starts_with("ISA*") && x12.contains("*000000042*"),
                    "{x12}"
                );
            }
            // Everything else is the plain validation.
            let mut plain = v.clone();
            plain.as_object_mut().unwrap().remove("acknowledgement");
            let expected: Value =
                serde_json::from_slice(&x12kit::ops::validate_json(input, &Default::default()))
                    .unwrap();
            assert_eq!(plain, expected);
        }
    }
}

#[test]
fn parse_and_validate_refuse_bad_requests_with_their_codes() {
    let s = Server::start_with(Options {
        max_body_bytes: 64 * 1024,
        ..Options::default()
    });
    let input = examples_x12().remove(0);
    for prefix in PREFIXES {
        for op in ["parse", "validate"] {
            let url = format!("{prefix}/{op}");
            let send = |url: &str, ct: Option<&str>, body: Vec<u8>| {
                let mut b = s.post(url, ALPHA).body(body);
                if let Some(ct) = ct {
                    b = b.header("content-type", ct);
                }
                b.send().unwrap()
            };
            error_body(
                send(&url, Some("application/edi-x12"), Vec::new()),
                400,
                "EMPTY_BODY",
            );
            error_body(
                send(&url, Some("image/png"), input.clone()),
                415,
                "UNSUPPORTED_MEDIA_TYPE",
            );
            error_body(
                send(&url, None, input.clone()),
                415,
                "UNSUPPORTED_MEDIA_TYPE",
            );
            error_body(
                send(&url, Some("application/edi-x12"), vec![b'I'; 100 * 1024]),
                413,
                "PAYLOAD_TOO_LARGE",
            );
            error_body(
                send(&url, Some("application/json"), b"{\"x12\": ".to_vec()),
                400,
                "INVALID_JSON",
            );
            error_body(
                send(&url, Some("application/json"), b"{\"x12\": 5}".to_vec()),
                400,
                "INVALID_REQUEST",
            );
            error_body(
                send(
                    &url,
                    Some("application/json"),
                    b"{\"edi\": \"ISA\"}".to_vec(),
                ),
                400,
                "INVALID_REQUEST",
            );
            error_body(
                send(&url, Some("application/json"), b"{\"x12\": \"\"}".to_vec()),
                400,
                "EMPTY_BODY",
            );
            error_body(
                send(
                    &format!("{url}?unknown=1"),
                    Some("text/plain"),
                    input.clone(),
                ),
                400,
                "INVALID_QUERY",
            );
        }
        let v = format!("{prefix}/validate");
        for q in [
            "ack=998",
            "structure=maybe",
            "controlNumber=0",
            "controlNumber=1000000000",
            "controlNumber=x",
        ] {
            let r = s
                .post(&format!("{v}?{q}"), ALPHA)
                .header("content-type", "text/plain")
                .body(input.clone())
                .send()
                .unwrap();
            error_body(r, 400, "INVALID_QUERY");
        }
    }
}

#[test]
fn the_121st_transactions_request_in_a_minute_is_429() {
    let s = Server::start_with(Options {
        limits: (120, 120, 300),
        ..Options::default()
    });
    let started = Instant::now();
    let mut n = 0;
    let refused = loop {
        n += 1;
        let prefix = PREFIXES[n % 2];
        let r = s.get(&format!("{prefix}/transactions"), ALPHA);
        let limit: u64 = r.headers()["x-ratelimit-limit"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(limit, 120);
        let reset: u64 = r.headers()["x-ratelimit-reset"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        assert!(reset >= now && reset <= now + 61, "reset {reset} now {now}");
        if r.status() == 429 {
            break (r, Instant::now());
        }
        assert_eq!(r.status(), 200);
        let remaining: u64 = r.headers()["x-ratelimit-remaining"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        if n <= 120 && started.elapsed().as_millis() < 500 {
            assert_eq!(remaining, 120 - n as u64);
        }
        assert!(n < 400, "never limited");
    };
    // GCRA refills one request every 0.5 s: the 121st is refused unless the
    // first 120 took long enough for cells to come back.
    let (refused, limited_at) = refused;
    // GET /transactions/{id} is in the same group as the list: limited too,
    // except for the cells that came back since the 429 (one every 0.5 s).
    let mut passed = 0;
    for _ in 0..3 {
        let status = s.get("/v1/transactions/doc_1", ALPHA).status();
        assert!(status == 429 || status == 404, "{status}");
        passed += usize::from(status == 404);
    }
    let cells = (limited_at.elapsed().as_secs_f64() / 0.5).floor() as usize + 1;
    assert!(passed <= cells, "{passed} passed, {cells} cells back");
    let refills = (started.elapsed().as_secs_f64() / 0.5).floor() as usize;
    assert!(
        n >= 121 && n <= 121 + refills,
        "first 429 at request {n}, {refills} refills"
    );
    let retry: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry));
    assert_eq!(refused.headers()["x-ratelimit-remaining"], "0");
    let v = error_body(refused, 429, "RATE_LIMITED");
    assert_eq!(v["error"]["retryAfterSeconds"], retry);
    // Other groups and other keys have their own budgets.
    let r = s
        .post("/api/v1/parse", ALPHA)
        .header("content-type", "text/plain")
        .body(examples_x12().remove(0))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-ratelimit-limit"], "120");
    let r = s.send("/api/v1", ALPHA, "acme-retail", "850", &payload("850"));
    assert_eq!(r.status(), 202);
    assert_eq!(r.headers()["x-ratelimit-limit"], "300");
    assert_eq!(s.get("/api/v1/transactions", BETA).status(), 200);
}

/// The rate-limit headers report the budget of the API key (spec §8: "Response headers,
/// when present"), so they are on every answer to a known key (its successes, its 4xx,
/// its 429) and on nothing else: a 401 has no key, hence no budget to report (headers
/// there would describe a budget that does not exist, and a caller without a key must
/// not be able to spend or watch a key's budget), and `/healthz`, `/readyz` and the
/// OpenAPI document are not limited (probes must never be refused by a limit).
#[test]
fn rate_limit_headers_are_the_keys_so_401s_and_service_routes_have_none() {
    let s = Server::start_with(Options {
        limits: (3, 3, 3),
        ..Options::default()
    });
    let has_limit_headers = |h: &reqwest::header::HeaderMap| {
        [
            "x-ratelimit-limit",
            "x-ratelimit-remaining",
            "x-ratelimit-reset",
            "retry-after",
        ]
        .iter()
        .filter(|n| h.contains_key(**n))
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
    };
    // More 401s than the limit: none is limited, none carries the headers.
    for auth in [
        None,
        Some("Bearer x12k_demo_gamma"),
        Some("Basic eDEyazpkZW1v"),
    ] {
        for _ in 0..5 {
            let mut b = s.client.get(format!("{}/api/v1/transactions", s.base));
            if let Some(a) = auth {
                b = b.header("authorization", a);
            }
            let r = b.send().unwrap();
            assert_eq!(
                has_limit_headers(r.headers()),
                Vec::<String>::new(),
                "401 ({auth:?})"
            );
            error_body(r, 401, "UNAUTHORIZED");
        }
    }
    // Service routes, more often than any limit: never limited, no headers.
    for path in [
        "/healthz",
        "/readyz",
        "/api/v1/openapi.json",
        "/v1/openapi.json",
    ] {
        for _ in 0..5 {
            let r = s.client.get(format!("{}{path}", s.base)).send().unwrap();
            assert_eq!(r.status(), 200, "{path}");
            assert_eq!(
                has_limit_headers(r.headers()),
                Vec::<String>::new(),
                "{path}"
            );
        }
    }
    // The 401s spent nothing: alpha's first request has its whole budget, and every answer
    // to a key carries the three headers, its 404 and its 429 too.
    let r = s.get("/api/v1/transactions", ALPHA);
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-ratelimit-limit"], "3");
    assert_eq!(r.headers()["x-ratelimit-remaining"], "2");
    assert!(r.headers().contains_key("x-ratelimit-reset"));
    let r = s.get("/api/v1/transactions/doc_1", ALPHA);
    assert_eq!(r.status(), 404);
    assert_eq!(r.headers()["x-ratelimit-remaining"], "1");
    let r = s.get("/api/v1/transactions", ALPHA);
    assert_eq!(r.status(), 200);
    let r = s.get("/api/v1/transactions", ALPHA);
    assert_eq!(r.status(), 429);
    assert_eq!(
        has_limit_headers(r.headers()),
        [
            "x-ratelimit-limit",
            "x-ratelimit-remaining",
            "x-ratelimit-reset",
            "retry-after"
        ]
    );
    // A 401 while the key is limited is still a 401 without headers: no key, no budget.
    let r = s
        .client
        .get(format!("{}/api/v1/transactions", s.base))
        .send()
        .unwrap();
    assert_eq!(has_limit_headers(r.headers()), Vec::<String>::new());
    error_body(r, 401, "UNAUTHORIZED");
}

#[test]
fn the_parse_and_validate_group_is_limited_together() {
    let s = Server::start_with(Options {
        limits: (120, 10, 300),
        ..Options::default()
    });
    let input = examples_x12().remove(0);
    let started = Instant::now();
    let mut statuses = Vec::new();
    for i in 0..12 {
        let op = if i % 2 == 0 { "parse" } else { "validate" };
        let r = s
            .post(&format!("/api/v1/{op}"), ALPHA)
            .header("content-type", "text/plain")
            .body(input.clone())
            .send()
            .unwrap();
        statuses.push(r.status().as_u16());
    }
    if started.elapsed().as_secs() < 6 {
        assert_eq!(&statuses[..10], &[200; 10]);
        assert_eq!(statuses[10], 429, "{statuses:?}");
    }
}

#[test]
fn unknown_routes_and_methods_use_the_error_body() {
    let s = Server::start();
    error_body(
        s.client.get(format!("{}/nothing", s.base)).send().unwrap(),
        404,
        "NOT_FOUND",
    );
    for prefix in PREFIXES {
        error_body(s.get(&format!("{prefix}/nothing"), ALPHA), 404, "NOT_FOUND");
        error_body(
            s.post(&format!("{prefix}/transactions"), ALPHA)
                .send()
                .unwrap(),
            405,
            "METHOD_NOT_ALLOWED",
        );
        error_body(
            s.get(&format!("{prefix}/parse"), ALPHA),
            405,
            "METHOD_NOT_ALLOWED",
        );
    }
    error_body(
        s.client.post(format!("{}/healthz", s.base)).send().unwrap(),
        405,
        "METHOD_NOT_ALLOWED",
    );
}

#[test]
fn responses_carry_a_request_id() {
    let s = Server::start();
    let r = s.get("/api/v1/transactions", ALPHA);
    let id = r.headers()["x-request-id"].to_str().unwrap().to_string();
    assert_eq!(id.len(), 36);
    let r = s
        .client
        .get(format!("{}/api/v1/transactions", s.base))
        .bearer_auth(ALPHA)
        .header("x-request-id", "abc-123")
        .send()
        .unwrap();
    assert_eq!(r.headers()["x-request-id"], "abc-123");
}

#[test]
fn new_key_prints_a_key_whose_hash_opens_a_configured_account() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_x12kit-server"))
        .arg("new-key")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let key = text
        .lines()
        .find_map(|l| l.strip_prefix("key:"))
        .unwrap()
        .trim()
        .to_string();
    let hash = text
        .lines()
        .find_map(|l| l.strip_prefix("sha256:"))
        .unwrap()
        .trim()
        .to_string();
    assert!(key.starts_with("x12k_") && key.len() >= 40, "{key}");
    assert_eq!(hash, hex::encode(Sha256::digest(key.as_bytes())));
    let out2 = std::process::Command::new(env!("CARGO_BIN_EXE_x12kit-server"))
        .arg("new-key")
        .output()
        .unwrap();
    assert_ne!(out2.stdout, text.as_bytes(), "two keys are the same");
    // A config with only this key's hash lets the key in.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(
        &config,
        format!(
            "[[accounts]]\nid = \"gamma\"\n[[accounts.keys]]\nname = \"t\"\nsha256 = \"{hash}\"\n"
        ),
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_x12kit-server"))
        .arg("--config")
        .arg(&config)
        .args(["--listen", "127.0.0.1:0", "--database"])
        .arg(dir.path().join("db"))
        .env("X12KIT_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut first,
    )
    .unwrap();
    let base = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    let client = reqwest::blocking::Client::new();
    let ok = client
        .get(format!("{base}/api/v1/transactions"))
        .bearer_auth(&key)
        .send()
        .unwrap()
        .status();
    let demo = client
        .get(format!("{base}/api/v1/transactions"))
        .bearer_auth(ALPHA)
        .send()
        .unwrap()
        .status();
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(ok, 200);
    assert_eq!(demo, 401);
}

#[test]
fn bad_configurations_are_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        "listen = 5",
        "[[accounts]]\nid = \"a\"\n[[accounts.keys]]\nname = \"k\"\nsha256 = \"abc\"",
        "[[accounts]]\nid = \"a\"\n[[accounts.partners]]\nid = \"p\"\nprofile = \"missing.json\"",
        "[[accounts]]\nid = \"a\"\n[[accounts.partners]]\nid = \"p\"\nprofile_inline = { id = \"p\" }",
        "[limits]\nother_per_minute = 0",
        "unknown_setting = true",
    ];
    for case in cases {
        let config = dir.path().join("bad.toml");
        std::fs::write(&config, case).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_x12kit-server"))
            .arg("--config")
            .arg(&config)
            .args(["--listen", "127.0.0.1:0", "--database"])
            .arg(dir.path().join("db"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{case}");
        assert!(out.stdout.is_empty(), "{case}");
        assert!(!out.stderr.is_empty(), "{case}");
    }
}
