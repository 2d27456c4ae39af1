//! The HTTP API: routes under `/api/v1` and the alias `/v1` (same handlers),
//! plus `/healthz`, `/readyz` and `/api/v1/openapi.json`.

use crate::app::App;
use crate::error::{ApiError, ApiResult, Detail};
use crate::guard::{self, Caller, Group};
use crate::request::{
    BLOCKING_ABOVE, Frames, body_bytes, canonical, decode_cursor, encode_cursor, limit_param,
    off_thread, query, query_error, read_whole,
};
use crate::status::Status;
use crate::store::{self, Accept};
use crate::x12;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{OriginalUri, Path, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::sync::Arc;

type AppState = State<Arc<App>>;

/// The raw X12 content types of `/parse` and `/validate` (plus JSON `{"x12": "..."}`).
const X12_TYPES: &[&str] = &[
    "application/edi-x12",
    "text/plain",
    "application/octet-stream",
    "application/json",
];

/// The whole router.
pub fn router(app: Arc<App>) -> Router {
    let api = Router::new()
        .route("/documents/outbound", post(outbound))
        .route("/documents/inbound", post(inbound))
        .route("/stats", get(stats))
        .route("/document-types", get(document_types))
        .route("/document-types/{code}/csv-template", get(csv_template))
        .route("/transactions", get(list_transactions))
        .route("/transactions/{id}", get(get_transaction))
        .route("/transactions/{id}/resend", post(crate::actions::resend))
        .route("/transactions/{id}/cancel", post(crate::actions::cancel))
        .route("/parse", post(parse))
        .route("/validate", post(validate))
        .fallback(api_not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn(crate::serve::admit::admit))
        .layer(axum::middleware::from_fn_with_state(app.clone(), guard))
        .layer(axum::middleware::from_fn(crate::serve::observe::note_route));
    use crate::settings_api as s;
    // The routes of a signed-in person, behind the session guard (API keys refused).
    let session = Router::new()
        .route("/api/auth/me", get(crate::auth::me))
        .route("/api/auth/logout", post(crate::auth::logout))
        .route("/api/settings/keys", get(s::list_keys).post(s::create_key))
        .route(
            "/api/settings/keys/{id}",
            axum::routing::delete(s::revoke_key),
        )
        .route(
            "/api/settings/partners",
            get(s::list_partners).post(s::create_partner),
        )
        .route(
            "/api/settings/partners/{id}",
            get(s::get_partner)
                .put(s::put_partner)
                .delete(s::delete_partner),
        )
        .route(
            "/api/settings/partners/{id}/test-connection",
            post(s::test_partner_connection),
        )
        .route(
            "/api/settings/webhooks",
            get(s::list_webhooks).post(s::create_webhook),
        )
        .route(
            "/api/settings/webhooks/{id}",
            get(s::get_webhook)
                .put(s::put_webhook)
                .delete(s::delete_webhook),
        )
        .route(
            "/api/settings/webhooks/{id}/rotate-secret",
            post(s::rotate_secret),
        )
        .route("/api/settings/webhooks/{id}/test", post(s::test_webhook))
        .route(
            "/api/settings/users",
            get(s::list_users).post(s::create_user),
        )
        .route(
            "/api/settings/users/{id}",
            axum::routing::put(s::update_user),
        )
        .route("/api/settings/audit", get(s::audit))
        .route("/api/deliveries", get(crate::actions::deliveries))
        .route("/api/upload", post(crate::upload::upload))
        .route(
            "/api/deliveries/{id}/redeliver",
            post(crate::actions::redeliver),
        )
        .route_layer(axum::middleware::from_fn(crate::serve::admit::admit))
        .route_layer(axum::middleware::from_fn_with_state(
            app.clone(),
            crate::auth::guard,
        ));
    Router::new()
        .route(
            "/api/auth/login",
            post(crate::auth::login).layer(axum::middleware::from_fn(crate::serve::admit::admit)),
        )
        .merge(session)
        .merge(crate::dashboard::router())
        // AS2 partners: authenticated by their signature, not by a key (src/as2/inbound.rs).
        .route("/as2/{account}", post(crate::as2::inbound::receive))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/api/v1/openapi.json", get(openapi))
        .route("/v1/openapi.json", get(openapi))
        .nest("/api/v1", api.clone())
        .nest("/v1", api)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::extract::DefaultBodyLimit::max(
            app.config.max_body_bytes,
        ))
        .layer(axum::middleware::from_fn(crate::serve::observe::note_route))
        .with_state(app)
}

/// Authentication, then the rate limit of the route's group; adds the limit headers.
async fn guard(State(app): AppState, mut req: Request, next: Next) -> Response {
    crate::metrics::worked(1);
    // An API key when the request sends one; else the session cookie of a signed-in person.
    let caller = if !req.headers().contains_key(header::AUTHORIZATION)
        && crate::auth::has_session_cookie(req.headers())
    {
        let (parts, body) = req.into_parts();
        let caller = crate::auth::api_caller(&app, &parts).await;
        req = Request::from_parts(parts, body);
        match caller {
            Ok(c) => c,
            Err(e) => return e.into_response(),
        }
    } else {
        let settings = app.settings.current();
        match guard::authenticate(&settings.keys, req.headers()) {
            Ok(mut c) => {
                app.settings.used(&c.key_id);
                c.client = crate::client::of(req.extensions()).address;
                c
            }
            Err(e) => return e.into_response(),
        }
    };
    crate::serve::observe::note_account(req.extensions(), &caller.account.id);
    let path = req.uri().path();
    let rest = path
        .strip_prefix("/api/v1")
        .or_else(|| path.strip_prefix("/v1"))
        .unwrap_or(path);
    tracing::debug!(account = %caller.account.id, key = %caller.key_name, "authenticated");
    let verdict = app.limits.check(caller.limiter, Group::of(rest));
    let mut resp = if let Some(wait) = verdict.retry_after {
        let mut e = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "RATE_LIMITED",
            format!("too many requests for this API key; retry after {wait} seconds"),
        );
        e.extra = Some(("retryAfterSeconds", json!(wait)));
        e.into_response()
    } else {
        req.extensions_mut().insert(caller);
        next.run(req).await
    };
    for (k, v) in verdict.headers {
        resp.headers_mut().insert(k, v);
    }
    resp
}

// ---------------------------------------------------------------- helpers

fn media_type(headers: &HeaderMap) -> Option<String> {
    headers.get(header::CONTENT_TYPE).map(|v| {
        v.to_str()
            .unwrap_or("?")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    })
}

fn is_json(media: &str) -> bool {
    media == "application/json" || (media.starts_with("application/") && media.ends_with("+json"))
}

fn empty_body() -> ApiError {
    ApiError::bad_request("EMPTY_BODY", "the request body is empty")
}

fn json_response(status: StatusCode, bytes: impl Into<axum::body::Body>) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        bytes.into(),
    )
        .into_response()
}

fn prefix_of(uri: &Uri) -> &'static str {
    if uri.path().starts_with("/v1/") {
        "/v1"
    } else {
        "/api/v1"
    }
}

// ---------------------------------------------------------------- documents

/// `POST /documents/outbound`.
#[utoipa::path(
    post,
    path = "/api/v1/documents/outbound",
    tag = "documents",
    request_body(content = crate::openapi::OutboundRequest, content_type = "application/json"),
    params(("Idempotency-Key" = Option<String>, Header, description = "Same key and body within 24 h returns the first document again; same key, other body: 409. 1 to 255 visible ASCII characters.", min_length = 1, max_length = 255, pattern = "^[!-~]+$")),
    responses(
        (status = 202, description = "Accepted and queued; both acknowledgement shapes in one body.", body = crate::openapi::OutboundAccepted),
        (status = 400, description = "Malformed JSON or request fields.", body = crate::openapi::ErrorBody),
        (status = 401, description = "Missing, malformed or unknown API key (or an expired or unknown session).", body = crate::openapi::ErrorBody),
        (status = 404, description = "Unknown partner (or another account's).", body = crate::openapi::ErrorBody),
        (status = 409, description = "Idempotency-Key reused with another body, or the partner is disabled (`PARTNER_DISABLED`).", body = crate::openapi::ErrorBody),
        (status = 413, description = "Body over the limit.", body = crate::openapi::ErrorBody),
        (status = 415, description = "Not application/json.", body = crate::openapi::ErrorBody),
        (status = 422, description = "The core cannot render the document: every problem, with JSON pointers into the payload.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("bearer" = []), ("session" = []))
)]
async fn outbound(
    State(app): AppState,
    Extension(caller): Extension<Caller>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let media = media_type(&headers);
    if !media.as_deref().is_some_and(is_json) {
        return Err(ApiError::unsupported_media_type(
            headers
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok()),
            &["application/json"],
        ));
    }
    let body = body_bytes(body, app.config.max_body_bytes)?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(empty_body());
    }
    let idempotency = match headers.get("idempotency-key") {
        None => None,
        Some(v) => {
            let key = v
                .to_str()
                .ok()
                .filter(|k| {
                    !k.is_empty() && k.len() <= 255 && k.bytes().all(|b| b.is_ascii_graphic())
                })
                .ok_or_else(|| {
                    ApiError::bad_request(
                        "INVALID_IDEMPOTENCY_KEY",
                        "Idempotency-Key must be 1 to 255 visible ASCII characters",
                    )
                })?;
            Some(key.to_string())
        }
    };
    let value: Value = serde_json::from_slice(&body).map_err(|e| {
        ApiError::bad_request("INVALID_JSON", format!("the body is not valid JSON: {e}"))
    })?;
    let Value::Object(mut fields) = value else {
        return Err(ApiError::bad_request(
            "INVALID_REQUEST",
            "the body must be a JSON object {partnerId, documentTypeCode, payload}",
        ));
    };
    let mut details = Vec::new();
    for k in fields.keys() {
        if !matches!(k.as_str(), "partnerId" | "documentTypeCode" | "payload") {
            details.push(Detail::error(
                "UNKNOWN_FIELD",
                format!("/{}", k.replace('~', "~0").replace('/', "~1")),
                format!(
                    "unknown field {k:?}; the fields are partnerId, documentTypeCode and payload"
                ),
            ));
        }
    }
    let mut text = |name: &str| -> Option<String> {
        match fields.get(name) {
            None | Some(Value::Null) => {
                details.push(Detail::error(
                    "MISSING_FIELD",
                    format!("/{name}"),
                    format!("{name} is required"),
                ));
                None
            }
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(_) => {
                details.push(Detail::error(
                    "INVALID_FIELD",
                    format!("/{name}"),
                    format!("{name} must be a non-empty string"),
                ));
                None
            }
        }
    };
    let partner_id = text("partnerId");
    let document_type = text("documentTypeCode");
    let payload = match fields.remove("payload") {
        None | Some(Value::Null) => {
            details.push(Detail::error(
                "MISSING_FIELD",
                "/payload",
                "payload is required",
            ));
            None
        }
        Some(p @ Value::Object(_)) => Some(p),
        Some(_) => {
            details.push(Detail::error(
                "INVALID_FIELD",
                "/payload",
                "payload must be a JSON object",
            ));
            None
        }
    };
    let (Some(partner_id), Some(document_type), Some(payload), true) =
        (partner_id, document_type, payload, details.is_empty())
    else {
        let n = details.len();
        return Err(ApiError::bad_request(
            "INVALID_REQUEST",
            format!(
                "the request has {n} problem{}",
                if n == 1 { "" } else { "s" }
            ),
        )
        .with_details(details));
    };
    // The current settings (the caller's account as it was when the key was checked may be
    // a few milliseconds older).
    let partner = crate::settings_api::usable(
        app.settings
            .current()
            .partner(&caller.account.id, &partner_id),
        &partner_id,
    )?;
    let idempotency = idempotency.map(|key| {
        let mut canon = String::new();
        canonical(
            &json!({"partnerId": partner_id, "documentTypeCode": document_type, "payload": payload}),
            &mut canon,
        );
        (key, hex::encode(Sha256::digest(canon.as_bytes())))
    });
    let accepted = app
        .store
        .accept(Accept {
            account: caller.account.id.clone(),
            partner,
            reference: crate::x12::reference(&document_type, &payload),
            document_type,
            payload,
            idempotency,
        })
        .await?;
    app.wake.validate.notify_one();
    let doc = accepted.document;
    let id = doc["documentId"].as_str().unwrap_or_default().to_string();
    let body = json!({
        "ok": true,
        "documentId": id,
        "status": doc["status"],
        "data": doc,
    });
    let mut resp = (StatusCode::ACCEPTED, Json(body)).into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("{}/transactions/{id}", prefix_of(&uri))) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    if accepted.replayed {
        resp.headers_mut().insert(
            HeaderName::from_static("idempotent-replayed"),
            HeaderValue::from_static("true"),
        );
    }
    Ok(resp)
}

// ---------------------------------------------------------------- transactions

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ListQuery {
    status: Option<String>,
    limit: Option<String>,
    cursor: Option<String>,
    reference: Option<String>,
    partner_id: Option<String>,
    document_type_code: Option<String>,
    direction: Option<String>,
    since: Option<String>,
    until: Option<String>,
}

/// A time parameter (`since`, `until`): RFC 3339 or a date.
pub(crate) fn time_param(name: &str, value: Option<&str>) -> ApiResult<Option<i64>> {
    match value {
        None => Ok(None),
        Some(v) => store::parse_time(v).map(Some).ok_or_else(|| {
            query_error(
                name,
                format!(
                    "{name} must be an RFC 3339 time (2026-11-24T09:00:00Z, 2026-11-24T00:00:00+01:00) or a date (2026-11-24), found {v:?}"
                ),
            )
        }),
    }
}

/// A text parameter that must not be empty (an empty one would match nothing, silently).
fn text_param(name: &str, value: Option<String>) -> ApiResult<Option<String>> {
    match value {
        Some(v) if v.is_empty() || v.len() > 256 => Err(query_error(
            name,
            format!("{name} must be 1 to 256 characters"),
        )),
        v => Ok(v),
    }
}

/// `GET /transactions`.
#[utoipa::path(
    get,
    path = "/api/v1/transactions",
    tag = "transactions",
    params(
        ("status" = Option<String>, Query, description = "Only this status, case-insensitive (queued, validated, routed, acknowledged, failed, canceled; received for inbound)."),
        ("reference" = Option<String>, Query, description = "Only documents with this business reference, exactly: the payload field the core names for each type (`referenceField` of GET /document-types: the PO number of an 850, the invoice number of an 810, the shipment id of an 856 ...).", min_length = 1, max_length = 256),
        ("partnerId" = Option<String>, Query, description = "Only this trading partner's documents.", min_length = 1, max_length = 256),
        ("documentTypeCode" = Option<String>, Query, description = "Only this type (850, 997 ...).", min_length = 1, max_length = 256),
        ("direction" = Option<crate::openapi::Direction>, Query, description = "Only `outbound` or `inbound` documents."),
        ("since" = Option<String>, Query, description = "Only documents created at or after this time: RFC 3339, or a date (its midnight UTC).", pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2}))?$"),
        ("until" = Option<String>, Query, description = "Only documents created before this time: RFC 3339, or a date (its midnight UTC).", pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2}))?$"),
        ("limit" = Option<i64>, Query, description = "1 to 500, default 50.", minimum = 1, maximum = 500),
        ("cursor" = Option<String>, Query, description = "nextCursor of the previous page (send the same filters with it)."),
    ),
    responses(
        (status = 200, description = "The caller's transactions, newest first.", body = crate::openapi::TransactionList),
        (status = 400, description = "Bad status, limit, cursor, direction or time, an empty filter, or an unknown parameter.", body = crate::openapi::ErrorBody),
        (status = 401, description = "Missing, malformed or unknown API key (or session).", body = crate::openapi::ErrorBody),
        (status = 403, description = "A session's change without its X-CSRF-Token.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("bearer" = []), ("session" = []))
)]
async fn list_transactions(
    State(app): AppState,
    Extension(caller): Extension<Caller>,
    uri: Uri,
) -> ApiResult<Response> {
    let q: ListQuery = query(&uri)?;
    let limit = limit_param(q.limit.as_deref(), 500)?;
    let status = match q.status.as_deref() {
        None => None,
        Some(s) => {
            let Some(status) = Status::parse(&s.to_ascii_lowercase()) else {
                let names: Vec<&str> = Status::ALL.iter().map(|s| s.as_str()).collect();
                return Err(query_error(
                    "status",
                    format!("status {s:?} is not one of {} (any case)", names.join(", ")),
                ));
            };
            Some(status.as_str().to_string())
        }
    };
    let before = match q.cursor.as_deref() {
        None => None,
        Some(c) => Some(decode_cursor(c).ok_or_else(|| {
            ApiError::bad_request(
                "INVALID_CURSOR",
                "cursor is not a nextCursor this API returned",
            )
            .with_details(vec![Detail::error(
                "INVALID_CURSOR",
                "cursor",
                "not a cursor of this API",
            )])
        })?),
    };
    let direction = match q.direction.as_deref() {
        None => None,
        Some(d @ ("outbound" | "inbound")) => Some(d.to_string()),
        Some(d) => {
            return Err(query_error(
                "direction",
                format!("direction must be outbound or inbound, found {d:?}"),
            ));
        }
    };
    let filter = store::Filter {
        status,
        reference: text_param("reference", q.reference)?,
        partner_id: text_param("partnerId", q.partner_id)?,
        document_type: text_param("documentTypeCode", q.document_type_code)?,
        direction,
        since: time_param("since", q.since.as_deref())?,
        until: time_param("until", q.until.as_deref())?,
    };
    let account = caller.account.id.clone();
    let page = app
        .store
        .read(move |c| store::list_page(c, &account, &filter, before, limit, encode_cursor))
        .await?;
    Ok(json_response(StatusCode::OK, page))
}

/// `GET /transactions/{id}`.
#[utoipa::path(
    get,
    path = "/api/v1/transactions/{id}",
    tag = "transactions",
    params(("id" = String, Path, description = "documentId of the transaction.")),
    responses(
        (status = 200, description = "The full status of one of the caller's transactions.", body = crate::openapi::TransactionDetail),
        (status = 401, description = "Missing, malformed or unknown API key (or an expired or unknown session).", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such transaction in the caller's account (another account's id too).", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("bearer" = []), ("session" = []))
)]
async fn get_transaction(
    State(app): AppState,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let account = caller.account.id.clone();
    let lookup = id.clone();
    let found = app
        .store
        .read(move |c| store::detail(c, &account, &lookup))
        .await?;
    match found {
        Some(doc) => Ok(Json(json!({"ok": true, "data": doc})).into_response()),
        None => Err(ApiError::not_found(
            "TRANSACTION_NOT_FOUND",
            format!("no transaction {id:?} in this account"),
        )),
    }
}

// ---------------------------------------------------------------- parse and validate

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct X12Json {
    x12: String,
}

/// Whether a `/parse` or `/validate` body is the JSON wrapper (else raw X12);
/// 415 for another media type.
fn x12_wrapped(headers: &HeaderMap) -> ApiResult<bool> {
    let media = media_type(headers);
    let json = match media.as_deref() {
        Some("application/edi-x12" | "text/plain" | "application/octet-stream") => false,
        Some(m) if is_json(m) => true,
        _ => {
            return Err(ApiError::unsupported_media_type(
                headers
                    .get(header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok()),
                X12_TYPES,
            ));
        }
    };
    Ok(json)
}

/// The X12 of a whole body: itself, or the `x12` of its JSON wrapper.
fn x12_of(json: bool, body: Bytes) -> ApiResult<Bytes> {
    if body.is_empty() {
        return Err(empty_body());
    }
    if !json {
        return Ok(body);
    }
    let wrapped: X12Json = serde_json::from_slice(&body).map_err(|e| {
        let code = if e.is_data() {
            "INVALID_REQUEST"
        } else {
            "INVALID_JSON"
        };
        ApiError::bad_request(
            code,
            format!("a JSON body must be {{\"x12\": \"<interchange>\"}}: {e}"),
        )
    })?;
    if wrapped.x12.is_empty() {
        return Err(empty_body());
    }
    Ok(Bytes::from(wrapped.x12.into_bytes()))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ParseQuery {
    documents: Option<bool>,
    max_set_bytes: Option<String>,
}

/// The cap on one set of a request (`?maxSetBytes=`): 1 to the server's `max_set_bytes`,
/// which is also the default.
fn set_cap(value: Option<&str>, max: u64) -> ApiResult<x12kit::envelope::SetCap> {
    let Some(v) = value else {
        return Ok(x12kit::envelope::SetCap::bytes(max));
    };
    match v.parse::<u64>() {
        Ok(n) if (1..=max).contains(&n) => Ok(x12kit::envelope::SetCap::bytes(n)),
        _ => Err(query_error(
            "maxSetBytes",
            format!(
                "maxSetBytes must be a whole number of bytes from 1 to {max} (the server's max_set_bytes), found {v:?}"
            ),
        )),
    }
}

/// The OpenAPI parameter of [`set_cap`].
const MAX_SET_BYTES_DOC: &str = "The cap on one transaction set, in bytes (ST to SE): a larger set is a SET_TOO_LARGE error diagnostic, its body is not read (no segments, no mapped document) and the sets after it follow. 1 to the server's max_set_bytes (default 67108864, 64 MiB: the maximum given here is that default), which is also the default.";

/// `POST /parse`.
#[utoipa::path(
    post,
    path = "/api/v1/parse",
    tag = "x12",
    params(
        ("documents" = Option<bool>, Query, description = "Add the mapped-back document JSON of known sets (default true)."),
        ("maxSetBytes" = Option<i64>, Query, description = MAX_SET_BYTES_DOC, minimum = 1, maximum = 67108864),
    ),
    request_body(content = crate::openapi::X12Body, description = "Raw X12 as application/edi-x12, text/plain or application/octet-stream, or {\"x12\": \"...\"} as JSON.",
        content(
            (crate::openapi::X12Text = "application/edi-x12"),
            (crate::openapi::X12Text = "text/plain"),
            (crate::openapi::X12Text = "application/octet-stream"),
            (crate::openapi::X12Body = "application/json"),
        )),
    responses(
        (status = 200, description = "The core's parse result (the JSON of `x12kit parse`); X12 problems are in `diagnostics`.", body = Object),
        (status = 400, description = "Empty body, malformed JSON wrapper or query.", body = crate::openapi::ErrorBody),
        (status = 401, description = "Missing, malformed or unknown API key (or an expired or unknown session).", body = crate::openapi::ErrorBody),
        (status = 413, description = "Body over the limit.", body = crate::openapi::ErrorBody),
        (status = 415, description = "Unsupported Content-Type.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("bearer" = []), ("session" = []))
)]
async fn parse(
    State(app): AppState,
    uri: Uri,
    headers: HeaderMap,
    body: axum::body::Body,
) -> ApiResult<Response> {
    let q: ParseQuery = query(&uri)?;
    let cap = set_cap(q.max_set_bytes.as_deref(), app.config.max_set_bytes)?;
    let json = x12_wrapped(&headers)?;
    let limit = app.config.max_body_bytes;
    let documents = q.documents.unwrap_or(true);
    let size = {
        use http_body::Body as _;
        body.size_hint().exact()
    };
    if !json && crate::request::parse_streams(size) {
        return parse_streamed(body, limit, documents, cap).await;
    }
    let input = x12_of(json, read_whole(body, limit).await?)?;
    // Into a reused buffer, which goes back to the pool once the body is sent (src/pool.rs).
    let json = off_thread(input.len(), move || {
        let mut out = crate::pool::take();
        match x12::parse_into(&input, documents, cap, &mut out) {
            Ok(()) => Ok(out),
            Err(e) => {
                crate::pool::give_back(out);
                Err(e)
            }
        }
    })
    .await?;
    Ok(json_response(StatusCode::OK, crate::pool::into_bytes(json)))
}

/// What a streamed `/validate` gathers from the body before handing it to the core.
const VALIDATE_BATCH: usize = 1024 * 1024;

/// `POST /parse` of a large raw body: spooled to a temporary file as it arrives, then
/// parsed into JSON that is sent as it is written (chunked), one interchange or set at
/// a time; memory follows the largest set, not the input or the result. The body's
/// errors (413, 400, 408) are answered before the result starts.
async fn parse_streamed(
    body: axum::body::Body,
    limit: usize,
    documents: bool,
    cap: x12kit::envelope::SetCap,
) -> ApiResult<Response> {
    let input = spooled(body, limit).await?;
    // The writer holds the core slot while the core works, not while a slow client
    // reads (src/request.rs, ChannelWriter).
    let slot = crate::request::core_slot().await?;
    let (out, writer) = crate::request::channel_body(slot);
    tokio::task::spawn_blocking(move || {
        let _ = x12::parse_stream(&input, documents, cap, writer);
    });
    Ok(json_response(StatusCode::OK, axum::body::Body::new(out)))
}

/// A raw body spooled to an anonymous temporary file as it arrives, and mapped (400
/// `EMPTY_BODY` when empty; the body's errors as [`Frames`] answers them).
async fn spooled(body: axum::body::Body, limit: usize) -> ApiResult<x12kit_mapped::Input> {
    // Spooling waits for the client: on a blocking thread but without a core slot.
    let frames = Frames::new(body, limit);
    let input = tokio::task::spawn_blocking(move || crate::request::spool(frames))
        .await
        .map_err(|_| ApiError::internal())??;
    if input.is_empty() {
        return Err(empty_body());
    }
    Ok(input)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ValidateQuery {
    structure: Option<bool>,
    ack: Option<String>,
    control_number: Option<u64>,
}

/// `POST /validate`.
#[utoipa::path(
    post,
    path = "/api/v1/validate",
    tag = "x12",
    params(
        ("structure" = Option<bool>, Query, description = "Also check the transaction-set structure rules (default false)."),
        ("ack" = Option<crate::openapi::AckParam>, Query, description = "Add the acknowledgement X12: ta1, 997, 999 or auto."),
        ("controlNumber" = Option<i64>, Query, description = "Control number of the acknowledgement (ISA13, GS06, ST02), default 1.", minimum = 1, maximum = 999999999),
    ),
    request_body(content = crate::openapi::X12Body, description = "Raw X12 as application/edi-x12, text/plain or application/octet-stream, or {\"x12\": \"...\"} as JSON.",
        content(
            (crate::openapi::X12Text = "application/edi-x12"),
            (crate::openapi::X12Text = "text/plain"),
            (crate::openapi::X12Text = "application/octet-stream"),
            (crate::openapi::X12Body = "application/json"),
        )),
    responses(
        (status = 200, description = "The validation result (the JSON of `x12kit validate --json`), with `acknowledgement` {kind, x12} when ack is given.", body = Object),
        (status = 400, description = "Empty body, malformed JSON wrapper or query.", body = crate::openapi::ErrorBody),
        (status = 401, description = "Missing, malformed or unknown API key (or an expired or unknown session).", body = crate::openapi::ErrorBody),
        (status = 413, description = "Body over the limit.", body = crate::openapi::ErrorBody),
        (status = 415, description = "Unsupported Content-Type.", body = crate::openapi::ErrorBody),
        (status = 422, description = "No acknowledgement can be built for this input.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("bearer" = []), ("session" = []))
)]
async fn validate(
    State(app): AppState,
    uri: Uri,
    headers: HeaderMap,
    body: axum::body::Body,
) -> ApiResult<Response> {
    let q: ValidateQuery = query(&uri)?;
    let ack = match q.ack.as_deref() {
        None => None,
        Some(a) => {
            let lower = a.to_ascii_lowercase();
            if !matches!(lower.as_str(), "ta1" | "997" | "999" | "auto") {
                return Err(query_error(
                    "ack",
                    format!("ack must be ta1, 997, 999 or auto, found {a:?}"),
                ));
            }
            Some(lower)
        }
    };
    let control = q.control_number.unwrap_or(1);
    if !(1..=999_999_999).contains(&control) {
        return Err(query_error(
            "controlNumber",
            format!("controlNumber must be 1 to 999999999, found {control}"),
        ));
    }
    let json = x12_wrapped(&headers)?;
    let limit = app.config.max_body_bytes;
    let structure = q.structure.unwrap_or(false);
    let size = {
        use http_body::Body as _;
        body.size_hint().exact()
    };
    // Raw X12 of unknown or larger size is validated as it arrives (memory bounded by
    // the longest segment and the sets' summaries); a JSON wrapper or a small body whole.
    if json || size.is_some_and(|n| n <= BLOCKING_ABOVE as u64) {
        let input = x12_of(json, read_whole(body, limit).await?)?;
        let json = off_thread(input.len(), move || {
            x12::validate(&input, structure, ack.as_deref(), control)
        })
        .await?;
        return Ok(json_response(StatusCode::OK, json));
    }
    // The body is read here, on the runtime, and handed to the core a batch at a time on
    // the blocking pool: a core slot is held while the core works, never while the
    // client is sending (a slow client must not take the slots of everyone's calls).
    let (mut body, mut read) = (body, 0usize);
    let mut v = x12::ValidateStream::new(structure)?;
    let mut batch: Vec<u8> = Vec::with_capacity(VALIDATE_BATCH + 64 * 1024);
    loop {
        let chunk = crate::request::next_data(&mut body, &mut read, limit)
            .await
            .transpose()?;
        let end = chunk.is_none();
        if let Some(c) = chunk {
            batch.extend_from_slice(&c);
        }
        if batch.len() >= VALIDATE_BATCH || (end && !batch.is_empty()) {
            // The batch's buffer goes to the blocking pool and comes back, reused.
            let b = std::mem::take(&mut batch);
            (v, batch) = off_thread(b.len(), move || Ok((v.feed(&b)?, b))).await?;
            batch.clear();
        }
        if end {
            break;
        }
    }
    if read == 0 {
        return Err(empty_body());
    }
    let json = off_thread(usize::MAX, move || v.answer(ack.as_deref(), control)).await?;
    Ok(json_response(StatusCode::OK, json))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct InboundQuery {
    partner_id: Option<String>,
    max_set_bytes: Option<String>,
}

/// `POST /documents/inbound` (beyond the spec): X12 from a partner.
#[utoipa::path(
    post,
    path = "/api/v1/documents/inbound",
    tag = "documents",
    params(
        ("partnerId" = Option<String>, Query, description = "The sending partner; by default the partner whose profile's receiver is the interchange's sender (ISA05/ISA06)."),
        ("maxSetBytes" = Option<i64>, Query, description = MAX_SET_BYTES_DOC, minimum = 1, maximum = 67108864),
    ),
    request_body(content = crate::openapi::X12Body, description = "The partner's X12 (TA1, 997, 999 or any set) as application/edi-x12, text/plain or application/octet-stream, or {\"x12\": \"...\"} as JSON.",
        content(
            (crate::openapi::X12Text = "application/edi-x12"),
            (crate::openapi::X12Text = "text/plain"),
            (crate::openapi::X12Text = "application/octet-stream"),
            (crate::openapi::X12Body = "application/json"),
        )),
    responses(
        (status = 200, description = "What was done with each interchange, acknowledgement and set.", body = crate::openapi::InboundResult),
        (status = 400, description = "Empty body, malformed JSON wrapper or query.", body = crate::openapi::ErrorBody),
        (status = 401, description = "Missing, malformed or unknown API key (or an expired or unknown session).", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such partner in the caller's account.", body = crate::openapi::ErrorBody),
        (status = 413, description = "Body over the limit.", body = crate::openapi::ErrorBody),
        (status = 415, description = "Unsupported Content-Type.", body = crate::openapi::ErrorBody),
        (status = 422, description = "The body holds no X12 interchange.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("bearer" = []), ("session" = []))
)]
async fn inbound(
    State(app): AppState,
    Extension(caller): Extension<Caller>,
    uri: Uri,
    headers: HeaderMap,
    body: axum::body::Body,
) -> ApiResult<Response> {
    let q: InboundQuery = query(&uri)?;
    let cap = set_cap(q.max_set_bytes.as_deref(), app.config.max_set_bytes)?;
    let json = x12_wrapped(&headers)?;
    let limit = app.config.max_body_bytes;
    let size = {
        use http_body::Body as _;
        body.size_hint().exact()
    };
    // A large raw body (or one of unknown size) is spooled to a temporary file as it
    // arrives (admission reserved only its buffer) and applied a batch of sets at a time
    // (src/inbound.rs); a JSON wrapper or a small body was read whole by admission.
    let input = if !json && crate::request::parse_streams(size) {
        spooled(body, limit).await?
    } else {
        x12kit_mapped::Input::Read(x12_of(json, read_whole(body, limit).await?)?.to_vec())
    };
    let result = crate::inbound::receive(
        &app,
        &caller.account.id,
        q.partner_id.as_deref(),
        input,
        "api",
        cap,
    )
    .await?;
    Ok(Json(json!({"ok": true, "data": result})).into_response())
}

/// `GET /stats`: queue depths, webhook deliveries pending and failures of the caller's account.
#[utoipa::path(
    get,
    path = "/api/v1/stats",
    tag = "service",
    params(("since" = Option<String>, Query, description = "Also count the documents created at or after this time by status (`created`): RFC 3339, or a date (its midnight UTC). The dashboard sends the person's midnight of today and of 6 days before.", pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2}))?$")),
    responses(
        (status = 200, description = "Counts by status, what needs attention, queue depths and webhook deliveries of the caller's account.", body = crate::openapi::Stats),
        (status = 400, description = "A `since` that is not a time, or an unknown parameter.", body = crate::openapi::ErrorBody),
        (status = 401, description = "Missing, malformed or unknown API key (or session).", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("bearer" = []), ("session" = []))
)]
async fn stats(
    State(app): AppState,
    Extension(caller): Extension<Caller>,
    uri: Uri,
) -> ApiResult<Response> {
    let q: StatsQuery = query(&uri)?;
    let since = time_param("since", q.since.as_deref())?;
    let account = caller.account.id.clone();
    let data = app
        .store
        .read(move |c| crate::lifecycle::stats(c, &account, since))
        .await?;
    Ok(Json(json!({"ok": true, "data": data})).into_response())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StatsQuery {
    since: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoQuery {}

/// `GET /document-types`: the core's registry of the sets it renders and reads.
#[utoipa::path(
    get,
    path = "/api/v1/document-types",
    tag = "documents",
    responses(
        (status = 200, description = "The document types the server renders and reads, in the core's order: `code`, `name`, `functionalId` (GS01) and `referenceField`, the JSON pointer of the payload field that is the type's business reference (what `?reference=` of the transaction list matches).", body = crate::openapi::DocumentTypes),
        (status = 400, description = "An unknown parameter.", body = crate::openapi::ErrorBody),
        (status = 401, description = "Missing, malformed or unknown API key (or an expired or unknown session).", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("bearer" = []), ("session" = []))
)]
async fn document_types(uri: Uri) -> ApiResult<Response> {
    let _: NoQuery = query(&uri)?;
    let data: Vec<Value> = x12kit::ops::DOCUMENT_TYPES
        .iter()
        .map(|code| {
            json!({
                "code": code,
                "name": x12kit::documents::name(code),
                "functionalId": x12kit::documents::functional_id(code),
                "referenceField": x12kit::ops::reference_field(code).ok(),
            })
        })
        .collect();
    Ok(Json(json!({"ok": true, "data": data})).into_response())
}

/// `GET /document-types/{code}/csv-template`: the header row of a CSV for the type.
#[utoipa::path(
    get,
    path = "/api/v1/document-types/{code}/csv-template",
    tag = "documents",
    params(("code" = String, Path, description = "A document type code (850, ...).")),
    responses(
        (status = 200, description = "A CSV header row for CSV intake of the type (`text/csv`, as a download): the business reference first, then every payload field a column can name (a `*` for the items of a list).", content_type = "text/csv", body = String),
        (status = 401, description = "Missing, malformed or unknown API key (or an expired or unknown session).", body = crate::openapi::ErrorBody),
        (status = 422, description = "`UNKNOWN_DOCUMENT_TYPE`.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("bearer" = []), ("session" = []))
)]
async fn csv_template(Path(code): Path<String>, uri: Uri) -> ApiResult<Response> {
    let _: NoQuery = query(&uri)?;
    let text = x12kit::ops::csv_template(&code).map_err(|e| ApiError::from_core(&e))?;
    let disposition = format!(
        "attachment; filename=\"{}-template.csv\"",
        code.replace(|c: char| !c.is_ascii_alphanumeric(), "")
    );
    let mut resp = (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/csv; charset=utf-8"),
        )],
        text,
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&disposition) {
        resp.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(resp)
}

// ---------------------------------------------------------------- service routes

/// `GET /healthz`: the process answers.
#[utoipa::path(get, path = "/healthz", tag = "service",
    responses((status = 200, description = "The process is up.", body = crate::openapi::Health)))]
async fn healthz() -> Json<Value> {
    Json(json!({"ok": true}))
}

/// `GET /readyz`: the database answers, the writer runs and its writes succeed, and the
/// process is not shedding work.
#[utoipa::path(get, path = "/readyz", tag = "service",
    responses(
        (status = 200, description = "Ready to serve.", body = crate::openapi::Health),
        (status = 503, description = "Not ready: the store is not usable (`NOT_READY`), its writes fail (`STORE_UNAVAILABLE`: a full disk, the database restarting), or the process is shedding work (`OVERLOADED`: each route group or limit refusing requests is a detail).", body = crate::openapi::ErrorBody),
    ))]
async fn readyz(
    State(app): AppState,
    serving: Option<Extension<Arc<crate::serve::serving::Serving>>>,
) -> Response {
    if !app.store.ready().await {
        return ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "NOT_READY",
            "the database is not usable",
        )
        .into_response();
    }
    if let Some(fault) = app.store.write_fault() {
        tracing::debug!(%fault, "not ready: the store cannot take writes");
        return ApiError::store_unavailable().into_response();
    }
    let pressure = serving.map(|s| s.pressure()).unwrap_or_default();
    if !pressure.is_empty() {
        let e = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "OVERLOADED",
            "the process is shedding work: send traffic elsewhere for a moment",
        )
        .with_details(pressure)
        .with_header(header::RETRY_AFTER, HeaderValue::from(1u64));
        return e.into_response();
    }
    Json(json!({"ok": true})).into_response()
}

/// `GET /api/v1/openapi.json`.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "service",
    responses((status = 200, description = "This document (OpenAPI 3.1).", body = Object)))]
async fn openapi() -> Response {
    json_response(StatusCode::OK, openapi_json().into_bytes())
}

async fn not_found(OriginalUri(uri): OriginalUri) -> ApiError {
    ApiError::not_found("NOT_FOUND", format!("no route {}", uri.path()))
}

async fn api_not_found(uri: OriginalUri) -> ApiError {
    not_found(uri).await
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "METHOD_NOT_ALLOWED",
        "this route does not accept this method",
    )
}

/// The handlers' OpenAPI paths (for `crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    crate::auth::login,
    crate::auth::logout,
    crate::auth::me,
    crate::settings_api::list_keys,
    crate::settings_api::create_key,
    crate::settings_api::revoke_key,
    crate::settings_api::list_partners,
    crate::settings_api::create_partner,
    crate::settings_api::get_partner,
    crate::settings_api::put_partner,
    crate::settings_api::delete_partner,
    crate::settings_api::test_partner_connection,
    crate::settings_api::list_webhooks,
    crate::settings_api::create_webhook,
    crate::settings_api::get_webhook,
    crate::settings_api::put_webhook,
    crate::settings_api::delete_webhook,
    crate::settings_api::rotate_secret,
    crate::settings_api::test_webhook,
    crate::settings_api::list_users,
    crate::settings_api::create_user,
    crate::settings_api::update_user,
    crate::settings_api::audit,
    crate::actions::deliveries,
    crate::actions::redeliver,
    crate::actions::resend,
    crate::actions::cancel,
    crate::upload::upload,
    document_types,
    csv_template,
    outbound,
    inbound,
    stats,
    list_transactions,
    get_transaction,
    parse,
    validate,
    healthz,
    readyz,
    openapi,
    crate::as2::inbound::receive
))]
pub struct Paths;

/// The OpenAPI document as pretty JSON (with a final newline).
pub fn openapi_json() -> String {
    let mut doc = <crate::openapi::Doc as utoipa::OpenApi>::openapi();
    doc.merge(<Paths as utoipa::OpenApi>::openapi());
    crate::serve::openapi::add_responses(&mut doc);
    let mut s = doc.to_pretty_json().unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}
