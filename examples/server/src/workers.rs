//! Starting the background workers: the lifecycle's ([`crate::lifecycle`]: heartbeat,
//! validate, route, deliver, sweep) and the receiving side's (SFTP polls, asynchronous
//! AS2 MDNs, directory inboxes), which take lifecycle steps themselves, so this sits
//! above both. Its log lines keep the target they had in `lifecycle.rs`.

use crate::app::App;
use crate::lifecycle::{db, deliver_loop, heartbeat_loop, route_loop, sweep_loop, validate_loop};
use crate::store::now_ms;
use crate::vals;
use std::sync::Arc;
use std::time::Duration;

/// Starts every worker on the runtime, after a first heartbeat.
pub async fn start(app: Arc<App>) {
    let sqlite = !app.store.location().is_postgres();
    let me = app.worker_id.clone();
    let first = app
        .store
        .write(move |c| {
            if sqlite {
                c.exec("DELETE FROM workers", &[]).map_err(db)?;
            } else {
                c.exec(
                    "DELETE FROM workers WHERE heartbeat_at < ?1",
                    vals![now_ms() - 3_600_000],
                )
                .map_err(db)?;
            }
            c.exec(
                "INSERT INTO workers (id, heartbeat_at) VALUES (?1, ?2)",
                vals![&me, now_ms()],
            )
            .map_err(db)?;
            Ok(())
        })
        .await;
    if first.is_err() {
        tracing::error!(target: "x12kit_server::lifecycle", "cannot record the workers' heartbeat");
    }
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .pool_max_idle_per_host(app.config.workers.concurrency)
        .build()
        .unwrap_or_else(|e| {
            tracing::error!(target: "x12kit_server::lifecycle", error = %e, "cannot build the HTTP client; using the default one");
            reqwest::Client::new()
        });
    tokio::spawn(heartbeat_loop(app.clone()));
    tokio::spawn(validate_loop(app.clone()));
    tokio::spawn(route_loop(app.clone(), client.clone()));
    tokio::spawn(deliver_loop(app.clone(), client));
    tokio::spawn(sweep_loop(app.clone()));
    tokio::spawn(crate::transport::sftp::poll::poll_loop(app.clone()));
    tokio::spawn(crate::as2::inbound::mdn_loop(app.clone()));
    tokio::spawn(crate::inbound::inbox_loop(app));
}
