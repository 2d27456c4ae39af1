//! The parse result's JSON on several threads, a batch of transaction sets
//! at a time: this thread parses ([`parse_sets`]) and writes the envelope
//! around the sets; workers turn batches of sets into JSON; the results are
//! written in input order, so the bytes are those of one thread.

use super::emit::{JsonWriter, RELEASE_EVERY};
use crate::mapping::{Documents, SetMapper};
use crate::pretty::Pretty;
use std::collections::VecDeque;
use std::io;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use x12kit_syntax::Diagnostic;
use x12kit_syntax::envelope::{Document, Group, SetCap, Transaction};
use x12kit_syntax::segment::Segment;
use x12kit_syntax::sets::{Batch, Outline, SetHandler, parse_sets};

/// A batch is sent to a worker once it holds this many body segments.
const BATCH: usize = 2048;

/// The JSON of a batch of sets, and the line breaks that differ from the
/// interchange's (segment index, line break), in order.
type Written<'a> = (Vec<u8>, Vec<(usize, &'a [u8])>);

/// What a worker gets: the batch, the ISA of its interchange (delimiters,
/// line break), and where to send the result.
type Job<'a> = (Batch<'a>, Segment<'a>, SyncSender<Written<'a>>);

/// What the writer does next, in input order.
enum Step<'a> {
    Interchange(Arc<Outline<'a>>),
    Group(Arc<Outline<'a>>, usize),
    /// A batch's JSON (from a worker), and where its input ends.
    Sets(Receiver<Written<'a>>, usize),
    GroupEnd(Arc<Outline<'a>>, usize),
    InterchangeEnd(Arc<Outline<'a>>, usize),
}

struct Threaded<'a, 's, 'r, M> {
    input: &'a [u8],
    jw: JsonWriter<'a, 's, M>,
    jobs: SyncSender<Job<'a>>,
    steps: VecDeque<Step<'a>>,
    /// Batches among `steps`.
    in_flight: usize,
    threads: usize,
    outline: Option<Arc<Outline<'a>>>,
    batch: Option<(Batch<'a>, usize)>,
    first_interchange: bool,
    first_group: bool,
    first_set: bool,
    released: usize,
    release: &'r mut dyn FnMut(usize),
    ahead: Option<&'r mut dyn FnMut(usize, usize)>,
}

impl<'a, M: SetMapper<'a>> Threaded<'a, '_, '_, M> {
    /// Sends the batch being filled to a worker.
    fn send(&mut self) {
        let Some((batch, upto)) = self.batch.take() else {
            return;
        };
        let isa = self
            .outline
            .as_ref()
            .expect("an interchange is open")
            .interchange
            .isa;
        let (done, result) = sync_channel(1);
        // Workers live until `jobs` is dropped: sending cannot fail.
        let _ = self.jobs.send((batch, isa, done));
        self.steps.push_back(Step::Sets(result, upto));
        self.in_flight += 1;
        while self.in_flight > 2 * self.threads {
            self.write_one();
        }
    }

    /// Writes the next step (waiting for its batch).
    fn write_one(&mut self) {
        let Some(step) = self.steps.pop_front() else {
            return;
        };
        let jw = &mut self.jw;
        match step {
            Step::Interchange(o) => {
                separate(&mut jw.buf, &mut self.first_interchange);
                jw.interchange_open(&o.interchange, &o.starts);
                self.first_group = true;
            }
            Step::Group(o, n) => {
                separate(&mut jw.buf, &mut self.first_group);
                jw.group_open(&o.interchange.groups[n]);
                self.first_set = true;
            }
            Step::Sets(result, upto) => {
                self.in_flight -= 1;
                // A worker that panicked drops its sender: that is a bug, reported as such.
                let (json, notes) = result.recv().unwrap_or_default();
                separate(&mut jw.buf, &mut self.first_set);
                jw.buf.extend_from_slice(&json);
                jw.overrides.extend(notes);
                if upto >= self.released + RELEASE_EVERY {
                    self.released = upto;
                    (self.release)(upto);
                }
            }
            Step::GroupEnd(o, n) => jw.group_close(o.interchange.groups[n].ge.as_ref()),
            Step::InterchangeEnd(o, upto) => {
                jw.interchange_close(o.interchange.iea.as_ref());
                self.released = upto;
                (self.release)(upto);
            }
        }
        self.jw.maybe_flush();
    }

    /// Queues a step around the sets (written at once when nothing is pending).
    fn step(&mut self, s: Step<'a>) {
        self.steps.push_back(s);
        if self.in_flight == 0 {
            while !self.steps.is_empty() {
                self.write_one();
            }
        }
    }
}

/// A `,` unless this is the first item of its array.
fn separate(buf: &mut Vec<u8>, first: &mut bool) {
    if !std::mem::take(first) {
        buf.push(b',');
    }
}

impl<'a, M: SetMapper<'a>> SetHandler<'a> for Threaded<'a, '_, '_, M> {
    fn interchange(&mut self, outline: &Outline<'a>) {
        // The envelope only: a held interchange's outline has its sets too.
        let i = &outline.interchange;
        let o = Arc::new(Outline {
            interchange: i.envelope_only(),
            starts: outline.starts.clone(),
        });
        self.outline = Some(Arc::clone(&o));
        self.step(Step::Interchange(o));
    }

    fn group(&mut self, _outline: &Outline<'a>, n: usize) {
        let o = Arc::clone(self.outline.as_ref().expect("an interchange is open"));
        self.step(Step::Group(o, n));
    }

    fn transaction(
        &mut self,
        doc: &Document<'a>,
        group: &Group<'a>,
        tx: &Transaction<'a>,
        upto: usize,
    ) {
        let (batch, at) = self.batch.get_or_insert_with(|| {
            let isa = self
                .outline
                .as_ref()
                .expect("an interchange is open")
                .interchange
                .isa;
            (Batch::new(self.input, isa, group.gs), upto)
        });
        batch.push(doc, tx);
        *at = upto;
        if batch.segments() >= BATCH {
            self.send();
        }
    }

    fn group_end(&mut self, _outline: &Outline<'a>, n: usize) {
        self.send();
        let o = Arc::clone(self.outline.as_ref().expect("an interchange is open"));
        self.step(Step::GroupEnd(o, n));
    }

    fn interchange_end(&mut self, _outline: &Outline<'a>, upto: usize) {
        self.send();
        let o = self.outline.take().expect("an interchange is open");
        self.step(Step::InterchangeEnd(o, upto));
    }

    fn read_ahead(&mut self, from: usize, to: usize) {
        if let Some(a) = self.ahead.as_mut() {
            a(from, to);
        }
    }
}

/// See [`super::to_json_stream_threads`].
#[allow(clippy::too_many_arguments)]
pub(super) fn stream<'r, D: Documents, W: io::Write + Send>(
    input: &[u8],
    w: W,
    pretty: bool,
    documents: bool,
    cap: SetCap,
    threads: usize,
    hold: usize,
    release: &'r mut dyn FnMut(usize),
    ahead: Option<&'r mut dyn FnMut(usize, usize)>,
) -> io::Result<Vec<Diagnostic>> {
    let sink: Box<dyn io::Write + Send + '_> = if pretty {
        Box::new(Pretty::new(w))
    } else {
        Box::new(w)
    };
    std::thread::scope(|scope| {
        let (jobs, queue) = sync_channel::<Job<'_>>(threads);
        let queue = Arc::new(Mutex::new(queue));
        for _ in 0..threads {
            let queue = Arc::clone(&queue);
            scope.spawn(move || {
                let mut jw = JsonWriter::<D::Mapper<'_>>::new(Vec::new(), usize::MAX);
                jw.documents = documents;
                loop {
                    // The lock is held only to take the next job.
                    let job = queue
                        .lock()
                        .map_err(|_| ())
                        .and_then(|q| q.recv().map_err(|_| ()));
                    let Ok((batch, isa, done)) = job else { return };
                    jw.buf = Vec::with_capacity(1 << 17);
                    jw.prepare(&isa);
                    jw.overrides.clear();
                    let (doc, group, sets) = batch.parts();
                    for (n, t) in sets.iter().enumerate() {
                        if n > 0 {
                            jw.buf.push(b',');
                        }
                        jw.transaction(doc, group, t);
                    }
                    let notes = std::mem::take(&mut jw.overrides);
                    let _ = done.send((std::mem::take(&mut jw.buf), notes));
                }
            });
        }
        let mut jw = JsonWriter::<D::Mapper<'_>>::new(Vec::with_capacity(1 << 17), 1 << 16);
        jw.documents = documents;
        jw.sink = Some(sink);
        jw.raw(b"{\"interchanges\":[");
        let mut t = Threaded {
            input,
            jw,
            jobs,
            steps: VecDeque::new(),
            in_flight: 0,
            threads,
            outline: None,
            batch: None,
            first_interchange: true,
            first_group: true,
            first_set: true,
            released: 0,
            release,
            ahead,
        };
        let doc = parse_sets(input, hold, cap, &mut t);
        while !t.steps.is_empty() {
            t.write_one();
        }
        drop(t.jobs);
        let mut jw = t.jw;
        jw.tail(&doc);
        jw.flush_all()?;
        Ok(doc.diagnostics)
    })
}
