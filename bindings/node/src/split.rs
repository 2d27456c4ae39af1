//! Splits JSON text so that JS can build its objects in slices and yield to
//! the event loop between them (`parseAsync`).
//!
//! Generic JSON, no X12 knowledge. The *skeleton* is the JSON with runs of
//! consecutive array items replaced by a placeholder object `{"\u0000": k}`;
//! run `k` is the byte range of those items (with the commas between them),
//! at most about [`LIMIT`] bytes, which JS parses as `[` + run + `]` and
//! splices back. Containers larger than [`LIMIT`] stay in the skeleton as
//! structure (their small members inline), so the skeleton holds only what
//! lies above the large arrays. Input of at most [`LIMIT`] bytes, or input
//! that is not well-formed, is not split (one run-less skeleton: the JSON).

/// The largest run, and the size above which a container is split.
pub const LIMIT: usize = 256 * 1024;

/// A skeleton and its runs (start and end byte offsets in the JSON, in pairs).
#[derive(Debug, Default, PartialEq)]
pub struct Split {
    pub skeleton: Vec<u8>,
    pub runs: Vec<f64>,
}

/// Splits `json` with runs of at most about `limit` bytes.
pub fn split(json: &[u8], limit: usize) -> Split {
    let limit = limit.max(1);
    let whole = || Split {
        skeleton: json.to_vec(),
        runs: Vec::new(),
    };
    if json.len() <= limit {
        return whole();
    }
    let Some(large) = large_containers(json, limit) else {
        return whole();
    };
    let mut s = Splitter {
        json,
        large,
        limit,
        out: Vec::with_capacity(64 * 1024),
        runs: Vec::new(),
    };
    let start = s.ws(0);
    match s.value(start, 0) {
        Some(end) if s.ws(end) == json.len() => Split {
            skeleton: s.out,
            runs: s.runs,
        },
        _ => whole(),
    }
}

/// Start offsets of the containers longer than `limit`, sorted; `None` when
/// the brackets or strings do not balance.
fn large_containers(json: &[u8], limit: usize) -> Option<Vec<usize>> {
    let mut stack = Vec::new();
    let mut large = Vec::new();
    let mut i = 0;
    while i < json.len() {
        match json[i] {
            b'"' => i = string_end(json, i)? - 1,
            b'{' | b'[' => stack.push(i),
            b'}' | b']' => {
                let start = stack.pop()?;
                if i + 1 - start > limit {
                    large.push(start);
                }
            }
            _ => {}
        }
        i += 1;
    }
    if !stack.is_empty() {
        return None;
    }
    large.sort_unstable();
    Some(large)
}

/// The offset after the string that starts (with its quote) at `i`.
fn string_end(json: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        match json.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
}

/// The offset after the value that starts at `i` (not checked in depth:
/// only its extent is needed).
fn value_end(json: &[u8], i: usize) -> Option<usize> {
    match json.get(i)? {
        b'"' => string_end(json, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match json.get(j)? {
                    b'"' => j = string_end(json, j)? - 1,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while let Some(c) = json.get(j) {
                if matches!(c, b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t') {
                    break;
                }
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

struct Splitter<'j> {
    json: &'j [u8],
    large: Vec<usize>,
    limit: usize,
    out: Vec<u8>,
    runs: Vec<f64>,
}

/// Nesting deeper than this is left unsplit (the core's JSON is far shallower).
const MAX_DEPTH: usize = 256;

impl Splitter<'_> {
    fn ws(&self, mut i: usize) -> usize {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.json.get(i) {
            i += 1;
        }
        i
    }

    fn is_large(&self, i: usize) -> bool {
        self.large.binary_search(&i).is_ok()
    }

    /// Writes the skeleton of the value at `i`; returns the offset after it.
    fn value(&mut self, i: usize, depth: usize) -> Option<usize> {
        if depth > MAX_DEPTH {
            return None;
        }
        if !self.is_large(i) {
            let end = value_end(self.json, i)?;
            self.out.extend_from_slice(&self.json[i..end]);
            return Some(end);
        }
        let json = self.json;
        let close = if json[i] == b'[' { b']' } else { b'}' };
        self.out.push(json[i]);
        let mut j = self.ws(i + 1);
        if json.get(j) == Some(&close) {
            self.out.push(close);
            return Some(j + 1);
        }
        let mut first = true;
        let mut run: Option<(usize, usize)> = None;
        loop {
            if close == b']' {
                if self.is_large(j) {
                    self.flush(&mut run, &mut first);
                    if !first {
                        self.out.push(b',');
                    }
                    first = false;
                    j = self.value(j, depth + 1)?;
                } else {
                    let end = value_end(json, j)?;
                    if run.is_some_and(|(s, _)| end - s > self.limit) {
                        self.flush(&mut run, &mut first);
                    }
                    run = Some((run.map_or(j, |(s, _)| s), end));
                    j = end;
                }
            } else {
                // A member: the key as it is, then its value.
                if !first {
                    self.out.push(b',');
                }
                first = false;
                let key_end = string_end(json, j).filter(|_| json[j] == b'"')?;
                self.out.extend_from_slice(&json[j..key_end]);
                j = self.ws(key_end);
                if json.get(j) != Some(&b':') {
                    return None;
                }
                self.out.push(b':');
                j = self.value(self.ws(j + 1), depth + 1)?;
            }
            j = self.ws(j);
            match json.get(j)? {
                b',' => j = self.ws(j + 1),
                c if *c == close => {
                    self.flush(&mut run, &mut first);
                    self.out.push(close);
                    return Some(j + 1);
                }
                _ => return None,
            }
        }
    }

    /// Writes the placeholder of the pending run, if any.
    fn flush(&mut self, run: &mut Option<(usize, usize)>, first: &mut bool) {
        if let Some((start, end)) = run.take() {
            if !*first {
                self.out.push(b',');
            }
            *first = false;
            let k = self.runs.len() / 2;
            self.out
                .extend_from_slice(format!("{{\"\\u0000\":{k}}}").as_bytes());
            self.runs.push(start as f64);
            self.runs.push(end as f64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &Split) -> String {
        String::from_utf8(s.skeleton.clone()).unwrap()
    }

    #[test]
    fn small_input_is_not_split() {
        let s = split(b"[1,2,3]", 100);
        assert_eq!(text(&s), "[1,2,3]");
        assert!(s.runs.is_empty());
    }

    #[test]
    fn runs_of_items_become_placeholders() {
        let json = br#"{"a":[{"x":"1"},{"x":"2"},{"x":"3"}],"b":"q"}"#;
        let s = split(json, 20);
        assert_eq!(text(&s), r#"{"a":[{"\u0000":0},{"\u0000":1}],"b":"q"}"#);
        let runs: Vec<&str> = s
            .runs
            .chunks(2)
            .map(|r| std::str::from_utf8(&json[r[0] as usize..r[1] as usize]).unwrap())
            .collect();
        assert_eq!(runs, [r#"{"x":"1"},{"x":"2"}"#, r#"{"x":"3"}"#]);
    }

    #[test]
    fn large_items_are_descended_and_strings_with_brackets_skipped() {
        let json = br#"[{"s":["]\"[","}{","ab"]},"z"]"#;
        let s = split(json, 12);
        assert_eq!(
            text(&s),
            r#"[{"s":[{"\u0000":0},{"\u0000":1}]},{"\u0000":2}]"#
        );
    }

    #[test]
    fn malformed_input_is_returned_whole() {
        for bad in [
            &b"[1,2,3"[..],
            b"[1,2]]",
            b"{\"a\" 1, \"b\": [1,2,3,4,5]}",
            b"[\"abc",
        ] {
            let s = split(bad, 2);
            assert_eq!(s.skeleton, bad);
            assert!(s.runs.is_empty());
        }
    }
}
