//! The configuration file (TOML): listen address, database, body limit, rate
//! limits and the accounts with their API key hashes, trading partners and
//! webhook endpoints. Partner profiles are the core's JSON profiles, given
//! inline or as a path relative to the configuration file.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// Address to listen on (`127.0.0.1:8080`; port 0 picks a free port).
    #[serde(default = "default_listen")]
    pub listen: String,
    /// SQLite database file (relative to the configuration file), or a `postgres://` URL.
    #[serde(default = "default_database")]
    pub database: PathBuf,
    /// Largest request body accepted, in bytes (default 32 MiB).
    #[serde(default = "default_max_body")]
    pub max_body_bytes: usize,
    /// Rate limits per API key and route group.
    #[serde(default)]
    pub limits: Limits,
    /// Background workers (lifecycle, routing, webhooks).
    #[serde(default)]
    pub workers: Workers,
    /// Connection limits, timeouts and the capacity of each route group.
    #[serde(default)]
    pub server: crate::serve::Settings,
    /// The accounts.
    #[serde(default)]
    pub accounts: Vec<AccountConfig>,
}

/// The background workers: how often they look at the store, how many
/// transfers run at once, and the webhook retry schedule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workers {
    /// Run the workers in this process (`--no-workers` turns them off: an API-only process).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Milliseconds between looks at the store when idle (work is also picked up at once when
    /// this process wrote it).
    #[serde(default = "default_poll_ms")]
    pub poll_ms: u64,
    /// Partner transfers and webhook deliveries in flight at once (each).
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// Transfers to one partner in flight at once, so that a partner that stalls (accepts
    /// and never answers) holds no more than this many of `concurrency`.
    #[serde(default = "default_per_peer")]
    pub concurrency_per_partner: usize,
    /// Deliveries to one webhook endpoint in flight at once (the same, for endpoints).
    #[serde(default = "default_per_peer")]
    pub concurrency_per_endpoint: usize,
    /// Waits before each webhook retry, in milliseconds; after the last one fails the
    /// delivery is `failed`. Default: the Standard Webhooks schedule (5 s, 5 min, 30 min, 2 h,
    /// 5 h, 10 h, 10 h: 8 attempts over about 27.6 hours).
    #[serde(default = "default_webhook_retry_ms")]
    pub webhook_retry_ms: Vec<u64>,
    /// A webhook attempt is delivered when the endpoint answers 2xx within this time.
    #[serde(default = "default_webhook_timeout_ms")]
    pub webhook_timeout_ms: u64,
}

impl Default for Workers {
    fn default() -> Self {
        Workers {
            enabled: true,
            poll_ms: default_poll_ms(),
            concurrency: default_concurrency(),
            concurrency_per_partner: default_per_peer(),
            concurrency_per_endpoint: default_per_peer(),
            webhook_retry_ms: default_webhook_retry_ms(),
            webhook_timeout_ms: default_webhook_timeout_ms(),
        }
    }
}

fn yes() -> bool {
    true
}
fn default_poll_ms() -> u64 {
    500
}
fn default_concurrency() -> usize {
    64
}
fn default_per_peer() -> usize {
    8
}
fn default_webhook_retry_ms() -> Vec<u64> {
    vec![
        5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]
}
fn default_webhook_timeout_ms() -> u64 {
    10_000
}

/// Requests per minute per API key, by route group (spec §8).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// `GET /transactions` and `GET /transactions/{id}`.
    #[serde(default = "default_transactions")]
    pub transactions_per_minute: u32,
    /// `POST /parse` and `POST /validate`.
    #[serde(default = "default_x12")]
    pub parse_validate_per_minute: u32,
    /// Every other API route.
    #[serde(default = "default_other")]
    pub other_per_minute: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            transactions_per_minute: default_transactions(),
            parse_validate_per_minute: default_x12(),
            other_per_minute: default_other(),
        }
    }
}

/// One account.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountConfig {
    /// Account id (`alpha`).
    pub id: String,
    /// API keys of the account.
    #[serde(default)]
    pub keys: Vec<KeyConfig>,
    /// Trading partners of the account.
    #[serde(default)]
    pub partners: Vec<PartnerConfig>,
    /// Webhook endpoints (delivered by part 2's workers).
    #[serde(default)]
    pub webhooks: Vec<WebhookConfig>,
}

/// One API key, stored as the SHA-256 of the key (`x12kit-server new-key`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyConfig {
    /// A name for people (`ci`, `laptop`); never the key.
    pub name: String,
    /// Lower-case hex SHA-256 of the key.
    pub sha256: String,
}

/// One trading partner: the core's partner profile.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartnerConfig {
    /// The `partnerId` clients send.
    pub id: String,
    /// Path of the partner profile JSON (relative to the configuration file).
    pub profile: Option<PathBuf>,
    /// The partner profile inline (instead of `profile`).
    pub profile_inline: Option<toml::Value>,
    /// How the partner is reached (`kind = "http"` or `"directory"`). Without one, documents
    /// for the partner fail at routing.
    pub transport: Option<TransportConfig>,
    /// Seconds within which the partner's TA1/997/999 must come back after routing; a routed
    /// document without one by then is `failed`. Without it, no acknowledgement is awaited
    /// and `routed` is final (an acknowledgement that comes anyway is still recorded).
    pub ack_window_seconds: Option<u64>,
    /// `"997"` or `"999"`: answer the partner's inbound sets with this acknowledgement,
    /// sent through the partner's transport. Without it, inbound sets are not acknowledged.
    pub acknowledge_inbound: Option<String>,
}

/// How a partner is reached.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum TransportConfig {
    /// POST the interchange to a URL; a 2xx means routed.
    Http {
        /// `http(s)://` URL.
        url: String,
        /// Extra request headers (e.g. the partner's API key).
        #[serde(default)]
        headers: BTreeMap<String, String>,
        /// Retries after the first attempt (5xx, 408, 429, timeouts, connection errors).
        #[serde(default = "default_retries")]
        retries: u32,
        /// Wait before the first retry, doubled before each next one (milliseconds).
        #[serde(default = "default_backoff_ms")]
        backoff_ms: u64,
        /// Timeout of one attempt (milliseconds).
        #[serde(default = "default_timeout_ms")]
        timeout_ms: u64,
    },
    /// Write the interchange atomically into an outbox folder (SFTP / VAN drop folders);
    /// read the partner's files from an inbox folder.
    Directory {
        /// Folder the interchanges are written to (relative to the configuration file).
        outbox: PathBuf,
        /// Folder polled for the partner's acknowledgements and documents (optional).
        inbox: Option<PathBuf>,
    },
}

fn default_retries() -> u32 {
    3
}
fn default_backoff_ms() -> u64 {
    500
}
fn default_timeout_ms() -> u64 {
    10_000
}

/// One webhook endpoint; several secrets during a rotation (newest first).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookConfig {
    /// `https://…` URL receiving deliveries.
    pub url: String,
    /// Signing secrets; the first signs, all verify.
    pub secrets: Vec<String>,
}

fn default_listen() -> String {
    "127.0.0.1:8080".into()
}
fn default_database() -> PathBuf {
    "x12kit-server.db".into()
}
fn default_max_body() -> usize {
    32 * 1024 * 1024
}
fn default_transactions() -> u32 {
    120
}
fn default_x12() -> u32 {
    120
}
fn default_other() -> u32 {
    300
}

/// A partner, resolved: its id, its profile as JSON and how it is reached.
#[derive(Debug)]
pub struct Partner {
    /// The `partnerId`.
    pub id: String,
    /// The core's partner profile (already checked by the core).
    pub profile: serde_json::Value,
    /// Transport (folders resolved against the configuration file's folder).
    pub transport: Option<TransportConfig>,
    /// Acknowledgement window in seconds.
    pub ack_window_seconds: Option<u64>,
    /// `997` or `999` to acknowledge inbound sets with.
    pub acknowledge_inbound: Option<String>,
}

/// An account, resolved.
#[derive(Debug)]
pub struct Account {
    /// Account id.
    pub id: String,
    /// Partners by id.
    pub partners: BTreeMap<String, Arc<Partner>>,
    /// Webhook endpoints.
    pub webhooks: Vec<WebhookConfig>,
}

/// One API key hash and the account it opens.
#[derive(Debug)]
pub struct Key {
    /// SHA-256 of the key.
    pub hash: [u8; 32],
    /// Name of the key (for logs).
    pub name: String,
    /// Index of the account in [`Config::accounts`].
    pub account: usize,
}

/// The configuration, resolved and checked.
#[derive(Debug)]
pub struct Config {
    /// Listen address.
    pub listen: String,
    /// Database file.
    pub database: PathBuf,
    /// Body limit.
    pub max_body_bytes: usize,
    /// Rate limits.
    pub limits: Limits,
    /// Workers.
    pub workers: Workers,
    /// The serving layer's settings, resolved.
    pub server: crate::serve::settings::Resolved,
    /// Accounts.
    pub accounts: Vec<Arc<Account>>,
    /// Every key.
    pub keys: Vec<Key>,
}

/// Reads and checks the configuration file.
pub fn load(path: &Path) -> Result<Config, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file: FileConfig = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    resolve(file, base).map_err(|e| format!("{}: {e}", path.display()))
}

fn resolve(file: FileConfig, base: &Path) -> Result<Config, String> {
    let mut accounts = Vec::new();
    let mut keys: Vec<Key> = Vec::new();
    for l in [
        file.limits.transactions_per_minute,
        file.limits.parse_validate_per_minute,
        file.limits.other_per_minute,
    ] {
        if l == 0 {
            return Err("limits: every limit must be at least 1 per minute".into());
        }
    }
    if file.workers.poll_ms == 0
        || file.workers.concurrency == 0
        || file.workers.concurrency_per_partner == 0
        || file.workers.concurrency_per_endpoint == 0
    {
        return Err(
            "workers: poll_ms, concurrency, concurrency_per_partner and concurrency_per_endpoint must be at least 1"
                .into(),
        );
    }
    if file.max_body_bytes == 0 {
        return Err("max_body_bytes must be at least 1".into());
    }
    let server = file.server.resolve(file.max_body_bytes)?;
    for (index, a) in file.accounts.into_iter().enumerate() {
        if a.id.is_empty() || accounts.iter().any(|x: &Arc<Account>| x.id == a.id) {
            return Err(format!(
                "accounts[{index}]: empty or repeated account id {:?}",
                a.id
            ));
        }
        for k in &a.keys {
            let hash = parse_hash(&k.sha256)
                .map_err(|e| format!("account {}: key {:?}: {e}", a.id, k.name))?;
            if keys.iter().any(|x| x.hash == hash) {
                return Err(format!(
                    "account {}: key {:?} is configured twice",
                    a.id, k.name
                ));
            }
            keys.push(Key {
                hash,
                name: k.name.clone(),
                account: index,
            });
        }
        let mut partners = BTreeMap::new();
        for p in a.partners {
            let profile = match (&p.profile, p.profile_inline) {
                (Some(file), None) => {
                    let at = base.join(file);
                    let text = std::fs::read_to_string(&at).map_err(|e| {
                        format!("partner {}: cannot read {}: {e}", p.id, at.display())
                    })?;
                    serde_json::from_str::<serde_json::Value>(&text)
                        .map_err(|e| format!("partner {}: {}: {e}", p.id, at.display()))?
                }
                (None, Some(inline)) => {
                    serde_json::to_value(inline).map_err(|e| format!("partner {}: {e}", p.id))?
                }
                _ => {
                    return Err(format!(
                        "partner {}: give exactly one of profile (a path) or profile_inline",
                        p.id
                    ));
                }
            };
            crate::x12::check_partner(&profile).map_err(|e| format!("partner {}: {e}", p.id))?;
            if partners.contains_key(&p.id) {
                return Err(format!(
                    "account {}: partner {} is configured twice",
                    a.id, p.id
                ));
            }
            let transport = match p.transport {
                Some(TransportConfig::Http {
                    url,
                    headers,
                    retries,
                    backoff_ms,
                    timeout_ms,
                }) => {
                    if !(url.starts_with("https://") || url.starts_with("http://")) {
                        return Err(format!(
                            "partner {}: transport url {url:?} is not http(s)",
                            p.id
                        ));
                    }
                    for (k, v) in &headers {
                        if reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_err()
                            || reqwest::header::HeaderValue::from_str(v).is_err()
                        {
                            return Err(format!(
                                "partner {}: transport header {k:?} is not a valid HTTP header",
                                p.id
                            ));
                        }
                    }
                    Some(TransportConfig::Http {
                        url,
                        headers,
                        retries,
                        backoff_ms,
                        timeout_ms: timeout_ms.max(1),
                    })
                }
                Some(TransportConfig::Directory { outbox, inbox }) => {
                    Some(TransportConfig::Directory {
                        outbox: base.join(outbox),
                        inbox: inbox.map(|i| base.join(i)),
                    })
                }
                None => None,
            };
            if let Some(kind) = &p.acknowledge_inbound {
                if kind != "997" && kind != "999" {
                    return Err(format!(
                        "partner {}: acknowledge_inbound must be \"997\" or \"999\", found {kind:?}",
                        p.id
                    ));
                }
            }
            partners.insert(
                p.id.clone(),
                Arc::new(Partner {
                    id: p.id,
                    profile,
                    transport,
                    ack_window_seconds: p.ack_window_seconds,
                    acknowledge_inbound: p.acknowledge_inbound,
                }),
            );
        }
        for w in &a.webhooks {
            if !(w.url.starts_with("https://") || w.url.starts_with("http://")) {
                return Err(format!(
                    "account {}: webhook url {:?} is not http(s)",
                    a.id, w.url
                ));
            }
            if w.secrets.is_empty() || w.secrets.iter().any(String::is_empty) {
                return Err(format!(
                    "account {}: webhook {} needs at least one non-empty secret",
                    a.id, w.url
                ));
            }
        }
        accounts.push(Arc::new(Account {
            id: a.id,
            partners,
            webhooks: a.webhooks,
        }));
    }
    let url = file.database.to_string_lossy().starts_with("postgres");
    let database = if file.database.is_absolute() || url {
        file.database
    } else {
        base.join(file.database)
    };
    Ok(Config {
        listen: file.listen,
        database,
        max_body_bytes: file.max_body_bytes,
        limits: file.limits,
        workers: file.workers,
        server,
        accounts,
        keys,
    })
}

fn parse_hash(hex_text: &str) -> Result<[u8; 32], String> {
    let mut out = [0u8; 32];
    if hex_text.len() != 64 {
        return Err(format!(
            "sha256 must be 64 hex digits, found {} characters",
            hex_text.len()
        ));
    }
    hex::decode_to_slice(hex_text, &mut out).map_err(|e| format!("sha256 is not hex: {e}"))?;
    Ok(out)
}
