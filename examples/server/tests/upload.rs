//! CSV intake (`POST /api/upload`) against the real binary: the dry run, all or
//! nothing, idempotency by the file and each document's key, the references the
//! list finds, every kind of bad file as one clear problem, a form with one file,
//! the limits of spec §8, and who may upload. On SQLite by default; on PostgreSQL
//! when `X12KIT_TEST_POSTGRES` is set (examples/server/test.sh runs it both ways).

mod common;

use common::session::*;
use common::*;
use reqwest::blocking::Response;
use serde_json::Value;

const HEADER: &str = "/purchaseOrderNumber,/shipTo/id,/shipTo/name,/lines/*/lineNumber,/lines/*/sku,/lines/*/quantity,/lines/*/unitPrice\n";

fn orders(third_quantity: &str) -> String {
    format!(
        "{HEADER}PO-20001,0003947268292,ACME DC,1,WID-100,120,9.25\nPO-20001,,,2,WID-200,{third_quantity},13.79\nPO-20002,0003947268292,ACME DC,1,WID-100,60,9.25\nPO-20003,0003947268292,ACME DC,1,WID-300,6,1.5\n"
    )
}

fn upload(
    s: &Session<'_>,
    query: &str,
    content_type: &str,
    body: impl Into<reqwest::blocking::Body>,
) -> Response {
    s.s.client
        .post(format!("{}/api/upload{query}", s.s.base))
        .header("cookie", &s.cookie)
        .header("x-csrf-token", &s.csrf)
        .header("content-type", content_type)
        .body(body)
        .send()
        .unwrap()
}

fn csv(s: &Session<'_>, query: &str, body: &str) -> Response {
    upload(s, query, "text/csv", body.to_string())
}

const TO_ACME: &str = "?documentTypeCode=850&partnerId=acme-retail";

fn data(r: Response, status: u16) -> Value {
    let got = r.status().as_u16();
    let v: Value = r.json().unwrap();
    assert_eq!(got, status, "{v}");
    v["data"].clone()
}

fn problems(v: &Value) -> Vec<(u64, String, String)> {
    v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["row"].as_u64().unwrap(),
                p["column"].as_str().unwrap().to_string(),
                p["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_dry_run_shows_documents_and_problems_and_stores_nothing_then_the_fixed_file_is_queued_once() {
    let s = Server::start();
    let admin = sign_in(&s, ALPHA_ADMIN);
    // One bad row: the dry run says where, and stores nothing.
    let dry = data(
        csv(&admin, &format!("{TO_ACME}&dryRun=true"), &orders("24x")),
        200,
    );
    assert_eq!(dry["dryRun"], true);
    assert_eq!(
        problems(&dry),
        vec![(
            3,
            "/lines/*/quantity".to_string(),
            "INVALID_FIELD".to_string()
        )]
    );
    assert_eq!(dry["problems"][0]["pointer"], "/lines/1/quantity");
    let docs = dry["documents"].as_array().unwrap();
    assert_eq!(docs.len(), 3);
    assert_eq!(docs[0]["reference"], "PO-20001");
    assert_eq!(docs[0]["rows"], serde_json::json!([2, 3]));
    assert_eq!(dry["table"]["header"][0], "/purchaseOrderNumber");
    assert_eq!(dry["table"]["rows"][1][5], "24x");
    assert_eq!(dry["table"]["truncated"], false);
    assert!(s.all_ids(ALPHA).is_empty());
    // Without the dry run: all or nothing.
    let v = error_body(csv(&admin, TO_ACME, &orders("24x")), 422, "CSV_PROBLEMS");
    let d = &v["error"]["details"][0];
    assert_eq!(
        (d["row"].as_u64(), d["column"].as_str()),
        (Some(3), Some("/lines/*/quantity"))
    );
    assert_eq!(d["pointer"], "/lines/1/quantity");
    assert!(s.all_ids(ALPHA).is_empty(), "nothing queued");
    // Fixed: every document queued, rendered at once, found by its reference.
    let made = data(csv(&admin, TO_ACME, &orders("24")), 201);
    assert_eq!(made["replayed"], false);
    let ids: Vec<String> = made["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["status"], "queued");
            d["documentId"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(ids.len(), 3);
    let found: Value = s
        .get("/api/v1/transactions?reference=PO-20002", ALPHA)
        .json()
        .unwrap();
    assert_eq!(found["data"][0]["documentId"], ids[1].as_str());
    assert_eq!(found["data"][0]["reference"], "PO-20002");
    let t = s.transaction(&ids[0]);
    assert_eq!(t["payload"]["lines"][1]["quantity"], 24);
    assert!(
        t["x12"]
            .as_str()
            .unwrap()
            .contains("PO1*2*24*EA*13.79**SK*WID-200~")
    );
    // The same file again makes nothing twice.
    let again = data(csv(&admin, TO_ACME, &orders("24")), 200);
    assert_eq!(again["replayed"], true);
    let again_ids: Vec<&str> = again["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["documentId"].as_str().unwrap())
        .collect();
    assert_eq!(
        again_ids,
        ids.iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(s.all_ids(ALPHA).len(), 3);
    // Audited: who uploaded what.
    let audit = admin.get("/api/settings/audit");
    let entry = audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["action"] == "upload.create")
        .unwrap()
        .clone();
    assert_eq!(entry["actor"]["name"], "admin@alpha.example");
    assert_eq!(entry["after"]["documents"], 3);
}

#[test]
fn every_bad_file_is_one_clear_problem_and_nothing_is_stored() {
    let s = Server::start_with(Options {
        max_body_bytes: 4096,
        ..Options::default()
    });
    let admin = sign_in(&s, ALPHA_ADMIN);
    let dry = format!("{TO_ACME}&dryRun=true");
    let one = |body: Vec<u8>| -> (u64, String, String) {
        let v = data(upload(&admin, &dry, "text/csv", body), 200);
        let p = problems(&v);
        assert_eq!(p.len(), 1, "{v}");
        p[0].clone()
    };
    let mut latin1 = HEADER.as_bytes().to_vec();
    latin1.extend_from_slice(b"PO-1,0003947268292,Caf\xe9,1,WID,1,1\n");
    assert_eq!(
        one(latin1),
        (2, "/shipTo/name".into(), "CSV_NOT_UTF8".into())
    );
    assert_eq!(one(Vec::new()), (1, String::new(), "CSV_EMPTY".into()));
    assert_eq!(
        one(b"/purchaseOrderNumber,/lines/*/colour\nPO-1,red\n".to_vec()),
        (1, "/lines/*/colour".into(), "UNKNOWN_FIELD".into())
    );
    assert_eq!(
        one(b"purchaseOrderNumber\nPO-1\n".to_vec()),
        (1, "purchaseOrderNumber".into(), "CSV_UNKNOWN_COLUMN".into())
    );
    let mixed = format!(
        "{HEADER}PO-1,0003947268292,A,1,WID,1,1\nPO-2,0003947268292,A,1,WID,1,1\nPO-1,,,2,WID,1,1\n"
    );
    assert_eq!(
        one(mixed.into_bytes()),
        (4, "/purchaseOrderNumber".into(), "CSV_MIXED_KEYS".into())
    );
    // More rows than the limit (10 000): one problem at the first row over it.
    let rows: String = (0..10_001).map(|i| format!("P{i}\n")).collect();
    let big = Server::start();
    let big_admin = sign_in(&big, ALPHA_ADMIN);
    let v = data(
        upload(
            &big_admin,
            &dry,
            "text/csv",
            format!("/purchaseOrderNumber\n{rows}"),
        ),
        200,
    );
    assert_eq!(
        problems(&v),
        vec![(10_002, String::new(), "CSV_TOO_MANY_ROWS".to_string())]
    );
    // Over the body limit: 413, as every route.
    let huge = format!("{HEADER}{}", "PO-1,0003947268292,A,1,WID,1,1\n".repeat(200));
    error_body(
        upload(&admin, TO_ACME, "text/csv", huge),
        413,
        "PAYLOAD_TOO_LARGE",
    );
    // The call itself: the type, the partner, the body's type, the options.
    error_body(
        csv(
            &admin,
            "?documentTypeCode=851&partnerId=acme-retail",
            HEADER,
        ),
        422,
        "UNKNOWN_DOCUMENT_TYPE",
    );
    let v = error_body(
        csv(&admin, "?documentTypeCode=850", HEADER),
        400,
        "INVALID_QUERY",
    );
    assert_eq!(v["error"]["details"][0]["pointer"], "partnerId");
    error_body(
        csv(&admin, "?documentTypeCode=850&partnerId=globex", HEADER),
        404,
        "PARTNER_NOT_FOUND",
    );
    error_body(
        csv(&admin, &format!("{TO_ACME}&delimiter=tab"), HEADER),
        400,
        "INVALID_QUERY",
    );
    error_body(
        upload(&admin, TO_ACME, "application/json", "{}"),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
    );
    assert!(s.all_ids(ALPHA).is_empty());
}

#[test]
fn a_form_with_one_file_semicolons_and_another_key_column() {
    let s = Server::start();
    let admin = sign_in(&s, ALPHA_ADMIN);
    let file = "/lines/*/sku;/purchaseOrderNumber;/shipTo/id;/lines/*/lineNumber;/lines/*/quantity\nWID-1;PO-7;0003947268292;1;2\nWID-2;PO-7;;2;3\n";
    let boundary = "x12kitboundary";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"orders.csv\"\r\nContent-Type: text/csv\r\n\r\n{file}\r\n--{boundary}--\r\n"
    );
    let made = data(
        upload(
            &admin,
            &format!("{TO_ACME}&delimiter=semicolon&documentKey=/purchaseOrderNumber"),
            &format!("multipart/form-data; boundary={boundary}"),
            body,
        ),
        201,
    );
    let docs = made["documents"].as_array().unwrap();
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0]["key"], "PO-7");
    let t = s.transaction(docs[0]["documentId"].as_str().unwrap());
    assert_eq!(t["payload"]["lines"][1]["sku"], "WID-2");
    // A form without a file, or with two, is refused.
    let two = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"a\"; filename=\"a.csv\"\r\n\r\n{file}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"b\"; filename=\"b.csv\"\r\n\r\n{file}\r\n--{boundary}--\r\n"
    );
    error_body(
        upload(
            &admin,
            TO_ACME,
            &format!("multipart/form-data; boundary={boundary}"),
            two,
        ),
        400,
        "INVALID_BODY",
    );
    let none = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n--{boundary}--\r\n"
    );
    error_body(
        upload(
            &admin,
            TO_ACME,
            &format!("multipart/form-data; boundary={boundary}"),
            none,
        ),
        400,
        "INVALID_BODY",
    );
}

#[test]
fn uploads_need_a_session_and_its_token_and_are_limited_per_person_and_per_network() {
    let s = Server::start_with(Options {
        upload_limits: Some((2, 3)),
        ..Options::default()
    });
    // API keys are not accepted; a session without its CSRF token is refused.
    let r = s
        .client
        .post(format!("{}/api/upload{TO_ACME}", s.base))
        .bearer_auth(ALPHA)
        .header("content-type", "text/csv")
        .body(HEADER)
        .send()
        .unwrap();
    error_body(r, 401, "UNAUTHORIZED");
    let admin = sign_in(&s, ALPHA_ADMIN);
    let r = s
        .client
        .post(format!("{}/api/upload{TO_ACME}", s.base))
        .header("cookie", &admin.cookie)
        .header("content-type", "text/csv")
        .body(HEADER)
        .send()
        .unwrap();
    error_body(r, 403, "CSRF_TOKEN_INVALID");
    // Per person: 2 a minute here; then 429 with Retry-After.
    let dry = format!("{TO_ACME}&dryRun=true");
    for _ in 0..2 {
        assert_eq!(csv(&admin, &dry, HEADER).status(), 200);
    }
    let r = csv(&admin, &dry, HEADER);
    assert!(r.headers().contains_key("retry-after"));
    let v = error_body(r, 429, "RATE_LIMITED");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("for this user"),
        "{v}"
    );
    // Per network: 3 a minute here, whoever asks from it.
    let member = admin.ok(
        reqwest::Method::POST,
        "/api/settings/users",
        Some(serde_json::json!({"email": "clerk@alpha.example", "role": "member", "password": "a clerk password"})),
        201,
    );
    assert_eq!(member["role"], "member");
    let clerk = sign_in(&s, ("clerk@alpha.example", "a clerk password"));
    assert_eq!(
        csv(&clerk, &dry, HEADER).status(),
        200,
        "the network's third"
    );
    let v = error_body(csv(&clerk, &dry, HEADER), 429, "RATE_LIMITED");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("from this network"),
        "{v}"
    );
}
