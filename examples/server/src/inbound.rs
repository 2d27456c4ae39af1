//! X12 from partners: `POST /documents/inbound` and the `directory` transports'
//! inbox folders. (The endpoint goes beyond the service's specification.)
//!
//! TA1, 997 and 999 are read with the core (`ops::read_acknowledgement`) and
//! matched to the documents sent to that partner by control numbers (TA1:
//! ISA13; 997/999: GS06 from AK102/IK... and ST02 from AK202): accepted →
//! `acknowledged` + `document.partner_ack`; rejected → `failed` +
//! `document.partner_ack`, then `document.error`, with the acknowledgement
//! (AK3/AK4/AK5 or IK3/IK4/IK5 and their codes) stored. Other sets are recorded
//! as inbound transactions with their mapped document (the core's parse) and,
//! when the partner is configured with `acknowledge_inbound`, answered with a
//! 997/999 made by the core (`ops::acknowledge`) that goes out as an outbound
//! document through the partner's transport. Each interchange is taken once
//! (by account, partner and ISA13): a file read again after a crash, or a
//! resent interchange, is reported as a duplicate and not processed twice.

use crate::api::App;
use crate::db::{Db, DbError, DbResult, Val};
use crate::error::{ApiError, ApiResult};
use crate::lifecycle::{Changes, DocKey, transition};
use crate::settings::Partner;
use crate::store::now_ms;
use crate::vals;
use axum::http::StatusCode;
use serde_json::{Value, json};
use std::sync::Arc;
use tracing::Instrument;
use x12kit::ops;
use x12kit::webhook::EventKind;

/// What the core read from an inbound body.
struct Read {
    acks: x12kit::ack::Acknowledgements,
    parsed: Value,
}

fn read(input: &[u8]) -> ApiResult<Read> {
    let run = std::panic::catch_unwind(|| {
        let acks = ops::read_acknowledgement(input);
        let parsed: Value = serde_json::from_slice(&ops::parse_json(
            input,
            &ops::ParseOptions { documents: true },
        ))
        .unwrap_or(Value::Null);
        Read { acks, parsed }
    });
    run.map_err(|_| {
        tracing::error!("the core panicked reading an inbound interchange");
        ApiError::internal()
    })
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().trim().to_string()
}

fn number(v: &Value) -> Option<i64> {
    v.as_str().and_then(|s| s.trim().parse::<i64>().ok())
}

/// The account's partner that sent `parsed` (ISA05/ISA06 = the profile's receiver).
fn sender_partner(app: &App, account: &str, parsed: &Value) -> Option<Arc<Partner>> {
    let header = &parsed["interchanges"][0]["header"];
    let (q, id) = (text(&header["senderQualifier"]), text(&header["senderId"]));
    let settings = app.settings.current();
    let acct = settings.account(account)?;
    acct.partners
        .values()
        .find(|p| {
            p.profile["receiver"]["qualifier"].as_str() == Some(q.as_str())
                && p.profile["receiver"]["id"].as_str().map(str::trim) == Some(id.as_str())
        })
        .cloned()
}

/// Takes one inbound body for the account; `partner` names the sender when known.
pub async fn receive(
    app: &Arc<App>,
    account: &str,
    partner: Option<&str>,
    input: Vec<u8>,
    source: &'static str,
) -> ApiResult<Value> {
    receive_then(app, account, partner, input, source, |_, _| Ok(())).await
}

/// [`receive`], with `then` run in the same store transaction after the body was applied
/// (the SFTP and AS2 transports record what they took with it, so that a crash never
/// applies a file or message twice).
pub async fn receive_then(
    app: &Arc<App>,
    account: &str,
    partner: Option<&str>,
    input: Vec<u8>,
    source: &'static str,
    then: impl FnOnce(&dyn Db, &Value) -> ApiResult<()> + Send + 'static,
) -> ApiResult<Value> {
    let (read, input) = tokio::task::spawn_blocking(move || read(&input).map(|r| (r, input)))
        .await
        .map_err(|_| ApiError::internal())??;
    let interchanges = read.parsed["interchanges"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if interchanges.is_empty() {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "NOT_X12",
            "the body holds no X12 interchange",
        )
        .with_details(
            read.parsed["diagnostics"]
                .as_array()
                .into_iter()
                .flatten()
                .take(20)
                .map(|d| {
                    crate::error::Detail::error(
                        "NOT_X12",
                        "",
                        format!("{}: {}", text(&d["code"]), text(&d["message"])),
                    )
                })
                .collect(),
        ));
    }
    let partner = match partner {
        Some(id) => crate::lifecycle::partner(app, account, id).ok_or_else(|| {
                ApiError::not_found(
                    "PARTNER_NOT_FOUND",
                    format!("no trading partner {id:?} in this account"),
                )
            })?,
        None => sender_partner(app, account, &read.parsed).ok_or_else(|| {
            let h = &interchanges[0]["header"];
            ApiError::not_found(
                "PARTNER_NOT_FOUND",
                format!(
                    "no trading partner of this account sends as {}/{} (ISA05/ISA06); name it with ?partnerId=",
                    text(&h["senderQualifier"]),
                    text(&h["senderId"])
                ),
            )
        })?,
    };
    let app2 = app.clone();
    let account = account.to_string();
    let result = app
        .store
        .write(move |c| {
            let result = apply(c, &app2, &account, &partner, &read, &input, source)?;
            then(c, &result)?;
            Ok(result)
        })
        .await?;
    app.wake.validate.notify_one();
    app.wake.deliver.notify_one();
    Ok(result)
}

fn db(e: DbError) -> ApiError {
    tracing::error!(error = %e, "store write failed (inbound)");
    ApiError::internal()
}

struct Target {
    key: DocKey,
    status: String,
    /// The partner's acknowledgement stored so far (JSON).
    partner_ack: Option<String>,
}

impl Target {
    /// The stored acknowledgement when it is a TA1 only (the envelope accepted, the
    /// functional acknowledgement still to come).
    fn ta1_only(&self) -> Option<Value> {
        let v: Value = serde_json::from_str(self.partner_ack.as_deref()?).ok()?;
        (v["kind"] == "TA1").then(|| v["ta1"].clone())
    }
}

fn find(c: &dyn Db, sql: &str, p: &[Val]) -> DbResult<Vec<Target>> {
    c.query(sql, p)?
        .iter()
        .map(|r| {
            Ok(Target {
                key: DocKey {
                    id: r.get(0)?,
                    account: r.get(1)?,
                    partner_id: r.get(2)?,
                    document_type: r.get(3)?,
                    resend: false,
                },
                status: r.get(4)?,
                partner_ack: r.get(5)?,
            })
        })
        .collect()
}

const TARGET: &str =
    "SELECT id, account, partner_id, document_type, status, partner_ack FROM documents
     WHERE account = ?1 AND partner_id = ?2 AND direction = 'outbound'";

#[allow(clippy::too_many_arguments)]
fn settle(
    c: &dyn Db,
    app: &App,
    targets: Vec<Target>,
    accepted: bool,
    ack: &Value,
    what: &str,
    out: &mut Vec<Value>,
    entry: &Value,
) -> ApiResult<()> {
    if targets.is_empty() {
        let mut e = entry.clone();
        e["documentId"] = Value::Null;
        e["result"] = json!("no document sent to this partner has these control numbers");
        out.push(e);
    }
    for t in targets {
        let mut e = entry.clone();
        e["documentId"] = json!(t.key.id);
        // A TA1 says the envelope was accepted; the 997/999 that may follow says what
        // became of the set, so it decides a document a TA1 alone acknowledged (the TA1
        // is kept beside it). Anything else settles a `routed` document only.
        let earlier_ta1 = if t.status == "acknowledged" && ack["kind"] != "TA1" {
            t.ta1_only()
        } else {
            None
        };
        if t.status != "routed" && earlier_ta1.is_none() {
            e["result"] = json!(format!("ignored: the document is {}", t.status));
            out.push(e);
            continue;
        }
        let from = if earlier_ta1.is_some() {
            "acknowledged"
        } else {
            "routed"
        };
        let mut ack = ack.clone();
        if let Some(ta1) = earlier_ta1 {
            ack["ta1"] = ta1;
        }
        let ack_text = ack.to_string();
        let done = if accepted {
            transition(
                c,
                &app.settings.current(),
                &t.key,
                from,
                "acknowledged",
                &format!("{what} accepted"),
                &[EventKind::DocumentPartnerAck],
                Changes {
                    partner_ack: Some(ack_text),
                    ..Changes::default()
                },
            )
        } else {
            let reason = format!("{what} rejected");
            transition(
                c,
                &app.settings.current(),
                &t.key,
                from,
                "failed",
                &reason,
                &[EventKind::DocumentPartnerAck, EventKind::DocumentError],
                Changes {
                    partner_ack: Some(ack_text),
                    failure: Some(reason.clone()),
                    ..Changes::default()
                },
            )
        }
        .map_err(db)?;
        e["result"] = json!(match (done, accepted) {
            (true, true) => "acknowledged",
            (true, false) => "failed",
            (false, _) => "ignored: the document changed meanwhile",
        });
        out.push(e);
    }
    Ok(())
}

fn apply(
    c: &dyn Db,
    app: &App,
    account: &str,
    partner: &Partner,
    read: &Read,
    input: &[u8],
    source: &str,
) -> ApiResult<Value> {
    let now = now_ms();
    // Each interchange once.
    let mut fresh = std::collections::HashSet::new();
    let mut interchanges = Vec::new();
    for i in read.parsed["interchanges"].as_array().into_iter().flatten() {
        let control_text = text(&i["header"]["controlNumber"]);
        let Some(control) = number(&i["header"]["controlNumber"]) else {
            interchanges.push(json!({"controlNumber": control_text, "duplicate": false, "result": "no readable ISA13: skipped"}));
            continue;
        };
        let seen: Option<i64> = c
            .one(
                "SELECT received_at FROM inbound_interchanges WHERE account = ?1 AND partner_id = ?2 AND control = ?3",
                vals![account, &partner.id, control],
            )
            .and_then(|r| r.map_or(Ok(None), |r| r.get(0)))
            .map_err(db)?;
        if let Some(at) = seen {
            interchanges.push(json!({"controlNumber": control_text, "duplicate": true,
                "result": format!("already received at {}: not processed again", crate::store::rfc3339(at))}));
            continue;
        }
        c.exec(
            "INSERT INTO inbound_interchanges (account, partner_id, control, received_at, source, result)
             VALUES (?1, ?2, ?3, ?4, ?5, '{}')",
            vals![account, &partner.id, control, now, source],
        )
        .map_err(db)?;
        fresh.insert(control_text.clone());
        interchanges.push(
            json!({"controlNumber": control_text, "duplicate": false, "result": "processed"}),
        );
    }
    let is_fresh = |carried_by: &str| fresh.contains(carried_by.trim());
    let mut acks = Vec::new();
    for ta1 in &read.acks.interchange_acks {
        if !is_fresh(&ta1.carried_by) {
            continue;
        }
        let Ok(n) = ta1.control_number.trim().parse::<i64>() else {
            continue;
        };
        let targets = find(
            c,
            &format!("{TARGET} AND interchange_control = ?3"),
            vals![account, &partner.id, n],
        )
        .map_err(db)?;
        let accepted = ta1.status.is_some_and(|s| s.is_accepted());
        let ack = serde_json::to_value(ta1).unwrap_or(Value::Null);
        let entry = json!({"kind": "TA1", "interchange": ta1.control_number, "code": ta1.code});
        let what = format!("TA1 {} (note {})", ta1.code, ta1.note.code);
        settle(
            c,
            app,
            targets,
            accepted,
            &json!({"kind": "TA1", "ta1": ack}),
            &what,
            &mut acks,
            &entry,
        )?;
    }
    for group in &read.acks.group_acks {
        if !is_fresh(&group.carried_by) {
            continue;
        }
        let Ok(g) = group.group_control_number.trim().parse::<i64>() else {
            continue;
        };
        let group_json = serde_json::to_value(group).unwrap_or(Value::Null);
        if group.transactions.is_empty() {
            // AK9/IK9 only: the whole group.
            let targets = find(
                c,
                &format!("{TARGET} AND group_control = ?3"),
                vals![account, &partner.id, g],
            )
            .map_err(db)?;
            let accepted = group.status.is_some_and(|s| s.is_accepted());
            let entry = json!({"kind": group.kind, "group": group.group_control_number, "code": group.code});
            let what = format!("{} group {} (AK9/IK9 {})", group.kind, g, group.code);
            settle(
                c,
                app,
                targets,
                accepted,
                &json!({"kind": group.kind, "group": group_json}),
                &what,
                &mut acks,
                &entry,
            )?;
            continue;
        }
        for set in &group.transactions {
            let Ok(t) = set.control_number.trim().parse::<i64>() else {
                continue;
            };
            let targets = find(
                c,
                &format!("{TARGET} AND group_control = ?3 AND transaction_control = ?4"),
                vals![account, &partner.id, g, t],
            )
            .map_err(db)?;
            let accepted = set.status.is_some_and(|s| s.is_accepted());
            let mut only = group_json.clone();
            only["transactions"] = json!([serde_json::to_value(set).unwrap_or(Value::Null)]);
            let entry = json!({"kind": group.kind, "group": group.group_control_number,
                "transaction": set.control_number, "code": set.code});
            let codes: Vec<&str> = set.errors.iter().map(|e| e.code.as_str()).collect();
            let what = if codes.is_empty() {
                format!(
                    "{} set {} ({} {})",
                    group.kind, set.control_number, set.kind, set.code
                )
            } else {
                format!(
                    "{} set {} ({} {}, errors {})",
                    group.kind,
                    set.control_number,
                    set.kind,
                    set.code,
                    codes.join(" ")
                )
            };
            settle(
                c,
                app,
                targets,
                accepted,
                &json!({"kind": group.kind, "group": only}),
                &what,
                &mut acks,
                &entry,
            )?;
        }
    }
    // Other sets: inbound transactions with their mapped documents.
    let mut received = Vec::new();
    for i in read.parsed["interchanges"].as_array().into_iter().flatten() {
        let ic = text(&i["header"]["controlNumber"]);
        if !fresh.contains(&ic) {
            continue;
        }
        for g in i["groups"].as_array().into_iter().flatten() {
            for t in g["transactions"].as_array().into_iter().flatten() {
                let kind = text(&t["type"]);
                if crate::lifecycle::is_ack_type(&kind) {
                    continue;
                }
                let id = format!("doc_{}", uuid::Uuid::now_v7().simple());
                let document = t.get("document").cloned().unwrap_or(Value::Null);
                c.exec(
                    "INSERT INTO documents (id, account, partner_id, document_type, direction, status, created_at,
                        updated_at, interchange_control, group_control, transaction_control, payload, x12, reference)
                     VALUES (?1, ?2, ?3, ?4, 'inbound', 'received', ?5, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                    vals![
                        &id,
                        account,
                        &partner.id,
                        &kind,
                        now,
                        number(&i["header"]["controlNumber"]),
                        number(&g["header"]["controlNumber"]),
                        number(&t["controlNumber"]),
                        document.to_string(),
                        input,
                        crate::x12::reference(&kind, &document)
                    ],
                )
                .map_err(db)?;
                c.exec(
                    "INSERT INTO status_history (document_id, status, reason, at) VALUES (?1, 'received', ?2, ?3)",
                    vals![&id, format!("received from the partner ({source})"), now],
                )
                .map_err(db)?;
                received.push(json!({"documentId": id, "documentTypeCode": kind}));
            }
        }
    }
    // The acknowledgement the partner asked for, as an outbound document.
    let mut reply = Value::Null;
    if let (Some(kind), false) = (&partner.acknowledge_inbound, received.is_empty()) {
        let number = crate::store::next_control(c, account, &partner.id)?;
        let options: ops::AcknowledgeOptions = ops::options(json!({
            "kind": kind,
            "interchangeControlNumber": number,
            "groupControlNumber": number,
            "setControlNumber": number,
        }))
        .map_err(|e| ApiError::from_core(&e))?;
        let at = x12kit::DateTime::from_unix((now / 1000).max(0) as u64);
        let x12 = std::panic::catch_unwind(|| ops::acknowledge(input, &options, at))
            .map_err(|_| ApiError::internal())?
            .map_err(|e| ApiError::from_core(&e))?;
        let id = format!("doc_{}", uuid::Uuid::now_v7().simple());
        let about: Vec<&Value> = received.iter().map(|r| &r["documentId"]).collect();
        c.exec(
            "INSERT INTO documents (id, account, partner_id, document_type, direction, status, created_at,
                updated_at, interchange_control, group_control, transaction_control, payload, x12)
             VALUES (?1, ?2, ?3, ?4, 'outbound', 'queued', ?5, ?5, ?6, ?6, ?6, ?7, ?8)",
            vals![&id, account, &partner.id, kind, now, number, json!({"acknowledges": about}).to_string(), x12],
        )
        .map_err(db)?;
        c.exec(
            "INSERT INTO status_history (document_id, status, reason, at) VALUES (?1, 'queued', ?2, ?3)",
            vals![&id, format!("{kind} answering the partner's interchange"), now],
        )
        .map_err(db)?;
        reply = json!({"documentId": id, "documentTypeCode": kind});
    }
    let result = json!({
        "partnerId": partner.id,
        "interchanges": interchanges,
        "acknowledgements": acks,
        "transactions": received,
        "acknowledgementReply": reply,
    });
    for i in &interchanges {
        if i["duplicate"] == false {
            if let Some(n) = i["controlNumber"]
                .as_str()
                .and_then(|s| s.parse::<i64>().ok())
            {
                c.exec(
                    "UPDATE inbound_interchanges SET result = ?4 WHERE account = ?1 AND partner_id = ?2 AND control = ?3",
                    vals![account, &partner.id, n, result.to_string()],
                )
                .map_err(db)?;
            }
        }
    }
    Ok(result)
}

/// Polls the inbox folders of the `directory` transports: each file is taken
/// as an inbound body for its partner, then moved to `processed/` (or
/// `rejected/` when it is not X12), so it is read once; a crash before the move
/// reads it again and the store reports the duplicate.
pub async fn inbox_loop(app: Arc<App>) {
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(app.config.workers.poll_ms)).await;
        let settings = app.settings.current();
        for account in settings.accounts.values() {
            for partner in account.partners.values().filter(|p| p.enabled) {
                let Some(dir) = partner.transport.as_ref().and_then(crate::lifecycle::inbox) else {
                    continue;
                };
                let dir = dir.to_path_buf();
                let names = tokio::task::spawn_blocking({
                    let dir = dir.clone();
                    move || -> Vec<std::path::PathBuf> {
                        if let Err(e) = std::fs::create_dir_all(&dir) {
                            tracing::warn!(error = %e, dir = %dir.display(), "cannot create the inbox");
                        }
                        let mut v: Vec<_> = std::fs::read_dir(&dir)
                            .into_iter()
                            .flatten()
                            .flatten()
                            .map(|e| e.path())
                            .filter(|p| {
                                p.is_file()
                                    && p.file_name()
                                        .and_then(|n| n.to_str())
                                        .is_some_and(|n| !n.starts_with('.'))
                            })
                            .collect();
                        v.sort();
                        v
                    }
                })
                .await
                .unwrap_or_default();
                for path in names {
                    let span =
                        tracing::info_span!("inbox", file = %path.display(), partner = %partner.id);
                    let Ok(bytes) = std::fs::read(&path) else {
                        continue;
                    };
                    let outcome = receive(&app, &account.id, Some(&partner.id), bytes, "inbox")
                        .instrument(span)
                        .await;
                    let to = match &outcome {
                        Ok(_) => "processed",
                        Err(e) if e.status.is_client_error() => "rejected",
                        Err(_) => continue, // a store problem: try again later
                    };
                    tracing::info!(to, "inbox file taken");
                    crate::metrics::worked(1);
                    let target = dir.join(to);
                    let _ = std::fs::create_dir_all(&target);
                    if let Some(name) = path.file_name() {
                        let _ = std::fs::rename(&path, target.join(name));
                    }
                }
            }
        }
    }
}
