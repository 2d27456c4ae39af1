//! The OpenAPI 3.1 document's schema types (which describe the JSON the handlers build)
//! and its frame ([`Doc`]: info, tags, security); `crate::api::openapi_json` adds the
//! handlers' paths from their annotations.
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

/// A document's direction.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "lowercase")]
pub enum Direction {
    /// Sent to a partner.
    Outbound,
    /// Received from a partner.
    Inbound,
}

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
    /// Lower case: queued, validated, routed, acknowledged, failed, canceled (outbound); received (inbound).
    pub status: String,
    /// The business reference: the payload field the core names for the type (the PO number
    /// of an 850, the invoice number of an 810 ...); null when the document has none.
    pub reference: Option<String>,
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
    /// `{documents: {status: count}, attention: {failed, rejectedByPartner, acknowledgementOverdue, webhookDeliveriesFailed}, queues: {toValidate, toRoute, awaitingAcknowledgement, oldestWaitingMs}, webhooks: {pending, retrying, delivered, failed}}`, and with `since`, `created: {since, documents: {status: count}}`. `rejectedByPartner`: failed with the partner's rejecting TA1/997/999; `acknowledgementOverdue`: failed because the acknowledgement window closed, or routed past it.
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
    /// The business reference (see the list), or null.
    pub reference: Option<String>,
    /// Resends asked for (`POST /transactions/{id}/resend`), 0 when none.
    pub resends: i64,
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
    pub webhook_deliveries: Vec<LoggedDelivery>,
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
    /// Outbound only: the payload the document was rendered from.
    pub payload: Option<Object>,
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

// ---------------------------------------------------------------- sign-in and settings

/// Body of `POST /api/auth/login`.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
#[schema(example = json!({"email": "admin@example.com", "password": "a password of 12+ characters"}))]
pub struct LoginRequest {
    /// The sign-in address (any case).
    #[schema(min_length = 1)]
    pub email: String,
    /// The password.
    #[schema(min_length = 1)]
    pub password: String,
}

/// A person who signs in.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct User {
    /// `usr_…`.
    pub id: String,
    /// Sign-in address (lower case).
    pub email: String,
    /// `admin` (changes settings) or `member` (reads them).
    pub role: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// The last sign-in (RFC 3339).
    pub last_sign_in_at: Option<String>,
    /// A disabled user cannot sign in.
    pub disabled: bool,
}

/// The session's times.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct SessionTimes {
    /// The sign-in (RFC 3339).
    pub created_at: String,
    /// The absolute end (RFC 3339).
    pub expires_at: String,
    /// A session unused this long ends.
    pub idle_timeout_seconds: i64,
}

/// The signed-in person.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct SessionData {
    /// The person.
    pub user: User,
    /// Their account.
    pub account: String,
    /// Send it as `X-CSRF-Token` with every POST, PUT, PATCH and DELETE.
    pub csrf_token: String,
    /// The session's limits.
    pub session: SessionTimes,
}

/// `POST /api/auth/login`, `GET /api/auth/me`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct SessionAnswer {
    /// Always true.
    pub ok: bool,
    /// The signed-in person.
    pub data: SessionData,
}

/// An API key (never the key itself).
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct Key {
    /// `key_…`.
    pub id: String,
    /// Its name.
    pub name: String,
    /// `x12k_` and 6 more characters of the key, to recognize it (null: imported as a hash).
    pub prefix: Option<String>,
    /// A user id, `console` or `configuration`.
    pub created_by: String,
    /// RFC 3339.
    pub created_at: String,
    /// Updated within seconds of a use.
    pub last_used_at: Option<String>,
    /// Set once revoked.
    pub revoked_at: Option<String>,
}

/// A new key with its text.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct KeyWithText {
    /// `key_…`.
    pub id: String,
    /// Its name.
    pub name: String,
    /// `x12k_` and 6 more characters.
    pub prefix: Option<String>,
    /// The user who made it.
    pub created_by: String,
    /// RFC 3339.
    pub created_at: String,
    /// Null.
    pub last_used_at: Option<String>,
    /// Null.
    pub revoked_at: Option<String>,
    /// The key (`x12k_…`): shown this once.
    pub key: String,
}

/// Body of `POST /api/settings/keys`.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
#[schema(example = json!({"name": "erp"}))]
pub struct KeyRequest {
    /// A name for people.
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
}

/// `GET /api/settings/keys`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct KeyList {
    /// Always true.
    pub ok: bool,
    /// Oldest first.
    pub data: Vec<Key>,
}

/// `POST /api/settings/keys`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct KeyCreated {
    /// Always true.
    pub ok: bool,
    /// The key, with its text.
    pub data: KeyWithText,
}

/// One key.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct KeyAnswer {
    /// Always true.
    pub ok: bool,
    /// The key.
    pub data: Key,
}

/// How a partner is reached (`kind`; credentials answered as `"********"`, which sent back
/// keeps the stored value).
#[derive(ToSchema, serde::Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum Transport {
    /// `http`.
    Http(HttpTransport),
    /// `directory`.
    Directory(DirectoryTransport),
    /// `sftp`.
    Sftp(SftpTransport),
    /// `as2`.
    As2(As2Transport),
}

/// `"sftp"`.
#[derive(ToSchema, serde::Deserialize)]
#[allow(dead_code)]
pub enum SftpKind {
    /// The SFTP transport.
    #[serde(rename = "sftp")]
    Sftp,
}

/// `"as2"`.
#[derive(ToSchema, serde::Deserialize)]
#[allow(dead_code)]
pub enum As2Kind {
    /// The AS2 transport.
    #[serde(rename = "as2")]
    As2,
}

/// `"delete"` or `"move"`.
#[derive(ToSchema, serde::Deserialize)]
#[allow(dead_code)]
pub enum AfterDownload {
    /// Delete taken files on the server.
    #[serde(rename = "delete")]
    Delete,
    /// Move them to `processedDir`.
    #[serde(rename = "move")]
    Move,
}

/// The partner's SFTP server: upload to `outboundDir` (a temporary name, then the
/// `<ISA13>-<documentId>.x12` name), poll `inboundDir`. Give `privateKey` or `password`
/// (both credentials: stored sealed, answered as `"********"`).
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
pub struct SftpTransport {
    /// `sftp`.
    pub kind: SftpKind,
    /// Host name or address.
    #[schema(min_length = 1, max_length = 253)]
    pub host: String,
    /// Port (default 22).
    #[schema(minimum = 1, maximum = 65535)]
    pub port: Option<i64>,
    /// User name.
    #[schema(min_length = 1)]
    pub user: String,
    /// Password (instead of a key).
    pub password: Option<String>,
    /// Private key: OpenSSH or PEM text (ed25519, ECDSA, RSA), without a passphrase.
    pub private_key: Option<String>,
    /// The server's host key: `SHA256:<base64>` as `ssh-keygen -lf` prints it; any other
    /// key is refused.
    #[schema(pattern = "^SHA256:[A-Za-z0-9+/]{43}=?$")]
    pub host_key_sha256: String,
    /// Folder on the server written to.
    #[schema(min_length = 1)]
    pub outbound_dir: String,
    /// Folder on the server polled for the partner's files.
    pub inbound_dir: Option<String>,
    /// What becomes of a file taken (default `delete`).
    pub after_download: Option<AfterDownload>,
    /// Where files go with `afterDownload: "move"`.
    pub processed_dir: Option<String>,
    /// Seconds between polls (1 to 86400, default 60).
    #[schema(minimum = 1, maximum = 86400)]
    pub poll_seconds: Option<i64>,
    /// Retries after a failed attempt (0 to 20, default 3).
    #[schema(minimum = 0, maximum = 20)]
    pub retries: Option<i64>,
    /// First wait between retries, doubled each time (ms, default 1000).
    #[schema(minimum = 0, maximum = 3600000)]
    pub backoff_ms: Option<i64>,
    /// Time limit of one attempt (ms, default 30000).
    #[schema(minimum = 1, maximum = 3600000)]
    pub timeout_ms: Option<i64>,
    /// Connections to the server at once (1 to 16, default 2).
    #[schema(minimum = 1, maximum = 16)]
    pub max_connections: Option<i64>,
}

/// The partner's AS2 endpoint (RFC 4130). Their messages come to `POST /as2/{account}`.
/// `ourPrivateKey` is stored sealed and answered as `"********"`.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
pub struct As2Transport {
    /// `as2`.
    pub kind: As2Kind,
    /// The partner's AS2 URL (http or https).
    pub url: String,
    /// Our AS2 name (1 to 128 printable ASCII characters).
    #[schema(min_length = 1, max_length = 128)]
    pub as2_from: String,
    /// The partner's AS2 name.
    #[schema(min_length = 1, max_length = 128)]
    pub as2_to: String,
    /// The partner's X.509 certificate (PEM, RSA). Required.
    pub partner_certificate: Option<String>,
    /// Our certificate (PEM, RSA). Required.
    pub our_certificate: Option<String>,
    /// Our private key (PEM, RSA, not encrypted), the key of `ourCertificate`. Required.
    pub our_private_key: Option<String>,
    /// `aes128-cbc`, `aes256-cbc` (default), `aes128-gcm`, `aes256-gcm` or `none`.
    pub encryption: Option<String>,
    /// `sha256` (default), `sha384`, `sha512` or `none` (then unsigned messages are accepted).
    pub signing: Option<String>,
    /// Compress before signing (RFC 5402; default false).
    pub compress: Option<bool>,
    /// `sync` (default), `async` (needs `mdnUrl`) or `none`.
    pub mdn: Option<String>,
    /// Ask for a signed MDN and refuse an unsigned one (default true).
    pub mdn_signed: Option<bool>,
    /// This server's `/as2/{account}` URL as the partner reaches it (asynchronous MDNs).
    pub mdn_url: Option<String>,
    /// Retries after a failed attempt (0 to 20, default 3).
    #[schema(minimum = 0, maximum = 20)]
    pub retries: Option<i64>,
    /// First wait between retries, doubled each time (ms, default 1000).
    #[schema(minimum = 0, maximum = 3600000)]
    pub backoff_ms: Option<i64>,
    /// Time limit of one POST with its synchronous MDN (ms, default 60000).
    #[schema(minimum = 1, maximum = 3600000)]
    pub timeout_ms: Option<i64>,
}

/// `POST /api/settings/partners/{id}/test-connection`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct TestConnectionAnswer {
    /// Always true (the try's own outcome is `data.ok`).
    pub ok: bool,
    /// `{ok, transport, result, durationMs, ...}`: for `sftp` the folders listed, for `as2`
    /// the certificates (subject, issuer, validity, SHA-256) and the URL's answer.
    pub data: Object,
}

/// `"http"`.
#[derive(ToSchema, serde::Deserialize)]
#[allow(dead_code)]
pub enum HttpKind {
    /// The HTTP transport.
    #[serde(rename = "http")]
    Http,
}

/// `"directory"`.
#[derive(ToSchema, serde::Deserialize)]
#[allow(dead_code)]
pub enum DirectoryKind {
    /// The folder transport.
    #[serde(rename = "directory")]
    Directory,
}

/// POST the interchange; a 2xx is routed.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
pub struct HttpTransport {
    /// `http`.
    pub kind: HttpKind,
    /// http(s) URL.
    pub url: String,
    /// Extra headers (credentials: stored sealed).
    pub headers: Option<std::collections::BTreeMap<String, String>>,
    /// Retries after the first attempt (0 to 20, default 3).
    #[schema(minimum = 0, maximum = 20)]
    pub retries: Option<i64>,
    /// First wait between retries, doubled each time (ms, default 500).
    #[schema(minimum = 0, maximum = 3600000)]
    pub backoff_ms: Option<i64>,
    /// Timeout of one attempt (ms, default 10000).
    #[schema(minimum = 0, maximum = 3600000)]
    pub timeout_ms: Option<i64>,
}

/// Write into a folder, read the partner's files from another (relative to the account's
/// files folder).
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct DirectoryTransport {
    /// `directory`.
    pub kind: DirectoryKind,
    /// Folder written.
    pub outbox: String,
    /// Folder read.
    pub inbox: Option<String>,
}

/// Body of `POST /api/settings/partners`.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
#[schema(example = json!({"id": "acme-retail", "profile": {"id": "acme-retail", "sender": {"qualifier": "ZZ", "id": "WIDGETSUPPLY"}, "receiver": {"qualifier": "01", "id": "123456789"}, "version": "004010"}, "transport": {"kind": "http", "url": "https://partner.example/edi", "headers": {"X-Api-Key": "partner-key"}}, "ackWindowSeconds": 86400, "acknowledgeInbound": "997"}))]
pub struct PartnerCreateRequest {
    /// The partnerId.
    #[schema(
        pattern = "^[A-Za-z0-9._-]*[A-Za-z0-9_-][A-Za-z0-9._-]*$",
        min_length = 1,
        max_length = 64
    )]
    pub id: String,
    /// The core's partner profile (schema/partner.schema.json), checked by the core.
    pub profile: Object,
    /// How the partner is reached.
    pub transport: Option<Transport>,
    /// A routed document not acknowledged within this many seconds is failed.
    #[schema(minimum = 0, maximum = 31536000)]
    pub ack_window_seconds: Option<i64>,
    /// Answer the partner's documents with a 997 or a 999.
    pub acknowledge_inbound: Option<AckKind>,
    /// False: no new documents, its inbox is not read (default true).
    pub enabled: Option<bool>,
    /// Ignored on creation.
    #[schema(minimum = 0)]
    pub version: Option<i64>,
    /// Ignored.
    pub created_at: Option<String>,
    /// Ignored.
    pub updated_at: Option<String>,
}

/// Body of `PUT /api/settings/partners/{id}`.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
#[schema(example = json!({"id": "acme-retail", "profile": {"id": "acme-retail", "sender": {"qualifier": "ZZ", "id": "WIDGETSUPPLY"}, "receiver": {"qualifier": "01", "id": "123456789"}, "version": "004010"}, "transport": {"kind": "http", "url": "https://partner.example/edi", "headers": {"X-Api-Key": "partner-key"}}, "ackWindowSeconds": 86400, "acknowledgeInbound": "997"}))]
pub struct PartnerRequest {
    /// The partnerId: the path's (a different one is 422 `ID_MISMATCH`).
    #[schema(
        pattern = "^[A-Za-z0-9._-]*[A-Za-z0-9_-][A-Za-z0-9._-]*$",
        min_length = 1,
        max_length = 64
    )]
    pub id: Option<String>,
    /// The core's partner profile (schema/partner.schema.json), checked by the core.
    pub profile: Object,
    /// How the partner is reached.
    pub transport: Option<Transport>,
    /// A routed document not acknowledged within this many seconds is failed.
    #[schema(minimum = 0, maximum = 31536000)]
    pub ack_window_seconds: Option<i64>,
    /// Answer the partner's documents with a 997 or a 999.
    pub acknowledge_inbound: Option<AckKind>,
    /// False: no new documents, its inbox is not read (default true).
    pub enabled: Option<bool>,
    /// As answered: if sent, it must be the current version (else 409 `VERSION_CONFLICT`).
    #[schema(minimum = 0)]
    pub version: Option<i64>,
    /// As answered (ignored).
    pub created_at: Option<String>,
    /// As answered (ignored).
    pub updated_at: Option<String>,
}

/// `997` or `999`.
#[derive(ToSchema, serde::Deserialize)]
#[allow(dead_code)]
pub enum AckKind {
    /// 997.
    #[serde(rename = "997")]
    Fa997,
    /// 999.
    #[serde(rename = "999")]
    Fa999,
}

/// A trading partner.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct Partner {
    /// The partnerId.
    pub id: String,
    /// The core's partner profile.
    pub profile: Object,
    /// How it is reached (credentials as "********").
    pub transport: Option<Object>,
    /// Acknowledgement window.
    pub ack_window_seconds: Option<i64>,
    /// `997` / `999`.
    pub acknowledge_inbound: Option<String>,
    /// Enabled.
    pub enabled: bool,
    /// Goes up by one at each change.
    pub version: i64,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
}

/// `GET /api/settings/partners`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct PartnerList {
    /// Always true.
    pub ok: bool,
    /// By id.
    pub data: Vec<Partner>,
}

/// One partner.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct PartnerAnswer {
    /// Always true.
    pub ok: bool,
    /// The partner.
    pub data: Partner,
}

/// An event kind.
#[derive(ToSchema, serde::Deserialize)]
#[allow(dead_code)]
pub enum EventKindName {
    /// Passed validation.
    #[serde(rename = "document.validated")]
    Validated,
    /// Routed.
    #[serde(rename = "document.routed")]
    Routed,
    /// The partner's acknowledgement.
    #[serde(rename = "document.partner_ack")]
    PartnerAck,
    /// An error.
    #[serde(rename = "document.error")]
    Error,
}

/// Body of `POST /api/settings/webhooks` and `PUT /api/settings/webhooks/{id}`.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
#[schema(example = json!({"url": "https://hooks.example/x12kit", "events": ["document.routed", "document.error"]}))]
pub struct WebhookRequest {
    /// http(s) URL.
    #[schema(min_length = 1)]
    pub url: String,
    /// The event kinds it receives (absent or empty: all).
    pub events: Option<Vec<EventKindName>>,
    /// False: it receives nothing (default true).
    pub enabled: Option<bool>,
    /// For people (at most 500 characters).
    #[schema(max_length = 500)]
    pub description: Option<String>,
    /// As answered (ignored).
    pub id: Option<String>,
    /// As answered (ignored).
    pub secrets: Option<Vec<Object>>,
    /// As answered (ignored).
    pub created_at: Option<String>,
    /// As answered (ignored).
    pub updated_at: Option<String>,
}

/// One signing secret (never its value).
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct SecretInfo {
    /// `whs_…`.
    pub id: String,
    /// RFC 3339.
    pub created_at: String,
    /// When it stops signing (null: when rotated).
    pub expires_at: Option<String>,
    /// True while it signs.
    pub signing: bool,
}

/// A webhook endpoint.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct Webhook {
    /// `wh_…`.
    pub id: String,
    /// Where deliveries go.
    pub url: String,
    /// Event kinds (empty: all).
    pub events: Vec<String>,
    /// Enabled.
    pub enabled: bool,
    /// For people.
    pub description: String,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
    /// Newest first.
    pub secrets: Vec<SecretInfo>,
}

/// An endpoint with a new secret.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct WebhookSecretData {
    /// The endpoint (its fields as in `Webhook`).
    #[schema(inline)]
    pub endpoint: Webhook,
    /// The new signing secret (`whsec_…`): shown this once.
    pub secret: String,
}

/// `POST /api/settings/webhooks`, `POST .../rotate-secret`: the endpoint's fields and `secret`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct WebhookWithSecret {
    /// Always true.
    pub ok: bool,
    /// The endpoint's fields (as in `Webhook`) and `secret`, the new signing secret (`whsec_…`), shown this once.
    pub data: Object,
}

/// `GET /api/settings/webhooks`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct WebhookList {
    /// Always true.
    pub ok: bool,
    /// Oldest first.
    pub data: Vec<Webhook>,
}

/// One endpoint.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct WebhookAnswer {
    /// Always true.
    pub ok: bool,
    /// The endpoint.
    pub data: Webhook,
}

/// Body of `POST .../rotate-secret` (optional).
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
pub struct RotateRequest {
    /// How long the secrets that signed until now keep signing beside the new one (default 86400).
    #[schema(minimum = 0, maximum = 2592000)]
    pub overlap_seconds: Option<i64>,
}

/// What the endpoint said to a test delivery.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct WebhookTest {
    /// The test delivery's id.
    pub delivery_id: String,
    /// Its event kind.
    pub event: String,
    /// Where it went.
    pub url: String,
    /// The endpoint's HTTP status (null: none came).
    pub http_status: Option<i64>,
    /// `delivered`, `HTTP 500`, `timeout`, `connection failed`, ...
    pub result: String,
    /// How long it took.
    pub duration_ms: i64,
    /// The first 1 KiB of the endpoint's answer.
    pub response_body: Option<String>,
}

/// `POST .../test`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct WebhookTestAnswer {
    /// Always true.
    pub ok: bool,
    /// What happened.
    pub data: WebhookTest,
}

/// Body of `POST /api/settings/users`.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
#[schema(example = json!({"email": "ops@example.com", "role": "member"}))]
pub struct UserRequest {
    /// Sign-in address.
    #[schema(min_length = 3, max_length = 254)]
    pub email: String,
    /// Default `member`.
    pub role: Option<Role>,
    /// At least 12 characters; without it one is made and answered once.
    #[schema(min_length = 12)]
    pub password: Option<String>,
}

/// Body of `PUT /api/settings/users/{id}`: only the fields given change.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct UserChangeRequest {
    /// The new role.
    pub role: Option<Role>,
    /// Disable (true) or enable (false).
    pub disabled: Option<bool>,
    /// A new password (12 characters or more).
    #[schema(min_length = 12)]
    pub password: Option<String>,
}

/// A role.
#[derive(ToSchema, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum Role {
    /// Changes settings.
    Admin,
    /// Reads them.
    Member,
}

/// `GET /api/settings/users`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct UserList {
    /// Always true.
    pub ok: bool,
    /// Oldest first.
    pub data: Vec<User>,
}

/// One user (a new one made without `password` also has `password`, shown once).
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct UserAnswer {
    /// Always true.
    pub ok: bool,
    /// The user.
    pub data: User,
}

/// Who made a change.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct AuditActor {
    /// A user id, `console` or `configuration`.
    pub id: String,
    /// The user's e-mail, or the same word.
    pub name: String,
}

/// One change of the settings.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct AuditEntry {
    /// Its number (newer is larger).
    pub id: i64,
    /// RFC 3339.
    pub at: String,
    /// Who.
    pub actor: AuditActor,
    /// `key.create`, `key.revoke`, `partner.create`, `partner.update`, `partner.delete`,
    /// `webhook.create`, `webhook.update`, `webhook.delete`, `webhook.rotate-secret`,
    /// `user.create`, `user.update`, `account.create`.
    pub action: String,
    /// The id changed.
    pub target: String,
    /// Before (null for a creation); secrets left out.
    pub before: Option<Object>,
    /// After (null for a deletion); secrets left out.
    pub after: Option<Object>,
    /// The client address (null from the console).
    pub client: Option<String>,
}

/// `GET /api/settings/audit`.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct AuditPage {
    /// Always true.
    pub ok: bool,
    /// Newest first.
    pub data: Vec<AuditEntry>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// The answer of a document action (resend, cancel): the transaction as it is now.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ActionAnswer {
    /// Always true.
    pub ok: bool,
    /// The transaction summary.
    pub data: TransactionSummary,
}

/// One webhook delivery (of a transaction, of the delivery log), with its attempts.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct LoggedDelivery {
    /// Delivery id (`X-Service-Delivery-ID`, the same on every attempt).
    pub id: String,
    /// The document it is about.
    pub document_id: String,
    /// Event kind.
    pub event: String,
    /// The endpoint's id (null for deliveries made before settings lived in the store).
    pub endpoint_id: Option<String>,
    /// The endpoint's URL.
    pub url: String,
    /// `pending`, `delivered` or `failed`.
    pub state: String,
    /// Attempts so far.
    pub attempts: i64,
    /// Result of the last attempt.
    pub last_result: Option<String>,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// When the next attempt is due (pending only).
    pub next_attempt_at: Option<String>,
    /// When a 2xx came back.
    pub delivered_at: Option<String>,
    /// Every attempt.
    pub attempt_log: Vec<DeliveryAttempt>,
}

/// `GET /api/deliveries`.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct DeliveryPage {
    /// Always true.
    pub ok: bool,
    /// Newest first.
    pub data: Vec<LoggedDelivery>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// `POST /api/deliveries/{id}/redeliver`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct DeliveryAnswer {
    /// Always true.
    pub ok: bool,
    /// The delivery as it is now.
    pub data: LoggedDelivery,
}

/// The separator of a CSV upload.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "lowercase")]
pub enum CsvDelimiter {
    /// `,`
    Comma,
    /// `;`
    Semicolon,
}

/// A CSV file: the header row of JSON pointers into the payload, then the rows.
#[derive(Debug)]
pub struct CsvText;

impl utoipa::PartialSchema for CsvText {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some(
                "A CSV: the header row names JSON pointers into the payload (/purchaseOrderNumber, /lines/*/sku), then one row per line item.",
            ))
            .build()
            .into()
    }
}

impl ToSchema for CsvText {}

/// `POST /api/upload`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct UploadAnswer {
    /// Always true.
    pub ok: bool,
    /// `{dryRun, documentTypeCode, partnerId, fileSha256, documents: [{key, reference, rows: [first, last]}, plus `payload` in a dry run and `documentId`, `status`, `replayed` after one], problems (dry run: [{row, column, pointer, code, message}]), table (dry run: {header, rows, truncated}), replayed (after one)}`.
    pub data: Object,
}

/// `GET /document-types`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct DocumentTypes {
    /// Always true.
    pub ok: bool,
    /// `[{code, name, functionalId, referenceField}]`: each type the server renders and reads, in the core's order; `referenceField` is the JSON pointer of the payload field that is its business reference.
    pub data: Vec<Object>,
}

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
        components.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(utoipa::openapi::security::ApiKey::Cookie(
                utoipa::openapi::security::ApiKeyValue::with_description(
                    "x12kit_session",
                    "The session cookie of POST /api/auth/login. State-changing requests also send X-CSRF-Token.",
                ),
            )),
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
    tags(
        (name = "settings", description = "Sign-in (/api/auth) and the account's settings (/api/settings): API keys, trading partners, webhook endpoints, users and the audit log. These routes take the session cookie of POST /api/auth/login, never an API key (401); every POST, PUT, PATCH and DELETE also sends X-CSRF-Token (403 CSRF_TOKEN_INVALID); members read, admins change (403 FORBIDDEN)."),
        (name = "documents", description = "Outbound and inbound documents."),
        (name = "transactions", description = "The caller's transactions."),
        (name = "x12", description = "Parse and validate X12."),
        (name = "service", description = "Probes, statistics and this document."),
        (name = "as2", description = "AS2 (RFC 4130) messages and asynchronous MDNs from trading partners, authenticated by their signature (no API key)."),
    ),
    components(schemas(OutboundRequest, OutboundAccepted, TransactionList, TransactionDetail, ErrorBody, X12Body, Health, AckParam, Direction, CsvDelimiter, InboundResult, Stats))
)]
pub struct Doc;
