//! The guide as written: the JSON of `schema/guide.schema.json`, read with
//! unknown keys refused. What it means for a set is [`super::compile`]'s.

use serde::Deserialize;
use std::collections::BTreeMap;

/// A guide as its JSON reads.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct RawGuide {
    /// The schema an editor checks the file with (not read).
    #[serde(default, rename = "$schema")]
    #[allow(dead_code)]
    pub schema: Option<String>,
    pub id: String,
    pub document_type: String,
    pub version: String,
    /// For people (the guide's prose); the checks do not read it.
    #[serde(default)]
    #[allow(dead_code)]
    pub description: Option<String>,
    #[serde(default)]
    pub segments: BTreeMap<String, RawSegment>,
    #[serde(default)]
    pub loops: BTreeMap<String, RawLoop>,
    /// Payload pointers render requires (as the partner profile's).
    #[serde(default)]
    pub required_fields: Vec<String>,
}

/// Usage of a segment, loop or element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Usage {
    /// Must be present.
    Required,
    /// May be present (the standard's rules only).
    Optional,
    /// Must not be present.
    NotUsed,
}

/// A segment's rules.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct RawSegment {
    #[serde(default)]
    pub usage: Option<Usage>,
    #[serde(default)]
    pub min_use: Option<u32>,
    #[serde(default)]
    pub max_use: Option<u32>,
    /// For people (the guide's prose); the checks do not read it.
    #[serde(default)]
    #[allow(dead_code)]
    pub description: Option<String>,
    #[serde(default)]
    pub elements: BTreeMap<String, RawElement>,
}

/// A loop's rules.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct RawLoop {
    #[serde(default)]
    pub usage: Option<Usage>,
    #[serde(default)]
    pub min_use: Option<u32>,
    #[serde(default)]
    pub max_use: Option<u32>,
    /// For people (the guide's prose); the checks do not read it.
    #[serde(default)]
    #[allow(dead_code)]
    pub description: Option<String>,
}

/// An element's (or component's) rules.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct RawElement {
    #[serde(default)]
    pub usage: Option<Usage>,
    #[serde(default)]
    pub codes: Option<Vec<String>>,
    #[serde(default)]
    pub min_length: Option<u16>,
    #[serde(default)]
    pub max_length: Option<u16>,
    #[serde(default)]
    pub pattern: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    /// For people (the guide's prose); the checks do not read it.
    #[serde(default)]
    #[allow(dead_code)]
    pub description: Option<String>,
}
