//! The `as2` transport (RFC 4130): the interchange as an S/MIME message, POSTed to the
//! partner's AS2 URL.
//!
//! The payload (`application/edi-x12`, binary) is compressed when `compress` is set
//! (RFC 5402, before signing), signed with our certificate (`signing`: SHA-256/384/512;
//! `multipart/signed` with a detached CMS signature) and encrypted for the partner's
//! certificate (`encryption`: AES-128/256, CBC or GCM). The headers ask for the receipt
//! the settings say (`mdn`: `sync`, `async` at `mdnUrl`, or `none`; signed when `mdnSigned`).
//!
//! A synchronous MDN is read from the answer: it must be signed by the partner's
//! certificate (when asked), about our Message-ID, positive, and report the MIC we
//! computed; then the document is `routed` with the MDN in its attempt. A negative MDN,
//! a bad signature or a MIC mismatch fails it with the reason (not retried: the partner
//! answered). With `async`, the document is `routed` once the partner's server took the
//! message (2xx) and its attempt says the MDN is awaited; the MDN arrives at
//! `POST /as2/{account}` ([`crate::as2::inbound`]) and is recorded with the attempt, a
//! negative or unverifiable one failing the document.
//!
//! The Message-ID is the document's (`<documentId@as2From>`): a resend (a retry, or a
//! routing again after a crash) carries the same id, so the partner answers it with the
//! same MDN and applies it once.

use crate::as2::mdn::{self, Disposition};
use crate::as2::mime;
use crate::as2::smime::{self, Digest, Encryption};
use crate::config::as2::As2Config;
use crate::transport::outcome::Outcome;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// The keys and certificates of a partner, parsed.
pub struct Keys {
    /// The partner's certificate.
    pub partner: openssl::x509::X509,
    /// Ours.
    pub cert: openssl::x509::X509,
    /// Our private key.
    pub key: openssl::pkey::PKey<openssl::pkey::Private>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys(redacted)")
    }
}

impl As2Config {
    /// The certificates and key (checked when the settings were saved).
    pub fn keys(&self) -> Result<Keys, String> {
        let text = |v: &Option<String>, what: &str| {
            v.clone()
                .ok_or_else(|| format!("the settings have no {what}"))
        };
        Ok(Keys {
            partner: smime::certificate(&text(&self.partner_certificate, "partnerCertificate")?)
                .map_err(|e| format!("partnerCertificate: {e}"))?,
            cert: smime::certificate(&text(&self.our_certificate, "ourCertificate")?)
                .map_err(|e| format!("ourCertificate: {e}"))?,
            key: smime::private_key(&text(&self.our_private_key, "ourPrivateKey")?)
                .map_err(|e| format!("ourPrivateKey: {e}"))?,
        })
    }

    /// The signing digest (`None`: unsigned).
    pub fn digest(&self) -> Option<Digest> {
        Digest::from_name(&self.signing)
    }

    /// The content encryption (`None`: not encrypted).
    pub fn encryption(&self) -> Option<Encryption> {
        Encryption::from_name(&self.encryption)
    }
}

/// The Message-ID of a document's message (without brackets).
pub fn message_id(cfg: &As2Config, document_id: &str) -> String {
    format!("{document_id}@{}", mdn::id_domain(&cfg.as2_from))
}

/// A message ready to POST.
struct Message {
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// The MIC the partner must report, and its digest.
    mic: (String, Digest),
}

/// Builds the message of `x12`.
fn build(
    cfg: &As2Config,
    keys: &Keys,
    id: &str,
    name: &str,
    x12: &[u8],
) -> Result<Message, String> {
    let mut entity = mime::payload(x12, name);
    if cfg.compress {
        let der = smime::compress(&entity.to_bytes())?;
        entity = mime::pkcs7_mime("compressed-data", "smime.p7z", der);
    }
    let digest = cfg.digest();
    let mic_digest = digest.unwrap_or(Digest::Sha256);
    let mic;
    if let Some(d) = digest {
        let bytes = entity.to_bytes();
        mic = d.mic(&bytes);
        let signature = smime::sign(&keys.cert, &keys.key, d, &bytes)?;
        entity = mime::signed(&bytes, &signature, d.micalg());
    } else if cfg.encryption().is_some() {
        mic = mic_digest.mic(&entity.to_bytes());
    } else {
        mic = mic_digest.mic(&entity.body);
    }
    if let Some(alg) = cfg.encryption() {
        let der = smime::encrypt(&entity.to_bytes(), &keys.partner, alg)?;
        entity = mime::pkcs7_mime("enveloped-data", "smime.p7m", der);
    }
    let mut headers = vec![
        ("AS2-Version".to_string(), crate::as2::VERSION.to_string()),
        (
            "AS2-From".to_string(),
            crate::as2::quote_name(&cfg.as2_from),
        ),
        ("AS2-To".to_string(), crate::as2::quote_name(&cfg.as2_to)),
        ("Message-ID".to_string(), format!("<{id}>")),
        ("Subject".to_string(), format!("X12 interchange {name}")),
        ("Date".to_string(), mdn::http_date()),
        ("MIME-Version".to_string(), "1.0".to_string()),
        ("EDIINT-Features".to_string(), "CMS".to_string()),
    ];
    if cfg.mdn != "none" {
        headers.push((
            "Disposition-Notification-To".to_string(),
            cfg.mdn_url
                .clone()
                .unwrap_or_else(|| "x12kit-server".into()),
        ));
        if cfg.mdn_signed {
            headers.push((
                "Disposition-Notification-Options".to_string(),
                format!(
                    "signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, {}",
                    mic_digest.micalg()
                ),
            ));
        }
        if cfg.mdn == "async"
            && let Some(url) = &cfg.mdn_url
        {
            headers.push(("Receipt-Delivery-Option".to_string(), url.clone()));
        }
    }
    headers.extend(entity.headers);
    Ok(Message {
        headers,
        body: entity.body,
        mic: (mic, mic_digest),
    })
}

/// Checks a receipt against the message it answers; `Ok(summary)` when it is a positive,
/// verified receipt of this message with the MIC we computed.
pub fn check_receipt(
    read: &mdn::Read,
    message_id: &str,
    expected_mic: &str,
    expected_digest: &str,
) -> Result<(), String> {
    if read.original != message_id {
        return Err(format!(
            "the MDN is about message {:?}, not {message_id:?}",
            read.original
        ));
    }
    if !read.disposition.positive() {
        let Disposition::Error(e) = &read.disposition else {
            return Err("negative MDN".into());
        };
        return Err(format!("negative MDN: {e}"));
    }
    match &read.mic {
        None => Err("the MDN reports no MIC".to_string()),
        Some((mic, alg)) => {
            let same_alg = Digest::from_name(alg) == Digest::from_name(expected_digest);
            if !same_alg {
                Err(format!(
                    "MIC mismatch: the MDN's MIC is computed with {alg}, ours with {expected_digest}"
                ))
            } else if mic != expected_mic {
                Err(format!(
                    "MIC mismatch: the MDN reports {mic}, we computed {expected_mic} ({expected_digest})"
                ))
            } else {
                Ok(())
            }
        }
    }
}

/// The JSON of a receipt in an attempt.
pub fn receipt_json(read: &mdn::Read) -> Value {
    json!({
        "messageId": read.original,
        "disposition": read.disposition.field(),
        "mic": read.mic.as_ref().map(|(m, a)| format!("{m}, {a}")),
        "signed": read.signed,
        "text": read.text,
    })
}

/// Sends `x12` to the partner over AS2.
pub async fn send(
    client: &reqwest::Client,
    cfg: &As2Config,
    document_id: &str,
    interchange_control: i64,
    x12: &[u8],
) -> Outcome {
    let id = message_id(cfg, document_id);
    let name = crate::transport::sftp::remote_name(interchange_control, document_id);
    let started = Instant::now();
    let at = crate::store::now_ms();
    let built = cfg
        .keys()
        .and_then(|keys| build(cfg, &keys, &id, &name, x12).map(|m| (m, keys)));
    let (message, keys) = match built {
        Ok(m) => m,
        Err(e) => {
            let text = format!("cannot build the AS2 message: {e}");
            return Outcome {
                attempts: vec![attempt(at, &text, started, &id, None, None)],
                result: Err(text),
            };
        }
    };
    let mic_text = format!("{}, {}", message.mic.0, message.mic.1.micalg());
    let mut attempts = Vec::new();
    let mut wait = Duration::from_millis(cfg.backoff_ms);
    for n in 0..=cfg.retries {
        if n > 0 {
            tokio::time::sleep(wait).await;
            wait = wait.saturating_mul(2);
        }
        let started = Instant::now();
        let at = crate::store::now_ms();
        let mut request = client
            .post(&cfg.url)
            .timeout(Duration::from_millis(cfg.timeout_ms.max(1)))
            .body(message.body.clone());
        for (k, v) in &message.headers {
            request = request.header(k.as_str(), v.as_str());
        }
        let response = match request.send().await {
            Ok(r) => r,
            Err(e) => {
                let text = if e.is_timeout() {
                    "timeout".to_string()
                } else if e.is_connect() {
                    "connection failed".to_string()
                } else {
                    format!("request failed: {e}")
                };
                attempts.push(attempt(at, &text, started, &id, None, Some(&mic_text)));
                continue;
            }
        };
        let status = response.status();
        let http = format!("HTTP {}", status.as_u16());
        if !status.is_success() {
            let retry =
                status.is_server_error() || status.as_u16() == 408 || status.as_u16() == 429;
            let body = response.text().await.unwrap_or_default();
            let text = format!(
                "{http}: {}",
                body.trim().chars().take(300).collect::<String>()
            );
            attempts.push(attempt(
                at,
                &text,
                started,
                &id,
                Some(&http),
                Some(&mic_text),
            ));
            if retry {
                continue;
            }
            return Outcome {
                result: Err(format!("AS2 {}: {text} (not retried)", cfg.url)),
                attempts,
            };
        }
        if cfg.mdn != "sync" {
            let text = if cfg.mdn == "async" {
                "sent; the partner's server took it; the asynchronous MDN is awaited"
            } else {
                "sent; the partner's server took it (no MDN asked for)"
            };
            let mut a = attempt(at, text, started, &id, Some(&http), Some(&mic_text));
            if cfg.mdn == "async" {
                a["mdn"] = json!("awaited");
            }
            attempts.push(a);
            return Outcome {
                result: Ok(format!("AS2 {}: {http}, Message-ID <{id}>", cfg.url)),
                attempts,
            };
        }
        let content: Vec<(String, String)> = response
            .headers()
            .iter()
            .filter(|(k, _)| k.as_str().starts_with("content-"))
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let body = match response.bytes().await {
            Ok(b) => b,
            Err(e) => {
                let text = format!("{http}, but the MDN could not be read: {e}");
                attempts.push(attempt(
                    at,
                    &text,
                    started,
                    &id,
                    Some(&http),
                    Some(&mic_text),
                ));
                continue;
            }
        };
        let pairs: Vec<(&str, &str)> = content
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let raw = mime::from_http(&pairs, &body);
        let read = mdn::read(&raw, &keys.partner, cfg.mdn_signed);
        let checked = read
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|r| check_receipt(r, &id, &message.mic.0, message.mic.1.micalg()));
        let mut a = attempt(at, "", started, &id, Some(&http), Some(&mic_text));
        if let Ok(r) = &read {
            a["mdn"] = receipt_json(r);
        }
        return match checked {
            Ok(()) => {
                a["result"] = json!("sent; positive MDN, signature and MIC verified");
                attempts.push(a);
                Outcome {
                    result: Ok(format!(
                        "AS2 {}: {http}, Message-ID <{id}>, MDN processed",
                        cfg.url
                    )),
                    attempts,
                }
            }
            Err(e) => {
                let text = format!("the MDN was refused: {e}");
                a["result"] = json!(text);
                attempts.push(a);
                Outcome {
                    result: Err(format!("AS2 {}: {text}", cfg.url)),
                    attempts,
                }
            }
        };
    }
    crate::transport::outcome::exhausted(&format!("AS2 {}", cfg.url), attempts)
}

fn attempt(
    at: i64,
    result: &str,
    started: Instant,
    id: &str,
    answer: Option<&str>,
    mic: Option<&str>,
) -> Value {
    json!({
        "at": crate::store::rfc3339(at),
        "transport": "as2",
        "result": result,
        "messageId": id,
        "serverAnswer": answer,
        "mic": mic,
        "durationMs": started.elapsed().as_millis() as u64,
    })
}

/// `POST /api/settings/partners/{id}/test-connection`: checks the certificates and key
/// (parsed, our key matching our certificate, validity) and that the URL answers HTTP.
/// Sends no message.
pub async fn test_connection(client: &reqwest::Client, cfg: &As2Config) -> Value {
    let started = Instant::now();
    let mut problems = Vec::new();
    let mut certificates = serde_json::Map::new();
    match cfg.keys() {
        Ok(k) => {
            if !smime::matches(&k.cert, &k.key) {
                problems.push("ourPrivateKey is not the key of ourCertificate".to_string());
            }
            for (name, c) in [
                ("partnerCertificate", &k.partner),
                ("ourCertificate", &k.cert),
            ] {
                let d = smime::describe(c);
                if d["expired"] == true {
                    problems.push(format!("{name} has expired ({})", d["notAfter"]));
                }
                certificates.insert(name.into(), d);
            }
        }
        Err(e) => problems.push(e),
    }
    let url = match client
        .get(&cfg.url)
        .timeout(Duration::from_millis(cfg.timeout_ms.clamp(1, 15_000)))
        .send()
        .await
    {
        // Any HTTP answer (AS2 servers often answer GET with 405) means the URL is reached.
        Ok(r) => {
            json!({"url": cfg.url, "result": format!("reachable: HTTP {}", r.status().as_u16())})
        }
        Err(e) => {
            let why = if e.is_timeout() {
                "timeout".to_string()
            } else if e.is_connect() {
                "connection failed".to_string()
            } else {
                format!("request failed: {e}")
            };
            problems.push(format!("{}: {why}", cfg.url));
            json!({"url": cfg.url, "result": why})
        }
    };
    json!({
        "ok": problems.is_empty(),
        "transport": "as2",
        "result": if problems.is_empty() { "certificates and key usable, URL reachable (nothing sent)".to_string() } else { problems.join("; ") },
        "certificates": certificates,
        "endpoint": url,
        "durationMs": started.elapsed().as_millis() as u64,
    })
}
