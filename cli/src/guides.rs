//! Partners' implementation guides on the command line: the `--guide`
//! files, and the guides of a partner profile given as paths (read
//! relative to the profile's file and put in their place, so that the core
//! gets the guides themselves).

use crate::files::{fail, report};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use x12kit::ops;

/// The guides of the `--guide` files added to `given`: `x12kit: FILE:
/// INVALID_GUIDE: …` (every problem) and exit code 2 for a file that cannot
/// be read or used.
pub(crate) fn with_files(given: &ops::Guides, files: &[PathBuf]) -> Result<ops::Guides, ExitCode> {
    with_more(given, files, Vec::new())
}

/// [`with_files`] with the guides of a partner profile after them (those
/// of the same set and version as a given one are left out: the file or
/// option given on the command line wins).
pub(crate) fn with_more(
    given: &ops::Guides,
    files: &[PathBuf],
    partner: Vec<ops::Guide>,
) -> Result<ops::Guides, ExitCode> {
    if files.is_empty() && partner.is_empty() {
        return Ok(given.clone());
    }
    let mut guides = given.guides().to_vec();
    for f in files {
        let text = match std::fs::read(f) {
            Ok(t) => t,
            Err(e) => return Err(fail(f, e)),
        };
        match ops::Guide::from_json(&text) {
            Ok(g) => guides.push(g),
            Err(e) => {
                report(f, &e);
                return Err(ExitCode::from(2));
            }
        }
    }
    for g in partner {
        if !guides
            .iter()
            .any(|o| o.document_type() == g.document_type() && o.version() == g.version())
        {
            guides.push(g);
        }
    }
    ops::Guides::new(guides).map_err(|e| {
        eprintln!("x12kit: --guide: {e}");
        ExitCode::from(2)
    })
}

/// A partner profile's JSON with each guide given as a path replaced by
/// the guide's JSON, read relative to the profile's directory. A profile
/// that is not a JSON object is returned as it is (the core reports it);
/// a guide file that cannot be read or is not JSON: the error at its path,
/// exit code 1.
pub(crate) fn resolve_profile(profile_path: &Path, mut profile: Value) -> Result<Value, ExitCode> {
    let dir = profile_path.parent().unwrap_or(Path::new("."));
    let Some(Value::Object(guides)) = profile.get_mut("guides") else {
        return Ok(profile);
    };
    for g in guides.values_mut() {
        let Value::String(rel) = g else { continue };
        let path = dir.join(&*rel);
        let text = match std::fs::read(&path) {
            Ok(t) => t,
            Err(e) => return Err(fail(&path, e)),
        };
        match serde_json::from_slice::<Value>(&text) {
            Ok(v) => *g = v,
            Err(e) => {
                report(
                    &path,
                    &x12kit::Error::new(
                        x12kit::ErrorCode::InvalidGuide,
                        format!("the guide is not valid JSON: {e}"),
                    ),
                );
                return Err(ExitCode::from(1));
            }
        }
    }
    Ok(profile)
}

/// The guides of a partner profile file (paths read), for validate and
/// ack: an unusable profile is reported at its path (exit code 2).
pub(crate) fn of_partner(path: &Path) -> Result<Vec<ops::Guide>, ExitCode> {
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) => return Err(fail(path, e)),
    };
    let v: Value = match serde_json::from_slice(&text) {
        Ok(v) => v,
        Err(e) => {
            report(path, &x12kit::Error::invalid_json("partner profile", e));
            return Err(ExitCode::from(2));
        }
    };
    let v = resolve_profile(path, v).map_err(|_| ExitCode::from(2))?;
    match x12kit::partner::Partner::from_value(&v) {
        Ok(p) => Ok(p
            .guides
            .into_values()
            .filter_map(|g| match g {
                x12kit::partner::PartnerGuide::Guide(g) => Some(g),
                x12kit::partner::PartnerGuide::Path(_) => None,
            })
            .collect()),
        Err(e) => {
            report(path, &e);
            Err(ExitCode::from(2))
        }
    }
}
