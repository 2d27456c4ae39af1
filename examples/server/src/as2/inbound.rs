//! `POST /as2/{account}`: what AS2 partners send this server, authenticated by their
//! signature (no API key): `AS2-From` and `AS2-To` select the account's partner whose
//! `as2` transport has `as2To` = `AS2-From` and `as2From` = `AS2-To`.
//!
//! - **A message** is decrypted (our key), decompressed, its signature verified with the
//!   partner's pinned certificate (an unsigned message is refused when the partner's
//!   `signing` is not `none`), its MIC computed, and the X12 handed to the inbound
//!   pipeline (acknowledgements applied, documents recorded) in one store transaction
//!   with the record of its Message-ID and the MDN answered. The MDN goes back in the
//!   HTTP answer, or to the `Receipt-Delivery-Option` URL (asynchronous, retried, and
//!   only for a message whose signature verified: an unauthenticated sender cannot make
//!   this server POST anywhere), signed when asked. A repeated Message-ID is answered
//!   with the same MDN and not applied again. A message that cannot be opened gets a
//!   negative MDN (`decryption-failed`, `authentication-failed`,
//!   `integrity-check-failed`, `insufficient-message-security`,
//!   `unexpected-processing-error`) and is not applied.
//! - **An asynchronous MDN** of a message we sent is verified with the partner's
//!   certificate and matched by `Original-Message-ID` (our Message-IDs are
//!   `<documentId@as2From>`): a positive one with the MIC we computed is recorded with
//!   the document's routing attempt; a negative one, or a MIC mismatch, fails the
//!   document with the reason. An MDN whose signature does not verify is refused (403)
//!   and changes nothing: anyone can POST here, and only the partner may fail a document.

use super::mdn::{self, Disposition, Receipt};
use super::mime;
use super::smime::{self, Digest};
use crate::app::App;
use crate::config::TransportConfig;
use crate::config::as2::As2Config;
use crate::error::{ApiError, ApiResult};
use crate::settings::partner::Partner;
use crate::status::{Status, Step};
use crate::store::now_ms;
use crate::transport::as2::Keys;
use crate::vals;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Waits before each retry of an asynchronous MDN (ms); after the last, it is `failed`.
const MDN_RETRY_MS: &[i64] = &[5_000, 30_000, 120_000, 600_000, 3_600_000];

fn wake() -> &'static tokio::sync::Notify {
    static WAKE: OnceLock<tokio::sync::Notify> = OnceLock::new();
    WAKE.get_or_init(tokio::sync::Notify::new)
}

fn limit(app: &App) -> &'static crate::guard::Limit<std::net::IpAddr> {
    static LIMIT: OnceLock<crate::guard::Limit<std::net::IpAddr>> = OnceLock::new();
    LIMIT.get_or_init(|| crate::guard::Limit::new(app.config.limits.other_per_minute))
}

fn header(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

fn refuse(status: StatusCode, code: &'static str, message: impl Into<String>) -> Response {
    ApiError::new(status, code, message).into_response()
}

/// `POST /as2/{account}`.
#[utoipa::path(post, path = "/as2/{account}", tag = "as2",
    params(("account" = String, Path, description = "The account whose partner sends."),
        ("AS2-From" = String, Header, description = "The partner's AS2 name."),
        ("AS2-To" = String, Header, description = "Ours (the partner's `as2From` setting)."),
        ("Message-ID" = String, Header, description = "The message's id; a repeated one is answered with the same MDN and applied once.")),
    request_body(content = String, content_type = "application/pkcs7-mime", description = "An AS2 message (S/MIME: `application/pkcs7-mime` enveloped or compressed data, `multipart/signed`, or the payload itself), or an asynchronous MDN (`multipart/report`, usually inside `multipart/signed`)."),
    responses(
        (status = 200, description = "A message: the MDN (synchronous; a negative one when the message could not be opened or verified), or an empty body (asynchronous MDN, sent to the `Receipt-Delivery-Option` URL, or none asked for). An MDN: recorded."),
        (status = 400, description = "`AS2_HEADERS_MISSING`: no AS2-From, AS2-To, Message-ID or Content-Type; `AS2_NOT_MIME`.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`AS2_PARTNER_UNKNOWN`: no partnership of these AS2 names in this account; `AS2_MDN_REFUSED`: an MDN that does not verify or matches no message.", body = crate::openapi::ErrorBody),
        (status = 413, description = "Larger than max_body_bytes.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited (per client address).", body = crate::openapi::ErrorBody),
        (status = 503, description = "The store is unavailable: send again later.", body = crate::openapi::ErrorBody),
    ))]
pub async fn receive(
    State(app): State<Arc<App>>,
    Path(account): Path<String>,
    req: Request,
) -> Response {
    let (parts, body) = req.into_parts();
    let ip = crate::client::address(&parts);
    let verdict = limit(&app).check(&ip);
    if let Some(e) = verdict.refusal("from this address") {
        let mut resp = e.into_response();
        verdict.apply(&mut resp);
        return resp;
    }
    let max = app.config.max_body_bytes;
    let body = match axum::body::to_bytes(body, max).await {
        Ok(b) => b,
        Err(_) => return ApiError::too_large(max).into_response(),
    };
    let h = &parts.headers;
    let (Some(from), Some(to), Some(content_type)) = (
        header(h, "as2-from"),
        header(h, "as2-to"),
        header(h, "content-type"),
    ) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "AS2_HEADERS_MISSING",
            "an AS2 request needs AS2-From, AS2-To and Content-Type headers",
        );
    };
    let (from, to) = (super::unquote_name(&from), super::unquote_name(&to));
    let Some((partner, cfg)) = partnership(&app, &account, &from, &to) else {
        tracing::warn!(account = %account, from = %from, to = %to, "AS2 request of no partnership");
        return refuse(
            StatusCode::FORBIDDEN,
            "AS2_PARTNER_UNKNOWN",
            format!("no AS2 partnership from {from:?} to {to:?} in this account"),
        );
    };
    let keys = match cfg.keys() {
        Ok(k) => k,
        Err(e) => {
            tracing::error!(partner = %partner.id, error = %e, "the AS2 partner's keys do not load");
            return ApiError::internal().into_response();
        }
    };
    let mut content = vec![("Content-Type", content_type.as_str())];
    let cte = header(h, "content-transfer-encoding");
    if let Some(c) = &cte {
        content.push(("Content-Transfer-Encoding", c.as_str()));
    }
    let raw = mime::from_http(&content, &body);
    let outer = match mime::read(&raw) {
        Ok(e) => e,
        Err(e) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "AS2_NOT_MIME",
                format!("the body is not a MIME entity of its Content-Type: {e}"),
            );
        }
    };
    if mdn::is_mdn(&outer) {
        return receive_mdn(&app, &account, &partner, &cfg, &keys, &raw).await;
    }
    let Some(message_id) = header(h, "message-id").map(|m| super::bare_id(&m)) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "AS2_HEADERS_MISSING",
            "an AS2 message needs a Message-ID header",
        );
    };
    let asked = Asked::of(h);
    match replay(&app, &account, &partner.id, &message_id).await {
        Ok(Some(stored)) => return stored,
        Ok(None) => {}
        Err(_) => return unavailable(),
    }
    receive_message(
        app, account, partner, cfg, keys, raw, message_id, from, to, asked,
    )
    .await
}

fn unavailable() -> Response {
    refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        "STORE_UNAVAILABLE",
        "the store cannot be reached: send again later",
    )
}

/// The account's enabled partner of these AS2 names, and its settings.
fn partnership(
    app: &App,
    account: &str,
    from: &str,
    to: &str,
) -> Option<(Arc<Partner>, As2Config)> {
    let settings = app.settings.current();
    settings
        .account(account)?
        .partners
        .values()
        .filter(|p| p.enabled)
        .find_map(|p| match &p.transport {
            Some(TransportConfig::As2(c)) if c.as2_to == from && c.as2_from == to => {
                Some((p.clone(), (**c).clone()))
            }
            _ => None,
        })
}

/// The receipt the sender asked for.
#[derive(Debug, Clone, Default)]
struct Asked {
    /// `Disposition-Notification-To` was sent.
    mdn: bool,
    /// The digest of a signed receipt (`signed-receipt-micalg`), when one was asked for.
    signed: Option<Digest>,
    /// The `Receipt-Delivery-Option` URL (asynchronous).
    url: Option<String>,
}

impl Asked {
    fn of(h: &HeaderMap) -> Asked {
        let options = header(h, "disposition-notification-options").unwrap_or_default();
        let lower = options.to_ascii_lowercase();
        let signed = lower.contains("pkcs7-signature").then(|| {
            // signed-receipt-micalg=optional, sha-256, sha1: the first one supported.
            lower
                .split(';')
                .find(|p| p.trim().starts_with("signed-receipt-micalg"))
                .and_then(|p| p.split_once('='))
                .map(|(_, v)| {
                    v.split(',')
                        .skip(1)
                        .find_map(Digest::from_name)
                        .filter(|d| *d != Digest::Sha1)
                        .unwrap_or(Digest::Sha256)
                })
                .unwrap_or(Digest::Sha256)
        });
        Asked {
            mdn: header(h, "disposition-notification-to").is_some(),
            signed,
            url: header(h, "receipt-delivery-option")
                .filter(|u| crate::settings::rules::url_problem(u).is_none()),
        }
    }
}

/// What came out of a message.
struct Opened {
    x12: Vec<u8>,
    mic: (String, Digest),
    signed: bool,
}

/// Why a message could not be opened: the MDN's disposition modifier and the reason.
type Refusal = (&'static str, String);

/// Decrypts, decompresses and verifies `raw` (a MIME entity) down to its payload.
fn open(
    raw: &[u8],
    cfg: &As2Config,
    keys: &Keys,
    asked: Option<Digest>,
    limit: usize,
) -> Result<Opened, Refusal> {
    let mut raw = raw.to_vec();
    let mut signed_mic: Option<(String, Digest)> = None;
    let mut decrypted_mic: Option<(String, Digest)> = None;
    let mut encrypted = false;
    for _ in 0..8 {
        let e = mime::read(&raw).map_err(|e| ("unexpected-processing-error", e))?;
        let smime_type = e
            .param("smime-type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let name = e.param("name").unwrap_or_default().to_ascii_lowercase();
        match e.mime.as_str() {
            "application/pkcs7-mime" | "application/x-pkcs7-mime"
                if smime_type == "compressed-data" || name.ends_with(".p7z") =>
            {
                raw = smime::decompress(&e.body, limit).map_err(|e| ("decompression-failed", e))?;
            }
            "application/pkcs7-mime" | "application/x-pkcs7-mime" => {
                if encrypted {
                    return Err(("unexpected-processing-error", "encrypted twice".into()));
                }
                encrypted = true;
                raw = smime::decrypt(&e.body, &keys.cert, &keys.key)
                    .map_err(|e| ("decryption-failed", e))?;
                decrypted_mic = Some({
                    let d = asked.unwrap_or(Digest::Sha256);
                    (d.mic(&raw), d)
                });
            }
            "multipart/signed" => {
                if signed_mic.is_some() {
                    return Err(("unexpected-processing-error", "signed twice".into()));
                }
                let [content, signature] = e.parts.as_slice() else {
                    return Err((
                        "authentication-failed",
                        "multipart/signed without exactly two parts".into(),
                    ));
                };
                let sig = mime::read(signature).map_err(|e| ("authentication-failed", e))?;
                let mut verified = smime::verify(&sig.body, content, &keys.partner);
                let mut what = content.clone();
                if verified.is_err() {
                    // The sender may have signed the canonical (CRLF) form of a text part.
                    let canonical = mdn::crlf(content);
                    if canonical != *content
                        && smime::verify(&sig.body, &canonical, &keys.partner).is_ok()
                    {
                        verified = Ok(());
                        what = canonical;
                    }
                }
                if let Err(why) = verified {
                    let modifier = if why.contains("altered") {
                        "integrity-check-failed"
                    } else {
                        "authentication-failed"
                    };
                    return Err((modifier, why));
                }
                let d = e
                    .param("micalg")
                    .and_then(Digest::from_name)
                    .or(asked)
                    .unwrap_or(Digest::Sha256);
                signed_mic = Some((d.mic(&what), d));
                raw = content.clone();
            }
            _ => {
                if cfg.encryption().is_some() && !encrypted {
                    return Err((
                        "insufficient-message-security",
                        format!(
                            "the partnership requires encrypted messages ({}); this one is not",
                            cfg.encryption
                        ),
                    ));
                }
                if cfg.digest().is_some() && signed_mic.is_none() {
                    return Err((
                        "insufficient-message-security",
                        format!(
                            "the partnership requires signed messages ({}); this one is not",
                            cfg.signing
                        ),
                    ));
                }
                let signed = signed_mic.is_some();
                let mic = signed_mic.or(decrypted_mic).unwrap_or_else(|| {
                    let d = asked.unwrap_or(Digest::Sha256);
                    (d.mic(&e.body), d)
                });
                return Ok(Opened {
                    x12: e.body,
                    mic,
                    signed,
                });
            }
        }
    }
    Err((
        "unexpected-processing-error",
        "nested more than 8 levels".into(),
    ))
}

/// Handles one message (not a replay).
#[allow(clippy::too_many_arguments)]
async fn receive_message(
    app: Arc<App>,
    account: String,
    partner: Arc<Partner>,
    cfg: As2Config,
    keys: Keys,
    raw: Vec<u8>,
    message_id: String,
    from: String,
    to: String,
    asked: Asked,
) -> Response {
    let limit = app.config.max_body_bytes;
    let keys = Arc::new(keys);
    let (cfg2, keys2, digest) = (cfg.clone(), keys.clone(), asked.signed);
    let opened = tokio::task::spawn_blocking(move || open(&raw, &cfg2, &keys2, digest, limit))
        .await
        .unwrap_or_else(|_| Err(("unexpected-processing-error", "internal error".into())));
    let receipt = |disposition: Disposition, mic: Option<(String, Digest)>, text: String| {
        let keys = keys.clone();
        let (to, from, message_id, sign) =
            (to.clone(), from.clone(), message_id.clone(), asked.signed);
        async move {
            tokio::task::spawn_blocking(move || {
                mdn::build(&Receipt {
                    ours: &to,
                    theirs: &from,
                    original: &message_id,
                    disposition,
                    mic,
                    text,
                    sign: sign.map(|d| (&keys.cert, &keys.key, d)),
                })
            })
            .await
            .unwrap_or_else(|_| Err("internal error".into()))
        }
    };
    let opened = match opened {
        Ok(o) => o,
        Err((modifier, why)) => {
            tracing::warn!(partner = %partner.id, message_id = %message_id, modifier, reason = %why, "AS2 message refused");
            crate::metrics::worked(1);
            if !asked.mdn {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    "AS2_MESSAGE_REFUSED",
                    format!("{modifier}: {why}"),
                );
            }
            // Answered in the HTTP response even when asked for asynchronously: the sender
            // is not authenticated, so its URL is not called.
            return match receipt(
                Disposition::Error(modifier.to_string()),
                None,
                format!("The AS2 message could not be processed: {why}"),
            )
            .await
            {
                Ok(m) => mdn_response(&m.headers, m.body),
                Err(e) => {
                    tracing::error!(error = %e, "cannot build an MDN");
                    ApiError::internal().into_response()
                }
            };
        }
    };
    let mic_text = format!("{}, {}", opened.mic.0, opened.mic.1.micalg());
    let built = if asked.mdn {
        match receipt(
            Disposition::Processed,
            Some(opened.mic.clone()),
            format!("The AS2 message {message_id} was received and processed."),
        )
        .await
        {
            Ok(m) => Some(m),
            Err(e) => {
                tracing::error!(error = %e, "cannot build an MDN");
                return ApiError::internal().into_response();
            }
        }
    } else {
        None
    };
    // Asynchronous only to a partner whose signature verified (see the module's doc).
    let async_url = asked
        .url
        .clone()
        .filter(|_| opened.signed && built.is_some());
    let record = Record {
        account: account.clone(),
        partner: partner.id.clone(),
        message_id: message_id.clone(),
        mic: mic_text.clone(),
        mdn: built.clone(),
        url: async_url.clone(),
    };
    let applied = crate::inbound::receive_whole(
        &app,
        &account,
        Some(&partner.id),
        x12kit_mapped::Input::Read(opened.x12),
        "as2",
        x12kit::envelope::SetCap::bytes(app.config.max_set_bytes),
        move |c, result| record.insert(c, result),
    )
    .await;
    crate::metrics::worked(1);
    match applied {
        Ok(_) => {
            tracing::info!(partner = %partner.id, message_id = %message_id, "AS2 message applied");
            match (built, async_url) {
                (Some(_), Some(_)) => {
                    wake().notify_one();
                    StatusCode::OK.into_response()
                }
                (Some(m), None) => mdn_response(&m.headers, m.body),
                (None, _) => StatusCode::OK.into_response(),
            }
        }
        Err(e) if e.code == "AS2_REPLAY" => {
            match replay(&app, &account, &partner.id, &message_id).await {
                Ok(Some(r)) => r,
                _ => unavailable(),
            }
        }
        Err(e) if e.status.is_client_error() => {
            tracing::warn!(partner = %partner.id, message_id = %message_id, error = %e.message, "AS2 payload refused by the inbound pipeline");
            if !asked.mdn {
                return refuse(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "AS2_PAYLOAD_REFUSED",
                    e.message.clone(),
                );
            }
            match receipt(
                Disposition::Error("unexpected-processing-error".into()),
                Some(opened.mic),
                format!(
                    "The AS2 message was opened but its content was refused: {}",
                    e.message
                ),
            )
            .await
            {
                Ok(m) => mdn_response(&m.headers, m.body),
                Err(_) => ApiError::internal().into_response(),
            }
        }
        Err(_) => unavailable(),
    }
}

fn mdn_response(headers: &[(String, String)], body: Vec<u8>) -> Response {
    let mut resp = (StatusCode::OK, body).into_response();
    for (k, v) in headers {
        if let (Ok(k), Ok(v)) = (HeaderName::try_from(k.as_str()), HeaderValue::from_str(v)) {
            resp.headers_mut().insert(k, v);
        }
    }
    resp
}

/// The row of an applied message.
struct Record {
    account: String,
    partner: String,
    message_id: String,
    mic: String,
    mdn: Option<mdn::Sendable>,
    url: Option<String>,
}

impl Record {
    fn insert(&self, c: &dyn crate::db::Db, result: &Value) -> ApiResult<()> {
        let now = now_ms();
        let headers = self
            .mdn
            .as_ref()
            .map(|m| serde_json::to_string(&m.headers).unwrap_or_default());
        let body = self.mdn.as_ref().map(|m| m.body.clone());
        let state = self.url.as_ref().map(|_| "pending");
        let n = c
            .exec(
                "INSERT INTO as2_received (account, partner_id, message_id, received_at, mic, result,
                    mdn_headers, mdn_body, mdn_url, mdn_state, mdn_next_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?4)
                 ON CONFLICT (account, partner_id, message_id) DO NOTHING",
                vals![
                    &self.account,
                    &self.partner,
                    &self.message_id,
                    now,
                    &self.mic,
                    result.to_string(),
                    headers,
                    body,
                    &self.url,
                    state
                ],
            )
            .map_err(|e| {
                tracing::error!(error = %e, "cannot record an AS2 message");
                ApiError::internal()
            })?;
        if n == 0 {
            // The same Message-ID was applied meanwhile: undo this one, answer that one's MDN.
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "AS2_REPLAY",
                "this Message-ID was applied already",
            ));
        }
        Ok(())
    }
}

/// The answer to a Message-ID applied before: the same MDN (synchronous), or the same MDN
/// sent again to its URL (asynchronous); `None` when the Message-ID is new.
async fn replay(
    app: &Arc<App>,
    account: &str,
    partner: &str,
    message_id: &str,
) -> ApiResult<Option<Response>> {
    let (a, p, m) = (
        account.to_string(),
        partner.to_string(),
        message_id.to_string(),
    );
    let row = app
        .store
        .read(move |c| {
            c.one(
                "SELECT mdn_headers, mdn_body, mdn_url FROM as2_received
                 WHERE account = ?1 AND partner_id = ?2 AND message_id = ?3",
                vals![&a, &p, &m],
            )?
            .map(|r| {
                Ok((
                    r.get::<Option<String>>(0)?,
                    r.get::<Option<Vec<u8>>>(1)?,
                    r.get::<Option<String>>(2)?,
                ))
            })
            .transpose()
        })
        .await?;
    let Some((headers, body, url)) = row else {
        return Ok(None);
    };
    tracing::info!(
        partner,
        message_id = message_id,
        "repeated AS2 Message-ID: answered with its MDN, not applied again"
    );
    crate::metrics::worked(1);
    if url.is_some() {
        let (a, p, m) = (
            account.to_string(),
            partner.to_string(),
            message_id.to_string(),
        );
        app.store
            .write(move |c| {
                c.exec(
                    "UPDATE as2_received SET mdn_state = 'pending', mdn_next_at = ?4, mdn_attempts = 0
                     WHERE account = ?1 AND partner_id = ?2 AND message_id = ?3",
                    vals![&a, &p, &m, now_ms()],
                )
                .map_err(|_| ApiError::internal())
            })
            .await?;
        wake().notify_one();
        return Ok(Some(StatusCode::OK.into_response()));
    }
    Ok(Some(match (headers, body) {
        (Some(h), Some(b)) => {
            let h: Vec<(String, String)> = serde_json::from_str(&h).unwrap_or_default();
            mdn_response(&h, b)
        }
        _ => StatusCode::OK.into_response(),
    }))
}

// ---------------------------------------------------------------- asynchronous MDNs in

async fn receive_mdn(
    app: &Arc<App>,
    account: &str,
    partner: &Arc<Partner>,
    cfg: &As2Config,
    keys: &Keys,
    raw: &[u8],
) -> Response {
    let read = match mdn::read(raw, &keys.partner, cfg.mdn_signed) {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(partner = %partner.id, error = %e, "asynchronous MDN refused");
            return refuse(
                StatusCode::FORBIDDEN,
                "AS2_MDN_REFUSED",
                format!("the MDN is refused: {e}"),
            );
        }
    };
    let document = read
        .original
        .split('@')
        .next()
        .unwrap_or_default()
        .to_string();
    if !document.starts_with("doc_")
        || crate::transport::as2::message_id(cfg, &document) != read.original
    {
        return refuse(
            StatusCode::FORBIDDEN,
            "AS2_MDN_REFUSED",
            format!(
                "the MDN is about {:?}, not a message this server sent to this partner",
                read.original
            ),
        );
    }
    // The MDN may come before this process recorded the routing: wait for it a while.
    let mut found = None;
    for _ in 0..100 {
        let (a, p, d) = (account.to_string(), partner.id.clone(), document.clone());
        let row = app
            .store
            .read(move |c| {
                c.one(
                    "SELECT status, route_attempts, document_type FROM documents
                     WHERE id = ?1 AND account = ?2 AND partner_id = ?3 AND direction = 'outbound'",
                    vals![&d, &a, &p],
                )?
                .map(|r| {
                    Ok((
                        r.get::<String>(0)?,
                        r.get::<Option<String>>(1)?,
                        r.get::<String>(2)?,
                    ))
                })
                .transpose()
            })
            .await;
        match row {
            Err(_) => return unavailable(),
            Ok(None) => {
                return refuse(
                    StatusCode::FORBIDDEN,
                    "AS2_MDN_REFUSED",
                    format!("no message {:?} was sent to this partner", read.original),
                );
            }
            Ok(Some((status, _, _)))
                if matches!(
                    Status::parse(&status),
                    Some(Status::Queued | Status::Validated)
                ) =>
            {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Ok(Some(r)) => {
                found = Some(r);
                break;
            }
        }
    }
    let Some((status, attempts, document_type)) = found else {
        return unavailable();
    };
    let mut attempts: Vec<Value> = attempts
        .and_then(|a| serde_json::from_str(&a).ok())
        .unwrap_or_default();
    let Some(i) = attempts
        .iter()
        .rposition(|a| a["messageId"] == read.original.as_str())
    else {
        return refuse(
            StatusCode::FORBIDDEN,
            "AS2_MDN_REFUSED",
            "the document's routing has no attempt with this Message-ID",
        );
    };
    if attempts[i]["mdn"] != "awaited" {
        // A repeated MDN: recorded already.
        return StatusCode::OK.into_response();
    }
    let expected = attempts[i]["mic"].as_str().unwrap_or_default().to_string();
    let (mic, alg) = expected
        .rsplit_once(',')
        .map(|(m, a)| (m.trim(), a.trim()))
        .unwrap_or(("", "sha-256"));
    let checked = crate::transport::as2::check_receipt(&read, &read.original, mic, alg);
    attempts[i]["mdn"] = crate::transport::as2::receipt_json(&read);
    attempts[i]["mdnAt"] = json!(crate::store::rfc3339(now_ms()));
    attempts[i]["result"] = json!(match &checked {
        Ok(()) => "sent; positive asynchronous MDN, signature and MIC verified".to_string(),
        Err(e) => format!("the asynchronous MDN was refused: {e}"),
    });
    let text = Value::Array(attempts).to_string();
    let key = crate::lifecycle::DocKey {
        id: document,
        account: account.to_string(),
        partner_id: partner.id.clone(),
        document_type,
        resend: false,
    };
    let app2 = app.clone();
    let written = app
        .store
        .write(move |c| {
            let db = |e: crate::db::DbError| {
                tracing::error!(error = %e, "cannot record an asynchronous MDN");
                ApiError::internal()
            };
            if let (Err(reason), Some(Status::Routed)) = (&checked, Status::parse(&status)) {
                let reason = format!("AS2 asynchronous MDN refused: {reason}");
                let moved = crate::lifecycle::transition(
                    c,
                    &app2.settings.current(),
                    &key,
                    Step::MdnRefused,
                    &reason,
                    crate::lifecycle::Changes {
                        route_attempts: Some(text.clone()),
                        failure: Some(reason.clone()),
                        ..Default::default()
                    },
                )
                .map_err(db)?;
                if moved {
                    return Ok(());
                }
            }
            c.exec(
                "UPDATE documents SET route_attempts = ?2 WHERE id = ?1",
                vals![&key.id, &text],
            )
            .map_err(db)?;
            Ok(())
        })
        .await;
    app.wake.deliver.notify_one();
    match written {
        Ok(()) => StatusCode::OK.into_response(),
        Err(_) => unavailable(),
    }
}

// ---------------------------------------------------------------- asynchronous MDNs out

/// Delivers the pending asynchronous MDNs (retried: [`MDN_RETRY_MS`]).
pub async fn mdn_loop(app: Arc<App>) {
    loop {
        tokio::select! {
            _ = wake().notified() => {},
            _ = tokio::time::sleep(Duration::from_millis(app.config.workers.poll_ms.max(200))) => {},
        }
        let now = now_ms();
        let due = app
            .store
            .write(move |c| {
                // Claimed for a minute (a process that stops lets another take them then).
                c.query(
                    "UPDATE as2_received SET mdn_next_at = ?2
                     WHERE (account, partner_id, message_id) IN (
                         SELECT account, partner_id, message_id FROM as2_received
                         WHERE mdn_state = 'pending' AND mdn_next_at <= ?1 LIMIT 16)
                     RETURNING account, partner_id, message_id, mdn_url, mdn_headers, mdn_body, mdn_attempts",
                    vals![now, now + 60_000],
                )
                .and_then(|rows| {
                    rows.iter()
                        .map(|r| {
                            Ok((
                                r.get::<String>(0)?,
                                r.get::<String>(1)?,
                                r.get::<String>(2)?,
                                r.get::<String>(3)?,
                                r.get::<String>(4)?,
                                r.get::<Vec<u8>>(5)?,
                                r.get::<i64>(6)?,
                            ))
                        })
                        .collect::<crate::db::DbResult<Vec<_>>>()
                })
                .map_err(|e| {
                    tracing::error!(error = %e, "cannot claim asynchronous MDNs");
                    ApiError::internal()
                })
            })
            .await
            .unwrap_or_default();
        for (account, partner, message_id, url, headers, body, attempts) in due {
            let headers: Vec<(String, String)> = serde_json::from_str(&headers).unwrap_or_default();
            let mut request = app
                .http
                .post(&url)
                .timeout(Duration::from_secs(30))
                .body(body);
            for (k, v) in &headers {
                request = request.header(k.as_str(), v.as_str());
            }
            let outcome = match request.send().await {
                Ok(r) if r.status().is_success() => Ok(format!("HTTP {}", r.status().as_u16())),
                Ok(r) => Err(format!("HTTP {}", r.status().as_u16())),
                Err(e) if e.is_timeout() => Err("timeout".into()),
                Err(e) if e.is_connect() => Err("connection failed".into()),
                Err(e) => Err(format!("request failed: {e}")),
            };
            let attempt = attempts + 1;
            let (state, next, text) = match &outcome {
                Ok(t) => ("sent", None, t.clone()),
                Err(t) => match MDN_RETRY_MS.get(attempts as usize) {
                    Some(w) => ("pending", Some(now_ms() + w), t.clone()),
                    None => ("failed", None, t.clone()),
                },
            };
            tracing::info!(partner = %partner, message_id = %message_id, state, result = %text, "asynchronous MDN");
            let _ = app
                .store
                .write(move |c| {
                    c.exec(
                        "UPDATE as2_received SET mdn_state = ?4, mdn_next_at = ?5, mdn_attempts = ?6, mdn_result = ?7
                         WHERE account = ?1 AND partner_id = ?2 AND message_id = ?3",
                        vals![&account, &partner, &message_id, state, next, attempt, &text],
                    )
                    .map_err(|_| ApiError::internal())
                })
                .await;
        }
    }
}
