//! The rules of ids, e-mail addresses and URLs, which the settings, the configuration
//! file and the AS2 receiver check against (a leaf below all of them).

/// True for ids of accounts and partners: 1 to 64 of `A-Z a-z 0-9 . _ -`, not only dots
/// (`.` and `..` cannot be addressed in a URL path: clients resolve them away).
pub fn valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && !id.bytes().all(|b| b == b'.')
}

/// Why an e-mail address is not one (`None`: it looks like one). Deliberately loose:
/// `local@domain`, no spaces, at most 254 characters.
pub fn email_problem(email: &str) -> Option<&'static str> {
    let ok = email.len() <= 254
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        && email
            .split_once('@')
            .is_some_and(|(l, d)| !l.is_empty() && !d.is_empty() && !d.contains('@'));
    (!ok).then_some("is not an e-mail address (name@domain, at most 254 characters)")
}

/// Why a webhook or partner URL is not usable (`None`: an absolute http(s) URL).
pub fn url_problem(url: &str) -> Option<&'static str> {
    match reqwest::Url::parse(url) {
        Ok(u) if (u.scheme() == "http" || u.scheme() == "https") && u.host().is_some() => {
            (url.len() > 2048).then_some("is longer than 2048 characters")
        }
        Ok(_) => Some("must be an http:// or https:// URL"),
        Err(_) => Some("is not a URL (http:// or https://)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_emails_and_urls() {
        for ok in ["acme-retail", "a", "A.b_c-9", &"x".repeat(64)] {
            assert!(valid_id(ok), "{ok}");
        }
        for bad in ["", "a b", "a/b", "é", &"x".repeat(65), "../x", ".", ".."] {
            assert!(!valid_id(bad), "{bad}");
        }
        assert!(email_problem("ops@alpha.example").is_none());
        for bad in ["", "ops", "@x", "x@", "a b@c", "a@b@c"] {
            assert!(email_problem(bad).is_some(), "{bad}");
        }
        assert!(url_problem("https://h.example/x").is_none());
        assert!(url_problem("http://127.0.0.1:9/hooks").is_none());
        for bad in [
            "ftp://h/x",
            "javascript:alert(1)",
            "h.example/x",
            "",
            "file:///etc/passwd",
        ] {
            assert!(url_problem(bad).is_some(), "{bad}");
        }
    }
}
