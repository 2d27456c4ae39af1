//! Opening the store of a configuration, shared by the server and the console (apart
//! from `main.rs`, which the console's module would otherwise name back). Its log lines
//! keep the target they had in `main.rs` (`x12kit_server`).

use crate::{config, db, secrets, settings, store};

/// The operator's secret key: the file of `X12KIT_SECRET_KEY_FILE`, else of
/// `secret_key_file` (made when missing if `create_secret_key_file`); none without either.
fn secret_box(config: &config::Config) -> Result<Option<secrets::SecretBox>, String> {
    if let Some(path) = std::env::var_os("X12KIT_SECRET_KEY_FILE").filter(|p| !p.is_empty()) {
        return secrets::SecretBox::load(std::path::Path::new(&path), false)
            .map(Some)
            .map_err(|e| format!("X12KIT_SECRET_KEY_FILE: {e}"));
    }
    match &config.secret_key_file {
        Some(path) => secrets::SecretBox::load(path, config.create_secret_key_file)
            .map(Some)
            .map_err(|e| format!("secret_key_file: {e}")),
        None => Ok(None),
    }
}

/// Opens the store of a configuration for the server and the console: the secret key,
/// the migrations, the key check, and the import of the file's settings into an empty
/// store. A failure is (exit code, message): 2 for what the operator must fix.
pub async fn open(
    config: &config::Config,
) -> Result<(store::Store, Option<secrets::SecretBox>), (u8, String)> {
    let secrets = secret_box(config).map_err(|e| (2, e))?;
    if let store::Location::Postgres(url) = store::Location::of(&config.database) {
        // A malformed URL or TLS setting is the operator's to fix (exit 2).
        db::PgTarget::parse(&url).map_err(|e| (2, e))?;
    }
    // Off the async threads: the PostgreSQL client blocks on its own runtime.
    let location = store::Location::of(&config.database);
    let store = tokio::task::spawn_blocking(move || store::Store::open(location))
        .await
        .map_err(|e| (1, format!("cannot open the store: {e}")))?
        .map_err(|e| (1, e))?;
    settings::import::check_key(&store, secrets.clone())
        .await
        .map_err(|e| (2, e))?;
    let imported = settings::import::bootstrap(&store, config.bootstrap.clone(), secrets.clone())
        .await
        .map_err(|e| (2, e))?;
    if imported {
        tracing::info!(
            target: "x12kit_server",
            accounts = config.bootstrap.len(),
            "imported the configuration file's settings into the empty store; from now on the store holds them"
        );
    } else if !config.bootstrap.is_empty() {
        tracing::info!(
            target: "x12kit_server",
            "the configuration file's [[accounts]] sections are ignored: the store holds the settings (change them with /api/settings or the console; `x12kit-server settings export` prints them)"
        );
    }
    Ok((store, secrets))
}
