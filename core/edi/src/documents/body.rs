//! Rendering a payload into a set's body segments, and the payload as
//! map-back will return it (defaults filled in, numbers canonical,
//! ignored fields and empty members left out).

use super::compiled::{declaration, edition};
use super::{encode, schema, value};
use crate::sets::TYPES;
use serde_json::Value;
use x12kit_syntax::diagnostics::Severity;
use x12kit_syntax::error::{ErrorCode, Problem};

/// A rendered body: segments (id first, then elements) and the normalised payload.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    /// Segments between ST and SE.
    pub segments: Vec<Vec<String>>,
    /// The payload as map-back will return it: defaults filled in, numbers
    /// canonical, ignored (unknown) fields removed, and the members rendered
    /// as absent left out (null, `[]`, objects with nothing else).
    pub normalized: Value,
    /// Warnings (unknown fields).
    pub warnings: Vec<Problem>,
}

/// Renders a payload into body segments. Errors: every problem found, at once.
pub(crate) fn render_body(
    code: &str,
    version: &str,
    payload: &Value,
    ctx: &encode::Context,
    guide: Option<&crate::guide::Compiled>,
) -> Result<Body, Vec<Problem>> {
    let Some(decl) = declaration(code, edition(version)) else {
        return Err(vec![Problem {
            severity: Severity::Error,
            code: ErrorCode::UnknownDocumentType,
            pointer: "/".into(),
            message: format!(
                "x12kit does not render transaction set {code}; known: {}",
                TYPES.join(", ")
            ),
        }]);
    };
    let mut enc = encode::Encoder::new(decl, ctx).with_guide(guide);
    enc.run(payload);
    let mut issues = enc.issues;
    let mut warnings = Vec::new();
    schema::unknown_fields(code, decl.edition, payload, &mut warnings);
    if issues.iter().any(|i| i.severity == Severity::Error) {
        issues.extend(warnings);
        sort(&mut issues);
        return Err(issues);
    }
    let mut normalized = canonical(payload);
    let ignored: Vec<String> = warnings
        .iter()
        .filter(|w| w.code == ErrorCode::UnknownField)
        .map(|w| w.pointer.clone())
        .collect();
    schema::remove(&mut normalized, &ignored);
    if let Value::Object(o) = &mut normalized {
        o.remove(schema::UNMAPPED);
    }
    drop_empty(&mut normalized);
    for (ptr, v) in enc.defaults {
        insert(&mut normalized, &ptr, v);
    }
    // Innermost first: an outer move carries the inner result along.
    for (obj, arr) in enc.moves.iter().rev() {
        move_first(&mut normalized, obj, arr);
    }
    warnings.extend(issues);
    sort(&mut warnings);
    Ok(Body {
        segments: enc.out,
        normalized,
        warnings,
    })
}

fn sort(issues: &mut [Problem]) {
    issues.sort_by(|a, b| {
        (a.severity != Severity::Error)
            .cmp(&(b.severity != Severity::Error))
            .then_with(|| a.pointer.cmp(&b.pointer))
    });
}

/// Numbers in canonical form (integral values as integers), recursively.
pub fn canonical(v: &Value) -> Value {
    let mut c = v.clone();
    canonical_in_place(&mut c);
    c
}

/// [`canonical`] on a value of one's own (a clone is cheaper than a rebuild).
fn canonical_in_place(v: &mut Value) {
    match v {
        Value::Number(_) => *v = value::canonical(v),
        Value::Array(a) => a.iter_mut().for_each(canonical_in_place),
        Value::Object(o) => o.values_mut().for_each(canonical_in_place),
        _ => {}
    }
}

/// Leaves out the object members render treats as absent: null, `[]`,
/// and objects with nothing else (`{}`), at any depth. Array items stay
/// (an item is an occurrence even when it holds nothing). True when `v`
/// itself is such a value.
fn drop_empty(v: &mut Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(o) => {
            o.retain(|_, m| !drop_empty(m));
            o.is_empty()
        }
        Value::Array(a) => {
            for m in a.iter_mut() {
                drop_empty(m);
            }
            a.is_empty()
        }
        _ => false,
    }
}

/// Moves the first item of the array at pointer `arr` onto the object at
/// pointer `obj` (its members added), dropping the array when it empties.
fn move_first(root: &mut Value, obj: &str, arr: &str) {
    let Some(Value::Array(a)) = root.pointer_mut(arr) else {
        return;
    };
    if a.is_empty() {
        return;
    }
    let first = a.remove(0);
    let empty = a.is_empty();
    let key = arr
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .replace("~1", "/")
        .replace("~0", "~");
    if empty {
        let parent = &arr[..arr.len() - arr.rsplit('/').next().map_or(0, str::len) - 1];
        if let Some(Value::Object(p)) = root.pointer_mut(parent) {
            p.remove(&key);
        }
    }
    match (root.pointer_mut(obj), first) {
        (Some(Value::Object(o)), Value::Object(item)) => merge_into(o, item),
        (None, first) => insert(root, obj, first),
        _ => {}
    }
}

/// Adds the members of `from` to `to`, merging objects member by member
/// (N3's `address/street` beside N4's `address/city`).
fn merge_into(to: &mut serde_json::Map<String, Value>, from: serde_json::Map<String, Value>) {
    for (k, v) in from {
        match (to.get_mut(&k), v) {
            (Some(Value::Object(a)), Value::Object(b)) => merge_into(a, b),
            (_, v) => {
                to.insert(k, v);
            }
        }
    }
}

/// A JSON pointer part unescaped (`~1` is `/`, `~0` is `~`), without
/// allocating when it has no `~`.
pub(crate) fn unescape(p: &str) -> std::borrow::Cow<'_, str> {
    if p.contains('~') {
        p.replace("~1", "/").replace("~0", "~").into()
    } else {
        p.into()
    }
}

fn insert(root: &mut Value, ptr: &str, v: Value) {
    let mut cur = root;
    let mut parts = ptr.split('/').skip(1).peekable();
    while let Some(p) = parts.next() {
        let last = parts.peek().is_none();
        cur = match cur {
            Value::Object(o) => {
                let p = unescape(p);
                if last {
                    o.insert(p.into_owned(), v);
                    return;
                }
                // An existing member is found without a key of its own.
                if o.contains_key(&*p) {
                    let Some(x) = o.get_mut(&*p) else { return };
                    x
                } else {
                    o.entry(p.into_owned())
                        .or_insert_with(|| Value::Object(Default::default()))
                }
            }
            Value::Array(a) => match p.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                Some(x) => x,
                None => return,
            },
            _ => return,
        };
    }
}
