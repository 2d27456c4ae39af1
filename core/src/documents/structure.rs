//! Matching received segments against a declaration's segment tree (order,
//! loops, repeats, mandatory segments), checking their elements, and mapping
//! the matched tree back to payload JSON.

use super::model::*;
use super::value;
use crate::segment::Segment;
use serde_json::Value;
use std::borrow::Cow;

/// A matched body, flattened in input order: a loop occurrence is an item
/// followed by its own items (the first being its start segment), so that
/// matching a set fills one reusable vector instead of a vector per loop.
#[derive(Debug, Default)]
pub struct Occ<'a> {
    /// Items in input order (loop contents follow their loop item).
    pub items: Vec<Item<'a>>,
}

/// A matched segment or loop occurrence.
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    /// Index of the node in its node list (the body, or the loop's children).
    pub node: usize,
    /// The segment (for a loop occurrence: its start segment).
    pub seg: Segment<'a>,
    /// For a loop occurrence: the index one past its last item (its items are
    /// the ones between); 0 for a segment.
    pub end: usize,
}

impl Item<'_> {
    /// True for a loop occurrence.
    #[inline]
    pub fn is_loop(&self) -> bool {
        self.end != 0
    }
}

/// A structure or element problem in a received set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Stable code.
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
    /// 0-based index of the segment concerned (for a missing segment: where it was expected).
    pub segment_index: usize,
    /// Byte offset of that segment.
    pub offset: usize,
    /// Segment id (the missing one, for a missing segment).
    pub segment_id: String,
    /// 1-based element position, for element errors.
    pub element: Option<u32>,
    /// 1-based component position inside the element.
    pub component: Option<u32>,
    /// Segment error code for AK304/IK304.
    pub segment_code: Option<&'static str>,
    /// Element error code for AK403/IK403.
    pub element_code: Option<&'static str>,
    /// The bad value (for AK404/IK404).
    pub value: Option<String>,
    /// Loop id of the segment (AK303/IK303), when inside a loop.
    pub loop_id: Option<String>,
}

struct Matcher<'s, 'a> {
    segs: &'s [Segment<'a>],
    pos: usize,
    end: (usize, usize),
    findings: &'s mut Vec<Finding>,
    all_ids: &'s dyn Fn(&str) -> bool,
    set_ids: &'s [String],
    counts: &'s mut Vec<u32>,
}

/// The segment keys ([`Node::key`]) of a node list and, for each loop among
/// them, of its children: contiguous, for matching without walking the nodes.
#[derive(Debug, Default)]
pub(crate) struct Shape {
    keys: Vec<u32>,
    /// 256-bit filter of the keys after the first ([`Shape::bit`]): most
    /// keys that are not in the list are known absent without a scan.
    tail: [u64; 4],
    /// Indices of the mandatory nodes, in order.
    mandatory: Vec<usize>,
    /// One per node (empty for a segment).
    kids: Vec<Shape>,
}

impl Shape {
    pub(crate) fn new(nodes: &[Node]) -> Shape {
        let keys: Vec<u32> = nodes.iter().map(|n| n.key).collect();
        let mut tail = [0; 4];
        for &k in keys.iter().skip(1) {
            let (w, b) = Shape::bit(k);
            tail[w] |= b;
        }
        Shape {
            tail,
            keys,
            mandatory: (0..nodes.len()).filter(|&k| nodes[k].mandatory).collect(),
            kids: nodes
                .iter()
                .map(|n| n.children.as_deref().map(Shape::new).unwrap_or_default())
                .collect(),
        }
    }

    /// Word and bit of a key in the filter.
    #[inline]
    fn bit(key: u32) -> (usize, u64) {
        let h = key.wrapping_mul(0x9E37_79B1) >> 24;
        ((h >> 6) as usize, 1 << (h & 63))
    }

    /// The first node at or after `i` with segment key `key`.
    #[inline]
    fn find(&self, i: usize, key: u32) -> Option<usize> {
        let (w, b) = Shape::bit(key);
        if self.tail[w] & b == 0 && !(i == 0 && self.keys.first() == Some(&key)) {
            return None;
        }
        self.keys[i..].iter().position(|&k| k == key).map(|p| p + i)
    }

    /// The mandatory nodes among `from..to`.
    #[inline]
    fn mandatory_in(&self, from: usize, to: usize) -> &[usize] {
        let a = self.mandatory.partition_point(|&k| k < from);
        let b = self.mandatory.partition_point(|&k| k < to);
        &self.mandatory[a..b.max(a)]
    }
}

/// Marks a missing node as reported in the matcher's counts.
const REPORTED: u32 = 1 << 31;

fn collect_ids(nodes: &[Node], out: &mut Vec<String>) {
    for n in nodes {
        if !out.contains(&n.id) {
            out.push(n.id.clone());
        }
        if let Some(c) = &n.children {
            collect_ids(c, out);
        }
    }
}

impl<'a> Matcher<'_, 'a> {
    fn finding(
        &mut self,
        code: &'static str,
        seg_code: &'static str,
        message: String,
        at: Option<&Segment<'a>>,
        id: &str,
        loop_id: Option<&str>,
    ) {
        let (segment_index, offset) = match at {
            Some(s) => (s.index(), s.offset()),
            None => self.end,
        };
        self.findings.push(Finding {
            code,
            message,
            segment_index,
            offset,
            segment_id: id.to_string(),
            element: None,
            component: None,
            segment_code: Some(seg_code),
            element_code: None,
            value: None,
            loop_id: loop_id.map(str::to_string),
        });
    }

    /// Matches segments into `occ` against `nodes`, starting at node `first`.
    #[allow(clippy::needless_range_loop)] // `k` indexes both the nodes and the counts stack
    fn run<'n>(
        &mut self,
        nodes: &'n [Node],
        first: usize,
        items: &mut Vec<Item<'a>>,
        shape: &'n Shape,
        ancestors: &mut Vec<(&'n [Node], &'n Shape, usize)>,
        loop_id: Option<&str>,
    ) {
        let mut i = first;
        // Occurrence counts of this loop's nodes, on a stack shared by all
        // levels (no allocation per loop occurrence); the top bit marks a
        // missing node already reported.
        let base = self.counts.len();
        self.counts.resize(base + nodes.len(), 0);
        if first == 1 {
            self.counts[base] = 1;
        }
        while self.pos < self.segs.len() {
            let seg = self.segs[self.pos];
            let raw_id = seg.id();
            let key = id_key(raw_id);
            // `i` never goes below `first`: with `first == 1` node 0 (the
            // loop's start) is not looked at again.
            let found = shape.find(i, key);
            match found {
                Some(j) => {
                    let id = nodes[j].id.as_str();
                    for &k in shape.mandatory_in(i, j) {
                        if self.counts[base + k] == 0 {
                            self.counts[base + k] = REPORTED;
                            let kind = if nodes[k].is_loop() {
                                "loop"
                            } else {
                                "segment"
                            };
                            self.finding(
                                "SEGMENT_MISSING",
                                "3",
                                format!(
                                    "mandatory {} {} is missing before this {id}",
                                    nodes[k].id, kind
                                ),
                                Some(&seg),
                                &nodes[k].id,
                                loop_id,
                            );
                        }
                    }
                    self.counts[base + j] = (self.counts[base + j] & !REPORTED) + 1;
                    let count = self.counts[base + j];
                    if count > nodes[j].max {
                        let lp = nodes[j].is_loop();
                        self.finding(
                            if lp {
                                "LOOP_TOO_MANY"
                            } else {
                                "SEGMENT_TOO_MANY"
                            },
                            if lp { "4" } else { "5" },
                            format!(
                                "{} {} occurs {} times; at most {} allowed here",
                                id,
                                if lp { "loop" } else { "segment" },
                                count,
                                nodes[j].max
                            ),
                            Some(&seg),
                            id,
                            loop_id,
                        );
                    }
                    self.pos += 1;
                    match &nodes[j].children {
                        Some(children) => {
                            // The loop item, then its start segment and the rest of its items.
                            let at = items.len();
                            items.push(Item {
                                node: j,
                                seg,
                                end: 0,
                            });
                            items.push(Item {
                                node: 0,
                                seg,
                                end: 0,
                            });
                            ancestors.push((nodes, shape, j));
                            self.run(
                                children,
                                1,
                                items,
                                &shape.kids[j],
                                ancestors,
                                Some(&nodes[j].id),
                            );
                            ancestors.pop();
                            items[at].end = items.len();
                        }
                        None => items.push(Item {
                            node: j,
                            seg,
                            end: 0,
                        }),
                    }
                    i = j;
                }
                None => {
                    let up = ancestors
                        .iter()
                        .any(|(_, sh, at)| sh.keys[*at..].contains(&key));
                    if up {
                        break;
                    }
                    let id = String::from_utf8_lossy(raw_id).into_owned();
                    let (code, seg_code, why) = if !self.set_ids.contains(&id) {
                        if (self.all_ids)(&id) {
                            (
                                "SEGMENT_NOT_IN_SET",
                                "6",
                                "is not defined in this transaction set",
                            )
                        } else {
                            ("SEGMENT_UNKNOWN", "1", "is not a recognized segment id")
                        }
                    } else if nodes[..i].iter().any(|n| n.id == id)
                        || ancestors
                            .iter()
                            .any(|(ns, _, at)| ns[..*at].iter().any(|n| n.id == id))
                    {
                        (
                            "SEGMENT_OUT_OF_ORDER",
                            "7",
                            "is out of order: it belongs earlier in the set",
                        )
                    } else {
                        (
                            "SEGMENT_UNEXPECTED",
                            "2",
                            "is not expected at this point (it belongs in another loop)",
                        )
                    };
                    self.finding(
                        code,
                        seg_code,
                        format!("segment {id} {why}"),
                        Some(&seg),
                        &id,
                        loop_id,
                    );
                    self.pos += 1;
                }
            }
        }
        let next = self.segs.get(self.pos).copied();
        for &k in shape.mandatory_in(i, nodes.len()) {
            if self.counts[base + k] == 0 {
                let kind = if nodes[k].is_loop() {
                    "loop"
                } else {
                    "segment"
                };
                let where_ = match loop_id {
                    Some(l) => format!("in the {l} loop"),
                    None => "in the transaction set".to_string(),
                };
                self.finding(
                    "SEGMENT_MISSING",
                    "3",
                    format!("mandatory {} {kind} is missing {where_}", nodes[k].id),
                    next.as_ref(),
                    &nodes[k].id,
                    loop_id,
                );
            }
        }
        self.counts.truncate(base);
    }
}

/// Matches a set's body; `end` is the (index, offset) of the SE (or where it should be).
pub fn match_body<'a>(
    decl: &SetDecl,
    segs: &[Segment<'a>],
    end: (usize, usize),
    known: &dyn Fn(&str) -> bool,
) -> (Occ<'a>, Vec<Finding>) {
    let mut occ = Occ::default();
    let mut findings = Vec::new();
    let built;
    let shape = match super::shape(decl) {
        Some(s) => s,
        None => {
            built = Shape::new(&decl.body);
            &built
        }
    };
    match_into(
        decl,
        shape,
        segs,
        end,
        known,
        &mut occ.items,
        &mut findings,
        &mut Vec::with_capacity(256),
        &mut Vec::new(),
    );
    (occ, findings)
}

/// [`match_body`] into caller-owned buffers (cleared first), reused from set to set.
#[allow(clippy::too_many_arguments)]
fn match_into<'a, 'n>(
    decl: &'n SetDecl,
    shape: &'n Shape,
    segs: &[Segment<'a>],
    end: (usize, usize),
    known: &dyn Fn(&str) -> bool,
    items: &mut Vec<Item<'a>>,
    findings: &mut Vec<Finding>,
    counts: &mut Vec<u32>,
    ancestors: &mut Vec<(&'n [Node], &'n Shape, usize)>,
) {
    items.clear();
    findings.clear();
    counts.clear();
    ancestors.clear();
    let set_ids = super::set_ids(decl);
    let mut m = Matcher {
        segs,
        pos: 0,
        end,
        findings,
        all_ids: known,
        set_ids,
        counts,
    };
    m.run(&decl.body, 0, items, shape, ancestors, None);
}

/// All segment ids of a declaration (for "known segment" checks).
pub fn ids(decl: &SetDecl) -> Vec<String> {
    let mut v = Vec::new();
    collect_ids(&decl.body, &mut v);
    v
}

// ---------------------------------------------------------------- elements

#[allow(clippy::too_many_arguments)]
fn el_finding(
    seg: &Segment<'_>,
    pos: u32,
    comp: Option<u32>,
    code: &'static str,
    ak4: &'static str,
    message: String,
    value: Option<String>,
    loop_id: Option<&str>,
) -> Finding {
    Finding {
        code,
        message,
        segment_index: seg.index(),
        offset: seg.offset(),
        segment_id: String::from_utf8_lossy(seg.id()).into_owned(),
        element: Some(pos),
        component: comp,
        segment_code: Some("8"),
        element_code: Some(ak4),
        value,
        loop_id: loop_id.map(str::to_string),
    }
}

#[allow(clippy::too_many_arguments)]
fn check_value(
    seg: &Segment<'_>,
    pos: u32,
    raw: &str,
    xt: XType,
    min: u16,
    max: u16,
    codes: Option<&Vec<String>>,
    loop_id: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let id = String::from_utf8_lossy(seg.id()).into_owned();
    let len = match xt {
        XType::R | XType::N(_) => value::digits(raw),
        _ => raw.chars().count(),
    };
    let name = format!("{id}{pos:02}");
    if len > max as usize {
        out.push(el_finding(
            seg,
            pos,
            None,
            "ELEMENT_TOO_LONG",
            "5",
            format!(
                "{name} \"{}\" is {len} long; at most {max} allowed",
                short(raw)
            ),
            Some(raw.into()),
            loop_id,
        ));
        return;
    }
    if len < min as usize {
        out.push(el_finding(
            seg,
            pos,
            None,
            "ELEMENT_TOO_SHORT",
            "4",
            format!("{name} \"{raw}\" is {len} long; at least {min} required"),
            Some(raw.into()),
            loop_id,
        ));
        return;
    }
    if let Some((code, m)) = value::check_x12(raw, xt) {
        let c = match code {
            "8" => "ELEMENT_INVALID_DATE",
            "9" => "ELEMENT_INVALID_TIME",
            _ => "ELEMENT_INVALID_CHARACTER",
        };
        out.push(el_finding(
            seg,
            pos,
            None,
            c,
            code,
            format!("{name}: {m}"),
            Some(raw.into()),
            loop_id,
        ));
        return;
    }
    if let Some(codes) = codes {
        if !codes.iter().any(|c| c == raw) {
            out.push(el_finding(
                seg,
                pos,
                None,
                "ELEMENT_INVALID_CODE",
                "7",
                format!(
                    "{name} \"{raw}\" is not one of the codes {}",
                    codes.join(", ")
                ),
                Some(raw.into()),
                loop_id,
            ));
        }
    }
}

fn short(s: &str) -> String {
    super::encode::preview(s)
}

/// Checks the declared elements and syntax rules of one received segment.
pub fn check_segment(
    map: &NodeMap,
    seg: &Segment<'_>,
    loop_id: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let id = String::from_utf8_lossy(seg.id()).into_owned();
    // Split once: element lookups by position are then O(1).
    let els: Vec<&[u8]> = seg.elements().map(|e| e.raw()).collect();
    let raw = |p: usize| -> &[u8] {
        p.checked_sub(1)
            .and_then(|i| els.get(i))
            .copied()
            .unwrap_or(&[])
    };
    let val = |p: usize| String::from_utf8_lossy(raw(p)).into_owned();
    for e in &map.elements {
        let pos = e.pos as usize;
        match &e.target {
            Target::Pairs(p) => {
                if e.mandatory && val(pos).is_empty() && val(pos + 1).is_empty() {
                    out.push(el_finding(
                        seg,
                        pos as u32,
                        None,
                        "ELEMENT_MISSING",
                        "1",
                        format!("mandatory element {id}{pos:02} (product id qualifier) is missing"),
                        None,
                        loop_id,
                    ));
                }
                for k in 0..p.count as usize {
                    let (q, v) = (val(pos + 2 * k), val(pos + 2 * k + 1));
                    if q.is_empty() && v.is_empty() {
                        continue;
                    }
                    if q.is_empty() || v.is_empty() {
                        let missing = if q.is_empty() {
                            pos + 2 * k
                        } else {
                            pos + 2 * k + 1
                        };
                        out.push(el_finding(
                            seg,
                            missing as u32,
                            None,
                            "ELEMENT_CONDITIONAL_MISSING",
                            "2",
                            format!(
                                "{id}{missing:02} is required with {id}{:02} (qualifier/id pair)",
                                if q.is_empty() {
                                    missing + 1
                                } else {
                                    missing - 1
                                }
                            ),
                            None,
                            loop_id,
                        ));
                        continue;
                    }
                    check_value(
                        seg,
                        (pos + 2 * k) as u32,
                        &q,
                        XType::ID,
                        p.qualifier_len.0,
                        p.qualifier_len.1,
                        None,
                        loop_id,
                        out,
                    );
                    check_value(
                        seg,
                        (pos + 2 * k + 1) as u32,
                        &v,
                        XType::AN,
                        p.id_len.0,
                        p.id_len.1,
                        None,
                        loop_id,
                        out,
                    );
                }
            }
            _ => {
                let raw = val(pos);
                if raw.is_empty() {
                    if e.mandatory {
                        out.push(el_finding(
                            seg,
                            pos as u32,
                            None,
                            "ELEMENT_MISSING",
                            "1",
                            format!(
                                "mandatory element {id}{pos:02} ({}) is missing",
                                e.doc.clone().unwrap_or_else(|| e.xtype.name())
                            ),
                            None,
                            loop_id,
                        ));
                    }
                    continue;
                }
                check_value(
                    seg,
                    pos as u32,
                    &raw,
                    e.xtype,
                    e.min,
                    e.max,
                    e.codes.as_ref(),
                    loop_id,
                    out,
                );
            }
        }
    }
    let has = |p: u8| !raw(p as usize).is_empty();
    for r in &map.rules {
        let count = r.positions.iter().filter(|&&p| has(p)).count();
        let first = r.positions[0];
        let bad: Option<(u8, &'static str, &'static str, &str)> = match r.kind {
            'P' if count > 0 && count < r.positions.len() => {
                r.positions.iter().find(|&&p| !has(p)).map(|&p| {
                    (
                        p,
                        "2",
                        "ELEMENT_CONDITIONAL_MISSING",
                        "paired elements must be given together",
                    )
                })
            }
            'R' if count == 0 => Some((
                first,
                "2",
                "ELEMENT_CONDITIONAL_MISSING",
                "at least one of the elements is required",
            )),
            'C' if has(first) => r.positions[1..].iter().find(|&&p| !has(p)).map(|&p| {
                (
                    p,
                    "2",
                    "ELEMENT_CONDITIONAL_MISSING",
                    "required when the first element of the rule is present",
                )
            }),
            'E' if count > 1 => r.positions.iter().filter(|&&p| has(p)).nth(1).map(|&p| {
                (
                    p,
                    "10",
                    "ELEMENT_EXCLUSION_VIOLATED",
                    "only one of the elements may be present",
                )
            }),
            'L' if has(first) && !r.positions[1..].iter().any(|&p| has(p)) => Some((
                r.positions[1],
                "2",
                "ELEMENT_CONDITIONAL_MISSING",
                "one of the other elements is required when the first is present",
            )),
            _ => None,
        };
        if let Some((p, ak4, code, why)) = bad {
            let digits: String = r.positions.iter().map(|x| format!("{x:02}")).collect();
            out.push(el_finding(
                seg,
                p as u32,
                None,
                code,
                ak4,
                format!("{id} syntax rule {}{digits}: {why} ({id}{p:02})", r.kind),
                None,
                loop_id,
            ));
        }
    }
}

/// Checks the elements of every matched segment that has declarations.
pub fn check_elements(
    nodes: &[Node],
    occ: &Occ<'_>,
    loop_id: Option<&str>,
    out: &mut Vec<Finding>,
) {
    check_items(nodes, &occ.items, 0, occ.items.len(), loop_id, out);
}

fn check_items(
    nodes: &[Node],
    items: &[Item<'_>],
    from: usize,
    to: usize,
    loop_id: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let mut i = from;
    while i < to {
        let it = &items[i];
        let node = &nodes[it.node];
        if it.is_loop() {
            check_items(
                node.children.as_deref().unwrap_or(&[]),
                items,
                i + 1,
                it.end,
                Some(&node.id),
                out,
            );
            i = it.end;
        } else {
            if let Some(map) = &node.map {
                check_segment(map, &it.seg, loop_id, out);
            }
            i += 1;
        }
    }
}

// ---------------------------------------------------------------- map back

/// A mapped document: keys are the declaration's names (`'static`), strings
/// borrow the input where they can; [`J::to_value`] and [`J::write_json`]
/// turn it into a `serde_json::Value` or JSON text. Object keys keep their
/// first-seen order. (The parse JSON writes documents from a reused node
/// arena instead; `map_back` converts that arena into this tree.)
#[derive(Debug, Clone, PartialEq)]
pub enum J<'a> {
    /// An object.
    Obj(Vec<(&'static str, J<'a>)>),
    /// An array.
    Arr(Vec<J<'a>>),
    /// A string.
    Str(Cow<'a, str>),
    /// A number (or another scalar).
    Val(Value),
    /// Not set yet.
    Null,
}

impl J<'_> {
    /// As a `serde_json::Value`.
    pub fn to_value(&self) -> Value {
        match self {
            J::Obj(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| ((*k).to_string(), v.to_value()))
                    .collect(),
            ),
            J::Arr(a) => Value::Array(a.iter().map(J::to_value).collect()),
            J::Str(s) => Value::String(s.to_string()),
            J::Val(v) => v.clone(),
            J::Null => Value::Null,
        }
    }

    /// Appends compact JSON text.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            J::Obj(o) => {
                out.push(b'{');
                for (n, (k, v)) in o.iter().enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    json_string(k.as_bytes(), out);
                    out.push(b':');
                    v.write_json(out);
                }
                out.push(b'}');
            }
            J::Arr(a) => {
                out.push(b'[');
                for (n, v) in a.iter().enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    v.write_json(out);
                }
                out.push(b']');
            }
            J::Str(s) => json_string(s.as_bytes(), out),
            J::Val(v) => {
                let _ = serde_json::to_writer(&mut *out, v);
            }
            J::Null => out.extend_from_slice(b"null"),
        }
    }
}

/// True for bytes a JSON string cannot hold as they are (`"`, `\`, controls).
#[inline]
fn needs_escape(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// A JSON string from UTF-8 bytes, escaped as the parse JSON is.
fn json_string(b: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    if !b.iter().fold(false, |f, &c| f | needs_escape(c)) {
        out.extend_from_slice(b);
        out.push(b'"');
        return;
    }
    crate::json::escape_into(b, out);
    out.push(b'"');
}

/// 1 for the bytes a JSON string cannot hold as they are, or that are not ASCII.
const UNCLEAN: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        if c < 0x20 || c >= 0x80 || c == b'"' as usize || c == b'\\' as usize {
            t[c] = 1;
        }
        c += 1;
    }
    t
};

/// True when text can be written in a JSON string as it is: printable
/// ASCII (so valid UTF-8) without `"` and `\`.
#[inline]
fn is_clean(b: &[u8]) -> bool {
    b.iter().fold(0, |f, &c| f | UNCLEAN[c as usize]) == 0
}

fn text(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(String::from_utf8_lossy(b).into_owned()),
    }
}

/// No node.
const NIL: u32 = u32::MAX;

/// A value of the mapped tree.
#[derive(Debug, Clone, Copy)]
enum V<'a> {
    /// Not set yet.
    Null,
    /// An object: its members are the children.
    Obj,
    /// An array: its items are the children.
    Arr,
    /// Input text that needs no escaping (see [`is_clean`]).
    Raw(&'a [u8]),
    /// Input text (valid UTF-8) that may need escaping.
    Str(&'a [u8]),
    /// String content in the tree's text buffer (start, end).
    Text(u32, u32),
    /// JSON number text in the tree's text buffer (start, end).
    Num(u32, u32),
    /// A number for serde_json to write (index in `vals`).
    Val(u32),
}

/// One node of the tree: a value with its key (for object members) and its
/// place among its parent's children.
#[derive(Debug, Clone, Copy)]
struct TNode<'a> {
    key: &'static str,
    v: V<'a>,
    first: u32,
    last: u32,
    next: u32,
    /// Union of [`key_bit`] of the children's keys: most absent keys are
    /// known absent without walking the children.
    keys: u64,
}

/// A mapped document as nodes in one vector (children as first-child /
/// next-sibling links), with strings that could not be borrowed in one text
/// buffer: mapping a set allocates nothing once the buffers have grown, and
/// the buffers are reused from set to set.
#[derive(Debug, Default)]
pub(crate) struct Tree<'a> {
    nodes: Vec<TNode<'a>>,
    text: Vec<u8>,
    vals: Vec<Value>,
    /// The elements of the segment being mapped.
    els: Vec<&'a [u8]>,
    /// Keys need no escaping (see [`keys_clean`]).
    keys_clean: bool,
}

#[inline]
fn same_key(a: &str, b: &str) -> bool {
    if std::ptr::eq(a, b) {
        return true;
    }
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.first() == b.first() && a.last() == b.last() && eq_bytes(a, b)
}

/// Byte equality, without a library call for short slices (keys, codes).
#[inline]
fn eq_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && if a.len() <= 16 {
            a.iter().zip(b).all(|(x, y)| x == y)
        } else {
            a == b
        }
}

/// One bit of a 64-bit filter for a key.
#[inline]
fn key_bit(key: &str) -> u64 {
    let b = key.as_bytes();
    let h = match b {
        [] => 0,
        [f, ..] => (b.len() as u32)
            .wrapping_mul(29)
            .wrapping_add(u32::from(*f) * 7)
            .wrapping_add(u32::from(b[b.len() - 1]) * 3)
            .wrapping_add(u32::from(b[b.len() / 2])),
    };
    1u64 << (h & 63)
}

/// True when every key a declaration can produce is a JSON string without
/// escapes (what the writer then copies as it is).
pub(crate) fn keys_clean(nodes: &[Node]) -> bool {
    let clean = |k: &String| is_clean(k.as_bytes());
    nodes.iter().all(|n| {
        n.map.as_ref().is_none_or(|m| {
            m.binds.iter().all(|b| b.path.iter().all(clean))
                && m.hier.iter().all(|h| h.path.iter().all(clean))
                && m.elements.iter().all(|e| match &e.target {
                    Target::Field(p) => p.iter().all(clean),
                    Target::Pairs(p) => {
                        p.array.iter().all(clean) && p.promote.iter().all(|(_, f)| clean(f))
                    }
                    _ => true,
                })
        }) && n.children.as_deref().is_none_or(keys_clean)
    })
}

#[inline]
fn idx(n: u32) -> usize {
    n as usize
}

impl<'a> Tree<'a> {
    fn clear(&mut self) {
        self.nodes.clear();
        self.text.clear();
        self.vals.clear();
    }

    #[inline]
    fn add(&mut self, key: &'static str, v: V<'a>) -> u32 {
        let n = self.nodes.len() as u32;
        self.nodes.push(TNode {
            key,
            v,
            first: NIL,
            last: NIL,
            next: NIL,
            keys: 0,
        });
        n
    }

    /// Sets a node's value, dropping its children.
    #[inline]
    fn make(&mut self, n: u32, v: V<'a>) {
        let x = &mut self.nodes[idx(n)];
        x.v = v;
        x.first = NIL;
        x.last = NIL;
        x.keys = 0;
    }

    #[inline]
    fn append(&mut self, parent: u32, c: u32) {
        self.append_bit(parent, c, key_bit(self.nodes[idx(c)].key));
    }

    /// [`Tree::append`] with the child key's [`key_bit`].
    #[inline]
    fn append_bit(&mut self, parent: u32, c: u32, bit: u64) {
        let p = &mut self.nodes[idx(parent)];
        p.keys |= bit;
        let last = p.last;
        p.last = c;
        if last == NIL {
            p.first = c;
        } else {
            self.nodes[idx(last)].next = c;
        }
    }

    fn prepend(&mut self, parent: u32, c: u32) {
        let first = self.nodes[idx(parent)].first;
        let bit = key_bit(self.nodes[idx(c)].key);
        self.nodes[idx(c)].next = first;
        let p = &mut self.nodes[idx(parent)];
        p.keys |= bit;
        p.first = c;
        if p.last == NIL {
            p.last = c;
        }
    }

    /// Makes `n` an object unless it is one.
    #[inline]
    fn obj(&mut self, n: u32) {
        if !matches!(self.nodes[idx(n)].v, V::Obj) {
            self.make(n, V::Obj);
        }
    }

    /// Makes `n` an array unless it is one.
    #[inline]
    fn arr(&mut self, n: u32) {
        if !matches!(self.nodes[idx(n)].v, V::Arr) {
            self.make(n, V::Arr);
        }
    }

    #[inline]
    fn find(&self, obj: u32, key: &str) -> Option<u32> {
        self.find_bit(obj, key, key_bit(key))
    }

    /// [`Tree::find`] with the key's [`key_bit`].
    #[inline(always)]
    fn find_bit(&self, obj: u32, key: &str, bit: u64) -> Option<u32> {
        let o = &self.nodes[idx(obj)];
        if o.keys & bit == 0 {
            return None;
        }
        self.scan(o, key)
    }

    /// The member `key` of object `o`, walking its members.
    fn scan(&self, o: &TNode<'a>, key: &str) -> Option<u32> {
        // The member looked up again is most often the last one added.
        if o.last != NIL && same_key(self.nodes[idx(o.last)].key, key) {
            return Some(o.last);
        }
        let mut c = o.first;
        while c != NIL {
            let x = &self.nodes[idx(c)];
            if same_key(x.key, key) {
                return Some(c);
            }
            c = x.next;
        }
        None
    }

    /// The member `key` of object `obj`, added (null) when absent.
    #[inline]
    fn slot(&mut self, obj: u32, key: &'static str) -> u32 {
        let bit = key_bit(key);
        match self.find_bit(obj, key, bit) {
            Some(c) => c,
            None => {
                let c = self.add(key, V::Null);
                self.append_bit(obj, c, bit);
                c
            }
        }
    }

    fn entry(&mut self, obj: u32, path: &'static [String]) -> u32 {
        let mut cur = self.slot(obj, path[0].as_str());
        for p in &path[1..] {
            self.obj(cur);
            cur = self.slot(cur, p.as_str());
        }
        cur
    }

    /// Sets the field at `path` unless it is set.
    #[inline]
    fn set(&mut self, obj: u32, path: &'static [String], v: V<'a>) {
        let (parent, key) = match path {
            [key] => (obj, key.as_str()),
            [init @ .., key] => {
                let p = self.entry(obj, init);
                self.obj(p);
                (p, key.as_str())
            }
            [] => (obj, path[0].as_str()),
        };
        let bit = key_bit(key);
        match self.find_bit(parent, key, bit) {
            Some(s) => {
                if matches!(self.nodes[idx(s)].v, V::Null) {
                    self.nodes[idx(s)].v = v;
                }
            }
            None => {
                let c = self.add(key, v);
                self.append_bit(parent, c, bit);
            }
        }
    }

    fn is_free(&self, obj: u32, path: &[String]) -> bool {
        let mut cur = self.find(obj, &path[0]);
        for p in &path[1..] {
            cur = match cur {
                Some(c) if matches!(self.nodes[idx(c)].v, V::Obj) => self.find(c, p),
                _ => None,
            };
        }
        cur.is_none_or(|c| matches!(self.nodes[idx(c)].v, V::Null))
    }

    /// Appends `s` to the text buffer as a string value.
    fn owned(&mut self, s: &str) -> V<'a> {
        let start = self.text.len() as u32;
        self.text.extend_from_slice(s.as_bytes());
        V::Text(start, self.text.len() as u32)
    }

    /// A string value of element text.
    #[inline(always)]
    fn string(&mut self, b: &'a [u8]) -> V<'a> {
        if is_clean(b) {
            V::Raw(b)
        } else {
            self.string_slow(b)
        }
    }

    /// [`Tree::string`] of text that needs escaping or is not ASCII.
    fn string_slow(&mut self, b: &'a [u8]) -> V<'a> {
        if std::str::from_utf8(b).is_ok() {
            V::Str(b)
        } else {
            self.owned(&String::from_utf8_lossy(b))
        }
    }

    /// The value of element text for a field of type `pt`/`xt`.
    fn scalar(&mut self, b: &'a [u8], pt: PType, xt: XType) -> V<'a> {
        if pt == PType::Str {
            return self.string(b);
        }
        let start = self.text.len() as u32;
        // Text that is not UTF-8 is never a number, date or time (its
        // replacement characters are not digits): it stays a string.
        match value::from_x12_into(b, pt, xt, &mut self.text) {
            value::Read::Same => self.string(b),
            value::Read::Text => V::Text(start, self.text.len() as u32),
            value::Read::Number => V::Num(start, self.text.len() as u32),
            value::Read::Other(v) => {
                self.vals.push(v);
                V::Val(self.vals.len() as u32 - 1)
            }
        }
    }

    /// Maps matched items `from..to` (one occurrence's) into object `obj`.
    #[allow(clippy::too_many_arguments)]
    fn decode(
        &mut self,
        nodes: &'static [Node],
        items: &[Item<'a>],
        from: usize,
        to: usize,
        obj: u32,
        level: Option<&str>,
        fixed: Option<u8>,
    ) {
        let mut hier_done: Option<usize> = None;
        let mut i = from;
        while i < to {
            let at = i;
            let it = &items[at];
            i = if it.is_loop() { it.end } else { at + 1 };
            let j = it.node;
            let node = &nodes[j];
            let Some(map) = &node.map else { continue };
            if !map.hier.is_empty() {
                if hier_done != Some(j) {
                    hier_done = Some(j);
                    self.decode_hier(node, map, items, from, to, j, obj);
                }
                continue;
            }
            if !map.levels.is_empty() && !level.is_some_and(|l| map.levels.iter().any(|x| x == l)) {
                continue;
            }
            let seg = &it.seg;
            let (target, fixed_pos) = if map.binds.is_empty() {
                // A fixed element belongs to the loop's start segment only.
                (obj, if j == 0 { fixed } else { None })
            } else {
                let chosen = map.binds.iter().find(|b| {
                    let cond = b
                        .when
                        .as_ref()
                        .is_none_or(|(p, v)| seg.value(*p as usize) == v.as_bytes());
                    cond && (b.array || self.is_free(obj, &b.path))
                });
                let Some(b) = chosen else { continue };
                let s = self.entry(obj, &b.path);
                let fp = b.when.as_ref().map(|w| w.0);
                if b.array {
                    self.arr(s);
                    let e = self.add("", V::Obj);
                    self.append(s, e);
                    (e, fp)
                } else {
                    self.make(s, V::Obj);
                    (s, fp)
                }
            };
            if it.is_loop() {
                self.decode(
                    node.children.as_deref().unwrap_or(&[]),
                    items,
                    at + 1,
                    it.end,
                    target,
                    level,
                    fixed_pos,
                );
            } else {
                self.decode_segment(map, seg, target, fixed_pos);
            }
        }
    }

    /// Maps one segment's declared elements into object `obj`.
    fn decode_segment(
        &mut self,
        map: &'static NodeMap,
        seg: &Segment<'a>,
        obj: u32,
        fixed: Option<u8>,
    ) {
        // Split once, up to the last declared position: lookups are then O(1).
        let last = map.elements.last().map_or(0, |e| match &e.target {
            Target::Pairs(p) => e.pos as usize + 2 * p.count as usize - 1,
            _ => e.pos as usize,
        });
        let mut buf = std::mem::take(&mut self.els);
        seg.split_elements(&mut buf, last);
        let n = buf.len();
        let els = &buf[..];
        let raw = |p: usize| -> &'a [u8] { if p >= 1 && p <= n { els[p - 1] } else { &[] } };
        for e in &map.elements {
            match &e.target {
                Target::Field(path) => {
                    if Some(e.pos) == fixed {
                        continue;
                    }
                    let bytes = raw(e.pos as usize);
                    if bytes.is_empty() {
                        continue;
                    }
                    let v = self.scalar(bytes, e.ptype, e.xtype);
                    self.set(obj, path, v);
                }
                Target::Pairs(p) => {
                    let pos = e.pos as usize;
                    for k in 0..p.count as usize {
                        if pos + 2 * k > n {
                            // This pair and the ones after it are absent.
                            break;
                        }
                        let (q, id) = (raw(pos + 2 * k), raw(pos + 2 * k + 1));
                        if q.is_empty() && id.is_empty() {
                            continue;
                        }
                        // The first promoted field of this qualifier that is still free.
                        let mut promoted = false;
                        for (pq, f) in &p.promote {
                            if !eq_bytes(pq.as_bytes(), q) {
                                continue;
                            }
                            let at = self.find(obj, f);
                            if at.is_some_and(|c| !matches!(self.nodes[idx(c)].v, V::Null)) {
                                continue;
                            }
                            let v = self.string(id);
                            let s = match at {
                                Some(c) => c,
                                None => {
                                    let c = self.add(f.as_str(), V::Null);
                                    self.append(obj, c);
                                    c
                                }
                            };
                            self.make(s, v);
                            promoted = true;
                            break;
                        }
                        if promoted {
                            continue;
                        }
                        let item = self.add("", V::Obj);
                        let v = self.string(q);
                        let c = self.add("qualifier", v);
                        self.append(item, c);
                        let v = self.string(id);
                        let c = self.add("id", v);
                        self.append(item, c);
                        let a = self.entry(obj, &p.array);
                        self.arr(a);
                        self.append(a, item);
                    }
                }
                _ => {}
            }
        }
        self.els = buf;
    }

    /// Maps the occurrences of HL loop node `j` among items `from..to` into
    /// their hierarchy under `root`.
    #[allow(clippy::too_many_arguments)]
    fn decode_hier(
        &mut self,
        node: &'static Node,
        map: &'static NodeMap,
        items: &[Item<'a>],
        from: usize,
        to: usize,
        j: usize,
        root: u32,
    ) {
        struct Entry<'a> {
            id: &'a [u8],
            level: usize,
            obj: u32,
            container: Option<usize>,
        }
        let children = node.children.as_deref().unwrap_or(&[]);
        let mut entries: Vec<Entry<'a>> = Vec::new();
        let mut i = from;
        while i < to {
            let at = i;
            let it = &items[at];
            i = if it.is_loop() { it.end } else { at + 1 };
            if it.node != j || !it.is_loop() {
                continue;
            }
            let hl = it.seg;
            let code = hl.value(3);
            let Some(li) = map.hier.iter().position(|l| l.code.as_bytes() == code) else {
                continue;
            };
            let obj = self.add("", V::Obj);
            self.decode(
                children,
                items,
                at + 1,
                it.end,
                obj,
                Some(&map.hier[li].code),
                None,
            );
            let parent_id = hl.value(2);
            let lvl = &map.hier[li];
            // The container: the parent entry (or the parent's container when the parent is flat).
            let mut container = None;
            if !parent_id.is_empty() && !lvl.under.is_empty() {
                if let Some(p) = entries.iter().rposition(|e| e.id == parent_id) {
                    container = if map.hier[entries[p].level].flat {
                        entries[p].container
                    } else {
                        Some(p)
                    };
                }
            }
            entries.push(Entry {
                id: hl.value(1),
                level: li,
                obj,
                container,
            });
        }
        // Place children before parents are placed: walk backwards, inserting at the front.
        while let Some(e) = entries.pop() {
            let lvl = &map.hier[e.level];
            let target = match e.container {
                Some(p) => entries[p].obj,
                None => root,
            };
            let s = self.entry(target, &lvl.path);
            if lvl.array {
                self.arr(s);
                self.prepend(s, e.obj);
            } else if matches!(self.nodes[idx(s)].v, V::Null) {
                let from = self.nodes[idx(e.obj)];
                let x = &mut self.nodes[idx(s)];
                x.v = V::Obj;
                x.first = from.first;
                x.last = from.last;
                x.keys = from.keys;
            }
        }
    }

    /// Appends node `n` as compact JSON.
    pub(crate) fn write(&self, n: u32, out: &mut Vec<u8>) {
        let x = &self.nodes[idx(n)];
        match x.v {
            V::Obj => {
                out.push(b'{');
                let mut c = x.first;
                while c != NIL {
                    let y = &self.nodes[idx(c)];
                    if self.keys_clean {
                        out.reserve(y.key.len() + 3);
                        out.push(b'"');
                        out.extend_from_slice(y.key.as_bytes());
                        out.extend_from_slice(b"\":");
                    } else {
                        json_string(y.key.as_bytes(), out);
                        out.push(b':');
                    }
                    self.member(c, y.v, out);
                    c = y.next;
                    if c != NIL {
                        out.push(b',');
                    }
                }
                out.push(b'}');
            }
            V::Arr => {
                out.push(b'[');
                let mut c = x.first;
                while c != NIL {
                    let y = &self.nodes[idx(c)];
                    self.member(c, y.v, out);
                    c = y.next;
                    if c != NIL {
                        out.push(b',');
                    }
                }
                out.push(b']');
            }
            v => self.write_scalar(v, out),
        }
    }

    /// Child `c` (value `v`): containers recursively, scalars in place.
    #[inline(always)]
    fn member(&self, c: u32, v: V<'a>, out: &mut Vec<u8>) {
        match v {
            V::Obj | V::Arr => self.write(c, out),
            V::Raw(b) => {
                out.reserve(b.len() + 2);
                out.push(b'"');
                out.extend_from_slice(b);
                out.push(b'"');
            }
            V::Num(a, z) => out.extend_from_slice(&self.text[idx(a)..idx(z)]),
            v => self.write_scalar(v, out),
        }
    }

    #[inline]
    fn write_scalar(&self, v: V<'a>, out: &mut Vec<u8>) {
        match v {
            V::Raw(b) => {
                out.reserve(b.len() + 2);
                out.push(b'"');
                out.extend_from_slice(b);
                out.push(b'"');
            }
            V::Str(b) => json_string(b, out),
            V::Text(a, z) => json_string(&self.text[idx(a)..idx(z)], out),
            V::Num(a, z) => out.extend_from_slice(&self.text[idx(a)..idx(z)]),
            V::Val(i) => {
                let _ = serde_json::to_writer(&mut *out, &self.vals[idx(i)]);
            }
            V::Null => out.extend_from_slice(b"null"),
            // Containers are written by `write`.
            V::Obj | V::Arr => {}
        }
    }

    /// Node `n` as a [`J`] tree.
    pub(crate) fn to_j(&self, n: u32) -> J<'a> {
        let x = &self.nodes[idx(n)];
        let children = || {
            std::iter::successors((x.first != NIL).then_some(x.first), |&c| {
                let next = self.nodes[idx(c)].next;
                (next != NIL).then_some(next)
            })
        };
        match x.v {
            V::Obj => J::Obj(
                children()
                    .map(|c| (self.nodes[idx(c)].key, self.to_j(c)))
                    .collect(),
            ),
            V::Arr => J::Arr(children().map(|c| self.to_j(c)).collect()),
            V::Raw(b) | V::Str(b) => J::Str(text(b)),
            V::Text(a, z) => J::Str(Cow::Owned(
                String::from_utf8_lossy(&self.text[idx(a)..idx(z)]).into_owned(),
            )),
            V::Num(a, z) => J::Val(
                std::str::from_utf8(&self.text[idx(a)..idx(z)])
                    .ok()
                    .and_then(value::number)
                    .unwrap_or(Value::Null),
            ),
            V::Val(i) => J::Val(self.vals[idx(i)].clone()),
            V::Null => J::Null,
        }
    }
}

/// The buffers of document mapping, kept from one set to the next (the
/// parse JSON writer holds one for all the sets it writes).
#[derive(Debug, Default)]
pub(crate) struct Mapping<'a> {
    segs: Vec<Segment<'a>>,
    items: Vec<Item<'a>>,
    findings: Vec<Finding>,
    counts: Vec<u32>,
    ancestors: Vec<(&'static [Node], &'static Shape, usize)>,
    /// The mapped document of the last set.
    pub(crate) tree: Tree<'a>,
}

impl<'a> Mapping<'a> {
    /// Starts collecting the body of the next set.
    #[inline]
    pub(crate) fn clear_body(&mut self) {
        self.segs.clear();
    }

    /// Adds a segment to the body collected for the next set.
    #[inline]
    pub(crate) fn push_body(&mut self, seg: Segment<'a>) {
        self.segs.push(seg);
    }

    /// Matches and maps the set whose body was collected (`end`: where its
    /// SE is; `keys_clean`: what [`keys_clean`] says of the declaration);
    /// returns the root object in [`Mapping::tree`].
    pub(crate) fn map(
        &mut self,
        decl: &'static SetDecl,
        keys_clean: bool,
        end: (usize, usize),
        known: &dyn Fn(&str) -> bool,
    ) -> u32 {
        match super::shape(decl) {
            Some(shape) => match_into(
                decl,
                shape,
                &self.segs,
                end,
                known,
                &mut self.items,
                &mut self.findings,
                &mut self.counts,
                &mut self.ancestors,
            ),
            None => match_into(
                decl,
                &Shape::new(&decl.body),
                &self.segs,
                end,
                known,
                &mut self.items,
                &mut self.findings,
                &mut self.counts,
                &mut Vec::new(),
            ),
        }
        self.tree.clear();
        self.tree.keys_clean = keys_clean;
        let root = self.tree.add("", V::Obj);
        self.tree.decode(
            &decl.body,
            &self.items,
            0,
            self.items.len(),
            root,
            None,
            None,
        );
        root
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_text_needs_no_escaping() {
        for c in 0..=255u8 {
            let mut out = Vec::new();
            json_string(&[c], &mut out);
            let plain = out == [b'"', c, b'"'];
            assert_eq!(is_clean(&[c]), plain && c < 0x80, "{c:#x}");
        }
        assert!(is_clean(b"ACME DC 4367, SUITE #2 {x}"));
        assert!(!is_clean(b"caf\xC3\xA9"));
    }
}
