//! The `sftp` transport: the partner's SFTP server, over SSH with russh.
//!
//! - **Host key pinned.** The server's key must have the SHA-256 fingerprint of the
//!   settings (`SHA256:…`, as `ssh-keygen -lf` prints it); any other key (an unknown
//!   server, a changed key, a man in the middle) ends the connection before
//!   authentication, and the attempt says which key was offered. It is never accepted.
//! - **Authentication** with the partner's private key (ed25519, ECDSA or RSA with
//!   rsa-sha2-512/256 as the server allows; OpenSSH or PEM text) or a password.
//! - **Send**: the interchange is written as `.<name>.part` in `outboundDir`, then renamed
//!   to `<ISA13, 9 digits>-<documentId>.x12`, so the partner never sees a partial
//!   file under a name it reads. The name is the document's, so a resend replaces the
//!   same file. A connection lost after the rename was sent is checked on the next
//!   attempt: the file found complete under its name means it was delivered; otherwise it
//!   is sent again and the attempt says so (`resent`).
//! - **Timeouts, retries with backoff** (`timeoutMs` per attempt, `retries`, `backoffMs`
//!   doubled each time); a wrong host key or refused credentials are not retried.
//! - **At most `maxConnections` connections per server and user**, kept open for a
//!   few seconds after use, so that the documents routed together share them.
//! - **Receive** ([`poll::poll_loop`]): every `pollSeconds` the partner's `inboundDir` is
//!   listed; each new file is downloaded, handed to the inbound pipeline with a record
//!   of it (name, size, modification time, SHA-256) in the same store transaction, then
//!   deleted or moved to `processedDir` on the server. A crash between the download and
//!   the removal finds the record on the next poll and only removes the file; the same
//!   bytes dropped again (another name, or the same name later) are recorded as a
//!   duplicate and never applied twice. Files the pipeline refuses (not X12, unknown
//!   sender) stay where they are, recorded, and are not read again until they change.

pub mod poll;

use crate::config::sftp::SftpConfig;
use crate::transport::outcome::Outcome;
use russh::client;
use russh::keys::{HashAlg, PrivateKey, PrivateKeyWithHashAlg, PublicKeyOrCertificate};
use russh_sftp::client::SftpSession;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio::sync::Semaphore;

/// How long an unused connection is kept for the next transfer.
const IDLE: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------- connections

/// Why a connection or transfer failed, and whether trying again can help.
#[derive(Debug)]
struct Failure {
    text: String,
    retry: bool,
}

impl Failure {
    fn retry(text: impl Into<String>) -> Failure {
        Failure {
            text: text.into(),
            retry: true,
        }
    }
    fn fatal(text: impl Into<String>) -> Failure {
        Failure {
            text: text.into(),
            retry: false,
        }
    }
}

/// The russh client handler: accepts the server's key only when its fingerprint is the
/// pinned one, and remembers what was offered.
struct Pinned {
    want: String,
    offered: Arc<Mutex<Option<String>>>,
}

impl client::Handler for Pinned {
    type Error = russh::Error;

    async fn check_server_key(
        &mut self,
        key: &PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        let key = match key {
            PublicKeyOrCertificate::PublicKey { key, .. } => key.clone(),
            // A host certificate is checked by its key's fingerprint too.
            PublicKeyOrCertificate::Certificate(c) => {
                russh::keys::PublicKey::from(c.public_key().clone())
            }
        };
        let got = key.fingerprint(HashAlg::Sha256).to_string();
        let ok = got == self.want;
        if let Ok(mut o) = self.offered.lock() {
            *o = Some(got);
        }
        Ok(ok)
    }
}

/// One SSH connection with its SFTP session.
struct Conn {
    ssh: client::Handle<Pinned>,
    sftp: SftpSession,
}

impl Conn {
    fn usable(&self) -> bool {
        !self.ssh.is_closed()
    }

    /// Resolves when the SSH connection is gone (the SFTP layer would otherwise wait for
    /// the answers of requests in flight until its timeout).
    async fn lost(&self) {
        while !self.ssh.is_closed() {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// `op` on `conn`, ended early with a retryable failure when the connection is lost.
async fn watched<T>(
    conn: &Conn,
    op: impl std::future::Future<Output = Result<T, Failure>>,
) -> Result<T, Failure> {
    tokio::select! {
        r = op => r,
        () = conn.lost() => Err(Failure::retry("the SSH connection was lost")),
    }
}

/// The connections of one server and user: a cap and the idle ones.
#[derive(Default)]
struct Pool {
    permits: OnceLock<Arc<Semaphore>>,
    idle: Mutex<Vec<(Conn, Instant)>>,
}

fn pools() -> &'static Mutex<HashMap<String, Arc<Pool>>> {
    static POOLS: OnceLock<Mutex<HashMap<String, Arc<Pool>>>> = OnceLock::new();
    POOLS.get_or_init(Mutex::default)
}

/// The pool of `cfg`'s server, user and credentials (a changed setting gets a new pool).
fn pool(cfg: &SftpConfig) -> Arc<Pool> {
    let mut h = Sha256::new();
    for part in [
        cfg.host.as_str(),
        &cfg.port.to_string(),
        &cfg.user,
        &cfg.host_key_sha256,
        cfg.password.as_deref().unwrap_or(""),
        cfg.private_key.as_deref().unwrap_or(""),
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    let key = hex::encode(h.finalize());
    let mut all = pools().lock().unwrap_or_else(|e| e.into_inner());
    let p = all.entry(key).or_default().clone();
    p.permits
        .get_or_init(|| Arc::new(Semaphore::new(cfg.max_connections.max(1) as usize)));
    p
}

/// A connection of the pool, holding one of its permits until dropped (given back to
/// the idle list with [`Lease::keep`]).
struct Lease {
    conn: Option<Conn>,
    pool: Arc<Pool>,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl Lease {
    fn conn(&self) -> &Conn {
        self.conn.as_ref().expect("a lease holds its connection")
    }

    /// Keeps the connection for the next transfer.
    fn keep(mut self) {
        if let Some(c) = self.conn.take()
            && let Ok(mut idle) = self.pool.idle.lock()
        {
            idle.push((c, Instant::now()));
        }
    }
}

/// Takes an idle connection of the pool or opens one, within the cap.
async fn lease(cfg: &SftpConfig, deadline: Instant) -> Result<Lease, Failure> {
    let pool = pool(cfg);
    let permits = pool
        .permits
        .get()
        .cloned()
        .ok_or_else(|| Failure::retry("no connection pool"))?;
    let permit = tokio::time::timeout_at(deadline.into(), permits.acquire_owned())
        .await
        .map_err(|_| {
            Failure::retry(format!(
                "timeout: waited for one of the {} connections to the server",
                cfg.max_connections
            ))
        })?
        .map_err(|_| Failure::retry("the connection pool is closed"))?;
    let kept = {
        let mut idle = pool.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.retain(|(c, at)| at.elapsed() < IDLE && c.usable());
        idle.pop().map(|(c, _)| c)
    };
    // A kept connection is checked with one round trip (the server may have closed it
    // meanwhile); a dead one is replaced before the transfer starts.
    let alive = match kept {
        Some(c) => {
            let probe = tokio::time::timeout(Duration::from_secs(5), c.sftp.canonicalize("."));
            matches!(probe.await, Ok(Ok(_))).then_some(c)
        }
        None => None,
    };
    let conn = match alive {
        Some(c) => c,
        None => connect(cfg, deadline).await?,
    };
    Ok(Lease {
        conn: Some(conn),
        pool,
        _permit: permit,
    })
}

/// Closes idle connections older than [`IDLE`].
fn sweep_idle() {
    let all: Vec<Arc<Pool>> = pools()
        .lock()
        .map(|p| p.values().cloned().collect())
        .unwrap_or_default();
    for p in all {
        if let Ok(mut idle) = p.idle.lock() {
            idle.retain(|(c, at)| at.elapsed() < IDLE && c.usable());
        }
    }
}

fn private_key(text: &str) -> Result<PrivateKey, String> {
    russh::keys::decode_secret_key(text, None).map_err(|e| match e {
        russh::keys::Error::KeyIsEncrypted => {
            "the private key is encrypted: give it without a passphrase (ssh-keygen -p -N '')"
                .to_string()
        }
        e => format!("not a private key this server can read (OpenSSH or PEM): {e}"),
    })
}

/// Connects, checks the host key and authenticates.
async fn connect(cfg: &SftpConfig, deadline: Instant) -> Result<Conn, Failure> {
    let offered = Arc::new(Mutex::new(None));
    let handler = Pinned {
        want: cfg.host_key_sha256.clone(),
        offered: offered.clone(),
    };
    let config = Arc::new(client::Config {
        inactivity_timeout: Some(Duration::from_secs(120)),
        nodelay: true,
        ..client::Config::default()
    });
    let addr = (cfg.host.clone(), cfg.port);
    let where_ = format!("{}:{}", cfg.host, cfg.port);
    let connected =
        tokio::time::timeout_at(deadline.into(), client::connect(config, addr, handler)).await;
    let mut ssh = match connected {
        Err(_) => return Err(Failure::retry(format!("timeout connecting to {where_}"))),
        Ok(Ok(h)) => h,
        Ok(Err(e)) => {
            let offered = offered.lock().ok().and_then(|o| o.clone());
            return Err(match (e, offered) {
                (russh::Error::UnknownKey, Some(got)) => Failure::fatal(format!(
                    "host key refused: {where_} offered {got}, the settings pin {} (not accepted; if the partner changed its key, check the new one with them and update hostKeySha256)",
                    cfg.host_key_sha256
                )),
                (russh::Error::IO(io), _) => {
                    Failure::retry(format!("cannot connect to {where_}: {io}"))
                }
                (e, _) => Failure::retry(format!("SSH with {where_} failed: {e}")),
            });
        }
    };
    let auth = async {
        if let Some(text) = &cfg.private_key {
            let key = private_key(text).map_err(Failure::fatal)?;
            let hash = if key.algorithm().is_rsa() {
                ssh.best_supported_rsa_hash()
                    .await
                    .ok()
                    .flatten()
                    .flatten()
                    .or(Some(HashAlg::Sha256))
            } else {
                None
            };
            ssh.authenticate_publickey(
                cfg.user.clone(),
                PrivateKeyWithHashAlg::new(Arc::new(key), hash),
            )
            .await
        } else {
            ssh.authenticate_password(cfg.user.clone(), cfg.password.clone().unwrap_or_default())
                .await
        }
        .map_err(|e| Failure::retry(format!("SSH authentication with {where_} failed: {e}")))
    };
    let method = if cfg.private_key.is_some() {
        "key"
    } else {
        "password"
    };
    match tokio::time::timeout_at(deadline.into(), auth).await {
        Err(_) => {
            return Err(Failure::retry(format!(
                "timeout authenticating to {where_}"
            )));
        }
        Ok(Err(f)) => return Err(f),
        Ok(Ok(r)) if !r.success() => {
            return Err(Failure::fatal(format!(
                "{where_} refused the {method} of user {:?}",
                cfg.user
            )));
        }
        Ok(Ok(_)) => {}
    }
    let sftp = async {
        let channel = ssh.channel_open_session().await?;
        channel.request_subsystem(true, "sftp").await?;
        Ok::<_, russh::Error>(channel)
    };
    let channel = match tokio::time::timeout_at(deadline.into(), sftp).await {
        Err(_) => return Err(Failure::retry(format!("timeout opening SFTP on {where_}"))),
        Ok(Err(e)) => {
            return Err(Failure::retry(format!(
                "{where_} has no SFTP subsystem for this user: {e}"
            )));
        }
        Ok(Ok(c)) => c,
    };
    let sftp =
        match tokio::time::timeout_at(deadline.into(), SftpSession::new(channel.into_stream()))
            .await
        {
            Err(_) => return Err(Failure::retry(format!("timeout starting SFTP on {where_}"))),
            Ok(Err(e)) => return Err(Failure::retry(format!("SFTP on {where_} failed: {e}"))),
            Ok(Ok(s)) => s,
        };
    sftp.set_timeout(cfg.timeout_ms.div_ceil(1000).max(1));
    Ok(Conn { ssh, sftp })
}

fn join(dir: &str, name: &str) -> String {
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() {
        format!("/{name}")
    } else {
        format!("{dir}/{name}")
    }
}

fn sftp_err(what: &str, path: &str, e: russh_sftp::client::error::Error) -> Failure {
    use russh_sftp::client::error::Error as E;
    use russh_sftp::protocol::StatusCode as S;
    match &e {
        E::Status(s) if s.status_code == S::NoSuchFile => Failure::retry(format!(
            "{what} {path}: no such file or folder on the server"
        )),
        E::Status(s) if s.status_code == S::PermissionDenied => {
            Failure::retry(format!("{what} {path}: permission denied by the server"))
        }
        E::Timeout => Failure::retry(format!("{what} {path}: timeout")),
        _ => Failure::retry(format!("{what} {path}: {e}")),
    }
}

// ---------------------------------------------------------------- send

/// The remote name of a document's interchange.
pub fn remote_name(interchange_control: i64, document_id: &str) -> String {
    format!("{interchange_control:09}-{document_id}.x12")
}

/// What one upload did.
enum Upload {
    /// Written and renamed.
    Sent,
    /// Found complete under its name after an interrupted rename: the earlier attempt
    /// delivered it.
    Found,
}

/// Writes `x12` as `.<name>.part` and renames it to `name` in `dir`. `rename_sent` is set
/// once the rename request has gone out (the outcome is unknown if the connection dies).
async fn upload(
    conn: &Conn,
    dir: &str,
    name: &str,
    x12: &[u8],
    check_first: bool,
    rename_sent: &mut bool,
) -> Result<Upload, Failure> {
    let target = join(dir, name);
    let tmp = join(dir, &format!(".{name}.part"));
    if check_first
        && let Ok(m) = conn.sftp.metadata(target.clone()).await
        && m.size == Some(x12.len() as u64)
    {
        return Ok(Upload::Found);
    }
    let mut file = conn
        .sftp
        .create(tmp.clone())
        .await
        .map_err(|e| sftp_err("cannot create", &tmp, e))?;
    file.write_all(x12)
        .await
        .map_err(|e| Failure::retry(format!("writing {tmp} failed: {e}")))?;
    let _ = file.sync_all().await;
    file.shutdown()
        .await
        .map_err(|e| Failure::retry(format!("closing {tmp} failed: {e}")))?;
    *rename_sent = true;
    if let Err(e) = conn.sftp.rename(tmp.clone(), target.clone()).await {
        // SFTP v3 renames do not replace (OpenSSH refuses an existing target): a resend
        // of the same document replaces its earlier copy, which has the same bytes.
        let exists = conn.sftp.try_exists(target.clone()).await.unwrap_or(false);
        if !exists {
            return Err(sftp_err("cannot rename to", &target, e));
        }
        conn.sftp
            .remove_file(target.clone())
            .await
            .map_err(|e| sftp_err("cannot replace", &target, e))?;
        conn.sftp
            .rename(tmp, target.clone())
            .await
            .map_err(|e| sftp_err("cannot rename to", &target, e))?;
    }
    Ok(Upload::Sent)
}

fn attempt(at: i64, result: &str, started: Instant, remote: &str) -> Value {
    json!({
        "at": crate::store::rfc3339(at),
        "transport": "sftp",
        "result": result,
        "remoteName": remote,
        "durationMs": started.elapsed().as_millis() as u64,
    })
}

/// Hands `x12` to the partner's SFTP server.
pub async fn send(
    cfg: &SftpConfig,
    document_id: &str,
    interchange_control: i64,
    x12: &[u8],
) -> Outcome {
    let name = remote_name(interchange_control, document_id);
    let target = join(&cfg.outbound_dir, &name);
    let mut attempts = Vec::new();
    let mut wait = Duration::from_millis(cfg.backoff_ms);
    // Set when an attempt's rename went out and its answer never came.
    let mut in_doubt = false;
    for n in 0..=cfg.retries {
        if n > 0 {
            tokio::time::sleep(wait).await;
            wait = wait.saturating_mul(2);
        }
        let started = Instant::now();
        let at = crate::store::now_ms();
        let deadline = started + Duration::from_millis(cfg.timeout_ms.max(1));
        let mut rename_sent = false;
        let result = async {
            let lease = lease(cfg, deadline).await?;
            let tried = tokio::time::timeout_at(
                deadline.into(),
                watched(
                    lease.conn(),
                    upload(
                        lease.conn(),
                        &cfg.outbound_dir,
                        &name,
                        x12,
                        in_doubt,
                        &mut rename_sent,
                    ),
                ),
            )
            .await
            .unwrap_or_else(|_| Err(Failure::retry(format!("timeout writing {target}"))));
            if tried.is_ok() {
                lease.keep();
            }
            tried
        }
        .await;
        match result {
            Ok(how) => {
                let (text, resent) = match how {
                    Upload::Sent if in_doubt => (
                        "written and renamed (sent again: the previous attempt lost its connection after its rename was sent, so the partner may have the file already)",
                        true,
                    ),
                    Upload::Sent => ("written and renamed", false),
                    Upload::Found => (
                        "found complete under its name: the previous attempt's rename, whose answer was lost, had delivered it",
                        false,
                    ),
                };
                let mut a = attempt(at, text, started, &target);
                if resent {
                    a["resent"] = json!(true);
                }
                attempts.push(a);
                return Outcome {
                    result: Ok(format!("SFTP {}:{} {target}", cfg.host, cfg.port)),
                    attempts,
                };
            }
            Err(f) => {
                in_doubt |= rename_sent;
                attempts.push(attempt(at, &f.text, started, &target));
                if !f.retry {
                    return Outcome {
                        result: Err(format!("SFTP {target}: {} (not retried)", f.text)),
                        attempts,
                    };
                }
            }
        }
    }
    crate::transport::outcome::exhausted(&format!("SFTP {target}"), attempts)
}

// ---------------------------------------------------------------- test connection

/// `POST /api/settings/partners/{id}/test-connection`: connects, checks the host key,
/// authenticates and lists the folders. Sends nothing.
pub async fn test_connection(cfg: &SftpConfig) -> Value {
    let started = Instant::now();
    let deadline = started + Duration::from_millis(cfg.timeout_ms.max(1));
    let conn = match connect(cfg, deadline).await {
        Ok(c) => c,
        Err(f) => {
            return json!({"ok": false, "transport": "sftp", "result": f.text,
                "durationMs": started.elapsed().as_millis() as u64});
        }
    };
    let mut folders = Vec::new();
    let mut ok = true;
    let dirs = [
        Some(&cfg.outbound_dir),
        cfg.inbound_dir.as_ref(),
        cfg.processed_dir.as_ref(),
    ];
    for dir in dirs.into_iter().flatten() {
        match conn.sftp.read_dir(dir.clone()).await {
            Ok(entries) => {
                let files = entries.filter(|e| e.file_type().is_file()).count();
                folders.push(json!({"folder": dir, "result": "listed", "files": files}));
            }
            Err(e) => {
                ok = false;
                folders
                    .push(json!({"folder": dir, "result": sftp_err("cannot list", dir, e).text}));
            }
        }
    }
    let _ = conn.sftp.close().await;
    let _ = conn
        .ssh
        .disconnect(russh::Disconnect::ByApplication, "", "en")
        .await;
    json!({
        "ok": ok,
        "transport": "sftp",
        "result": if ok { "connected, host key matched, authenticated, folders listed" } else { "connected and authenticated; a folder cannot be listed" },
        "hostKeySha256": cfg.host_key_sha256,
        "folders": folders,
        "durationMs": started.elapsed().as_millis() as u64,
    })
}
