//! Starts the real `x12kit-server` binary on 127.0.0.1:0 with a temporary
//! SQLite file and a configuration derived from `demo.toml`, and calls it over HTTP.
#![allow(dead_code)]

use reqwest::blocking::{Client, RequestBuilder, Response};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

pub const ALPHA: &str = "x12k_demo_alpha";
pub const BETA: &str = "x12k_demo_beta";
pub const PREFIXES: [&str; 2] = ["/api/v1", "/v1"];

pub fn server_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn repo_root() -> PathBuf {
    server_dir()
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

/// The 18 example payloads, by type code.
pub fn payloads() -> Vec<(String, Value)> {
    let dir = repo_root().join("examples/payloads");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .expect("examples/payloads")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let code = p.file_stem().unwrap().to_string_lossy().into_owned();
            let v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
            (code, v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

pub fn payload(code: &str) -> Value {
    payloads()
        .into_iter()
        .find(|(c, _)| c == code)
        .map(|(_, v)| v)
        .expect("payload")
}

/// Options of a test server.
#[derive(Clone)]
pub struct Options {
    pub limits: (u32, u32, u32),
    pub max_body_bytes: usize,
}

impl Default for Options {
    fn default() -> Self {
        // High limits, so that only the rate-limit tests meet them.
        Options {
            limits: (100_000, 100_000, 100_000),
            max_body_bytes: 32 * 1024 * 1024,
        }
    }
}

/// A running server; killed on drop.
pub struct Server {
    child: Child,
    pub base: String,
    pub dir: tempfile::TempDir,
    pub client: Client,
    options: Options,
}

fn write_config(dir: &Path, o: &Options) -> PathBuf {
    let demo = std::fs::read_to_string(server_dir().join("demo.toml")).unwrap();
    let partner = repo_root().join("examples/partners/acme-retail.json");
    let mut text = String::new();
    let mut in_limits = false;
    for line in demo.lines() {
        if line.starts_with('[') {
            in_limits = line == "[limits]";
        }
        let line = if in_limits && line.starts_with("transactions_per_minute") {
            format!("transactions_per_minute = {}", o.limits.0)
        } else if in_limits && line.starts_with("parse_validate_per_minute") {
            format!("parse_validate_per_minute = {}", o.limits.1)
        } else if in_limits && line.starts_with("other_per_minute") {
            format!("other_per_minute = {}", o.limits.2)
        } else if line.starts_with("max_body_bytes") {
            format!("max_body_bytes = {}", o.max_body_bytes)
        } else if line.starts_with("profile = ") {
            format!("profile = {:?}", partner.to_string_lossy())
        } else {
            line.to_string()
        };
        text.push_str(&line);
        text.push('\n');
    }
    let path = dir.join("server.toml");
    std::fs::write(&path, text).unwrap();
    path
}

impl Server {
    pub fn start() -> Server {
        Server::start_with(Options::default())
    }

    pub fn start_with(options: Options) -> Server {
        let dir = tempfile::tempdir().unwrap();
        Server::start_in(dir, options)
    }

    /// Starts on an existing directory (its `server.db` survives restarts).
    pub fn start_in(dir: tempfile::TempDir, options: Options) -> Server {
        let config = write_config(dir.path(), &options);
        let mut child = Command::new(env!("CARGO_BIN_EXE_x12kit-server"))
            .arg("--config")
            .arg(&config)
            .args(["--listen", "127.0.0.1:0", "--database"])
            .arg(dir.path().join("server.db"))
            .env("X12KIT_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start x12kit-server");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let base = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("first line is not the address: {first:?}"))
            .to_string();
        assert!(base.starts_with("http://127.0.0.1:"), "{base}");
        Server {
            child,
            base,
            dir,
            client: Client::builder()
                .timeout(std::time::Duration::from_secs(60))
                .build()
                .unwrap(),
            options,
        }
    }

    /// Kills the process (SIGKILL: no graceful shutdown) and starts it again on the same database.
    pub fn restart(mut self) -> Server {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let options = self.options.clone();
        let dir = std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap());
        Server::start_in(dir, options)
    }

    pub fn get(&self, path: &str, key: &str) -> Response {
        self.client
            .get(format!("{}{path}", self.base))
            .bearer_auth(key)
            .send()
            .unwrap()
    }

    pub fn post(&self, path: &str, key: &str) -> RequestBuilder {
        self.client
            .post(format!("{}{path}", self.base))
            .bearer_auth(key)
    }

    pub fn post_json(&self, path: &str, key: &str, body: &Value) -> Response {
        self.post(path, key)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .unwrap()
    }

    pub fn send(
        &self,
        prefix: &str,
        key: &str,
        partner: &str,
        code: &str,
        payload: &Value,
    ) -> Response {
        self.post_json(
            &format!("{prefix}/documents/outbound"),
            key,
            &json!({"partnerId": partner, "documentTypeCode": code, "payload": payload}),
        )
    }

    /// Every transaction of the key's account, following the cursors.
    pub fn all_ids(&self, key: &str) -> Vec<String> {
        let mut ids = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut path = "/api/v1/transactions?limit=500".to_string();
            if let Some(c) = &cursor {
                path.push_str(&format!("&cursor={c}"));
            }
            let r = self.get(&path, key);
            assert_eq!(r.status(), 200);
            let v: Value = r.json().unwrap();
            for t in v["data"].as_array().unwrap() {
                ids.push(t["documentId"].as_str().unwrap().to_string());
            }
            match v["nextCursor"].as_str() {
                Some(c) => cursor = Some(c.to_string()),
                None => return ids,
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Checks the uniform error body and returns it.
pub fn error_body(r: Response, status: u16, code: &str) -> Value {
    assert_eq!(r.status().as_u16(), status, "status of {code}");
    assert!(
        r.headers()
            .get("content-type")
            .is_some_and(|v| v.to_str().unwrap().starts_with("application/json")),
        "error content type"
    );
    assert!(r.headers().contains_key("x-request-id"), "x-request-id");
    let v: Value = r.json().unwrap();
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{v}"
    );
    assert!(v["error"]["details"].is_array(), "{v}");
    v
}

/// Reads an outbound acknowledgement as a client that accepts either shape of spec §2.2.
pub fn read_ack(v: &Value) -> (String, String) {
    assert_eq!(v["ok"], true, "{v}");
    let source = if v.get("documentId").is_some() {
        v
    } else {
        &v["data"]
    };
    (
        source["documentId"]
            .as_str()
            .expect("documentId")
            .to_string(),
        source["status"].as_str().expect("status").to_string(),
    )
}
