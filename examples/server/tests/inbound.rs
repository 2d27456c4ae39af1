//! `POST /documents/inbound` of large interchanges (issue 32, item 5): the body is
//! spooled, its sets recorded a batch at a time (256 sets a store transaction), and a
//! failure between batches leaves the sets recorded so far, each once; a retry of the
//! same interchange resumes after them, and nothing is lost or duplicated. Run on SQLite
//! and (test.sh's PostgreSQL pass) PostgreSQL.

mod common;
use common::*;
use serde_json::Value;

/// One interchange of `sets` 850s from ISA13 `control`, each with `lines` PO1 lines.
fn interchange(control: u32, sets: usize, lines: usize) -> Vec<u8> {
    let mut x = format!(
        "ISA*00*          *00*          *ZZ*ACMERETAIL     *ZZ*WIDGETSUPPLY   *230101*1200*U*00401*{control:09}*0*P*>~\nGS*PO*ACMERETAIL*WIDGETSUPPLY*20230101*1200*{control}*X*004010~\n"
    );
    for n in 1..=sets {
        x.push_str(&format!(
            "ST*850*{n:09}~\nBEG*00*SA*PO-{control}-{n}**20230101~\n"
        ));
        for l in 0..lines {
            x.push_str(&format!(
                "PO1*{l}*10*EA*9.25**BP*ITEM-{l:06}*VP*PART-{n}~\n"
            ));
        }
        x.push_str(&format!("CTT*{lines}~\nSE*{}*{n:09}~\n", lines + 4));
    }
    x.push_str(&format!("GE*{sets}*{control}~\nIEA*1*{control:09}~\n"));
    x.into_bytes()
}

/// Runs SQL statements on the server's store (SQLite file or PostgreSQL).
fn execute(s: &Server, sql: &str) {
    let db = s.database();
    if db.starts_with("postgres") {
        let mut c = postgres::Client::connect(&db, postgres::NoTls).unwrap();
        c.batch_execute(sql).unwrap();
    } else {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
        c.execute_batch(sql).unwrap();
    }
}

/// One number the store answers.
fn count(s: &Server, sql: &str) -> i64 {
    let db = s.database();
    if db.starts_with("postgres") {
        let mut c = postgres::Client::connect(&db, postgres::NoTls).unwrap();
        c.query_one(sql, &[]).unwrap().get(0)
    } else {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
        c.query_row(sql, [], |r| r.get(0)).unwrap()
    }
}

/// Fails the insert of the inbound set with ST02 `control` (a store failure between
/// batches), or removes that failure.
fn fail_set(s: &Server, control: i64, on: bool) {
    let pg = s.database().starts_with("postgres");
    let sql = match (pg, on) {
        (false, true) => format!(
            "CREATE TRIGGER fail_set BEFORE INSERT ON documents
             WHEN NEW.direction = 'inbound' AND NEW.transaction_control = {control}
             BEGIN SELECT RAISE(ABORT, 'injected failure'); END;"
        ),
        (false, false) => "DROP TRIGGER fail_set;".into(),
        (true, true) => format!(
            "CREATE FUNCTION fail_set() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
               IF NEW.direction = 'inbound' AND NEW.transaction_control = {control} THEN
                 RAISE EXCEPTION 'injected failure';
               END IF;
               RETURN NEW;
             END $$;
             CREATE TRIGGER fail_set BEFORE INSERT ON documents
             FOR EACH ROW EXECUTE FUNCTION fail_set();"
        ),
        (true, false) => "DROP TRIGGER fail_set ON documents; DROP FUNCTION fail_set();".into(),
    };
    execute(s, &sql);
}

fn post_inbound(s: &Server, body: &[u8]) -> reqwest::blocking::Response {
    s.post("/api/v1/documents/inbound?partnerId=acme-retail", ALPHA)
        .header("content-type", "application/edi-x12")
        .body(body.to_vec())
        .send()
        .unwrap()
}

const INBOUND: &str = "SELECT COUNT(*) FROM documents WHERE direction = 'inbound'";
const DISTINCT: &str =
    "SELECT COUNT(DISTINCT transaction_control) FROM documents WHERE direction = 'inbound'";

#[test]
fn a_failure_between_batches_keeps_each_set_once_and_a_retry_resumes() {
    let s = Server::start();
    // 600 sets: batches of 256, 256 and 88; the second fails at its set 400.
    let body = interchange(4242, 600, 3);
    fail_set(&s, 400, true);
    let r = post_inbound(&s, &body);
    assert_eq!(r.status(), 500, "{}", r.text().unwrap());
    // The first batch stays, each set once; the failed one left nothing.
    assert_eq!(count(&s, INBOUND), 256);
    assert_eq!(count(&s, DISTINCT), 256);
    // Unfinished: no result yet, and the claim given back (a retry may take it at once).
    assert_eq!(
        count(
            &s,
            "SELECT COUNT(*) FROM inbound_interchanges WHERE control = 4242 AND result = '{}' AND received_at = 0"
        ),
        1
    );
    fail_set(&s, 400, false);
    let r = post_inbound(&s, &body);
    assert_eq!(r.status(), 200);
    let v: Value = r.json().unwrap();
    let d = &v["data"];
    assert_eq!(d["interchanges"][0]["duplicate"], false, "{d}");
    assert_eq!(
        d["interchanges"][0]["result"],
        "processed (resumed: 256 sets were recorded by an earlier attempt)"
    );
    assert_eq!(d["transactions"].as_array().unwrap().len(), 344);
    assert_eq!(count(&s, INBOUND), 600);
    assert_eq!(count(&s, DISTINCT), 600);
    // Complete now: a third time is a duplicate, nothing recorded.
    let r = post_inbound(&s, &body);
    assert_eq!(r.status(), 200);
    let v: Value = r.json().unwrap();
    assert_eq!(v["data"]["interchanges"][0]["duplicate"], true);
    assert!(v["data"]["transactions"].as_array().unwrap().is_empty());
    assert_eq!(count(&s, INBOUND), 600);
    // Each set's X12 is the set in an interchange of its own, which validates clean.
    let id = d["transactions"][0]["documentId"].as_str().unwrap();
    let t: Value = s
        .get(&format!("/api/v1/transactions/{id}"), ALPHA)
        .json()
        .unwrap();
    let x12 = t["data"]["x12"].as_str().unwrap();
    assert!(x12.starts_with("ISA*"), "{x12}");
    assert_eq!(x12.matches("ST*850*").count(), 1, "{x12}");
    assert!(x12.contains("ST*850*000000257~"), "{x12}");
    assert!(
        x12.trim_end().ends_with("GE*1*4242~\nIEA*1*000004242~"),
        "{x12}"
    );
    let validation: Value = serde_json::from_slice(&x12kit::ops::validate_json(
        x12.as_bytes(),
        &Default::default(),
    ))
    .unwrap();
    assert_eq!(validation["valid"], true, "{validation}");
    assert!(t["data"]["document"].is_object(), "{t}");
}

#[test]
fn an_interchange_another_request_holds_is_503_until_its_claim_lapses() {
    let s = Server::start();
    let body = interchange(777, 3, 2);
    // A live claim (another request receiving it).
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    execute(
        &s,
        &format!(
            "INSERT INTO inbound_interchanges (account, partner_id, control, received_at, source, result)
             VALUES ('alpha', 'acme-retail', 777, {now}, 'api', '{{}}')"
        ),
    );
    let r = post_inbound(&s, &body);
    assert_eq!(r.headers()["retry-after"], "10");
    let e = error_body(r, 503, "INBOUND_IN_PROGRESS");
    assert!(
        e["error"]["message"].as_str().unwrap().contains("777"),
        "{e}"
    );
    assert_eq!(count(&s, INBOUND), 0);
    // The claim lapsed (its request died): the next attempt takes it over.
    execute(
        &s,
        "UPDATE inbound_interchanges SET received_at = 1 WHERE control = 777",
    );
    let r = post_inbound(&s, &body);
    assert_eq!(r.status(), 200);
    let v: Value = r.json().unwrap();
    assert_eq!(v["data"]["transactions"].as_array().unwrap().len(), 3);
    assert_eq!(count(&s, INBOUND), 3);
}

#[test]
fn max_set_bytes_caps_a_set_and_bad_values_are_400() {
    let s = Server::start();
    let body = interchange(31, 3, 40);
    for bad in ["0", "-1", "abc", "1.5", "67108865", ""] {
        for path in [
            "/api/v1/documents/inbound?partnerId=acme-retail&",
            "/api/v1/parse?",
        ] {
            let r = s
                .post(&format!("{path}maxSetBytes={bad}"), ALPHA)
                .header("content-type", "application/edi-x12")
                .body(body.clone())
                .send()
                .unwrap();
            let e = error_body(r, 400, "INVALID_QUERY");
            assert_eq!(e["error"]["details"][0]["pointer"], "maxSetBytes", "{e}");
            assert!(
                e["error"]["message"].as_str().unwrap().contains("67108864"),
                "{e}"
            );
        }
    }
    // A cap under one set's size: each set is SET_TOO_LARGE, recorded without a document
    // or X12; parse reports the same.
    let r = s
        .post("/api/v1/parse?maxSetBytes=1000", ALPHA)
        .header("content-type", "application/edi-x12")
        .body(body.clone())
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().unwrap();
    let too_large = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "SET_TOO_LARGE")
        .count();
    assert_eq!(too_large, 3, "{}", v["diagnostics"]);
    let r = s
        .post(
            "/api/v1/documents/inbound?partnerId=acme-retail&maxSetBytes=1000",
            ALPHA,
        )
        .header("content-type", "application/edi-x12")
        .body(body.clone())
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().unwrap();
    let ids = v["data"]["transactions"].as_array().unwrap();
    assert_eq!(ids.len(), 3);
    let id = ids[0]["documentId"].as_str().unwrap();
    let t: Value = s
        .get(&format!("/api/v1/transactions/{id}"), ALPHA)
        .json()
        .unwrap();
    assert!(t["data"]["document"].is_null(), "{t}");
    assert!(t["data"]["x12"].is_null(), "{t}");
    // Under the default cap the same sets are mapped.
    let r = post_inbound(&s, &interchange(32, 3, 40));
    let v: Value = r.json().unwrap();
    let id = v["data"]["transactions"][0]["documentId"].as_str().unwrap();
    let t: Value = s
        .get(&format!("/api/v1/transactions/{id}"), ALPHA)
        .json()
        .unwrap();
    assert!(t["data"]["document"].is_object(), "{t}");
}

#[test]
fn a_small_body_is_one_transaction_all_or_nothing() {
    let s = Server::start();
    // 3 sets (one batch): the store failing at the second leaves nothing, not even a claim.
    let body = interchange(555, 3, 2);
    fail_set(&s, 2, true);
    let r = post_inbound(&s, &body);
    assert_eq!(r.status(), 500, "{}", r.text().unwrap());
    assert_eq!(count(&s, INBOUND), 0);
    assert_eq!(
        count(
            &s,
            "SELECT COUNT(*) FROM inbound_interchanges WHERE control = 555"
        ),
        0
    );
    fail_set(&s, 2, false);
    // The retry is a first attempt (nothing to resume), and completes the interchange.
    let r = post_inbound(&s, &body);
    assert_eq!(r.status(), 200);
    let v: Value = r.json().unwrap();
    assert_eq!(v["data"]["interchanges"][0]["result"], "processed", "{v}");
    assert_eq!(v["data"]["transactions"].as_array().unwrap().len(), 3);
    assert_eq!(count(&s, INBOUND), 3);
    assert_eq!(
        count(
            &s,
            "SELECT COUNT(*) FROM inbound_interchanges WHERE control = 555 AND result <> '{}' AND claim IS NULL"
        ),
        1
    );
}

#[test]
fn the_same_small_interchange_posted_twice_at_once_is_processed_once_and_a_duplicate() {
    let s = Server::start();
    for round in 0..8u32 {
        let body = interchange(900 + round, 3, 2);
        let barrier = std::sync::Barrier::new(2);
        let answers: Vec<(u16, Value)> = std::thread::scope(|scope| {
            let posts: Vec<_> = (0..2)
                .map(|_| {
                    scope.spawn(|| {
                        barrier.wait();
                        let r = post_inbound(&s, &body);
                        (r.status().as_u16(), r.json::<Value>().unwrap())
                    })
                })
                .collect();
            posts.into_iter().map(|h| h.join().unwrap()).collect()
        });
        // Both 200 (never 503 INBOUND_IN_PROGRESS): one processed it, the other was told
        // it is a duplicate.
        for (status, v) in &answers {
            assert_eq!(*status, 200, "{v}");
        }
        let mut duplicate: Vec<bool> = answers
            .iter()
            .map(|(_, v)| v["data"]["interchanges"][0]["duplicate"].as_bool().unwrap())
            .collect();
        duplicate.sort();
        assert_eq!(duplicate, [false, true], "{answers:?}");
        let sets: usize = answers
            .iter()
            .map(|(_, v)| v["data"]["transactions"].as_array().unwrap().len())
            .sum();
        assert_eq!(sets, 3);
    }
    assert_eq!(count(&s, INBOUND), 24);
    assert_eq!(count(&s, DISTINCT), 3);
}
