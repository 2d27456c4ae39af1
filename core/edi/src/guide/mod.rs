//! Partner implementation guides: one JSON guide per partner, transaction
//! set and version (`schema/guide.schema.json`, `docs/guides.md`) that
//! narrows the standard: which segments and loops the partner uses,
//! requires or forbids and how often, and which codes, lengths, patterns
//! and fixed values its elements take.
//!
//! A [`Guide`] is checked against its set's declaration when it is loaded:
//! an unknown segment path or element, a code the standard does not have, a
//! widened length or use, a rule that contradicts the standard, each an
//! `INVALID_GUIDE` problem with its JSON pointer into the guide. [`Guides`]
//! are what validation takes (`validate::Options::guides`): each set whose
//! type and version a guide names is checked against it after the
//! standard's structure checks, each departure a diagnostic with its own
//! `GUIDE_*` code, its IK304/IK403 implementation code and the pointer of
//! the rule (`Diagnostic::guide_pointer`).
//!
//! ```
//! use x12kit_edi::guide::Guide;
//! let g = Guide::from_json(br#"{"id": "acme-850", "documentType": "850", "version": "004010",
//!     "segments": {"BEG": {"elements": {"BEG02": {"codes": ["SA", "NEW"]}}}}}"#);
//! let e = g.unwrap_err();
//! assert_eq!(e.code().as_str(), "INVALID_GUIDE");
//! assert_eq!(e.details()[0].pointer, "/segments/BEG/elements/BEG02/codes/1");
//! ```

pub(crate) mod check;
mod compile;
mod format;
pub(crate) mod render;

pub(crate) use compile::{Compiled, ElementRule};

pub use format::Usage;

use serde::de::{Deserialize, Deserializer, Error as _};
use serde::ser::{Serialize, Serializer};
use serde_json::Value;
use std::sync::Arc;
use x12kit_syntax::error::{Error, ErrorCode, Problem};

/// A partner's implementation guide for one transaction set and version,
/// checked against the set's declaration (cheap to clone: shared).
#[derive(Clone)]
pub struct Guide {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Guide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guide")
            .field("id", &self.inner.id)
            .field("document_type", &self.inner.document_type)
            .field("version", &self.inner.version)
            .finish_non_exhaustive()
    }
}

struct Inner {
    id: String,
    document_type: String,
    version: String,
    required_fields: Vec<String>,
    source: Value,
    compiled: Compiled,
}

impl PartialEq for Guide {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner) || self.inner.source == other.inner.source
    }
}

impl Eq for Guide {}

impl Guide {
    /// Reads a guide from JSON text: `INVALID_GUIDE` with every problem
    /// (text that is not JSON included), each at its pointer.
    pub fn from_json(text: &[u8]) -> Result<Guide, Error> {
        let v: Value = serde_json::from_slice(text).map_err(|e| {
            Error::from_problems(
                ErrorCode::InvalidGuide,
                vec![Problem::error(
                    ErrorCode::InvalidGuide,
                    "/",
                    format!("the guide is not valid JSON: {e}"),
                )],
            )
        })?;
        Guide::from_value(&v)
    }

    /// Reads a guide from a JSON value (see [`Guide::from_json`]).
    pub fn from_value(v: &Value) -> Result<Guide, Error> {
        Guide::load(v, "").map_err(|p| Error::from_problems(ErrorCode::InvalidGuide, p))
    }

    /// Reads a guide found at `base` (a pointer) of a larger document.
    pub(crate) fn load(v: &Value, base: &str) -> Result<Guide, Vec<Problem>> {
        let at = |p: &str| {
            if p == "/" {
                if base.is_empty() {
                    "/".to_string()
                } else {
                    base.to_string()
                }
            } else {
                format!("{base}{p}")
            }
        };
        if !v.is_object() {
            return Err(vec![Problem::error(
                ErrorCode::InvalidGuide,
                at("/"),
                format!(
                    "a guide is a JSON object, not {}",
                    x12kit_json::value_kind(v)
                ),
            )]);
        }
        let raw: format::RawGuide = x12kit_json::de::from_value(v).map_err(|e| {
            vec![Problem::error(
                ErrorCode::InvalidGuide,
                at(&e.pointer),
                e.message,
            )]
        })?;
        // The rules keep their pointers within the guide (what a diagnostic
        // names); the problems of loading are placed under `base`.
        let (compiled, _) = compile::compile(&raw).map_err(|mut problems| {
            for p in &mut problems {
                p.pointer = if p.pointer.is_empty() {
                    at("/")
                } else {
                    format!("{base}{}", p.pointer)
                };
            }
            problems
        })?;
        Ok(Guide {
            inner: Arc::new(Inner {
                id: raw.id,
                document_type: raw.document_type,
                version: raw.version,
                required_fields: raw.required_fields,
                source: v.clone(),
                compiled,
            }),
        })
    }

    /// The guide's id (`acme-850`).
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The transaction set it describes (`850`).
    pub fn document_type(&self) -> &str {
        &self.inner.document_type
    }

    /// The version it describes (`004010`).
    pub fn version(&self) -> &str {
        &self.inner.version
    }

    /// The payload pointers render requires under this guide.
    pub fn required_fields(&self) -> &[String] {
        &self.inner.required_fields
    }

    /// The guide's JSON, as given.
    pub fn to_value(&self) -> &Value {
        &self.inner.source
    }

    pub(crate) fn compiled(&self) -> &Compiled {
        &self.inner.compiled
    }
}

impl Serialize for Guide {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.inner.source.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Guide {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Guide::load(&v, "").map_err(|p| D::Error::custom(summary(&p)))
    }
}

/// One line for a list of problems (a serde error holds only a message).
fn summary(p: &[Problem]) -> String {
    let first = p
        .first()
        .map(|p| format!("{}: {}", p.pointer, p.message))
        .unwrap_or_default();
    match p.len() {
        0 | 1 => format!("invalid guide: {first}"),
        n => format!("invalid guide ({n} problems): {first}; …"),
    }
}

/// The guides validation applies: at most one per transaction set and version.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guides(Vec<Guide>);

/// Which guide applies to a set.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Applies<'g> {
    /// No guide names the set's type.
    NoGuide,
    /// Guides name the set's type, none its version.
    OtherVersions,
    /// This one.
    Guide(&'g Guide),
}

impl Guides {
    /// The guides given; `INVALID_GUIDE` when two name the same set and
    /// version (which one applies would be a guess).
    pub fn new(guides: Vec<Guide>) -> Result<Guides, Error> {
        Guides::checked(guides, "").map_err(|p| Error::from_problems(ErrorCode::InvalidGuide, p))
    }

    fn checked(guides: Vec<Guide>, base: &str) -> Result<Guides, Vec<Problem>> {
        let mut problems = Vec::new();
        for (i, g) in guides.iter().enumerate() {
            if let Some(j) = guides[..i]
                .iter()
                .position(|o| o.document_type() == g.document_type() && o.version() == g.version())
            {
                problems.push(Problem::error(
                    ErrorCode::InvalidGuide,
                    format!("{base}/{i}"),
                    format!(
                        "guide {i} ({}) and guide {j} ({}) both describe the {} of version {}: give one",
                        g.id(),
                        guides[j].id(),
                        g.document_type(),
                        g.version()
                    ),
                ));
            }
        }
        if problems.is_empty() {
            Ok(Guides(guides))
        } else {
            Err(problems)
        }
    }

    /// Reads guides from a JSON array of guide objects: `INVALID_GUIDE`
    /// with every problem of every guide, each at its pointer below `base`
    /// (`/guides` in an options object: `/guides/0/segments/BEG`).
    pub fn from_value(v: &Value, base: &str) -> Result<Guides, Error> {
        Guides::load(v, base).map_err(|p| Error::from_problems(ErrorCode::InvalidGuide, p))
    }

    fn load(v: &Value, base: &str) -> Result<Guides, Vec<Problem>> {
        let Some(items) = v.as_array() else {
            return Err(vec![Problem::error(
                ErrorCode::InvalidGuide,
                if base.is_empty() { "/" } else { base },
                format!(
                    "guides are a JSON array of guides, not {}",
                    x12kit_json::value_kind(v)
                ),
            )]);
        };
        let mut guides = Vec::new();
        let mut problems = Vec::new();
        for (i, g) in items.iter().enumerate() {
            match Guide::load(g, &format!("{base}/{i}")) {
                Ok(g) => guides.push(g),
                Err(p) => problems.extend(p),
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Guides::checked(guides, base)
    }

    /// True when there is no guide.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The guides.
    pub fn guides(&self) -> &[Guide] {
        &self.0
    }

    /// The guide for a set of type `code` whose GS08 is `version`.
    pub(crate) fn applies(&self, code: &str, version: &str) -> Applies<'_> {
        let mut any = false;
        for g in &self.0 {
            if g.document_type() == code {
                any = true;
                if version.get(..6) == Some(g.version()) {
                    return Applies::Guide(g);
                }
            }
        }
        if any {
            Applies::OtherVersions
        } else {
            Applies::NoGuide
        }
    }

    /// The versions the guides of type `code` name (for messages).
    pub(crate) fn versions_of(&self, code: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|g| g.document_type() == code)
            .map(Guide::version)
            .collect()
    }
}

impl<'de> Deserialize<'de> for Guides {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Guides::load(&v, "").map_err(|p| D::Error::custom(summary(&p)))
    }
}

impl Serialize for Guides {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

#[cfg(test)]
mod tests;
