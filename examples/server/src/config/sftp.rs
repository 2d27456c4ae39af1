//! The settings of an `sftp` transport: plain configuration, which the transport
//! (`crate::transport::sftp`) and the settings (`crate::settings::remote`) act on.

use serde::Deserialize;
use std::path::PathBuf;

/// The settings of an `sftp` transport (TOML: snake_case; JSON: camelCase, see
/// [`crate::settings::transport`]).
#[derive(Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SftpConfig {
    /// Host name or address of the partner's server.
    pub host: String,
    /// Port (22).
    #[serde(default = "default_port")]
    pub port: u16,
    /// User name.
    pub user: String,
    /// Password (instead of a key).
    #[serde(default)]
    pub password: Option<String>,
    /// Private key, OpenSSH or PEM text (ed25519, ECDSA, RSA), without a passphrase.
    #[serde(default)]
    pub private_key: Option<String>,
    /// TOML only: a file holding the private key (read at start, relative to the file).
    #[serde(default)]
    pub private_key_file: Option<PathBuf>,
    /// The server's host key fingerprint, `SHA256:<base64>` as `ssh-keygen -lf` prints it.
    pub host_key_sha256: String,
    /// Folder on the server the interchanges are written to.
    pub outbound_dir: String,
    /// Folder on the server polled for the partner's files (optional).
    #[serde(default)]
    pub inbound_dir: Option<String>,
    /// What becomes of a file taken: `delete` (default) or `move` (to `processed_dir`).
    #[serde(default = "default_after")]
    pub after_download: String,
    /// Where taken files are moved with `after_download = "move"`.
    #[serde(default)]
    pub processed_dir: Option<String>,
    /// Seconds between polls of `inbound_dir` (60).
    #[serde(default = "default_poll")]
    pub poll_seconds: u64,
    /// Retries after a failed attempt (3).
    #[serde(default = "default_retries")]
    pub retries: u32,
    /// Wait before the first retry, doubled before each next one (ms; 1000).
    #[serde(default = "default_backoff")]
    pub backoff_ms: u64,
    /// Time limit of one attempt: connect, authenticate, upload, rename (ms; 30000).
    #[serde(default = "default_timeout")]
    pub timeout_ms: u64,
    /// Connections to this server and user at once, at most (2).
    #[serde(default = "default_connections")]
    pub max_connections: u32,
}

impl std::fmt::Debug for SftpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SftpConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("host_key_sha256", &self.host_key_sha256)
            .field("outbound_dir", &self.outbound_dir)
            .field("inbound_dir", &self.inbound_dir)
            .finish_non_exhaustive()
    }
}

/// Default port.
pub fn default_port() -> u16 {
    22
}
/// Default disposal of taken files.
pub fn default_after() -> String {
    "delete".into()
}
/// Default poll interval (s).
pub fn default_poll() -> u64 {
    60
}
/// Default retries.
pub fn default_retries() -> u32 {
    3
}
/// Default first backoff (ms).
pub fn default_backoff() -> u64 {
    1000
}
/// Default attempt timeout (ms).
pub fn default_timeout() -> u64 {
    30_000
}
/// Default connection cap.
pub fn default_connections() -> u32 {
    2
}
