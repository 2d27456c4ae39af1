//! The settings side against the real binary: sign-in, sessions, lockout, CSRF,
//! roles, scoping, API keys, partners, webhook endpoints (signed deliveries,
//! rotation), the audit log, secrets at rest, live changes across two processes
//! on one store, the configuration import, `settings export` and the console.
//! On SQLite by default; on PostgreSQL when `X12KIT_TEST_POSTGRES` is set
//! (examples/server/test.sh runs this file both ways).

mod common;

use common::partner::Partner;
use common::session::*;
use common::*;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn profile() -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("examples/partners/acme-retail.json")).unwrap(),
    )
    .unwrap()
}

/// The second process on the first one's store (same database, same secret key).
fn second(first: &Server, workers: bool) -> Server {
    Server::start_with(Options {
        database: Some(first.database()),
        workers,
        ..first.options()
    })
}

#[test]
fn sign_in_sets_a_strict_cookie_and_sign_out_ends_the_session_on_the_server() {
    let s = Server::start();
    let r = login(&s, "ADMIN@alpha.example ", "alpha-demo-password");
    assert_eq!(r.status(), 200);
    let set = r.headers()["set-cookie"].to_str().unwrap().to_string();
    for part in [
        "x12kit_session=",
        "HttpOnly",
        "SameSite=Strict",
        "Path=/",
        "Max-Age=43200",
    ] {
        assert!(set.contains(part), "{set}");
    }
    assert!(!set.contains("Secure"), "plain HTTP: {set}");
    assert_eq!(r.headers()["cache-control"], "no-store");
    let cookie = cookie_of(&r);
    let v: Value = r.json().unwrap();
    assert_eq!(v["data"]["account"], "alpha");
    assert_eq!(v["data"]["user"]["email"], "admin@alpha.example");
    assert_eq!(v["data"]["user"]["role"], "admin");
    let me = Session {
        s: &s,
        cookie: cookie.clone(),
        csrf: v["data"]["csrfToken"].as_str().unwrap().into(),
    };
    assert_eq!(
        me.get("/api/auth/me")["data"]["csrfToken"],
        v["data"]["csrfToken"]
    );
    // Session fixation: a sign-in with a session cookie makes a new id and ends the old one.
    let again = s
        .client
        .post(format!("{}/api/auth/login", s.base))
        .header("cookie", &cookie)
        .header("content-type", "application/json")
        .body(json!({"email": ALPHA_ADMIN.0, "password": ALPHA_ADMIN.1}).to_string())
        .send()
        .unwrap();
    assert_eq!(again.status(), 200);
    let fresh = cookie_of(&again);
    assert_ne!(fresh, cookie, "the session id changes at sign-in");
    error_body(
        me.call(Method::GET, "/api/auth/me", None),
        401,
        "UNAUTHORIZED",
    );
    let old_csrf = me.csrf.clone();
    let v: Value = again.json().unwrap();
    let me = Session {
        s: &s,
        cookie: fresh,
        csrf: v["data"]["csrfToken"].as_str().unwrap().into(),
    };
    assert_ne!(me.csrf, old_csrf, "the CSRF token is the session's");
    // Sign-out needs the CSRF token, then the cookie is worthless.
    let no_csrf = s
        .client
        .post(format!("{}/api/auth/logout", s.base))
        .header("cookie", &me.cookie)
        .send()
        .unwrap();
    error_body(no_csrf, 403, "CSRF_TOKEN_INVALID");
    let out = me.call(Method::POST, "/api/auth/logout", None);
    assert_eq!(out.status(), 200);
    assert!(
        out.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
    let r = me.call(Method::GET, "/api/settings/keys", None);
    assert!(
        r.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Cookie")
    );
    error_body(r, 401, "UNAUTHORIZED");
    // Bad bodies have the one error body.
    for (body, ctype, status, code) in [
        ("{", "application/json", 400, "INVALID_JSON"),
        (
            "{\"email\": \"a@b\"}",
            "application/json",
            400,
            "INVALID_REQUEST",
        ),
        (
            "{\"email\": \"a@b\", \"password\": \"x\", \"remember\": true}",
            "application/json",
            400,
            "INVALID_REQUEST",
        ),
        ("[]", "application/json", 400, "INVALID_REQUEST"),
        (
            "email=a",
            "application/x-www-form-urlencoded",
            415,
            "UNSUPPORTED_MEDIA_TYPE",
        ),
    ] {
        let r = s
            .client
            .post(format!("{}/api/auth/login", s.base))
            .header("content-type", ctype)
            .body(body)
            .send()
            .unwrap();
        error_body(r, status, code);
    }
}

#[test]
fn a_wrong_address_and_a_wrong_password_get_the_same_answer_in_about_the_same_time() {
    let s = Server::start();
    let mut times = [Vec::new(), Vec::new()];
    let mut bodies = Vec::new();
    for round in 0..4 {
        for (i, email) in [
            format!("nobody{round}@alpha.example"),
            "admin@beta.example".to_string(),
        ]
        .iter()
        .enumerate()
        {
            let started = Instant::now();
            let r = login(&s, email, "not-the-password!");
            times[i].push(started.elapsed());
            let v = error_body(r, 401, "INVALID_CREDENTIALS");
            bodies.push(v["error"].clone());
        }
    }
    assert!(bodies.windows(2).all(|w| w[0] == w[1]), "{bodies:?}");
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64()
    };
    let (unknown, known) = (median(&mut times[0]), median(&mut times[1]));
    // Both hash a password (an unknown address against a dummy hash): same order of time.
    assert!(
        unknown > known / 3.0 && unknown < known * 3.0,
        "unknown {unknown} s, known {known} s"
    );
}

#[test]
fn five_failures_lock_the_address_for_everyone_until_the_lock_ends() {
    let s = Server::start_with(Options {
        auth_toml: Some("lockout_failures = 5\nlockout_seconds = 3\n".into()),
        ..Options::default()
    });
    let other = second(&s, false);
    // A success resets the count: 4 failures, a success, 4 failures do not lock.
    for _ in 0..4 {
        error_body(
            login(&s, ALPHA_ADMIN.0, "wrong-password!"),
            401,
            "INVALID_CREDENTIALS",
        );
    }
    assert_eq!(login(&s, ALPHA_ADMIN.0, ALPHA_ADMIN.1).status(), 200);
    for i in 0..5 {
        // Failures in either process count for the address (the store keeps them).
        let p = if i % 2 == 0 { &s } else { &other };
        error_body(
            login(p, ALPHA_ADMIN.0, "wrong-password!"),
            401,
            "INVALID_CREDENTIALS",
        );
    }
    let locked_at = Instant::now();
    for p in [&s, &other] {
        let r = login(p, ALPHA_ADMIN.0, ALPHA_ADMIN.1);
        let retry: u64 = r.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=3).contains(&retry), "{retry}");
        let v = error_body(r, 429, "LOGIN_LOCKED");
        assert!(
            v["error"]["lockedUntil"].as_str().unwrap().ends_with('Z'),
            "{v}"
        );
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("locked until")
        );
    }
    // Another address is not locked.
    assert_eq!(login(&s, BETA_ADMIN.0, BETA_ADMIN.1).status(), 200);
    // An unknown address locks the same way (a lock says nothing about who exists).
    for _ in 0..5 {
        error_body(
            login(&s, "ghost@alpha.example", "wrong-password!"),
            401,
            "INVALID_CREDENTIALS",
        );
    }
    error_body(
        login(&s, "ghost@alpha.example", "wrong-password!"),
        429,
        "LOGIN_LOCKED",
    );
    // The lock ends.
    std::thread::sleep(
        Duration::from_secs(3).saturating_sub(locked_at.elapsed()) + Duration::from_millis(300),
    );
    assert_eq!(login(&other, ALPHA_ADMIN.0, ALPHA_ADMIN.1).status(), 200);
}

#[test]
fn guesses_sent_at_once_get_no_more_tries_than_the_lockout_allows() {
    // 24 wrong passwords at the same moment, over two processes: each attempt is
    // counted before its password is checked, so only the first five are checked and
    // the rest are locked out (counting after the check let all 24 through).
    let s = Server::start_with(Options {
        auth_toml: Some("lockout_failures = 5\nlockout_seconds = 60\n".into()),
        ..Options::default()
    });
    let other = second(&s, false);
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..24)
            .map(|i| {
                let p = if i % 2 == 0 { &s } else { &other };
                scope.spawn(move || {
                    login(p, ALPHA_ADMIN.0, &format!("wrong-password-{i}"))
                        .status()
                        .as_u16()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let checked = statuses.iter().filter(|&&c| c == 401).count();
    let locked = statuses.iter().filter(|&&c| c == 429).count();
    assert_eq!((checked, locked), (5, 19), "{statuses:?}");
    // And the right password waits for the lock too.
    error_body(login(&s, ALPHA_ADMIN.0, ALPHA_ADMIN.1), 429, "LOGIN_LOCKED");
}

#[test]
fn a_per_address_limit_guards_sign_in_against_spraying_many_users() {
    let s = Server::start_with(Options {
        login_per_ip: 5,
        ..Options::default()
    });
    for i in 0..5 {
        let r = login(&s, &format!("user{i}@alpha.example"), "some-password-1");
        assert_eq!(r.status(), 401);
        assert_eq!(r.headers()["x-ratelimit-limit"], "5");
    }
    let r = login(&s, "user9@alpha.example", "some-password-1");
    assert!(r.headers().contains_key("retry-after"));
    error_body(r, 429, "RATE_LIMITED");
    // Even the right password waits: the limit comes first.
    error_body(login(&s, ALPHA_ADMIN.0, ALPHA_ADMIN.1), 429, "RATE_LIMITED");
}

#[test]
fn sessions_expire_when_idle_and_at_their_absolute_limit() {
    let s = Server::start_with(Options {
        auth_toml: Some("session_idle_seconds = 1\nsession_absolute_seconds = 3\n".into()),
        ..Options::default()
    });
    let a = sign_in(&s, ALPHA_ADMIN);
    std::thread::sleep(Duration::from_millis(1300));
    let r = a.call(Method::GET, "/api/auth/me", None);
    assert!(
        r.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
    error_body(r, 401, "SESSION_EXPIRED");
    // Used all the time, a session still ends at its absolute limit. (The idle limit is
    // checked against the last use noted, at most every 15 s: under 1 s idle, so it holds.)
    // The session is created after `before` and before `signed_in`: a call answered
    // before `before` + 3 s was checked before it could have expired, and one sent
    // after `signed_in` + 3 s is checked after it did, however slow the machine.
    let s = Server::start_with(Options {
        auth_toml: Some("session_idle_seconds = 60\nsession_absolute_seconds = 3\n".into()),
        ..Options::default()
    });
    let before = Instant::now();
    let b = sign_in(&s, ALPHA_ADMIN);
    let signed_in = Instant::now();
    let mut answered = 0;
    while before.elapsed() < Duration::from_millis(2500) {
        let status = b.call(Method::GET, "/api/auth/me", None).status();
        if before.elapsed() < Duration::from_secs(3) {
            assert_eq!(status, 200);
            answered += 1;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        answered > 0,
        "no call was answered within the session's life"
    );
    std::thread::sleep(
        (signed_in + Duration::from_millis(3100)).saturating_duration_since(Instant::now()),
    );
    error_body(
        b.call(Method::GET, "/api/auth/me", None),
        401,
        "SESSION_EXPIRED",
    );
}

#[test]
fn changes_need_the_csrf_token_an_admin_and_never_an_api_key() {
    let s = Server::start();
    let admin = sign_in(&s, ALPHA_ADMIN);
    // No token, a wrong one, another session's.
    let other = sign_in(&s, BETA_ADMIN);
    for token in [None, Some("nope"), Some(other.csrf.as_str())] {
        let mut r = s
            .client
            .post(format!("{}/api/settings/keys", s.base))
            .header("cookie", &admin.cookie)
            .header("content-type", "application/json")
            .body(r#"{"name": "x"}"#);
        if let Some(t) = token {
            r = r.header("x-csrf-token", t);
        }
        error_body(r.send().unwrap(), 403, "CSRF_TOKEN_INVALID");
    }
    // A bearer key is refused on these routes, alone or beside a good session.
    for with_cookie in [false, true] {
        let mut r = s
            .client
            .get(format!("{}/api/settings/keys", s.base))
            .bearer_auth(ALPHA);
        if with_cookie {
            r = r.header("cookie", &admin.cookie);
        }
        error_body(r.send().unwrap(), 401, "UNAUTHORIZED");
    }
    error_body(
        s.client
            .post(format!("{}/api/auth/login", s.base))
            .bearer_auth(ALPHA)
            .send()
            .unwrap(),
        401,
        "UNAUTHORIZED",
    );
    // A member reads and changes nothing.
    let made = admin.ok(
        Method::POST,
        "/api/settings/users",
        Some(json!({"email": "Member@Alpha.example", "role": "member", "password": "member-password-1"})),
        201,
    );
    assert_eq!(made["email"], "member@alpha.example");
    assert!(made.get("password").is_none());
    let member = sign_in(&s, ("member@alpha.example", "member-password-1"));
    assert_eq!(member.get("/api/settings/keys")["ok"], true);
    assert_eq!(
        member.get("/api/settings/partners")["data"][0]["id"],
        "acme-retail"
    );
    assert_eq!(member.get("/api/settings/audit")["ok"], true);
    error_body(
        member.call(
            Method::POST,
            "/api/settings/keys",
            Some(json!({"name": "m"})),
        ),
        403,
        "FORBIDDEN",
    );
    error_body(
        member.call(Method::DELETE, "/api/settings/partners/acme-retail", None),
        403,
        "FORBIDDEN",
    );
    error_body(
        member.call(Method::GET, "/api/settings/users", None),
        403,
        "FORBIDDEN",
    );
    // Passwords under 12 characters are refused; a made one is shown once.
    let v = error_body(
        admin.call(
            Method::POST,
            "/api/settings/users",
            Some(json!({"email": "x@alpha.example", "password": "elevenchars"})),
        ),
        422,
        "INVALID_SETTINGS",
    );
    assert_eq!(v["error"]["details"][0]["code"], "PASSWORD_TOO_SHORT");
    assert_eq!(v["error"]["details"][0]["pointer"], "/password");
    let made = admin.ok(
        Method::POST,
        "/api/settings/users",
        Some(json!({"email": "y@alpha.example"})),
        201,
    );
    let password = made["password"].as_str().unwrap();
    assert!(password.len() >= 12);
    assert_eq!(login(&s, "y@alpha.example", password).status(), 200);
    error_body(
        admin.call(
            Method::POST,
            "/api/settings/users",
            Some(json!({"email": "y@alpha.example"})),
        ),
        409,
        "EMAIL_TAKEN",
    );
    // An admin cannot demote themselves; disabling a member ends their session.
    let me = admin.get("/api/auth/me")["data"]["user"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    error_body(
        admin.call(
            Method::PUT,
            &format!("/api/settings/users/{me}"),
            Some(json!({"role": "member"})),
        ),
        409,
        "SELF_LOCKOUT",
    );
    let id = made["id"].as_str().unwrap();
    let y = sign_in(&s, ("y@alpha.example", password));
    let v = admin.ok(
        Method::PUT,
        &format!("/api/settings/users/{id}"),
        Some(json!({"disabled": true})),
        200,
    );
    assert_eq!(v["disabled"], true);
    error_body(
        y.call(Method::GET, "/api/auth/me", None),
        401,
        "UNAUTHORIZED",
    );
    error_body(
        login(&s, "y@alpha.example", password),
        401,
        "INVALID_CREDENTIALS",
    );
}

#[test]
fn another_accounts_ids_are_404_under_an_id_scan() {
    let s = Server::start();
    let alpha = sign_in(&s, ALPHA_ADMIN);
    let beta = sign_in(&s, BETA_ADMIN);
    let key = alpha.ok(
        Method::POST,
        "/api/settings/keys",
        Some(json!({"name": "k"})),
        201,
    );
    let hook = alpha.ok(
        Method::POST,
        "/api/settings/webhooks",
        Some(json!({"url": "http://127.0.0.1:9/h"})),
        201,
    );
    let users = alpha.get("/api/settings/users")["data"].clone();
    let ids = [
        (
            "keys",
            key["id"].as_str().unwrap().to_string(),
            "KEY_NOT_FOUND",
        ),
        (
            "webhooks",
            hook["id"].as_str().unwrap().to_string(),
            "WEBHOOK_NOT_FOUND",
        ),
        ("partners", "acme-retail".to_string(), "PARTNER_NOT_FOUND"),
        (
            "users",
            users[0]["id"].as_str().unwrap().to_string(),
            "USER_NOT_FOUND",
        ),
    ];
    for (kind, id, code) in &ids {
        let path = format!("/api/settings/{kind}/{id}");
        let good = match *kind {
            "webhooks" => json!({"url": "http://127.0.0.1:9/x"}),
            "partners" => json!({"profile": profile()}),
            _ => json!({"role": "member"}),
        };
        for (method, body) in [
            (Method::GET, None),
            (Method::PUT, Some(good)),
            (Method::DELETE, None),
        ] {
            let r = beta.call(method.clone(), &path, body);
            if r.status() == 405 {
                continue; // the route has no such method (keys have no GET/PUT)
            }
            let v: Value = r.json().unwrap();
            assert_eq!(v["error"]["code"], *code, "{method} {path} by beta: {v}");
        }
        // And for made-up ids of every shape.
        for bogus in ["x", "key_00000000000000000000000000000000", "..", "a%2Fb"] {
            let r = beta.call(
                Method::DELETE,
                &format!("/api/settings/{kind}/{bogus}"),
                None,
            );
            assert!(
                r.status() == 404 || r.status() == 405,
                "{kind}/{bogus}: {}",
                r.status()
            );
        }
    }
    for list in ["keys", "webhooks", "partners", "users", "audit"] {
        let text = beta.get(&format!("/api/settings/{list}")).to_string();
        for (_, id, _) in &ids {
            assert!(!text.contains(id.as_str()), "beta's {list} shows {id}");
        }
    }
    // Unchanged by beta's attempts.
    assert!(
        alpha
            .get("/api/settings/webhooks")
            .to_string()
            .contains(hook["id"].as_str().unwrap())
    );
    assert_eq!(
        alpha.get("/api/settings/partners/acme-retail")["data"]["version"],
        1
    );
}

#[test]
fn a_key_made_in_one_process_works_in_the_other_and_is_refused_there_within_a_second_of_its_revocation()
 {
    let a = Server::start();
    let b = second(&a, false);
    let admin = sign_in(&a, ALPHA_ADMIN);
    let made = admin.ok(
        Method::POST,
        "/api/settings/keys",
        Some(json!({"name": "erp"})),
        201,
    );
    let key = made["key"].as_str().unwrap().to_string();
    assert!(key.starts_with("x12k_") && key.len() == 48, "{key}");
    assert_eq!(made["prefix"], key[..11]);
    assert_eq!(
        a.get("/api/v1/transactions", &key).status(),
        200,
        "at once in the process that made it"
    );
    let started = Instant::now();
    wait_for(2, "the key in the other process", || {
        (b.get("/api/v1/transactions", &key).status() == 200).then_some(())
    });
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    let listed = admin.get("/api/settings/keys")["data"].clone();
    assert!(
        !listed.to_string().contains(&key),
        "a list never shows a key"
    );
    // Revoked in A: refused in A at once, in B within a second.
    let id = made["id"].as_str().unwrap();
    let v = admin.ok(
        Method::DELETE,
        &format!("/api/settings/keys/{id}"),
        None,
        200,
    );
    assert!(v["revokedAt"].is_string());
    error_body(a.get("/api/v1/transactions", &key), 401, "UNAUTHORIZED");
    let started = Instant::now();
    wait_for(2, "the revocation in the other process", || {
        (b.get("/api/v1/transactions", &key).status() == 401).then_some(())
    });
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    error_body(
        admin.call(Method::DELETE, &format!("/api/settings/keys/{id}"), None),
        409,
        "KEY_REVOKED",
    );
    // The demo key imported from the file shows no prefix (only its hash was known); its
    // last use is noted.
    assert_eq!(b.get("/api/v1/transactions", ALPHA).status(), 200);
    wait_for(10, "last use of the demo key", || {
        admin.get("/api/settings/keys")["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["name"] == "demo" && k["prefix"].is_null() && k["lastUsedAt"].is_string())
            .cloned()
    });
}

#[test]
fn a_partner_made_in_one_process_takes_documents_in_the_other_and_bad_ones_say_every_problem() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let a = Server::start();
    let b = second(&a, true);
    let admin = sign_in(&a, ALPHA_ADMIN);
    // Every problem at once, with its pointer: the core's problems of the profile, the
    // transport's, the id.
    let mut bad = profile();
    bad["sender"]["qualifier"] = json!("??");
    bad["version"] = json!("999999");
    let v = error_body(
        admin.call(
            Method::POST,
            "/api/settings/partners",
            Some(json!({"id": "bad id!", "profile": bad, "transport": {"kind": "http", "url": "ftp://x"}})),
        ),
        422,
        "INVALID_SETTINGS",
    );
    let pointers: Vec<&str> = v["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["pointer"].as_str().unwrap())
        .collect();
    assert!(pointers.contains(&"/id"), "{v}");
    assert!(pointers.contains(&"/transport/url"), "{v}");
    assert!(pointers.iter().any(|p| p.starts_with("/profile/")), "{v}");
    let v = error_body(
        admin.call(
            Method::POST,
            "/api/settings/partners",
            Some(json!({"id": "p", "profile": profile(), "extra": 1, "ackWindowSeconds": "x"})),
        ),
        400,
        "INVALID_REQUEST",
    );
    assert_eq!(v["error"]["details"].as_array().unwrap().len(), 2, "{v}");
    error_body(admin.call(Method::POST, "/api/settings/partners", Some(json!({"id": "p", "profile": profile(), "transport": {"kind": "directory", "outbox": "../../etc"}}))), 422, "INVALID_SETTINGS");
    // A good one, reached over HTTP with a credential header.
    let body = json!({
        "id": "globex",
        "profile": profile(),
        "transport": {"kind": "http", "url": partner.url, "headers": {"X-Partner-Key": "globex-credential-77"}, "backoffMs": 50},
        "acknowledgeInbound": "999",
    });
    let p = admin.ok(
        Method::POST,
        "/api/settings/partners",
        Some(body.clone()),
        201,
    );
    assert_eq!(p["version"], 1);
    assert_eq!(p["transport"]["headers"]["X-Partner-Key"], "********");
    error_body(
        admin.call(Method::POST, "/api/settings/partners", Some(body)),
        409,
        "PARTNER_EXISTS",
    );
    // The other process takes documents for it within a second, and routes them with the
    // credential.
    let started = Instant::now();
    let id = wait_for(2, "the partner in the other process", || {
        let r = b.send("/api/v1", ALPHA, "globex", "850", &payload("850"));
        (r.status() == 202).then(|| {
            r.json::<Value>().unwrap()["documentId"]
                .as_str()
                .unwrap()
                .to_string()
        })
    });
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    b.wait_status(&id, &["routed"], 30);
    let got = partner.received();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].partner_key, "globex-credential-77");
    // A change sent back with "********" keeps the credential; its version goes up.
    let mut edit = admin.get("/api/settings/partners/globex")["data"].clone();
    edit["ackWindowSeconds"] = json!(3600);
    let p = admin.ok(
        Method::PUT,
        "/api/settings/partners/globex",
        Some(edit.clone()),
        200,
    );
    assert_eq!(p["version"], 2);
    assert_eq!(p["ackWindowSeconds"], 3600);
    error_body(
        admin.call(Method::PUT, "/api/settings/partners/globex", Some(edit)),
        409,
        "VERSION_CONFLICT",
    );
    std::thread::sleep(Duration::from_millis(700)); // B has the new acknowledgement window
    let id2 = b
        .send("/api/v1", ALPHA, "globex", "850", &payload("850"))
        .json::<Value>()
        .unwrap()["documentId"]
        .as_str()
        .unwrap()
        .to_string();
    wait_for(30, "the second document routed", || {
        (partner.received().len() == 2).then_some(())
    });
    assert_eq!(partner.received()[1].partner_key, "globex-credential-77");
    // Awaiting its acknowledgement: in flight, so it cannot be deleted, only disabled.
    b.wait_status(&id2, &["routed"], 30);
    let v = error_body(
        admin.call(Method::DELETE, "/api/settings/partners/globex", None),
        409,
        "PARTNER_IN_USE",
    );
    assert!(v["error"]["message"].as_str().unwrap().contains("disable"));
    let mut off = admin.get("/api/settings/partners/globex")["data"].clone();
    off["enabled"] = json!(false);
    off.as_object_mut().unwrap().remove("version");
    admin.ok(Method::PUT, "/api/settings/partners/globex", Some(off), 200);
    wait_for(2, "the disabled partner in the other process", || {
        (b.send("/api/v1", ALPHA, "globex", "850", &payload("850"))
            .status()
            == 409)
            .then_some(())
    });
    error_body(
        b.send("/api/v1", ALPHA, "globex", "850", &payload("850")),
        409,
        "PARTNER_DISABLED",
    );
    // A partner without documents goes; the other process no longer knows it.
    admin.ok(
        Method::POST,
        "/api/settings/partners",
        Some(json!({"id": "initech", "profile": profile()})),
        201,
    );
    admin.ok(Method::DELETE, "/api/settings/partners/initech", None, 200);
    wait_for(2, "the deleted partner", || {
        (b.send("/api/v1", ALPHA, "initech", "850", &payload("850"))
            .status()
            == 404)
            .then_some(())
    });
}

#[test]
fn webhook_endpoints_get_signed_deliveries_through_a_rotation_and_nothing_once_disabled() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    // A makes the changes (API only), B runs the workers: what A changes, B's deliveries obey.
    let a = Server::start_with(Options {
        workers: false,
        ..Options::lifecycle(
            &http_partner(&partner.url, None),
            "http://127.0.0.1:9/unused",
        )
    });
    let b = second(&a, true);
    let admin = sign_in(&a, ALPHA_ADMIN);
    // The demo endpoint (imported) goes; a new one is made and answered with its secret once.
    let old = admin.get("/api/settings/webhooks")["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    admin.ok(
        Method::DELETE,
        &format!("/api/settings/webhooks/{old}"),
        None,
        200,
    );
    for (body, code) in [
        (json!({"url": "ftp://127.0.0.1/x"}), "INVALID_SETTINGS"),
        (json!({"url": "javascript:alert(1)"}), "INVALID_SETTINGS"),
        (
            json!({"url": "http://127.0.0.1:9/x", "events": ["document.nope"]}),
            "INVALID_SETTINGS",
        ),
        (json!({"url": 5}), "INVALID_REQUEST"),
        (json!({}), "INVALID_REQUEST"),
    ] {
        let r = admin.call(Method::POST, "/api/settings/webhooks", Some(body));
        let status = if code == "INVALID_SETTINGS" { 422 } else { 400 };
        error_body(r, status, code);
    }
    let made = admin.ok(
        Method::POST,
        "/api/settings/webhooks",
        Some(json!({"url": "http://127.0.0.1:9/placeholder"})),
        201,
    );
    let first_secret = made["secret"].as_str().unwrap().to_string();
    assert!(first_secret.starts_with("whsec_"));
    assert!(
        admin
            .get("/api/settings/webhooks")
            .to_string()
            .find(&first_secret)
            .is_none()
    );
    let id = made["id"].as_str().unwrap().to_string();
    let old_only = Receiver::start(&[&first_secret], 0);
    admin.ok(
        Method::PUT,
        &format!("/api/settings/webhooks/{id}"),
        Some(json!({"url": old_only.url})),
        200,
    );
    // A test delivery, signed, answered with what the endpoint said.
    let t = admin.ok(
        Method::POST,
        &format!("/api/settings/webhooks/{id}/test"),
        None,
        200,
    );
    assert_eq!(t["httpStatus"], 200, "{t}");
    assert_eq!(t["result"], "delivered");
    assert!(
        t["responseBody"].as_str().unwrap().contains("\"ok\":true"),
        "{t}"
    );
    // Deliveries of the other process, signed: the receiver verifies each.
    std::thread::sleep(Duration::from_millis(700));
    let doc = b
        .send("/api/v1", ALPHA, "acme-retail", "850", &payload("850"))
        .json::<Value>()
        .unwrap()["documentId"]
        .as_str()
        .unwrap()
        .to_string();
    let seen = |r: &Receiver, doc: &str, n: usize| {
        wait_for(30, "verified deliveries", || {
            let got: Vec<Value> = r
                .received()
                .into_iter()
                .filter(|d| d["data"]["documentId"] == doc)
                .collect();
            (got.len() >= n).then_some(got)
        })
    };
    seen(&old_only, &doc, 2);
    // Rotation: the new secret signs beside the old one during the overlap; a receiver that
    // knows only the old one and one that knows only the new one both verify.
    let rotated = admin.ok(
        Method::POST,
        &format!("/api/settings/webhooks/{id}/rotate-secret"),
        Some(json!({"overlapSeconds": 600})),
        200,
    );
    let new_secret = rotated["secret"].as_str().unwrap().to_string();
    assert_ne!(new_secret, first_secret);
    assert_eq!(rotated["secrets"].as_array().unwrap().len(), 2);
    assert!(rotated["secrets"][1]["expiresAt"].is_string());
    std::thread::sleep(Duration::from_millis(700));
    let doc = b
        .send("/api/v1", ALPHA, "acme-retail", "850", &payload("850"))
        .json::<Value>()
        .unwrap()["documentId"]
        .as_str()
        .unwrap()
        .to_string();
    seen(&old_only, &doc, 2);
    let new_only = Receiver::start(&[&new_secret], 0);
    admin.ok(
        Method::PUT,
        &format!("/api/settings/webhooks/{id}"),
        Some(json!({"url": new_only.url, "events": ["document.routed"]})),
        200,
    );
    std::thread::sleep(Duration::from_millis(700));
    let doc = b
        .send("/api/v1", ALPHA, "acme-retail", "850", &payload("850"))
        .json::<Value>()
        .unwrap()["documentId"]
        .as_str()
        .unwrap()
        .to_string();
    let got = seen(&new_only, &doc, 1);
    assert!(
        got.iter().all(|d| d["event"] == "document.routed"),
        "only the wanted kind: {got:?}"
    );
    // Without overlap, the old secret stops at once: a receiver on it refuses the test.
    let r2 = admin.ok(
        Method::POST,
        &format!("/api/settings/webhooks/{id}/rotate-secret"),
        Some(json!({"overlapSeconds": 0})),
        200,
    );
    let newest = r2["secret"].as_str().unwrap().to_string();
    let t = admin.ok(
        Method::POST,
        &format!("/api/settings/webhooks/{id}/test"),
        None,
        200,
    );
    assert_eq!(
        t["httpStatus"], 400,
        "the receiver knows only a retired secret: {t}"
    );
    assert!(
        t["responseBody"]
            .as_str()
            .unwrap()
            .contains("SIGNATURE_MISMATCH"),
        "{t}"
    );
    let newest_only = Receiver::start(&[&newest], 0);
    admin.ok(
        Method::PUT,
        &format!("/api/settings/webhooks/{id}"),
        Some(json!({"url": newest_only.url})),
        200,
    );
    assert_eq!(
        admin.ok(
            Method::POST,
            &format!("/api/settings/webhooks/{id}/test"),
            None,
            200
        )["httpStatus"],
        200
    );
    // Disabled: nothing more reaches it, from either process.
    admin.ok(
        Method::PUT,
        &format!("/api/settings/webhooks/{id}"),
        Some(json!({"url": newest_only.url, "enabled": false})),
        200,
    );
    std::thread::sleep(Duration::from_millis(700));
    let before = newest_only.received().len();
    let doc = b
        .send("/api/v1", ALPHA, "acme-retail", "850", &payload("850"))
        .json::<Value>()
        .unwrap()["documentId"]
        .as_str()
        .unwrap()
        .to_string();
    b.wait_status(&doc, &["routed"], 30);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(newest_only.received().len(), before);
    assert!(
        b.transaction(&doc)["webhookDeliveries"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// Every text of the store, for the secret check (SQLite: the database files' bytes;
/// PostgreSQL: every row of every table as text).
fn store_text(s: &Server) -> String {
    let db = s.database();
    if db.starts_with("postgres") {
        let mut c = postgres::Client::connect(&db, postgres::NoTls).unwrap();
        let tables: Vec<String> = c
            .query("SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'", &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let mut out = String::new();
        for t in tables {
            for r in c
                .query(&format!("SELECT t::text FROM \"{t}\" t"), &[])
                .unwrap()
            {
                out.push_str(&r.get::<_, String>(0));
                out.push('\n');
            }
        }
        out
    } else {
        let mut bytes = Vec::new();
        for suffix in ["", "-wal", "-shm"] {
            bytes.extend(std::fs::read(format!("{db}{suffix}")).unwrap_or_default());
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

#[test]
fn every_change_is_audited_and_no_secret_is_in_the_store_the_answers_or_the_logs() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let s = Server::start_with(Options {
        log_to_file: true,
        ..Options::default()
    });
    let admin = sign_in(&s, ALPHA_ADMIN);
    let mut secrets = vec![
        ALPHA_ADMIN.1.to_string(),
        admin.csrf.clone(),
        admin.cookie.split('=').nth(1).unwrap().to_string(),
    ];
    let key = admin.ok(
        Method::POST,
        "/api/settings/keys",
        Some(json!({"name": "audited"})),
        201,
    );
    secrets.push(key["key"].as_str().unwrap().to_string());
    admin.ok(
        Method::DELETE,
        &format!("/api/settings/keys/{}", key["id"].as_str().unwrap()),
        None,
        200,
    );
    let hook = admin.ok(
        Method::POST,
        "/api/settings/webhooks",
        Some(json!({"url": "http://127.0.0.1:9/audited"})),
        201,
    );
    secrets.push(hook["secret"].as_str().unwrap().to_string());
    let rotated = admin.ok(
        Method::POST,
        &format!(
            "/api/settings/webhooks/{}/rotate-secret",
            hook["id"].as_str().unwrap()
        ),
        None,
        200,
    );
    secrets.push(rotated["secret"].as_str().unwrap().to_string());
    admin.ok(
        Method::POST,
        "/api/settings/partners",
        Some(json!({"id": "umbrella", "profile": profile(), "transport": {"kind": "http", "url": partner.url, "headers": {"Authorization": "Bearer umbrella-partner-secret-41"}}})),
        201,
    );
    secrets.push("umbrella-partner-secret-41".into());
    let user = admin.ok(
        Method::POST,
        "/api/settings/users",
        Some(json!({"email": "aud@alpha.example", "password": "audited-password-9"})),
        201,
    );
    secrets.push("audited-password-9".into());
    admin.ok(
        Method::PUT,
        &format!("/api/settings/users/{}", user["id"].as_str().unwrap()),
        Some(json!({"password": "audited-password-10"})),
        200,
    );
    secrets.push("audited-password-10".into());
    // Failed sign-ins with a password are not logged either.
    error_body(
        login(&s, ALPHA_ADMIN.0, "typo-in-the-password-77"),
        401,
        "INVALID_CREDENTIALS",
    );
    secrets.push("typo-in-the-password-77".into());
    // The audit log: every change, newest first, who and from where, before and after.
    let page = admin.get("/api/settings/audit?limit=3");
    assert_eq!(page["data"].as_array().unwrap().len(), 3);
    let mut entries = page["data"].as_array().unwrap().clone();
    let rest = admin.get(&format!(
        "/api/settings/audit?limit=200&cursor={}",
        page["nextCursor"].as_str().unwrap()
    ));
    entries.extend(rest["data"].as_array().unwrap().iter().cloned());
    let actions: Vec<&str> = entries
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    for a in [
        "user.update",
        "user.create",
        "partner.create",
        "webhook.rotate-secret",
        "webhook.create",
        "key.revoke",
        "key.create",
    ] {
        assert!(actions.contains(&a), "{a} in {actions:?}");
    }
    assert_eq!(actions[0], "user.update");
    let by_admin = entries
        .iter()
        .filter(|e| e["actor"]["name"] == "admin@alpha.example")
        .count();
    assert_eq!(by_admin, 7);
    assert!(
        entries
            .iter()
            .all(|e| e["actor"]["name"] != "admin@alpha.example" || e["client"] == "127.0.0.1")
    );
    let revoke = entries
        .iter()
        .find(|e| e["action"] == "key.revoke")
        .unwrap();
    assert!(revoke["before"]["revokedAt"].is_null() && revoke["after"]["revokedAt"].is_string());
    // The import of the file is there too, as `configuration`.
    assert!(
        entries
            .iter()
            .any(|e| e["actor"]["id"] == "configuration" && e["action"] == "partner.create")
    );
    error_body(
        admin.call(Method::GET, "/api/settings/audit?limit=0", None),
        400,
        "INVALID_QUERY",
    );
    error_body(
        admin.call(Method::GET, "/api/settings/audit?cursor=nope", None),
        400,
        "INVALID_CURSOR",
    );
    // No secret anywhere: answers, the store, the logs.
    let answers = [
        admin.get("/api/settings/audit?limit=200").to_string(),
        admin.get("/api/settings/partners").to_string(),
        admin.get("/api/settings/webhooks").to_string(),
        admin.get("/api/settings/keys").to_string(),
        admin.get("/api/settings/users").to_string(),
    ]
    .join("\n");
    std::thread::sleep(Duration::from_millis(300));
    let store = store_text(&s);
    let logs = std::fs::read_to_string(s.dir.path().join("server.log")).unwrap();
    assert!(logs.contains("signed in"), "debug logs were written");
    for secret in &secrets {
        assert!(
            !answers.contains(secret.as_str()),
            "an answer shows {secret}"
        );
        assert!(
            !store.contains(secret.as_str()),
            "the store holds {secret} in clear"
        );
        assert!(!logs.contains(secret.as_str()), "the logs show {secret}");
    }
    assert!(
        store.contains("admin@alpha.example"),
        "the check reads the store"
    );
}

fn console(s: &Server, args: &[&str], stdin: &str) -> (bool, String, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_x12kit-server"))
        .args(args)
        .arg("--config")
        .arg(s.dir.path().join("server.toml"))
        .arg("--database")
        .arg(s.database())
        .env("X12KIT_SECRET_KEY_FILE", test_key_file())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn the_console_changes_the_store_as_the_routes_do_audited_as_console() {
    let s = Server::start();
    let (ok, out, err) = console(
        &s,
        &[
            "user",
            "add",
            "--account",
            "alpha",
            "--email",
            "Ops@Alpha.example",
            "--role",
            "admin",
        ],
        "console-password-1\n",
    );
    assert!(ok, "{err}");
    let user: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(user["email"], "ops@alpha.example");
    let ops = sign_in(&s, ("ops@alpha.example", "console-password-1"));
    let (ok, _, err) = console(
        &s,
        &[
            "user",
            "add",
            "--account",
            "alpha",
            "--email",
            "short@alpha.example",
        ],
        "short\n",
    );
    assert!(!ok && err.contains("12"), "{err}");
    let (ok, _, err) = console(
        &s,
        &[
            "user",
            "add",
            "--account",
            "gamma",
            "--email",
            "g@gamma.example",
        ],
        "console-password-1\n",
    );
    assert!(!ok && err.contains("ACCOUNT_NOT_FOUND"), "{err}");
    let (ok, out, err) = console(
        &s,
        &[
            "user",
            "add",
            "--account",
            "gamma",
            "--create-account",
            "--email",
            "g@gamma.example",
        ],
        "",
    );
    assert!(ok, "{err}");
    let made = out
        .lines()
        .find_map(|l| l.strip_prefix("password: "))
        .unwrap()
        .to_string();
    assert_eq!(login(&s, "g@gamma.example", &made).status(), 200);
    // Keys: made, used, listed without the key, revoked (refused within a second).
    let (ok, out, err) = console(
        &s,
        &["key", "create", "--account", "alpha", "--name", "batch"],
        "",
    );
    assert!(ok, "{err}");
    let key = out
        .lines()
        .find_map(|l| l.strip_prefix("key: "))
        .unwrap()
        .to_string();
    let id = serde_json::from_str::<Value>(out.lines().next().unwrap()).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    wait_for(2, "the console's key", || {
        (s.get("/api/v1/transactions", &key).status() == 200).then_some(())
    });
    let (_, out, _) = console(&s, &["key", "list", "--account", "alpha"], "");
    assert!(out.contains(&id) && !out.contains(&key));
    let (ok, _, err) = console(
        &s,
        &["key", "revoke", "--account", "alpha", "--id", &id],
        "",
    );
    assert!(ok, "{err}");
    wait_for(2, "the revocation", || {
        (s.get("/api/v1/transactions", &key).status() == 401).then_some(())
    });
    let (ok, _, err) = console(&s, &["key", "revoke", "--account", "beta", "--id", &id], "");
    assert!(!ok && err.contains("KEY_NOT_FOUND"), "{err}");
    // Partners from a profile file.
    let profile_file = s.dir.path().join("hooli.json");
    let mut p = profile();
    p["id"] = json!("hooli");
    std::fs::write(&profile_file, p.to_string()).unwrap();
    let transport_file = s.dir.path().join("t.json");
    std::fs::write(
        &transport_file,
        json!({"kind": "directory", "outbox": s.dir.path().join("hooli-out")}).to_string(),
    )
    .unwrap();
    let (ok, out, err) = console(
        &s,
        &[
            "partner",
            "put",
            "--account",
            "alpha",
            "--profile",
            profile_file.to_str().unwrap(),
            "--transport",
            transport_file.to_str().unwrap(),
            "--ack-window-seconds",
            "60",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(out.contains("\"version\":1"), "{out}");
    let (ok, out, _) = console(
        &s,
        &[
            "partner",
            "put",
            "--account",
            "alpha",
            "--profile",
            profile_file.to_str().unwrap(),
        ],
        "",
    );
    assert!(ok && out.contains("\"version\":2"), "{out}");
    wait_for(2, "the console's partner", || {
        (s.send("/api/v1", ALPHA, "hooli", "850", &payload("850"))
            .status()
            == 202)
            .then_some(())
    });
    let bad = s.dir.path().join("bad.json");
    std::fs::write(&bad, json!({"id": "bad", "sender": {}}).to_string()).unwrap();
    let (ok, _, err) = console(
        &s,
        &[
            "partner",
            "put",
            "--account",
            "alpha",
            "--profile",
            bad.to_str().unwrap(),
        ],
        "",
    );
    assert!(!ok && err.contains("/profile"), "{err}");
    let (ok, out, _) = console(&s, &["partner", "list", "--account", "alpha"], "");
    assert!(ok && out.lines().count() == 2, "{out}");
    let (ok, _, err) = console(
        &s,
        &["partner", "remove", "--account", "alpha", "--id", "hooli"],
        "",
    );
    assert!(
        !ok && err.contains("PARTNER_IN_USE"),
        "a queued document holds it: {err}"
    );
    // Disabling a user ends their session.
    let (ok, _, err) = console(
        &s,
        &[
            "user",
            "disable",
            "--account",
            "alpha",
            "--email",
            "ops@alpha.example",
        ],
        "",
    );
    assert!(ok, "{err}");
    error_body(
        ops.call(Method::GET, "/api/auth/me", None),
        401,
        "UNAUTHORIZED",
    );
    let (_, out, _) = console(&s, &["user", "list", "--account", "alpha"], "");
    assert!(out.contains("\"disabled\":true"), "{out}");
    // Nor can the last enabled admin of an account be disabled.
    let (ok, _, err) = console(
        &s,
        &[
            "user",
            "disable",
            "--account",
            "beta",
            "--email",
            "admin@beta.example",
        ],
        "",
    );
    assert!(!ok && err.contains("LAST_ADMIN"), "{err}");
    // All of it audited as `console`.
    let admin = sign_in(&s, ALPHA_ADMIN);
    let audit = admin.get("/api/settings/audit?limit=200")["data"].clone();
    let by_console: Vec<&str> = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["actor"]["id"] == "console")
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    for a in [
        "user.create",
        "key.create",
        "key.revoke",
        "partner.create",
        "partner.update",
        "user.update",
    ] {
        assert!(by_console.contains(&a), "{a} in {by_console:?}");
    }
    assert!(
        audit
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["actor"]["id"] != "console" || e["client"].is_null())
    );
}

#[test]
fn the_file_bootstraps_an_empty_store_once_and_settings_export_prints_it_without_secrets() {
    let s = Server::start_with(Options {
        own_key: true,
        log_to_file: true,
        ..Options::default()
    });
    // The demo configuration made its key file beside itself (owner only).
    let key_file = s.dir.path().join("x12kit-demo.key");
    assert!(key_file.exists());
    let log = std::fs::read_to_string(s.dir.path().join("server.log")).unwrap();
    assert!(
        log.contains("imported the configuration file's settings"),
        "{log}"
    );
    // Changed in the store: a new partner; then the file changes, and is ignored.
    let admin = sign_in(&s, ALPHA_ADMIN);
    admin.ok(
        Method::POST,
        "/api/settings/partners",
        Some(json!({"id": "vandelay", "profile": profile()})),
        201,
    );
    let config = s.dir.path().join("server.toml");
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "6d7dff8b896c0ddf9a311a0c4bda0b9bae1f87970d25d5339e04f01c181c4ea5",
        "0000000000000000000000000000000000000000000000000000000000000000",
    );
    std::fs::write(&config, text).unwrap();
    let s = s.restart();
    assert_eq!(
        s.get("/api/v1/transactions", ALPHA).status(),
        200,
        "the store's key, not the file's"
    );
    let log = std::fs::read_to_string(s.dir.path().join("server.log")).unwrap();
    assert_eq!(log.matches("sections are ignored").count(), 1, "{log}");
    // Export: the store's settings as TOML, every secret left out, read back as a configuration.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_x12kit-server"))
        .args(["settings", "export", "--config"])
        .arg(&config)
        .arg("--database")
        .arg(s.database())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("# x12kit-server settings, exported"),
        "{text}"
    );
    let v: toml::Value = toml::from_str(&text).unwrap();
    let accounts = v["accounts"].as_array().unwrap();
    assert_eq!(accounts.len(), 2);
    assert_eq!(accounts[0]["id"].as_str(), Some("alpha"));
    assert_eq!(
        accounts[0]["keys"][0]["sha256"].as_str(),
        Some("6d7dff8b896c0ddf9a311a0c4bda0b9bae1f87970d25d5339e04f01c181c4ea5")
    );
    let partners: Vec<&str> = accounts[0]["partners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(partners, ["acme-retail", "vandelay"]);
    assert_eq!(
        accounts[0]["partners"][0]["transport"]["kind"].as_str(),
        Some("directory")
    );
    assert_eq!(
        accounts[0]["partners"][0]["ack_window_seconds"].as_integer(),
        Some(86400)
    );
    assert_eq!(
        accounts[0]["users"][0]["email"].as_str(),
        Some("admin@alpha.example")
    );
    for secret in [ALPHA_SECRET, "$argon2id$", "alpha-demo-password"] {
        assert!(!text.contains(secret), "export shows {secret}");
    }
    // A wrong key file is refused at start: the store's secrets were sealed with another.
    std::fs::write(&key_file, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_x12kit-server"))
        .arg("--config")
        .arg(&config)
        .args(["--listen", "127.0.0.1:0", "--database"])
        .arg(s.database())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("secret key"));
}
