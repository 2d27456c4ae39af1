//! Behind a real nginx (Debian's package; `X12KIT_TEST_NGINX`, installed by test.sh) on
//! loopback, configured as the README's "Behind a reverse proxy" shows: the server trusts
//! nginx (`trusted_proxies = ["127.0.0.1"]`), so each client behind it has its own
//! per-address sign-in limit and the scheme nginx saw decides the `Secure` cookie, while
//! what a client writes in `X-Forwarded-For` / `X-Forwarded-Proto` itself is never
//! believed. Clients bind to other loopback addresses (127.0.0.2, 127.0.0.3) so that
//! nginx sees distinct clients.

mod common;
#[path = "common/deploy.rs"]
mod helpers;

use common::{Options, Server};
use serde_json::json;
use std::net::IpAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Nginx {
    child: Child,
    http: String,
    https: String,
    dir: tempfile::TempDir,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// nginx in front of `upstream` (`127.0.0.1:PORT`), plain and TLS, in the foreground.
fn nginx(upstream: &str) -> Nginx {
    let bin = std::env::var("X12KIT_TEST_NGINX").unwrap_or_else(|_| {
        panic!(
            "X12KIT_TEST_NGINX: the nginx binary (examples/server/test.sh installs Debian's nginx)"
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    helpers::make_ca_and_server(d, "proxy");
    let (http, https) = (free_port(), free_port());
    let site = format!(
        r#"
    location / {{
        proxy_pass http://{upstream};
        proxy_http_version 1.1;
        proxy_set_header Host              $host;
        proxy_set_header X-Forwarded-For   $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_set_header Connection        "";
    }}"#
    );
    let conf = format!(
        r#"daemon off;
master_process off;
pid {p}/nginx.pid;
error_log {p}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {p}/body;
    proxy_temp_path {p}/proxy;
    fastcgi_temp_path {p}/fastcgi;
    uwsgi_temp_path {p}/uwsgi;
    scgi_temp_path {p}/scgi;
    client_max_body_size 32m;
    server {{
        listen 127.0.0.1:{http};
        {site}
    }}
    server {{
        listen 127.0.0.1:{https} ssl;
        ssl_certificate     {p}/proxy.crt;
        ssl_certificate_key {p}/proxy.key;
        ssl_protocols       TLSv1.2 TLSv1.3;
        {site}
    }}
}}
"#,
        p = d.display()
    );
    std::fs::write(d.join("nginx.conf"), conf).unwrap();
    let child = Command::new(bin)
        .arg("-p")
        .arg(d)
        .arg("-c")
        .arg(d.join("nginx.conf"))
        .arg("-e")
        .arg(d.join("error.log"))
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start nginx");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", https)).is_err() {
        assert!(
            Instant::now() < deadline,
            "nginx did not listen: {}",
            error_log(d)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Nginx {
        child,
        http: format!("http://127.0.0.1:{http}"),
        https: format!("https://127.0.0.1:{https}"),
        dir,
    }
}

fn error_log(d: &Path) -> String {
    std::fs::read_to_string(d.join("error.log")).unwrap_or_default()
}

/// A client whose connections come from `from` (a loopback address), trusting the proxy's
/// test CA.
fn client(from: &str, ca: &Path) -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .local_address(from.parse::<IpAddr>().unwrap())
        .add_root_certificate(reqwest::Certificate::from_pem(&std::fs::read(ca).unwrap()).unwrap())
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

fn login(c: &reqwest::blocking::Client, base: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut r = c
        .post(format!("{base}/api/auth/login"))
        .header("content-type", "application/json")
        .body(
            json!({"email": "admin@alpha.example", "password": "alpha-demo-password"}).to_string(),
        );
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    let r = r.send().unwrap();
    let cookie = r
        .headers()
        .get("set-cookie")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (r.status().as_u16(), cookie)
}

#[test]
fn behind_nginx_each_client_is_itself_and_spoofed_headers_are_not_believed() {
    let s = Server::start_with(Options {
        login_per_ip: 2,
        server_toml: Some("trusted_proxies = [\"127.0.0.1\"]".into()),
        ..Options::default()
    });
    let upstream = s.base.strip_prefix("http://").unwrap().to_string();
    let n = nginx(&upstream);
    let ca = n.dir.path().join("proxy-ca.crt");
    let a = client("127.0.0.2", &ca);
    let b = client("127.0.0.3", &ca);
    // Client A writes a new X-Forwarded-For and X-Forwarded-Proto each time: nginx appends
    // the address it saw and sets the scheme, so A is 127.0.0.2 over http every time.
    for (i, spoof) in ["198.51.100.1", "198.51.100.2", "198.51.100.3"]
        .iter()
        .enumerate()
    {
        let (status, cookie) = login(
            &a,
            &n.http,
            &[("x-forwarded-for", spoof), ("x-forwarded-proto", "https")],
        );
        if i < 2 {
            assert_eq!(status, 200);
            assert!(!cookie.contains("Secure"), "{cookie}");
        } else {
            assert_eq!(status, 429, "A's spoofed addresses gave it a fresh limit");
        }
    }
    // Client B, behind the same proxy, has its own limit; over nginx's TLS its cookie is
    // Secure (nginx says https).
    let (status, cookie) = login(&b, &n.https, &[]);
    assert_eq!(
        status, 200,
        "B shares A's limit: the proxy's address was used"
    );
    assert!(cookie.contains("Secure"), "{cookie}");
    let (status, _) = login(&b, &n.https, &[("x-forwarded-proto", "http")]);
    assert_eq!(status, 200);
    let (status, _) = login(&b, &n.http, &[]);
    assert_eq!(status, 429, "B's third sign-in");
}

#[test]
fn a_server_that_trusts_no_proxy_sees_nginx_as_the_one_client() {
    let s = Server::start_with(Options {
        login_per_ip: 2,
        ..Options::default()
    });
    let upstream = s.base.strip_prefix("http://").unwrap().to_string();
    let n = nginx(&upstream);
    let ca = n.dir.path().join("proxy-ca.crt");
    let (a, b) = (client("127.0.0.2", &ca), client("127.0.0.3", &ca));
    assert_eq!(login(&a, &n.http, &[]).0, 200);
    let (status, cookie) = login(&b, &n.https, &[]);
    assert_eq!(status, 200);
    assert!(
        !cookie.contains("Secure"),
        "an untrusted proxy's scheme is not believed"
    );
    assert_eq!(
        login(&a, &n.http, &[]).0,
        429,
        "both clients count as nginx"
    );
}

/// The audit log names the client behind the proxy, not nginx, and not the address the
/// client wrote in `X-Forwarded-For` itself.
#[test]
fn behind_nginx_the_audit_log_names_the_client_not_the_address_it_claims() {
    let s = Server::start_with(Options {
        server_toml: Some("trusted_proxies = [\"127.0.0.1\"]".into()),
        ..Options::default()
    });
    let upstream = s.base.strip_prefix("http://").unwrap().to_string();
    let n = nginx(&upstream);
    let ca = n.dir.path().join("proxy-ca.crt");
    let c = client("127.0.0.3", &ca);
    let spoof = ("x-forwarded-for", "198.51.100.9");
    let r = c
        .post(format!("{}/api/auth/login", n.https))
        .header("content-type", "application/json")
        .header(spoof.0, spoof.1)
        .body(
            json!({"email": "admin@alpha.example", "password": "alpha-demo-password"}).to_string(),
        )
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let cookie = r.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let me: serde_json::Value = r.json().unwrap();
    let csrf = me["data"]["csrfToken"].as_str().unwrap().to_string();
    let r = c
        .post(format!("{}/api/settings/keys", n.https))
        .header("cookie", &cookie)
        .header("x-csrf-token", &csrf)
        .header("content-type", "application/json")
        .header(spoof.0, spoof.1)
        .body(r#"{"name": "made behind nginx"}"#)
        .send()
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let audit: serde_json::Value = c
        .get(format!("{}/api/settings/audit", n.https))
        .header("cookie", &cookie)
        .send()
        .unwrap()
        .json()
        .unwrap();
    let made = audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "key.create")
        .unwrap_or_else(|| panic!("no key.create entry: {audit}"));
    assert_eq!(made["client"], "127.0.0.3", "{made}");
}
