//! The MIME entities of AS2.
//!
//! Built here byte for byte: what is signed must be exactly what is sent and what the
//! partner hashes again, so the few fixed shapes AS2 uses (the payload, `multipart/signed`,
//! `application/pkcs7-mime`, the `multipart/report` of an MDN) are written with plain CRLF
//! header lines, no folding, and a random boundary. Parsed with mail-parser (Stalwart's),
//! which also gives the raw byte range of each part: a detached signature covers the
//! first part of `multipart/signed` exactly as it came.

use base64::Engine;
use mail_parser::{MessageParser, MimeHeaders, PartType};

/// A MIME entity to send: its headers and its body.
#[derive(Debug, Clone)]
pub struct Built {
    /// Header lines (name, value), in order, `Content-Type` first.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Built {
    /// Headers and body as one entity (what is signed, encrypted or compressed).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.body.len() + 256);
        for (k, v) in &self.headers {
            out.extend_from_slice(k.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(v.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&self.body);
        out
    }

    /// The `Content-Type` value.
    #[cfg(test)]
    pub fn content_type(&self) -> &str {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map_or("application/octet-stream", |(_, v)| v.as_str())
    }
}

/// The X12 payload entity (`application/edi-x12`, binary).
pub fn payload(x12: &[u8], filename: &str) -> Built {
    Built {
        headers: vec![
            ("Content-Type".into(), "application/edi-x12".into()),
            ("Content-Transfer-Encoding".into(), "binary".into()),
            (
                "Content-Disposition".into(),
                format!("attachment; filename=\"{filename}\""),
            ),
        ],
        body: x12.to_vec(),
    }
}

/// An `application/pkcs7-mime` entity (`enveloped-data`, `compressed-data`), binary.
pub fn pkcs7_mime(smime_type: &str, file: &str, der: Vec<u8>) -> Built {
    Built {
        headers: vec![
            (
                "Content-Type".into(),
                format!("application/pkcs7-mime; smime-type={smime_type}; name=\"{file}\""),
            ),
            ("Content-Transfer-Encoding".into(), "binary".into()),
            (
                "Content-Disposition".into(),
                format!("attachment; filename=\"{file}\""),
            ),
        ],
        body: der,
    }
}

/// A fresh boundary (random: it cannot occur in the parts).
pub fn boundary() -> String {
    let mut b = [0u8; 16];
    let _ = getrandom::fill(&mut b);
    format!("----=_x12kit_{}", hex::encode(b))
}

/// `multipart/signed` of `signed` (an entity's bytes) and its detached signature (DER).
pub fn signed(signed: &[u8], signature: &[u8], micalg: &str) -> Built {
    let b = boundary();
    let mut body = Vec::with_capacity(signed.len() + signature.len() * 2 + 512);
    body.extend_from_slice(format!("--{b}\r\n").as_bytes());
    body.extend_from_slice(signed);
    body.extend_from_slice(format!("\r\n--{b}\r\n").as_bytes());
    body.extend_from_slice(
        b"Content-Type: application/pkcs7-signature; name=\"smime.p7s\"; smime-type=signed-data\r\n\
          Content-Transfer-Encoding: base64\r\n\
          Content-Disposition: attachment; filename=\"smime.p7s\"\r\n\r\n",
    );
    body.extend_from_slice(&base64_lines(signature));
    body.extend_from_slice(format!("--{b}--\r\n").as_bytes());
    Built {
        headers: vec![(
            "Content-Type".into(),
            format!(
                "multipart/signed; protocol=\"application/pkcs7-signature\"; micalg={micalg}; boundary=\"{b}\""
            ),
        )],
        body,
    }
}

/// `multipart/<subtype>` of the given entities (the MDN's `multipart/report`).
pub fn multipart(subtype_and_params: &str, parts: &[Built]) -> Built {
    let b = boundary();
    let mut body = Vec::new();
    for p in parts {
        body.extend_from_slice(format!("--{b}\r\n").as_bytes());
        body.extend_from_slice(&p.to_bytes());
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{b}--\r\n").as_bytes());
    Built {
        headers: vec![(
            "Content-Type".into(),
            format!("multipart/{subtype_and_params}; boundary=\"{b}\""),
        )],
        body,
    }
}

/// Base64 in lines of 76 characters, each ended by CRLF.
fn base64_lines(bytes: &[u8]) -> Vec<u8> {
    let text = base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut out = Vec::with_capacity(text.len() + text.len() / 38 + 2);
    for line in text.as_bytes().chunks(76) {
        out.extend_from_slice(line);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// A parsed entity.
#[derive(Debug, Clone, Default)]
pub struct Entity {
    /// `type/subtype`, lower case.
    pub mime: String,
    /// Content-Type parameters (names lower case).
    pub params: Vec<(String, String)>,
    /// The body, its transfer encoding undone (empty for a multipart).
    pub body: Vec<u8>,
    /// A multipart's parts, each exactly as in the input (headers and body).
    pub parts: Vec<Vec<u8>>,
}

impl Entity {
    /// A Content-Type parameter.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The entity made of an HTTP message's content headers and body.
pub fn from_http(content_headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 256);
    for (k, v) in content_headers {
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(v.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

/// Reads one entity (headers and body).
pub fn read(raw: &[u8]) -> Result<Entity, String> {
    let message = MessageParser::default()
        .parse(raw)
        .ok_or("not a MIME entity (no headers)")?;
    let root = message.part(0).ok_or("not a MIME entity")?;
    let ct = root
        .content_type()
        .ok_or("the entity has no Content-Type")?;
    let mime = format!("{}/{}", ct.ctype(), ct.subtype().unwrap_or_default()).to_ascii_lowercase();
    let params = ct
        .attributes()
        .unwrap_or_default()
        .iter()
        .map(|a| (a.name.to_ascii_lowercase(), a.value.to_string()))
        .collect();
    let mut e = Entity {
        mime,
        params,
        ..Entity::default()
    };
    match &root.body {
        PartType::Multipart(ids) => {
            for id in ids {
                let p = message.part(*id).ok_or("a part is missing")?;
                let (from, to) = (p.raw_header_offset() as usize, p.raw_end_offset() as usize);
                let bytes = raw.get(from..to).ok_or("a part is out of range")?;
                e.parts.push(bytes.to_vec());
            }
        }
        _ => e.body = root.contents().to_vec(),
    }
    Ok(e)
}

/// The header fields of a `message/disposition-notification` body (names lower case,
/// folded lines joined).
pub fn fields(body: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(body);
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.split('\n') {
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(last) = out.last_mut() {
                last.1.push(' ');
                last.1.push_str(line.trim());
            }
            continue;
        }
        if let Some((k, v)) = line.split_once(':') {
            out.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_entity_reads_back_with_its_exact_first_part() {
        let inner = payload(b"ISA*00~\nGS*PO~\n", "a.x12");
        let inner_bytes = inner.to_bytes();
        let s = signed(&inner_bytes, b"\x30\x80signature", "sha-256");
        let entity = from_http(&[("Content-Type", s.content_type())], &s.body);
        let e = read(&entity).unwrap();
        assert_eq!(e.mime, "multipart/signed");
        assert_eq!(e.param("micalg"), Some("sha-256"));
        assert_eq!(e.parts.len(), 2);
        assert_eq!(e.parts[0], inner_bytes);
        let sig = read(&e.parts[1]).unwrap();
        assert_eq!(sig.mime, "application/pkcs7-signature");
        assert_eq!(sig.body, b"\x30\x80signature");
        let p = read(&e.parts[0]).unwrap();
        assert_eq!(p.mime, "application/edi-x12");
        assert_eq!(p.body, b"ISA*00~\nGS*PO~\n");
    }

    #[test]
    fn binary_bodies_and_report_fields() {
        let der: Vec<u8> = (0..=255u8).chain([b'\r', b'\n', b'-', b'-']).collect();
        let m = pkcs7_mime("enveloped-data", "smime.p7m", der.clone());
        let e = read(&m.to_bytes()).unwrap();
        assert_eq!(e.mime, "application/pkcs7-mime");
        assert_eq!(e.param("smime-type"), Some("enveloped-data"));
        assert_eq!(e.body, der);
        let f = fields(b"Original-Message-ID: <a@b>\r\nDisposition: automatic-action/\r\n MDN-sent-automatically; processed\r\n");
        assert_eq!(f[0], ("original-message-id".into(), "<a@b>".into()));
        assert_eq!(
            f[1].1,
            "automatic-action/ MDN-sent-automatically; processed"
        );
        assert!(read(b"").is_err());
    }
}
