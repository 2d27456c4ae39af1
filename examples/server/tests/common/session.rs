//! A signed-in person in the tests: sign-in, the session cookie and its CSRF token.
#![allow(dead_code)]

use super::Server;
use reqwest::Method;
use reqwest::blocking::Response;
use serde_json::{Value, json};

pub const ALPHA_ADMIN: (&str, &str) = ("admin@alpha.example", "alpha-demo-password");
pub const BETA_ADMIN: (&str, &str) = ("admin@beta.example", "beta-demo-password");

/// A signed-in person: the session cookie and its CSRF token.
pub struct Session<'a> {
    pub s: &'a Server,
    pub cookie: String,
    pub csrf: String,
}

pub fn login(s: &Server, email: &str, password: &str) -> Response {
    s.client
        .post(format!("{}/api/auth/login", s.base))
        .header("content-type", "application/json")
        .body(json!({"email": email, "password": password}).to_string())
        .send()
        .unwrap()
}

pub fn cookie_of(r: &Response) -> String {
    let set = r.headers()["set-cookie"].to_str().unwrap().to_string();
    set.split(';').next().unwrap().to_string()
}

pub fn sign_in<'a>(s: &'a Server, (email, password): (&str, &str)) -> Session<'a> {
    let r = login(s, email, password);
    assert_eq!(r.status(), 200, "sign-in of {email}");
    let cookie = cookie_of(&r);
    let v: Value = r.json().unwrap();
    Session {
        s,
        cookie,
        csrf: v["data"]["csrfToken"].as_str().unwrap().to_string(),
    }
}

impl Session<'_> {
    pub fn call(&self, method: Method, path: &str, body: Option<Value>) -> Response {
        let mut r = self
            .s
            .client
            .request(method, format!("{}{path}", self.s.base))
            .header("cookie", &self.cookie)
            .header("x-csrf-token", &self.csrf);
        if let Some(b) = body {
            r = r
                .header("content-type", "application/json")
                .body(b.to_string());
        }
        r.send().unwrap()
    }

    pub fn get(&self, path: &str) -> Value {
        let r = self.call(Method::GET, path, None);
        assert_eq!(r.status(), 200, "GET {path}");
        r.json().unwrap()
    }

    pub fn ok(&self, method: Method, path: &str, body: Option<Value>, status: u16) -> Value {
        let r = self.call(method.clone(), path, body);
        let got = r.status().as_u16();
        let v: Value = r.json().unwrap();
        assert_eq!(got, status, "{method} {path}: {v}");
        v["data"].clone()
    }
}
