//! A document's statuses and every step between them, in one table.
//!
//! ```text
//!  queued ──Validate──▶ validated ──Route──▶ routed ──Accept──▶ acknowledged
//!     │                     │                  │  ╲                 │  ╲
//!  Invalid              RouteFailed    PartnerReject  Overdue   AcceptAfterTa1  RejectAfterTa1
//!     ▼                     ▼                  ▼      ▼  MdnRefused  (stays)       ▼
//!   failed ◀────────────────┴──────────────────┴──────┘            failed ◀───────┘
//!
//!  received: a set the partner sent (inbound), which no step moves.
//!
//!  What people (and API keys) ask for (`POST /transactions/{id}/resend`, `/cancel`):
//!  routed ──Resend──▶ validated ◀──ResendFailed── failed   (routed again, same interchange)
//!  queued ──Cancel──▶ canceled ◀──CancelValidated── validated   (final)
//! ```
//!
//! Every status change is a [`Step`]: its [`Transition`] says the status the
//! document must still have (the store's compare-and-set), the status it gets
//! and the webhook events announced. The lifecycle's workers, the inbound
//! acknowledgements and the AS2 receipts all go through
//! [`crate::lifecycle::transition`] with a step, so no status is written
//! anywhere else as text (the SQL of the workers' queries names them as
//! literals, checked against [`Status::ALL`] by the tests of this module).

use std::fmt;
use x12kit::webhook::EventKind;

/// A document's status (lower case in the store, the API and the webhooks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Created (from a payload, or as an acknowledgement to send); waits for validation.
    Queued,
    /// The rendered interchange validates clean; waits for routing.
    Validated,
    /// Handed to the partner's transport; may wait for the partner's acknowledgement.
    Routed,
    /// The partner's TA1/997/999 accepted it.
    Acknowledged,
    /// Invalid, not deliverable, rejected by the partner or not acknowledged in time.
    Failed,
    /// Canceled by a person (or an API key) before it was sent; final.
    Canceled,
    /// An inbound set from the partner.
    Received,
}

impl Status {
    /// Every status, in lifecycle order.
    pub const ALL: [Status; 7] = [
        Status::Queued,
        Status::Validated,
        Status::Routed,
        Status::Acknowledged,
        Status::Failed,
        Status::Canceled,
        Status::Received,
    ];

    /// The name the store and the API use.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Validated => "validated",
            Status::Routed => "routed",
            Status::Acknowledged => "acknowledged",
            Status::Failed => "failed",
            Status::Canceled => "canceled",
            Status::Received => "received",
        }
    }

    /// The status named `name` (as [`Status::as_str`] writes it).
    pub fn parse(name: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A status change: where from, where to, and what it announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    /// The status the document must still have (else the step does nothing).
    pub from: Status,
    /// The status it gets.
    pub to: Status,
    /// The webhook events announced, in this order (one outbox row per event and
    /// endpoint that wants it).
    pub events: &'static [EventKind],
}

/// Every status change the server makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The rendered interchange validated clean.
    Validate,
    /// It did not.
    Invalid,
    /// The partner's transport took it.
    Route,
    /// Every attempt of the transport failed.
    RouteFailed,
    /// The partner's TA1, 997 or 999 accepted it.
    Accept,
    /// The partner's acknowledgement rejected it.
    PartnerReject,
    /// A 997/999 after a TA1 that alone acknowledged it, accepting the set: the
    /// document stays acknowledged with both kept.
    AcceptAfterTa1,
    /// A 997/999 after a TA1 that alone acknowledged it, rejecting the set.
    RejectAfterTa1,
    /// No acknowledgement within the partner's window.
    Overdue,
    /// The partner's asynchronous AS2 receipt (MDN) refused the message or failed
    /// its checks.
    MdnRefused,
    /// A resend of a routed document someone asked for: routed again as it is
    /// (announced by the `document.routed` that follows, marked as a resend).
    Resend,
    /// A resend of a document whose routing failed (or its acknowledgement).
    ResendFailed,
    /// Someone canceled a document still waiting for validation.
    Cancel,
    /// Someone canceled a validated document before it was routed.
    CancelValidated,
}

const VALIDATED: &[EventKind] = &[EventKind::DocumentValidated];
const ROUTED: &[EventKind] = &[EventKind::DocumentRouted];
const ERROR: &[EventKind] = &[EventKind::DocumentError];
const ACK: &[EventKind] = &[EventKind::DocumentPartnerAck];
const ACK_ERROR: &[EventKind] = &[EventKind::DocumentPartnerAck, EventKind::DocumentError];
const NONE: &[EventKind] = &[];

impl Step {
    /// Every step.
    #[cfg(test)]
    pub const ALL: [Step; 14] = [
        Step::Validate,
        Step::Invalid,
        Step::Route,
        Step::RouteFailed,
        Step::Accept,
        Step::PartnerReject,
        Step::AcceptAfterTa1,
        Step::RejectAfterTa1,
        Step::Overdue,
        Step::MdnRefused,
        Step::Resend,
        Step::ResendFailed,
        Step::Cancel,
        Step::CancelValidated,
    ];

    /// The table of the lifecycle.
    pub const fn transition(self) -> Transition {
        use Status::*;
        let (from, to, events) = match self {
            Step::Validate => (Queued, Validated, VALIDATED),
            Step::Invalid => (Queued, Failed, ERROR),
            Step::Route => (Validated, Routed, ROUTED),
            Step::RouteFailed => (Validated, Failed, ERROR),
            Step::Accept => (Routed, Acknowledged, ACK),
            Step::PartnerReject => (Routed, Failed, ACK_ERROR),
            Step::AcceptAfterTa1 => (Acknowledged, Acknowledged, ACK),
            Step::RejectAfterTa1 => (Acknowledged, Failed, ACK_ERROR),
            Step::Overdue => (Routed, Failed, ERROR),
            Step::MdnRefused => (Routed, Failed, ERROR),
            Step::Resend => (Routed, Validated, NONE),
            Step::ResendFailed => (Failed, Validated, NONE),
            Step::Cancel => (Queued, Canceled, ERROR),
            Step::CancelValidated => (Validated, Canceled, ERROR),
        };
        Transition { from, to, events }
    }

    /// The resend of a document in `status`, if it can be resent (routed or failed).
    pub fn resend(status: Status) -> Option<Step> {
        match status {
            Status::Routed => Some(Step::Resend),
            Status::Failed => Some(Step::ResendFailed),
            _ => None,
        }
    }

    /// The cancel of a document in `status`, if it still waits (queued or validated).
    pub fn cancel(status: Status) -> Option<Step> {
        match status {
            Status::Queued => Some(Step::Cancel),
            Status::Validated => Some(Step::CancelValidated),
            _ => None,
        }
    }

    /// The step a partner's acknowledgement takes for a document in `status`:
    /// `after_ta1` when the document was acknowledged by a TA1 alone and this is
    /// the 997/999 that follows. `None`: the acknowledgement does not apply to a
    /// document in that status.
    pub fn for_acknowledgement(status: Status, after_ta1: bool, accepted: bool) -> Option<Step> {
        match (status, after_ta1, accepted) {
            (Status::Routed, false, true) => Some(Step::Accept),
            (Status::Routed, false, false) => Some(Step::PartnerReject),
            (Status::Acknowledged, true, true) => Some(Step::AcceptAfterTa1),
            (Status::Acknowledged, true, false) => Some(Step::RejectAfterTa1),
            _ => None,
        }
    }
}

/// The `data.status` a webhook event of this kind reports (the status its step
/// gives; `None` for events that are not about a document's status).
pub fn event_status(event: EventKind) -> Option<Status> {
    match event {
        EventKind::DocumentValidated => Some(Status::Validated),
        EventKind::DocumentRouted => Some(Status::Routed),
        EventKind::DocumentPartnerAck => Some(Status::Acknowledged),
        EventKind::DocumentError => Some(Status::Failed),
        _ => None,
    }
}

/// The state of one webhook delivery (an outbox row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Delivery {
    /// Not delivered yet; attempted at its `next_at`.
    Pending,
    /// The endpoint answered 2xx.
    Delivered,
    /// Every attempt failed, or the endpoint refused it for good.
    Failed,
}

impl Delivery {
    /// Every state.
    pub const ALL: [Delivery; 3] = [Delivery::Pending, Delivery::Delivered, Delivery::Failed];

    /// The name the store and the API use.
    pub const fn as_str(self) -> &'static str {
        match self {
            Delivery::Pending => "pending",
            Delivery::Delivered => "delivered",
            Delivery::Failed => "failed",
        }
    }

    /// The state named `name`.
    pub fn parse(name: &str) -> Option<Delivery> {
        Delivery::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl fmt::Display for Delivery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
            assert_eq!(s.to_string(), s.as_str());
        }
        for d in Delivery::ALL {
            assert_eq!(Delivery::parse(d.as_str()), Some(d));
        }
        assert_eq!(Status::parse("Queued"), None);
        assert_eq!(Delivery::parse(""), None);
    }

    #[test]
    fn the_table_keeps_the_lifecycle() {
        for step in Step::ALL {
            let t = step.transition();
            let resend = matches!(step, Step::Resend | Step::ResendFailed);
            // Nothing enters `queued` or `received`; nothing leaves `received` or
            // `canceled`, and only a resend someone asks for leaves `failed`.
            assert!(
                !matches!(t.to, Status::Queued | Status::Received),
                "{step:?}"
            );
            assert!(
                !matches!(t.from, Status::Canceled | Status::Received),
                "{step:?}"
            );
            assert_eq!(t.from == Status::Failed, step == Step::ResendFailed);
            // Every step announces something, but a resend (its routing will).
            assert_eq!(t.events.is_empty(), resend, "{step:?}");
            // What the events report is where the step goes, error events aside.
            for e in t.events {
                let reported = event_status(*e).expect("a document event");
                assert!(
                    reported == t.to
                        || (*e == EventKind::DocumentPartnerAck && t.to == Status::Failed)
                        || (*e == EventKind::DocumentError && t.to == Status::Canceled),
                    "{step:?}: {e:?} reports {reported}"
                );
            }
            // Failing and canceling steps announce the error; the others do not.
            assert_eq!(
                t.events.contains(&EventKind::DocumentError),
                matches!(t.to, Status::Failed | Status::Canceled),
                "{step:?}"
            );
        }
        // Every status but `received` is reached, or is the start.
        for s in Status::ALL {
            let reached = Step::ALL.iter().any(|st| st.transition().to == s);
            assert_eq!(
                reached,
                !matches!(s, Status::Queued | Status::Received),
                "{s}"
            );
        }
    }

    #[test]
    fn people_resend_routed_or_failed_documents_and_cancel_waiting_ones() {
        for s in Status::ALL {
            match Step::resend(s) {
                Some(step) => assert_eq!(
                    (step.transition().from, step.transition().to),
                    (s, Status::Validated)
                ),
                None => assert!(!matches!(s, Status::Routed | Status::Failed), "{s}"),
            }
            match Step::cancel(s) {
                Some(step) => assert_eq!(
                    (step.transition().from, step.transition().to),
                    (s, Status::Canceled)
                ),
                None => assert!(!matches!(s, Status::Queued | Status::Validated), "{s}"),
            }
        }
    }

    #[test]
    fn acknowledgements_settle_only_documents_waiting_for_them() {
        for s in Status::ALL {
            for after_ta1 in [false, true] {
                for accepted in [false, true] {
                    let step = Step::for_acknowledgement(s, after_ta1, accepted);
                    match step {
                        Some(step) => {
                            let t = step.transition();
                            assert_eq!(t.from, s);
                            assert_eq!(t.to == Status::Acknowledged, accepted);
                            assert!(t.events.contains(&EventKind::DocumentPartnerAck));
                        }
                        None => assert!(
                            !matches!(
                                (s, after_ta1),
                                (Status::Routed, false) | (Status::Acknowledged, true)
                            ),
                            "{s} {after_ta1} {accepted}"
                        ),
                    }
                }
            }
        }
    }

    /// The workers' queries name statuses and delivery states as SQL literals
    /// (`status = 'routed'`): each one is a name of this module.
    #[test]
    fn statuses_in_sql_are_known() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let re = regex_lite(&["status", "state", "mdn_state"]);
        let mut seen = 0;
        for path in walk(&dir) {
            let text = std::fs::read_to_string(&path).unwrap();
            for name in re(&text) {
                seen += 1;
                let known = Status::parse(&name).is_some()
                    || Delivery::parse(&name).is_some()
                    // the SFTP and AS2 tables' own states
                    || matches!(name.as_str(), "applied" | "rejected" | "pending");
                assert!(known, "{}: unknown status {name:?}", path.display());
            }
        }
        assert!(
            seen > 10,
            "found only {seen} status literals: the scan is broken"
        );
    }

    /// The quoted names after `<column> = '` and inside `<column> IN ('…', …)`.
    fn regex_lite(columns: &'static [&'static str]) -> impl Fn(&str) -> Vec<String> {
        move |text: &str| {
            let mut out = Vec::new();
            for col in columns {
                for (pat, list) in [(format!("{col} = '"), false), (format!("{col} IN ("), true)] {
                    let mut rest = text;
                    while let Some(i) = rest.find(&pat) {
                        // whole column names only (`status` is not `mdn_status`)
                        let before = rest[..i].chars().last();
                        rest = &rest[i + pat.len()..];
                        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                            continue;
                        }
                        let end = rest.find(if list { ')' } else { '\'' }).unwrap_or(0);
                        for part in rest[..end].split(',') {
                            let name = part.trim().trim_matches('\'');
                            if !name.is_empty() {
                                out.push(name.to_string());
                            }
                        }
                    }
                }
            }
            out
        }
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
        out
    }
}
