//! The round-trip property of the declared transaction sets, on payloads generated
//! from each set's own payload shape (both editions): render → parse →
//! `document` equals the payload after normalisation (defaults filled in,
//! numbers canonical), the rendered set validates clean, and rendering the
//! mapped document again gives the same X12.
//!
//! The generator picks fields at random from the shape; when the renderer
//! says a field is missing (a paired element, a mandatory element of an
//! optional segment), the field is generated and the payload tried again, so
//! every case that reaches the property is a valid payload. Any other
//! render error fails the test.

mod common;

use common::render;
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use x12kit::documents::schema::{FieldRule, Leaf, RuleKind, Shape, shape_for};
use x12kit::documents::{self, TYPES};
use x12kit::documents::{Edition, PType, XType};
use x12kit::{Partner, RenderOptions};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const INNER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 -./#&,";

fn text(r: &mut Rng, min: u16, max: u16, id: bool) -> String {
    let max = max.min(min.max(1) + 12);
    let len = min.max(1) as u64 + r.below((max.saturating_sub(min.max(1)) + 1) as u64);
    (0..len)
        .map(|i| {
            let set = if id || i == 0 || i + 1 == len {
                ALNUM
            } else {
                INNER
            };
            set[r.below(set.len() as u64) as usize] as char
        })
        .collect()
}

fn leaf(r: &mut Rng, name: &str, l: &Leaf) -> Value {
    if let Some(codes) = &l.codes {
        return json!(codes[r.below(codes.len() as u64) as usize]);
    }
    match l.ptype {
        // Entity codes avoid ST and BT, which select the 850's shipTo/billTo.
        PType::Str if name == "code" => json!(r.pick(&["BY", "VN", "SU", "SF", "CN", "WH", "SH"])),
        // Qualifiers of plain product ids avoid the promoted ones (SK, UP, VP, BP, VN).
        PType::Str
            if name == "qualifier"
                && l.element.len() == 5
                && l.max == 2
                && l.doc.as_deref().is_some_and(|d| d.contains("product")) =>
        {
            json!(r.pick(&["IN", "MG", "EN", "CB", "VC"]))
        }
        PType::Str => json!(text(r, l.min, l.max, l.xtype == XType::ID)),
        // An assigned identifier: render takes a string or an integer.
        PType::StrOrInt if r.chance(50) => json!(1 + r.below(9999)),
        PType::StrOrInt => json!(text(r, l.min, l.max, false)),
        PType::Int => {
            let digits = if l.xtype == XType::AN {
                4
            } else {
                l.max.min(5) as u32
            };
            let lo = if l.min > 1 {
                10u64.pow(l.min as u32 - 1)
            } else {
                1
            };
            json!(lo + r.below(10u64.pow(digits) - lo))
        }
        PType::Num => {
            let digits = l.max.min(6) as u32;
            let cents = r.below(10u64.pow(digits));
            documents::canonical(&json!(cents as f64 / 100.0))
        }
        PType::Date => json!(format!(
            "{}-{:02}-{:02}",
            2000 + r.below(31),
            1 + r.below(12),
            1 + r.below(28)
        )),
        PType::Time => {
            let (h, m, s) = (r.below(24), r.below(60), r.below(60));
            if r.chance(50) {
                json!(format!("{h:02}:{m:02}"))
            } else {
                json!(format!("{h:02}:{m:02}:{s:02}"))
            }
        }
    }
}

fn value(r: &mut Rng, name: &str, s: &Shape, depth: usize) -> Value {
    match s {
        Shape::Leaf(l) => leaf(r, name, l),
        Shape::Array(inner, max) => {
            let cap = max.unwrap_or(3).min(if depth > 2 { 2 } else { 3 }) as u64;
            let n = 1 + r.below(cap.max(1));
            Value::Array((0..n).map(|_| value(r, name, inner, depth + 1)).collect())
        }
        Shape::Object(fields, rules) => {
            let mut m = Map::new();
            let mut budget: std::collections::HashMap<String, u8> = Default::default();
            for f in fields {
                if !(f.required || r.chance(55)) {
                    continue;
                }
                if let Shape::Leaf(Leaf {
                    pairs: Some((arr, count)),
                    ..
                }) = &f.shape
                {
                    let left = budget.entry(arr.clone()).or_insert(*count);
                    if *left == 0 {
                        continue;
                    }
                    *left -= 1;
                }
                let v = match (&f.shape, budget.get(&f.name)) {
                    (Shape::Array(inner, _), Some(&left)) => {
                        if left == 0 {
                            continue;
                        }
                        let n = 1 + r.below(left.min(2) as u64);
                        Value::Array(
                            (0..n)
                                .map(|_| value(r, &f.name, inner, depth + 1))
                                .collect(),
                        )
                    }
                    _ => value(r, &f.name, &f.shape, depth + 1),
                };
                m.insert(f.name.clone(), v);
            }
            apply_rules(r, &mut m, fields, rules, depth);
            if m.is_empty() {
                if let Some(f) = fields.iter().find(|f| matches!(f.shape, Shape::Leaf(ref l) if l.default.is_none() && l.pairs.is_none())) {
                    m.insert(f.name.clone(), value(r, &f.name, &f.shape, depth + 1));
                }
            }
            Value::Object(m)
        }
    }
}

/// Makes an object keep its segments' syntax rules: exclusions first (and
/// the conditionals that would need an excluded field), then the rest.
fn apply_rules(
    r: &mut Rng,
    m: &mut Map<String, Value>,
    fields: &[x12kit::documents::schema::Field],
    rules: &[FieldRule],
    depth: usize,
) {
    let mut excluded: Vec<String> = Vec::new();
    for rule in rules.iter().filter(|x| x.kind == RuleKind::Exclusion) {
        let mut present = rule.fields.iter().filter(|f| m.contains_key(*f));
        let keep = present
            .next()
            .cloned()
            .unwrap_or_else(|| rule.fields[0].clone());
        for f in &rule.fields {
            if *f != keep {
                m.remove(f);
                excluded.push(f.clone());
            }
        }
    }
    let add = |r: &mut Rng, m: &mut Map<String, Value>, name: &str| {
        if let Some(f) = fields.iter().find(|f| f.name == name) {
            if !m.contains_key(name) {
                let v = value(r, name, &f.shape, depth + 1);
                m.insert(name.to_string(), v);
            }
        }
    };
    for _ in 0..2 {
        for rule in rules.iter().filter(|x| x.kind != RuleKind::Exclusion) {
            let has = |m: &Map<String, Value>, f: &String| m.contains_key(f);
            let first = &rule.fields[0];
            match rule.kind {
                RuleKind::Paired if rule.fields.iter().any(|f| has(m, f)) => {
                    if rule.fields.iter().any(|f| excluded.contains(f)) {
                        rule.fields.iter().for_each(|f| {
                            m.remove(f);
                        });
                    } else {
                        rule.fields.iter().for_each(|f| add(r, m, f));
                    }
                }
                RuleKind::Conditional if has(m, first) => {
                    if rule.fields[1..].iter().any(|f| excluded.contains(f)) {
                        m.remove(first);
                    } else {
                        rule.fields[1..].iter().for_each(|f| add(r, m, f));
                    }
                }
                RuleKind::Required if !rule.fields.iter().any(|f| has(m, f)) => {
                    if let Some(f) = rule.fields.iter().find(|f| !excluded.contains(f)) {
                        add(r, m, f);
                    }
                }
                RuleKind::ListConditional
                    if has(m, first) && !rule.fields[1..].iter().any(|f| has(m, f)) =>
                {
                    add(r, m, &rule.fields[1])
                }
                _ => {}
            }
        }
    }
}

/// The shape at a JSON pointer.
fn shape_at<'s>(s: &'s Shape, ptr: &str) -> Option<&'s Shape> {
    let mut cur = s;
    for part in ptr.split('/').skip(1) {
        cur = match cur {
            Shape::Object(f, _) => &f.iter().find(|x| x.name == part)?.shape,
            Shape::Array(inner, _) => inner,
            Shape::Leaf(_) => return None,
        };
    }
    Some(cur)
}

fn insert(v: &mut Value, ptr: &str, x: Value) {
    let (parent, last) = ptr.rsplit_once('/').unwrap();
    if v.pointer(parent).is_none() {
        insert(v, parent, json!({}));
    }
    if let Some(Value::Object(o)) = v.pointer_mut(parent) {
        o.insert(last.to_string(), x);
    }
}

fn partner(ed: Edition) -> Partner {
    let mut p = Partner::from_json(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/partners/acme-retail.json"
        ))
        .unwrap(),
    )
    .unwrap();
    p.required_fields.clear();
    if ed == Edition::V5010 {
        p.version = Some("005010".into());
        p.versions.clear();
    }
    p
}

fn options() -> RenderOptions {
    common::render_options("20261122", "0930", None)
}

/// Generates a valid payload of `code` from `seed`, repairing it from the renderer's MISSING_FIELD reports.
fn generate(code: &str, ed: Edition, seed: u64, p: &Partner) -> (Value, x12kit::Rendered) {
    let shape = shape_for(code, ed).unwrap();
    let mut r = Rng(seed | 1);
    let mut payload = value(&mut r, "", &shape, 0);
    let mut last = String::new();
    for _ in 0..8 {
        match render(code, &payload, p, &options()) {
            Ok(out) => return (payload, out),
            Err(e) => {
                last = e.to_string();
                for i in e
                    .details()
                    .iter()
                    .filter(|i| i.severity == x12kit::Severity::Error)
                {
                    match i.code.as_str() {
                        "MISSING_FIELD" => {
                            let s = shape_at(&shape, &i.pointer)
                                .unwrap_or_else(|| panic!("{code}: no shape at {}", i.pointer));
                            let name = i.pointer.rsplit('/').next().unwrap().to_string();
                            let v = value(&mut r, &name, s, 1);
                            insert(&mut payload, &i.pointer, v);
                        }
                        // "only one of" (exclusion rules): drop the later field.
                        "INVALID_FIELD" if i.message.contains("only one of") => {
                            let (parent, _) = i.pointer.rsplit_once('/').unwrap();
                            let names: Vec<&str> = i
                                .message
                                .trim_start_matches("only one of ")
                                .split(" may")
                                .next()
                                .unwrap()
                                .split(", ")
                                .collect();
                            if let Some(Value::Object(o)) =
                                payload.pointer_mut(if parent.is_empty() { "" } else { parent })
                            {
                                for n in &names[1..] {
                                    o.remove(*n);
                                }
                            }
                        }
                        _ => panic!(
                            "{code} ({ed:?}): unexpected render error {i}\npayload: {payload:#}"
                        ),
                    }
                }
            }
        }
    }
    panic!("{code} ({ed:?}): no valid payload after repairs: {last}\n{payload:#}");
}

fn check(code: &str, ed: Edition, seed: u64) -> Result<(), TestCaseError> {
    let p = partner(ed);
    let (payload, out) = generate(code, ed, seed, &p);
    prop_assert!(out.warnings.is_empty(), "{code}: {:?}", out.warnings);
    // Normalisation adds defaults, gives identifiers given as integers as
    // strings, and moves the first item of `additional…` onto its object
    // when that object has none of the node's fields: every generated
    // value is kept (as a multiset of scalar values).
    fn leaves(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => o.values().for_each(|x| leaves(x, out)),
            Value::Array(a) => a.iter().for_each(|x| leaves(x, out)),
            Value::String(s) => out.push(s.clone()),
            v => out.push(documents::canonical(v).to_string()),
        }
    }
    /// The values of `small` that `big` does not have.
    fn missing(big: &Value, small: &Value) -> Vec<String> {
        let (mut b, mut s) = (Vec::new(), Vec::new());
        leaves(big, &mut b);
        leaves(small, &mut s);
        s.retain(|x| match b.iter().position(|y| y == x) {
            Some(i) => {
                b.swap_remove(i);
                false
            }
            None => true,
        });
        s
    }
    let lost = missing(&out.document, &payload);
    prop_assert!(
        lost.is_empty(),
        "{code}: normalisation lost {lost:?}\n{:#}\n{:#}",
        payload,
        out.document
    );
    let doc = x12kit::parse(&out.x12);
    prop_assert!(doc.diagnostics.is_empty(), "{code}: {:?}", doc.diagnostics);
    let g = &doc.interchanges[0].groups[0];
    let t = &g.transactions[0];
    let findings = documents::validate_transaction(&doc, g, t).unwrap();
    prop_assert!(
        findings.is_empty(),
        "{code} ({ed:?}): {findings:#?}\n{}",
        String::from_utf8_lossy(&out.x12)
    );
    let v = x12kit::Validator::new(x12kit::validate::Options::default())
        .with_rules(Box::new(x12kit::validate::Buffered::new(
            documents::StructureRules,
        )))
        .run(&doc);
    prop_assert!(
        v.diagnostics.is_empty(),
        "{code} ({ed:?}): {:?}",
        v.diagnostics
    );
    let back = documents::map_back(&doc, g, t).unwrap();
    prop_assert_eq!(
        &back,
        &out.document,
        "{} ({:?})\n{}",
        code,
        ed,
        String::from_utf8_lossy(&out.x12)
    );
    let again =
        render(code, &back, &p, &options()).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(
        again.x12 == out.x12,
        "{code}: rendering the mapped document differs"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn round_trip_004010(seed in any::<u64>()) {
        for code in TYPES {
            check(code, Edition::Base, seed)?;
        }
    }

    #[test]
    fn round_trip_005010(seed in any::<u64>()) {
        for code in TYPES {
            check(code, Edition::V5010, seed)?;
        }
    }
}

/// Generated payloads are also accepted by the independent checker: a few
/// per type are written for `scripts/test.sh` when X12KIT_GENERATED_DIR is set.
#[test]
fn write_generated_samples() {
    let Some(dir) = std::env::var_os("X12KIT_GENERATED_DIR") else {
        return;
    };
    std::fs::create_dir_all(&dir).unwrap();
    for (n, code) in TYPES.iter().enumerate() {
        for ed in [Edition::Base, Edition::V5010] {
            for k in 0..std::env::var("X12KIT_GENERATED_COUNT")
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(4u64)
            {
                let seed = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(n as u64 * 8 + k + 1);
                let (_, out) = generate(code, ed, seed, &partner(ed));
                let name = format!(
                    "{code}-{}-{k}.x12",
                    if ed == Edition::Base {
                        "base"
                    } else {
                        "005010"
                    }
                );
                std::fs::write(std::path::Path::new(&dir).join(name), &out.x12).unwrap();
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Damaged renders (bytes changed, deleted or duplicated, segments
    /// dropped or repeated) never make map back, structure validation or
    /// the JSON writer panic.
    #[test]
    fn damaged_sets_never_panic(type_index in 0usize..18, v5010 in any::<bool>(), edits in proptest::collection::vec((any::<u32>(), 0u8..5, any::<u8>()), 1..12)) {
        let code = TYPES[type_index];
        let golden = std::fs::read(format!(
            "{}/../tests/golden/{code}{}.x12",
            env!("CARGO_MANIFEST_DIR"),
            if v5010 { "-005010" } else { "" }
        ))
        .unwrap();
        let mut segs: Vec<Vec<u8>> = golden.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
        for (at, kind, byte) in edits {
            // Keep the envelope (first 3 and last 3 lines) so the set is still reached.
            if segs.len() < 8 {
                break;
            }
            let i = 3 + at as usize % (segs.len() - 6);
            let s = &mut segs[i];
            let j = at as usize % s.len().max(1);
            match kind {
                0 => s[j] = byte,
                1 => {
                    s.remove(j);
                }
                2 => s.insert(j, b"*~>^:"[byte as usize % 5]),
                3 => {
                    segs.remove(i);
                }
                _ => {
                    let dup = segs[i].clone();
                    segs.insert(i, dup);
                }
            }
        }
        let input: Vec<u8> = segs.concat();
        let doc = x12kit::parse(&input);
        let _ = x12kit::to_json(&doc);
        let _ = documents::diagnostics(&doc);
        for i in &doc.interchanges {
            for g in &i.groups {
                for t in &g.transactions {
                    let _ = documents::map_back(&doc, g, t);
                }
            }
        }
        let _ = x12kit::Validator::new(x12kit::validate::Options::default())
            .with_rules(Box::new(x12kit::validate::Buffered::new(documents::StructureRules)))
            .run(&doc);
    }
}
