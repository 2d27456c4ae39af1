//! The `as2` transport and `POST /as2/{account}` against pyas2lib (PyPI), an AS2
//! implementation no one here wrote (tests/as2_peer.py drives it), with certificates
//! made here by `openssl req`: both directions, signed, encrypted (AES-CBC by pyas2lib,
//! AES-GCM by `openssl cms`), compressed, synchronous and asynchronous MDNs; and a
//! tampered body, a wrong certificate, a MIC mismatch, a negative MDN, an unsigned
//! message where signing is required, and a replayed Message-ID (twice in turn, and two
//! different payloads with one Message-ID at once).

mod common;

use common::peers::*;
use common::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The Python of the venv with pyas2lib (examples/server/test.sh makes it).
fn python() -> PathBuf {
    let p = std::env::var("X12KIT_TEST_PYAS2")
        .map(PathBuf::from)
        .unwrap_or_else(|_| repo_root().join(".venv-as2/bin/python"));
    assert!(
        p.exists(),
        "{} not found: examples/server/test.sh makes the venv with pyas2lib (or set X12KIT_TEST_PYAS2)",
        p.display()
    );
    p
}

fn peer_script() -> PathBuf {
    server_dir().join("tests/as2_peer.py")
}

/// Keys and self-signed certificates: the server's, the partner's, and a stranger's.
struct Pki {
    dir: tempfile::TempDir,
}

impl Pki {
    fn new() -> Pki {
        let dir = tempfile::tempdir().unwrap();
        for who in ["server", "partner", "stranger"] {
            run(Command::new("openssl")
                .args([
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj",
                ])
                .arg(format!("/CN={who} AS2"))
                .arg("-keyout")
                .arg(dir.path().join(format!("{who}.key")))
                .arg("-out")
                .arg(dir.path().join(format!("{who}.crt"))));
        }
        Pki { dir }
    }

    fn key(&self, who: &str) -> PathBuf {
        self.dir.path().join(format!("{who}.key"))
    }

    fn cert(&self, who: &str) -> PathBuf {
        self.dir.path().join(format!("{who}.crt"))
    }

    /// The partner settings (TOML) of an `as2` transport to `url`.
    fn partner_toml(&self, url: &str, extra: &str) -> String {
        format!(
            "[accounts.partners.transport]\nkind = \"as2\"\nurl = {url:?}\nas2_from = \"X12KIT\"\nas2_to = \"PARTNER AS2\"\n\
             partner_certificate_file = {:?}\nour_certificate_file = {:?}\nour_private_key_file = {:?}\n\
             retries = 1\nbackoff_ms = 100\ntimeout_ms = 30000\n{extra}",
            self.cert("partner").to_string_lossy(),
            self.cert("server").to_string_lossy(),
            self.key("server").to_string_lossy(),
        )
    }

    fn identity(&self, who: &str) -> [String; 6] {
        [
            "--key".into(),
            self.key(who).to_string_lossy().into(),
            "--cert".into(),
            self.cert(who).to_string_lossy().into(),
            "--partner-cert".into(),
            self.cert("server").to_string_lossy().into(),
        ]
    }
}

/// pyas2lib as the partner's AS2 server.
struct Peer {
    child: Child,
    url: String,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Peer {
    fn serve(pki: &Pki, args: &[&str]) -> Peer {
        Peer::serve_as(pki, "partner", args)
    }

    /// The peer with `who`'s key and certificate (`stranger`: not the partner's).
    fn serve_as(pki: &Pki, who: &str, args: &[&str]) -> Peer {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("peer.jsonl");
        let mut child = Command::new(python())
            .arg(peer_script())
            .args(["serve", "--name", "PARTNER AS2", "--partner-name", "X12KIT"])
            .args(pki.identity(who))
            .arg("--log")
            .arg(&log)
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the pyas2lib peer");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let url = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("peer's first line: {first:?}"))
            .to_string();
        Peer {
            child,
            url: format!("{url}/as2"),
            log,
            _dir: dir,
        }
    }

    fn messages(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v.get("messageId").is_some())
            .collect()
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// pyas2lib sends `payload` to the server as `signer` (`partner`, or `stranger` for the
/// wrong certificate); one JSON line per POST (the MDN as pyas2lib read it).
fn pyas2_send(pki: &Pki, s: &Server, signer: &str, payload: &Path, args: &[&str]) -> Vec<Value> {
    let out = run(Command::new(python())
        .arg(peer_script())
        .args(["send", "--name", "PARTNER AS2", "--partner-name", "X12KIT"])
        .args(pki.identity(signer))
        .args(["--url", &format!("{}/as2/alpha", s.base)])
        .arg("--payload")
        .arg(payload)
        .args(args));
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn send_850(s: &Server) -> String {
    let r = s.send("/api/v1", ALPHA, "acme-retail", "850", &payload("850"));
    assert_eq!(r.status(), 202);
    r.json::<Value>().unwrap()["documentId"]
        .as_str()
        .unwrap()
        .to_string()
}

fn inbound_count(s: &Server) -> usize {
    let v: Value = s
        .get("/api/v1/transactions?status=received&limit=100", ALPHA)
        .json()
        .unwrap();
    v["data"].as_array().unwrap().len()
}

/// Replaces the partner's transport members in `changes` through the settings routes.
fn set_transport(s: &Server, admin: &Admin, changes: Value) {
    let (_, v) = admin.call(
        s,
        reqwest::Method::GET,
        "/api/settings/partners/acme-retail",
        None,
    );
    let mut t = v["data"]["transport"].clone();
    for (k, val) in changes.as_object().unwrap() {
        t[k] = val.clone();
    }
    let (status, v) = admin.call(
        s,
        reqwest::Method::PUT,
        "/api/settings/partners/acme-retail",
        Some(json!({"profile": v["data"]["profile"], "transport": t})),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["data"]["transport"]["ourPrivateKey"], "********");
}

fn start(pki: &Pki, url: &str, extra: &str) -> Server {
    Server::start_with(Options::lifecycle(
        &pki.partner_toml(url, extra),
        "http://127.0.0.1:9/hooks",
    ))
}

#[test]
fn the_server_sends_to_pyas2lib_and_verifies_its_mdns() {
    let pki = Pki::new();
    let peer = Peer::serve(&pki, &["--require-signed", "--require-encrypted"]);
    let s = start(&pki, &peer.url, "");
    let admin = Admin::sign_in(&s);

    // Signed (SHA-256), encrypted (AES-256-CBC), synchronous signed MDN.
    let id = send_850(&s);
    let t = s.wait_status(&id, &["routed", "failed"], 60);
    let a = t["routingAttempts"][0].clone();
    assert_eq!(t["status"], "routed", "{a}");
    assert_eq!(a["transport"], "as2", "{a}");
    assert_eq!(a["messageId"], format!("{id}@X12KIT"), "{a}");
    assert_eq!(a["serverAnswer"], "HTTP 200", "{a}");
    assert_eq!(
        a["mdn"]["disposition"], "automatic-action/MDN-sent-automatically; processed",
        "{a}"
    );
    assert_eq!(a["mdn"]["signed"], true, "{a}");
    assert_eq!(
        a["mdn"]["mic"],
        a["mic"].as_str().unwrap().replace("sha-256", "sha256"),
        "{a}"
    );
    let got = peer.messages();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["status"], "processed", "{}", got[0]);
    assert_eq!(
        (got[0]["signed"].clone(), got[0]["encrypted"].clone()),
        (json!(true), json!(true))
    );
    use base64::Engine;
    let payload = base64::engine::general_purpose::STANDARD
        .decode(got[0]["payload"].as_str().unwrap())
        .unwrap();
    assert_eq!(payload, t["x12"].as_str().unwrap().as_bytes());

    // Compressed, SHA-512, AES-128-CBC.
    set_transport(
        &s,
        &admin,
        json!({"compress": true, "signing": "sha512", "encryption": "aes128-cbc"}),
    );
    let id = send_850(&s);
    let t = s.wait_status(&id, &["routed", "failed"], 60);
    assert_eq!(t["status"], "routed", "{}", t["routingAttempts"]);
    let got = peer.messages();
    assert_eq!(
        (got[1]["compressed"].clone(), got[1]["digest"].clone()),
        (json!(true), json!("sha512")),
        "{}",
        got[1]
    );

    // An asynchronous MDN, to this server's /as2/alpha.
    set_transport(
        &s,
        &admin,
        json!({"compress": false, "signing": "sha256", "encryption": "aes256-cbc", "mdn": "async", "mdnUrl": format!("{}/as2/alpha", s.base)}),
    );
    let id = send_850(&s);
    let t = s.wait_status(&id, &["routed", "failed"], 60);
    assert_eq!(t["status"], "routed", "{}", t["routingAttempts"]);
    let t = wait_for(30, "the asynchronous MDN recorded", || {
        let t = s.transaction(&id);
        t["routingAttempts"][0]["mdn"].is_object().then_some(t)
    });
    let a = &t["routingAttempts"][0];
    assert_eq!(
        a["mdn"]["disposition"], "automatic-action/MDN-sent-automatically; processed",
        "{a}"
    );
    assert!(
        a["result"]
            .as_str()
            .unwrap()
            .contains("positive asynchronous MDN"),
        "{a}"
    );

    // AES-128-GCM (AuthEnvelopedData): the peer decrypts with `openssl cms`.
    let gcm = Peer::serve(&pki, &["--require-signed", "--openssl-decrypt"]);
    set_transport(
        &s,
        &admin,
        json!({"url": gcm.url, "mdn": "sync", "encryption": "aes128-gcm"}),
    );
    let id = send_850(&s);
    let t = s.wait_status(&id, &["routed", "failed"], 60);
    assert_eq!(t["status"], "routed", "{}", t["routingAttempts"]);
    assert_eq!(gcm.messages()[0]["status"], "processed");

    // A correctly signed MDN with a wrong MIC, and a negative MDN: failed with the reason.
    for (mode, reason) in [
        ("bad-mic", "MIC mismatch"),
        ("negative", "negative MDN: unexpected-processing-error"),
    ] {
        let bad = Peer::serve(&pki, &["--mdn-mode", mode]);
        set_transport(
            &s,
            &admin,
            json!({"url": bad.url, "encryption": "aes256-cbc"}),
        );
        let id = send_850(&s);
        let t = s.wait_status(&id, &["routed", "failed"], 60);
        assert_eq!(t["status"], "failed", "{mode}: {}", t["routingAttempts"]);
        let why = t["failureReason"].as_str().unwrap();
        assert!(why.contains(reason), "{mode}: {why}");
        assert_eq!(
            t["routingAttempts"].as_array().unwrap().len(),
            1,
            "not retried: the partner answered"
        );
        assert!(t["routingAttempts"][0]["mdn"].is_object());
    }

    // A peer with another key: it cannot decrypt, and its MDN's signature is not the
    // partner's: refused.
    let stranger = Peer::serve_as(&pki, "stranger", &[]);
    set_transport(&s, &admin, json!({"url": stranger.url}));
    let id = send_850(&s);
    let t = s.wait_status(&id, &["routed", "failed"], 60);
    assert_eq!(t["status"], "failed", "{}", t["routingAttempts"]);
    let why = t["failureReason"].as_str().unwrap();
    assert!(why.contains("the receipt's signature"), "{why}");

    // Settings checked when saved, every problem at its pointer.
    let (_, v) = admin.call(
        &s,
        reqwest::Method::GET,
        "/api/settings/partners/acme-retail",
        None,
    );
    let mut bad = v["data"]["transport"].clone();
    bad["url"] = json!("ftp://as2.partner.example/");
    bad["partnerCertificate"] =
        json!("-----BEGIN CERTIFICATE-----\nnot one\n-----END CERTIFICATE-----\n");
    bad["ourPrivateKey"] = json!(std::fs::read_to_string(pki.key("stranger")).unwrap());
    bad["encryption"] = json!("des");
    bad["mdn"] = json!("async");
    bad.as_object_mut().unwrap().remove("mdnUrl");
    let (status, v) = admin.call(
        &s,
        reqwest::Method::PUT,
        "/api/settings/partners/acme-retail",
        Some(json!({"profile": v["data"]["profile"], "transport": bad})),
    );
    assert_eq!(status, 422, "{v}");
    let found: Vec<(&str, &str)> = v["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["pointer"].as_str().unwrap(), d["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        found,
        [
            ("/transport/url", "INVALID_URL"),
            ("/transport/partnerCertificate", "INVALID_CERTIFICATE"),
            ("/transport/ourPrivateKey", "KEY_MISMATCH"),
            ("/transport/encryption", "INVALID_FIELD"),
            ("/transport/mdnUrl", "MISSING_FIELD"),
        ],
        "{v}"
    );
    assert!(
        !v.to_string().contains("PRIVATE KEY"),
        "no key in the answer"
    );

    drop(stranger);
    // The connection test: the last peer is gone, then the first one answers.
    let test = "/api/settings/partners/acme-retail/test-connection";
    let (status, v) = admin.call(&s, reqwest::Method::POST, test, None);
    assert_eq!(status, 200);
    assert_eq!(v["data"]["ok"], false, "{v}");
    assert_eq!(v["data"]["endpoint"]["result"], "connection failed", "{v}");
    set_transport(&s, &admin, json!({"url": peer.url}));
    let (_, v) = admin.call(&s, reqwest::Method::POST, test, None);
    assert_eq!(v["data"]["ok"], true, "{v}");
    assert_eq!(
        v["data"]["endpoint"]["result"], "reachable: HTTP 405",
        "{v}"
    );
    assert_eq!(
        v["data"]["certificates"]["ourCertificate"]["subject"], "CN=server AS2",
        "{v}"
    );
}

#[test]
fn two_payloads_with_one_message_id_at_once_apply_one_of_them_only() {
    // The replay check (the Message-ID's record) commits in the same store transaction as
    // the payload's sets: the message that loses the race leaves nothing behind, and is
    // answered with the winner's MDN.
    let pki = Pki::new();
    let s = start(&pki, "http://127.0.0.1:9/as2", "");
    let db = s.database();
    let edi =
        std::fs::read_to_string(repo_root().join("examples/x12/purchase-orders-850.edi")).unwrap();
    assert!(edi.contains("*000000101*"));
    let dir = tempfile::tempdir().unwrap();
    for round in 0..3usize {
        // Two interchanges (ISA13s of their own), two 850s each.
        let paths: Vec<PathBuf> = (0..2)
            .map(|n| {
                let path = dir.path().join(format!("race-{round}-{n}.edi"));
                let control = 700 + 2 * round + n;
                std::fs::write(
                    &path,
                    edi.replace("*000000101*", &format!("*{control:09}*")),
                )
                .unwrap();
                path
            })
            .collect();
        let id = format!("race-{round}");
        let answers: Vec<Vec<Value>> = std::thread::scope(|scope| {
            let sends: Vec<_> = paths
                .iter()
                .map(|p| {
                    let (pki, s, id) = (&pki, &s, &id);
                    scope.spawn(move || pyas2_send(pki, s, "partner", p, &["--message-id", id]))
                })
                .collect();
            sends.into_iter().map(|h| h.join().unwrap()).collect()
        });
        // The winner's MDN is "processed"; the other is answered with the same MDN (a
        // replay), whose MIC is the winner's payload's: its sender reads a warning.
        let mut status: Vec<&str> = answers
            .iter()
            .map(|a| {
                assert_eq!(a[0]["http"], 200, "{}", a[0]);
                a[0]["mdnStatus"].as_str().unwrap()
            })
            .collect();
        status.sort();
        assert_eq!(status, ["processed", "processed/warning"], "{answers:?}");
        assert_eq!(answers[0][0]["mdnBody"], answers[1][0]["mdnBody"]);
        let rows = store_rows(
            &db,
            &format!("SELECT message_id FROM as2_received WHERE message_id LIKE 'race-{round}%'"),
        );
        assert_eq!(rows.len(), 1, "{rows:?}");
        // One payload's two sets, not four.
        assert_eq!(inbound_count(&s), 2 * (round + 1), "round {round}");
    }
}

#[test]
fn pyas2lib_sends_to_the_server_which_applies_each_message_once_and_refuses_bad_ones() {
    let pki = Pki::new();
    let s = start(&pki, "http://127.0.0.1:9/as2", "");
    let edi = repo_root().join("examples/x12/purchase-orders-850.edi");

    // Signed and encrypted: applied, and pyas2lib verifies our signed MDN and its MIC.
    let r = pyas2_send(&pki, &s, "partner", &edi, &["--message-id", "po-1"]);
    assert_eq!(r[0]["http"], 200, "{}", r[0]);
    assert_eq!(r[0]["mdnStatus"], "processed", "{}", r[0]);
    assert_eq!(r[0]["mdnSigned"], true);
    assert_eq!(inbound_count(&s), 2);

    // The same message twice: the same MDN, applied once.
    let r = pyas2_send(
        &pki,
        &s,
        "partner",
        &edi,
        &["--message-id", "po-2", "--times", "2"],
    );
    assert_eq!(r[0]["mdnStatus"], "processed", "{}", r[0]);
    assert_eq!(
        r[0]["mdnBody"], r[1]["mdnBody"],
        "a replay gets the same MDN"
    );
    assert_eq!(r[1]["mdnStatus"], "processed");
    let db = s.database();
    let rows = store_rows(
        &db,
        "SELECT message_id FROM as2_received ORDER BY received_at",
    );
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows[1][0].starts_with("po-2@"), "{rows:?}");

    // Compressed, AES-128-CBC, SHA-384; and AES-256-GCM encrypted by `openssl cms`.
    let r = pyas2_send(
        &pki,
        &s,
        "partner",
        &edi,
        &["--compress", "--sign", "sha384", "--encrypt", "aes_128_cbc"],
    );
    assert_eq!(r[0]["mdnStatus"], "processed", "{}", r[0]);
    let r = pyas2_send(&pki, &s, "partner", &edi, &["--encrypt", "aes-256-gcm"]);
    assert_eq!(r[0]["mdnStatus"], "processed", "{}", r[0]);
    // An asynchronous MDN, to pyas2lib's own MDN URL.
    let r = pyas2_send(&pki, &s, "partner", &edi, &["--mdn", "ASYNC"]);
    assert_eq!(r[0]["mdnStatus"], "processed", "{}", r[0]);
    // The interchange inside is the same as the first: the inbound pipeline records it
    // as a duplicate (same ISA13), so the documents stay two.
    assert_eq!(inbound_count(&s), 2);

    // Refused, each with its MDN and nothing applied: a tampered body, a wrong
    // certificate, an unsigned message (the partnership requires signatures).
    let before = store_rows(&db, "SELECT COUNT(*) FROM as2_received")[0][0].clone();
    let cases: [(&str, &[&str], &str); 3] = [
        (
            "partner",
            &["--encrypt", "none", "--tamper", "PO1"],
            "integrity-check-failed",
        ),
        ("stranger", &["--encrypt", "none"], "authentication-failed"),
        (
            "partner",
            &["--sign", "none"],
            "insufficient-message-security",
        ),
    ];
    for (signer, args, modifier) in cases {
        let r = pyas2_send(&pki, &s, signer, &edi, args);
        assert_eq!(r[0]["http"], 200, "{}", r[0]);
        assert_eq!(r[0]["mdnStatus"], "processed/error", "{modifier}: {}", r[0]);
        assert_eq!(r[0]["mdnDetail"], modifier, "{}", r[0]);
    }
    assert_eq!(
        store_rows(&db, "SELECT COUNT(*) FROM as2_received")[0][0],
        before
    );

    // Not a partnership of this account: 403, before any cryptography.
    let r = s
        .client
        .post(format!("{}/as2/alpha", s.base))
        .header("AS2-From", "SOMEONE")
        .header("AS2-To", "X12KIT")
        .header("Content-Type", "application/pkcs7-mime")
        .body("x")
        .send()
        .unwrap();
    error_body(r, 403, "AS2_PARTNER_UNKNOWN");
    let r = s
        .client
        .post(format!("{}/as2/beta", s.base))
        .header("AS2-From", "PARTNER AS2")
        .header("AS2-To", "X12KIT")
        .header("Content-Type", "application/pkcs7-mime")
        .body("x")
        .send()
        .unwrap();
    error_body(r, 403, "AS2_PARTNER_UNKNOWN");
    let r = s
        .client
        .post(format!("{}/as2/alpha", s.base))
        .body("x")
        .send()
        .unwrap();
    error_body(r, 400, "AS2_HEADERS_MISSING");
}
