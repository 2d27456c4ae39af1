//! One small SQL interface over the two stores, so that the store code (every
//! query of the server) is the same on SQLite and on PostgreSQL: statements are
//! written once with `?1, ?2, …` placeholders (rewritten to `$1, $2, …` for
//! PostgreSQL), values are [`Val`] (integer, text, bytes, null) and rows come
//! back as [`Row`]s of them. The only dialect difference the queries carry is
//! [`Db::skip_locked`], empty on SQLite (one writer) and
//! `FOR UPDATE SKIP LOCKED` on PostgreSQL (several processes claim work).

use std::cell::RefCell;
use std::collections::HashMap;

/// A store failure (logged by the caller): a 503 `STORE_UNAVAILABLE` when the store
/// cannot work now (a full disk, an I/O error, the database restarting or out of
/// reach: [`DbError::unavailable`]), else a 500.
#[derive(Debug, Clone)]
pub struct DbError {
    /// What failed, for the log.
    pub message: String,
    /// True when the failure is the store's state rather than the statement: writes
    /// succeed again once it passes (the disk has room, the database is back).
    pub unavailable: bool,
}

impl DbError {
    /// A failure of the statement or of the data (a bug: a 500).
    pub fn new(message: impl Into<String>) -> Self {
        DbError {
            message: message.into(),
            unavailable: false,
        }
    }
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode::*;
        let unavailable = matches!(
            e.sqlite_error_code(),
            Some(
                DiskFull
                    | SystemIoFailure
                    | CannotOpen
                    | DatabaseBusy
                    | DatabaseLocked
                    | OutOfMemory
                    | ReadOnly
                    | FileLockingProtocolFailed
            )
        );
        DbError {
            message: format!("sqlite: {e}"),
            unavailable,
        }
    }
}

/// SQLSTATEs of a PostgreSQL that cannot work now: connection exceptions (08), shutting
/// down or starting up (57P01-57P03), out of disk, memory or connections (53),
/// serialization failures and deadlocks (40001, 40P01: the same work may pass again).
fn pg_unavailable(code: &str) -> bool {
    code.starts_with("08")
        || code.starts_with("53")
        || matches!(code, "57P01" | "57P02" | "57P03" | "40001" | "40P01")
}

impl From<postgres::Error> for DbError {
    fn from(e: postgres::Error) -> Self {
        match e.as_db_error() {
            Some(d) => DbError {
                message: format!(
                    "postgres: {} ({}): {}",
                    d.message(),
                    d.code().code(),
                    d.detail().unwrap_or("")
                ),
                unavailable: pg_unavailable(d.code().code()),
            },
            None => {
                // No answer from the server: the connection is closed or cannot be made
                // (I/O), as opposed to a value that does not convert (a bug).
                let io = std::error::Error::source(&e)
                    .is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some());
                // The causes too: "error performing TLS handshake" alone does not say that
                // the certificate did not verify.
                let mut message = format!("postgres: {e}");
                let mut cause = std::error::Error::source(&e);
                while let Some(c) = cause {
                    let text = c.to_string();
                    if !message.contains(&text) {
                        message.push_str(": ");
                        message.push_str(&text);
                    }
                    cause = c.source();
                }
                DbError {
                    unavailable: e.is_closed() || io,
                    message,
                }
            }
        }
    }
}

/// Result of a store call.
pub type DbResult<T> = Result<T, DbError>;

/// One SQL value.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Val {
    /// NULL.
    #[default]
    Null,
    /// A 64-bit integer.
    Int(i64),
    /// Text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
    /// An array of integers (PostgreSQL only: `?N::bigint[]`, for multi-row statements
    /// over `unnest`).
    Ints(Vec<Option<i64>>),
    /// An array of texts (PostgreSQL only: `?N::text[]`).
    Texts(Vec<Option<String>>),
    /// An array of byte strings (PostgreSQL only: `?N::bytea[]`).
    Blobs(Vec<Vec<u8>>),
}

impl From<i64> for Val {
    fn from(v: i64) -> Self {
        Val::Int(v)
    }
}
impl From<&i64> for Val {
    fn from(v: &i64) -> Self {
        Val::Int(*v)
    }
}
impl From<&str> for Val {
    fn from(v: &str) -> Self {
        Val::Text(v.to_string())
    }
}
impl From<String> for Val {
    fn from(v: String) -> Self {
        Val::Text(v)
    }
}
impl From<&String> for Val {
    fn from(v: &String) -> Self {
        Val::Text(v.clone())
    }
}
impl From<Vec<u8>> for Val {
    fn from(v: Vec<u8>) -> Self {
        Val::Blob(v)
    }
}
impl From<&Vec<u8>> for Val {
    fn from(v: &Vec<u8>) -> Self {
        Val::Blob(v.clone())
    }
}
impl From<&[u8]> for Val {
    fn from(v: &[u8]) -> Self {
        Val::Blob(v.to_vec())
    }
}
impl<T: Into<Val>> From<Option<T>> for Val {
    fn from(v: Option<T>) -> Self {
        v.map_or(Val::Null, Into::into)
    }
}
impl From<&Option<String>> for Val {
    fn from(v: &Option<String>) -> Self {
        v.as_ref().map_or(Val::Null, |s| Val::Text(s.clone()))
    }
}
impl From<&Option<i64>> for Val {
    fn from(v: &Option<i64>) -> Self {
        v.map_or(Val::Null, Val::Int)
    }
}

/// `vals![a, b, c]`: the parameters of a statement.
#[macro_export]
macro_rules! vals {
    ($($x:expr),* $(,)?) => { &[$($crate::db::Val::from($x)),*][..] };
}

/// A typed read of one column.
pub trait FromVal: Sized {
    /// Converts, or says why not.
    fn from_val(v: &Val) -> Option<Self>;
}

impl FromVal for i64 {
    fn from_val(v: &Val) -> Option<Self> {
        match v {
            Val::Int(i) => Some(*i),
            _ => None,
        }
    }
}
impl FromVal for String {
    fn from_val(v: &Val) -> Option<Self> {
        match v {
            Val::Text(s) => Some(s.clone()),
            Val::Blob(b) => String::from_utf8(b.clone()).ok(),
            _ => None,
        }
    }
}
impl FromVal for Vec<u8> {
    fn from_val(v: &Val) -> Option<Self> {
        match v {
            Val::Blob(b) => Some(b.clone()),
            Val::Text(s) => Some(s.clone().into_bytes()),
            _ => None,
        }
    }
}
impl<T: FromVal> FromVal for Option<T> {
    fn from_val(v: &Val) -> Option<Self> {
        match v {
            Val::Null => Some(None),
            other => T::from_val(other).map(Some),
        }
    }
}

/// One result row.
#[derive(Debug, Clone)]
pub struct Row(pub Vec<Val>);

impl Row {
    /// Column `i` as text, moved out of the row (no copy; the row keeps a NULL there).
    pub fn take_text(&mut self, i: usize) -> DbResult<String> {
        match self.0.get_mut(i).map(std::mem::take) {
            Some(Val::Text(s)) => Ok(s),
            Some(Val::Blob(b)) => {
                String::from_utf8(b).map_err(|_| DbError::new(format!("column {i} is not UTF-8")))
            }
            other => Err(DbError::new(format!("column {i} is {other:?}, not text"))),
        }
    }

    /// Column `i` as `T`.
    pub fn get<T: FromVal>(&self, i: usize) -> DbResult<T> {
        let v = self
            .0
            .get(i)
            .ok_or_else(|| DbError::new(format!("no column {i}")))?;
        T::from_val(v)
            .ok_or_else(|| DbError::new(format!("column {i} is {v:?}, not the type asked")))
    }
}

/// A connection or transaction of either store.
pub trait Db {
    /// Runs a statement; the number of rows changed.
    fn exec(&self, sql: &str, params: &[Val]) -> DbResult<u64>;
    /// Runs a query; every row.
    fn query(&self, sql: &str, params: &[Val]) -> DbResult<Vec<Row>>;
    /// `FOR UPDATE SKIP LOCKED` on PostgreSQL, nothing on SQLite.
    fn skip_locked(&self) -> &'static str;
    /// Runs statements without parameters, `;`-separated, in one call (one round trip on PostgreSQL).
    fn batch(&self, sql: &str) -> DbResult<()>;
    /// Runs a statement whose answer its job does not need (an `INSERT` of a history or
    /// outbox row). In the PostgreSQL writer it is kept and sent with the job's closing
    /// savepoint statements in one round trip ([`Db::take_deferred`]); a failure there fails
    /// the job. Everywhere else it runs at once.
    fn defer(&self, sql: &str, params: &[Val]) -> DbResult<()> {
        self.exec(sql, params).map(|_| ())
    }
    /// The deferred statements not sent yet, each ending with `;` (empty when none).
    fn take_deferred(&self) -> String {
        String::new()
    }
    /// The first row, if any.
    fn one(&self, sql: &str, params: &[Val]) -> DbResult<Option<Row>> {
        Ok(self.query(sql, params)?.into_iter().next())
    }
}

/// `expr IN (the texts of parameter ?n)` on either store, and the parameter's value: a
/// JSON array read with `json_each` on SQLite, a `text[]` on PostgreSQL.
pub fn in_texts(db: &dyn Db, expr: &str, n: usize, items: &[String]) -> (String, Val) {
    if db.skip_locked().is_empty() {
        (
            format!("{expr} IN (SELECT value FROM json_each(?{n}))"),
            Val::Text(serde_json::to_string(items).unwrap_or_else(|_| "[]".into())),
        )
    } else {
        (
            format!("{expr} = ANY(?{n}::text[])"),
            Val::Texts(items.iter().cloned().map(Some).collect()),
        )
    }
}

// ---------------------------------------------------------------- SQLite

fn to_sqlite(v: &Val) -> DbResult<rusqlite::types::Value> {
    use rusqlite::types::Value;
    Ok(match v {
        Val::Null => Value::Null,
        Val::Int(i) => Value::Integer(*i),
        Val::Text(s) => Value::Text(s.clone()),
        Val::Blob(b) => Value::Blob(b.clone()),
        Val::Ints(_) | Val::Texts(_) | Val::Blobs(_) => {
            return Err(DbError::new("array parameters are for PostgreSQL only"));
        }
    })
}

fn sqlite_params(params: &[Val]) -> DbResult<Vec<rusqlite::types::Value>> {
    params.iter().map(to_sqlite).collect()
}

impl Db for rusqlite::Connection {
    fn exec(&self, sql: &str, params: &[Val]) -> DbResult<u64> {
        let params = sqlite_params(params)?;
        let mut stmt = self.prepare_cached(sql)?;
        let n = stmt.execute(rusqlite::params_from_iter(params))?;
        Ok(n as u64)
    }

    fn query(&self, sql: &str, params: &[Val]) -> DbResult<Vec<Row>> {
        use rusqlite::types::ValueRef;
        let params = sqlite_params(params)?;
        let mut stmt = self.prepare_cached(sql)?;
        let n = stmt.column_count();
        let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mut row = Vec::with_capacity(n);
            for i in 0..n {
                row.push(match r.get_ref(i)? {
                    ValueRef::Null => Val::Null,
                    ValueRef::Integer(v) => Val::Int(v),
                    ValueRef::Real(v) => Val::Int(v as i64),
                    ValueRef::Text(t) => Val::Text(String::from_utf8_lossy(t).into_owned()),
                    ValueRef::Blob(b) => Val::Blob(b.to_vec()),
                });
            }
            out.push(Row(row));
        }
        Ok(out)
    }

    fn skip_locked(&self) -> &'static str {
        ""
    }

    fn batch(&self, sql: &str) -> DbResult<()> {
        Ok(self.execute_batch(sql)?)
    }
}

// ---------------------------------------------------------------- PostgreSQL

impl postgres::types::ToSql for Val {
    fn to_sql(
        &self,
        ty: &postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        use postgres::types::Type;
        match self {
            Val::Null => Ok(postgres::types::IsNull::Yes),
            Val::Int(i) if *ty == Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
            Val::Int(i) => i.to_sql(&Type::INT8, out),
            Val::Text(s) => s.as_str().to_sql(&Type::TEXT, out),
            Val::Blob(b) => b.as_slice().to_sql(&Type::BYTEA, out),
            Val::Ints(v) => v.to_sql(&Type::INT8_ARRAY, out),
            Val::Texts(v) => v.to_sql(&Type::TEXT_ARRAY, out),
            Val::Blobs(v) => {
                let slices: Vec<&[u8]> = v.iter().map(Vec::as_slice).collect();
                slices.to_sql(&Type::BYTEA_ARRAY, out)
            }
        }
    }

    fn accepts(_: &postgres::types::Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

/// `?N` → `$N`.
pub fn pg_sql(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

fn from_pg(r: &postgres::Row) -> DbResult<Row> {
    use postgres::types::Type;
    let mut row = Vec::with_capacity(r.len());
    for (i, col) in r.columns().iter().enumerate() {
        let t = col.type_();
        let v = if *t == Type::INT8 {
            r.try_get::<_, Option<i64>>(i)?.map_or(Val::Null, Val::Int)
        } else if *t == Type::INT4 {
            r.try_get::<_, Option<i32>>(i)?
                .map_or(Val::Null, |v| Val::Int(v.into()))
        } else if *t == Type::INT2 {
            r.try_get::<_, Option<i16>>(i)?
                .map_or(Val::Null, |v| Val::Int(v.into()))
        } else if *t == Type::BYTEA {
            r.try_get::<_, Option<Vec<u8>>>(i)?
                .map_or(Val::Null, Val::Blob)
        } else {
            r.try_get::<_, Option<String>>(i)?
                .map_or(Val::Null, Val::Text)
        };
        row.push(v);
    }
    Ok(Row(row))
}

/// A PostgreSQL client with its prepared statements.
pub struct PgConn {
    /// The URL it was opened with.
    pub url: String,
    /// The connection.
    pub client: postgres::Client,
    /// Statements by SQL text (already rewritten).
    pub cache: HashMap<String, postgres::Statement>,
}

impl std::fmt::Debug for PgConn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PgConn")
    }
}

/// How the connection to PostgreSQL is secured: libpq's `sslmode` values of the URL's
/// query (`?sslmode=verify-full&sslrootcert=/etc/x12kit/db-ca.crt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// No TLS (the default, as before: a database on localhost or a private network).
    Disable,
    /// TLS, the server's certificate not checked (encryption against passive listeners only).
    Require,
    /// TLS, the server's certificate checked against the root certificate (`sslrootcert`,
    /// else the system's roots), not its name.
    VerifyCa,
    /// TLS, the certificate checked and its name matching the URL's host.
    VerifyFull,
}

/// A PostgreSQL URL split into what the client reads and how to secure it.
#[derive(Debug, Clone)]
pub struct PgTarget {
    config: postgres::Config,
    mode: SslMode,
    root: Option<std::path::PathBuf>,
}

impl PgTarget {
    /// Parses `url`: its `sslmode` and `sslrootcert` parameters are read here (the client
    /// crate knows neither `verify-ca` nor `verify-full`), the rest by the client.
    pub fn parse(url: &str) -> Result<PgTarget, String> {
        let (head, query) = url.split_once('?').unwrap_or((url, ""));
        let mut kept = Vec::new();
        let mut mode = SslMode::Disable;
        let mut root = None;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            match k {
                "sslmode" => {
                    mode = match v {
                        "disable" => SslMode::Disable,
                        "require" => SslMode::Require,
                        "verify-ca" => SslMode::VerifyCa,
                        "verify-full" => SslMode::VerifyFull,
                        other => {
                            return Err(format!(
                                "database URL: sslmode={other:?} is not one of disable, require, verify-ca, verify-full"
                            ));
                        }
                    }
                }
                "sslrootcert" => {
                    let path = percent_decode(v).ok_or_else(|| {
                        "database URL: sslrootcert is not a valid percent-encoded path".to_string()
                    })?;
                    root = Some(std::path::PathBuf::from(path));
                }
                _ => kept.push(pair),
            }
        }
        if root.is_some() && matches!(mode, SslMode::Disable | SslMode::Require) {
            return Err(
                "database URL: sslrootcert is only used with sslmode=verify-ca or verify-full (require does not check the certificate)"
                    .into(),
            );
        }
        if let Some(r) = &root {
            std::fs::metadata(r)
                .map_err(|e| format!("database URL: sslrootcert {}: {e}", r.display()))?;
        }
        let rest = if kept.is_empty() {
            head.to_string()
        } else {
            format!("{head}?{}", kept.join("&"))
        };
        let config = rest
            .parse::<postgres::Config>()
            .map_err(|e| format!("database URL: {e}"))?;
        Ok(PgTarget { config, mode, root })
    }

    /// Opens a client.
    pub fn connect(&self) -> DbResult<postgres::Client> {
        if self.mode == SslMode::Disable {
            return Ok(self.config.connect(postgres::NoTls)?);
        }
        use openssl::ssl::{SslConnector, SslMethod, SslVerifyMode, SslVersion};
        let tls_error = |e: openssl::error::ErrorStack| DbError::new(format!("postgres TLS: {e}"));
        let mut b = SslConnector::builder(SslMethod::tls_client()).map_err(tls_error)?;
        b.set_min_proto_version(Some(SslVersion::TLS1_2))
            .map_err(tls_error)?;
        if self.mode == SslMode::Require {
            b.set_verify(SslVerifyMode::NONE);
        } else {
            match &self.root {
                Some(r) => b.set_ca_file(r).map_err(|e| {
                    DbError::new(format!("postgres TLS: sslrootcert {}: {e}", r.display()))
                })?,
                None => b.set_default_verify_paths().map_err(tls_error)?,
            }
            b.set_verify(SslVerifyMode::PEER);
        }
        let mut connector = postgres_openssl::MakeTlsConnector::new(b.build());
        if self.mode != SslMode::VerifyFull {
            connector.set_callback(|c, _| {
                c.set_verify_hostname(false);
                Ok(())
            });
        }
        let mut config = self.config.clone();
        config.ssl_mode(postgres::config::SslMode::Require);
        Ok(config.connect(connector)?)
    }
}

/// `%XX` sequences decoded (a path in a URL's query), or `None` when malformed.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl PgConn {
    /// Connects, with TLS as the URL's `sslmode` says ([`PgTarget`]).
    pub fn connect(url: &str) -> DbResult<PgConn> {
        let target = PgTarget::parse(url).map_err(DbError::new)?;
        let mut client = target.connect()?;
        // Statements are prepared once per connection and kept: without this, PostgreSQL
        // may settle on a generic plan made while the tables were empty (at start) and keep
        // it as they grow; the benchmark's webhook claim took ~0.4 s a call that way. A
        // plan per execution costs a fraction of a round trip. (PostgreSQL 12 and later;
        // older servers ignore the setting's absence.)
        let _ = client.batch_execute("SET plan_cache_mode = force_custom_plan");
        Ok(PgConn {
            url: url.to_string(),
            client,
            cache: HashMap::new(),
        })
    }
}

/// A `Db` over a PostgreSQL client or transaction.
pub struct Pg<'a, C: postgres::GenericClient> {
    inner: RefCell<(&'a mut C, &'a mut HashMap<String, postgres::Statement>)>,
    /// `Some`: statements given to [`Db::defer`] wait here (the writer's transaction).
    deferred: Option<RefCell<String>>,
}

impl<'a, C: postgres::GenericClient> Pg<'a, C> {
    /// Wraps `client` (a `Client` or a `Transaction`) with the statement cache.
    pub fn new(client: &'a mut C, cache: &'a mut HashMap<String, postgres::Statement>) -> Self {
        Pg {
            inner: RefCell::new((client, cache)),
            deferred: None,
        }
    }

    /// The same, keeping deferred statements until [`Db::take_deferred`] (the writer,
    /// which sends them with each job's savepoint statements).
    pub fn deferring(
        client: &'a mut C,
        cache: &'a mut HashMap<String, postgres::Statement>,
    ) -> Self {
        Pg {
            inner: RefCell::new((client, cache)),
            deferred: Some(RefCell::new(String::new())),
        }
    }
}

/// One value as a PostgreSQL literal, whatever `standard_conforming_strings` says: text as
/// an escape string (`E'…'`, backslashes and quotes doubled), bytes through `decode`.
fn pg_literal(v: &Val, out: &mut String) -> DbResult<()> {
    match v {
        Val::Null => out.push_str("NULL"),
        Val::Int(i) => out.push_str(&format!("({i})")),
        Val::Text(t) => {
            if t.contains('\0') {
                return Err(DbError::new("text with a NUL character"));
            }
            out.push_str("E'");
            for c in t.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\'' => out.push_str("''"),
                    c => out.push(c),
                }
            }
            out.push('\'');
        }
        Val::Blob(b) => {
            out.push_str("decode('");
            out.push_str(&hex::encode(b));
            out.push_str("', 'hex')");
        }
        Val::Ints(_) | Val::Texts(_) | Val::Blobs(_) => {
            return Err(DbError::new("array parameters cannot be inlined"));
        }
    }
    Ok(())
}

/// `sql` with its `?N` placeholders replaced by the literals of `params`.
pub fn pg_inline(sql: &str, params: &[Val]) -> DbResult<String> {
    let mut out = String::with_capacity(sql.len() + 64);
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(char::is_ascii_digit) {
            let mut n = 0usize;
            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                n = n * 10 + d as usize;
                chars.next();
            }
            let v = n
                .checked_sub(1)
                .and_then(|i| params.get(i))
                .ok_or_else(|| DbError::new(format!("no parameter ?{n}")))?;
            pg_literal(v, &mut out)?;
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

fn prepared<C: postgres::GenericClient>(
    c: &mut C,
    cache: &mut HashMap<String, postgres::Statement>,
    sql: &str,
) -> DbResult<postgres::Statement> {
    if let Some(s) = cache.get(sql) {
        return Ok(s.clone());
    }
    let s = c.prepare(&pg_sql(sql))?;
    cache.insert(sql.to_string(), s.clone());
    Ok(s)
}

impl<C: postgres::GenericClient> Db for Pg<'_, C> {
    fn exec(&self, sql: &str, params: &[Val]) -> DbResult<u64> {
        let mut guard = self.inner.borrow_mut();
        let (c, cache) = &mut *guard;
        let stmt = prepared(*c, cache, sql)?;
        let p: Vec<&(dyn postgres::types::ToSql + Sync)> = params
            .iter()
            .map(|v| v as &(dyn postgres::types::ToSql + Sync))
            .collect();
        Ok(c.execute(&stmt, &p)?)
    }

    fn query(&self, sql: &str, params: &[Val]) -> DbResult<Vec<Row>> {
        let mut guard = self.inner.borrow_mut();
        let (c, cache) = &mut *guard;
        let stmt = prepared(*c, cache, sql)?;
        let p: Vec<&(dyn postgres::types::ToSql + Sync)> = params
            .iter()
            .map(|v| v as &(dyn postgres::types::ToSql + Sync))
            .collect();
        c.query(&stmt, &p)?.iter().map(from_pg).collect()
    }

    fn skip_locked(&self) -> &'static str {
        "FOR UPDATE SKIP LOCKED"
    }

    fn batch(&self, sql: &str) -> DbResult<()> {
        let mut guard = self.inner.borrow_mut();
        Ok(guard.0.batch_execute(sql)?)
    }

    fn defer(&self, sql: &str, params: &[Val]) -> DbResult<()> {
        match &self.deferred {
            Some(d) => {
                let mut d = d.borrow_mut();
                d.push_str(&pg_inline(sql, params)?);
                d.push_str(";\n");
                Ok(())
            }
            None => self.exec(sql, params).map(|_| ()),
        }
    }

    fn take_deferred(&self) -> String {
        self.deferred
            .as_ref()
            .map(|d| std::mem::take(&mut *d.borrow_mut()))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod pg_url_tests {
    use super::*;

    #[test]
    fn sslmode_and_sslrootcert_are_read_and_bad_values_named() {
        let t = PgTarget::parse("postgres://u@db.example:5433/x?sslmode=verify-full&sslrootcert=%2Fetc%2Fhosts&application_name=x12kit").unwrap();
        assert_eq!(t.mode, SslMode::VerifyFull);
        assert_eq!(t.root.as_deref(), Some(std::path::Path::new("/etc/hosts")));
        assert_eq!(t.config.get_application_name(), Some("x12kit"));
        assert_eq!(
            PgTarget::parse("postgres://u@h/x").unwrap().mode,
            SslMode::Disable
        );
        assert_eq!(
            PgTarget::parse("postgres://u@h/x?sslmode=require")
                .unwrap()
                .mode,
            SslMode::Require
        );
        let e = PgTarget::parse("postgres://u@h/x?sslmode=verify_full").unwrap_err();
        assert!(e.contains("sslmode=\"verify_full\" is not one of"), "{e}");
        let e = PgTarget::parse("postgres://u@h/x?sslmode=verify-full&sslrootcert=/no/such.crt")
            .unwrap_err();
        assert!(e.contains("sslrootcert /no/such.crt"), "{e}");
        let e =
            PgTarget::parse("postgres://u@h/x?sslmode=require&sslrootcert=/etc/hosts").unwrap_err();
        assert!(e.contains("only used with"), "{e}");
        assert!(PgTarget::parse("postgres://u@h/x?sslrootcert=%zz").is_err());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inlined_values_are_literals_that_cannot_escape_their_quotes() {
        let sql = pg_inline(
            "INSERT INTO t VALUES (?1, ?2, ?3, ?10, ?4)",
            &[
                Val::Text("it's a \\' test".into()),
                Val::Int(-5),
                Val::Blob(vec![0, 255]),
                Val::Null,
                Val::Null,
                Val::Null,
                Val::Null,
                Val::Null,
                Val::Null,
                Val::Int(10),
            ],
        )
        .unwrap();
        assert_eq!(
            sql,
            "INSERT INTO t VALUES (E'it''s a \\\\'' test', (-5), decode('00ff', 'hex'), (10), NULL)"
        );
        assert!(pg_inline("SELECT ?3", &[Val::Null]).is_err());
        assert!(pg_inline("SELECT ?1", &[Val::Text("a\0b".into())]).is_err());
    }
}
