//! X12 from partners: `POST /documents/inbound` and the `directory` transports'
//! inbox folders. (The endpoint goes beyond the service's specification.)
//!
//! TA1, 997 and 999 are read with the core (`ops::read_acknowledgement`) and
//! matched to the documents sent to that partner by control numbers (TA1:
//! ISA13; 997/999: GS06 from AK102/IK... and ST02 from AK202): accepted →
//! `acknowledged` + `document.partner_ack`; rejected → `failed` +
//! `document.partner_ack`, then `document.error`, with the acknowledgement
//! (AK3/AK4/AK5 or IK3/IK4/IK5 and their codes) stored. Other sets are recorded
//! as inbound transactions with their mapped document (the core's parse) and,
//! when the partner is configured with `acknowledge_inbound`, answered with a
//! 997/999 made by the core (`ops::acknowledge`) that goes out as an outbound
//! document through the partner's transport. Each interchange is taken once
//! (by account, partner and ISA13): a file read again after a crash, or a
//! resent interchange, is reported as a duplicate and not processed twice.

use crate::app::App;
use crate::db::{Db, DbError, DbResult, Val};
use crate::error::{ApiError, ApiResult};
use crate::lifecycle::{Changes, DocKey, transition};
use crate::settings::partner::Partner;
use crate::status::{Status, Step};
use crate::store::now_ms;
use crate::vals;
use axum::http::StatusCode;
use serde_json::{Value, json};
use std::sync::Arc;
use tracing::Instrument;
use x12kit::envelope::SetCap;
use x12kit::ops;
use x12kit_mapped::Input;

/// One interchange of an inbound body, from the first pass over it ([`scan`]).
#[derive(Debug, PartialEq)]
struct Interchange {
    /// ISA05 and ISA06, trimmed.
    sender: (String, String),
    /// ISA13, trimmed.
    control: String,
    /// Its sets, in order: their numbers only (what they hold is read by the second
    /// pass, a batch at a time).
    sets: Vec<SetMark>,
}

/// A set of an inbound interchange, as the first pass saw it.
#[derive(Debug, PartialEq)]
struct SetMark {
    /// ST01.
    kind: String,
}

/// The first pass over an inbound body: its interchanges and their sets' types, and
/// the parse's diagnostics (why a body is not X12).
struct Outline {
    interchanges: Vec<Interchange>,
    diagnostics: Vec<x12kit::Diagnostic>,
}

/// Drops the pages of a mapped body behind a pass over it (a no-op for a buffer).
struct Behind<'i> {
    input: &'i Input,
    released: usize,
}

impl Behind<'_> {
    fn release(&mut self, upto: usize) {
        self.released = self.input.release(self.released, upto);
    }
}

/// The first pass's handler: an interchange's numbers and its sets' types.
struct Scan<'i> {
    interchanges: Vec<Interchange>,
    behind: Behind<'i>,
}

impl<'a> x12kit::sets::SetHandler<'a> for Scan<'_> {
    fn interchange(&mut self, outline: &x12kit::sets::Outline<'a>) {
        let isa = &outline.interchange.isa;
        self.interchanges.push(Interchange {
            sender: (text(isa.value(5)), text(isa.value(6))),
            control: text(isa.value(13)),
            sets: Vec::new(),
        });
    }

    fn transaction(
        &mut self,
        _doc: &x12kit::Document<'a>,
        _group: &x12kit::Group<'a>,
        tx: &x12kit::Transaction<'a>,
        upto: usize,
    ) {
        if let Some(ic) = self.interchanges.last_mut() {
            ic.sets.push(SetMark {
                kind: text(tx.kind()),
            });
        }
        self.behind.release(upto);
    }

    fn interchange_end(&mut self, _outline: &x12kit::sets::Outline<'a>, upto: usize) {
        self.behind.release(upto);
    }

    fn read_ahead(&mut self, from: usize, to: usize) {
        self.behind.input.drop_pages(from, to);
    }
}

/// Runs a core pass, a panic being a logged 500.
fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> ApiResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|_| {
        tracing::error!("the core panicked {what} an inbound interchange");
        ApiError::internal()
    })
}

/// The first pass: the interchanges and their sets (no mapped document is made).
fn scan(input: &Input, cap: SetCap) -> ApiResult<Outline> {
    guarded("reading", || {
        let mut s = Scan {
            interchanges: Vec::new(),
            behind: Behind { input, released: 0 },
        };
        let doc = x12kit::sets::parse_sets(input, x12kit::sets::HOLD, cap, &mut s);
        Outline {
            interchanges: s.interchanges,
            diagnostics: doc.diagnostics,
        }
    })
}

/// How much of the body the validator is fed at a time (the pages behind it dropped).
const FEED: usize = 4 << 20;

/// The core's validation of the body with the structure rules and the partner's guides
/// (what an acknowledgement reply reports, the acknowledgements the body carries and the
/// guides' findings), made by the push validator: no tree held.
fn validation(input: &Input, options: &ops::ValidateOptions) -> ApiResult<x12kit::Validation> {
    guarded("validating", || {
        let mut v = ops::stream_validator(options);
        let mut behind = Behind { input, released: 0 };
        for (n, chunk) in input.chunks(FEED).enumerate() {
            v.feed(chunk);
            behind.release(n * FEED);
        }
        v.finish()
    })
}

/// An element's text, trimmed.
fn text(v: &[u8]) -> String {
    String::from_utf8_lossy(v).trim().to_string()
}

/// An element's number (control numbers).
fn number(v: &[u8]) -> Option<i64> {
    std::str::from_utf8(v).ok()?.trim().parse::<i64>().ok()
}

/// The account's partner that sent `first` (ISA05/ISA06 = the profile's receiver).
fn sender_partner(app: &App, account: &str, first: &Interchange) -> Option<Arc<Partner>> {
    let (q, id) = &first.sender;
    let settings = app.settings.current();
    let acct = settings.account(account)?;
    acct.partners
        .values()
        .find(|p| {
            p.profile["receiver"]["qualifier"].as_str() == Some(q.as_str())
                && p.profile["receiver"]["id"].as_str().map(str::trim) == Some(id.as_str())
        })
        .cloned()
}

/// The partner that sent the body: the one named, else the one whose profile's receiver
/// is the first interchange's sender; 422 `NOT_X12` for a body without an interchange.
fn sender(
    app: &App,
    account: &str,
    named: Option<&str>,
    outline: &Outline,
) -> ApiResult<Arc<Partner>> {
    let Some(first) = outline.interchanges.first() else {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "NOT_X12",
            "the body holds no X12 interchange",
        )
        .with_details(
            outline
                .diagnostics
                .iter()
                .take(20)
                .map(|d| {
                    crate::error::Detail::error(
                        "NOT_X12",
                        "",
                        format!("{}: {}", d.code, d.message.trim()),
                    )
                })
                .collect(),
        ));
    };
    match named {
        Some(id) => crate::lifecycle::partner(app, account, id).ok_or_else(|| {
            ApiError::not_found(
                "PARTNER_NOT_FOUND",
                format!("no trading partner {id:?} in this account"),
            )
        }),
        None => sender_partner(app, account, first).ok_or_else(|| {
            ApiError::not_found(
                "PARTNER_NOT_FOUND",
                format!(
                    "no trading partner of this account sends as {}/{} (ISA05/ISA06); name it with ?partnerId=",
                    first.sender.0, first.sender.1
                ),
            )
        }),
    }
}

/// Takes one inbound body for the account; `partner` names the sender when known.
pub async fn receive(
    app: &Arc<App>,
    account: &str,
    partner: Option<&str>,
    input: Input,
    source: &'static str,
    cap: SetCap,
) -> ApiResult<Value> {
    receive_then(app, account, partner, input, source, cap, |_, _| Ok(())).await
}

/// How many sets one store transaction records at most ([`BATCH_BYTES`] too).
pub const BATCH_SETS: usize = 256;
/// How many bytes of records (mapped documents and X12) one store transaction holds
/// at most (a single larger set makes a batch by itself).
const BATCH_BYTES: usize = 8 << 20;
/// The largest body applied in one store transaction (with at most [`BATCH_SETS`] sets
/// to record): a set's record holds its X12 and its mapped document, about twice to three
/// times its X12, so such a body's records fit in one batch.
const ONE_STEP_BYTES: usize = BATCH_BYTES / 4;
/// How long an interchange being received stays claimed by its request when the
/// request makes no progress: past it, a retry takes the interchange over. While it
/// makes progress (sets mapped, batches written) its claim is renewed ([`Heartbeat`]).
const LEASE_MS: i64 = 60_000;

/// What becomes of one interchange of the body (decided by the claim).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fate {
    /// Its sets are recorded by this request; `skip`: the sets an earlier attempt
    /// recorded (a retry after a failure between batches resumes after them).
    Record { control: i64, skip: usize },
    /// Not recorded: a duplicate, or no readable ISA13.
    Pass,
}

/// [`receive`], with `then` run in the same store transaction as the last step of the
/// body (the SFTP transport records the file it took with it, so that a crash never
/// applies a file twice).
///
/// A body that fits in one batch (at most [`BATCH_SETS`] sets to record and
/// [`ONE_STEP_BYTES`]: an acknowledgement, a partner's ordinary document) is applied in
/// ONE store transaction, as [`receive_whole`] applies any body: its interchanges claimed
/// and completed, the acknowledgements it carries applied, its sets recorded, the reply
/// queued and `then` run, or nothing. A larger body is applied in steps, so that an
/// interchange of any size costs bounded memory and no store transaction holds
/// thousands of sets:
///
/// 1. Two passes read it (mapped pages dropped behind): its interchanges and sets, then
///    the core's validation (the acknowledgements it carries, what a reply reports).
/// 2. One transaction claims each interchange (by account, partner and ISA13: a
///    duplicate is reported and not processed again) with a token of the request's own,
///    and applies the acknowledgements the body carries to the documents they acknowledge.
/// 3. A third pass maps its sets one at a time and records them a batch at a time
///    ([`BATCH_SETS`] sets or 8 MiB), each batch its own transaction.
/// 4. One transaction queues the acknowledgement reply, stores the interchange's result
///    (which marks it complete) and runs `then`.
///
/// Until step 4 commits, the interchange is claimed (its row's `result` is `{}`, its
/// `claim` the request's token), renewed while the request makes progress. When a step
/// fails (the store, a crash), what was committed stays: the sets recorded, each once. A
/// retry of the same interchange (the client again, the inbox or SFTP poll reading the
/// file again, the partner resending) resumes it: it records the sets after those an
/// earlier attempt recorded, then step 4; meanwhile it is 503 `INBOUND_IN_PROGRESS`
/// (Retry-After) while another request holds the claim (the claim of a crashed process,
/// or of a request that made no progress for a minute, lapses; a failed request gives
/// its own back at once).
pub async fn receive_then(
    app: &Arc<App>,
    account: &str,
    partner: Option<&str>,
    input: Input,
    source: &'static str,
    cap: SetCap,
    then: impl FnOnce(&dyn Db, &Value) -> ApiResult<()> + Send + 'static,
) -> ApiResult<Value> {
    apply(app, account, partner, input, source, cap, false, then).await
}

/// [`receive_then`] in one store transaction whatever the body's size: `then` commits
/// with the sets, or nothing does. For a body already held in memory whose `then` must
/// not come after its sets were recorded: the AS2 transport's record of the Message-ID,
/// whose replay check (a second message with the same Message-ID at once) must leave
/// nothing of the second behind.
pub async fn receive_whole(
    app: &Arc<App>,
    account: &str,
    partner: Option<&str>,
    input: Input,
    source: &'static str,
    cap: SetCap,
    then: impl FnOnce(&dyn Db, &Value) -> ApiResult<()> + Send + 'static,
) -> ApiResult<Value> {
    apply(app, account, partner, input, source, cap, true, then).await
}

/// What the first passes over a body found.
struct Read {
    outline: Outline,
    partner: Arc<Partner>,
    validation: x12kit::Validation,
    findings: Option<Vec<Vec<Option<String>>>>,
    /// Every set to record, mapped, when the body is applied in one transaction.
    rows: Option<Vec<Row>>,
}

/// How many sets of the body would be recorded (all but its acknowledgements).
fn to_record(outline: &Outline) -> usize {
    outline
        .interchanges
        .iter()
        .flat_map(|i| &i.sets)
        .filter(|s| !crate::lifecycle::is_ack_type(&s.kind))
        .count()
}

/// The fates of the body's interchanges before the store is asked: each interchange with
/// a readable ISA13, the first time the body holds it, is recorded (what [`claim`]
/// decides for a new one).
fn provisional(outline: &Outline) -> Vec<Fate> {
    let mut taken = std::collections::HashSet::new();
    outline
        .interchanges
        .iter()
        .map(|i| match number(i.control.as_bytes()) {
            Some(control) if taken.insert(control) => Fate::Record { control, skip: 0 },
            _ => Fate::Pass,
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
async fn apply(
    app: &Arc<App>,
    account: &str,
    partner: Option<&str>,
    input: Input,
    source: &'static str,
    cap: SetCap,
    whole: bool,
    then: impl FnOnce(&dyn Db, &Value) -> ApiResult<()> + Send + 'static,
) -> ApiResult<Value> {
    let input = Arc::new(input);
    // The passes that need no store (step 1; and for a body applied at once, its sets
    // mapped): a small body's at once, a larger one's on the blocking pool under a core
    // slot (as `/parse` and `/validate`), so that the partners' acknowledgements, the
    // most frequent bodies, take no blocking thread.
    let read = {
        let (input, app, account) = (input.clone(), app.clone(), account.to_string());
        let named = partner.map(str::to_string);
        crate::request::off_thread(input.len(), move || {
            let outline = scan(&input, cap)?;
            let partner = sender(&app, &account, named.as_deref(), &outline)?;
            let options = crate::guides::inbound_options(&partner.profile).ok_or_else(|| {
                tracing::error!(partner = %partner.id, "the partner's guides cannot be read");
                ApiError::internal()
            })?;
            let validation = validation(&input, &options)?;
            let findings = crate::guides::inbound_findings(&validation, &partner.profile);
            let sets = to_record(&outline);
            // At most BATCH_SETS sets and ONE_STEP_BYTES: one transaction (without a
            // third pass when there is no set to record: acknowledgements only).
            let rows = if sets == 0 {
                Some(Vec::new())
            } else if whole || (sets <= BATCH_SETS && input.len() <= ONE_STEP_BYTES) {
                let mut rows = Vec::new();
                records(
                    &input,
                    cap,
                    &provisional(&outline),
                    findings.as_deref(),
                    &mut |batch| {
                        rows.extend(batch);
                        Ok(())
                    },
                    None,
                )?;
                Some(rows)
            } else {
                None
            };
            Ok(Read {
                outline,
                partner,
                validation,
                findings,
                rows,
            })
        })
        .await?
    };
    let result = match read.rows {
        Some(rows) => {
            let (app2, account) = (app.clone(), account.to_string());
            let (outline, partner, validation) = (read.outline, read.partner, read.validation);
            app.store
                .write(move |c| {
                    let token = claim_token();
                    let acks = validation.acknowledgements.clone().unwrap_or_default();
                    let (fates, interchanges, acks) = claim(
                        c, &app2, &account, &partner, &outline, &acks, source, &token,
                    )?;
                    let rows: Vec<Row> = rows.into_iter().filter(|r| r.kept(&fates)).collect();
                    let recorded = Recorded {
                        received: rows.iter().map(Row::received).collect(),
                        earlier: earlier(&fates),
                    };
                    insert_rows(c, &account, &partner.id, rows, source)?;
                    let result = finish(
                        c,
                        &account,
                        &partner,
                        &validation,
                        &claimed(&fates),
                        &token,
                        interchanges,
                        acks,
                        recorded,
                    )?;
                    then(c, &result)?;
                    Ok(result)
                })
                .await?
        }
        None => {
            batched(
                app,
                account,
                input,
                source,
                cap,
                read.outline,
                read.partner,
                read.validation,
                read.findings,
                then,
            )
            .await?
        }
    };
    app.wake.validate.notify_one();
    app.wake.deliver.notify_one();
    Ok(result)
}

/// A new claim token: what marks an interchange's claim as a request's own.
fn claim_token() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// The interchanges a request claimed, by ISA13.
fn claimed(fates: &[Fate]) -> Vec<i64> {
    fates
        .iter()
        .filter_map(|f| match f {
            Fate::Record { control, .. } => Some(*control),
            Fate::Pass => None,
        })
        .collect()
}

/// Sets earlier attempts recorded (interchanges resumed).
fn earlier(fates: &[Fate]) -> usize {
    fates
        .iter()
        .map(|f| match f {
            Fate::Record { skip, .. } => *skip,
            Fate::Pass => 0,
        })
        .sum()
}

/// Steps 2 to 4 of [`receive_then`] (a body larger than one batch).
#[allow(clippy::too_many_arguments)]
async fn batched(
    app: &Arc<App>,
    account: &str,
    input: Arc<Input>,
    source: &'static str,
    cap: SetCap,
    outline: Outline,
    partner: Arc<Partner>,
    validation: x12kit::Validation,
    findings: Option<Vec<Vec<Option<String>>>>,
    then: impl FnOnce(&dyn Db, &Value) -> ApiResult<()> + Send + 'static,
) -> ApiResult<Value> {
    let account = account.to_string();
    let outline = Arc::new(outline);
    let token = Arc::new(claim_token());
    // Step 2: claim the interchanges, apply the acknowledgements carried.
    let (fates, interchanges, acks) = {
        let (app2, account, partner, outline, token) = (
            app.clone(),
            account.clone(),
            partner.clone(),
            outline.clone(),
            token.clone(),
        );
        let acks = validation.acknowledgements.clone().unwrap_or_default();
        app.store
            .write(move |c| {
                claim(
                    c, &app2, &account, &partner, &outline, &acks, source, &token,
                )
            })
            .await?
    };
    let claimed = claimed(&fates);
    let progress = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let heartbeat = Heartbeat::start(
        app,
        &account,
        &partner.id,
        &claimed,
        &token,
        progress.clone(),
    );
    // Step 3: the sets, a batch at a time (no pass when there are none to record: a body
    // of acknowledgements only).
    let to_record = fates.iter().zip(&outline.interchanges).any(|(f, i)| {
        matches!(f, Fate::Record { .. })
            && i.sets
                .iter()
                .any(|t| !crate::lifecycle::is_ack_type(&t.kind))
    });
    let recorded = if !to_record {
        Ok(Recorded {
            received: Vec::new(),
            earlier: earlier(&fates),
        })
    } else {
        let (app2, account, partner, fates, token) = (
            app.clone(),
            account.clone(),
            partner.clone(),
            fates.clone(),
            token.clone(),
        );
        let runtime = tokio::runtime::Handle::current();
        blocking(move || {
            let mut write = |rows: Vec<Row>| -> ApiResult<()> {
                let (account, partner, token) =
                    (account.clone(), partner.id.clone(), token.clone());
                progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let written = runtime.block_on(app2.store.write(move |c| {
                    let controls: std::collections::BTreeSet<i64> =
                        rows.iter().map(|r| r.interchange).collect();
                    for n in controls {
                        if renew(c, &account, &partner, n, &token)? == 0 {
                            return Err(in_progress(&n.to_string()));
                        }
                    }
                    insert_rows(c, &account, &partner, rows, source)
                }));
                progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                written
            };
            Ok(Recorded {
                received: records(
                    &input,
                    cap,
                    &fates,
                    findings.as_deref(),
                    &mut write,
                    Some(&*progress),
                )?,
                earlier: earlier(&fates),
            })
        })
        .await
    };
    let recorded = match recorded {
        Ok(r) => r,
        Err(e) => {
            drop(heartbeat);
            give_back(app, &account, &partner.id, claimed, &token).await;
            return Err(e);
        }
    };
    // Step 4: the reply, the result, `then`.
    let (account2, partner2, claimed2, token2) = (
        account.clone(),
        partner.clone(),
        claimed.clone(),
        token.clone(),
    );
    let finished = app
        .store
        .write(move |c| {
            let result = finish(
                c,
                &account2,
                &partner2,
                &validation,
                &claimed2,
                &token2,
                interchanges,
                acks,
                recorded,
            )?;
            then(c, &result)?;
            Ok(result)
        })
        .await;
    drop(heartbeat);
    if finished.is_err() {
        give_back(app, &account, &partner.id, claimed, &token).await;
    }
    finished
}

/// Runs a pass on the blocking pool.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| ApiError::internal())?
}

/// Renews the claims of a request's interchanges every quarter of [`LEASE_MS`] while the
/// request makes progress (`progress` moved since the last time: a set mapped, a batch
/// written), so that a body slower than the lease keeps them, and one stuck loses them;
/// stops when dropped.
struct Heartbeat(Option<tokio::task::JoinHandle<()>>);

impl Heartbeat {
    fn start(
        app: &Arc<App>,
        account: &str,
        partner: &str,
        claimed: &[i64],
        token: &Arc<String>,
        progress: Arc<std::sync::atomic::AtomicU64>,
    ) -> Heartbeat {
        if claimed.is_empty() {
            return Heartbeat(None);
        }
        let (app, account, partner, claimed, token) = (
            app.clone(),
            account.to_string(),
            partner.to_string(),
            claimed.to_vec(),
            token.clone(),
        );
        let every = std::time::Duration::from_millis((LEASE_MS / 4) as u64);
        Heartbeat(Some(tokio::spawn(beat(every, progress, move || {
            let (account, partner, claimed, token) = (
                account.clone(),
                partner.clone(),
                claimed.clone(),
                token.clone(),
            );
            let app = app.clone();
            async move {
                app.store
                    .write(move |c| {
                        let mut held = 0;
                        for n in claimed {
                            held += renew(c, &account, &partner, n, &token)?;
                        }
                        Ok(held)
                    })
                    .await
                    .is_ok_and(|held| held > 0)
            }
        }))))
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        if let Some(task) = self.0.take() {
            task.abort();
        }
    }
}

/// Every `every`, calls `renew` when `progress` moved since the last call (or since it
/// was 0, at the claim); ends when
/// `renew` answers that no claim is held any more.
async fn beat<F: std::future::Future<Output = bool>>(
    every: std::time::Duration,
    progress: Arc<std::sync::atomic::AtomicU64>,
    renew: impl Fn() -> F,
) {
    // The progress at the claim.
    let mut seen = 0;
    loop {
        tokio::time::sleep(every).await;
        let now = progress.load(std::sync::atomic::Ordering::Relaxed);
        if now == seen {
            continue;
        }
        seen = now;
        if !renew().await {
            return;
        }
    }
}

/// Renews the claim of interchange `control` when it is still the request's (`token`):
/// how many rows it renewed (0: it is not the request's any more).
fn renew(c: &dyn Db, account: &str, partner: &str, control: i64, token: &str) -> ApiResult<u64> {
    c.exec(
        "UPDATE inbound_interchanges SET received_at = ?4
         WHERE account = ?1 AND partner_id = ?2 AND control = ?3 AND result = '{}' AND claim = ?5",
        vals![account, partner, control, now_ms(), token],
    )
    .map_err(db)
}

/// Gives back the claims of the request's interchanges (`token`): those another request
/// took over meanwhile are left alone. A retry may take them at once.
fn release(
    c: &dyn Db,
    account: &str,
    partner: &str,
    claimed: &[i64],
    token: &str,
) -> ApiResult<()> {
    for n in claimed {
        c.exec(
            "UPDATE inbound_interchanges SET received_at = 0
             WHERE account = ?1 AND partner_id = ?2 AND control = ?3 AND result = '{}' AND claim = ?4",
            vals![account, partner, *n, token],
        )
        .map_err(db)?;
    }
    Ok(())
}

/// After a failed step: the claims of the request's interchanges are given back at
/// once (best effort: else they lapse after [`LEASE_MS`]), so that a retry resumes them.
async fn give_back(app: &App, account: &str, partner: &str, claimed: Vec<i64>, token: &str) {
    if claimed.is_empty() {
        return;
    }
    let (account, partner, token) = (account.to_string(), partner.to_string(), token.to_string());
    let released = app
        .store
        .write(move |c| release(c, &account, &partner, &claimed, &token))
        .await;
    if let Err(e) = released {
        tracing::warn!(error = %e.message, "cannot give back the claim of inbound interchanges; it lapses");
    }
}

fn db(e: DbError) -> ApiError {
    tracing::error!(error = %e, "store write failed (inbound)");
    ApiError::internal()
}

struct Target {
    key: DocKey,
    status: Status,
    /// The partner's acknowledgement stored so far (JSON).
    partner_ack: Option<String>,
}

impl Target {
    /// The stored acknowledgement when it is a TA1 only (the envelope accepted, the
    /// functional acknowledgement still to come).
    fn ta1_only(&self) -> Option<Value> {
        let v: Value = serde_json::from_str(self.partner_ack.as_deref()?).ok()?;
        (v["kind"] == "TA1").then(|| v["ta1"].clone())
    }
}

fn find(c: &dyn Db, sql: &str, p: &[Val]) -> DbResult<Vec<Target>> {
    c.query(sql, p)?
        .iter()
        .map(|r| {
            Ok(Target {
                key: DocKey {
                    id: r.get(0)?,
                    account: r.get(1)?,
                    partner_id: r.get(2)?,
                    document_type: r.get(3)?,
                    resend: false,
                },
                status: {
                    let name: String = r.get(4)?;
                    Status::parse(&name)
                        .ok_or_else(|| DbError::new(format!("unknown document status {name:?}")))?
                },
                partner_ack: r.get(5)?,
            })
        })
        .collect()
}

const TARGET: &str =
    "SELECT id, account, partner_id, document_type, status, partner_ack FROM documents
     WHERE account = ?1 AND partner_id = ?2 AND direction = 'outbound'";

#[allow(clippy::too_many_arguments)]
fn settle(
    c: &dyn Db,
    app: &App,
    targets: Vec<Target>,
    accepted: bool,
    ack: &Value,
    what: &str,
    out: &mut Vec<Value>,
    entry: &Value,
) -> ApiResult<()> {
    if targets.is_empty() {
        let mut e = entry.clone();
        e["documentId"] = Value::Null;
        e["result"] = json!("no document sent to this partner has these control numbers");
        out.push(e);
    }
    for t in targets {
        let mut e = entry.clone();
        e["documentId"] = json!(t.key.id);
        // A TA1 says the envelope was accepted; the 997/999 that may follow says what
        // became of the set, so it decides a document a TA1 alone acknowledged (the TA1
        // is kept beside it). Anything else settles a `routed` document only.
        let earlier_ta1 = if t.status == Status::Acknowledged && ack["kind"] != "TA1" {
            t.ta1_only()
        } else {
            None
        };
        let Some(step) = Step::for_acknowledgement(t.status, earlier_ta1.is_some(), accepted)
        else {
            e["result"] = json!(format!("ignored: the document is {}", t.status));
            out.push(e);
            continue;
        };
        let mut ack = ack.clone();
        if let Some(ta1) = earlier_ta1 {
            ack["ta1"] = ta1;
        }
        let reason = format!("{what} {}", if accepted { "accepted" } else { "rejected" });
        let changes = Changes {
            partner_ack: Some(ack.to_string()),
            failure: (!accepted).then(|| reason.clone()),
            ..Changes::default()
        };
        let done =
            transition(c, &app.settings.current(), &t.key, step, &reason, changes).map_err(db)?;
        e["result"] = json!(match (done, accepted) {
            (true, true) => "acknowledged",
            (true, false) => "failed",
            (false, _) => "ignored: the document changed meanwhile",
        });
        out.push(e);
    }
    Ok(())
}

/// 503 `INBOUND_IN_PROGRESS`: another request is receiving the interchange.
fn in_progress(control: &str) -> ApiError {
    let wait = 10u64;
    let mut e = ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "INBOUND_IN_PROGRESS",
        format!(
            "interchange {control} is being received by another request; retry after {wait} seconds (a retry resumes it if that request fails)"
        ),
    )
    .with_header(
        axum::http::header::RETRY_AFTER,
        axum::http::HeaderValue::from(wait),
    );
    e.extra = Some(("retryAfterSeconds", json!(wait)));
    e
}

/// When and with what result an interchange was received (`{}`: unfinished, claimed).
fn seen_interchange(
    c: &dyn Db,
    account: &str,
    partner: &str,
    control: i64,
) -> ApiResult<Option<(i64, String)>> {
    let row = c
        .one(
            "SELECT received_at, result FROM inbound_interchanges WHERE account = ?1 AND partner_id = ?2 AND control = ?3",
            vals![account, partner, control],
        )
        .map_err(db)?;
    match row {
        Some(r) => Ok(Some((r.get(0).map_err(db)?, r.get(1).map_err(db)?))),
        None => Ok(None),
    }
}

/// Step 2 of [`receive_then`]: claims each interchange for the request (`token`: a new
/// one, or one an earlier attempt left unfinished and no live request holds), then applies the acknowledgements
/// of the interchanges claimed for the first time. Returns each interchange's fate and
/// report, and the acknowledgements' reports.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn claim(
    c: &dyn Db,
    app: &App,
    account: &str,
    partner: &Partner,
    outline: &Outline,
    acks: &x12kit::ack::Acknowledgements,
    source: &str,
    token: &str,
) -> ApiResult<(Vec<Fate>, Vec<Value>, Vec<Value>)> {
    let now = now_ms();
    // Each interchange once.
    let mut fresh = std::collections::HashSet::new();
    let mut taken = std::collections::HashSet::new();
    let mut fates = Vec::new();
    let mut interchanges = Vec::new();
    for i in &outline.interchanges {
        let control_text = i.control.clone();
        let Some(control) = number(i.control.as_bytes()) else {
            fates.push(Fate::Pass);
            interchanges.push(json!({"controlNumber": control_text, "duplicate": false, "result": "no readable ISA13: skipped"}));
            continue;
        };
        if !taken.insert(control) {
            fates.push(Fate::Pass);
            interchanges.push(json!({"controlNumber": control_text, "duplicate": true,
                "result": "already in this body: not processed again"}));
            continue;
        }
        // A new interchange is inserted with the request's claim; the unique key decides
        // between requests at once (on PostgreSQL, a concurrent one's insert waits for the
        // other's transaction, then finds its row: a duplicate, or a live claim).
        let mut seen = None;
        for _ in 0..2 {
            seen = seen_interchange(c, account, &partner.id, control)?;
            if seen.is_some() {
                break;
            }
            let inserted = c
                .exec(
                    "INSERT INTO inbound_interchanges (account, partner_id, control, received_at, source, result, claim)
                     VALUES (?1, ?2, ?3, ?4, ?5, '{}', ?6)
                     ON CONFLICT (account, partner_id, control) DO NOTHING",
                    vals![account, &partner.id, control, now, source, token],
                )
                .map_err(db)?;
            if inserted == 1 {
                break;
            }
        }
        match seen {
            None => {
                fresh.insert(control_text.clone());
                fates.push(Fate::Record { control, skip: 0 });
                interchanges.push(
                    json!({"controlNumber": control_text, "duplicate": false, "result": "processed"}),
                );
            }
            Some((at, result)) if result != "{}" => {
                fates.push(Fate::Pass);
                interchanges.push(json!({"controlNumber": control_text, "duplicate": true,
                    "result": format!("already received at {}: not processed again", crate::store::rfc3339(at))}));
            }
            // Unfinished, and its claim is live: another request is receiving it.
            Some((at, _)) if now.saturating_sub(at) < LEASE_MS => {
                return Err(in_progress(&control_text));
            }
            // Unfinished and abandoned (a failed or crashed attempt): resumed after
            // the sets it recorded, under this request's claim (unless another request
            // took it over meanwhile).
            Some((at, _)) => {
                let taken = c
                    .exec(
                        "UPDATE inbound_interchanges SET received_at = ?4, source = ?5, claim = ?6
                         WHERE account = ?1 AND partner_id = ?2 AND control = ?3 AND result = '{}'
                         AND received_at = ?7",
                        vals![account, &partner.id, control, now, source, token, at],
                    )
                    .map_err(db)?;
                if taken == 0 {
                    return Err(in_progress(&control_text));
                }
                let recorded: i64 = c
                    .one(
                        "SELECT COUNT(*) FROM documents WHERE account = ?1 AND partner_id = ?2
                         AND direction = 'inbound' AND interchange_control = ?3",
                        vals![account, &partner.id, control],
                    )
                    .map_err(db)?
                    .map_or(Ok(0), |r| r.get(0))
                    .map_err(db)?;
                let skip = usize::try_from(recorded).unwrap_or(0);
                fates.push(Fate::Record { control, skip });
                interchanges.push(json!({"controlNumber": control_text, "duplicate": false,
                    "result": format!("processed (resumed: {skip} sets were recorded by an earlier attempt)")}));
            }
        }
    }
    let acks = apply_acks(c, app, account, partner, acks, &fresh)?;
    Ok((fates, interchanges, acks))
}

/// The acknowledgements (TA1, 997, 999) carried by the interchanges claimed for the
/// first time (`fresh`: their ISA13s), applied to the documents they acknowledge.
fn apply_acks(
    c: &dyn Db,
    app: &App,
    account: &str,
    partner: &Partner,
    read: &x12kit::ack::Acknowledgements,
    fresh: &std::collections::HashSet<String>,
) -> ApiResult<Vec<Value>> {
    let mut acks = Vec::new();
    let is_fresh = |carried_by: &str| fresh.contains(carried_by.trim());
    for ta1 in &read.interchange_acks {
        if !is_fresh(&ta1.carried_by) {
            continue;
        }
        let Ok(n) = ta1.control_number.trim().parse::<i64>() else {
            continue;
        };
        let targets = find(
            c,
            &format!("{TARGET} AND interchange_control = ?3"),
            vals![account, &partner.id, n],
        )
        .map_err(db)?;
        let accepted = ta1.status.is_some_and(|s| s.is_accepted());
        let ack = serde_json::to_value(ta1).unwrap_or(Value::Null);
        let entry = json!({"kind": "TA1", "interchange": ta1.control_number, "code": ta1.code});
        let what = format!("TA1 {} (note {})", ta1.code, ta1.note.code);
        settle(
            c,
            app,
            targets,
            accepted,
            &json!({"kind": "TA1", "ta1": ack}),
            &what,
            &mut acks,
            &entry,
        )?;
    }
    for group in &read.group_acks {
        if !is_fresh(&group.carried_by) {
            continue;
        }
        let Ok(g) = group.group_control_number.trim().parse::<i64>() else {
            continue;
        };
        let group_json = serde_json::to_value(group).unwrap_or(Value::Null);
        if group.transactions.is_empty() {
            // AK9/IK9 only: the whole group.
            let targets = find(
                c,
                &format!("{TARGET} AND group_control = ?3"),
                vals![account, &partner.id, g],
            )
            .map_err(db)?;
            let accepted = group.status.is_some_and(|s| s.is_accepted());
            let entry = json!({"kind": group.kind, "group": group.group_control_number, "code": group.code});
            let what = format!("{} group {} (AK9/IK9 {})", group.kind, g, group.code);
            settle(
                c,
                app,
                targets,
                accepted,
                &json!({"kind": group.kind, "group": group_json}),
                &what,
                &mut acks,
                &entry,
            )?;
            continue;
        }
        for set in &group.transactions {
            let Ok(t) = set.control_number.trim().parse::<i64>() else {
                continue;
            };
            let targets = find(
                c,
                &format!("{TARGET} AND group_control = ?3 AND transaction_control = ?4"),
                vals![account, &partner.id, g, t],
            )
            .map_err(db)?;
            let accepted = set.status.is_some_and(|s| s.is_accepted());
            let mut only = group_json.clone();
            only["transactions"] = json!([serde_json::to_value(set).unwrap_or(Value::Null)]);
            let entry = json!({"kind": group.kind, "group": group.group_control_number,
                "transaction": set.control_number, "code": set.code});
            let codes: Vec<&str> = set.errors.iter().map(|e| e.code.as_str()).collect();
            let what = if codes.is_empty() {
                format!(
                    "{} set {} ({} {})",
                    group.kind, set.control_number, set.kind, set.code
                )
            } else {
                format!(
                    "{} set {} ({} {}, errors {})",
                    group.kind,
                    set.control_number,
                    set.kind,
                    set.code,
                    codes.join(" ")
                )
            };
            settle(
                c,
                app,
                targets,
                accepted,
                &json!({"kind": group.kind, "group": only}),
                &what,
                &mut acks,
                &entry,
            )?;
        }
    }
    Ok(acks)
}

/// One inbound set to record.
struct Row {
    id: String,
    kind: String,
    /// Its interchange's ISA13, and its number among the sets recorded of it.
    interchange: i64,
    index: usize,
    group_control: Option<i64>,
    control: Option<i64>,
    /// The mapped document, compact JSON (`null` for a set x12kit does not map).
    document: String,
    reference: Option<String>,
    /// The set in an envelope of its own ([`own_interchange`]); `None` for a set over
    /// the cap on one set (its body was not read).
    x12: Option<Vec<u8>>,
    guided: Option<String>,
}

impl Row {
    fn bytes(&self) -> usize {
        self.document.len() + self.x12.as_ref().map_or(0, Vec::len) + 256
    }

    /// Whether the claim (`fates`) records it: its interchange is this request's, and the
    /// set comes after those an earlier attempt recorded.
    fn kept(&self, fates: &[Fate]) -> bool {
        fates.iter().any(|f| {
            matches!(f, Fate::Record { control, skip } if *control == self.interchange && self.index >= *skip)
        })
    }

    /// What the answer lists of it.
    fn received(&self) -> Value {
        json!({"documentId": self.id, "documentTypeCode": self.kind})
    }
}

/// What step 3 recorded.
struct Recorded {
    /// `{documentId, documentTypeCode}` of each set recorded by this request, in order.
    received: Vec<Value>,
    /// Sets an earlier attempt recorded (interchanges resumed).
    earlier: usize,
}

/// The third pass's handler: each set of a claimed interchange mapped, added to the
/// batch, the batch written when full.
struct Records<'i, 'f> {
    behind: Behind<'i>,
    fates: &'f [Fate],
    findings: Option<&'f [Vec<Option<String>>]>,
    /// The interchange open (index in the body) and its ISA (written out, with its
    /// terminator) and ISA13.
    at: Option<usize>,
    isa: Vec<u8>,
    isa13: Vec<u8>,
    /// The open interchange's sets so far, all and not acknowledgements.
    sets: usize,
    records: usize,
    batch: Vec<Row>,
    bytes: usize,
    write: &'f mut dyn FnMut(Vec<Row>) -> ApiResult<()>,
    /// Counted up at each set (the claim's [`Heartbeat`] sees the request progress).
    progress: Option<&'f std::sync::atomic::AtomicU64>,
    failed: Option<ApiError>,
    received: Vec<Value>,
}

impl Records<'_, '_> {
    fn flush(&mut self) {
        if self.batch.is_empty() || self.failed.is_some() {
            return;
        }
        self.bytes = 0;
        self.received.extend(self.batch.iter().map(Row::received));
        if let Err(e) = (self.write)(std::mem::take(&mut self.batch)) {
            self.failed = Some(e);
        }
    }
}

/// A segment as written in the input: its bytes, terminator and line break.
fn put(out: &mut Vec<u8>, s: &x12kit::Segment<'_>) {
    out.extend_from_slice(s.raw());
    out.push(s.delimiters().segment);
    out.extend_from_slice(s.suffix());
}

/// A set in an interchange of its own: the body's ISA and GS, the set as received, and a
/// GE and IEA counting one (what `x12kit split --per set` gives, control numbers kept).
fn own_interchange(
    isa: &[u8],
    isa13: &[u8],
    doc: &x12kit::Document<'_>,
    group: &x12kit::Group<'_>,
    tx: &x12kit::Transaction<'_>,
) -> Option<Vec<u8>> {
    if tx.is_over_cap() {
        return None;
    }
    let d = tx.st.delimiters();
    let (e, t) = (d.element as char, d.segment as char);
    let nl = tx.st.suffix();
    let mut out = isa.to_vec();
    if let Some(gs) = &group.gs {
        put(&mut out, gs);
    }
    put(&mut out, &tx.st);
    for s in doc.body(tx) {
        put(&mut out, &s);
    }
    if let Some(se) = &tx.se {
        put(&mut out, se);
    }
    if let Some(gs) = &group.gs {
        out.extend_from_slice(format!("GE{e}1{e}").as_bytes());
        out.extend_from_slice(gs.value(6));
        out.push(t as u8);
        out.extend_from_slice(nl);
    }
    out.extend_from_slice(format!("IEA{e}1{e}").as_bytes());
    out.extend_from_slice(isa13);
    out.push(t as u8);
    out.extend_from_slice(nl);
    Some(out)
}

impl<'a> x12kit::sets::SetHandler<'a> for Records<'_, '_> {
    fn interchange(&mut self, outline: &x12kit::sets::Outline<'a>) {
        self.at = Some(self.at.map_or(0, |n| n + 1));
        self.isa.clear();
        put(&mut self.isa, &outline.interchange.isa);
        self.isa13 = outline.interchange.isa.value(13).to_vec();
        self.sets = 0;
        self.records = 0;
    }

    fn transaction(
        &mut self,
        doc: &x12kit::Document<'a>,
        group: &x12kit::Group<'a>,
        tx: &x12kit::Transaction<'a>,
        upto: usize,
    ) {
        self.record(doc, group, tx);
        if let Some(p) = self.progress {
            p.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        self.behind.release(upto);
    }

    fn interchange_end(&mut self, _outline: &x12kit::sets::Outline<'a>, upto: usize) {
        self.behind.release(upto);
    }

    fn read_ahead(&mut self, from: usize, to: usize) {
        self.behind.input.drop_pages(from, to);
    }
}

impl Records<'_, '_> {
    fn record(
        &mut self,
        doc: &x12kit::Document<'_>,
        group: &x12kit::Group<'_>,
        tx: &x12kit::Transaction<'_>,
    ) {
        let Some(n) = self.at else { return };
        let k = self.sets;
        self.sets += 1;
        if self.failed.is_some() {
            return;
        }
        let Some(Fate::Record { control, skip }) = self.fates.get(n).copied() else {
            return;
        };
        let kind = text(tx.kind());
        if crate::lifecycle::is_ack_type(&kind) {
            return;
        }
        let index = self.records;
        self.records += 1;
        if index < skip {
            return;
        }
        // The mapped document's JSON is UTF-8 (the core escapes what is not); taken as
        // it is, not copied.
        let document = x12kit::documents::document_json(doc, group, tx)
            .map(|d| {
                String::from_utf8(d)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
            })
            .unwrap_or_else(|| "null".to_string());
        // The business reference (the type's reference field), for `?reference=`: read
        // from the text, not by building the document again.
        let reference = x12kit::sets::reference_in_json(&kind, document.as_bytes());
        let row = Row {
            id: format!("doc_{}", uuid::Uuid::now_v7().simple()),
            kind,
            interchange: control,
            index,
            group_control: group.gs.as_ref().and_then(|gs| number(gs.value(6))),
            control: number(tx.control_number()),
            document,
            reference,
            x12: own_interchange(&self.isa, &self.isa13, doc, group, tx),
            guided: self
                .findings
                .and_then(|f| f.get(n))
                .and_then(|s| s.get(k))
                .cloned()
                .flatten(),
        };
        self.bytes += row.bytes();
        self.batch.push(row);
        if self.batch.len() >= BATCH_SETS || self.bytes >= BATCH_BYTES {
            self.flush();
        }
    }
}

/// The third pass: each set of the claimed interchanges (`fates`) mapped and handed to
/// `write` a batch at a time; the sets handed over.
fn records(
    input: &Input,
    cap: SetCap,
    fates: &[Fate],
    findings: Option<&[Vec<Option<String>>]>,
    write: &mut dyn FnMut(Vec<Row>) -> ApiResult<()>,
    progress: Option<&std::sync::atomic::AtomicU64>,
) -> ApiResult<Vec<Value>> {
    let mut h = Records {
        behind: Behind { input, released: 0 },
        fates,
        findings,
        at: None,
        isa: Vec::new(),
        isa13: Vec::new(),
        sets: 0,
        records: 0,
        batch: Vec::new(),
        bytes: 0,
        write,
        progress,
        failed: None,
        received: Vec::new(),
    };
    guarded("mapping", || {
        x12kit::sets::parse_sets(input, x12kit::sets::HOLD, cap, &mut h);
    })?;
    h.flush();
    match h.failed {
        Some(e) => Err(e),
        None => Ok(h.received),
    }
}

/// Records sets (in the caller's transaction).
fn insert_rows(
    c: &dyn Db,
    account: &str,
    partner: &str,
    rows: Vec<Row>,
    source: &str,
) -> ApiResult<()> {
    let now = now_ms();
    for r in rows {
        c.exec(
            "INSERT INTO documents (id, account, partner_id, document_type, direction, status, created_at,
                updated_at, interchange_control, group_control, transaction_control, payload, x12, reference,
                diagnostics)
             VALUES (?1, ?2, ?3, ?4, 'inbound', 'received', ?5, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            vals![
                &r.id,
                account,
                partner,
                &r.kind,
                now,
                r.interchange,
                r.group_control,
                r.control,
                r.document,
                r.x12,
                r.reference,
                r.guided
            ],
        )
        .map_err(db)?;
        c.exec(
            "INSERT INTO status_history (document_id, status, reason, at) VALUES (?1, 'received', ?2, ?3)",
            vals![&r.id, format!("received from the partner ({source})"), now],
        )
        .map_err(db)?;
    }
    Ok(())
}

/// Step 4 of [`receive_then`]: the acknowledgement reply the partner asked for (as an
/// outbound document), and the result stored with each claimed interchange, which marks
/// it complete.
#[allow(clippy::too_many_arguments)]
fn finish(
    c: &dyn Db,
    account: &str,
    partner: &Partner,
    validation: &x12kit::Validation,
    claimed: &[i64],
    token: &str,
    interchanges: Vec<Value>,
    acks: Vec<Value>,
    recorded: Recorded,
) -> ApiResult<Value> {
    let now = now_ms();
    let received = recorded.received;
    let mut reply = Value::Null;
    if let (Some(kind), true) = (
        &partner.acknowledge_inbound,
        !received.is_empty() || recorded.earlier > 0,
    ) {
        let number = crate::store::next_control(c, account, &partner.id)?;
        // The partner's guides: a 999 carries their implementation codes.
        let options: ops::AcknowledgeOptions = ops::options(json!({
            "kind": kind,
            "interchangeControlNumber": number,
            "groupControlNumber": number,
            "setControlNumber": number,
            "guides": crate::guides::of_profile(&partner.profile),
        }))
        .map_err(|e| ApiError::from_core(&e))?;
        let at = x12kit::DateTime::from_unix((now / 1000).max(0) as u64);
        // From the validation made with the partner's guides (no second pass).
        let x12 = guarded("acknowledging", || {
            ops::acknowledge_validation(validation, &options, at)
        })?
        .map_err(|e| ApiError::from_core(&e))?;
        let id = format!("doc_{}", uuid::Uuid::now_v7().simple());
        let about: Vec<&Value> = received.iter().map(|r| &r["documentId"]).collect();
        c.exec(
            "INSERT INTO documents (id, account, partner_id, document_type, direction, status, created_at,
                updated_at, interchange_control, group_control, transaction_control, payload, x12)
             VALUES (?1, ?2, ?3, ?4, 'outbound', 'queued', ?5, ?5, ?6, ?6, ?6, ?7, ?8)",
            vals![&id, account, &partner.id, kind, now, number, json!({"acknowledges": about}).to_string(), x12],
        )
        .map_err(db)?;
        c.exec(
            "INSERT INTO status_history (document_id, status, reason, at) VALUES (?1, 'queued', ?2, ?3)",
            vals![&id, format!("{kind} answering the partner's interchange"), now],
        )
        .map_err(db)?;
        reply = json!({"documentId": id, "documentTypeCode": kind});
    }
    let result = json!({
        "partnerId": partner.id,
        "interchanges": interchanges,
        "acknowledgements": acks,
        "transactions": received,
        "acknowledgementReply": reply,
    });
    let text = result.to_string();
    for n in claimed {
        let held = c
            .exec(
                "UPDATE inbound_interchanges SET result = ?4, received_at = ?5, claim = NULL
                 WHERE account = ?1 AND partner_id = ?2 AND control = ?3 AND result = '{}' AND claim = ?6",
                vals![account, &partner.id, *n, &text, now, token],
            )
            .map_err(db)?;
        if held == 0 {
            return Err(in_progress(&n.to_string()));
        }
    }
    Ok(result)
}

/// Polls the inbox folders of the `directory` transports: each file is taken
/// as an inbound body for its partner, then moved to `processed/` (or
/// `rejected/` when it is not X12), so it is read once; a crash before the move
/// reads it again and the store reports the duplicate.
pub async fn inbox_loop(app: Arc<App>) {
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(app.config.workers.poll_ms)).await;
        let settings = app.settings.current();
        for account in settings.accounts.values() {
            for partner in account.partners.values().filter(|p| p.enabled) {
                let Some(dir) = partner.transport.as_ref().and_then(crate::lifecycle::inbox) else {
                    continue;
                };
                let dir = dir.to_path_buf();
                let names = tokio::task::spawn_blocking({
                    let dir = dir.clone();
                    move || -> Vec<std::path::PathBuf> {
                        if let Err(e) = std::fs::create_dir_all(&dir) {
                            tracing::warn!(error = %e, dir = %dir.display(), "cannot create the inbox");
                        }
                        let mut v: Vec<_> = std::fs::read_dir(&dir)
                            .into_iter()
                            .flatten()
                            .flatten()
                            .map(|e| e.path())
                            .filter(|p| {
                                p.is_file()
                                    && p.file_name()
                                        .and_then(|n| n.to_str())
                                        .is_some_and(|n| !n.starts_with('.'))
                            })
                            .collect();
                        v.sort();
                        v
                    }
                })
                .await
                .unwrap_or_default();
                for path in names {
                    let span =
                        tracing::info_span!("inbox", file = %path.display(), partner = %partner.id);
                    // Mapped, not read: a file of any size costs bounded memory.
                    let Ok(input) = Input::open(&path) else {
                        continue;
                    };
                    let cap = SetCap::bytes(app.config.max_set_bytes);
                    let outcome =
                        receive(&app, &account.id, Some(&partner.id), input, "inbox", cap)
                            .instrument(span)
                            .await;
                    let to = match &outcome {
                        Ok(_) => "processed",
                        Err(e) if e.status.is_client_error() => "rejected",
                        Err(_) => continue, // a store problem: try again later
                    };
                    tracing::info!(to, "inbox file taken");
                    crate::metrics::worked(1);
                    let target = dir.join(to);
                    let _ = std::fs::create_dir_all(&target);
                    if let Some(name) = path.file_name() {
                        let _ = std::fs::rename(&path, target.join(name));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sets of the whole tree (`x12kit::parse`): per interchange, (ST01, GS06,
    /// ST02, mapped document) of each set.
    #[allow(clippy::type_complexity)]
    fn from_tree(
        input: &[u8],
    ) -> (
        Vec<Vec<(String, Option<i64>, Option<i64>, Option<Vec<u8>>)>>,
        Vec<x12kit::Diagnostic>,
    ) {
        let doc = x12kit::parse(input);
        let mut interchanges = Vec::new();
        for (i, ic) in doc.interchanges.iter().enumerate() {
            let mut sets = Vec::new();
            for (g, group) in ic.groups.iter().enumerate() {
                let group_control = group.gs.as_ref().and_then(|gs| number(gs.value(6)));
                for (t, set) in group.transactions.iter().enumerate() {
                    sets.push((
                        text(set.kind()),
                        group_control,
                        number(set.control_number()),
                        ops::transaction_document_json(&doc, i, g, t).ok().flatten(),
                    ));
                }
            }
            interchanges.push(sets);
        }
        (interchanges, doc.diagnostics)
    }

    #[test]
    fn a_request_renews_and_gives_back_only_its_own_claim() {
        let c = crate::store::tests::migrated();
        let claims = |c: &rusqlite::Connection| -> Vec<(i64, i64, Option<String>)> {
            let mut q = c
                .prepare(
                    "SELECT control, received_at, claim FROM inbound_interchanges ORDER BY control",
                )
                .unwrap();
            q.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        // Interchange 1 is this request's; 2 was taken over by another request after this
        // one's claim lapsed; 3 is complete.
        c.execute_batch(
            "INSERT INTO inbound_interchanges (account, partner_id, control, received_at, source, result, claim) VALUES
             ('a', 'p', 1, 5, 'api', '{}', 'mine'),
             ('a', 'p', 2, 5, 'api', '{}', 'theirs'),
             ('a', 'p', 3, 5, 'api', '{\"done\":true}', NULL)",
        )
        .unwrap();
        assert_eq!(renew(&c, "a", "p", 1, "mine").unwrap(), 1);
        assert_eq!(renew(&c, "a", "p", 2, "mine").unwrap(), 0);
        assert_eq!(renew(&c, "a", "p", 3, "mine").unwrap(), 0);
        let now = claims(&c);
        assert!(now[0].1 > 5, "{now:?}");
        assert_eq!(now[1].1, 5);
        release(&c, "a", "p", &[1, 2, 3], "mine").unwrap();
        assert_eq!(
            claims(&c),
            [
                (1, 0, Some("mine".to_string())),
                (2, 5, Some("theirs".to_string())),
                (3, 5, None)
            ]
        );
    }

    #[tokio::test]
    async fn the_heartbeat_renews_while_the_request_makes_progress() {
        use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
        let every = std::time::Duration::from_millis(20);
        let progress = Arc::new(AtomicU64::new(0));
        let renewed = Arc::new(AtomicUsize::new(0));
        let held = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let task = {
            let (progress, renewed, held) = (progress.clone(), renewed.clone(), held.clone());
            tokio::spawn(beat(every, progress, move || {
                renewed.fetch_add(1, Ordering::SeqCst);
                let held = held.load(Ordering::SeqCst);
                async move { held }
            }))
        };
        // Progress at every beat: renewed each time.
        for n in 1..=5 {
            progress.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(every * 2).await;
            assert!(renewed.load(Ordering::SeqCst) >= n.min(3), "{n}");
        }
        let before = renewed.load(Ordering::SeqCst);
        assert!(before >= 3, "{before}");
        // No progress: no renewal (the claim lapses if the request is stuck).
        tokio::time::sleep(every * 6).await;
        let stalled = renewed.load(Ordering::SeqCst);
        assert!(stalled <= before + 1, "{before} {stalled}");
        tokio::time::sleep(every * 6).await;
        assert_eq!(renewed.load(Ordering::SeqCst), stalled);
        // The claim is someone else's now: the heartbeat stops.
        held.store(false, Ordering::SeqCst);
        progress.fetch_add(1, Ordering::SeqCst);
        tokio::time::timeout(every * 20, task)
            .await
            .expect("the heartbeat stops once the claim is gone")
            .unwrap();
    }

    #[test]
    fn reading_set_by_set_gives_what_the_whole_tree_gave() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/inputs");
        let mut inputs: Vec<Vec<u8>> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .map(|p| std::fs::read(p).unwrap())
            .collect();
        // An interchange past the core's hold (streamed set by set): 850s repeated.
        let one = std::fs::read(dir.join("850-basic.edi")).unwrap();
        let text = String::from_utf8(one).unwrap();
        let (head, rest) = text.split_at(text.find("ST*").unwrap());
        let (set, tail) = rest.split_at(rest.find("GE*").unwrap());
        let mut big = head.to_string();
        for _ in 0..(x12kit::sets::HOLD / 4 + 10) {
            big.push_str(set);
        }
        big.push_str(tail);
        inputs.push(big.into_bytes());
        assert!(inputs.len() > 50);
        for input in &inputs {
            let mapped = Input::Read(input.clone());
            let outline = scan(&mapped, SetCap::default()).unwrap();
            let (tree, diagnostics) = from_tree(input);
            assert_eq!(outline.diagnostics, diagnostics);
            assert_eq!(outline.interchanges.len(), tree.len());
            let fates: Vec<Fate> = (0..tree.len())
                .map(|n| Fate::Record {
                    control: n as i64,
                    skip: n % 2,
                })
                .collect();
            let mut batches = Vec::new();
            let handed = records(
                &mapped,
                SetCap::default(),
                &fates,
                None,
                &mut |b| {
                    batches.push(b);
                    Ok(())
                },
                None,
            )
            .unwrap();
            assert!(
                batches
                    .iter()
                    .all(|b| !b.is_empty() && b.len() <= BATCH_SETS)
            );
            let rows: Vec<Row> = batches.into_iter().flatten().collect();
            assert_eq!(handed.len(), rows.len());
            // Every set but the acknowledgements, after the `skip` first of each interchange.
            let mut expected = Vec::new();
            for (n, (sets, scanned)) in tree.iter().zip(&outline.interchanges).enumerate() {
                let kinds: Vec<&str> = sets.iter().map(|s| s.0.as_str()).collect();
                let marks: Vec<&str> = scanned.sets.iter().map(|s| s.kind.as_str()).collect();
                assert_eq!(kinds, marks);
                expected.extend(
                    sets.iter()
                        .filter(|s| !crate::lifecycle::is_ack_type(&s.0))
                        .skip(n % 2)
                        .map(|s| (n as i64, s)),
                );
            }
            assert_eq!(rows.len(), expected.len());
            for (row, (n, (kind, group, control, document))) in rows.iter().zip(expected) {
                assert_eq!(row.interchange, n);
                assert_eq!(&row.kind, kind);
                assert_eq!(&row.group_control, group);
                assert_eq!(&row.control, control);
                let doc = document.as_deref().map_or_else(
                    || "null".to_string(),
                    |d| String::from_utf8_lossy(d).into_owned(),
                );
                assert_eq!(row.document, doc);
                // The set in an interchange of its own: one set, mapped to the same document.
                let own = row.x12.as_deref().unwrap();
                let alone = x12kit::parse(own);
                assert_eq!(
                    alone.interchanges.len(),
                    1,
                    "{}",
                    String::from_utf8_lossy(own)
                );
                let (one, _) = from_tree(own);
                assert_eq!(one[0].len(), 1);
                assert_eq!(&one[0][0].3, document);
            }
            let options = crate::guides::inbound_options(&json!({})).unwrap();
            let v = validation(&mapped, &options).unwrap();
            assert_eq!(
                v.acknowledgements.clone().unwrap_or_default(),
                ops::read_acknowledgement(input)
            );
            let ack: ops::AcknowledgeOptions = ops::options(json!({"kind": "auto"})).unwrap();
            let at = x12kit::DateTime::from_unix(1_700_000_000);
            assert_eq!(
                ops::acknowledge_validation(&v, &ack, at).ok(),
                ops::acknowledge(input, &ack, at).ok()
            );
        }
    }
}
