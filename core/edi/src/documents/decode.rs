//! Mapping a matched set back to its payload JSON (what `x12kit parse`
//! carries as `document`): [`Mapping`] holds the buffers reused from set to
//! set, and [`Tree`] is the node arena the mapped document is built in and
//! written from as compact JSON, the one form of a mapped document
//! (`map_back` reads that JSON into a `serde_json::Value`).

use super::declared::Declared;
use super::finding::Finding;
use super::matcher::{Item, Matched, Shape, match_into};
use super::model::*;
use super::value;
use serde_json::Value;
use std::collections::HashSet;
use x12kit_json::copy::{append, put, put_key};
use x12kit_syntax::segment::Segment;

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
    x12kit_syntax::escape::escape_into(b, out);
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

/// No node.
const NIL: u32 = u32::MAX;

/// True when `seg` has data after element `last`, given its first elements
/// `els` (split up to `last`).
fn beyond(seg: &Segment<'_>, els: &[&[u8]], last: usize) -> bool {
    let raw = seg.raw();
    let sep = seg.delimiters().element;
    let end = match els.last() {
        _ if last == 0 => seg.id().len(),
        // `els` borrow `raw`: where the last split element ends.
        Some(e) if els.len() >= last.min(32) => {
            e.as_ptr() as usize + e.len() - raw.as_ptr() as usize
        }
        // Fewer elements than `last`: there is nothing after them.
        _ => return false,
    };
    raw.get(end..).is_some_and(|t| t.iter().any(|&b| b != sep))
}

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
    /// Object members written as JSON text, `"k":v,"k2":v2` (in the
    /// tree's `runs` buffer, start and end): the one-key fields of
    /// `plan.fields` at the positions of `mask` (bit `p - 1`), in order.
    Run {
        plan: &'static Plan,
        mask: u32,
        start: u32,
        end: u32,
    },
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
    /// The JSON text of [`V::Run`] nodes.
    runs: Vec<u8>,
    /// Tests only: write every member as a node of its own (no [`V::Run`]),
    /// the reference the runs are compared with.
    #[cfg(test)]
    pub(crate) no_runs: bool,
    /// The elements of the segment being mapped (taken while it is mapped).
    els: Option<Box<[&'a [u8]; 32]>>,
    /// Received segments the declaration does not map, or maps only in
    /// part, in input order: written under `unmapped` (see [`Tree::unmapped`]).
    lost: Vec<Segment<'a>>,
    /// Keys need no escaping (see [`keys_clean`]).
    keys_clean: bool,
    /// True while mapping a segment whose element texts are all clean
    /// ([`Item::clean`]): [`Tree::string`] then borrows them unchecked.
    seg_clean: bool,
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

/// Compiles a segment's element declarations (sorted by position) for
/// map-back ([`Plan`]).
pub(crate) fn plan(elements: &[ElDecl]) -> Plan {
    let mut plan = Plan::default();
    // Fields that all go into one object below the current one (`address/city`,
    // `address/state` …) are one-key fields of that object, when nothing else
    // of the segment adds members (constants only check).
    let fields = || {
        elements.iter().filter_map(|e| match &e.target {
            Target::Field(p) if (1..=32).contains(&e.pos) => Some(p),
            _ => None,
        })
    };
    let prefix = fields().next().map_or(&[][..], |p| &p[..p.len() - 1]);
    if !prefix.is_empty()
        && fields().all(|p| &p[..p.len() - 1] == prefix)
        && elements
            .iter()
            .all(|e| !matches!(e.target, Target::Pairs(_)))
    {
        plan.prefix = prefix.to_vec();
    }
    let depth = plan.prefix.len();
    for (i, e) in elements.iter().enumerate() {
        let p = e.pos as usize;
        if !(1..=32).contains(&p) {
            continue;
        }
        let bit = 1u32 << (p - 1);
        match &e.target {
            Target::Unmapped | Target::Derived(_) => continue,
            Target::Field(path) if path.len() == depth + 1 => {
                let key = &path[depth];
                plan.fast |= bit;
                plan.at[p - 1] = plan.fields.len() as u8;
                let bit = key_bit(key);
                plan.bits |= bit;
                plan.fields.push(FastField {
                    key: key.clone(),
                    bit,
                    head: format!("\"{key}\":").into_bytes().into(),
                    ptype: e.ptype,
                    xtype: e.xtype,
                });
            }
            _ => {
                plan.slow |= bit;
                // Below 32: the elements are sorted by distinct positions.
                plan.at[p - 1] = i as u8;
            }
        }
    }
    plan
}

/// The last step of compiling a declaration for map-back: marks the
/// segments whose one-key fields may be written as JSON text runs
/// ([`Plan::frag`]). A run is one node of the tree, found by the keys it
/// holds (a lookup then sees a set field); what it cannot be is an object
/// or array that a later segment adds to, or a field the segment's own
/// pairs may set, so no key of such a name is written in a run.
pub(crate) fn seal(nodes: &mut [Node]) {
    fn containers(nodes: &[Node], out: &mut HashSet<String>) {
        for n in nodes {
            if let Some(m) = &n.map {
                out.extend(m.binds.iter().flat_map(|b| b.path.iter().cloned()));
                out.extend(m.hier.iter().flat_map(|h| h.path.iter().cloned()));
                for e in &m.elements {
                    match &e.target {
                        Target::Field(p) => {
                            out.extend(p[..p.len().saturating_sub(1)].iter().cloned())
                        }
                        Target::Pairs(p) => out.extend(p.array.iter().cloned()),
                        _ => {}
                    }
                }
            }
            containers(n.children.as_deref().unwrap_or(&[]), out);
        }
    }
    fn mark(nodes: &mut [Node], containers: &HashSet<String>) {
        for n in nodes {
            if let Some(m) = &mut n.map {
                let promoted = |k: &str| {
                    m.elements.iter().any(|e| match &e.target {
                        Target::Pairs(p) => p.promote.iter().any(|(_, f)| f == k),
                        _ => false,
                    })
                };
                let fields = &m.plan.fields;
                let frag = !fields.is_empty()
                    && fields.iter().enumerate().all(|(i, f)| {
                        !f.key.is_empty()
                            && is_clean(f.key.as_bytes())
                            && !containers.contains(&f.key)
                            && !promoted(&f.key)
                            && fields[..i].iter().all(|g| g.key != f.key)
                    });
                m.plan.frag = frag;
            }
            mark(n.children.as_deref_mut().unwrap_or(&mut []), containers);
        }
    }
    let mut names = HashSet::new();
    containers(nodes, &mut names);
    mark(nodes, &names);
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

/// True when a [`V::Run`] of `plan`'s fields at `mask` holds `key`.
fn run_has(plan: &Plan, mask: u32, key: &str) -> bool {
    let mut m = mask;
    while m != 0 {
        let k = m.trailing_zeros() as usize;
        m &= m - 1;
        if same_key(&plan.fields[plan.at[k] as usize].key, key) {
            return true;
        }
    }
    false
}

#[inline]
fn idx(n: u32) -> usize {
    n as usize
}

impl<'a> Tree<'a> {
    /// Whether one-key fields are written as nodes of their own (tests only).
    #[inline(always)]
    fn reference(&self) -> bool {
        #[cfg(test)]
        return self.no_runs;
        #[cfg(not(test))]
        false
    }

    fn clear(&mut self) {
        self.nodes.clear();
        self.text.clear();
        self.vals.clear();
        self.runs.clear();
        self.lost.clear();
    }

    /// Keeps the segments of items `from..to` (each once: a loop's start
    /// segment is its first item) as unmapped.
    fn lose(&mut self, m: Matched<'_, 'a>, from: usize, to: usize) {
        self.lost.extend(
            m.items[from..to]
                .iter()
                .filter(|x| !x.is_loop())
                .map(|x| *m.seg(x)),
        );
    }

    /// Appends `unmapped` to the root object: one `{position, id, elements}`
    /// per segment kept in [`Tree::lost`] (`position`: in the set, ST = 1,
    /// as AK302 counts; `elements`: the element texts as received).
    fn unmapped(&mut self, root: u32, st: usize) {
        if self.lost.is_empty() {
            return;
        }
        let list = self.add("unmapped", V::Arr);
        self.append(root, list);
        let lost = std::mem::take(&mut self.lost);
        for seg in &lost {
            let entry = self.add("", V::Obj);
            self.append(list, entry);
            let start = self.text.len() as u32;
            let position = seg.index().saturating_sub(st) + 1;
            self.text.extend_from_slice(position.to_string().as_bytes());
            let c = self.add("position", V::Num(start, self.text.len() as u32));
            self.append(entry, c);
            let v = self.string(seg.id());
            let c = self.add("id", v);
            self.append(entry, c);
            let els = self.add("elements", V::Arr);
            self.append(entry, els);
            for e in seg.elements() {
                let v = self.string(e.raw());
                let c = self.add("", v);
                self.append(els, c);
            }
        }
        self.lost = lost;
    }

    /// True when a node bound with `.` (merge into the current object) fits
    /// `obj`: none of its start segment's fields is set there yet (for a
    /// node list longer than 128, where [`Tree::decode`]'s bits do not reach).
    fn fits(&self, node: &Node, obj: u32) -> bool {
        let seg = match &node.children {
            Some(c) => &c[0],
            None => node,
        };
        seg.map.as_ref().is_none_or(|m| {
            m.elements.iter().all(|e| match &e.target {
                Target::Field(p) => self.is_free(obj, p),
                _ => true,
            })
        })
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
            if same_key(x.key, key)
                || matches!(x.v, V::Run { plan, mask, .. } if run_has(plan, mask, key))
            {
                // A run holds set fields: its node stands for the member.
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

    /// Sets the field at `path` unless it is set; false when it was (the
    /// value is then not kept there).
    #[inline]
    fn set(&mut self, obj: u32, path: &'static [String], v: V<'a>) -> bool {
        let (parent, key) = match path {
            [key] => (obj, key.as_str()),
            [init @ .., key] => {
                let p = self.entry(obj, init);
                self.obj(p);
                (p, key.as_str())
            }
            [] => (obj, path[0].as_str()),
        };
        self.set_key(parent, key, key_bit(key), v)
    }

    /// Sets member `key` (filter bit `bit`) of `obj` unless it is set;
    /// false when it was (the value is then not kept there).
    #[inline(always)]
    fn set_key(&mut self, obj: u32, key: &'static str, bit: u64, v: V<'a>) -> bool {
        match self.find_bit(obj, key, bit) {
            Some(s) => {
                if matches!(self.nodes[idx(s)].v, V::Null) {
                    self.nodes[idx(s)].v = v;
                    true
                } else {
                    false
                }
            }
            None => {
                let c = self.add(key, v);
                self.append_bit(obj, c, bit);
                true
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
        if self.seg_clean || is_clean(b) {
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
    #[inline(always)]
    fn scalar(&mut self, b: &'a [u8], pt: PType, xt: XType) -> V<'a> {
        if matches!(pt, PType::Str | PType::StrOrInt) {
            self.string(b)
        } else {
            self.converted(b, pt, xt)
        }
    }

    /// [`Tree::scalar`] of a number, date or time field.
    fn converted(&mut self, b: &'a [u8], pt: PType, xt: XType) -> V<'a> {
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
        m: Matched<'_, 'a>,
        from: usize,
        to: usize,
        obj: u32,
        level: Option<&str>,
        fixed: Option<u8>,
    ) {
        let mut hier_done: Option<usize> = None;
        // Nodes (by index, below 128) merged into `obj` with `.` in this
        // occurrence: a repeat goes to the binding after it.
        let mut merged: u128 = 0;
        let mut i = from;
        while i < to {
            let at = i;
            let it: &Item = &m.items[at];
            i = if it.is_loop() { it.end } else { at + 1 };
            if it.is_stray() {
                self.lost.push(*m.seg(it));
                continue;
            }
            let j = it.node;
            let node = &nodes[j];
            let Some(map) = &node.map else {
                self.lose(m, at, i);
                continue;
            };
            if !map.hier.is_empty() {
                if hier_done != Some(j) {
                    hier_done = Some(j);
                    self.decode_hier(node, map, m, from, to, j, obj);
                }
                continue;
            }
            if !map.levels.is_empty() && !level.is_some_and(|l| map.levels.iter().any(|x| x == l)) {
                self.lose(m, at, i);
                continue;
            }
            let seg = m.seg(it);
            let (target, fixed_pos) = if map.binds.is_empty() {
                // A fixed element belongs to the loop's start segment only.
                (obj, if j == 0 { fixed } else { None })
            } else {
                let chosen = map.binds.iter().find(|b| {
                    let cond = b
                        .when
                        .as_ref()
                        .is_none_or(|(p, v)| seg.value(*p as usize) == v.as_bytes());
                    cond && (b.array
                        || if b.path.is_empty() {
                            if j < 128 {
                                merged & (1 << j) == 0
                            } else {
                                self.fits(node, obj)
                            }
                        } else {
                            self.is_free(obj, &b.path)
                        })
                });
                let Some(b) = chosen else {
                    self.lose(m, at, i);
                    continue;
                };
                if b.path.is_empty() {
                    // `.`: the occurrence merges into the current object.
                    if j < 128 {
                        merged |= 1 << j;
                    }
                    (obj, None)
                } else {
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
                }
            };
            if it.is_loop() {
                self.decode(
                    node.children.as_deref().unwrap_or(&[]),
                    m,
                    at + 1,
                    it.end,
                    target,
                    level,
                    fixed_pos,
                );
            } else {
                self.seg_clean = it.clean;
                let whole = self.decode_segment(map, seg, target, fixed_pos);
                self.seg_clean = false;
                if !whole {
                    self.lost.push(*seg);
                }
            }
        }
    }

    /// Maps one segment's declared elements into object `obj`; false when
    /// some of its data has no place there (an element the declaration does
    /// not map, a constant with another value, a field already set by an
    /// earlier segment): the caller then keeps the whole segment as unmapped.
    fn decode_segment(
        &mut self,
        map: &'static NodeMap,
        seg: &Segment<'a>,
        obj: u32,
        fixed: Option<u8>,
    ) -> bool {
        // Split once, up to the last declared position: lookups are then O(1).
        let last = map.last;
        let mut buf = self.els.take().unwrap_or_else(|| Box::new([&[][..]; 32]));
        let (n, full) = seg.split_elements(&mut buf, last);
        let els = &buf[..n];
        // Data after the last declared position is not mapped.
        let mut whole = !beyond(seg, els, last);
        // The positions with data and a one-key field, and those with
        // another declaration, in position order (the order members are
        // added in, which the JSON keeps).
        let plan = &map.plan;
        let skip = match fixed {
            Some(p @ 1..=32) => 1u32 << (p - 1),
            _ => 0,
        };
        let mut visit = (full & plan.fast & !skip) | plan.slow;
        // The object the one-key fields go into: `obj`, or the one at the
        // plan's prefix (made as `Tree::set` makes it, once a field is there).
        let mut into = obj;
        if !plan.prefix.is_empty() && visit & plan.fast != 0 {
            into = self.entry(obj, &plan.prefix);
            self.obj(into);
        }
        // Every one-key field is free in `into` (no key of the plan can be
        // there: no filter bit is), so all of them are set, as a run.
        if plan.frag && !self.reference() && self.nodes[idx(into)].keys & plan.bits == 0 {
            whole &= self.runs_of(map, els, into, obj, fixed, visit);
            visit = 0;
        }
        for (k, mapped) in plan.positions(visit) {
            match mapped {
                Mapped::Field(f) => {
                    let v = self.scalar(els[k], f.ptype, f.xtype);
                    whole &= self.set_key(into, &f.key, f.bit, v);
                }
                Mapped::Element(at) => {
                    whole &= self.element(&map.elements[at], els, obj, fixed);
                }
            }
        }
        // Data at a position the declaration does not map: `full` has bit
        // `k` for a non-empty element at position `k + 1`, as `mapped >> 1`
        // (positions 1..=32, all `split_elements` gives).
        whole &= full & !((map.mapped >> 1) as u32) == 0;
        self.els = Some(buf);
        whole
    }

    /// [`Tree::decode_segment`]'s fields at the positions of `visit`, the
    /// one-key fields written as [`V::Run`] nodes (one per run between
    /// other declarations, which are mapped as nodes in between, so the
    /// members keep position order); false as [`Tree::decode_segment`].
    fn runs_of(
        &mut self,
        map: &'static NodeMap,
        els: &[&'a [u8]],
        into: u32,
        obj: u32,
        fixed: Option<u8>,
        visit: u32,
    ) -> bool {
        let plan = &map.plan;
        let mut whole = true;
        let mut start = self.runs.len();
        let (mut mask, mut bits) = (0u32, 0u64);
        for (k, mapped) in plan.positions(visit) {
            match mapped {
                Mapped::Field(f) => {
                    if mask != 0 {
                        self.runs.push(b',');
                    }
                    append(&mut self.runs, &f.head);
                    self.value_json(els[k], f.ptype, f.xtype);
                    mask |= 1 << k;
                    bits |= f.bit;
                }
                Mapped::Element(at) => {
                    self.close_run(into, plan, mask, bits, start);
                    (mask, bits) = (0, 0);
                    whole &= self.element(&map.elements[at], els, obj, fixed);
                    start = self.runs.len();
                }
            }
        }
        self.close_run(into, plan, mask, bits, start);
        whole
    }

    /// Adds the run of `plan`'s fields at `mask` (filter bits `bits`),
    /// written from `start` on, to `obj` (nothing for an empty run).
    #[inline]
    fn close_run(&mut self, obj: u32, plan: &'static Plan, mask: u32, bits: u64, start: usize) {
        if mask == 0 {
            return;
        }
        let end = self.runs.len() as u32;
        let n = self.add(
            "",
            V::Run {
                plan,
                mask,
                start: start as u32,
                end,
            },
        );
        self.append_bit(obj, n, bits);
    }

    /// Appends to [`Tree::runs`] the JSON of element text for a field of
    /// type `pt`/`xt`: what [`Tree::scalar`]'s value is written as.
    #[inline]
    fn value_json(&mut self, b: &'a [u8], pt: PType, xt: XType) {
        if !matches!(pt, PType::Str | PType::StrOrInt) {
            // Converted straight into the runs (a date or time inside the
            // quotes written first).
            let out = &mut self.runs;
            let quoted = matches!(pt, PType::Date | PType::Time);
            let start = out.len();
            if quoted {
                out.push(b'"');
            }
            match value::from_x12_into(b, pt, xt, out) {
                value::Read::Same => out.truncate(start),
                value::Read::Text if quoted && is_clean(&out[start + 1..]) => {
                    out.push(b'"');
                    return;
                }
                value::Read::Text => {
                    let from = start + usize::from(quoted);
                    let t = out.split_off(from);
                    out.truncate(start);
                    json_string(&t, out);
                    return;
                }
                value::Read::Number if !quoted => return,
                value::Read::Number => {
                    out.remove(start);
                    return;
                }
                value::Read::Other(v) => {
                    out.truncate(start);
                    let _ = serde_json::to_writer(&mut *out, &v);
                    return;
                }
            }
        }
        if self.seg_clean || is_clean(b) {
            put(&mut self.runs, b'"', b, b"\"");
        } else {
            match std::str::from_utf8(b) {
                Ok(_) => json_string(b, &mut self.runs),
                Err(_) => json_string(String::from_utf8_lossy(b).as_bytes(), &mut self.runs),
            }
        }
    }

    /// Maps a declared element other than a one-key field (see [`Plan`])
    /// of a segment split into `els`; false as [`Tree::decode_segment`].
    #[inline(always)]
    fn element(
        &mut self,
        e: &'static ElDecl,
        els: &[&'a [u8]],
        obj: u32,
        fixed: Option<u8>,
    ) -> bool {
        let n = els.len();
        let raw = |p: usize| -> &'a [u8] { if p >= 1 && p <= n { els[p - 1] } else { &[] } };
        let mut whole = true;
        match &e.target {
            Target::Field(path) => {
                let bytes = raw(e.pos as usize);
                if Some(e.pos) != fixed && !bytes.is_empty() {
                    let v = self.scalar(bytes, e.ptype, e.xtype);
                    whole &= self.set(obj, path, v);
                }
            }
            Target::Const(c) => {
                let bytes = raw(e.pos as usize);
                whole &= bytes.is_empty() || eq_bytes(bytes, c.as_bytes());
            }
            Target::Derived(_) | Target::Unmapped => {}
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
        }
        whole
    }

    /// Maps the occurrences of HL loop node `j` among items `from..to` into
    /// their hierarchy under `root`.
    #[allow(clippy::too_many_arguments)]
    fn decode_hier(
        &mut self,
        node: &'static Node,
        map: &'static NodeMap,
        m: Matched<'_, 'a>,
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
            let it = &m.items[at];
            i = if it.is_loop() { it.end } else { at + 1 };
            if it.node != j || !it.is_loop() {
                continue;
            }
            let hl = *m.seg(it);
            let code = hl.value(3);
            let Some(li) = map.hier.iter().position(|l| l.code.as_bytes() == code) else {
                // A level the declaration does not map: kept as unmapped.
                self.lose(m, at, it.end);
                continue;
            };
            let obj = self.add("", V::Obj);
            self.decode(
                children,
                m,
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

    /// Node `n` as the `serde_json::Value` its JSON ([`Tree::write`])
    /// reads as, built without writing it (`map_back`): the same numbers
    /// (their text read by serde_json), strings and members, a later
    /// member of the same key replacing an earlier one.
    pub(crate) fn to_value(&self, n: u32) -> Value {
        let x = &self.nodes[idx(n)];
        let children = || {
            std::iter::successors((x.first != NIL).then_some(x.first), |&c| {
                let next = self.nodes[idx(c)].next;
                (next != NIL).then_some(next)
            })
        };
        match x.v {
            V::Obj => {
                let mut members = serde_json::Map::new();
                for c in children() {
                    let y = &self.nodes[idx(c)];
                    if let V::Run { start, end, .. } = y.v {
                        // One-key fields written as JSON text: read back.
                        let mut run = Vec::with_capacity(idx(end) - idx(start) + 2);
                        run.push(b'{');
                        run.extend_from_slice(&self.runs[idx(start)..idx(end)]);
                        run.push(b'}');
                        if let Ok(Value::Object(o)) = serde_json::from_slice(&run) {
                            members.extend(o);
                        }
                    } else {
                        members.insert(y.key.to_string(), self.to_value(c));
                    }
                }
                Value::Object(members)
            }
            V::Arr => Value::Array(children().map(|c| self.to_value(c)).collect()),
            V::Raw(b) | V::Str(b) => Value::String(String::from_utf8_lossy(b).into_owned()),
            V::Text(a, z) => {
                Value::String(String::from_utf8_lossy(&self.text[idx(a)..idx(z)]).into_owned())
            }
            V::Num(a, z) => {
                serde_json::from_slice(&self.text[idx(a)..idx(z)]).unwrap_or(Value::Null)
            }
            V::Val(i) => self.vals[idx(i)].clone(),
            V::Null => Value::Null,
            // A run is read where its object is.
            V::Run { .. } => Value::Null,
        }
    }

    /// Appends node `n` as compact JSON.
    pub(crate) fn write(&self, n: u32, out: &mut Vec<u8>) {
        let x = &self.nodes[idx(n)];
        match x.v {
            V::Obj => {
                // `{` before the first member, `,` before the others.
                let mut sep = b'{';
                let mut c = x.first;
                while c != NIL {
                    let y = &self.nodes[idx(c)];
                    if let V::Run { start, end, .. } = y.v {
                        out.push(sep);
                        append(out, &self.runs[idx(start)..idx(end)]);
                        sep = b',';
                        c = y.next;
                        continue;
                    }
                    if self.keys_clean {
                        put_key(out, sep, y.key.as_bytes());
                    } else {
                        out.push(sep);
                        json_string(y.key.as_bytes(), out);
                        out.push(b':');
                    }
                    sep = b',';
                    self.member(c, y.v, out);
                    c = y.next;
                }
                if sep == b'{' {
                    out.push(b'{');
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
            V::Raw(b) => put(out, b'"', b, b"\""),
            V::Num(a, z) => append(out, &self.text[idx(a)..idx(z)]),
            v => self.write_scalar(v, out),
        }
    }

    #[inline]
    fn write_scalar(&self, v: V<'a>, out: &mut Vec<u8>) {
        match v {
            V::Raw(b) => put(out, b'"', b, b"\""),
            V::Str(b) => json_string(b, out),
            V::Text(a, z) => json_string(&self.text[idx(a)..idx(z)], out),
            V::Num(a, z) => append(out, &self.text[idx(a)..idx(z)]),
            V::Val(i) => {
                let _ = serde_json::to_writer(&mut *out, &self.vals[idx(i)]);
            }
            V::Null => out.extend_from_slice(b"null"),
            // Containers are written by `write`, runs as members.
            V::Obj | V::Arr | V::Run { .. } => {}
        }
    }
}

/// The buffers of document mapping, kept from one set to the next (the
/// parse JSON writer holds one for all the sets it writes).
#[derive(Debug, Default)]
pub struct Mapping<'a> {
    segs: Vec<Segment<'a>>,
    /// [`Item::clean`] of each of `segs`.
    clean: Vec<bool>,
    items: Vec<Item>,
    findings: Vec<Finding>,
    counts: Vec<u32>,
    ancestors: Vec<(&'static [Node], &'static Shape, usize)>,
    /// The mapped document of the last set.
    pub(crate) tree: Tree<'a>,
    /// The last group's GS segment as received and the edition its GS08
    /// gives (the sets of a group ask for it one after the other).
    pub(crate) edition: Option<(Vec<u8>, Edition)>,
    /// The last set's ST01 and edition, and their compiled declaration.
    pub(crate) declared: Option<(Vec<u8>, Edition, Declared)>,
}

impl<'a> Mapping<'a> {
    /// Starts collecting the body of the next set.
    #[inline]
    pub(crate) fn clear_body(&mut self) {
        self.segs.clear();
        self.clean.clear();
    }

    /// Adds a segment to the body collected for the next set.
    #[inline]
    pub(crate) fn push_body(&mut self, seg: Segment<'a>) {
        self.push_body_checked(seg, false);
    }

    /// [`Mapping::push_body`] of a segment whose element texts are known to
    /// be clean (`clean`: see [`Item::clean`]; false: unknown, checked per
    /// value as it is mapped).
    #[inline]
    pub(crate) fn push_body_checked(&mut self, seg: Segment<'a>, clean: bool) {
        self.segs.push(seg);
        self.clean.push(clean);
    }

    /// Matches and maps the set whose body was collected (`st`: the index
    /// of its ST; `end`: where its SE is; `keys_clean`: what [`keys_clean`]
    /// says of the declaration); returns the root object in [`Mapping::tree`].
    pub(crate) fn map(
        &mut self,
        d: Declared,
        st: usize,
        end: (usize, usize),
        known: &dyn Fn(&str) -> bool,
    ) -> u32 {
        let decl = d.decl;
        match_into(
            decl,
            d.shape,
            d.ids,
            &self.segs,
            &self.clean,
            end,
            known,
            &mut self.items,
            &mut self.findings,
            &mut self.counts,
            &mut self.ancestors,
        );
        self.tree.clear();
        self.tree.keys_clean = d.keys_clean;
        let root = self.tree.add("", V::Obj);
        let m = Matched {
            items: &self.items,
            segs: &self.segs,
        };
        self.tree
            .decode(&decl.body, m, 0, self.items.len(), root, None, None);
        self.tree.unmapped(root, st);
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
