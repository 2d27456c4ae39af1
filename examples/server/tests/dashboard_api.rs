//! The API the dashboard is a client of, against the real binary: a session as a
//! caller of /api/v1 (CSRF, scoping), the transaction filters, what needs
//! attention, resend, cancel, the delivery log and redelivery — each audited,
//! each refused clearly where it does not apply. On SQLite by default; on
//! PostgreSQL when `X12KIT_TEST_POSTGRES` is set (examples/server/test.sh runs it both ways).

mod common;

use common::partner::Partner;
use common::session::*;
use common::*;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;

fn po(number: &str) -> Value {
    json!({"purchaseOrderNumber": number, "shipTo": {"id": "0003947268292", "name": "ACME DC"},
           "lines": [{"lineNumber": 1, "sku": "WID-100", "quantity": 12, "unitPrice": 9.25}]})
}

fn send(s: &Server, key: &str, partner: &str, code: &str, payload: &Value) -> String {
    let r = s.send("/api/v1", key, partner, code, payload);
    assert_eq!(r.status(), 202, "{}", r.text().unwrap());
    read_ack(&r.json().unwrap()).0
}

/// The ids of the documents an interchange of `examples/x12/` from the demo partner made.
fn receive(s: &Server, file: &str) -> Vec<String> {
    let r = s
        .post("/api/v1/documents/inbound?partnerId=acme-retail", ALPHA)
        .header("content-type", "application/edi-x12")
        .body(std::fs::read(repo_root().join("examples/x12").join(file)).unwrap())
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json::<Value>().unwrap()["data"]["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["documentId"].as_str().unwrap().to_string())
        .collect()
}

fn ids(v: &Value) -> Vec<String> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["documentId"].as_str().unwrap().to_string())
        .collect()
}

fn list(s: &Server, query: &str) -> Value {
    let r = s.get(&format!("/api/v1/transactions{query}"), ALPHA);
    assert_eq!(r.status(), 200, "{query}");
    r.json().unwrap()
}

/// The audit entries of an action (newest first).
fn audited(session: &Session<'_>, action: &str) -> Vec<Value> {
    session.get("/api/settings/audit?limit=200")["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["action"] == action)
        .cloned()
        .collect()
}

#[test]
fn the_first_lines_say_where_the_dashboard_is_and_how_to_sign_in_or_make_the_first_user() {
    let s = Server::start();
    assert_eq!(
        s.first_lines[1],
        format!(
            "dashboard: {}/ (sign in as admin@alpha.example, password alpha-demo-password: the public demo user; make your own with x12kit-server user add)",
            s.base
        )
    );
    // (Then, when bindings/wasm/pkg/web is not built, a line saying the inspector needs it.)
    assert!(
        s.first_lines.last().unwrap().starts_with("try: curl "),
        "{:?}",
        s.first_lines
    );
    // A store without anyone to sign in: how to make the first user.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("empty.toml");
    std::fs::write(
        &config,
        "listen = \"127.0.0.1:0\"\n[[accounts]]\nid = \"solo\"\n",
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_x12kit-server"))
        .arg("--config")
        .arg(&config)
        .arg("--database")
        .arg(dir.path().join("solo.db"))
        .arg("--no-workers")
        .env("X12KIT_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::BufRead;
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let second = lines.next().unwrap().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let base = first.strip_prefix("listening on ").unwrap();
    assert_eq!(
        second,
        format!(
            "dashboard: {base}/ (nobody can sign in yet: make the first user with x12kit-server user add --config <this file> --account <id> --email <you@example.com> --role admin (--create-account for a new account))"
        )
    );
}

#[test]
fn a_session_is_a_caller_of_the_api_for_its_own_account_and_its_changes_need_the_csrf_token() {
    let s = Server::start();
    let alpha = sign_in(&s, ALPHA_ADMIN);
    let beta = sign_in(&s, BETA_ADMIN);
    let body =
        json!({"partnerId": "acme-retail", "documentTypeCode": "850", "payload": po("PO-S1")});
    // A change without the token is refused; with it, it is the account's document.
    let r = s
        .client
        .post(format!("{}/api/v1/documents/outbound", s.base))
        .header("cookie", &alpha.cookie)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .unwrap();
    error_body(r, 403, "CSRF_TOKEN_INVALID");
    let r = alpha.call(
        Method::POST,
        "/api/v1/documents/outbound",
        Some(body.clone()),
    );
    assert_eq!(r.status(), 202);
    let (id, _) = read_ack(&r.json().unwrap());
    for prefix in PREFIXES {
        let v = alpha.get(&format!("{prefix}/transactions"));
        assert_eq!(ids(&v), vec![id.clone()]);
        assert_eq!(
            alpha.get(&format!("{prefix}/transactions/{id}"))["data"]["documentId"],
            id
        );
    }
    // The key sees the same document; the other account's session does not.
    assert_eq!(ids(&list(&s, "")), vec![id.clone()]);
    assert!(ids(&beta.get("/api/v1/transactions")).is_empty());
    error_body(
        beta.call(Method::GET, &format!("/api/v1/transactions/{id}"), None),
        404,
        "TRANSACTION_NOT_FOUND",
    );
    // A key sent with the cookie is the caller (the key's account, not the session's).
    let r = s
        .client
        .get(format!("{}/api/v1/transactions", s.base))
        .header("cookie", &alpha.cookie)
        .bearer_auth(BETA)
        .send()
        .unwrap();
    assert!(ids(&r.json().unwrap()).is_empty());
    // A session's requests are limited per person like a key's, with the same headers.
    let r = alpha.call(Method::GET, "/api/v1/stats", None);
    assert_eq!(r.status(), 200);
    assert!(r.headers().contains_key("x-ratelimit-remaining"));
    // Signed out (or made up), the cookie is no caller: 401, never another account.
    alpha.ok(Method::POST, "/api/auth/logout", None, 200);
    error_body(
        alpha.call(Method::GET, "/api/v1/transactions", None),
        401,
        "UNAUTHORIZED",
    );
    let r = s
        .client
        .get(format!("{}/api/v1/transactions", s.base))
        .header(
            "cookie",
            "x12kit_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        )
        .send()
        .unwrap();
    error_body(r, 401, "UNAUTHORIZED");
}

#[test]
fn transactions_are_filtered_by_partner_type_direction_and_creation_time() {
    let s = Server::start();
    let admin = sign_in(&s, ALPHA_ADMIN);
    let mut profile: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("examples/partners/acme-retail.json")).unwrap(),
    )
    .unwrap();
    profile["id"] = json!("globex");
    profile["receiver"]["id"] = json!("GLOBEX");
    profile.as_object_mut().unwrap().remove("requiredFields");
    admin.ok(
        Method::POST,
        "/api/settings/partners",
        Some(json!({"id": "globex", "profile": profile, "transport": {"kind": "directory", "outbox": "globex/out"}})),
        201,
    );
    let a850 = send(&s, ALPHA, "acme-retail", "850", &po("PO-F1"));
    let g810 = send(&s, ALPHA, "globex", "810", &payload("810"));
    let inbound = receive(&s, "purchase-orders-850.edi");
    assert_eq!(inbound.len(), 2);
    // With the 997 that answers them (the demo partner's acknowledge_inbound).
    let all = ids(&list(&s, ""));
    assert_eq!(all.len(), 5);
    assert_eq!(ids(&list(&s, "?documentTypeCode=997")).len(), 1);
    assert_eq!(ids(&list(&s, "?partnerId=globex")), vec![g810.clone()]);
    // The business reference: the core's field of each type, outbound and inbound alike.
    assert_eq!(ids(&list(&s, "?reference=PO-F1")), vec![a850.clone()]);
    assert_eq!(
        list(&s, "?reference=PO-F1")["data"][0]["reference"],
        "PO-F1"
    );
    assert_eq!(
        list(&s, "?reference=INV-20931")["data"][0]["documentId"],
        g810.as_str(),
        "an 810's reference is its invoice number"
    );
    let received = list(&s, "?reference=PO-2026-0042&direction=inbound");
    assert_eq!(ids(&received), vec![inbound[0].clone()]);
    assert!(
        ids(&list(&s, "?reference=po-f1")).is_empty(),
        "exact, case and all"
    );
    assert_eq!(
        ids(&list(&s, "?documentTypeCode=850&direction=outbound")),
        vec![a850.clone()]
    );
    let mut got = ids(&list(&s, "?direction=inbound&partnerId=acme-retail"));
    got.sort();
    let mut want = inbound.clone();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(
        ids(&list(&s, "?status=QUEUED&documentTypeCode=810")),
        vec![g810.clone()]
    );
    // Times: RFC 3339 with any offset, or a date (its midnight UTC); until is exclusive.
    let created = list(&s, "")["data"][4]["createdAt"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        ids(&list(&s, &format!("?since={created}"))).len(),
        5,
        "since is inclusive"
    );
    assert!(ids(&list(&s, &format!("?until={created}"))).is_empty());
    assert!(ids(&list(&s, "?since=2999-01-01")).is_empty());
    assert_eq!(
        ids(&list(&s, "?since=2000-01-01T00:00:00%2B01:00")).len(),
        5
    );
    assert!(ids(&list(&s, "?until=2000-01-01")).is_empty());
    // Pages keep their filters (the cursor goes with them).
    let first = list(&s, "?partnerId=acme-retail&limit=2");
    assert_eq!(ids(&first).len(), 2);
    let next = first["nextCursor"].as_str().unwrap();
    let second = list(&s, &format!("?partnerId=acme-retail&limit=2&cursor={next}"));
    assert_eq!(ids(&second).len(), 2);
    assert!(second["nextCursor"].is_null());
    assert!(!ids(&second).contains(&g810));
    // Bad filters are 400s that name the parameter, never an empty list.
    for (query, param) in [
        ("?direction=sideways", "direction"),
        ("?since=yesterday", "since"),
        ("?until=2026-02-30", "until"),
        ("?partnerId=", "partnerId"),
        ("?reference=", "reference"),
    ] {
        let v = error_body(
            s.get(&format!("/api/v1/transactions{query}"), ALPHA),
            400,
            "INVALID_QUERY",
        );
        assert_eq!(v["error"]["details"][0]["pointer"], param, "{query}: {v}");
    }
    error_body(
        s.get("/api/v1/transactions?partner=globex", ALPHA),
        400,
        "INVALID_QUERY",
    );
    // The other account's filters find nothing of alpha's.
    let r = s.get("/api/v1/transactions?partnerId=acme-retail", BETA);
    assert!(ids(&r.json().unwrap()).is_empty());
}

#[test]
fn resend_routes_a_failed_document_again_marked_as_a_resend_in_history_attempts_and_audit() {
    // Four 503s: the first routing (one attempt and three retries) fails; the resend goes through.
    let partner = Partner::start(4, 200, Duration::ZERO);
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let s = Server::start_with(Options::lifecycle(
        &http_partner(&partner.url, None),
        &receiver.url,
    ));
    let admin = sign_in(&s, ALPHA_ADMIN);
    let id = send(&s, ALPHA, "acme-retail", "850", &po("PO-R1"));
    let failed = s.wait_status(&id, &["failed"], 30);
    assert!(
        failed["failureReason"].as_str().unwrap().contains("503"),
        "{failed}"
    );
    assert_eq!(s.stats()["attention"]["failed"], 1);
    // The person asks for a resend: a new routing attempt, at once.
    let v = admin.ok(
        Method::POST,
        &format!("/api/v1/transactions/{id}/resend"),
        None,
        202,
    );
    assert_eq!(v["status"], "validated");
    let routed = s.wait_status(&id, &["routed"], 30);
    assert_eq!(routed["resends"], 1);
    assert!(routed["failureReason"].is_null());
    let history = routed["statusHistory"].as_array().unwrap();
    let n = history.len();
    assert_eq!(history[n - 2]["status"], "validated");
    assert!(
        history[n - 2]["reason"]
            .as_str()
            .unwrap()
            .starts_with("resend 1 asked for by admin@alpha.example"),
        "{history:?}"
    );
    assert!(
        history[n - 1]["reason"]
            .as_str()
            .unwrap()
            .ends_with("(resend 1)"),
        "{history:?}"
    );
    // The earlier attempts are kept; the resend's are marked.
    let attempts = routed["routingAttempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 5, "{attempts:?}");
    assert!(attempts[..4].iter().all(|a| a.get("resend").is_none()));
    assert_eq!(attempts[4]["resend"], 1);
    assert_eq!(partner.received().len(), 1);
    assert_eq!(partner.attempts(&id), 5);
    // A key holder resends too (the document is routed now), audited as the key.
    let r = s
        .post(&format!("/api/v1/transactions/{id}/resend"), ALPHA)
        .send()
        .unwrap();
    assert_eq!(r.status(), 202);
    let again = wait_for(30, "the second resend", || {
        let t = s.transaction(&id);
        (t["status"] == "routed" && t["resends"] == 2).then_some(t)
    });
    assert_eq!(again["routingAttempts"].as_array().unwrap().len(), 6);
    assert_eq!(partner.received().len(), 2);
    assert_eq!(
        partner.received()[1].body,
        partner.received()[0].body,
        "the same interchange"
    );
    // Each routing after a resend is a resend in its document.routed webhook (data.resend).
    let routed = wait_for(30, "the two document.routed webhooks", || {
        let r: Vec<Value> = receiver
            .received()
            .into_iter()
            .filter(|d| d["event"] == "document.routed" && d["data"]["documentId"] == id.as_str())
            .collect();
        (r.len() == 2).then_some(r)
    });
    assert!(
        routed.iter().all(|d| d["data"]["resend"] == true),
        "{routed:?}"
    );
    let validated = receiver
        .received()
        .into_iter()
        .find(|d| d["event"] == "document.validated")
        .unwrap();
    assert!(validated["data"].get("resend").is_none(), "{validated}");
    let audit = audited(&admin, "document.resend");
    assert_eq!(audit.len(), 2, "{audit:?}");
    assert_eq!(audit[0]["actor"]["name"], "API key demo");
    assert_eq!(audit[1]["actor"]["name"], "admin@alpha.example");
    assert_eq!(audit[1]["target"], id.as_str());
    assert_eq!(audit[1]["before"]["status"], "failed");
    assert_eq!(audit[1]["after"]["resends"], 1);
    // What cannot be resent says why; another account's document is not found.
    let inbound = receive(&s, "purchase-orders-850.edi").remove(0);
    let v = error_body(
        s.post(&format!("/api/v1/transactions/{inbound}/resend"), ALPHA)
            .send()
            .unwrap(),
        409,
        "NOT_RESENDABLE",
    );
    assert!(v["error"]["message"].as_str().unwrap().contains("inbound"));
    error_body(
        s.post(&format!("/api/v1/transactions/{id}/resend"), BETA)
            .send()
            .unwrap(),
        404,
        "TRANSACTION_NOT_FOUND",
    );
    error_body(
        s.post("/api/v1/transactions/doc_nope/resend", ALPHA)
            .send()
            .unwrap(),
        404,
        "TRANSACTION_NOT_FOUND",
    );
    // A session needs its CSRF token for a resend, as for any change.
    let r = s
        .client
        .post(format!("{}/api/v1/transactions/{id}/resend", s.base))
        .header("cookie", &admin.cookie)
        .send()
        .unwrap();
    error_body(r, 403, "CSRF_TOKEN_INVALID");
}

#[test]
fn a_document_that_failed_validation_or_still_waits_is_not_resent() {
    let s = Server::start();
    let id = send(&s, ALPHA, "acme-retail", "850", &po("PO-Q1"));
    let v = error_body(
        s.post(&format!("/api/v1/transactions/{id}/resend"), ALPHA)
            .send()
            .unwrap(),
        409,
        "NOT_RESENDABLE",
    );
    assert!(
        v["error"]["message"].as_str().unwrap().contains("queued"),
        "{v}"
    );
}

#[test]
fn cancel_stops_a_waiting_document_tells_the_webhooks_and_is_final() {
    let s = Server::start(); // no workers: documents stay queued
    let admin = sign_in(&s, ALPHA_ADMIN);
    let id = send(&s, ALPHA, "acme-retail", "850", &po("PO-C1"));
    let other = send(&s, ALPHA, "acme-retail", "850", &po("PO-C2"));
    let r = s
        .client
        .post(format!("{}/api/v1/transactions/{id}/cancel", s.base))
        .header("cookie", &admin.cookie)
        .send()
        .unwrap();
    error_body(r, 403, "CSRF_TOKEN_INVALID");
    let v = admin.ok(
        Method::POST,
        &format!("/api/v1/transactions/{id}/cancel"),
        None,
        200,
    );
    assert_eq!(v["status"], "canceled");
    let t = s.transaction(&id);
    assert_eq!(t["status"], "canceled");
    assert_eq!(t["failureReason"], "canceled by admin@alpha.example");
    let last = t["statusHistory"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["status"], "canceled");
    // The customer's endpoint is told, as of any document that will not be sent.
    let hooks = t["webhookDeliveries"].as_array().unwrap();
    assert_eq!(hooks.len(), 1, "{hooks:?}");
    assert_eq!(hooks[0]["event"], "document.error");
    // Final: neither canceled again nor resent.
    error_body(
        s.post(&format!("/api/v1/transactions/{id}/cancel"), ALPHA)
            .send()
            .unwrap(),
        409,
        "NOT_CANCELABLE",
    );
    error_body(
        s.post(&format!("/api/v1/transactions/{id}/resend"), ALPHA)
            .send()
            .unwrap(),
        409,
        "NOT_RESENDABLE",
    );
    error_body(
        s.post(&format!("/api/v1/transactions/{other}/cancel"), BETA)
            .send()
            .unwrap(),
        404,
        "TRANSACTION_NOT_FOUND",
    );
    // A key holder cancels too; both are audited, each as who did it.
    let r = s
        .post(&format!("/api/v1/transactions/{other}/cancel"), ALPHA)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let audit = audited(&admin, "document.cancel");
    assert_eq!(audit.len(), 2);
    assert_eq!(audit[0]["actor"]["name"], "API key demo");
    assert_eq!(audit[0]["target"], other.as_str());
    assert_eq!(audit[1]["actor"]["name"], "admin@alpha.example");
    let stats = s.stats();
    assert_eq!(stats["documents"]["canceled"], 2);
    assert_eq!(stats["queues"]["toValidate"], 0);
    assert_eq!(ids(&list(&s, "?status=canceled")).len(), 2);
}

#[test]
fn failed_webhook_deliveries_are_listed_and_redelivered_by_people_only() {
    // Two attempts per delivery (one retry), both refused by the receiver; the third takes.
    let receiver = Receiver::start(&[ALPHA_SECRET], 2);
    let mut options = Options::lifecycle("", &receiver.url);
    options.partner = None;
    options.workers_toml = "enabled = true\npoll_ms = 50\nconcurrency = 16\nwebhook_retry_ms = [100]\nwebhook_timeout_ms = 5000\n".into();
    let s = Server::start_with(options);
    let admin = sign_in(&s, ALPHA_ADMIN);
    let id = send(&s, ALPHA, "acme-retail", "850", &po("PO-W1"));
    s.wait_status(&id, &["routed"], 30);
    let failed = wait_for(30, "two failed deliveries", || {
        let v = admin.get("/api/deliveries?state=failed");
        (v["data"].as_array().unwrap().len() == 2).then_some(v)
    });
    let log = failed["data"].as_array().unwrap();
    assert_eq!(log[0]["documentId"], id.as_str());
    assert!(
        log.iter()
            .all(|d| d["attempts"] == 2 && d["attemptLog"].as_array().unwrap().len() == 2)
    );
    let events: Vec<&str> = log.iter().map(|d| d["event"].as_str().unwrap()).collect();
    assert_eq!(
        events,
        ["document.routed", "document.validated"],
        "newest first"
    );
    assert_eq!(s.stats()["attention"]["webhookDeliveriesFailed"], 2);
    let endpoint = log[0]["endpointId"].as_str().unwrap().to_string();
    assert_eq!(
        admin.get(&format!("/api/deliveries?endpointId={endpoint}&limit=1"))["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let page = admin.get(&format!("/api/deliveries?documentId={id}&limit=1"));
    let next = page["nextCursor"].as_str().unwrap();
    let rest = admin.get(&format!(
        "/api/deliveries?documentId={id}&limit=1&cursor={next}"
    ));
    assert_ne!(rest["data"][0]["id"], page["data"][0]["id"]);
    // A member redelivers: one more attempt, the same delivery id, delivered now.
    let member = admin.ok(
        Method::POST,
        "/api/settings/users",
        Some(json!({"email": "ops@alpha.example", "role": "member", "password": "a member password"})),
        201,
    );
    assert_eq!(member["role"], "member");
    let ops = sign_in(&s, ("ops@alpha.example", "a member password"));
    let delivery = log[1]["id"].as_str().unwrap().to_string();
    let v = ops.ok(
        Method::POST,
        &format!("/api/deliveries/{delivery}/redeliver"),
        None,
        200,
    );
    assert_eq!(v["state"], "pending");
    let done = wait_for(30, "the redelivery", || {
        let v = admin.get(&format!("/api/deliveries?documentId={id}"));
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["id"] == delivery.as_str() && d["state"] == "delivered")
            .cloned()
    });
    assert_eq!(done["attempts"], 3);
    assert_eq!(done["attemptLog"][2]["result"], "delivered");
    let got: Vec<Value> = receiver.received();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["deliveryId"], delivery.as_str());
    let audit = audited(&admin, "delivery.redeliver");
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0]["actor"]["name"], "ops@alpha.example");
    assert_eq!(audit[0]["before"]["state"], "failed");
    // Dashboard only: an API key is refused; another account's delivery is not found.
    let r = s
        .client
        .post(format!("{}/api/deliveries/{delivery}/redeliver", s.base))
        .bearer_auth(ALPHA)
        .send()
        .unwrap();
    error_body(r, 401, "UNAUTHORIZED");
    let beta = sign_in(&s, BETA_ADMIN);
    error_body(
        beta.call(
            Method::POST,
            &format!("/api/deliveries/{delivery}/redeliver"),
            None,
        ),
        404,
        "DELIVERY_NOT_FOUND",
    );
    assert!(
        beta.get("/api/deliveries")["data"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // A disabled endpoint would get nothing: said before anything changes.
    let hook = admin.get(&format!("/api/settings/webhooks/{endpoint}"))["data"].clone();
    admin.ok(
        Method::PUT,
        &format!("/api/settings/webhooks/{endpoint}"),
        Some(json!({"url": hook["url"], "events": [], "enabled": false})),
        200,
    );
    let other = log[0]["id"].as_str().unwrap();
    error_body(
        admin.call(
            Method::POST,
            &format!("/api/deliveries/{other}/redeliver"),
            None,
        ),
        409,
        "WEBHOOK_DISABLED",
    );
    for (query, param) in [("?state=lost", "state"), ("?limit=0", "limit")] {
        let v = error_body(
            admin.call(Method::GET, &format!("/api/deliveries{query}"), None),
            400,
            "INVALID_QUERY",
        );
        assert_eq!(v["error"]["details"][0]["pointer"], param);
    }
    error_body(
        admin.call(Method::GET, "/api/deliveries?cursor=bm9wZQ", None),
        400,
        "INVALID_CURSOR",
    );
}

#[test]
fn stats_count_what_needs_attention_and_the_documents_created_since_a_time() {
    let s = Server::start();
    send(&s, ALPHA, "acme-retail", "850", &po("PO-T1"));
    send(&s, ALPHA, "acme-retail", "850", &po("PO-T2"));
    let all = s.stats();
    assert_eq!(all["documents"]["queued"], 2);
    assert!(all.get("created").is_none());
    for key in [
        "failed",
        "rejectedByPartner",
        "acknowledgementOverdue",
        "webhookDeliveriesFailed",
    ] {
        assert_eq!(all["attention"][key], 0, "{key}");
    }
    let v: Value = s
        .get("/api/v1/stats?since=2000-01-01", ALPHA)
        .json()
        .unwrap();
    assert_eq!(v["data"]["created"]["documents"]["queued"], 2);
    assert_eq!(v["data"]["created"]["since"], "2000-01-01T00:00:00.000Z");
    let v: Value = s
        .get("/api/v1/stats?since=2999-01-01T00:00:00Z", ALPHA)
        .json()
        .unwrap();
    assert_eq!(v["data"]["created"]["documents"]["queued"], 0);
    assert_eq!(v["data"]["documents"]["queued"], 2, "the totals stay");
    error_body(
        s.get("/api/v1/stats?since=soon", ALPHA),
        400,
        "INVALID_QUERY",
    );
    let beta: Value = s
        .get("/api/v1/stats?since=2000-01-01", BETA)
        .json()
        .unwrap();
    assert_eq!(beta["data"]["created"]["documents"]["queued"], 0);
}
