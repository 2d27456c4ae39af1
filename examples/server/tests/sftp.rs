//! The `sftp` transport against Debian's OpenSSH server (sshd on a loopback port, its
//! own host key, authorized keys made here): send and receive, ed25519 and RSA keys, a
//! wrong host key refused, a stopped server retried then failed, sshd and the x12kit
//! server killed mid-upload (no partial file under the final name, routed after the
//! restart, marked as a resend when it may have been sent), a file taken before a crash
//! not applied again, and a file the partner drops twice applied once.

mod common;

use common::peers::*;
use common::*;
use serde_json::{Value, json};
use std::path::Path;

fn send_850(s: &Server, payload: &Value) -> String {
    let r = s.send("/api/v1", ALPHA, "acme-retail", "850", payload);
    assert_eq!(r.status(), 202);
    r.json::<Value>().unwrap()["documentId"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The partner's 997 of `x12` (made by the core).
fn ack_997(x12: &str, control: u64) -> Vec<u8> {
    let o: x12kit::ops::AcknowledgeOptions = x12kit::ops::options(json!({
        "kind": "997", "interchangeControlNumber": control,
        "groupControlNumber": control, "setControlNumber": control,
    }))
    .unwrap();
    x12kit::ops::acknowledge(x12.as_bytes(), &o, x12kit::clock::now()).unwrap()
}

/// A server with the workers on, its partner reached over SFTP (webhooks go nowhere:
/// they are not what these tests are about).
fn start(sshd: &Sshd, key: &Path, extra: &str) -> Server {
    Server::start_with(Options::lifecycle(
        &sshd.partner_toml(key, extra),
        "http://127.0.0.1:9/hooks",
    ))
}

fn inbound_count(s: &Server) -> usize {
    let v: Value = s
        .get("/api/v1/transactions?status=received&limit=100", ALPHA)
        .json()
        .unwrap();
    v["data"].as_array().unwrap().len()
}

#[test]
fn sends_and_receives_with_a_pinned_host_key_and_a_file_dropped_twice_is_applied_once() {
    let sshd = Sshd::start(None);
    let s = start(
        &sshd,
        &sshd.ed25519,
        "poll_seconds = 1\nretries = 2\nbackoff_ms = 100\ntimeout_ms = 10000\n",
    );
    // Send: the file under its final name, nothing else in the partner's folder.
    let id = send_850(&s, &payload("850"));
    let t = s.wait_status(&id, &["routed"], 30);
    let icn = t["controlNumbers"]["interchange"].as_i64().unwrap();
    let name = format!("{icn:09}-{id}.x12");
    assert_eq!(files(&sshd.folder("in")), std::slice::from_ref(&name));
    assert_eq!(
        std::fs::read_to_string(sshd.folder("in").join(&name)).unwrap(),
        t["x12"].as_str().unwrap()
    );
    let a = &t["routingAttempts"][0];
    assert_eq!(a["transport"], "sftp", "{t}");
    assert_eq!(a["result"], "written and renamed", "{t}");
    assert_eq!(
        a["remoteName"],
        sshd.folder("in").join(&name).to_string_lossy().as_ref()
    );
    assert!(a["durationMs"].is_u64(), "{a}");

    // Receive: the partner's 997 acknowledges it, and the file is deleted.
    let ack = ack_997(t["x12"].as_str().unwrap(), 900);
    std::fs::write(sshd.folder("out").join("ack-900.x12"), &ack).unwrap();
    s.wait_status(&id, &["acknowledged"], 30);
    wait_for(10, "the 997 deleted on the server", || {
        files(&sshd.folder("out")).is_empty().then_some(())
    });

    // The partner's purchase orders: two sets recorded; the same bytes dropped again
    // under another name are taken as a duplicate, not applied.
    let edi = std::fs::read(repo_root().join("examples/x12/purchase-orders-850.edi")).unwrap();
    std::fs::write(sshd.folder("out").join("po-1.edi"), &edi).unwrap();
    wait_for(30, "the partner's documents", || {
        (inbound_count(&s) == 2).then_some(())
    });
    wait_for(10, "po-1 deleted", || {
        files(&sshd.folder("out")).is_empty().then_some(())
    });
    std::fs::write(sshd.folder("out").join("po-1-again.edi"), &edi).unwrap();
    wait_for(10, "po-1-again deleted", || {
        files(&sshd.folder("out")).is_empty().then_some(())
    });
    assert_eq!(inbound_count(&s), 2);
    // The removal is recorded after the remote file is gone: wait for the record.
    let rows = wait_for(10, "every taken file's removal recorded", || {
        let rows = store_rows(
            &s.database(),
            "SELECT name, state, removed_at FROM sftp_taken ORDER BY taken_at",
        );
        (rows.len() == 3 && rows.iter().all(|r| !r[2].is_empty())).then_some(rows)
    });
    let states: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str()))
        .collect();
    assert_eq!(
        states,
        [
            ("ack-900.x12", "applied"),
            ("po-1.edi", "applied"),
            ("po-1-again.edi", "duplicate")
        ]
    );
    assert!(rows.iter().all(|r| !r[2].is_empty()), "{rows:?}");
    let dup = store_rows(
        &s.database(),
        "SELECT result FROM sftp_taken WHERE state = 'duplicate'",
    );
    assert!(dup[0][0].contains("po-1.edi"), "{dup:?}");

    // An RSA key (PEM), through the settings routes: saved, its key never answered,
    // the connection tested, a document sent.
    let admin = Admin::sign_in(&s);
    let key = std::fs::read_to_string(&sshd.rsa).unwrap();
    let (_, v) = admin.call(
        &s,
        reqwest::Method::GET,
        "/api/settings/partners/acme-retail",
        None,
    );
    let mut partner = v["data"].clone();
    partner["transport"]["privateKey"] = json!(key);
    partner["transport"]["maxConnections"] = json!(1);
    let body = json!({"profile": partner["profile"], "transport": partner["transport"]});
    let (status, v) = admin.call(
        &s,
        reqwest::Method::PUT,
        "/api/settings/partners/acme-retail",
        Some(body),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["data"]["transport"]["privateKey"], "********", "{v}");
    assert!(!v.to_string().contains("PRIVATE KEY"));
    let (status, v) = admin.call(
        &s,
        reqwest::Method::POST,
        "/api/settings/partners/acme-retail/test-connection",
        None,
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["data"]["ok"], true, "{v}");
    assert_eq!(v["data"]["folders"].as_array().unwrap().len(), 2, "{v}");
    // Three documents share the one connection allowed.
    let ids: Vec<String> = (0..3).map(|_| send_850(&s, &payload("850"))).collect();
    for id in &ids {
        s.wait_status(id, &["routed"], 30);
    }
    assert_eq!(files(&sshd.folder("in")).len(), 4);
    assert!(
        files(&sshd.folder("in"))
            .iter()
            .all(|f| !f.starts_with('.'))
    );
}

#[test]
fn bad_settings_are_refused_with_their_pointers_and_a_wrong_host_key_is_never_accepted() {
    let sshd = Sshd::start(None);
    let other = keygen(sshd.dir.path(), "other_host", "ed25519", None);
    let wrong = fingerprint(&other.with_extension("pub"));
    let s = start(&sshd, &sshd.ed25519, "retries = 3\nbackoff_ms = 50\n");
    let admin = Admin::sign_in(&s);
    let (status, v) = admin.call(
        &s,
        reqwest::Method::GET,
        "/api/settings/partners/acme-retail",
        None,
    );
    assert_eq!(status, 200);
    let mut transport = v["data"]["transport"].clone();
    assert_eq!(transport["privateKey"], "********");
    assert_eq!(transport["hostKeySha256"], sshd.host_fingerprint().as_str());
    // Malformed fingerprint, no key, a key that is not one, a move without its folder.
    let mut bad = transport.clone();
    bad["hostKeySha256"] = json!("MD5:aa:bb");
    bad["privateKey"] =
        json!("-----BEGIN OPENSSH PRIVATE KEY-----\nnope\n-----END OPENSSH PRIVATE KEY-----\n");
    bad["afterDownload"] = json!("move");
    let (status, v) = admin.call(
        &s,
        reqwest::Method::PUT,
        "/api/settings/partners/acme-retail",
        Some(json!({"profile": v["data"]["profile"], "transport": bad})),
    );
    assert_eq!(status, 422, "{v}");
    let pointers: Vec<&str> = v["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["pointer"].as_str().unwrap())
        .collect();
    assert_eq!(
        pointers,
        [
            "/transport/privateKey",
            "/transport/hostKeySha256",
            "/transport/processedDir"
        ],
        "{v}"
    );
    let mut none = transport.clone();
    none.as_object_mut().unwrap().remove("privateKey");
    let (status, v) = admin.call(
        &s,
        reqwest::Method::POST,
        "/api/settings/partners",
        Some(json!({"id": "nokey", "profile": profile_json(), "transport": none})),
    );
    assert_eq!(status, 422, "{v}");
    assert_eq!(
        v["error"]["details"][0]["code"], "MISSING_CREDENTIAL",
        "{v}"
    );
    assert_eq!(
        v["error"]["details"][0]["pointer"], "/transport/privateKey",
        "{v}"
    );

    // The wrong fingerprint pinned: refused, recorded, not retried; the test says so too.
    transport["hostKeySha256"] = json!(wrong);
    let (status, v) = admin.call(
        &s,
        reqwest::Method::PUT,
        "/api/settings/partners/acme-retail",
        Some(json!({"profile": profile_json(), "transport": transport})),
    );
    assert_eq!(status, 200, "{v}");
    let (_, v) = admin.call(
        &s,
        reqwest::Method::POST,
        "/api/settings/partners/acme-retail/test-connection",
        None,
    );
    assert_eq!(v["data"]["ok"], false, "{v}");
    assert!(
        v["data"]["result"]
            .as_str()
            .unwrap()
            .contains("host key refused"),
        "{v}"
    );
    let id = send_850(&s, &payload("850"));
    let t = s.wait_status(&id, &["failed"], 30);
    let reason = t["failureReason"].as_str().unwrap();
    assert!(reason.contains("host key refused"), "{reason}");
    assert!(
        reason.contains(&sshd.host_fingerprint()),
        "the offered key is named: {reason}"
    );
    assert!(reason.contains(&wrong), "{reason}");
    assert!(reason.contains("not retried"), "{reason}");
    assert_eq!(t["routingAttempts"].as_array().unwrap().len(), 1, "{t}");
    assert!(files(&sshd.folder("in")).is_empty());
}

fn profile_json() -> Value {
    serde_json::from_slice(
        &std::fs::read(repo_root().join("examples/partners/acme-retail.json")).unwrap(),
    )
    .unwrap()
}

#[test]
fn a_stopped_server_is_retried_then_the_document_fails_with_the_reason() {
    let mut sshd = Sshd::start(None);
    sshd.kill();
    let s = start(
        &sshd,
        &sshd.ed25519,
        "retries = 2\nbackoff_ms = 100\ntimeout_ms = 3000\n",
    );
    let id = send_850(&s, &payload("850"));
    let t = s.wait_status(&id, &["failed"], 30);
    let attempts = t["routingAttempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 3, "{t}");
    for a in attempts {
        assert!(
            a["result"].as_str().unwrap().contains("cannot connect"),
            "{a}"
        );
    }
    let reason = t["failureReason"].as_str().unwrap();
    assert!(
        reason.contains("after 3 attempts") && reason.contains("cannot connect"),
        "{reason}"
    );
}

/// An 850 of `n` lines (a few hundred kB), so that a throttled upload takes a while.
fn big_850(n: usize) -> Value {
    let mut p = payload("850");
    let line = p["lines"][0].clone();
    p["lines"] = Value::Array(
        (1..=n)
            .map(|i| {
                let mut l = line.clone();
                l["lineNumber"] = json!(i);
                l
            })
            .collect(),
    );
    p
}

/// An sftp-server behind a pipe that lets 4 KiB through every 20 ms (about 200 kB/s)
/// and, once the file `stall` exists in sshd's folder, holds everything past its first
/// 300 kB (OpenSSH takes writes of up to 255 KiB): an upload is then surely under way,
/// partial, when the test kills something.
fn throttled(sshd: &Sshd) -> String {
    let script = sshd.dir.path().join("slow-sftp.sh");
    let stall = sshd.dir.path().join("stall");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\npython3 -u -c 'import os, time\nsince = 0\nwhile True:\n    b = os.read(0, 4096)\n    if not b: break\n    os.write(1, b)\n    time.sleep(0.02)\n    held = os.path.exists(\"{0}\")\n    since = since + len(b) if held else 0\n    while since > 300000 and os.path.exists(\"{0}\"):\n        time.sleep(0.05)\n' | /usr/lib/openssh/sftp-server\n",
            stall.display()
        ),
    )
    .unwrap();
    format!("/bin/sh {}", script.display())
}

/// Holds uploads past their first 300 kB (see [`throttled`]) until [`release`].
fn stall(sshd: &Sshd) {
    std::fs::write(sshd.dir.path().join("stall"), "").unwrap();
}

fn release(sshd: &Sshd) {
    std::fs::remove_file(sshd.dir.path().join("stall")).unwrap();
}

/// Waits until the upload's temporary file holds part of the document.
fn wait_partial(sshd: &Sshd) {
    wait_for(30, "a partial upload", || {
        files(&sshd.folder("in")).into_iter().find(|f| {
            f.ends_with(".part")
                && std::fs::metadata(sshd.folder("in").join(f)).is_ok_and(|m| m.len() > 8192)
        })
    });
}

#[test]
fn killed_mid_upload_no_partial_file_is_seen_and_the_document_is_routed_after_the_restart() {
    let mut sshd = Sshd::start(None);
    let slow = throttled(&sshd);
    sshd.restart(Some(&slow));
    let s = start(
        &sshd,
        &sshd.ed25519,
        "retries = 8\nbackoff_ms = 300\ntimeout_ms = 30000\n",
    );
    let big = big_850(14000);

    // 1. sshd killed (with its sessions) mid-upload, then started again.
    stall(&sshd);
    let id = send_850(&s, &big);
    wait_partial(&sshd);
    sshd.kill();
    release(&sshd);
    let listed = files(&sshd.folder("in"));
    assert!(
        listed
            .iter()
            .all(|f| f.starts_with('.') && f.ends_with(".part")),
        "only the hidden temporary file: {listed:?}"
    );
    sshd.restart(Some(&slow));
    let t = s.wait_status(&id, &["routed"], 120);
    let icn = t["controlNumbers"]["interchange"].as_i64().unwrap();
    let name = format!("{icn:09}-{id}.x12");
    assert_eq!(
        files(&sshd.folder("in")),
        std::slice::from_ref(&name),
        "the temporary file was replaced by the rename"
    );
    assert_eq!(
        std::fs::read_to_string(sshd.folder("in").join(&name)).unwrap(),
        t["x12"].as_str().unwrap()
    );
    let attempts = t["routingAttempts"].as_array().unwrap();
    let shown = Value::Array(attempts.clone());
    assert!(attempts.len() >= 2, "{shown}");
    let last = attempts.last().unwrap();
    assert!(
        last["result"]
            .as_str()
            .unwrap()
            .starts_with("written and renamed"),
        "{shown}"
    );
    // The upload was held before its end: its rename was never sent, so no resend.
    assert!(attempts.iter().all(|a| a["resent"].is_null()), "{shown}");

    // 2. The x12kit server killed mid-upload: after its restart the document is sent
    // again, whole, and marked as a resend.
    stall(&sshd);
    let id = send_850(&s, &big);
    wait_partial(&sshd);
    let stopped = s.kill();
    release(&sshd);
    let s = stopped.start();
    let t = s.wait_status(&id, &["routed"], 120);
    let icn = t["controlNumbers"]["interchange"].as_i64().unwrap();
    let second = format!("{icn:09}-{id}.x12");
    wait_for(10, "only the two documents' files", || {
        (files(&sshd.folder("in")) == {
            let mut v = vec![name.clone(), second.clone()];
            v.sort();
            v
        })
        .then_some(())
    });
    assert_eq!(
        std::fs::read_to_string(sshd.folder("in").join(&second)).unwrap(),
        t["x12"].as_str().unwrap()
    );
    let shown = &t["routingAttempts"];
    assert_eq!(shown[0]["result"], "interrupted", "{shown}");
    assert_eq!(shown[0]["resent"], true, "{shown}");
}

#[test]
fn a_file_taken_before_a_crash_is_removed_after_the_restart_and_not_applied_again() {
    // The server refuses deletes: the file is taken and applied, its removal fails, and
    // the process is killed with the file still there, as a crash right after the commit.
    let mut sshd = Sshd::start(Some("/usr/lib/openssh/sftp-server -P remove"));
    let s = start(
        &sshd,
        &sshd.ed25519,
        "poll_seconds = 1\ntimeout_ms = 5000\n",
    );
    let edi = std::fs::read(repo_root().join("examples/x12/purchase-orders-850.edi")).unwrap();
    std::fs::write(sshd.folder("out").join("po.edi"), &edi).unwrap();
    wait_for(30, "the partner's documents", || {
        (inbound_count(&s) == 2).then_some(())
    });
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert_eq!(
        files(&sshd.folder("out")),
        ["po.edi"],
        "the delete was refused"
    );
    let database = s.database();
    let stopped = s.kill();
    let rows = store_rows(&database, "SELECT state, removed_at FROM sftp_taken");
    assert_eq!(rows, [vec!["applied".to_string(), String::new()]]);
    sshd.restart(None);
    let s = stopped.start();
    wait_for(30, "po.edi removed", || {
        files(&sshd.folder("out")).is_empty().then_some(())
    });
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert_eq!(inbound_count(&s), 2, "applied once");
    let rows = store_rows(&database, "SELECT state, removed_at FROM sftp_taken");
    assert_eq!(rows.len(), 1);
    assert!(!rows[0][1].is_empty(), "{rows:?}");
}
