//! Reading and checking the configuration file: [`load`] resolves a [`FileConfig`] into
//! the [`Config`] the process runs with, checking what it names with the modules that
//! own each part (the settings' rules, the transports' files, the dashboard's package).
//! Apart from the plain types of `config.rs`, which those modules name.

use super::path::absolute;
use super::{AccountImport, Config, FileConfig, Metrics, PartnerImport, TransportConfig};
use std::path::Path;

/// Reads and checks the configuration file.
pub fn load(path: &Path) -> Result<Config, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file: FileConfig = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    resolve(file, base).map_err(|e| format!("{}: {e}", path.display()))
}

fn resolve(file: FileConfig, base: &Path) -> Result<Config, String> {
    let mut accounts: Vec<AccountImport> = Vec::new();
    let mut hashes: Vec<[u8; 32]> = Vec::new();
    let mut emails: Vec<String> = Vec::new();
    for l in [
        file.limits.transactions_per_minute,
        file.limits.parse_validate_per_minute,
        file.limits.other_per_minute,
        file.limits.session_per_minute,
        file.limits.auth_per_ip_per_minute,
        file.limits.upload_per_user_per_minute,
        file.limits.upload_per_network_per_minute,
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
    if file.max_set_bytes == 0 {
        return Err("max_set_bytes must be at least 1".into());
    }
    if file.max_body_bytes == 0 {
        return Err("max_body_bytes must be at least 1".into());
    }
    let server = file.server.resolve(file.max_body_bytes)?;
    let tls = file.tls.as_ref().map(|t| t.resolve(base)).transpose()?;
    let metrics = Metrics {
        listen: file.metrics.listen.clone(),
        token: match &file.metrics.token_file {
            Some(p) => Some(metrics_token(&base.join(p))?),
            None => None,
        },
    };
    let a = &file.auth;
    if a.session_idle_seconds == 0
        || a.session_absolute_seconds == 0
        || a.lockout_failures == 0
        || a.lockout_seconds == 0
    {
        return Err("auth: every setting must be at least 1".into());
    }
    for (index, a) in file.accounts.into_iter().enumerate() {
        if !crate::settings::rules::valid_id(&a.id) || accounts.iter().any(|x| x.id == a.id) {
            return Err(format!(
                "accounts[{index}]: account id {:?} is repeated or not 1 to 64 of A-Z a-z 0-9 . _ -",
                a.id
            ));
        }
        let mut keys = Vec::new();
        for k in &a.keys {
            let hash = parse_hash(&k.sha256)
                .map_err(|e| format!("account {}: key {:?}: {e}", a.id, k.name))?;
            if hashes.contains(&hash) {
                return Err(format!(
                    "account {}: key {:?} is configured twice",
                    a.id, k.name
                ));
            }
            hashes.push(hash);
            keys.push((k.name.clone(), hex::encode(hash)));
        }
        for u in &a.users {
            let email = u.email.trim().to_lowercase();
            if let Some(problem) = crate::settings::rules::email_problem(&email) {
                return Err(format!("account {}: user {:?}: {problem}", a.id, u.email));
            }
            if emails.contains(&email) {
                return Err(format!(
                    "account {}: user {email} is configured twice",
                    a.id
                ));
            }
            if u.role != "admin" && u.role != "member" {
                return Err(format!(
                    "account {}: user {email}: role must be \"admin\" or \"member\"",
                    a.id
                ));
            }
            if argon2::password_hash::PasswordHash::new(&u.password_argon2).is_err()
                || !u.password_argon2.starts_with("$argon2id$")
            {
                return Err(format!(
                    "account {}: user {email}: password_argon2 is not an argon2id hash (make one with x12kit-server hash-password)",
                    a.id
                ));
            }
            emails.push(email);
        }
        let mut partners: Vec<PartnerImport> = Vec::new();
        for p in a.partners {
            if !crate::settings::rules::valid_id(&p.id) {
                return Err(format!(
                    "account {}: partner id {:?} is not 1 to 64 of A-Z a-z 0-9 . _ -",
                    a.id, p.id
                ));
            }
            let profile = match (&p.profile, p.profile_inline) {
                (Some(file), None) => {
                    let at = base.join(file);
                    let text = std::fs::read_to_string(&at).map_err(|e| {
                        format!("partner {}: cannot read {}: {e}", p.id, at.display())
                    })?;
                    let mut profile = serde_json::from_str::<serde_json::Value>(&text)
                        .map_err(|e| format!("partner {}: {}: {e}", p.id, at.display()))?;
                    // Guides given as paths: relative to the profile's file.
                    crate::guides::read_paths(&mut profile, at.parent().unwrap_or(base))
                        .map_err(|e| format!("partner {}: {}: {e}", p.id, at.display()))?;
                    profile
                }
                (None, Some(inline)) => {
                    let mut profile = serde_json::to_value(inline)
                        .map_err(|e| format!("partner {}: {e}", p.id))?;
                    crate::guides::read_paths(&mut profile, base)
                        .map_err(|e| format!("partner {}: {e}", p.id))?;
                    profile
                }
                _ => {
                    return Err(format!(
                        "partner {}: give exactly one of profile (a path) or profile_inline",
                        p.id
                    ));
                }
            };
            crate::x12::check_partner(&profile).map_err(|e| format!("partner {}: {e}", p.id))?;
            if partners.iter().any(|x| x.id == p.id) {
                return Err(format!(
                    "account {}: partner {} is configured twice",
                    a.id, p.id
                ));
            }
            let transport = match p.transport {
                Some(TransportConfig::Directory { outbox, inbox }) => {
                    Some(TransportConfig::Directory {
                        outbox: absolute(&base.join(outbox)),
                        inbox: inbox.map(|i| absolute(&base.join(i))),
                    })
                }
                Some(other) => Some(
                    crate::settings::transport::read_files(other, base)
                        .map_err(|e| format!("partner {}: transport: {e}", p.id))?,
                ),
                None => None,
            };
            if let Some(t) = &transport {
                let problems = crate::settings::transport::check(t);
                if let Some(d) = problems.first() {
                    return Err(format!("partner {}: transport: {}", p.id, d.message));
                }
            }
            if let Some(kind) = &p.acknowledge_inbound
                && kind != "997"
                && kind != "999"
            {
                return Err(format!(
                    "partner {}: acknowledge_inbound must be \"997\" or \"999\", found {kind:?}",
                    p.id
                ));
            }
            partners.push(PartnerImport {
                id: p.id,
                profile,
                transport,
                ack_window_seconds: p.ack_window_seconds,
                acknowledge_inbound: p.acknowledge_inbound,
                enabled: p.enabled,
            });
        }
        let mut urls: Vec<&str> = Vec::new();
        for w in &a.webhooks {
            if let Some(problem) = crate::settings::rules::url_problem(&w.url) {
                return Err(format!(
                    "account {}: webhook url {:?}: {problem}",
                    a.id, w.url
                ));
            }
            if urls.contains(&w.url.as_str()) {
                return Err(format!(
                    "account {}: webhook {} is configured twice",
                    a.id, w.url
                ));
            }
            urls.push(&w.url);
            if let Some(e) = w.events.iter().find(|e| {
                !x12kit::webhook::EventKind::ALL
                    .iter()
                    .any(|k| k.as_str() == *e)
            }) {
                return Err(format!(
                    "account {}: webhook {}: unknown event kind {e:?}",
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
        accounts.push(AccountImport {
            id: a.id,
            keys,
            users: a.users,
            partners,
            webhooks: a.webhooks,
        });
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
        max_set_bytes: file.max_set_bytes,
        limits: file.limits,
        workers: file.workers,
        server,
        metrics,
        tls,
        auth: file.auth,
        secret_key_file: file.secret_key_file.map(|f| base.join(f)),
        create_secret_key_file: file.create_secret_key_file,
        files_dir: absolute(&base.join(file.files_dir)),
        wasm_package: file
            .wasm_package
            .map_or_else(crate::dashboard::default_wasm_package, |p| {
                absolute(&base.join(p))
            }),
        sign_in_hint: file.sign_in_hint,
        bootstrap: accounts,
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

/// The token of `[metrics] token_file`: its first line, at least 16 characters.
fn metrics_token(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("metrics.token_file: cannot read {}: {e}", path.display()))?;
    let token = text.lines().next().unwrap_or("").trim().to_string();
    if token.len() < 16 || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(format!(
            "metrics.token_file: {} must hold a token of at least 16 printable characters on its first line (such as the output of `openssl rand -hex 32`)",
            path.display()
        ));
    }
    Ok(token)
}
