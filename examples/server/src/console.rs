//! The developer console (spec §1): `x12kit-server user|key|partner ...` and
//! `settings export`. Each command opens the store of `--config` (migrating it,
//! and importing the file's settings into an empty store, as the server does),
//! makes its change as the settings routes do (same checks, one transaction,
//! audited as `console`), prints the result (JSON, one object per line) and
//! exits; running servers see the change within a second.

use crate::config::Config;
use crate::error::ApiError;
use crate::settings::transport::Folders;
use crate::settings::write::{self, Actor, Put, UserChange};
use clap::Subcommand;
use serde_json::{Value, json};
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// People who sign in.
#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Adds a person; the password is read from standard input (one line), or, when standard
    /// input is a terminal, made and printed once.
    Add {
        /// The account.
        #[arg(long)]
        account: String,
        /// Sign-in address.
        #[arg(long)]
        email: String,
        /// `admin` (changes settings) or `member` (reads them).
        #[arg(long, default_value = "admin")]
        role: String,
        /// Create the account when it does not exist.
        #[arg(long)]
        create_account: bool,
    },
    /// Disables a person (their sessions end).
    Disable {
        /// The account.
        #[arg(long)]
        account: String,
        /// Sign-in address.
        #[arg(long)]
        email: String,
    },
    /// Lists the account's people.
    List {
        /// The account.
        #[arg(long)]
        account: String,
    },
}

/// API keys.
#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Makes a key and prints it once (the store keeps its SHA-256).
    Create {
        /// The account.
        #[arg(long)]
        account: String,
        /// A name for people (`ci`, `erp`).
        #[arg(long)]
        name: String,
    },
    /// Revokes a key: every process refuses it within a second.
    Revoke {
        /// The account.
        #[arg(long)]
        account: String,
        /// The key's id (`key_…`, as `key list` prints).
        #[arg(long)]
        id: String,
    },
    /// Lists the account's keys (never a key: its prefix).
    List {
        /// The account.
        #[arg(long)]
        account: String,
    },
}

/// Trading partners.
#[derive(Debug, Subcommand)]
pub enum PartnerCommand {
    /// Creates or replaces a partner from a profile JSON file (the core checks it).
    Put {
        /// The account.
        #[arg(long)]
        account: String,
        /// The core's partner profile (JSON file).
        #[arg(long)]
        profile: PathBuf,
        /// The partnerId (default: the profile's `id`).
        #[arg(long)]
        id: Option<String>,
        /// The transport, a JSON file (`{"kind": "http", "url": ...}` or `{"kind": "directory", ...}`).
        #[arg(long)]
        transport: Option<PathBuf>,
        /// Seconds within which the partner's acknowledgement must come.
        #[arg(long)]
        ack_window_seconds: Option<u64>,
        /// Answer the partner's sets with a `997` or `999`.
        #[arg(long)]
        acknowledge_inbound: Option<String>,
        /// Save it disabled (no new documents).
        #[arg(long)]
        disabled: bool,
    },
    /// Lists the account's partners.
    List {
        /// The account.
        #[arg(long)]
        account: String,
    },
    /// Removes a partner with no document in flight.
    Remove {
        /// The account.
        #[arg(long)]
        account: String,
        /// The partnerId.
        #[arg(long)]
        id: String,
    },
}

/// The store's settings as a whole.
#[derive(Debug, Subcommand)]
pub enum SettingsCommand {
    /// Prints the store's settings as the configuration file's TOML, every secret left out.
    Export,
}

/// One console command.
#[derive(Debug)]
pub enum Console {
    /// `user ...`.
    User(UserCommand),
    /// `key ...`.
    Key(KeyCommand),
    /// `partner ...`.
    Partner(PartnerCommand),
    /// `settings ...`.
    Settings(SettingsCommand),
}

fn fail(e: ApiError) -> String {
    let mut text = format!("{}: {}", e.code, e.message);
    for d in e.details.as_array().into_iter().flatten() {
        text.push_str(&format!(
            "\n  {} {}",
            d["pointer"].as_str().unwrap_or(""),
            d["message"].as_str().unwrap_or("")
        ));
    }
    text
}

fn print(v: &Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{v}");
}

fn read_json(path: &PathBuf) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs a console command against the store of `config`.
pub fn run(config: Config, command: Console) -> ExitCode {
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
    match runtime.block_on(console(config, command)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("x12kit-server: {e}");
            ExitCode::from(1)
        }
    }
}

async fn console(config: Config, command: Console) -> Result<(), String> {
    let (store, secrets) = crate::startup::open(&config).await.map_err(|(_, e)| e)?;
    let actor = Actor::console();
    let sb = secrets.clone();
    match command {
        Console::Settings(SettingsCommand::Export) => {
            let text = store
                .read(|c| Ok(crate::settings::import::export(c)))
                .await
                .map_err(fail)?
                .map_err(fail)?;
            print!("{text}");
        }
        Console::User(UserCommand::Add {
            account,
            email,
            role,
            create_account,
        }) => {
            let email = email.trim().to_lowercase();
            if let Some(p) = crate::settings::rules::email_problem(&email) {
                return Err(format!("--email {p}"));
            }
            if role != "admin" && role != "member" {
                return Err("--role is admin or member".into());
            }
            let stdin = std::io::stdin();
            let (password, made) = if stdin.is_terminal() {
                (crate::password::generate(), true)
            } else {
                let mut line = String::new();
                stdin
                    .lock()
                    .read_line(&mut line)
                    .map_err(|e| format!("cannot read the password: {e}"))?;
                let line = line.trim_end_matches(['\r', '\n']).to_string();
                if line.is_empty() {
                    (crate::password::generate(), true)
                } else {
                    (line, false)
                }
            };
            if let Some(p) = crate::password::problem(&password) {
                return Err(p);
            }
            let hash = crate::password::hash(&password)?;
            let view = store
                .write(move |c| {
                    if !write::account_exists(c, &account)? {
                        if !create_account {
                            return Err(ApiError::not_found(
                                "ACCOUNT_NOT_FOUND",
                                format!(
                                    "no account {account:?} (add --create-account to create it)"
                                ),
                            ));
                        }
                        write::create_account(c, &actor, &account)?;
                    }
                    write::add_user(c, &actor, &account, &email, &role, &hash)
                })
                .await
                .map_err(fail)?;
            print(&view);
            if made {
                println!("password: {password}");
                println!("(shown once: the store keeps only its argon2id hash)");
            }
        }
        Console::User(UserCommand::Disable { account, email }) => {
            let email = email.trim().to_lowercase();
            let view = store
                .write(move |c| {
                    let id: Option<String> = c
                        .one(
                            "SELECT id FROM users WHERE account = ?1 AND email = ?2",
                            crate::vals![&account, &email],
                        )
                        .map_err(write::db)?
                        .map(|r| r.get(0))
                        .transpose()
                        .map_err(write::db)?;
                    let id = id.ok_or_else(|| {
                        ApiError::not_found(
                            "USER_NOT_FOUND",
                            format!("no user {email} in account {account}"),
                        )
                    })?;
                    write::update_user(
                        c,
                        &actor,
                        &account,
                        &id,
                        &UserChange {
                            disabled: Some(true),
                            ..UserChange::default()
                        },
                    )
                })
                .await
                .map_err(fail)?;
            print(&view);
        }
        Console::User(UserCommand::List { account }) => {
            for u in store
                .read(move |c| Ok(listed(c, &account, write::users)))
                .await
                .map_err(fail)?
                .map_err(fail)?
            {
                print(&u);
            }
        }
        Console::Key(KeyCommand::Create { account, name }) => {
            if let Some(p) = write::key_name_problem(&name) {
                return Err(format!("--name: {p}"));
            }
            let (view, key) = store
                .write(move |c| {
                    existing(c, &account)?;
                    write::create_key(c, &actor, &account, &name)
                })
                .await
                .map_err(fail)?;
            print(&view);
            println!("key: {key}");
            println!("(shown once: the store keeps only its SHA-256)");
        }
        Console::Key(KeyCommand::Revoke { account, id }) => {
            let view = store
                .write(move |c| {
                    existing(c, &account)?;
                    write::revoke_key(c, &actor, &account, &id)
                })
                .await
                .map_err(fail)?;
            print(&view);
        }
        Console::Key(KeyCommand::List { account }) => {
            for k in store
                .read(move |c| Ok(listed(c, &account, write::keys)))
                .await
                .map_err(fail)?
                .map_err(fail)?
            {
                print(&k);
            }
        }
        Console::Partner(PartnerCommand::Put {
            account,
            profile,
            id,
            transport,
            ack_window_seconds,
            acknowledge_inbound,
            disabled,
        }) => {
            let profile = read_json(&profile)?;
            let id = id
                .or_else(|| profile["id"].as_str().map(str::to_string))
                .ok_or("--id is needed: the profile has no \"id\"")?;
            let mut body = serde_json::Map::new();
            body.insert("id".into(), json!(id));
            body.insert("profile".into(), profile);
            if let Some(t) = &transport {
                body.insert("transport".into(), read_json(t)?);
            }
            body.insert("ackWindowSeconds".into(), json!(ack_window_seconds));
            body.insert("acknowledgeInbound".into(), json!(acknowledge_inbound));
            body.insert("enabled".into(), json!(!disabled));
            let view = store
                .write(move |c| {
                    existing(c, &account)?;
                    let current = write::stored_transport(c, sb.as_ref(), &account, &id)?;
                    let input =
                        write::parse_partner(&body, None, &Folders::Operator, current.as_ref())?;
                    write::put_partner(c, sb.as_ref(), &actor, &account, &input, Put::Upsert)
                })
                .await
                .map_err(fail)?;
            print(&view);
        }
        Console::Partner(PartnerCommand::List { account }) => {
            for p in store
                .read(move |c| Ok(listed(c, &account, write::partners)))
                .await
                .map_err(fail)?
                .map_err(fail)?
            {
                print(&p);
            }
        }
        Console::Partner(PartnerCommand::Remove { account, id }) => {
            let view = store
                .write(move |c| {
                    existing(c, &account)?;
                    write::delete_partner(c, &actor, &account, &id)
                })
                .await
                .map_err(fail)?;
            print(&json!({"removed": view["id"]}));
        }
    }
    drop(secrets);
    Ok(())
}

fn existing(c: &dyn crate::db::Db, account: &str) -> Result<(), ApiError> {
    if write::account_exists(c, account)? {
        Ok(())
    } else {
        Err(ApiError::not_found(
            "ACCOUNT_NOT_FOUND",
            format!("no account {account:?}"),
        ))
    }
}

fn listed(
    c: &dyn crate::db::Db,
    account: &str,
    f: fn(&dyn crate::db::Db, &str) -> Result<Vec<Value>, ApiError>,
) -> Result<Vec<Value>, ApiError> {
    existing(c, account)?;
    f(c, account)
}
