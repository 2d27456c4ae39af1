//! Secrets at rest: webhook signing secrets and partner transport credentials are
//! stored sealed with XChaCha20-Poly1305 under the operator's 32-byte secret key
//! (a file named by `X12KIT_SECRET_KEY_FILE` or the configuration's
//! `secret_key_file`; the demo configuration makes one beside its database).
//!
//! A sealed value is `1 || nonce (24 bytes, random) || ciphertext+tag`; the purpose
//! of the value (`webhook-secret:<id>`, `transport:<account>/<partner>`) is the
//! associated data, so a sealed value copied into another row does not open. The
//! key file holds the key in standard base64 (one line). Neither the key nor an
//! opened value is ever logged or shown.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use std::path::Path;

const VERSION: u8 = 1;
const NONCE: usize = 24;

/// The operator's key, ready to seal and open.
#[derive(Clone)]
pub struct SecretBox {
    cipher: XChaCha20Poly1305,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBox(redacted)")
    }
}

impl SecretBox {
    /// A box over raw key bytes.
    pub fn from_key(key: &[u8; 32]) -> SecretBox {
        SecretBox {
            cipher: XChaCha20Poly1305::new(key.into()),
        }
    }

    /// Reads the key file; with `create`, a missing file is made first (32 random bytes,
    /// readable by its owner only).
    pub fn load(path: &Path, create: bool) -> Result<SecretBox, String> {
        let shown = path.display();
        if create && !path.exists() {
            let mut key = [0u8; 32];
            getrandom::fill(&mut key).map_err(|e| format!("no randomness for a new key: {e}"))?;
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            match options.open(path) {
                Ok(mut f) => {
                    use std::io::Write;
                    f.write_all(format!("{}\n", STANDARD.encode(key)).as_bytes())
                        .and_then(|()| f.sync_all())
                        .map_err(|e| format!("cannot write the secret key file {shown}: {e}"))?;
                    tracing::info!(file = %shown, "made a new secret key file");
                }
                // Another process made it at the same moment: read theirs.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(format!("cannot create the secret key file {shown}: {e}")),
            }
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the secret key file {shown}: {e}"))?;
        let bytes = STANDARD.decode(text.trim()).map_err(|_| {
            format!("the secret key file {shown} must hold 32 bytes in base64 (one line)")
        })?;
        let key: [u8; 32] = bytes.try_into().map_err(|b: Vec<u8>| {
            format!(
                "the secret key file {shown} holds {} bytes; it must hold 32 (in base64)",
                b.len()
            )
        })?;
        Ok(SecretBox::from_key(&key))
    }

    /// Seals `plaintext` for `purpose`.
    pub fn seal(&self, purpose: &str, plaintext: &[u8]) -> Result<Vec<u8>, String> {
        let mut nonce = [0u8; NONCE];
        getrandom::fill(&mut nonce).map_err(|e| format!("no randomness: {e}"))?;
        let sealed = self
            .cipher
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: plaintext,
                    aad: purpose.as_bytes(),
                },
            )
            .map_err(|_| "cannot seal a secret".to_string())?;
        let mut out = Vec::with_capacity(1 + NONCE + sealed.len());
        out.push(VERSION);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        Ok(out)
    }

    /// Opens what [`SecretBox::seal`] made for the same `purpose` under the same key.
    pub fn open(&self, purpose: &str, sealed: &[u8]) -> Result<Vec<u8>, String> {
        if sealed.len() < 1 + NONCE + 16 || sealed[0] != VERSION {
            return Err("a sealed secret is malformed".into());
        }
        self.cipher
            .decrypt(
                XNonce::from_slice(&sealed[1..1 + NONCE]),
                Payload {
                    msg: &sealed[1 + NONCE..],
                    aad: purpose.as_bytes(),
                },
            )
            .map_err(|_| {
                "a sealed secret does not open with this secret key (another key, or altered)"
                    .to_string()
            })
    }
}

/// The purpose of the key check value in `settings_state` (see [`crate::settings`]).
pub const KEY_CHECK: &str = "x12kit key check";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_with_their_key_and_purpose() {
        let a = SecretBox::from_key(&[1; 32]);
        let b = SecretBox::from_key(&[2; 32]);
        let sealed = a.seal("webhook-secret:1", b"whsec_x").unwrap();
        assert!(!sealed.windows(7).any(|w| w == b"whsec_x"));
        assert_eq!(a.open("webhook-secret:1", &sealed).unwrap(), b"whsec_x");
        assert!(a.open("webhook-secret:2", &sealed).is_err());
        assert!(b.open("webhook-secret:1", &sealed).is_err());
        let mut altered = sealed.clone();
        *altered.last_mut().unwrap() ^= 1;
        assert!(a.open("webhook-secret:1", &altered).is_err());
        assert!(a.open("webhook-secret:1", &sealed[..10]).is_err());
        // A fresh nonce each time.
        assert_ne!(sealed, a.seal("webhook-secret:1", b"whsec_x").unwrap());
    }

    #[test]
    fn key_files_are_made_once_owner_only_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k");
        assert!(SecretBox::load(&path, false).is_err());
        let a = SecretBox::load(&path, true).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let b = SecretBox::load(&path, true).unwrap();
        let sealed = a.seal("p", b"v").unwrap();
        assert_eq!(b.open("p", &sealed).unwrap(), b"v");
        std::fs::write(&path, "c2hvcnQ=\n").unwrap();
        assert!(SecretBox::load(&path, false).unwrap_err().contains("32"));
        std::fs::write(&path, "not base64!\n").unwrap();
        assert!(SecretBox::load(&path, false).is_err());
    }
}
