//! Reading JSON request bodies of the settings routes field by field, so that every
//! problem of a body is reported at once, each with the JSON pointer of its field:
//! shape problems (`MISSING_FIELD`, `INVALID_FIELD`, `UNKNOWN_FIELD`: the body is
//! not the documented object) make a 400 `INVALID_REQUEST`; when the shape is right,
//! the problems of the values (an id, a URL, a profile the core refuses) make a 422
//! `INVALID_SETTINGS`. The `{"ok": false, "error"}` body is the service's one error body.

use crate::error::{ApiError, Detail};
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, header};
use serde_json::{Map, Value};

/// The problems found in one body.
#[derive(Debug, Default)]
pub struct Problems {
    /// Every problem, in the order found.
    pub details: Vec<Detail>,
    /// True when one of them is a shape problem (400 rather than 422).
    pub shape: bool,
}

impl Problems {
    /// A shape problem at `pointer`.
    pub fn shape(
        &mut self,
        code: &'static str,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.shape = true;
        self.details.push(Detail::error(code, pointer, message));
    }

    /// A value problem at `pointer`.
    pub fn value(
        &mut self,
        code: &'static str,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.details.push(Detail::error(code, pointer, message));
    }

    /// True when nothing is wrong.
    pub fn is_empty(&self) -> bool {
        self.details.is_empty()
    }

    /// `Ok` when nothing is wrong, else the 400 or 422 with every problem.
    pub fn check(self) -> Result<(), ApiError> {
        if self.details.is_empty() {
            return Ok(());
        }
        let n = self.details.len();
        let message = format!(
            "the request has {n} problem{}",
            if n == 1 { "" } else { "s" }
        );
        let e = if self.shape {
            ApiError::bad_request("INVALID_REQUEST", message)
        } else {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "INVALID_SETTINGS",
                message,
            )
        };
        Err(e.with_details(self.details))
    }
}

/// `/a/b` + `name`, with `~` and `/` escaped as JSON pointers require.
pub fn pointer(at: &str, name: &str) -> String {
    format!("{at}/{}", name.replace('~', "~0").replace('/', "~1"))
}

/// The request's JSON object: 415 without a JSON content type, 400 `EMPTY_BODY`,
/// `INVALID_JSON` or `INVALID_REQUEST` (not an object).
pub fn object(headers: &HeaderMap, body: &Bytes) -> Result<Map<String, Value>, ApiError> {
    let media = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    if media.as_deref() != Some("application/json") {
        return Err(ApiError::unsupported_media_type(
            headers
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok()),
            &["application/json"],
        ));
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request(
            "EMPTY_BODY",
            "the request body is empty",
        ));
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(ApiError::bad_request(
            "INVALID_REQUEST",
            "the body must be a JSON object",
        )),
        Err(e) => Err(ApiError::bad_request(
            "INVALID_JSON",
            format!("the body is not valid JSON: {e}"),
        )),
    }
}

/// The fields of one JSON object at pointer `at`.
#[derive(Debug)]
pub struct Fields<'a> {
    obj: &'a Map<String, Value>,
    at: String,
}

impl<'a> Fields<'a> {
    /// The object `v` at `at`, with its unknown members reported (`None`: not an object).
    pub fn new(v: &'a Value, at: &str, allowed: &[&str], p: &mut Problems) -> Option<Fields<'a>> {
        match v {
            Value::Object(obj) => Some(Fields::of(obj, at, allowed, p)),
            _ => {
                p.shape("INVALID_FIELD", at_or_root(at), "must be a JSON object");
                None
            }
        }
    }

    /// The fields of `obj`, with its unknown members reported.
    pub fn of(
        obj: &'a Map<String, Value>,
        at: &str,
        allowed: &[&str],
        p: &mut Problems,
    ) -> Fields<'a> {
        for k in obj.keys() {
            if !allowed.contains(&k.as_str()) {
                p.shape(
                    "UNKNOWN_FIELD",
                    pointer(at, k),
                    format!("unknown field {k:?}; the fields are {}", allowed.join(", ")),
                );
            }
        }
        Fields {
            obj,
            at: at.to_string(),
        }
    }

    /// The pointer of a member.
    pub fn at(&self, name: &str) -> String {
        pointer(&self.at, name)
    }

    /// A member, absent and `null` alike being `None`.
    pub fn get(&self, name: &str) -> Option<&'a Value> {
        self.obj.get(name).filter(|v| !v.is_null())
    }

    fn missing(&self, name: &str, p: &mut Problems) {
        p.shape(
            "MISSING_FIELD",
            self.at(name),
            format!("{name} is required"),
        );
    }

    /// A string member (`required`: absent is a problem).
    pub fn string(&self, name: &str, required: bool, p: &mut Problems) -> Option<String> {
        match self.get(name) {
            None => {
                if required {
                    self.missing(name, p);
                }
                None
            }
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                p.shape(
                    "INVALID_FIELD",
                    self.at(name),
                    format!("{name} must be a string"),
                );
                None
            }
        }
    }

    /// A boolean member.
    pub fn boolean(&self, name: &str, p: &mut Problems) -> Option<bool> {
        match self.get(name) {
            None => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                p.shape(
                    "INVALID_FIELD",
                    self.at(name),
                    format!("{name} must be true or false"),
                );
                None
            }
        }
    }

    /// A whole number from 0 to `max`.
    pub fn uint(&self, name: &str, max: u64, p: &mut Problems) -> Option<u64> {
        match self.get(name) {
            None => None,
            // JSON has one number type: 60 and 60.0 are the same whole number.
            Some(v) => match v
                .as_u64()
                .or_else(|| {
                    v.as_f64()
                        .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= max as f64)
                        .map(|f| f as u64)
                })
                .filter(|n| *n <= max)
            {
                Some(n) => Some(n),
                None => {
                    p.shape(
                        "INVALID_FIELD",
                        self.at(name),
                        format!("{name} must be a whole number from 0 to {max}"),
                    );
                    None
                }
            },
        }
    }
}

fn at_or_root(at: &str) -> String {
    if at.is_empty() {
        "/".into()
    } else {
        at.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_problem_is_reported_with_its_pointer() {
        let v = json!({"a": 1, "b": "x", "c/d": true});
        let mut p = Problems::default();
        let f = Fields::new(&v, "/t", &["a", "b", "e"], &mut p).unwrap();
        assert_eq!(f.string("a", true, &mut p), None);
        assert_eq!(f.string("b", true, &mut p).as_deref(), Some("x"));
        assert_eq!(f.string("e", true, &mut p), None);
        assert_eq!(f.uint("a", 5, &mut p), Some(1));
        let pointers: Vec<&str> = p.details.iter().map(|d| d.pointer.as_str()).collect();
        assert_eq!(pointers, ["/t/c~1d", "/t/a", "/t/e"]);
        assert!(p.shape);
        let e = p.check().unwrap_err();
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        let mut q = Problems::default();
        q.value("INVALID_ID", "/id", "bad");
        assert_eq!(
            q.check().unwrap_err().status,
            StatusCode::UNPROCESSABLE_ENTITY
        );
        assert!(Problems::default().check().is_ok());
    }
}
