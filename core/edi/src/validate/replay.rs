//! Replaying a parsed [`Document`] as the [`Handler`] events (diagnostics
//! included) that the envelope machine produced while parsing it, in the
//! same order, so that the streaming validator also runs over a document
//! without tokenizing the input again.
//!
//! Structure events come from the tree in segment order. The parser's
//! diagnostics are put back where they were emitted: the trailer diagnostics
//! (`SE_MISSING`, `GE_MISSING`, `IEA_MISSING`) and `ST_OUTSIDE_GROUP` right
//! before the event they precede (the end of the set, group or interchange,
//! the start of the implicit group); the ones about a segment the tokenizer
//! reported (`SEGMENT_ID`, `TERMINATOR_MISSING`, ISA warnings) right after
//! it; `UNEXPECTED_SEGMENT` right before its segment; the others before the
//! first segment at or after their byte offset; `INVALID_UTF8`, which `parse`
//! appends after the rest, at the end. Because the diagnostics are
//! kept in emission order, this reproduces the original event stream (the
//! corpus test checks it file by file).

use x12kit_syntax::diagnostics::{Code, Diagnostic, Severity};
use x12kit_syntax::envelope::{Document, Group, Handler};
use x12kit_syntax::segment::Segment;

/// A handler that can also skip transaction set bodies during a replay.
pub(crate) trait Replay<'a>: Handler<'a> {
    /// False when the handler only needs how many body segments each set has.
    fn wants_body(&self) -> bool {
        true
    }
    /// The number of body segments of the current set, when bodies are skipped.
    fn body_count(&mut self, _n: usize) {}
    /// An interchange whose ISA could not be parsed: `bytes` start at it.
    fn unreadable_isa(&mut self, _bytes: &[u8], _d: &Diagnostic) {}
}

/// Where a diagnostic goes back into the event stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    /// Right before the event that closes a set, group or interchange
    /// without its trailer, or opens an implicit group.
    Closing(Code),
    /// Before the handler call of segment `n`.
    Before(usize),
    /// After the handler call of segment `n`.
    After(usize),
    /// Before the first segment at or after this byte offset.
    Offset(usize),
    /// At the end.
    End,
}

fn trigger(d: &Diagnostic) -> Trigger {
    match (d.code, d.segment_index, d.offset) {
        (Code::SeMissing | Code::GeMissing | Code::IeaMissing | Code::StOutsideGroup, ..) => {
            Trigger::Closing(d.code)
        }
        (Code::UnexpectedSegment, Some(i), _) => Trigger::Before(i),
        (_, Some(i), _) => Trigger::After(i),
        (_, None, Some(o)) => Trigger::Offset(o),
        (_, None, None) => Trigger::End,
    }
}

struct Queue<'d, 'a> {
    input: &'a [u8],
    /// Diagnostics in emission order (all but INVALID_UTF8).
    main: Vec<(&'d Diagnostic, Trigger)>,
    next: usize,
    /// INVALID_UTF8 warnings: `parse` appends them after the rest, and so does the replay.
    utf8: Vec<&'d Diagnostic>,
    next_utf8: usize,
}

impl<'d, 'a> Queue<'d, 'a> {
    fn new(doc: &'d Document<'a>) -> Self {
        let mut main = Vec::with_capacity(doc.diagnostics.len());
        let mut utf8 = Vec::new();
        for d in &doc.diagnostics {
            if d.code == Code::InvalidUtf8 {
                utf8.push(d);
            } else {
                main.push((d, trigger(d)));
            }
        }
        Queue {
            input: doc.input(),
            main,
            next: 0,
            utf8,
            next_utf8: 0,
        }
    }

    fn emit<H: Replay<'a>>(&mut self, d: &Diagnostic, h: &mut H) {
        if matches!(d.code, Code::Delimiters | Code::IsaLayout) && d.severity == Severity::Error {
            if let Some(o) = d.offset.filter(|&o| o < self.input.len()) {
                h.diagnostic(d.clone());
                h.unreadable_isa(&self.input[o..], d);
                return;
            }
        }
        h.diagnostic(d.clone());
    }

    /// Emits the queued diagnostics, in order, while `due` says so.
    #[inline]
    fn emit_while<H: Replay<'a>>(&mut self, h: &mut H, due: impl Fn(Trigger) -> bool) {
        while let Some(&(d, t)) = self.main.get(self.next) {
            if !due(t) {
                break;
            }
            self.next += 1;
            self.emit(d, h);
        }
    }

    /// Emits the queued diagnostics whose trigger comes before `seg`'s handler call.
    fn before<H: Replay<'a>>(&mut self, seg: &Segment<'a>, h: &mut H) {
        self.emit_while(h, |t| match t {
            Trigger::Before(i) => i <= seg.index(),
            Trigger::After(i) => i < seg.index(),
            Trigger::Offset(o) => o <= seg.offset(),
            Trigger::Closing(_) | Trigger::End => false,
        });
    }

    /// Emits the queued diagnostics due right after `seg`'s handler call.
    fn after<H: Replay<'a>>(&mut self, seg: &Segment<'a>, h: &mut H) {
        self.emit_while(h, |t| match t {
            Trigger::Before(i) | Trigger::After(i) => i <= seg.index(),
            Trigger::Offset(o) => o <= seg.offset(),
            Trigger::Closing(_) | Trigger::End => false,
        });
    }

    /// Emits what precedes a closing event of kind `code`, then its diagnostic.
    fn closing<H: Replay<'a>>(&mut self, code: Code, h: &mut H) {
        while let Some(&(d, t)) = self.main.get(self.next) {
            match t {
                Trigger::Closing(c) if c == code => {
                    self.next += 1;
                    self.emit(d, h);
                    return;
                }
                // Another closing diagnostic first: the tree and the
                // diagnostics disagree; leave it for its own event.
                Trigger::Closing(_) | Trigger::End => return,
                _ => {
                    self.next += 1;
                    self.emit(d, h);
                }
            }
        }
    }

    fn rest<H: Replay<'a>>(&mut self, h: &mut H) {
        while let Some(&(d, _)) = self.main.get(self.next) {
            self.next += 1;
            self.emit(d, h);
        }
        while let Some(d) = self.utf8.get(self.next_utf8) {
            self.next_utf8 += 1;
            h.diagnostic((*d).clone());
        }
    }
}

/// Index of a group's first segment.
fn group_first(g: &Group<'_>) -> usize {
    match (&g.gs, g.transactions.first(), g.segments.first()) {
        (Some(gs), ..) => gs.index(),
        (None, Some(t), _) => t.st.index(),
        (None, None, Some(s)) => s.index(),
        (None, None, None) => usize::MAX,
    }
}

/// A misplaced segment directly inside a group or an interchange.
fn seg_event<'a, H: Replay<'a>>(q: &mut Queue<'_, 'a>, seg: Segment<'a>, h: &mut H, group: bool) {
    q.before(&seg, h);
    if group {
        h.group_segment(seg);
    } else {
        h.interchange_segment(seg);
    }
    q.after(&seg, h);
}

/// Calls `h` with the events the envelope machine produced for `doc`.
/// The end of a set, group or interchange: its trailer's events around
/// `end`, or, without a trailer, the diagnostic of the missing one
/// (`missing`, where one is reported) before `end`.
fn close<'a, H: Replay<'a>>(
    q: &mut Queue<'_, 'a>,
    h: &mut H,
    trailer: Option<Segment<'a>>,
    missing: Option<Code>,
    end: fn(&mut H, Option<Segment<'a>>),
) {
    match trailer {
        Some(t) => {
            q.before(&t, h);
            end(h, Some(t));
            q.after(&t, h);
        }
        None => {
            if let Some(code) = missing {
                q.closing(code, h);
            }
            end(h, None);
        }
    }
}

pub(crate) fn replay<'a, H: Replay<'a>>(doc: &Document<'a>, h: &mut H) {
    let mut q = Queue::new(doc);
    let bodies = h.wants_body();
    for ic in &doc.interchanges {
        q.before(&ic.isa, h);
        h.interchange_start(ic.isa);
        q.after(&ic.isa, h);
        let end = ic.iea.map_or(usize::MAX, |s| s.index());
        let mut segs = ic.segments.iter().copied().peekable();
        for g in &ic.groups {
            let first = group_first(g);
            while let Some(s) = segs.next_if(|s| s.index() < first) {
                seg_event(&mut q, s, h, false);
            }
            match g.gs {
                Some(gs) => {
                    q.before(&gs, h);
                    h.group_start(Some(gs));
                    q.after(&gs, h);
                }
                None => {
                    if let Some(t) = g.transactions.first() {
                        q.before(&t.st, h);
                    }
                    q.closing(Code::StOutsideGroup, h);
                    h.group_start(None);
                }
            }
            let mut gsegs = g.segments.iter().copied().peekable();
            for t in &g.transactions {
                while let Some(s) = gsegs.next_if(|s| s.index() < t.st.index()) {
                    seg_event(&mut q, s, h, true);
                }
                q.before(&t.st, h);
                h.transaction_start(t.st);
                q.after(&t.st, h);
                let body = doc.body(t);
                if bodies {
                    for seg in body {
                        q.before(&seg, h);
                        h.segment(seg);
                        q.after(&seg, h);
                    }
                } else {
                    h.body_count(body.len());
                }
                close(&mut q, h, t.se, Some(Code::SeMissing), H::transaction_end);
            }
            for s in gsegs {
                seg_event(&mut q, s, h, true);
            }
            // An implicit group (no GS) has no GE to miss.
            let missing = g.gs.is_some().then_some(Code::GeMissing);
            close(&mut q, h, g.ge, missing, H::group_end);
        }
        while let Some(s) = segs.next_if(|s| s.index() < end) {
            seg_event(&mut q, s, h, false);
        }
        close(
            &mut q,
            h,
            ic.iea,
            Some(Code::IeaMissing),
            H::interchange_end,
        );
        for s in segs {
            seg_event(&mut q, s, h, false);
        }
    }
    q.rest(h);
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use x12kit_syntax::envelope::Envelope;
    use x12kit_syntax::lexer::Tokenizer;

    /// Records every handler event as a line of text.
    #[derive(Default)]
    pub(crate) struct Recorder(pub Vec<String>);

    fn s(seg: &Segment<'_>) -> String {
        format!("{}@{}", String::from_utf8_lossy(seg.id()), seg.index())
    }

    impl<'a> Handler<'a> for Recorder {
        fn interchange_start(&mut self, isa: Segment<'a>) {
            self.0.push(format!("IS {}", s(&isa)));
        }
        fn interchange_segment(&mut self, seg: Segment<'a>) {
            self.0.push(format!("ISEG {}", s(&seg)));
        }
        fn group_start(&mut self, gs: Option<Segment<'a>>) {
            self.0.push(format!("GS {:?}", gs.map(|g| s(&g))));
        }
        fn group_segment(&mut self, seg: Segment<'a>) {
            self.0.push(format!("GSEG {}", s(&seg)));
        }
        fn transaction_start(&mut self, st: Segment<'a>) {
            self.0.push(format!("TS {}", s(&st)));
        }
        fn segment(&mut self, seg: Segment<'a>) {
            self.0.push(format!("B {}", s(&seg)));
        }
        fn transaction_end(&mut self, se: Option<Segment<'a>>) {
            self.0.push(format!("TE {:?}", se.map(|g| s(&g))));
        }
        fn group_end(&mut self, ge: Option<Segment<'a>>) {
            self.0.push(format!("GE {:?}", ge.map(|g| s(&g))));
        }
        fn interchange_end(&mut self, iea: Option<Segment<'a>>) {
            self.0.push(format!("IE {:?}", iea.map(|g| s(&g))));
        }
        fn diagnostic(&mut self, d: Diagnostic) {
            self.0.push(format!("D {d}"));
        }
    }

    impl<'a> Replay<'a> for Recorder {}

    /// The events of a real parse (INVALID_UTF8 included at the end, as
    /// `parse` appends it) and of the replay of its document.
    pub(crate) fn both(input: &[u8]) -> (Vec<String>, Vec<String>) {
        let mut live = Recorder::default();
        let mut env = Envelope::new();
        for t in Tokenizer::new(input) {
            env.push(t, &mut live);
        }
        env.finish(input.len(), &mut live);
        let doc = x12kit_syntax::parse(input);
        for d in doc
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::InvalidUtf8)
        {
            live.0.push(format!("D {d}"));
        }
        let mut replayed = Recorder::default();
        replay(&doc, &mut replayed);
        (live.0, replayed.0)
    }

    const ISA: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~";

    #[test]
    fn replay_reproduces_the_event_stream() {
        for input in [
            format!(
                "{ISA}GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~BEG*00~SE*3*0001~GE*1*1~IEA*1*000000001~"
            ),
            format!("{ISA}GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~BEG*00~"),
            format!(
                "{ISA}GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~bad~BEG*00~{ISA}IEA*0*000000001~junk"
            ),
            format!(
                "{ISA}ST*850*0001~SE*2*0001~ST*850*0002~SE*2*0002~GS*PO*S*R*20230101*1200*1*X*004010~N1*x~GE*0*1~TA1*1~IEA*1*000000001~"
            ),
            format!("text first\n{ISA}GE*1*1~IEA*0*000000001~"),
            format!("\u{feff}{ISA}TA1*000000001*230101*1200*A*000~IEA*0*000000001"),
            format!("ISA*00*broken~{ISA}IEA*0*000000001~"),
        ] {
            let (live, replayed) = both(input.as_bytes());
            assert_eq!(live, replayed, "{input}");
        }
        let mut latin = ISA.as_bytes().to_vec();
        latin.extend_from_slice(b"GS*PO*S*R*20230101*1200*1*X*004010~ST*850*0001~N1*ST*Caf\xe9~SE*3*0001~GE*1*1~IEA*1*000000001~");
        let (live, replayed) = both(&latin);
        assert_eq!(live, replayed);
    }
}
