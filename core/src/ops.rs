//! The operations every layer calls: the CLI, the C library, the Python,
//! Node and WASM bindings and the HTTP server. Each is one function taking
//! bytes (or text, or a JSON value) plus one options struct, and returning
//! an owned result that serializes to the documented JSON, or an [`Error`]
//! with a stable code.
//!
//! The options structs derive `Deserialize` with camelCase names, defaults
//! for every field and `deny_unknown_fields`, so a Python keyword argument,
//! a JS option object, an HTTP query or body parameter and a C option struct
//! all reach the same names, checked once: build one from JSON with
//! [`options`]. Nothing here reads the clock: where a result needs the
//! current time, the caller passes `now` (native callers use
//! [`crate::clock`], the browser `Date.now()`).
//!
//! ```
//! use x12kit::{DateTime, ops};
//! let x12 = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~PO1*1*2*EA*1.5**SK*A~CTT*1~SE*5*0001~GE*1*1~IEA*1*000000001~";
//! let json = ops::parse_json(x12, &ops::ParseOptions::default());
//! assert!(json.starts_with(br#"{"interchanges":"#));
//! let v = ops::validate(x12, &ops::options(serde_json::json!({"structure": true}))?);
//! assert!(v.is_valid());
//! let o: ops::AcknowledgeOptions = ops::options(serde_json::json!({"kind": "997"}))?;
//! let ack = ops::acknowledge(x12, &o, DateTime::from_unix(1_700_000_000))?;
//! assert!(ack.starts_with(b"ISA*"));
//! let bad = ops::options::<ops::ParseOptions>(serde_json::json!({"document": false})).unwrap_err();
//! assert_eq!(bad.code().as_str(), "INVALID_OPTIONS");
//! # Ok::<(), x12kit::Error>(())
//! ```

use crate::ack::{self, AckKind, AckOptions, Acknowledgements};
use crate::delimiters::Delimiters;
use crate::error::{Error, ErrorCode};
pub use crate::guide::{Guide, Guides};
use crate::partner::Partner;
use crate::render::Rendered;
use crate::time::DateTime;
use crate::validate::{self, Validation};
#[cfg(feature = "webhook")]
use crate::webhook::{self, Delivery, EventData, EventKind, Signer, Verified, Verifier};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
#[cfg(feature = "webhook")]
use std::time::Duration;

mod split;
pub use split::*;

/// The transaction set codes that x12kit renders, maps back and validates
/// (the registry of `x12kit-edi`'s `sets`).
pub const DOCUMENT_TYPES: &[&str] = &crate::documents::TYPES;

/// Builds an options struct from a JSON object; `INVALID_OPTIONS` with the
/// pointer of the offending member (the unknown key, the value of the wrong
/// type, the missing key) for an options object that cannot be read. `null`
/// is the defaults.
pub fn options<T: DeserializeOwned + Default>(v: Value) -> Result<T, Error> {
    if v.is_null() {
        return Ok(T::default());
    }
    if !v.is_object() {
        return Err(Error::new(
            ErrorCode::InvalidOptions,
            format!(
                "options must be an object, found {}",
                x12kit_json::value_kind(&v)
            ),
        )
        .at("/"));
    }
    x12kit_json::de::from_value(&v).map_err(|e| {
        // A guide that cannot be used: every problem of every guide, not
        // the one line a serde error holds.
        if e.pointer == "/guides" || e.pointer.starts_with("/guides/") {
            if let Some(Err(guide)) = v.get("guides").map(|g| Guides::from_value(g, "/guides")) {
                return guide;
            }
        }
        Error::new(
            ErrorCode::InvalidOptions,
            format!("invalid options: {}", e.message),
        )
        .at(e.pointer)
    })
}

/// Builds an options struct from JSON text (see [`options`]).
pub fn options_str<T: DeserializeOwned + Default>(text: &str) -> Result<T, Error> {
    let v: Value = serde_json::from_str(text).map_err(|e| {
        Error::new(
            ErrorCode::InvalidOptions,
            format!("the options are not valid JSON: {e}"),
        )
    })?;
    options(v)
}

fn yes() -> bool {
    true
}

fn one() -> u64 {
    1
}

/// Options of [`parse_json`]: the one type, [`crate::json::ParseOptions`]
/// (`JsonOptions` is its other name).
pub use crate::json::ParseOptions;

/// Parses X12 into the JSON contract (`schema/parse-result.schema.json`),
/// the bytes `x12kit parse` prints. Never fails: problems are diagnostics.
pub fn parse_json(input: &[u8], o: &ParseOptions) -> Vec<u8> {
    let mut out = Vec::new();
    parse_json_into(input, o, &mut out);
    out
}

/// [`parse_json`] appended to a reusable buffer (a server or a binding that
/// parses many inputs avoids the page faults of a fresh allocation each time).
pub fn parse_json_into(input: &[u8], o: &ParseOptions, out: &mut Vec<u8>) {
    crate::json::parse_to_json_into(input, o, out)
}

/// [`parse_json`] written to `out` as it is produced, in chunks of about
/// 64 KiB: the same bytes, with memory bounded by the largest interchange
/// of the input (one interchange is parsed, written and dropped at a time;
/// see [`crate::json::to_json_stream`]) instead of the whole output. For a
/// server streaming a response body, a binding writing to a file, or the
/// CLI. Returns the diagnostics (which the JSON also carries), or the
/// writer's error.
pub fn parse_json_to_writer<W: std::io::Write>(
    input: &[u8],
    o: &ParseOptions,
    out: W,
) -> std::io::Result<Vec<crate::Diagnostic>> {
    crate::json::to_json_stream(input, out, false, o, &mut |_| {})
}

/// The mapped `document` of one transaction set of a parsed input (from
/// [`crate::parse`]) as compact JSON: the bytes [`parse_json`] of the same
/// input carries as that set's `document` (same keys, same order, same
/// values), without writing the rest of the file. For a binding's lazy
/// per-set accessor. The set is the `set`-th of group `group` of
/// interchange `interchange` (0-based, as in the parse result's arrays).
///
/// `Ok(None)`: a set that is not one of [`DOCUMENT_TYPES`] (the
/// parse result has no `document` for it). `INVALID_ARGUMENT` when an index
/// is out of range.
pub fn transaction_document_json(
    doc: &crate::Document<'_>,
    interchange: usize,
    group: usize,
    set: usize,
) -> Result<Option<Vec<u8>>, Error> {
    let out_of_range = |what: &str, n: usize, len: usize| {
        Error::new(
            ErrorCode::InvalidArgument,
            format!("there is no {what} {n}: the parse result has {len}"),
        )
    };
    let ic = doc
        .interchanges
        .get(interchange)
        .ok_or_else(|| out_of_range("interchange", interchange, doc.interchanges.len()))?;
    let g = ic
        .groups
        .get(group)
        .ok_or_else(|| out_of_range("group", group, ic.groups.len()))?;
    let t = g
        .transactions
        .get(set)
        .ok_or_else(|| out_of_range("transaction set", set, g.transactions.len()))?;
    Ok(crate::documents::document_json(doc, g, t))
}

/// Options of [`validate()`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ValidateOptions {
    /// Also check each set of the declared types against its structure
    /// (segment order, loops, mandatory segments and elements, types,
    /// lengths, codes), as an acknowledgement does. Default false: the
    /// envelope rules only.
    pub structure: bool,
    /// Which summaries the result keeps: `"all"` (default), `"errors"` (only
    /// the sets not accepted cleanly: enough for an errors-only
    /// acknowledgement) or `"counts"` (no per-set summaries, so a stream of
    /// millions of sets validates in flat memory).
    pub retain: validate::Retain,
    /// Partners' implementation guides (`schema/guide.schema.json`): each
    /// set a guide names (document type and version) is also checked
    /// against it, each departure a `GUIDE_*` diagnostic with its 999
    /// implementation code and the pointer of the rule. Implies `structure`.
    /// An unusable guide is `INVALID_GUIDE` with every problem at its
    /// pointer (`/guides/0/segments/BEG/…`).
    pub guides: Guides,
}

fn validate_options(o: &ValidateOptions) -> validate::Options {
    validate::Options {
        structure: o.structure,
        retain: o.retain,
        guides: o.guides.clone(),
        ..validate::Options::default()
    }
}

/// Validates X12: the envelope rules (and with `structure` the set
/// structure), each diagnostic with its TA1/997/999 codes, and the outcome
/// of every interchange, group and set.
///
/// No cap on one set's size applies ([`crate::envelope::SetCap`]): the
/// validator reads a set's segments as they come and holds none of them,
/// as [`stream_validator`] does, and gives the same result.
pub fn validate(input: &[u8], o: &ValidateOptions) -> Validation {
    let doc = crate::envelope::parse_capped(input, crate::envelope::SetCap::NONE);
    validate::validate_with(&doc, &validate_options(o))
}

/// [`validate()`] as JSON (`schema/validation-result.schema.json`), the bytes
/// of `x12kit validate --json`.
pub fn validate_json(input: &[u8], o: &ValidateOptions) -> Vec<u8> {
    validate(input, o).to_json()
}

/// A push validator for input of any size, fed in chunks (`feed`, `finish`).
pub fn stream_validator(o: &ValidateOptions) -> crate::StreamValidator {
    crate::StreamValidator::new(validate_options(o))
}

/// Options of [`acknowledge`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct AcknowledgeOptions {
    /// `auto` (997 before 005010, 999 from 005010, plus a TA1 when asked or
    /// needed), `ta1`, `997` or `999`.
    pub kind: AckKind,
    /// Include the set structure findings (AK3/AK4, IK3/IK4). Default true.
    #[serde(default = "yes")]
    pub structure: bool,
    /// Acknowledge only the sets that are not accepted without errors.
    pub errors_only: bool,
    /// ISA13 of the first acknowledgement interchange (then +1). Default 1.
    #[serde(default = "one")]
    pub interchange_control_number: u64,
    /// GS06 of the first acknowledgement group (then +1). Default 1.
    #[serde(default = "one")]
    pub group_control_number: u64,
    /// ST02 of the first 997/999 (then +1). Default 1.
    #[serde(default = "one")]
    pub set_control_number: u64,
    /// Date of the acknowledgement, CCYYMMDD (with `time`); default: `now`.
    pub date: Option<String>,
    /// Time of the acknowledgement, HHMM (with `date`); default: `now`.
    pub time: Option<String>,
    /// What follows each segment terminator (CR/LF only); default: a line
    /// feed, or nothing when a line break is a delimiter.
    pub line_break: Option<String>,
    /// Delimiters of the acknowledgement; default: those of the received interchange.
    pub delimiters: Option<DelimiterOptions>,
    /// Partners' implementation guides the input is validated against (see
    /// [`ValidateOptions::guides`]): a 999 carries their implementation
    /// codes (IK304 `I4`/`I6`/`I7`/`I8`, IK403 `I6`/`I9`/`I10`/`I12`, IK502
    /// `I5`), a 997 the nearest standard codes.
    pub guides: Guides,
}

/// Delimiters given as one-character strings (as in the parse result's `delimiters`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DelimiterOptions {
    /// Element separator.
    pub element: String,
    /// Component (sub-element) separator.
    pub component: String,
    /// Repetition separator (`null` for none: ISA11 is then `U`).
    #[serde(default)]
    pub repetition: Option<String>,
    /// Segment terminator.
    pub segment: String,
}

impl DelimiterOptions {
    /// The delimiters, checked: `INVALID_DELIMITERS` (pointer `/delimiters/...`)
    /// unless each is one byte, usable and distinct.
    pub fn to_delimiters(&self) -> Result<Delimiters, Error> {
        let one = |name: &str, s: &str| -> Result<u8, Error> {
            match s.as_bytes() {
                [b] if b.is_ascii() => Ok(*b),
                _ => Err(Error::new(
                    ErrorCode::InvalidDelimiters,
                    format!("a delimiter must be one ASCII character, found {s:?}"),
                )
                .at(format!("/delimiters/{name}"))),
            }
        };
        let d = Delimiters {
            element: one("element", &self.element)?,
            component: one("component", &self.component)?,
            repetition: self
                .repetition
                .as_deref()
                .map(|r| one("repetition", r))
                .transpose()?,
            segment: one("segment", &self.segment)?,
        };
        d.check()
            .map_err(|m| Error::new(ErrorCode::InvalidDelimiters, m).at("/delimiters"))?;
        Ok(d)
    }
}

impl Default for AcknowledgeOptions {
    fn default() -> Self {
        AcknowledgeOptions {
            kind: AckKind::Auto,
            structure: true,
            errors_only: false,
            interchange_control_number: 1,
            group_control_number: 1,
            set_control_number: 1,
            date: None,
            time: None,
            line_break: None,
            delimiters: None,
            guides: Guides::default(),
        }
    }
}

/// Parses, validates (with the set structure unless `structure` is false)
/// and acknowledges X12: the TA1/997/999 bytes, empty when nothing is to be
/// acknowledged. `now` dates the acknowledgement unless `date`/`time` are given.
pub fn acknowledge(input: &[u8], o: &AcknowledgeOptions, now: DateTime) -> Result<Vec<u8>, Error> {
    let v = validate(
        input,
        &ValidateOptions {
            structure: o.structure,
            guides: o.guides.clone(),
            ..ValidateOptions::default()
        },
    );
    acknowledge_validation(&v, o, now)
}

/// Acknowledges a validation already made (its structure findings are those
/// it was validated with; `o.structure` is not used).
pub fn acknowledge_validation(
    v: &Validation,
    o: &AcknowledgeOptions,
    now: DateTime,
) -> Result<Vec<u8>, Error> {
    let stamp = DateTime::from_options(o.date.as_deref(), o.time.as_deref(), now)?;
    ack::acknowledge(
        v,
        &AckOptions {
            kind: o.kind,
            interchange_control_number: o.interchange_control_number,
            group_control_number: o.group_control_number,
            set_control_number: o.set_control_number,
            errors_only: o.errors_only,
            delimiters: o
                .delimiters
                .as_ref()
                .map(DelimiterOptions::to_delimiters)
                .transpose()?,
            timestamp: Some(stamp),
            line_break: o.line_break.clone(),
        },
    )
}

/// What the TA1/997/999 in the input accept or reject.
pub fn read_acknowledgement(input: &[u8]) -> Acknowledgements {
    ack::read(&crate::parse(input))
}

/// [`read_acknowledgement`] as JSON.
pub fn read_acknowledgement_json(input: &[u8]) -> Vec<u8> {
    x12kit_json::to_vec(&read_acknowledgement(input))
}

/// Control numbers of a rendered interchange (each 1–999999999; default 1):
/// the one type, [`crate::render::ControlNumbers`], under the name the
/// bindings use.
pub use crate::render::ControlNumbers as RenderControlNumbers;
/// Options of [`render()`]: the one type, [`crate::render::RenderOptions`].
pub use crate::render::RenderOptions;

/// Renders one document of `document_type` from its payload for a partner
/// profile (`schema/partner.schema.json`) into a complete interchange.
/// Every problem of the payload is in the error's details at once.
pub fn render(
    document_type: &str,
    payload: &Value,
    partner: &Value,
    o: &RenderOptions,
    now: DateTime,
) -> Result<Rendered, Error> {
    let partner = Partner::from_value(partner)?;
    crate::render::render(document_type, payload, &partner, o, now)
}

/// Several documents of one type in one interchange: [`crate::render::RenderedSets`].
pub use crate::render::RenderedSets;

/// Renders documents of one type into one interchange for a partner: one functional
/// group, one transaction set per document in their order (ST02 counts up from the
/// options' transaction control number). Every problem of every payload is in the
/// error's details at once, each pointer starting with the document's index when
/// there are several (`/1/lines/0/quantity`).
pub fn render_sets(
    document_type: &str,
    payloads: &[Value],
    partner: &Value,
    o: &RenderOptions,
    now: DateTime,
) -> Result<RenderedSets, Error> {
    let partner = Partner::from_value(partner)?;
    crate::render::render_sets(document_type, payloads, &partner, o, now)
}

/// [`render`] with the payload and partner as JSON text (`INVALID_JSON`
/// when either does not parse, with its pointer `/payload` or `/partner`).
pub fn render_str(
    document_type: &str,
    payload: &str,
    partner: &str,
    o: &RenderOptions,
    now: DateTime,
) -> Result<Rendered, Error> {
    let payload: Value = serde_json::from_str(payload)
        .map_err(|e| Error::invalid_json("payload", e).at("/payload"))?;
    let partner: Value = serde_json::from_str(partner)
        .map_err(|e| Error::invalid_json("partner profile", e).at("/partner"))?;
    render(document_type, &payload, &partner, o, now)
}

/// Options of [`payloads_from_csv`]: the one type, [`crate::csv::CsvOptions`]
/// (JSON `{"delimiter", "documentKey", "maxRows", "partner", "table"}`).
pub use crate::csv::CsvOptions;
/// What a CSV makes: [`crate::csv::CsvPayloads`].
pub use crate::csv::CsvPayloads;

/// CSV intake: the documents of `document_type` a CSV holds, and every problem at its
/// row, column and pointer (see [`crate::csv`]: the header row names JSON pointers into
/// the payload, consecutive rows with one document key are one document, a `*` column
/// adds an item per row). Problems are in the result; an unusable call (a type x12kit
/// does not declare, bad options, a broken partner profile) is the error.
pub fn payloads_from_csv(
    document_type: &str,
    csv: &[u8],
    o: &CsvOptions,
) -> Result<CsvPayloads, Error> {
    crate::csv::payloads_from_csv(document_type, csv, o)
}

/// [`payloads_from_csv`] as its JSON (`{"documentTypeCode", "header", "documents",
/// "problems"}`, and `table` when asked).
pub fn payloads_from_csv_json(
    document_type: &str,
    csv: &[u8],
    o: &CsvOptions,
) -> Result<Vec<u8>, Error> {
    let result = payloads_from_csv(document_type, csv, o)?;
    serde_json::to_vec(&result).map_err(|e| Error::internal(format!("the CSV result: {e}")))
}

/// A header row for a CSV of `document_type`: its business reference first, then every
/// value of its payload a column can name (`UNKNOWN_DOCUMENT_TYPE` for another type).
pub fn csv_template(document_type: &str) -> Result<String, Error> {
    crate::csv::csv_template(document_type).ok_or_else(|| unknown_type(document_type))
}

/// The JSON pointer of the payload field that is `document_type`'s business reference
/// (`/purchaseOrderNumber` for an 850; `UNKNOWN_DOCUMENT_TYPE` for a type x12kit does
/// not declare); the published schemas carry it too, as `x-reference`.
pub fn reference_field(document_type: &str) -> Result<&'static str, Error> {
    crate::sets::reference_field(document_type).ok_or_else(|| unknown_type(document_type))
}

/// The business reference of a payload or mapped document of `document_type` (the
/// text of its [`reference_field`]), `None` when absent or empty.
pub fn document_reference(document_type: &str, payload: &Value) -> Result<Option<String>, Error> {
    reference_field(document_type)?;
    Ok(crate::sets::reference_of(document_type, payload))
}

fn unknown_type(document_type: &str) -> Error {
    Error::new(
        ErrorCode::UnknownDocumentType,
        format!(
            "x12kit has no declaration of transaction set \"{document_type}\"; known: {}",
            DOCUMENT_TYPES.join(", ")
        ),
    )
}

/// The JSON Schema of a document type's payload (`UNKNOWN_DOCUMENT_TYPE`
/// for a type x12kit does not render).
pub fn document_schema(document_type: &str) -> Result<Value, Error> {
    crate::documents::schema::schema(document_type).ok_or_else(|| {
        Error::new(
            ErrorCode::UnknownDocumentType,
            format!(
                "x12kit has no schema for transaction set \"{document_type}\"; known: {}",
                DOCUMENT_TYPES.join(", ")
            ),
        )
    })
}

/// The JSON Schema of a document type's payload for a partner profile
/// (`x12kit schema TYPE --partner P.json`): the edition of the partner's
/// version for the type, narrowed by the profile's guide of the type (enums
/// of its codes, `const` of fixed values, its lengths and patterns,
/// `required` of its required elements, segments and loops and of the
/// required fields, `minItems`/`maxItems` of its uses, not-used segments
/// and elements left out), so a form or an API client knows the partner's
/// rules in advance. `INVALID_PARTNER` for an unusable profile,
/// `UNKNOWN_DOCUMENT_TYPE` for a type x12kit does not declare.
pub fn document_schema_for_partner(document_type: &str, partner: &Value) -> Result<Value, Error> {
    let partner = Partner::from_value(partner)?;
    if !DOCUMENT_TYPES.contains(&document_type) {
        return document_schema(document_type);
    }
    partner.document_schema(document_type)
}

/// [`document_schema_for_partner`] with the profile as JSON text
/// (`INVALID_JSON` at `/partner` when it does not parse).
pub fn document_schema_for_partner_str(document_type: &str, partner: &str) -> Result<Value, Error> {
    let partner: Value = serde_json::from_str(partner)
        .map_err(|e| Error::invalid_json("partner profile", e).at("/partner"))?;
    document_schema_for_partner(document_type, &partner)
}

/// The JSON Schema of the partner profile.
pub fn partner_schema() -> Value {
    crate::partner::schema()
}

/// What x12kit knows of a segment, for inspectors and "explain this
/// segment" features: its name and, per element, the data element number,
/// name, type, lengths, use and the code meanings, from the set's
/// declaration and the X12 dictionary
/// ([`crate::documents::describe_segment`] has the whole shape).
///
/// - `set_type`: the transaction set (ST01: `850`, …); any text, `""` for
///   none. Only [`DOCUMENT_TYPES`] have declarations; the
///   envelope and acknowledgment segments (ISA, IEA, GS, GE, ST, SE, TA1,
///   AK1–AK9, IK3–IK5, CTX) are described for any set.
/// - `version`: picks the edition: a group's version (GS08: `004010`,
///   `005010X222A1`: six digits, then at most six more characters), an
///   interchange's (ISA12: `00401`, `00501`: five digits), or `""` for the
///   base edition (004010).
/// - `segment`: the segment identifier (`BEG`, `N1`: 2 or 3 upper-case
///   letters or digits).
///
/// `Ok(None)`: a segment that is neither in the set's declaration nor an
/// envelope or acknowledgment segment. `INVALID_ARGUMENT` when `segment` is
/// not a segment identifier or `version` not a version (rather than a
/// description of the wrong edition).
pub fn describe_segment(
    set_type: &str,
    version: &str,
    segment: &str,
) -> Result<Option<Value>, Error> {
    if !crate::segment::is_valid_id(segment.as_bytes()) {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "{segment:?} is not a segment identifier: identifiers are 2 or 3 upper-case letters or digits (BEG, N1, ISA)"
            ),
        ));
    }
    if !is_version(version) {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "{version:?} is not an X12 version: give a group's (GS08: 004010, 005010X222A1), an interchange's (ISA12: 00401, 00501) or \"\" for the base edition"
            ),
        ));
    }
    Ok(crate::documents::describe_segment(
        set_type, version, segment,
    ))
}

/// `""`, ISA12 (five digits) or GS08 (six digits, then up to six visible
/// ASCII characters: the release and industry identifier).
fn is_version(v: &str) -> bool {
    let b = v.as_bytes();
    let digits = |n: usize| b.len() >= n && b[..n].iter().all(u8::is_ascii_digit);
    b.is_empty()
        || (b.len() == 5 && digits(5))
        || ((6..=12).contains(&b.len()) && digits(6) && b[6..].iter().all(u8::is_ascii_graphic))
}

/// [`describe_segment`] as compact JSON: the description object, or `null`
/// for a segment x12kit does not describe.
pub fn describe_segment_json(
    set_type: &str,
    version: &str,
    segment: &str,
) -> Result<Vec<u8>, Error> {
    describe_segment(set_type, version, segment)
        .map(|d| d.map_or_else(|| b"null".to_vec(), |v| v.to_string().into_bytes()))
}

/// Options of [`write()`]: the one type, [`crate::write::WriteOptions`].
pub use crate::write::WriteOptions;

/// Writes a parse result (the JSON contract, possibly edited) back to X12.
pub fn write(parse_result: &Value, o: &WriteOptions) -> Result<Vec<u8>, Error> {
    crate::write::write(parse_result, o)
}

/// [`write()`] from JSON text (`INVALID_JSON` when it does not parse).
pub fn write_str(parse_result: &str, o: &WriteOptions) -> Result<Vec<u8>, Error> {
    crate::write::write_str(parse_result, o)
}

/// [`write()`] from JSON bytes: `INVALID_UTF8` when they are not UTF-8 text.
pub fn write_json(parse_result: &[u8], o: &WriteOptions) -> Result<Vec<u8>, Error> {
    let text = std::str::from_utf8(parse_result).map_err(|e| {
        Error::new(
            ErrorCode::InvalidUtf8,
            format!(
                "the parse result is not UTF-8 text (byte {} is not valid UTF-8); JSON is UTF-8",
                e.valid_up_to()
            ),
        )
    })?;
    write_str(text, o)
}

#[cfg(feature = "webhook")]
/// Options of [`webhook_verify`].
#[cfg(feature = "webhook")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct VerifyOptions {
    /// Allowed distance between the delivery's timestamp and now, in seconds. Default 300.
    pub tolerance: u64,
}

#[cfg(feature = "webhook")]
impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            tolerance: webhook::DEFAULT_TOLERANCE.as_secs(),
        }
    }
}

/// The `X-Service-Signature` value (`sha256=<hex>`) of a delivery body
/// signed at `timestamp` (Unix seconds) with `secret`.
#[cfg(feature = "webhook")]
pub fn webhook_sign(secret: &[u8], timestamp: u64, body: &[u8]) -> Result<String, Error> {
    webhook::sign(secret, timestamp, body)
}

/// Verifies a delivery: the signature header, the timestamp header and the
/// raw body, against any of `secrets` (rotation), within the tolerance of
/// `now` (Unix seconds). Fails with the webhook codes (`SIGNATURE_MISMATCH`,
/// `TIMESTAMP_OUT_OF_TOLERANCE`, …).
#[cfg(feature = "webhook")]
pub fn webhook_verify<S: AsRef<[u8]>>(
    secrets: &[S],
    signature: &str,
    timestamp: &str,
    body: &[u8],
    o: &VerifyOptions,
    now: u64,
) -> Result<Verified, Error> {
    let verifier = Verifier::new(secrets)?.with_tolerance(Duration::from_secs(o.tolerance));
    verifier.verify(signature, timestamp, body, Duration::from_secs(now))
}

/// The `data` of a webhook event from JSON (`documentId`, `partnerId`,
/// `documentTypeCode`, `status`); `MALFORMED_BODY` names what is wrong.
#[cfg(feature = "webhook")]
pub fn webhook_event_data(data: &Value) -> Result<EventData, Error> {
    EventData::deserialize(data).map_err(|e| {
        Error::new(
            ErrorCode::MalformedBody,
            format!(
                "the event data must be {{\"documentId\", \"partnerId\", \"documentTypeCode\", \"status\"}} (strings): {e}"
            ),
        )
    })
}

/// A signed delivery of `event` (`document.validated`, …) with `data`, at
/// `now` (Unix seconds), under a fresh delivery id.
#[cfg(feature = "webhook")]
pub fn webhook_deliver(
    secret: &[u8],
    event: &str,
    data: &Value,
    now: u64,
) -> Result<Delivery, Error> {
    let event: EventKind = event.parse()?;
    let data = webhook_event_data(data)?;
    Signer::new(secret)?.deliver(event, data, Duration::from_secs(now))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn option_errors_point_at_the_member_at_fault() {
        let at = |v: Value| {
            options::<RenderOptions>(v)
                .unwrap_err()
                .pointer()
                .map(str::to_string)
        };
        assert_eq!(
            at(json!({"controlNumbers": {"transaction": -1}})).as_deref(),
            Some("/controlNumbers/transaction")
        );
        assert_eq!(
            at(json!({"controlNumbers": {"set": 1}})).as_deref(),
            Some("/controlNumbers/set")
        );
        assert_eq!(at(json!({"date": 20240101})).as_deref(), Some("/date"));
        assert_eq!(at(json!({"colour": "red"})).as_deref(), Some("/colour"));
        let e = options::<AcknowledgeOptions>(json!({"delimiters": {"element": "|"}})).unwrap_err();
        assert_eq!(e.pointer(), Some("/delimiters/component"));
    }

    #[test]
    fn validate_retains_what_it_is_asked_to() {
        let x12 = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*3*0001~ST*850*0002~BEG*00*SA*PO-2**20230101~SE*9*0002~GE*2*1~IEA*1*000000001~";
        let sets = |retain: &str| {
            let o: ValidateOptions = options(json!({ "retain": retain })).unwrap();
            let v = validate(x12, &o);
            (v.interchanges.iter())
                .flat_map(|i| &i.groups)
                .map(|g| g.transactions.len())
                .sum::<usize>()
        };
        assert_eq!((sets("all"), sets("errors"), sets("counts")), (2, 1, 0));
        let e = options::<ValidateOptions>(json!({"retain": "some"})).unwrap_err();
        assert_eq!(e.pointer(), Some("/retain"));
    }

    #[test]
    fn describe_segment_takes_versions_and_identifiers_only() {
        for v in ["", "00401", "00501", "004010", "005010X222A1", "004010VICS"] {
            assert!(is_version(v), "{v:?}");
        }
        for v in [
            "4010",
            "5010",
            "0040",
            "v5",
            "004010 ",
            "004010X222A12",
            "0050a",
            " 00401",
        ] {
            assert!(!is_version(v), "{v:?}");
        }
        assert!(describe_segment("850", "004010", "BEG").unwrap().is_some());
        assert_eq!(
            describe_segment_json("850", "004010", "ZZZ").unwrap(),
            b"null"
        );
        for (v, seg) in [
            ("004010", "beg"),
            ("004010", ""),
            ("004010", "BEGX"),
            ("5010", "BEG"),
        ] {
            let e = describe_segment("850", v, seg).unwrap_err();
            assert_eq!(e.code(), ErrorCode::InvalidArgument, "{v:?} {seg:?}");
            assert_eq!(e.pointer(), None);
        }
    }

    #[test]
    fn partner_errors_point_at_the_member_at_fault() {
        let at = |v: Value| {
            Partner::from_value(&v).unwrap_err().details()[0]
                .pointer
                .clone()
        };
        let r = json!({"qualifier": "ZZ", "id": "R"});
        assert_eq!(at(json!({"receiver": r})), "/sender");
        assert_eq!(
            at(json!({"sender": r, "receiver": r, "colour": 1})),
            "/colour"
        );
        assert_eq!(
            at(json!({"sender": {"qualifier": "ZZ", "id": 5}, "receiver": r})),
            "/sender/id"
        );
    }
}
