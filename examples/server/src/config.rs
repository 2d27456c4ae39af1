//! The configuration file (TOML): the server-wide settings (listen address,
//! database, body limit, rate limits, workers, sign-in, the secret key) and the
//! bootstrap of the store: the accounts with their API key hashes, people,
//! trading partners and webhook endpoints are imported into an empty store at
//! the first start (see [`crate::settings::import`]); after that the store is
//! the truth and these sections are ignored. Partner profiles are the core's
//! JSON profiles, given inline or as a path relative to the configuration file.
//!
//! This module holds the plain types, which the settings, the transports and the
//! serving layer name; [`load`] reads and checks the file with those modules' rules.

pub mod as2;
pub mod load;
pub mod path;
pub mod sftp;

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

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
    /// The cap on one transaction set of `/parse` and `/documents/inbound` (and the inbox,
    /// SFTP and AS2 intake), in bytes: a larger set is a `SET_TOO_LARGE` diagnostic and
    /// is not mapped; also the largest `?maxSetBytes=` a request may ask for (default
    /// 64 MiB, the core's default).
    #[serde(default = "default_max_set")]
    pub max_set_bytes: u64,
    /// Rate limits per API key and route group.
    #[serde(default)]
    pub limits: Limits,
    /// Background workers (lifecycle, routing, webhooks).
    #[serde(default)]
    pub workers: Workers,
    /// Connection limits, timeouts and the capacity of each route group.
    #[serde(default)]
    pub server: crate::serve::Settings,
    /// Sign-in: session lifetimes and the lockout.
    #[serde(default)]
    pub auth: Auth,
    /// The file holding the secret key that seals webhook secrets and transport credentials
    /// (relative to the configuration file); `X12KIT_SECRET_KEY_FILE` overrides it.
    pub secret_key_file: Option<PathBuf>,
    /// Make the secret key file when it does not exist (the demo configurations).
    #[serde(default)]
    pub create_secret_key_file: bool,
    /// The folder under which the `directory` transports of partners made through the
    /// settings API live (`<files_dir>/<account>/...`; relative to the configuration file).
    #[serde(default = "default_files_dir")]
    pub files_dir: PathBuf,
    /// The folder of the built WASM package (`x12kit_wasm.js` and its `.wasm`) whose
    /// inspector the dashboard's document page uses (relative to the configuration file);
    /// default: `bindings/wasm/pkg/web` of the source tree the server was built from.
    pub wasm_package: Option<PathBuf>,
    /// What the server's first lines say about signing in to the dashboard (the demo
    /// configurations name their public demo user); without it, the first lines say how
    /// many people can sign in, or how to make the first one.
    pub sign_in_hint: Option<String>,
    /// `GET /metrics` (Prometheus): where and behind what token.
    #[serde(default)]
    pub metrics: MetricsFile,
    /// HTTPS on the listener (`cert_file`, `key_file`; see src/serve/tls.rs).
    pub tls: Option<crate::serve::tls::TlsFile>,
    /// The accounts: imported into an empty store at the first start, then ignored.
    #[serde(default)]
    pub accounts: Vec<AccountConfig>,
}

/// `[metrics]`: where `GET /metrics` is served, and the token it asks for.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsFile {
    /// Serve `/metrics` on this address only (such as `127.0.0.1:9464`), instead of on the
    /// API's listener.
    pub listen: Option<String>,
    /// A file holding the bearer token a scrape must send (`Authorization: Bearer …`;
    /// relative to the configuration file). Without it `/metrics` asks for none.
    pub token_file: Option<PathBuf>,
}

/// `[metrics]`, resolved: the token read.
#[derive(Clone, Default)]
pub struct Metrics {
    /// See [`MetricsFile::listen`].
    pub listen: Option<String>,
    /// The token of [`MetricsFile::token_file`].
    pub token: Option<String>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics")
            .field("listen", &self.listen)
            .field("token", &self.token.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

/// Sign-in settings (`[auth]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Auth {
    /// A session unused this long ends (seconds; default 30 minutes).
    #[serde(default = "default_idle")]
    pub session_idle_seconds: u64,
    /// A session ends this long after its sign-in, used or not (seconds; default 12 hours).
    #[serde(default = "default_absolute")]
    pub session_absolute_seconds: u64,
    /// Failed sign-ins in a row that lock an address (default 5).
    #[serde(default = "default_lockout_failures")]
    pub lockout_failures: u32,
    /// How long a lock lasts (seconds; default 15 minutes).
    #[serde(default = "default_lockout_seconds")]
    pub lockout_seconds: u64,
}

impl Default for Auth {
    fn default() -> Self {
        Auth {
            session_idle_seconds: default_idle(),
            session_absolute_seconds: default_absolute(),
            lockout_failures: default_lockout_failures(),
            lockout_seconds: default_lockout_seconds(),
        }
    }
}

fn default_idle() -> u64 {
    30 * 60
}
fn default_absolute() -> u64 {
    12 * 3600
}
fn default_lockout_failures() -> u32 {
    5
}
fn default_lockout_seconds() -> u64 {
    15 * 60
}
fn default_files_dir() -> PathBuf {
    "x12kit-files".into()
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
    /// The `/api/auth` and `/api/settings` routes of a signed-in person, per user.
    #[serde(default = "default_other")]
    pub session_per_minute: u32,
    /// `/api/auth` requests per client address (guards sign-in against spraying many
    /// addresses; the lockout guards each address).
    #[serde(default = "default_login_per_ip")]
    pub auth_per_ip_per_minute: u32,
    /// `POST /api/upload` (CSV intake) per signed-in person (spec §8: 30).
    #[serde(default = "default_upload_per_user")]
    pub upload_per_user_per_minute: u32,
    /// `POST /api/upload` per client network: an IPv4 /24, an IPv6 /64 (spec §8: 90).
    #[serde(default = "default_upload_per_network")]
    pub upload_per_network_per_minute: u32,
}

fn default_upload_per_user() -> u32 {
    30
}
fn default_upload_per_network() -> u32 {
    90
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            transactions_per_minute: default_transactions(),
            parse_validate_per_minute: default_x12(),
            other_per_minute: default_other(),
            session_per_minute: default_other(),
            auth_per_ip_per_minute: default_login_per_ip(),
            upload_per_user_per_minute: default_upload_per_user(),
            upload_per_network_per_minute: default_upload_per_network(),
        }
    }
}

fn default_login_per_ip() -> u32 {
    30
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
    /// People who sign in to the account (most operators add them with `x12kit-server user add`).
    #[serde(default)]
    pub users: Vec<UserConfig>,
}

/// One person, with the argon2id hash of the password (`x12kit-server hash-password`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    /// Sign-in address.
    pub email: String,
    /// `admin` (changes settings) or `member` (reads them).
    #[serde(default = "default_role")]
    pub role: String,
    /// The argon2id PHC string of the password.
    pub password_argon2: String,
}

fn default_role() -> String {
    "admin".into()
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
    /// False: no new documents for the partner, its inbox is not read (default true).
    #[serde(default = "yes")]
    pub enabled: bool,
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
    /// Upload to (and poll) the partner's SFTP server (`src/transport/sftp.rs`).
    Sftp(Box<sftp::SftpConfig>),
    /// Send AS2 (RFC 4130) messages to the partner's URL; receive theirs at `/as2/{account}`.
    As2(Box<as2::As2Config>),
}

impl TransportConfig {
    /// The kind's name (`http`, `directory`, `sftp`, `as2`), as in the configuration.
    pub fn kind(&self) -> &'static str {
        match self {
            TransportConfig::Http { .. } => "http",
            TransportConfig::Directory { .. } => "directory",
            TransportConfig::Sftp(_) => "sftp",
            TransportConfig::As2(_) => "as2",
        }
    }
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
    /// Signing secrets, newest first; each signs every delivery (a rotation).
    pub secrets: Vec<String>,
    /// The event kinds it receives (default: all).
    #[serde(default)]
    pub events: Vec<String>,
    /// False: it receives nothing (default true).
    #[serde(default = "yes")]
    pub enabled: bool,
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
fn default_max_set() -> u64 {
    x12kit::MAX_SET_BYTES
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

/// A partner of the file, resolved: its id, its profile as JSON and how it is reached.
#[derive(Debug, Clone)]
pub struct PartnerImport {
    /// The `partnerId`.
    pub id: String,
    /// The core's partner profile (already checked by the core).
    pub profile: serde_json::Value,
    /// Transport (folders resolved against the configuration file's folder, absolute).
    pub transport: Option<TransportConfig>,
    /// Acknowledgement window in seconds.
    pub ack_window_seconds: Option<u64>,
    /// `997` or `999` to acknowledge inbound sets with.
    pub acknowledge_inbound: Option<String>,
    /// Enabled.
    pub enabled: bool,
}

/// An account of the file, resolved, to import into an empty store.
#[derive(Debug, Clone)]
pub struct AccountImport {
    /// Account id.
    pub id: String,
    /// API keys: name and SHA-256 (hex).
    pub keys: Vec<(String, String)>,
    /// People.
    pub users: Vec<UserConfig>,
    /// Partners, in the file's order.
    pub partners: Vec<PartnerImport>,
    /// Webhook endpoints.
    pub webhooks: Vec<WebhookConfig>,
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
    /// The cap on one set, and the largest a request may ask for.
    pub max_set_bytes: u64,
    /// Rate limits.
    pub limits: Limits,
    /// Workers.
    pub workers: Workers,
    /// Sign-in.
    pub auth: Auth,
    /// The secret key file (absolute or relative to the working directory), if any.
    pub secret_key_file: Option<PathBuf>,
    /// Make the key file when missing.
    pub create_secret_key_file: bool,
    /// Root of the API-made `directory` transports.
    pub files_dir: PathBuf,
    /// The built WASM package's folder (the dashboard's inspector).
    pub wasm_package: PathBuf,
    /// The sign-in line of the first lines, if the file gives one.
    pub sign_in_hint: Option<String>,
    /// The accounts to import into an empty store.
    pub bootstrap: Vec<AccountImport>,
    /// The serving layer's settings, resolved.
    pub server: crate::serve::settings::Resolved,
    /// `/metrics`.
    pub metrics: Metrics,
    /// HTTPS, when `[tls]` is set (its files checked by loading them).
    pub tls: Option<crate::serve::tls::Tls>,
}
