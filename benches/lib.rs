//! Deterministic generators of realistic X12 for the benchmarks and for CLI
//! measurements.
//!
//! [`generate`] builds interchanges (ISA…IEA) of functional groups (GS…GE) of
//! 850 purchase orders (ST…SE): BEG, CUR, REF, PER, ITD, DTM, TD5, N1/N3/N4
//! loops, many PO1 lines with PID, MEA and REF details, CTT and an SE with the
//! right segment count. Segments end with `~\n`. Composite elements use the
//! component separator (`REF04`, `MEA04`); 005010 interchanges also use the
//! repetition separator. The same size always gives the same bytes.
//!
//! While writing, the generator counts what a reader must find (segments,
//! elements, repetition × component pieces and their bytes, envelopes) by a
//! plain byte scan of each segment it wrote, independently of x12kit, so the
//! benchmarks can assert that they measured the right answer.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

/// A writer that counts the bytes written and drops them: what the
/// benchmarks write JSON and parts to.
#[derive(Debug, Default)]
pub struct Count(pub usize);

impl io::Write for Count {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Which X12 version (and so which delimiters) the interchanges use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// 00401 / 004010: `*`, component `>`, no repetition separator.
    V4010,
    /// 00501 / 005010: `*`, component `:`, repetition `^`.
    V5010,
    /// Interchanges alternate between 004010 and 005010 (the default).
    Mixed,
}

/// What a reader of a generated input must find.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Segments, envelope segments included.
    pub segments: usize,
    /// Elements after the segment identifiers (empty ones included).
    pub elements: usize,
    /// Pieces met when every element is split into repetitions and each
    /// repetition into components (a simple element is one piece).
    pub pieces: usize,
    /// Total bytes of those pieces (separators excluded).
    pub piece_bytes: usize,
    /// Segments between ST and SE.
    pub body_segments: usize,
    /// Transaction sets (ST…SE).
    pub transactions: usize,
    /// Functional groups (GS…GE).
    pub groups: usize,
    /// Interchanges (ISA…IEA).
    pub interchanges: usize,
}

/// A generated input and what it contains.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The X12 bytes.
    pub data: Vec<u8>,
    /// The expected counts.
    pub counts: Counts,
}

/// About `size_bytes` of X12 (mixed 004010 / 005010 interchanges of 850s).
///
/// The result is at least `size_bytes - 64` long and exceeds `size_bytes` by
/// less than one transaction set (a few KB at most).
pub fn generate(size_bytes: usize) -> Vec<u8> {
    generate_with(size_bytes, Version::Mixed).data
}

/// About `size_bytes` of X12 of the given version, with its expected counts.
pub fn generate_with(size_bytes: usize, version: Version) -> Generated {
    let mut g = Gen::new(size_bytes, version);
    g.run();
    Generated {
        data: g.w.out,
        counts: g.w.counts,
    }
}

/// Writes [`generate`]`(size_bytes)` to `path`.
pub fn write_file(path: &Path, size_bytes: usize) -> io::Result<()> {
    std::fs::write(path, generate(size_bytes))
}

/// Writes a 100 MB generated file to the temporary directory and returns its
/// path (`x12kit-bench-100mb.x12`), e.g. for timing the CLI on it.
pub fn write_100mb_temp() -> io::Result<PathBuf> {
    let path = std::env::temp_dir().join("x12kit-bench-100mb.x12");
    write_file(&path, 100_000_000)?;
    Ok(path)
}

/// SplitMix64: small, fast and deterministic.
#[derive(Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    fn pick<'t>(&mut self, items: &[&'t str]) -> &'t str {
        items[self.next() as usize % items.len()]
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Delimiters of the interchange being written.
#[derive(Debug, Clone, Copy)]
struct Delims {
    component: char,
    repetition: Option<char>,
}

/// Appends segments and counts what they contain.
#[derive(Debug)]
struct Writer {
    out: Vec<u8>,
    seg: String,
    d: Delims,
    counts: Counts,
}

impl Writer {
    /// Ends the segment held in `self.seg`: counts it and appends it with `~\n`.
    fn end(&mut self) {
        let raw = self.seg.as_bytes();
        let comp = self.d.component as u8;
        let rep = self.d.repetition.map(|r| r as u8);
        let id_len = raw.iter().position(|&b| b == b'*').unwrap_or(raw.len());
        let elements = raw.iter().filter(|&&b| b == b'*').count();
        let seps = raw
            .iter()
            .filter(|&&b| b == b'*' || b == comp || Some(b) == rep)
            .count();
        debug_assert!(!raw.contains(&b'~'));
        self.counts.segments += 1;
        self.counts.elements += elements;
        if elements > 0 {
            self.counts.pieces += seps;
            self.counts.piece_bytes += raw.len() - id_len - seps;
        }
        self.out.extend_from_slice(raw);
        self.out.extend_from_slice(b"~\n");
        self.seg.clear();
    }
}

/// Writes one segment: `seg!(w, "BEG*00*{}", x)`.
macro_rules! seg {
    ($w:expr, $($arg:tt)*) => {{
        let w: &mut Writer = $w;
        let _ = write!(w.seg, $($arg)*);
        w.end();
    }};
}

const COMPANIES: &[&str] = &[
    "ACME DISTRIBUTION CENTER",
    "NORTHWIND TRADERS",
    "CONTOSO RETAIL STORE",
    "GLOBEX WAREHOUSE",
    "INITECH SUPPLY",
    "UMBRELLA HOLDINGS DC",
];
const STREETS: &[&str] = &[
    "1234 INDUSTRIAL PKWY",
    "77 HARBOR BLVD",
    "500 COMMERCE DR",
    "2100 LOGISTICS WAY",
    "9 MARKET ST",
];
const CITIES: &[(&str, &str, &str)] = &[
    ("COLUMBUS", "OH", "43215"),
    ("RENO", "NV", "89502"),
    ("MEMPHIS", "TN", "38118"),
    ("ALLENTOWN", "PA", "18109"),
    ("ONTARIO", "CA", "91761"),
];
const ITEMS: &[&str] = &[
    "BLUE WIDGET, LARGE",
    "RED WIDGET, SMALL",
    "STAINLESS BOLT M8X40",
    "HEX NUT M8 ZINC",
    "CORDLESS DRILL 18V",
    "SAFETY GLASSES CLEAR",
    "LED BULB 60W EQUIV 4PK",
    "PACKING TAPE 48MM X 100M",
];
const UNITS: &[&str] = &["EA", "EA", "EA", "CA", "BX", "PK", "DZ"];
const PEOPLE: &[&str] = &["JOHN SMITH", "MARIA GARCIA", "WEI CHEN", "AISHA KHAN"];

/// The generator's state.
#[derive(Debug)]
struct Gen {
    w: Writer,
    rng: Rng,
    size: usize,
    version: Version,
    isa_control: u64,
    group_control: u64,
    po_number: u64,
}

impl Gen {
    fn new(size: usize, version: Version) -> Self {
        Gen {
            w: Writer {
                out: Vec::with_capacity(size + 8192),
                seg: String::with_capacity(256),
                d: Delims {
                    component: '>',
                    repetition: None,
                },
                counts: Counts::default(),
            },
            rng: Rng(0x5EED_0850),
            size,
            version,
            isa_control: 0,
            group_control: 0,
            po_number: 4_500_000_000,
        }
    }

    /// Room kept for the trailers that close the last interchange.
    const RESERVE: usize = 64;

    fn full(&self) -> bool {
        self.w.out.len() + Self::RESERVE >= self.size
    }

    fn run(&mut self) {
        loop {
            self.interchange();
            if self.full() {
                break;
            }
        }
    }

    fn interchange(&mut self) {
        self.isa_control += 1;
        let v5010 = match self.version {
            Version::V4010 => false,
            Version::V5010 => true,
            Version::Mixed => self.isa_control & 1 == 0,
        };
        self.w.d = if v5010 {
            Delims {
                component: ':',
                repetition: Some('^'),
            }
        } else {
            Delims {
                component: '>',
                repetition: None,
            }
        };
        let (isa11, isa12, gs08) = if v5010 {
            ('^', "00501", "005010")
        } else {
            ('U', "00401", "004010")
        };
        let day = self.date();
        let component = self.w.d.component;
        seg!(
            &mut self.w,
            "ISA*00*          *00*          *ZZ*{:<15}*ZZ*{:<15}*{}*{:04}*{isa11}*{isa12}*{:09}*0*P*{}",
            "ACMERETAIL",
            "WIDGETSUPPLY",
            &day[2..],
            self.rng.range(0, 23) * 100 + self.rng.range(0, 59),
            self.isa_control,
            component
        );
        let groups = self.rng.range(1, 3);
        let mut written = 0;
        for _ in 0..groups {
            self.group(gs08, &day);
            written += 1;
            if self.full() {
                break;
            }
        }
        seg!(&mut self.w, "IEA*{written}*{:09}", self.isa_control);
        self.w.counts.interchanges += 1;
    }

    fn group(&mut self, version: &str, day: &str) {
        self.group_control += 1;
        let control = self.group_control;
        seg!(
            &mut self.w,
            "GS*PO*ACMERETAIL*WIDGETSUPPLY*{day}*{:04}*{control}*X*{version}",
            self.rng.range(0, 23) * 100 + self.rng.range(0, 59)
        );
        let sets = self.rng.range(20, 60);
        let mut written = 0;
        for n in 1..=sets {
            self.purchase_order(n);
            written += 1;
            if self.full() {
                break;
            }
        }
        seg!(&mut self.w, "GE*{written}*{control}");
        self.w.counts.groups += 1;
    }

    fn date(&mut self) -> String {
        format!(
            "20{:02}{:02}{:02}",
            self.rng.range(20, 26),
            self.rng.range(1, 12),
            self.rng.range(1, 28)
        )
    }

    fn purchase_order(&mut self, n: u64) {
        let first = self.w.counts.segments;
        let control = format!("{n:04}");
        let c = self.w.d.component;
        let rep = self.w.d.repetition;
        seg!(&mut self.w, "ST*850*{control}");
        self.po_number += 1;
        let po = self.po_number;
        let date = self.date();
        seg!(&mut self.w, "BEG*00*SA*{po}**{date}");
        if self.rng.chance(50) {
            seg!(&mut self.w, "CUR*BY*USD");
        }
        let dept = self.rng.range(1, 999);
        seg!(&mut self.w, "REF*DP*{dept:03}");
        let vendor = self.rng.range(100_000, 999_999);
        seg!(&mut self.w, "REF*IA*{vendor}");
        if self.rng.chance(40) {
            let contract = self.rng.range(1000, 9999);
            seg!(
                &mut self.w,
                "REF*CT*C-{contract}**VN{c}{vendor}{c}PO{c}{po}"
            );
        }
        let person = self.rng.pick(PEOPLE);
        let phone = self.rng.range(2_000_000_000, 9_999_999_999);
        seg!(
            &mut self.w,
            "PER*BD*{person}*TE*{phone}*EM*buyer{dept}@acmeretail.example"
        );
        if self.rng.chance(60) {
            seg!(&mut self.w, "ITD*01*3*2**30**60");
        }
        let (d1, d2) = (self.date(), self.date());
        seg!(&mut self.w, "DTM*002*{d1}");
        seg!(&mut self.w, "DTM*010*{d2}");
        if self.rng.chance(50) {
            let carrier = self.rng.pick(&["UPSG", "FDEG", "ODFL", "RDWY"]);
            seg!(&mut self.w, "TD5****{carrier}*{carrier} GROUND");
        }
        for qualifier in ["ST", "BT", "VN"] {
            if qualifier != "ST" && self.rng.chance(50) {
                continue;
            }
            let name = self.rng.pick(COMPANIES);
            let code = self.rng.range(1, 9999);
            seg!(&mut self.w, "N1*{qualifier}*{name} {code}*92*{code:04}");
            let street = self.rng.pick(STREETS);
            if self.rng.chance(30) {
                let suite = self.rng.range(100, 900);
                seg!(&mut self.w, "N3*{street}*SUITE {suite}");
            } else {
                seg!(&mut self.w, "N3*{street}");
            }
            let (city, state, zip) = CITIES[self.rng.next() as usize % CITIES.len()];
            seg!(&mut self.w, "N4*{city}*{state}*{zip}*US");
        }
        let lines = if self.rng.chance(10) {
            self.rng.range(100, 300)
        } else {
            self.rng.range(1, 40)
        };
        let mut quantities = 0;
        for line in 1..=lines {
            let qty = self.rng.range(1, 500);
            quantities += qty;
            let unit = self.rng.pick(UNITS);
            let cents = self.rng.range(25, 250_000);
            let sku = self.rng.range(10_000, 999_999);
            let upc = self.rng.range(10_000_000_000, 99_999_999_999);
            if self.rng.chance(30) {
                let buyer = self.rng.range(1_000, 99_999);
                seg!(
                    &mut self.w,
                    "PO1*{line}*{qty}*{unit}*{}.{:02}**VP*SKU{sku}*UP*0{upc}*IN*B{buyer}",
                    cents / 100,
                    cents % 100
                );
            } else {
                seg!(
                    &mut self.w,
                    "PO1*{line}*{qty}*{unit}*{}.{:02}**VP*SKU{sku}*UP*0{upc}",
                    cents / 100,
                    cents % 100
                );
            }
            let item = self.rng.pick(ITEMS);
            seg!(&mut self.w, "PID*F****{item}");
            if self.rng.chance(25) {
                let weight = self.rng.range(1, 9999);
                seg!(
                    &mut self.w,
                    "MEA*PD*G*{}.{}*LB{c}1",
                    weight / 10,
                    weight % 10
                );
            }
            if self.rng.chance(15) {
                let lot = self.rng.range(10_000, 99_999);
                match rep {
                    Some(r) => seg!(
                        &mut self.w,
                        "REF*LT*{lot}**VN{c}{sku}{r}UP{c}0{upc}{r}LT{c}{lot}"
                    ),
                    None => seg!(&mut self.w, "REF*LT*{lot}**VN{c}{sku}{c}LT{c}{lot}"),
                }
            }
        }
        seg!(&mut self.w, "CTT*{lines}*{quantities}");
        let count = self.w.counts.segments - first + 1;
        seg!(&mut self.w, "SE*{count}*{control}");
        self.w.counts.body_segments += count - 2;
        self.w.counts.transactions += 1;
    }
}
