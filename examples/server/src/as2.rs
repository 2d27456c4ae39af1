//! AS2 (RFC 4130): EDI over HTTP as S/MIME, with signed receipts (MDNs).
//!
//! - [`smime`]: the cryptography, all OpenSSL's CMS (signatures, their verification
//!   against the partner's pinned certificate, encryption, decryption) and RFC 3274
//!   compression; certificates and keys from PEM; MICs.
//! - [`mime`]: the MIME entities (built byte for byte, parsed with mail-parser).
//! - [`mdn`]: receipts: building ours, reading and verifying the partner's.
//! - [`inbound`]: `POST /as2/{account}`: the partner's messages and asynchronous MDNs.
//!
//! The outbound side is the `as2` transport ([`crate::transport::as2`]).

pub mod inbound;
pub mod mdn;
pub mod mime;
pub mod smime;

/// The `AS2-Version` this server speaks (1.2: compression, RFC 5402).
pub const VERSION: &str = "1.2";

/// True for an AS2 name (RFC 4130 §6.2: 1 to 128 printable ASCII characters).
pub fn valid_name(name: &str) -> bool {
    (1..=128).contains(&name.len()) && name.bytes().all(|b| (0x20..0x7f).contains(&b))
}

/// An AS2 name as a header value: quoted when it holds a space, a quote or a backslash.
pub fn quote_name(name: &str) -> String {
    if name.contains([' ', '"', '\\']) {
        format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        name.to_string()
    }
}

/// An `AS2-From`/`AS2-To` header value unquoted (again while it is still quoted: some
/// implementations quote a name they received quoted).
pub fn unquote_name(value: &str) -> String {
    let mut v = unquote_once(value);
    for _ in 0..3 {
        if !(v.len() >= 2 && v.starts_with('"') && v.ends_with('"')) {
            break;
        }
        v = unquote_once(&v);
    }
    v
}

fn unquote_once(value: &str) -> String {
    let v = value.trim();
    match v.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        Some(inner) => {
            let mut out = String::new();
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                } else {
                    out.push(c);
                }
            }
            out
        }
        None => v.to_string(),
    }
}

/// A `Message-ID` without its angle brackets.
pub fn bare_id(value: &str) -> String {
    value
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ids() {
        assert!(valid_name("X12KIT ALPHA"));
        assert!(!valid_name(""));
        assert!(!valid_name(&"a".repeat(129)));
        assert!(!valid_name("tab\there"));
        assert_eq!(quote_name("plain"), "plain");
        assert_eq!(quote_name("a b"), "\"a b\"");
        assert_eq!(unquote_name(&quote_name("a \"b\\")), "a \"b\\");
        assert_eq!(unquote_name(" plain "), "plain");
        assert_eq!(unquote_name(r#""\"A B\"""#), "A B");
        assert_eq!(bare_id(" <abc@x> "), "abc@x");
    }
}
