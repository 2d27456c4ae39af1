//! The core's structural index on wasm32: the `simd128` kernel against the
//! portable one (the reference), where it runs (in Node and in headless
//! Chromium, like `web.rs`). Block masks on random and edge blocks (every
//! delimiter, whitespace delimiters, every byte value at every position, a
//! delimiter at every block offset), the two-block form the tokenizer's
//! cursor uses, prefixes shorter than a block, and whole inputs (tokens,
//! chunk-fed tokens, validation and parse JSON) cut at every length, so the
//! cursor's partial last block is covered.
#![cfg(target_arch = "wasm32")]

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;
use x12kit::index::{
    self, BLOCK, Kernel, classify_prefix, classify_with, structural_with, structural2_with,
};
use x12kit::{Delimiters, Pull, StreamTokenizer, Token, Tokenizer, ops};

const SAMPLE: &[u8] = include_bytes!("../www/samples/850-valid.x12");
const BAD_SE01: &[u8] = include_bytes!("../www/samples/850-wrong-se01.x12");

/// Delimiter candidates: the usual ones, whitespace (a line-feed terminator,
/// a tab separator decide what is skippable), bytes next to the whitespace
/// range and high bytes (signed/unsigned comparisons).
const POOL: &[u8] = b"*~:^>|\n\t\r \x0b\x0c\x08\x0e\x1c\x1d\x1f!\x7f\x80\x85\xfe\xff";
/// Bytes other than delimiters in random blocks: whitespace and its
/// neighbours, then anything.
const WS_AND_NEAR: &[u8] = b" \t\n\r\x0b\x0c\x08\x0e\x1f!\x00\xff";

/// Lets the event loop run (a `setTimeout(0)`): in Chromium the test
/// runner's WebDriver calls time out if a test holds the page for ~20 s.
async fn yield_now() {
    let wait = Promise::new(&mut |resolve, _| {
        let set_timeout: Function = Reflect::get(&js_sys::global(), &"setTimeout".into())
            .expect("setTimeout")
            .into();
        set_timeout
            .call2(&JsValue::NULL, &resolve, &JsValue::from(0))
            .expect("setTimeout(resolve, 0)");
    });
    JsFuture::from(wait).await.expect("the timer resolves");
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn the_simd128_kernel_is_compiled_in() {
    // The suite builds with `-C target-feature=+simd128` (test.sh, as
    // build.sh): without it there would be nothing to compare.
    assert!(
        Kernel::Simd128.is_available(),
        "this wasm32 build has no simd128 kernel (RUSTFLAGS without +simd128?)"
    );
    assert_eq!(Kernel::detect(), Kernel::Simd128);
    assert_eq!(Kernel::available(), [Kernel::Portable, Kernel::Simd128]);
}

fn delimiters(bytes: [u8; 4], repetition: bool) -> Delimiters {
    Delimiters {
        element: bytes[0],
        component: bytes[1],
        repetition: repetition.then_some(bytes[2]),
        segment: bytes[3],
    }
}

/// Every form of the kernel equals the portable one on `block` (and on the
/// pair `block`, `next`).
fn same(block: &[u8; BLOCK], next: &[u8; BLOCK], d: &Delimiters) {
    let want = classify_with(Kernel::Portable, block, d);
    assert_eq!(
        classify_with(Kernel::Simd128, block, d),
        want,
        "{d:?} {block:?}"
    );
    let structural = (want.segment, want.skippable());
    assert_eq!(
        structural_with(Kernel::Portable, block, d),
        structural,
        "{d:?} {block:?}"
    );
    assert_eq!(
        structural_with(Kernel::Simd128, block, d),
        structural,
        "{d:?} {block:?}"
    );
    let o = classify_with(Kernel::Portable, next, d);
    let mut pair = [0u8; 2 * BLOCK];
    pair[..BLOCK].copy_from_slice(block);
    pair[BLOCK..].copy_from_slice(next);
    assert_eq!(
        structural2_with(Kernel::Simd128, &pair, d),
        [structural, (o.segment, o.skippable())],
        "{d:?} {pair:?}"
    );
    assert_eq!(
        structural2_with(Kernel::Portable, &pair, d),
        structural2_with(Kernel::Simd128, &pair, d)
    );
}

#[wasm_bindgen_test]
fn simd128_equals_portable_on_random_blocks() {
    the_simd128_kernel_is_compiled_in();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..20_000 {
        let r = rng.next();
        let mut bytes = [0u8; 4];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = if (r >> 40).is_multiple_of(4) {
                (r >> (8 * i)) as u8 // any byte
            } else {
                POOL[(r >> (8 * i)) as usize % POOL.len()]
            };
        }
        let d = delimiters(bytes, !(r >> 32).is_multiple_of(3));
        let mut blocks = [[0u8; BLOCK]; 2];
        for block in blocks.iter_mut() {
            for x in block.iter_mut() {
                let r = rng.next();
                *x = match r % 4 {
                    0 => bytes[(r >> 8) as usize % 4],
                    1 => WS_AND_NEAR[(r >> 8) as usize % WS_AND_NEAR.len()],
                    _ => (r >> 16) as u8,
                };
            }
        }
        same(&blocks[0], &blocks[1], &d);
    }
}

#[wasm_bindgen_test]
async fn simd128_equals_portable_on_edge_blocks() {
    the_simd128_kernel_is_compiled_in();
    let mut sets: Vec<Delimiters> = vec![
        Delimiters::default(),
        delimiters(*b"*:^~", false),
        delimiters(*b"|>^\n", true),
        delimiters(*b"\t:!\n", true),
        delimiters(*b" \x0b\x0c\r", true),
        delimiters(*b"\x80\xff\x7f\x00", true),
        // Equal delimiters (not a valid ISA, but the kernels must agree).
        delimiters(*b"****", true),
        delimiters(*b"\n\n\n\n", false),
    ];
    for &b in POOL {
        sets.push(delimiters([b, b':', b'^', b'~'], true));
        sets.push(delimiters([b'*', b':', b'^', b], true));
    }
    for d in &sets {
        yield_now().await;
        let delims = [
            d.element,
            d.component,
            d.repetition.unwrap_or(b'^'),
            d.segment,
        ];
        // Blocks of one byte: each delimiter, each whitespace byte and its
        // neighbours, and every byte value.
        for b in 0..=255u8 {
            same(&[b; BLOCK], &[!b; BLOCK], d);
        }
        for &x in delims.iter() {
            // One delimiter at every offset of the block (and of the second
            // block of a pair), in filler and in whitespace.
            for filler in [b'A', b' ', b'\n', 0u8, 0xFF] {
                for at in 0..BLOCK {
                    let mut block = [filler; BLOCK];
                    block[at] = x;
                    let mut other = [filler; BLOCK];
                    other[BLOCK - 1 - at] = x;
                    same(&block, &other, d);
                    same(&other, &block, d);
                }
            }
        }
        // Every byte value at every position: byte i of the block is i + k.
        for k in 0..=255u8 {
            let mut block = [0u8; BLOCK];
            for (i, x) in block.iter_mut().enumerate() {
                *x = (i as u8).wrapping_add(k);
            }
            let mut other = block;
            other.reverse();
            same(&block, &other, d);
        }
        // The delimiters cycling (so every lane sees each one).
        let mut block = [0u8; BLOCK];
        for (i, x) in block.iter_mut().enumerate() {
            *x = [
                delims[0], delims[1], delims[2], delims[3], b' ', b'\t', b'\r',
            ][i % 7];
        }
        let mut other = block;
        other.rotate_left(3);
        same(&block, &other, d);
    }
}

#[wasm_bindgen_test]
fn prefixes_shorter_than_a_block_agree_under_each_kernel() {
    the_simd128_kernel_is_compiled_in();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let d = delimiters(*b"*:^~", true);
    let lf = delimiters(*b"\t:^\n", false);
    for round in 0..200 {
        let mut bytes = [0u8; BLOCK + 7];
        for x in bytes.iter_mut() {
            let r = rng.next();
            *x = match r % 3 {
                0 => b"*:^~\t\n \r"[(r >> 8) as usize % 8],
                _ => (r >> 16) as u8,
            };
        }
        for d in [&d, &lf] {
            for len in 0..=bytes.len() {
                let prefix = &bytes[..len];
                assert!(index::set_kernel(Kernel::Portable));
                let want = classify_prefix(prefix, d);
                assert!(index::set_kernel(Kernel::Simd128));
                let got = classify_prefix(prefix, d);
                assert_eq!(got, want, "round {round}, length {len}, {d:?}");
            }
        }
    }
    assert!(index::set_kernel(Kernel::detect()));
}

/// What the tokenizer sees of `input` with the active kernel: every token
/// (offsets, raw bytes, suffixes), the chunk-fed tokens, and the validation
/// and parse JSON.
fn observe(input: &[u8], chunk: usize, parse: bool) -> Vec<u8> {
    fn token(t: &Token<'_>, out: &mut Vec<u8>) {
        match t {
            Token::Segment(s) => {
                out.extend_from_slice(
                    format!("S {} {} {} ", s.index(), s.offset(), s.terminated()).as_bytes(),
                );
                out.extend_from_slice(s.raw());
                out.push(b'|');
                out.extend_from_slice(s.suffix());
                out.push(b'\n');
            }
            Token::Diagnostic(d) => out.extend_from_slice(format!("D {d}\n").as_bytes()),
        }
    }
    let mut out = Vec::new();
    for t in Tokenizer::new(input) {
        token(&t, &mut out);
    }
    out.extend_from_slice(b"--- stream\n");
    let mut st = StreamTokenizer::new();
    let mut at = 0;
    loop {
        match st.next() {
            Pull::Token(t) => token(&t, &mut out),
            Pull::End => break,
            Pull::NeedInput if at < input.len() => {
                let end = (at + chunk).min(input.len());
                st.feed(&input[at..end]);
                at = end;
            }
            Pull::NeedInput => st.finish(),
        }
    }
    out.extend_from_slice(b"--- validate\n");
    out.extend(ops::validate_json(input, &Default::default()));
    if parse {
        out.extend_from_slice(b"--- parse\n");
        out.extend(ops::parse_json(input, &Default::default()));
    }
    out
}

/// `input` observed with the portable kernel and with the simd128 one.
fn same_tokens(name: &str, input: &[u8], chunk: usize, parse: bool) {
    assert!(index::set_kernel(Kernel::Portable));
    let want = observe(input, chunk, parse);
    assert!(index::set_kernel(Kernel::Simd128));
    let got = observe(input, chunk, parse);
    assert!(index::set_kernel(Kernel::detect()));
    if got != want {
        let at = got
            .iter()
            .zip(&want)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(want.len()));
        panic!(
            "{name}: simd128 differs from portable at byte {at}: {:?} vs {:?}",
            String::from_utf8_lossy(&got[at.saturating_sub(60)..(at + 60).min(got.len())]),
            String::from_utf8_lossy(&want[at.saturating_sub(60)..(at + 60).min(want.len())]),
        );
    }
}

/// `SAMPLE` with its delimiters swapped for others (byte for byte: the
/// sample uses `*`, `:`, `^` and `~` only as delimiters).
fn with_delimiters(input: &[u8], [e, c, r, s]: [u8; 4]) -> Vec<u8> {
    input
        .iter()
        .map(|&b| match b {
            b'*' => e,
            b':' => c,
            b'^' => r,
            b'~' => s,
            b => b,
        })
        .collect()
}

#[wasm_bindgen_test]
async fn whole_inputs_tokenize_alike_under_each_kernel() {
    the_simd128_kernel_is_compiled_in();
    assert!(SAMPLE.len() > 4 * BLOCK);
    let variants: Vec<(String, Vec<u8>)> = vec![
        ("sample".into(), SAMPLE.to_vec()),
        ("wrong SE01".into(), BAD_SE01.to_vec()),
        ("| > ^ LF".into(), with_delimiters(SAMPLE, *b"|>^\n")),
        ("TAB : ! CR".into(), with_delimiters(SAMPLE, *b"\t:!\r")),
        (
            "\\x1d \\x1f \\x1c ~".into(),
            with_delimiters(SAMPLE, *b"\x1d\x1f\x1c~"),
        ),
        (
            "line breaks and padding".into(),
            [SAMPLE, b"\r\n\r\n  \t", SAMPLE, b"\n\x1a\x00"].concat(),
        ),
    ];
    for (name, input) in &variants {
        // Whole, chunk-fed in several sizes, with parse JSON.
        for chunk in [1, 7, 63, 64, 65, 4096] {
            same_tokens(name, input, chunk, chunk == 4096);
        }
        // Cut at every length of the first and last 160 bytes: the last
        // block is partial at every offset, in the ISA and after the IEA.
        let n = input.len();
        for len in (0..160.min(n)).chain(n.saturating_sub(160)..n) {
            if len % 40 == 0 {
                yield_now().await;
            }
            same_tokens(
                &format!("{name}, first {len} bytes"),
                &input[..len],
                61,
                false,
            );
        }
    }
    // Random mutations of the sample: delimiters, whitespace and other
    // bytes dropped in anywhere.
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for round in 0..300 {
        if round % 20 == 0 {
            yield_now().await;
        }
        let mut input = SAMPLE.to_vec();
        for _ in 0..(rng.next() % 12) {
            let r = rng.next();
            let at = (r >> 8) as usize % input.len();
            input[at] = match r % 3 {
                0 => b"*:^~\n\r \t"[(r >> 32) as usize % 8],
                _ => (r >> 40) as u8,
            };
        }
        same_tokens(
            &format!("mutation {round}"),
            &input,
            1 + (round % 97),
            false,
        );
    }
}
