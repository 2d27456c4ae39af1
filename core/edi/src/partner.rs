//! Trading partner profiles: who the interchange is from and to (ISA/GS ids
//! and qualifiers), the version and delimiters the partner expects, test or
//! production usage, whether a TA1 is requested, and the extra fields the
//! partner's implementation guide requires per document type.
//!
//! A profile is JSON, documented by `schema/partner.schema.json`; see
//! `examples/partners/` for complete examples.

use crate::codes;
use crate::guide::Guide;
use crate::sets::TYPES;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;
use x12kit_syntax::delimiters::Delimiters;
use x12kit_syntax::error::Problem;
use x12kit_syntax::error::{Error, ErrorCode};

/// One side of the interchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PartyIds {
    /// ISA05/ISA07 interchange id qualifier (`ZZ` mutually defined, `01` DUNS, `12` phone, …).
    pub qualifier: String,
    /// ISA06/ISA08 interchange id (up to 15 characters; padded by x12kit).
    pub id: String,
    /// GS02/GS03 application code (2–15 characters); defaults to `id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub application_code: Option<String>,
}

/// ISA01/02 or ISA03/04.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Credential {
    /// Qualifier (`00` none).
    pub qualifier: String,
    /// Up to 10 characters (padded by x12kit).
    #[serde(default)]
    pub information: String,
}

/// The four delimiters, as one-character strings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DelimiterChars {
    /// Element separator (default `*`).
    #[serde(default = "star")]
    pub element: String,
    /// Component separator, ISA16 (default `>`).
    #[serde(default = "gt")]
    pub component: String,
    /// Repetition separator, ISA11 from 00402 on (default `^`).
    #[serde(default = "caret")]
    pub repetition: String,
    /// Segment terminator (default `~`).
    #[serde(default = "tilde")]
    pub segment: String,
}

fn star() -> String {
    "*".into()
}
fn gt() -> String {
    ">".into()
}
fn caret() -> String {
    "^".into()
}
fn tilde() -> String {
    "~".into()
}

impl Default for DelimiterChars {
    fn default() -> Self {
        DelimiterChars {
            element: star(),
            component: gt(),
            repetition: caret(),
            segment: tilde(),
        }
    }
}

/// Test or production (ISA15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Usage {
    /// `P`.
    #[default]
    Production,
    /// `T`.
    Test,
    /// `I` (information).
    Information,
}

/// A trading partner profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Partner {
    /// Link to the schema (ignored).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The partner's identifier (the service's partnerId).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Us: ISA05/06 and GS02.
    pub sender: PartyIds,
    /// The partner: ISA07/08 and GS03.
    pub receiver: PartyIds,
    /// GS08 version for every document type (`004010` default, `004030`, `005010`, optionally with an industry suffix such as `004010VICS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Per document type versions, overriding `version` (e.g. `{"753": "004030"}`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub versions: BTreeMap<String, String>,
    /// ISA15.
    #[serde(default)]
    pub usage: Usage,
    /// ISA14: ask the partner for a TA1.
    #[serde(default)]
    pub acknowledgement_requested: bool,
    /// ISA01/02 (default `00`, blank).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<Credential>,
    /// ISA03/04 (default `00`, blank).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<Credential>,
    /// Delimiters (default `*`, `>`, `^`, `~`).
    #[serde(default)]
    pub delimiters: DelimiterChars,
    /// What follows each segment terminator (default: nothing; `"\n"` or `"\r\n"` for readable files).
    #[serde(default)]
    pub line_break: String,
    /// Implementation-guide rules: per document type, JSON pointers that must be present (`*` matches every array item).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub required_fields: BTreeMap<String, Vec<String>>,
    /// The partner's implementation guides per document type
    /// (`schema/guide.schema.json`): render refuses a payload that breaks
    /// one, validation checks received sets against it. A guide is given
    /// inline, or as the path of its file, which the CLI and the server read
    /// (relative to the profile's file) and put in its place.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub guides: BTreeMap<String, PartnerGuide>,
}

/// A partner's guide for one document type: the guide, or the path of its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum PartnerGuide {
    /// The path of the guide's file, not read yet (the CLI and the server
    /// read it; a library call gives the guide itself).
    Path(String),
    /// The guide, checked against its set's declaration.
    Guide(Guide),
}

impl<'de> Deserialize<'de> for PartnerGuide {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        match v {
            serde_json::Value::String(p) => Ok(PartnerGuide::Path(p)),
            v => Guide::deserialize(v)
                .map(PartnerGuide::Guide)
                .map_err(serde::de::Error::custom),
        }
    }
}

fn problem(pointer: &str, message: String) -> Problem {
    Problem::error(ErrorCode::InvalidField, pointer, message)
}

/// The text of `schema/partner.schema.json`, the JSON Schema of the profile.
pub const SCHEMA_JSON: &str = include_str!("../../../schema/partner.schema.json");

/// The JSON Schema of the profile (`schema/partner.schema.json`).
pub fn schema() -> serde_json::Value {
    static SCHEMA: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            // Checked in by this repository and parsed by a unit test, so this cannot fail.
            serde_json::from_str(SCHEMA_JSON).unwrap_or(serde_json::Value::Null)
        })
        .clone()
}

/// Versions a document can be rendered in.
pub const VERSIONS: [&str; 3] = ["004010", "004030", "005010"];

impl Partner {
    /// Reads a profile from JSON text, checking it: `INVALID_JSON` for text
    /// that is not JSON, else as [`Partner::from_value`].
    pub fn from_json(text: &str) -> Result<Partner, Error> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| Error::invalid_json("partner profile", e))?;
        Partner::from_value(&v)
    }

    /// Reads and checks a profile: `INVALID_PARTNER` with every problem at
    /// once (a guide's `INVALID_GUIDE` problems at their pointers below
    /// `/guides/<type>`).
    pub fn from_value(v: &serde_json::Value) -> Result<Partner, Error> {
        // Guides are read apart, so that each of their problems keeps its pointer.
        let mut guides = BTreeMap::new();
        let mut guide_problems = Vec::new();
        let mut rest = v.clone();
        if let Some(obj) = rest.as_object_mut() {
            match obj.remove("guides") {
                None => {}
                Some(serde_json::Value::Object(map)) => {
                    for (t, g) in map {
                        let at = format!("/guides/{}", t.replace('~', "~0").replace('/', "~1"));
                        match g {
                            serde_json::Value::String(path) => {
                                guides.insert(t, PartnerGuide::Path(path));
                            }
                            g => match Guide::load(&g, &at) {
                                Ok(g) => {
                                    guides.insert(t, PartnerGuide::Guide(g));
                                }
                                Err(p) => guide_problems.extend(p),
                            },
                        }
                    }
                }
                Some(other) => guide_problems.push(problem(
                    "/guides",
                    format!(
                        "guides are an object of document type → guide (or the path of its file), not {}",
                        x12kit_json::value_kind(&other)
                    ),
                )),
            }
        }
        let mut p: Partner = x12kit_json::de::from_value(&rest).map_err(|e| {
            Error::from_problems(
                ErrorCode::InvalidPartner,
                vec![problem(
                    &e.pointer,
                    format!(
                        "the partner profile is not valid: {} (see schema/partner.schema.json)",
                        e.message
                    ),
                )],
            )
        })?;
        if !guide_problems.is_empty() {
            return Err(Error::from_problems(
                ErrorCode::InvalidPartner,
                guide_problems,
            ));
        }
        p.guides = guides;
        let issues = p.check();
        if issues.is_empty() {
            Ok(p)
        } else {
            Err(Error::from_problems(ErrorCode::InvalidPartner, issues))
        }
    }

    /// Checks the profile; an empty list means usable.
    pub fn check(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        for (name, party) in [("sender", &self.sender), ("receiver", &self.receiver)] {
            // The validator's list (ISA05/ISA07), so that what is rendered validates.
            if !codes::one_of(codes::ID_QUALIFIERS, party.qualifier.as_bytes()) {
                out.push(problem(
                    &format!("/{name}/qualifier"),
                    format!(
                        "\"{}\" is not an interchange id qualifier (e.g. ZZ, 01, 12; one of {})",
                        party.qualifier,
                        codes::ID_QUALIFIERS.join(", ")
                    ),
                ));
            }
            if party.id.is_empty()
                || party.id.len() > 15
                || !party.id.bytes().all(|b| (b' '..=b'~').contains(&b))
                || party.id.bytes().all(|b| b == b' ')
            {
                out.push(problem(
                    &format!("/{name}/id"),
                    format!(
                        "\"{}\" must be 1–15 printable ASCII characters, not all spaces",
                        party.id
                    ),
                ));
            }
            let app = self.application_code(party);
            if app.len() < 2 || app.len() > 15 || !app.bytes().all(|b| (b' '..=b'~').contains(&b)) {
                out.push(problem(
                    &format!("/{name}/applicationCode"),
                    format!("\"{app}\" must be 2–15 printable ASCII characters (GS02/GS03)"),
                ));
            }
        }
        for (name, c, codes) in [
            ("authorization", &self.authorization, codes::ISA01),
            ("security", &self.security, codes::ISA03),
        ] {
            if let Some(c) = c {
                if !codes::one_of(codes, c.qualifier.as_bytes()) {
                    out.push(problem(
                        &format!("/{name}/qualifier"),
                        format!("must be one of {} (00 for none)", codes.join(", ")),
                    ));
                }
                if c.information.len() > 10
                    || !c.information.bytes().all(|b| (b' '..=b'~').contains(&b))
                {
                    out.push(problem(
                        &format!("/{name}/information"),
                        "must be at most 10 printable ASCII characters".into(),
                    ));
                }
            }
        }
        if let Some(v) = &self.version {
            if let Err(m) = check_version(v) {
                out.push(problem("/version", m));
            }
        }
        for (t, v) in &self.versions {
            if !TYPES.contains(&t.as_str()) {
                out.push(problem(
                    &format!("/versions/{t}"),
                    format!("{t} is not a document type x12kit renders"),
                ));
            } else if let Err(m) = check_version(v) {
                out.push(problem(&format!("/versions/{t}"), m));
            }
        }
        for (t, ptrs) in &self.required_fields {
            if !TYPES.contains(&t.as_str()) {
                out.push(problem(
                    &format!("/requiredFields/{t}"),
                    format!("{t} is not a document type x12kit renders"),
                ));
            }
            for (i, p) in ptrs.iter().enumerate() {
                if !p.starts_with('/') {
                    out.push(problem(
                        &format!("/requiredFields/{t}/{i}"),
                        format!("\"{p}\" is not a JSON pointer (it must start with /)"),
                    ));
                }
            }
        }
        for (t, g) in &self.guides {
            let at = format!("/guides/{}", t.replace('~', "~0").replace('/', "~1"));
            if !TYPES.contains(&t.as_str()) {
                out.push(problem(
                    &at,
                    format!("{t} is not a document type x12kit renders"),
                ));
                continue;
            }
            let PartnerGuide::Guide(g) = g else { continue };
            if g.document_type() != t {
                out.push(problem(
                    &format!("{at}/documentType"),
                    format!(
                        "the guide under {t} describes the {} (its documentType)",
                        g.document_type()
                    ),
                ));
                continue;
            }
            let version = self.version_for(t);
            if version.get(..6) != Some(g.version()) {
                out.push(problem(
                    &format!("{at}/version"),
                    format!(
                        "the guide describes version {}, and the partner's {t}s are version {version} (\"version\"/\"versions\")",
                        g.version()
                    ),
                ));
            }
        }
        if !matches!(self.line_break.as_str(), "" | "\n" | "\r\n" | "\r") {
            out.push(problem(
                "/lineBreak",
                "must be \"\", \"\\n\", \"\\r\\n\" or \"\\r\"".into(),
            ));
        }
        for version in std::iter::once(self.version.as_deref().unwrap_or("004010"))
            .chain(self.versions.values().map(String::as_str))
        {
            if let Err(m) = self.delimiters_for(version) {
                out.push(Problem::error(
                    ErrorCode::InvalidDelimiters,
                    "/delimiters",
                    m,
                ));
                break;
            }
        }
        // The repetition separator is checked by `render`, which knows the version.
        if let Ok(d) = self.delimiters_for("004010") {
            out.extend(self.delimiters_in_values(&d));
        }
        out
    }

    /// The envelope values of the profile that contain one of the delimiters
    /// `d` (which must not appear in data), one problem per value.
    pub fn delimiters_in_values(&self, d: &Delimiters) -> Vec<Problem> {
        let none = Credential {
            qualifier: String::new(),
            information: String::new(),
        };
        // An application code that is not given is the id, checked once as the id.
        let values = [
            ("/sender/id", self.sender.id.as_str()),
            (
                "/sender/applicationCode",
                self.sender.application_code.as_deref().unwrap_or(""),
            ),
            ("/receiver/id", self.receiver.id.as_str()),
            (
                "/receiver/applicationCode",
                self.receiver.application_code.as_deref().unwrap_or(""),
            ),
            (
                "/authorization/information",
                &self.authorization.as_ref().unwrap_or(&none).information,
            ),
            (
                "/security/information",
                &self.security.as_ref().unwrap_or(&none).information,
            ),
        ];
        let delimiters = [
            ("element separator", Some(d.element)),
            ("component separator", Some(d.component)),
            ("repetition separator", d.repetition),
            ("segment terminator", Some(d.segment)),
        ];
        let mut out = Vec::new();
        for (pointer, value) in values {
            if let Some((name, b)) = delimiters
                .iter()
                .filter_map(|&(name, b)| Some((name, b?)))
                .find(|&(_, b)| value.as_bytes().contains(&b))
            {
                out.push(Problem::error(
                    ErrorCode::ContainsDelimiter,
                    pointer,
                    format!(
                        "\"{value}\" contains the {name} {}, which must not appear in a value; choose other delimiters",
                        x12kit_syntax::delimiters::show_byte(b)
                    ),
                ));
            }
        }
        out
    }

    /// The JSON Schema of a document type's payload for this partner: the
    /// edition of its version for the type, narrowed by its guide of the
    /// type and its required fields (see `x12kit schema TYPE --partner`).
    /// `UNKNOWN_DOCUMENT_TYPE` for a type x12kit does not declare,
    /// `INVALID_PARTNER` when the guide is a path not read yet.
    pub fn document_schema(&self, code: &str) -> Result<serde_json::Value, Error> {
        let guide = match self.guides.get(code) {
            None => None,
            Some(PartnerGuide::Guide(g)) => Some(g),
            Some(PartnerGuide::Path(path)) => {
                return Err(Error::from_problems(
                    ErrorCode::InvalidPartner,
                    vec![Problem::error(
                        ErrorCode::InvalidGuide,
                        format!("/guides/{code}"),
                        format!(
                            "the {code} guide is the path {path:?}, which the CLI and the server read; a library call gives the guide itself"
                        ),
                    )],
                ));
            }
        };
        let mut fields: Vec<String> = self.required_fields.get(code).cloned().unwrap_or_default();
        for f in guide.map(Guide::required_fields).unwrap_or_default() {
            if !fields.contains(f) {
                fields.push(f.clone());
            }
        }
        let who = match (&self.id, guide) {
            (Some(id), Some(g)) => format!("partner {id} under its guide {}", g.id()),
            (Some(id), None) => format!("partner {id}"),
            (None, Some(g)) => format!("the guide {}", g.id()),
            (None, None) => format!("the partner {}", self.receiver.id),
        };
        crate::documents::schema::schema_narrowed(
            code,
            &self.version_for(code),
            guide.map(Guide::compiled),
            &fields,
            &who,
        )
        .ok_or_else(|| {
            Error::new(
                ErrorCode::UnknownDocumentType,
                format!(
                    "x12kit has no schema for transaction set \"{code}\"; known: {}",
                    TYPES.join(", ")
                ),
            )
        })
    }

    /// GS02/GS03 of a party.
    pub fn application_code<'p>(&self, party: &'p PartyIds) -> &'p str {
        party.application_code.as_deref().unwrap_or(&party.id)
    }

    /// The version a document type is rendered in.
    pub fn version_for(&self, code: &str) -> String {
        if let Some(v) = self.versions.get(code) {
            return v.clone();
        }
        match (&self.version, crate::documents::since(code)) {
            (Some(v), _) => v.clone(),
            (None, Some(since)) => since.to_string(),
            (None, None) => "004010".into(),
        }
    }

    /// The delimiters used with a version (no repetition separator before 00402).
    pub fn delimiters_for(&self, version: &str) -> Result<Delimiters, String> {
        let one = |name: &str, s: &str| -> Result<u8, String> {
            let mut c = s.chars();
            match (c.next(), c.next()) {
                (Some(ch), None) if ch.is_ascii() => Ok(ch as u8),
                _ => Err(format!(
                    "the {name} must be exactly one ASCII character, found \"{s}\""
                )),
            }
        };
        let d = Delimiters {
            element: one("element separator", &self.delimiters.element)?,
            component: one("component separator", &self.delimiters.component)?,
            repetition: if isa_version(version).as_str() >= "00402" {
                Some(one("repetition separator", &self.delimiters.repetition)?)
            } else {
                None
            },
            segment: one("segment terminator", &self.delimiters.segment)?,
        };
        d.check()?;
        Ok(d)
    }
}

/// ISA12 for a GS08 version (`004010` → `00401`).
pub fn isa_version(version: &str) -> String {
    version.get(..5).unwrap_or("00401").to_string()
}

/// Checks a GS08 version string.
pub fn check_version(v: &str) -> Result<(), String> {
    let base = v.get(..6).unwrap_or("");
    if !VERSIONS.contains(&base) || v.len() > 12 || !v.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(format!(
            "\"{v}\" is not a supported version: use 004010, 004030 or 005010, optionally followed by an industry id (e.g. 004010VICS), 12 characters at most"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod schema_tests {
    #[test]
    fn the_published_schema_parses() {
        assert!(super::schema().is_object());
    }
}
