//! Matching received segments against a declaration's segment tree (order,
//! loops, repeats, mandatory segments), checking their elements, and mapping
//! the matched tree back to payload JSON.

use super::model::*;
use super::value;
use crate::segment::Segment;
use serde_json::Value;
use std::borrow::Cow;

/// A matched loop occurrence (or the whole body): (node index, item) pairs.
#[derive(Debug, Default)]
pub struct Occ<'a> {
    /// Items in input order.
    pub items: Vec<(usize, Item<'a>)>,
}

/// A matched segment or nested loop occurrence.
#[derive(Debug)]
pub enum Item<'a> {
    /// A segment.
    Seg(Segment<'a>),
    /// A loop occurrence (its first item is the start segment).
    Loop(Occ<'a>),
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
    findings: Vec<Finding>,
    all_ids: &'s dyn Fn(&str) -> bool,
    set_ids: &'s [String],
    counts: Vec<u32>,
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
        occ: &mut Occ<'a>,
        ancestors: &mut Vec<(&'n [Node], usize)>,
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
            let found = (i..nodes.len()).find(|&j| nodes[j].key == key && !(j == 0 && first == 1));
            match found {
                Some(j) => {
                    let id = nodes[j].id.as_str();
                    for k in i..j {
                        if nodes[k].mandatory && self.counts[base + k] == 0 {
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
                            let mut sub = Occ {
                                items: vec![(0, Item::Seg(seg))],
                            };
                            ancestors.push((nodes, j));
                            self.run(children, 1, &mut sub, ancestors, Some(&nodes[j].id));
                            ancestors.pop();
                            occ.items.push((j, Item::Loop(sub)));
                        }
                        None => occ.items.push((j, Item::Seg(seg))),
                    }
                    i = j;
                }
                None => {
                    let up = ancestors
                        .iter()
                        .any(|(ns, at)| ns[*at..].iter().any(|n| n.key == key));
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
                            .any(|(ns, at)| ns[..*at].iter().any(|n| n.id == id))
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
        for k in i..nodes.len() {
            if nodes[k].mandatory && self.counts[base + k] == 0 {
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
    let set_ids = super::set_ids(decl);
    let mut m = Matcher {
        segs,
        pos: 0,
        end,
        findings: Vec::new(),
        all_ids: known,
        set_ids,
        counts: Vec::with_capacity(256),
    };
    let mut occ = Occ::default();
    m.run(&decl.body, 0, &mut occ, &mut Vec::new(), None);
    (occ, m.findings)
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
    for (j, item) in &occ.items {
        let node = &nodes[*j];
        match item {
            Item::Seg(s) => {
                if let Some(map) = &node.map {
                    check_segment(map, s, loop_id, out);
                }
            }
            Item::Loop(o) => check_elements(
                node.children.as_deref().unwrap_or(&[]),
                o,
                Some(&node.id),
                out,
            ),
        }
    }
}

// ---------------------------------------------------------------- map back

/// A mapped document under construction: keys are the declaration's names
/// (`'static`), strings borrow the input where they can, so mapping a set
/// allocates little; [`J::to_value`] and [`J::write_json`] turn it into a
/// `serde_json::Value` or JSON text. Object keys keep their first-seen order.
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
                    json_string(k, out);
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
            J::Str(s) => json_string(s, out),
            J::Val(v) => {
                let _ = serde_json::to_writer(&mut *out, v);
            }
            J::Null => out.extend_from_slice(b"null"),
        }
    }

    fn obj(&mut self) -> &mut Vec<(&'static str, Self)> {
        if !matches!(self, J::Obj(_)) {
            *self = J::Obj(Vec::new());
        }
        match self {
            J::Obj(o) => o,
            _ => unreachable!("just made an object"),
        }
    }

    fn arr(&mut self) -> &mut Vec<Self> {
        if !matches!(self, J::Arr(_)) {
            *self = J::Arr(Vec::new());
        }
        match self {
            J::Arr(a) => a,
            _ => unreachable!("just made an array"),
        }
    }
}

fn json_string(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let b = s.as_bytes();
    if !b.iter().any(|&c| c < 0x20 || c == b'"' || c == b'\\') {
        out.extend_from_slice(b);
        out.push(b'"');
        return;
    }
    let mut run = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1F => b"",
            _ => continue,
        };
        out.extend_from_slice(&b[run..i]);
        if esc.is_empty() {
            out.extend_from_slice(format!("\\u{:04x}", c).as_bytes());
        } else {
            out.extend_from_slice(esc);
        }
        run = i + 1;
    }
    out.extend_from_slice(&b[run..]);
    out.push(b'"');
}

type Obj<'a> = Vec<(&'static str, J<'a>)>;

fn slot<'m, 'a>(obj: &'m mut Obj<'a>, key: &'static str) -> &'m mut J<'a> {
    let i = match obj.iter().position(|(k, _)| *k == key) {
        Some(i) => i,
        None => {
            obj.push((key, J::Null));
            obj.len() - 1
        }
    };
    &mut obj[i].1
}

fn entry<'m, 'a>(obj: &'m mut Obj<'a>, path: &'static [String]) -> &'m mut J<'a> {
    let mut cur = slot(obj, path[0].as_str());
    for p in &path[1..] {
        cur = slot(cur.obj(), p.as_str());
    }
    cur
}

fn set<'a>(obj: &mut Obj<'a>, path: &'static [String], v: J<'a>) {
    let s = entry(obj, path);
    if matches!(s, J::Null) {
        *s = v;
    }
}

fn is_free(obj: &Obj<'_>, path: &[String]) -> bool {
    let mut cur: Option<&J<'_>> = obj.iter().find(|(k, _)| *k == path[0]).map(|(_, v)| v);
    for p in &path[1..] {
        cur = match cur {
            Some(J::Obj(o)) => o.iter().find(|(k, _)| *k == p.as_str()).map(|(_, v)| v),
            _ => None,
        };
    }
    matches!(cur, None | Some(J::Null))
}

fn start<'o, 'a>(item: &'o Item<'a>) -> &'o Segment<'a> {
    match item {
        Item::Seg(s) => s,
        Item::Loop(o) => match &o.items[0].1 {
            Item::Seg(s) => s,
            Item::Loop(_) => unreachable!("a loop starts with a segment"),
        },
    }
}

/// Maps a matched tree into `obj`.
pub fn decode<'a>(
    nodes: &'static [Node],
    occ: &Occ<'a>,
    obj: &mut Obj<'a>,
    level: Option<&str>,
    fixed: Option<u8>,
) {
    let mut hier_done: Option<usize> = None;
    for (j, item) in &occ.items {
        let node = &nodes[*j];
        let Some(map) = &node.map else { continue };
        if !map.hier.is_empty() {
            if hier_done != Some(*j) {
                hier_done = Some(*j);
                let all: Vec<&Occ<'a>> = occ
                    .items
                    .iter()
                    .filter(|(k, _)| k == j)
                    .filter_map(|(_, it)| match it {
                        Item::Loop(o) => Some(o),
                        Item::Seg(_) => None,
                    })
                    .collect();
                decode_hier(node, map, &all, obj);
            }
            continue;
        }
        if !map.levels.is_empty() && !level.is_some_and(|l| map.levels.iter().any(|x| x == l)) {
            continue;
        }
        let seg = start(item);
        let (target, fixed_pos): (&mut Obj<'a>, Option<u8>) = if map.binds.is_empty() {
            // A fixed element belongs to the loop's start segment only.
            (&mut *obj, if *j == 0 { fixed } else { None })
        } else {
            let chosen = map.binds.iter().find(|b| {
                let cond = b
                    .when
                    .as_ref()
                    .is_none_or(|(p, v)| seg.value(*p as usize) == v.as_bytes());
                cond && (b.array || is_free(obj, &b.path))
            });
            let Some(b) = chosen else { continue };
            let s = entry(obj, &b.path);
            let fp = b.when.as_ref().map(|w| w.0);
            if b.array {
                let arr = s.arr();
                arr.push(J::Obj(Vec::new()));
                (arr.last_mut().expect("pushed").obj(), fp)
            } else {
                *s = J::Obj(Vec::new());
                (s.obj(), fp)
            }
        };
        match item {
            Item::Seg(s) => decode_segment(map, s, target, fixed_pos),
            Item::Loop(o) => decode(
                node.children.as_deref().unwrap_or(&[]),
                o,
                target,
                level,
                fixed_pos,
            ),
        }
    }
}

fn text(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(String::from_utf8_lossy(b).into_owned()),
    }
}

/// Maps one segment's declared elements into `obj`.
pub fn decode_segment<'a>(
    map: &'static NodeMap,
    seg: &Segment<'a>,
    obj: &mut Obj<'a>,
    fixed: Option<u8>,
) {
    // Split once, up to the last declared position: lookups are then O(1).
    let last = map.elements.last().map_or(0, |e| match &e.target {
        Target::Pairs(p) => e.pos as usize + 2 * p.count as usize - 1,
        _ => e.pos as usize,
    });
    let mut els: [&'a [u8]; 32] = [&[]; 32];
    let mut n = 0;
    for e in seg.elements() {
        if n == els.len() || n == last {
            break;
        }
        els[n] = e.raw();
        n += 1;
    }
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
                let t = text(bytes);
                let v = match e.ptype {
                    PType::Str => J::Str(t),
                    _ => match value::from_x12(&t, e.ptype, e.xtype) {
                        Some(Value::String(s)) => J::Str(Cow::Owned(s)),
                        Some(v) => J::Val(v),
                        None => J::Str(t),
                    },
                };
                set(obj, path, v);
            }
            Target::Pairs(p) => {
                let pos = e.pos as usize;
                for k in 0..p.count as usize {
                    let (q, id) = (raw(pos + 2 * k), raw(pos + 2 * k + 1));
                    if q.is_empty() && id.is_empty() {
                        continue;
                    }
                    if let Some((_, f)) = p
                        .promote
                        .iter()
                        .find(|(pq, f)| pq.as_bytes() == q && is_free(obj, std::slice::from_ref(f)))
                    {
                        *slot(obj, f.as_str()) = J::Str(text(id));
                        continue;
                    }
                    let item = J::Obj(vec![
                        ("qualifier", J::Str(text(q))),
                        ("id", J::Str(text(id))),
                    ]);
                    entry(obj, &p.array).arr().push(item);
                }
            }
            _ => {}
        }
    }
}

fn decode_hier<'a>(
    node: &'static Node,
    map: &'static NodeMap,
    occs: &[&Occ<'a>],
    root: &mut Obj<'a>,
) {
    struct Entry<'a> {
        id: &'a [u8],
        level: usize,
        obj: Obj<'a>,
        container: Option<usize>,
    }
    let children = node.children.as_deref().unwrap_or(&[]);
    let mut entries: Vec<Entry<'a>> = Vec::new();
    for o in occs {
        let hl = *start(&o.items[0].1);
        let code = hl.value(3);
        let Some(li) = map.hier.iter().position(|l| l.code.as_bytes() == code) else {
            continue;
        };
        let mut obj = Vec::new();
        decode(children, o, &mut obj, Some(&map.hier[li].code), None);
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
    // Place children before parents are moved: walk backwards, inserting at the front.
    while let Some(e) = entries.pop() {
        let lvl = &map.hier[e.level];
        let target: &mut Obj<'a> = match e.container {
            Some(p) => &mut entries[p].obj,
            None => &mut *root,
        };
        let s = entry(target, &lvl.path);
        if lvl.array {
            s.arr().insert(0, J::Obj(e.obj));
        } else if matches!(s, J::Null) {
            *s = J::Obj(e.obj);
        }
    }
}
