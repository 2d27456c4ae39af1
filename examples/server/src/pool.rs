//! Reused response buffers of `POST /parse`.
//!
//! The parse result JSON of a 1 MB interchange is about 4.3 MB. Written into a
//! fresh `Vec` each request, it grows by doubling (each step a `realloc` that
//! copies what is there: about 7 % of the server's CPU under the benchmark's
//! load) into pages that the allocator gives back and the kernel zeroes again
//! (page faults). A buffer taken from here already has the capacity of an
//! earlier result: the core writes into it (`ops::parse_json_into`), the
//! response body owns it (`Bytes::from_owner`, no copy), and when hyper has
//! sent the last byte and drops the body, the buffer comes back here, cleared.
//!
//! Bounded: at most [`KEPT_PER_CORE`] buffers per core are kept (as many as
//! there can be results being written and sent at once under steady load),
//! and a buffer above [`KEEP_CAPACITY`] is freed instead of kept, so an idle
//! server holds at most a few tens of MB for it (about 4.3 MB of touched pages
//! per kept buffer after 1 MB requests).

use axum::body::Bytes;
use std::sync::{Mutex, OnceLock};

/// Buffers kept per core.
const KEPT_PER_CORE: usize = 2;

/// The largest capacity kept (the result of a 3 MB interchange with
/// documents fits); larger buffers, of rarer large requests, are freed.
pub const KEEP_CAPACITY: usize = 16 << 20;

fn kept() -> &'static Mutex<Vec<Vec<u8>>> {
    static KEPT: OnceLock<Mutex<Vec<Vec<u8>>>> = OnceLock::new();
    KEPT.get_or_init(|| Mutex::new(Vec::new()))
}

fn most() -> usize {
    static MOST: OnceLock<usize> = OnceLock::new();
    *MOST
        .get_or_init(|| KEPT_PER_CORE * std::thread::available_parallelism().map_or(2, |n| n.get()))
}

/// An empty buffer: a kept one (the largest) or a new one.
pub fn take() -> Vec<u8> {
    kept()
        .lock()
        .ok()
        .and_then(|mut k| k.pop())
        .unwrap_or_default()
}

/// Gives a buffer back (cleared); freed instead when it is too large or enough are kept.
pub fn give_back(mut buf: Vec<u8>) {
    if buf.capacity() == 0 || buf.capacity() > KEEP_CAPACITY {
        return;
    }
    buf.clear();
    let Ok(mut k) = kept().lock() else {
        return;
    };
    if k.len() < most() {
        k.push(buf);
        // The largest last, so that `take` gives it first.
        k.sort_unstable_by_key(Vec::capacity);
    }
}

/// A buffer that goes back to the pool when the last `Bytes` of it is dropped.
struct Owned(Vec<u8>);

impl AsRef<[u8]> for Owned {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        give_back(std::mem::take(&mut self.0));
    }
}

/// The buffer as a response body, without a copy; back to the pool once sent.
pub fn into_bytes(buf: Vec<u8>) -> Bytes {
    Bytes::from_owner(Owned(buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sent_buffer_comes_back_cleared_with_its_capacity() {
        let mut buf = take();
        buf.extend_from_slice(&[b'x'; 100_000]);
        let cap = buf.capacity();
        let bytes = into_bytes(buf);
        assert_eq!(bytes.len(), 100_000);
        let copy = bytes.clone();
        drop(bytes);
        assert_eq!(copy.len(), 100_000, "a clone keeps the buffer alive");
        drop(copy);
        let again = take();
        assert!(again.is_empty());
        assert!(again.capacity() >= cap);
        give_back(again);
    }

    #[test]
    fn a_buffer_above_the_cap_is_freed() {
        let big = Vec::<u8>::with_capacity(KEEP_CAPACITY + 1);
        give_back(big);
        let k = kept()
            .lock()
            .map(|k| k.iter().all(|b| b.capacity() <= KEEP_CAPACITY));
        assert_eq!(k.ok(), Some(true));
    }
}
