//! The UTF-8 report of a parse (`INVALID_UTF8` warnings, one per run of
//! bad bytes, at most [`UTF8_REPORTS`] then one saying more follow): the
//! one check [`crate::parse`], [`crate::envelope::parse_each`] and the
//! streaming validator run. The input is fed in chunks of any size: a
//! multi-byte sequence split between two chunks is carried (at most 3
//! bytes) and checked with the bytes that follow it, so the reports are the
//! same whatever the chunking.

use crate::diagnostics::{Code, Diagnostic};

/// How many invalid UTF-8 sequences are reported (then one warning that
/// more follow).
pub const UTF8_REPORTS: usize = 10;

/// The `INVALID_UTF8` warning for `byte` at `offset`, the start of an invalid sequence.
fn invalid_utf8(byte: u8, offset: usize) -> Diagnostic {
    Diagnostic::warning(
        Code::InvalidUtf8,
        format!(
            "byte 0x{byte:02X} at offset {offset} is not valid UTF-8; it appears as U+FFFD in JSON output, so writing the JSON back will not reproduce it (is the file in another encoding such as Latin-1?)"
        ),
    )
    .at_offset(offset)
}

/// The `INVALID_UTF8` warning that ends the reports.
fn utf8_limit() -> Diagnostic {
    Diagnostic::warning(
        Code::InvalidUtf8,
        "more invalid UTF-8 sequences follow; only the first 10 are reported",
    )
}

/// The UTF-8 check of an input fed in order: [`feed`](Utf8Check::feed)
/// each chunk, then [`finish`](Utf8Check::finish) for the warnings.
#[derive(Debug, Default)]
pub struct Utf8Check {
    /// Input offset of the next byte fed.
    offset: usize,
    /// The start of a sequence the last chunk ended in (a valid prefix).
    carry: [u8; 3],
    carried: usize,
    reported: usize,
    /// The limit was reached: nothing more is checked.
    done: bool,
    found: Vec<Diagnostic>,
}

impl Utf8Check {
    /// Checks the next chunk of the input.
    pub fn feed(&mut self, chunk: &[u8]) {
        let base = self.offset;
        self.offset += chunk.len();
        if self.done {
            return;
        }
        let mut rest = chunk;
        if self.carried > 0 {
            // The carried bytes and up to 3 that follow decide the split sequence.
            let take = rest.len().min(3);
            let mut joined = [0u8; 6];
            let n = self.carried;
            joined[..n].copy_from_slice(&self.carry[..n]);
            joined[n..n + take].copy_from_slice(&rest[..take]);
            let used = self.scan(&joined[..n + take], base - n, false);
            if used < n {
                // Still incomplete (the chunk is shorter than the sequence).
                let left = n + take - used;
                self.carry[..left].copy_from_slice(&joined[used..n + take]);
                self.carried = left;
                return;
            }
            self.carried = 0;
            rest = &rest[used - n..];
        }
        let start = base + (chunk.len() - rest.len());
        let used = self.scan(rest, start, false);
        let left = rest.len() - used;
        self.carry[..left].copy_from_slice(&rest[used..]);
        self.carried = left;
    }

    /// Ends the input and returns the warnings (in input order).
    pub fn finish(mut self) -> Vec<Diagnostic> {
        if self.carried > 0 && !self.done {
            let n = self.carried;
            let carry = self.carry;
            self.scan(&carry[..n], self.offset - n, true);
        }
        self.found
    }

    /// Checks `buf` (input offset `base`); returns how many bytes were checked: all but an unfinished sequence at the end
    /// when more input may follow (`eof` false).
    fn scan(&mut self, buf: &[u8], base: usize, eof: bool) -> usize {
        if self.done || buf.is_ascii() {
            return buf.len();
        }
        let mut at = 0;
        while at < buf.len() {
            let e = match std::str::from_utf8(&buf[at..]) {
                Ok(_) => break,
                Err(e) => e,
            };
            let bad = at + e.valid_up_to();
            if e.error_len().is_none() && !eof {
                return bad;
            }
            if self.reported == UTF8_REPORTS {
                self.found.push(utf8_limit());
                self.done = true;
                break;
            }
            self.found.push(invalid_utf8(buf[bad], base + bad));
            self.reported += 1;
            at = bad + e.error_len().unwrap_or(buf.len() - bad);
        }
        buf.len()
    }

    /// Heap bytes held (the warnings found).
    pub fn retained_bytes(&self) -> usize {
        self.found.capacity() * std::mem::size_of::<Diagnostic>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The warnings of the whole input at once, as text.
    fn whole(input: &[u8]) -> Vec<String> {
        let mut c = Utf8Check::default();
        c.feed(input);
        c.finish().iter().map(|d| format!("{d:?}")).collect()
    }

    fn chunked(input: &[u8], sizes: &[usize]) -> Vec<String> {
        let mut c = Utf8Check::default();
        let mut at = 0;
        let mut k = 0;
        while at < input.len() {
            let end = (at + sizes[k % sizes.len()]).min(input.len());
            c.feed(&input[at..end]);
            at = end;
            k += 1;
        }
        c.feed(b"");
        c.finish().iter().map(|d| format!("{d:?}")).collect()
    }

    #[test]
    fn split_sequences_are_checked_whole() {
        let mut inputs: Vec<Vec<u8>> = vec![
            "Caf\u{e9} \u{20ac} \u{1f600}!".into(),
            b"ab\xff\xfecd".to_vec(),
            b"\xe2\x82".to_vec(),
            b"x\xe2\x82Ay\xf0\x9f\x98".to_vec(),
            b"\xf0\x9f\x98\x80\xf0\x9f\xc3\xa9\xed\xa0\x80\xc0\xaf".to_vec(),
            (0..40u8).flat_map(|i| [b'a', 0x80 + i, 0xC3]).collect(),
        ];
        // Every byte value at every place of a short window.
        for b in [0x80u8, 0xBF, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF] {
            inputs.push(vec![b'A', b, 0x80, 0x80, 0x80, b'B', b]);
        }
        for input in &inputs {
            let expected = whole(input);
            for sizes in [&[1][..], &[2], &[3], &[5], &[1, 2, 3], &[7], &[4096]] {
                assert_eq!(chunked(input, sizes), expected, "{input:?} in {sizes:?}");
            }
        }
        assert_eq!(whole(b"ab\xff\xfecd").len(), 2);
        assert_eq!(whole(&inputs[5]).len(), 11);
    }
}
