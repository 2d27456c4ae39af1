//! The OpenAPI 3.1 document, generated from the handlers' annotations and the
//! schema types below (which describe the JSON the handlers build).
//! `x12kit-server openapi` prints it; `examples/server/openapi.json` is the
//! committed copy, checked for drift by `examples/server/test.sh`.

use serde_json::Value;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

/// Body of `POST /documents/outbound` (spec §2.1).
#[derive(ToSchema, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
#[schema(example = json!({"partnerId": "acme-retail", "documentTypeCode": "850", "payload": {"purchaseOrderNumber": "PO-10045", "shipTo": {"id": "0003947268292", "name": "ACME Distribution Center"}, "lines": [{"lineNumber": 1, "sku": "WID-100", "quantity": 120, "unitPrice": 9.25}, {"lineNumber": 2, "sku": "WID-200", "quantity": 24, "unitPrice": 13.79}]}}))]
pub struct OutboundRequest {
    /// A trading partner of the caller's account.
    #[schema(min_length = 1)]
    pub partner_id: String,
    /// One of the 18 type codes (850, 810, 855, 856, 204, 210, 211, 212, 214, 753, 754, 858, 940, 943, 944, 945, 947, 990).
    #[schema(min_length = 1)]
    pub document_type_code: String,
    /// The document; its fields depend on the type (see schema/documents in the repository).
    pub payload: Object,
}

/// Any JSON object.
#[derive(ToSchema, serde::Deserialize)]
#[schema(value_type = Object)]
pub struct Object(#[allow(dead_code)] serde_json::Map<String, Value>);

/// Control numbers of the rendered interchange.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ControlNumbers {
    /// ISA13.
    pub interchange: Option<i64>,
    /// GS06.
    pub group: Option<i64>,
    /// ST02.
    pub transaction: Option<i64>,
}

/// One transaction in a list.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct TransactionSummary {
    /// Identifier (`doc_…`).
    pub document_id: String,
    /// Partner id.
    pub partner_id: String,
    /// Type code.
    pub document_type_code: String,
    /// `outbound` or `inbound`.
    pub direction: String,
    /// Lower case: queued, validated, routed, acknowledged, failed (outbound); received (inbound).
    pub status: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// RFC 3339, UTC.
    pub updated_at: String,
    /// ISA13 / GS06 / ST02.
    pub control_numbers: ControlNumbers,
}

/// `202` of the send operation: both acknowledgement shapes of spec §2.2 at once.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct OutboundAccepted {
    /// Always true.
    pub ok: bool,
    /// Identifier of the document (also `data.documentId`).
    pub document_id: String,
    /// `queued` (also `data.status`).
    pub status: String,
    /// The transaction summary.
    pub data: TransactionSummary,
}

/// `GET /transactions`.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct TransactionList {
    /// Always true.
    pub ok: bool,
    /// Newest first.
    pub data: Vec<TransactionSummary>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// One status change.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct StatusChange {
    /// The new status.
    pub status: String,
    /// Why.
    pub reason: String,
    /// RFC 3339, UTC.
    pub at: String,
}

/// One webhook delivery.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct Delivery {
    /// Delivery id.
    pub id: String,
    /// Event kind.
    pub event: String,
    /// Attempts so far.
    pub attempts: i64,
    /// Result of the last attempt.
    pub last_result: Option<String>,
    /// `pending`, `delivered` or `failed` (after the last retry).
    pub state: String,
    /// The endpoint.
    pub url: String,
    /// When the next attempt is due (pending only).
    pub next_attempt_at: Option<String>,
    /// When a 2xx came back.
    pub delivered_at: Option<String>,
    /// Every attempt.
    pub attempt_log: Vec<DeliveryAttempt>,
}

/// One webhook attempt.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct DeliveryAttempt {
    /// 1, 2, ...
    pub attempt: i64,
    /// RFC 3339, UTC.
    pub at: String,
    /// The endpoint's HTTP status (null: none came).
    pub http_status: Option<i64>,
    /// `delivered`, `HTTP 500`, `timeout`, `connection failed`, ...
    pub result: String,
    /// Duration of the attempt.
    pub duration_ms: i64,
}

/// `POST /documents/inbound`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct InboundResult {
    /// Always true.
    pub ok: bool,
    /// `{partnerId, interchanges, acknowledgements, transactions, acknowledgementReply}`.
    pub data: Object,
}

/// `GET /stats`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Stats {
    /// Always true.
    pub ok: bool,
    /// `{documents: {status: count}, queues: {toValidate, toRoute, awaitingAcknowledgement, oldestWaitingMs}, webhooks: {pending, retrying, delivered, failed}}`.
    pub data: Object,
}

/// The full status of one transaction.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct TransactionFull {
    /// Identifier (`doc_…`).
    pub document_id: String,
    /// Partner id.
    pub partner_id: String,
    /// Type code.
    pub document_type_code: String,
    /// `outbound` or `inbound`.
    pub direction: String,
    /// Current status.
    pub status: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// RFC 3339, UTC.
    pub updated_at: String,
    /// ISA13 / GS06 / ST02.
    pub control_numbers: ControlNumbers,
    /// Every status change, oldest first.
    pub status_history: Vec<StatusChange>,
    /// The rendered interchange.
    pub x12: Option<String>,
    /// The core's render warnings.
    pub render_warnings: Vec<Object>,
    /// Validation result of the rendered X12 (set by the workers; null before).
    pub diagnostics: Option<Object>,
    /// The partner's acknowledgement once received (null before).
    pub partner_acknowledgement: Option<Object>,
    /// Webhook deliveries about this transaction.
    pub webhook_deliveries: Vec<Delivery>,
    /// Transport attempts of the routing (null before). When a process stopped while it
    /// was routing the document, the first entry is `{"result": "interrupted", "resent":
    /// true, ...}`: the partner may have received it twice (same ISA13, same
    /// Idempotency-Key).
    pub routing_attempts: Option<Vec<Object>>,
    /// Why the document failed (null unless failed).
    pub failure_reason: Option<String>,
    /// When the partner's acknowledgement is due (routed documents of partners with a window).
    pub acknowledgement_due_at: Option<String>,
    /// Inbound only: the mapped document (the core's parse).
    pub document: Option<Object>,
}

/// `GET /transactions/{id}`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct TransactionDetail {
    /// Always true.
    pub ok: bool,
    /// The transaction.
    pub data: TransactionFull,
}

/// `{"x12": "..."}`: raw X12 wrapped in JSON.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct X12Body {
    /// The interchange text.
    #[schema(min_length = 1)]
    pub x12: String,
}

/// Raw X12 text (not empty).
#[derive(Debug)]
pub struct X12Text;

impl utoipa::PartialSchema for X12Text {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .min_length(Some(1))
            .description(Some("The raw interchange (not empty)."))
            .build()
            .into()
    }
}

impl ToSchema for X12Text {}

/// Acknowledgement kinds of `POST /validate?ack=` (any case).
#[derive(ToSchema, serde::Deserialize)]
#[allow(dead_code)]
pub enum AckParam {
    /// TA1 only.
    #[serde(rename = "ta1")]
    Ta1,
    /// 997 per group.
    #[serde(rename = "997")]
    Fa997,
    /// 999 per group.
    #[serde(rename = "999")]
    Fa999,
    /// 997 before 005010, 999 from 005010, TA1 when asked for.
    #[serde(rename = "auto")]
    Auto,
}

/// The `error` object.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct ErrorObject {
    /// Stable UPPER_SNAKE code (see the README's table).
    pub code: String,
    /// For a person.
    pub message: String,
    /// Every problem found.
    pub details: Vec<crate::error::Detail>,
    /// On 429 only: seconds to wait (also `Retry-After`).
    pub retry_after_seconds: Option<i64>,
}

/// Every error response.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ErrorBody {
    /// Always false.
    pub ok: bool,
    /// What went wrong.
    pub error: ErrorObject,
}

/// `/healthz`, `/readyz`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Health {
    /// True.
    pub ok: bool,
}

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "x12kit reference server",
        description = "The EDI integration service API (spec/service-api.md) on the x12kit core. Every path under /api/v1 is also served under /v1 (the separate API host). Every error is {\"ok\": false, \"error\": {code, message, details}}.",
        license(name = "MIT OR Apache-2.0")
    ),
    modifiers(&Security),
    components(schemas(OutboundRequest, OutboundAccepted, TransactionList, TransactionDetail, ErrorBody, X12Body, Health, AckParam, InboundResult, Stats))
)]
struct Doc;

/// The OpenAPI document as pretty JSON (with a final newline).
pub fn json() -> String {
    let mut doc = Doc::openapi();
    doc.merge(<crate::api::Paths as OpenApi>::openapi());
    crate::serve::openapi::add_responses(&mut doc);
    let mut s = doc.to_pretty_json().unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}
