//! The service's settings in the store: accounts, the people who sign in, API
//! keys, trading partners and webhook endpoints (tables of migration 7).
//!
//! Every process keeps a [`Snapshot`] of them in memory (the API key check, the
//! partner of a document, the endpoints of an event read it without a query),
//! and reloads it when the store's settings version moves: every settings
//! change bumps `settings_state.version` in its transaction, and [`watch`]
//! reads the version every [`POLL_MS`] ms. A change made by this process is
//! loaded before its answer goes out, so its own next request sees it; every
//! other process sees it within a poll and a load (well under a second).
//!
//! Changes go through [`mod@write`] (the settings routes and the console alike),
//! each in one transaction with its audit row; [`import`] fills an empty store
//! from the configuration file and prints the settings back as TOML.

pub mod import;
pub mod partner;
pub mod remote;
pub mod rules;
pub mod transport;
pub mod write;

use crate::db::{Db, DbResult};
use crate::error::ApiResult;
use crate::secrets::SecretBox;
use crate::store::{Store, now_ms};
use crate::vals;
use partner::Partner;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use x12kit::webhook::EventKind;

/// How often every process reads the settings version (ms).
pub const POLL_MS: u64 = 250;

/// One signing secret of an endpoint (opened).
#[derive(Debug)]
pub struct Secret {
    /// The secret text.
    pub value: String,
    /// Until when it signs (Unix ms; `None`: until rotated).
    pub expires_at: Option<i64>,
}

/// A webhook endpoint.
#[derive(Debug)]
pub struct Endpoint {
    /// `wh_…`.
    pub id: String,
    /// Where deliveries go.
    pub url: String,
    /// The event kinds it wants (empty: all).
    pub events: Vec<EventKind>,
    /// False: no new deliveries, pending ones end.
    pub enabled: bool,
    /// Its secrets, newest first (an empty list when the secret key is missing).
    pub secrets: Vec<Secret>,
}

impl Endpoint {
    /// True when the endpoint is enabled and wants `event`.
    pub fn wants(&self, event: EventKind) -> bool {
        self.enabled && (self.events.is_empty() || self.events.contains(&event))
    }

    /// The secrets that sign at `now` (Unix ms), newest first.
    pub fn signing_secrets(&self, now: i64) -> Vec<&str> {
        self.secrets
            .iter()
            .filter(|s| s.expires_at.is_none_or(|e| e > now))
            .map(|s| s.value.as_str())
            .collect()
    }
}

/// An account and its partners and endpoints.
#[derive(Debug)]
pub struct Account {
    /// Account id.
    pub id: String,
    /// Partners by id.
    pub partners: BTreeMap<String, Arc<Partner>>,
    /// Webhook endpoints, oldest first.
    pub webhooks: Vec<Arc<Endpoint>>,
}

/// An active (not revoked) API key.
#[derive(Debug)]
pub struct Key {
    /// `key_…`.
    pub id: String,
    /// SHA-256 of the key text.
    pub hash: [u8; 32],
    /// Its name (for logs).
    pub name: String,
    /// The account it opens.
    pub account: Arc<Account>,
}

/// The settings as one process sees them.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// The store's settings version it was loaded at.
    pub version: i64,
    /// Accounts by id.
    pub accounts: BTreeMap<String, Arc<Account>>,
    /// Active API keys.
    pub keys: Vec<Key>,
}

impl Snapshot {
    /// An account.
    pub fn account(&self, id: &str) -> Option<&Arc<Account>> {
        self.accounts.get(id)
    }

    /// A partner of an account.
    pub fn partner(&self, account: &str, partner: &str) -> Option<&Arc<Partner>> {
        self.accounts.get(account)?.partners.get(partner)
    }
}

/// Reads every setting of the store (the version first, so that a change committed
/// while loading is loaded again at the next poll).
pub fn load(c: &dyn Db, secrets: Option<&SecretBox>) -> DbResult<Snapshot> {
    let version: i64 = c
        .one("SELECT version FROM settings_state WHERE id = 1", &[])?
        .map_or(Ok(0), |r| r.get(0))?;
    let mut partners: HashMap<String, BTreeMap<String, Arc<Partner>>> = HashMap::new();
    for r in c.query(
        "SELECT account, id, profile, transport, transport_secrets, ack_window_seconds,
                acknowledge_inbound, enabled
         FROM partners",
        &[],
    )? {
        let account: String = r.get(0)?;
        let id: String = r.get(1)?;
        let transport = match transport::open_transport(
            secrets,
            &account,
            &id,
            r.get::<Option<String>>(3)?.as_deref(),
            r.get::<Option<Vec<u8>>>(4)?.as_deref(),
        ) {
            Ok(t) => t,
            Err(e) => {
                tracing::error!(account = %account, partner = %id, error = %e, "cannot open the partner's transport; it has none until fixed");
                None
            }
        };
        let profile: Value = serde_json::from_str(&r.get::<String>(2)?).unwrap_or(Value::Null);
        partners.entry(account).or_default().insert(
            id.clone(),
            Arc::new(Partner {
                id,
                profile,
                transport,
                ack_window_seconds: r.get::<Option<i64>>(5)?.map(|w| w.max(0) as u64),
                acknowledge_inbound: r.get(6)?,
                enabled: r.get::<i64>(7)? != 0,
            }),
        );
    }
    let mut secrets_of: HashMap<String, Vec<Secret>> = HashMap::new();
    for r in c.query(
        "SELECT id, endpoint_id, sealed, expires_at FROM webhook_secrets ORDER BY created_at DESC, id DESC",
        &[],
    )? {
        let id: String = r.get(0)?;
        let sealed: Vec<u8> = r.get(2)?;
        let opened = secrets
            .ok_or_else(|| "the secret key is not configured".to_string())
            .and_then(|sb| sb.open(&write::secret_purpose(&id), &sealed))
            .and_then(|b| String::from_utf8(b).map_err(|_| "not UTF-8".to_string()));
        match opened {
            Ok(value) => secrets_of.entry(r.get(1)?).or_default().push(Secret {
                value,
                expires_at: r.get(3)?,
            }),
            Err(e) => tracing::error!(secret = %id, error = %e, "cannot open a webhook secret"),
        }
    }
    let mut webhooks: HashMap<String, Vec<Arc<Endpoint>>> = HashMap::new();
    for r in c.query(
        "SELECT id, account, url, events, enabled FROM webhook_endpoints ORDER BY created_at, id",
        &[],
    )? {
        let id: String = r.get(0)?;
        let events: Vec<String> = serde_json::from_str(&r.get::<String>(3)?).unwrap_or_default();
        webhooks
            .entry(r.get(1)?)
            .or_default()
            .push(Arc::new(Endpoint {
                secrets: secrets_of.remove(&id).unwrap_or_default(),
                id,
                url: r.get(2)?,
                events: events
                    .iter()
                    .filter_map(|e| EventKind::ALL.into_iter().find(|k| k.as_str() == e))
                    .collect(),
                enabled: r.get::<i64>(4)? != 0,
            }));
    }
    let mut accounts = BTreeMap::new();
    for r in c.query("SELECT id FROM accounts", &[])? {
        let id: String = r.get(0)?;
        accounts.insert(
            id.clone(),
            Arc::new(Account {
                partners: partners.remove(&id).unwrap_or_default(),
                webhooks: webhooks.remove(&id).unwrap_or_default(),
                id,
            }),
        );
    }
    let mut keys = Vec::new();
    for r in c.query(
        "SELECT id, account, name, sha256 FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at, id",
        &[],
    )? {
        let account: String = r.get(1)?;
        let mut hash = [0u8; 32];
        let Some(account) = accounts.get(&account) else {
            continue;
        };
        if hex::decode_to_slice(r.get::<String>(3)?, &mut hash).is_err() {
            continue;
        }
        keys.push(Key {
            id: r.get(0)?,
            hash,
            name: r.get(2)?,
            account: account.clone(),
        });
    }
    Ok(Snapshot {
        version,
        accounts,
        keys,
    })
}

/// The settings of this process: the current snapshot, the secret key, and the keys
/// used since the last write of their `last_used_at`.
#[derive(Debug)]
pub struct Settings {
    current: RwLock<Arc<Snapshot>>,
    /// The operator's secret key, if configured.
    pub secrets: Option<SecretBox>,
    used: Mutex<HashMap<String, i64>>,
}

impl Settings {
    /// Settings starting from `snapshot`.
    pub fn new(snapshot: Snapshot, secrets: Option<SecretBox>) -> Settings {
        Settings {
            current: RwLock::new(Arc::new(snapshot)),
            secrets,
            used: Mutex::default(),
        }
    }

    /// The current snapshot.
    pub fn current(&self) -> Arc<Snapshot> {
        self.current
            .read()
            .map(|s| s.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }

    /// Loads the store's settings and uses them if they are newer than the current ones.
    pub async fn reload(&self, store: &Store) -> ApiResult<()> {
        let secrets = self.secrets.clone();
        let fresh = store.read(move |c| load(c, secrets.as_ref())).await?;
        let mut current = self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if fresh.version >= current.version {
            *current = Arc::new(fresh);
        }
        Ok(())
    }

    /// Notes that API key `id` was used now (written to the store every few seconds).
    pub fn used(&self, id: &str) {
        if let Ok(mut u) = self.used.lock() {
            if let Some(t) = u.get_mut(id) {
                *t = now_ms();
            } else {
                u.insert(id.to_string(), now_ms());
            }
        }
    }

    fn take_used(&self) -> HashMap<String, i64> {
        self.used
            .lock()
            .map(|mut u| std::mem::take(&mut *u))
            .unwrap_or_default()
    }
}

/// How often the keys' `last_used_at` is written (ms).
const USED_FLUSH_MS: u64 = 5_000;
/// How often ended sessions and old sign-in failures are deleted (ms).
const SWEEP_MS: u64 = 60_000;

/// Keeps this process's settings current: reads the version every [`POLL_MS`] ms and
/// reloads when it moved; writes the keys' last use; deletes sessions that ended more
/// than a day ago and sign-in failures older than the lock.
pub async fn watch(settings: Arc<Settings>, store: Store, auth: crate::config::Auth) {
    let mut last_flush = std::time::Instant::now();
    let mut last_sweep = std::time::Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(POLL_MS)).await;
        let version = store
            .read(|c| {
                c.one("SELECT version FROM settings_state WHERE id = 1", &[])?
                    .map_or(Ok(0), |r| r.get::<i64>(0))
            })
            .await;
        if let Ok(v) = version
            && v != settings.current().version
        {
            if settings.reload(&store).await.is_err() {
                tracing::error!("cannot reload the settings; the old ones stay in use");
            } else {
                tracing::info!(version = v, "settings reloaded");
            }
        }
        if last_flush.elapsed() >= Duration::from_millis(USED_FLUSH_MS) {
            last_flush = std::time::Instant::now();
            let used = settings.take_used();
            if !used.is_empty() {
                let _ = store
                    .write(move |c| {
                        for (id, at) in &used {
                            c.exec(
                                "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1 AND (last_used_at IS NULL OR last_used_at < ?2)",
                                vals![id, *at],
                            )
                            .map_err(write::db)?;
                        }
                        Ok(())
                    })
                    .await;
            }
        }
        if last_sweep.elapsed() >= Duration::from_millis(SWEEP_MS) {
            last_sweep = std::time::Instant::now();
            let now = now_ms();
            let lock = (auth.lockout_seconds * 1000) as i64;
            let idle = (auth.session_idle_seconds * 1000) as i64;
            let _ = store
                .write(move |c| {
                    c.exec(
                        "DELETE FROM sessions WHERE expires_at < ?1 OR last_seen_at < ?2",
                        vals![now - 86_400_000, now - idle - 86_400_000],
                    )
                    .map_err(write::db)?;
                    c.exec(
                        "DELETE FROM login_failures WHERE updated_at < ?1",
                        vals![now - lock - 3_600_000],
                    )
                    .map_err(write::db)?;
                    Ok(())
                })
                .await;
        }
    }
}
