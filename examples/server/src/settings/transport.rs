//! Partner transports as settings: the JSON form of the settings routes
//! (`{"kind": "http", "url", "headers", "retries", "backoffMs", "timeoutMs"}`,
//! `{"kind": "directory", "outbox", "inbox"}`; the TOML bootstrap uses the same
//! names in snake_case), checked when saved with every problem at its pointer,
//! and split into what may be shown and the credentials, which are sealed in
//! the store ([`crate::secrets`]) and shown as `"********"`. A value sent back as
//! `"********"` keeps the stored one, so a client can send what it read.
//!
//! A new kind adds its arm to [`parse`], [`to_json`] and [`secret_pointers`]; the `sftp`
//! and `as2` kinds live in [`super::remote`].

use super::remote::REDACTED;
use crate::body::{Fields, Problems, pointer};
use crate::config::TransportConfig;
use crate::secrets::SecretBox;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// Where `directory` transport folders may be.
#[derive(Debug, Clone)]
pub enum Folders<'a> {
    /// The operator (configuration file, console): any folder; relative ones against the
    /// working directory.
    Operator,
    /// An account's admin over HTTP: folders inside `root` (`<files_dir>/<account>`),
    /// given relative to it; an absolute folder only when it is the partner's current one.
    Account {
        /// The account's folder.
        root: PathBuf,
        /// The partner's current folders (kept when sent back unchanged).
        current: Vec<&'a Path>,
    },
}

/// The JSON form of a transport, credentials included (never answered as is: see [`split`]).
pub fn to_json(t: &TransportConfig) -> Value {
    match t {
        TransportConfig::Http {
            url,
            headers,
            retries,
            backoff_ms,
            timeout_ms,
        } => json!({
            "kind": "http", "url": url, "headers": headers, "retries": retries,
            "backoffMs": backoff_ms, "timeoutMs": timeout_ms,
        }),
        TransportConfig::Directory { outbox, inbox } => json!({
            "kind": "directory",
            "outbox": outbox.to_string_lossy(),
            "inbox": inbox.as_ref().map(|i| i.to_string_lossy()),
        }),
        TransportConfig::Sftp(c) => super::remote::sftp_json(c),
        TransportConfig::As2(c) => super::remote::as2_json(c),
    }
}

/// The pointers (within the transport's JSON) of its credentials: every header value of
/// the `http` transport (they carry the partner's keys).
fn secret_pointers(v: &Value) -> Vec<String> {
    match v["kind"].as_str() {
        Some("http") => v["headers"]
            .as_object()
            .map(|h| h.keys().map(|k| pointer("/headers", k)).collect())
            .unwrap_or_default(),
        Some(kind) => super::remote::secret_pointers(kind)
            .iter()
            .filter(|p| v.pointer(p).is_some_and(|s| !s.is_null()))
            .map(|p| p.to_string())
            .collect(),
        None => Vec::new(),
    }
}

/// Splits a transport into its JSON with every credential replaced by [`REDACTED`] and
/// the credentials by pointer (to seal).
pub fn split(t: &TransportConfig) -> (Value, Map<String, Value>) {
    let mut public = to_json(t);
    let mut secrets = Map::new();
    for p in secret_pointers(&public) {
        if let Some(v) = public.pointer_mut(&p) {
            secrets.insert(p, std::mem::replace(v, Value::String(REDACTED.into())));
        }
    }
    (public, secrets)
}

/// Puts the credentials back into a transport's redacted JSON.
pub fn join(mut public: Value, secrets: &Map<String, Value>) -> Value {
    for (p, v) in secrets {
        if let Some(slot) = public.pointer_mut(p) {
            *slot = v.clone();
        }
    }
    public
}

/// Problems of a transport read from the configuration file (the same rules as [`parse`]).
pub fn check(t: &TransportConfig) -> Vec<crate::error::Detail> {
    let mut p = Problems::default();
    match t {
        TransportConfig::Http { url, headers, .. } => {
            http_rules(url, headers, "/transport", &mut p)
        }
        TransportConfig::Sftp(c) => super::remote::sftp_rules(c, "/transport", &mut p),
        TransportConfig::As2(c) => super::remote::as2_rules(c, "/transport", &mut p),
        TransportConfig::Directory { .. } => {}
    }
    p.details
}

/// A transport of the configuration file with its `*_file` members read (relative to the
/// file's folder): the SFTP private key, the AS2 certificates and key.
pub fn read_files(t: TransportConfig, base: &Path) -> Result<TransportConfig, String> {
    Ok(match t {
        TransportConfig::Sftp(c) => {
            TransportConfig::Sftp(Box::new(super::remote::sftp_files(*c, base)?))
        }
        TransportConfig::As2(c) => {
            TransportConfig::As2(Box::new(super::remote::as2_files(*c, base)?))
        }
        other => other,
    })
}

fn http_rules(url: &str, headers: &BTreeMap<String, String>, at: &str, p: &mut Problems) {
    if let Some(problem) = super::rules::url_problem(url) {
        p.value("INVALID_URL", pointer(at, "url"), problem);
    }
    for (k, v) in headers {
        if reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_err()
            || reqwest::header::HeaderValue::from_str(v).is_err()
        {
            p.value(
                "INVALID_HEADER",
                pointer(&pointer(at, "headers"), k),
                format!("{k:?} is not a valid HTTP header name and value"),
            );
        }
    }
}

/// Reads a transport's JSON form at `at` (`/transport`), every problem into `p`. `current`
/// is the partner's transport as stored (credentials sent back as [`REDACTED`] keep it).
pub fn parse(
    v: &Value,
    at: &str,
    folders: &Folders<'_>,
    current: Option<&TransportConfig>,
    p: &mut Problems,
) -> Option<TransportConfig> {
    let kind = match v.get("kind") {
        Some(Value::String(k)) => k.as_str(),
        Some(_) => {
            p.shape(
                "INVALID_FIELD",
                pointer(at, "kind"),
                "kind must be a string",
            );
            return None;
        }
        None if v.is_object() => {
            p.shape(
                "MISSING_FIELD",
                pointer(at, "kind"),
                "kind is required (http, directory, sftp or as2)",
            );
            return None;
        }
        None => {
            p.shape("INVALID_FIELD", at, "transport must be a JSON object");
            return None;
        }
    };
    match kind {
        "http" => {
            let f = Fields::new(
                v,
                at,
                &[
                    "kind",
                    "url",
                    "headers",
                    "retries",
                    "backoffMs",
                    "timeoutMs",
                ],
                p,
            )?;
            let url = f.string("url", true, p);
            let retries = f.uint("retries", 20, p).unwrap_or(3) as u32;
            let backoff_ms = f.uint("backoffMs", 3_600_000, p).unwrap_or(500);
            let timeout_ms = f.uint("timeoutMs", 3_600_000, p).unwrap_or(10_000).max(1);
            let stored: BTreeMap<String, String> = match current {
                Some(TransportConfig::Http { headers, .. }) => headers.clone(),
                _ => BTreeMap::new(),
            };
            let mut headers = BTreeMap::new();
            match f.get("headers") {
                None => {}
                Some(Value::Object(h)) => {
                    for (k, value) in h {
                        let here = pointer(&f.at("headers"), k);
                        match value {
                            Value::String(s) if s == REDACTED => match stored.get(k) {
                                Some(old) => {
                                    headers.insert(k.clone(), old.clone());
                                }
                                None => p.value(
                                    "INVALID_HEADER",
                                    here,
                                    format!("{REDACTED:?} keeps a stored value, and header {k:?} has none"),
                                ),
                            },
                            Value::String(s) => {
                                headers.insert(k.clone(), s.clone());
                            }
                            _ => p.shape("INVALID_FIELD", here, "a header value must be a string"),
                        }
                    }
                }
                Some(_) => p.shape(
                    "INVALID_FIELD",
                    f.at("headers"),
                    "headers must be an object of names and values",
                ),
            }
            let url = url?;
            http_rules(&url, &headers, at, p);
            Some(TransportConfig::Http {
                url,
                headers,
                retries,
                backoff_ms,
                timeout_ms,
            })
        }
        "directory" => {
            let f = Fields::new(v, at, &["kind", "outbox", "inbox"], p)?;
            let outbox = f
                .string("outbox", true, p)
                .and_then(|o| folder(&o, &f.at("outbox"), folders, p));
            let inbox = f
                .string("inbox", false, p)
                .and_then(|i| folder(&i, &f.at("inbox"), folders, p));
            Some(TransportConfig::Directory {
                outbox: outbox?,
                inbox,
            })
        }
        "sftp" => {
            let current = match current {
                Some(TransportConfig::Sftp(c)) => Some(c.as_ref()),
                _ => None,
            };
            super::remote::parse_sftp(v, at, current, p).map(|c| TransportConfig::Sftp(Box::new(c)))
        }
        "as2" => {
            let current = match current {
                Some(TransportConfig::As2(c)) => Some(c.as_ref()),
                _ => None,
            };
            super::remote::parse_as2(v, at, current, p).map(|c| TransportConfig::As2(Box::new(c)))
        }
        other => {
            p.value(
                "UNKNOWN_TRANSPORT",
                pointer(at, "kind"),
                format!(
                    "unknown transport kind {other:?}; the kinds are http, directory, sftp and as2"
                ),
            );
            None
        }
    }
}

/// A `directory` transport folder under the rules of `folders`.
fn folder(text: &str, at: &str, folders: &Folders<'_>, p: &mut Problems) -> Option<PathBuf> {
    let path = Path::new(text);
    if text.is_empty() {
        p.value("INVALID_FOLDER", at, "a folder cannot be empty");
        return None;
    }
    match folders {
        Folders::Operator => Some(crate::config::path::absolute(path)),
        Folders::Account { root, current } => {
            if path.is_absolute() {
                if current.contains(&path) {
                    return Some(path.to_path_buf());
                }
                p.value(
                    "INVALID_FOLDER",
                    at,
                    "give a folder relative to the account's files folder (absolute folders are the operator's)",
                );
                return None;
            }
            if path
                .components()
                .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
            {
                p.value(
                    "INVALID_FOLDER",
                    at,
                    "a folder cannot go up (..) or be absolute",
                );
                return None;
            }
            Some(root.join(path))
        }
    }
}

/// The purpose (associated data) of a partner's sealed transport credentials.
pub fn transport_purpose(account: &str, partner: &str) -> String {
    format!("transport:{account}/{partner}")
}

/// Opens a partner's transport from its stored columns.
pub fn open_transport(
    secrets: Option<&SecretBox>,
    account: &str,
    partner: &str,
    public: Option<&str>,
    sealed: Option<&[u8]>,
) -> Result<Option<TransportConfig>, String> {
    let Some(public) = public else {
        return Ok(None);
    };
    let public: Value =
        serde_json::from_str(public).map_err(|e| format!("stored transport: {e}"))?;
    let map: Map<String, Value> = match sealed {
        None => Map::new(),
        Some(sealed) => {
            let sb = secrets.ok_or("the secret key is not configured")?;
            let plain = sb.open(&transport_purpose(account, partner), sealed)?;
            serde_json::from_slice(&plain).map_err(|e| format!("stored credentials: {e}"))?
        }
    };
    let full = join(public, &map);
    let mut p = crate::body::Problems::default();
    parse(&full, "", &Folders::Operator, None, &mut p)
        .filter(|_| p.is_empty())
        .map(Some)
        .ok_or_else(|| "the stored transport does not parse".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(v: Value, current: Option<&TransportConfig>) -> Result<TransportConfig, Problems> {
        let mut p = Problems::default();
        let folders = Folders::Account {
            root: PathBuf::from("/files/alpha"),
            current: vec![Path::new("/elsewhere/out")],
        };
        let t = parse(&v, "/transport", &folders, current, &mut p);
        if p.is_empty() { Ok(t.unwrap()) } else { Err(p) }
    }

    #[test]
    fn credentials_are_split_out_and_kept_when_sent_back_redacted() {
        let t = parsed(
            json!({"kind": "http", "url": "https://p.example/edi", "headers": {"X-Key": "k-1", "X~Y": "v"}}),
            None,
        )
        .unwrap();
        let (public, secrets) = split(&t);
        assert_eq!(public["headers"]["X-Key"], REDACTED);
        assert_eq!(secrets["/headers/X-Key"], "k-1");
        assert_eq!(secrets["/headers/X~0Y"], "v");
        assert!(!public.to_string().contains("k-1"));
        assert_eq!(join(public.clone(), &secrets), to_json(&t));
        let again = parsed(public, Some(&t)).unwrap();
        assert_eq!(to_json(&again), to_json(&t));
        let p = parsed(
            json!({"kind": "http", "url": "ftp://x", "headers": {"New": REDACTED}, "retries": -1, "nope": 1}),
            Some(&t),
        )
        .unwrap_err();
        let pointers: Vec<&str> = p.details.iter().map(|d| d.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/transport/nope",
                "/transport/retries",
                "/transport/headers/New",
                "/transport/url"
            ]
        );
    }

    #[test]
    fn account_folders_stay_inside_the_accounts_files() {
        let t = parsed(
            json!({"kind": "directory", "outbox": "acme/out", "inbox": "/elsewhere/out"}),
            None,
        )
        .unwrap();
        let TransportConfig::Directory { outbox, inbox } = t else {
            panic!()
        };
        assert_eq!(outbox, PathBuf::from("/files/alpha/acme/out"));
        assert_eq!(inbox, Some(PathBuf::from("/elsewhere/out")));
        for bad in ["../beta/in", "/etc", "a/../../b", ""] {
            let p = parsed(json!({"kind": "directory", "outbox": bad}), None).unwrap_err();
            assert_eq!(p.details[0].pointer, "/transport/outbox", "{bad}");
        }
        let p = parsed(json!({"kind": "ftp"}), None).unwrap_err();
        assert_eq!(p.details[0].code, "UNKNOWN_TRANSPORT");
        assert!(parsed(json!("http"), None).is_err());
    }
}
