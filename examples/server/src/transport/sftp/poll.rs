//! The receiving side of the `sftp` transport (see `crate::transport::sftp`, "Receive"):
//! [`poll_loop`] lists each partner's `inboundDir` over the sending side's connections
//! and hands each new file to the inbound pipeline. Apart from the sending side, which
//! the router of documents names, since this side names the inbound pipeline. Its log
//! lines keep the target they had in `transport/sftp.rs`.

use super::{Conn, join, lease, sftp_err, sweep_idle};
use crate::app::App;
use crate::config::sftp::SftpConfig;
use crate::vals;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tracing::Instrument;

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
                let span = tracing::info_span!(target: "x12kit_server::transport::sftp", "sftp-poll", account = %account.id, partner = %partner.id);
                let (app, running, cfg) = (app.clone(), running.clone(), (**cfg).clone());
                tokio::spawn(
                    async move {
                        if let Err(e) = poll_once(&app, &key.0, &key.1, &cfg).await {
                            tracing::warn!(target: "x12kit_server::transport::sftp", error = %e, "SFTP poll failed; tried again at the next poll");
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
        tracing::info!(target: "x12kit_server::transport::sftp", file = %path, state, "SFTP file taken");
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
        x12kit_mapped::Input::Read(bytes),
        "sftp",
        x12kit::envelope::SetCap::bytes(app.config.max_set_bytes),
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
            tracing::error!(target: "x12kit_server::transport::sftp", error = %e, "cannot record an SFTP file");
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
                tracing::error!(target: "x12kit_server::transport::sftp", error = %e, "cannot record an SFTP removal");
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
