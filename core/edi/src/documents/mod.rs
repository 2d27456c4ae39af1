//! The declared transaction sets: one declaration per set, as data, drives
//! rendering (payload JSON → body segments), mapping back (segments → the
//! same JSON), required-field errors, the payload JSON Schemas, and the
//! structure validation of received sets.
//!
//! Declarations live in `sets/<code>.x12d` (the language is described in
//! `dsl.rs`) with shared building blocks (parties, references, dates,
//! product ids) in `sets/common.x12d`; the registry of sets is
//! [`crate::sets`]. Each is compiled once per edition: the base edition
//! (004010; 004030 for 753/754) and 005010, the versions with a structure of
//! their own (others: [`coverage`]). To add a set, write its file and add
//! its line to [`crate::sets`]: the renderer, mapper, validator and schema
//! follow. The test `compiled::tests::declarations_compile_and_resolve`
//! checks every declaration and names the file and line of a fault.
//!
//! Public here: the set registry ([`TYPES`], [`is_known`], [`name`],
//! [`functional_id`], [`since`], [`edition`], [`describe_segment`]), map-back ([`map_back`],
//! [`document_json`], [`canonical`]; a mapped document lists the received
//! segments it could not place under `unmapped`), the structure checks
//! ([`validate_transaction`], [`validate_document`], [`diagnostics`],
//! [`StructureRules`], [`Finding`], with the versions that have their own
//! structure: [`versions`], [`coverage`], [`Coverage`]), and the payload
//! shapes and JSON Schemas ([`schema`], with the field types [`PType`],
//! [`XType`] and [`Edition`]). Rendering is reached through
//! [`crate::render::render()`]. The rest is internal, one module each:
//! `compiled` (the declarations compiled, per edition), `dsl` (the
//! declaration language) and `model` (its compiled form), `syntax` (the
//! P/R/C/E/L syntax rules), `body` and `encode` (payload → segments),
//! `matcher` (received segments → the declaration's tree), `elements` (the
//! element checks), `finding` (what the checks report), `structure` (the
//! checks of a received set), `mapping` and `decode` (the map-back arena),
//! `dictionary` and `describe` (the X12 dictionary), and `value` (JSON ↔
//! X12 element values).
//!
//! This file only declares the modules and re-exports what is public.

mod body;
pub(crate) mod compiled;
mod declared;
mod decode;
mod describe;
pub(crate) mod dictionary;
mod dsl;
mod elements;
pub(crate) mod encode;
mod finding;
mod mapping;
pub(crate) mod matcher;
pub(crate) mod model;
pub mod schema;
mod structure;
mod syntax;
pub(crate) mod value;

pub use crate::sets::{TYPES, is_known};
pub use body::canonical;
pub(crate) use body::{Body, render_body, unescape};
pub use compiled::{Coverage, coverage, edition, functional_id, name, since, versions};
pub use describe::describe_segment;
pub use dictionary::ENVELOPE_SEGMENTS;
pub use finding::Finding;
pub use mapping::{JsonDocuments, document_json, map_back};
pub use model::{Edition, PType, XType};
pub use structure::{
    GuidedRules, StructureRules, diagnostics, validate_document, validate_transaction,
};
