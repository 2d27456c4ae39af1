//! Matching a received set's body against its declaration's segment tree:
//! segment order, loop starts and repeats, maximum uses, and mandatory
//! segments and loops. The result is the flattened occurrence list
//! ([`Occ`]) that the element checks ([`super::elements`]) and the map-back
//! ([`super::decode`]) walk, and the segment-level [`Finding`]s (AK304/IK304
//! codes 1–7).

use super::finding::Finding;
use super::model::*;
use x12kit_syntax::diagnostics::Code;
use x12kit_syntax::segment::Segment;

/// A matched body, flattened in input order: a loop occurrence is an item
/// followed by its own items (the first being its start segment), so that
/// matching a set fills one reusable vector instead of a vector per loop.
#[derive(Debug, Default)]
pub struct Occ {
    /// Items in input order (loop contents follow their loop item).
    pub items: Vec<Item>,
}

/// A matched segment or loop occurrence.
#[derive(Debug, Clone, Copy)]
pub struct Item {
    /// Index of the node in its node list (the body, or the loop's children).
    pub node: usize,
    /// Where the segment is in the matched segments (for a loop occurrence:
    /// its start segment); see [`Matched::seg`].
    pub at: usize,
    /// For a loop occurrence: the index one past its last item (its items are
    /// the ones between); 0 for a segment.
    pub end: usize,
    /// True when every byte of the segment's elements is printable ASCII
    /// other than `"` and `\` (a JSON string as it is), as the parse JSON
    /// writer found while writing it; false when unknown.
    pub clean: bool,
}

/// [`Item::node`] of a received segment that matched no node where it
/// is (unknown, unexpected or out of order): kept in the occurrence list so
/// that the map-back lists it under `unmapped` instead of dropping it.
pub const STRAY: usize = usize::MAX;

/// Matched items with the segments they index (what the map-back walks).
#[derive(Debug, Clone, Copy)]
pub struct Matched<'s, 'a> {
    /// The items.
    pub items: &'s [Item],
    /// The segments matched.
    pub segs: &'s [Segment<'a>],
}

impl<'a> Matched<'_, 'a> {
    /// The segment of an item.
    #[inline]
    pub fn seg(&self, it: &Item) -> &Segment<'a> {
        &self.segs[it.at]
    }
}

impl Item {
    /// True for a segment that matched no node ([`STRAY`]).
    #[inline]
    pub fn is_stray(&self) -> bool {
        self.node == STRAY
    }

    /// True for a loop occurrence.
    #[inline]
    pub fn is_loop(&self) -> bool {
        self.end != 0
    }
}

struct Matcher<'s, 'a> {
    segs: &'s [Segment<'a>],
    pos: usize,
    end: (usize, usize),
    findings: &'s mut Vec<Finding>,
    all_ids: &'s dyn Fn(&str) -> bool,
    set_ids: &'s [String],
    counts: &'s mut Vec<u32>,
    /// [`Item::clean`] of each of `segs` (empty: unknown).
    clean: &'s [bool],
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
    /// For each node index `k` (and the length): how many mandatory nodes
    /// come before `k`, i.e. where `mandatory` reaches `k`.
    mandatory_before: Vec<u32>,
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
        let mandatory: Vec<usize> = (0..nodes.len()).filter(|&k| nodes[k].mandatory).collect();
        let mandatory_before = (0..=nodes.len())
            .map(|k| mandatory.partition_point(|&m| m < k) as u32)
            .collect();
        Shape {
            tail,
            keys,
            mandatory,
            mandatory_before,
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
        position(&self.keys[i..], key).map(|p| p + i)
    }

    /// The mandatory nodes among `from..to` (`from`, `to` at most the
    /// number of nodes).
    #[inline]
    fn mandatory_in(&self, from: usize, to: usize) -> &[usize] {
        let a = self.mandatory_before[from] as usize;
        let b = self.mandatory_before[to] as usize;
        &self.mandatory[a..b.max(a)]
    }
}

/// Where `key` first is in `keys`: four keys compared at a time into a
/// bit mask, without a branch per key (the compiler turns the four
/// compares into one vector compare where it can).
#[inline]
fn position(keys: &[u32], key: u32) -> Option<usize> {
    let mut blocks = keys.chunks_exact(4);
    let mut at = 0;
    for block in &mut blocks {
        let hit = u32::from(block[0] == key)
            | u32::from(block[1] == key) << 1
            | u32::from(block[2] == key) << 2
            | u32::from(block[3] == key) << 3;
        if hit != 0 {
            return Some(at + hit.trailing_zeros() as usize);
        }
        at += 4;
    }
    blocks
        .remainder()
        .iter()
        .position(|&k| k == key)
        .map(|p| p + at)
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
        code: Code,
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
            severity: x12kit_syntax::diagnostics::Severity::Error,
            guide: None,
        });
    }

    /// Matches segments into `occ` against `nodes`, starting at node `first`.
    #[allow(clippy::needless_range_loop)] // `k` indexes both the nodes and the counts stack
    fn run<'n>(
        &mut self,
        nodes: &'n [Node],
        first: usize,
        items: &mut Vec<Item>,
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
            let at = self.pos;
            let seg = &self.segs[at];
            let clean = self.clean.get(self.pos).copied().unwrap_or(false);
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
                                Code::SegmentMissing,
                                "3",
                                format!(
                                    "mandatory {} {} is missing before this {id}",
                                    nodes[k].id, kind
                                ),
                                Some(seg),
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
                                Code::LoopTooMany
                            } else {
                                Code::SegmentTooMany
                            },
                            if lp { "4" } else { "5" },
                            format!(
                                "{} {} occurs {} times; at most {} allowed here",
                                id,
                                if lp { "loop" } else { "segment" },
                                count,
                                nodes[j].max
                            ),
                            Some(seg),
                            id,
                            loop_id,
                        );
                    }
                    self.pos += 1;
                    match &nodes[j].children {
                        Some(children) => {
                            // The loop item, then its start segment and the rest of its items.
                            let item = items.len();
                            items.push(Item {
                                node: j,
                                at,
                                end: 0,
                                clean,
                            });
                            items.push(Item {
                                node: 0,
                                at,
                                end: 0,
                                clean,
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
                            items[item].end = items.len();
                        }
                        None => items.push(Item {
                            node: j,
                            at,
                            end: 0,
                            clean,
                        }),
                    }
                    i = j;
                }
                None => {
                    let up = ancestors
                        .iter()
                        .any(|(_, sh, at)| sh.find(*at, key).is_some());
                    if up {
                        break;
                    }
                    let id = String::from_utf8_lossy(raw_id).into_owned();
                    let (code, seg_code, why) = if !self.set_ids.contains(&id) {
                        if (self.all_ids)(&id) {
                            (
                                Code::SegmentNotInSet,
                                "6",
                                "is not defined in this transaction set",
                            )
                        } else {
                            (Code::SegmentUnknown, "1", "is not a recognized segment id")
                        }
                    } else if nodes[..i].iter().any(|n| n.id == id)
                        || ancestors
                            .iter()
                            .any(|(ns, _, at)| ns[..*at].iter().any(|n| n.id == id))
                    {
                        (
                            Code::SegmentOutOfOrder,
                            "7",
                            "is out of order: it belongs earlier in the set",
                        )
                    } else {
                        (
                            Code::SegmentUnexpected,
                            "2",
                            "is not expected at this point (it belongs in another loop)",
                        )
                    };
                    self.finding(
                        code,
                        seg_code,
                        format!("segment {id} {why}"),
                        Some(seg),
                        &id,
                        loop_id,
                    );
                    self.pos += 1;
                    items.push(Item {
                        node: STRAY,
                        at,
                        end: 0,
                        clean,
                    });
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
                    Code::SegmentMissing,
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

/// Matches a set's body against a declaration, its shape and the segment
/// ids it uses; `end` is the (index, offset) of the SE (or where it should be).
pub fn match_body<'a>(
    decl: &SetDecl,
    shape: &Shape,
    set_ids: &[String],
    segs: &[Segment<'a>],
    end: (usize, usize),
    known: &dyn Fn(&str) -> bool,
) -> (Occ, Vec<Finding>) {
    let mut occ = Occ::default();
    let mut findings = Vec::new();
    match_into(
        decl,
        shape,
        set_ids,
        segs,
        &[],
        end,
        known,
        &mut occ.items,
        &mut findings,
        &mut Vec::with_capacity(256),
        &mut Vec::new(),
    );
    (occ, findings)
}

/// [`match_body`] into caller-owned buffers (cleared first), reused from
/// set to set; `clean`: [`Item::clean`] of each of `segs` (or empty).
#[allow(clippy::too_many_arguments)]
pub(super) fn match_into<'a, 'n>(
    decl: &'n SetDecl,
    shape: &'n Shape,
    set_ids: &[String],
    segs: &[Segment<'a>],
    clean: &[bool],
    end: (usize, usize),
    known: &dyn Fn(&str) -> bool,
    items: &mut Vec<Item>,
    findings: &mut Vec<Finding>,
    counts: &mut Vec<u32>,
    ancestors: &mut Vec<(&'n [Node], &'n Shape, usize)>,
) {
    items.clear();
    findings.clear();
    counts.clear();
    ancestors.clear();
    let mut m = Matcher {
        segs,
        pos: 0,
        end,
        findings,
        all_ids: known,
        set_ids,
        counts,
        clean,
    };
    m.run(&decl.body, 0, items, shape, ancestors, None);
}

/// All segment ids of a declaration (for "known segment" checks).
pub fn ids(decl: &SetDecl) -> Vec<String> {
    let mut v = Vec::new();
    collect_ids(&decl.body, &mut v);
    v
}

#[cfg(test)]
mod tests {
    #[test]
    fn position_finds_the_first_key() {
        let mut x: u32 = 0x9E37_79B9;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for len in 0..40 {
            let keys: Vec<u32> = (0..len).map(|_| next() % 6).collect();
            for key in 0..7 {
                assert_eq!(
                    super::position(&keys, key),
                    keys.iter().position(|&k| k == key),
                    "{keys:?} {key}"
                );
            }
        }
    }
}
