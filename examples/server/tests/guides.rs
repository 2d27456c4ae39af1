//! Partners' implementation guides in the server (issue 30): a partner
//! whose profile names its guides (`examples/partners/acme-retail-guided.json`,
//! paths read at bootstrap relative to the profile) has its inbound sets
//! checked against them: the 999 sent back with `acknowledge_inbound = "999"`
//! carries the implementation codes, and each inbound document's JSON has
//! the guide findings. Render refuses a payload that breaks the guide, with
//! every problem at its pointer, and the settings API refuses a guide given
//! as a path (the server reads no file an API call names).

mod common;

use common::partner::Partner;
use common::*;
use serde_json::{Value, json};
use std::time::Duration;

fn guided(settings: &str, receiver: &str) -> Server {
    let mut o = Options::lifecycle(settings, receiver);
    o.profile = Some(repo_root().join("examples/partners/acme-retail-guided.json"));
    Server::start_with(o)
}

#[test]
fn inbound_sets_are_checked_against_the_partners_guide_and_the_999_carries_its_codes() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let mut settings = http_partner(&partner.url, None);
    settings.insert_str(0, "acknowledge_inbound = \"999\"\n");
    let s = guided(&settings, &receiver.url);
    // Both orders' numbers (PO-2026-0042) break the guide's BEG03 pattern ^PO-[0-9]{4,10}$.
    let edi = std::fs::read(repo_root().join("examples/x12/purchase-orders-850.edi")).unwrap();
    let r = s
        .post("/api/v1/documents/inbound?partnerId=acme-retail", ALPHA)
        .header("content-type", "application/edi-x12")
        .body(edi)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let r: Value = r.json::<Value>().unwrap()["data"].clone();
    let sets = r["transactions"].as_array().unwrap();
    assert_eq!(sets.len(), 2, "{r}");
    for t in sets {
        let id = t["documentId"].as_str().unwrap();
        let doc: Value = s
            .get(&format!("/api/v1/transactions/{id}"), ALPHA)
            .json()
            .unwrap();
        let d = &doc["data"]["diagnostics"];
        assert_eq!(d["guides"], json!(["acme-retail-850"]), "{doc}");
        assert_eq!(d["valid"], false, "{d}");
        let found = d["diagnostics"].as_array().unwrap();
        assert_eq!(found.len(), 1, "{d}");
        assert_eq!(found[0]["code"], "GUIDE_PATTERN");
        assert_eq!(found[0]["segmentId"], "BEG");
        assert_eq!(
            found[0]["guidePointer"],
            "/segments/BEG/elements/BEG03/pattern"
        );
        assert_eq!(found[0]["ack"]["ik4"], "I12");
    }
    let reply = r["acknowledgementReply"]["documentId"]
        .as_str()
        .unwrap()
        .to_string();
    let t = s.wait_status(&reply, &["routed", "failed"], 30);
    assert_eq!(t["status"], "routed", "{t}");
    let x12 = t["x12"].as_str().unwrap();
    for part in [
        "ST*999*",
        "AK2*850*0001",
        "IK3*BEG*2**8",
        "IK4*3**I12*PO-2026-0042",
        "IK5*R*I5",
        "AK9*R*2*2*0",
    ] {
        assert!(x12.contains(part), "{part} in {x12}");
    }
    // Render obeys the same guide: a payload that breaks it is refused at its pointers.
    let mut bad = payload("850");
    bad["purchaseOrderNumber"] = json!("10045");
    bad["currency"] = json!("CAD");
    let r = s.send("/api/v1", ALPHA, "acme-retail", "850", &bad);
    assert_eq!(r.status(), 422);
    let e: Value = r.json().unwrap();
    let text = e.to_string();
    for part in [
        "GUIDE_PATTERN",
        "/purchaseOrderNumber",
        "GUIDE_SEGMENT_NOT_USED",
        "/currency",
    ] {
        assert!(text.contains(part), "{part} in {text}");
    }
    // The example order keeps it.
    let r = s.send("/api/v1", ALPHA, "acme-retail", "850", &payload("850"));
    assert_eq!(r.status(), 202, "{}", r.text().unwrap());
}

#[test]
fn without_guides_inbound_documents_have_no_guide_findings() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let s = Server::start_with(Options::lifecycle(
        &http_partner(&partner.url, None),
        &receiver.url,
    ));
    let edi = std::fs::read(repo_root().join("examples/x12/purchase-orders-850.edi")).unwrap();
    let r = s
        .post("/api/v1/documents/inbound?partnerId=acme-retail", ALPHA)
        .header("content-type", "application/edi-x12")
        .body(edi)
        .send()
        .unwrap();
    let r: Value = r.json::<Value>().unwrap()["data"].clone();
    let id = r["transactions"][0]["documentId"].as_str().unwrap();
    let doc: Value = s
        .get(&format!("/api/v1/transactions/{id}"), ALPHA)
        .json()
        .unwrap();
    assert_eq!(doc["data"]["diagnostics"], Value::Null, "{doc}");
}

#[test]
fn the_settings_api_takes_guides_inline_and_refuses_a_path() {
    use common::session::*;
    use reqwest::Method;
    let s = Server::start();
    let admin = sign_in(&s, ALPHA_ADMIN);
    let read = |rel: &str| -> Value {
        serde_json::from_slice(&std::fs::read(repo_root().join(rel)).unwrap()).unwrap()
    };
    let mut profile = read("examples/partners/acme-retail.json");
    profile["guides"] = json!({"850": "../guides/acme-retail-850.json"});
    let v = error_body(
        admin.call(
            Method::POST,
            "/api/settings/partners",
            Some(json!({"id": "guided", "profile": profile})),
        ),
        422,
        "INVALID_SETTINGS",
    );
    let d = &v["error"]["details"][0];
    assert_eq!(d["pointer"], "/profile/guides/850", "{v}");
    assert_eq!(d["code"], "INVALID_GUIDE", "{v}");
    // A guide that widens the standard: every problem at its pointer.
    profile["guides"] = json!({"850": {"id": "bad", "documentType": "850", "version": "004010",
        "segments": {"BEG": {"elements": {"BEG02": {"codes": ["SA", "NEW"]}}}}}});
    let v = error_body(
        admin.call(
            Method::POST,
            "/api/settings/partners",
            Some(json!({"id": "guided", "profile": profile})),
        ),
        422,
        "INVALID_SETTINGS",
    );
    assert_eq!(
        v["error"]["details"][0]["pointer"],
        "/profile/guides/850/segments/BEG/elements/BEG02/codes/1",
        "{v}"
    );
    // Inline: taken, and kept as given.
    let mut guide = read("examples/guides/acme-retail-850.json");
    guide.as_object_mut().unwrap().remove("$schema");
    profile["guides"] = json!({ "850": guide });
    let p = admin.ok(
        Method::POST,
        "/api/settings/partners",
        Some(json!({"id": "guided", "profile": profile})),
        201,
    );
    assert_eq!(
        p["profile"]["guides"]["850"]["id"], "acme-retail-850",
        "{p}"
    );
}
