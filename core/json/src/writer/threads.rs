//! The parse result's JSON on several threads, a batch of transaction sets
//! at a time: this thread parses ([`parse_sets`]) and writes the envelope
//! around the sets; workers turn batches of sets into JSON; the results are
//! written in input order, so the bytes are those of one thread.
//!
//! Two cases are written on this thread, where workers cannot gain:
//!
//! - a set of at least a batch on its own that is at least as large as the
//!   rest of the input (one huge set): nothing could be parsed beside it,
//!   and a worker would hold its whole JSON, which this thread would then
//!   copy; here it is written as one thread writes it, in 64 KiB pieces;
//! - with [`Pool::Auto`], every set until a batch of sets fills (an input
//!   smaller than a batch, interchanges or groups smaller than one), so a
//!   small input costs no thread.
//!
//! The workers start when the first batch is sent (with any pool): until
//! then the process has one thread (one huge set with `--threads 2` ran 5 %
//! longer with two idle workers beside it, the same instructions: likely
//! the allocator, which takes its locks once a second thread exists).

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

/// The fewest bytes a batch's segments take (a segment is at least an id
/// of two characters and its terminator): the default does not start
/// workers for a shorter input (garbage of shorter segments is written by
/// one thread, the same bytes).
pub(super) const SHORTEST_BATCH: usize = 3 * BATCH;

/// A worker's JSON buffer goes back to the workers for the next batch
/// unless it grew past this (a batch of very large sets).
const KEEP_BUFFER: usize = 4 << 20;

/// When sets go to the workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pool {
    /// From the first set (but one huge set).
    Eager,
    /// From when the sets of a group first fill a batch; until then they
    /// are written on the calling thread as one thread writes them.
    Auto,
}

/// The JSON of a batch of sets, and the line breaks that differ from the
/// interchange's (segment index, line break), in order.
type Written<'a> = (Vec<u8>, Vec<(usize, &'a [u8])>);

/// What a worker gets: the batch, the ISA of its interchange (delimiters,
/// line break), and where to send the result.
type Job<'a> = (Batch<'a>, Segment<'a>, SyncSender<Written<'a>>);

/// JSON buffers emptied by the writer, for the workers to fill again (a
/// fresh buffer for each batch would fault its pages in every time).
type Buffers = Arc<Mutex<Vec<Vec<u8>>>>;

/// What the writer does next, in input order.
enum Step<'a> {
    Interchange(Arc<Outline<'a>>),
    Group(Arc<Outline<'a>>, usize),
    /// A batch's JSON (from a worker), where its input ends, the worker
    /// and the batch's body segments.
    Sets(Receiver<Written<'a>>, usize, usize, usize),
    GroupEnd(Arc<Outline<'a>>, usize),
    InterchangeEnd(Arc<Outline<'a>>, usize),
}

/// Starts the workers: where to send each one its jobs.
type Start<'p, 'a> = &'p dyn Fn() -> Vec<SyncSender<Job<'a>>>;

struct Threaded<'a, 's, 'r, 'p, M> {
    input: &'a [u8],
    jw: JsonWriter<'a, 's, M>,
    /// Each worker's jobs (a channel of its own wakes only the worker it
    /// is for).
    jobs: Vec<SyncSender<Job<'a>>>,
    /// Each worker's body segments sent and not written yet: a batch goes
    /// to the least loaded (batches cut at the end of a group are smaller,
    /// and in turns one worker could get all of the large ones).
    load: Vec<usize>,
    /// Starts the workers (at the first batch sent); `None` once they run.
    start: Option<Start<'p, 'a>>,
    pool: Pool,
    buffers: Buffers,
    steps: VecDeque<Step<'a>>,
    /// Batches among `steps`.
    in_flight: usize,
    threads: usize,
    outline: Option<Arc<Outline<'a>>>,
    batch: Option<(Batch<'a>, usize)>,
    /// Body segments of the sets written on this thread since the last
    /// group or interchange boundary, while the workers have not started.
    pending: usize,
    first_interchange: bool,
    first_group: bool,
    first_set: bool,
    released: usize,
    release: &'r mut dyn FnMut(usize),
    ahead: Option<&'r mut dyn FnMut(usize, usize)>,
}

impl<'a, M: SetMapper<'a>> Threaded<'a, '_, '_, '_, M> {
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
        if let Some(start) = self.start.take() {
            self.jobs = start();
            self.load = vec![0; self.jobs.len()];
        }
        let (done, result) = sync_channel(1);
        let segments = batch.segments();
        let worker = (0..self.load.len())
            .min_by_key(|&w| self.load[w])
            .unwrap_or(0);
        self.load[worker] += segments;
        // Workers live until `jobs` is dropped: sending cannot fail.
        let _ = self.jobs[worker].send((batch, isa, done));
        self.steps
            .push_back(Step::Sets(result, upto, worker, segments));
        self.in_flight += 1;
        // A full window is written down to half before this thread parses
        // on: it then waits once for several batches, not once for each
        // (a wait and a wake-up cost two context switches).
        if self.in_flight > 2 * self.threads {
            while self.in_flight > self.threads {
                self.write_one();
            }
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
            Step::Sets(result, upto, worker, segments) => {
                self.in_flight -= 1;
                self.load[worker] -= segments;
                // A worker that panicked drops its sender: that is a bug, reported as such.
                let (mut json, notes) = result.recv().unwrap_or_default();
                separate(&mut jw.buf, &mut self.first_set);
                jw.put(&json);
                jw.overrides.extend(notes);
                if json.capacity() <= KEEP_BUFFER {
                    json.clear();
                    if let Ok(mut b) = self.buffers.lock() {
                        b.push(json);
                    }
                }
                self.released_to(upto);
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

    /// Says that the input before `upto` is done with, every few MiB.
    fn released_to(&mut self, upto: usize) {
        if upto >= self.released + RELEASE_EVERY {
            self.released = upto;
            (self.release)(upto);
        }
    }

    /// Writes every pending step (waiting for the batches in flight).
    fn drain(&mut self) {
        while !self.steps.is_empty() {
            self.write_one();
        }
    }

    /// Queues a step around the sets (written at once when nothing is pending).
    fn step(&mut self, s: Step<'a>) {
        self.steps.push_back(s);
        if self.in_flight == 0 {
            self.drain();
        }
    }

    /// Writes a set here, after what comes before it, as one thread does.
    fn write_here(
        &mut self,
        doc: &Document<'a>,
        group: &Group<'a>,
        tx: &Transaction<'a>,
        upto: usize,
    ) {
        self.send();
        self.drain();
        separate(&mut self.jw.buf, &mut self.first_set);
        self.jw.transaction(doc, group, tx);
        self.jw.maybe_flush();
        self.released_to(upto);
    }
}

/// A `,` unless this is the first item of its array.
fn separate(buf: &mut Vec<u8>, first: &mut bool) {
    if !std::mem::take(first) {
        buf.push(b',');
    }
}

impl<'a, M: SetMapper<'a>> SetHandler<'a> for Threaded<'a, '_, '_, '_, M> {
    fn interchange(&mut self, outline: &Outline<'a>) {
        // The envelope only: a held interchange's outline has its sets too.
        let i = &outline.interchange;
        let o = Arc::new(Outline {
            interchange: i.envelope_only(),
            starts: outline.starts.clone(),
        });
        self.outline = Some(Arc::clone(&o));
        self.pending = 0;
        self.step(Step::Interchange(o));
    }

    fn group(&mut self, _outline: &Outline<'a>, n: usize) {
        let o = Arc::clone(self.outline.as_ref().expect("an interchange is open"));
        self.pending = 0;
        self.step(Step::Group(o, n));
    }

    fn transaction(
        &mut self,
        doc: &Document<'a>,
        group: &Group<'a>,
        tx: &Transaction<'a>,
        upto: usize,
    ) {
        let body = doc.body(tx).len();
        if body >= BATCH && self.batch.is_none() {
            // A set that fills a batch alone: written here when the rest
            // of the input is no larger (nothing to parse beside it).
            let end = tx
                .se
                .as_ref()
                .map_or(upto, |se| se.offset())
                .max(tx.st.offset());
            let rest = self.input.len().saturating_sub(end);
            if end - tx.st.offset() >= rest {
                self.write_here(doc, group, tx, upto);
                return;
            }
        }
        if self.pool == Pool::Auto && self.start.is_some() {
            self.pending += body;
            if self.pending < BATCH {
                self.write_here(doc, group, tx, upto);
                return;
            }
            // A batch of sets has filled: from here on, workers.
        }
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

/// A worker: takes batches from `jobs` until it closes, and sends each
/// batch's JSON back.
fn work<'a, D: Documents>(
    jobs: &Receiver<Job<'a>>,
    buffers: &Mutex<Vec<Vec<u8>>>,
    documents: bool,
) {
    let mut jw = JsonWriter::<D::Mapper<'a>>::new(Vec::new(), usize::MAX);
    jw.documents = documents;
    while let Ok((batch, isa, done)) = jobs.recv() {
        jw.buf = buffers
            .lock()
            .ok()
            .and_then(|mut b| b.pop())
            .unwrap_or_else(|| Vec::with_capacity(1 << 17));
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
    pool: Pool,
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
        let buffers: Buffers = Arc::default();
        let start = || {
            (0..threads)
                .map(|_| {
                    // Two jobs queued for each: a window of 2 × threads.
                    let (jobs, queue) = sync_channel::<Job<'_>>(2);
                    let buffers = Arc::clone(&buffers);
                    scope.spawn(move || work::<D>(&queue, &buffers, documents));
                    jobs
                })
                .collect()
        };
        let start: Start<'_, '_> = &start;
        let mut jw = JsonWriter::<D::Mapper<'_>>::new(Vec::with_capacity(1 << 17), 1 << 16);
        jw.documents = documents;
        jw.sink = Some(sink);
        jw.raw(b"{\"interchanges\":[");
        let mut t = Threaded {
            input,
            jw,
            load: Vec::new(),
            jobs: Vec::new(),
            start: Some(start),
            pool,
            buffers: Arc::clone(&buffers),
            steps: VecDeque::new(),
            in_flight: 0,
            threads,
            outline: None,
            batch: None,
            pending: 0,
            first_interchange: true,
            first_group: true,
            first_set: true,
            released: 0,
            release,
            ahead,
        };
        let doc = parse_sets(input, hold, cap, &mut t);
        t.drain();
        drop(t.jobs);
        let mut jw = t.jw;
        jw.tail(&doc);
        jw.flush_all()?;
        Ok(doc.diagnostics)
    })
}
