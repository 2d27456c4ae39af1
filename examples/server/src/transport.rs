//! Partner transports: how a rendered interchange reaches the trading partner.
//!
//! - `http`: POST the interchange (`Content-Type: application/edi-x12`) with the
//!   configured headers plus `Idempotency-Key: <documentId>` and
//!   `X-Interchange-Control-Number: <ISA13>`; a 2xx means routed. 5xx, 408,
//!   429, timeouts and connection errors are retried with exponential backoff
//!   (`backoff_ms`, doubled each time, `retries` times); any other status fails
//!   at once.
//! - `directory`: write the file into the outbox folder atomically (a hidden
//!   temporary file, fsync, rename, fsync of the folder) under a name made of
//!   the ISA13 and the document id, so a retry after a crash replaces the same
//!   file instead of adding a second one.
//! - `sftp` ([`sftp`]) and `as2` ([`as2`]): the partner's SFTP server and AS2 endpoint.
//!
//! Every attempt is recorded: `{at, transport, result, durationMs}` and what the
//! transport adds (the remote name, the Message-ID, the server's answer, the MDN).

pub mod as2;
pub mod outcome;
pub mod sftp;

use crate::config::TransportConfig;
use outcome::{Outcome, exhausted};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// Hands `x12` to the partner.
pub async fn send(
    client: &reqwest::Client,
    transport: &TransportConfig,
    document_id: &str,
    interchange_control: i64,
    x12: &[u8],
) -> Outcome {
    match transport {
        TransportConfig::Http {
            url,
            headers,
            retries,
            backoff_ms,
            timeout_ms,
        } => {
            let mut attempts = Vec::new();
            let mut wait = Duration::from_millis(*backoff_ms);
            for attempt in 0..=*retries {
                if attempt > 0 {
                    tokio::time::sleep(wait).await;
                    wait = wait.saturating_mul(2);
                }
                let started = Instant::now();
                let at = crate::store::now_ms();
                let mut request = client
                    .post(url)
                    .timeout(Duration::from_millis(*timeout_ms))
                    .header("content-type", "application/edi-x12")
                    .header("idempotency-key", document_id)
                    .header(
                        "x-interchange-control-number",
                        interchange_control.to_string(),
                    )
                    .body(x12.to_vec());
                for (k, v) in headers {
                    request = request.header(k.as_str(), v.as_str());
                }
                let (text, retry) = match request.send().await {
                    Ok(r) if r.status().is_success() => {
                        attempts.push(attempt_json(
                            "http",
                            at,
                            &format!("HTTP {}", r.status().as_u16()),
                            started,
                        ));
                        return Outcome {
                            result: Ok(format!("POST {url}: HTTP {}", r.status().as_u16())),
                            attempts,
                        };
                    }
                    Ok(r) => {
                        let s = r.status().as_u16();
                        (format!("HTTP {s}"), s >= 500 || s == 408 || s == 429)
                    }
                    Err(e) if e.is_timeout() => ("timeout".to_string(), true),
                    Err(e) if e.is_connect() => ("connection failed".to_string(), true),
                    Err(e) => (format!("request failed: {e}"), true),
                };
                attempts.push(attempt_json("http", at, &text, started));
                if !retry {
                    return Outcome {
                        result: Err(format!("POST {url}: {text} (not retried)")),
                        attempts,
                    };
                }
            }
            exhausted(&format!("POST {url}"), attempts)
        }
        TransportConfig::Sftp(cfg) => sftp::send(cfg, document_id, interchange_control, x12).await,
        TransportConfig::As2(cfg) => {
            as2::send(client, cfg, document_id, interchange_control, x12).await
        }
        TransportConfig::Directory { outbox, .. } => {
            let started = Instant::now();
            let at = crate::store::now_ms();
            let name = format!("{interchange_control:09}-{document_id}.x12");
            let outbox = outbox.clone();
            let bytes = x12.to_vec();
            let written = tokio::task::spawn_blocking(move || {
                write_atomically(&outbox, &name, &bytes).map(|()| outbox.join(name))
            })
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())));
            match written {
                Ok(path) => Outcome {
                    result: Ok(format!("wrote {}", path.display())),
                    attempts: vec![attempt_json("directory", at, "written", started)],
                },
                Err(e) => {
                    let text = format!("cannot write into the outbox: {e}");
                    Outcome {
                        attempts: vec![attempt_json("directory", at, &text, started)],
                        result: Err(text),
                    }
                }
            }
        }
    }
}

fn attempt_json(transport: &str, at: i64, result: &str, started: Instant) -> Value {
    json!({
        "at": crate::store::rfc3339(at),
        "transport": transport,
        "result": result,
        "durationMs": started.elapsed().as_millis() as u64,
    })
}

/// Writes `dir/name` so that readers see either nothing or the whole file.
pub fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{name}.tmp"));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, dir.join(name))?;
    std::fs::File::open(dir)?.sync_all()
}

/// Tries a transport without sending a document (`POST …/test-connection`).
pub async fn test_connection(client: &reqwest::Client, transport: &TransportConfig) -> Value {
    let started = Instant::now();
    match transport {
        TransportConfig::Sftp(cfg) => sftp::test_connection(cfg).await,
        TransportConfig::As2(cfg) => as2::test_connection(client, cfg).await,
        TransportConfig::Http {
            url, timeout_ms, ..
        } => {
            let answer = client
                .get(url)
                .timeout(Duration::from_millis((*timeout_ms).clamp(1, 15_000)))
                .send()
                .await;
            let (ok, result) = match answer {
                Ok(r) => (true, format!("reachable: HTTP {}", r.status().as_u16())),
                Err(e) if e.is_timeout() => (false, "timeout".to_string()),
                Err(e) if e.is_connect() => (false, "connection failed".to_string()),
                Err(e) => (false, format!("request failed: {e}")),
            };
            json!({"ok": ok, "transport": "http", "result": result, "url": url,
                "durationMs": started.elapsed().as_millis() as u64})
        }
        TransportConfig::Directory { outbox, inbox } => {
            let (outbox, inbox) = (outbox.clone(), inbox.clone());
            let checked = tokio::task::spawn_blocking(move || {
                let mut problems = Vec::new();
                let probe = format!(".x12kit-test-{}", uuid::Uuid::now_v7().simple());
                match write_atomically(&outbox, &probe, b"") {
                    Ok(()) => {
                        let _ = std::fs::remove_file(outbox.join(&probe));
                    }
                    Err(e) => problems.push(format!("cannot write into {}: {e}", outbox.display())),
                }
                if let Some(i) = &inbox
                    && let Err(e) = std::fs::create_dir_all(i).and_then(|()| std::fs::read_dir(i))
                {
                    problems.push(format!("cannot read {}: {e}", i.display()));
                }
                problems
            })
            .await
            .unwrap_or_else(|e| vec![e.to_string()]);
            json!({"ok": checked.is_empty(), "transport": "directory",
                "result": if checked.is_empty() { "the folders can be written and read".to_string() } else { checked.join("; ") },
                "durationMs": started.elapsed().as_millis() as u64})
        }
    }
}
