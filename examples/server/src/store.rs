//! The SQLite store: one file, migrated on start (`migrations/`, tracked in
//! `PRAGMA user_version`), WAL with `synchronous=FULL`.
//!
//! All writes go through one writer thread that owns the write connection and
//! commits in groups: it takes every job waiting in its queue, runs each in
//! its own savepoint and commits them in one transaction (one fsync for the
//! group), then answers each caller. A caller is answered only after its
//! commit is durable. Reads use a small pool of read connections on the
//! blocking thread pool; WAL lets them run while the writer commits.

use crate::config::Partner;
use crate::error::{ApiError, ApiResult};
use crate::x12;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

/// Versioned migrations, applied in order once each.
const MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("../migrations/0001_documents.sql")),
    (2, include_str!("../migrations/0002_lifecycle.sql")),
];

/// Largest number of jobs committed in one transaction.
const GROUP: usize = 512;

/// How long an idempotency key is remembered (24 h).
pub const IDEMPOTENCY_TTL_MS: i64 = 24 * 3600 * 1000;

/// Largest X12 control number.
const MAX_CONTROL: i64 = 999_999_999;

/// Statuses a transaction can have (lower case in the store and the API).
pub const STATUSES: &[&str] = &[
    "queued",
    "validated",
    "routed",
    "acknowledged",
    "failed",
    "received",
];

/// Handle on the store (cheap to clone).
#[derive(Debug, Clone)]
pub struct Store {
    writer: mpsc::Sender<Job>,
    readers: Arc<Readers>,
}

#[derive(Debug)]
struct Readers {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

/// An outbound document to accept.
#[derive(Debug)]
pub struct Accept {
    /// Account id.
    pub account: String,
    /// The partner (of that account).
    pub partner: Arc<Partner>,
    /// Document type code.
    pub document_type: String,
    /// The payload object.
    pub payload: Value,
    /// `Idempotency-Key` and the SHA-256 of the canonical request.
    pub idempotency: Option<(String, String)>,
}

/// An accepted (or replayed) document.
#[derive(Debug)]
pub struct Accepted {
    /// The document summary (`documentId`, `status`, …).
    pub document: Value,
    /// True when an earlier request with the same idempotency key is returned.
    pub replayed: bool,
}

/// A write run by the writer thread inside the group's transaction (in its own
/// savepoint): it returns whether it succeeded (else its savepoint is rolled
/// back) and what to do once the group's commit is known (`true`: durable).
type Work = Box<dyn FnOnce(&Connection) -> (bool, Finish) + Send>;
type Finish = Box<dyn FnOnce(bool) + Send>;

struct Job(Work);

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Job")
    }
}

fn open(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

fn migrate(conn: &mut Connection) -> Result<(), String> {
    let current: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| e.to_string())?;
    let newest = MIGRATIONS.last().map_or(0, |m| m.0);
    if current > newest {
        return Err(format!(
            "the database is at schema version {current}, newer than this server ({newest})"
        ));
    }
    for (version, sql) in MIGRATIONS {
        if *version <= current {
            continue;
        }
        let tx = conn.transaction().map_err(|e| e.to_string())?;
        tx.execute_batch(sql)
            .and_then(|_| tx.pragma_update(None, "user_version", version))
            .and_then(|_| tx.commit())
            .map_err(|e| format!("migration {version}: {e}"))?;
    }
    Ok(())
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// `2026-11-24T18:42:10.123Z` from Unix milliseconds.
pub fn rfc3339(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms.rem_euclid(1000)
    )
}

/// Civil date of a day count since 1970-01-01 (H. Hinnant's algorithm).
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

impl Store {
    /// Opens (creating and migrating) the database and starts the writer thread.
    pub fn open(path: &Path) -> Result<Store, String> {
        let mut conn =
            open(path).map_err(|e| format!("cannot open database {}: {e}", path.display()))?;
        migrate(&mut conn).map_err(|e| format!("database {}: {e}", path.display()))?;
        let (tx, rx) = mpsc::channel(4096);
        std::thread::Builder::new()
            .name("x12kit-store-writer".into())
            .spawn(move || writer(conn, rx))
            .map_err(|e| format!("cannot start the store writer: {e}"))?;
        Ok(Store {
            writer: tx,
            readers: Arc::new(Readers {
                path: path.to_path_buf(),
                idle: Mutex::new(Vec::new()),
            }),
        })
    }

    /// Accepts an outbound document: idempotency, control numbers, render, insert; durable on return.
    pub async fn accept(&self, job: Accept) -> ApiResult<Accepted> {
        self.write(move |c| accept(c, &job)).await
    }

    /// Runs `f` in the writer thread, inside a transaction committed with
    /// others (group commit); answers once the commit is durable. An `Err`
    /// from `f` rolls back what `f` wrote (and only that).
    pub async fn write<R: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> ApiResult<R> + Send + 'static,
    ) -> ApiResult<R> {
        let (tx, rx) = oneshot::channel::<ApiResult<R>>();
        let work: Work = Box::new(move |c| {
            let r = f(c);
            let ok = r.is_ok();
            let finish: Finish = Box::new(move |committed| {
                let _ = tx.send(if committed {
                    r
                } else {
                    r.and(Err(ApiError::internal()))
                });
            });
            (ok, finish)
        });
        self.writer.send(Job(work)).await.map_err(|_| {
            tracing::error!("the store writer has stopped");
            ApiError::internal()
        })?;
        rx.await.unwrap_or_else(|_| {
            tracing::error!("the store writer dropped a job");
            Err(ApiError::internal())
        })
    }

    /// Runs a read on a pooled read connection, off the async threads.
    pub async fn read<R: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<R> + Send + 'static,
    ) -> ApiResult<R> {
        let readers = self.readers.clone();
        let result = tokio::task::spawn_blocking(move || {
            let conn = match readers.idle.lock().ok().and_then(|mut v| v.pop()) {
                Some(c) => c,
                None => open(&readers.path)?,
            };
            let r = f(&conn);
            if let Ok(mut idle) = readers.idle.lock() {
                if idle.len() < 16 {
                    idle.push(conn);
                }
            }
            r
        })
        .await;
        match result {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(e)) => {
                tracing::error!(error = %e, "store read failed");
                Err(ApiError::internal())
            }
            Err(e) => {
                tracing::error!(error = %e, "store read task failed");
                Err(ApiError::internal())
            }
        }
    }

    /// True when the database answers and the writer runs.
    pub async fn ready(&self) -> bool {
        !self.writer.is_closed()
            && self
                .read(|c| {
                    c.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
                        r.get::<_, i64>(0)
                    })
                })
                .await
                .is_ok()
    }
}

fn writer(mut conn: Connection, mut rx: mpsc::Receiver<Job>) {
    let mut batch = Vec::with_capacity(GROUP);
    while let Some(first) = rx.blocking_recv() {
        batch.push(first);
        while batch.len() < GROUP {
            match rx.try_recv() {
                Ok(j) => batch.push(j),
                Err(_) => break,
            }
        }
        let mut finishers: Vec<Finish> = Vec::with_capacity(batch.len());
        let committed = (|| -> rusqlite::Result<()> {
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            for Job(work) in batch.drain(..) {
                tx.execute_batch("SAVEPOINT job")?;
                // A panic in a job (a bug) loses that job, not the writer.
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&tx))) {
                    Ok((true, finish)) => {
                        tx.execute_batch("RELEASE job")?;
                        finishers.push(finish);
                    }
                    Ok((false, finish)) => {
                        tx.execute_batch("ROLLBACK TO job; RELEASE job")?;
                        finishers.push(finish);
                    }
                    Err(_) => {
                        tracing::error!("a store job panicked");
                        tx.execute_batch("ROLLBACK TO job; RELEASE job")?;
                    }
                }
            }
            tx.commit()
        })();
        if let Err(e) = &committed {
            tracing::error!(error = %e, "store commit failed");
        }
        // Jobs never run (the transaction failed early) are dropped: their callers get a 500.
        batch.clear();
        for finish in finishers {
            finish(committed.is_ok());
        }
    }
}

fn db_error(e: rusqlite::Error) -> ApiError {
    tracing::error!(error = %e, "store write failed");
    ApiError::internal()
}

fn accept(tx: &Connection, a: &Accept) -> ApiResult<Accepted> {
    let now = now_ms();
    if let Some((key, hash)) = &a.idempotency {
        let found: Option<(String, String, i64)> = tx
            .query_row(
                "SELECT request_hash, document_id, created_at FROM idempotency_keys WHERE account = ?1 AND key = ?2",
                params![a.account, key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(db_error)?;
        if let Some((old_hash, document_id, created)) = found {
            if now - created < IDEMPOTENCY_TTL_MS {
                if &old_hash != hash {
                    return Err(ApiError::new(
                        axum::http::StatusCode::CONFLICT,
                        "IDEMPOTENCY_KEY_REUSED",
                        "this Idempotency-Key was used in the last 24 hours with another request body",
                    ));
                }
                let document = summary(tx, &a.account, &document_id)
                    .map_err(db_error)?
                    .ok_or_else(ApiError::internal)?;
                return Ok(Accepted {
                    document,
                    replayed: true,
                });
            }
            tx.execute(
                "DELETE FROM idempotency_keys WHERE account = ?1 AND key = ?2",
                params![a.account, key],
            )
            .map_err(db_error)?;
        }
    }
    let number: i64 = tx
        .query_row(
            "INSERT INTO control_numbers (account, partner_id, last) VALUES (?1, ?2, 1)
             ON CONFLICT (account, partner_id) DO UPDATE SET last = last + 1 RETURNING last",
            params![a.account, a.partner.id],
            |r| r.get(0),
        )
        .map_err(db_error)?;
    if number > MAX_CONTROL {
        return Err(ApiError::new(
            axum::http::StatusCode::CONFLICT,
            "CONTROL_NUMBERS_EXHAUSTED",
            format!(
                "every control number 1–999999999 has been used for partner {}",
                a.partner.id
            ),
        ));
    }
    let rendered = x12::render(
        &a.document_type,
        &a.payload,
        &a.partner.profile,
        number as u64,
        now,
    )?;
    let id = format!("doc_{}", uuid::Uuid::now_v7().simple());
    tx.execute(
        "INSERT INTO documents (id, account, partner_id, document_type, direction, status, created_at,
            updated_at, interchange_control, group_control, transaction_control, payload, x12, warnings)
         VALUES (?1, ?2, ?3, ?4, 'outbound', 'queued', ?5, ?5, ?6, ?6, ?6, ?7, ?8, ?9)",
        params![
            id,
            a.account,
            a.partner.id,
            a.document_type,
            now,
            number,
            a.payload.to_string(),
            rendered.x12,
            rendered.warnings.to_string()
        ],
    )
    .map_err(db_error)?;
    tx.execute(
        "INSERT INTO status_history (document_id, status, reason, at) VALUES (?1, 'queued', 'accepted', ?2)",
        params![id, now],
    )
    .map_err(db_error)?;
    if let Some((key, hash)) = &a.idempotency {
        tx.execute(
            "INSERT INTO idempotency_keys (account, key, request_hash, document_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![a.account, key, hash, id, now],
        )
        .map_err(db_error)?;
    }
    let document = summary(tx, &a.account, &id)
        .map_err(db_error)?
        .ok_or_else(ApiError::internal)?;
    Ok(Accepted {
        document,
        replayed: false,
    })
}

const LIST_COLUMNS: &str = "id, partner_id, document_type, direction, status, created_at, updated_at, \
     interchange_control, group_control, transaction_control, seq";

fn list_item(r: &rusqlite::Row<'_>) -> rusqlite::Result<(Value, i64)> {
    let control = |i: usize| -> rusqlite::Result<Value> {
        Ok(r.get::<_, Option<i64>>(i)?.map_or(Value::Null, Value::from))
    };
    Ok((
        json!({
            "documentId": r.get::<_, String>(0)?,
            "partnerId": r.get::<_, String>(1)?,
            "documentTypeCode": r.get::<_, String>(2)?,
            "direction": r.get::<_, String>(3)?,
            "status": r.get::<_, String>(4)?,
            "createdAt": rfc3339(r.get(5)?),
            "updatedAt": rfc3339(r.get(6)?),
            "controlNumbers": {
                "interchange": control(7)?,
                "group": control(8)?,
                "transaction": control(9)?,
            },
        }),
        r.get(10)?,
    ))
}

/// The summary of one document of the account (`None`: not the account's).
pub fn summary(c: &Connection, account: &str, id: &str) -> rusqlite::Result<Option<Value>> {
    c.query_row(
        &format!("SELECT {LIST_COLUMNS} FROM documents WHERE account = ?1 AND id = ?2"),
        params![account, id],
        list_item,
    )
    .optional()
    .map(|o| o.map(|(v, _)| v))
}

/// A page of the account's documents, newest first, strictly older than `before` (a `seq`).
/// Returns the items and the `seq` of the last one when more follow.
pub fn list(
    c: &Connection,
    account: &str,
    status: Option<&str>,
    before: Option<i64>,
    limit: usize,
) -> rusqlite::Result<(Vec<Value>, Option<i64>)> {
    let mut stmt = c.prepare_cached(&format!(
        "SELECT {LIST_COLUMNS} FROM documents
         WHERE account = ?1 AND (?2 IS NULL OR status = ?2) AND (?3 IS NULL OR seq < ?3)
         ORDER BY seq DESC LIMIT ?4"
    ))?;
    let rows = stmt.query_map(
        params![account, status, before, limit as i64 + 1],
        list_item,
    )?;
    let mut items = Vec::with_capacity(limit + 1);
    for r in rows {
        items.push(r?);
    }
    let more = items.len() > limit;
    items.truncate(limit);
    let next = if more {
        items.last().map(|(_, s)| *s)
    } else {
        None
    };
    Ok((items.into_iter().map(|(v, _)| v).collect(), next))
}

/// The full status of one document of the account (`None`: not the account's).
pub fn detail(c: &Connection, account: &str, id: &str) -> rusqlite::Result<Option<Value>> {
    let Some(mut doc) = summary(c, account, id)? else {
        return Ok(None);
    };
    #[allow(clippy::type_complexity)]
    let (x12, warnings, diagnostics, ack, attempts, failure, payload, direction, deadline): (
        Option<Vec<u8>>,
        String,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        String,
        String,
        Option<i64>,
    ) = c.query_row(
        "SELECT x12, warnings, diagnostics, partner_ack, route_attempts, failure, payload, direction,
                ack_deadline
         FROM documents WHERE id = ?1",
        params![id],
        |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
                r.get(8)?,
            ))
        },
    )?;
    let parse = |t: Option<String>| -> Value {
        t.and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null)
    };
    let mut stmt = c.prepare_cached(
        "SELECT status, reason, at FROM status_history WHERE document_id = ?1 ORDER BY id",
    )?;
    let history = stmt
        .query_map(params![id], |r| {
            Ok(json!({
                "status": r.get::<_, String>(0)?,
                "reason": r.get::<_, String>(1)?,
                "at": rfc3339(r.get(2)?),
            }))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut stmt = c.prepare_cached(
        "SELECT id, event, attempts, last_result, state, url, next_at, delivered_at
         FROM webhook_deliveries WHERE document_id = ?1 ORDER BY id",
    )?;
    let mut deliveries = stmt
        .query_map(params![id], |r| {
            let state: String = r.get(4)?;
            Ok(json!({
                "id": r.get::<_, String>(0)?,
                "event": r.get::<_, String>(1)?,
                "attempts": r.get::<_, i64>(2)?,
                "lastResult": r.get::<_, Option<String>>(3)?,
                "state": state,
                "url": r.get::<_, String>(5)?,
                "nextAttemptAt": if state == "pending" {
                    r.get::<_, Option<i64>>(6)?.map(rfc3339)
                } else {
                    None
                },
                "deliveredAt": r.get::<_, Option<i64>>(7)?.map(rfc3339),
            }))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut stmt = c.prepare_cached(
        "SELECT attempt, at, status, result, duration_ms FROM webhook_attempts
         WHERE delivery_id = ?1 ORDER BY attempt",
    )?;
    for d in &mut deliveries {
        let delivery_id = d["id"].as_str().unwrap_or_default().to_string();
        let log = stmt
            .query_map(params![delivery_id], |r| {
                Ok(json!({
                    "attempt": r.get::<_, i64>(0)?,
                    "at": rfc3339(r.get(1)?),
                    "httpStatus": r.get::<_, Option<i64>>(2)?,
                    "result": r.get::<_, String>(3)?,
                    "durationMs": r.get::<_, i64>(4)?,
                }))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        d["attemptLog"] = Value::Array(log);
    }
    if direction == "inbound" {
        doc["document"] = parse(Some(payload));
    }
    doc["routingAttempts"] = parse(attempts);
    doc["failureReason"] = failure.map_or(Value::Null, Value::String);
    doc["acknowledgementDueAt"] = deadline.map_or(Value::Null, |d| Value::String(rfc3339(d)));
    doc["statusHistory"] = Value::Array(history);
    doc["x12"] = x12.map_or(Value::Null, |b| {
        Value::String(String::from_utf8_lossy(&b).into_owned())
    });
    doc["renderWarnings"] = parse(Some(warnings));
    doc["diagnostics"] = parse(diagnostics);
    doc["partnerAcknowledgement"] = parse(ack);
    doc["webhookDeliveries"] = Value::Array(deliveries);
    Ok(Some(doc))
}
