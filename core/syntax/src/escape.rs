//! JSON string escaping, as serde_json escapes: the one implementation the
//! error JSON ([`crate::error::Error::to_json`]) and the parse result's
//! writer (`x12kit-json`) share. A leaf: it uses no other module.

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends the inside of a JSON string holding `b` (UTF-8): `"`, `\` and
/// control characters escaped as serde_json does (`\n`, `\b`, …, else
/// `\u00XX`), everything else as it is.
pub fn escape_into(b: &[u8], out: &mut Vec<u8>) {
    let mut run = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0C => b"\\f",
            0..=0x1F => b"",
            _ => continue,
        };
        out.extend_from_slice(&b[run..i]);
        if esc.is_empty() {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(c >> 4) as usize],
                HEX[(c & 15) as usize],
            ]);
        } else {
            out.extend_from_slice(esc);
        }
        run = i + 1;
    }
    out.extend_from_slice(&b[run..]);
}

/// Appends `s` as a JSON string, quotes included.
pub fn string_into(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    escape_into(s.as_bytes(), out);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    #[test]
    fn escape_into_writes_what_serde_json_writes() {
        let all: String = (0u8..0x80).map(char::from).chain("é€😀".chars()).collect();
        let mut out = Vec::new();
        super::string_into(&all, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string(&all).unwrap()
        );
    }
}
