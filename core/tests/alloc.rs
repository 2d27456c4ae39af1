//! Proves the tokenizers allocate nothing per segment or element.
//!
//! A counting global allocator (hence this file is its own test binary)
//! counts allocations and reallocations made by the current thread. Walking
//! every segment, element, repetition and component of an input must not
//! allocate at all, whatever its size; the streaming tokenizer may grow its
//! buffer a bounded number of times while warming up, and never after.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use x12kit::{Pull, Reader, StreamTokenizer, Token, Tokenizer};

struct Counting;

thread_local! {
    // Const-initialised and without a destructor: safe to touch from the allocator.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by this thread so far.
fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

/// Runs `f` and returns how many allocations it made, with its result.
fn counted<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let before = allocations();
    let r = f();
    (allocations() - before, r)
}

const ISA_4010: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>";
const ISA_5010: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*^*00501*000000002*0*P*:";

/// An input of two interchanges (004010 with `>`, 005010 with `:` and `^`,
/// the second with CRLF line breaks) holding `lines` PO1 lines each, with
/// composites and repetitions. Returns the bytes and the segment count.
fn input(lines: usize) -> (Vec<u8>, usize) {
    let mut out = String::new();
    let mut segments = 0;
    let interchanges = [
        (ISA_4010, "004010", '>', None, "\n"),
        (ISA_5010, "005010", ':', Some('^'), "\r\n"),
    ];
    for (isa, version, c, r, nl) in interchanges {
        let mut seg = |s: String| {
            out.push_str(&s);
            out.push('~');
            out.push_str(nl);
            segments += 1;
        };
        seg(isa.to_string());
        seg(format!("GS*PO*SENDER*RECEIVER*20230101*1200*1*X*{version}"));
        seg("ST*850*0001".to_string());
        seg("BEG*00*SA*PO-1**20230101".to_string());
        seg(format!("REF*CT*C-1**VN{c}123{c}PO{c}456"));
        seg("N1*ST*ACME DC*92*0001".to_string());
        for i in 1..=lines {
            seg(format!("PO1*{i}*10*EA*9.99**VP*SKU{i}*UP*0123456789"));
            seg(format!("MEA*PD*G*{}.5*LB{c}1", i % 97));
            if let Some(r) = r {
                seg(format!("REF*LT*{i}**VN{c}{i}{r}LT{c}{i}{r}UP{c}0123"));
            }
        }
        seg(format!("CTT*{lines}"));
        seg(format!(
            "SE*{}*0001",
            lines * if r.is_some() { 3 } else { 2 } + 6
        ));
        seg("GE*1*1".to_string());
        seg(format!("IEA*1*{}", &isa[90..99]));
    }
    (out.into_bytes(), segments)
}

/// What a full walk found.
#[derive(Debug, Default, PartialEq, Eq)]
struct Totals {
    segments: usize,
    diagnostics: usize,
    elements: usize,
    repetitions: usize,
    components: usize,
    bytes: usize,
}

impl Totals {
    fn segment(&mut self, s: &x12kit::Segment<'_>) {
        self.segments += 1;
        self.bytes += s.id().len() + s.offset() % 2 + s.index() % 2 + s.suffix().len();
        self.bytes += s.value(1).len() + s.element_count();
        self.bytes += s
            .element(1)
            .and_then(|e| e.component(1))
            .map_or(0, <[u8]>::len);
        for e in s.elements() {
            self.elements += 1;
            self.bytes += usize::from(e.is_composite()) + usize::from(e.is_repeated());
            for r in e.repetitions() {
                self.repetitions += 1;
                for c in r.components() {
                    self.components += 1;
                    self.bytes += c.raw().len();
                }
            }
        }
    }
}

/// Every segment, element, repetition and component through [`Tokenizer`],
/// with the allocations made while producing and walking ISA segments
/// (`isa_allocs`) and all other tokens (`other_allocs`).
fn walk(input: &[u8]) -> (Totals, usize, usize) {
    let mut t = Totals::default();
    let (mut isa_allocs, mut other_allocs) = (0, 0);
    let mut tokens = Tokenizer::new(input);
    loop {
        let before = allocations();
        let Some(token) = tokens.next() else { break };
        let isa = match &token {
            Token::Segment(s) => {
                t.segment(s);
                s.is(b"ISA")
            }
            Token::Diagnostic(_) => {
                t.diagnostics += 1;
                false
            }
        };
        let made = allocations() - before;
        if isa {
            isa_allocs += made;
        } else {
            other_allocs += made;
        }
    }
    (t, isa_allocs, other_allocs)
}

#[test]
fn whole_buffer_tokenizer_allocates_nothing_per_segment() {
    let (small, small_segments) = input(500);
    let (large, large_segments) = input(20_000);
    assert!(large_segments > 50_000);
    let _ = walk(&small);

    let (small_allocs, (small_totals, small_isa, small_other)) = counted(|| walk(&small));
    let (large_allocs, (large_totals, large_isa, large_other)) = counted(|| walk(&large));
    assert_eq!(small_totals.segments, small_segments);
    assert_eq!(large_totals.segments, large_segments);
    assert_eq!(small_totals.diagnostics + large_totals.diagnostics, 0);
    assert!(large_totals.components > large_totals.elements);
    assert!(large_totals.repetitions > large_totals.elements / 10);
    // Nothing at all for the segments, elements, repetitions and components.
    assert_eq!(
        small_other, 0,
        "allocations while walking {small_segments} segments"
    );
    assert_eq!(
        large_other, 0,
        "allocations while walking {large_segments} segments"
    );
    // Reading an ISA allocates nothing either (the delimiter checks use a
    // fixed array).
    assert!(small_isa == 0, "{small_isa} allocations for 2 ISA segments");
    assert_eq!(large_isa, small_isa);
    assert_eq!(small_allocs, small_isa);
    assert_eq!(
        large_allocs, small_allocs,
        "allocations grow with the input size"
    );

    // The `segments` convenience iterator as well.
    let (allocs, n) = counted(|| {
        let mut t = Totals::default();
        x12kit::segments(&large).for_each(|s| t.segment(&s));
        t.segments
    });
    assert_eq!((allocs, n), (large_allocs, large_segments));
}

/// What streaming an input cost.
#[derive(Debug, Default)]
struct Streamed {
    segments: usize,
    diagnostics: usize,
    /// Allocations while producing and walking non-ISA tokens.
    in_tokens: usize,
    /// Allocations while producing ISA segments.
    in_isa: usize,
    /// Allocations while feeding chunks, after the first `warm_up` segments.
    late_feeds: usize,
}

/// Streams `input` in `chunk`-byte pieces through [`StreamTokenizer`].
fn stream(input: &[u8], chunk: usize, warm_up: usize) -> Streamed {
    let mut st = StreamTokenizer::new();
    let mut chunks = input.chunks(chunk);
    let mut t = Totals::default();
    let mut r = Streamed::default();
    loop {
        let before = allocations();
        match st.next() {
            Pull::Token(token) => {
                let isa = match &token {
                    Token::Segment(s) => {
                        t.segment(s);
                        s.is(b"ISA")
                    }
                    Token::Diagnostic(_) => {
                        t.diagnostics += 1;
                        false
                    }
                };
                let made = allocations() - before;
                if isa {
                    r.in_isa += made;
                } else {
                    r.in_tokens += made;
                }
            }
            Pull::NeedInput => {
                match chunks.next() {
                    Some(c) => st.feed(c),
                    None => st.finish(),
                }
                if t.segments >= warm_up {
                    r.late_feeds += allocations() - before;
                }
            }
            Pull::End => break,
        }
    }
    r.segments = t.segments;
    r.diagnostics = t.diagnostics;
    r
}

#[test]
fn streaming_tokenizer_allocates_only_while_warming_up() {
    let (small, small_segments) = input(500);
    let (large, large_segments) = input(20_000);
    for chunk in [4096, 64 * 1024] {
        let (small_allocs, s) = counted(|| stream(&small, chunk, 0));
        assert_eq!(
            (s.segments, s.diagnostics, s.in_tokens),
            (small_segments, 0, 0)
        );
        let (large_allocs, l) = counted(|| stream(&large, chunk, 0));
        assert_eq!(
            (l.segments, l.diagnostics, l.in_tokens),
            (large_segments, 0, 0)
        );
        assert!(s.in_isa == 0 && l.in_isa == 0);
        // The buffer grows to hold one chunk plus an unfinished segment, then stays.
        let growth = |total: usize, isa: usize| total - isa;
        let (small_growth, large_growth) = (
            growth(small_allocs, s.in_isa),
            growth(large_allocs, l.in_isa),
        );
        assert!(
            small_growth <= 3,
            "chunk {chunk}: buffer grew {small_growth} times for {small_segments} segments"
        );
        assert!(
            large_growth <= 3,
            "chunk {chunk}: buffer grew {large_growth} times for {large_segments} segments"
        );
        // After warm-up (a few chunks' worth of segments), feeding never allocates.
        let warm = 3 * chunk / 30;
        let l = stream(&large, chunk, warm);
        assert_eq!(
            l.late_feeds, 0,
            "chunk {chunk}: allocations feeding after {warm} segments"
        );
    }
}

#[test]
fn reader_allocates_only_its_buffers() {
    let (small, small_segments) = input(500);
    let (large, large_segments) = input(20_000);
    let read_all = |data: &[u8]| {
        let mut r = Reader::new(data);
        let mut t = Totals::default();
        while let Some(token) = r.next_token().expect("reading a slice cannot fail") {
            match token {
                Token::Segment(s) => t.segment(&s),
                Token::Diagnostic(_) => t.diagnostics += 1,
            }
        }
        t
    };
    let (small_allocs, t) = counted(|| read_all(&small));
    assert_eq!((t.segments, t.diagnostics), (small_segments, 0));
    let (large_allocs, t) = counted(|| read_all(&large));
    assert_eq!((t.segments, t.diagnostics), (large_segments, 0));
    // The chunk buffer and the tokenizer buffer's growth,
    // and not more for 40 times the segments.
    assert!(small_allocs <= 4, "{small_allocs}");
    assert!(
        large_allocs <= 4,
        "{large_allocs} for {large_segments} segments"
    );
}
