//! What a transfer came to ([`Outcome`]), which every transport answers and the
//! router of `crate::transport` dispatches (a leaf below them).

use serde_json::Value;

/// What happened to one document's transfer.
#[derive(Debug)]
pub struct Outcome {
    /// `Ok(where)` when the partner has it, `Err(reason)` when it failed for good.
    pub result: Result<String, String>,
    /// Every attempt: `{at, transport, result, durationMs, …}`.
    pub attempts: Vec<Value>,
}

/// The outcome when every attempt failed: the last one's result, and how many there were.
pub fn exhausted(what: &str, attempts: Vec<Value>) -> Outcome {
    let last = attempts
        .last()
        .and_then(|a| a["result"].as_str())
        .unwrap_or("no attempt")
        .to_string();
    Outcome {
        result: Err(format!("{what}: {last} after {} attempts", attempts.len())),
        attempts,
    }
}
