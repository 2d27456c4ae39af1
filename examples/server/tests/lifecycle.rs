//! Part 2: the lifecycle workers, partner transports, acknowledgements back and
//! signed webhooks, against a real partner endpoint, real folders and the
//! receiver example.

mod common;

use common::partner::Partner;
use common::*;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::time::Duration;

fn send_850(s: &Server) -> String {
    let r = s.send("/api/v1", ALPHA, "acme-retail", "850", &payload("850"));
    assert_eq!(r.status(), 202);
    r.json::<Value>().unwrap()["documentId"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The partner's 997 for `x12` (made by the core), with ISA13/GS06/ST02 = `control`.
fn ack_997(x12: &str, control: u64) -> Vec<u8> {
    ack_of("997", x12, control)
}

/// The partner's acknowledgement of `kind` (`ta1`, `997`, `999`) for `x12`, made by the
/// core, with ISA13/GS06/ST02 = `control`.
fn ack_of(kind: &str, x12: &str, control: u64) -> Vec<u8> {
    let o: x12kit::ops::AcknowledgeOptions = x12kit::ops::options(json!({
        "kind": kind,
        "interchangeControlNumber": control,
        "groupControlNumber": control,
        "setControlNumber": control,
    }))
    .unwrap();
    x12kit::ops::acknowledge(x12.as_bytes(), &o, x12kit::clock::now()).unwrap()
}

fn post_inbound(s: &Server, body: &[u8], query: &str) -> Value {
    let r = s
        .post(&format!("/api/v1/documents/inbound{query}"), ALPHA)
        .header("content-type", "application/edi-x12")
        .body(body.to_vec())
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json::<Value>().unwrap()["data"].clone()
}

fn statuses(t: &Value) -> Vec<String> {
    t["statusHistory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["status"].as_str().unwrap().to_string())
        .collect()
}

/// The events the receiver got for one document, in order: (event, status, deliveryId).
fn events_for(r: &Receiver, id: &str) -> Vec<(String, String, String)> {
    r.received()
        .into_iter()
        .filter(|e| e["data"]["documentId"] == id)
        .map(|e| {
            (
                e["event"].as_str().unwrap().to_string(),
                e["data"]["status"].as_str().unwrap().to_string(),
                e["deliveryId"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Waits (up to 10 s) until the receiver has `n` events of the document.
fn wait_events(r: &Receiver, id: &str, n: usize) -> Vec<(String, String, String)> {
    wait_for(10, &format!("{n} events at the receiver"), || {
        let e = events_for(r, id);
        (e.len() == n).then_some(e)
    })
}

/// Each event's name and document status, in order.
fn kinds(events: &[(String, String, String)]) -> Vec<(&str, &str)> {
    events
        .iter()
        .map(|(e, s, _)| (e.as_str(), s.as_str()))
        .collect()
}

fn wait_delivered(s: &Server, id: &str, n: usize) -> Value {
    wait_for(30, "webhooks delivered", || {
        let t = s.transaction(id);
        let d = t["webhookDeliveries"].as_array().unwrap();
        (d.len() == n && d.iter().all(|d| d["state"] == "delivered")).then_some(t)
    })
}

#[test]
fn a_document_goes_queued_validated_routed_acknowledged_with_signed_webhooks() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let s = Server::start_with(Options::lifecycle(
        &http_partner(&partner.url, Some(60)),
        &receiver.url,
    ));
    let id = send_850(&s);
    let t = s.wait_status(&id, &["routed"], 30);
    assert_eq!(t["diagnostics"]["valid"], true, "{t}");
    assert!(t["acknowledgementDueAt"].is_string());
    assert_eq!(t["routingAttempts"].as_array().unwrap().len(), 1);
    // The partner got the interchange once, with the configured header.
    let got = partner.received();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].key, id);
    assert_eq!(got[0].partner_key, "k-123");
    assert_eq!(got[0].body, t["x12"].as_str().unwrap());
    assert_eq!(
        got[0].control,
        t["controlNumbers"]["interchange"].to_string()
    );
    // The partner's 997 comes back; the sender is found from ISA05/ISA06.
    let ack = ack_997(t["x12"].as_str().unwrap(), 7001);
    let r = post_inbound(&s, &ack, "");
    assert_eq!(r["partnerId"], "acme-retail");
    assert_eq!(r["acknowledgements"][0]["documentId"], id.as_str(), "{r}");
    assert_eq!(r["acknowledgements"][0]["result"], "acknowledged", "{r}");
    let t = s.wait_status(&id, &["acknowledged"], 10);
    assert_eq!(
        statuses(&t),
        ["queued", "validated", "routed", "acknowledged"]
    );
    assert_eq!(t["partnerAcknowledgement"]["kind"], "997");
    // The same 997 again is a duplicate interchange: nothing changes.
    let again = post_inbound(&s, &ack, "");
    assert_eq!(again["interchanges"][0]["duplicate"], true, "{again}");
    assert!(again["acknowledgements"].as_array().unwrap().is_empty());
    // Three webhooks, delivered and verified by the receiver, ids as in the store.
    let t = wait_delivered(&s, &id, 3);
    let events = wait_events(&receiver, &id, 3);
    assert_eq!(
        kinds(&events),
        [
            ("document.validated", "validated"),
            ("document.routed", "routed"),
            ("document.partner_ack", "acknowledged")
        ]
    );
    let stored: HashSet<&str> = t["webhookDeliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    for (_, _, delivery) in &events {
        assert!(stored.contains(delivery.as_str()));
    }
    for d in t["webhookDeliveries"].as_array().unwrap() {
        assert_eq!(d["attempts"], 1);
        assert_eq!(d["attemptLog"][0]["httpStatus"], 200);
    }
    let st = s.stats();
    assert_eq!(st["documents"]["acknowledged"], 1, "{st}");
    assert_eq!(st["webhooks"]["delivered"], 3, "{st}");
    assert_eq!(st["webhooks"]["pending"], 0, "{st}");
}

#[test]
fn a_rejecting_997_fails_the_document_with_partner_ack_then_error_and_the_ak_details() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let s = Server::start_with(Options::lifecycle(
        &http_partner(&partner.url, Some(60)),
        &receiver.url,
    ));
    let id = send_850(&s);
    let t = s.wait_status(&id, &["routed"], 30);
    // The partner found BEG03 (the order number, mandatory) empty: the core's 997 of that
    // says AK3/AK4/AK5 R.
    let ack = ack_997(&without_beg03(t["x12"].as_str().unwrap()), 7002);
    let text = String::from_utf8_lossy(&ack);
    assert!(text.contains("AK5*R"), "{text}");
    let r = post_inbound(&s, &ack, "?partnerId=acme-retail");
    assert_eq!(r["acknowledgements"][0]["result"], "failed", "{r}");
    let t = s.wait_status(&id, &["failed"], 10);
    assert_eq!(statuses(&t), ["queued", "validated", "routed", "failed"]);
    assert!(
        t["failureReason"].as_str().unwrap().contains("rejected"),
        "{t}"
    );
    let set = &t["partnerAcknowledgement"]["group"]["transactions"][0];
    assert_eq!(set["code"], "R", "{t}");
    let seg = &set["segmentErrors"][0];
    assert_eq!(seg["segmentId"], "BEG", "{t}");
    assert_eq!(seg["elements"][0]["position"], 3, "{t}");
    assert!(seg["elements"][0]["error"]["code"].is_string(), "{t}");
    wait_delivered(&s, &id, 4);
    let events = wait_events(&receiver, &id, 4);
    assert_eq!(
        kinds(&events),
        [
            ("document.validated", "validated"),
            ("document.routed", "routed"),
            ("document.partner_ack", "failed"),
            ("document.error", "failed")
        ]
    );
}

/// `sent` with BEG03 (the order number, mandatory) emptied: what a partner that found it
/// missing acknowledges.
fn without_beg03(sent: &str) -> String {
    let at = sent.find("BEG*00*SA*").unwrap() + "BEG*00*SA*".len();
    let end = at + sent[at..].find('*').unwrap();
    format!("{}{}", &sent[..at], &sent[end..])
}

/// A server whose partner is reached over HTTP (window 60 s), with a receiver.
fn routed_850() -> (Partner, Receiver, Server, String, Value) {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let s = Server::start_with(Options::lifecycle(
        &http_partner(&partner.url, Some(60)),
        &receiver.url,
    ));
    let id = send_850(&s);
    let t = s.wait_status(&id, &["routed"], 30);
    (partner, receiver, s, id, t)
}

#[test]
fn an_accepting_ta1_acknowledges_the_interchange() {
    let (_partner, receiver, s, id, t) = routed_850();
    let ta1 = ack_of("ta1", t["x12"].as_str().unwrap(), 7101);
    let text = String::from_utf8_lossy(&ta1).into_owned();
    let isa13 = format!(
        "{:09}",
        t["controlNumbers"]["interchange"].as_u64().unwrap()
    );
    assert!(text.contains(&format!("TA1*{isa13}*")), "{text}");
    assert!(text.contains("*A*000~"), "{text}");
    assert!(!text.contains("ST*"), "a TA1 alone: {text}");
    // The sender is found from ISA05/ISA06, as for a 997.
    let r = post_inbound(&s, &ta1, "");
    assert_eq!(r["partnerId"], "acme-retail", "{r}");
    assert_eq!(r["acknowledgements"][0]["kind"], "TA1", "{r}");
    assert_eq!(
        r["acknowledgements"][0]["interchange"],
        isa13.as_str(),
        "{r}"
    );
    assert_eq!(r["acknowledgements"][0]["documentId"], id.as_str(), "{r}");
    assert_eq!(r["acknowledgements"][0]["result"], "acknowledged", "{r}");
    let t = s.wait_status(&id, &["acknowledged"], 10);
    assert_eq!(
        statuses(&t),
        ["queued", "validated", "routed", "acknowledged"]
    );
    assert!(t["failureReason"].is_null(), "{t}");
    let ack = &t["partnerAcknowledgement"];
    assert_eq!(ack["kind"], "TA1", "{t}");
    assert_eq!(ack["ta1"]["controlNumber"], isa13.as_str(), "{t}");
    assert_eq!(ack["ta1"]["code"], "A", "{t}");
    assert_eq!(ack["ta1"]["status"], "accepted", "{t}");
    assert_eq!(ack["ta1"]["note"]["code"], "000", "{t}");
    assert_eq!(ack["ta1"]["carriedBy"], "000007101", "{t}");
    let last = t["statusHistory"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["reason"], "TA1 A (note 000) accepted", "{t}");
    wait_delivered(&s, &id, 3);
    let events = wait_events(&receiver, &id, 3);
    assert_eq!(
        kinds(&events),
        [
            ("document.validated", "validated"),
            ("document.routed", "routed"),
            ("document.partner_ack", "acknowledged")
        ]
    );
}

#[test]
fn a_rejecting_ta1_fails_the_document_with_partner_ack_then_error_and_its_note() {
    let (_partner, receiver, s, id, t) = routed_850();
    // The partner refused the envelope: TA104 = R, TA105 = 006 (invalid interchange
    // control number value). Written as the partner's tools would, from the core's TA1.
    let ta1 = String::from_utf8(ack_of("ta1", t["x12"].as_str().unwrap(), 7102)).unwrap();
    assert!(ta1.contains("*A*000~"), "{ta1}");
    let ta1 = ta1.replace("*A*000~", "*R*006~");
    let r = post_inbound(&s, ta1.as_bytes(), "?partnerId=acme-retail");
    assert_eq!(r["acknowledgements"][0]["kind"], "TA1", "{r}");
    assert_eq!(r["acknowledgements"][0]["code"], "R", "{r}");
    assert_eq!(r["acknowledgements"][0]["result"], "failed", "{r}");
    let t = s.wait_status(&id, &["failed"], 10);
    assert_eq!(statuses(&t), ["queued", "validated", "routed", "failed"]);
    assert_eq!(t["failureReason"], "TA1 R (note 006) rejected", "{t}");
    let ack = &t["partnerAcknowledgement"];
    assert_eq!(ack["kind"], "TA1", "{t}");
    assert_eq!(ack["ta1"]["code"], "R", "{t}");
    assert_eq!(ack["ta1"]["status"], "rejected", "{t}");
    assert_eq!(ack["ta1"]["note"]["code"], "006", "{t}");
    assert!(
        ack["ta1"]["note"]["description"]
            .as_str()
            .is_some_and(|d| !d.is_empty()),
        "{t}"
    );
    wait_delivered(&s, &id, 4);
    let events = wait_events(&receiver, &id, 4);
    assert_eq!(
        kinds(&events),
        [
            ("document.validated", "validated"),
            ("document.routed", "routed"),
            ("document.partner_ack", "failed"),
            ("document.error", "failed")
        ]
    );
}

/// A TA1 only says the envelope arrived: the 997 that follows decides, whether it
/// rejects the set (then `failed`) or accepts it (then `acknowledged` again, with it).
#[test]
fn a_997_after_an_accepting_ta1_decides_the_document() {
    let (_partner, receiver, s, rejected, t1) = routed_850();
    let accepted = send_850(&s);
    let t2 = s.wait_status(&accepted, &["routed"], 30);
    for (n, t) in [(7201, &t1), (7202, &t2)] {
        let ta1 = ack_of("ta1", t["x12"].as_str().unwrap(), n);
        let r = post_inbound(&s, &ta1, "");
        assert_eq!(r["acknowledgements"][0]["result"], "acknowledged", "{r}");
    }
    s.wait_status(&rejected, &["acknowledged"], 10);
    s.wait_status(&accepted, &["acknowledged"], 10);
    // The partner's 997s come later: the first rejects its set, the second accepts.
    let ack = ack_997(&without_beg03(t1["x12"].as_str().unwrap()), 7203);
    let r = post_inbound(&s, &ack, "");
    assert_eq!(
        r["acknowledgements"][0]["documentId"],
        rejected.as_str(),
        "{r}"
    );
    assert_eq!(r["acknowledgements"][0]["result"], "failed", "{r}");
    let ack = ack_997(t2["x12"].as_str().unwrap(), 7204);
    let r = post_inbound(&s, &ack, "");
    assert_eq!(
        r["acknowledgements"][0]["documentId"],
        accepted.as_str(),
        "{r}"
    );
    assert_eq!(r["acknowledgements"][0]["result"], "acknowledged", "{r}");

    let t = s.wait_status(&rejected, &["failed"], 10);
    assert_eq!(
        statuses(&t),
        ["queued", "validated", "routed", "acknowledged", "failed"]
    );
    assert!(
        t["failureReason"]
            .as_str()
            .unwrap()
            .starts_with("997 set 0001 (850 R"),
        "{t}"
    );
    let ack = &t["partnerAcknowledgement"];
    assert_eq!(ack["kind"], "997", "{t}");
    assert_eq!(
        ack["group"]["transactions"][0]["segmentErrors"][0]["segmentId"], "BEG",
        "{t}"
    );
    assert_eq!(ack["ta1"]["code"], "A", "the TA1 is kept beside it: {t}");
    wait_delivered(&s, &rejected, 5);
    let events = wait_events(&receiver, &rejected, 5);
    assert_eq!(
        kinds(&events)[2..],
        [
            ("document.partner_ack", "acknowledged"),
            ("document.partner_ack", "failed"),
            ("document.error", "failed")
        ]
    );

    let t = s.transaction(&accepted);
    assert_eq!(t["status"], "acknowledged");
    assert_eq!(
        statuses(&t),
        [
            "queued",
            "validated",
            "routed",
            "acknowledged",
            "acknowledged"
        ]
    );
    assert_eq!(t["partnerAcknowledgement"]["kind"], "997", "{t}");
    assert_eq!(t["partnerAcknowledgement"]["ta1"]["code"], "A", "{t}");
    // Once a 997 has spoken, another acknowledgement changes nothing.
    let ta1 = ack_of("ta1", t2["x12"].as_str().unwrap(), 7205);
    let ta1 = String::from_utf8(ta1)
        .unwrap()
        .replace("*A*000~", "*R*006~");
    let r = post_inbound(&s, ta1.as_bytes(), "");
    assert_eq!(
        r["acknowledgements"][0]["result"], "ignored: the document is acknowledged",
        "{r}"
    );
    let r = post_inbound(&s, &ack_997(t2["x12"].as_str().unwrap(), 7206), "");
    assert_eq!(
        r["acknowledgements"][0]["result"], "ignored: the document is acknowledged",
        "{r}"
    );
    assert_eq!(
        s.transaction(&accepted)["statusHistory"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
}

#[test]
fn an_accepting_999_acknowledges_the_set() {
    let (_partner, receiver, s, id, t) = routed_850();
    let ack = ack_of("999", t["x12"].as_str().unwrap(), 7103);
    let text = String::from_utf8_lossy(&ack).into_owned();
    assert!(text.contains("ST*999*") && text.contains("IK5*A"), "{text}");
    let r = post_inbound(&s, &ack, "");
    assert_eq!(r["acknowledgements"][0]["kind"], "999", "{r}");
    assert_eq!(r["acknowledgements"][0]["transaction"], "0001", "{r}");
    assert_eq!(r["acknowledgements"][0]["result"], "acknowledged", "{r}");
    let t = s.wait_status(&id, &["acknowledged"], 10);
    assert_eq!(
        statuses(&t),
        ["queued", "validated", "routed", "acknowledged"]
    );
    let group = &t["partnerAcknowledgement"]["group"];
    assert_eq!(t["partnerAcknowledgement"]["kind"], "999", "{t}");
    assert_eq!(group["kind"], "999", "{t}");
    assert_eq!(group["functionalId"], "PO", "{t}");
    assert_eq!(group["code"], "A", "{t}");
    assert_eq!(group["transactions"][0]["code"], "A", "{t}");
    assert_eq!(group["transactions"][0]["type"], "850", "{t}");
    assert!(
        group["transactions"][0].get("segmentErrors").is_none(),
        "{t}"
    );
    wait_delivered(&s, &id, 3);
    let events = wait_events(&receiver, &id, 3);
    assert_eq!(
        kinds(&events).last().copied(),
        Some(("document.partner_ack", "acknowledged"))
    );
}

#[test]
fn a_rejecting_999_fails_the_document_with_the_ik3_ik4_ik5_details() {
    let (_partner, receiver, s, id, t) = routed_850();
    let ack = ack_of("999", &without_beg03(t["x12"].as_str().unwrap()), 7104);
    let text = String::from_utf8_lossy(&ack).into_owned();
    assert!(
        text.contains("IK3*BEG*") && text.contains("IK4*3*") && text.contains("IK5*R"),
        "{text}"
    );
    let r = post_inbound(&s, &ack, "?partnerId=acme-retail");
    assert_eq!(r["acknowledgements"][0]["kind"], "999", "{r}");
    assert_eq!(r["acknowledgements"][0]["code"], "R", "{r}");
    assert_eq!(r["acknowledgements"][0]["result"], "failed", "{r}");
    let t = s.wait_status(&id, &["failed"], 10);
    assert_eq!(statuses(&t), ["queued", "validated", "routed", "failed"]);
    let reason = t["failureReason"].as_str().unwrap();
    assert!(
        reason.starts_with("999 set 0001 (850 R") && reason.ends_with("rejected"),
        "{reason}"
    );
    // What GET /transactions/{id} shows: IK5 code and errors, IK3 segment, IK4 element.
    let group = &t["partnerAcknowledgement"]["group"];
    assert_eq!(t["partnerAcknowledgement"]["kind"], "999", "{t}");
    assert_eq!(group["code"], "R", "{t}");
    let set = &group["transactions"][0];
    assert_eq!(set["code"], "R", "{t}");
    assert_eq!(set["status"], "rejected", "{t}");
    assert!(!set["errors"].as_array().unwrap().is_empty(), "IK502: {t}");
    let seg = &set["segmentErrors"][0];
    assert_eq!(seg["segmentId"], "BEG", "{t}");
    assert_eq!(seg["position"], 2, "IK302, ST = 1: {t}");
    assert_eq!(
        seg["error"]["code"], "8",
        "IK304 (data element errors): {t}"
    );
    let element = &seg["elements"][0];
    assert_eq!(element["position"], 3, "IK401: {t}");
    assert_eq!(
        element["error"]["code"], "1",
        "IK403 (required data element missing): {t}"
    );
    assert!(element["error"]["description"].is_string(), "{t}");
    assert_eq!(set["errors"][0]["code"], "5", "IK502: {t}");
    wait_delivered(&s, &id, 4);
    let events = wait_events(&receiver, &id, 4);
    assert_eq!(
        kinds(&events)[2..],
        [
            ("document.partner_ack", "failed"),
            ("document.error", "failed")
        ]
    );
}

#[test]
fn inbound_documents_are_answered_with_a_999_when_the_partner_asks_for_999() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let mut settings = http_partner(&partner.url, None);
    settings.insert_str(0, "acknowledge_inbound = \"999\"\n");
    let s = Server::start_with(Options::lifecycle(&settings, &receiver.url));
    let edi = std::fs::read(repo_root().join("examples/x12/purchase-orders-850.edi")).unwrap();
    let r = post_inbound(&s, &edi, "?partnerId=acme-retail");
    assert_eq!(r["transactions"].as_array().unwrap().len(), 2, "{r}");
    assert_eq!(r["acknowledgementReply"]["documentTypeCode"], "999", "{r}");
    let reply = r["acknowledgementReply"]["documentId"]
        .as_str()
        .unwrap()
        .to_string();
    let t = s.wait_status(&reply, &["routed", "failed"], 30);
    assert_eq!(t["status"], "routed", "{t}");
    assert_eq!(t["documentTypeCode"], "999");
    let x12 = t["x12"].as_str().unwrap();
    assert!(
        x12.contains("ST*999*")
            && x12.contains("AK1*PO*101")
            && x12.contains("AK2*850*0001")
            && x12.contains("IK5*A")
            && x12.contains("AK9*A*2*2*2"),
        "{x12}"
    );
    assert!(!x12.contains("ST*997*"), "{x12}");
    // The partner got it once, as routed; the core reads it back as a 999 accepting
    // both sets of group 101.
    let got = partner.received();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].key, reply);
    assert_eq!(got[0].body, x12);
    let read = x12kit::ops::read_acknowledgement(got[0].body.as_bytes());
    assert_eq!(read.group_acks.len(), 1);
    assert_eq!(read.group_acks[0].kind, "999");
    assert_eq!(read.group_acks[0].group_control_number, "101");
    assert_eq!(read.group_acks[0].transactions.len(), 2);
    // Its control numbers come from the partner's sequence, as outbound documents' do.
    assert_eq!(t["controlNumbers"]["interchange"], 1, "{t}");
    assert_eq!(t["direction"], "outbound");
}

#[test]
fn no_acknowledgement_within_the_window_fails_the_document() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let s = Server::start_with(Options::lifecycle(
        &http_partner(&partner.url, Some(1)),
        &receiver.url,
    ));
    let id = send_850(&s);
    let t = s.wait_status(&id, &["failed"], 30);
    assert_eq!(statuses(&t), ["queued", "validated", "routed", "failed"]);
    assert!(
        t["failureReason"]
            .as_str()
            .unwrap()
            .contains("no acknowledgement from the partner within 1 s"),
        "{t}"
    );
    // A late 997 no longer changes it.
    let r = post_inbound(&s, &ack_997(t["x12"].as_str().unwrap(), 7003), "");
    assert_eq!(
        r["acknowledgements"][0]["result"],
        "ignored: the document is failed"
    );
}

#[test]
fn http_transport_retries_with_backoff_then_routes_or_fails() {
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    // Two 503s, then 200: routed on the third attempt.
    let flaky = Partner::start(2, 200, Duration::ZERO);
    let s = Server::start_with(Options::lifecycle(
        &http_partner(&flaky.url, None),
        &receiver.url,
    ));
    let id = send_850(&s);
    let t = s.wait_status(&id, &["routed"], 30);
    let attempts = t["routingAttempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 3, "{t}");
    assert_eq!(attempts[0]["result"], "HTTP 503");
    assert_eq!(attempts[2]["result"], "HTTP 200");
    assert_eq!(flaky.received().len(), 1);
    assert!(t["acknowledgementDueAt"].is_null());
    drop(s);
    // Always 500: failed after 1 + 3 retries.
    let down = Partner::start(0, 500, Duration::ZERO);
    let s = Server::start_with(Options::lifecycle(
        &http_partner(&down.url, None),
        &receiver.url,
    ));
    let id = send_850(&s);
    let t = s.wait_status(&id, &["failed"], 30);
    assert_eq!(t["routingAttempts"].as_array().unwrap().len(), 4, "{t}");
    assert!(
        t["failureReason"]
            .as_str()
            .unwrap()
            .contains("HTTP 500 after 4 attempts")
    );
    assert_eq!(down.attempts(&id), 4);
    wait_delivered(&s, &id, 2);
    let kinds: Vec<String> = events_for(&receiver, &id)
        .into_iter()
        .map(|e| e.0)
        .collect();
    assert!(
        kinds.ends_with(&["document.error".to_string()]),
        "{kinds:?}"
    );
    // A 4xx other than 408/429 is not retried.
    let refusing = Partner::start(0, 403, Duration::ZERO);
    let s = Server::start_with(Options::lifecycle(
        &http_partner(&refusing.url, None),
        &receiver.url,
    ));
    let id = send_850(&s);
    let t = s.wait_status(&id, &["failed"], 30);
    assert_eq!(t["routingAttempts"].as_array().unwrap().len(), 1, "{t}");
}

#[test]
fn directory_transport_writes_the_outbox_atomically_and_reads_acks_from_the_inbox() {
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let files = tempfile::tempdir().unwrap();
    let outbox = files.path().join("out");
    let inbox = files.path().join("in");
    let settings = format!(
        "ack_window_seconds = 60\n[accounts.partners.transport]\nkind = \"directory\"\noutbox = {:?}\ninbox = {:?}\n",
        outbox.to_string_lossy(),
        inbox.to_string_lossy()
    );
    let s = Server::start_with(Options::lifecycle(&settings, &receiver.url));
    let id = send_850(&s);
    let t = s.wait_status(&id, &["routed"], 30);
    let n = t["controlNumbers"]["interchange"].as_i64().unwrap();
    let name = format!("{n:09}-{id}.x12");
    let written = std::fs::read_to_string(outbox.join(&name)).unwrap();
    assert_eq!(written, t["x12"].as_str().unwrap());
    let names: Vec<String> = std::fs::read_dir(&outbox)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, [name], "no temporary file is left behind");
    // The partner drops its 997 in the inbox (atomically, as partners should).
    std::fs::create_dir_all(&inbox).unwrap();
    std::fs::write(inbox.join(".ack.tmp"), ack_997(&written, 8001)).unwrap();
    std::fs::rename(inbox.join(".ack.tmp"), inbox.join("ack-8001.x12")).unwrap();
    let t = s.wait_status(&id, &["acknowledged"], 30);
    assert_eq!(
        statuses(&t),
        ["queued", "validated", "routed", "acknowledged"]
    );
    wait_for(10, "the inbox file moved to processed/", || {
        inbox.join("processed/ack-8001.x12").exists().then_some(())
    });
    assert!(!inbox.join("ack-8001.x12").exists());
    // Not X12: moved to rejected/.
    std::fs::write(inbox.join("junk.txt"), "hello").unwrap();
    wait_for(10, "junk moved to rejected/", || {
        inbox.join("rejected/junk.txt").exists().then_some(())
    });
}

#[test]
fn inbound_documents_are_recorded_with_their_mapped_document_and_answered_with_a_997() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    let mut settings = http_partner(&partner.url, None);
    settings.insert_str(0, "acknowledge_inbound = \"997\"\n");
    let s = Server::start_with(Options::lifecycle(&settings, &receiver.url));
    let edi = std::fs::read(repo_root().join("examples/x12/purchase-orders-850.edi")).unwrap();
    let r = post_inbound(&s, &edi, "?partnerId=acme-retail");
    let sets = r["transactions"].as_array().unwrap();
    assert_eq!(sets.len(), 2, "{r}");
    let inbound = s.transaction(sets[0]["documentId"].as_str().unwrap());
    assert_eq!(inbound["direction"], "inbound");
    assert_eq!(inbound["status"], "received");
    assert_eq!(inbound["documentTypeCode"], "850");
    assert!(
        inbound["document"]["purchaseOrderNumber"].is_string(),
        "{inbound}"
    );
    // The 997 answer goes out through the partner's transport.
    let reply = r["acknowledgementReply"]["documentId"]
        .as_str()
        .unwrap()
        .to_string();
    let t = s.wait_status(&reply, &["routed"], 30);
    assert_eq!(t["documentTypeCode"], "997");
    let x12 = t["x12"].as_str().unwrap();
    assert!(
        x12.contains("AK1*PO*101") && x12.contains("AK9*A*2*2*2"),
        "{x12}"
    );
    assert_eq!(partner.received()[0].key, reply);
    // Filter by direction's status.
    let v: Value = s
        .get("/api/v1/transactions?status=received", ALPHA)
        .json()
        .unwrap();
    assert_eq!(v["data"].as_array().unwrap().len(), 2);
    // An unknown sender without partnerId is 404; not X12 is 422.
    let r = s
        .post("/api/v1/documents/inbound", ALPHA)
        .header("content-type", "application/edi-x12")
        .body(edi.clone())
        .send()
        .unwrap();
    error_body(r, 404, "PARTNER_NOT_FOUND");
    let r = s
        .post("/api/v1/documents/inbound?partnerId=acme-retail", ALPHA)
        .header("content-type", "text/plain")
        .body("hello")
        .send()
        .unwrap();
    error_body(r, 422, "NOT_X12");
    let r = s
        .post("/api/v1/documents/inbound?partnerId=acme-retail", BETA)
        .header("content-type", "application/edi-x12")
        .body(edi)
        .send()
        .unwrap();
    error_body(r, 404, "PARTNER_NOT_FOUND");
}

#[test]
fn a_receiver_failing_three_times_still_gets_every_event_under_the_same_delivery_id() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let receiver = Receiver::start(&[ALPHA_SECRET], 3);
    let s = Server::start_with(Options::lifecycle(
        &http_partner(&partner.url, None),
        &receiver.url,
    ));
    let id = send_850(&s);
    let t = wait_delivered(&s, &id, 2);
    for d in t["webhookDeliveries"].as_array().unwrap() {
        assert_eq!(d["attempts"], 4, "{d}");
        let log: Vec<&Value> = d["attemptLog"].as_array().unwrap().iter().collect();
        assert_eq!(
            log.iter()
                .map(|a| a["httpStatus"].as_i64().unwrap())
                .collect::<Vec<_>>(),
            [503, 503, 503, 200]
        );
    }
    let events = events_for(&receiver, &id);
    assert_eq!(events.len(), 2);
    for (_, _, delivery) in &events {
        assert!(
            t["webhookDeliveries"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["id"] == delivery.as_str())
        );
    }
}

#[test]
fn during_a_rotation_every_secret_signs_so_old_and_new_receivers_verify() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let old = Receiver::start(&["whsec_old"], 0);
    let mut options = Options::lifecycle(&http_partner(&partner.url, None), &old.url);
    options.secrets = Some(vec!["whsec_new".into(), "whsec_old".into()]);
    let s = Server::start_with(options);
    let id = send_850(&s);
    wait_delivered(&s, &id, 2);
    assert_eq!(events_for(&old, &id).len(), 2);
    drop(s);
    let new = Receiver::start(&["whsec_new"], 0);
    let mut options = Options::lifecycle(&http_partner(&partner.url, None), &new.url);
    options.secrets = Some(vec!["whsec_new".into(), "whsec_old".into()]);
    let s = Server::start_with(options);
    let id = send_850(&s);
    wait_delivered(&s, &id, 2);
    assert_eq!(events_for(&new, &id).len(), 2);
    // A receiver with neither secret rejects every attempt: the delivery is retried, then failed.
    let other = Receiver::start(&["whsec_other"], 0);
    let mut options = Options::lifecycle(&http_partner(&partner.url, None), &other.url);
    options.workers_toml = FAST_WORKERS.replace("[200, 400, 800, 1600, 3200]", "[100, 100]");
    let s = Server::start_with(options);
    let id = send_850(&s);
    let t = wait_for(30, "deliveries failed", || {
        let t = s.transaction(&id);
        let d = t["webhookDeliveries"].as_array().unwrap();
        (d.len() == 2 && d.iter().all(|d| d["state"] == "failed")).then_some(t)
    });
    for d in t["webhookDeliveries"].as_array().unwrap() {
        assert_eq!(d["attempts"], 3);
        assert_eq!(d["lastResult"], "HTTP 400");
    }
    assert!(other.received().is_empty());
    assert_eq!(s.stats()["webhooks"]["failed"], 2);
}

#[test]
fn a_restart_resumes_queued_documents_and_control_numbers_stay_unique_under_concurrency() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let receiver = Receiver::start(&[ALPHA_SECRET], 0);
    // An API-only process accepts 8 threads x 10 documents at once.
    let mut options = Options::lifecycle(&http_partner(&partner.url, None), &receiver.url);
    options.workers = false;
    let s = Server::start_with(options.clone());
    let p = payload("850");
    let ids: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| {
                    (0..10)
                        .map(|_| {
                            let r = s.send("/api/v1", ALPHA, "acme-retail", "850", &p);
                            assert_eq!(r.status(), 202);
                            r.json::<Value>().unwrap()["documentId"]
                                .as_str()
                                .unwrap()
                                .to_string()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(s.stats()["documents"]["queued"], 80);
    // The same database with workers: everything is picked up.
    let mut s = s;
    s.set_options(Options {
        workers: true,
        ..options
    });
    let s = s.restart();
    let mut numbers = HashSet::new();
    for id in &ids {
        let t = s.wait_status(id, &["routed"], 60);
        assert!(numbers.insert(t["controlNumbers"]["interchange"].as_i64().unwrap()));
    }
    assert_eq!(numbers, (1..=80).collect::<HashSet<i64>>());
    let keys: HashSet<String> = partner.received().into_iter().map(|r| r.key).collect();
    assert_eq!(keys.len(), 80);
    assert_eq!(partner.received().len(), 80);
}

/// Receivers reject stale and tampered deliveries and deduplicate by delivery id (Rust and Python).
#[test]
fn the_receiver_examples_verify_reject_and_deduplicate() {
    let client = reqwest::blocking::Client::new();
    for receiver in [
        Receiver::start(&["s3cret"], 0),
        Receiver::start_python(&["s3cret"], 0),
    ] {
        let now = x12kit::webhook::system_now().as_secs();
        let data = json!({"documentId": "doc_1", "partnerId": "p", "documentTypeCode": "850", "status": "validated"});
        let d = x12kit::ops::webhook_deliver(b"s3cret", "document.validated", &data, now).unwrap();
        let post = |body: &[u8], headers: &[(&str, String)]| {
            let mut r = client.post(&receiver.url).body(body.to_vec());
            for (k, v) in headers {
                r = r.header(*k, v);
            }
            let r = r.send().unwrap();
            (r.status().as_u16(), r.json::<Value>().unwrap())
        };
        let headers: Vec<(&str, String)> =
            d.headers().iter().map(|(k, v)| (*k, v.clone())).collect();
        let (status, v) = post(d.body(), &headers);
        assert_eq!((status, v["duplicate"].clone()), (200, json!(false)), "{v}");
        let (status, v) = post(d.body(), &headers);
        assert_eq!((status, v["duplicate"].clone()), (200, json!(true)), "{v}");
        // Tampered body.
        let mut body = d.body().to_vec();
        let at = body.iter().position(|b| *b == b'1').unwrap();
        body[at] = b'2';
        let (status, v) = post(&body, &headers);
        assert_eq!(
            (status, v["code"].as_str()),
            (400, Some("SIGNATURE_MISMATCH")),
            "{v}"
        );
        // Stale: signed 10 minutes ago.
        let old =
            x12kit::ops::webhook_deliver(b"s3cret", "document.routed", &data, now - 600).unwrap();
        let headers: Vec<(&str, String)> =
            old.headers().iter().map(|(k, v)| (*k, v.clone())).collect();
        let (status, v) = post(old.body(), &headers);
        assert_eq!(
            (status, v["code"].as_str()),
            (400, Some("TIMESTAMP_OUT_OF_TOLERANCE")),
            "{v}"
        );
        // Wrong secret.
        let other = x12kit::ops::webhook_deliver(b"other", "document.routed", &data, now).unwrap();
        let headers: Vec<(&str, String)> = other
            .headers()
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        let (status, v) = post(other.body(), &headers);
        assert_eq!(
            (status, v["code"].as_str()),
            (400, Some("SIGNATURE_MISMATCH")),
            "{v}"
        );
        assert_eq!(receiver.received().len(), 1);
    }
}

#[test]
fn the_python_receiver_gets_the_servers_deliveries() {
    let partner = Partner::start(0, 200, Duration::ZERO);
    let receiver = Receiver::start_python(&[ALPHA_SECRET], 1);
    let s = Server::start_with(Options::lifecycle(
        &http_partner(&partner.url, None),
        &receiver.url,
    ));
    let id = send_850(&s);
    let t = wait_delivered(&s, &id, 2);
    let events = events_for(&receiver, &id);
    assert_eq!(events.len(), 2);
    for d in t["webhookDeliveries"].as_array().unwrap() {
        assert_eq!(d["attempts"], 2);
    }
}
