//! Starts the real `x12kit-server` binary on 127.0.0.1:0 with a temporary
//! SQLite file and a configuration derived from `demo.toml`, and calls it over HTTP.
#![allow(dead_code)]

use reqwest::blocking::{Client, RequestBuilder, Response};
use serde_json::{Value, json};
use std::collections::HashMap;
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
    /// Run the background workers (off for the API tests of part 1, so documents stay queued).
    pub workers: bool,
    /// Replaces the demo partner's settings after its `profile` line (transport, windows).
    pub partner: Option<String>,
    /// Replaces alpha's webhook URL.
    pub webhook_url: Option<String>,
    /// Replaces alpha's webhook secrets.
    pub secrets: Option<Vec<String>>,
    /// Replaces the `[workers]` table's settings (default: fast polls and short retries).
    pub workers_toml: String,
    /// The database URL (PostgreSQL); `None`: a SQLite file in the server's folder, or a fresh
    /// PostgreSQL database when `X12KIT_TEST_POSTGRES` is set.
    pub database: Option<String>,
    /// Replaces the `[server]` table's settings (timeouts, connection limits, capacity).
    pub server_toml: Option<String>,
    /// Appended to the configuration (more accounts, with their keys and partners).
    pub append: String,
    /// Replaces the `[auth]` table's settings (session lifetimes, lockout).
    pub auth_toml: Option<String>,
    /// Sign-ins per client address and minute.
    pub login_per_ip: u32,
    /// Writes the server's stderr to `server.log` in its folder (at debug level).
    pub log_to_file: bool,
    /// Replaces the upload limits (per person, per network and minute).
    pub upload_limits: Option<(u32, u32)>,
    /// Uses the configuration's own key file (the demo's, made beside it) instead of the
    /// test key every test server shares (servers sharing a store must share its key).
    pub own_key: bool,
    /// Replaces the demo partner's profile (a path; default `examples/partners/acme-retail.json`).
    pub profile: Option<PathBuf>,
}

/// The secret key file every test server uses (`X12KIT_SECRET_KEY_FILE`), made once per
/// test process.
pub fn test_key_file() -> PathBuf {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        // 32 bytes of 0x5a, base64: a test key, never a real one.
        std::fs::write(
            d.path().join("test.key"),
            "WlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlo=\n",
        )
        .unwrap();
        d
    });
    dir.path().join("test.key")
}

/// A fresh, empty database on the PostgreSQL server of `X12KIT_TEST_POSTGRES` (a URL of
/// its maintenance database); its URL.
pub fn fresh_postgres_database(base: &str) -> String {
    let mut client = postgres::Client::connect(base, postgres::NoTls)
        .unwrap_or_else(|e| panic!("cannot connect to {base}: {e}"));
    let name = format!("t_{}", uuid_like());
    client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    let cut = base.rfind('/').expect("a URL with a database name");
    format!("{}/{name}", &base[..cut])
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "{}_{t}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    )
}

/// Fast polls and a short webhook retry schedule, for tests.
pub const FAST_WORKERS: &str = "enabled = true\npoll_ms = 50\nconcurrency = 16\nwebhook_retry_ms = [200, 400, 800, 1600, 3200]\nwebhook_timeout_ms = 5000\n";

impl Default for Options {
    fn default() -> Self {
        // High limits, so that only the rate-limit tests meet them.
        Options {
            limits: (100_000, 100_000, 100_000),
            max_body_bytes: 32 * 1024 * 1024,
            workers: false,
            partner: None,
            webhook_url: None,
            secrets: None,
            workers_toml: FAST_WORKERS.to_string(),
            database: None,
            server_toml: None,
            append: String::new(),
            auth_toml: None,
            login_per_ip: 100_000,
            log_to_file: false,
            upload_limits: None,
            own_key: false,
            profile: None,
        }
    }
}

impl Options {
    /// Workers on, the partner reached with `partner` settings, webhooks to `webhook_url`.
    pub fn lifecycle(partner: &str, webhook_url: &str) -> Options {
        Options {
            workers: true,
            partner: Some(partner.to_string()),
            webhook_url: Some(webhook_url.to_string()),
            ..Options::default()
        }
    }
}

/// The demo webhook secret of account alpha.
pub const ALPHA_SECRET: &str = "whsec_demo_alpha_only_for_trying_it_out";

/// Partner settings: the HTTP transport to `url`, acknowledgements awaited for `window` seconds.
pub fn http_partner(url: &str, window: Option<u64>) -> String {
    let mut s = String::new();
    if let Some(w) = window {
        s.push_str(&format!("ack_window_seconds = {w}\n"));
    }
    s.push_str(&format!(
        "[accounts.partners.transport]\nkind = \"http\"\nurl = {url:?}\nheaders = {{ \"X-Partner-Key\" = \"k-123\" }}\nretries = 3\nbackoff_ms = 50\ntimeout_ms = 5000\n"
    ));
    s
}

/// A running server; killed on drop.
pub struct Server {
    child: Child,
    pub base: String,
    /// The lines the server printed at its start (the address, the dashboard, a call to try).
    pub first_lines: Vec<String>,
    pub dir: tempfile::TempDir,
    pub client: Client,
    options: Options,
}

fn write_config(dir: &Path, o: &Options) -> PathBuf {
    let demo = std::fs::read_to_string(server_dir().join("demo.toml")).unwrap();
    let partner = o
        .profile
        .clone()
        .unwrap_or_else(|| repo_root().join("examples/partners/acme-retail.json"));
    let mut text = String::new();
    let mut section = String::new();
    let mut in_partner = false;
    for line in demo.lines() {
        if line.starts_with('[') {
            section = line.to_string();
            if section == "[[accounts.webhooks]]" || section == "[[accounts]]" {
                in_partner = false;
            }
            if section == "[workers]" {
                text.push_str("[workers]\n");
                text.push_str(&o.workers_toml);
                continue;
            }
            if section == "[server]"
                && let Some(server) = &o.server_toml
            {
                text.push_str("[server]\n");
                text.push_str(server);
                text.push('\n');
                continue;
            }
            if section == "[auth]"
                && let Some(a) = &o.auth_toml
            {
                text.push_str("[auth]\n");
                text.push_str(a);
                text.push('\n');
                continue;
            }
        }
        if section == "[workers]"
            || (section == "[auth]" && o.auth_toml.is_some())
            || (section == "[server]" && o.server_toml.is_some())
        {
            continue;
        }
        if in_partner && o.partner.is_some() {
            continue;
        }
        let in_limits = section == "[limits]";
        let line = if in_limits && line.starts_with("transactions_per_minute") {
            format!("transactions_per_minute = {}", o.limits.0)
        } else if in_limits && line.starts_with("parse_validate_per_minute") {
            format!("parse_validate_per_minute = {}", o.limits.1)
        } else if in_limits && line.starts_with("other_per_minute") {
            format!("other_per_minute = {}", o.limits.2)
        } else if in_limits && line.starts_with("session_per_minute") {
            format!("session_per_minute = {}", o.limits.2)
        } else if in_limits && line.starts_with("auth_per_ip_per_minute") {
            format!("auth_per_ip_per_minute = {}", o.login_per_ip)
        } else if in_limits && line.starts_with("upload_per_user_per_minute") {
            match o.upload_limits {
                Some((user, _)) => format!("upload_per_user_per_minute = {user}"),
                None => line.to_string(),
            }
        } else if in_limits && line.starts_with("upload_per_network_per_minute") {
            match o.upload_limits {
                Some((_, network)) => format!("upload_per_network_per_minute = {network}"),
                None => line.to_string(),
            }
        } else if line.starts_with("max_body_bytes") {
            format!("max_body_bytes = {}", o.max_body_bytes)
        } else if line.starts_with("profile = ") {
            in_partner = true;
            let mut l = format!("profile = {:?}", partner.to_string_lossy());
            if let Some(p) = &o.partner {
                l.push('\n');
                l.push_str(p);
            }
            l
        } else if section == "[[accounts.webhooks]]" && line.starts_with("url = ") {
            match &o.webhook_url {
                Some(u) => format!("url = {u:?}"),
                None => line.to_string(),
            }
        } else if section == "[[accounts.webhooks]]" && line.starts_with("secrets = ") {
            match &o.secrets {
                Some(s) => format!("secrets = {s:?}"),
                None => line.to_string(),
            }
        } else {
            line.to_string()
        };
        text.push_str(&line);
        text.push('\n');
    }
    text.push_str(&o.append);
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
    pub fn start_in(dir: tempfile::TempDir, mut options: Options) -> Server {
        if options.database.is_none()
            && let Ok(base) = std::env::var("X12KIT_TEST_POSTGRES")
        {
            options.database = Some(fresh_postgres_database(&base));
        }
        let database = match &options.database {
            Some(url) => std::ffi::OsString::from(url),
            None => dir.path().join("server.db").into_os_string(),
        };
        let config = write_config(dir.path(), &options);
        let mut command = Command::new(env!("CARGO_BIN_EXE_x12kit-server"));
        if !options.own_key {
            command.env("X12KIT_SECRET_KEY_FILE", test_key_file());
        }
        let mut child = command
            .arg("--config")
            .arg(&config)
            .args(["--listen", "127.0.0.1:0", "--database"])
            .arg(&database)
            .args(if options.workers {
                &[][..]
            } else {
                &["--no-workers"][..]
            })
            .env(
                "X12KIT_LOG",
                if options.log_to_file { "debug" } else { "warn" },
            )
            .stdout(Stdio::piped())
            .stderr(if options.log_to_file {
                Stdio::from(
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(dir.path().join("server.log"))
                        .unwrap(),
                )
            } else {
                Stdio::inherit()
            })
            .spawn()
            .expect("start x12kit-server");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first_lines = Vec::new();
        loop {
            let mut line = String::new();
            if out.read_line(&mut line).unwrap() == 0 {
                break;
            }
            let done = line.starts_with("try: ");
            first_lines.push(line.trim_end().to_string());
            if done {
                break;
            }
        }
        let first = first_lines.first().cloned().unwrap_or_default();
        let base = first
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("first line is not the address: {first:?}"))
            .to_string();
        assert!(base.starts_with("http://127.0.0.1:"), "{base}");
        Server {
            child,
            base,
            first_lines,
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

    /// Kills the process (SIGKILL), leaving its database as the kill left it.
    pub fn kill(mut self) -> Stopped {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        Stopped {
            dir: std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap()),
            options: self.options.clone(),
        }
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

/// A killed server: its folder and database, to look at and start again.
pub struct Stopped {
    dir: tempfile::TempDir,
    options: Options,
}

impl Stopped {
    /// Every document's status as the store holds it (read directly, the process is dead).
    pub fn statuses(&self) -> HashMap<String, String> {
        const SQL: &str = "SELECT id, status FROM documents";
        match &self.options.database {
            Some(url) => {
                let mut client = postgres::Client::connect(url, postgres::NoTls)
                    .unwrap_or_else(|e| panic!("cannot connect to {url}: {e}"));
                client
                    .query(SQL, &[])
                    .unwrap()
                    .iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect()
            }
            None => {
                let c = rusqlite::Connection::open(self.dir.path().join("server.db")).unwrap();
                let mut st = c.prepare(SQL).unwrap();
                st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap()
            }
        }
    }

    /// Starts the server again on the same database.
    pub fn start(self) -> Server {
        Server::start_in(self.dir, self.options)
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

pub mod partner;
pub mod peers;
pub mod session;

/// The webhook receiver example (`x12kit-receiver`), started on 127.0.0.1:0.
pub struct Receiver {
    child: Child,
    pub url: String,
    pub log: PathBuf,
    _dir: Option<tempfile::TempDir>,
}

impl Receiver {
    /// Starts the Rust receiver with `secrets`, answering 503 to the first `fail_first` attempts.
    pub fn start(secrets: &[&str], fail_first: u32) -> Receiver {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("received.jsonl");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_x12kit-receiver"));
        cmd.args([
            "--listen",
            "127.0.0.1:0",
            "--fail-first",
            &fail_first.to_string(),
        ])
        .arg("--log")
        .arg(&log);
        for s in secrets {
            cmd.args(["--secret", s]);
        }
        Receiver::spawn(cmd, log, Some(dir))
    }

    /// Starts the Python receiver (receiver/receiver.py) the same way.
    pub fn start_python(secrets: &[&str], fail_first: u32) -> Receiver {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("received.jsonl");
        let mut cmd = Command::new("python3");
        cmd.arg(server_dir().join("receiver/receiver.py"))
            .args([
                "--listen",
                "127.0.0.1:0",
                "--fail-first",
                &fail_first.to_string(),
            ])
            .arg("--log")
            .arg(&log);
        for s in secrets {
            cmd.args(["--secret", s]);
        }
        Receiver::spawn(cmd, log, Some(dir))
    }

    fn spawn(mut cmd: Command, log: PathBuf, dir: Option<tempfile::TempDir>) -> Receiver {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the receiver");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        let base = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("receiver's first line: {first:?}"))
            .to_string();
        // Drain the rest of stdout so the receiver never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = String::new();
            while out.read_line(&mut sink).map(|n| n > 0).unwrap_or(false) {
                sink.clear();
            }
        });
        Receiver {
            child,
            url: format!("{base}/hooks"),
            log,
            _dir: dir,
        }
    }

    /// Every delivery the receiver accepted (once per delivery id).
    pub fn received(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `f` every 50 ms until it returns `Some`, for at most `secs` seconds.
pub fn wait_for<T>(secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            std::time::Instant::now() < end,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

impl Server {
    /// One transaction's full status.
    pub fn transaction(&self, id: &str) -> Value {
        let r = self.get(&format!("/api/v1/transactions/{id}"), ALPHA);
        assert_eq!(r.status(), 200);
        r.json::<Value>().unwrap()["data"].clone()
    }

    /// Waits until the transaction's status is one of `statuses`; returns it.
    pub fn wait_status(&self, id: &str, statuses: &[&str], secs: u64) -> Value {
        wait_for(secs, &format!("{id} to be {statuses:?}"), || {
            let t = self.transaction(id);
            statuses
                .contains(&t["status"].as_str().unwrap_or(""))
                .then_some(t)
        })
    }

    /// `GET /api/v1/stats` of alpha.
    pub fn stats(&self) -> Value {
        let r = self.get("/api/v1/stats", ALPHA);
        assert_eq!(r.status(), 200);
        r.json::<Value>().unwrap()["data"].clone()
    }

    /// The process id (to send it signals).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Server {
    /// The database this server uses: a PostgreSQL URL or the SQLite file's path.
    pub fn database(&self) -> String {
        match &self.options.database {
            Some(url) => url.clone(),
            None => self
                .dir
                .path()
                .join("server.db")
                .to_string_lossy()
                .into_owned(),
        }
    }

    /// The options it was started with.
    pub fn options(&self) -> Options {
        self.options.clone()
    }

    /// Changes the options the next `restart` starts with (on the same database).
    pub fn set_options(&mut self, mut options: Options) {
        if options.database.is_none() {
            options.database = self.options.database.clone();
        }
        self.options = options;
    }
}
