//! Every change of the settings, as the settings routes and the console make them:
//! each runs in one store job (one transaction) with its audit row (who, when,
//! which account, what changed: before and after, every secret left out) and the
//! bump of the settings version that makes every process reload. A change that
//! fails writes nothing. The JSON views here are what the API answers and what
//! the audit log keeps: none of them holds a secret.

use super::rules::valid_id;
use super::transport::transport_purpose;
use super::transport::{self, Folders};
use crate::body::{Fields, Problems};
use crate::config::TransportConfig;
use crate::db::{Db, DbError, Row};
use crate::error::{ApiError, ApiResult};
use crate::secrets::SecretBox;
use crate::store::{now_ms, rfc3339};
use crate::vals;
use axum::http::StatusCode;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

/// A store failure: logged, answered as the one 500.
pub fn db(e: DbError) -> ApiError {
    tracing::error!(error = %e, "store write failed");
    ApiError::internal()
}

/// Who makes a change.
#[derive(Debug, Clone)]
pub struct Actor {
    /// A user id, `console` or `configuration`.
    pub id: String,
    /// The user's e-mail, or the same word.
    pub name: String,
    /// The client address of an HTTP request.
    pub client: Option<String>,
}

impl Actor {
    /// The developer console (`x12kit-server user add ...`).
    pub fn console() -> Actor {
        Actor {
            id: "console".into(),
            name: "console".into(),
            client: None,
        }
    }

    /// The import of the configuration file into an empty store.
    pub fn configuration() -> Actor {
        Actor {
            id: "configuration".into(),
            name: "configuration".into(),
            client: None,
        }
    }
}

fn time(ms: Option<i64>) -> Value {
    ms.map_or(Value::Null, |t| Value::String(rfc3339(t)))
}

/// Writes the audit row of a change and bumps the settings version.
pub fn audit(
    c: &dyn Db,
    actor: &Actor,
    account: &str,
    action: &str,
    target: &str,
    before: Option<&Value>,
    after: Option<&Value>,
) -> ApiResult<()> {
    record(c, actor, account, action, target, before, after)?;
    c.exec(
        "UPDATE settings_state SET version = version + 1 WHERE id = 1",
        &[],
    )
    .map_err(db)?;
    Ok(())
}

/// Writes the audit row of an action that changes no setting (a document resent or
/// canceled, a webhook redelivered): the settings version stays, so no process reloads.
pub fn record(
    c: &dyn Db,
    actor: &Actor,
    account: &str,
    action: &str,
    target: &str,
    before: Option<&Value>,
    after: Option<&Value>,
) -> ApiResult<()> {
    c.exec(
        "INSERT INTO audit_log (at, account, actor, actor_name, action, target, before, after, client)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        vals![
            now_ms(),
            account,
            &actor.id,
            &actor.name,
            action,
            target,
            before.map(Value::to_string),
            after.map(Value::to_string),
            &actor.client
        ],
    )
    .map_err(db)?;
    Ok(())
}

fn not_found(code: &'static str, what: &str, id: &str) -> ApiError {
    ApiError::not_found(code, format!("no {what} {id:?} in this account"))
}

fn conflict(code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::CONFLICT, code, message)
}

fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::now_v7().simple())
}

fn one(c: &dyn Db, sql: &str, params: &[crate::db::Val]) -> ApiResult<Option<Row>> {
    c.one(sql, params).map_err(db)
}

// ---------------------------------------------------------------- accounts

/// True when the account exists.
pub fn account_exists(c: &dyn Db, account: &str) -> ApiResult<bool> {
    Ok(one(c, "SELECT 1 FROM accounts WHERE id = ?1", vals![account])?.is_some())
}

/// Creates an account (console, import).
pub fn create_account(c: &dyn Db, actor: &Actor, account: &str) -> ApiResult<()> {
    if !valid_id(account) {
        return Err(ApiError::bad_request(
            "INVALID_ID",
            format!("account id {account:?} is not 1 to 64 of A-Z a-z 0-9 . _ -"),
        ));
    }
    if account_exists(c, account)? {
        return Err(conflict(
            "ACCOUNT_EXISTS",
            format!("account {account:?} exists"),
        ));
    }
    c.exec(
        "INSERT INTO accounts (id, created_at) VALUES (?1, ?2)",
        vals![account, now_ms()],
    )
    .map_err(db)?;
    audit(
        c,
        actor,
        account,
        "account.create",
        account,
        None,
        Some(&json!({"id": account})),
    )
}

/// Every account id.
pub fn accounts(c: &dyn Db) -> ApiResult<Vec<String>> {
    c.query("SELECT id FROM accounts ORDER BY id", &[])
        .and_then(|rows| rows.iter().map(|r| r.get(0)).collect())
        .map_err(db)
}

// ---------------------------------------------------------------- users

const USER_COLUMNS: &str = "id, email, role, created_at, last_login_at, disabled_at";

/// A user as the API shows it.
pub fn user_view(r: &Row) -> ApiResult<Value> {
    let f = || -> crate::db::DbResult<Value> {
        Ok(json!({
            "id": r.get::<String>(0)?,
            "email": r.get::<String>(1)?,
            "role": r.get::<String>(2)?,
            "createdAt": time(Some(r.get(3)?)),
            "lastSignInAt": time(r.get(4)?),
            "disabled": r.get::<Option<i64>>(5)?.is_some(),
        }))
    };
    f().map_err(db)
}

/// One user of the account.
pub fn user(c: &dyn Db, account: &str, id: &str) -> ApiResult<Option<Value>> {
    match one(
        c,
        &format!("SELECT {USER_COLUMNS} FROM users WHERE account = ?1 AND id = ?2"),
        vals![account, id],
    )? {
        Some(r) => user_view(&r).map(Some),
        None => Ok(None),
    }
}

/// The account's users, oldest first.
pub fn users(c: &dyn Db, account: &str) -> ApiResult<Vec<Value>> {
    c.query(
        &format!("SELECT {USER_COLUMNS} FROM users WHERE account = ?1 ORDER BY created_at, id"),
        vals![account],
    )
    .map_err(db)?
    .iter()
    .map(user_view)
    .collect()
}

/// Adds a user (`password_hash`: an argon2id PHC string).
pub fn add_user(
    c: &dyn Db,
    actor: &Actor,
    account: &str,
    email: &str,
    role: &str,
    password_hash: &str,
) -> ApiResult<Value> {
    if one(c, "SELECT 1 FROM users WHERE email = ?1", vals![email])?.is_some() {
        return Err(conflict(
            "EMAIL_TAKEN",
            format!("a user signs in as {email} already"),
        ));
    }
    let id = new_id("usr");
    c.exec(
        "INSERT INTO users (id, account, email, password_hash, role, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        vals![&id, account, email, password_hash, role, now_ms()],
    )
    .map_err(db)?;
    let view = user(c, account, &id)?.ok_or_else(ApiError::internal)?;
    audit(c, actor, account, "user.create", &id, None, Some(&view))?;
    Ok(view)
}

/// What a user update changes (`None`: unchanged).
#[derive(Debug, Default)]
pub struct UserChange {
    /// `admin` or `member`.
    pub role: Option<String>,
    /// Disable (true) or enable (false).
    pub disabled: Option<bool>,
    /// A new argon2id hash.
    pub password_hash: Option<String>,
    /// The session that asks (SHA-256 of its id): a person changing their own password
    /// keeps it, their other sessions end.
    pub keep_session: Option<String>,
}

/// Changes a user of the account; disabling it or changing its password ends its sessions.
/// The last enabled admin of an account cannot be demoted or disabled (409 `LAST_ADMIN`).
pub fn update_user(
    c: &dyn Db,
    actor: &Actor,
    account: &str,
    id: &str,
    change: &UserChange,
) -> ApiResult<Value> {
    let before = user(c, account, id)?.ok_or_else(|| not_found("USER_NOT_FOUND", "user", id))?;
    if actor.id == id
        && (change.disabled == Some(true) || change.role.as_deref().is_some_and(|r| r != "admin"))
    {
        return Err(conflict(
            "SELF_LOCKOUT",
            "an admin cannot disable or demote themselves: ask another admin",
        ));
    }
    let was_admin = before["role"] == "admin" && before["disabled"] == false;
    let stays_admin = change
        .role
        .as_deref()
        .unwrap_or(before["role"].as_str().unwrap_or(""))
        == "admin"
        && !change.disabled.unwrap_or(before["disabled"] == true);
    if was_admin && !stays_admin {
        let admins: i64 = one(
            c,
            "SELECT COUNT(*) FROM users WHERE account = ?1 AND role = 'admin' AND disabled_at IS NULL",
            vals![account],
        )?
        .map_or(Ok(0), |r| r.get(0))
        .map_err(db)?;
        if admins <= 1 {
            return Err(conflict(
                "LAST_ADMIN",
                "this is the account's last enabled admin: make another admin first",
            ));
        }
    }
    let now = now_ms();
    if let Some(role) = &change.role {
        c.exec("UPDATE users SET role = ?2 WHERE id = ?1", vals![id, role])
            .map_err(db)?;
    }
    if let Some(disabled) = change.disabled {
        c.exec(
            "UPDATE users SET disabled_at = CASE WHEN ?2 = 1 THEN COALESCE(disabled_at, ?3) ELSE NULL END WHERE id = ?1",
            vals![id, i64::from(disabled), now],
        )
        .map_err(db)?;
    }
    if let Some(hash) = &change.password_hash {
        c.exec(
            "UPDATE users SET password_hash = ?2 WHERE id = ?1",
            vals![id, hash],
        )
        .map_err(db)?;
    }
    if change.disabled == Some(true) || change.password_hash.is_some() {
        c.exec(
            "DELETE FROM sessions WHERE user_id = ?1 AND id_hash <> ?2",
            vals![id, change.keep_session.as_deref().unwrap_or("")],
        )
        .map_err(db)?;
    }
    let mut after = user(c, account, id)?.ok_or_else(ApiError::internal)?;
    let mut shown_before = before.clone();
    if change.password_hash.is_some() {
        // The audit says that the password changed, never what it is.
        shown_before["password"] = json!("(old)");
        after["password"] = json!("(changed)");
    }
    audit(
        c,
        actor,
        account,
        "user.update",
        id,
        Some(&shown_before),
        Some(&after),
    )?;
    after.as_object_mut().map(|o| o.remove("password"));
    Ok(after)
}

// ---------------------------------------------------------------- API keys

const KEY_COLUMNS: &str = "id, name, prefix, created_by, created_at, last_used_at, revoked_at";

fn key_view(r: &Row) -> ApiResult<Value> {
    let f = || -> crate::db::DbResult<Value> {
        Ok(json!({
            "id": r.get::<String>(0)?,
            "name": r.get::<String>(1)?,
            "prefix": r.get::<Option<String>>(2)?,
            "createdBy": r.get::<String>(3)?,
            "createdAt": time(Some(r.get(4)?)),
            "lastUsedAt": time(r.get(5)?),
            "revokedAt": time(r.get(6)?),
        }))
    };
    f().map_err(db)
}

fn key(c: &dyn Db, account: &str, id: &str) -> ApiResult<Option<Value>> {
    match one(
        c,
        &format!("SELECT {KEY_COLUMNS} FROM api_keys WHERE account = ?1 AND id = ?2"),
        vals![account, id],
    )? {
        Some(r) => key_view(&r).map(Some),
        None => Ok(None),
    }
}

/// The account's keys (revoked ones too), oldest first.
pub fn keys(c: &dyn Db, account: &str) -> ApiResult<Vec<Value>> {
    c.query(
        &format!("SELECT {KEY_COLUMNS} FROM api_keys WHERE account = ?1 ORDER BY created_at, id"),
        vals![account],
    )
    .map_err(db)?
    .iter()
    .map(key_view)
    .collect()
}

/// A new random API key: `x12k_` and 32 random bytes in base64url.
pub fn new_key_text() -> ApiResult<String> {
    use base64::Engine;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| {
        tracing::error!(error = %e, "no randomness");
        ApiError::internal()
    })?;
    Ok(format!(
        "x12k_{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    ))
}

/// The part of a key shown to people: `x12k_` and its next 6 characters (36 of its 256
/// random bits), enough to tell keys apart and nothing to guess the rest with.
pub fn key_prefix(key: &str) -> String {
    key.chars().take(11).collect()
}

/// Why a key name is refused.
pub fn key_name_problem(name: &str) -> Option<&'static str> {
    let n = name.chars().count();
    (!(1..=100).contains(&n) || name.chars().any(char::is_control))
        .then_some("a key name is 1 to 100 characters, no control characters")
}

/// Stores a key by its SHA-256 (hex); `key` is the text when known (its prefix is kept).
pub fn add_key(
    c: &dyn Db,
    actor: &Actor,
    account: &str,
    name: &str,
    sha256: &str,
    key_text: Option<&str>,
) -> ApiResult<Value> {
    if one(c, "SELECT 1 FROM api_keys WHERE sha256 = ?1", vals![sha256])?.is_some() {
        return Err(conflict("KEY_EXISTS", "this key is stored already"));
    }
    let id = new_id("key");
    c.exec(
        "INSERT INTO api_keys (id, account, name, sha256, prefix, created_by, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        vals![
            &id,
            account,
            name,
            sha256,
            key_text.map(key_prefix),
            &actor.id,
            now_ms()
        ],
    )
    .map_err(db)?;
    let view = key(c, account, &id)?.ok_or_else(ApiError::internal)?;
    audit(c, actor, account, "key.create", &id, None, Some(&view))?;
    Ok(view)
}

/// Makes a new key; answers its view and its text (shown once, stored only as a hash).
pub fn create_key(
    c: &dyn Db,
    actor: &Actor,
    account: &str,
    name: &str,
) -> ApiResult<(Value, String)> {
    let text = new_key_text()?;
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    let view = add_key(c, actor, account, name, &hash, Some(&text))?;
    Ok((view, text))
}

/// Revokes a key of the account: refused from the next request on, in every process.
pub fn revoke_key(c: &dyn Db, actor: &Actor, account: &str, id: &str) -> ApiResult<Value> {
    let before = key(c, account, id)?.ok_or_else(|| not_found("KEY_NOT_FOUND", "API key", id))?;
    if !before["revokedAt"].is_null() {
        return Err(conflict(
            "KEY_REVOKED",
            format!("API key {id:?} is revoked already"),
        ));
    }
    c.exec(
        "UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1",
        vals![id, now_ms()],
    )
    .map_err(db)?;
    let after = key(c, account, id)?.ok_or_else(ApiError::internal)?;
    audit(
        c,
        actor,
        account,
        "key.revoke",
        id,
        Some(&before),
        Some(&after),
    )?;
    Ok(after)
}

// ---------------------------------------------------------------- partners

/// A partner as saved.
#[derive(Debug, Clone)]
pub struct PartnerInput {
    /// The `partnerId`.
    pub id: String,
    /// The core's profile (checked).
    pub profile: Value,
    /// Transport, credentials included.
    pub transport: Option<TransportConfig>,
    /// Acknowledgement window.
    pub ack_window_seconds: Option<u64>,
    /// `997` / `999`.
    pub acknowledge_inbound: Option<String>,
    /// Enabled.
    pub enabled: bool,
    /// The version the client read (`PUT`): a change since is a 409.
    pub expected_version: Option<i64>,
}

/// Reads a partner body (`{"id", "profile", "transport", "ackWindowSeconds",
/// "acknowledgeInbound", "enabled"}`; `version`, `createdAt` and `updatedAt` as a GET
/// answers them may be sent back: `version` must then be the current one), every
/// problem at its pointer; the core checks the profile.
pub fn parse_partner(
    body: &Map<String, Value>,
    path_id: Option<&str>,
    folders: &Folders<'_>,
    current: Option<&TransportConfig>,
) -> ApiResult<PartnerInput> {
    let mut p = Problems::default();
    let f = Fields::of(
        body,
        "",
        &[
            "id",
            "profile",
            "transport",
            "ackWindowSeconds",
            "acknowledgeInbound",
            "enabled",
            "version",
            "createdAt",
            "updatedAt",
        ],
        &mut p,
    );
    let id = f.string("id", path_id.is_none(), &mut p);
    let id = match (id, path_id) {
        (Some(id), Some(path)) if id != path => {
            p.value(
                "ID_MISMATCH",
                "/id",
                format!("id {id:?} is not the partner of the path, {path:?}"),
            );
            None
        }
        (Some(id), _) => Some(id),
        (None, path) => path.map(str::to_string),
    };
    if let Some(id) = &id
        && !valid_id(id)
    {
        p.value(
            "INVALID_ID",
            "/id",
            "a partner id is 1 to 64 of A-Z a-z 0-9 . _ - (not only dots)",
        );
    }
    let profile = match f.get("profile") {
        None => {
            p.shape("MISSING_FIELD", "/profile", "profile is required");
            None
        }
        Some(v @ Value::Object(_)) => {
            // A guide is given inline here: the server reads no file an API call names.
            if let Some((kind, path)) = crate::guides::path_given(v) {
                p.details.push(crate::error::Detail {
                    severity: "error",
                    code: std::borrow::Cow::Borrowed("INVALID_GUIDE"),
                    pointer: format!("/profile/guides/{kind}"),
                    message: format!(
                        "the guide is the path {path:?}: give the guide itself (only the configuration file names guide files)"
                    ),
                });
            }
            if let Err(e) = x12kit::Partner::from_value(v) {
                for d in e.details() {
                    let at = if d.pointer.is_empty() || d.pointer == "/" {
                        "/profile".to_string()
                    } else {
                        format!("/profile{}", d.pointer)
                    };
                    p.details.push(crate::error::Detail {
                        severity: "error",
                        code: std::borrow::Cow::Owned(d.code.as_str().to_string()),
                        pointer: at,
                        message: d.message.clone(),
                    });
                }
            }
            Some(v.clone())
        }
        Some(_) => {
            p.shape(
                "INVALID_FIELD",
                "/profile",
                "profile must be a JSON object (the core's partner profile)",
            );
            None
        }
    };
    let transport = f
        .get("transport")
        .and_then(|t| transport::parse(t, "/transport", folders, current, &mut p));
    let ack_window_seconds = f.uint("ackWindowSeconds", 365 * 86_400, &mut p);
    let acknowledge_inbound = f.string("acknowledgeInbound", false, &mut p);
    if let Some(a) = &acknowledge_inbound
        && a != "997"
        && a != "999"
    {
        p.value(
            "INVALID_FIELD",
            "/acknowledgeInbound",
            "acknowledgeInbound is \"997\", \"999\" or null",
        );
    }
    let enabled = f.boolean("enabled", &mut p).unwrap_or(true);
    let expected_version = f.uint("version", i64::MAX as u64, &mut p).map(|v| v as i64);
    for t in ["createdAt", "updatedAt"] {
        if f.get(t).is_some_and(|v| !v.is_string()) {
            p.shape(
                "INVALID_FIELD",
                format!("/{t}"),
                format!("{t} is read-only (a time, as answered)"),
            );
        }
    }
    p.check()?;
    match (id, profile) {
        (Some(id), Some(profile)) => Ok(PartnerInput {
            id,
            profile,
            transport,
            ack_window_seconds,
            acknowledge_inbound,
            enabled,
            expected_version,
        }),
        _ => Err(ApiError::internal()),
    }
}

const PARTNER_COLUMNS: &str = "id, profile, transport, ack_window_seconds, acknowledge_inbound, enabled, version, created_at, updated_at";

fn partner_view(r: &Row) -> ApiResult<Value> {
    let f = || -> crate::db::DbResult<Value> {
        let parse = |t: Option<String>| {
            t.and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .unwrap_or(Value::Null)
        };
        Ok(json!({
            "id": r.get::<String>(0)?,
            "profile": parse(Some(r.get(1)?)),
            "transport": parse(r.get(2)?),
            "ackWindowSeconds": r.get::<Option<i64>>(3)?,
            "acknowledgeInbound": r.get::<Option<String>>(4)?,
            "enabled": r.get::<i64>(5)? != 0,
            "version": r.get::<i64>(6)?,
            "createdAt": time(Some(r.get(7)?)),
            "updatedAt": time(Some(r.get(8)?)),
        }))
    };
    f().map_err(db)
}

/// One partner of the account (transport credentials shown as `"********"`).
pub fn partner(c: &dyn Db, account: &str, id: &str) -> ApiResult<Option<Value>> {
    match one(
        c,
        &format!("SELECT {PARTNER_COLUMNS} FROM partners WHERE account = ?1 AND id = ?2"),
        vals![account, id],
    )? {
        Some(r) => partner_view(&r).map(Some),
        None => Ok(None),
    }
}

/// The account's partners by id.
pub fn partners(c: &dyn Db, account: &str) -> ApiResult<Vec<Value>> {
    c.query(
        &format!("SELECT {PARTNER_COLUMNS} FROM partners WHERE account = ?1 ORDER BY id"),
        vals![account],
    )
    .map_err(db)?
    .iter()
    .map(partner_view)
    .collect()
}

/// The stored transport of a partner (credentials opened), to keep redacted values.
pub fn stored_transport(
    c: &dyn Db,
    secrets: Option<&SecretBox>,
    account: &str,
    id: &str,
) -> ApiResult<Option<TransportConfig>> {
    let Some(r) = one(
        c,
        "SELECT transport, transport_secrets FROM partners WHERE account = ?1 AND id = ?2",
        vals![account, id],
    )?
    else {
        return Ok(None);
    };
    let public: Option<String> = r.get(0).map_err(db)?;
    let sealed: Option<Vec<u8>> = r.get(1).map_err(db)?;
    transport::open_transport(secrets, account, id, public.as_deref(), sealed.as_deref()).map_err(
        |e| {
            tracing::error!(error = %e, "cannot open a stored transport");
            ApiError::internal()
        },
    )
}

fn missing_key() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "SECRET_KEY_MISSING",
        "the server has no secret key to store credentials and signing secrets with (secret_key_file or X12KIT_SECRET_KEY_FILE)",
    )
}

/// How [`put_partner`] treats an existing partner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Put {
    /// It must not exist (409 `PARTNER_EXISTS`).
    Create,
    /// It must exist (404).
    Replace,
    /// Either (the console).
    Upsert,
}

/// Saves a partner: its credentials sealed, its version bumped, its control numbers ready.
pub fn put_partner(
    c: &dyn Db,
    secrets: Option<&SecretBox>,
    actor: &Actor,
    account: &str,
    input: &PartnerInput,
    mode: Put,
) -> ApiResult<Value> {
    let before = partner(c, account, &input.id)?;
    match (&before, mode) {
        (Some(_), Put::Create) => {
            return Err(conflict(
                "PARTNER_EXISTS",
                format!("partner {:?} exists; change it with PUT", input.id),
            ));
        }
        (None, Put::Replace) => {
            return Err(not_found("PARTNER_NOT_FOUND", "trading partner", &input.id));
        }
        _ => {}
    }
    let version = before.as_ref().and_then(|b| b["version"].as_i64());
    if let (Some(expected), Some(current)) = (input.expected_version, version)
        && expected != current
    {
        return Err(conflict(
            "VERSION_CONFLICT",
            format!(
                "partner {:?} is at version {current}, not {expected}: read it again",
                input.id
            ),
        ));
    }
    let (public, sealed) = match &input.transport {
        None => (None, None),
        Some(t) => {
            let (public, creds) = transport::split(t);
            let sealed = if creds.is_empty() {
                None
            } else {
                let sb = secrets.ok_or_else(missing_key)?;
                Some(
                    sb.seal(
                        &transport_purpose(account, &input.id),
                        Value::Object(creds).to_string().as_bytes(),
                    )
                    .map_err(|e| {
                        tracing::error!(error = %e, "cannot seal");
                        ApiError::internal()
                    })?,
                )
            };
            (Some(public.to_string()), sealed)
        }
    };
    let now = now_ms();
    let ack_window = input.ack_window_seconds.map(|w| w as i64);
    let enabled = i64::from(input.enabled);
    if before.is_some() {
        c.exec(
            "UPDATE partners SET profile = ?3, transport = ?4, transport_secrets = ?5, ack_window_seconds = ?6,
                acknowledge_inbound = ?7, enabled = ?8, version = version + 1, updated_at = ?9
             WHERE account = ?1 AND id = ?2",
            vals![account, &input.id, input.profile.to_string(), public, sealed, ack_window,
                &input.acknowledge_inbound, enabled, now],
        )
        .map_err(db)?;
    } else {
        c.exec(
            "INSERT INTO partners (account, id, profile, transport, transport_secrets, ack_window_seconds,
                acknowledge_inbound, enabled, version, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, ?9, ?9)",
            vals![account, &input.id, input.profile.to_string(), public, sealed, ack_window,
                &input.acknowledge_inbound, enabled, now],
        )
        .map_err(db)?;
        if !c.skip_locked().is_empty() {
            // PostgreSQL: the partner's control-number sequence (see store::next_control).
            c.exec("SELECT pg_advisory_xact_lock(1215262)", &[])
                .map_err(db)?;
            c.batch(&format!(
                "CREATE SEQUENCE IF NOT EXISTS {} MINVALUE 1 MAXVALUE 1000000000 NO CYCLE",
                crate::store::control_sequence(account, &input.id)
            ))
            .map_err(db)?;
        }
    }
    let after = partner(c, account, &input.id)?.ok_or_else(ApiError::internal)?;
    let action = if before.is_some() {
        "partner.update"
    } else {
        "partner.create"
    };
    audit(
        c,
        actor,
        account,
        action,
        &input.id,
        before.as_ref(),
        Some(&after),
    )?;
    Ok(after)
}

/// Deletes a partner with no document in flight (queued, validated, or routed and awaiting
/// its acknowledgement): else 409 `PARTNER_IN_USE` (disable it instead).
pub fn delete_partner(c: &dyn Db, actor: &Actor, account: &str, id: &str) -> ApiResult<Value> {
    let before = partner(c, account, id)?
        .ok_or_else(|| not_found("PARTNER_NOT_FOUND", "trading partner", id))?;
    let in_flight: i64 = one(
        c,
        "SELECT COUNT(*) FROM documents WHERE account = ?1 AND partner_id = ?2
           AND (status IN ('queued', 'validated') OR (status = 'routed' AND ack_deadline IS NOT NULL))",
        vals![account, id],
    )?
    .map_or(Ok(0), |r| r.get(0))
    .map_err(db)?;
    if in_flight > 0 {
        return Err(conflict(
            "PARTNER_IN_USE",
            format!(
                "partner {id:?} has {in_flight} document(s) in flight; disable it (\"enabled\": false) instead, or wait"
            ),
        ));
    }
    c.exec(
        "DELETE FROM partners WHERE account = ?1 AND id = ?2",
        vals![account, id],
    )
    .map_err(db)?;
    audit(c, actor, account, "partner.delete", id, Some(&before), None)?;
    Ok(before)
}

// ---------------------------------------------------------------- webhooks

/// A webhook endpoint body (`{"url", "events", "enabled", "description"}`; `id`, `secrets`,
/// `createdAt` and `updatedAt` as answered may be sent back and are ignored).
#[derive(Debug, Clone)]
pub struct WebhookInput {
    /// http(s) URL.
    pub url: String,
    /// Event kinds (empty: all).
    pub events: Vec<String>,
    /// Enabled.
    pub enabled: bool,
    /// For people.
    pub description: String,
}

/// Reads a webhook body, every problem at its pointer.
pub fn parse_webhook(body: &Map<String, Value>) -> ApiResult<WebhookInput> {
    let mut p = Problems::default();
    let f = Fields::of(
        body,
        "",
        &[
            "url",
            "events",
            "enabled",
            "description",
            "id",
            "secrets",
            "createdAt",
            "updatedAt",
        ],
        &mut p,
    );
    let url = f.string("url", true, &mut p);
    if let Some(u) = &url
        && let Some(problem) = super::rules::url_problem(u)
    {
        p.value("INVALID_URL", "/url", format!("url {problem}"));
    }
    let mut events = Vec::new();
    match f.get("events") {
        None => {}
        Some(Value::Array(a)) => {
            for (i, e) in a.iter().enumerate() {
                match e.as_str() {
                    Some(s)
                        if x12kit::webhook::EventKind::ALL
                            .iter()
                            .any(|k| k.as_str() == s) =>
                    {
                        if !events.iter().any(|x: &String| x == s) {
                            events.push(s.to_string());
                        }
                    }
                    _ => p.value(
                        "UNKNOWN_EVENT",
                        format!("/events/{i}"),
                        format!(
                            "not an event kind; the kinds are {}",
                            x12kit::webhook::EventKind::ALL
                                .map(|k| k.as_str())
                                .join(", ")
                        ),
                    ),
                }
            }
        }
        Some(_) => p.shape(
            "INVALID_FIELD",
            "/events",
            "events must be an array of event kinds",
        ),
    }
    let enabled = f.boolean("enabled", &mut p).unwrap_or(true);
    let description = f.string("description", false, &mut p).unwrap_or_default();
    if description.chars().count() > 500 {
        p.value(
            "INVALID_FIELD",
            "/description",
            "description has at most 500 characters",
        );
    }
    p.check()?;
    Ok(WebhookInput {
        url: url.ok_or_else(ApiError::internal)?,
        events,
        enabled,
        description,
    })
}

fn webhook_view(c: &dyn Db, r: &Row) -> ApiResult<Value> {
    let f = || -> crate::db::DbResult<Value> {
        let id: String = r.get(0)?;
        let now = now_ms();
        let secrets: Vec<Value> = c
            .query(
                "SELECT id, created_at, expires_at FROM webhook_secrets WHERE endpoint_id = ?1
                 ORDER BY created_at DESC, id DESC",
                vals![&id],
            )?
            .iter()
            .map(|s| {
                let expires: Option<i64> = s.get(2)?;
                Ok(json!({
                    "id": s.get::<String>(0)?,
                    "createdAt": time(Some(s.get(1)?)),
                    "expiresAt": time(expires),
                    "signing": expires.is_none_or(|e| e > now),
                }))
            })
            .collect::<crate::db::DbResult<_>>()?;
        Ok(json!({
            "id": id,
            "url": r.get::<String>(1)?,
            "events": serde_json::from_str::<Value>(&r.get::<String>(2)?).unwrap_or(json!([])),
            "enabled": r.get::<i64>(3)? != 0,
            "description": r.get::<String>(4)?,
            "createdAt": time(Some(r.get(5)?)),
            "updatedAt": time(Some(r.get(6)?)),
            "secrets": secrets,
        }))
    };
    f().map_err(db)
}

const WEBHOOK_COLUMNS: &str = "id, url, events, enabled, description, created_at, updated_at";

/// One endpoint of the account (its secrets' ids and times, never their values).
pub fn webhook(c: &dyn Db, account: &str, id: &str) -> ApiResult<Option<Value>> {
    match one(
        c,
        &format!("SELECT {WEBHOOK_COLUMNS} FROM webhook_endpoints WHERE account = ?1 AND id = ?2"),
        vals![account, id],
    )? {
        Some(r) => webhook_view(c, &r).map(Some),
        None => Ok(None),
    }
}

/// The account's endpoints, oldest first.
pub fn webhooks(c: &dyn Db, account: &str) -> ApiResult<Vec<Value>> {
    c.query(
        &format!("SELECT {WEBHOOK_COLUMNS} FROM webhook_endpoints WHERE account = ?1 ORDER BY created_at, id"),
        vals![account],
    )
    .map_err(db)?
    .iter()
    .map(|r| webhook_view(c, r))
    .collect()
}

fn url_taken(c: &dyn Db, account: &str, url: &str, except: &str) -> ApiResult<()> {
    if one(
        c,
        "SELECT 1 FROM webhook_endpoints WHERE account = ?1 AND url = ?2 AND id <> ?3",
        vals![account, url, except],
    )?
    .is_some()
    {
        return Err(conflict(
            "WEBHOOK_EXISTS",
            format!("the account has an endpoint at {url} already"),
        ));
    }
    Ok(())
}

fn add_secret(
    c: &dyn Db,
    secrets: Option<&SecretBox>,
    endpoint: &str,
    secret: &str,
) -> ApiResult<()> {
    let sb = secrets.ok_or_else(missing_key)?;
    let id = new_id("whs");
    let sealed = sb
        .seal(&secret_purpose(&id), secret.as_bytes())
        .map_err(|e| {
            tracing::error!(error = %e, "cannot seal");
            ApiError::internal()
        })?;
    c.exec(
        "INSERT INTO webhook_secrets (id, endpoint_id, sealed, created_at) VALUES (?1, ?2, ?3, ?4)",
        vals![&id, endpoint, sealed, now_ms()],
    )
    .map_err(db)?;
    Ok(())
}

/// A new signing secret: `whsec_` and 32 random bytes in base64 (the Standard Webhooks form).
pub fn new_secret() -> ApiResult<String> {
    x12kit::webhook::standard::StandardSecret::generate()
        .map(|s| s.to_whsec())
        .map_err(|e| {
            tracing::error!(error = %e.message(), "no randomness");
            ApiError::internal()
        })
}

/// Creates an endpoint with the given signing secrets (newest first; the import) or a new
/// one; answers its view and the new secret when one was made.
pub fn create_webhook(
    c: &dyn Db,
    secrets: Option<&SecretBox>,
    actor: &Actor,
    account: &str,
    input: &WebhookInput,
    given: &[String],
) -> ApiResult<(Value, Option<String>)> {
    url_taken(c, account, &input.url, "")?;
    let id = new_id("wh");
    let now = now_ms();
    c.exec(
        "INSERT INTO webhook_endpoints (id, account, url, events, enabled, description, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
        vals![&id, account, &input.url, json!(input.events).to_string(), i64::from(input.enabled),
            &input.description, now],
    )
    .map_err(db)?;
    let made = if given.is_empty() {
        let s = new_secret()?;
        add_secret(c, secrets, &id, &s)?;
        Some(s)
    } else {
        // Oldest first, so that the first given (the newest) is the newest row.
        for s in given.iter().rev() {
            add_secret(c, secrets, &id, s)?;
        }
        None
    };
    let view = webhook(c, account, &id)?.ok_or_else(ApiError::internal)?;
    audit(c, actor, account, "webhook.create", &id, None, Some(&view))?;
    Ok((view, made))
}

/// Replaces an endpoint's URL, events, enabled flag and description.
pub fn update_webhook(
    c: &dyn Db,
    actor: &Actor,
    account: &str,
    id: &str,
    input: &WebhookInput,
) -> ApiResult<Value> {
    let before = webhook(c, account, id)?
        .ok_or_else(|| not_found("WEBHOOK_NOT_FOUND", "webhook endpoint", id))?;
    url_taken(c, account, &input.url, id)?;
    c.exec(
        "UPDATE webhook_endpoints SET url = ?2, events = ?3, enabled = ?4, description = ?5, updated_at = ?6 WHERE id = ?1",
        vals![id, &input.url, json!(input.events).to_string(), i64::from(input.enabled),
            &input.description, now_ms()],
    )
    .map_err(db)?;
    let after = webhook(c, account, id)?.ok_or_else(ApiError::internal)?;
    audit(
        c,
        actor,
        account,
        "webhook.update",
        id,
        Some(&before),
        Some(&after),
    )?;
    Ok(after)
}

/// Deletes an endpoint and its secrets (its pending deliveries then fail, unsent).
pub fn delete_webhook(c: &dyn Db, actor: &Actor, account: &str, id: &str) -> ApiResult<Value> {
    let before = webhook(c, account, id)?
        .ok_or_else(|| not_found("WEBHOOK_NOT_FOUND", "webhook endpoint", id))?;
    c.exec(
        "DELETE FROM webhook_secrets WHERE endpoint_id = ?1",
        vals![id],
    )
    .map_err(db)?;
    c.exec("DELETE FROM webhook_endpoints WHERE id = ?1", vals![id])
        .map_err(db)?;
    audit(c, actor, account, "webhook.delete", id, Some(&before), None)?;
    Ok(before)
}

/// Longest overlap of a rotation (30 days, in seconds).
pub const MAX_OVERLAP: u64 = 30 * 86_400;

/// A new signing secret for the endpoint: it signs at once, beside the secrets that signed
/// until now for `overlap_seconds` more (then they stop); answers the view and the secret.
pub fn rotate_secret(
    c: &dyn Db,
    secrets: Option<&SecretBox>,
    actor: &Actor,
    account: &str,
    id: &str,
    overlap_seconds: u64,
) -> ApiResult<(Value, String)> {
    let before = webhook(c, account, id)?
        .ok_or_else(|| not_found("WEBHOOK_NOT_FOUND", "webhook endpoint", id))?;
    let now = now_ms();
    let until = now + (overlap_seconds.min(MAX_OVERLAP) as i64) * 1000;
    c.exec(
        "DELETE FROM webhook_secrets WHERE endpoint_id = ?1 AND expires_at IS NOT NULL AND expires_at <= ?2",
        vals![id, now],
    )
    .map_err(db)?;
    c.exec(
        "UPDATE webhook_secrets SET expires_at = ?2 WHERE endpoint_id = ?1 AND (expires_at IS NULL OR expires_at > ?2)",
        vals![id, until],
    )
    .map_err(db)?;
    let secret = new_secret()?;
    add_secret(c, secrets, id, &secret)?;
    c.exec(
        "UPDATE webhook_endpoints SET updated_at = ?2 WHERE id = ?1",
        vals![id, now],
    )
    .map_err(db)?;
    let after = webhook(c, account, id)?.ok_or_else(ApiError::internal)?;
    audit(
        c,
        actor,
        account,
        "webhook.rotate-secret",
        id,
        Some(&before),
        Some(&after),
    )?;
    Ok((after, secret))
}

// ---------------------------------------------------------------- audit

/// A page of the account's audit log, newest first, strictly older than `before` (a
/// `seq`); the `seq` of the last entry when more follow.
pub fn audit_page(
    c: &dyn Db,
    account: &str,
    before: Option<i64>,
    limit: usize,
) -> crate::db::DbResult<(Vec<Value>, Option<i64>)> {
    let rows = c.query(
        "SELECT seq, at, actor, actor_name, action, target, before, after, client FROM audit_log
         WHERE account = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3",
        vals![account, before.unwrap_or(i64::MAX), limit as i64 + 1],
    )?;
    let mut out = Vec::new();
    let mut last = None;
    for r in rows.iter().take(limit) {
        let parse = |t: Option<String>| {
            t.and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .unwrap_or(Value::Null)
        };
        let seq: i64 = r.get(0)?;
        last = Some(seq);
        out.push(json!({
            "id": seq,
            "at": rfc3339(r.get(1)?),
            "actor": {"id": r.get::<String>(2)?, "name": r.get::<String>(3)?},
            "action": r.get::<String>(4)?,
            "target": r.get::<String>(5)?,
            "before": parse(r.get(6)?),
            "after": parse(r.get(7)?),
            "client": r.get::<Option<String>>(8)?,
        }));
    }
    Ok((out, if rows.len() > limit { last } else { None }))
}

/// The purpose of a sealed webhook secret.
pub fn secret_purpose(id: &str) -> String {
    format!("webhook-secret:{id}")
}
