//! Re-indenting compact JSON as it is written (the `pretty` output of
//! the streaming writers; a leaf).

use std::io;

/// Re-indents compact JSON on the fly, like `serde_json`'s pretty printer.
pub(crate) struct Pretty<W> {
    inner: W,
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// An opening bracket whose line break waits to see if the container is empty.
    open: Option<u8>,
    out: Vec<u8>,
}

impl<W: io::Write> Pretty<W> {
    pub(crate) fn new(inner: W) -> Self {
        Pretty {
            inner,
            depth: 0,
            in_string: false,
            escaped: false,
            open: None,
            out: Vec::with_capacity(1 << 16),
        }
    }

    fn newline(&mut self) {
        self.out.push(b'\n');
        for _ in 0..self.depth {
            self.out.extend_from_slice(b"  ");
        }
    }
}

impl<W: io::Write> io::Write for Pretty<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for &b in buf {
            if let Some(o) = self.open.take() {
                let close = if o == b'[' { b']' } else { b'}' };
                if b == close {
                    self.out.extend_from_slice(&[o, close]);
                    continue;
                }
                self.out.push(o);
                self.depth += 1;
                self.newline();
            }
            if self.in_string {
                self.out.push(b);
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    self.out.push(b);
                }
                b'[' | b'{' => self.open = Some(b),
                b']' | b'}' => {
                    self.depth = self.depth.saturating_sub(1);
                    self.newline();
                    self.out.push(b);
                }
                b',' => {
                    self.out.push(b);
                    self.newline();
                }
                b':' => self.out.extend_from_slice(b": "),
                _ => self.out.push(b),
            }
        }
        if self.out.len() >= 1 << 16 {
            self.inner.write_all(&self.out)?;
            self.out.clear();
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(o) = self.open.take() {
            self.out.push(o);
        }
        self.inner.write_all(&self.out)?;
        self.out.clear();
        self.inner.flush()
    }
}
