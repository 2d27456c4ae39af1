//! The dashboard: the page the people who run the gateway use, served at `/`.
//!
//! It is a small static app (`examples/server/dashboard/`: one HTML page, ES
//! modules, one style sheet), compiled into the binary, that calls the
//! documented routes only (`/api/auth`, `/api/settings`, `/api/deliveries`,
//! `/api/upload`, `/api/v1`) with the session cookie: whatever it does, curl
//! does with a session. Its document page shows the X12 with the WASM package's
//! inspector: the inspector's module (`bindings/wasm/www/inspector.js`) is
//! compiled in too, and the WASM package itself (`x12kit_wasm.js` and its
//! `.wasm`, built by `bindings/wasm/build.sh`) is read from `wasm_package`
//! (default: `bindings/wasm/pkg/web` of this source tree) when asked for, so a
//! server built without it still starts, and the page says how to get it.
//!
//! Every answer carries a strict Content-Security-Policy (scripts, styles,
//! images and connections from this origin only; no inline script or style; the
//! WASM compiled with `'wasm-unsafe-eval'`, nothing else evaluated), is never
//! framed, and sends no referrer.

use crate::app::App;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use std::sync::Arc;

/// The Content-Security-Policy of every dashboard answer.
pub const CSP: &str = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
img-src 'self'; connect-src 'self'; font-src 'self'; manifest-src 'self'; form-action 'self'; \
frame-ancestors 'none'; base-uri 'none'";

macro_rules! assets {
    ($($path:literal => $file:literal,)*) => {
        /// The dashboard's files, by their path under `/assets/`.
        const ASSETS: &[(&str, &[u8])] = &[$(($path, include_bytes!($file)),)*];
    };
}

assets! {
    "style.css" => "../dashboard/style.css",
    "icon.svg" => "../dashboard/icon.svg",
    "js/app.js" => "../dashboard/js/app.js",
    "js/api.js" => "../dashboard/js/api.js",
    "js/ui.js" => "../dashboard/js/ui.js",
    "js/pages/signin.js" => "../dashboard/js/pages/signin.js",
    "js/pages/overview.js" => "../dashboard/js/pages/overview.js",
    "js/pages/documents.js" => "../dashboard/js/pages/documents.js",
    "js/pages/document.js" => "../dashboard/js/pages/document.js",
    "js/pages/types.js" => "../dashboard/js/pages/types.js",
    "js/pages/upload.js" => "../dashboard/js/pages/upload.js",
    "js/pages/partners.js" => "../dashboard/js/pages/partners.js",
    "js/pages/keys.js" => "../dashboard/js/pages/keys.js",
    "js/pages/webhooks.js" => "../dashboard/js/pages/webhooks.js",
    "js/pages/users.js" => "../dashboard/js/pages/users.js",
    "js/pages/audit.js" => "../dashboard/js/pages/audit.js",
    // The WASM page's inspector, reused as it is (not a second inspector).
    "inspector.js" => "../../../bindings/wasm/www/inspector.js",
}

const INDEX: &[u8] = include_bytes!("../dashboard/index.html");

/// The files of the WASM package the document page loads, from `wasm_package`.
const WASM_FILES: &[&str] = &["x12kit_wasm.js", "x12kit_wasm_bg.wasm"];

/// The folder of the built WASM package when the configuration names none: the
/// source tree's `bindings/wasm/pkg/web` (what `bindings/wasm/build.sh` makes).
pub fn default_wasm_package() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bindings/wasm/pkg/web")
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    }
}

/// The headers of every dashboard answer.
fn secured(mut resp: Response) -> Response {
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        HeaderName::from_static("cross-origin-opener-policy"),
        HeaderValue::from_static("same-origin"),
    );
    // Revalidated on each load, so a new server build shows at once.
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

fn file(path: &str, bytes: impl Into<axum::body::Body>) -> Response {
    secured(
        (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static(content_type(path)),
            )],
            bytes.into(),
        )
            .into_response(),
    )
}

fn missing(message: String) -> Response {
    secured(crate::error::ApiError::not_found("NOT_FOUND", message).into_response())
}

async fn index() -> Response {
    file("index.html", INDEX)
}

async fn asset(Path(path): Path<String>) -> Response {
    match ASSETS.iter().find(|(p, _)| *p == path) {
        Some((p, bytes)) => file(p, *bytes),
        None => missing(format!("no dashboard file /assets/{path}")),
    }
}

async fn wasm(State(app): State<Arc<App>>, Path(name): Path<String>) -> Response {
    if !WASM_FILES.contains(&name.as_str()) {
        return missing(format!("no file /assets/wasm/{name}"));
    }
    let path = app.config.wasm_package.join(&name);
    let at = path.clone();
    match tokio::task::spawn_blocking(move || std::fs::read(at)).await {
        Ok(Ok(bytes)) => file(&name, bytes),
        _ => missing(format!(
            "the WASM package is not built: {} is missing (run bindings/wasm/build.sh, or set wasm_package)",
            path.display()
        )),
    }
}

/// The dashboard's routes: `/` and `/assets/...`.
pub fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/", get(index))
        .route("/assets/wasm/{name}", get(wasm))
        .route("/assets/{*path}", get(asset))
}

/// True when the WASM package is where the dashboard reads it (for the first lines).
pub fn wasm_present(folder: &std::path::Path) -> bool {
    WASM_FILES.iter().all(|f| folder.join(f).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_module_the_page_imports_is_served() {
        // Each `import ... from '...'` of the dashboard's modules names a served file.
        for (path, bytes) in ASSETS.iter().filter(|(p, _)| p.ends_with(".js")) {
            let text = std::str::from_utf8(bytes).unwrap();
            let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
            for line in text.lines() {
                let Some(rest) = line.trim().strip_prefix("import ") else {
                    continue;
                };
                let Some(spec) = rest.rsplit_once(" from ").map(|(_, s)| s) else {
                    continue;
                };
                let spec = spec.trim_end_matches(';').trim_matches(['\'', '"']);
                let mut parts: Vec<&str> = if dir.is_empty() {
                    Vec::new()
                } else {
                    dir.split('/').collect()
                };
                for seg in spec.split('/') {
                    match seg {
                        "." => {}
                        ".." => {
                            parts.pop();
                        }
                        s => parts.push(s),
                    }
                }
                let target = parts.join("/");
                assert!(
                    ASSETS.iter().any(|(p, _)| *p == target),
                    "{path} imports {spec} ({target}), which is not served"
                );
            }
        }
    }

    #[test]
    fn the_page_has_no_inline_script_or_style() {
        let html = std::str::from_utf8(INDEX).unwrap();
        assert!(!html.contains("<style"), "inline style element");
        assert!(!html.contains("style="), "inline style attribute");
        for tag in html.split("<script").skip(1) {
            let open = tag.split('>').next().unwrap();
            assert!(open.contains("src="), "inline script: <script{open}>");
        }
        assert!(!CSP.contains("'unsafe-inline'") && !CSP.contains(" 'unsafe-eval'"));
    }
}
