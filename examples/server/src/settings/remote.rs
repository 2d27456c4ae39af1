//! The settings of the `sftp` and `as2` transports: their JSON form (camelCase), the
//! rules they are checked against when saved (every problem at its pointer: a missing
//! key or certificate, a malformed fingerprint, certificate or key, a URL that is not
//! http(s): 422), their credentials (the SFTP password and private key, our AS2 private
//! key: sealed, shown as `"********"`) and the `*_file` forms of the TOML bootstrap.

use crate::body::{Fields, Problems, pointer};
use crate::config::as2::{self, As2Config};
use crate::config::sftp::{self, SftpConfig};
use serde_json::{Value, json};
use std::path::Path;

/// What a stored secret is shown as (and, sent back, means "keep it").
pub const REDACTED: &str = "********";

/// The members of an `sftp` transport's JSON.
const SFTP_FIELDS: &[&str] = &[
    "kind",
    "host",
    "port",
    "user",
    "password",
    "privateKey",
    "hostKeySha256",
    "outboundDir",
    "inboundDir",
    "afterDownload",
    "processedDir",
    "pollSeconds",
    "retries",
    "backoffMs",
    "timeoutMs",
    "maxConnections",
];

/// The members of an `as2` transport's JSON.
const AS2_FIELDS: &[&str] = &[
    "kind",
    "url",
    "as2From",
    "as2To",
    "partnerCertificate",
    "ourCertificate",
    "ourPrivateKey",
    "encryption",
    "signing",
    "compress",
    "mdn",
    "mdnSigned",
    "mdnUrl",
    "retries",
    "backoffMs",
    "timeoutMs",
];

/// The credential members (pointers within the transport).
pub fn secret_pointers(kind: &str) -> &'static [&'static str] {
    match kind {
        "sftp" => &["/password", "/privateKey"],
        "as2" => &["/ourPrivateKey"],
        _ => &[],
    }
}

/// An `sftp` transport as JSON (credentials included: see `transport::split`).
pub fn sftp_json(c: &SftpConfig) -> Value {
    json!({
        "kind": "sftp", "host": c.host, "port": c.port, "user": c.user,
        "password": c.password, "privateKey": c.private_key,
        "hostKeySha256": c.host_key_sha256, "outboundDir": c.outbound_dir,
        "inboundDir": c.inbound_dir, "afterDownload": c.after_download,
        "processedDir": c.processed_dir, "pollSeconds": c.poll_seconds,
        "retries": c.retries, "backoffMs": c.backoff_ms, "timeoutMs": c.timeout_ms,
        "maxConnections": c.max_connections,
    })
}

/// An `as2` transport as JSON (our private key included: see `transport::split`).
pub fn as2_json(c: &As2Config) -> Value {
    json!({
        "kind": "as2", "url": c.url, "as2From": c.as2_from, "as2To": c.as2_to,
        "partnerCertificate": c.partner_certificate, "ourCertificate": c.our_certificate,
        "ourPrivateKey": c.our_private_key, "encryption": c.encryption, "signing": c.signing,
        "compress": c.compress, "mdn": c.mdn, "mdnSigned": c.mdn_signed, "mdnUrl": c.mdn_url,
        "retries": c.retries, "backoffMs": c.backoff_ms, "timeoutMs": c.timeout_ms,
    })
}

/// A credential member: `"********"` keeps `stored` (a problem when there is none).
fn secret(f: &Fields<'_>, name: &str, stored: Option<&String>, p: &mut Problems) -> Option<String> {
    let v = f.string(name, false, p)?;
    if v != REDACTED {
        return Some(v);
    }
    match stored {
        Some(s) => Some(s.clone()),
        None => {
            p.value(
                "INVALID_FIELD",
                f.at(name),
                format!("{REDACTED:?} keeps a stored value, and {name} has none"),
            );
            None
        }
    }
}

fn uint(f: &Fields<'_>, name: &str, max: u64, default: u64, p: &mut Problems) -> u64 {
    f.uint(name, max, p).unwrap_or(default)
}

/// Reads an `sftp` transport's JSON at `at`.
pub fn parse_sftp(
    v: &Value,
    at: &str,
    current: Option<&SftpConfig>,
    p: &mut Problems,
) -> Option<SftpConfig> {
    let f = Fields::new(v, at, SFTP_FIELDS, p)?;
    let host = f.string("host", true, p);
    let user = f.string("user", true, p);
    let fingerprint = f.string("hostKeySha256", true, p);
    let outbound_dir = f.string("outboundDir", true, p);
    let cfg = SftpConfig {
        port: f
            .uint("port", 65_535, p)
            .map_or(sftp::default_port(), |n| n as u16),
        password: secret(&f, "password", current.and_then(|c| c.password.as_ref()), p),
        private_key: secret(
            &f,
            "privateKey",
            current.and_then(|c| c.private_key.as_ref()),
            p,
        ),
        private_key_file: None,
        inbound_dir: f.string("inboundDir", false, p),
        after_download: f
            .string("afterDownload", false, p)
            .unwrap_or_else(sftp::default_after),
        processed_dir: f.string("processedDir", false, p),
        poll_seconds: uint(&f, "pollSeconds", 86_400, sftp::default_poll(), p),
        retries: uint(&f, "retries", 20, u64::from(sftp::default_retries()), p) as u32,
        backoff_ms: uint(&f, "backoffMs", 3_600_000, sftp::default_backoff(), p),
        timeout_ms: uint(&f, "timeoutMs", 3_600_000, sftp::default_timeout(), p),
        max_connections: uint(
            &f,
            "maxConnections",
            16,
            u64::from(sftp::default_connections()),
            p,
        ) as u32,
        host: host?,
        user: user?,
        host_key_sha256: fingerprint?,
        outbound_dir: outbound_dir?,
    };
    sftp_rules(&cfg, at, p);
    Some(cfg)
}

/// Reads an `as2` transport's JSON at `at`.
pub fn parse_as2(
    v: &Value,
    at: &str,
    current: Option<&As2Config>,
    p: &mut Problems,
) -> Option<As2Config> {
    let f = Fields::new(v, at, AS2_FIELDS, p)?;
    let url = f.string("url", true, p);
    let from = f.string("as2From", true, p);
    let to = f.string("as2To", true, p);
    let cfg = As2Config {
        partner_certificate: f.string("partnerCertificate", false, p),
        partner_certificate_file: None,
        our_certificate: f.string("ourCertificate", false, p),
        our_certificate_file: None,
        our_private_key: secret(
            &f,
            "ourPrivateKey",
            current.and_then(|c| c.our_private_key.as_ref()),
            p,
        ),
        our_private_key_file: None,
        encryption: f
            .string("encryption", false, p)
            .unwrap_or_else(as2::default_encryption),
        signing: f
            .string("signing", false, p)
            .unwrap_or_else(as2::default_signing),
        compress: f.boolean("compress", p).unwrap_or(false),
        mdn: f.string("mdn", false, p).unwrap_or_else(as2::default_mdn),
        mdn_signed: f.boolean("mdnSigned", p).unwrap_or(true),
        mdn_url: f.string("mdnUrl", false, p),
        retries: uint(&f, "retries", 20, u64::from(as2::default_retries()), p) as u32,
        backoff_ms: uint(&f, "backoffMs", 3_600_000, as2::default_backoff(), p),
        timeout_ms: uint(&f, "timeoutMs", 3_600_000, as2::default_timeout(), p),
        url: url?,
        as2_from: from?,
        as2_to: to?,
    };
    as2_rules(&cfg, at, p);
    Some(cfg)
}

/// Why `text` is not a `SHA256:…` fingerprint as `ssh-keygen -lf` prints it.
pub fn fingerprint_problem(text: &str) -> Option<String> {
    use base64::Engine;
    let Some(b64) = text.strip_prefix("SHA256:") else {
        return Some(
            "must be the SHA-256 fingerprint as `ssh-keygen -lf` prints it: SHA256:<43 base64 characters>"
                .into(),
        );
    };
    match base64::engine::general_purpose::STANDARD_NO_PAD.decode(b64.trim_end_matches('=')) {
        Ok(bytes) if bytes.len() == 32 => None,
        _ => Some(format!(
            "{text:?} is not a SHA-256 fingerprint (SHA256: and 43 base64 characters)"
        )),
    }
}

fn folder_problem(dir: &str) -> Option<&'static str> {
    if dir.trim().is_empty() {
        Some("a folder cannot be empty")
    } else if dir.contains(['\0', '\n', '\r']) {
        Some("a folder cannot hold NUL or line breaks")
    } else {
        None
    }
}

/// The rules of an `sftp` transport.
pub fn sftp_rules(c: &SftpConfig, at: &str, p: &mut Problems) {
    let host_ok = !c.host.is_empty()
        && c.host.len() <= 253
        && !c
            .host
            .chars()
            .any(|ch| ch.is_whitespace() || ch.is_control() || "/@?#".contains(ch));
    if !host_ok {
        p.value(
            "INVALID_HOST",
            pointer(at, "host"),
            "host must be a host name or address (no spaces, /, @)",
        );
    }
    if c.port == 0 {
        p.value(
            "INVALID_FIELD",
            pointer(at, "port"),
            "port must be 1 to 65535",
        );
    }
    if c.user.is_empty() || c.user.chars().any(char::is_control) {
        p.value(
            "INVALID_FIELD",
            pointer(at, "user"),
            "user must be a user name",
        );
    }
    match (&c.private_key, &c.password) {
        (None, None) => p.value(
            "MISSING_CREDENTIAL",
            pointer(at, "privateKey"),
            "give privateKey (OpenSSH or PEM text; private_key_file in the configuration file) or password",
        ),
        (Some(_), Some(_)) => p.value(
            "INVALID_FIELD",
            pointer(at, "password"),
            "give privateKey or password, not both",
        ),
        (Some(key), None) => {
            if let Err(e) = russh::keys::decode_secret_key(key, None) {
                let why = match e {
                    russh::keys::Error::KeyIsEncrypted => "the private key is encrypted: give it without a passphrase (ssh-keygen -p -N '' -f KEY)".to_string(),
                    e => format!("not a private key (OpenSSH or PEM; ed25519, ECDSA or RSA): {e}"),
                };
                p.value("INVALID_KEY", pointer(at, "privateKey"), why);
            }
        }
        (None, Some(pw)) if pw.is_empty() => {
            p.value("INVALID_FIELD", pointer(at, "password"), "password cannot be empty")
        }
        (None, Some(_)) => {}
    }
    if let Some(why) = fingerprint_problem(&c.host_key_sha256) {
        p.value("INVALID_FINGERPRINT", pointer(at, "hostKeySha256"), why);
    }
    for (name, dir) in [
        ("outboundDir", Some(&c.outbound_dir)),
        ("inboundDir", c.inbound_dir.as_ref()),
        ("processedDir", c.processed_dir.as_ref()),
    ] {
        if let Some(why) = dir.and_then(|d| folder_problem(d)) {
            p.value("INVALID_FOLDER", pointer(at, name), why);
        }
    }
    match c.after_download.as_str() {
        "delete" => {}
        "move" if c.processed_dir.is_none() => p.value(
            "MISSING_FIELD",
            pointer(at, "processedDir"),
            "afterDownload \"move\" needs processedDir (where taken files go)",
        ),
        "move" => {}
        _ => p.value(
            "INVALID_FIELD",
            pointer(at, "afterDownload"),
            "afterDownload is \"delete\" or \"move\"",
        ),
    }
    if c.poll_seconds == 0 {
        p.value(
            "INVALID_FIELD",
            pointer(at, "pollSeconds"),
            "pollSeconds must be 1 to 86400",
        );
    }
    if c.timeout_ms == 0 {
        p.value(
            "INVALID_FIELD",
            pointer(at, "timeoutMs"),
            "timeoutMs must be at least 1",
        );
    }
    if c.max_connections == 0 {
        p.value(
            "INVALID_FIELD",
            pointer(at, "maxConnections"),
            "maxConnections must be 1 to 16",
        );
    }
}

/// The rules of an `as2` transport.
pub fn as2_rules(c: &As2Config, at: &str, p: &mut Problems) {
    if let Some(problem) = super::rules::url_problem(&c.url) {
        p.value("INVALID_URL", pointer(at, "url"), format!("url {problem}"));
    }
    for (name, v) in [("as2From", &c.as2_from), ("as2To", &c.as2_to)] {
        if !crate::as2::valid_name(v) {
            p.value(
                "INVALID_AS2_NAME",
                pointer(at, name),
                format!("{name} must be 1 to 128 printable ASCII characters"),
            );
        }
    }
    let mut ours = None;
    for (name, v) in [
        ("partnerCertificate", &c.partner_certificate),
        ("ourCertificate", &c.our_certificate),
    ] {
        match v {
            None => p.value(
                "MISSING_CERTIFICATE",
                pointer(at, name),
                format!(
                    "{name} is required (PEM; {}_file in the configuration file)",
                    snake(name)
                ),
            ),
            Some(pem) => match crate::as2::smime::certificate(pem) {
                Ok(cert) if name == "ourCertificate" => ours = Some(cert),
                Ok(_) => {}
                Err(e) => p.value("INVALID_CERTIFICATE", pointer(at, name), e),
            },
        }
    }
    match &c.our_private_key {
        None => p.value(
            "MISSING_KEY",
            pointer(at, "ourPrivateKey"),
            "ourPrivateKey is required (PEM, RSA; our_private_key_file in the configuration file)",
        ),
        Some(pem) => match crate::as2::smime::private_key(pem) {
            Err(e) => p.value("INVALID_KEY", pointer(at, "ourPrivateKey"), e),
            Ok(key) => {
                if ours.is_some_and(|cert| !crate::as2::smime::matches(&cert, &key)) {
                    p.value(
                        "KEY_MISMATCH",
                        pointer(at, "ourPrivateKey"),
                        "ourPrivateKey is not the key of ourCertificate",
                    );
                }
            }
        },
    }
    if c.encryption != "none" && c.encryption().is_none() {
        p.value(
            "INVALID_FIELD",
            pointer(at, "encryption"),
            "encryption is aes128-cbc, aes256-cbc, aes128-gcm, aes256-gcm or none",
        );
    }
    if c.signing != "none" && !matches!(c.signing.as_str(), "sha256" | "sha384" | "sha512") {
        p.value(
            "INVALID_FIELD",
            pointer(at, "signing"),
            "signing is sha256, sha384, sha512 or none",
        );
    }
    match c.mdn.as_str() {
        "sync" | "none" => {}
        "async" => match &c.mdn_url {
            None => p.value(
                "MISSING_FIELD",
                pointer(at, "mdnUrl"),
                "mdn \"async\" needs mdnUrl: this server's /as2/{account} URL as the partner reaches it",
            ),
            Some(u) => {
                if let Some(problem) = super::rules::url_problem(u) {
                    p.value("INVALID_URL", pointer(at, "mdnUrl"), format!("mdnUrl {problem}"));
                }
            }
        },
        _ => p.value(
            "INVALID_FIELD",
            pointer(at, "mdn"),
            "mdn is sync, async or none",
        ),
    }
    if c.timeout_ms == 0 {
        p.value(
            "INVALID_FIELD",
            pointer(at, "timeoutMs"),
            "timeoutMs must be at least 1",
        );
    }
}

/// Reads a `*_file` of the configuration file into its text member.
fn read_file(
    text: &mut Option<String>,
    file: &mut Option<std::path::PathBuf>,
    name: &str,
    base: &Path,
) -> Result<(), String> {
    let Some(f) = file.take() else {
        return Ok(());
    };
    if text.is_some() {
        return Err(format!("give {name} or {name}_file, not both"));
    }
    let at = base.join(&f);
    *text = Some(
        std::fs::read_to_string(&at)
            .map_err(|e| format!("{name}_file: cannot read {}: {e}", at.display()))?,
    );
    Ok(())
}

/// The `*_file` members of an `sftp` transport read (relative to the configuration file).
pub fn sftp_files(mut c: SftpConfig, base: &Path) -> Result<SftpConfig, String> {
    read_file(
        &mut c.private_key,
        &mut c.private_key_file,
        "private_key",
        base,
    )?;
    Ok(c)
}

/// The `*_file` members of an `as2` transport read (relative to the configuration file).
pub fn as2_files(mut c: As2Config, base: &Path) -> Result<As2Config, String> {
    read_file(
        &mut c.partner_certificate,
        &mut c.partner_certificate_file,
        "partner_certificate",
        base,
    )?;
    read_file(
        &mut c.our_certificate,
        &mut c.our_certificate_file,
        "our_certificate",
        base,
    )?;
    read_file(
        &mut c.our_private_key,
        &mut c.our_private_key_file,
        "our_private_key",
        base,
    )?;
    Ok(c)
}

/// `camelCase` as `snake_case` (the configuration file's names).
pub fn snake(name: &str) -> String {
    let mut out = String::new();
    for ch in name.chars() {
        if ch.is_ascii_uppercase() {
            out.push('_');
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}
