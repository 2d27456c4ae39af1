//! `GET /metrics`: the process's figures in the Prometheus text format (0.0.4), encoded by
//! the `prometheus-client` crate from the same counters the metrics log line reads
//! (src/metrics.rs), plus what is read at each scrape: documents and webhook deliveries by
//! status (one grouped count each in the store), the route groups' requests at work and
//! waiting, the open connections, and the build.
//!
//! Served on the API port (behind `[metrics] token_file`'s bearer token when it is set), or
//! only on `[metrics] listen` when that is set.

use crate::app::App;
use crate::error::ApiError;
use crate::metrics::{EXPORTED, HTTP_DURATION, HTTP_REQUESTS, ROUTING, WEBHOOK_DELIVERIES};
use crate::serve::serving::Serving;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;
use std::sync::Arc;
use subtle::ConstantTimeEq;

/// The state of the `/metrics` route.
#[derive(Clone)]
pub struct Exporter {
    /// The store (documents and deliveries by status).
    pub app: Arc<App>,
    /// The API listener's serving layer (connections, route groups).
    pub serving: Arc<Serving>,
    /// The bearer token a scrape must send, if any.
    pub token: Option<Arc<str>>,
    /// The last store counts and when their query started: scrapes query one at a time,
    /// and one that waited takes a result whose query started after it arrived, so that a
    /// flood of scrapes costs the store one query at a time and no scrape sees stale counts.
    pub counts: Arc<tokio::sync::Mutex<Option<(std::time::Instant, Counts)>>>,
}

/// The store's counts of a scrape: documents by status, deliveries by state (`None`: the
/// store did not answer).
pub type Counts = Option<(Vec<(String, i64)>, Vec<(String, i64)>)>;

/// What is read at each scrape, besides the process's counters.
#[derive(Debug, Default)]
struct Scraped {
    /// (status, count) of the documents.
    documents: Vec<(String, i64)>,
    /// (state, count) of the webhook deliveries.
    deliveries: Vec<(String, i64)>,
    /// See [`crate::serve::capacity::Capacity::lanes`].
    lanes: Vec<(&'static str, &'static str, usize, usize, u64)>,
    /// Open connections, and the limit.
    connections: (usize, usize),
    /// The store answered the counts.
    store_up: bool,
}

type Labels<'a> = Vec<(&'static str, &'a str)>;

fn gauge_family<'a, T: Copy + prometheus_client::encoding::EncodeGaugeValue>(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    rows: impl IntoIterator<Item = (Labels<'a>, T)>,
) -> Result<(), std::fmt::Error> {
    let mut metric = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
    for (labels, v) in rows {
        let labels: Vec<(&str, &str)> = labels;
        ConstGauge::new(v).encode(metric.encode_family(&labels)?)?;
    }
    Ok(())
}

impl Collector for Snapshot {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let s = &self.0;
        // The timers: one histogram family per name (the core's calls by operation).
        let mut names: Vec<&str> = EXPORTED.iter().map(|e| e.1).collect();
        names.dedup();
        for name in names {
            let rows: Vec<_> = EXPORTED.iter().filter(|e| e.1 == name).collect();
            let mut metric =
                encoder.encode_descriptor(name, rows[0].3, None, MetricType::Histogram)?;
            for (timer, _, operation, _) in rows {
                let (sum, count, buckets) = timer.histogram();
                match operation {
                    Some(op) => metric
                        .encode_family(&[("operation", *op)])?
                        .encode_histogram::<prometheus_client::encoding::NoLabelSet>(
                        sum, count, &buckets, None,
                    )?,
                    None => metric.encode_histogram::<prometheus_client::encoding::NoLabelSet>(
                        sum, count, &buckets, None,
                    )?,
                }
            }
        }
        gauge_family(
            &mut encoder,
            "documents",
            "Outbound documents in the store, by status.",
            s.documents
                .iter()
                .map(|(k, v)| (vec![("status", k.as_str())], *v)),
        )?;
        gauge_family(
            &mut encoder,
            "webhook_deliveries_in_store",
            "Webhook deliveries in the store, by state (pending: queued or waiting to be retried).",
            s.deliveries
                .iter()
                .map(|(k, v)| (vec![("state", k.as_str())], *v)),
        )?;
        gauge_family(
            &mut encoder,
            "store_up",
            "1 when the store answered this scrape's counts, else 0.",
            [(vec![], i64::from(s.store_up))],
        )?;
        gauge_family(
            &mut encoder,
            "route_group_in_flight",
            "API requests being handled, by route group and body size lane.",
            s.lanes
                .iter()
                .map(|l| (vec![("group", l.0), ("lane", l.1)], l.2 as i64)),
        )?;
        gauge_family(
            &mut encoder,
            "route_group_queued",
            "API requests waiting for a slot of their route group (the request queue depth).",
            s.lanes
                .iter()
                .map(|l| (vec![("group", l.0), ("lane", l.1)], l.3 as i64)),
        )?;
        let mut shed = encoder.encode_descriptor(
            "route_group_shed",
            "API requests refused 503 OVERLOADED by their route group since start.",
            None,
            MetricType::Counter,
        )?;
        for l in &s.lanes {
            prometheus_client::metrics::counter::ConstCounter::new(l.4)
                .encode(shed.encode_family(&[("group", l.0), ("lane", l.1)])?)?;
        }
        gauge_family(
            &mut encoder,
            "connections_open",
            "Client connections open on the API listener.",
            [(vec![], s.connections.0 as i64)],
        )?;
        gauge_family(
            &mut encoder,
            "connections_max",
            "The API listener's max_connections.",
            [(vec![], s.connections.1 as i64)],
        )?;
        gauge_family(
            &mut encoder,
            "build_info",
            "The server's build: always 1, with its version as a label.",
            [(vec![("version", env!("CARGO_PKG_VERSION"))], 1i64)],
        )?;
        Ok(())
    }
}

#[derive(Debug)]
struct Snapshot(Scraped);

/// The text of one scrape.
fn encode(scraped: Scraped) -> String {
    let mut registry = Registry::with_prefix("x12kit");
    registry.register(
        "http_requests",
        "HTTP requests answered, by method, matched route and status",
        HTTP_REQUESTS.clone(),
    );
    registry.register(
        "http_request_duration_seconds",
        "Time from a request's head to its answer's head, by method, matched route and status",
        HTTP_DURATION.clone(),
    );
    registry.register(
        "routing_attempts",
        "Routing attempts of documents to trading partners (a transport's retries included), by transport and result",
        ROUTING.clone(),
    );
    registry.register(
        "webhook_attempts",
        "Webhook delivery attempts, by result",
        WEBHOOK_DELIVERIES.clone(),
    );
    registry.register_collector(Box::new(Snapshot(scraped)));
    let mut out = String::new();
    // Writing into a String cannot fail; the encoder only fails on its writer.
    let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &registry);
    out
}

/// The store's counts, queried one scrape at a time (see [`Exporter::counts`]).
async fn counts(e: &Exporter) -> Counts {
    let arrived = std::time::Instant::now();
    let mut last = e.counts.lock().await;
    if let Some((started, counts)) = last.as_ref()
        && *started >= arrived
    {
        return counts.clone();
    }
    let started = std::time::Instant::now();
    let counts = e
        .app
        .store
        .read(|c| {
            let rows = |sql: &str| -> crate::db::DbResult<Vec<(String, i64)>> {
                c.query(sql, &[])?
                    .into_iter()
                    .map(|r| Ok((r.get::<String>(0)?, r.get::<i64>(1)?)))
                    .collect()
            };
            Ok((
                rows("SELECT status, COUNT(*) FROM documents GROUP BY status")?,
                rows("SELECT state, COUNT(*) FROM webhook_deliveries GROUP BY state")?,
            ))
        })
        .await
        .ok();
    *last = Some((started, counts.clone()));
    counts
}

async fn scrape(e: &Exporter) -> Scraped {
    let counts = counts(e).await;
    let store_up = counts.is_some();
    let (mut documents, mut deliveries) = counts.unwrap_or_default();
    // Every status appears, at 0 when no document has it, so that a rate over it is defined.
    for s in crate::status::Status::ALL.map(|s| s.as_str()) {
        if !documents.iter().any(|(k, _)| k == s) {
            documents.push((s.to_string(), 0));
        }
    }
    for s in crate::status::Delivery::ALL.map(|s| s.as_str()) {
        if !deliveries.iter().any(|(k, _)| k == s) {
            deliveries.push((s.to_string(), 0));
        }
    }
    documents.sort();
    deliveries.sort();
    Scraped {
        documents,
        deliveries,
        lanes: e.serving.capacity.lanes(),
        connections: (e.serving.connections.open(), e.serving.connections.max()),
        store_up: store_up && e.app.store.write_fault().is_none(),
    }
}

/// `GET /metrics`.
pub async fn metrics(State(e): State<Exporter>, headers: HeaderMap) -> Response {
    if let Some(token) = &e.token {
        let sent = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !bool::from(sent.as_bytes().ct_eq(token.as_bytes())) {
            return ApiError::new(
                StatusCode::UNAUTHORIZED,
                "UNAUTHORIZED",
                "send Authorization: Bearer <the metrics token of [metrics] token_file>",
            )
            .with_header(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"metrics\""),
            )
            .into_response();
        }
    }
    let text = encode(scrape(&e).await);
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        text,
    )
        .into_response()
}

/// The router of `/metrics` (merged into the API's, or served alone on `[metrics] listen`).
pub fn router(e: Exporter) -> axum::Router {
    axum::Router::new()
        .route("/metrics", axum::routing::get(metrics))
        .layer(axum::middleware::from_fn(crate::serve::observe::note_route))
        .with_state(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exposition_has_every_family_with_its_help_and_type() {
        crate::metrics::request(
            "GET",
            "/api/v1/transactions",
            200,
            std::time::Duration::from_millis(3),
        );
        crate::metrics::routing_attempt("http", "routed");
        crate::metrics::webhook_attempt("delivered");
        crate::metrics::COMMIT.add(std::time::Duration::from_micros(700));
        let text = encode(Scraped {
            documents: vec![("queued".into(), 3)],
            deliveries: vec![],
            lanes: vec![("reads", "small", 1, 2, 3)],
            connections: (4, 1024),
            store_up: true,
        });
        for line in [
            "# TYPE x12kit_http_requests_total counter",
            "x12kit_http_requests_total{method=\"GET\",route=\"/api/v1/transactions\",status=\"200\"} 1",
            "# TYPE x12kit_http_request_duration_seconds histogram",
            "x12kit_routing_attempts_total{transport=\"http\",result=\"routed\"} 1",
            "x12kit_webhook_attempts_total{transport=\"http\",result=\"delivered\"} 1",
            "# TYPE x12kit_store_commit_seconds histogram",
            "x12kit_store_commit_seconds_bucket{le=\"0.001\"} 1",
            "x12kit_store_commit_seconds_bucket{le=\"0.0005\"} 0",
            "x12kit_store_commit_seconds_count 1",
            "x12kit_documents{status=\"queued\"} 3",
            "x12kit_route_group_queued{group=\"reads\",lane=\"small\"} 2",
            "x12kit_route_group_shed_total{group=\"reads\",lane=\"small\"} 3",
            "x12kit_connections_open 4",
            "x12kit_store_up 1",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "no line {line:?} in\n{text}"
            );
        }
        assert!(
            text.contains("x12kit_core_seconds_count{operation=\"parse\"}"),
            "{text}"
        );
        assert!(text.contains("x12kit_build_info{version=\""), "{text}");
        // One TYPE line per family, even where several timers share a name.
        assert_eq!(
            text.matches("# TYPE x12kit_core_seconds ").count(),
            1,
            "{text}"
        );
    }
}
