//! The store: SQLite by default (one file, migrated on start, WAL with
//! `synchronous=FULL`), PostgreSQL when the database is a `postgres://` URL.
//! Both run the same queries through [`crate::db::Db`].
//!
//! All writes of a process go through one writer thread that owns the write
//! connection and commits in groups: it takes every job waiting in its queue,
//! runs each in its own savepoint and commits them in one transaction (one
//! fsync for the group), then answers each caller. A caller is answered only
//! after its commit is durable. Reads use a small pool of read connections on
//! the blocking thread pool (WAL lets them run while the writer commits).

use crate::db::{Db, DbError, DbResult, PgConn, Row};
use crate::error::{ApiError, ApiResult};
use crate::settings::partner::Partner;
use crate::status::{Delivery, Status};
use crate::vals;
use crate::x12;
use rusqlite::Connection;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

/// Versioned migrations of SQLite, applied in order once each (`PRAGMA user_version`).
const MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("../migrations/0001_documents.sql")),
    (2, include_str!("../migrations/0002_lifecycle.sql")),
    (3, include_str!("../migrations/0003_leases.sql")),
    (4, include_str!("../migrations/0004_delivery_order.sql")),
    (5, include_str!("../migrations/0005_pending_deliveries.sql")),
    (6, include_str!("../migrations/0006_route_claims.sql")),
    (7, include_str!("../migrations/0007_settings.sql")),
    (8, include_str!("../migrations/0008_partner_links.sql")),
    (9, include_str!("../migrations/0009_dashboard.sql")),
    (10, include_str!("../migrations/0010_inbound_claims.sql")),
];

/// The same schema for PostgreSQL (table `schema_migrations`).
const PG_MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("../migrations/postgres/0001_documents.sql")),
    (2, include_str!("../migrations/postgres/0002_lifecycle.sql")),
    (3, include_str!("../migrations/postgres/0003_leases.sql")),
    (
        4,
        include_str!("../migrations/postgres/0004_delivery_order.sql"),
    ),
    (
        5,
        include_str!("../migrations/postgres/0005_pending_deliveries.sql"),
    ),
    (
        6,
        include_str!("../migrations/postgres/0006_route_claims.sql"),
    ),
    (7, include_str!("../migrations/postgres/0007_settings.sql")),
    (
        8,
        include_str!("../migrations/postgres/0008_partner_links.sql"),
    ),
    (9, include_str!("../migrations/postgres/0009_dashboard.sql")),
    (
        10,
        include_str!("../migrations/postgres/0010_inbound_claims.sql"),
    ),
];

/// Largest number of jobs committed in one transaction.
const GROUP: usize = 512;

/// How long an idempotency key is remembered (24 h).
pub const IDEMPOTENCY_TTL_MS: i64 = 24 * 3600 * 1000;

/// Largest X12 control number.
const MAX_CONTROL: i64 = 999_999_999;

/// Where the data lives.
#[derive(Debug, Clone)]
pub enum Location {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL URL (`postgres://user@host:port/db`).
    Postgres(String),
}

impl Location {
    /// `postgres://` and `postgresql://` URLs are PostgreSQL; anything else is a SQLite file.
    pub fn of(database: &Path) -> Location {
        let text = database.to_string_lossy();
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            Location::Postgres(text.into_owned())
        } else {
            Location::Sqlite(database.to_path_buf())
        }
    }

    /// For logs: the file, or the URL without its password.
    pub fn display(&self) -> String {
        match self {
            Location::Sqlite(p) => p.display().to_string(),
            Location::Postgres(u) => match (u.find("://"), u.rfind('@')) {
                (Some(a), Some(b)) if b > a => format!("{}://…@{}", &u[..a], &u[b + 1..]),
                _ => u.clone(),
            },
        }
    }

    /// True for PostgreSQL.
    pub fn is_postgres(&self) -> bool {
        matches!(self, Location::Postgres(_))
    }
}

/// Handle on the store (cheap to clone).
#[derive(Debug, Clone)]
pub struct Store {
    writer: mpsc::Sender<Job>,
    readers: Arc<Readers>,
    location: Location,
    /// PostgreSQL: the accepts waiting for the next batch ([`Store::accept`]), started on
    /// first use.
    accepts: Arc<std::sync::OnceLock<mpsc::UnboundedSender<(Accept, AcceptAnswer)>>>,
    /// PostgreSQL: accepts with the same `Idempotency-Key` run one after the other in this
    /// process (a lock per key hash), so that with several writers the second still finds
    /// the first's committed document and replays it.
    keyed: Arc<Vec<tokio::sync::Mutex<()>>>,
    /// Whether the writes succeed (a full disk, a database restarting: see [`Health`]).
    health: Arc<Health>,
}

/// Whether the store takes writes: set by the writer when a group fails because the store
/// cannot work (a full disk, an I/O error, the database restarting), cleared by the first
/// group committed at least a second after the last such failure (so that a group that
/// wrote nothing does not clear it while writes still fail). The change is logged once
/// each way; `/readyz` answers 503 `STORE_UNAVAILABLE` meanwhile.
#[derive(Debug, Default)]
pub struct Health {
    /// The cause and when it was last seen (`crate::serve::clock::now_ms`).
    fault: Mutex<Option<(String, u64)>>,
}

impl Health {
    fn failed(&self, e: &DbError) {
        if !e.unavailable {
            return;
        }
        let mut f = self
            .fault
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if f.is_none() {
            tracing::error!(error = %e, "the store cannot take writes; requests that write answer 503 STORE_UNAVAILABLE and the workers wait until it can");
        }
        *f = Some((e.message.clone(), crate::serve::clock::now_ms()));
    }

    fn committed(&self) {
        let mut f = self
            .fault
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((cause, at)) = f.as_ref()
            && crate::serve::clock::now_ms().saturating_sub(*at) >= 1000
        {
            tracing::info!(was = %cause, "the store takes writes again");
            *f = None;
        }
    }

    /// The cause, while the store cannot take writes.
    pub fn fault(&self) -> Option<String> {
        self.fault
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .map(|(c, _)| c.clone())
    }
}

/// Where a batched accept's answer goes.
type AcceptAnswer = oneshot::Sender<ApiResult<Accepted>>;

/// Accepts per batch at most.
const ACCEPT_BATCH: usize = 256;

#[derive(Debug)]
enum Idle {
    Sqlite(Vec<Connection>),
    Postgres(Vec<PgConn>),
}

#[derive(Debug)]
struct Readers {
    location: Location,
    idle: Mutex<Idle>,
    /// Reads running at once, at most [`READERS`]: every read then finds a pooled
    /// connection (opening one costs far more than a list query), and the others wait
    /// without holding a thread.
    slots: tokio::sync::Semaphore,
}

/// Read connections (and reads at once) per process.
const READERS: usize = 8;

impl Drop for Readers {
    fn drop(&mut self) {
        // A PostgreSQL client blocks on its own runtime when it closes, which must not
        // happen on a tokio thread (at shutdown the store is dropped on one).
        if let Ok(Idle::Postgres(conns)) = self.idle.get_mut() {
            let conns = std::mem::take(conns);
            if !conns.is_empty() {
                let _ = std::thread::Builder::new()
                    .name("x12kit-store-close".into())
                    .spawn(move || drop(conns))
                    .map(|h| h.join());
            }
        }
    }
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
    /// The business reference of the payload (the field the core names for the type).
    pub reference: Option<String>,
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
type Work = Box<dyn FnOnce(&dyn Db) -> (bool, Finish) + Send>;
type Finish = Box<dyn FnOnce(Result<(), DbError>) + Send>;

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

/// Applies the PostgreSQL migrations under an advisory lock (several processes may start at once).
fn migrate_pg(conn: &mut PgConn) -> Result<(), String> {
    let c = &mut conn.client;
    let run = |c: &mut postgres::Client| -> Result<(), String> {
        c.batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)",
        )
        .map_err(|e| e.to_string())?;
        let current: i64 = c
            .query_one(
                "SELECT COALESCE(max(version), 0) FROM schema_migrations",
                &[],
            )
            .and_then(|r| r.try_get(0))
            .map_err(|e| e.to_string())?;
        let newest = PG_MIGRATIONS.last().map_or(0, |m| m.0);
        if current > newest {
            return Err(format!(
                "the database is at schema version {current}, newer than this server ({newest})"
            ));
        }
        for (version, sql) in PG_MIGRATIONS {
            if *version <= current {
                continue;
            }
            let mut tx = c.transaction().map_err(|e| e.to_string())?;
            tx.batch_execute(sql)
                .and_then(|_| {
                    tx.execute(
                        "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
                        &[version, &now_ms()],
                    )
                })
                .map_err(|e| format!("migration {version}: {e}"))?;
            tx.commit()
                .map_err(|e| format!("migration {version}: {e}"))?;
        }
        Ok(())
    };
    c.batch_execute("SELECT pg_advisory_lock(1215261)")
        .map_err(|e| e.to_string())?;
    let result = run(c);
    let _ = c.batch_execute("SELECT pg_advisory_unlock(1215261)");
    result
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// `2026-11-24T18:42:10.123Z` from Unix milliseconds.
pub fn rfc3339(ms: i64) -> String {
    Rfc3339(ms).to_string()
}

/// Unix milliseconds of an RFC 3339 time (`2026-11-24T18:42:10Z`, `2026-11-24T00:00:00+01:00`,
/// fractions of a second allowed) or of a date (`2026-11-24`: its midnight, UTC).
pub fn parse_time(text: &str) -> Option<i64> {
    use time::format_description::well_known::Rfc3339 as Format;
    let t = match time::OffsetDateTime::parse(text, &Format) {
        Ok(t) => t,
        Err(_) => {
            let mut parts = text.splitn(3, '-');
            let mut next = |len: usize| {
                parts
                    .next()
                    .filter(|p| p.len() == len && p.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|p| p.parse::<u16>().ok())
            };
            let (y, m, d) = (next(4)?, next(2)?, next(2)?);
            let month = time::Month::try_from(u8::try_from(m).ok()?).ok()?;
            time::Date::from_calendar_date(i32::from(y), month, u8::try_from(d).ok()?)
                .ok()?
                .midnight()
                .assume_utc()
        }
    };
    i64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok()
}

/// A time in Unix milliseconds that displays and serializes as [`rfc3339`] does, without
/// a `String` of its own (list pages hold two per item).
#[derive(Debug, Clone, Copy)]
pub struct Rfc3339(pub i64);

impl std::fmt::Display for Rfc3339 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = self.0;
        let secs = ms.div_euclid(1000);
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (y, m, d) = civil(days);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
            rem / 3600,
            rem % 3600 / 60,
            rem % 60,
            ms.rem_euclid(1000)
        )
    }
}

impl serde::Serialize for Rfc3339 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use std::io::Write;
        let mut buf = [0u8; 40];
        let mut cursor = std::io::Cursor::new(&mut buf[..]);
        if write!(cursor, "{self}").is_err() {
            return s.collect_str(self);
        }
        let n = cursor.position() as usize;
        match std::str::from_utf8(&buf[..n]) {
            Ok(text) => s.serialize_str(text),
            Err(_) => s.collect_str(self),
        }
    }
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
    pub fn open(location: Location) -> Result<Store, String> {
        let (tx, rx) = mpsc::channel(4096);
        let health = Arc::new(Health::default());
        let shown = location.display();
        let idle = match &location {
            Location::Sqlite(path) => {
                let mut conn =
                    open(path).map_err(|e| format!("cannot open database {shown}: {e}"))?;
                migrate(&mut conn).map_err(|e| format!("database {shown}: {e}"))?;
                let h = health.clone();
                std::thread::Builder::new()
                    .name("x12kit-store-writer".into())
                    .spawn(move || writer_sqlite(conn, rx, &h))
                    .map_err(|e| format!("cannot start the store writer: {e}"))?;
                Idle::Sqlite(Vec::new())
            }
            Location::Postgres(url) => {
                let mut conn = PgConn::connect(url)
                    .map_err(|e| format!("cannot connect to database {shown}: {e}"))?;
                migrate_pg(&mut conn).map_err(|e| format!("database {shown}: {e}"))?;
                let mut conns = vec![conn];
                for _ in 1..PG_WRITERS {
                    conns.push(
                        PgConn::connect(url)
                            .map_err(|e| format!("cannot connect to database {shown}: {e}"))?,
                    );
                }
                let rx = Arc::new(Mutex::new(rx));
                for conn in conns {
                    let rx = rx.clone();
                    let h = health.clone();
                    std::thread::Builder::new()
                        .name("x12kit-store-writer".into())
                        .spawn(move || writer_pg(conn, &rx, &h))
                        .map_err(|e| format!("cannot start the store writer: {e}"))?;
                }
                Idle::Postgres(Vec::new())
            }
        };
        Ok(Store {
            writer: tx,
            readers: Arc::new(Readers {
                location: location.clone(),
                idle: Mutex::new(idle),
                slots: tokio::sync::Semaphore::new(READERS),
            }),
            location,
            accepts: Arc::default(),
            keyed: Arc::new((0..64).map(|_| tokio::sync::Mutex::new(())).collect()),
            health,
        })
    }

    /// Why the store cannot take writes now, if it cannot (see [`Health`]).
    pub fn write_fault(&self) -> Option<String> {
        self.health.fault()
    }

    /// The error of a write whose job was dropped unrun (its group's transaction failed).
    fn not_run(&self) -> ApiError {
        if self.health.fault().is_some() {
            ApiError::store_unavailable()
        } else {
            tracing::error!("the store writer dropped a job");
            ApiError::internal()
        }
    }

    /// Where the data lives.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// Accepts an outbound document: idempotency, control numbers, render, insert; durable on return.
    ///
    /// On PostgreSQL, where every statement is a round trip and PostgreSQL's own work per
    /// statement is what limits the rate, the accepts without an `Idempotency-Key` that
    /// arrive together are written together ([`accept_many`]): the document is first
    /// rendered here with a stand-in control number (so a document the core refuses is
    /// answered at once and takes no number), then the batch takes its numbers in one
    /// statement per partner, is rendered with them and inserted in one statement. Each
    /// caller is answered after the batch's commit, as before.
    pub async fn accept(&self, job: Accept) -> ApiResult<Accepted> {
        if !self.location.is_postgres() {
            return self.write(move |c| accept_in(c, &job)).await;
        }
        if let Some((key, _)) = &job.idempotency {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (&job.account, key).hash(&mut h);
            let _same_key = self.keyed[(h.finish() % self.keyed.len() as u64) as usize]
                .lock()
                .await;
            return self.write(move |c| accept_in(c, &job)).await;
        }
        x12::render(
            &job.document_type,
            &job.payload,
            &job.partner.profile,
            1,
            now_ms(),
        )?;
        let (answer, rx) = oneshot::channel();
        self.accepts
            .get_or_init(|| self.start_accepts())
            .send((job, answer))
            .map_err(|_| ApiError::internal())?;
        rx.await.unwrap_or_else(|_| Err(self.not_run()))
    }

    /// The task that writes waiting accepts in batches: everything waiting when the
    /// previous batch is committed goes into the next one, one store job per partner
    /// (so that a partner whose control numbers ran out fails only its own documents).
    fn start_accepts(&self) -> mpsc::UnboundedSender<(Accept, AcceptAnswer)> {
        let (tx, mut rx) = mpsc::unbounded_channel::<(Accept, AcceptAnswer)>();
        let store = self.clone();
        tokio::spawn(async move {
            let mut waiting = Vec::with_capacity(ACCEPT_BATCH);
            while rx.recv_many(&mut waiting, ACCEPT_BATCH).await > 0 {
                let mut by_partner: Vec<(Vec<Accept>, Vec<AcceptAnswer>)> = Vec::new();
                for (job, answer) in waiting.drain(..) {
                    match by_partner.iter_mut().find(|(jobs, _)| {
                        jobs[0].account == job.account && jobs[0].partner.id == job.partner.id
                    }) {
                        Some((jobs, answers)) => {
                            jobs.push(job);
                            answers.push(answer);
                        }
                        None => by_partner.push((vec![job], vec![answer])),
                    }
                }
                let mut writes = tokio::task::JoinSet::new();
                for (jobs, answers) in by_partner {
                    let store = store.clone();
                    writes.spawn(async move {
                        match store.write(move |c| accept_many(c, &jobs)).await {
                            Ok(results) => {
                                for (answer, r) in answers.into_iter().zip(results) {
                                    let _ = answer.send(r);
                                }
                            }
                            Err(e) => {
                                let unavailable = e.is_store_unavailable();
                                for answer in answers {
                                    let _ = answer.send(Err(if unavailable {
                                        ApiError::store_unavailable()
                                    } else {
                                        ApiError::internal()
                                    }));
                                }
                            }
                        }
                    });
                }
                writes.join_all().await;
            }
        });
        tx
    }

    /// Runs `f` in the writer thread, inside a transaction committed with
    /// others (group commit); answers once the commit is durable. An `Err`
    /// from `f` rolls back what `f` wrote (and only that).
    pub async fn write<R: Send + 'static>(
        &self,
        f: impl FnOnce(&dyn Db) -> ApiResult<R> + Send + 'static,
    ) -> ApiResult<R> {
        let started = std::time::Instant::now();
        let (tx, rx) = oneshot::channel::<ApiResult<R>>();
        let work: Work = Box::new(move |c| {
            let r = f(c);
            let ok = r.is_ok();
            let finish: Finish = Box::new(move |committed| {
                let _ = tx.send(match committed {
                    Ok(()) => r,
                    Err(e) => r.and(Err(store_error(e))),
                });
            });
            (ok, finish)
        });
        self.writer.send(Job(work)).await.map_err(|_| {
            tracing::error!("the store writer has stopped");
            ApiError::internal()
        })?;
        let r = rx.await.unwrap_or_else(|_| Err(self.not_run()));
        crate::metrics::WRITE_WAIT.add(started.elapsed());
        r
    }

    /// Runs a read on a pooled read connection, off the async threads.
    pub async fn read<R: Send + 'static>(
        &self,
        f: impl FnOnce(&dyn Db) -> DbResult<R> + Send + 'static,
    ) -> ApiResult<R> {
        let readers = self.readers.clone();
        let started = std::time::Instant::now();
        let Ok(_slot) = self.readers.slots.acquire().await else {
            return Err(ApiError::internal());
        };
        let result = tokio::task::spawn_blocking(move || -> DbResult<R> {
            match &readers.location {
                Location::Sqlite(path) => {
                    let pooled = match readers.idle.lock().as_deref_mut() {
                        Ok(Idle::Sqlite(v)) => v.pop(),
                        _ => None,
                    };
                    let conn = match pooled {
                        Some(c) => c,
                        None => open(path)?,
                    };
                    let r = f(&conn);
                    if let Ok(Idle::Sqlite(idle)) = readers.idle.lock().as_deref_mut()
                        && idle.len() < READERS
                    {
                        idle.push(conn);
                    }
                    r
                }
                Location::Postgres(url) => {
                    let pooled = match readers.idle.lock().as_deref_mut() {
                        Ok(Idle::Postgres(v)) => v.pop(),
                        _ => None,
                    };
                    let mut conn = match pooled {
                        Some(c) => c,
                        None => PgConn::connect(url)?,
                    };
                    let PgConn { client, cache, .. } = &mut conn;
                    let r = f(&crate::db::Pg::new(client, cache));
                    if let Ok(Idle::Postgres(idle)) = readers.idle.lock().as_deref_mut() {
                        if conn.client.is_closed() {
                            // The database went away (a restart): the other idle
                            // connections are as dead; the next reads connect afresh.
                            idle.clear();
                        } else if r.is_ok() && idle.len() < READERS {
                            idle.push(conn);
                        }
                    }
                    r
                }
            }
        })
        .await;
        crate::metrics::READ.add(started.elapsed());
        match result {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(e)) => Err(store_error(e)),
            Err(e) => {
                tracing::error!(error = %e, "store read task failed");
                Err(ApiError::internal())
            }
        }
    }

    /// True when the database answers and the writer runs.
    pub async fn ready(&self) -> bool {
        !self.writer.is_closed() && self.read(|c| c.query("SELECT 1", &[])).await.is_ok()
    }
}

/// The writer's connection, counting each statement and its time (`crate::metrics`).
struct Counting<'a>(&'a dyn Db);

impl Db for Counting<'_> {
    fn exec(&self, sql: &str, params: &[crate::db::Val]) -> DbResult<u64> {
        let start = std::time::Instant::now();
        let r = self.0.exec(sql, params);
        crate::metrics::statement(sql, start.elapsed());
        r
    }

    fn query(&self, sql: &str, params: &[crate::db::Val]) -> DbResult<Vec<Row>> {
        let start = std::time::Instant::now();
        let r = self.0.query(sql, params);
        crate::metrics::statement(sql, start.elapsed());
        r
    }

    fn skip_locked(&self) -> &'static str {
        self.0.skip_locked()
    }

    fn batch(&self, sql: &str) -> DbResult<()> {
        let start = std::time::Instant::now();
        let r = self.0.batch(sql);
        crate::metrics::statement(sql, start.elapsed());
        r
    }

    fn defer(&self, sql: &str, params: &[crate::db::Val]) -> DbResult<()> {
        let start = std::time::Instant::now();
        let r = self.0.defer(sql, params);
        crate::metrics::statement(sql, start.elapsed());
        r
    }

    fn take_deferred(&self) -> String {
        self.0.take_deferred()
    }
}

/// Runs one group of jobs on `db` (inside the group's transaction); `Err` when the
/// transaction itself failed. The finishers of the jobs that ran are in `finishers`.
///
/// Each job runs in its own savepoint. On PostgreSQL, where every statement is a round
/// trip, a job's deferred statements ([`Db::defer`]: its history and outbox inserts), the
/// release of its savepoint and the next job's savepoint go in one call; if that call
/// fails, the job is rolled back and its caller told so.
fn run_group(db: &dyn Db, batch: &mut Vec<Job>, finishers: &mut Vec<Finish>) -> DbResult<()> {
    let db = &Counting(db);
    let postgres = !db.skip_locked().is_empty();
    if postgres {
        db.exec("SAVEPOINT job", &[])?;
    }
    // Jobs are taken one at a time, not drained: when a statement fails part-way (the
    // database going away), the jobs not yet run must stay in `batch` until
    // `finish_group` has recorded the fault, so that their callers, woken when they are
    // dropped, answer 503 STORE_UNAVAILABLE rather than 500 (a drained iterator dropped
    // them at the `?`, before the fault was known).
    batch.reverse();
    while !batch.is_empty() {
        if !postgres {
            db.exec("SAVEPOINT job", &[])?;
        }
        let Some(Job(work)) = batch.pop() else {
            break;
        };
        // A panic in a job (a bug) loses that job, not the writer.
        let started = std::time::Instant::now();
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(db)));
        crate::metrics::JOB.add(started.elapsed());
        let deferred = db.take_deferred();
        let (ok, finish) = match ran {
            Ok((ok, finish)) => (ok, Some(finish)),
            Err(_) => {
                tracing::error!("a store job panicked");
                (false, None)
            }
        };
        let mut deferred_error = None;
        let ok = if ok && postgres {
            match db.batch(&format!("{deferred}RELEASE SAVEPOINT job; SAVEPOINT job")) {
                Ok(()) => true,
                Err(e) => {
                    tracing::error!(error = %e, "a store job's deferred statements failed");
                    deferred_error = Some(e);
                    false
                }
            }
        } else {
            ok
        };
        // Kept before the statements below, which can fail: the group's failure then
        // reaches this job's caller through its finisher, after the fault is recorded.
        if let Some(finish) = finish {
            finishers.push(match deferred_error {
                None => finish,
                // The job's own result was Ok, but its deferred statements failed.
                Some(e) => Box::new(move |_| finish(Err(e))),
            });
        }
        if !ok {
            // The savepoint is still there (its release did not run): back to it.
            db.exec("ROLLBACK TO SAVEPOINT job", &[])?;
        }
        if !postgres {
            db.exec("RELEASE SAVEPOINT job", &[])?;
        }
    }
    Ok(())
}

fn next_group(rx: &mut mpsc::Receiver<Job>, batch: &mut Vec<Job>) -> bool {
    let Some(first) = rx.blocking_recv() else {
        return false;
    };
    batch.push(first);
    while batch.len() < GROUP {
        match rx.try_recv() {
            Ok(j) => batch.push(j),
            Err(_) => break,
        }
    }
    true
}

fn finish_group(
    committed: DbResult<()>,
    batch: &mut Vec<Job>,
    finishers: Vec<Finish>,
    health: &Health,
) {
    match &committed {
        Ok(()) => health.committed(),
        Err(e) => {
            if e.unavailable {
                tracing::warn!(error = %e, "store commit failed");
            } else {
                tracing::error!(error = %e, "store commit failed");
            }
            health.failed(e);
        }
    }
    // Jobs never run (the transaction failed early) are dropped: their callers get a 503
    // when the store is unavailable, else a 500 (`Store::not_run`).
    batch.clear();
    for finish in finishers {
        finish(committed.clone());
    }
}

fn writer_sqlite(mut conn: Connection, mut rx: mpsc::Receiver<Job>, health: &Health) {
    let mut batch = Vec::with_capacity(GROUP);
    while next_group(&mut rx, &mut batch) {
        let mut finishers: Vec<Finish> = Vec::with_capacity(batch.len());
        let committed = (|| -> DbResult<()> {
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            run_group(&*tx, &mut batch, &mut finishers)?;
            crate::metrics::COMMIT.time(|| tx.commit())?;
            Ok(())
        })();
        finish_group(committed, &mut batch, finishers, health);
    }
}

/// Writer threads (each with its own connection and its own group transactions) per
/// process on PostgreSQL. Every statement there is a round trip to another process, so
/// one writer spends most of its time waiting for PostgreSQL; several writers keep
/// several statements under way. They take their groups from one queue and are to each
/// other what two server processes are: claims skip each other's locked rows, state
/// changes are compare-and-set on the status, control numbers come from sequences.
/// (SQLite has one writer: it admits one writing transaction at a time.)
const PG_WRITERS: usize = 3;

fn writer_pg(mut conn: PgConn, rx: &Mutex<mpsc::Receiver<Job>>, health: &Health) {
    let mut batch = Vec::with_capacity(GROUP);
    loop {
        let more = {
            let mut rx = rx.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            next_group(&mut rx, &mut batch)
        };
        if !more {
            break;
        }
        if conn.client.is_closed() {
            match PgConn::connect(&conn.url.clone()) {
                Ok(c) => conn = c,
                Err(e) => tracing::warn!(error = %e, "cannot reconnect to the database"),
            }
        }
        let mut finishers: Vec<Finish> = Vec::with_capacity(batch.len());
        let committed = (|| -> DbResult<()> {
            let PgConn { client, cache, .. } = &mut conn;
            let mut tx = client.transaction()?;
            run_group(
                &crate::db::Pg::deferring(&mut tx, cache),
                &mut batch,
                &mut finishers,
            )?;
            crate::metrics::COMMIT.time(|| tx.commit())?;
            Ok(())
        })();
        finish_group(committed, &mut batch, finishers, health);
    }
}

fn db_error(e: DbError) -> ApiError {
    store_error(e)
}

/// The answer to a store failure: 503 `STORE_UNAVAILABLE` when the store cannot work now
/// (logged as a warning: `Health` logs the state once), else a 500 (logged as an error).
pub fn store_error(e: DbError) -> ApiError {
    if e.unavailable {
        tracing::warn!(error = %e, "store unavailable");
        ApiError::store_unavailable()
    } else {
        tracing::error!(error = %e, "store call failed");
        ApiError::internal()
    }
}

/// The PostgreSQL sequence of an account's partner's control numbers.
pub fn control_sequence(account: &str, partner: &str) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(account.as_bytes());
    h.update([0]);
    h.update(partner.as_bytes());
    format!("control_{}", hex::encode(&h.finalize()[..12]))
}

/// Allocates the next control number of the account's partner (1..999999999, never reused).
///
/// SQLite: an upsert in the writer's transaction (a refused render rolls it back, so there
/// are no gaps). PostgreSQL: a sequence per partner (created at start), which hands out
/// numbers without holding a lock until commit, so that several processes accepting at
/// once never wait on each other; `accept` renders before taking a number there, so a
/// refused render takes none (only a transaction lost after `nextval`, a crash or a failed
/// commit, leaves a gap).
pub fn next_control(c: &dyn Db, account: &str, partner: &str) -> ApiResult<i64> {
    let number: i64 = if c.skip_locked().is_empty() {
        c.one(
            "INSERT INTO control_numbers (account, partner_id, last) VALUES (?1, ?2, 1)
             ON CONFLICT (account, partner_id) DO UPDATE SET last = control_numbers.last + 1
             RETURNING last",
            vals![account, partner],
        )
    } else {
        c.one(
            &format!("SELECT nextval('{}')", control_sequence(account, partner)),
            &[],
        )
    }
    .and_then(|r| r.ok_or_else(|| DbError::new("no control number returned")))
    .and_then(|r| r.get(0))
    .map_err(db_error)?;
    if number > MAX_CONTROL {
        return Err(exhausted(partner));
    }
    Ok(number)
}

fn exhausted(partner: &str) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::CONFLICT,
        "CONTROL_NUMBERS_EXHAUSTED",
        format!("every control number 1–999999999 has been used for partner {partner}"),
    )
}

impl Store {
    /// PostgreSQL: creates the control-number sequence of each (account, partner) that has
    /// none (under an advisory lock: several processes may start at once).
    pub fn prepare_partners(&self, partners: &[(String, String)]) -> Result<(), String> {
        let Location::Postgres(url) = &self.location else {
            return Ok(());
        };
        let mut conn = PgConn::connect(url).map_err(|e| e.to_string())?;
        let c = &mut conn.client;
        c.batch_execute("SELECT pg_advisory_lock(1215262)")
            .map_err(|e| e.to_string())?;
        let mut result = Ok(());
        for (account, partner) in partners {
            let name = control_sequence(account, partner);
            if let Err(e) = c.batch_execute(&format!(
                "CREATE SEQUENCE IF NOT EXISTS {name} MINVALUE 1 MAXVALUE 1000000000 NO CYCLE"
            )) {
                result = Err(format!(
                    "cannot create the control numbers of {account}/{partner}: {e}"
                ));
                break;
            }
        }
        let _ = c.batch_execute("SELECT pg_advisory_unlock(1215262)");
        result
    }
}

/// Accepts one document inside the caller's store job (its idempotency, control number,
/// render and rows), as [`Store::accept`] does on SQLite: the CSV intake accepts a file's
/// documents together in one job, all or none.
pub fn accept_in(tx: &dyn Db, a: &Accept) -> ApiResult<Accepted> {
    let now = now_ms();
    if let Some((key, hash)) = &a.idempotency {
        let found = tx
            .one(
                "SELECT request_hash, document_id, created_at FROM idempotency_keys WHERE account = ?1 AND key = ?2",
                vals![&a.account, key],
            )
            .map_err(db_error)?;
        if let Some(row) = found {
            let (old_hash, document_id, created): (String, String, i64) = (
                row.get(0).map_err(db_error)?,
                row.get(1).map_err(db_error)?,
                row.get(2).map_err(db_error)?,
            );
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
            tx.exec(
                "DELETE FROM idempotency_keys WHERE account = ?1 AND key = ?2",
                vals![&a.account, key],
            )
            .map_err(db_error)?;
        }
    }
    if !tx.skip_locked().is_empty() {
        // PostgreSQL: the number comes from a sequence, which a rollback does not give
        // back; so the document is first rendered with a stand-in number, and a document
        // the core refuses takes no number (whether the core accepts a document does not
        // depend on its control number). SQLite rolls the number back instead.
        x12::render(&a.document_type, &a.payload, &a.partner.profile, 1, now)?;
    }
    let number = next_control(tx, &a.account, &a.partner.id)?;
    let rendered = x12::render(
        &a.document_type,
        &a.payload,
        &a.partner.profile,
        number as u64,
        now,
    )?;
    let id = format!("doc_{}", uuid::Uuid::now_v7().simple());
    tx.defer(
        "INSERT INTO documents (id, account, partner_id, document_type, direction, status, created_at,
            updated_at, interchange_control, group_control, transaction_control, payload, x12, warnings,
            reference)
         VALUES (?1, ?2, ?3, ?4, 'outbound', 'queued', ?5, ?5, ?6, ?6, ?6, ?7, ?8, ?9, ?10)",
        vals![
            &id,
            &a.account,
            &a.partner.id,
            &a.document_type,
            now,
            number,
            a.payload.to_string(),
            rendered.x12,
            rendered.warnings.to_string(),
            &a.reference
        ],
    )
    .map_err(db_error)?;
    tx.defer(
        "INSERT INTO status_history (document_id, status, reason, at) VALUES (?1, 'queued', 'accepted', ?2)",
        vals![&id, now],
    )
    .map_err(db_error)?;
    if let Some((key, hash)) = &a.idempotency {
        tx.defer(
            "INSERT INTO idempotency_keys (account, key, request_hash, document_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            vals![&a.account, key, hash, &id, now],
        )
        .map_err(db_error)?;
    }
    // What `summary` would read back, without the round trip.
    let at = Rfc3339(now);
    let document = Summary {
        control_numbers: ControlNumbers {
            group: Some(number),
            interchange: Some(number),
            transaction: Some(number),
        },
        created_at: at,
        direction: "outbound".into(),
        document_id: id,
        document_type_code: a.document_type.clone(),
        partner_id: a.partner.id.clone(),
        reference: a.reference.clone(),
        status: Status::Queued.as_str().into(),
        updated_at: at,
    }
    .to_value();
    Ok(Accepted {
        document,
        replayed: false,
    })
}

/// Accepts documents of one account's partner on PostgreSQL, in one job (see
/// [`Store::accept`]): their control numbers from the partner's sequence in one statement,
/// each rendered with its number, and the documents and their first history rows inserted
/// in one statement. A render the core refuses (already checked with a stand-in number, so
/// this should not happen) fails only its own document; a store error fails the job.
fn accept_many(c: &dyn Db, jobs: &[Accept]) -> ApiResult<Vec<ApiResult<Accepted>>> {
    use crate::db::Val;
    let Some(first) = jobs.first() else {
        return Ok(Vec::new());
    };
    let now = now_ms();
    let numbers = c
        .query(
            &format!(
                "SELECT nextval('{}') FROM generate_series(1, ?1)",
                control_sequence(&first.account, &first.partner.id)
            ),
            vals![jobs.len() as i64],
        )
        .and_then(|rows| {
            rows.iter()
                .map(|r| r.get::<i64>(0))
                .collect::<DbResult<Vec<_>>>()
        })
        .map_err(db_error)?;
    if numbers.len() != jobs.len() {
        tracing::error!(
            "the control number sequence returned {} numbers for {}",
            numbers.len(),
            jobs.len()
        );
        return Err(ApiError::internal());
    }
    let at = Rfc3339(now);
    let mut results = Vec::with_capacity(jobs.len());
    let (mut ids, mut accounts, mut partners, mut types, mut controls) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut payloads, mut x12s, mut warnings, mut references) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (a, number) in jobs.iter().zip(numbers) {
        if number > MAX_CONTROL {
            results.push(Err(exhausted(&a.partner.id)));
            continue;
        }
        let rendered = match x12::render(
            &a.document_type,
            &a.payload,
            &a.partner.profile,
            number as u64,
            now,
        ) {
            Ok(r) => r,
            Err(e) => {
                results.push(Err(e));
                continue;
            }
        };
        let id = format!("doc_{}", uuid::Uuid::now_v7().simple());
        ids.push(Some(id.clone()));
        accounts.push(Some(a.account.clone()));
        partners.push(Some(a.partner.id.clone()));
        types.push(Some(a.document_type.clone()));
        controls.push(Some(number));
        payloads.push(Some(a.payload.to_string()));
        x12s.push(rendered.x12);
        warnings.push(Some(rendered.warnings.to_string()));
        references.push(a.reference.clone());
        results.push(Ok(Accepted {
            document: Summary {
                control_numbers: ControlNumbers {
                    group: Some(number),
                    interchange: Some(number),
                    transaction: Some(number),
                },
                created_at: at,
                direction: "outbound".into(),
                document_id: id,
                document_type_code: a.document_type.clone(),
                partner_id: a.partner.id.clone(),
                reference: a.reference.clone(),
                status: Status::Queued.as_str().into(),
                updated_at: at,
            }
            .to_value(),
            replayed: false,
        }));
    }
    if !ids.is_empty() {
        c.exec(
            "WITH inserted AS (
                INSERT INTO documents (id, account, partner_id, document_type, direction, status,
                    created_at, updated_at, interchange_control, group_control, transaction_control,
                    payload, x12, warnings, reference)
                SELECT u.id, u.account, u.partner_id, u.document_type, 'outbound', 'queued', ?1, ?1,
                    u.control, u.control, u.control, u.payload, u.x12, u.warnings, u.reference
                FROM unnest(?2::text[], ?3::text[], ?4::text[], ?5::text[], ?6::bigint[], ?7::text[],
                            ?8::bytea[], ?9::text[], ?10::text[])
                    WITH ORDINALITY AS u(id, account, partner_id, document_type, control, payload,
                                         x12, warnings, reference, ord)
                ORDER BY u.ord
                RETURNING id
            )
            INSERT INTO status_history (document_id, status, reason, at)
            SELECT h.id, 'queued', 'accepted', ?1
            FROM unnest(?2::text[]) WITH ORDINALITY AS h(id, ord)
            WHERE h.id IN (SELECT id FROM inserted) ORDER BY h.ord",
            &[
                Val::Int(now),
                Val::Texts(ids),
                Val::Texts(accounts),
                Val::Texts(partners),
                Val::Texts(types),
                Val::Ints(controls),
                Val::Texts(payloads),
                Val::Blobs(x12s),
                Val::Texts(warnings),
                Val::Texts(references),
            ],
        )
        .map_err(db_error)?;
    }
    Ok(results)
}

const LIST_COLUMNS: &str = "id, partner_id, document_type, direction, status, created_at, updated_at, \
     interchange_control, group_control, transaction_control, seq, reference";

/// The control numbers of a document (ISA13, GS06, ST02).
#[derive(Debug, serde::Serialize)]
struct ControlNumbers {
    group: Option<i64>,
    interchange: Option<i64>,
    transaction: Option<i64>,
}

/// A document as lists show it. The fields are in the order of their JSON names, so that
/// the bytes are those of the same object built as a `serde_json::Value` (sorted keys).
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    control_numbers: ControlNumbers,
    created_at: Rfc3339,
    direction: String,
    document_id: String,
    document_type_code: String,
    partner_id: String,
    reference: Option<String>,
    status: String,
    updated_at: Rfc3339,
}

impl Summary {
    /// As a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The summary of a row of [`LIST_COLUMNS`] (its texts moved out, not copied).
fn list_item(mut r: Row) -> DbResult<(Summary, i64)> {
    Ok((
        Summary {
            control_numbers: ControlNumbers {
                interchange: r.get(7)?,
                group: r.get(8)?,
                transaction: r.get(9)?,
            },
            created_at: Rfc3339(r.get(5)?),
            direction: r.take_text(3)?,
            document_id: r.take_text(0)?,
            document_type_code: r.take_text(2)?,
            partner_id: r.take_text(1)?,
            reference: r.get(11)?,
            status: r.take_text(4)?,
            updated_at: Rfc3339(r.get(6)?),
        },
        r.get(10)?,
    ))
}

/// The summary of one document of the account (`None`: not the account's).
pub fn summary(c: &dyn Db, account: &str, id: &str) -> DbResult<Option<Value>> {
    match c.one(
        &format!("SELECT {LIST_COLUMNS} FROM documents WHERE account = ?1 AND id = ?2"),
        vals![account, id],
    )? {
        Some(r) => Ok(Some(list_item(r)?.0.to_value())),
        None => Ok(None),
    }
}

/// Which documents a list shows (`GET /transactions`): every condition given must hold.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    /// Lower-case status.
    pub status: Option<String>,
    /// The business reference, exactly.
    pub reference: Option<String>,
    /// The partner id, exactly.
    pub partner_id: Option<String>,
    /// The type code, exactly.
    pub document_type: Option<String>,
    /// `outbound` or `inbound`.
    pub direction: Option<String>,
    /// Created at or after (Unix ms).
    pub since: Option<i64>,
    /// Created before (Unix ms).
    pub until: Option<i64>,
}

/// A page of the account's documents, newest first, strictly older than `before` (a `seq`).
/// Returns the items and the `seq` of the last one when more follow.
pub fn list(
    c: &dyn Db,
    account: &str,
    filter: &Filter,
    before: Option<i64>,
    limit: usize,
) -> DbResult<(Vec<Summary>, Option<i64>)> {
    use crate::db::Val;
    // Only the conditions given (PostgreSQL cannot type a parameter used only in `? IS NULL`).
    let mut params = vec![Val::from(account)];
    let mut clauses = String::new();
    let mut add = |column: &str, op: &str, v: Val| {
        params.push(v);
        clauses.push_str(&format!(" AND {column} {op} ?{}", params.len()));
    };
    for (column, value) in [
        ("status", &filter.status),
        ("reference", &filter.reference),
        ("partner_id", &filter.partner_id),
        ("document_type", &filter.document_type),
        ("direction", &filter.direction),
    ] {
        if let Some(v) = value {
            add(column, "=", v.as_str().into());
        }
    }
    if let Some(t) = filter.since {
        add("created_at", ">=", t.into());
    }
    if let Some(t) = filter.until {
        add("created_at", "<", t.into());
    }
    if let Some(b) = before {
        add("seq", "<", b.into());
    }
    params.push((limit as i64 + 1).into());
    let rows = c.query(
        &format!(
            "SELECT {LIST_COLUMNS} FROM documents WHERE account = ?1{clauses}
             ORDER BY seq DESC LIMIT ?{}",
            params.len()
        ),
        &params,
    )?;
    let mut items = rows
        .into_iter()
        .map(list_item)
        .collect::<DbResult<Vec<_>>>()?;
    let more = items.len() > limit;
    items.truncate(limit);
    let next = if more {
        items.last().map(|(_, s)| *s)
    } else {
        None
    };
    Ok((items.into_iter().map(|(v, _)| v).collect(), next))
}

/// `GET /transactions`: a page as the response's JSON bytes (`{"data", "nextCursor", "ok"}`),
/// written straight from the rows (no intermediate JSON tree).
pub fn list_page(
    c: &dyn Db,
    account: &str,
    filter: &Filter,
    before: Option<i64>,
    limit: usize,
    cursor: impl FnOnce(i64) -> String,
) -> DbResult<Vec<u8>> {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Page<'a> {
        data: &'a [Summary],
        next_cursor: Option<String>,
        ok: bool,
    }
    let (items, next) = list(c, account, filter, before, limit)?;
    let mut out = Vec::with_capacity(64 + items.len() * 320);
    serde_json::to_writer(
        &mut out,
        &Page {
            data: &items,
            next_cursor: next.map(cursor),
            ok: true,
        },
    )
    .map_err(|e| DbError::new(format!("cannot write the page: {e}")))?;
    Ok(out)
}

/// The columns of a webhook delivery row that [`delivery`] reads.
pub const DELIVERY_COLUMNS: &str = "id, document_id, event, endpoint_id, url, state, attempts, last_result, \
     created_at, next_at, delivered_at";

/// One webhook delivery (a row of [`DELIVERY_COLUMNS`]) as the API shows it, with its attempts.
pub fn delivery(c: &dyn Db, r: &Row) -> DbResult<Value> {
    let id: String = r.get(0)?;
    let state: String = r.get(5)?;
    let log = c
        .query(
            "SELECT attempt, at, status, result, duration_ms FROM webhook_attempts
             WHERE delivery_id = ?1 ORDER BY attempt",
            vals![&id],
        )?
        .iter()
        .map(|a| {
            Ok(json!({
                "attempt": a.get::<i64>(0)?,
                "at": rfc3339(a.get(1)?),
                "httpStatus": a.get::<Option<i64>>(2)?,
                "result": a.get::<String>(3)?,
                "durationMs": a.get::<i64>(4)?,
            }))
        })
        .collect::<DbResult<Vec<_>>>()?;
    Ok(json!({
        "id": id,
        "documentId": r.get::<String>(1)?,
        "event": r.get::<String>(2)?,
        "endpointId": r.get::<Option<String>>(3)?,
        "url": r.get::<String>(4)?,
        "state": state,
        "attempts": r.get::<i64>(6)?,
        "lastResult": r.get::<Option<String>>(7)?,
        "createdAt": rfc3339(r.get(8)?),
        "nextAttemptAt": if Delivery::parse(&state) == Some(Delivery::Pending) { r.get::<Option<i64>>(9)?.map(rfc3339) } else { None },
        "deliveredAt": r.get::<Option<i64>>(10)?.map(rfc3339),
        "attemptLog": log,
    }))
}

/// The full status of one document of the account (`None`: not the account's).
pub fn detail(c: &dyn Db, account: &str, id: &str) -> DbResult<Option<Value>> {
    let Some(mut doc) = summary(c, account, id)? else {
        return Ok(None);
    };
    let r = c
        .one(
            "SELECT x12, warnings, diagnostics, partner_ack, route_attempts, failure, payload, direction,
                    ack_deadline, resends
             FROM documents WHERE id = ?1",
            vals![id],
        )?
        .ok_or_else(|| DbError::new("document vanished"))?;
    let x12: Option<Vec<u8>> = r.get(0)?;
    let warnings: String = r.get(1)?;
    let diagnostics: Option<String> = r.get(2)?;
    let ack: Option<String> = r.get(3)?;
    let attempts: Option<String> = r.get(4)?;
    let failure: Option<String> = r.get(5)?;
    let payload: String = r.get(6)?;
    let direction: String = r.get(7)?;
    let deadline: Option<i64> = r.get(8)?;
    let resends: i64 = r.get(9)?;
    let parse = |t: Option<String>| -> Value {
        t.and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null)
    };
    let history = c
        .query(
            "SELECT status, reason, at FROM status_history WHERE document_id = ?1 ORDER BY id",
            vals![id],
        )?
        .iter()
        .map(|r| {
            Ok(json!({
                "status": r.get::<String>(0)?,
                "reason": r.get::<String>(1)?,
                "at": rfc3339(r.get(2)?),
            }))
        })
        .collect::<DbResult<Vec<_>>>()?;
    let deliveries = c
        .query(
            &format!(
                "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE document_id = ?1
                 ORDER BY url, event_no, id"
            ),
            vals![id],
        )?
        .iter()
        .map(|r| delivery(c, r))
        .collect::<DbResult<Vec<_>>>()?;
    if direction == "inbound" {
        doc["document"] = parse(Some(payload));
    } else {
        doc["payload"] = parse(Some(payload));
    }
    doc["resends"] = json!(resends);
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An in-memory SQLite store with every migration applied (unit tests of SQL).
    pub(crate) fn migrated() -> Connection {
        let mut c = Connection::open_in_memory().unwrap();
        migrate(&mut c).unwrap();
        c
    }

    /// A database that goes away at its `fail_at`-th `SAVEPOINT job` (what a PostgreSQL
    /// restart does to a group under way).
    struct GoesAway {
        savepoints: std::cell::Cell<usize>,
        fail_at: usize,
    }

    impl Db for GoesAway {
        fn exec(&self, sql: &str, _: &[crate::db::Val]) -> DbResult<u64> {
            if sql == "SAVEPOINT job" {
                self.savepoints.set(self.savepoints.get() + 1);
                if self.savepoints.get() == self.fail_at {
                    return Err(DbError {
                        message: "the connection is closed".into(),
                        unavailable: true,
                    });
                }
            }
            Ok(0)
        }
        fn query(&self, _: &str, _: &[crate::db::Val]) -> DbResult<Vec<crate::db::Row>> {
            Ok(Vec::new())
        }
        fn skip_locked(&self) -> &'static str {
            ""
        }
        fn batch(&self, _: &str) -> DbResult<()> {
            Ok(())
        }
    }

    #[test]
    fn a_group_failing_part_way_keeps_its_unrun_jobs_until_the_fault_is_recorded() {
        // Each job notes when it runs, and when it is dropped (its caller wakes then and
        // answers 503 only if the fault is recorded by then).
        let health = Arc::new(Health::default());
        let log = Arc::new(Mutex::new(Vec::<String>::new()));
        struct Dropped(usize, Arc<Mutex<Vec<String>>>, Arc<Health>);
        impl Drop for Dropped {
            fn drop(&mut self) {
                let known = self.2.fault().is_some();
                self.1
                    .lock()
                    .unwrap()
                    .push(format!("dropped {}, fault known: {known}", self.0));
            }
        }
        let mut batch: Vec<Job> = (0..4)
            .map(|n| {
                let (log, dropped) = (log.clone(), Dropped(n, log.clone(), health.clone()));
                Job(Box::new(move |_db: &dyn Db| {
                    let _ran = dropped;
                    log.lock().unwrap().push(format!("ran {n}"));
                    let log = log.clone();
                    let finish: Finish = Box::new(move |r| {
                        log.lock()
                            .unwrap()
                            .push(format!("finished {n}: {}", r.is_ok()));
                    });
                    (true, finish)
                }))
            })
            .collect();
        // Jobs 0 and 1 run; the third SAVEPOINT fails.
        let db = GoesAway {
            savepoints: std::cell::Cell::new(0),
            fail_at: 3,
        };
        let mut finishers = Vec::new();
        let r = run_group(&db, &mut batch, &mut finishers);
        assert!(r.as_ref().is_err_and(|e| e.unavailable), "{r:?}");
        assert_eq!(batch.len(), 2, "the jobs not run are still held");
        assert_eq!(finishers.len(), 2);
        finish_group(r, &mut batch, finishers, &health);
        assert!(batch.is_empty());
        assert_eq!(
            *log.lock().unwrap(),
            [
                "ran 0",
                "dropped 0, fault known: false",
                "ran 1",
                "dropped 1, fault known: false",
                "dropped 3, fault known: true",
                "dropped 2, fault known: true",
                "finished 0: false",
                "finished 1: false",
            ]
        );
    }

    #[test]
    fn query_times_are_rfc_3339_or_a_date() {
        assert_eq!(
            parse_time("2026-11-29T14:22:10.123Z"),
            Some(1_795_962_130_123)
        );
        assert_eq!(
            parse_time("2026-11-29T15:22:10.123+01:00"),
            Some(1_795_962_130_123)
        );
        assert_eq!(parse_time("1970-01-01"), Some(0));
        assert_eq!(parse_time("2000-02-29"), Some(951_782_400_000));
        for bad in [
            "",
            "2026-13-01",
            "2026-02-30",
            "26-11-29",
            "2026-11-29T14:22",
            "yesterday",
            "2026-1-01",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }

    #[test]
    fn times_serialize_as_their_rfc3339_text() {
        for (ms, text) in [
            (0, "1970-01-01T00:00:00.000Z"),
            (1_795_962_130_123, "2026-11-29T14:22:10.123Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (253_402_300_800_000, "10000-01-01T00:00:00.000Z"),
        ] {
            assert_eq!(rfc3339(ms), text);
            assert_eq!(
                serde_json::to_string(&Rfc3339(ms)).unwrap(),
                format!("\"{text}\"")
            );
        }
    }
}
