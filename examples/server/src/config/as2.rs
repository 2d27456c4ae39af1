//! The settings of an `as2` transport: plain configuration, which the transport
//! (`crate::transport::as2`, where its keys are parsed), the AS2 receiver and the
//! settings (`crate::settings::remote`) act on.

use serde::Deserialize;
use std::path::PathBuf;

/// The settings of an `as2` transport (TOML: snake_case, with `*_file` variants of the
/// PEM texts; JSON: camelCase, see [`crate::settings::transport`]).
#[derive(Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct As2Config {
    /// The partner's AS2 URL (`https://…`).
    pub url: String,
    /// Our AS2 name (sent as `AS2-From`; their messages come `AS2-To` it).
    pub as2_from: String,
    /// The partner's AS2 name.
    pub as2_to: String,
    /// The partner's certificate (PEM): encrypts to them, verifies their signatures.
    #[serde(default)]
    pub partner_certificate: Option<String>,
    /// TOML only: a file holding it.
    #[serde(default)]
    pub partner_certificate_file: Option<PathBuf>,
    /// Our certificate (PEM).
    #[serde(default)]
    pub our_certificate: Option<String>,
    /// TOML only: a file holding it.
    #[serde(default)]
    pub our_certificate_file: Option<PathBuf>,
    /// Our private key (PEM, RSA, not encrypted): signs, decrypts. Sealed in the store.
    #[serde(default)]
    pub our_private_key: Option<String>,
    /// TOML only: a file holding it.
    #[serde(default)]
    pub our_private_key_file: Option<PathBuf>,
    /// `aes128-cbc`, `aes256-cbc` (default), `aes128-gcm`, `aes256-gcm` or `none`.
    #[serde(default = "default_encryption")]
    pub encryption: String,
    /// `sha256` (default), `sha384`, `sha512` or `none`. Also what the partner's messages
    /// must be: anything but `none` refuses unsigned ones.
    #[serde(default = "default_signing")]
    pub signing: String,
    /// Compress before signing (RFC 5402).
    #[serde(default)]
    pub compress: bool,
    /// `sync` (default), `async` or `none`.
    #[serde(default = "default_mdn")]
    pub mdn: String,
    /// Ask for a signed MDN, and refuse an unsigned one (default true).
    #[serde(default = "yes")]
    pub mdn_signed: bool,
    /// Where the partner sends asynchronous MDNs: this server's `/as2/{account}` URL as the
    /// partner reaches it (required with `mdn = "async"`).
    #[serde(default)]
    pub mdn_url: Option<String>,
    /// Retries after a failed attempt (5xx, 408, 429, timeouts, connection errors; 3).
    #[serde(default = "default_retries")]
    pub retries: u32,
    /// Wait before the first retry, doubled each time (ms; 1000).
    #[serde(default = "default_backoff")]
    pub backoff_ms: u64,
    /// Time limit of one POST, the synchronous MDN included (ms; 60000).
    #[serde(default = "default_timeout")]
    pub timeout_ms: u64,
}

impl std::fmt::Debug for As2Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("As2Config")
            .field("url", &self.url)
            .field("as2_from", &self.as2_from)
            .field("as2_to", &self.as2_to)
            .field("encryption", &self.encryption)
            .field("signing", &self.signing)
            .field("mdn", &self.mdn)
            .finish_non_exhaustive()
    }
}

/// Default encryption.
pub fn default_encryption() -> String {
    "aes256-cbc".into()
}
/// Default signing.
pub fn default_signing() -> String {
    "sha256".into()
}
/// Default MDN mode.
pub fn default_mdn() -> String {
    "sync".into()
}
fn yes() -> bool {
    true
}
/// Default retries.
pub fn default_retries() -> u32 {
    3
}
/// Default first backoff (ms).
pub fn default_backoff() -> u64 {
    1000
}
/// Default timeout (ms).
pub fn default_timeout() -> u64 {
    60_000
}
