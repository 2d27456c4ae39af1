//! A trading partner's HTTP endpoint for the tests: counts every interchange it
//! receives (by `Idempotency-Key`, the document id), can fail the first attempts
//! and can be slow.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One POST the partner received.
#[derive(Debug, Clone)]
pub struct Received {
    pub key: String,
    pub control: String,
    pub partner_key: String,
    pub body: String,
}

#[derive(Default)]
struct State {
    received: Vec<Received>,
    attempts: HashMap<String, u32>,
}

/// The running endpoint (its runtime stops when dropped).
pub struct Partner {
    pub url: String,
    state: Arc<Mutex<State>>,
    _runtime: tokio::runtime::Runtime,
}

impl Partner {
    /// `fail_first`: answer 503 to the first N attempts of each document; `status`: the answer
    /// after that; `delay`: how long each answer takes.
    pub fn start(fail_first: u32, status: u16, delay: Duration) -> Partner {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let state: Arc<Mutex<State>> = Arc::default();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let s = state.clone();
        let app = axum::Router::new().fallback(axum::routing::post(
            move |headers: axum::http::HeaderMap, body: axum::body::Bytes| {
                let s = s.clone();
                async move {
                    tokio::time::sleep(delay).await;
                    let h = |n: &str| {
                        headers
                            .get(n)
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or("")
                            .to_string()
                    };
                    let key = h("idempotency-key");
                    let mut st = s.lock().unwrap();
                    let n = st.attempts.entry(key.clone()).or_insert(0);
                    *n += 1;
                    if *n <= fail_first {
                        return axum::http::StatusCode::SERVICE_UNAVAILABLE;
                    }
                    let code = axum::http::StatusCode::from_u16(status).unwrap();
                    if code.is_success() {
                        st.received.push(Received {
                            key,
                            control: h("x-interchange-control-number"),
                            partner_key: h("x-partner-key"),
                            body: String::from_utf8_lossy(&body).into_owned(),
                        });
                    }
                    code
                }
            },
        ));
        runtime.spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Partner {
            url: format!("http://{addr}/edi"),
            state,
            _runtime: runtime,
        }
    }

    /// Every interchange accepted (2xx), in order.
    pub fn received(&self) -> Vec<Received> {
        self.state.lock().unwrap().received.clone()
    }

    /// Attempts per document id.
    pub fn attempts(&self, key: &str) -> u32 {
        self.state
            .lock()
            .unwrap()
            .attempts
            .get(key)
            .copied()
            .unwrap_or(0)
    }
}
