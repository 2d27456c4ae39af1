//! Rendering an outbound document: payload JSON + document type + partner
//! profile + control numbers → a complete interchange (ISA/GS/ST … SE/GE/IEA).
//!
//! The body comes from the set's declaration ([`crate::documents`]); this
//! module writes the envelope: the partner's ids, qualifiers, version,
//! delimiters and usage, the GS01 of the type, counts and control numbers.
//! Every problem of the payload (and of the partner's required fields) is
//! reported at once, each with a stable code and a JSON pointer.

use crate::documents::{self, encode::Context};
use crate::guide::{Applies, Guide, Guides};
use crate::partner::{Partner, PartnerGuide, isa_version};
use serde::Deserialize;
use serde_json::Value;
use x12kit_syntax::diagnostics::Severity;
use x12kit_syntax::error::{Error, ErrorCode, Problem};
use x12kit_syntax::time::DateTime;

/// Control numbers of the interchange, group and transaction set (JSON:
/// `{"interchange", "group", "transaction"}`, each defaulting to 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ControlNumbers {
    /// ISA13/IEA02 (1–999999999).
    pub interchange: u32,
    /// GS06/GE02 (1–999999999).
    pub group: u32,
    /// ST02/SE02 (1–999999999; written with at least 4 digits).
    pub transaction: u32,
}

impl Default for ControlNumbers {
    fn default() -> Self {
        ControlNumbers {
            interchange: 1,
            group: 1,
            transaction: 1,
        }
    }
}

/// Options of [`render`] (and of `x12kit::ops::render`: JSON
/// `{"controlNumbers", "date", "time", "guides"}`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct RenderOptions {
    /// Control numbers of the interchange, group and set.
    pub control_numbers: ControlNumbers,
    /// Date of the interchange, CCYYMMDD (with `time`); default: `now`.
    pub date: Option<String>,
    /// Time of the interchange, HHMM (with `date`); default: `now`.
    pub time: Option<String>,
    /// Partners' implementation guides (`schema/guide.schema.json`): the
    /// one naming the document type and the partner's version is applied
    /// (before the partner profile's own guide for the type), and a payload
    /// that breaks it is refused with every departure (`GUIDE_*`) at its
    /// payload pointer. Guides of the type for other versions only: a
    /// `GUIDE_NOT_APPLIED` warning.
    pub guides: Guides,
}

/// A rendered interchange.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The X12 bytes.
    pub x12: Vec<u8>,
    /// The payload as map-back returns it: defaults filled in, numbers
    /// canonical (no negative zero), fields ignored with `UNKNOWN_FIELD`
    /// dropped, and members rendered as absent left out (null, `[]`, and
    /// objects with nothing else, such as `{}`; array items stay).
    pub document: Value,
    /// Warnings (e.g. `UNKNOWN_FIELD`).
    pub warnings: Vec<Problem>,
}

fn err(code: ErrorCode, pointer: &str, message: String) -> Problem {
    Problem::error(code, pointer, message)
}

/// The error of a refused render: the top-level code (`INVALID_PAYLOAD`
/// unless a problem says the partner, the type or the version is at fault)
/// with every problem as its details.
fn refused(issues: Vec<Problem>) -> Error {
    let top = [
        ErrorCode::InvalidPartner,
        ErrorCode::UnknownDocumentType,
        ErrorCode::UnsupportedVersion,
        ErrorCode::InvalidControlNumber,
    ]
    .into_iter()
    .find(|c| issues.iter().any(|i| i.code == *c))
    .unwrap_or(ErrorCode::InvalidPayload);
    Error::from_problems(top, issues)
}

fn pad(s: &str, n: usize) -> String {
    format!("{s:<n$}")
}

/// Checks the partner's implementation-guide pointers against the (normalised) payload.
pub fn required_fields(
    pointers: &[String],
    payload: &Value,
    partner: &str,
    out: &mut Vec<Problem>,
) {
    // `at`: the pointer walked so far, one buffer grown and cut back per level.
    fn walk(
        v: Option<&Value>,
        parts: &[&str],
        at: &mut String,
        partner: &str,
        out: &mut Vec<Problem>,
    ) {
        let Some((first, rest)) = parts.split_first() else {
            if v.is_none_or(|v| v.is_null() || v.as_str() == Some("")) {
                out.push(err(
                    ErrorCode::MissingField,
                    at,
                    format!("is required by the implementation guide of partner {partner}"),
                ));
            }
            return;
        };
        let Some(v) = v.filter(|v| !v.is_null()) else {
            // Report at the deepest missing field of the pointer's first item.
            let mut p = at.clone();
            for part in parts {
                p.push('/');
                p.push_str(if *part == "*" { "0" } else { part });
            }
            out.push(err(
                ErrorCode::MissingField,
                &p,
                format!("is required by the implementation guide of partner {partner}"),
            ));
            return;
        };
        let len = at.len();
        if *first == "*" {
            match v {
                Value::Array(a) => {
                    let mut n = itoa_buf();
                    for (i, item) in a.iter().enumerate() {
                        at.push('/');
                        at.push_str(n.format(i));
                        walk(Some(item), rest, at, partner, out);
                        at.truncate(len);
                    }
                }
                _ => {
                    at.push_str("/0");
                    walk(None, rest, at, partner, out);
                }
            }
        } else {
            let key = documents::unescape(first);
            let next = match v {
                Value::Object(o) => o.get(&*key),
                Value::Array(a) => key.parse::<usize>().ok().and_then(|i| a.get(i)),
                _ => None,
            };
            at.push('/');
            at.push_str(first);
            walk(next, rest, at, partner, out);
        }
        at.truncate(len);
    }
    let mut at = String::new();
    for p in pointers {
        let parts: Vec<&str> = p.split('/').skip(1).collect();
        at.clear();
        walk(Some(payload), &parts, &mut at, partner, out);
    }
}

/// Decimal text of array indexes without a `format!` each.
struct Index([u8; 20]);

fn itoa_buf() -> Index {
    Index([0; 20])
}

impl Index {
    fn format(&mut self, mut i: usize) -> &str {
        let mut k = self.0.len();
        loop {
            k -= 1;
            self.0[k] = b'0' + (i % 10) as u8;
            i /= 10;
            if i == 0 {
                break;
            }
        }
        // Only ASCII digits were written.
        std::str::from_utf8(&self.0[k..]).unwrap_or("0")
    }
}

/// Renders one document into a complete interchange for a partner, dated
/// `options.date`/`options.time` or, without them, `now` (the core reads
/// no clock: `x12kit::ops::render` takes "now" from its caller).
pub fn render(
    code: &str,
    payload: &Value,
    partner: &Partner,
    options: &RenderOptions,
    now: DateTime,
) -> Result<Rendered, Error> {
    let mut r = render_sets(code, std::slice::from_ref(payload), partner, options, now)?;
    Ok(Rendered {
        x12: r.x12,
        document: r.documents.pop().unwrap_or(Value::Null),
        warnings: r.warnings,
    })
}

/// Several documents of one type rendered into one interchange.
#[derive(Debug, Clone)]
pub struct RenderedSets {
    /// The X12 bytes: one functional group, one transaction set per document.
    pub x12: Vec<u8>,
    /// Each payload as map-back returns it (see [`Rendered::document`]).
    pub documents: Vec<Value>,
    /// Warnings; with several documents each pointer starts with the document's index (`/1/lines/0/sku`).
    pub warnings: Vec<Problem>,
}

/// Renders documents of one type into one interchange with one functional group
/// and one transaction set per document, in their order: the first set's ST02 is
/// the options' transaction control number, and each next one counts up from it.
/// Every problem of every payload is reported at once; with several documents each
/// pointer starts with the document's index (`/2/lines/0/quantity`).
pub fn render_sets(
    code: &str,
    payloads: &[Value],
    partner: &Partner,
    options: &RenderOptions,
    now: DateTime,
) -> Result<RenderedSets, Error> {
    let timestamp = DateTime::from_options(options.date.as_deref(), options.time.as_deref(), now)?;
    let problems = partner.check();
    if !problems.is_empty() {
        return Err(Error::from_problems(ErrorCode::InvalidPartner, problems));
    }
    let Some(functional_id) = documents::functional_id(code) else {
        return Err(Error::new(
            ErrorCode::UnknownDocumentType,
            format!(
                "x12kit does not render transaction set \"{code}\"; known: {}",
                documents::TYPES.join(", ")
            ),
        ));
    };
    let version = partner.version_for(code);
    let since = documents::since(code).unwrap_or("004010");
    if version.get(..6).unwrap_or("") < since {
        return Err(Error::new(
            ErrorCode::UnsupportedVersion,
            format!(
                "{code} does not exist in version {version}: it was introduced in {since}; set the partner's \"versions\": {{\"{code}\": \"{since}\"}} (or 005010)"
            ),
        ));
    }
    let c = options.control_numbers;
    let mut issues = Vec::new();
    if payloads.is_empty() {
        issues.push(err(
            ErrorCode::EmptyArray,
            "/",
            "there is no document to render".to_string(),
        ));
    }
    let last_set = u64::from(c.transaction) + payloads.len().saturating_sub(1) as u64;
    for (name, n) in [
        ("interchange", u64::from(c.interchange)),
        ("group", u64::from(c.group)),
        ("transaction", u64::from(c.transaction)),
        ("last transaction", last_set),
    ] {
        if n == 0 || n > 999_999_999 {
            issues.push(err(
                ErrorCode::InvalidControlNumber,
                "/",
                format!("the {name} control number must be 1–999999999, found {n}"),
            ));
        }
    }
    if !issues.is_empty() {
        return Err(refused(issues));
    }
    let (date, time) = (timestamp.ccyymmdd(), timestamp.hhmm());
    let d = partner.delimiters_for(&version).map_err(|m| {
        Error::from_problems(
            ErrorCode::InvalidPartner,
            vec![err(ErrorCode::InvalidDelimiters, "/delimiters", m)],
        )
    })?;
    // `check` saw every delimiter but the repetition separator, which depends on the version.
    let clashes = partner.delimiters_in_values(&d);
    if !clashes.is_empty() {
        return Err(Error::from_problems(ErrorCode::InvalidPartner, clashes));
    }
    let ctx = Context {
        delimiters: d,
        date: date.clone(),
        time: time.clone(),
    };
    let (guide, mut guide_warnings) = guide_for(code, &version, partner, &options.guides)?;
    let several = payloads.len() > 1;
    let mut bodies = Vec::with_capacity(payloads.len());
    issues.append(&mut guide_warnings);
    for (index, payload) in payloads.iter().enumerate() {
        let (body, mut found) = body_of(code, &version, payload, &ctx, partner, guide.as_ref());
        if several {
            for p in &mut found {
                p.pointer = format!(
                    "/{index}{}",
                    if p.pointer == "/" {
                        ""
                    } else {
                        p.pointer.as_str()
                    }
                );
            }
        }
        issues.extend(found);
        bodies.extend(body);
    }
    if bodies.len() != payloads.len() || issues.iter().any(|i| i.severity == Severity::Error) {
        issues.sort_by(|a, b| {
            (a.severity != Severity::Error)
                .cmp(&(b.severity != Severity::Error))
                .then_with(|| a.pointer.cmp(&b.pointer))
        });
        return Err(refused(issues));
    }
    let e = d.element as char;
    let lb = partner.line_break.as_str();
    let mut out = String::with_capacity(
        256 + bodies
            .iter()
            .flat_map(|b| &b.segments)
            .map(|s| s.iter().map(|x| x.len() + 1).sum::<usize>() + 1)
            .sum::<usize>(),
    );
    let seg_end = |out: &mut String| {
        out.push(d.segment as char);
        out.push_str(lb);
    };
    let seg = |out: &mut String, parts: &[&str]| {
        for (k, p) in parts.iter().enumerate() {
            if k > 0 {
                out.push(e);
            }
            out.push_str(p);
        }
        seg_end(out);
    };
    let none = crate::partner::Credential {
        qualifier: "00".into(),
        information: String::new(),
    };
    let auth = partner.authorization.as_ref().unwrap_or(&none);
    let sec = partner.security.as_ref().unwrap_or(&none);
    let isa_v = isa_version(&version);
    let rep = match d.repetition {
        Some(r) => (r as char).to_string(),
        None => "U".to_string(),
    };
    let isa13 = format!("{:09}", c.interchange);
    seg(
        &mut out,
        &[
            "ISA",
            &auth.qualifier,
            &pad(&auth.information, 10),
            &sec.qualifier,
            &pad(&sec.information, 10),
            &partner.sender.qualifier,
            &pad(&partner.sender.id, 15),
            &partner.receiver.qualifier,
            &pad(&partner.receiver.id, 15),
            &date[2..],
            &time,
            &rep,
            &isa_v,
            &isa13,
            if partner.acknowledgement_requested {
                "1"
            } else {
                "0"
            },
            match partner.usage {
                crate::partner::Usage::Production => "P",
                crate::partner::Usage::Test => "T",
                crate::partner::Usage::Information => "I",
            },
            &(d.component as char).to_string(),
        ],
    );
    let gs06 = c.group.to_string();
    seg(
        &mut out,
        &[
            "GS",
            functional_id,
            partner.application_code(&partner.sender),
            partner.application_code(&partner.receiver),
            &date,
            &time,
            &gs06,
            "X",
            &version,
        ],
    );
    let mut documents = Vec::with_capacity(bodies.len());
    for (i, body) in bodies.into_iter().enumerate() {
        let st02 = format!("{:04}", u64::from(c.transaction) + i as u64);
        seg(&mut out, &["ST", code, &st02]);
        for s in &body.segments {
            for (k, p) in s.iter().enumerate() {
                if k > 0 {
                    out.push(e);
                }
                out.push_str(p);
            }
            seg_end(&mut out);
        }
        let count = (body.segments.len() + 2).to_string();
        seg(&mut out, &["SE", &count, &st02]);
        documents.push(body.normalized);
    }
    seg(&mut out, &["GE", &documents.len().to_string(), &gs06]);
    seg(&mut out, &["IEA", "1", &isa13]);
    Ok(RenderedSets {
        x12: out.into_bytes(),
        documents,
        warnings: issues,
    })
}

/// The guide a render of `code` in `version` keeps: the options' guide of
/// the type and version, else the partner profile's guide of the type; a
/// `GUIDE_NOT_APPLIED` warning when the options' guides name the type for
/// other versions only. `INVALID_PARTNER` when the profile's guide is a
/// path nobody has read.
fn guide_for(
    code: &str,
    version: &str,
    partner: &Partner,
    guides: &Guides,
) -> Result<(Option<Guide>, Vec<Problem>), Error> {
    let mut warnings = Vec::new();
    match guides.applies(code, version) {
        Applies::Guide(g) => return Ok((Some(g.clone()), warnings)),
        Applies::OtherVersions if !partner.guides.contains_key(code) => {
            warnings.push(Problem::warning(
                ErrorCode::GuideNotApplied,
                "/",
                format!(
                    "the guides given for the {code} describe version {}, not {version}: rendered against the standard alone",
                    guides.versions_of(code).join(", ")
                ),
            ));
        }
        _ => {}
    }
    match partner.guides.get(code) {
        None => Ok((None, warnings)),
        Some(PartnerGuide::Guide(g)) => Ok((Some(g.clone()), warnings)),
        Some(PartnerGuide::Path(path)) => Err(Error::from_problems(
            ErrorCode::InvalidPartner,
            vec![err(
                ErrorCode::InvalidGuide,
                &format!("/guides/{code}"),
                format!(
                    "the {code} guide is the path {path:?}, which the CLI and the server read; a library call gives the guide itself (or the option guides)"
                ),
            )],
        )),
    }
}

/// The body of one payload and its problems (warnings too), the partner's
/// implementation guide checked; `None` when an error keeps it from rendering.
fn body_of(
    code: &str,
    version: &str,
    payload: &Value,
    ctx: &Context,
    partner: &Partner,
    guide: Option<&Guide>,
) -> (Option<documents::Body>, Vec<Problem>) {
    let body = documents::render_body(code, version, payload, ctx, guide.map(Guide::compiled));
    let (body, mut issues) = match body {
        Ok(b) => {
            let w = b.warnings.clone();
            (Some(b), w)
        }
        Err(i) => (None, i),
    };
    let guide_fields = guide.map(Guide::required_fields).unwrap_or_default();
    let partner_fields = partner.required_fields.get(code).map(Vec::as_slice);
    let ptrs: Vec<String> = partner_fields
        .unwrap_or_default()
        .iter()
        .chain(
            guide_fields
                .iter()
                .filter(|g| !partner_fields.unwrap_or_default().contains(g)),
        )
        .cloned()
        .collect();
    if !ptrs.is_empty() && payload.is_object() {
        let target = body.as_ref().map_or(payload, |b| &b.normalized);
        let mut req = Vec::new();
        required_fields(
            &ptrs,
            target,
            partner
                .id
                .as_deref()
                .or(partner.name.as_deref())
                .unwrap_or(&partner.receiver.id),
            &mut req,
        );
        // A field already in error is not reported twice, nor one under a
        // value that is missing, empty or of the wrong type.
        req.retain(|r| {
            !issues.iter().any(|i| {
                i.severity == Severity::Error
                    && (i.pointer == r.pointer
                        || (matches!(
                            i.code,
                            ErrorCode::InvalidField
                                | ErrorCode::MissingField
                                | ErrorCode::EmptyArray
                        ) && i.is_above(&r.pointer)))
            })
        });
        issues.extend(req);
    }
    if issues.iter().any(|i| i.severity == Severity::Error) {
        return (None, issues);
    }
    (body, issues)
}
