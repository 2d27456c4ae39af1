//! Passwords of the people who sign in: argon2id (RustCrypto's `argon2` with its
//! default parameters, the OWASP recommendation: 19 MiB, 2 passes, 1 lane), stored
//! as PHC strings. At least 12 characters; at most 1024 bytes (hashing is the
//! expensive part of a sign-in, so the input is bounded).

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use std::sync::OnceLock;

/// Shortest password accepted, in characters.
pub const MIN_CHARS: usize = 12;
/// Longest password accepted, in bytes.
pub const MAX_BYTES: usize = 1024;

/// Why a new password is refused (`None`: it is acceptable).
pub fn problem(password: &str) -> Option<String> {
    let n = password.chars().count();
    if n < MIN_CHARS {
        Some(format!(
            "a password needs at least {MIN_CHARS} characters, this one has {n}"
        ))
    } else if password.len() > MAX_BYTES {
        Some(format!("a password has at most {MAX_BYTES} bytes"))
    } else {
        None
    }
}

/// The argon2id PHC string of `password`, with a fresh random salt.
pub fn hash(password: &str) -> Result<String, String> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|e| format!("no randomness: {e}"))?;
    let salt = SaltString::encode_b64(&salt).map_err(|e| e.to_string())?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| format!("cannot hash the password: {e}"))
}

/// True when `password` matches the PHC string (false for a malformed one).
pub fn verify(password: &str, phc: &str) -> bool {
    if password.len() > MAX_BYTES {
        return false;
    }
    match PasswordHash::new(phc) {
        Ok(parsed) => Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok(),
        Err(_) => false,
    }
}

/// A hash of a random password with the same parameters, made once: a sign-in with an
/// unknown address is checked against it, so that it takes as long as one with a known
/// address and a wrong password.
pub fn dummy() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| hash(&generate()).unwrap_or_default())
}

/// A new random password (24 characters of base64url: 144 bits).
pub fn generate() -> String {
    use base64::Engine;
    let mut bytes = [0u8; 18];
    if getrandom::fill(&mut bytes).is_err() {
        // Without randomness nothing random can be made; an unusable hash follows.
        return String::new();
    }
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argon2id_hashes_verify_only_their_password() {
        let h = hash("correct horse battery").unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        assert!(verify("correct horse battery", &h));
        assert!(!verify("correct horse batterY", &h));
        assert!(!verify("correct horse battery", "not a hash"));
        assert_ne!(h, hash("correct horse battery").unwrap(), "salted");
        assert!(!verify("x", dummy()));
        assert_eq!(generate().len(), 24);
        assert!(problem("short").unwrap().contains("12"));
        assert!(problem("twelve chars").is_none());
        assert!(problem("ééééééééééé").is_some(), "11 characters");
        assert!(problem(&"x".repeat(2000)).is_some());
    }
}
