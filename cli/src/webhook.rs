//! `x12kit webhook sign|verify`: signs a body or verifies a delivery from the
//! command line with `x12kit::webhook`. Secrets come from the environment or a
//! file, never from the command line. Exit codes: 0 ok, 1 verification failed,
//! 2 usage or I/O error; messages go to stderr with the error's stable code.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use x12kit::webhook::{self, WebhookError, standard};

/// Sign or verify webhook deliveries (HMAC-SHA256 over `timestamp.body`).
#[derive(clap::Subcommand, Debug)]
pub enum WebhookCommand {
    /// Print the signature of a body: `sha256=<hex>` (or `v1,<base64>` with --webhook-id).
    Sign(SignArgs),
    /// Verify a body against its signature and timestamp headers; exit 1 if rejected.
    Verify(VerifyArgs),
}

/// Arguments of `x12kit webhook sign`.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("secret").required(true).multiple(false)))]
pub struct SignArgs {
    /// Environment variable holding the signing secret.
    #[arg(long, value_name = "NAME", group = "secret")]
    pub secret_env: Option<String>,
    /// File holding the signing secret (one trailing line break is ignored).
    #[arg(long, value_name = "PATH", group = "secret")]
    pub secret_file: Option<PathBuf>,
    /// Timestamp to sign, in Unix seconds (the X-Service-Timestamp value).
    #[arg(long, value_name = "UNIX_SECONDS")]
    pub timestamp: u64,
    /// Sign for Standard Webhooks with this webhook-id; the secret is then `whsec_<base64>`.
    #[arg(long, value_name = "ID")]
    pub webhook_id: Option<String>,
    /// The raw body, or `-` for standard input.
    pub file: PathBuf,
}

/// Arguments of `x12kit webhook verify`.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("secrets").required(true).multiple(true)))]
pub struct VerifyArgs {
    /// Environment variable holding a signing secret; repeat to accept several (rotation).
    #[arg(long, value_name = "NAME", group = "secrets")]
    pub secret_env: Vec<String>,
    /// File holding a signing secret (one trailing line break is ignored); may repeat.
    #[arg(long, value_name = "PATH", group = "secrets")]
    pub secret_file: Vec<PathBuf>,
    /// The signature header value (X-Service-Signature, or webhook-signature with --webhook-id).
    #[arg(long, value_name = "VALUE", allow_hyphen_values = true)]
    pub signature: String,
    /// The timestamp header value (X-Service-Timestamp or webhook-timestamp).
    #[arg(long, value_name = "VALUE", allow_hyphen_values = true)]
    pub timestamp: String,
    /// Verify as Standard Webhooks with this webhook-id; secrets are then `whsec_<base64>`.
    #[arg(long, value_name = "ID")]
    pub webhook_id: Option<String>,
    /// Current time in Unix seconds (default: the system clock); for tests and replays.
    #[arg(long, value_name = "UNIX_SECONDS")]
    pub now: Option<u64>,
    /// Largest accepted distance between the timestamp and now, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub tolerance: u64,
    /// The options as JSON, with the names every language uses (`{"tolerance": 600}`), instead of `--tolerance`.
    #[arg(long, value_name = "JSON", conflicts_with = "tolerance")]
    pub options: Option<String>,
    /// The raw body as received, or `-` for standard input.
    pub file: PathBuf,
}

/// Runs a webhook subcommand: 0 ok, 1 verification failed, 2 usage or I/O error.
pub fn run(cmd: WebhookCommand) -> ExitCode {
    let code = Io {
        env: &|name| std::env::var_os(name),
        stdin: &mut io::stdin().lock(),
        stdout: &mut io::stdout().lock(),
        stderr: &mut io::stderr().lock(),
    }
    .run(cmd);
    ExitCode::from(code)
}

/// The process's surroundings, injectable for tests.
struct Io<'a> {
    env: &'a dyn Fn(&str) -> Option<OsString>,
    stdin: &'a mut dyn Read,
    stdout: &'a mut dyn Write,
    stderr: &'a mut dyn Write,
}

/// A failure already reduced to its message and exit code.
struct Failure {
    exit: u8,
    message: String,
}

impl Failure {
    fn usage(message: String) -> Self {
        Self { exit: 2, message }
    }

    fn webhook(e: x12kit::Error) -> Self {
        Self {
            exit: if e.kind() == x12kit::ErrorKind::Rejected {
                1
            } else {
                2
            },
            message: format!("{}: {}", e.code(), e.message()),
        }
    }
}

impl Io<'_> {
    fn run(&mut self, cmd: WebhookCommand) -> u8 {
        let (name, result) = match cmd {
            WebhookCommand::Sign(args) => ("webhook sign", self.sign(args)),
            WebhookCommand::Verify(args) => ("webhook verify", self.verify(args)),
        };
        match result {
            Ok(line) => match writeln!(self.stdout, "{line}").and_then(|_| self.stdout.flush()) {
                Ok(()) => 0,
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
                Err(e) => {
                    let _ = writeln!(self.stderr, "x12kit: {name}: cannot write output: {e}");
                    2
                }
            },
            Err(failure) => {
                let _ = writeln!(self.stderr, "x12kit: {name}: {}", failure.message);
                failure.exit
            }
        }
    }

    fn sign(&mut self, args: SignArgs) -> Result<String, Failure> {
        let source = match (args.secret_env, args.secret_file) {
            (Some(name), _) => Source::Env(name),
            (None, Some(path)) => Source::File(path),
            (None, None) => {
                return Err(Failure::usage(
                    "give the secret with --secret-env NAME or --secret-file PATH".into(),
                ));
            }
        };
        let secret = self.secret(&source)?;
        let body = self.body(&args.file)?;
        match args.webhook_id {
            None => webhook::sign(&secret, args.timestamp, &body).map_err(Failure::webhook),
            Some(id) => {
                let secret = standard_secret(&secret, &source)?;
                Ok(standard::sign(&secret, &id, args.timestamp, &body))
            }
        }
    }

    fn verify(&mut self, args: VerifyArgs) -> Result<String, Failure> {
        let sources: Vec<Source> = args
            .secret_env
            .into_iter()
            .map(Source::Env)
            .chain(args.secret_file.into_iter().map(Source::File))
            .collect();
        let secrets = sources
            .iter()
            .map(|source| self.secret(source))
            .collect::<Result<Vec<_>, _>>()?;
        let body = self.body(&args.file)?;
        let now = match args.now {
            Some(seconds) => Duration::from_secs(seconds),
            None => webhook::system_now(),
        };
        let tolerance = match args.options.as_deref() {
            None => args.tolerance,
            Some(text) => {
                x12kit::ops::options_str::<x12kit::ops::VerifyOptions>(text)
                    .map_err(|e| Failure::usage(format!("--options: {e}")))?
                    .tolerance
            }
        };
        let tolerance = Duration::from_secs(tolerance);
        let verified = match &args.webhook_id {
            None => webhook::verify(
                &secrets,
                &args.signature,
                &args.timestamp,
                &body,
                now,
                tolerance,
            ),
            Some(id) => {
                let secrets = secrets
                    .iter()
                    .zip(&sources)
                    .map(|(secret, source)| standard_secret(secret, source))
                    .collect::<Result<Vec<_>, _>>()?;
                standard::verify(
                    &secrets,
                    id,
                    &args.signature,
                    &args.timestamp,
                    &body,
                    now,
                    tolerance,
                )
            }
        }
        .map_err(Failure::webhook)?;
        Ok(format!(
            "ok: signature valid (secret {} of {}, timestamp {})",
            verified.secret_index + 1,
            sources.len(),
            verified.timestamp
        ))
    }

    /// The secret's bytes from its source; an empty one is kept (the core refuses it).
    fn secret(&self, source: &Source) -> Result<Vec<u8>, Failure> {
        match source {
            Source::Env(name) => (self.env)(name)
                .map(OsString::into_encoded_bytes)
                .ok_or_else(|| {
                    Failure::usage(format!(
                        "environment variable {name} is not set; it should hold the webhook signing secret"
                    ))
                }),
            Source::File(path) => {
                let mut bytes = std::fs::read(path).map_err(|e| {
                    Failure::usage(format!("cannot read secret file {}: {e}", path.display()))
                })?;
                if bytes.ends_with(b"\n") {
                    bytes.pop();
                    if bytes.ends_with(b"\r") {
                        bytes.pop();
                    }
                }
                Ok(bytes)
            }
        }
    }

    /// The body's raw bytes, from a file or standard input (`-`).
    fn body(&mut self, file: &Path) -> Result<Vec<u8>, Failure> {
        let mut body = Vec::new();
        let read = if file == Path::new("-") {
            self.stdin.read_to_end(&mut body).map(|_| ())
        } else {
            std::fs::File::open(file).and_then(|mut f| f.read_to_end(&mut body).map(|_| ()))
        };
        read.map_err(|e| {
            let shown = if file == Path::new("-") {
                "<stdin>".to_string()
            } else {
                file.display().to_string()
            };
            Failure::usage(format!("{shown}: {e}"))
        })?;
        Ok(body)
    }
}

/// Where a secret is read from (for reading it and for naming it in messages).
enum Source {
    Env(String),
    File(PathBuf),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Env(name) => write!(f, "environment variable {name}"),
            Source::File(path) => write!(f, "secret file {}", path.display()),
        }
    }
}

/// A Standard Webhooks secret (`whsec_<base64>`) from raw secret bytes.
fn standard_secret(bytes: &[u8], source: &Source) -> Result<standard::StandardSecret, Failure> {
    let text = std::str::from_utf8(bytes).map_err(|_| {
        Failure::webhook(x12kit::Error::from(WebhookError::MalformedSecret {
            reason: "it is not UTF-8 text",
        }))
    })?;
    standard::StandardSecret::parse(text).map_err(|e| {
        let mut failure = Failure::webhook(e);
        failure.message = format!("{} (from {source})", failure.message);
        failure
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(subcommand)]
        cmd: WebhookCommand,
    }

    /// Runs `args` with the given environment and stdin; returns (exit, stdout, stderr).
    fn run_args(args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> (u8, String, String) {
        let cli = Cli::try_parse_from(std::iter::once("webhook").chain(args.iter().copied()))
            .expect("arguments parse");
        let env: Vec<(String, OsString)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        let lookup = move |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let exit = Io {
            env: &lookup,
            stdin: &mut &stdin[..],
            stdout: &mut out,
            stderr: &mut err,
        }
        .run(cli.cmd);
        (
            exit,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    const ENV: &[(&str, &str)] = &[("NEW", "new-secret"), ("OLD", "old-secret"), ("EMPTY", "")];

    #[test]
    fn sign_then_verify_from_stdin() {
        let (exit, out, err) = run_args(
            &[
                "sign",
                "--secret-env",
                "NEW",
                "--timestamp",
                "1700000000",
                "-",
            ],
            ENV,
            b"{\"a\":1}",
        );
        assert_eq!((exit, err.as_str()), (0, ""));
        let signature = out.trim_end();
        assert_eq!(
            signature,
            webhook::sign(b"new-secret", 1_700_000_000, b"{\"a\":1}").unwrap()
        );
        let verify = |secrets: &[&str], now: &str, body: &[u8]| {
            let mut args = vec!["verify"];
            for s in secrets {
                args.extend(["--secret-env", s]);
            }
            args.extend(["--signature", signature, "--timestamp", "1700000000"]);
            args.extend(["--now", now, "-"]);
            run_args(&args, ENV, body)
        };
        let (exit, out, _) = verify(&["OLD", "NEW"], "1700000300", b"{\"a\":1}");
        assert_eq!(exit, 0);
        assert!(out.contains("secret 2 of 2"), "{out}");
        let (exit, _, err) = verify(&["OLD"], "1700000000", b"{\"a\":1}");
        assert_eq!(exit, 1);
        assert!(err.contains("SIGNATURE_MISMATCH"), "{err}");
        let (exit, _, err) = verify(&["NEW"], "1700000301", b"{\"a\":1}");
        assert_eq!(exit, 1);
        assert!(err.contains("TIMESTAMP_OUT_OF_TOLERANCE"), "{err}");
        let (exit, _, err) = verify(&["NEW"], "1700000000", b"{\"a\":2}");
        assert_eq!(exit, 1);
        assert!(err.contains("SIGNATURE_MISMATCH"), "{err}");
    }

    #[test]
    fn usage_errors_exit_2() {
        let sign = |env_name: &str| {
            run_args(
                &["sign", "--secret-env", env_name, "--timestamp", "1", "-"],
                ENV,
                b"",
            )
        };
        let (exit, _, err) = sign("UNSET");
        assert_eq!(exit, 2);
        assert!(err.contains("UNSET is not set"), "{err}");
        let (exit, _, err) = sign("EMPTY");
        assert_eq!(exit, 2);
        assert!(err.contains("EMPTY_SECRET"), "{err}");
        let (exit, _, err) = run_args(
            &[
                "sign",
                "--secret-env",
                "NEW",
                "--timestamp",
                "1",
                "/nonexistent/body",
            ],
            ENV,
            b"",
        );
        assert_eq!(exit, 2);
        assert!(err.contains("/nonexistent/body"), "{err}");
        // Clap refuses a missing secret source or a non-numeric sign timestamp.
        assert!(Cli::try_parse_from(["webhook", "sign", "--timestamp", "1", "-"]).is_err());
        assert!(
            Cli::try_parse_from([
                "webhook",
                "sign",
                "--secret-env",
                "A",
                "--timestamp",
                "x",
                "-"
            ])
            .is_err()
        );
        assert!(
            Cli::try_parse_from([
                "webhook",
                "verify",
                "--signature",
                "s",
                "--timestamp",
                "1",
                "-"
            ])
            .is_err()
        );
    }

    #[test]
    fn malformed_inputs_exit_1_with_codes() {
        for (signature, timestamp, code) in [
            ("", "1", "MISSING_SIGNATURE"),
            ("sha256=zz", "1", "MALFORMED_SIGNATURE"),
            ("sha256=", "-5", "MALFORMED_SIGNATURE"),
        ] {
            let (exit, _, err) = run_args(
                &[
                    "verify",
                    "--secret-env",
                    "NEW",
                    "--signature",
                    signature,
                    "--timestamp",
                    timestamp,
                    "--now",
                    "1",
                    "-",
                ],
                ENV,
                b"",
            );
            assert_eq!(exit, 1, "{err}");
            assert!(err.contains(code), "{err}");
        }
        let good = webhook::sign(b"new-secret", 1, b"").unwrap();
        let (exit, _, err) = run_args(
            &[
                "verify",
                "--secret-env",
                "NEW",
                "--signature",
                &good,
                "--timestamp",
                "-5",
                "-",
            ],
            ENV,
            b"",
        );
        assert_eq!(exit, 1);
        assert!(err.contains("MALFORMED_TIMESTAMP"), "{err}");
    }

    #[test]
    fn secret_file_and_standard_webhooks() {
        let dir = std::env::temp_dir().join(format!("x12kit-webhook-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let secret_file = dir.join("secret");
        std::fs::write(&secret_file, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n").unwrap();
        let body_file = dir.join("body.json");
        std::fs::write(&body_file, br#"{"test": 2432232314}"#).unwrap();
        let secret = secret_file.to_str().unwrap();
        let body = body_file.to_str().unwrap();

        // Standard Webhooks reference vector (standard-webhooks libraries' sign tests).
        let (exit, out, err) = run_args(
            &[
                "sign",
                "--secret-file",
                secret,
                "--timestamp",
                "1614265330",
                "--webhook-id",
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                body,
            ],
            &[],
            b"",
        );
        assert_eq!((exit, err.as_str()), (0, ""));
        assert_eq!(out, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=\n");
        let (exit, out, err) = run_args(
            &[
                "verify",
                "--secret-file",
                secret,
                "--webhook-id",
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                "--signature",
                out.trim_end(),
                "--timestamp",
                "1614265330",
                "--now",
                "1614265331",
                body,
            ],
            &[],
            b"",
        );
        assert_eq!(exit, 0, "{err}");
        assert!(out.starts_with("ok"));

        // The service scheme uses the file's bytes as given (without the line break).
        let (exit, out, _) = run_args(
            &["sign", "--secret-file", secret, "--timestamp", "5", body],
            &[],
            b"",
        );
        assert_eq!(exit, 0);
        let expected = webhook::sign(
            b"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            5,
            br#"{"test": 2432232314}"#,
        )
        .unwrap();
        assert_eq!(out.trim_end(), expected);

        // A secret that is not base64 in Standard mode is a usage error.
        let (exit, _, err) = run_args(
            &[
                "sign",
                "--secret-env",
                "NEW",
                "--timestamp",
                "5",
                "--webhook-id",
                "m",
                body,
            ],
            &[("NEW", "not base64!")],
            b"",
        );
        assert_eq!(exit, 2);
        assert!(err.contains("MALFORMED_SECRET"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
