//! Inputs of any size for the CLI and the bindings (I/O adaptation only: no
//! X12 here). A file is mapped read-only rather than read, a stream that is
//! not a file (a Python file object, a Node `Readable`) is spooled to an
//! anonymous temporary file first, and the pages the parser has gone past
//! are dropped as it goes ([`Input::release`], [`Input::drop_pages`]), so
//! the memory a parse a set at a time takes (`x12kit::sets::parse_sets`)
//! follows the largest set, not the file.

use std::io::{self, Write};
use std::path::Path;

/// Input bytes: a read-only memory map for regular files (no copy), a buffer otherwise.
#[derive(Debug)]
pub enum Input {
    /// A mapped file.
    Mapped(memmap2::Mmap),
    /// Bytes read into memory (an empty file, something that cannot be mapped).
    Read(Vec<u8>),
}

impl std::ops::Deref for Input {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Input::Mapped(m) => m,
            Input::Read(v) => v,
        }
    }
}

/// Granularity of the pages dropped.
const PAGE: usize = 1 << 16;

/// Maps `f` when it is a non-empty regular file.
fn map(f: &std::fs::File) -> io::Result<Option<memmap2::Mmap>> {
    let meta = f.metadata()?;
    if meta.is_file() && meta.len() > 0 {
        // SAFETY: the map is read-only; as with any mmap-based tool,
        // truncating the file while x12kit reads it is undefined behaviour,
        // which the READMEs document (a spooled file is x12kit's own and
        // already unlinked).
        if let Ok(m) = unsafe { memmap2::Mmap::map(f) } {
            return Ok(Some(m));
        }
    }
    Ok(None)
}

impl Input {
    /// Opens a file, mapping it when possible (else reading it).
    pub fn open(path: &Path) -> io::Result<Input> {
        let f = std::fs::File::open(path)?;
        match map(&f)? {
            Some(m) => Ok(Input::Mapped(m)),
            None => std::fs::read(path).map(Input::Read),
        }
    }

    /// Copies a stream into an anonymous temporary file (removed when the
    /// input is dropped, or at once where the system allows) and maps it:
    /// `read(buf)` fills `buf` and returns how many bytes it put there, 0 at
    /// the end. Memory is one buffer of `chunk` bytes, whatever the size of
    /// the stream.
    pub fn spool(
        chunk: usize,
        mut read: impl FnMut(&mut [u8]) -> io::Result<usize>,
    ) -> io::Result<Input> {
        let mut f = tempfile::tempfile()?;
        let mut buf = vec![0u8; chunk.max(1)];
        loop {
            let n = read(&mut buf)?;
            if n == 0 {
                break;
            }
            f.write_all(&buf[..n.min(buf.len())])?;
        }
        f.flush()?;
        match map(&f)? {
            Some(m) => Ok(Input::Mapped(m)),
            None => Ok(Input::Read(Vec::new())),
        }
    }

    /// Drops the resident pages of a mapped input from `from` (where the
    /// last call ended; 2 MiB before it, see below) to `upto` (whole pages
    /// only), which the parser will not read again; returns where the
    /// dropped range ends. A no-op for a buffer.
    pub fn release(&self, from: usize, upto: usize) -> usize {
        #[cfg(unix)]
        if let Input::Mapped(m) = self {
            // A fault maps the whole folio around the page read (up to 2 MiB
            // on a file system with large folios), so pages just before
            // `from`, dropped by the last call, can be mapped again: the range
            // dropped starts that much earlier.
            const BEHIND: usize = 2 << 20;
            let end = upto.min(m.len()) / PAGE * PAGE;
            if end > from {
                let start = from.saturating_sub(BEHIND) / PAGE * PAGE;
                // SAFETY: the map is private and read-only and was never
                // written: MADV_DONTNEED only drops its pages, and a later read
                // of that range loads the same file bytes again.
                let _ = unsafe {
                    m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
                };
                return end;
            }
        }
        let _ = upto;
        from
    }

    /// Drops the resident pages of a mapped input within `from..to` (whole
    /// pages only): input read ahead that is read again later (loaded again
    /// then). A no-op for a buffer.
    pub fn drop_pages(&self, from: usize, to: usize) {
        #[cfg(unix)]
        if let Input::Mapped(m) = self {
            let (start, end) = (from.div_ceil(PAGE) * PAGE, to.min(m.len()) / PAGE * PAGE);
            if end > start {
                // SAFETY: as in `release`: a private read-only map that was
                // never written; a later read loads the same file bytes again.
                let _ = unsafe {
                    m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
                };
            }
        }
        let _ = (from, to);
    }
}

#[cfg(test)]
mod tests {
    use super::Input;

    #[test]
    fn spooled_and_mapped_inputs_give_the_bytes_back_after_their_pages_are_dropped() {
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        let mut at = 0;
        let input = Input::spool(4096, |buf| {
            let n = buf.len().min(data.len() - at);
            buf[..n].copy_from_slice(&data[at..at + n]);
            at += n;
            Ok(n)
        })
        .unwrap();
        assert_eq!(&input[..], &data[..]);
        let end = input.release(0, 2_500_000);
        assert!(end <= 2_500_000);
        input.drop_pages(100, 2_900_000);
        assert_eq!(&input[..], &data[..]);
        let empty = Input::spool(16, |_| Ok(0)).unwrap();
        assert!(empty.is_empty());
        let dir = std::env::temp_dir().join(format!("x12kit-mapped-{}", std::process::id()));
        std::fs::write(&dir, &data[..1000]).unwrap();
        let opened = Input::open(&dir).unwrap();
        assert_eq!(&opened[..], &data[..1000]);
        std::fs::remove_file(&dir).unwrap();
    }
}
