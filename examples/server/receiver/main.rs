//! `x12kit-receiver`: a webhook receiver for the x12kit server, on the core's
//! `Verifier` (see receiver/README.md).
//!
//! It verifies each delivery's `X-Service-Signature` over
//! `X-Service-Timestamp + "." + raw body` against its secrets (several during a
//! rotation), rejects stale or tampered deliveries (400 with the core's error
//! code), and deduplicates on `X-Service-Delivery-ID`: a delivery seen before is
//! answered 200 and not processed again. Every accepted delivery is appended
//! to a JSON-lines log (`--log`), which is also read back at start, so the
//! deduplication survives a restart.
//!
//! `--fail-first N` answers 503 to the first N attempts of each delivery (to
//! try the sender's retries).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use clap::Parser;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use x12kit::webhook::{
    HEADER_DELIVERY_ID, HEADER_EVENT, HEADER_SIGNATURE, HEADER_TIMESTAMP, Payload, Verifier,
};

/// Receives, verifies and deduplicates the x12kit server's webhooks.
#[derive(Debug, Parser)]
#[command(name = "x12kit-receiver")]
struct Cli {
    /// Address to listen on (`127.0.0.1:0` picks a free port; printed on the first line).
    #[arg(long, default_value = "127.0.0.1:9999")]
    listen: String,
    /// A signing secret (repeat during a rotation: any of them verifies).
    #[arg(long = "secret", required = true)]
    secrets: Vec<String>,
    /// Largest distance between a delivery's timestamp and now, in seconds.
    #[arg(long, default_value_t = 300)]
    tolerance: u64,
    /// JSON-lines log of accepted deliveries (read back at start for deduplication).
    #[arg(long)]
    log: Option<PathBuf>,
    /// Answer 503 to the first N attempts of each delivery.
    #[arg(long, default_value_t = 0)]
    fail_first: u32,
    /// Also stand in for a trading partner's `http` transport on this path (e.g. `/edi`):
    /// every POST there is answered 200 and not verified (for the benchmark and trying it).
    #[arg(long)]
    partner_path: Option<String>,
}

struct Receiver {
    verifier: Verifier,
    seen: Mutex<HashSet<String>>,
    attempts: Mutex<HashMap<String, u32>>,
    log: Option<Mutex<std::fs::File>>,
    fail_first: u32,
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

async fn receive(
    State(r): State<Arc<Receiver>>,
    headers: HeaderMap,
    body: Bytes,
) -> impl IntoResponse {
    let id = header(&headers, HEADER_DELIVERY_ID).to_string();
    let verified = r.verifier.verify_now(
        header(&headers, HEADER_SIGNATURE),
        header(&headers, HEADER_TIMESTAMP),
        &body,
    );
    if let Err(e) = verified {
        eprintln!("rejected {id:?}: {} ({})", e.code().as_str(), e.message());
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"ok": false, "code": e.code().as_str(), "message": e.message()})),
        );
    }
    let payload = match Payload::from_slice(&body) {
        Ok(p) => p,
        Err(e) => {
            return (
                StatusCode::BAD_REQUEST,
                axum::Json(json!({"ok": false, "code": e.code().as_str(), "message": e.message()})),
            );
        }
    };
    if id.is_empty() || header(&headers, HEADER_EVENT) != payload.event.as_str() {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"ok": false, "code": "BAD_HEADERS",
                "message": "X-Service-Delivery-ID missing or X-Service-Event not the body's event"})),
        );
    }
    let attempt = {
        let mut a = r.attempts.lock().unwrap_or_else(|e| e.into_inner());
        let n = a.entry(id.clone()).or_insert(0);
        *n += 1;
        *n
    };
    if attempt <= r.fail_first {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(
                json!({"ok": false, "code": "TRY_LATER", "message": format!("failing attempt {attempt} on purpose")}),
            ),
        );
    }
    let fresh = r
        .seen
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id.clone());
    if fresh {
        // Process the event here (exactly once per delivery id).
        println!(
            "{} {} {} {}",
            payload.event, payload.data.document_id, payload.data.status, id
        );
        if let Some(log) = &r.log {
            let line = json!({
                "deliveryId": id,
                "event": payload.event.as_str(),
                "timestamp": payload.timestamp,
                "data": serde_json::to_value(&payload.data).unwrap_or(Value::Null),
                "attempt": attempt,
            });
            let mut f = log.lock().unwrap_or_else(|e| e.into_inner());
            let _ = writeln!(f, "{line}");
            let _ = f.sync_data();
        }
    }
    (
        StatusCode::OK,
        axum::Json(json!({"ok": true, "duplicate": !fresh})),
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let verifier = match Verifier::new(&cli.secrets) {
        Ok(v) => v.with_tolerance(Duration::from_secs(cli.tolerance)),
        Err(e) => {
            eprintln!("x12kit-receiver: {}", e.message());
            return std::process::ExitCode::from(2);
        }
    };
    let mut seen = HashSet::new();
    let log = match &cli.log {
        None => None,
        Some(path) => {
            for line in std::fs::read_to_string(path).unwrap_or_default().lines() {
                if let Ok(v) = serde_json::from_str::<Value>(line)
                    && let Some(id) = v["deliveryId"].as_str()
                {
                    seen.insert(id.to_string());
                }
            }
            match std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                Ok(f) => Some(Mutex::new(f)),
                Err(e) => {
                    eprintln!("x12kit-receiver: cannot open {}: {e}", path.display());
                    return std::process::ExitCode::from(2);
                }
            }
        }
    };
    let state = Arc::new(Receiver {
        verifier,
        seen: Mutex::new(seen),
        attempts: Mutex::new(HashMap::new()),
        log,
        fail_first: cli.fail_first,
    });
    let listener = match tokio::net::TcpListener::bind(&cli.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("x12kit-receiver: cannot listen on {}: {e}", cli.listen);
            return std::process::ExitCode::from(2);
        }
    };
    match listener.local_addr() {
        Ok(a) => println!("listening on http://{a}"),
        Err(e) => {
            eprintln!("x12kit-receiver: {e}");
            return std::process::ExitCode::FAILURE;
        }
    }
    let mut app = axum::Router::new();
    if let Some(path) = &cli.partner_path {
        app = app.route(path, axum::routing::post(|| async { StatusCode::OK }));
    }
    let app = app.fallback(axum::routing::post(receive)).with_state(state);
    match axum::serve(listener, app).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("x12kit-receiver: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
