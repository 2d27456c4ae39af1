//! Sign-in, sessions and the guard of the routes a signed-in person uses
//! (`/api/auth/me`, `/api/auth/logout`, `/api/settings/...`).
//!
//! - **Sign-in** (`POST /api/auth/login`): argon2id (see [`crate::password`]); a
//!   wrong address and a wrong password get the same 401 `INVALID_CREDENTIALS`
//!   after the same work (an unknown address is checked against a dummy hash).
//!   Sign-ins in a row that did not succeed are counted per address in the store,
//!   known or not (so every process sees them, and a lock says nothing about which
//!   addresses exist), each before its password is checked (so attempts sent at once
//!   cannot all slip in before the lock); after `lockout_failures` (5) the address is locked for
//!   `lockout_seconds` (15 min): 429 `LOGIN_LOCKED` with `Retry-After` and the
//!   time it ends, even with the right password; a success resets the count.
//!   Sign-ins are also limited per client address (`auth_per_ip_per_minute`).
//! - **Sessions**: the cookie `x12kit_session` holds 32 random bytes (base64url);
//!   the store keeps only their SHA-256, so a copy of the database opens no
//!   session. A sign-in always makes a new session (and ends the one the request
//!   carried: no fixation); sign-out deletes it on the server. A session ends
//!   after `session_idle_seconds` unused or `session_absolute_seconds` after its
//!   sign-in (401 `SESSION_EXPIRED`); disabling a person or changing their
//!   password ends theirs.
//! - **CSRF**: the token is derived from the session id (SHA-256 of a label and
//!   the id; nothing stored). Every state-changing request (POST, PUT, PATCH,
//!   DELETE) must carry it in `X-CSRF-Token` (403 `CSRF_TOKEN_INVALID`); the
//!   cookie is also `SameSite=Strict` and bodies must be `application/json`.
//! - A bearer API key is never accepted here (401): API keys are for `/api/v1`.
//! - Members read, admins change (403 `FORBIDDEN`); 300 requests per minute per user.
//!
//! `tower-sessions` was considered and not used: its cookie attributes are fixed per
//! layer (`Secure` must follow each request's scheme), it has one expiry (not idle
//! and absolute together), an expired session loads as no session (no
//! `SESSION_EXPIRED`), and it writes the store on every request of an idle-expiring
//! session; what is left here is small: random ids, their hashes, and the checks.

use crate::app::App;
use crate::error::{ApiError, ApiResult};
use crate::guard::{Caller, SessionUser};
use crate::settings::write;
use crate::store::{now_ms, rfc3339};
use crate::vals;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use subtle::ConstantTimeEq;

/// The session cookie's name.
pub const COOKIE: &str = "x12kit_session";
/// The CSRF header.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// Touch `last_seen_at` at most this often (ms): the idle limit is that precise.
const TOUCH_MS: i64 = 15_000;

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The CSRF token of a session id.
fn csrf_token(session_id: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"x12kit csrf token\0");
    h.update(session_id.as_bytes());
    URL_SAFE_NO_PAD.encode(h.finalize())
}

/// The session id of the request's cookie, if it has a well-formed one.
fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == COOKIE)
        .map(|c| c.value().to_string())
        .filter(|v| {
            v.len() == 43
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

fn set_cookie(value: &str, max_age_secs: i64, secure: bool) -> HeaderValue {
    let c = cookie::Cookie::build((COOKIE, value.to_string()))
        .http_only(true)
        .same_site(cookie::SameSite::Strict)
        .path("/")
        .secure(secure)
        .max_age(cookie::time::Duration::seconds(max_age_secs))
        .build();
    HeaderValue::from_str(&c.to_string()).unwrap_or(HeaderValue::from_static(""))
}

/// A `Set-Cookie` that removes the session cookie.
fn clear_cookie(secure: bool) -> (HeaderName, HeaderValue) {
    (header::SET_COOKIE, set_cookie("", 0, secure))
}

fn unauthorized(code: &'static str, message: &str) -> ApiError {
    let mut e = ApiError::new(StatusCode::UNAUTHORIZED, code, message).with_header(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Cookie realm=\"x12kit\", cookie-name=\"x12kit_session\""),
    );
    if code == "SESSION_EXPIRED" {
        let (k, v) = clear_cookie(false);
        e = e.with_header(k, v);
    }
    e
}

fn no_keys_here(headers: &HeaderMap) -> ApiResult<()> {
    if headers.contains_key(header::AUTHORIZATION) {
        return Err(unauthorized(
            "UNAUTHORIZED",
            "API keys are not accepted on /api/auth, /api/settings, /api/upload and /api/deliveries: sign in (POST /api/auth/login) and send the session cookie",
        ));
    }
    Ok(())
}

fn is_change(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The guard of the session routes: the session, its limits, CSRF and the role.
pub async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let (mut parts, body) = req.into_parts();
    let secure = crate::client::is_secure(&parts);
    let client = crate::client::address(&parts).to_string();
    let user = match session(&app, &parts.headers, client).await {
        Ok(u) => u,
        Err(mut e) => {
            if secure {
                for (k, v) in e.headers.iter_mut() {
                    if *k == header::SET_COOKIE {
                        *v = clear_cookie(true).1;
                    }
                }
            }
            return e.into_response();
        }
    };
    crate::serve::observe::note_account(&parts.extensions, &user.account);
    let verdict = app.limits.session.check(&user.user_id);
    if let Some(e) = verdict.refusal("for this user") {
        let mut resp = e.into_response();
        verdict.apply(&mut resp);
        return resp;
    }
    if is_change(&parts.method) {
        if !csrf_sent(&parts.headers, &user) {
            let mut resp = csrf_refused().into_response();
            verdict.apply(&mut resp);
            return resp;
        }
        if parts.uri.path().starts_with("/api/settings")
            && let Err(e) = user.admin()
        {
            let mut resp = e.into_response();
            verdict.apply(&mut resp);
            return resp;
        }
    }
    parts.extensions.insert(user);
    let mut resp = next.run(Request::from_parts(parts, body)).await;
    verdict.apply(&mut resp);
    resp
}

/// True when the request carries a session cookie (well-formed or not): without an
/// `Authorization` header, the `/api/v1` routes then take it as the caller.
pub fn has_session_cookie(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .any(|c| c.name() == COOKIE)
}

/// The caller of an `/api/v1` route that sent the session cookie and no API key (the
/// dashboard, or curl with the cookie): the session's checks (valid, not expired, the
/// person enabled), the CSRF token on every change, the person's account. The route
/// group's limits then apply per person, as they do per key.
pub async fn api_caller(app: &Arc<App>, parts: &axum::http::request::Parts) -> ApiResult<Caller> {
    let client = crate::client::address(parts);
    let user = session(app, &parts.headers, client.to_string()).await?;
    if is_change(&parts.method) && !csrf_sent(&parts.headers, &user) {
        return Err(csrf_refused());
    }
    let Some(account) = app.settings.current().account(&user.account).cloned() else {
        return Err(unauthorized(
            "UNAUTHORIZED",
            "the session's account no longer exists",
        ));
    };
    let mut h = Sha256::new();
    h.update(b"x12kit session limiter\0");
    h.update(user.user_id.as_bytes());
    let hash = h.finalize();
    let limiter = u64::from_be_bytes(hash[..8].try_into().unwrap_or_default());
    Ok(Caller {
        account,
        key_id: String::new(),
        key_name: user.email.clone(),
        limiter,
        user: Some(user),
        client,
    })
}

/// True when the request carries the session's CSRF token (compared in constant time).
fn csrf_sent(headers: &HeaderMap, user: &SessionUser) -> bool {
    let sent = headers
        .get(CSRF_HEADER)
        .map(|v| v.as_bytes())
        .unwrap_or_default();
    bool::from(sent.ct_eq(user.csrf.as_bytes()))
}

fn csrf_refused() -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "CSRF_TOKEN_INVALID",
        "send X-CSRF-Token with the csrfToken of the sign-in (or of GET /api/auth/me)",
    )
}

async fn session(app: &Arc<App>, headers: &HeaderMap, client: String) -> ApiResult<SessionUser> {
    no_keys_here(headers)?;
    let Some(id) = session_id(headers) else {
        return Err(unauthorized(
            "UNAUTHORIZED",
            "sign in first (POST /api/auth/login): this route needs the session cookie",
        ));
    };
    let hash = sha256_hex(id.as_bytes());
    let lookup = hash.clone();
    let row = app
        .store
        .read(move |c| {
            c.one(
                "SELECT s.user_id, s.account, s.created_at, s.last_seen_at, s.expires_at, u.email, u.role, u.disabled_at
                 FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id_hash = ?1",
                vals![lookup],
            )
        })
        .await?;
    let Some(r) = row else {
        return Err(unauthorized(
            "UNAUTHORIZED",
            "the session is not valid (signed out, or never was): sign in again",
        ));
    };
    let get = || -> crate::db::DbResult<_> {
        Ok((
            r.get::<String>(0)?,
            r.get::<String>(1)?,
            r.get::<i64>(2)?,
            r.get::<i64>(3)?,
            r.get::<i64>(4)?,
            r.get::<String>(5)?,
            r.get::<String>(6)?,
            r.get::<Option<i64>>(7)?,
        ))
    };
    let (user_id, account, created_at, last_seen, expires_at, email, role, disabled) =
        get().map_err(write::db)?;
    let now = now_ms();
    let idle = (app.config.auth.session_idle_seconds * 1000) as i64;
    if disabled.is_some() {
        return Err(unauthorized("UNAUTHORIZED", "this user is disabled"));
    }
    if now >= expires_at || now - last_seen >= idle {
        return Err(unauthorized(
            "SESSION_EXPIRED",
            "the session has expired: sign in again",
        ));
    }
    if now - last_seen >= TOUCH_MS {
        let touch = hash.clone();
        app.store
            .write(move |c| {
                c.exec(
                    "UPDATE sessions SET last_seen_at = ?2 WHERE id_hash = ?1",
                    vals![touch, now],
                )
                .map_err(write::db)
            })
            .await?;
    }
    Ok(SessionUser {
        user_id,
        email,
        role,
        account,
        csrf: csrf_token(&id),
        session_hash: hash,
        created_at,
        expires_at,
        client,
    })
}

/// Password checks at once (each holds 19 MiB for about 50 ms): more wait, without a thread.
fn hash_slots() -> &'static tokio::sync::Semaphore {
    static SLOTS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    SLOTS.get_or_init(|| {
        tokio::sync::Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get()))
    })
}

/// Checks a password off the async threads.
pub async fn verify_password(password: String, hash: Option<String>) -> ApiResult<bool> {
    let Ok(_slot) = hash_slots().acquire().await else {
        return Err(ApiError::internal());
    };
    tokio::task::spawn_blocking(move || {
        let known = hash.is_some();
        let ok = crate::password::verify(
            &password,
            hash.as_deref().unwrap_or(crate::password::dummy()),
        );
        ok && known
    })
    .await
    .map_err(|_| ApiError::internal())
}

/// Hashes a new password off the async threads.
pub async fn hash_password(password: String) -> ApiResult<String> {
    let Ok(_slot) = hash_slots().acquire().await else {
        return Err(ApiError::internal());
    };
    tokio::task::spawn_blocking(move || crate::password::hash(&password))
        .await
        .map_err(|_| ApiError::internal())?
        .map_err(|e| {
            tracing::error!(error = %e, "cannot hash a password");
            ApiError::internal()
        })
}

fn me_body(
    user: &Value,
    account: &str,
    csrf: &str,
    created_at: i64,
    expires_at: i64,
    idle: u64,
) -> Value {
    json!({
        "ok": true,
        "data": {
            "user": user,
            "account": account,
            "csrfToken": csrf,
            "session": {
                "createdAt": rfc3339(created_at),
                "expiresAt": rfc3339(expires_at),
                "idleTimeoutSeconds": idle,
            },
        },
    })
}

/// `POST /api/auth/login`.
#[utoipa::path(
    post,
    path = "/api/auth/login",
    tag = "settings",
    request_body(content = crate::openapi::LoginRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "Signed in: sets the session cookie `x12kit_session` (HttpOnly, SameSite=Strict, Path=/; Secure over TLS), a new one at every sign-in.", body = crate::openapi::SessionAnswer,
            headers(("Set-Cookie" = String, description = "x12kit_session=<id>; HttpOnly; SameSite=Strict; Path=/; Max-Age=<absolute limit>"))),
        (status = 400, description = "Malformed JSON or fields.", body = crate::openapi::ErrorBody),
        (status = 401, description = "`INVALID_CREDENTIALS` (wrong address or password, the same answer), or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 415, description = "Not application/json.", body = crate::openapi::ErrorBody),
        (status = 429, description = "`LOGIN_LOCKED` (too many failures for this address: `Retry-After`, `lockedUntil`) or `RATE_LIMITED` (this client address).", body = crate::openapi::ErrorBody),
    )
)]
pub async fn login(State(app): State<Arc<App>>, req: Request) -> ApiResult<Response> {
    let (parts, body) = req.into_parts();
    no_keys_here(&parts.headers)?;
    let ip = crate::client::address(&parts);
    let secure = crate::client::is_secure(&parts);
    let verdict = app.limits.login.check(&ip);
    if let Some(e) = verdict.refusal("from this address") {
        let mut resp = e.into_response();
        verdict.apply(&mut resp);
        return Ok(resp);
    }
    let body = axum::body::to_bytes(body, 64 * 1024)
        .await
        .map_err(|_| ApiError::too_large(64 * 1024))?;
    let (email, password) = credentials(&parts.headers, &body)?;
    let email_hash = sha256_hex(email.as_bytes());
    let now = now_ms();
    let failures = app.config.auth.lockout_failures as i64;
    let lock_ms = (app.config.auth.lockout_seconds * 1000) as i64;
    // The attempt is counted before the password is checked, in one statement: sign-ins
    // sent at once (from many addresses, to many processes) each get their own count, so
    // no more than `lockout_failures` of them are ever checked in a row. Counted
    // optimistically after the check, N requests in flight would all see "not locked"
    // and get N guesses. The lock is set by the attempt that reaches the limit (it still
    // gets its answer); a success deletes the row, which resets the count and the lock.
    let reserve_hash = email_hash.clone();
    let (count, locked_until) = app
        .store
        .write(move |c| {
            let row = c
                .one(
                    "INSERT INTO login_failures (email_hash, failures, locked_until, updated_at)
                     VALUES (?1, 1, CASE WHEN ?2 <= 1 THEN CAST(?3 AS BIGINT) ELSE NULL END, ?4)
                     ON CONFLICT (email_hash) DO UPDATE SET
                       failures = CASE WHEN login_failures.locked_until IS NOT NULL AND login_failures.locked_until <= ?4
                                       THEN 1 ELSE login_failures.failures + 1 END,
                       locked_until = CASE
                         WHEN login_failures.locked_until IS NOT NULL AND login_failures.locked_until <= ?4
                           THEN CASE WHEN ?2 <= 1 THEN CAST(?3 AS BIGINT) ELSE NULL END
                         WHEN login_failures.locked_until IS NOT NULL THEN login_failures.locked_until
                         WHEN login_failures.failures + 1 >= ?2 THEN CAST(?3 AS BIGINT)
                         ELSE NULL END,
                       updated_at = ?4
                     RETURNING failures, locked_until",
                    vals![reserve_hash, failures, now + lock_ms, now],
                )
                .map_err(write::db)?
                .ok_or_else(ApiError::internal)?;
            Ok((
                row.get::<i64>(0).map_err(write::db)?,
                row.get::<Option<i64>>(1).map_err(write::db)?,
            ))
        })
        .await?;
    if let Some(until) = locked_until.filter(|u| count > failures && *u > now) {
        let wait = ((until - now) as u64).div_ceil(1000).max(1);
        let mut e = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "LOGIN_LOCKED",
            format!(
                "too many failed sign-ins for this address: locked until {} (retry after {wait} seconds)",
                rfc3339(until)
            ),
        )
        .with_header(header::RETRY_AFTER, HeaderValue::from(wait));
        e.extra = Some(("lockedUntil", json!(rfc3339(until))));
        let mut resp = e.into_response();
        verdict.apply(&mut resp);
        return Ok(resp);
    }
    let lookup_email = email.clone();
    let user = app
        .store
        .read(move |c| {
            c.one(
                "SELECT id, account, password_hash, disabled_at FROM users WHERE email = ?1",
                vals![lookup_email],
            )?
            .map(|r| -> crate::db::DbResult<_> {
                Ok((
                    r.get::<String>(0)?,
                    r.get::<String>(1)?,
                    r.get::<String>(2)?,
                    r.get::<Option<i64>>(3)?,
                ))
            })
            .transpose()
        })
        .await?;
    let hash = user.as_ref().map(|(_, _, h, _)| h.clone());
    let matches = verify_password(password, hash).await?;
    let user = user.filter(|(_, _, _, disabled)| disabled.is_none() && matches);
    let Some((user_id, account, _, _)) = user else {
        // Already counted above.
        tracing::info!(client = %ip, "sign-in refused");
        let mut resp = ApiError::new(
            StatusCode::UNAUTHORIZED,
            "INVALID_CREDENTIALS",
            "the e-mail address or the password is wrong",
        )
        .into_response();
        verdict.apply(&mut resp);
        return Ok(resp);
    };
    // A new session id at every sign-in; the one the request carried (if any) ends.
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw).map_err(|_| ApiError::internal())?;
    let id = URL_SAFE_NO_PAD.encode(raw);
    let old = session_id(&parts.headers).map(|o| sha256_hex(o.as_bytes()));
    let absolute = (app.config.auth.session_absolute_seconds * 1000) as i64;
    let (new_hash, uid, acct) = (sha256_hex(id.as_bytes()), user_id.clone(), account.clone());
    let view = app
        .store
        .write(move |c| {
            c.exec("DELETE FROM login_failures WHERE email_hash = ?1", vals![email_hash])
                .map_err(write::db)?;
            if let Some(old) = old {
                c.exec("DELETE FROM sessions WHERE id_hash = ?1", vals![old]).map_err(write::db)?;
            }
            c.exec(
                "INSERT INTO sessions (id_hash, user_id, account, created_at, last_seen_at, expires_at)
                 VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                vals![new_hash, &uid, &acct, now, now + absolute],
            )
            .map_err(write::db)?;
            c.exec("UPDATE users SET last_login_at = ?2 WHERE id = ?1", vals![&uid, now])
                .map_err(write::db)?;
            write::user(c, &acct, &uid)?.ok_or_else(ApiError::internal)
        })
        .await?;
    tracing::info!(user = %user_id, account = %account, client = %ip, "signed in");
    let body = me_body(
        &view,
        &account,
        &csrf_token(&id),
        now,
        now + absolute,
        app.config.auth.session_idle_seconds,
    );
    let mut resp = Json(body).into_response();
    resp.headers_mut()
        .insert(header::SET_COOKIE, set_cookie(&id, absolute / 1000, secure));
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    verdict.apply(&mut resp);
    Ok(resp)
}

/// The e-mail (lower case) and password of a sign-in body.
fn credentials(headers: &HeaderMap, body: &Bytes) -> ApiResult<(String, String)> {
    let obj = crate::body::object(headers, body)?;
    let mut p = crate::body::Problems::default();
    let f = crate::body::Fields::of(&obj, "", &["email", "password"], &mut p);
    let email = f.string("email", true, &mut p);
    let password = f.string("password", true, &mut p);
    p.check()?;
    match (email, password) {
        (Some(e), Some(pw)) => Ok((e.trim().to_lowercase(), pw)),
        _ => Err(ApiError::internal()),
    }
}

/// `POST /api/auth/logout`.
#[utoipa::path(
    post,
    path = "/api/auth/logout",
    tag = "settings",
    params(("X-CSRF-Token" = String, Header, description = "The session's csrfToken.")),
    responses(
        (status = 200, description = "Signed out: the session is deleted on the server and the cookie cleared.", body = crate::openapi::Health),
        (status = 401, description = "No valid session (`UNAUTHORIZED`, `SESSION_EXPIRED`), or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 403, description = "`CSRF_TOKEN_INVALID`.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = []))
)]
pub async fn logout(
    State(app): State<Arc<App>>,
    Extension(user): Extension<SessionUser>,
    req: Request,
) -> ApiResult<Response> {
    let (parts, _) = req.into_parts();
    let hash = user.session_hash.clone();
    app.store
        .write(move |c| {
            c.exec("DELETE FROM sessions WHERE id_hash = ?1", vals![hash])
                .map_err(write::db)
        })
        .await?;
    tracing::info!(user = %user.user_id, "signed out");
    let mut resp = Json(json!({"ok": true})).into_response();
    let (k, v) = clear_cookie(crate::client::is_secure(&parts));
    resp.headers_mut().insert(k, v);
    Ok(resp)
}

/// `GET /api/auth/me`.
#[utoipa::path(
    get,
    path = "/api/auth/me",
    tag = "settings",
    responses(
        (status = 200, description = "The signed-in person, the account, the session's CSRF token and its limits.", body = crate::openapi::SessionAnswer),
        (status = 401, description = "No valid session (`UNAUTHORIZED`, `SESSION_EXPIRED`), or an API key sent.", body = crate::openapi::ErrorBody),
        (status = 429, description = "Rate limited.", body = crate::openapi::ErrorBody),
    ),
    security(("session" = []))
)]
pub async fn me(
    State(app): State<Arc<App>>,
    Extension(user): Extension<SessionUser>,
) -> ApiResult<Response> {
    let (account, id) = (user.account.clone(), user.user_id.clone());
    let view = app
        .store
        .read(move |c| {
            let r = c.one(
                "SELECT id, email, role, created_at, last_login_at, disabled_at FROM users WHERE account = ?1 AND id = ?2",
                vals![account, id],
            )?;
            Ok(r)
        })
        .await?
        .map(|r| write::user_view(&r))
        .transpose()?
        .ok_or_else(ApiError::internal)?;
    let mut resp = Json(me_body(
        &view,
        &user.account,
        &user.csrf,
        user.created_at,
        user.expires_at,
        app.config.auth.session_idle_seconds,
    ))
    .into_response();
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(resp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_cookie_is_read_and_written_as_rfc_6265_says() {
        let id = URL_SAFE_NO_PAD.encode([7u8; 32]);
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_str(&format!("a=1; {COOKIE}={id}; b=2")).unwrap(),
        );
        assert_eq!(session_id(&h).as_deref(), Some(id.as_str()));
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("x12kit_session=short"),
        );
        assert_eq!(session_id(&h), None);
        let c = set_cookie(&id, 60, false).to_str().unwrap().to_string();
        for part in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=60"] {
            assert!(c.contains(part), "{c}");
        }
        assert!(!c.contains("Secure"));
        assert!(
            set_cookie(&id, 60, true)
                .to_str()
                .unwrap()
                .contains("Secure")
        );
        // The token is the session's, and tells nothing of the stored hash.
        assert_eq!(csrf_token(&id), csrf_token(&id));
        assert_ne!(
            csrf_token(&id),
            csrf_token(&URL_SAFE_NO_PAD.encode([8u8; 32]))
        );
        assert!(!sha256_hex(id.as_bytes()).contains(&csrf_token(&id)));
    }
}
