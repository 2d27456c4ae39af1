//! Parsing an input one transaction set at a time, so that what is held
//! follows the largest set rather than the largest interchange.
//!
//! [`parse_sets`] runs the envelope machine over a whole input (a buffer
//! or a mapped file) and hands each interchange to a [`SetHandler`] in the
//! order a writer needs it: the interchange opens with its [`Outline`]
//! (the ISA, every segment directly inside it and each group's header,
//! misplaced segments and trailer: what a writer puts before or around the
//! sets), then each group opens, its sets come one at a time, complete,
//! and it closes, then the interchange closes.
//!
//! An interchange is held whole (as [`parse`](crate::parse()) would
//! build it) while it is small: up to `hold` body segments. One that grows
//! past that is outlined: a copy of the tokenizer and envelope machine
//! reads ahead to the interchange's end collecting only the envelope
//! (segments outside sets), the sets held so far are handed over, and from
//! then on each set is handed over as soon as it closes and dropped. Small
//! interchanges thus cost one pass over their bytes, large ones at most two,
//! and memory is bounded by `hold` body segments plus the largest set plus
//! the outline (one entry per group and per segment outside a set).

use crate::diagnostics::Diagnostic;
use crate::envelope::{Document, Envelope, Group, Handler, Interchange, SetCap, Transaction};
use crate::lexer::{Token, Tokenizer};
use crate::segment::Segment;
use crate::utf8::Utf8Check;

/// Body segments an interchange may have before it is outlined and streamed
/// set by set (16 bytes each while held: 1 MiB): a default for
/// [`parse_sets`]'s `hold`.
pub const HOLD: usize = 1 << 16;

/// What surrounds the sets of an interchange, complete before any of them
/// is handed over.
#[derive(Debug, Clone)]
pub struct Outline<'a> {
    /// The interchange without sets: its ISA, every segment directly inside
    /// it (those after its groups and after its IEA included), each group's
    /// GS, misplaced segments and GE, and the IEA. `transactions` of its
    /// groups are empty.
    pub interchange: Interchange<'a>,
    /// Index of each group's first segment (its GS, or for the implicit
    /// group of sets outside a GS its first ST).
    pub starts: Vec<usize>,
}

/// Receives the interchanges of [`parse_sets`], a set at a time. Every
/// method has an empty default.
#[allow(unused_variables)]
pub trait SetHandler<'a> {
    /// An interchange opens.
    fn interchange(&mut self, outline: &Outline<'a>) {}
    /// Group `n` of the outline opens.
    fn group(&mut self, outline: &Outline<'a>, n: usize) {}
    /// One complete set of the group open: its body is `doc.body(tx)`;
    /// `group` has the group's GS. `upto`: the input before it will not be
    /// read again by the parse.
    fn transaction(
        &mut self,
        doc: &Document<'a>,
        group: &Group<'a>,
        tx: &Transaction<'a>,
        upto: usize,
    ) {
    }
    /// Group `n` of the outline closes.
    fn group_end(&mut self, outline: &Outline<'a>, n: usize) {}
    /// The interchange closes (at the next ISA or the end of the input,
    /// after the segments that follow its IEA). `upto` as above.
    fn interchange_end(&mut self, outline: &Outline<'a>, upto: usize) {}
    /// The read-ahead of an interchange's envelope went through
    /// `input[from..to]` (a few MiB at a time), which the parse reads again
    /// later: a caller that maps a file may drop those pages now (they are
    /// loaded again when read), so that reading ahead does not hold them.
    fn read_ahead(&mut self, from: usize, to: usize) {}
}

/// The read-ahead reports its progress ([`SetHandler::read_ahead`]) this often.
const AHEAD_EVERY: usize = 4 << 20;

/// Parses a whole input like [`parse`](crate::parse()), handing each
/// transaction set to `h` as described in the [module](self) docs, holding
/// at most `hold` body segments of an interchange before streaming it (0:
/// every interchange streamed; [`HOLD`]: the default). Segment indexes
/// and offsets are those of the whole input. Returns what [`parse`](crate::parse())
/// gives besides the interchanges: every diagnostic (in the same order),
/// `prefix` and `unterminated`. Sets are capped at `cap` ([`SetCap`]): a
/// larger one is handed over with no body, after its `SET_TOO_LARGE`.
pub fn parse_sets<'a, H: SetHandler<'a>>(
    input: &'a [u8],
    hold: usize,
    cap: SetCap,
    h: &mut H,
) -> Document<'a> {
    let mut s = Sets {
        doc: Document::capped(input, cap),
        h,
        outline: None,
        current: None,
        group: 0,
        group_open: false,
        utf8: Utf8Check::default(),
        checked: 0,
        first: true,
    };
    let mut env = Envelope::new();
    let mut tokens = Tokenizer::new(input);
    loop {
        if env.in_transaction() {
            let d = &mut s.doc;
            if tokens.body_run(|start, end| d.push_body(start, end)) > 0 {
                d.unterminated = false;
            }
        }
        if s.outline.is_none() && s.doc.body.len() > hold {
            s.outline_rest(&tokens, &env);
        }
        let Some(token) = tokens.next() else { break };
        if let Token::Segment(seg) = &token {
            s.doc.unterminated = !seg.terminated();
        }
        env.push(token, &mut s);
    }
    env.finish(input.len(), &mut s);
    s.close(input.len());
    let mut doc = s.doc;
    doc.diagnostics.extend(s.utf8.finish());
    doc
}

struct Sets<'a, 'h, H> {
    /// Diagnostics, prefix, unterminated; while an interchange is held, its
    /// tree; while one is streamed, the body of its open set.
    doc: Document<'a>,
    h: &'h mut H,
    /// The outline of the interchange being streamed (`None`: held).
    outline: Option<Outline<'a>>,
    /// The open set of a streamed interchange (its body: all of `doc.body`).
    current: Option<Transaction<'a>>,
    /// The open group of a streamed interchange (index into the outline).
    group: usize,
    /// A group is open (held or streamed).
    group_open: bool,
    utf8: Utf8Check,
    /// The input before this offset went through `utf8`.
    checked: usize,
    first: bool,
}

impl<'a, H: SetHandler<'a>> Sets<'a, '_, H> {
    /// Closes the interchange held or streamed, if any: the input before
    /// `upto` is done.
    fn close(&mut self, upto: usize) {
        self.check_utf8(upto);
        if let Some(outline) = self.outline.take() {
            self.h.interchange_end(&outline, upto);
            self.doc.body.clear();
            self.current = None;
            return;
        }
        let Some(i) = self.doc.interchanges.pop() else {
            return;
        };
        let outline = Outline {
            starts: i.groups.iter().map(group_start).collect(),
            interchange: i,
        };
        self.h.interchange(&outline);
        for (n, g) in outline.interchange.groups.iter().enumerate() {
            self.h.group(&outline, n);
            for t in &g.transactions {
                self.h.transaction(&self.doc, g, t, t.st.offset());
            }
            self.h.group_end(&outline, n);
        }
        self.h.interchange_end(&outline, upto);
        self.doc.interchanges.push(outline.interchange);
        self.doc.recycle_interchanges();
        self.doc.body.clear();
    }

    /// Checks the UTF-8 of the input up to `upto` (in order, once).
    fn check_utf8(&mut self, upto: usize) {
        if upto > self.checked {
            let input = self.doc.input;
            self.utf8.feed(&input[self.checked..upto]);
            self.checked = upto;
        }
    }

    /// The held interchange has grown past `hold`: reads the rest of its
    /// envelope ahead (from copies of the machine and the tokenizer), hands
    /// over what is held and streams the rest.
    fn outline_rest(&mut self, tokens: &Tokenizer<'a>, env: &Envelope) {
        let Some(i) = self.doc.interchanges.last() else {
            return;
        };
        let mut ahead = Ahead {
            outline: Outline {
                interchange: i.envelope_only(),
                starts: i.groups.iter().map(group_start).collect(),
            },
            pending_start: false,
            done: false,
        };
        let (mut read, mut machine) = (tokens.clone(), env.clone());
        let mut from = None;
        let mut last = 0;
        loop {
            if machine.in_transaction() {
                read.body_run(|start, end| {
                    from.get_or_insert(start);
                    last = end;
                });
            }
            let Some(token) = read.next() else { break };
            if let Token::Segment(seg) = &token {
                from.get_or_insert(seg.offset());
                last = seg.offset();
            }
            machine.push(token, &mut ahead);
            if ahead.done {
                break;
            }
            if let Some(f) = from {
                if last >= f + AHEAD_EVERY {
                    self.h.read_ahead(f, last);
                    from = Some(last);
                }
            }
        }
        if !ahead.done {
            machine.finish(self.doc.input.len(), &mut ahead);
        }
        if let Some(f) = from {
            self.h.read_ahead(f, last);
        }
        let outline = ahead.outline;
        // Hand over what is held: every complete set; the open one (the
        // last, when a set is open) is kept and streamed.
        let mut i = self.doc.interchanges.pop().expect("an interchange is held");
        let open = if env.in_transaction() {
            i.groups.last_mut().and_then(|g| g.transactions.pop())
        } else {
            None
        };
        self.h.interchange(&outline);
        let last = i.groups.len().saturating_sub(1);
        for (n, g) in i.groups.iter().enumerate() {
            self.h.group(&outline, n);
            for t in &g.transactions {
                self.h.transaction(&self.doc, g, t, t.st.offset());
            }
            if n < last || !self.group_open {
                self.h.group_end(&outline, n);
            }
        }
        self.group = last;
        if let Some(mut t) = open {
            let start = t.body.start;
            self.doc.body.drain(..start);
            t.body = 0..0;
            self.doc.rebase_set(0);
            self.current = Some(t);
        } else {
            self.doc.body.clear();
        }
        self.doc.interchanges.push(i);
        self.doc.recycle_interchanges();
        self.outline = Some(outline);
    }
}

/// Index of a group's first segment (its GS, or the first ST of an implicit group).
fn group_start(g: &Group<'_>) -> usize {
    match (&g.gs, g.transactions.first()) {
        (Some(gs), _) => gs.index(),
        (None, Some(t)) => t.st.index(),
        (None, None) => usize::MAX,
    }
}

/// Collects the rest of an interchange's envelope ahead of the parse.
struct Ahead<'a> {
    outline: Outline<'a>,
    /// An implicit group opened: its start is its first ST.
    pending_start: bool,
    /// The next interchange opened.
    done: bool,
}

impl<'a> Handler<'a> for Ahead<'a> {
    fn interchange_start(&mut self, _isa: Segment<'a>) {
        self.done = true;
    }
    fn interchange_segment(&mut self, seg: Segment<'a>) {
        self.outline.interchange.segments.push(seg);
    }
    fn group_start(&mut self, gs: Option<Segment<'a>>) {
        self.pending_start = gs.is_none();
        self.outline
            .starts
            .push(gs.map_or(usize::MAX, |s| s.index()));
        self.outline.interchange.groups.push(Group {
            gs,
            segments: Vec::new(),
            transactions: Vec::new(),
            ge: None,
        });
    }
    fn group_segment(&mut self, seg: Segment<'a>) {
        if let Some(g) = self.outline.interchange.groups.last_mut() {
            g.segments.push(seg);
        }
    }
    fn transaction_start(&mut self, st: Segment<'a>) {
        if self.pending_start {
            self.pending_start = false;
            if let Some(s) = self.outline.starts.last_mut() {
                *s = st.index();
            }
        }
    }
    fn group_end(&mut self, ge: Option<Segment<'a>>) {
        if let Some(g) = self.outline.interchange.groups.last_mut() {
            g.ge = ge;
        }
    }
    fn interchange_end(&mut self, iea: Option<Segment<'a>>) {
        self.outline.interchange.iea = iea;
    }
}

impl<'a, H: SetHandler<'a>> Handler<'a> for Sets<'a, '_, H> {
    fn interchange_start(&mut self, isa: Segment<'a>) {
        if self.first {
            self.first = false;
            self.doc.prefix = crate::envelope::prefix(self.doc.input, isa.offset());
        }
        self.close(isa.offset());
        self.group_open = false;
        self.doc.interchange_start(isa);
    }
    fn interchange_segment(&mut self, seg: Segment<'a>) {
        if self.outline.is_none() {
            self.doc.interchange_segment(seg);
        }
    }
    fn group_start(&mut self, gs: Option<Segment<'a>>) {
        self.group_open = true;
        match &self.outline {
            None => self.doc.group_start(gs),
            Some(o) => {
                self.group += 1;
                self.h.group(o, self.group);
            }
        }
    }
    fn group_segment(&mut self, seg: Segment<'a>) {
        if self.outline.is_none() {
            self.doc.group_segment(seg);
        }
    }
    fn transaction_start(&mut self, st: Segment<'a>) {
        if self.outline.is_none() {
            self.doc.transaction_start(st);
        } else {
            self.doc.body.clear();
            self.doc.open_set(&st);
            self.current = Some(Transaction {
                kind: st.value(1),
                st,
                se: None,
                body: 0..0,
                over: false,
            });
        }
    }
    #[inline]
    fn segment(&mut self, seg: Segment<'a>) {
        self.doc.segment(seg);
    }
    fn transaction_end(&mut self, se: Option<Segment<'a>>) {
        let Some(o) = &self.outline else {
            self.doc.transaction_end(se);
            return;
        };
        let over = self.doc.close_set();
        if let Some(mut t) = self.current.take() {
            t.se = se;
            t.over = over;
            t.body.end = self.doc.body.len();
            let upto = match (&se, self.doc.body.last()) {
                (Some(s), _) => s.offset(),
                (None, Some(b)) => b.end,
                (None, None) => t.st.offset(),
            };
            // Checked while the set's input is at hand, not at the end of
            // the interchange (which would read all of it again).
            let input = self.doc.input;
            if upto > self.checked {
                self.utf8.feed(&input[self.checked..upto]);
                self.checked = upto;
            }
            let g = &o.interchange.groups[self.group];
            self.h.transaction(&self.doc, g, &t, upto);
            self.doc.body.clear();
        }
    }
    fn group_end(&mut self, ge: Option<Segment<'a>>) {
        self.group_open = false;
        match &self.outline {
            None => self.doc.group_end(ge),
            Some(o) => self.h.group_end(o, self.group),
        }
    }
    fn interchange_end(&mut self, iea: Option<Segment<'a>>) {
        if self.outline.is_none() {
            self.doc.interchange_end(iea);
        }
    }
    fn diagnostic(&mut self, d: Diagnostic) {
        self.doc.diagnostics.push(d);
    }
}

/// Complete sets of one group copied out of a [`SetHandler`] (their body
/// ranges, 16 bytes a segment), to be written elsewhere, for example on
/// another thread: a [`Document`] of one interchange with one group
/// holding them.
#[derive(Debug, Clone)]
pub struct Batch<'a> {
    doc: Document<'a>,
}

impl<'a> Batch<'a> {
    /// An empty batch of sets of the group whose GS is `gs`, in the
    /// interchange whose ISA is `isa`.
    pub fn new(input: &'a [u8], isa: Segment<'a>, gs: Option<Segment<'a>>) -> Self {
        Batch {
            doc: Document {
                input,
                interchanges: vec![Interchange {
                    isa,
                    segments: Vec::new(),
                    groups: vec![Group {
                        gs,
                        segments: Vec::new(),
                        transactions: Vec::new(),
                        ge: None,
                    }],
                    iea: None,
                }],
                ..Document::default()
            },
        }
    }

    /// Copies a set (its body: `doc.body(tx)`) in.
    pub fn push(&mut self, doc: &Document<'a>, tx: &Transaction<'a>) {
        let start = self.doc.body.len();
        self.doc.body.extend_from_slice(&doc.body[tx.body.clone()]);
        let mut t = tx.clone();
        t.body = start..self.doc.body.len();
        self.doc.interchanges[0].groups[0].transactions.push(t);
    }

    /// How many body segments the batch holds.
    pub fn segments(&self) -> usize {
        self.doc.body.len()
    }

    /// The sets, with the document their bodies are read from
    /// ([`Document::body`]) and their group.
    pub fn parts(&self) -> (&Document<'a>, &Group<'a>, &[Transaction<'a>]) {
        let g = &self.doc.interchanges[0].groups[0];
        (&self.doc, g, &g.transactions)
    }
}
