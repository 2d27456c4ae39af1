//! A guide's checks of a received set, over the occurrence list the
//! structure matcher made ([`crate::documents::matcher::Occ`]): per
//! occurrence of each loop (and of the set), how often the guide's
//! segments and loops occur; per matched segment, its elements. Each
//! departure is a [`Finding`] with its guide code, its IK304/IK403 code
//! and the pointer of the rule.

use super::compile::{Compiled, Count, ElementRule, list_key, node_key};
use super::format::Usage;
use crate::documents::Finding;
use crate::documents::matcher::Item;
use crate::documents::model::Node;
use x12kit_syntax::diagnostics::{Code, Severity};
use x12kit_syntax::segment::Segment;

/// What a walk needs.
struct Walk<'w, 'a> {
    guide: &'w Compiled,
    items: &'w [Item],
    segs: &'w [Segment<'a>],
    /// (index, offset) of the SE, or where it would be.
    end: (usize, usize),
    out: &'w mut Vec<Finding>,
}

/// Checks a matched set against a compiled guide.
pub(crate) fn check(
    guide: &Compiled,
    items: &[Item],
    segs: &[Segment<'_>],
    end: (usize, usize),
    out: &mut Vec<Finding>,
) {
    let mut w = Walk {
        guide,
        items,
        segs,
        end,
        out,
    };
    w.level(&guide.decl.body, 0, items.len(), None, w.end);
}

impl Walk<'_, '_> {
    /// The (index, offset) of the segment of item `i`, or `after` past the end.
    fn at(&self, i: usize, to: usize, after: (usize, usize)) -> (usize, usize, String) {
        if i < to {
            let s = &self.segs[self.items[i].at];
            (
                s.index(),
                s.offset(),
                String::from_utf8_lossy(s.id()).into_owned(),
            )
        } else {
            (after.0, after.1, String::new())
        }
    }

    /// One occurrence of a node list (the set's body, or a loop's
    /// children): items `from..to`; `after` is where the next segment
    /// after the occurrence is.
    fn level(
        &mut self,
        nodes: &[Node],
        from: usize,
        to: usize,
        loop_id: Option<&str>,
        after: (usize, usize),
    ) {
        let (guide, segs) = (self.guide, self.segs);
        let counts = guide.counts.get(&list_key(nodes));
        let mut seen = vec![0u32; counts.map_or(0, Vec::len)];
        let mut i = from;
        while i < to {
            let it = self.items[i];
            let next = if it.is_loop() { it.end } else { i + 1 };
            if !it.is_stray() {
                if let Some(rules) = counts {
                    for (r, c) in rules.iter().enumerate() {
                        if c.child == it.node {
                            seen[r] += 1;
                            self.occurrence(c, seen[r], &it, loop_id);
                        }
                    }
                }
                let node = &nodes[it.node];
                match &node.children {
                    Some(kids) => {
                        // The loop's next segment is the first one after it.
                        let after_loop = self.next_at(it.end, to, after);
                        self.level(kids, i + 1, it.end, Some(&node.id), after_loop);
                    }
                    None => {
                        if let Some(rules) = guide.elements.get(&node_key(node)) {
                            self.elements(rules, &segs[it.at], loop_id);
                        }
                    }
                }
            }
            i = next;
        }
        let Some(rules) = counts else { return };
        for (r, c) in rules.iter().enumerate() {
            if seen[r] >= c.min {
                continue;
            }
            // Reported where the node would have been: at the first item
            // of this occurrence declared after it, or after the occurrence.
            let mut k = from;
            while k < to {
                let it = self.items[k];
                if !it.is_stray() && it.node > c.child {
                    break;
                }
                k = if it.is_loop() { it.end } else { k + 1 };
            }
            let (index, offset, _) = self.at(k, to, after);
            if self.standard_said(index, &c.id) {
                continue;
            }
            let field = if c.required && seen[r] == 0 {
                "usage"
            } else {
                "minUse"
            };
            let (code, ik3, what) = match (c.is_loop, c.required && seen[r] == 0) {
                (false, true) => (Code::GuideSegmentMissing, "I6", "segment"),
                (false, false) => (Code::GuideSegmentTooFew, "I8", "segment"),
                (true, _) => (Code::GuideLoopTooFew, "I7", "loop"),
            };
            let message = if c.required && seen[r] == 0 {
                format!(
                    "the partner's guide requires the {what} {} ({} missing)",
                    c.key, c.id
                )
            } else {
                format!(
                    "the {what} {} occurs {} time{}; the partner's guide requires at least {}",
                    c.key,
                    seen[r],
                    if seen[r] == 1 { "" } else { "s" },
                    c.min
                )
            };
            self.out.push(Finding {
                code,
                message,
                segment_index: index,
                offset,
                segment_id: c.id.clone(),
                element: None,
                component: None,
                segment_code: Some(ik3),
                element_code: None,
                value: None,
                loop_id: loop_id.map(str::to_string),
                severity: Severity::Error,
                guide: Some(format!("{}/{field}", c.pointer).into()),
            });
        }
    }

    /// True when the standard's checks already report a segment finding
    /// of segment `id` at `index` (a missing mandatory segment, one too
    /// many): the guide's finding of it would say the same again.
    fn standard_said(&self, index: usize, id: &str) -> bool {
        self.out.iter().any(|f| {
            f.guide.is_none()
                && f.element.is_none()
                && f.segment_index == index
                && f.segment_id == id
        })
    }

    /// The (index, offset) of the item at `k` (up to `to`), or `after`.
    fn next_at(&self, k: usize, to: usize, after: (usize, usize)) -> (usize, usize) {
        let (i, o, _) = self.at(k, to, after);
        (i, o)
    }

    /// The `n`-th occurrence of a node with a count rule.
    fn occurrence(&mut self, c: &Count, n: u32, it: &Item, loop_id: Option<&str>) {
        let seg = &self.segs[it.at];
        let (code, ik3, message, field) = if c.not_used {
            (
                Code::GuideSegmentNotUsed,
                "I4",
                format!(
                    "the {} {} is present; the partner's guide marks it not used",
                    if c.is_loop { "loop" } else { "segment" },
                    c.key
                ),
                "usage",
            )
        } else if c.max.is_some_and(|m| n == m + 1) {
            let m = c.max.unwrap_or_default();
            if c.is_loop {
                (
                    Code::GuideLoopTooMany,
                    "4",
                    format!(
                        "the loop {} occurs more than the partner's guide's maximum of {m}",
                        c.key
                    ),
                    "maxUse",
                )
            } else {
                (
                    Code::GuideSegmentTooMany,
                    "5",
                    format!(
                        "the segment {} occurs more than the partner's guide's maximum use of {m}",
                        c.key
                    ),
                    "maxUse",
                )
            }
        } else {
            return;
        };
        if self.standard_said(seg.index(), &c.id) {
            return;
        }
        let own_loop = if it.is_loop() {
            Some(c.id.as_str())
        } else {
            loop_id
        };
        self.out.push(Finding {
            code,
            message,
            segment_index: seg.index(),
            offset: seg.offset(),
            segment_id: String::from_utf8_lossy(seg.id()).into_owned(),
            element: None,
            component: None,
            segment_code: Some(ik3),
            element_code: None,
            value: None,
            loop_id: own_loop.map(str::to_string),
            severity: Severity::Error,
            guide: Some(format!("{}/{field}", c.pointer).into()),
        });
    }

    /// The element rules of one matched segment.
    fn elements(&mut self, rules: &[ElementRule], seg: &Segment<'_>, loop_id: Option<&str>) {
        let component = seg.delimiters().component;
        for r in rules {
            let element = seg.value(r.pos as usize);
            let raw: &[u8] = match r.component {
                None => element,
                Some(k) => element
                    .split(|&b| b == component)
                    .nth(k as usize - 1)
                    .unwrap_or(&[]),
            };
            let v = String::from_utf8_lossy(raw);
            let Some((code, ik4, message, field)) = element_fault(r, &v) else {
                continue;
            };
            // The standard's own finding of the element says enough.
            let index = seg.index();
            if self.out.iter().rev().any(|f| {
                f.segment_index == index && f.element == Some(u32::from(r.pos)) && f.guide.is_none()
            }) {
                continue;
            }
            self.out.push(Finding {
                code,
                message,
                segment_index: seg.index(),
                offset: seg.offset(),
                segment_id: String::from_utf8_lossy(seg.id()).into_owned(),
                element: Some(u32::from(r.pos)),
                component: r.component.map(u32::from),
                segment_code: Some("8"),
                element_code: Some(ik4),
                value: (!v.is_empty()).then(|| v.into_owned()),
                loop_id: loop_id.map(str::to_string),
                severity: Severity::Error,
                guide: Some(format!("{}/{field}", r.pointer).into()),
            });
        }
    }
}

/// The first rule an element's value `v` breaks (one finding per element).
pub(super) fn element_fault(
    r: &ElementRule,
    v: &str,
) -> Option<(Code, &'static str, String, &'static str)> {
    let name = &r.name;
    if v.is_empty() {
        return (r.usage == Some(Usage::Required)).then(|| {
            (
                Code::GuideElementMissing,
                "I9",
                format!("the partner's guide requires {name}, which is missing"),
                "usage",
            )
        });
    }
    if r.usage == Some(Usage::NotUsed) {
        return Some((
            Code::GuideElementNotUsed,
            "I10",
            format!("{name} is present; the partner's guide marks it not used"),
            "usage",
        ));
    }
    let len = if r.numeric {
        crate::documents::value::digits(v)
    } else {
        v.chars().count()
    };
    if let Some(max) = r.max_length.filter(|&m| len > m as usize) {
        return Some((
            Code::GuideElementTooLong,
            "5",
            format!("{name} is {len} long; the partner's guide allows at most {max}"),
            "maxLength",
        ));
    }
    if let Some(min) = r.min_length.filter(|&m| len < m as usize) {
        return Some((
            Code::GuideElementTooShort,
            "4",
            format!("{name} is {len} long; the partner's guide requires at least {min}"),
            "minLength",
        ));
    }
    if let Some(fixed) = r.value.as_deref().filter(|f| *f != v) {
        return Some((
            Code::GuideValue,
            "I6",
            format!("{name} is {v:?}; the partner's guide requires {fixed:?}"),
            "value",
        ));
    }
    if let Some(codes) = r.codes.as_ref().filter(|c| !c.iter().any(|c| c == v)) {
        return Some((
            Code::GuideCodeNotUsed,
            "I6",
            format!(
                "{name} {v:?} is not a code the partner's guide uses ({})",
                codes.join(", ")
            ),
            "codes",
        ));
    }
    if let Some((text, _)) = r.pattern.as_ref().filter(|(_, re)| !re.is_match(v)) {
        return Some((
            Code::GuidePattern,
            "I12",
            format!("{name} {v:?} does not match the partner's guide's pattern {text}"),
            "pattern",
        ));
    }
    None
}
