//! A guide checked against its set's declaration and compiled for the
//! checks: each segment path resolved to the declaration's nodes, each
//! element to its standard definition, and every rule that names what the
//! set does not have, or widens what the standard allows, an
//! `INVALID_GUIDE` problem with its pointer into the guide.

use super::format::{RawElement, RawGuide, RawLoop, RawSegment, Usage};
use crate::documents::compiled::{Coverage, coverage, declaration};
use crate::documents::dictionary::dictionary;
use crate::documents::model::{Edition, Node, SetDecl, Target, XType};
use regex_lite::Regex;
use std::collections::HashMap;
use x12kit_syntax::error::{ErrorCode, Problem};

/// An element's rules, compiled.
#[derive(Debug, Clone)]
pub(crate) struct ElementRule {
    /// Pointer of the rule in the guide.
    pub pointer: String,
    /// The element's name in the guide (`BEG02`, `PO107-02`).
    pub name: String,
    /// 1-based position.
    pub pos: u8,
    /// 1-based component position (a composite's component).
    pub component: Option<u8>,
    pub usage: Option<Usage>,
    pub codes: Option<Vec<String>>,
    pub min_length: Option<u16>,
    pub max_length: Option<u16>,
    pub pattern: Option<(String, Regex)>,
    pub value: Option<String>,
    /// Numbers count their digits, as the standard's lengths do.
    pub numeric: bool,
}

/// How often a segment or loop may occur in each occurrence of its parent.
#[derive(Debug, Clone)]
pub(crate) struct Count {
    /// Index of the node in its list.
    pub child: usize,
    /// Pointer of the rule in the guide.
    pub pointer: String,
    /// The guide's key (`PO1/PID`).
    pub key: String,
    /// Segment id (for a loop: of its opening segment).
    pub id: String,
    /// A loop rule (codes `GUIDE_LOOP_*`), or a segment rule.
    pub is_loop: bool,
    pub required: bool,
    pub not_used: bool,
    pub min: u32,
    pub max: Option<u32>,
}

/// A guide compiled against its set's declaration.
#[derive(Debug, Clone)]
pub(crate) struct Compiled {
    pub decl: &'static SetDecl,
    /// Element rules per segment node (its address).
    pub elements: HashMap<usize, Vec<ElementRule>>,
    /// Count rules per node list (the address of its first node).
    pub counts: HashMap<usize, Vec<Count>>,
    /// The same count rules per node they count (its address): what
    /// render looks up as it writes each node.
    pub by_node: HashMap<usize, Vec<Count>>,
}

impl Compiled {
    /// The element rules of a segment node (by its address).
    pub(crate) fn element_rules(&self, n: &Node) -> &[ElementRule] {
        self.elements.get(&node_key(n)).map_or(&[], Vec::as_slice)
    }

    /// The count rules of a segment or loop node (by its address).
    pub(crate) fn count_rules(&self, n: &Node) -> &[Count] {
        self.by_node.get(&node_key(n)).map_or(&[], Vec::as_slice)
    }
}

/// The address of a node, which identifies it (declarations are static).
pub(super) fn node_key(n: &Node) -> usize {
    n as *const Node as usize
}

/// The address of a node list.
pub(super) fn list_key(nodes: &[Node]) -> usize {
    nodes.as_ptr() as usize
}

/// Appends `/key` to a pointer with its escapes.
pub(super) fn child(pointer: &str, key: &str) -> String {
    format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// Collects problems, each at its pointer.
struct Problems(Vec<Problem>);

impl Problems {
    fn add(&mut self, pointer: &str, message: String) {
        self.0
            .push(Problem::error(ErrorCode::InvalidGuide, pointer, message));
    }
}

/// Compiles a guide read from its JSON. Every problem is reported, at its
/// pointer within the guide (`""` for the whole guide).
pub(super) fn compile(raw: &RawGuide) -> Result<(Compiled, Edition), Vec<Problem>> {
    let base = "";
    let mut p = Problems(Vec::new());
    if !crate::sets::is_known(raw.document_type.as_bytes()) {
        p.add(
            &child(base, "documentType"),
            format!(
                "x12kit has no transaction set {:?} (it has {})",
                raw.document_type,
                crate::sets::TYPES.join(", ")
            ),
        );
        return Err(p.0);
    }
    let code = raw.document_type.as_str();
    let version_ok = raw.version.len() == 6 && raw.version.bytes().all(|b| b.is_ascii_digit());
    let edition = match coverage(code, &raw.version) {
        Some(Coverage::Own(ed) | Coverage::Nearest(ed, _)) if version_ok => ed,
        _ => {
            let why = if version_ok {
                format!(
                    "x12kit has no {code} structure for version {} or an earlier one",
                    raw.version
                )
            } else {
                format!(
                    "the version must be 6 digits (GS08's first six, e.g. 004010), not {:?}",
                    raw.version
                )
            };
            p.add(&child(base, "version"), why);
            return Err(p.0);
        }
    };
    let Some(decl) = declaration(code, edition) else {
        p.add(base, format!("x12kit has no {code} declaration"));
        return Err(p.0);
    };
    let mut c = Compiled {
        decl,
        elements: HashMap::new(),
        counts: HashMap::new(),
        by_node: HashMap::new(),
    };
    if raw.id.trim().is_empty() {
        p.add(&child(base, "id"), "the guide's id is empty".into());
    }
    let segments = child(base, "segments");
    for (key, seg) in &raw.segments {
        segment(&mut c, &mut p, &child(&segments, key), key, seg, edition);
    }
    let loops = child(base, "loops");
    for (key, l) in &raw.loops {
        loop_rule(&mut c, &mut p, &child(&loops, key), key, l);
    }
    for (i, f) in raw.required_fields.iter().enumerate() {
        if !f.starts_with('/') {
            p.add(
                &format!("{}/{i}", child(base, "requiredFields")),
                format!("{f:?} is not a JSON pointer (it starts with /)"),
            );
        }
    }
    if p.0.is_empty() {
        Ok((c, edition))
    } else {
        Err(p.0)
    }
}

/// Where a key of `segments` or `loops` leads: the lists holding the nodes
/// named, with their indices.
struct Found {
    /// (list, index in it) of each node named.
    at: Vec<(&'static [Node], usize)>,
}

/// The canonical paths of every node with id `id` (for messages): a
/// loop's opening segment is named by the loop's path.
fn paths_of(nodes: &[Node], id: &str, prefix: &str, out: &mut Vec<String>) {
    for n in nodes {
        let here = if prefix.is_empty() {
            n.id.clone()
        } else {
            format!("{prefix}/{}", n.id)
        };
        if n.id == id {
            out.push(here.clone());
        }
        if let Some(kids) = &n.children {
            paths_of(&kids[1..], id, &here, out);
        }
    }
}

/// Resolves a key: loop ids from the top of the set, then the last id (a
/// segment, or a loop's opening segment; with `loops_only`, a loop).
fn resolve(decl: &'static SetDecl, key: &str, loops_only: bool) -> Result<Found, String> {
    let parts: Vec<&str> = key.split('/').collect();
    if parts.iter().any(|s| {
        !(2..=3).contains(&s.len())
            || !s
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    }) {
        return Err(format!(
            "{key:?} is not a segment path: segment ids (2-3 upper-case letters or digits) separated by /"
        ));
    }
    let mut lists: Vec<&'static [Node]> = vec![&decl.body];
    let (last, loops) = parts.split_last().expect("split gives one part at least");
    let mut walked = String::new();
    for id in loops {
        let next: Vec<&'static [Node]> = lists
            .iter()
            .flat_map(|l| l.iter())
            .filter(|n| n.id == *id)
            .filter_map(|n| n.children.as_deref())
            .collect();
        if next.is_empty() {
            return Err(where_is(decl, id, &walked, true));
        }
        walked = if walked.is_empty() {
            (*id).to_string()
        } else {
            format!("{walked}/{id}")
        };
        lists = next;
    }
    let mut at = Vec::new();
    for l in &lists {
        for (k, n) in l.iter().enumerate() {
            // Inside a loop, its own opening segment is named by the loop's path.
            let opener = k == 0 && !walked.is_empty();
            if n.id == *last && !opener && (n.is_loop() || !loops_only) {
                at.push((*l, k));
            }
        }
    }
    if at.is_empty() {
        return Err(where_is(decl, last, &walked, loops_only));
    }
    Ok(Found { at })
}

/// The message for an id not found under `walked`: where it is instead.
fn where_is(decl: &SetDecl, id: &str, walked: &str, want_loop: bool) -> String {
    let mut paths = Vec::new();
    paths_of(&decl.body, id, "", &mut paths);
    let what = if want_loop { "loop" } else { "segment" };
    let place = if walked.is_empty() {
        "at the top of the set".to_string()
    } else {
        format!("in the {walked} loop")
    };
    if paths.is_empty() {
        format!(
            "the {} {} declaration has no {what} {id}",
            decl.code, decl.since
        )
    } else {
        format!(
            "the {} declaration has no {what} {id} {place}; it has {id} at {}",
            decl.code,
            paths.join(", ")
        )
    }
}

/// The node a found (list, index) names as a segment: a loop's opening segment.
fn segment_node(list: &'static [Node], k: usize) -> &'static Node {
    match &list[k].children {
        Some(kids) => &kids[0],
        None => &list[k],
    }
}

/// The use rules of a segment or loop.
struct Uses {
    usage: Option<Usage>,
    min_use: Option<u32>,
    max_use: Option<u32>,
    is_loop: bool,
}

fn counts(c: &mut Compiled, p: &mut Problems, pointer: &str, key: &str, found: &Found, u: Uses) {
    let Uses {
        usage,
        min_use,
        max_use,
        is_loop,
    } = u;
    let (list, k) = found.at[0];
    let n = &list[k];
    let what = if is_loop { "loop" } else { "segment" };
    let std_max = n.max;
    let shown_max = if std_max == u32::MAX {
        ">1".to_string()
    } else {
        std_max.to_string()
    };
    if usage == Some(Usage::NotUsed) && n.mandatory {
        p.add(
            &child(pointer, "usage"),
            format!("{key} is a mandatory {what} in the standard: a guide cannot mark it notUsed"),
        );
    }
    if let Some(max) = max_use {
        if max == 0 {
            p.add(
                &child(pointer, "maxUse"),
                "maxUse must be at least 1 (use \"usage\": \"notUsed\")".into(),
            );
        } else if max > std_max {
            p.add(
                &child(pointer, "maxUse"),
                format!("maxUse {max} widens the standard's maximum use of {key} ({shown_max})"),
            );
        }
    }
    if let Some(min) = min_use {
        if min > std_max {
            p.add(
                &child(pointer, "minUse"),
                format!("minUse {min} is more than the standard allows {key} ({shown_max})"),
            );
        }
        if let Some(max) = max_use.filter(|&m| m < min) {
            p.add(
                &child(pointer, "minUse"),
                format!("minUse {min} is more than maxUse {max}"),
            );
        }
        if usage == Some(Usage::NotUsed) && min > 0 {
            p.add(
                &child(pointer, "minUse"),
                format!("minUse {min} contradicts \"usage\": \"notUsed\""),
            );
        }
    }
    if usage.is_none() && min_use.is_none() && max_use.is_none() {
        return;
    }
    let required = usage == Some(Usage::Required);
    for &(list, k) in &found.at {
        let count = Count {
            child: k,
            pointer: pointer.to_string(),
            key: key.to_string(),
            id: list[k].id.clone(),
            is_loop,
            required,
            not_used: usage == Some(Usage::NotUsed),
            min: min_use.unwrap_or(0).max(u32::from(required)),
            max: max_use,
        };
        c.by_node
            .entry(node_key(&list[k]))
            .or_default()
            .push(count.clone());
        c.counts.entry(list_key(list)).or_default().push(count);
    }
}

fn loop_rule(c: &mut Compiled, p: &mut Problems, pointer: &str, key: &str, l: &RawLoop) {
    let found = match resolve(c.decl, key, true) {
        Ok(f) => f,
        Err(e) => return p.add(pointer, e),
    };
    let uses = Uses {
        usage: l.usage,
        min_use: l.min_use,
        max_use: l.max_use,
        is_loop: true,
    };
    counts(c, p, pointer, key, &found, uses);
}

fn segment(
    c: &mut Compiled,
    p: &mut Problems,
    pointer: &str,
    key: &str,
    seg: &RawSegment,
    edition: Edition,
) {
    let found = match resolve(c.decl, key, false) {
        Ok(f) => f,
        Err(e) => return p.add(pointer, e),
    };
    let uses = Uses {
        usage: seg.usage,
        min_use: seg.min_use,
        max_use: seg.max_use,
        is_loop: false,
    };
    counts(c, p, pointer, key, &found, uses);
    let (list, k) = found.at[0];
    let node = segment_node(list, k);
    let elements = child(pointer, "elements");
    let mut rules = Vec::new();
    for (name, e) in &seg.elements {
        let at = child(&elements, name);
        if let Some(r) = element(p, &at, name, &node.id, node, e, edition) {
            rules.push(r);
        }
    }
    if rules.is_empty() {
        return;
    }
    rules.sort_by_key(|r| (r.pos, r.component));
    for &(list, k) in &found.at {
        c.elements
            .entry(node_key(segment_node(list, k)))
            .or_default()
            .extend(rules.iter().cloned());
    }
}

/// What the standard says of an element: type, lengths, mandatory, complete codes.
struct Standard {
    xtype: Option<XType>,
    composite: bool,
    min: u16,
    max: u16,
    mandatory: bool,
    codes: Option<Vec<String>>,
}

fn standard(node: &Node, id: &str, pos: u8, edition: Edition) -> Option<Standard> {
    if let Some(map) = &node.map {
        for e in &map.elements {
            match &e.target {
                Target::Pairs(pairs) => {
                    let last = e.pos as usize + 2 * pairs.count as usize - 1;
                    if (e.pos as usize..=last).contains(&(pos as usize)) {
                        let qualifier = (pos - e.pos).is_multiple_of(2);
                        let (min, max) = if qualifier {
                            pairs.qualifier_len
                        } else {
                            pairs.id_len
                        };
                        return Some(Standard {
                            xtype: Some(if qualifier { XType::ID } else { XType::AN }),
                            composite: false,
                            min,
                            max,
                            mandatory: e.mandatory && pos == e.pos,
                            codes: None,
                        });
                    }
                }
                _ if e.pos == pos => {
                    return Some(Standard {
                        xtype: Some(e.xtype),
                        composite: false,
                        min: e.min,
                        max: e.max,
                        mandatory: e.mandatory,
                        codes: e.codes.clone(),
                    });
                }
                _ => {}
            }
        }
    }
    let d = dictionary()?;
    let number = d.segment(id)?.number_at(pos, edition)?;
    let el = d.element(number)?;
    let (min, max) = el.lengths(edition);
    let xtype = match el.xtype.as_str() {
        "AN" => Some(XType::AN),
        "ID" => Some(XType::ID),
        "R" => Some(XType::R),
        "DT" => Some(XType::DT),
        "TM" => Some(XType::TM),
        t => t
            .strip_prefix('N')
            .and_then(|n| n.parse().ok())
            .map(XType::N),
    };
    Some(Standard {
        composite: el.xtype == "C",
        xtype,
        min,
        max,
        mandatory: false,
        codes: None,
    })
}

/// Parses `BEG02` / `PO107-02` for segment `id`: (position, component).
fn element_name(name: &str, id: &str) -> Option<(u8, Option<u8>)> {
    let rest = name.strip_prefix(id)?;
    let (pos, comp) = match rest.split_once('-') {
        Some((p, c)) => (p, Some(c)),
        None => (rest, None),
    };
    let two = |s: &str| {
        (s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u8>().ok())
            .flatten()
            .filter(|&n| n > 0)
    };
    let pos = two(pos)?;
    match comp {
        Some(c) => Some((pos, Some(two(c)?))),
        None => Some((pos, None)),
    }
}

fn element(
    p: &mut Problems,
    pointer: &str,
    name: &str,
    id: &str,
    node: &Node,
    e: &RawElement,
    edition: Edition,
) -> Option<ElementRule> {
    let Some((pos, component)) = element_name(name, id) else {
        p.add(
            pointer,
            format!("{name:?} is not an element of {id}: write {id}01, {id}02, … (and {id}01-02 for a component)"),
        );
        return None;
    };
    let Some(std) = standard(node, id, pos, edition) else {
        p.add(
            pointer,
            format!("{id} has no element at position {pos} in the standard x12kit knows"),
        );
        return None;
    };
    if component.is_some() && !std.composite {
        p.add(
            pointer,
            format!("{id}{pos:02} is not a composite: it has no components"),
        );
        return None;
    }
    if component.is_none()
        && std.composite
        && (e.codes.is_some()
            || e.pattern.is_some()
            || e.value.is_some()
            || e.min_length.is_some()
            || e.max_length.is_some())
    {
        p.add(
            pointer,
            format!(
                "{id}{pos:02} is a composite: give the rules of its components ({id}{pos:02}-01, …)"
            ),
        );
        return None;
    }
    let before = p.0.len();
    let known = component.is_none() && !std.composite;
    let numeric = matches!(std.xtype, Some(XType::R | XType::N(_))) && component.is_none();
    if e.usage == Some(Usage::NotUsed) && std.mandatory && component.is_none() {
        p.add(
            &child(pointer, "usage"),
            format!("{name} is mandatory in the standard: a guide cannot mark it notUsed"),
        );
    }
    if known {
        if let Some(m) = e.max_length.filter(|&m| m > std.max) {
            p.add(
                &child(pointer, "maxLength"),
                format!(
                    "maxLength {m} widens the standard's maximum length of {name} ({})",
                    std.max
                ),
            );
        }
        if let Some(m) = e.min_length.filter(|&m| m < std.min) {
            p.add(
                &child(pointer, "minLength"),
                format!(
                    "minLength {m} widens the standard's minimum length of {name} ({})",
                    std.min
                ),
            );
        }
        if let Some(m) = e.min_length.filter(|&m| m > std.max) {
            p.add(
                &child(pointer, "minLength"),
                format!(
                    "minLength {m} is more than the standard's maximum length of {name} ({})",
                    std.max
                ),
            );
        }
    }
    if let (Some(a), Some(b)) = (e.min_length, e.max_length) {
        if a > b {
            p.add(
                &child(pointer, "minLength"),
                format!("minLength {a} is more than maxLength {b}"),
            );
        }
    }
    if e.max_length == Some(0) {
        p.add(
            &child(pointer, "maxLength"),
            "maxLength must be at least 1".into(),
        );
    }
    let fits = |v: &str| -> Option<String> {
        let len = if numeric {
            crate::documents::value::digits(v)
        } else {
            v.chars().count()
        };
        if v.is_empty() {
            return Some("is empty".into());
        }
        if known && (len < std.min as usize || len > std.max as usize) {
            return Some(format!(
                "is {len} long; {name} is {}/{} in the standard",
                std.min, std.max
            ));
        }
        if let Some(codes) = &std.codes {
            if !codes.iter().any(|c| c == v) {
                return Some(format!(
                    "is not one of the standard's codes of {name} ({})",
                    codes.join(", ")
                ));
            }
        }
        None
    };
    if let Some(codes) = &e.codes {
        if codes.is_empty() {
            p.add(
                &child(pointer, "codes"),
                "codes is empty: list the codes used (or mark the element notUsed)".into(),
            );
        }
        if !matches!(std.xtype, Some(XType::ID) | None) && known {
            p.add(
                &child(pointer, "codes"),
                format!("{name} is not an identifier (ID) element: it has no codes"),
            );
        }
        let at = child(pointer, "codes");
        for (i, code) in codes.iter().enumerate() {
            if let Some(why) = fits(code) {
                p.add(&format!("{at}/{i}"), format!("the code {code:?} {why}"));
            }
        }
    }
    if let Some(v) = &e.value {
        if let Some(why) = fits(v) {
            p.add(&child(pointer, "value"), format!("the value {v:?} {why}"));
        }
        if let Some(codes) = e.codes.as_ref().filter(|c| !c.contains(v)) {
            p.add(
                &child(pointer, "value"),
                format!(
                    "the value {v:?} is not one of the guide's codes ({})",
                    codes.join(", ")
                ),
            );
        }
    }
    if e.usage == Some(Usage::NotUsed)
        && (e.codes.is_some() || e.value.is_some() || e.pattern.is_some())
    {
        p.add(
            &child(pointer, "usage"),
            format!("{name} is notUsed: it cannot have codes, a value or a pattern"),
        );
    }
    let pattern = match &e.pattern {
        None => None,
        Some(text) => match regex_lite::RegexBuilder::new(text)
            .size_limit(1 << 20)
            .build()
        {
            Ok(r) => Some((text.clone(), r)),
            Err(err) => {
                let first = err.to_string();
                let first = first.lines().last().unwrap_or_default().trim().to_string();
                p.add(
                    &child(pointer, "pattern"),
                    format!(
                        "the pattern {text:?} is not a regular expression x12kit reads: {first}"
                    ),
                );
                None
            }
        },
    };
    if p.0.len() > before {
        return None;
    }
    Some(ElementRule {
        pointer: pointer.to_string(),
        name: name.to_string(),
        pos,
        component,
        usage: e.usage,
        codes: e.codes.clone(),
        min_length: e.min_length,
        max_length: e.max_length,
        pattern,
        value: e.value.clone(),
        numeric,
    })
}
