//! Partners' implementation guides in the server (issue 30): a partner's
//! guides are part of its core profile (`"guides": {"850": {...}}`), so
//! render refuses what they do not allow without anything here. This module
//! reads the guide files the configuration names (paths relative to the
//! profile's file, put in their place at bootstrap: the store holds the
//! guides themselves, and the API takes them inline only, never a path on
//! the server), gives acknowledge the partner's guides, and records the
//! guided findings of each inbound set on its document.

use serde_json::{Value, json};
use std::path::Path;
use x12kit::ops;

/// Replaces each guide of a profile given as a path by the guide's JSON,
/// read relative to `dir` (the profile file's folder).
pub fn read_paths(profile: &mut Value, dir: &Path) -> Result<(), String> {
    let Some(Value::Object(guides)) = profile.get_mut("guides") else {
        return Ok(());
    };
    for (kind, g) in guides.iter_mut() {
        let Value::String(rel) = g else { continue };
        let at = dir.join(&*rel);
        let text = std::fs::read_to_string(&at)
            .map_err(|e| format!("guides.{kind}: cannot read {}: {e}", at.display()))?;
        *g = serde_json::from_str(&text)
            .map_err(|e| format!("guides.{kind}: {}: {e}", at.display()))?;
    }
    Ok(())
}

/// The first guide given as a path (the API refuses those: it reads no file
/// of the server), as `(type, path)`.
pub fn path_given(profile: &Value) -> Option<(String, String)> {
    profile
        .get("guides")?
        .as_object()?
        .iter()
        .find_map(|(k, g)| g.as_str().map(|p| (k.clone(), p.to_string())))
}

/// The partner's guides, as the `guides` option of validate and acknowledge.
pub fn of_profile(profile: &Value) -> Value {
    let list: Vec<Value> = profile
        .get("guides")
        .and_then(Value::as_object)
        .map(|m| m.values().filter(|g| g.is_object()).cloned().collect())
        .unwrap_or_default();
    Value::Array(list)
}

/// The options of the validation of an inbound body: the structure rules, and the
/// partner's guides when it has some (what its acknowledgement reply reports and
/// [`inbound_findings`] reads).
pub fn inbound_options(profile: &Value) -> Option<ops::ValidateOptions> {
    ops::options(json!({ "structure": true, "guides": of_profile(profile) })).ok()
}

/// The guided findings of every set of an inbound body, per interchange and
/// set (in the order of the core's envelope tree), each a validation-shaped
/// JSON object (`valid`, `errorCount`, `warningCount`, `status`, `guides`,
/// `diagnostics`: the set's diagnostics, guide findings with their
/// `guidePointer` and 999 codes) for each set a guide names (type and
/// version), `None` for the others; `None` when the partner has no guide.
/// `validation` is the core's validation of the body with the partner's guides
/// ([`inbound_options`]), made once by the push validator (no tree held).
pub fn inbound_findings(
    validation: &x12kit::Validation,
    profile: &Value,
) -> Option<Vec<Vec<Option<String>>>> {
    let guides = of_profile(profile);
    if guides.as_array().is_none_or(Vec::is_empty) {
        return None;
    }
    // The guides of a set's type and group version (GS08's first six).
    let names = |kind: &Value, version: &str| -> Vec<Value> {
        guides
            .as_array()
            .into_iter()
            .flatten()
            .filter(|g| g["documentType"] == *kind && version.get(..6) == g["version"].as_str())
            .map(|g| g["id"].clone())
            .collect()
    };
    let v: Value = serde_json::from_slice(&validation.to_json()).ok()?;
    let diagnostics = v["diagnostics"].as_array().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for ic in v["interchanges"].as_array().into_iter().flatten() {
        let mut sets = Vec::new();
        for g in ic["groups"].as_array().into_iter().flatten() {
            let version = g["version"].as_str().unwrap_or_default();
            for t in g["transactions"].as_array().into_iter().flatten() {
                let names = names(&t["type"], version);
                if names.is_empty() {
                    // No guide of its type and version: nothing to record.
                    sets.push(None);
                    continue;
                }
                let from = t["segmentIndex"].as_u64().unwrap_or(0);
                let to = from + t["segmentCount"].as_u64().unwrap_or(0);
                let mine: Vec<&Value> = diagnostics
                    .iter()
                    .filter(|d| {
                        d["segmentIndex"]
                            .as_u64()
                            .is_some_and(|i| (from..to).contains(&i))
                    })
                    .collect();
                let count = |s: &str| mine.iter().filter(|d| d["severity"] == s).count();
                sets.push(Some(
                    json!({
                        "valid": count("error") == 0,
                        "errorCount": count("error"),
                        "warningCount": count("warning"),
                        "status": t["status"],
                        "guides": names,
                        "diagnostics": mine,
                    })
                    .to_string(),
                ));
            }
        }
        out.push(sets);
    }
    Some(out)
}
