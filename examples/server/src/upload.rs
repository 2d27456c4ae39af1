//! CSV intake: `POST /api/upload` turns a spreadsheet into documents for a
//! signed-in person (the dashboard's CSV intake page, or curl with a session).
//!
//! The core reads the file (`ops::payloads_from_csv`: the header's JSON
//! pointers, one document per run of rows with the same key, the
//! declaration's types, every problem at its row, column and pointer, the
//! partner's guide included); this module adds HTTP: the body (`text/csv`, or
//! `multipart/form-data` with one file), the limits of spec §8 (30 uploads per
//! person and 90 per client network per minute, besides the session's), the
//! dry run, and the all-or-nothing queueing: every document is accepted as
//! `POST /documents/outbound` accepts one (rendered at once, its control
//! numbers taken), all in one store transaction, each with the idempotency key
//! `csv:<the file's SHA-256>:<its document key>`, so the same file uploaded
//! again answers the same documents instead of making them twice.

use crate::app::App;
use crate::error::{ApiError, ApiResult};
use crate::guard::SessionUser;
use crate::request::{body_bytes, canonical, query, query_error};
use crate::settings::write;
use crate::store::Accept;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// Rows of the file the dry run answers as a table (the dashboard's preview) at most.
const TABLE_ROWS: usize = 1000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UploadQuery {
    document_type_code: Option<String>,
    partner_id: Option<String>,
    dry_run: Option<bool>,
    delimiter: Option<String>,
    document_key: Option<String>,
}

/// The file of the request: the body of a `text/csv` request, or the one file part of a
/// `multipart/form-data` one.
async fn file(app: &App, req: Request) -> ApiResult<Bytes> {
    let media = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    match media.as_deref() {
        Some("text/csv" | "application/csv" | "text/plain") => {
            let body = Bytes::from_request(req, &()).await;
            body_bytes(body, app.config.max_body_bytes)
        }
        Some("multipart/form-data") => {
            let mut form = axum::extract::Multipart::from_request(req, &())
                .await
                .map_err(|e| ApiError::bad_request("INVALID_BODY", e.body_text()))?;
            let mut found: Option<Bytes> = None;
            let limit = app.config.max_body_bytes;
            let error = |e| multipart_error(e, limit);
            while let Some(part) = form.next_field().await.map_err(error)? {
                if part.file_name().is_none() {
                    continue;
                }
                if found.is_some() {
                    return Err(ApiError::bad_request(
                        "INVALID_BODY",
                        "send one file: the form has more than one",
                    ));
                }
                found = Some(part.bytes().await.map_err(error)?);
            }
            found.ok_or_else(|| ApiError::bad_request("INVALID_BODY", "the form has no file part"))
        }
        _ => Err(ApiError::unsupported_media_type(
            req.headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok()),
            &["text/csv", "multipart/form-data (one file)"],
        )),
    }
}

fn multipart_error(e: axum::extract::multipart::MultipartError, limit: usize) -> ApiError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::too_large(limit)
    } else {
        ApiError::bad_request("INVALID_BODY", e.body_text())
    }
}

/// The core's problems as the details of a 422 (each with its row and column too).
fn details(problems: &[Value]) -> Value {
    Value::Array(
        problems
            .iter()
            .map(|p| {
                json!({
                    "severity": "error",
                    "code": p["code"],
                    "pointer": p["pointer"],
                    "message": p["message"],
                    "row": p["row"],
                    "column": p["column"],
                })
            })
            .collect(),
    )
}

/// `POST /api/upload`.
#[utoipa::path(post, path = "/api/upload", tag = "settings",
    params(
        ("documentTypeCode" = String, Query, description = "The type of every document of the file (850, 810, ...)."),
        ("partnerId" = String, Query, description = "The trading partner they go to (its guide's required fields are checked too)."),
        ("dryRun" = Option<bool>, Query, description = "true: answer what the file would make and every problem, store nothing."),
        ("delimiter" = Option<crate::openapi::CsvDelimiter>, Query, description = "`comma` (default) or `semicolon`."),
        ("documentKey" = Option<String>, Query, description = "The column whose value groups rows into documents (default: the first column)."),
        ("X-CSRF-Token" = String, Header, description = "The session's csrfToken."),
    ),
    request_body(content = crate::openapi::CsvText, description = "The CSV: `text/csv` (UTF-8), or `multipart/form-data` with one file part.",
        content((crate::openapi::CsvText = "text/csv"), (crate::openapi::CsvText = "multipart/form-data"))),
    responses(
        (status = 200, description = "`dryRun=true`: the documents the file makes (key, reference, rows, payload), every problem at its row, column and pointer, and the file as a table (its first 1000 rows); nothing stored. Without dryRun: the file was uploaded before, and every document is the one made then (`replayed`).", body = crate::openapi::UploadAnswer),
        (status = 201, description = "Every document was rendered and queued, in one transaction: their ids (audited as `upload.create`).", body = crate::openapi::UploadAnswer),
        (status = 400, description = "`INVALID_QUERY` (a missing type or partner, a bad delimiter), `INVALID_BODY` (a form without one file).", body = crate::openapi::ErrorBody),
        (status = 401, description = "No valid session, or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`.", body = crate::openapi::ErrorBody),
        (status = 404, description = "`PARTNER_NOT_FOUND`.", body = crate::openapi::ErrorBody),
        (status = 409, description = "`PARTNER_DISABLED`; `IDEMPOTENCY_KEY_REUSED` (a document key of this file was uploaded in the last 24 h with other content).", body = crate::openapi::ErrorBody),
        (status = 413, description = "The file is over `max_body_bytes`.", body = crate::openapi::ErrorBody),
        (status = 415, description = "Not text/csv or multipart/form-data.", body = crate::openapi::ErrorBody),
        (status = 422, description = "`CSV_PROBLEMS`: every problem (`details`: code, message, pointer into the payload, row, column); nothing was queued. Or `UNKNOWN_DOCUMENT_TYPE`.", body = crate::openapi::ErrorBody),
        (status = 429, description = "`RATE_LIMITED`: 30 uploads per person or 90 per client network in a minute.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = [])))]
pub async fn upload(
    State(app): State<Arc<App>>,
    Extension(user): Extension<SessionUser>,
    req: Request,
) -> ApiResult<Response> {
    let q: UploadQuery = query(req.uri())?;
    let ip = user
        .client
        .parse()
        .unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED));
    // The person's limit first: a request it refuses takes nothing of the network's.
    let verdict = app.limits.upload_user.check(&user.user_id);
    if let Some(e) = verdict.refusal("(uploads) for this user") {
        let mut resp = e.into_response();
        verdict.apply(&mut resp);
        return Ok(resp);
    }
    let verdict = app.limits.upload_network.check(&crate::guard::network(ip));
    if let Some(e) = verdict.refusal("(uploads) from this network") {
        let mut resp = e.into_response();
        verdict.apply(&mut resp);
        return Ok(resp);
    }
    let document_type = q
        .document_type_code
        .filter(|t| !t.is_empty())
        .ok_or_else(|| query_error("documentTypeCode", "documentTypeCode is required".into()))?;
    let partner_id = q
        .partner_id
        .filter(|p| !p.is_empty())
        .ok_or_else(|| query_error("partnerId", "partnerId is required".into()))?;
    let delimiter = match q.delimiter.as_deref() {
        None | Some("comma") => ",",
        Some("semicolon") => ";",
        Some(d) => {
            return Err(query_error(
                "delimiter",
                format!("delimiter is comma or semicolon, found {d:?}"),
            ));
        }
    };
    let dry_run = q.dry_run.unwrap_or(false);
    let partner = crate::settings_api::usable(
        app.settings.current().partner(&user.account, &partner_id),
        &partner_id,
    )?;
    let csv = file(&app, req).await?;
    let sha = hex::encode(Sha256::digest(&csv));
    let mut options = json!({
        "delimiter": delimiter,
        "partner": partner.profile,
        "table": dry_run,
    });
    if let Some(k) = q.document_key {
        options["documentKey"] = json!(k);
    }
    let ty = document_type.clone();
    let read = crate::request::off_thread(csv.len(), move || {
        crate::x12::payloads_from_csv(&ty, &csv, options)
    })
    .await?;
    let problems = read["problems"].as_array().cloned().unwrap_or_default();
    let documents = read["documents"].as_array().cloned().unwrap_or_default();
    if dry_run {
        let rows = read["table"].as_array().cloned().unwrap_or_default();
        let table = json!({
            "header": read["header"],
            "truncated": rows.len() > TABLE_ROWS,
            "rows": rows.into_iter().take(TABLE_ROWS).collect::<Vec<_>>(),
        });
        return Ok(Json(json!({"ok": true, "data": {
            "dryRun": true,
            "documentTypeCode": document_type,
            "partnerId": partner_id,
            "fileSha256": sha,
            "documents": documents,
            "problems": problems,
            "table": table,
        }}))
        .into_response());
    }
    if !problems.is_empty() || documents.is_empty() {
        let n = problems.len();
        let mut e = ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "CSV_PROBLEMS",
            if n == 0 {
                "the file makes no document: nothing was queued".to_string()
            } else {
                format!(
                    "{n} problem{}: nothing was queued",
                    if n == 1 { "" } else { "s" }
                )
            },
        );
        e.details = details(&problems);
        return Err(e);
    }
    let mut jobs = Vec::with_capacity(documents.len());
    for d in &documents {
        let key = d["key"].as_str().unwrap_or_default();
        let payload = d["payload"].clone();
        let mut canon = String::new();
        canonical(
            &json!({"partnerId": partner_id, "documentTypeCode": document_type, "payload": payload}),
            &mut canon,
        );
        jobs.push(Accept {
            account: user.account.clone(),
            partner: partner.clone(),
            document_type: document_type.clone(),
            reference: d["reference"].as_str().map(str::to_string),
            payload,
            idempotency: Some((
                format!("csv:{sha}:{key}"),
                hex::encode(Sha256::digest(canon.as_bytes())),
            )),
        });
    }
    let (actor, account, file_sha) = (user.actor(), user.account.clone(), sha.clone());
    let (kind, partner_name) = (document_type.clone(), partner_id.clone());
    let made = app
        .store
        .write(move |c| {
            let mut out = Vec::with_capacity(jobs.len());
            for job in &jobs {
                out.push(crate::store::accept_in(c, job)?);
            }
            let fresh = out.iter().filter(|a| !a.replayed).count();
            write::record(
                c,
                &actor,
                &account,
                "upload.create",
                &format!("csv:{file_sha}"),
                None,
                Some(&json!({
                    "documentTypeCode": kind,
                    "partnerId": partner_name,
                    "documents": out.len(),
                    "new": fresh,
                    "fileSha256": file_sha,
                })),
            )?;
            Ok(out)
        })
        .await?;
    app.wake.validate.notify_one();
    let replayed = made.iter().all(|a| a.replayed);
    let list: Vec<Value> = made
        .iter()
        .zip(&documents)
        .map(|(a, d)| {
            json!({
                "key": d["key"],
                "reference": d["reference"],
                "rows": d["rows"],
                "documentId": a.document["documentId"],
                "status": a.document["status"],
                "replayed": a.replayed,
            })
        })
        .collect();
    let status = if replayed {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    Ok((
        status,
        Json(json!({"ok": true, "data": {
            "dryRun": false,
            "documentTypeCode": document_type,
            "partnerId": partner_id,
            "fileSha256": sha,
            "replayed": replayed,
            "documents": list,
        }})),
    )
        .into_response())
}
