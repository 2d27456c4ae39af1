//! The document lifecycle, run by background workers that read the store (so a
//! restart picks up where the last process stopped):
//!
//! `queued` → `validated` (the rendered interchange validates clean with the
//! core's envelope and set structure rules) → `routed` (handed to the partner's
//! transport) → `acknowledged` (the partner's TA1/997/999 accepted it); any
//! failure → `failed` with a reason. The statuses and every step between them
//! are one table, [`crate::status`]; [`transition`] takes a step.
//!
//! Every state change is one compare-and-set `UPDATE … WHERE status = <from>`
//! plus its history row plus one webhook outbox row per event and endpoint, in
//! one transaction: a change is never recorded without its webhooks, nor twice.
//! The webhook worker delivers the outbox at least once (see [`deliver`]).

use crate::app::App;
use crate::config::TransportConfig;
use crate::db::{Db, DbError, DbResult, Row};
use crate::error::{ApiError, ApiResult};
use crate::settings::Snapshot;
use crate::settings::partner::Partner;
use crate::status::{Delivery, Status, Step, Transition};
use crate::store::{now_ms, rfc3339};
use crate::vals;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, Semaphore, mpsc, oneshot};
use tracing::Instrument;
use x12kit::webhook::{DeliveryId, EventData, EventKind, Payload, Signer};

/// The identity of a document, as its events report it.
#[derive(Debug, Clone)]
pub struct DocKey {
    /// `doc_…`.
    pub id: String,
    /// Account id.
    pub account: String,
    /// Partner id.
    pub partner_id: String,
    /// Type code.
    pub document_type: String,
    /// The events report a resend someone asked for (`data.resend` of its `document.routed`).
    pub resend: bool,
}

/// Column changes that go with a state change (`None`: unchanged).
#[derive(Debug, Default, Clone)]
pub struct Changes {
    /// Validation JSON.
    pub diagnostics: Option<String>,
    /// Routing attempts JSON.
    pub route_attempts: Option<String>,
    /// When the acknowledgement window closes (set, or cleared when `None`).
    pub ack_deadline: Option<i64>,
    /// The partner's acknowledgement JSON.
    pub partner_ack: Option<String>,
    /// Failure reason.
    pub failure: Option<String>,
}

/// Takes `step` for `doc` (its [`Transition`]: from the status it must still
/// have to the next), with its history row and one outbox row per event and
/// webhook endpoint of the account. Returns false (and writes nothing) when
/// the document is no longer in the step's `from` status.
pub fn transition(
    c: &dyn Db,
    settings: &Snapshot,
    doc: &DocKey,
    step: Step,
    reason: &str,
    changes: Changes,
) -> DbResult<bool> {
    let Transition { from, to, events } = step.transition();
    let (from, to) = (from.as_str(), to.as_str());
    let now = now_ms();
    let n = c.exec(
        "UPDATE documents SET status = ?3, updated_at = ?4,
            diagnostics = COALESCE(?5, diagnostics),
            route_attempts = COALESCE(?6, route_attempts),
            ack_deadline = ?7,
            partner_ack = COALESCE(?8, partner_ack),
            failure = COALESCE(?9, failure),
            lease_owner = NULL
         WHERE id = ?1 AND status = ?2",
        vals![
            &doc.id,
            from,
            to,
            now,
            changes.diagnostics,
            changes.route_attempts,
            changes.ack_deadline,
            changes.partner_ack,
            changes.failure
        ],
    )?;
    if n == 0 {
        return Ok(false);
    }
    c.defer(
        "INSERT INTO status_history (document_id, status, reason, at) VALUES (?1, ?2, ?3, ?4)",
        vals![&doc.id, to, reason, now],
    )?;
    enqueue_events(c, settings, doc, step.transition().to, events, now)?;
    Ok(true)
}

/// One state change for [`transitions`]: what [`transition`] takes, owned.
#[derive(Debug)]
pub struct Move {
    /// The document.
    pub doc: DocKey,
    /// The step it takes.
    pub step: Step,
    /// Why (its history row).
    pub reason: String,
    /// Column changes.
    pub changes: Changes,
}

/// Applies many state changes as [`transition`] does, each one only if its document is
/// still in its `from` status; says for each whether it applied.
///
/// On PostgreSQL this is one statement for the whole batch (the status updates, their
/// history rows and their outbox rows, over `unnest` of arrays: one round trip, one plan,
/// instead of three statements per document); on SQLite, where a statement is a function
/// call, it is [`transition`] per item. Either way it runs inside the caller's job, so the
/// state changes and their outbox rows commit together or not at all.
pub fn transitions(c: &dyn Db, settings: &Snapshot, items: &[Move]) -> DbResult<Vec<bool>> {
    if c.skip_locked().is_empty() {
        return items
            .iter()
            .map(|m| transition(c, settings, &m.doc, m.step, &m.reason, m.changes.clone()))
            .collect();
    }
    // A document at most once per statement (an UPDATE … FROM changes a row once).
    let mut applied = vec![false; items.len()];
    let mut rest: Vec<(usize, &Move)> = items.iter().enumerate().collect();
    while !rest.is_empty() {
        let mut seen = HashSet::new();
        let (now, later): (Vec<_>, Vec<_>) = rest
            .into_iter()
            .partition(|(_, m)| seen.insert(m.doc.id.clone()));
        rest = later;
        let changed = transitions_pg(c, settings, &now)?;
        for (i, m) in &now {
            applied[*i] = changed.contains(&m.doc.id);
        }
    }
    Ok(applied)
}

/// The PostgreSQL statement of [`transitions`], for moves of distinct documents.
fn transitions_pg(
    c: &dyn Db,
    settings: &Snapshot,
    items: &[(usize, &Move)],
) -> DbResult<HashSet<String>> {
    use crate::db::Val;
    const SQL: &str = "WITH u AS (
            SELECT * FROM unnest(?1::text[], ?2::text[], ?3::text[], ?4::text[], ?5::text[],
                                 ?6::text[], ?7::bigint[], ?8::text[], ?9::text[])
                WITH ORDINALITY AS u(id, from_status, to_status, diagnostics, route_attempts,
                                     partner_ack, ack_deadline, failure, reason, ord)
        ), changed AS (
            UPDATE documents d SET status = u.to_status, updated_at = ?10,
                diagnostics = COALESCE(u.diagnostics, d.diagnostics),
                route_attempts = COALESCE(u.route_attempts, d.route_attempts),
                ack_deadline = u.ack_deadline,
                partner_ack = COALESCE(u.partner_ack, d.partner_ack),
                failure = COALESCE(u.failure, d.failure),
                lease_owner = NULL
            FROM u WHERE d.id = u.id AND d.status = u.from_status
            RETURNING d.id
        ), history AS (
            INSERT INTO status_history (document_id, status, reason, at)
            SELECT u.id, u.to_status, u.reason, ?10 FROM u
            WHERE u.id IN (SELECT id FROM changed) ORDER BY u.ord
        ), outbox AS (
            INSERT INTO webhook_deliveries (id, document_id, event, body, attempts, next_at,
                created_at, account, url, state, event_no, endpoint_id)
            SELECT h.id, h.document_id, h.event, h.body, 0, ?10, ?10, h.account, h.url, 'pending',
                (SELECT COUNT(*) FROM webhook_deliveries w
                 WHERE w.document_id = h.document_id AND w.url = h.url) + h.k, h.endpoint
            FROM unnest(?11::text[], ?12::text[], ?13::text[], ?14::bytea[], ?15::text[],
                        ?16::text[], ?17::bigint[], ?18::text[])
                WITH ORDINALITY AS h(id, document_id, event, body, account, url, k, endpoint, ord)
            WHERE h.document_id IN (SELECT id FROM changed) ORDER BY h.ord
        )
        SELECT id FROM changed";
    let now = now_ms();
    let n = items.len();
    let (mut ids, mut from, mut to, mut diagnostics, mut attempts) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut acks, mut deadlines, mut failures, mut reasons) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let mut outbox = Outbox::default();
    for (_, m) in items {
        let t = m.step.transition();
        ids.push(Some(m.doc.id.clone()));
        from.push(Some(t.from.as_str().to_string()));
        to.push(Some(t.to.as_str().to_string()));
        diagnostics.push(m.changes.diagnostics.clone());
        attempts.push(m.changes.route_attempts.clone());
        acks.push(m.changes.partner_ack.clone());
        deadlines.push(m.changes.ack_deadline);
        failures.push(m.changes.failure.clone());
        reasons.push(Some(m.reason.clone()));
        outbox.add(settings, &m.doc, t.to, t.events, now)?;
    }
    let rows = c.query(
        SQL,
        &[
            Val::Texts(ids),
            Val::Texts(from),
            Val::Texts(to),
            Val::Texts(diagnostics),
            Val::Texts(attempts),
            Val::Texts(acks),
            Val::Ints(deadlines),
            Val::Texts(failures),
            Val::Texts(reasons),
            Val::Int(now),
            Val::Texts(outbox.ids),
            Val::Texts(outbox.documents),
            Val::Texts(outbox.events),
            Val::Blobs(outbox.bodies),
            Val::Texts(outbox.accounts),
            Val::Texts(outbox.urls),
            Val::Ints(outbox.numbers),
            Val::Texts(outbox.endpoints),
        ],
    )?;
    rows.iter().map(|r| r.get::<String>(0)).collect()
}

/// The outbox rows of a batch of moves, as the columns of [`transitions_pg`]'s statement.
#[derive(Default)]
struct Outbox {
    ids: Vec<Option<String>>,
    documents: Vec<Option<String>>,
    events: Vec<Option<String>>,
    bodies: Vec<Vec<u8>>,
    accounts: Vec<Option<String>>,
    urls: Vec<Option<String>>,
    /// The row's place among this move's rows to the same endpoint (1, 2, …): added to
    /// the count of the document's earlier rows, which the statement reads before any
    /// of its own inserts.
    numbers: Vec<Option<i64>>,
    /// The endpoint's id.
    endpoints: Vec<Option<String>>,
}

impl Outbox {
    fn add(
        &mut self,
        settings: &Snapshot,
        doc: &DocKey,
        status: Status,
        events: &[EventKind],
        now: i64,
    ) -> DbResult<()> {
        let Some(account) = settings.account(&doc.account) else {
            return Ok(());
        };
        let at = Duration::from_millis(now.max(0) as u64);
        for (k, event) in events.iter().enumerate() {
            let body = event_body(doc, status, *event, at);
            for hook in account.webhooks.iter().filter(|h| h.wants(*event)) {
                let id = DeliveryId::generate(at).map_err(|e| DbError::new(e.message()))?;
                self.ids.push(Some(id.to_string()));
                self.documents.push(Some(doc.id.clone()));
                self.events.push(Some(event.as_str().to_string()));
                self.bodies.push(body.clone());
                self.accounts.push(Some(doc.account.clone()));
                self.urls.push(Some(hook.url.clone()));
                self.numbers.push(Some(k as i64 + 1));
                self.endpoints.push(Some(hook.id.clone()));
            }
        }
        Ok(())
    }
}

/// The body of one event of `doc` (status `status`), as the outbox stores it.
fn event_body(doc: &DocKey, status: Status, event: EventKind, at: Duration) -> Vec<u8> {
    Payload::new(
        event,
        at.as_secs(),
        EventData {
            document_id: doc.id.clone(),
            partner_id: doc.partner_id.clone(),
            document_type_code: doc.document_type.clone(),
            status: status.as_str().to_string(),
            resend: doc.resend && event == EventKind::DocumentRouted,
        },
    )
    .to_bytes()
}

/// Hands the writes of concurrent tasks to the store together: every item waiting when
/// the previous batch is committed goes into the next one, written by `write` in one
/// store job (on PostgreSQL, one multi-row statement per kind of change). Each task is
/// answered after its batch's commit, with what `write` said for its item.
pub struct Batcher<T> {
    tx: mpsc::UnboundedSender<(T, oneshot::Sender<ApiResult<bool>>)>,
}

/// Items per batch at most.
const BATCH: usize = 256;

impl<T: Send + Sync + 'static> Batcher<T> {
    /// Starts the batching task.
    pub fn start(
        app: Arc<App>,
        write: impl Fn(&dyn Db, &Snapshot, &[T]) -> DbResult<Vec<bool>> + Send + Sync + 'static,
    ) -> Batcher<T> {
        let (tx, mut rx) = mpsc::unbounded_channel::<(T, oneshot::Sender<ApiResult<bool>>)>();
        let write = Arc::new(write);
        tokio::spawn(async move {
            let mut waiting = Vec::with_capacity(BATCH);
            while rx.recv_many(&mut waiting, BATCH).await > 0 {
                let (items, answers): (Vec<T>, Vec<_>) = waiting.drain(..).unzip();
                let items = Arc::new(items);
                // A failed batch (a deadlock with another process's transaction, a lost
                // connection) is written again: each item's change is conditional on the
                // state it came from, so a retry applies it at most once. While the store
                // cannot take writes (a full disk, the database restarting) it is written
                // again until it can: these are outcomes of work already done (a document
                // the partner has, a webhook delivered), which must not be forgotten.
                let mut tries = 0;
                let result = loop {
                    let write = write.clone();
                    let items = items.clone();
                    let app2 = app.clone();
                    let result = app
                        .store
                        .write(move |c| write(c, &app2.settings.current(), &items).map_err(db))
                        .await;
                    match result {
                        Err(e) if e.is_store_unavailable() || tries < 4 => {
                            tokio::time::sleep(retry_wait(tries)).await;
                            tries += 1;
                        }
                        r => break r,
                    }
                };
                match result {
                    Ok(applied) => {
                        for (answer, ok) in answers.into_iter().zip(applied) {
                            let _ = answer.send(Ok(ok));
                        }
                    }
                    Err(_) => {
                        for answer in answers {
                            let _ = answer.send(Err(ApiError::internal()));
                        }
                    }
                }
            }
        });
        Batcher { tx }
    }

    /// Writes `item` with the others waiting; `Ok(applied)` once committed.
    pub async fn write(&self, item: T) -> ApiResult<bool> {
        let (answer, rx) = oneshot::channel();
        self.tx
            .send((item, answer))
            .map_err(|_| ApiError::internal())?;
        rx.await.unwrap_or_else(|_| Err(ApiError::internal()))
    }
}

/// The wait before the retry after `tries` failed writes: 50 ms, 200 ms, 1 s, 3 s, then 5 s.
fn retry_wait(tries: u32) -> Duration {
    Duration::from_millis(match tries {
        0 => 50,
        1 => 200,
        2 => 1000,
        3 => 3000,
        _ => 5000,
    })
}

/// Writes the outbox rows of `events` (status `status`) for every webhook endpoint of the account.
pub fn enqueue_events(
    c: &dyn Db,
    settings: &Snapshot,
    doc: &DocKey,
    status: Status,
    events: &[EventKind],
    now: i64,
) -> DbResult<()> {
    let Some(account) = settings.account(&doc.account) else {
        return Ok(());
    };
    let at = Duration::from_millis(now.max(0) as u64);
    for event in events {
        let body = event_body(doc, status, *event, at);
        for hook in account.webhooks.iter().filter(|h| h.wants(*event)) {
            let id = DeliveryId::generate(at).map_err(|e| DbError::new(e.message()))?;
            // Events of one document are written one transition at a time (the status
            // compare-and-set serializes them), so this number orders them.
            c.defer(
                "INSERT INTO webhook_deliveries (id, document_id, event, body, attempts, next_at,
                    created_at, account, url, state, event_no, endpoint_id)
                 VALUES (?1, ?2, ?3, ?4, 0, ?5, ?5, ?6, ?7, 'pending',
                    (SELECT COUNT(*) + 1 FROM webhook_deliveries WHERE document_id = ?2 AND url = ?7), ?8)",
                vals![
                    id.to_string(),
                    &doc.id,
                    event.as_str(),
                    body.clone(),
                    now,
                    &doc.account,
                    &hook.url,
                    &hook.id
                ],
            )?;
        }
    }
    Ok(())
}

pub(crate) fn db(e: DbError) -> ApiError {
    crate::store::store_error(e)
}

/// True for the acknowledgement set types, which are not acknowledged in turn.
pub fn is_ack_type(t: &str) -> bool {
    matches!(t, "997" | "999" | "TA1")
}

/// The partner of an account, from the current settings.
pub fn partner(app: &App, account: &str, partner: &str) -> Option<Arc<Partner>> {
    app.settings.current().partner(account, partner).cloned()
}

/// How the failure reason of a document whose acknowledgement window closed begins (the
/// overview counts them as overdue acknowledgements).
pub const NO_ACK: &str = "no acknowledgement from the partner within";

/// Between the account and the partner id in [`partner_key`] (a control character, in no id).
const KEY_SEPARATOR: &str = "\u{1f}";

/// An account's partner as one text, for the per-partner share of the routing worker.
fn partner_key(account: &str, partner: &str) -> String {
    format!("{account}{KEY_SEPARATOR}{partner}")
}

/// A claim is void once its owner's heartbeat is older than this (the owner is gone).
const HEARTBEAT_STALE_MS: i64 = 15_000;

fn doc_key(r: &Row) -> DbResult<DocKey> {
    Ok(DocKey {
        id: r.get(0)?,
        account: r.get(1)?,
        partner_id: r.get(2)?,
        document_type: r.get(3)?,
        resend: false,
    })
}

/// Records this process's heartbeat every second (claims of a silent process are void
/// after [`HEARTBEAT_STALE_MS`]); on SQLite (one process) a start voids every older claim.
pub(crate) async fn heartbeat_loop(app: Arc<App>) {
    const SQL: &str = "INSERT INTO workers (id, heartbeat_at) VALUES (?1, ?2)
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = ?2";
    let me = app.worker_id.clone();
    loop {
        let me = me.clone();
        if app.store.location().is_postgres() {
            // On its own connection, outside the writer's groups, so that a busy writer
            // never makes this process look dead to the others.
            let _ = app
                .store
                .read(move |c| c.exec(SQL, vals![&me, now_ms()]))
                .await;
        } else {
            let _ = app
                .store
                .write(move |c| c.exec(SQL, vals![&me, now_ms()]).map_err(db))
                .await;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn idle(app: &App, notify: &Notify) {
    tokio::select! {
        _ = notify.notified() => {},
        _ = tokio::time::sleep(Duration::from_millis(app.config.workers.poll_ms)) => {},
    }
}

// ---------------------------------------------------------------- validation

/// Documents validated per store job at most (the core's check takes about 0.05 ms each,
/// and runs in the writer thread, so a job holds the others up for a few ms at most).
const VALIDATE_BATCH: i64 = 64;

/// Validates the queued documents. Each round is one store job: it takes up to
/// [`VALIDATE_BATCH`] queued documents (locked with `FOR UPDATE SKIP LOCKED` on
/// PostgreSQL, so that another process takes others), validates them with the core and
/// records each verdict (its status, history and outbox rows) before the same commit:
/// no claim to write first and release after, and a crash loses nothing (the documents
/// are still `queued`).
pub(crate) async fn validate_loop(app: Arc<App>) {
    loop {
        let app2 = app.clone();
        let done = app
            .store
            .write(move |c| {
                let sql = format!(
                    "SELECT id, account, partner_id, document_type, x12 FROM documents
                     WHERE status = 'queued' ORDER BY seq LIMIT ?1 {}",
                    c.skip_locked()
                );
                let queued = c.query(&sql, vals![VALIDATE_BATCH]).map_err(db)?;
                let mut moves = Vec::with_capacity(queued.len());
                for r in &queued {
                    let key = doc_key(r).map_err(db)?;
                    let x12 = r.get::<Option<Vec<u8>>>(4).map_err(db)?.unwrap_or_default();
                    let span = tracing::info_span!("document", id = %key.id, stage = "validate");
                    let (valid, reason, json) =
                        span.in_scope(|| crate::x12::validate_rendered(&x12));
                    moves.push(Move {
                        doc: key,
                        step: if valid { Step::Validate } else { Step::Invalid },
                        changes: Changes {
                            diagnostics: Some(json),
                            failure: (!valid).then(|| reason.clone()),
                            ..Changes::default()
                        },
                        reason,
                    });
                }
                transitions(c, &app2.settings.current(), &moves).map_err(db)?;
                Ok(queued.len())
            })
            .await;
        match done {
            Ok(0) => idle(&app, &app.wake.validate).await,
            Ok(n) => {
                crate::metrics::worked(n as u64);
                app.wake.route.notify_one();
                app.wake.deliver.notify_one();
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(app.config.workers.poll_ms)).await,
        }
    }
}

// ---------------------------------------------------------------- routing

struct Validated {
    key: DocKey,
    x12: Vec<u8>,
    interchange_control: i64,
    /// Route claims so far, this one included: above 1, an earlier process took the
    /// document to route it and stopped before recording the outcome.
    claims: i64,
    /// Resends asked for (`POST /transactions/{id}/resend`): above 0, this routing is one.
    resends: i64,
    /// The routing attempts recorded before the resend (kept, the new ones follow).
    earlier_attempts: Option<String>,
}

/// What a resend after an interrupted attempt says, in the history and the attempts.
const RESENT: &str = "sent again: a process stopped while this document was being routed, before it recorded the outcome, so the partner may have received it already (the resend is byte-identical, same ISA13 and Idempotency-Key, for the partner to deduplicate)";

/// Ids being worked on by this process, and when recent ones finished, so that
/// a poll does not start one twice: a read that began before a job's commit
/// may still show it as waiting, so a finished id is skipped by every read
/// that began before it finished.
#[derive(Debug, Default)]
struct Claims {
    /// Running ids, with the partner (or endpoint) each is for.
    running: std::collections::HashMap<String, String>,
    /// Running transfers (deliveries) per partner (endpoint).
    busy: std::collections::HashMap<String, usize>,
    finished: std::collections::HashMap<String, std::time::Instant>,
    /// Documents routed whose outcome could not be recorded (a store failure): the next
    /// attempt is a resend, though the claim stays this process's.
    unrecorded: HashSet<String>,
}

type InFlight = Arc<Mutex<Claims>>;

/// What [`Claims::room`] says: the partners (endpoints) at their share, the running count
/// of each busy one, and the ids running.
type Room = (
    Vec<String>,
    std::collections::HashMap<String, usize>,
    Vec<String>,
);

impl Claims {
    /// Keeps the ids of a read begun at `began` that are not running nor finished since;
    /// `key` is the partner (endpoint) of a row.
    fn take<T>(
        &mut self,
        began: std::time::Instant,
        rows: Vec<T>,
        id: impl Fn(&T) -> &str,
        key: impl Fn(&T) -> String,
    ) -> Vec<T> {
        self.finished.retain(|_, done| *done >= began);
        rows.into_iter()
            .filter(|r| {
                let id = id(r);
                if self.finished.contains_key(id) || self.running.contains_key(id) {
                    return false;
                }
                let key = key(r);
                *self.busy.entry(key.clone()).or_insert(0) += 1;
                self.running.insert(id.to_string(), key);
                true
            })
            .collect()
    }

    fn done(&mut self, id: String) {
        if let Some(key) = self.running.remove(&id)
            && let Some(n) = self.busy.get_mut(&key)
        {
            *n -= 1;
            if *n == 0 {
                self.busy.remove(&key);
            }
        }
        self.finished.insert(id, std::time::Instant::now());
    }

    /// The partners (endpoints) at `cap` running, what each busy one runs, and the ids
    /// running.
    fn room(&self, cap: usize) -> Room {
        let full = self
            .busy
            .iter()
            .filter(|(_, n)| **n >= cap)
            .map(|(k, _)| k.clone())
            .collect();
        (
            full,
            self.busy.clone(),
            self.running.keys().cloned().collect(),
        )
    }
}

/// The ids to claim among `candidates` (id, partner or endpoint; oldest first): at most
/// `free`, and at most `cap` running per partner (endpoint) counting `busy`, so that one
/// partner that stalls never holds more than its share of the transfers.
fn pick(
    candidates: impl Iterator<Item = (String, String)>,
    busy: &std::collections::HashMap<String, usize>,
    cap: usize,
    free: usize,
) -> Vec<String> {
    let mut taken: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for (id, key) in candidates {
        if out.len() >= free {
            break;
        }
        let running = busy.get(&key).copied().unwrap_or(0);
        let t = taken.entry(key).or_insert(0);
        if running + *t < cap {
            *t += 1;
            out.push(id);
        }
    }
    out
}

pub(crate) async fn route_loop(app: Arc<App>, client: reqwest::Client) {
    let permits = Arc::new(Semaphore::new(app.config.workers.concurrency));
    let in_flight: InFlight = Arc::default();
    // The outcomes of the transfers running at once are recorded together.
    let record: Arc<Batcher<Move>> = Arc::new(Batcher::start(app.clone(), |c, settings, moves| {
        transitions(c, settings, moves)
    }));
    loop {
        if let Ok(p) = permits.acquire().await {
            drop(p);
        }
        let free = permits.available_permits();
        // Only rows that no live process holds, this one included (its rows being routed
        // are left out by id): a claim never takes (and so never locks) a row whose outcome
        // this process is about to record from another writer connection, which could
        // otherwise wait on each other. A row this process holds but does not work on (a
        // claim whose commit was lost with the database connection, though it committed)
        // is taken again: claimed by this process, it was never sent.
        let began = std::time::Instant::now();
        let owner = app.worker_id.clone();
        let cap = app.config.workers.concurrency_per_partner;
        let (full, busy, mine) = in_flight.lock().map(|c| c.room(cap)).unwrap_or_default();
        let batch = app
            .store
            .write(move |c| {
                // Candidates: unclaimed, or claimed by a process whose heartbeat stopped, of
                // partners not at their share (`concurrency_per_partner`); a few more than
                // there is room for, so that the share of each can be kept in `pick`.
                let (other, partners) = crate::db::in_texts(
                    c,
                    "(account || ?3 || partner_id)",
                    4,
                    &full,
                );
                let (working, running) = crate::db::in_texts(c, "id", 6, &mine);
                let candidates = c
                    .query(
                        &format!(
                            "SELECT id, account, partner_id FROM documents
                             WHERE status = 'validated'
                               AND (lease_owner IS NULL OR lease_owner = ?5
                                    OR lease_owner NOT IN (SELECT id FROM workers WHERE heartbeat_at > ?1))
                               AND NOT ({other}) AND NOT ({working})
                             ORDER BY seq LIMIT ?2 {}",
                            c.skip_locked()
                        ),
                        &[
                            (now_ms() - HEARTBEAT_STALE_MS).into(),
                            (free.max(16) as i64 * 4).into(),
                            KEY_SEPARATOR.into(),
                            partners,
                            owner.as_str().into(),
                            running,
                        ],
                    )
                    .map_err(db)?;
                let ids = pick(
                    candidates.iter().filter_map(|r| {
                        Some((
                            r.get(0).ok()?,
                            partner_key(&r.get::<String>(1).ok()?, &r.get::<String>(2).ok()?),
                        ))
                    }),
                    &busy,
                    cap,
                    free,
                );
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                // Claim: committed before the transfer starts; a claim of a document another
                // owner held or gave back counts (`route_claims`), so a resend is known as one.
                let (chosen, ids) = crate::db::in_texts(c, "id", 2, &ids);
                let sql = format!(
                    "UPDATE documents SET lease_owner = ?1,
                         route_claims = route_claims + CASE WHEN lease_owner = ?1 THEN 0 ELSE 1 END
                     WHERE {chosen}
                     RETURNING id, account, partner_id, document_type, x12, interchange_control, seq,
                         route_claims, resends, route_attempts"
                );
                let mut rows = c
                    .query(&sql, &[owner.as_str().into(), ids])
                    .map_err(db)?
                    .iter()
                    .map(|r| {
                        Ok((
                            r.get::<i64>(6)?,
                            Validated {
                                key: doc_key(r)?,
                                x12: r.get::<Option<Vec<u8>>>(4)?.unwrap_or_default(),
                                interchange_control: r.get::<Option<i64>>(5)?.unwrap_or(0),
                                claims: r.get::<i64>(7)?,
                                resends: r.get::<i64>(8)?,
                                earlier_attempts: r.get::<Option<String>>(9)?,
                            },
                        ))
                    })
                    .collect::<DbResult<Vec<_>>>()
                    .map_err(db)?;
                rows.sort_by_key(|(seq, _)| *seq);
                Ok(rows.into_iter().map(|(_, v)| v).collect::<Vec<_>>())
            })
            .await
            .unwrap_or_default();
        let fresh: Vec<Validated> = {
            let Ok(mut claims) = in_flight.lock() else {
                continue;
            };
            claims.take(
                began,
                batch,
                |d| &d.key.id,
                |d| partner_key(&d.key.account, &d.key.partner_id),
            )
        };
        if fresh.is_empty() {
            idle(&app, &app.wake.route).await;
            continue;
        }
        for mut doc in fresh {
            let Ok(permit) = permits.clone().acquire_owned().await else {
                return;
            };
            if in_flight
                .lock()
                .is_ok_and(|s| s.unrecorded.contains(&doc.key.id))
            {
                doc.claims = doc.claims.max(2);
            }
            let app = app.clone();
            let client = client.clone();
            let in_flight = in_flight.clone();
            let record = record.clone();
            let span = tracing::info_span!("document", id = %doc.key.id, stage = "route");
            tokio::spawn(
                async move {
                    let id = doc.key.id.clone();
                    let recorded = route_one(&app, &client, &record, doc).await;
                    if let Ok(mut s) = in_flight.lock() {
                        if recorded {
                            s.unrecorded.remove(&id);
                        } else {
                            s.unrecorded.insert(id.clone());
                        }
                        s.done(id);
                    }
                    drop(permit);
                }
                .instrument(span),
            );
        }
    }
}

/// Routes one document and records the outcome; false when it could not be recorded.
async fn route_one(
    app: &Arc<App>,
    client: &reqwest::Client,
    record: &Batcher<Move>,
    mut doc: Validated,
) -> bool {
    crate::metrics::worked(1);
    // A resend someone asked for: its document.routed says so (data.resend).
    doc.key.resend = doc.resends > 0;
    let partner = partner(app, &doc.key.account, &doc.key.partner_id);
    let outcome = match partner.as_ref().map(|p| p.transport.as_ref()) {
        None => crate::transport::outcome::Outcome {
            result: Err(format!(
                "partner {} is no longer configured for account {}",
                doc.key.partner_id, doc.key.account
            )),
            attempts: Vec::new(),
        },
        Some(None) => crate::transport::outcome::Outcome {
            result: Err(format!(
                "partner {} has no transport configured",
                doc.key.partner_id
            )),
            attempts: Vec::new(),
        },
        Some(Some(t)) => {
            let started = std::time::Instant::now();
            let outcome =
                crate::transport::send(client, t, &doc.key.id, doc.interchange_control, &doc.x12)
                    .await;
            crate::metrics::ROUTE.add(started.elapsed());
            outcome
        }
    };
    let window = partner
        .as_ref()
        .and_then(|p| p.ack_window_seconds)
        .filter(|_| !is_ack_type(&doc.key.document_type));
    let resent = doc.claims > 1;
    let mut attempts = outcome.attempts;
    if resent {
        // The earlier process's attempts were never recorded: say that there were some.
        tracing::warn!(
            claims = doc.claims,
            "routing again after an interrupted attempt"
        );
        attempts.insert(
            0,
            json!({"result": "interrupted", "resent": true, "claims": doc.claims, "note": RESENT}),
        );
    }
    // A resend someone asked for: its attempts follow the earlier ones, each marked.
    let resend = (doc.resends > 0).then(|| format!(" (resend {})", doc.resends));
    if resend.is_some() {
        for a in &mut attempts {
            a["resend"] = json!(doc.resends);
        }
        let earlier = doc
            .earlier_attempts
            .as_deref()
            .and_then(|t| serde_json::from_str::<Vec<Value>>(t).ok())
            .unwrap_or_default();
        attempts.splice(0..0, earlier);
    }
    let resend = resend.unwrap_or_default();
    let attempts = Value::Array(attempts).to_string();
    crate::metrics::routing_attempt(
        match &partner {
            Some(p) => p.transport.as_ref().map_or("none", |t| t.kind()),
            None => "none",
        },
        if outcome.result.is_ok() {
            "routed"
        } else {
            "failed"
        },
    );
    let (step, reason, deadline, failure) = match outcome.result {
        Ok(where_) => (
            Step::Route,
            if resent {
                format!("{where_}{resend}; {RESENT}")
            } else {
                format!("{where_}{resend}")
            },
            window.map(|w| now_ms() + (w as i64) * 1000),
            None,
        ),
        Err(reason) => {
            let reason = if resent {
                format!("{reason}{resend}; {RESENT}")
            } else {
                format!("{reason}{resend}")
            };
            (Step::RouteFailed, reason.clone(), None, Some(reason))
        }
    };
    let doc_id = doc.key.id.clone();
    let written = record
        .write(Move {
            doc: doc.key,
            step,
            reason,
            changes: Changes {
                route_attempts: Some(attempts),
                ack_deadline: deadline,
                failure,
                ..Changes::default()
            },
        })
        .await;
    app.wake.deliver.notify_one();
    match written {
        Ok(true) => tracing::info!("routed"),
        Ok(false) => tracing::warn!("the document left `validated` while it was routed"),
        Err(_) => {
            tracing::error!("cannot record the routing; it is retried");
            give_back(app, Lease::Route, doc_id).await;
            return false;
        }
    }
    true
}

/// What a worker's claim holds (`lease_owner` of its row).
#[derive(Debug, Clone, Copy)]
enum Lease {
    /// A `validated` document being routed.
    Route,
    /// A `pending` webhook delivery being attempted.
    Delivery,
}

/// Gives a claim back after its outcome could not be recorded, so that a later claim
/// takes the row again (claims skip the rows of live processes, this one's included);
/// only while this process holds it and the row is still waiting.
async fn give_back(app: &App, lease: Lease, id: String) {
    let sql = match lease {
        Lease::Route => {
            "UPDATE documents SET lease_owner = NULL
             WHERE id = ?1 AND lease_owner = ?2 AND status = 'validated'"
        }
        Lease::Delivery => {
            "UPDATE webhook_deliveries SET lease_owner = NULL
             WHERE id = ?1 AND lease_owner = ?2 AND state = 'pending'"
        }
    };
    let me = app.worker_id.clone();
    let mut tries = 0;
    let given = loop {
        let (id, me) = (id.clone(), me.clone());
        match app
            .store
            .write(move |c| c.exec(sql, vals![&id, &me]).map_err(db))
            .await
        {
            // Not given back, the row would wait for this process to stop.
            Err(e) if e.is_store_unavailable() => {
                tokio::time::sleep(retry_wait(tries)).await;
                tries += 1;
            }
            r => break r,
        }
    };
    if given.is_err() {
        tracing::error!(
            ?lease,
            "cannot give the claim back; the row waits until this process stops"
        );
    }
}

// ---------------------------------------------------------------- acknowledgement windows

pub(crate) async fn sweep_loop(app: Arc<App>) {
    loop {
        tokio::time::sleep(Duration::from_millis(app.config.workers.poll_ms)).await;
        let now = now_ms();
        let due = app
            .store
            .read(move |c| {
                c.query(
                    "SELECT id, account, partner_id, document_type, ack_deadline FROM documents
                     WHERE status = 'routed' AND ack_deadline IS NOT NULL AND ack_deadline <= ?1
                     LIMIT 256",
                    vals![now],
                )?
                .iter()
                .map(|r| Ok((doc_key(r)?, r.get::<i64>(4)?)))
                .collect::<DbResult<Vec<_>>>()
            })
            .await
            .unwrap_or_default();
        if due.is_empty() {
            continue;
        }
        crate::metrics::worked(due.len() as u64);
        let settings = app.settings.current();
        let _ = app
            .store
            .write(move |c| {
                for (key, deadline) in &due {
                    let window = settings
                        .partner(&key.account, &key.partner_id)
                        .and_then(|p| p.ack_window_seconds)
                        .unwrap_or(0);
                    let reason = format!("{NO_ACK} {window} s (due {})", rfc3339(*deadline));
                    let changes = Changes {
                        failure: Some(reason.clone()),
                        ..Changes::default()
                    };
                    transition(c, &settings, key, Step::Overdue, &reason, changes).map_err(db)?;
                }
                Ok(())
            })
            .await;
        app.wake.deliver.notify_one();
    }
}

// ---------------------------------------------------------------- webhooks

struct Pending {
    id: String,
    account: String,
    url: String,
    body: Vec<u8>,
    attempts: i64,
    document_id: String,
    /// The endpoint (NULL on rows written before settings lived in the store: found by URL).
    endpoint_id: Option<String>,
}

/// Delivers the webhook outbox, at least once per row.
///
/// Each attempt is signed by the core ([`Signer::deliver_payload`]) with the
/// stored delivery id and body and a fresh timestamp, once per secret of the
/// endpoint (rotation: `X-Service-Signature: sha256=<new>, sha256=<old>`). A
/// 2xx within `webhook_timeout_ms` is delivered; anything else is retried after
/// the next wait of `webhook_retry_ms`; after the last, the delivery is
/// `failed`. A crash between the receiver's 2xx and the commit sends it again
/// with the same `X-Service-Delivery-ID`: receivers deduplicate on it. The
/// events of one document reach one endpoint in the order they happened: a
/// delivery waits while an earlier one of the same document to the same
/// endpoint is still pending (retrying).
pub(crate) async fn deliver_loop(app: Arc<App>, client: reqwest::Client) {
    let permits = Arc::new(Semaphore::new(app.config.workers.concurrency));
    let in_flight: InFlight = Arc::default();
    // The attempts running at once are recorded together.
    let record: Arc<Batcher<Attempt>> = Arc::new(Batcher::start(app.clone(), |c, _, attempts| {
        record_attempts(c, attempts)
    }));
    loop {
        if let Ok(p) = permits.acquire().await {
            drop(p);
        }
        let free = permits.available_permits();
        // Only rows that no live process holds, this one included: a claim never takes
        // (and so never locks) a row whose outcome this process is about to record from
        // another writer connection, which could otherwise wait on each other.
        let now = now_ms();
        let began = std::time::Instant::now();
        let owner = app.worker_id.clone();
        let cap = app.config.workers.concurrency_per_endpoint;
        let (full, busy, mine) = in_flight.lock().map(|c| c.room(cap)).unwrap_or_default();
        let batch = app
            .store
            .write(move |c| {
                // Due, not waiting for an earlier event of its document to the same endpoint,
                // not claimed by a live process (this one's rows not being delivered
                // excepted, as for routing), to endpoints not at their share
                // (`concurrency_per_endpoint`).
                let (other, endpoints) = crate::db::in_texts(c, "d.url", 4, &full);
                let (working, running) = crate::db::in_texts(c, "d.id", 6, &mine);
                let candidates = c
                    .query(
                        &format!(
                            "SELECT d.id, d.url FROM webhook_deliveries d
                             WHERE d.state = 'pending' AND d.next_at <= ?1
                               AND (d.lease_owner IS NULL OR d.lease_owner = ?5
                                    OR d.lease_owner NOT IN (SELECT id FROM workers WHERE heartbeat_at > ?2))
                               AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                                   WHERE e.document_id = d.document_id AND e.url = d.url
                                     AND e.state = 'pending' AND e.event_no < d.event_no)
                               AND NOT ({other}) AND NOT ({working})
                             ORDER BY d.next_at, d.id LIMIT ?3 {}",
                            c.skip_locked()
                        ),
                        &[
                            now.into(),
                            (now_ms() - HEARTBEAT_STALE_MS).into(),
                            (free.max(16) as i64 * 4).into(),
                            endpoints,
                            owner.as_str().into(),
                            running,
                        ],
                    )
                    .map_err(db)?;
                let ids = pick(
                    candidates
                        .iter()
                        .filter_map(|r| Some((r.get(0).ok()?, r.get(1).ok()?))),
                    &busy,
                    cap,
                    free,
                );
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                let (chosen, ids) = crate::db::in_texts(c, "id", 2, &ids);
                let sql = format!(
                    "UPDATE webhook_deliveries SET lease_owner = ?1 WHERE {chosen}
                     RETURNING id, account, url, body, attempts, document_id, endpoint_id"
                );
                c.query(&sql, &[owner.as_str().into(), ids])
                    .and_then(|rows| {
                        rows.iter()
                            .map(|r| {
                                Ok(Pending {
                                    id: r.get(0)?,
                                    account: r.get(1)?,
                                    url: r.get(2)?,
                                    body: r.get(3)?,
                                    attempts: r.get(4)?,
                                    document_id: r.get(5)?,
                                    endpoint_id: r.get(6)?,
                                })
                            })
                            .collect::<DbResult<Vec<_>>>()
                    })
                    .map_err(db)
            })
            .await
            .unwrap_or_default();
        let fresh: Vec<Pending> = {
            let Ok(mut claims) = in_flight.lock() else {
                continue;
            };
            claims.take(began, batch, |d| &d.id, |d| d.url.clone())
        };
        if fresh.is_empty() {
            idle(&app, &app.wake.deliver).await;
            continue;
        }
        for d in fresh {
            let Ok(permit) = permits.clone().acquire_owned().await else {
                return;
            };
            let app = app.clone();
            let client = client.clone();
            let in_flight = in_flight.clone();
            let record = record.clone();
            let span = tracing::info_span!("delivery", id = %d.id, document = %d.document_id);
            tokio::spawn(
                async move {
                    let id = d.id.clone();
                    deliver(&app, &client, &record, d).await;
                    if let Ok(mut s) = in_flight.lock() {
                        s.done(id);
                    }
                    drop(permit);
                }
                .instrument(span),
            );
        }
    }
}

/// The body and headers of one attempt.
type Signed = (Vec<u8>, Vec<(&'static str, String)>);

/// The headers and body of one attempt, signed by the core with every secret that signs
/// (during a rotation: `X-Service-Signature: sha256=<new>, sha256=<old>`).
fn sign_attempt(
    secrets: &[&str],
    id: &str,
    body: &[u8],
    now: Duration,
) -> Result<Signed, x12kit::Error> {
    let id = DeliveryId::from_str(id)?;
    let payload = Payload::from_slice(body)?;
    Ok(Signer::with_secrets(secrets)?
        .deliver_payload(id, &payload, now)
        .into_parts())
}

/// The outcome of one webhook attempt, to record.
#[derive(Debug)]
struct Attempt {
    id: String,
    attempt: i64,
    at: i64,
    status: Option<i64>,
    result: String,
    duration_ms: i64,
    state: Delivery,
    next_at: Option<i64>,
    delivered_at: Option<i64>,
}

/// Records webhook attempts: each delivery's new state (only if it is still `pending` at
/// the attempt before, so an attempt is never recorded twice) and its attempt log row.
/// On PostgreSQL one statement for the batch; on SQLite two per attempt.
fn record_attempts(c: &dyn Db, items: &[Attempt]) -> DbResult<Vec<bool>> {
    if c.skip_locked().is_empty() {
        return items
            .iter()
            .map(|a| {
                let n = c.exec(
                    "UPDATE webhook_deliveries SET attempts = ?2, last_result = ?3, state = ?4,
                        next_at = ?5, delivered_at = ?6, lease_owner = NULL
                     WHERE id = ?1 AND state = 'pending' AND attempts = ?7",
                    vals![
                        &a.id,
                        a.attempt,
                        &a.result,
                        a.state.as_str(),
                        a.next_at,
                        a.delivered_at,
                        a.attempt - 1
                    ],
                )?;
                if n == 1 {
                    c.defer(
                        "INSERT INTO webhook_attempts (delivery_id, attempt, at, status, result, duration_ms)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        vals![&a.id, a.attempt, a.at, a.status, &a.result, a.duration_ms],
                    )?;
                }
                Ok(n == 1)
            })
            .collect();
    }
    use crate::db::Val;
    // A delivery at most once per statement.
    let mut applied = vec![false; items.len()];
    let mut rest: Vec<(usize, &Attempt)> = items.iter().enumerate().collect();
    while !rest.is_empty() {
        let mut seen = HashSet::new();
        let (now, later): (Vec<_>, Vec<_>) = rest
            .into_iter()
            .partition(|(_, a)| seen.insert(a.id.clone()));
        rest = later;
        let column = |f: &dyn Fn(&Attempt) -> Option<String>| -> Val {
            Val::Texts(now.iter().map(|(_, a)| f(a)).collect())
        };
        let ints = |f: &dyn Fn(&Attempt) -> Option<i64>| -> Val {
            Val::Ints(now.iter().map(|(_, a)| f(a)).collect())
        };
        let rows = c.query(
            "WITH u AS (
                SELECT * FROM unnest(?1::text[], ?2::bigint[], ?3::bigint[], ?4::bigint[],
                                     ?5::text[], ?6::bigint[], ?7::text[], ?8::bigint[], ?9::bigint[])
                    AS u(id, attempt, at, status, result, duration_ms, state, next_at, delivered_at)
            ), changed AS (
                UPDATE webhook_deliveries d SET attempts = u.attempt, last_result = u.result,
                    state = u.state, next_at = u.next_at, delivered_at = u.delivered_at,
                    lease_owner = NULL
                FROM u WHERE d.id = u.id AND d.state = 'pending' AND d.attempts = u.attempt - 1
                RETURNING d.id
            ), log AS (
                INSERT INTO webhook_attempts (delivery_id, attempt, at, status, result, duration_ms)
                SELECT u.id, u.attempt, u.at, u.status, u.result, u.duration_ms FROM u
                WHERE u.id IN (SELECT id FROM changed)
            )
            SELECT id FROM changed",
            &[
                column(&|a| Some(a.id.clone())),
                ints(&|a| Some(a.attempt)),
                ints(&|a| Some(a.at)),
                ints(&|a| a.status),
                column(&|a| Some(a.result.clone())),
                ints(&|a| Some(a.duration_ms)),
                column(&|a| Some(a.state.as_str().to_string())),
                ints(&|a| a.next_at),
                ints(&|a| a.delivered_at),
            ],
        )?;
        let changed = rows
            .iter()
            .map(|r| r.get::<String>(0))
            .collect::<DbResult<HashSet<_>>>()?;
        for (i, a) in &now {
            applied[*i] = changed.contains(&a.id);
        }
    }
    Ok(applied)
}

async fn deliver(app: &Arc<App>, client: &reqwest::Client, record: &Batcher<Attempt>, d: Pending) {
    crate::metrics::worked(1);
    let settings = app.settings.current();
    let endpoint = settings.account(&d.account).and_then(|a| {
        a.webhooks
            .iter()
            .find(|w| match &d.endpoint_id {
                Some(id) => &w.id == id,
                None => w.url == d.url,
            })
            .cloned()
    });
    let started = std::time::Instant::now();
    let at = now_ms();
    // An endpoint deleted or disabled gets nothing more: the delivery ends unsent.
    let mut end_now = false;
    let secrets: Option<Vec<String>> = match &endpoint {
        Some(e) if e.enabled => Some(
            e.signing_secrets(at)
                .into_iter()
                .map(str::to_string)
                .collect(),
        ),
        _ => None,
    };
    let (status, result) = match secrets {
        None => {
            end_now = true;
            let why = match &endpoint {
                Some(_) => "the endpoint is disabled: not sent",
                None => "the endpoint was deleted: not sent",
            };
            (None, Err(why.to_string()))
        }
        Some(secrets) if secrets.is_empty() => (
            None,
            Err("cannot sign: the endpoint has no secret this server can open (is the secret key configured?)".to_string()),
        ),
        Some(secrets) => {
            let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
            match sign_attempt(&secrets, &d.id, &d.body, x12kit::webhook::system_now()) {
                Err(e) => (None, Err(format!("cannot sign: {}", e.message()))),
                Ok((body, headers)) => {
                    let mut request = client
                        .post(&d.url)
                        .timeout(Duration::from_millis(app.config.workers.webhook_timeout_ms))
                        .body(body);
                    for (k, v) in headers {
                        request = request.header(k, v);
                    }
                    match request.send().await {
                        Ok(r) if r.status().is_success() => {
                            (Some(r.status().as_u16()), Ok("delivered".to_string()))
                        }
                        Ok(r) => (
                            Some(r.status().as_u16()),
                            Err(format!("HTTP {}", r.status().as_u16())),
                        ),
                        Err(e) if e.is_timeout() => (None, Err("timeout".to_string())),
                        Err(e) if e.is_connect() => (None, Err("connection failed".to_string())),
                        Err(e) => (None, Err(format!("request failed: {e}"))),
                    }
                }
            }
        }
    };
    crate::metrics::WEBHOOK.add(started.elapsed());
    crate::metrics::webhook_attempt(match (&result, status) {
        (Ok(_), _) => "delivered",
        (Err(_), _) if end_now => "not_sent",
        (Err(_), Some(_)) => "http_error",
        (Err(e), None) if e == "timeout" => "timeout",
        (Err(e), None) if e == "connection failed" => "connection_failed",
        (Err(_), None) => "error",
    });
    let duration = started.elapsed().as_millis() as i64;
    let attempt = d.attempts + 1;
    let (text, ok) = match result {
        Ok(t) => (t, true),
        Err(t) => (t, false),
    };
    let (state, next_at, delivered_at) = if ok {
        (Delivery::Delivered, None, Some(now_ms()))
    } else if end_now {
        (Delivery::Failed, None, None)
    } else {
        match app
            .config
            .workers
            .webhook_retry_ms
            .get((attempt - 1) as usize)
        {
            Some(wait) => (Delivery::Pending, Some(now_ms() + *wait as i64), None),
            None => (Delivery::Failed, None, None),
        }
    };
    let delivery_id = d.id.clone();
    let written = record
        .write(Attempt {
            id: d.id,
            attempt,
            at,
            status: status.map(i64::from),
            result: text,
            duration_ms: duration,
            state,
            next_at,
            delivered_at,
        })
        .await
        .map(|_| state);
    match written {
        Ok(state) => tracing::info!(attempt, state = state.as_str(), "webhook attempt"),
        Err(_) => {
            tracing::error!("cannot record the webhook attempt; it is retried");
            give_back(app, Lease::Delivery, delivery_id).await;
        }
    }
}

// ---------------------------------------------------------------- stats

/// The account's documents by status, those created at or after `since` (Unix ms) when given.
fn by_status(
    c: &dyn Db,
    account: &str,
    since: Option<i64>,
) -> DbResult<serde_json::Map<String, Value>> {
    let mut documents = serde_json::Map::new();
    for s in Status::ALL {
        documents.insert(s.as_str().to_string(), json!(0));
    }
    let rows = match since {
        None => c.query(
            "SELECT status, COUNT(*) FROM documents WHERE account = ?1 GROUP BY status",
            vals![account],
        )?,
        Some(t) => c.query(
            "SELECT status, COUNT(*) FROM documents WHERE account = ?1 AND created_at >= ?2 GROUP BY status",
            vals![account, t],
        )?,
    };
    for r in rows {
        documents.insert(r.get::<String>(0)?, json!(r.get::<i64>(1)?));
    }
    Ok(documents)
}

fn count(c: &dyn Db, sql: &str, params: &[crate::db::Val]) -> DbResult<i64> {
    c.one(sql, params)?.map_or(Ok(0), |r| r.get(0))
}

/// Queue depths and counts of the account (`GET /stats`); with `since` (Unix ms), also the
/// documents created since then by status.
pub fn stats(c: &dyn Db, account: &str, since: Option<i64>) -> DbResult<Value> {
    let documents = by_status(c, account, None)?;
    let mut webhooks = serde_json::Map::new();
    for s in Delivery::ALL {
        webhooks.insert(s.as_str().to_string(), json!(0));
    }
    for r in c.query(
        "SELECT state, COUNT(*) FROM webhook_deliveries WHERE account = ?1 GROUP BY state",
        vals![account],
    )? {
        webhooks.insert(r.get::<String>(0)?, json!(r.get::<i64>(1)?));
    }
    let retrying: i64 = c
        .one(
            "SELECT COUNT(*) FROM webhook_deliveries WHERE account = ?1 AND state = 'pending' AND attempts > 0",
            vals![account],
        )?
        .map_or(Ok(0), |r| r.get(0))?;
    let oldest_queued: Option<i64> = c
        .one(
            "SELECT MIN(created_at) FROM documents WHERE account = ?1 AND status IN ('queued', 'validated')",
            vals![account],
        )?
        .map_or(Ok(None), |r| r.get(0))?;
    let now = now_ms();
    let attention = json!({
        "failed": documents.get("failed").cloned().unwrap_or(json!(0)),
        "rejectedByPartner": count(
            c,
            "SELECT COUNT(*) FROM documents WHERE account = ?1 AND status = 'failed' AND partner_ack IS NOT NULL",
            vals![account],
        )?,
        "acknowledgementOverdue": count(
            c,
            "SELECT COUNT(*) FROM documents WHERE account = ?1
             AND ((status = 'failed' AND failure LIKE ?2) OR (status = 'routed' AND ack_deadline <= ?3))",
            vals![account, format!("{NO_ACK}%"), now],
        )?,
        "webhookDeliveriesFailed": webhooks["failed"],
    });
    let queues = json!({
        "toValidate": documents.get("queued").cloned().unwrap_or(json!(0)),
        "toRoute": documents.get("validated").cloned().unwrap_or(json!(0)),
        "awaitingAcknowledgement": documents.get("routed").cloned().unwrap_or(json!(0)),
        "oldestWaitingMs": oldest_queued.map(|t| (now - t).max(0)),
    });
    let mut out = json!({
        "documents": documents,
        "attention": attention,
        "queues": queues,
        "webhooks": {
            "pending": webhooks["pending"],
            "retrying": retrying,
            "delivered": webhooks["delivered"],
            "failed": webhooks["failed"],
        },
    });
    if let Some(t) = since {
        out["created"] = json!({
            "since": rfc3339(t),
            "documents": by_status(c, account, Some(t))?,
        });
    }
    Ok(out)
}

/// A transport's inbox folder, if it has one.
pub fn inbox(t: &TransportConfig) -> Option<&std::path::Path> {
    match t {
        TransportConfig::Directory { inbox, .. } => inbox.as_deref(),
        _ => None,
    }
}
