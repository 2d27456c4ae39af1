//! The process allocator and how it gives memory back.
//!
//! mimalloc (see Cargo.toml) is the global allocator. Two of its defaults (version 3)
//! made the server's resident memory follow what it once allocated rather than what it
//! holds, measured on a 128 MiB inbound body (`tests/stream.rs`, whose live heap peaks
//! at ~17 MiB): the peak grew by 50 to 94 MiB.
//!
//! - Its arenas are advised `MADV_HUGEPAGE`, so a 2 MiB huge page stays resident while
//!   any 4 KiB of it is used: 57 of the 77 MiB resident were huge pages, and an idle
//!   server took 77 MiB instead of 46.
//! - Freed pages are given back to the system after 1 s (`purge_delay`), so a second of
//!   large, short-lived allocations (each set's mapped document, a batch of records) is
//!   resident at once.
//!
//! [`tune`] turns transparent huge pages off for the process and gives freed pages back
//! after 10 ms (mimalloc 2's default): the same body then grows the peak by 16 to 23 MiB,
//! close to what the live heap does. An operator's `MIMALLOC_ALLOW_THP` or `MIMALLOC_PURGE_DELAY`
//! (mimalloc's own environment options) is left to decide instead.

/// See Cargo.toml: fewer cycles per allocation than glibc's malloc on the many small
/// allocations of a request.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (its `mimalloc.h`; the option numbers are stable
/// across its releases, deprecated ones keeping their place).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// How long freed pages stay before they are given back, in milliseconds.
const PURGE_DELAY_MS: std::ffi::c_long = 10;

unsafe extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// Applies the settings above; called first thing in `main`.
pub fn tune() {
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // The flag is the process's: faults from now on are served with 4 KiB pages,
        // in the arenas mapped before too.
        // SAFETY: PR_SET_THP_DISABLE takes an integer flag and no pointer.
        #[cfg(target_os = "linux")]
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
        }
    }
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: an option number and a value; mimalloc reads the option at each purge.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" {
        fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
        fn mi_version() -> std::ffi::c_int;
    }

    #[test]
    fn tune_sets_mimalloc_3s_purge_delay_and_turns_huge_pages_off() {
        // The option number is mimalloc 3's: a change of major version must be looked at.
        let version = unsafe { mi_version() };
        assert_eq!(version / 10000, 3, "mimalloc {version}");
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some()
            || std::env::var_os("MIMALLOC_ALLOW_THP").is_some()
        {
            panic!("run without MIMALLOC_PURGE_DELAY and MIMALLOC_ALLOW_THP set");
        }
        // mimalloc 3's default before, ours after.
        assert_eq!(unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }, 1000);
        tune();
        assert_eq!(
            unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) },
            PURGE_DELAY_MS
        );
        #[cfg(target_os = "linux")]
        assert_eq!(
            unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) },
            1
        );
    }
}
