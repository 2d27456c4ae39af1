//! The one error body of every failed request:
//! `{"ok": false, "error": {"code": "UPPER_SNAKE", "message": "...", "details": [...]}}`,
//! and how the core's error kinds map onto HTTP status codes.

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Value, json};
use std::borrow::Cow;

/// One problem of a refused request (the same shape as the core's problems).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Detail {
    /// `error` or `warning`.
    pub severity: &'static str,
    /// Stable UPPER_SNAKE code.
    pub code: Cow<'static, str>,
    /// JSON pointer of the offending value (`/payload/lines/0/sku`), or the query parameter / header.
    pub pointer: String,
    /// What is wrong, for a person.
    pub message: String,
}

impl Detail {
    /// An error detail.
    pub fn error(
        code: &'static str,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Detail {
            severity: "error",
            code: Cow::Borrowed(code),
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

/// A failed request (boxed: handlers return it by value on every path).
#[derive(Debug)]
pub struct ApiError(Box<Failure>);

impl std::ops::Deref for ApiError {
    type Target = Failure;
    fn deref(&self) -> &Failure {
        &self.0
    }
}

impl std::ops::DerefMut for ApiError {
    fn deref_mut(&mut self) -> &mut Failure {
        &mut self.0
    }
}

/// What a failed request answers: status, stable code, message, details and extra headers.
#[derive(Debug)]
pub struct Failure {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable UPPER_SNAKE code.
    pub code: Cow<'static, str>,
    /// For a person.
    pub message: String,
    /// Every problem found.
    pub details: Value,
    /// Extra headers (`WWW-Authenticate`, `Retry-After`, `Allow`).
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Extra members of the `error` object (`retryAfterSeconds` of a 429).
    pub extra: Option<(&'static str, Value)>,
}

/// Result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    /// An error with no details.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError(Box::new(Failure {
            status,
            code: Cow::Borrowed(code),
            message: message.into(),
            details: Value::Array(Vec::new()),
            headers: Vec::new(),
            extra: None,
        }))
    }

    /// Adds the details.
    pub fn with_details(mut self, details: Vec<Detail>) -> Self {
        self.details = serde_json::to_value(details).unwrap_or_else(|_| json!([]));
        self
    }

    /// Adds a header.
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    /// 400 with a code.
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// 404 with a code.
    pub fn not_found(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, code, message)
    }

    /// 401 with `WWW-Authenticate: Bearer`.
    pub fn unauthorized(message: &str, oauth_error: &str) -> Self {
        let challenge = format!(
            "Bearer realm=\"x12kit\", error=\"{oauth_error}\", error_description=\"{message}\""
        );
        Self::new(StatusCode::UNAUTHORIZED, "UNAUTHORIZED", message).with_header(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_str(&challenge)
                .unwrap_or(HeaderValue::from_static("Bearer realm=\"x12kit\"")),
        )
    }

    /// 500: logged by the caller with the request id; the body shows nothing internal.
    pub fn internal() -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            "internal error; the server logged it under the X-Request-Id of this response",
        )
    }

    /// 503 `STORE_UNAVAILABLE`: the store cannot take the request now (a full disk, the
    /// database restarting or out of reach); nothing of the request was written. The
    /// cause is logged, not shown.
    pub fn store_unavailable() -> Self {
        let mut e = Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "STORE_UNAVAILABLE",
            "the store cannot take this request now (the server logged why); nothing of it was written; retry after 5 seconds",
        )
        .with_header(header::RETRY_AFTER, HeaderValue::from(5u64));
        e.extra = Some(("retryAfterSeconds", json!(5)));
        e
    }

    /// True for [`ApiError::store_unavailable`].
    pub fn is_store_unavailable(&self) -> bool {
        self.code == "STORE_UNAVAILABLE"
    }

    /// 413 for a body over the configured limit.
    pub fn too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "PAYLOAD_TOO_LARGE",
            format!("the request body is larger than the limit of {limit} bytes"),
        )
    }

    /// 415 listing what the route accepts.
    pub fn unsupported_media_type(found: Option<&str>, accepted: &[&str]) -> Self {
        let found = match found {
            Some(f) => format!("Content-Type {f:?} is not accepted"),
            None => "the request has no Content-Type".to_string(),
        };
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_MEDIA_TYPE",
            format!("{found}; send one of: {}", accepted.join(", ")),
        )
    }

    /// Maps a core error: invalid_input 400, rejected 422, io and internal 500.
    pub fn from_core(e: &x12kit::Error) -> Self {
        use x12kit::error::ErrorKind;
        let status = match e.kind() {
            ErrorKind::InvalidInput => StatusCode::BAD_REQUEST,
            ErrorKind::Rejected => StatusCode::UNPROCESSABLE_ENTITY,
            _ => {
                tracing::error!(
                    code = e.code().as_str(),
                    message = e.message(),
                    "core error"
                );
                return Self::internal();
            }
        };
        ApiError(Box::new(Failure {
            status,
            code: Cow::Borrowed(e.code().as_str()),
            message: e.message().to_string(),
            details: serde_json::to_value(e.details()).unwrap_or_else(|_| json!([])),
            headers: Vec::new(),
            extra: None,
        }))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let f = *self.0;
        let mut error = json!({
            "code": f.code,
            "message": f.message,
            "details": f.details,
        });
        if let Some((k, v)) = f.extra {
            error[k] = v;
        }
        let body = json!({"ok": false, "error": error});
        let mut resp = (f.status, axum::Json(body)).into_response();
        for (k, v) in f.headers {
            resp.headers_mut().append(k, v);
        }
        resp
    }
}
