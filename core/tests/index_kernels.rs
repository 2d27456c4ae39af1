//! The kernels of the structural index (`x12kit::index`: portable, SSE2,
//! AVX2) against each other on every corpus file and every vector input:
//! the same masks block by block, and the same tokens, element / repetition
//! / component splits, chunk-fed tokens and parse JSON with each kernel
//! active. One test per file: the active kernel is process-wide.

mod common;

use x12kit::Delimiters;
use x12kit::index::{self, Kernel, classify_with};

/// Every 64-byte window of `input` (at every offset modulo 64 for small
/// inputs, at block offsets for large ones) classified by every kernel.
fn same_masks(name: &str, input: &[u8], d: &Delimiters, kernels: &[Kernel]) -> usize {
    let step = if input.len() < 64 * 1024 { 1 } else { 61 };
    let mut n = 0;
    let mut at = 0;
    while at + 64 <= input.len() {
        let block: &[u8; 64] = input[at..at + 64].try_into().unwrap();
        let want = classify_with(Kernel::Portable, block, d);
        for &k in kernels {
            assert_eq!(classify_with(k, block, d), want, "{name} at {at}: {k:?}");
        }
        n += 1;
        at += step;
    }
    n
}

#[test]
fn every_kernel_splits_every_corpus_file_and_vector_alike() {
    let kernels = Kernel::available();
    #[cfg(target_arch = "x86_64")]
    assert!(kernels.contains(&Kernel::Sse2), "{kernels:?}");
    // Every committed input and its variants (always), and the corpus when it is there.
    let mut files: Vec<(String, Vec<u8>)> = common::committed_inputs();
    assert!(files.len() >= 300, "only {} committed inputs", files.len());
    let corpus = common::corpus_dir();
    if let Some(dir) = &corpus {
        for (name, path) in common::corpus_files(dir) {
            files.push((name, std::fs::read(path).unwrap()));
        }
    }
    let mut blocks = 0;
    for (name, input) in &files {
        let input = input.as_slice();
        // The file's own delimiters (first interchange), and the default ones.
        let own = x12kit::segments(input).next().map(|s| s.delimiters());
        for d in own.iter().chain([&Delimiters::default()]) {
            blocks += same_masks(name, input, d, &kernels);
        }
        let mut seen: Vec<(Kernel, String)> = Vec::new();
        for &k in &kernels {
            assert!(index::set_kernel(k));
            assert_eq!(index::kernel(), k);
            seen.push((k, common::observe(input, &[7, 64, 1, 4093])));
        }
        let (_, want) = &seen[0];
        for (k, got) in &seen[1..] {
            if got != want {
                let at = got
                    .bytes()
                    .zip(want.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(got.len().min(want.len()));
                panic!(
                    "{name}: {k:?} differs from the portable kernel at byte {at}: {:?} vs {:?}",
                    &got[at.saturating_sub(80)..(at + 80).min(got.len())],
                    &want[at.saturating_sub(80)..(at + 80).min(want.len())]
                );
            }
        }
    }
    assert!(blocks > 1000, "{blocks} blocks compared");
    eprintln!(
        "{} files ({} corpus), {blocks} blocks, kernels {kernels:?}",
        files.len(),
        if corpus.is_some() { "with" } else { "without" }
    );
}
