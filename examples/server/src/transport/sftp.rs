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
//! - **Receive** ([`poll_loop`]): every `pollSeconds` the partner's `inboundDir` is
//!   listed; each new file is downloaded, handed to the inbound pipeline with a record
//!   of it (name, size, modification time, SHA-256) in the same store transaction, then
//!   deleted or moved to `processedDir` on the server. A crash between the download and
//!   the removal finds the record on the next poll and only removes the file; the same
//!   bytes dropped again (another name, or the same name later) are recorded as a
//!   duplicate and never applied twice. Files the pipeline refuses (not X12, unknown
//!   sender) stay where they are, recorded, and are not read again until they change.

use crate::app::App;
use crate::config::sftp::SftpConfig;
use crate::transport::outcome::Outcome;
use crate::vals;
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
use tracing::Instrument;

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
        if let Some(c) = self.conn.take() {
            if let Ok(mut idle) = self.pool.idle.lock() {
                idle.push((c, Instant::now()));
            }
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
    if check_first {
        if let Ok(m) = conn.sftp.metadata(target.clone()).await {
            if m.size == Some(x12.len() as u64) {
                return Ok(Upload::Found);
            }
        }
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

// ---------------------------------------------------------------- receive

/// A file of the partner's folder.
struct Listed {
    name: String,
    size: u64,
    mtime: i64,
}

/// What the store knows of a listed file.
enum Known {
    New,
    /// Taken (applied or a duplicate) and not yet removed from the server.
    ToRemove,
    /// Removed already, or refused: left alone.
    Done,
}

/// Polls the `inboundDir` of every enabled `sftp` partner, each on its own schedule and
/// in its own task (a slow or unreachable server holds up no other partner).
pub async fn poll_loop(app: Arc<App>) {
    let mut last: HashMap<(String, String), Instant> = HashMap::new();
    let running: Arc<Mutex<std::collections::HashSet<(String, String)>>> = Arc::default();
    loop {
        tokio::time::sleep(Duration::from_millis(app.config.workers.poll_ms.max(200))).await;
        sweep_idle();
        let settings = app.settings.current();
        for account in settings.accounts.values() {
            for partner in account.partners.values().filter(|p| p.enabled) {
                let Some(crate::config::TransportConfig::Sftp(cfg)) = &partner.transport else {
                    continue;
                };
                if cfg.inbound_dir.is_none() {
                    continue;
                }
                let key = (account.id.clone(), partner.id.clone());
                let busy = running.lock().map_or(true, |r| r.contains(&key));
                let recent = last
                    .get(&key)
                    .is_some_and(|t| t.elapsed() < Duration::from_secs(cfg.poll_seconds.max(1)));
                if busy || recent {
                    continue;
                }
                last.insert(key.clone(), Instant::now());
                if let Ok(mut r) = running.lock() {
                    r.insert(key.clone());
                }
                let span =
                    tracing::info_span!("sftp-poll", account = %account.id, partner = %partner.id);
                let (app, running, cfg) = (app.clone(), running.clone(), (**cfg).clone());
                tokio::spawn(
                    async move {
                        if let Err(e) = poll_once(&app, &key.0, &key.1, &cfg).await {
                            tracing::warn!(error = %e, "SFTP poll failed; tried again at the next poll");
                        }
                        if let Ok(mut r) = running.lock() {
                            r.remove(&key);
                        }
                    }
                    .instrument(span),
                );
            }
        }
    }
}

/// One poll of one partner's folder. Public for the tests' sake through the loop only.
async fn poll_once(
    app: &Arc<App>,
    account: &str,
    partner: &str,
    cfg: &SftpConfig,
) -> Result<(), String> {
    let Some(dir) = cfg.inbound_dir.clone() else {
        return Ok(());
    };
    let deadline = Instant::now() + Duration::from_millis(cfg.timeout_ms.max(1));
    let lease = lease(cfg, deadline).await.map_err(|f| f.text)?;
    let conn = lease.conn();
    let mut files: Vec<Listed> = conn
        .sftp
        .read_dir(dir.clone())
        .await
        .map_err(|e| sftp_err("cannot list", &dir, e).text)?
        .filter(|e| e.file_type().is_file() && !e.file_name().starts_with('.'))
        .map(|e| {
            let m = e.metadata();
            Listed {
                name: e.file_name(),
                size: m.size.unwrap_or(0),
                mtime: i64::from(m.mtime.unwrap_or(0)),
            }
        })
        .collect();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    for f in files {
        let path = join(&dir, &f.name);
        match known(app, account, partner, &f).await? {
            Known::Done => continue,
            Known::ToRemove => {
                remove(conn, cfg, &path, &f.name).await?;
                mark_removed(app, account, partner, &f).await?;
                continue;
            }
            Known::New => {}
        }
        let bytes = conn
            .sftp
            .read(path.clone())
            .await
            .map_err(|e| sftp_err("cannot download", &path, e).text)?;
        let hash = hex::encode(Sha256::digest(&bytes));
        let size = bytes.len() as u64;
        let listed = Listed { size, ..f };
        let state = take(app, account, partner, &listed, &hash, bytes).await?;
        tracing::info!(file = %path, state, "SFTP file taken");
        crate::metrics::worked(1);
        if state != "rejected" {
            remove(conn, cfg, &path, &listed.name).await?;
            mark_removed(app, account, partner, &listed).await?;
        }
    }
    lease.keep();
    Ok(())
}

async fn known(app: &Arc<App>, account: &str, partner: &str, f: &Listed) -> Result<Known, String> {
    let (a, p, n, s, m) = (
        account.to_string(),
        partner.to_string(),
        f.name.clone(),
        f.size as i64,
        f.mtime,
    );
    let row = app
        .store
        .read(move |c| {
            c.one(
                "SELECT state, removed_at FROM sftp_taken
                 WHERE account = ?1 AND partner_id = ?2 AND name = ?3 AND size = ?4 AND mtime = ?5",
                vals![&a, &p, &n, s, m],
            )?
            .map(|r| Ok((r.get::<String>(0)?, r.get::<Option<i64>>(1)?)))
            .transpose()
        })
        .await
        .map_err(|e| e.message.clone())?;
    Ok(match row {
        None => Known::New,
        Some((state, None)) if state != "rejected" => Known::ToRemove,
        Some(_) => Known::Done,
    })
}

/// Applies a downloaded file (or records it as a duplicate or refused), with its record,
/// in one store transaction; answers the record's state.
async fn take(
    app: &Arc<App>,
    account: &str,
    partner: &str,
    f: &Listed,
    hash: &str,
    bytes: Vec<u8>,
) -> Result<&'static str, String> {
    let (a, p, h) = (account.to_string(), partner.to_string(), hash.to_string());
    let seen = app
        .store
        .read(move |c| {
            c.one(
                "SELECT name, taken_at FROM sftp_taken
                 WHERE account = ?1 AND partner_id = ?2 AND sha256 = ?3 AND state = 'applied'",
                vals![&a, &p, &h],
            )?
            .map(|r| Ok((r.get::<String>(0)?, r.get::<i64>(1)?)))
            .transpose()
        })
        .await
        .map_err(|e| e.message.clone())?;
    let record = Taken {
        account: account.to_string(),
        partner: partner.to_string(),
        name: f.name.clone(),
        size: f.size as i64,
        mtime: f.mtime,
        hash: hash.to_string(),
    };
    if let Some((name, at)) = seen {
        let why = json!({"duplicate": true, "result": format!(
            "the same bytes (SHA-256 {hash}) were taken as {name} at {}: not applied again",
            crate::store::rfc3339(at))});
        record.write_alone(app, "duplicate", why).await?;
        return Ok("duplicate");
    }
    let r = record.clone();
    let applied = crate::inbound::receive_then(
        app,
        account,
        Some(partner),
        bytes,
        "sftp",
        move |c, result| r.insert(c, "applied", result),
    )
    .await;
    match applied {
        Ok(_) => Ok("applied"),
        Err(e) if e.status.is_client_error() => {
            let why = json!({"code": e.code, "result": e.message});
            record.write_alone(app, "rejected", why).await?;
            Ok("rejected")
        }
        Err(e) => Err(format!("cannot apply the file: {}", e.message)),
    }
}

/// The record of one file taken.
#[derive(Clone)]
struct Taken {
    account: String,
    partner: String,
    name: String,
    size: i64,
    mtime: i64,
    hash: String,
}

impl Taken {
    fn insert(
        &self,
        c: &dyn crate::db::Db,
        state: &str,
        result: &Value,
    ) -> crate::error::ApiResult<()> {
        c.exec(
            "INSERT INTO sftp_taken (account, partner_id, name, size, mtime, sha256, state, result, taken_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
             ON CONFLICT (account, partner_id, name, size, mtime) DO NOTHING",
            vals![
                &self.account,
                &self.partner,
                &self.name,
                self.size,
                self.mtime,
                &self.hash,
                state,
                result.to_string(),
                crate::store::now_ms()
            ],
        )
        .map_err(|e| {
            tracing::error!(error = %e, "cannot record an SFTP file");
            crate::error::ApiError::internal()
        })?;
        Ok(())
    }

    async fn write_alone(
        &self,
        app: &Arc<App>,
        state: &'static str,
        result: Value,
    ) -> Result<(), String> {
        let me = self.clone();
        app.store
            .write(move |c| me.insert(c, state, &result))
            .await
            .map_err(|e| e.message.clone())
    }
}

async fn mark_removed(
    app: &Arc<App>,
    account: &str,
    partner: &str,
    f: &Listed,
) -> Result<(), String> {
    let (a, p, n, s, m) = (
        account.to_string(),
        partner.to_string(),
        f.name.clone(),
        f.size as i64,
        f.mtime,
    );
    app.store
        .write(move |c| {
            c.exec(
                "UPDATE sftp_taken SET removed_at = ?6
                 WHERE account = ?1 AND partner_id = ?2 AND name = ?3 AND size = ?4 AND mtime = ?5",
                vals![&a, &p, &n, s, m, crate::store::now_ms()],
            )
            .map_err(|e| {
                tracing::error!(error = %e, "cannot record an SFTP removal");
                crate::error::ApiError::internal()
            })
        })
        .await
        .map(|_| ())
        .map_err(|e| e.message.clone())
}

/// Deletes a taken file on the server, or moves it to `processedDir`.
async fn remove(conn: &Conn, cfg: &SftpConfig, path: &str, name: &str) -> Result<(), String> {
    match (cfg.after_download.as_str(), &cfg.processed_dir) {
        ("move", Some(done)) => {
            let mut to = join(done, name);
            if conn.sftp.try_exists(to.clone()).await.unwrap_or(false) {
                to = join(done, &format!("{name}.{}", crate::store::now_ms()));
            }
            conn.sftp
                .rename(path.to_string(), to.clone())
                .await
                .map_err(|e| sftp_err("cannot move to", &to, e).text)
        }
        _ => match conn.sftp.remove_file(path.to_string()).await {
            Ok(()) => Ok(()),
            // Gone already (removed by an earlier poll whose record did not commit).
            Err(russh_sftp::client::error::Error::Status(s))
                if s.status_code == russh_sftp::protocol::StatusCode::NoSuchFile =>
            {
                Ok(())
            }
            Err(e) => Err(sftp_err("cannot delete", path, e).text),
        },
    }
}
