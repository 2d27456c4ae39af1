//! What people (the dashboard) and API keys do to a document besides sending it:
//! resend it to its partner, cancel it while it waits; and, for people only,
//! redeliver a webhook delivery and read the delivery log.
//!
//! Each action is one store job: a compare-and-set on the row's state (so two
//! people clicking at once do it once, and a worker that moved the document
//! first wins), its history row and its audit row (who, when, from where:
//! `document.resend`, `document.cancel`, `delivery.redeliver`). None of them
//! changes a setting, so the settings version stays.

use crate::app::App;
use crate::db::{Db, Row};
use crate::error::{ApiError, ApiResult};
use crate::guard::Caller;
use crate::guard::SessionUser;
use crate::lifecycle::{DocKey, enqueue_events};
use crate::request::{decode_cursor_text, encode_cursor_text, limit_param, query, query_error};
use crate::settings::write::{self, Actor};
use crate::status::{Delivery, Status, Step};
use crate::store::{DELIVERY_COLUMNS, now_ms};
use crate::vals;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;

type AppState = State<Arc<App>>;

/// A claim is held by a live process when its heartbeat is this recent (as the workers' claims).
const LIVE_MS: i64 = 15_000;

fn conflict(code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::CONFLICT, code, message)
}

fn no_document(id: &str) -> ApiError {
    ApiError::not_found(
        "TRANSACTION_NOT_FOUND",
        format!("no transaction {id:?} in this account"),
    )
}

/// What an action needs of a document row.
struct Doc {
    status: String,
    direction: String,
    partner_id: String,
    document_type: String,
    resends: i64,
    /// Held by a live process right now (being routed).
    in_flight: bool,
    /// It passed validation once (its X12 is good to send).
    validated_once: bool,
    interchange_control: Option<i64>,
}

fn load(c: &dyn Db, account: &str, id: &str) -> ApiResult<Option<Doc>> {
    let row = c
        .one(
            "SELECT status, direction, partner_id, document_type, resends,
                (CASE WHEN lease_owner IS NOT NULL AND lease_owner IN
                    (SELECT id FROM workers WHERE heartbeat_at > ?3) THEN 1 ELSE 0 END),
                (SELECT COUNT(*) FROM status_history h WHERE h.document_id = d.id AND h.status = 'validated'),
                interchange_control
             FROM documents d WHERE account = ?1 AND id = ?2",
            vals![account, id, now_ms() - LIVE_MS],
        )
        .map_err(write::db)?;
    row.map(|r: Row| -> crate::db::DbResult<Doc> {
        Ok(Doc {
            status: r.get(0)?,
            direction: r.get(1)?,
            partner_id: r.get(2)?,
            document_type: r.get(3)?,
            resends: r.get(4)?,
            in_flight: r.get::<i64>(5)? == 1,
            validated_once: r.get::<i64>(6)? > 0,
            interchange_control: r.get(7)?,
        })
    })
    .transpose()
    .map_err(write::db)
}

fn summary(c: &dyn Db, account: &str, id: &str) -> ApiResult<Value> {
    crate::store::summary(c, account, id)
        .map_err(write::db)?
        .ok_or_else(ApiError::internal)
}

// ---------------------------------------------------------------- resend

/// `POST /transactions/{id}/resend`.
#[utoipa::path(
    post,
    path = "/api/v1/transactions/{id}/resend",
    tag = "transactions",
    params(("id" = String, Path, description = "documentId of a routed or failed outbound transaction."),
        ("X-CSRF-Token" = Option<String>, Header, description = "With a session (not with an API key): the session's csrfToken.")),
    responses(
        (status = 202, description = "A new routing attempt is queued: the document is `validated` again (history: who asked), the routing worker hands the same interchange (same control numbers) to the partner, and its history row, its routing attempts and its `document.routed` webhook (`data.resend: true`) say it is a resend. Audited as `document.resend`.", body = crate::openapi::ActionAnswer),
        (status = 401, description = "Missing, malformed or unknown API key (or session).", body = crate::openapi::ErrorBody),
        (status = 403, description = "A session without its X-CSRF-Token.", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such transaction in the caller's account; or its partner is no longer configured (`PARTNER_NOT_FOUND`).", body = crate::openapi::ErrorBody),
        (status = 409, description = "`NOT_RESENDABLE`: inbound, not routed or failed, or it failed validation (its X12 would fail again: send a corrected document); `PARTNER_DISABLED`.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("bearer" = []), ("session" = []))
)]
pub async fn resend(
    State(app): AppState,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let (account, actor) = (caller.account.id.clone(), caller.actor());
    let settings = app.settings.current();
    let lookup = (account.clone(), id.clone());
    let doc = app
        .store
        .read(move |c| Ok(load(c, &lookup.0, &lookup.1)))
        .await??
        .ok_or_else(|| no_document(&id))?;
    // The partner must still take documents (as the send operation checks).
    crate::settings_api::usable(settings.partner(&account, &doc.partner_id), &doc.partner_id)?;
    drop(settings);
    let data = app
        .store
        .write(move |c| {
            let doc = load(c, &account, &id)?.ok_or_else(|| no_document(&id))?;
            if doc.direction != "outbound" {
                return Err(conflict(
                    "NOT_RESENDABLE",
                    "an inbound document came from the partner: there is nothing to resend",
                ));
            }
            let Some(step) = Status::parse(&doc.status).and_then(Step::resend) else {
                return Err(conflict(
                    "NOT_RESENDABLE",
                    format!(
                        "only a routed or failed document can be resent; this one is {}",
                        doc.status
                    ),
                ));
            };
            let t = step.transition();
            if !doc.validated_once {
                return Err(conflict(
                    "NOT_RESENDABLE",
                    "this document failed validation: its X12 would fail again; send a corrected document",
                ));
            }
            let n = doc.resends + 1;
            let now = now_ms();
            let changed = c
                .exec(
                    "UPDATE documents SET status = ?6, updated_at = ?3, failure = NULL,
                        ack_deadline = NULL, lease_owner = NULL, route_claims = 0, resends = ?4
                     WHERE account = ?1 AND id = ?2 AND status = ?5",
                    vals![&account, &id, now, n, t.from.as_str(), t.to.as_str()],
                )
                .map_err(write::db)?;
            if changed == 0 {
                return Err(conflict(
                    "NOT_RESENDABLE",
                    "the document changed while the resend was asked for: look again",
                ));
            }
            let control = doc
                .interchange_control
                .map_or_else(String::new, |c| format!(", ISA13 {c}"));
            c.exec(
                "INSERT INTO status_history (document_id, status, reason, at) VALUES (?1, ?4, ?2, ?3)",
                vals![
                    &id,
                    format!(
                        "resend {n} asked for by {}: the same interchange{control} is routed to the partner again",
                        actor.name
                    ),
                    now,
                    t.to.as_str()
                ],
            )
            .map_err(write::db)?;
            write::record(
                c,
                &actor,
                &account,
                "document.resend",
                &id,
                Some(&json!({"status": doc.status, "resends": doc.resends})),
                Some(&json!({"status": t.to.as_str(), "resends": n})),
            )?;
            summary(c, &account, &id)
        })
        .await?;
    app.wake.route.notify_one();
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"ok": true, "data": data})),
    )
        .into_response())
}

// ---------------------------------------------------------------- cancel

/// `POST /transactions/{id}/cancel`.
#[utoipa::path(
    post,
    path = "/api/v1/transactions/{id}/cancel",
    tag = "transactions",
    params(("id" = String, Path, description = "documentId of a queued or validated outbound transaction."),
        ("X-CSRF-Token" = Option<String>, Header, description = "With a session (not with an API key): the session's csrfToken.")),
    responses(
        (status = 200, description = "Canceled: it will not be sent. Its status is `canceled` (final), the history says who canceled it, a `document.error` webhook with `data.status` `canceled` tells the customer's endpoints. Audited as `document.cancel`.", body = crate::openapi::ActionAnswer),
        (status = 401, description = "Missing, malformed or unknown API key (or session).", body = crate::openapi::ErrorBody),
        (status = 403, description = "A session without its X-CSRF-Token.", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such transaction in the caller's account.", body = crate::openapi::ErrorBody),
        (status = 409, description = "`NOT_CANCELABLE`: not waiting any more (routed, acknowledged, failed, canceled, inbound), or being handed to the partner at this moment.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("bearer" = []), ("session" = []))
)]
pub async fn cancel(
    State(app): AppState,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let (account, actor) = (caller.account.id.clone(), caller.actor());
    let app2 = app.clone();
    let data = app
        .store
        .write(move |c| {
            let doc = load(c, &account, &id)?.ok_or_else(|| no_document(&id))?;
            let step = Status::parse(&doc.status).and_then(Step::cancel);
            let (Some(step), "outbound") = (step, doc.direction.as_str()) else {
                return Err(conflict(
                    "NOT_CANCELABLE",
                    if doc.direction != "outbound" {
                        "only an outbound document waiting to be sent can be canceled; this one came from the partner".to_string()
                    } else {
                        format!(
                            "only a document waiting to be sent (queued or validated) can be canceled; this one is {}",
                            doc.status
                        )
                    },
                ));
            };
            let t = step.transition();
            if doc.in_flight {
                return Err(conflict(
                    "NOT_CANCELABLE",
                    "the document is being handed to the partner at this moment: look again in a few seconds",
                ));
            }
            let now = now_ms();
            let reason = format!("canceled by {}", actor.name);
            let changed = c
                .exec(
                    "UPDATE documents SET status = ?7, updated_at = ?3, failure = ?4,
                        ack_deadline = NULL, lease_owner = NULL
                     WHERE account = ?1 AND id = ?2 AND status = ?5
                       AND (lease_owner IS NULL OR lease_owner NOT IN
                            (SELECT id FROM workers WHERE heartbeat_at > ?6))",
                    vals![&account, &id, now, &reason, t.from.as_str(), now - LIVE_MS, t.to.as_str()],
                )
                .map_err(write::db)?;
            if changed == 0 {
                return Err(conflict(
                    "NOT_CANCELABLE",
                    "the document moved on while the cancel was asked for: look again",
                ));
            }
            c.exec(
                "INSERT INTO status_history (document_id, status, reason, at) VALUES (?1, ?4, ?2, ?3)",
                vals![&id, &reason, now, t.to.as_str()],
            )
            .map_err(write::db)?;
            let key = DocKey {
                id: id.clone(),
                account: account.clone(),
                partner_id: doc.partner_id.clone(),
                document_type: doc.document_type.clone(),
                resend: false,
            };
            enqueue_events(
                c,
                &app2.settings.current(),
                &key,
                t.to,
                t.events,
                now,
            )
            .map_err(write::db)?;
            write::record(
                c,
                &actor,
                &account,
                "document.cancel",
                &id,
                Some(&json!({"status": doc.status})),
                Some(&json!({"status": t.to.as_str()})),
            )?;
            summary(c, &account, &id)
        })
        .await?;
    app.wake.deliver.notify_one();
    Ok(Json(json!({"ok": true, "data": data})).into_response())
}

// ---------------------------------------------------------------- webhook deliveries

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DeliveriesQuery {
    endpoint_id: Option<String>,
    document_id: Option<String>,
    state: Option<String>,
    limit: Option<String>,
    cursor: Option<String>,
}

/// `GET /api/deliveries`.
#[utoipa::path(get, path = "/api/deliveries", tag = "settings",
    params(
        ("endpointId" = Option<String>, Query, description = "Only the deliveries to this webhook endpoint (`wh_…`)."),
        ("documentId" = Option<String>, Query, description = "Only the deliveries about this document."),
        ("state" = Option<String>, Query, description = "Only `pending`, `delivered` or `failed` ones."),
        ("limit" = Option<i64>, Query, description = "1 to 200, default 50.", minimum = 1, maximum = 200),
        ("cursor" = Option<String>, Query, description = "`nextCursor` of the previous page (send the same filters with it)."),
    ),
    responses(
        (status = 200, description = "The account's webhook deliveries, newest first, each with its attempt log: the delivery log of the dashboard.", body = crate::openapi::DeliveryPage),
        (status = 400, description = "`INVALID_QUERY`, `INVALID_CURSOR`.", body = crate::openapi::ErrorBody),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn deliveries(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    uri: Uri,
) -> ApiResult<Response> {
    let q: DeliveriesQuery = query(&uri)?;
    let limit = limit_param(q.limit.as_deref(), 200)?;
    if let Some(s) = q.state.as_deref()
        && Delivery::parse(s).is_none()
    {
        return Err(query_error(
            "state",
            format!("state must be pending, delivered or failed, found {s:?}"),
        ));
    }
    let before = match q.cursor.as_deref() {
        None => None,
        Some(c) => Some(decode_cursor_text(c).ok_or_else(|| {
            ApiError::bad_request("INVALID_CURSOR", "cursor is not one this API returned")
        })?),
    };
    let account = user.account.clone();
    let (items, next) = app
        .store
        .read(move |c| {
            let mut params = vec![crate::db::Val::from(account)];
            let mut clauses = String::new();
            for (column, value) in [
                ("endpoint_id", q.endpoint_id),
                ("document_id", q.document_id),
                ("state", q.state),
            ] {
                if let Some(v) = value {
                    params.push(v.into());
                    clauses.push_str(&format!(" AND {column} = ?{}", params.len()));
                }
            }
            if let Some(b) = before {
                params.push(b.into());
                clauses.push_str(&format!(" AND id < ?{}", params.len()));
            }
            params.push((limit as i64 + 1).into());
            let rows = c.query(
                &format!(
                    "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE account = ?1{clauses}
                     ORDER BY id DESC LIMIT ?{}",
                    params.len()
                ),
                &params,
            )?;
            let more = rows.len() > limit;
            let mut out = Vec::with_capacity(limit);
            let mut last = None;
            for r in rows.iter().take(limit) {
                last = Some(r.get::<String>(0)?);
                out.push(crate::store::delivery(c, r)?);
            }
            Ok((out, if more { last } else { None }))
        })
        .await?;
    Ok(Json(json!({
        "ok": true,
        "data": items,
        "nextCursor": next.map(|id| encode_cursor_text(&id)),
    }))
    .into_response())
}

/// `POST /api/deliveries/{id}/redeliver`.
#[utoipa::path(post, path = "/api/deliveries/{id}/redeliver", tag = "settings",
    params(("id" = String, Path, description = "The delivery's id (its `X-Service-Delivery-ID`)."),
        ("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    responses(
        (status = 200, description = "One more attempt now: a failed or delivered delivery is pending again (the same delivery id and body, signed afresh; a receiver that already has it drops it by its id), a retrying one is attempted at once; its attempt log goes on. Members and admins; audited as `delivery.redeliver`. The webhook worker sends it within its poll.", body = crate::openapi::DeliveryAnswer),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`.", body = crate::openapi::ErrorBody),
        (status = 404, description = "`DELIVERY_NOT_FOUND` (another account's too).", body = crate::openapi::ErrorBody),
        (status = 409, description = "`DELIVERY_IN_FLIGHT`: being attempted at this moment; `WEBHOOK_DISABLED`: its endpoint is disabled or deleted (it would end unsent).", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn redeliver(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let not_found = |id: &str| {
        ApiError::not_found(
            "DELIVERY_NOT_FOUND",
            format!("no webhook delivery {id:?} in this account"),
        )
    };
    let settings = app.settings.current();
    let (account, actor): (String, Actor) = (user.account.clone(), user.actor());
    let lookup = (account.clone(), id.clone());
    let endpoint = app
        .store
        .read(move |c| {
            c.one(
                "SELECT endpoint_id, url FROM webhook_deliveries WHERE account = ?1 AND id = ?2",
                vals![&lookup.0, &lookup.1],
            )?
            .map(|r| Ok((r.get::<Option<String>>(0)?, r.get::<String>(1)?)))
            .transpose()
        })
        .await?
        .ok_or_else(|| not_found(&id))?;
    let usable = settings.account(&account).is_some_and(|a| {
        a.webhooks.iter().any(|w| {
            w.enabled
                && match &endpoint.0 {
                    Some(e) => &w.id == e,
                    None => w.url == endpoint.1,
                }
        })
    });
    if !usable {
        return Err(conflict(
            "WEBHOOK_DISABLED",
            format!(
                "the endpoint {} is disabled or deleted: a redelivery would end unsent (enable it first)",
                endpoint.1
            ),
        ));
    }
    drop(settings);
    let data = app
        .store
        .write(move |c| {
            let row = c
                .one(
                    "SELECT state, attempts, (CASE WHEN lease_owner IS NOT NULL AND lease_owner IN
                        (SELECT id FROM workers WHERE heartbeat_at > ?3) THEN 1 ELSE 0 END)
                     FROM webhook_deliveries WHERE account = ?1 AND id = ?2",
                    vals![&account, &id, now_ms() - LIVE_MS],
                )
                .map_err(write::db)?
                .ok_or_else(|| not_found(&id))?;
            let get = || -> crate::db::DbResult<(String, i64, i64)> {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            };
            let (state, attempts, held) = get().map_err(write::db)?;
            if held == 1 {
                return Err(conflict(
                    "DELIVERY_IN_FLIGHT",
                    "the delivery is being attempted at this moment: look again in a few seconds",
                ));
            }
            let now = now_ms();
            let changed = c
                .exec(
                    "UPDATE webhook_deliveries SET state = 'pending', next_at = ?3, delivered_at = NULL,
                        lease_owner = NULL
                     WHERE account = ?1 AND id = ?2 AND state = ?4 AND attempts = ?5",
                    vals![&account, &id, now, &state, attempts],
                )
                .map_err(write::db)?;
            if changed == 0 {
                return Err(conflict(
                    "DELIVERY_IN_FLIGHT",
                    "the delivery was attempted while the redelivery was asked for: look again",
                ));
            }
            write::record(
                c,
                &actor,
                &account,
                "delivery.redeliver",
                &id,
                Some(&json!({"state": state, "attempts": attempts})),
                Some(&json!({"state": "pending", "attempts": attempts})),
            )?;
            let r = c
                .one(
                    &format!("SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ?1"),
                    vals![&id],
                )
                .map_err(write::db)?
                .ok_or_else(ApiError::internal)?;
            crate::store::delivery(c, &r).map_err(write::db)
        })
        .await?;
    app.wake.deliver.notify_one();
    Ok(Json(json!({"ok": true, "data": data})).into_response())
}
