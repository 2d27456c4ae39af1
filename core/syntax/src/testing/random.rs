//! Pseudo-random numbers for tests that try many cases (a leaf: the index
//! kernels' own tests use it).

/// A deterministic stream of pseudo-random numbers (xorshift64) from `seed`
/// (not zero), for tests that try many cases.
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}
