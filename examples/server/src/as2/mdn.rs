//! Message disposition notifications (RFC 4130 §7, RFC 3798): the receipts of AS2.
//!
//! Ours ([`build`]): `multipart/report; report-type=disposition-notification` with a
//! text part and a `message/disposition-notification` part (the original Message-ID,
//! the disposition, the MIC of what we received), signed when the partner asked for a
//! signed receipt. Theirs ([`read`]): verified with the partner's certificate, then the
//! disposition and the MIC are read.

use super::mime::{self, Built};
use super::smime::{self, Digest};
use openssl::pkey::{PKey, Private};
use openssl::x509::X509;

/// What a receipt says about a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disposition {
    /// Received and handed on.
    Processed,
    /// Received with a warning (`processed/warning: …`).
    Warning(String),
    /// Not processed (`processed/error: …`, `failed/failure: …`).
    Error(String),
}

impl Disposition {
    /// The `Disposition:` field's value.
    pub fn field(&self) -> String {
        let base = "automatic-action/MDN-sent-automatically";
        match self {
            Disposition::Processed => format!("{base}; processed"),
            Disposition::Warning(w) => format!("{base}; processed/warning: {w}"),
            Disposition::Error(e) => format!("{base}; processed/error: {e}"),
        }
    }

    /// True for `processed` and `processed/warning`.
    pub fn positive(&self) -> bool {
        !matches!(self, Disposition::Error(_))
    }

    /// Reads a `Disposition:` value.
    pub fn parse(value: &str) -> Disposition {
        let status = value.rsplit(';').next().unwrap_or("").trim();
        let (kind, modifier) = match status.split_once(':') {
            Some((k, m)) => (k.trim().to_ascii_lowercase(), m.trim().to_string()),
            None => (status.to_ascii_lowercase(), String::new()),
        };
        match kind.as_str() {
            "processed" => Disposition::Processed,
            k if k.starts_with("processed/warning") => Disposition::Warning(modifier),
            _ if modifier.is_empty() => Disposition::Error(status.to_string()),
            _ => Disposition::Error(modifier),
        }
    }
}

/// Our receipt for a message.
#[derive(Debug)]
pub struct Receipt<'a> {
    /// Our AS2 name (the message's `AS2-To`).
    pub ours: &'a str,
    /// The partner's (the message's `AS2-From`).
    pub theirs: &'a str,
    /// The message's `Message-ID` (without brackets).
    pub original: &'a str,
    /// What became of it.
    pub disposition: Disposition,
    /// The MIC of what was received, and its digest.
    pub mic: Option<(String, Digest)>,
    /// Words for people.
    pub text: String,
    /// Sign with our certificate and key, with this digest.
    pub sign: Option<(&'a X509, &'a PKey<Private>, Digest)>,
}

/// A receipt ready to send: the HTTP headers (AS2 and content headers) and the body.
#[derive(Debug, Clone)]
pub struct Sendable {
    /// Headers.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Vec<u8>,
}

/// Builds (and signs) a receipt.
pub fn build(r: &Receipt<'_>) -> Result<Sendable, String> {
    let text = Built {
        headers: vec![
            ("Content-Type".into(), "text/plain; charset=us-ascii".into()),
            ("Content-Transfer-Encoding".into(), "7bit".into()),
        ],
        body: format!("{}\r\n", r.text.replace(['\r', '\n'], " ")).into_bytes(),
    };
    let mut report = format!(
        "Reporting-UA: x12kit-server\r\nOriginal-Recipient: rfc822; {ours}\r\nFinal-Recipient: rfc822; {ours}\r\nOriginal-Message-ID: <{id}>\r\nDisposition: {d}\r\n",
        ours = super::quote_name(r.ours),
        id = r.original,
        d = r.disposition.field(),
    );
    if let Some((mic, digest)) = &r.mic {
        report.push_str(&format!(
            "Received-Content-MIC: {mic}, {}\r\n",
            digest.micalg()
        ));
    }
    let notification = Built {
        headers: vec![
            (
                "Content-Type".into(),
                "message/disposition-notification".into(),
            ),
            ("Content-Transfer-Encoding".into(), "7bit".into()),
        ],
        body: report.into_bytes(),
    };
    let mut entity = mime::multipart(
        "report; report-type=disposition-notification",
        &[text, notification],
    );
    if let Some((cert, key, digest)) = r.sign {
        let bytes = entity.to_bytes();
        let signature = smime::sign(cert, key, digest, &bytes)?;
        entity = mime::signed(&bytes, &signature, digest.micalg());
    }
    let mut headers = vec![
        ("AS2-Version".to_string(), super::VERSION.to_string()),
        ("AS2-From".to_string(), super::quote_name(r.ours)),
        ("AS2-To".to_string(), super::quote_name(r.theirs)),
        (
            "Message-ID".to_string(),
            format!("<{}>", new_message_id(r.ours)),
        ),
        ("Date".to_string(), http_date()),
        ("MIME-Version".to_string(), "1.0".to_string()),
    ];
    headers.extend(entity.headers);
    Ok(Sendable {
        headers,
        body: entity.body,
    })
}

/// A fresh Message-ID (`x12kit-<uuidv7>@<name>`, the name reduced to what an id may hold).
pub fn new_message_id(name: &str) -> String {
    format!(
        "x12kit-{}@{}",
        uuid::Uuid::now_v7().simple(),
        id_domain(name)
    )
}

/// An AS2 name made fit for the right side of a Message-ID.
pub fn id_domain(name: &str) -> String {
    let d: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if d.is_empty() { "x12kit".into() } else { d }
}

/// The date in the HTTP/RFC 5322 form (`Tue, 25 Nov 2026 10:00:00 GMT`).
pub fn http_date() -> String {
    let secs = crate::store::now_ms().div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // 1970-01-01 was a Thursday.
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][days.rem_euclid(7) as usize];
    // Civil date from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{weekday}, {day:02} {} {year} {:02}:{:02}:{:02} GMT",
        months[(month - 1) as usize],
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A partner's receipt, read and checked.
#[derive(Debug, Clone)]
pub struct Read {
    /// The Message-ID it is about (without brackets).
    pub original: String,
    /// What it says.
    pub disposition: Disposition,
    /// The MIC it reports and its digest name (as written).
    pub mic: Option<(String, String)>,
    /// True when it was signed (and the signature verified).
    pub signed: bool,
    /// Its text part, for people (at most 500 characters).
    pub text: String,
}

/// True when an entity (bytes) is an MDN rather than a message: `multipart/report`,
/// or `multipart/signed` around one.
pub fn is_mdn(entity: &mime::Entity) -> bool {
    if entity.mime == "multipart/report" {
        return true;
    }
    entity.mime == "multipart/signed"
        && entity
            .parts
            .first()
            .and_then(|p| mime::read(p).ok())
            .is_some_and(|p| p.mime == "multipart/report")
}

/// Reads a receipt (an entity's bytes). With `partner`, a signature is verified with it;
/// `require_signed` refuses an unsigned receipt.
pub fn read(raw: &[u8], partner: &X509, require_signed: bool) -> Result<Read, String> {
    let outer = mime::read(raw)?;
    let (report, signed) = if outer.mime == "multipart/signed" {
        let [content, signature] = outer.parts.as_slice() else {
            return Err("the signed receipt does not have two parts".into());
        };
        let sig = mime::read(signature)?;
        if let Err(first) = smime::verify(&sig.body, content, partner) {
            // Some senders sign the canonical form (CRLF line ends) of what they send.
            let canonical = crlf(content);
            if canonical == *content || smime::verify(&sig.body, &canonical, partner).is_err() {
                return Err(format!("the receipt's signature: {first}"));
            }
        }
        (mime::read(content)?, true)
    } else {
        (outer, false)
    };
    if require_signed && !signed {
        return Err("the receipt is not signed, and a signed receipt was asked for".into());
    }
    if report.mime != "multipart/report" {
        return Err(format!("not a receipt: {}", report.mime));
    }
    let mut text = String::new();
    let mut fields = None;
    for p in &report.parts {
        let part = mime::read(p)?;
        match part.mime.as_str() {
            "message/disposition-notification" => fields = Some(mime::fields(&part.body)),
            "text/plain" if text.is_empty() => {
                text = String::from_utf8_lossy(&part.body)
                    .trim()
                    .chars()
                    .take(500)
                    .collect();
            }
            _ => {}
        }
    }
    let fields = fields.ok_or("the receipt has no message/disposition-notification part")?;
    let get = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let original = super::bare_id(
        &get("original-message-id").ok_or("the receipt has no Original-Message-ID")?,
    );
    let disposition =
        Disposition::parse(&get("disposition").ok_or("the receipt has no Disposition")?);
    let mic = get("received-content-mic").and_then(|v| {
        let (m, alg) = v.rsplit_once(',')?;
        Some((m.trim().to_string(), alg.trim().to_string()))
    });
    Ok(Read {
        original,
        disposition,
        mic,
        signed,
        text,
    })
}

/// `bytes` with every bare LF made CRLF.
pub fn crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 32);
    let mut prev = 0u8;
    for &b in bytes {
        if b == b'\n' && prev != b'\r' {
            out.push(b'\r');
        }
        out.push(b);
        prev = b;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::as2::smime::tests::identity;

    #[test]
    fn a_signed_receipt_reads_back_and_a_tampered_one_does_not() {
        let (cert, key) = identity("us");
        let (other, _) = identity("them");
        let r = build(&Receipt {
            ours: "US AS2",
            theirs: "THEM",
            original: "abc@them",
            disposition: Disposition::Processed,
            mic: Some(("bWlj".into(), Digest::Sha256)),
            text: "thanks".into(),
            sign: Some((&cert, &key, Digest::Sha256)),
        })
        .unwrap();
        let ct = r
            .headers
            .iter()
            .find(|(k, _)| k == "Content-Type")
            .unwrap()
            .1
            .clone();
        let raw = mime::from_http(&[("Content-Type", &ct)], &r.body);
        let read_back = read(&raw, &cert, true).unwrap();
        assert_eq!(read_back.original, "abc@them");
        assert_eq!(read_back.disposition, Disposition::Processed);
        assert_eq!(read_back.mic, Some(("bWlj".into(), "sha-256".into())));
        assert!(read_back.signed);
        assert_eq!(read_back.text, "thanks");
        assert!(read(&raw, &other, true).is_err());
        let tampered = String::from_utf8(raw.clone())
            .unwrap()
            .replace("bWlj", "bWlk");
        assert!(read(tampered.as_bytes(), &cert, true).is_err());
    }

    #[test]
    fn dispositions_and_dates() {
        assert_eq!(
            Disposition::parse(
                "automatic-action/MDN-sent-automatically; processed/error: authentication-failed"
            ),
            Disposition::Error("authentication-failed".into())
        );
        assert_eq!(
            Disposition::parse(
                "automatic-action/MDN-sent-automatically; failed/Failure: unsupported format"
            ),
            Disposition::Error("unsupported format".into())
        );
        assert!(Disposition::parse("a/b; processed/warning: dup").positive());
        assert!(Disposition::parse("a/b; processed").positive());
        let d = http_date();
        assert!(d.ends_with(" GMT") && d.len() == 29, "{d}");
        assert_eq!(crlf(b"a\nb\r\nc"), b"a\r\nb\r\nc");
        assert_eq!(id_domain("A B/c"), "A_B_c");
    }
}
