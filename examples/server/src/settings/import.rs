//! The configuration file as the store's bootstrap, and the store's settings as TOML.
//!
//! At start, against a store with no account, the accounts of the file (their
//! keys, people, partners and webhook endpoints) are imported in one
//! transaction, audited as `configuration`; with several processes starting at
//! once, one imports and the others find it done. Once the store has accounts,
//! it is the truth: the file's `[[accounts]]` sections are ignored (one log line
//! says so) and every change goes through the settings routes or the console.
//! `x12kit-server settings export` prints the store's settings back in the
//! file's form, with every secret left out.

use super::write::{self, Actor, PartnerInput, Put, WebhookInput};
use crate::config::AccountImport;
use crate::db::Db;
use crate::error::{ApiError, ApiResult};
use crate::secrets::{KEY_CHECK, SecretBox};
use crate::store::{Store, now_ms, rfc3339};
use crate::vals;
use serde_json::{Map, Value, json};

/// Checks the secret key against the one the store's secrets were sealed with (the first
/// key used is recorded by a sealed check value); a different key stops the start.
pub async fn check_key(store: &Store, secrets: Option<SecretBox>) -> Result<(), String> {
    let Some(sb) = secrets else {
        return Ok(());
    };
    let result = store
        .write(move |c| {
            let row = c
                .one("SELECT key_check FROM settings_state WHERE id = 1", &[])
                .map_err(write::db)?;
            match row
                .map(|r| r.get::<Option<Vec<u8>>>(0))
                .transpose()
                .map_err(write::db)?
                .flatten()
            {
                Some(check) => Ok(sb.open(KEY_CHECK, &check).is_ok()),
                None => {
                    let sealed = sb
                        .seal(KEY_CHECK, b"ok")
                        .map_err(|_| ApiError::internal())?;
                    c.exec(
                        "UPDATE settings_state SET key_check = ?1 WHERE id = 1",
                        vals![sealed],
                    )
                    .map_err(write::db)?;
                    Ok(true)
                }
            }
        })
        .await
        .map_err(|e| format!("cannot check the secret key: {}", e.message))?;
    if result {
        Ok(())
    } else {
        Err("the secret key file is not the key this store's secrets were sealed with".into())
    }
}

/// Imports the file's accounts into a store that has none; true when it did.
pub async fn bootstrap(
    store: &Store,
    accounts: Vec<AccountImport>,
    secrets: Option<SecretBox>,
) -> Result<bool, String> {
    if accounts.is_empty() {
        return Ok(false);
    }
    store
        .write(move |c| {
            if !c.skip_locked().is_empty() {
                // PostgreSQL: processes starting together import once.
                c.exec("SELECT pg_advisory_xact_lock(1215263)", &[])
                    .map_err(write::db)?;
            }
            if !write::accounts(c)?.is_empty() {
                return Ok(false);
            }
            import(c, &accounts, secrets.as_ref())?;
            c.exec(
                "UPDATE settings_state SET imported_at = ?1 WHERE id = 1",
                vals![now_ms()],
            )
            .map_err(write::db)?;
            Ok(true)
        })
        .await
        .map_err(|e| {
            let mut text = e.message.clone();
            if let Some(d) = e.details.as_array().and_then(|d| d.first()) {
                text.push_str(&format!(": {} {}", d["pointer"], d["message"]));
            }
            format!("cannot import the configuration's settings: {text}")
        })
}

fn import(c: &dyn Db, accounts: &[AccountImport], secrets: Option<&SecretBox>) -> ApiResult<()> {
    let actor = Actor::configuration();
    for a in accounts {
        write::create_account(c, &actor, &a.id)?;
        for (name, hash) in &a.keys {
            write::add_key(c, &actor, &a.id, name, hash, None)?;
        }
        for u in &a.users {
            write::add_user(
                c,
                &actor,
                &a.id,
                &u.email.trim().to_lowercase(),
                &u.role,
                &u.password_argon2,
            )?;
        }
        for p in &a.partners {
            let input = PartnerInput {
                id: p.id.clone(),
                profile: p.profile.clone(),
                transport: p.transport.clone(),
                ack_window_seconds: p.ack_window_seconds,
                acknowledge_inbound: p.acknowledge_inbound.clone(),
                enabled: p.enabled,
                expected_version: None,
            };
            write::put_partner(c, secrets, &actor, &a.id, &input, Put::Create)?;
        }
        for w in &a.webhooks {
            let input = WebhookInput {
                url: w.url.clone(),
                events: w.events.clone(),
                enabled: w.enabled,
                description: String::new(),
            };
            write::create_webhook(c, secrets, &actor, &a.id, &input, &w.secrets)?;
        }
    }
    Ok(())
}

/// Removes the nulls of a JSON value (TOML has none).
fn without_nulls(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

/// The store's settings as the configuration file's `[[accounts]]` sections (TOML), every
/// secret left out: API keys by their SHA-256 (revoked ones omitted), people without their
/// password hash, transport credentials as `"********"`, webhook endpoints without secrets.
pub fn export(c: &dyn Db) -> ApiResult<String> {
    let version: i64 = c
        .one("SELECT version FROM settings_state WHERE id = 1", &[])
        .map_err(write::db)?
        .map_or(Ok(0), |r| r.get(0))
        .map_err(write::db)?;
    let mut accounts = Vec::new();
    for id in write::accounts(c)? {
        let keys: Vec<Value> = c
            .query(
                "SELECT name, sha256 FROM api_keys WHERE account = ?1 AND revoked_at IS NULL ORDER BY created_at, id",
                vals![&id],
            )
            .map_err(write::db)?
            .iter()
            .map(|r| Ok(json!({"name": r.get::<String>(0)?, "sha256": r.get::<String>(1)?})))
            .collect::<crate::db::DbResult<_>>()
            .map_err(write::db)?;
        let users: Vec<Value> = write::users(c, &id)?
            .into_iter()
            .filter(|u| u["disabled"] == false)
            .map(|u| json!({"email": u["email"], "role": u["role"]}))
            .collect();
        let partners: Vec<Value> = write::partners(c, &id)?
            .into_iter()
            .map(|p| {
                let transport = p["transport"].as_object().map(|t| {
                    Value::Object(
                        t.iter()
                            .map(|(k, v)| (super::remote::snake(k), v.clone()))
                            .collect::<Map<_, _>>(),
                    )
                });
                json!({
                    "id": p["id"],
                    "profile_inline": p["profile"],
                    "ack_window_seconds": p["ackWindowSeconds"],
                    "acknowledge_inbound": p["acknowledgeInbound"],
                    "enabled": p["enabled"],
                    "transport": transport,
                })
            })
            .collect();
        let webhooks: Vec<Value> = write::webhooks(c, &id)?
            .into_iter()
            .map(|w| json!({"url": w["url"], "events": w["events"], "enabled": w["enabled"], "secrets": []}))
            .collect();
        accounts.push(json!({"id": id, "keys": keys, "users": users, "partners": partners, "webhooks": webhooks}));
    }
    let body = toml::to_string(&without_nulls(json!({"accounts": accounts}))).map_err(|e| {
        tracing::error!(error = %e, "cannot write TOML");
        ApiError::internal()
    })?;
    Ok(format!(
        "# x12kit-server settings, exported from the store at settings version {version} ({}).\n\
         # Secrets are left out: API keys appear as their SHA-256, people without a\n\
         # password_argon2 (add one with `x12kit-server hash-password` to import them),\n\
         # transport credentials as \"********\" and webhook endpoints without secrets\n\
         # (give each one to import it). Revoked keys and disabled people are omitted.\n\n{body}",
        rfc3339(now_ms())
    ))
}
