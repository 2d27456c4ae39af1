//! The rule engine: a [`Handler`] that checks the envelope rules as the
//! structure streams by, keeping only per-interchange, per-group and per-set
//! counters and control numbers.

use super::acks::AckReader;
use super::check;
use super::mapping::{Scope, parser_codes};
use super::summary::{
    Ak5Outcome, Ak9Outcome, ElementError, GroupSummary, InterchangeSummary, SegmentError,
    SetSummary, Status, Ta1Outcome, Validation,
};
use crate::codes;
use crate::received::{GroupAck, InterchangeAck};
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use x12kit_syntax::diagnostics::{AckCodes, Code, Diagnostic};
use x12kit_syntax::envelope::{Handler, isa_value};
use x12kit_syntax::lexer::preview;
use x12kit_syntax::segment::Segment;

/// Which group and set summaries the validator keeps inside the
/// interchange summaries it reports (counts and outcomes are always kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Retain {
    /// Every group and every transaction set (the default).
    #[default]
    All,
    /// Every group, but only the transaction sets that are not accepted
    /// without errors (enough for an errors-only acknowledgement).
    Errors,
    /// No group or set summaries: memory no longer grows with the number of
    /// sets (the sink still sees each one as it ends).
    Counts,
}

/// Validation options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Which summaries to keep.
    pub retain: Retain,
    /// How many control numbers each duplicate check remembers (ISA13 in the
    /// input, GS06 per interchange, ST02 per group). Beyond it, new numbers
    /// are not checked and one `DUPLICATE_CHECK_LIMIT` warning says so. Each
    /// remembered number costs about 32 bytes.
    pub max_control_numbers: usize,
    /// Also check the structure of the declared transaction sets
    /// (`documents::StructureRules`: segment order, loops, mandatory
    /// segments and elements, types, lengths, codes), so that their findings
    /// reach the acknowledgements as AK3/AK4 or IK3/IK4. Off by default: the
    /// envelope rules alone are what the service's validate endpoint reports.
    /// Each set's body is buffered while it is checked, so memory is bounded
    /// by the largest set rather than the input.
    pub structure: bool,
    /// Partners' implementation guides ([`crate::guide`]): each set a guide
    /// names (type and version) is also checked against it. Not empty:
    /// the structure is checked too, as if [`Options::structure`] were set.
    pub guides: crate::guide::Guides,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            retain: Retain::All,
            max_control_numbers: 100_000,
            structure: false,
            guides: crate::guide::Guides::default(),
        }
    }
}

/// Receives what the validator finds, as it finds it.
pub trait Sink {
    /// A diagnostic (with its acknowledgement codes), in input order.
    fn diagnostic(&mut self, d: Diagnostic);
    /// A transaction set ended (a set accepted without errors only when
    /// [`Sink::accepted_sets`] says so).
    fn transaction(&mut self, _set: &SetSummary) {}
    /// Whether [`Sink::transaction`] is called for the sets accepted without
    /// errors too (the default). A sink that only looks at sets with errors
    /// says `false`, and the validator then neither calls it for the others
    /// nor writes their summaries' text unless [`Options::retain`] keeps
    /// them.
    fn accepted_sets(&self) -> bool {
        true
    }
    /// A functional group ended (its sets as [`Options::retain`] says).
    fn group(&mut self, _group: &GroupSummary) {}
    /// An interchange ended (its groups as [`Options::retain`] says).
    fn interchange(&mut self, interchange: InterchangeSummary);
    /// A TA1 segment the input carries (see [`crate::ack::read`]), read
    /// when it streams by.
    fn interchange_ack(&mut self, _ack: InterchangeAck) {}
    /// A 997 or 999 set the input carries, read when the set ends.
    fn group_ack(&mut self, _ack: GroupAck) {}
}

impl Sink for Validation {
    fn diagnostic(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    /// The summaries kept are those of [`Options::retain`].
    fn accepted_sets(&self) -> bool {
        false
    }

    fn interchange(&mut self, interchange: InterchangeSummary) {
        self.interchanges.push(interchange);
    }

    fn interchange_ack(&mut self, ack: InterchangeAck) {
        self.acknowledgements
            .get_or_insert_with(Default::default)
            .interchange_acks
            .push(ack);
    }

    fn group_ack(&mut self, ack: GroupAck) {
        self.acknowledgements
            .get_or_insert_with(Default::default)
            .group_acks
            .push(ack);
    }
}

/// Extra checks of transaction set bodies, run by the validator inside each
/// set (the hook the transaction-set structure rules plug into).
///
/// Report findings as diagnostics positioned with
/// [`Diagnostic::at_segment`] / [`Diagnostic::at_element`] and carrying
/// [`AckCodes`] with `ik3` (segment error) or `ik4` (element error, plus
/// `component`, `repetition`, `element_reference`, `value`, `loop_id` as
/// known): the validator turns them into AK3/AK4 (997) and IK3/IK4 (999).
pub trait SetRules {
    /// A set starts; `functional_id` is the group's GS01 (`None` outside a group).
    fn start(&mut self, _st: &Segment<'_>, _functional_id: Option<&[u8]>, _version: &[u8]) {}
    /// A body segment; `position` counts from ST = 1.
    fn segment(&mut self, _seg: &Segment<'_>, _position: u64, _out: &mut Vec<Diagnostic>) {}
    /// The set ends, with or without its SE.
    fn end(&mut self, _se: Option<&Segment<'_>>, _out: &mut Vec<Diagnostic>) {}
}

/// A short copy of a control number (up to 15 bytes), for comparisons and
/// duplicate checks without allocating.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Tag {
    bytes: [u8; 15],
    len: u8,
}

/// The value's bytes alone (the rest of `bytes` is zero): equal tags hash
/// alike, in one pass over the few bytes of a control number.
impl std::hash::Hash for Tag {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write(&self.bytes[..usize::from(self.len)]);
    }
}

impl Tag {
    /// `None` when the value is longer than 15 bytes (it is then invalid anyway).
    fn new(b: &[u8]) -> Option<Self> {
        if b.len() > 15 {
            return None;
        }
        let mut t = Tag::default();
        t.bytes[..b.len()].copy_from_slice(b);
        t.len = b.len() as u8;
        Some(t)
    }
}

/// FNV-1a: control numbers are short and not attacker-chosen keys of a
/// long-lived map (each set is bounded by `max_control_numbers`).
#[derive(Default, Clone, Copy)]
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type FnvBuild = std::hash::BuildHasherDefault<Fnv>;

/// Control numbers already seen in one scope, at most `cap` of them.
///
/// Senders usually number in order (`0001`, `0002`, …): while every number
/// is greater than the one before (by [`Tag`]'s order, any total order
/// will do), they are all different and are kept in `rising`, in order,
/// with one comparison each; the first number out of order is looked up
/// there (a binary search) and from then on every number goes through the
/// hash set `set`, which then holds them all.
#[derive(Default)]
struct Seen {
    rising: Vec<Tag>,
    set: HashSet<Tag, FnvBuild>,
    full: bool,
}

enum Insert {
    New,
    Duplicate,
    /// The set just became full: report it once.
    Full,
    Untracked,
}

impl Seen {
    fn len(&self) -> usize {
        self.rising.len() + self.set.len()
    }

    fn contains(&self, tag: &Tag) -> bool {
        self.rising.binary_search(tag).is_ok() || self.set.contains(tag)
    }

    fn insert(&mut self, value: &[u8], cap: usize) -> Insert {
        let Some(tag) = Tag::new(value) else {
            return Insert::Untracked;
        };
        let below_cap = self.len() < cap;
        if self.set.is_empty() && self.rising.last().is_none_or(|last| *last < tag) {
            // In order: new (greater than every number seen).
            if below_cap {
                self.rising.push(tag);
                return Insert::New;
            }
        } else if self.contains(&tag) {
            return Insert::Duplicate;
        } else if below_cap {
            // Out of order from now on: every number in the hash set.
            if !self.rising.is_empty() {
                self.set.extend(self.rising.drain(..));
            }
            self.set.insert(tag);
            return Insert::New;
        }
        if self.full {
            return Insert::Untracked;
        }
        self.full = true;
        Insert::Full
    }

    fn bytes(&self) -> usize {
        self.rising.capacity() * std::mem::size_of::<Tag>()
            + self.set.capacity() * (std::mem::size_of::<Tag>() + 1)
    }

    /// Forgets every number, keeping the table's room for the next scope.
    fn cleared(mut self) -> Self {
        self.rising.clear();
        self.set.clear();
        self.full = false;
        self
    }
}

struct InterchangeState {
    summary: InterchangeSummary,
    isa13: Vec<u8>,
    gs06_seen: Seen,
    /// First TA1 code of an error that rejects the interchange.
    reject: Option<&'static str>,
    /// `024` when an error in a group or set was noted (the 997 / 999
    /// reports it; the interchange itself is accepted with errors).
    noted: Option<&'static str>,
}

struct GroupState {
    summary: GroupSummary,
    explicit: bool,
    gs06: Vec<u8>,
    gs01: Option<Tag>,
    version: Vec<u8>,
    st02_seen: Seen,
    unsupported: Vec<Tag>,
    own_error: bool,
    received: u64,
    accepted: u64,
    rejected: u64,
}

struct SetState {
    /// Its `kind` and `control_number` are written when the set ends, from
    /// `st01` and `st02`, and only if the summary is kept or reported
    /// ([`Sink::accepted_sets`]).
    summary: SetSummary,
    st01: Vec<u8>,
    st02: Vec<u8>,
    count: usize,
    rejected: bool,
}

/// The envelope validator: feed it the [`Handler`] events of an
/// [`x12kit_syntax::Envelope`] (streaming), or run it over a parsed
/// [`x12kit_syntax::Document`] with [`Validator::run`].
pub struct Validator<S: Sink = Validation> {
    options: Options,
    sink: S,
    rules: Option<Box<dyn SetRules + Send>>,
    isa13_seen: Seen,
    interchange: Option<InterchangeState>,
    group: Option<GroupState>,
    set: Option<SetState>,
    scratch: Vec<Diagnostic>,
    acks: AckReader,
    /// The ST02 check of the last group ended, emptied, for the next group
    /// (which then does not grow its table again).
    spare_st02: Seen,
    /// The ST01 and ST02 copies of the last set ended, for the next set's.
    spare_copies: [Vec<u8>; 2],
}

impl<S: Sink> fmt::Debug for Validator<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Validator")
            .field("options", &self.options)
            .field("retained_bytes", &self.retained_bytes())
            .finish_non_exhaustive()
    }
}

impl<S: Sink> Validator<S> {
    /// A validator that reports to `sink` and runs `rules` inside each set.
    /// The engine knows no transaction set: [`Options::structure`] is read
    /// by the constructors of [`crate::validation`] (`Validator::new`,
    /// `Validator::with_sink`), which give it the declared sets' rules.
    pub fn with_sink_and_rules(
        options: Options,
        sink: S,
        rules: Option<Box<dyn SetRules + Send>>,
    ) -> Self {
        Validator {
            options,
            sink,
            rules,
            isa13_seen: Seen::default(),
            interchange: None,
            group: None,
            set: None,
            scratch: Vec::new(),
            acks: AckReader::default(),
            spare_st02: Seen::default(),
            spare_copies: [Vec::new(), Vec::new()],
        }
    }

    /// Adds transaction set body checks (replacing the structure rules that
    /// [`Options::structure`] installs, if any).
    pub fn with_rules(mut self, rules: Box<dyn SetRules + Send>) -> Self {
        self.rules = Some(rules);
        self
    }

    /// The sink, with everything reported so far.
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// Ends validation and returns the sink. Call after
    /// [`x12kit_syntax::Envelope::finish`], which closes whatever is still open.
    pub fn finish(self) -> S {
        self.sink
    }

    /// Approximate heap bytes held by the validator's own state (duplicate
    /// checks and the summaries of the open interchange, group and set),
    /// excluding what the sink keeps.
    pub fn retained_bytes(&self) -> usize {
        let mut n = self.isa13_seen.bytes()
            + self.spare_st02.bytes()
            + self.scratch.capacity() * 64
            + self.acks.retained_bytes();
        if let Some(i) = &self.interchange {
            n += i.gs06_seen.bytes()
                + i.summary.groups.capacity() * std::mem::size_of::<GroupSummary>()
                + i.summary
                    .groups
                    .iter()
                    .map(|g| g.transactions.capacity() * std::mem::size_of::<SetSummary>())
                    .sum::<usize>();
        }
        if let Some(g) = &self.group {
            n += g.st02_seen.bytes()
                + g.summary.transactions.capacity() * std::mem::size_of::<SetSummary>();
        }
        n
    }

    /// Stops reading acknowledgements from the events (a parsed document's
    /// are read from its tree instead).
    pub(crate) fn read_acks_from_events(&mut self, on: bool) {
        self.acks.off = !on;
    }

    /// Passes the acknowledgements read from a parsed document to the sink.
    pub(crate) fn acknowledgements(&mut self, acks: crate::received::Acknowledgements) {
        for a in acks.interchange_acks {
            self.sink.interchange_ack(a);
        }
        for a in acks.group_acks {
            self.sink.group_ack(a);
        }
    }

    pub(crate) fn has_rules(&self) -> bool {
        self.rules.is_some()
    }

    /// True when a body segment of the open set only adds to its count
    /// (no set rules, no acknowledgement being read from it), so it may be
    /// counted with [`Validator::add_body_segments`] instead of
    /// [`Handler::segment`].
    #[inline]
    pub(crate) fn counts_body_only(&self) -> bool {
        self.rules.is_none() && !self.acks.reading()
    }

    /// Counts `n` body segments of the open set without seeing them.
    #[inline]
    pub(crate) fn add_body_segments(&mut self, n: usize) {
        if let Some(set) = self.set.as_mut() {
            set.count += n;
        }
    }

    pub(crate) fn current_scope(&self) -> Scope {
        self.scope()
    }

    fn scope(&self) -> Scope {
        if self.set.is_some() {
            Scope::Set
        } else if self.group.is_some() {
            Scope::Group
        } else if self.interchange.is_some() {
            Scope::Interchange
        } else {
            Scope::Input
        }
    }

    /// Applies a diagnostic to the outcome of the levels it concerns, then
    /// passes it to the sink.
    ///
    /// Only errors choose acknowledgement codes: a warning (an ISA11 that
    /// cannot be a repetition separator, an unpadded ISA, a missing final
    /// terminator…) never changes a TA1, AK9 or AK5 / IK5, and is passed on
    /// without codes. Which code wins when several apply is described in
    /// `docs/validation.md` ("Which code an acknowledgement carries").
    fn report(&mut self, mut d: Diagnostic) {
        let scope = self.scope();
        if !d.is_error() {
            d.ack = None;
            self.sink.diagnostic(d);
            return;
        }
        let ack = d.ack.as_ref();
        if let Some(ic) = self.interchange.as_mut() {
            match ack.and_then(|a| a.ta1) {
                // 024 (interchange content invalid) is about a group or set,
                // which the 997 / 999 reports: the interchange is accepted with errors.
                Some("024") => {
                    ic.noted.get_or_insert("024");
                }
                Some(n) => {
                    ic.reject.get_or_insert(n);
                }
                None if scope == Scope::Interchange => {
                    ic.reject.get_or_insert("022");
                }
                None => {}
            }
        }
        match scope {
            Scope::Set => {
                if let Some(set) = self.set.as_mut() {
                    set.rejected = true;
                    if let Some(a) = ack {
                        if let Some(c) = a.ik5 {
                            push_code(&mut set.summary.ak5.errors, c);
                        }
                        if a.ik3.is_some() || a.ik4.is_some() {
                            segment_error(set, &d, a);
                        }
                    }
                }
            }
            Scope::Group => {
                if let Some(g) = self.group.as_mut() {
                    g.own_error = true;
                    if let Some(c) = ack.and_then(|a| a.ak9) {
                        push_code(&mut g.summary.ak9.errors, c);
                    }
                }
            }
            Scope::Interchange | Scope::Input => {}
        }
        self.sink.diagnostic(d);
    }

    /// Reports a parser diagnostic, mapped to its acknowledgement codes.
    fn parser_diagnostic(&mut self, mut d: Diagnostic) {
        if d.ack.is_none() {
            d.ack = parser_codes(&d, self.scope()).map(Box::new);
        }
        self.report(d);
    }

    /// A TA1 for an interchange whose ISA could not be parsed, when its
    /// identity can be read at the fixed positions.
    pub(crate) fn unreadable_isa(&mut self, bytes: &[u8], offset: usize, note: &'static str) {
        if let Some(summary) = super::recover::recover(bytes, offset, note) {
            self.sink.interchange(summary);
        }
    }

    fn check_isa(&mut self, isa: &Segment<'_>) {
        let values: Vec<Cow<'_, [u8]>> = (1..=16).map(|n| isa_value(isa, n)).collect();
        let v: [&[u8]; 16] = std::array::from_fn(|i| &*values[i]);
        let count = isa.element_count();
        let version = v[11];
        let mut out = Vec::new();
        let mut fail = |n: usize, code: Code, note: &'static str, msg: String| {
            out.push(
                Diagnostic::error(code, msg)
                    .at_segment(isa)
                    .at_element(n as u32)
                    .at_offset(element_offset(isa, n))
                    .with_ack(AckCodes::ta1(note)),
            );
        };
        let q = |b: &[u8]| preview(b, 30);
        if !codes::one_of(codes::ISA01, v[0]) {
            fail(
                1,
                Code::Isa01Invalid,
                "010",
                format!(
                    "ISA01 (authorization information qualifier) is \"{}\"; it must be a two-digit code from 00 to 06 (00 means no authorization information)",
                    q(v[0])
                ),
            );
        }
        for (n, code, note, what) in [
            (2, Code::Isa02Invalid, "011", "authorization information"),
            (4, Code::Isa04Invalid, "013", "security information"),
        ] {
            let b = v[n - 1];
            if check::chars(b) != 10 || !check::text(b) {
                fail(
                    n,
                    code,
                    note,
                    format!(
                        "ISA{n:02} ({what}) is {}; it must be exactly 10 characters (10 spaces when there is none)",
                        width_text(b)
                    ),
                );
            }
        }
        if !codes::one_of(codes::ISA03, v[2]) {
            fail(
                3,
                Code::Isa03Invalid,
                "012",
                format!(
                    "ISA03 (security information qualifier) is \"{}\"; it must be 00 (no security information) or 01 (password)",
                    q(v[2])
                ),
            );
        }
        for (n, code, note, who) in [
            (5, Code::Isa05Invalid, "005", "sender"),
            (7, Code::Isa07Invalid, "007", "receiver"),
        ] {
            let b = v[n - 1];
            if !codes::one_of(codes::ID_QUALIFIERS, b) {
                fail(
                    n,
                    code,
                    note,
                    format!(
                        "ISA{n:02} ({who} ID qualifier) is \"{}\", which is not an interchange ID qualifier; use a two-character code such as ZZ (mutually defined), 01 (DUNS) or 12 (phone number)",
                        q(b)
                    ),
                );
            }
        }
        for (n, code, note, who) in [
            (6, Code::Isa06Invalid, "006", "sender"),
            (8, Code::Isa08Invalid, "008", "receiver"),
        ] {
            let b = v[n - 1];
            if check::chars(b) != 15 || !check::text(b) {
                fail(
                    n,
                    code,
                    note,
                    format!(
                        "ISA{n:02} (interchange {who} ID) is {}; it must be exactly 15 characters, padded with spaces on the right",
                        width_text(b)
                    ),
                );
            } else if b.iter().all(|&c| c == b' ') {
                fail(
                    n,
                    code,
                    note,
                    format!(
                        "ISA{n:02} (interchange {who} ID) is blank; it must identify the {who}"
                    ),
                );
            }
        }
        if !check::date6(v[8]) {
            fail(
                9,
                Code::Isa09Invalid,
                "014",
                format!(
                    "ISA09 (interchange date) is \"{}\"; it must be a real date written YYMMDD, e.g. 230131",
                    q(v[8])
                ),
            );
        }
        if !check::time(v[9], 4, 4) {
            fail(
                10,
                Code::Isa10Invalid,
                "015",
                format!(
                    "ISA10 (interchange time) is \"{}\"; it must be a real time written HHMM (00:00 to 23:59), e.g. 1430",
                    q(v[9])
                ),
            );
        }
        // From 00402 ISA11 is the repetition separator; the parser checks it
        // (a DELIMITERS warning). Up to 00401 it is the standards identifier U.
        if version < &b"00402"[..] && v[10] != b"U" {
            fail(
                11,
                Code::Isa11Invalid,
                "016",
                format!(
                    "ISA11 (interchange control standards identifier) is \"{}\"; with version {} (ISA12) it must be U",
                    q(v[10]),
                    q(version)
                ),
            );
        }
        if !codes::one_of(codes::VERSIONS, version) {
            fail(
                12,
                Code::Isa12Invalid,
                "017",
                format!(
                    "ISA12 (interchange control version) is \"{}\", which is not an X12 control version; use a five-digit version such as 00401 or 00501",
                    q(version)
                ),
            );
        }
        if v[12].len() != 9 || !check::digits(v[12]) {
            fail(
                13,
                Code::Isa13Invalid,
                "018",
                format!(
                    "ISA13 (interchange control number) is \"{}\"; it must be exactly 9 digits, padded with zeros on the left (e.g. 000000123)",
                    q(v[12])
                ),
            );
        }
        if v[13] != b"0" && v[13] != b"1" {
            fail(
                14,
                Code::Isa14Invalid,
                "019",
                format!(
                    "ISA14 (acknowledgment requested) is \"{}\"; it must be 0 (no TA1 requested) or 1 (TA1 requested)",
                    q(v[13])
                ),
            );
        }
        if !codes::one_of(codes::USAGE, v[14]) {
            fail(
                15,
                Code::Isa15Invalid,
                "020",
                format!(
                    "ISA15 (usage indicator) is \"{}\"; it must be P (production), T (test) or I (information)",
                    q(v[14])
                ),
            );
        }
        let d = isa.delimiters();
        let isa16_ok = v[15].len() == 1
            && v[15][0] == d.component
            && x12kit_syntax::delimiters::is_valid_delimiter(d.component);
        if !isa16_ok || count != 16 {
            let (n, code, note, msg) = if count > 16 {
                (
                    16,
                    Code::Isa16Invalid,
                    "027",
                    format!(
                        "the ISA segment has {count} elements instead of 16, so ISA16 (component separator) cannot be read"
                    ),
                )
            } else {
                (
                    16,
                    Code::Isa16Invalid,
                    "027",
                    format!(
                        "ISA16 (component separator) is \"{}\"; it must be exactly one character that is not a letter, digit, space or another delimiter",
                        q(v[15])
                    ),
                )
            };
            fail(n, code, note, msg);
        }
        for d in out {
            self.report(d);
        }
    }

    fn check_gs(&mut self, gs: &Segment<'_>) {
        let mut v: [&[u8]; 8] = [b""; 8];
        for (i, e) in gs.elements().take(8).enumerate() {
            v[i] = e.raw();
        }
        let mut out = Vec::new();
        let mut fail = |n: usize, code: Code, ak9: Option<&'static str>, msg: String| {
            out.push(
                Diagnostic::error(code, msg)
                    .at_segment(gs)
                    .at_element(n as u32)
                    .at_offset(element_offset(gs, n))
                    .with_ack(AckCodes {
                        ak9,
                        ta1: Some("024"),
                        ..AckCodes::default()
                    }),
            );
        };
        let q = |b: &[u8]| preview(b, 30);
        if !codes::one_of(codes::FUNCTIONAL_IDS, v[0]) {
            fail(
                1,
                Code::Gs01Invalid,
                Some("1"),
                format!(
                    "GS01 (functional identifier code) is \"{}\", which is not an X12 functional group code; it names the kind of sets in the group, e.g. PO for 850 purchase orders or IN for 810 invoices",
                    q(v[0])
                ),
            );
        }
        for (n, code, who) in [
            (2, Code::Gs02Invalid, "sender"),
            (3, Code::Gs03Invalid, "receiver"),
        ] {
            let b = v[n - 1];
            let len = check::chars(b);
            if !(2..=15).contains(&len) || !check::text(b) {
                fail(
                    n,
                    code,
                    None,
                    format!(
                        "GS{n:02} (application {who}'s code) is {}; it must be 2 to 15 characters",
                        width_text(b)
                    ),
                );
            }
        }
        let version = v[7];
        let old = version.len() >= 6 && check::digits(&version[..6]) && &version[..6] < b"004000";
        let modern = version.len() >= 6 && check::digits(&version[..6]) && !old;
        let date_ok = if old {
            check::date6(v[3])
        } else if modern {
            check::date8(v[3])
        } else {
            check::date8(v[3]) || check::date6(v[3])
        };
        if !date_ok {
            fail(
                4,
                Code::Gs04Invalid,
                None,
                format!(
                    "GS04 (group date) is \"{}\"; it must be a real date written {}",
                    q(v[3]),
                    if old {
                        "YYMMDD (versions before 004000), e.g. 230131"
                    } else {
                        "CCYYMMDD, e.g. 20230131"
                    }
                ),
            );
        }
        if !check::time(v[4], 4, 8) {
            fail(
                5,
                Code::Gs05Invalid,
                None,
                format!(
                    "GS05 (group time) is \"{}\"; it must be a real time written HHMM, HHMMSS, HHMMSSD or HHMMSSDD, e.g. 1430",
                    q(v[4])
                ),
            );
        }
        if !(1..=9).contains(&v[5].len()) || !check::digits(v[5]) {
            fail(
                6,
                Code::Gs06Invalid,
                Some("6"),
                format!(
                    "GS06 (group control number) is \"{}\"; it must be 1 to 9 digits",
                    q(v[5])
                ),
            );
        }
        if !codes::one_of(codes::AGENCIES, v[6]) {
            fail(
                7,
                Code::Gs07Invalid,
                None,
                format!(
                    "GS07 (responsible agency code) is \"{}\"; it must be X (ASC X12)",
                    q(v[6])
                ),
            );
        }
        if !(6..=12).contains(&version.len())
            || !check::digits(&version[..6.min(version.len())])
            || !check::text(version)
        {
            fail(
                8,
                Code::Gs08Invalid,
                Some("2"),
                format!(
                    "GS08 (version / release / industry identifier) is \"{}\"; it must start with the six-digit version, e.g. 004010 or 005010 (optionally followed by up to 6 characters such as X222A1)",
                    q(version)
                ),
            );
        }
        for d in out {
            self.report(d);
        }
    }
}

/// Records a segment or element finding in the set's summary.
fn segment_error(set: &mut SetState, d: &Diagnostic, a: &AckCodes) {
    let st_index = set.summary.segment_index;
    let index = d
        .segment_index
        .unwrap_or(st_index + set.count.saturating_sub(1));
    let position = (index.saturating_sub(st_index) + 1) as u64;
    let pos = match set.summary.segment_errors.iter().rposition(|s| {
        // A missing segment is reported at the position of the segment
        // that follows it: each is an IK3 of its own.
        s.position == position && d.segment_id.as_ref().is_none_or(|id| *id == s.segment_id)
    }) {
        Some(p) => p,
        None => {
            set.summary.segment_errors.push(SegmentError {
                segment_id: d.segment_id.clone().unwrap_or_default(),
                position,
                segment_index: index,
                loop_id: a.loop_id.clone(),
                codes: Vec::new(),
                elements: Vec::new(),
            });
            set.summary.segment_errors.len() - 1
        }
    };
    let seg = &mut set.summary.segment_errors[pos];
    if seg.loop_id.is_none() {
        seg.loop_id = a.loop_id.clone();
    }
    if let Some(c) = a.ik3 {
        push_code(&mut seg.codes, c);
    }
    if let Some(c) = a.ik4 {
        seg.elements.push(ElementError {
            position: d.element.unwrap_or(1),
            component: a.component,
            repetition: a.repetition,
            reference: a.element_reference,
            code: c,
            value: a.value.clone(),
        });
    }
}

/// Numeric codes in ascending order, then the I-codes (as pyx12 lists them).
fn sort_codes(list: &mut [&'static str]) {
    list.sort_by_key(|c| (c.parse::<u32>().unwrap_or(u32::MAX), *c));
}

fn push_code(list: &mut Vec<&'static str>, code: &'static str) {
    if !list.contains(&code) {
        list.push(code);
    }
}

/// How long a value is, for messages: `8 characters ("ACME CO")`.
fn width_text(b: &[u8]) -> String {
    let n = check::chars(b);
    let shown = preview(b, 30);
    let ctrl = if check::text(b) {
        ""
    } else {
        " and contains a control character"
    };
    format!(
        "{n} character{} (\"{shown}\"){ctrl}",
        if n == 1 { "" } else { "s" }
    )
}

/// Byte offset in the input of element `n` (1-based) of a segment.
pub(crate) fn element_offset(seg: &Segment<'_>, n: usize) -> usize {
    let sep = seg.delimiters().element;
    let mut seen = 0;
    for (i, &b) in seg.raw().iter().enumerate() {
        if b == sep {
            seen += 1;
            if seen == n {
                return seg.offset() + i + 1;
            }
        }
    }
    seg.offset() + seg.raw().len()
}

fn text(b: &[u8]) -> String {
    // Values are nearly always valid UTF-8 (ASCII): one check and one copy.
    match std::str::from_utf8(b) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(b).into_owned(),
    }
}

fn describe_set(st01: &[u8], st02: &[u8]) -> String {
    format!(
        "transaction set {} ({})",
        preview(st02, 20),
        preview(st01, 10)
    )
}

impl<'a, S: Sink> Handler<'a> for Validator<S> {
    fn interchange_start(&mut self, isa: Segment<'a>) {
        self.acks.interchange_start(&isa);
        let v: Vec<Cow<'_, [u8]>> = (1..=16).map(|n| isa_value(&isa, n)).collect();
        let get = |n: usize| &*v[n - 1];
        let trim = |b: &[u8]| text(b).trim_end().to_string();
        self.interchange = Some(InterchangeState {
            summary: InterchangeSummary {
                control_number: text(get(13)),
                sender_qualifier: text(get(5)),
                sender_id: trim(get(6)),
                receiver_qualifier: text(get(7)),
                receiver_id: trim(get(8)),
                date: text(get(9)),
                time: text(get(10)),
                version: text(get(12)),
                ack_requested: text(get(14)),
                usage: text(get(15)),
                delimiters: Some(isa.delimiters()),
                segment_index: Some(isa.index()),
                offset: isa.offset(),
                recovered: false,
                status: Status::Accepted,
                ta1: Ta1Outcome {
                    code: "A",
                    note: "000",
                },
                group_count: 0,
                groups: Vec::new(),
            },
            isa13: get(13).to_vec(),
            gs06_seen: Seen::default(),
            reject: None,
            noted: None,
        });
        self.check_isa(&isa);
        let isa13 = get(13);
        match self
            .isa13_seen
            .insert(isa13, self.options.max_control_numbers)
        {
            Insert::Duplicate => self.report(
                Diagnostic::error(
                    Code::Isa13Duplicate,
                    format!(
                        "interchange control number {} (ISA13) was already used by an earlier interchange in this input; each interchange needs its own number",
                        preview(isa13, 20)
                    ),
                )
                .at_segment(&isa)
                .at_element(13)
                .at_offset(element_offset(&isa, 13))
                .with_ack(AckCodes::ta1("025")),
            ),
            Insert::Full => self.report(limit_warning(
                &isa,
                13,
                "interchange control numbers (ISA13) in this input",
                self.options.max_control_numbers,
            )),
            Insert::New | Insert::Untracked => {}
        }
    }

    fn interchange_segment(&mut self, seg: Segment<'a>) {
        if let Some(ack) = self.acks.interchange_segment(&seg) {
            self.sink.interchange_ack(ack);
        }
    }

    fn group_start(&mut self, gs: Option<Segment<'a>>) {
        let explicit = gs.is_some();
        let (summary, gs06, gs01, version) = match &gs {
            Some(gs) => {
                let v: Vec<&[u8]> = gs.elements().take(8).map(|e| e.raw()).collect();
                let get = |n: usize| v.get(n - 1).copied().unwrap_or(b"");
                (
                    GroupSummary {
                        functional_id: Some(text(get(1))),
                        sender_code: text(get(2)),
                        receiver_code: text(get(3)),
                        control_number: text(get(6)),
                        agency: text(get(7)),
                        version: text(get(8)),
                        segment_index: gs.index(),
                        status: Status::Accepted,
                        ak9: empty_ak9(),
                        transactions: Vec::new(),
                    },
                    get(6).to_vec(),
                    Tag::new(get(1)),
                    get(8).to_vec(),
                )
            }
            None => (
                GroupSummary {
                    functional_id: None,
                    sender_code: String::new(),
                    receiver_code: String::new(),
                    control_number: String::new(),
                    agency: String::new(),
                    version: String::new(),
                    segment_index: 0,
                    status: Status::Accepted,
                    ak9: empty_ak9(),
                    transactions: Vec::new(),
                },
                Vec::new(),
                None,
                Vec::new(),
            ),
        };
        self.group = Some(GroupState {
            summary,
            explicit,
            gs06,
            gs01,
            version,
            st02_seen: std::mem::take(&mut self.spare_st02),
            unsupported: Vec::new(),
            own_error: false,
            received: 0,
            accepted: 0,
            rejected: 0,
        });
        let Some(gs) = gs else { return };
        if let Some(ic) = self.interchange.as_mut() {
            ic.summary.group_count += 1;
        }
        self.check_gs(&gs);
        let gs06 = gs.value(6);
        let cap = self.options.max_control_numbers;
        let inserted = self
            .interchange
            .as_mut()
            .map(|ic| ic.gs06_seen.insert(gs06, cap));
        match inserted {
            Some(Insert::Duplicate) => self.report(
                Diagnostic::error(
                    Code::Gs06Duplicate,
                    format!(
                        "group control number {} (GS06) is already used by an earlier functional group of this interchange; each group needs its own number",
                        preview(gs06, 20)
                    ),
                )
                .at_segment(&gs)
                .at_element(6)
                .at_offset(element_offset(&gs, 6))
                .with_ack(AckCodes::ak9("19")),
            ),
            Some(Insert::Full) => self.report(limit_warning(
                &gs,
                6,
                "group control numbers (GS06) in this interchange",
                cap,
            )),
            _ => {}
        }
    }

    fn group_segment(&mut self, _seg: Segment<'a>) {}

    fn transaction_start(&mut self, st: Segment<'a>) {
        // ST01 to ST03 from one scan of the segment.
        let mut els = [&[][..]; 32];
        let (n, _) = st.split_elements(&mut els, 3);
        let (st01, st02) = (els[0], els[1]);
        let st03 = (n >= 3).then(|| text(els[2]));
        self.acks.transaction_start(&st, st01);
        let [mut st01_copy, mut st02_copy] = std::mem::take(&mut self.spare_copies);
        st01_copy.clear();
        st01_copy.extend_from_slice(st01);
        st02_copy.clear();
        st02_copy.extend_from_slice(st02);
        self.set = Some(SetState {
            summary: SetSummary {
                kind: String::new(),
                control_number: String::new(),
                implementation_reference: st03,
                segment_index: st.index(),
                segment_count: 0,
                status: Status::Accepted,
                ak5: Ak5Outcome {
                    code: "A",
                    errors: Vec::new(),
                },
                segment_errors: Vec::new(),
            },
            st01: st01_copy,
            st02: st02_copy,
            count: 1,
            rejected: false,
        });
        let mut functional_id = None;
        let mut version = Vec::new();
        if let Some(g) = self.group.as_mut() {
            if g.received == 0 && !g.explicit {
                g.summary.segment_index = st.index();
            }
            g.received += 1;
            if !g.explicit {
                // A set outside any group: the parser reported ST_OUTSIDE_GROUP
                // for the first one; every such set carries IK502 18.
                if let Some(s) = self.set.as_mut() {
                    s.rejected = true;
                    push_code(&mut s.summary.ak5.errors, "18");
                }
            } else {
                functional_id = g.gs01;
                if self.rules.is_some() {
                    version = g.version.clone();
                }
            }
        }
        let describe = || describe_set(st01, st02);
        let st01_ok = st01.len() == 3 && check::digits(st01);
        if !st01_ok {
            self.report(
                Diagnostic::error(
                    Code::St01Invalid,
                    format!(
                        "ST01 (transaction set identifier) is \"{}\"; it must be the three-digit type of the set, e.g. 850",
                        preview(st01, 30)
                    ),
                )
                .at_segment(&st)
                .at_element(1)
                .at_offset(element_offset(&st, 1))
                .with_ack(AckCodes::ik5("6")),
            );
        }
        let len = check::chars(st02);
        if !(4..=9).contains(&len) || !check::text(st02) {
            self.report(
                Diagnostic::error(
                    Code::St02Invalid,
                    format!(
                        "ST02 (transaction set control number) is {}; it must be 4 to 9 characters, e.g. 0001",
                        width_text(st02)
                    ),
                )
                .at_segment(&st)
                .at_element(2)
                .at_offset(element_offset(&st, 2))
                .with_ack(AckCodes::ik5("7")),
            );
        }
        let cap = self.options.max_control_numbers;
        let inserted = self
            .group
            .as_mut()
            .filter(|g| g.explicit)
            .map(|g| g.st02_seen.insert(st02, cap));
        match inserted {
            Some(Insert::Duplicate) => self.report(
                Diagnostic::error(
                    Code::St02Duplicate,
                    format!(
                        "{} uses control number {} (ST02), which an earlier transaction set of this functional group already uses; each set in a group needs its own number",
                        describe(),
                        preview(st02, 20)
                    ),
                )
                .at_segment(&st)
                .at_element(2)
                .at_offset(element_offset(&st, 2))
                .with_ack(AckCodes::ik5("23")),
            ),
            Some(Insert::Full) => self.report(limit_warning(
                &st,
                2,
                "transaction set control numbers (ST02) in this group",
                cap,
            )),
            _ => {}
        }
        if st01_ok {
            let known = crate::sets::set_type(st01);
            if let (Some(t), Some(gs01)) = (known, functional_id) {
                let gs01 = &gs01.bytes[..gs01.len as usize];
                if codes::one_of_sorted(codes::FUNCTIONAL_IDS, gs01)
                    && t.functional_id.as_bytes() != gs01
                {
                    self.report(
                        Diagnostic::error(
                            Code::Gs01Mismatch,
                            format!(
                                "{} is a {} ({}), which belongs in a functional group with GS01 {}, but its group has GS01 {}; put it in a separate {} group",
                                describe(),
                                t.code,
                                t.name,
                                t.functional_id,
                                preview(gs01, 10),
                                t.functional_id
                            ),
                        )
                        .at_segment(&st)
                        .at_element(1)
                        .at_offset(element_offset(&st, 1))
                        .with_ack(AckCodes::ik5("6")),
                    );
                }
            }
            if !crate::sets::is_supported(st01) {
                let tag = Tag::new(st01).unwrap_or_default();
                let first = self.group.as_mut().is_none_or(|g| {
                    let first = !g.unsupported.contains(&tag);
                    if first {
                        g.unsupported.push(tag);
                    }
                    first
                });
                if first {
                    let name = known.map_or(String::new(), |t| format!(" ({})", t.name));
                    self.report(
                        Diagnostic::warning(
                            Code::St01Unsupported,
                            format!(
                                "{} is of type {}{name}, which x12kit has no definition for, so only its envelope was checked (other {} sets of this group are not reported again)",
                                describe(),
                                preview(st01, 10),
                                preview(st01, 10),
                            ),
                        )
                        .at_segment(&st)
                        .at_element(1)
                        .at_offset(element_offset(&st, 1)),
                    );
                }
            }
        }
        if let Some(rules) = self.rules.as_mut() {
            rules.start(
                &st,
                functional_id.as_ref().map(|t| &t.bytes[..t.len as usize]),
                &version,
            );
        }
    }

    #[inline]
    fn segment(&mut self, seg: Segment<'a>) {
        self.acks.segment(&seg);
        let Some(set) = self.set.as_mut() else { return };
        set.count += 1;
        if let Some(rules) = self.rules.as_mut() {
            let position = set.count as u64;
            let mut out = std::mem::take(&mut self.scratch);
            rules.segment(&seg, position, &mut out);
            for d in out.drain(..) {
                self.report(d);
            }
            self.scratch = out;
        }
    }

    fn transaction_end(&mut self, se: Option<Segment<'a>>) {
        if let Some(ack) = self.acks.transaction_end() {
            self.sink.group_ack(ack);
        }
        if let Some(rules) = self.rules.as_mut() {
            let mut out = std::mem::take(&mut self.scratch);
            rules.end(se.as_ref(), &mut out);
            for d in out.drain(..) {
                self.report(d);
            }
            self.scratch = out;
        }
        let bad = match (&se, self.set.as_ref()) {
            (Some(se), Some(set)) => {
                let mut els = [&[][..]; 32];
                se.split_elements(&mut els, 2);
                let se01 = els[0];
                let count_ok =
                    check::number(se01) == Some(set.count as u64 + 1) && se01.len() <= 10;
                !count_ok || els[1] != set.st02.as_slice()
            }
            _ => false,
        };
        if let (true, Some(se), Some(set)) = (bad, &se, self.set.as_ref()) {
            let count = set.count + 1;
            let describe = describe_set(&set.st01, &set.st02);
            let se01 = se.value(1);
            let ok = check::number(se01) == Some(count as u64) && se01.len() <= 10;
            let st02 = set.st02.clone();
            if !ok {
                let said = if check::digits(se01) {
                    format!("SE01 says {} segments", preview(se01, 20))
                } else {
                    format!(
                        "SE01 is \"{}\", not a number of segments",
                        preview(se01, 20)
                    )
                };
                self.report(
                    Diagnostic::error(
                        Code::Se01Count,
                        format!(
                            "{said} but the {describe} has {count} (ST through SE, both included)"
                        ),
                    )
                    .at_segment(se)
                    .at_element(1)
                    .at_offset(element_offset(se, 1))
                    .with_ack(AckCodes::ik5("4")),
                );
            }
            let se02 = se.value(2);
            if se02 != st02.as_slice() {
                self.report(
                    Diagnostic::error(
                        Code::Se02Control,
                        format!(
                            "SE02 (control number) is \"{}\" but the {describe} starts with ST02 \"{}\"; they must be equal",
                            preview(se02, 20),
                            preview(&st02, 20)
                        ),
                    )
                    .at_segment(se)
                    .at_element(2)
                    .at_offset(element_offset(se, 2))
                    .with_ack(AckCodes::ik5("3")),
                );
            }
        }
        let Some(mut set) = self.set.take() else {
            return;
        };
        set.summary.segment_count = set.count + usize::from(se.is_some());
        // Segment errors with no set code of their own are `5`; a guide's
        // findings say `I5` (and a standard finding `5`) themselves.
        if !set.summary.segment_errors.is_empty() && !set.summary.ak5.errors.contains(&"I5") {
            push_code(&mut set.summary.ak5.errors, "5");
        }
        sort_codes(&mut set.summary.ak5.errors);
        set.summary.status = if set.rejected {
            Status::Rejected
        } else {
            Status::Accepted
        };
        set.summary.ak5.code = set.summary.status.code();
        let accepted = set.summary.status == Status::Accepted;
        let keep = match self.options.retain {
            Retain::All => true,
            Retain::Errors => !accepted,
            Retain::Counts => false,
        };
        let report = !accepted || self.sink.accepted_sets();
        if keep || report {
            set.summary.kind = text(&set.st01);
            set.summary.control_number = text(&set.st02);
        }
        self.spare_copies = [std::mem::take(&mut set.st01), std::mem::take(&mut set.st02)];
        if report {
            self.sink.transaction(&set.summary);
        }
        if let Some(g) = self.group.as_mut() {
            // A set is accepted or rejected: only errors count, and every
            // error rejects it (AK501 `E` is not used).
            if set.summary.status == Status::Rejected {
                g.rejected += 1;
            } else {
                g.accepted += 1;
            }
            if keep {
                g.summary.transactions.push(set.summary);
            }
        }
    }

    fn group_end(&mut self, ge: Option<Segment<'a>>) {
        if let (Some(ge), Some(g)) = (&ge, self.group.as_ref()) {
            let received = g.received;
            let gs06 = g.gs06.clone();
            let ge01 = ge.value(1);
            if check::number(ge01) != Some(received) || ge01.len() > 6 {
                let said = if check::digits(ge01) {
                    format!("GE01 says {} transaction sets", preview(ge01, 20))
                } else {
                    format!(
                        "GE01 is \"{}\", not a number of transaction sets",
                        preview(ge01, 20)
                    )
                };
                self.report(
                    Diagnostic::error(
                        Code::Ge01Count,
                        format!(
                            "{said} but functional group {} has {received}",
                            preview(&gs06, 20)
                        ),
                    )
                    .at_segment(ge)
                    .at_element(1)
                    .at_offset(element_offset(ge, 1))
                    .with_ack(AckCodes::ak9("5")),
                );
            }
            let ge02 = ge.value(2);
            if ge02 != gs06.as_slice() {
                self.report(
                    Diagnostic::error(
                        Code::Ge02Control,
                        format!(
                            "GE02 (group control number) is \"{}\" but the functional group starts with GS06 \"{}\"; they must be equal",
                            preview(ge02, 20),
                            preview(&gs06, 20)
                        ),
                    )
                    .at_segment(ge)
                    .at_element(2)
                    .at_offset(element_offset(ge, 2))
                    .with_ack(AckCodes::ak9("4")),
                );
            }
        }
        let Some(mut g) = self.group.take() else {
            return;
        };
        self.spare_st02 = std::mem::take(&mut g.st02_seen).cleared();
        let included = ge
            .as_ref()
            .and_then(|ge| check::number(ge.value(1)))
            .filter(|&n| n <= 999_999)
            .unwrap_or(g.received);
        g.summary.status = if g.own_error || (g.received > 0 && g.accepted == 0) {
            Status::Rejected
        } else if g.rejected > 0 {
            Status::PartiallyAccepted
        } else {
            Status::Accepted
        };
        sort_codes(&mut g.summary.ak9.errors);
        g.summary.ak9.code = g.summary.status.code();
        g.summary.ak9.included = included;
        g.summary.ak9.received = g.received;
        g.summary.ak9.accepted = g.accepted;
        self.sink.group(&g.summary);
        if let Some(ic) = self.interchange.as_mut() {
            if self.options.retain != Retain::Counts {
                ic.summary.groups.push(g.summary);
            }
        }
    }

    fn interchange_end(&mut self, iea: Option<Segment<'a>>) {
        if let (Some(iea), Some(ic)) = (&iea, self.interchange.as_ref()) {
            let groups = ic.summary.group_count;
            let isa13 = ic.isa13.clone();
            let iea01 = iea.value(1);
            if check::number(iea01) != Some(groups as u64) || iea01.len() > 5 {
                let said = if check::digits(iea01) {
                    format!("IEA01 says {} functional groups", preview(iea01, 20))
                } else {
                    format!(
                        "IEA01 is \"{}\", not a number of functional groups",
                        preview(iea01, 20)
                    )
                };
                self.report(
                    Diagnostic::error(
                        Code::Iea01Count,
                        format!(
                            "{said} but interchange {} has {groups} (GS through GE)",
                            preview(&isa13, 20)
                        ),
                    )
                    .at_segment(iea)
                    .at_element(1)
                    .at_offset(element_offset(iea, 1))
                    .with_ack(AckCodes::ta1("021")),
                );
            }
            let iea02 = iea.value(2);
            if iea02 != isa13.as_slice() {
                self.report(
                    Diagnostic::error(
                        Code::Iea02Control,
                        format!(
                            "IEA02 (interchange control number) is \"{}\" but the interchange starts with ISA13 \"{}\"; they must be equal",
                            preview(iea02, 20),
                            preview(&isa13, 20)
                        ),
                    )
                    .at_segment(iea)
                    .at_element(2)
                    .at_offset(element_offset(iea, 2))
                    .with_ack(AckCodes::ta1("001")),
                );
            }
        }
        let Some(mut ic) = self.interchange.take() else {
            return;
        };
        let (status, note) = match (ic.reject, ic.noted) {
            (Some(n), _) => (Status::Rejected, n),
            (None, Some(n)) => (Status::AcceptedWithErrors, n),
            (None, None) => (Status::Accepted, "000"),
        };
        ic.summary.status = status;
        ic.summary.ta1 = Ta1Outcome {
            code: status.code(),
            note,
        };
        self.sink.interchange(ic.summary);
    }

    fn diagnostic(&mut self, d: Diagnostic) {
        self.parser_diagnostic(d);
    }
}

fn empty_ak9() -> Ak9Outcome {
    Ak9Outcome {
        code: "A",
        included: 0,
        received: 0,
        accepted: 0,
        errors: Vec::new(),
    }
}

fn limit_warning(seg: &Segment<'_>, element: usize, what: &str, cap: usize) -> Diagnostic {
    Diagnostic::warning(
        Code::DuplicateCheckLimit,
        format!(
            "more than {cap} {what}: later ones are not checked for duplicates (raise Options::max_control_numbers to check more)"
        ),
    )
    .at_segment(seg)
    .at_element(element as u32)
    .at_offset(element_offset(seg, element))
}

#[cfg(test)]
mod tests {
    use super::{Insert, Seen};
    use proptest::prelude::*;

    /// The reference: a plain set of every number, `cap` of them at most.
    fn reference(values: &[Vec<u8>], cap: usize) -> Vec<&'static str> {
        let mut seen = std::collections::HashSet::new();
        let mut full = false;
        values
            .iter()
            .map(|v| {
                if v.len() > 15 {
                    "untracked"
                } else if seen.contains(v) {
                    "duplicate"
                } else if seen.len() < cap {
                    seen.insert(v.clone());
                    "new"
                } else if full {
                    "untracked"
                } else {
                    full = true;
                    "full"
                }
            })
            .collect()
    }

    fn run(seen: &mut Seen, values: &[Vec<u8>], cap: usize) -> Vec<&'static str> {
        values
            .iter()
            .map(|v| match seen.insert(v, cap) {
                Insert::New => "new",
                Insert::Duplicate => "duplicate",
                Insert::Full => "full",
                Insert::Untracked => "untracked",
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

        /// Rising runs (the usual numbering), repeats, numbers out of order,
        /// numbers too long to track and a cap: the same answers as a plain
        /// set, also for a table reused after `cleared`.
        #[test]
        fn seen_answers_as_a_plain_set(
            steps in prop::collection::vec((0u8..6, 0u16..40), 0..120),
            cap in 1usize..60,
        ) {
            let mut values = Vec::new();
            let mut next = 0u16;
            for (k, v) in steps {
                let value = match k {
                    0..=2 => { next += 1; format!("{next:04}").into_bytes() }
                    3 => format!("{v:04}").into_bytes(),
                    4 => format!("{v}").into_bytes(),
                    _ => vec![b'9'; 16 + usize::from(v % 3)],
                };
                values.push(value);
            }
            let want = reference(&values, cap);
            let mut seen = Seen::default();
            prop_assert_eq!(&run(&mut seen, &values, cap), &want);
            let mut seen = seen.cleared();
            prop_assert_eq!(&run(&mut seen, &values, cap), &want);
        }
    }
}
