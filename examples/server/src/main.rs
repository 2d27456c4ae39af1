//! `x12kit-server`: the reference HTTP server of the EDI integration service
//! (`spec/service-api.md`) on the x12kit core. See `examples/server/README.md`.

mod actions;
mod api;
mod app;
mod as2;
mod auth;
mod body;
mod client;
mod config;
mod console;
mod dashboard;
mod db;
mod error;
mod exporter;
mod guard;
mod guides;
mod inbound;
mod lifecycle;
mod memory;
mod metrics;
mod openapi;
mod password;
mod pool;
mod request;
mod secrets;
mod serve;
mod settings;
mod settings_api;
mod startup;
mod status;
mod store;
mod transport;
mod upload;
mod workers;
mod x12;

use axum::http::{HeaderValue, Request};
use axum::response::IntoResponse;
use clap::{Parser, Subcommand};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::sensitive_headers::SetSensitiveRequestHeadersLayer;
use tower_http::trace::TraceLayer;

/// The reference HTTP server of the x12kit EDI integration service.
#[derive(Debug, Parser)]
#[command(name = "x12kit-server", version)]
struct Cli {
    /// Configuration file (TOML); see examples/server/demo.toml.
    #[arg(long, short, global = true)]
    config: Option<PathBuf>,
    /// Address to listen on, overriding the file (`127.0.0.1:0` picks a free port).
    #[arg(long)]
    listen: Option<String>,
    /// Database, overriding the file: a SQLite file (created and migrated on start) or a
    /// `postgres://user@host:port/db` URL (migrated on start).
    #[arg(long, global = true)]
    database: Option<PathBuf>,
    /// Serve the API only: no lifecycle, routing, inbox or webhook workers in this process.
    #[arg(long)]
    no_workers: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print a fresh random API key and the SHA-256 hash to put in the configuration.
    NewKey,
    /// Read a password from standard input and print its argon2id hash (for `[[accounts.users]]`).
    HashPassword,
    /// People who sign in (the developer console; audited as `console`).
    #[command(subcommand)]
    User(console::UserCommand),
    /// API keys (the developer console).
    #[command(subcommand)]
    Key(console::KeyCommand),
    /// Trading partners (the developer console).
    #[command(subcommand)]
    Partner(console::PartnerCommand),
    /// The store's settings as a whole.
    #[command(subcommand)]
    Settings(console::SettingsCommand),
    /// Print the OpenAPI 3.1 document of the API.
    Openapi,
    /// Time the core's parse (the call behind `POST /parse`) on a file in this process, with
    /// one thread per core at once, and print MB/s: the benchmark's yardstick for `/parse`.
    BenchParse {
        /// X12 file.
        file: PathBuf,
        /// Leave out the mapped documents (`?documents=false`).
        #[arg(long)]
        no_documents: bool,
        /// Parses per thread (after one that is not timed).
        #[arg(long, default_value_t = 20)]
        runs: usize,
        /// Threads parsing at once (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
    },
}

/// Request ids: UUIDv7, unless the client sent an `X-Request-Id`.
#[derive(Debug, Clone, Copy)]
struct MakeId;

impl MakeRequestId for MakeId {
    fn make_request_id<B>(&mut self, _: &Request<B>) -> Option<RequestId> {
        let mut buf = [0u8; uuid::fmt::Hyphenated::LENGTH];
        let id = uuid::Uuid::now_v7().hyphenated().encode_lower(&mut buf);
        HeaderValue::from_str(id).ok().map(RequestId::new)
    }
}

fn new_key() -> ExitCode {
    let mut bytes = [0u8; 32];
    if let Err(e) = getrandom::fill(&mut bytes) {
        eprintln!("x12kit-server: no randomness: {e}");
        return ExitCode::FAILURE;
    }
    use base64::Engine;
    let key = format!(
        "x12k_{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    );
    let hash = hex::encode(Sha256::digest(key.as_bytes()));
    println!("key:    {key}");
    println!("sha256: {hash}");
    println!();
    println!("Give the key to the client; put only the hash in the configuration:");
    println!("[[accounts.keys]]");
    println!("name = \"...\"");
    println!("sha256 = \"{hash}\"");
    ExitCode::SUCCESS
}

fn bench_parse(
    file: &std::path::Path,
    documents: bool,
    runs: usize,
    threads: Option<usize>,
) -> ExitCode {
    let input = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("x12kit-server: cannot read {}: {e}", file.display());
            return ExitCode::FAILURE;
        }
    };
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1);
    // Once untimed: the allocator's first large blocks come from fresh pages, as they do
    // only once in a long-running server.
    if x12::parse_into(&input, documents, Default::default(), &mut Vec::new()).is_err() {
        eprintln!("x12kit-server: the parse failed");
        return ExitCode::FAILURE;
    }
    let started = std::time::Instant::now();
    // Each thread writes into one reused buffer, as `/parse` does with its pool (src/pool.rs).
    let ok = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    (0..runs).all(|_| {
                        x12::parse_into(&input, documents, Default::default(), &mut out).is_ok()
                    })
                })
            })
            .collect();
        handles.into_iter().all(|h| h.join().unwrap_or(false))
    });
    let seconds = started.elapsed().as_secs_f64();
    if !ok {
        eprintln!("x12kit-server: the parse failed");
        return ExitCode::FAILURE;
    }
    let bytes = (input.len() * runs * threads) as f64;
    println!(
        "{:.0} MB/s ({threads} thread(s) x {runs} parses of {} bytes in {seconds:.2} s)",
        bytes / seconds / 1e6,
        input.len()
    );
    ExitCode::SUCCESS
}

fn hash_password() -> ExitCode {
    let mut line = String::new();
    if let Err(e) = std::io::stdin().read_line(&mut line) {
        eprintln!("x12kit-server: cannot read the password: {e}");
        return ExitCode::FAILURE;
    }
    let password = line.trim_end_matches(['\r', '\n']);
    if let Some(p) = password::problem(password) {
        eprintln!("x12kit-server: {p}");
        return ExitCode::FAILURE;
    }
    match password::hash(password) {
        Ok(h) => {
            println!("{h}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("x12kit-server: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    memory::tune();
    let cli = Cli::parse();
    let console = match cli.command {
        Some(Command::NewKey) => return new_key(),
        Some(Command::HashPassword) => return hash_password(),
        Some(Command::User(c)) => Some(console::Console::User(c)),
        Some(Command::Key(c)) => Some(console::Console::Key(c)),
        Some(Command::Partner(c)) => Some(console::Console::Partner(c)),
        Some(Command::Settings(c)) => Some(console::Console::Settings(c)),
        Some(Command::Openapi) => {
            print!("{}", api::openapi_json());
            return ExitCode::SUCCESS;
        }
        Some(Command::BenchParse {
            file,
            no_documents,
            runs,
            threads,
        }) => return bench_parse(&file, !no_documents, runs, threads),
        None => None,
    };
    let default_level = if console.is_some() { "warn" } else { "info" };
    let filter = tracing_subscriber::EnvFilter::try_from_env("X12KIT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level));
    let logs = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter);
    match std::env::var("X12KIT_LOG_FORMAT").as_deref() {
        Ok("json") => logs
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .init(),
        Ok("text") | Ok("") | Err(std::env::VarError::NotPresent) => logs.init(),
        Ok(other) => {
            eprintln!(
                "x12kit-server: X12KIT_LOG_FORMAT={other:?}: the log format is \"text\" (the default) or \"json\""
            );
            return ExitCode::from(2);
        }
        Err(std::env::VarError::NotUnicode(_)) => {
            eprintln!(
                "x12kit-server: X12KIT_LOG_FORMAT is not UTF-8: the log format is \"text\" or \"json\""
            );
            return ExitCode::from(2);
        }
    }
    let Some(path) = cli.config else {
        eprintln!("x12kit-server: --config <FILE> is required (try examples/server/demo.toml)");
        return ExitCode::from(2);
    };
    let mut config = match config::load::load(&path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("x12kit-server: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(l) = cli.listen {
        config.listen = l;
    }
    if let Some(d) = cli.database {
        config.database = d;
    }
    if cli.no_workers {
        config.workers.enabled = false;
    }
    if let Some(command) = console {
        return console::run(config, command);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("x12kit-server: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, e)) => {
            eprintln!("x12kit-server: {e}");
            ExitCode::from(code)
        }
    }
}

async fn serve(config: config::Config) -> Result<(), (u8, String)> {
    let (store, secrets) = startup::open(&config).await?;
    let sb = secrets.clone();
    let snapshot = store
        .read(move |c| settings::load(c, sb.as_ref()))
        .await
        .map_err(|_| (1, "cannot read the settings from the store".to_string()))?;
    let partners: Vec<(String, String)> = snapshot
        .accounts
        .values()
        .flat_map(|a| a.partners.keys().map(|p| (a.id.clone(), p.clone())))
        .collect();
    let store =
        tokio::task::spawn_blocking(move || store.prepare_partners(&partners).map(|()| store))
            .await
            .map_err(|e| (1, format!("cannot prepare the store: {e}")))?
            .map_err(|e| (1, e))?;
    let listener = tokio::net::TcpListener::bind(&config.listen)
        .await
        .map_err(|e| (1, format!("cannot listen on {}: {e}", config.listen)))?;
    let addr = listener.local_addr().map_err(|e| (1, e.to_string()))?;
    for a in snapshot.accounts.values() {
        tracing::info!(
            account = %a.id,
            partners = a.partners.len(),
            webhooks = a.webhooks.len(),
            keys = snapshot.keys.iter().filter(|k| k.account.id == a.id).count(),
            "account"
        );
    }
    tracing::info!(database = %store.location().display(), "x12kit-server started");
    let limits = guard::RateLimits::new(&config.limits);
    let settings = Arc::new(settings::Settings::new(snapshot, secrets));
    let http = reqwest::Client::builder()
        .connect_timeout(std::time::Duration::from_secs(10))
        .build()
        .map_err(|e| (1, format!("cannot build the HTTP client: {e}")))?;
    let app = Arc::new(app::App {
        config,
        store,
        limits,
        wake: Arc::default(),
        worker_id: uuid::Uuid::now_v7().to_string(),
        settings,
        http,
    });
    tokio::spawn(metrics::report_loop());
    tokio::spawn(settings::watch(
        app.settings.clone(),
        app.store.clone(),
        app.config.auth.clone(),
    ));
    {
        let app = app.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_secs(60)).await;
                app.limits.forget_idle();
            }
        });
    }
    if app.config.workers.enabled {
        workers::start(app.clone()).await;
        tracing::info!("workers started");
    }
    let people = app
        .store
        .read(|c| {
            c.one("SELECT COUNT(*) FROM users WHERE disabled_at IS NULL", &[])?
                .map_or(Ok(0), |r| r.get::<i64>(0))
        })
        .await
        .unwrap_or(0);
    let sign_in = match (&app.config.sign_in_hint, people) {
        (Some(hint), _) => hint.clone(),
        (None, 0) => "nobody can sign in yet: make the first user with x12kit-server user add --config <this file> --account <id> --email <you@example.com> --role admin (--create-account for a new account)".to_string(),
        (None, n) => format!(
            "{n} user{} can sign in (x12kit-server user add makes more)",
            if n == 1 { "" } else { "s" }
        ),
    };
    let wasm = if dashboard::wasm_present(&app.config.wasm_package) {
        String::new()
    } else {
        format!(
            "\nthe document page shows X12 without the inspector until bindings/wasm/build.sh has built {}",
            app.config.wasm_package.display()
        )
    };
    let server = app.config.server.clone();
    let serving = serve::prepare(server.clone());
    let exporter = exporter::Exporter {
        app: app.clone(),
        serving: serving.clone(),
        token: app.config.metrics.token.as_deref().map(Arc::from),
        counts: Arc::default(),
    };
    let metrics_listener = match &app.config.metrics.listen {
        Some(l) => Some(
            tokio::net::TcpListener::bind(l)
                .await
                .map_err(|e| (1, format!("cannot listen on {l} (metrics.listen): {e}")))?,
        ),
        None => None,
    };
    let app_tls = app.config.tls.clone();
    let mut router = api::router(app);
    if metrics_listener.is_none() {
        router = router.merge(exporter::router(exporter.clone()));
    }
    let router = with_layers(router);
    // One shutdown signal for every listener.
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        shutdown().await;
        let _ = stop_tx.send(true);
    });
    let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|v| *v).await;
    };
    let tls = match &app_tls {
        Some(t) => {
            let (acceptor, current) = serve::tls::acceptor(t).map_err(|e| (2, e))?;
            tokio::spawn(serve::tls::watch(t.clone(), current));
            let hsts = (t.hsts_max_age_seconds > 0)
                .then(|| HeaderValue::from_str(&format!("max-age={}", t.hsts_max_age_seconds)))
                .transpose()
                .map_err(|e| (2, format!("tls.hsts_max_age_seconds: {e}")))?;
            Some((acceptor, serve::Transport::Tls(hsts)))
        }
        None => None,
    };
    let mut redirect_addr = None;
    if let Some(r) = app_tls.as_ref().and_then(|t| t.redirect_listen.clone()) {
        let l = tokio::net::TcpListener::bind(&r).await.map_err(|e| {
            (
                1,
                format!("cannot listen on {r} (tls.redirect_listen): {e}"),
            )
        })?;
        redirect_addr = Some(l.local_addr().map_err(|e| (1, e.to_string()))?);
        let serving = serve::serving::Serving::new(server.clone());
        let router = with_layers(serve::tls::redirect_router(addr.port()));
        let stop = stopped(stop_rx.clone());
        tokio::spawn(async move {
            if let Err(e) = serve::run(l, router, serving, None, stop).await {
                tracing::error!(error = %e, "the redirect listener stopped");
            }
        });
    }
    let scheme = if tls.is_some() { "https" } else { "http" };
    let mut metrics_addr = None;
    if let Some(l) = metrics_listener {
        metrics_addr = Some(l.local_addr().map_err(|e| (1, e.to_string()))?);
        // Its own connection counts, so that scrapes are never refused for API traffic.
        let serving = serve::serving::Serving::new(server);
        let router = with_layers(exporter::router(exporter));
        let stop = stopped(stop_rx.clone());
        tokio::spawn(async move {
            if let Err(e) = serve::run(l, router, serving, None, stop).await {
                tracing::error!(error = %e, "the metrics listener stopped");
            }
        });
    }
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on {scheme}://{addr}");
        let _ = writeln!(out, "dashboard: {scheme}://{addr}/ ({sign_in}){wasm}");
        let _ = writeln!(
            out,
            "try: curl -H 'Authorization: Bearer <API key>' {scheme}://{addr}/api/v1/transactions"
        );
        if let Some(r) = redirect_addr {
            let _ = writeln!(out, "redirecting http://{r} to https");
        }
        if let Some(m) = metrics_addr {
            let _ = writeln!(out, "metrics on http://{m}/metrics");
        }
        let _ = out.flush();
    }
    serve::run(listener, router, serving, tls, stopped(stop_rx))
        .await
        .map_err(|e| (1, e))
}

/// The middleware around every route, outermost last: a request id is made (or the
/// client's kept), the `Authorization` header is hidden from the logs, each request has
/// its tracing span, the id is copied onto the response, and a panicking handler becomes
/// the one 500 body. The id is copied *outside* the panic catcher, so that the 500 of a
/// panic carries the `X-Request-Id` its body points to (the test below forces one).
fn with_layers(router: axum::Router) -> axum::Router {
    router
        .layer(CatchPanicLayer::custom(|_| {
            tracing::error!("a handler panicked");
            error::ApiError::internal().into_response()
        }))
        .layer(
            TraceLayer::new_for_http().make_span_with(|req: &Request<_>| {
                let id = req
                    .headers()
                    .get("x-request-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("");
                tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id = %id)
            })
            .on_failure(log_failure),
        )
        .layer(SetSensitiveRequestHeadersLayer::new([axum::http::header::AUTHORIZATION]))
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(SetRequestIdLayer::x_request_id(MakeId))
}

/// How an answer of 500 or more is logged: a 503 is the server shedding work
/// or draining, by design and already counted (`OVERLOADED`, `/readyz`), so it
/// is a warning; any other (a 500 whose cause the handler logged, a 502/504
/// from upstream) is an error. tower-http's default logged every one at
/// `ERROR`, so an overload flooded the error log with expected answers.
fn log_failure(
    class: tower_http::classify::ServerErrorsFailureClass,
    latency: std::time::Duration,
    _span: &tracing::Span,
) {
    use tower_http::classify::ServerErrorsFailureClass as Class;
    let ms = latency.as_millis();
    match class {
        Class::StatusCode(s) if s == axum::http::StatusCode::SERVICE_UNAVAILABLE => {
            tracing::warn!(
                status = s.as_u16(),
                latency_ms = ms,
                "answered 503 (shed or draining)"
            )
        }
        Class::StatusCode(s) => {
            tracing::error!(
                status = s.as_u16(),
                latency_ms = ms,
                "answered a server error"
            )
        }
        Class::Error(e) => tracing::error!(error = %e, latency_ms = ms, "the response failed"),
    }
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down");
    metrics::log_totals();
}

#[cfg(test)]
mod tests {
    use super::with_layers;
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use tower::ServiceExt;

    /// A route that panics with internals in its message: compiled only into this test,
    /// never into the server.
    fn panicking() -> axum::Router {
        with_layers(axum::Router::new().route(
            "/boom",
            axum::routing::get(|| async {
                if std::hint::black_box(true) {
                    panic!("secret internals: /var/lib/x12kit/db password=hunter2");
                }
                "unreachable"
            }),
        ))
    }

    async fn call(request: Request<Body>) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
        let response = panicking().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap()
            .to_vec();
        (status, headers, body)
    }

    fn check_500(headers: &axum::http::HeaderMap, body: &[u8]) -> String {
        let text = String::from_utf8(body.to_vec()).unwrap();
        assert!(!text.contains("secret"), "internals leaked: {text}");
        assert!(!text.contains("hunter2"), "internals leaked: {text}");
        assert!(!text.contains("panick"), "internals leaked: {text}");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"ok": false, "error": {
                "code": "INTERNAL",
                "message": "internal error; the server logged it under the X-Request-Id of this response",
                "details": []
            }})
        );
        assert_eq!(headers["content-type"], "application/json");
        let id = headers
            .get("x-request-id")
            .expect("a 500 carries the X-Request-Id its body points to")
            .to_str()
            .unwrap()
            .to_string();
        assert!(!id.is_empty());
        id
    }

    #[tokio::test]
    async fn a_panicking_handler_answers_the_one_500_body_with_its_request_id() {
        let (status, headers, body) =
            call(Request::get("/boom").body(Body::empty()).unwrap()).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        let id = check_500(&headers, &body);
        // A server-made id: a UUIDv7.
        let uuid = uuid::Uuid::parse_str(&id).unwrap();
        assert_eq!(uuid.get_version_num(), 7, "{id}");
    }

    #[tokio::test]
    async fn a_panicking_handler_keeps_the_clients_request_id() {
        let (status, headers, body) = call(
            Request::get("/boom")
                .header("x-request-id", "client-trace-42")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(check_500(&headers, &body), "client-trace-42");
    }

    #[tokio::test]
    async fn an_answered_request_carries_its_request_id_too() {
        let app =
            with_layers(axum::Router::new().route("/ok", axum::routing::get(|| async { "ok" })));
        let response = app
            .oneshot(Request::get("/ok").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert!(response.headers().contains_key("x-request-id"));
    }

    /// The log lines written while `f` runs, at every level.
    #[derive(Clone, Default)]
    struct Capture(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Capture {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn a_shed_503_is_a_warning_and_a_500_an_error_in_the_log() {
        let cap = Capture::default();
        let writer = cap.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::TRACE)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        let app = with_layers(
            axum::Router::new()
                .route(
                    "/shed",
                    axum::routing::get(|| async { StatusCode::SERVICE_UNAVAILABLE }),
                )
                .route(
                    "/fail",
                    axum::routing::get(|| async { StatusCode::INTERNAL_SERVER_ERROR }),
                ),
        );
        for path in ["/shed", "/fail"] {
            let r = app
                .clone()
                .oneshot(Request::get(path).body(Body::empty()).unwrap())
                .await
                .unwrap();
            assert!(r.status().is_server_error());
        }
        let text = String::from_utf8(cap.0.lock().unwrap().clone()).unwrap();
        let line = |needle: &str| {
            text.lines()
                .find(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("no {needle:?} in the log:\n{text}"))
                .to_string()
        };
        let shed = line("answered 503");
        assert!(shed.contains(" WARN ") && shed.contains("/shed"), "{shed}");
        let fail = line("answered a server error");
        assert!(
            fail.contains("ERROR") && fail.contains("status=500"),
            "{fail}"
        );
        assert!(
            !text
                .lines()
                .any(|l| l.contains("ERROR") && l.contains("/shed")),
            "{text}"
        );
    }
}
