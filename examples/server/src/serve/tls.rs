//! HTTPS: `[tls] cert_file` and `key_file` served with rustls (TLS 1.2 and 1.3 only, ALPN
//! `http/1.1`), re-read when either file changes (looked at every 2 s) or on SIGHUP.
//!
//! A reload builds a new [`CertifiedKey`] and swaps it in for the handshakes that follow;
//! connections already open keep theirs, so a certificate renewal drops nothing. A pair
//! that does not load (unreadable, not PEM, a key that does not match the certificate)
//! leaves the one in force serving, with an error logged. At start the same failure stops
//! the server with a message naming the setting (exit 2).

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

/// `[tls]` of the configuration file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsFile {
    /// The certificate chain (PEM: the server's certificate first, then intermediates).
    pub cert_file: PathBuf,
    /// The private key (PEM: PKCS#8, PKCS#1 RSA or SEC1 EC).
    pub key_file: PathBuf,
    /// An optional plain-HTTP listener (such as `0.0.0.0:80`) that answers every request
    /// with a 308 redirect to the same path over HTTPS.
    pub redirect_listen: Option<String>,
    /// `Strict-Transport-Security: max-age=…` on every HTTPS answer (seconds; default one
    /// year; 0 sends none).
    #[serde(default = "default_hsts")]
    pub hsts_max_age_seconds: u64,
}

fn default_hsts() -> u64 {
    365 * 24 * 3600
}

/// `[tls]`, resolved: the files made absolute and loaded once (so that a bad pair stops the
/// start).
#[derive(Debug, Clone)]
pub struct Tls {
    /// The certificate chain file.
    pub cert_file: PathBuf,
    /// The key file.
    pub key_file: PathBuf,
    /// See [`TlsFile::redirect_listen`].
    pub redirect_listen: Option<String>,
    /// See [`TlsFile::hsts_max_age_seconds`].
    pub hsts_max_age_seconds: u64,
}

impl TlsFile {
    /// The files resolved against the configuration's folder and checked by loading them.
    pub fn resolve(&self, base: &Path) -> Result<Tls, String> {
        let tls = Tls {
            cert_file: crate::config::path::absolute(&base.join(&self.cert_file)),
            key_file: crate::config::path::absolute(&base.join(&self.key_file)),
            redirect_listen: self.redirect_listen.clone(),
            hsts_max_age_seconds: self.hsts_max_age_seconds,
        };
        load(&tls.cert_file, &tls.key_file)?;
        Ok(tls)
    }
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The pair of files as a key rustls serves, or a message naming the setting at fault.
pub fn load(cert_file: &Path, key_file: &Path) -> Result<CertifiedKey, String> {
    let cert_pem = std::fs::read(cert_file)
        .map_err(|e| format!("tls.cert_file: cannot read {}: {e}", cert_file.display()))?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| {
            format!(
                "tls.cert_file: {} is not a PEM certificate chain: {e}",
                cert_file.display()
            )
        })?;
    if chain.is_empty() {
        return Err(format!(
            "tls.cert_file: {} holds no certificate (a PEM `BEGIN CERTIFICATE` block)",
            cert_file.display()
        ));
    }
    let key_pem = std::fs::read(key_file)
        .map_err(|e| format!("tls.key_file: cannot read {}: {e}", key_file.display()))?;
    let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| {
        format!(
            "tls.key_file: {} holds no PEM private key (PKCS#8, RSA or EC): {e}",
            key_file.display()
        )
    })?;
    CertifiedKey::from_der(chain, key, &provider()).map_err(|e| match e {
        rustls::Error::InconsistentKeys(_) => format!(
            "tls.key_file: {} is not the key of the certificate in {}",
            key_file.display(),
            cert_file.display()
        ),
        e => format!(
            "tls.cert_file / tls.key_file: {} and {} cannot be served: {e}",
            cert_file.display(),
            key_file.display()
        ),
    })
}

/// The key in force, swapped by a reload.
#[derive(Debug)]
pub struct Current(RwLock<Arc<CertifiedKey>>);

impl ResolvesServerCert for Current {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.read().unwrap_or_else(|p| p.into_inner()).clone())
    }
}

/// The acceptor of `tls`, and the key it serves (for [`watch`]).
pub fn acceptor(tls: &Tls) -> Result<(tokio_rustls::TlsAcceptor, Arc<Current>), String> {
    let key = load(&tls.cert_file, &tls.key_file)?;
    let current = Arc::new(Current(RwLock::new(Arc::new(key))));
    let mut config = rustls::ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(|e| format!("tls: {e}"))?
        .with_no_client_auth()
        .with_cert_resolver(current.clone());
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok((tokio_rustls::TlsAcceptor::from(Arc::new(config)), current))
}

/// What identifies a version of a file: its modification time and length.
fn stamp(p: &Path) -> Option<(SystemTime, u64)> {
    let m = std::fs::metadata(p).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// Re-reads the pair on SIGHUP and when either file changes; runs for the life of the
/// process.
pub async fn watch(tls: Tls, current: Arc<Current>) {
    #[cfg(unix)]
    let mut hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
    let mut seen = (stamp(&tls.cert_file), stamp(&tls.key_file));
    loop {
        #[cfg(unix)]
        let signalled = async {
            match hup.as_mut() {
                Some(h) => {
                    h.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        #[cfg(not(unix))]
        let signalled = std::future::pending::<()>();
        let why = tokio::select! {
            () = signalled => "SIGHUP",
            () = tokio::time::sleep(Duration::from_secs(2)) => {
                let now = (stamp(&tls.cert_file), stamp(&tls.key_file));
                if now == seen {
                    continue;
                }
                "the files changed"
            }
        };
        seen = (stamp(&tls.cert_file), stamp(&tls.key_file));
        let (cert, key) = (tls.cert_file.clone(), tls.key_file.clone());
        match tokio::task::spawn_blocking(move || load(&cert, &key)).await {
            Ok(Ok(k)) => {
                *current.0.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(k);
                tracing::info!(why, cert_file = %tls.cert_file.display(), "TLS certificate reloaded");
            }
            Ok(Err(e)) => tracing::error!(
                why,
                error = %e,
                "the new TLS certificate or key does not load; the one in force keeps serving"
            ),
            Err(e) => tracing::error!(error = %e, "the TLS reload failed"),
        }
    }
}

/// The router of the plain-HTTP redirect listener: every request gets a 308 to the same
/// path and query over HTTPS, on the host it asked for and the HTTPS port.
pub fn redirect_router(https_port: u16) -> axum::Router {
    use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
    use axum::response::{IntoResponse, Response};
    let answer = move |headers: HeaderMap, uri: Uri| async move {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.parse::<axum::http::uri::Authority>().ok())
            .map(|a| a.host().to_string());
        let Some(host) = host else {
            return crate::error::ApiError::new(
                StatusCode::BAD_REQUEST,
                "HOST_REQUIRED",
                "send a Host header: this listener redirects to HTTPS on that host",
            )
            .into_response();
        };
        let port = if https_port == 443 {
            String::new()
        } else {
            format!(":{https_port}")
        };
        let path = uri.path_and_query().map_or("/", |p| p.as_str());
        let location = format!("https://{host}{port}{path}");
        match HeaderValue::from_str(&location) {
            Ok(v) => {
                let mut r: Response = StatusCode::PERMANENT_REDIRECT.into_response();
                r.headers_mut().insert(header::LOCATION, v);
                r
            }
            Err(_) => StatusCode::BAD_REQUEST.into_response(),
        }
    };
    axum::Router::new()
        .fallback(answer)
        .layer(axum::middleware::from_fn(super::observe::note_route))
}
