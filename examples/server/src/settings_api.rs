//! The settings routes (`/api/settings/...`) for people signed in: API keys,
//! trading partners, webhook endpoints, users and the audit log of their account.
//! [`crate::auth::guard`] runs first (session, limits, CSRF, admins for changes);
//! each change is one transaction of [`crate::settings::write`] with its audit
//! row, and this process loads it before answering (the others within a second).
//! Another account's ids are 404, as unknown ones are.

use crate::app::App;
use crate::body::{Fields, Problems};
use crate::error::{ApiError, ApiResult};
use crate::guard::SessionUser;
use crate::request::{body_bytes, decode_cursor, encode_cursor, limit_param, query};
use crate::settings::partner::Partner;
use crate::settings::rules::valid_id;
use crate::settings::transport::Folders;
use crate::settings::write::{self, Put, UserChange};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use x12kit::webhook::{EventData, EventKind, Signer};

type AppState = State<Arc<App>>;

fn ok(data: Value) -> Response {
    Json(json!({"ok": true, "data": data})).into_response()
}

fn created(data: Value) -> Response {
    (StatusCode::CREATED, Json(json!({"ok": true, "data": data}))).into_response()
}

/// Runs a settings change and loads it into this process before the answer.
async fn change<R: Send + 'static>(
    app: &App,
    f: impl FnOnce(&dyn crate::db::Db) -> ApiResult<R> + Send + 'static,
) -> ApiResult<R> {
    let r = app.store.write(f).await?;
    if app.settings.reload(&app.store).await.is_err() {
        tracing::error!("cannot reload the settings after a change; the poll will");
    }
    Ok(r)
}

/// Runs a settings read.
async fn read<R: Send + 'static>(
    app: &App,
    f: impl FnOnce(&dyn crate::db::Db) -> ApiResult<R> + Send + 'static,
) -> ApiResult<R> {
    app.store.read(move |c| Ok(f(c))).await?
}

fn json_body(
    app: &App,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<serde_json::Map<String, Value>> {
    let body = body_bytes(body, app.config.max_body_bytes)?;
    crate::body::object(headers, &body)
}

/// An id of the path that cannot exist is as unknown as one that does not.
fn known_shape(id: &str, code: &'static str, what: &str) -> ApiResult<()> {
    if valid_id(id) {
        Ok(())
    } else {
        Err(ApiError::not_found(
            code,
            format!("no {what} {id:?} in this account"),
        ))
    }
}

// ---------------------------------------------------------------- keys

/// `GET /api/settings/keys`.
#[utoipa::path(get, path = "/api/settings/keys", tag = "settings",
    responses(
        (status = 200, description = "The account's API keys (revoked ones too), each with its short non-secret prefix; never a key.", body = crate::openapi::KeyList),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn list_keys(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
) -> ApiResult<Response> {
    let account = user.account.clone();
    Ok(ok(json!(
        read(&app, move |c| write::keys(c, &account)).await?
    )))
}

/// `POST /api/settings/keys`.
#[utoipa::path(post, path = "/api/settings/keys", tag = "settings",
    params(("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    request_body(content = crate::openapi::KeyRequest, content_type = "application/json"),
    responses(
        (status = 201, description = "The new key: `data.key` is its text, shown this once (the store keeps its SHA-256).", body = crate::openapi::KeyCreated),
        (status = 400, description = "Malformed JSON or fields.", body = crate::openapi::ErrorBody),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`, or `FORBIDDEN` (a member).", body = crate::openapi::ErrorBody),
        (status = 415, description = "Not application/json.", body = crate::openapi::ErrorBody),
        (status = 422, description = "`INVALID_SETTINGS`: a bad name.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn create_key(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let obj = json_body(&app, &headers, body)?;
    let mut p = Problems::default();
    let f = Fields::of(&obj, "", &["name"], &mut p);
    let name = f.string("name", true, &mut p).unwrap_or_default();
    if p.is_empty()
        && let Some(problem) = write::key_name_problem(&name)
    {
        p.value("INVALID_FIELD", "/name", problem);
    }
    p.check()?;
    let (actor, account) = (user.actor(), user.account.clone());
    let (mut view, key) =
        change(&app, move |c| write::create_key(c, &actor, &account, &name)).await?;
    view["key"] = json!(key);
    Ok(created(view))
}

/// `DELETE /api/settings/keys/{id}`.
#[utoipa::path(delete, path = "/api/settings/keys/{id}", tag = "settings",
    params(("id" = String, Path, description = "The key's id (`key_…`)."),
        ("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    responses(
        (status = 200, description = "Revoked: refused from the next request on, in every process within a second.", body = crate::openapi::KeyAnswer),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`, or `FORBIDDEN` (a member).", body = crate::openapi::ErrorBody),
        (status = 404, description = "`KEY_NOT_FOUND` (another account's too).", body = crate::openapi::ErrorBody),
        (status = 409, description = "`KEY_REVOKED`: revoked already.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn revoke_key(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    known_shape(&id, "KEY_NOT_FOUND", "API key")?;
    let (actor, account) = (user.actor(), user.account.clone());
    Ok(ok(change(&app, move |c| {
        write::revoke_key(c, &actor, &account, &id)
    })
    .await?))
}

// ---------------------------------------------------------------- partners

fn folders<'a>(
    app: &App,
    account: &str,
    current: Option<&'a crate::config::TransportConfig>,
) -> Folders<'a> {
    let current = match current {
        Some(crate::config::TransportConfig::Directory { outbox, inbox }) => {
            let mut v = vec![outbox.as_path()];
            v.extend(inbox.as_deref());
            v
        }
        _ => Vec::new(),
    };
    Folders::Account {
        root: app.config.files_dir.join(account),
        current,
    }
}

/// `GET /api/settings/partners`.
#[utoipa::path(get, path = "/api/settings/partners", tag = "settings",
    responses(
        (status = 200, description = "The account's trading partners; transport credentials shown as \"********\".", body = crate::openapi::PartnerList),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn list_partners(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
) -> ApiResult<Response> {
    let account = user.account.clone();
    Ok(ok(json!(
        read(&app, move |c| write::partners(c, &account)).await?
    )))
}

/// `GET /api/settings/partners/{id}`.
#[utoipa::path(get, path = "/api/settings/partners/{id}", tag = "settings",
    params(("id" = String, Path, description = "The partnerId.")),
    responses(
        (status = 200, description = "One partner.", body = crate::openapi::PartnerAnswer),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 404, description = "`PARTNER_NOT_FOUND` (another account's too).", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn get_partner(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    known_shape(&id, "PARTNER_NOT_FOUND", "trading partner")?;
    let account = user.account.clone();
    let lookup = id.clone();
    match read(&app, move |c| write::partner(c, &account, &lookup)).await? {
        Some(p) => Ok(ok(p)),
        None => Err(ApiError::not_found(
            "PARTNER_NOT_FOUND",
            format!("no trading partner {id:?} in this account"),
        )),
    }
}

async fn save_partner(
    app: Arc<App>,
    user: SessionUser,
    path_id: Option<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Value> {
    let obj = json_body(&app, &headers, body)?;
    let account = user.account.clone();
    let current = match &path_id {
        Some(id) => {
            let (secrets, account, id) =
                (app.settings.secrets.clone(), account.clone(), id.clone());
            read(&app, move |c| {
                write::stored_transport(c, secrets.as_ref(), &account, &id)
            })
            .await?
        }
        None => None,
    };
    let input = write::parse_partner(
        &obj,
        path_id.as_deref(),
        &folders(&app, &account, current.as_ref()),
        current.as_ref(),
    )?;
    let mode = if path_id.is_some() {
        Put::Replace
    } else {
        Put::Create
    };
    let (secrets, actor) = (app.settings.secrets.clone(), user.actor());
    change(&app, move |c| {
        write::put_partner(c, secrets.as_ref(), &actor, &account, &input, mode)
    })
    .await
}

/// `POST /api/settings/partners`.
#[utoipa::path(post, path = "/api/settings/partners", tag = "settings",
    params(("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    request_body(content = crate::openapi::PartnerCreateRequest, content_type = "application/json"),
    responses(
        (status = 201, description = "Created (version 1); documents can be sent to it at once, from every process within a second.", body = crate::openapi::PartnerAnswer),
        (status = 400, description = "Malformed JSON, missing, unknown or mistyped fields (`INVALID_REQUEST`, every problem with its pointer).", body = crate::openapi::ErrorBody),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`, or `FORBIDDEN` (a member).", body = crate::openapi::ErrorBody),
        (status = 409, description = "`PARTNER_EXISTS`.", body = crate::openapi::ErrorBody),
        (status = 415, description = "Not application/json.", body = crate::openapi::ErrorBody),
        (status = 422, description = "`INVALID_SETTINGS`: every problem with its JSON pointer (the core's problems of the profile under /profile, the transport's under /transport, a bad id).", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn create_partner(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    Ok(created(save_partner(app, user, None, headers, body).await?))
}

/// `PUT /api/settings/partners/{id}`.
#[utoipa::path(put, path = "/api/settings/partners/{id}", tag = "settings",
    params(("id" = String, Path, description = "The partnerId."),
        ("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    request_body(content = crate::openapi::PartnerRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "Replaced (fields left out take their defaults; \"********\" keeps a stored credential); its version goes up by one.", body = crate::openapi::PartnerAnswer),
        (status = 400, description = "Malformed JSON, missing, unknown or mistyped fields.", body = crate::openapi::ErrorBody),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`, or `FORBIDDEN` (a member).", body = crate::openapi::ErrorBody),
        (status = 404, description = "`PARTNER_NOT_FOUND` (another account's too).", body = crate::openapi::ErrorBody),
        (status = 409, description = "`VERSION_CONFLICT`: `version` was sent and the partner changed since.", body = crate::openapi::ErrorBody),
        (status = 415, description = "Not application/json.", body = crate::openapi::ErrorBody),
        (status = 422, description = "`INVALID_SETTINGS`: every problem with its JSON pointer.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn put_partner(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    known_shape(&id, "PARTNER_NOT_FOUND", "trading partner")?;
    Ok(ok(save_partner(app, user, Some(id), headers, body).await?))
}

/// `DELETE /api/settings/partners/{id}`.
#[utoipa::path(delete, path = "/api/settings/partners/{id}", tag = "settings",
    params(("id" = String, Path, description = "The partnerId."),
        ("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    responses(
        (status = 200, description = "Deleted; the answer is the partner as it was.", body = crate::openapi::PartnerAnswer),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`, or `FORBIDDEN` (a member).", body = crate::openapi::ErrorBody),
        (status = 404, description = "`PARTNER_NOT_FOUND` (another account's too).", body = crate::openapi::ErrorBody),
        (status = 409, description = "`PARTNER_IN_USE`: documents in flight; disable it instead.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn delete_partner(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    known_shape(&id, "PARTNER_NOT_FOUND", "trading partner")?;
    let (actor, account) = (user.actor(), user.account.clone());
    Ok(ok(change(&app, move |c| {
        write::delete_partner(c, &actor, &account, &id)
    })
    .await?))
}

/// `POST /api/settings/partners/{id}/test-connection`.
#[utoipa::path(post, path = "/api/settings/partners/{id}/test-connection", tag = "settings",
    params(("id" = String, Path, description = "The partnerId."),
        ("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    responses(
        (status = 200, description = "What the try did (`data.ok`, `data.result`; nothing is sent to the partner): `sftp`: connect, check the host key, authenticate, list the folders; `as2`: check the certificates and key, and that the URL answers HTTP; `http`: that the URL answers; `directory`: that the folders can be written and read.", body = crate::openapi::TestConnectionAnswer),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`, or `FORBIDDEN` (a member).", body = crate::openapi::ErrorBody),
        (status = 404, description = "`PARTNER_NOT_FOUND` (another account's too).", body = crate::openapi::ErrorBody),
        (status = 409, description = "`NO_TRANSPORT`: the partner has no transport.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn test_partner_connection(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    user.admin()?;
    known_shape(&id, "PARTNER_NOT_FOUND", "trading partner")?;
    let (secrets, account, lookup) = (
        app.settings.secrets.clone(),
        user.account.clone(),
        id.clone(),
    );
    let exists = {
        let (account, lookup) = (account.clone(), lookup.clone());
        read(&app, move |c| write::partner(c, &account, &lookup)).await?
    };
    if exists.is_none() {
        return Err(ApiError::not_found(
            "PARTNER_NOT_FOUND",
            format!("no trading partner {id:?} in this account"),
        ));
    }
    let transport = read(&app, move |c| {
        write::stored_transport(c, secrets.as_ref(), &account, &lookup)
    })
    .await?
    .ok_or_else(|| {
        ApiError::new(
            StatusCode::CONFLICT,
            "NO_TRANSPORT",
            format!("trading partner {id:?} has no transport to test"),
        )
    })?;
    Ok(ok(
        crate::transport::test_connection(&app.http, &transport).await
    ))
}

// ---------------------------------------------------------------- webhooks

/// `GET /api/settings/webhooks`.
#[utoipa::path(get, path = "/api/settings/webhooks", tag = "settings",
    responses(
        (status = 200, description = "The account's webhook endpoints, each with its secrets' ids and times (never a secret).", body = crate::openapi::WebhookList),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn list_webhooks(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
) -> ApiResult<Response> {
    let account = user.account.clone();
    Ok(ok(json!(
        read(&app, move |c| write::webhooks(c, &account)).await?
    )))
}

/// `GET /api/settings/webhooks/{id}`.
#[utoipa::path(get, path = "/api/settings/webhooks/{id}", tag = "settings",
    params(("id" = String, Path, description = "The endpoint's id (`wh_…`).")),
    responses(
        (status = 200, description = "One endpoint.", body = crate::openapi::WebhookAnswer),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 404, description = "`WEBHOOK_NOT_FOUND` (another account's too).", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn get_webhook(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    known_shape(&id, "WEBHOOK_NOT_FOUND", "webhook endpoint")?;
    let (account, lookup) = (user.account.clone(), id.clone());
    match read(&app, move |c| write::webhook(c, &account, &lookup)).await? {
        Some(w) => Ok(ok(w)),
        None => Err(ApiError::not_found(
            "WEBHOOK_NOT_FOUND",
            format!("no webhook endpoint {id:?} in this account"),
        )),
    }
}

/// `POST /api/settings/webhooks`.
#[utoipa::path(post, path = "/api/settings/webhooks", tag = "settings",
    params(("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    request_body(content = crate::openapi::WebhookRequest, content_type = "application/json"),
    responses(
        (status = 201, description = "Created with a new signing secret: `data.secret`, shown this once (the store keeps it sealed).", body = crate::openapi::WebhookWithSecret),
        (status = 400, description = "Malformed JSON, missing, unknown or mistyped fields.", body = crate::openapi::ErrorBody),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`, or `FORBIDDEN` (a member).", body = crate::openapi::ErrorBody),
        (status = 409, description = "`WEBHOOK_EXISTS`: the account has an endpoint at this URL.", body = crate::openapi::ErrorBody),
        (status = 415, description = "Not application/json.", body = crate::openapi::ErrorBody),
        (status = 422, description = "`INVALID_SETTINGS`: a URL that is not http(s), an unknown event kind.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
        (status = 503, description = "`SECRET_KEY_MISSING`: the server has no secret key to seal the secret with.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn create_webhook(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let input = write::parse_webhook(&json_body(&app, &headers, body)?)?;
    let (secrets, actor, account) = (
        app.settings.secrets.clone(),
        user.actor(),
        user.account.clone(),
    );
    let (mut view, secret) = change(&app, move |c| {
        write::create_webhook(c, secrets.as_ref(), &actor, &account, &input, &[])
    })
    .await?;
    view["secret"] = json!(secret);
    Ok(created(view))
}

/// `PUT /api/settings/webhooks/{id}`.
#[utoipa::path(put, path = "/api/settings/webhooks/{id}", tag = "settings",
    params(("id" = String, Path, description = "The endpoint's id."),
        ("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    request_body(content = crate::openapi::WebhookRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "Replaced (URL, events, enabled, description; the secrets stay). A disabled endpoint gets nothing more: no new deliveries, and pending ones end unsent.", body = crate::openapi::WebhookAnswer),
        (status = 400, description = "Malformed JSON, missing, unknown or mistyped fields.", body = crate::openapi::ErrorBody),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`, or `FORBIDDEN` (a member).", body = crate::openapi::ErrorBody),
        (status = 404, description = "`WEBHOOK_NOT_FOUND` (another account's too).", body = crate::openapi::ErrorBody),
        (status = 409, description = "`WEBHOOK_EXISTS`: another endpoint of the account has this URL.", body = crate::openapi::ErrorBody),
        (status = 415, description = "Not application/json.", body = crate::openapi::ErrorBody),
        (status = 422, description = "`INVALID_SETTINGS`.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn put_webhook(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    known_shape(&id, "WEBHOOK_NOT_FOUND", "webhook endpoint")?;
    let input = write::parse_webhook(&json_body(&app, &headers, body)?)?;
    let (actor, account) = (user.actor(), user.account.clone());
    Ok(ok(change(&app, move |c| {
        write::update_webhook(c, &actor, &account, &id, &input)
    })
    .await?))
}

/// `DELETE /api/settings/webhooks/{id}`.
#[utoipa::path(delete, path = "/api/settings/webhooks/{id}", tag = "settings",
    params(("id" = String, Path, description = "The endpoint's id."),
        ("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    responses(
        (status = 200, description = "Deleted with its secrets; pending deliveries end unsent. The answer is the endpoint as it was.", body = crate::openapi::WebhookAnswer),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`, or `FORBIDDEN` (a member).", body = crate::openapi::ErrorBody),
        (status = 404, description = "`WEBHOOK_NOT_FOUND` (another account's too).", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn delete_webhook(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    known_shape(&id, "WEBHOOK_NOT_FOUND", "webhook endpoint")?;
    let (actor, account) = (user.actor(), user.account.clone());
    Ok(ok(change(&app, move |c| {
        write::delete_webhook(c, &actor, &account, &id)
    })
    .await?))
}

/// `POST /api/settings/webhooks/{id}/rotate-secret`.
#[utoipa::path(post, path = "/api/settings/webhooks/{id}/rotate-secret", tag = "settings",
    params(("id" = String, Path, description = "The endpoint's id."),
        ("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    request_body(content = Option<crate::openapi::RotateRequest>, content_type = "application/json", description = "Optional: `{\"overlapSeconds\": N}` (default 86400, at most 2592000)."),
    responses(
        (status = 200, description = "A new secret (`data.secret`, shown this once) signs at once; the secrets that signed until now keep signing beside it for `overlapSeconds`, then stop.", body = crate::openapi::WebhookWithSecret),
        (status = 400, description = "Malformed JSON or fields.", body = crate::openapi::ErrorBody),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`, or `FORBIDDEN` (a member).", body = crate::openapi::ErrorBody),
        (status = 404, description = "`WEBHOOK_NOT_FOUND` (another account's too).", body = crate::openapi::ErrorBody),
        (status = 415, description = "A body that is not application/json.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
        (status = 503, description = "`SECRET_KEY_MISSING`.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn rotate_secret(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    known_shape(&id, "WEBHOOK_NOT_FOUND", "webhook endpoint")?;
    let raw = body_bytes(body, app.config.max_body_bytes)?;
    let mut overlap = 86_400;
    // No body, or JSON `null`: the defaults.
    if !raw.iter().all(u8::is_ascii_whitespace) && raw.trim_ascii() != b"null" {
        let obj = crate::body::object(&headers, &raw)?;
        let mut p = Problems::default();
        let f = Fields::of(&obj, "", &["overlapSeconds"], &mut p);
        overlap = f
            .uint("overlapSeconds", write::MAX_OVERLAP, &mut p)
            .unwrap_or(overlap);
        p.check()?;
    }
    let (secrets, actor, account) = (
        app.settings.secrets.clone(),
        user.actor(),
        user.account.clone(),
    );
    let (mut view, secret) = change(&app, move |c| {
        write::rotate_secret(c, secrets.as_ref(), &actor, &account, &id, overlap)
    })
    .await?;
    view["secret"] = json!(secret);
    Ok(ok(view))
}

/// `POST /api/settings/webhooks/{id}/test`.
#[utoipa::path(post, path = "/api/settings/webhooks/{id}/test", tag = "settings",
    params(("id" = String, Path, description = "The endpoint's id."),
        ("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    responses(
        (status = 200, description = "A signed test delivery was sent (its first wanted event kind, `data.documentId` `doc_test`, header `X-Service-Test: true`); the answer says what the endpoint said (HTTP status, result, duration, the first 1 KiB of its body). Not stored, not retried.", body = crate::openapi::WebhookTestAnswer),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`, or `FORBIDDEN` (a member).", body = crate::openapi::ErrorBody),
        (status = 404, description = "`WEBHOOK_NOT_FOUND` (another account's too).", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
        (status = 503, description = "`SECRET_KEY_MISSING`: no secret to sign with.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn test_webhook(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    known_shape(&id, "WEBHOOK_NOT_FOUND", "webhook endpoint")?;
    let _ = app.settings.reload(&app.store).await;
    let snapshot = app.settings.current();
    let endpoint = snapshot
        .account(&user.account)
        .and_then(|a| a.webhooks.iter().find(|w| w.id == id))
        .cloned()
        .ok_or_else(|| {
            ApiError::not_found(
                "WEBHOOK_NOT_FOUND",
                format!("no webhook endpoint {id:?} in this account"),
            )
        })?;
    let secrets = endpoint.signing_secrets(crate::store::now_ms());
    if secrets.is_empty() {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "SECRET_KEY_MISSING",
            "the endpoint has no signing secret this server can open (is the secret key configured?)",
        ));
    }
    let event = endpoint
        .events
        .first()
        .copied()
        .unwrap_or(EventKind::DocumentValidated);
    let status = crate::status::event_status(event).map_or("unknown", |s| s.as_str());
    let delivery = Signer::with_secrets(&secrets)
        .and_then(|s| {
            s.deliver_now(
                event,
                EventData {
                    document_id: "doc_test".into(),
                    partner_id: "x12kit-test".into(),
                    document_type_code: "850".into(),
                    status: status.into(),
                    resend: false,
                },
            )
        })
        .map_err(|e| ApiError::from_core(&e))?;
    let started = std::time::Instant::now();
    let delivery_id = delivery.id().to_string();
    let (body, headers) = delivery.into_parts();
    let mut request = app
        .http
        .post(&endpoint.url)
        .timeout(Duration::from_millis(app.config.workers.webhook_timeout_ms))
        .header("X-Service-Test", "true")
        .body(body);
    for (k, v) in headers {
        request = request.header(k, v);
    }
    let (http_status, result, text) = match request.send().await {
        Ok(r) => {
            let code = r.status().as_u16();
            let result = if r.status().is_success() {
                "delivered".to_string()
            } else {
                format!("HTTP {code}")
            };
            let bytes = r.bytes().await.unwrap_or_default();
            let cut = &bytes[..bytes.len().min(1024)];
            (
                Some(code),
                result,
                Some(String::from_utf8_lossy(cut).into_owned()),
            )
        }
        Err(e) if e.is_timeout() => (None, "timeout".to_string(), None),
        Err(e) if e.is_connect() => (None, "connection failed".to_string(), None),
        Err(_) => (None, "request failed".to_string(), None),
    };
    Ok(ok(json!({
        "deliveryId": delivery_id,
        "event": event.as_str(),
        "url": endpoint.url,
        "httpStatus": http_status,
        "result": result,
        "durationMs": started.elapsed().as_millis() as u64,
        "responseBody": text,
    })))
}

// ---------------------------------------------------------------- users

/// `GET /api/settings/users` (admins).
#[utoipa::path(get, path = "/api/settings/users", tag = "settings",
    responses(
        (status = 200, description = "The account's users.", body = crate::openapi::UserList),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`FORBIDDEN`: admins only.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn list_users(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
) -> ApiResult<Response> {
    user.admin()?;
    let account = user.account.clone();
    Ok(ok(json!(
        read(&app, move |c| write::users(c, &account)).await?
    )))
}

/// A user body's fields: e-mail (lower case), role, disabled, password.
type UserFields = (Option<String>, Option<String>, Option<bool>, Option<String>);

/// Checks a user body's fields (the e-mail lower-cased).
fn user_fields(obj: &serde_json::Map<String, Value>, create: bool) -> ApiResult<UserFields> {
    let mut p = Problems::default();
    let allowed: &[&str] = if create {
        &["email", "role", "password"]
    } else {
        &["role", "disabled", "password"]
    };
    let f = Fields::of(obj, "", allowed, &mut p);
    let email = if create {
        f.string("email", true, &mut p)
            .map(|e| e.trim().to_lowercase())
    } else {
        None
    };
    let role = f.string("role", false, &mut p);
    let disabled = if create {
        None
    } else {
        f.boolean("disabled", &mut p)
    };
    let password = f.string("password", false, &mut p);
    if let Some(e) = &email
        && let Some(problem) = crate::settings::rules::email_problem(e)
    {
        p.value("INVALID_EMAIL", "/email", format!("email {problem}"));
    }
    if let Some(r) = &role
        && r != "admin"
        && r != "member"
    {
        p.value("INVALID_FIELD", "/role", "role is \"admin\" or \"member\"");
    }
    if let Some(pw) = &password
        && let Some(problem) = crate::password::problem(pw)
    {
        p.value("PASSWORD_TOO_SHORT", "/password", problem);
    }
    p.check()?;
    Ok((email, role, disabled, password))
}

/// `POST /api/settings/users` (admins).
#[utoipa::path(post, path = "/api/settings/users", tag = "settings",
    params(("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    request_body(content = crate::openapi::UserRequest, content_type = "application/json"),
    responses(
        (status = 201, description = "Created. Without `password`, one is made and answered once in `data.password`.", body = crate::openapi::UserAnswer),
        (status = 400, description = "Malformed JSON, missing, unknown or mistyped fields.", body = crate::openapi::ErrorBody),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`, or `FORBIDDEN` (admins only).", body = crate::openapi::ErrorBody),
        (status = 409, description = "`EMAIL_TAKEN`.", body = crate::openapi::ErrorBody),
        (status = 415, description = "Not application/json.", body = crate::openapi::ErrorBody),
        (status = 422, description = "`INVALID_SETTINGS`: a bad address or role, a password under 12 characters (`PASSWORD_TOO_SHORT`).", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn create_user(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    user.admin()?;
    let (email, role, _, password) = user_fields(&json_body(&app, &headers, body)?, true)?;
    let made = password.is_none().then(crate::password::generate);
    let hash =
        crate::auth::hash_password(password.or_else(|| made.clone()).unwrap_or_default()).await?;
    let (actor, account) = (user.actor(), user.account.clone());
    let email = email.unwrap_or_default();
    let role = role.unwrap_or_else(|| "member".into());
    let mut view = change(&app, move |c| {
        write::add_user(c, &actor, &account, &email, &role, &hash)
    })
    .await?;
    if let Some(p) = made {
        view["password"] = json!(p);
    }
    Ok(created(view))
}

/// `PUT /api/settings/users/{id}` (admins).
#[utoipa::path(put, path = "/api/settings/users/{id}", tag = "settings",
    params(("id" = String, Path, description = "The user's id (`usr_…`)."),
        ("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    request_body(content = crate::openapi::UserChangeRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "Changed (only the fields given). Disabling a user or setting their password ends their sessions (a person setting their own keeps the one asking).", body = crate::openapi::UserAnswer),
        (status = 400, description = "Malformed JSON, unknown or mistyped fields.", body = crate::openapi::ErrorBody),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`, or `FORBIDDEN` (admins only).", body = crate::openapi::ErrorBody),
        (status = 404, description = "`USER_NOT_FOUND` (another account's too).", body = crate::openapi::ErrorBody),
        (status = 409, description = "`LAST_ADMIN`: the account's last enabled admin cannot be demoted or disabled; `SELF_LOCKOUT`: nor can an admin demote or disable themselves.", body = crate::openapi::ErrorBody),
        (status = 415, description = "Not application/json.", body = crate::openapi::ErrorBody),
        (status = 422, description = "`INVALID_SETTINGS`.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn update_user(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    user.admin()?;
    known_shape(&id, "USER_NOT_FOUND", "user")?;
    let (_, role, disabled, password) = user_fields(&json_body(&app, &headers, body)?, false)?;
    let password_hash = match password {
        Some(p) => Some(crate::auth::hash_password(p).await?),
        None => None,
    };
    let (actor, account) = (user.actor(), user.account.clone());
    let change_set = UserChange {
        role,
        disabled,
        password_hash,
        keep_session: Some(user.session_hash.clone()),
    };
    Ok(ok(change(&app, move |c| {
        write::update_user(c, &actor, &account, &id, &change_set)
    })
    .await?))
}

// ---------------------------------------------------------------- audit

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AuditQuery {
    cursor: Option<String>,
    limit: Option<String>,
}

/// `GET /api/settings/audit`.
#[utoipa::path(get, path = "/api/settings/audit", tag = "settings",
    params(
        ("limit" = Option<i64>, Query, description = "1 to 200, default 50.", minimum = 1, maximum = 200),
        ("cursor" = Option<String>, Query, description = "`nextCursor` of the previous page."),
    ),
    responses(
        (status = 200, description = "The account's settings changes, newest first: who (a user, `console` or `configuration`), when, what (before and after, every secret left out), from which address.", body = crate::openapi::AuditPage),
        (status = 400, description = "`INVALID_QUERY`, `INVALID_CURSOR`.", body = crate::openapi::ErrorBody),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn audit(
    State(app): AppState,
    Extension(user): Extension<SessionUser>,
    uri: Uri,
) -> ApiResult<Response> {
    let q: AuditQuery = query(&uri)?;
    let limit = limit_param(q.limit.as_deref(), 200)?;
    let before = match q.cursor.as_deref() {
        None => None,
        Some(c) => Some(decode_cursor(c).ok_or_else(|| {
            ApiError::bad_request("INVALID_CURSOR", "cursor is not one this API returned")
        })?),
    };
    let account = user.account.clone();
    let (items, next) = app
        .store
        .read(move |c| write::audit_page(c, &account, before, limit))
        .await?;
    Ok(
        Json(json!({"ok": true, "data": items, "nextCursor": next.map(encode_cursor)}))
            .into_response(),
    )
}

/// A partner's use by the API keys' routes: unknown and disabled partners refuse documents.
pub fn usable(p: Option<&Arc<Partner>>, id: &str) -> ApiResult<Arc<Partner>> {
    match p {
        Some(p) if p.enabled => Ok(p.clone()),
        Some(_) => Err(ApiError::new(
            StatusCode::CONFLICT,
            "PARTNER_DISABLED",
            format!("trading partner {id:?} is disabled: it takes no new documents"),
        )),
        None => Err(ApiError::not_found(
            "PARTNER_NOT_FOUND",
            format!("no trading partner {id:?} in this account"),
        )),
    }
}
