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

use crate::app::App;
use crate::db::{Db, DbError, DbResult, Val};
use crate::error::{ApiError, ApiResult};
use crate::lifecycle::{Changes, DocKey, transition};
use crate::settings::partner::Partner;
use crate::status::{Status, Step};
use crate::store::now_ms;
use crate::vals;
use axum::http::StatusCode;
use serde_json::{Value, json};
use std::sync::Arc;
use tracing::Instrument;
use x12kit::ops;

/// What the core read from an inbound body: its acknowledgements, and the
/// envelope tree's interchanges with their sets and mapped documents.
struct Read {
    acks: x12kit::ack::Acknowledgements,
    /// The core's validation of the body with the structure rules (what an
    /// acknowledgement reply reports), made by its push validator (no tree held).
    validation: x12kit::Validation,
    interchanges: Vec<Interchange>,
    /// The parse's diagnostics (why a body is not X12).
    diagnostics: Vec<x12kit::Diagnostic>,
}

/// One interchange of an inbound body, from the core's envelope tree.
#[derive(Debug, PartialEq)]
struct Interchange {
    /// ISA05 and ISA06, trimmed.
    sender: (String, String),
    /// ISA13, trimmed.
    control: String,
    /// Its sets, in order.
    sets: Vec<Set>,
}

/// One transaction set of an inbound interchange.
#[derive(Debug, PartialEq)]
struct Set {
    /// ST01.
    kind: String,
    /// GS06 (`None`: no GS, or not a number).
    group_control: Option<i64>,
    /// ST02.
    control: Option<i64>,
    /// The mapped document (the parse result's `document`), compact JSON;
    /// `None` for a set x12kit does not map.
    document: Option<Vec<u8>>,
}

/// The interchanges and sets of an inbound body, collected a set at a time
/// ([`x12kit::sets::parse_sets`]): what is held follows the largest set plus the
/// records kept (a set's numbers and mapped document), never the tree of a large
/// interchange.
#[derive(Default)]
struct Collect {
    interchanges: Vec<Interchange>,
}

impl<'a> x12kit::sets::SetHandler<'a> for Collect {
    fn interchange(&mut self, outline: &x12kit::sets::Outline<'a>) {
        let isa = &outline.interchange.isa;
        self.interchanges.push(Interchange {
            sender: (text(isa.value(5)), text(isa.value(6))),
            control: text(isa.value(13)),
            sets: Vec::new(),
        });
    }

    fn transaction(
        &mut self,
        doc: &x12kit::Document<'a>,
        group: &x12kit::Group<'a>,
        tx: &x12kit::Transaction<'a>,
        _upto: usize,
    ) {
        let Some(ic) = self.interchanges.last_mut() else {
            return;
        };
        ic.sets.push(Set {
            kind: text(tx.kind()),
            group_control: group.gs.as_ref().and_then(|gs| number(gs.value(6))),
            control: number(tx.control_number()),
            document: x12kit::documents::document_json(doc, group, tx),
        });
    }
}

fn read(input: &[u8]) -> ApiResult<Read> {
    let run = std::panic::catch_unwind(|| {
        let mut validator = ops::stream_validator(&ops::ValidateOptions {
            structure: true,
            ..Default::default()
        });
        validator.feed(input);
        let validation = validator.finish();
        // The acknowledgements the body carries, read as the validator went by
        // (what `ops::read_acknowledgement` reads from the tree).
        let acks = validation.acknowledgements.clone().unwrap_or_default();
        let mut collect = Collect::default();
        let doc = x12kit::sets::parse_sets(
            input,
            x12kit::sets::HOLD,
            x12kit::envelope::SetCap::default(),
            &mut collect,
        );
        Read {
            acks,
            validation,
            interchanges: collect.interchanges,
            diagnostics: doc.diagnostics,
        }
    });
    run.map_err(|_| {
        tracing::error!("the core panicked reading an inbound interchange");
        ApiError::internal()
    })
}

/// An element's text, trimmed.
fn text(v: &[u8]) -> String {
    String::from_utf8_lossy(v).trim().to_string()
}

/// An element's number (control numbers).
fn number(v: &[u8]) -> Option<i64> {
    std::str::from_utf8(v).ok()?.trim().parse::<i64>().ok()
}

/// The account's partner that sent `first` (ISA05/ISA06 = the profile's receiver).
fn sender_partner(app: &App, account: &str, first: &Interchange) -> Option<Arc<Partner>> {
    let (q, id) = &first.sender;
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
    let Some(first) = read.interchanges.first() else {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "NOT_X12",
            "the body holds no X12 interchange",
        )
        .with_details(
            read.diagnostics
                .iter()
                .take(20)
                .map(|d| {
                    crate::error::Detail::error(
                        "NOT_X12",
                        "",
                        format!("{}: {}", d.code, d.message.trim()),
                    )
                })
                .collect(),
        ));
    };
    let partner = match partner {
        Some(id) => crate::lifecycle::partner(app, account, id).ok_or_else(|| {
                ApiError::not_found(
                    "PARTNER_NOT_FOUND",
                    format!("no trading partner {id:?} in this account"),
                )
            })?,
        None => sender_partner(app, account, first).ok_or_else(|| {
            ApiError::not_found(
                "PARTNER_NOT_FOUND",
                format!(
                    "no trading partner of this account sends as {}/{} (ISA05/ISA06); name it with ?partnerId=",
                    first.sender.0, first.sender.1
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
    status: Status,
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
                status: {
                    let name: String = r.get(4)?;
                    Status::parse(&name)
                        .ok_or_else(|| DbError::new(format!("unknown document status {name:?}")))?
                },
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
        let earlier_ta1 = if t.status == Status::Acknowledged && ack["kind"] != "TA1" {
            t.ta1_only()
        } else {
            None
        };
        let Some(step) = Step::for_acknowledgement(t.status, earlier_ta1.is_some(), accepted)
        else {
            e["result"] = json!(format!("ignored: the document is {}", t.status));
            out.push(e);
            continue;
        };
        let mut ack = ack.clone();
        if let Some(ta1) = earlier_ta1 {
            ack["ta1"] = ta1;
        }
        let reason = format!("{what} {}", if accepted { "accepted" } else { "rejected" });
        let changes = Changes {
            partner_ack: Some(ack.to_string()),
            failure: (!accepted).then(|| reason.clone()),
            ..Changes::default()
        };
        let done =
            transition(c, &app.settings.current(), &t.key, step, &reason, changes).map_err(db)?;
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
    for i in &read.interchanges {
        let control_text = i.control.clone();
        let Some(control) = number(i.control.as_bytes()) else {
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
    // Other sets: inbound transactions with their mapped documents, and the
    // findings of the partner's guides on each (none without guides).
    let findings = crate::guides::inbound_findings(input, &partner.profile);
    let mut received = Vec::new();
    for (n, i) in read.interchanges.iter().enumerate() {
        if !fresh.contains(&i.control) {
            continue;
        }
        for (k, t) in i.sets.iter().enumerate() {
            let guided = findings
                .as_ref()
                .and_then(|f| f.get(n))
                .and_then(|s| s.get(k))
                .cloned()
                .flatten();
            let kind = &t.kind;
            if crate::lifecycle::is_ack_type(kind) {
                continue;
            }
            let id = format!("doc_{}", uuid::Uuid::now_v7().simple());
            let document = t.document.as_deref().map_or_else(
                || "null".to_string(),
                |d| String::from_utf8_lossy(d).into_owned(),
            );
            // The business reference (the type's reference field), for `?reference=`.
            let reference = serde_json::from_str::<Value>(&document)
                .ok()
                .and_then(|d| crate::x12::reference(kind, &d));
            c.exec(
                "INSERT INTO documents (id, account, partner_id, document_type, direction, status, created_at,
                    updated_at, interchange_control, group_control, transaction_control, payload, x12, reference,
                    diagnostics)
                 VALUES (?1, ?2, ?3, ?4, 'inbound', 'received', ?5, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                vals![
                    &id,
                    account,
                    &partner.id,
                    kind,
                    now,
                    number(i.control.as_bytes()),
                    t.group_control,
                    t.control,
                    document,
                    input,
                    reference,
                    guided
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
    // The acknowledgement the partner asked for, as an outbound document.
    let mut reply = Value::Null;
    if let (Some(kind), false) = (&partner.acknowledge_inbound, received.is_empty()) {
        let number = crate::store::next_control(c, account, &partner.id)?;
        // The partner's guides: a 999 carries their implementation codes.
        let options: ops::AcknowledgeOptions = ops::options(json!({
            "kind": kind,
            "interchangeControlNumber": number,
            "groupControlNumber": number,
            "setControlNumber": number,
            "guides": crate::guides::of_profile(&partner.profile),
        }))
        .map_err(|e| ApiError::from_core(&e))?;
        let at = x12kit::DateTime::from_unix((now / 1000).max(0) as u64);
        // `ops::acknowledge` of the body, from the validation `read` made, or with the
        // partner's guides one made again by the core's push validator (no tree held).
        let x12 = std::panic::catch_unwind(|| {
            if options.guides.is_empty() {
                return ops::acknowledge_validation(&read.validation, &options, at);
            }
            let mut v = ops::stream_validator(&ops::ValidateOptions {
                structure: options.structure,
                guides: options.guides.clone(),
                ..Default::default()
            });
            v.feed(input);
            ops::acknowledge_validation(&v.finish(), &options, at)
        })
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
        if i["duplicate"] == false
            && let Some(n) = i["controlNumber"]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What `read` gave when it built the whole tree (`x12kit::parse`).
    fn from_tree(input: &[u8]) -> (Vec<Interchange>, Vec<x12kit::Diagnostic>) {
        let doc = x12kit::parse(input);
        let mut interchanges = Vec::new();
        for (i, ic) in doc.interchanges.iter().enumerate() {
            let mut sets = Vec::new();
            for (g, group) in ic.groups.iter().enumerate() {
                let group_control = group.gs.as_ref().and_then(|gs| number(gs.value(6)));
                for (t, set) in group.transactions.iter().enumerate() {
                    sets.push(Set {
                        kind: text(set.kind()),
                        group_control,
                        control: number(set.control_number()),
                        document: ops::transaction_document_json(&doc, i, g, t).ok().flatten(),
                    });
                }
            }
            interchanges.push(Interchange {
                sender: (text(ic.isa.value(5)), text(ic.isa.value(6))),
                control: text(ic.isa.value(13)),
                sets,
            });
        }
        (interchanges, doc.diagnostics)
    }

    #[test]
    fn reading_set_by_set_gives_what_the_whole_tree_gave() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/inputs");
        let mut inputs: Vec<Vec<u8>> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .map(|p| std::fs::read(p).unwrap())
            .collect();
        // An interchange past the core's hold (streamed set by set): 850s repeated.
        let one = std::fs::read(dir.join("850-basic.edi")).unwrap();
        let text = String::from_utf8(one).unwrap();
        let (head, rest) = text.split_at(text.find("ST*").unwrap());
        let (set, tail) = rest.split_at(rest.find("GE*").unwrap());
        let mut big = head.to_string();
        for _ in 0..(x12kit::sets::HOLD / 4 + 10) {
            big.push_str(set);
        }
        big.push_str(tail);
        inputs.push(big.into_bytes());
        assert!(inputs.len() > 50);
        for input in &inputs {
            let r = read(input).unwrap();
            let (interchanges, diagnostics) = from_tree(input);
            assert_eq!(r.interchanges, interchanges);
            assert_eq!(r.diagnostics, diagnostics);
            assert_eq!(r.acks, ops::read_acknowledgement(input));
            let options: ops::AcknowledgeOptions = ops::options(json!({"kind": "auto"})).unwrap();
            let at = x12kit::DateTime::from_unix(1_700_000_000);
            assert_eq!(
                ops::acknowledge_validation(&r.validation, &options, at).ok(),
                ops::acknowledge(input, &options, at).ok()
            );
        }
    }
}
