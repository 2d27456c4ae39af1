//! The structure checks of received sets (segment order, loops,
//! mandatory segments and elements, types, lengths, codes), by the version
//! each set declares, and as whole-set rules of the envelope validator.

use super::compiled::{Coverage, coverage, declared, known, versions};
use super::declared::Declared;
use super::finding::Finding;
use super::{elements, matcher};
use crate::guide::{Applies, Guide, Guides};
use x12kit_syntax::diagnostics::{Diagnostic, Severity};
use x12kit_syntax::envelope::{Document, Group, Transaction};

/// Structure and element findings of a received set of a declared type
/// (`None` for other types), sorted by position; for a version without its
/// own structure, warnings only ([`coverage`]).
pub fn validate_transaction(
    doc: &Document<'_>,
    group: &Group<'_>,
    tx: &Transaction<'_>,
) -> Option<Vec<Finding>> {
    let code = std::str::from_utf8(tx.kind()).ok()?;
    let version = group.gs.as_ref().map_or(&[][..], |gs| gs.value(8));
    let version = String::from_utf8_lossy(version);
    let segs: Vec<_> = doc.body(tx).collect();
    let end = match &tx.se {
        Some(s) => (s.index(), s.offset()),
        None => segs
            .last()
            .map_or((tx.st.index() + 1, tx.st.offset()), |s| {
                (s.index() + 1, s.offset() + s.raw().len())
            }),
    };
    checked(code, &version, &tx.st, &segs, end, None)
}

/// The findings of a set of type `code` and version `version`, body
/// `body`, by its [`coverage`], and by the guide of `guides` that applies
/// to it; `None` for a type not declared.
fn checked(
    code: &str,
    version: &str,
    st: &x12kit_syntax::segment::Segment<'_>,
    body: &[x12kit_syntax::segment::Segment<'_>],
    end: (usize, usize),
    guides: Option<&Guides>,
) -> Option<Vec<Finding>> {
    let shown = if version.is_empty() {
        "(none)"
    } else {
        version
    };
    let note = |message: String| Finding {
        code: x12kit_syntax::diagnostics::Code::StructureVersion,
        message,
        segment_index: st.index(),
        offset: st.offset(),
        segment_id: "ST".into(),
        element: None,
        component: None,
        segment_code: None,
        element_code: None,
        value: None,
        loop_id: None,
        severity: Severity::Warning,
        guide: None,
    };
    let guide = match guides.map(|g| g.applies(code, version)) {
        Some(Applies::Guide(g)) => Some(g),
        Some(Applies::OtherVersions) => {
            let mut f = checked(code, version, st, body, end, None)?;
            let versions = guides.map(|g| g.versions_of(code)).unwrap_or_default();
            f.insert(
                0,
                Finding {
                    code: x12kit_syntax::diagnostics::Code::GuideNotApplied,
                    ..note(format!(
                        "no guide applies: the guides given for the {code} describe version {}, the set is {shown}; checked against the standard alone",
                        versions.join(" and ")
                    ))
                },
            );
            return Some(f);
        }
        Some(Applies::NoGuide) | None => None,
    };
    Some(match coverage(code, version)? {
        Coverage::Own(ed) => findings(declared(code.as_bytes(), ed)?, body, end, guide),
        Coverage::Nearest(ed, other) => {
            let mut f = findings(declared(code.as_bytes(), ed)?, body, end, guide);
            for x in &mut f {
                x.severity = Severity::Warning;
                x.message = format!("{} (by the {other} structure)", x.message);
            }
            f.insert(
                0,
                note(format!(
                    "x12kit has no {code} structure for version {shown}: checked against {other}'s, whose findings are warnings here"
                )),
            );
            f
        }
        Coverage::Unchecked => vec![note(format!(
            "x12kit has no {code} structure for version {shown} or an earlier one (it has {}): the set's structure is not checked",
            versions(code)?.join(" and ")
        ))],
    })
}

fn findings(
    d: Declared,
    body: &[x12kit_syntax::segment::Segment<'_>],
    end: (usize, usize),
    guide: Option<&Guide>,
) -> Vec<Finding> {
    let (occ, mut findings) = matcher::match_body(d.decl, d.shape, d.ids, body, end, &known);
    elements::check_elements(&d.decl.body, &occ, body, None, &mut findings);
    if let Some(g) = guide.filter(|g| std::ptr::eq(g.compiled().decl, d.decl)) {
        crate::guide::check::check(g.compiled(), &occ.items, body, end, &mut findings);
    }
    findings.sort_by_key(|f| (f.segment_index, f.element.unwrap_or(0)));
    findings
}

/// The structure validation of the declared sets as whole-set rules of the
/// envelope validator, so that its diagnostics (and the TA1/997/999 built
/// from them) include AK3/AK4 and IK3/IK4 findings:
///
/// ```
/// use x12kit_edi::validate::{Buffered, Options, Validator};
/// let x12 = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *261122*0930*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20261122*0930*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20261131~PO1*1*2*EA~SE*4*0001~GE*1*1~IEA*1*000000001~";
/// let v = Validator::new(Options::default())
///     .with_rules(Box::new(Buffered::new(x12kit_edi::documents::StructureRules)))
///     .run(&x12kit_syntax::parse(x12));
/// assert_eq!(v.diagnostics[0].code.as_str(), "ELEMENT_INVALID_DATE");
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct StructureRules;

impl crate::validate::WholeSetRules for StructureRules {
    fn check(
        &mut self,
        segments: &[x12kit_syntax::segment::Segment<'_>],
        complete: bool,
        _functional_id: Option<&[u8]>,
        version: &[u8],
        out: &mut Vec<Diagnostic>,
    ) {
        whole_set(segments, complete, version, None, out);
    }
}

/// [`StructureRules`] plus the partner's implementation guides: each set
/// that a guide names (type and version) is also checked against it; a set
/// whose type the guides name but not its version is checked against the
/// standard alone, with one `GUIDE_NOT_APPLIED` warning.
#[derive(Debug, Clone, Default)]
pub struct GuidedRules {
    guides: Guides,
}

impl GuidedRules {
    /// The structure rules with these guides.
    pub fn new(guides: Guides) -> Self {
        GuidedRules { guides }
    }
}

impl crate::validate::WholeSetRules for GuidedRules {
    fn check(
        &mut self,
        segments: &[x12kit_syntax::segment::Segment<'_>],
        complete: bool,
        _functional_id: Option<&[u8]>,
        version: &[u8],
        out: &mut Vec<Diagnostic>,
    ) {
        whole_set(segments, complete, version, Some(&self.guides), out);
    }
}

/// The structure (and guide) findings of one buffered set, as diagnostics.
fn whole_set(
    segments: &[x12kit_syntax::segment::Segment<'_>],
    complete: bool,
    version: &[u8],
    guides: Option<&Guides>,
    out: &mut Vec<Diagnostic>,
) {
    let Some(st) = segments.first() else { return };
    let Ok(code) = std::str::from_utf8(st.value(1)) else {
        return;
    };
    let version = String::from_utf8_lossy(version);
    let (body, end) = match segments.last() {
        Some(se) if complete && segments.len() >= 2 => {
            (&segments[1..segments.len() - 1], (se.index(), se.offset()))
        }
        Some(last) => (
            &segments[1..],
            (last.index() + 1, last.offset() + last.raw().len()),
        ),
        None => return,
    };
    if let Some(f) = checked(code, &version, st, body, end, guides) {
        out.extend(f.iter().map(Finding::to_diagnostic));
    }
}

/// Structure validation of every set of a declared type in a parsed document,
/// as diagnostics with their acknowledgement codes (other sets are skipped).
pub fn diagnostics(doc: &Document<'_>) -> Vec<Diagnostic> {
    validate_document(doc)
        .iter()
        .map(Finding::to_diagnostic)
        .collect()
}

/// Structure findings of every known set of a parsed document, in order.
pub fn validate_document(doc: &Document<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for i in &doc.interchanges {
        for g in &i.groups {
            for t in &g.transactions {
                if let Some(f) = validate_transaction(doc, g, t) {
                    out.extend(f);
                }
            }
        }
    }
    out
}
