//! The declarations, compiled: each set's `sets/<code>.x12d` (and the
//! blocks of `sets/common.x12d` it uses) parsed and compiled once per
//! edition on first use, with what matching and mapping need of it
//! ([`Declared`]); the editions and the versions each set declares.

use super::declared::Declared;
use super::decode;
use super::dsl;
use super::matcher;
use super::model::{Edition, SetDecl};
use crate::sets::{DECLARED, TYPES, type_index};
use std::sync::OnceLock;
use x12kit_syntax::envelope::Group;

const COMMON: &str = include_str!("sets/common.x12d");

/// One set, compiled for both editions on first use (a run that sees only
/// 850s compiles only the 850).
pub(crate) struct Compiled {
    /// Base and 005010 declarations.
    pub(crate) decls: (SetDecl, SetDecl),
    /// Segment ids of each declaration.
    ids: (Vec<String>, Vec<String>),
    /// Whether each declaration's payload keys need no JSON escaping.
    keys_clean: (bool, bool),
    /// Segment keys of each declaration, for matching.
    shapes: (matcher::Shape, matcher::Shape),
}

/// The named blocks of `common.x12d` (`block NAME` and its lines).
type Blocks = Vec<(String, Vec<dsl::Line>)>;

/// The blocks of `common.x12d`, or its first fault (`common.x12d:LINE: …`).
pub(super) fn blocks() -> Result<&'static [(String, Vec<dsl::Line>)], &'static str> {
    static B: OnceLock<Result<Blocks, String>> = OnceLock::new();
    B.get_or_init(|| dsl::parse_blocks(COMMON).map_err(|e| located("common.x12d", &e)))
        .as_ref()
        .map(Vec::as_slice)
        .map_err(String::as_str)
}

/// A declaration fault `line N: …` as `FILE:N: …` (a fault in a block of
/// `common.x12d` used by the file: `common.x12d:N: … (used by FILE)`).
pub(super) fn located(file: &str, e: &str) -> String {
    let (place, rest) = match e.split_once(": ") {
        Some((p, r)) => (p, r),
        None => return format!("{file}: {e}"),
    };
    if let Some(n) = place.strip_prefix("line ") {
        format!("{file}:{n}: {rest}")
    } else if let Some(n) = place.strip_prefix("common.x12d line ") {
        format!("common.x12d:{n}: {rest} (used by {file})")
    } else {
        format!("{file}: {e}")
    }
}

/// Parses and compiles a set's file for both editions, with the numbers of
/// its own `seg`/`loop` lines that name a node in neither edition
/// (declaration typos, which the declarations test reports); `Err`: the
/// first fault, as `FILE:LINE: message`.
fn compile_set(i: usize) -> Result<(Compiled, Vec<usize>), String> {
    let crate::sets::Declared {
        code, source: text, ..
    } = DECLARED[i];
    let file = format!("{code}.x12d");
    let src = dsl::parse_source(text, blocks()?).map_err(|e| located(&file, &e))?;
    let (mut base, a) = dsl::compile(&src, Edition::Base).map_err(|e| located(&file, &e))?;
    let (mut v5, b) =
        dsl::compile(&src, Edition::V5010).map_err(|e| located(&file, &format!("{e} (005010)")))?;
    if base.code != code {
        return Err(format!("{file}:1: declares set {}, not {code}", base.code));
    }
    decode::seal(&mut base.body);
    decode::seal(&mut v5.body);
    let mut unresolved = dsl::own_map_lines(&src);
    unresolved.retain(|n| !a.contains(n) && !b.contains(n));
    let compiled = Compiled {
        ids: (matcher::ids(&base), matcher::ids(&v5)),
        keys_clean: (decode::keys_clean(&base.body), decode::keys_clean(&v5.body)),
        shapes: (
            matcher::Shape::new(&base.body),
            matcher::Shape::new(&v5.body),
        ),
        decls: (base, v5),
    };
    Ok((compiled, unresolved))
}

/// The compiled set at index `i` of [`TYPES`] (and `DECLARED`); `None` only
/// for a declaration that does not compile, which the declarations test
/// (`tests::declarations_compile_and_resolve`) reports with its file and
/// line: the set is then treated as one x12kit does not know, never a panic.
pub(crate) fn compiled(i: usize) -> Option<&'static Compiled> {
    static C: [OnceLock<Result<Compiled, String>>; DECLARED.len()] =
        [const { OnceLock::new() }; DECLARED.len()];
    C.get(i)?
        .get_or_init(|| compile_set(i).map(|(c, _)| c))
        .as_ref()
        .ok()
}

/// The fault of each declaration that does not compile
/// (`FILE:LINE: message`), and of each mapping line that names no node
/// in either edition.
#[cfg(test)]
fn declaration_faults() -> Vec<String> {
    let mut out = Vec::new();
    for (i, code) in TYPES.iter().enumerate() {
        match compile_set(i) {
            Err(e) => out.push(e),
            Ok((_, unresolved)) => out.extend(unresolved.iter().map(|n| {
                format!(
                    "{code}.x12d:{n}: names a segment or loop that is in neither edition's structure"
                )
            })),
        }
    }
    out
}

/// Segment ids of all the sets, both editions (compiles every set).
fn known_ids() -> &'static [String] {
    static K: OnceLock<Vec<String>> = OnceLock::new();
    K.get_or_init(|| {
        let mut known: Vec<String> = Vec::new();
        for c in (0..TYPES.len()).filter_map(compiled) {
            for id in c.ids.0.iter().chain(&c.ids.1) {
                if !known.contains(id) {
                    known.push(id.clone());
                }
            }
        }
        known
    })
}

/// The edition of a version string (`004010`, `004030`, `005010`, `005010X…`).
pub fn edition(version: &str) -> Edition {
    edition_of(version.as_bytes())
}

/// The edition of a group's version (GS08) as received: its first six
/// characters decide (`005010` and later: [`Edition::V5010`], else the
/// base edition); an empty or shorter version is the base edition, and
/// bytes that are not UTF-8 are read as their lossy text. The one place
/// a version becomes an edition ([`edition`], the mapping of each group,
/// the segment descriptions).
pub(crate) fn edition_of(version: &[u8]) -> Edition {
    let newer = match version.get(..6) {
        // ASCII (every real version): compared as bytes, without allocating.
        Some(head) if head.is_ascii() => head >= b"005010".as_slice(),
        _ if version.is_ascii() => false,
        _ => String::from_utf8_lossy(version)
            .get(..6)
            .is_some_and(|head| head >= "005010"),
    };
    if newer { Edition::V5010 } else { Edition::Base }
}

/// The compiled declaration of a set for an edition.
pub(crate) fn declaration(code: &str, edition: Edition) -> Option<&'static SetDecl> {
    declared(code.as_bytes(), edition).map(|d| d.decl)
}

/// The compiled declaration of set type `code` (ST01) for an edition.
pub(crate) fn declared(code: &[u8], edition: Edition) -> Option<Declared> {
    let c = compiled(type_index(std::str::from_utf8(code).ok()?)?)?;
    Some(match edition {
        Edition::Base => Declared {
            decl: &c.decls.0,
            keys_clean: c.keys_clean.0,
            shape: &c.shapes.0,
            ids: &c.ids.0,
        },
        Edition::V5010 => Declared {
            decl: &c.decls.1,
            keys_clean: c.keys_clean.1,
            shape: &c.shapes.1,
            ids: &c.ids.1,
        },
    })
}

/// The segment ids a declaration uses (cached).
#[cfg(test)]
pub(crate) fn set_ids(decl: &SetDecl) -> &'static [String] {
    match type_index(&decl.code).and_then(compiled) {
        Some(c) if decl.edition == Edition::Base => &c.ids.0,
        Some(c) => &c.ids.1,
        None => &[],
    }
}

/// Name of a set (`Purchase Order`).
pub fn name(code: &str) -> Option<&'static str> {
    declaration(code, Edition::Base).map(|d| d.name.as_str())
}

/// GS01 functional identifier of a set (`PO` for 850).
pub fn functional_id(code: &str) -> Option<&'static str> {
    declaration(code, Edition::Base).map(|d| d.functional_id.as_str())
}

/// Earliest version of a set (`004010`; `004030` for 753/754).
pub fn since(code: &str) -> Option<&'static str> {
    declaration(code, Edition::Base).map(|d| d.since.as_str())
}

/// Whether a segment id is one a declaration or the envelope uses.
pub(crate) fn known(id: &str) -> bool {
    known_ids().iter().any(|k| k == id) || matches!(id, "ST" | "SE" | "GS" | "GE" | "ISA" | "IEA")
}

/// The versions whose structure x12kit declares for a set: its base
/// version ([`since`]: 004010, or 004030 for 753/754) and 005010.
pub fn versions(code: &str) -> Option<[&'static str; 2]> {
    Some([since(code)?, "005010"])
}

/// Which structure a received set of version `version` (GS08) is checked
/// against ([`versions`] lists the ones x12kit declares).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// The version's own structure: findings are errors.
    Own(Edition),
    /// A version x12kit does not declare (e.g. 004020, 004030, 006020),
    /// checked against the nearest earlier one it does (named): a
    /// `STRUCTURE_VERSION` warning says so, and the findings are warnings,
    /// never errors from another version's rules.
    Nearest(Edition, &'static str),
    /// A version earlier than any x12kit declares for the set (e.g. 003040):
    /// not structure-checked, with a `STRUCTURE_VERSION` warning.
    Unchecked,
}

/// How a set of type `code` and version `version` (GS08) is
/// structure-checked; `None` for a type that is not declared. A GS08
/// that does not start with 6 digits (empty, or `GS08_INVALID`) is taken as
/// 004010, as the rest of x12kit does.
pub fn coverage(code: &str, version: &str) -> Option<Coverage> {
    let [base, v5] = versions(code)?;
    let v = match version.get(..6) {
        Some(v) if v.bytes().all(|b| b.is_ascii_digit()) => v,
        _ => "004010",
    };
    Some(if v == base {
        Coverage::Own(Edition::Base)
    } else if v == v5 {
        Coverage::Own(Edition::V5010)
    } else if v > v5 {
        Coverage::Nearest(Edition::V5010, v5)
    } else if v > base {
        Coverage::Nearest(Edition::Base, base)
    } else {
        Coverage::Unchecked
    })
}

/// The edition of a functional group: [`edition_of`] its GS08 (none: the
/// base edition).
pub(crate) fn group_edition(g: &Group<'_>) -> Edition {
    edition_of(g.gs.as_ref().map_or(&[][..], |gs| gs.value(8)))
}

#[cfg(test)]
mod tests {
    use super::super::model::Node;
    use super::*;
    /// Mandatory nodes without a mapping line: render could not produce them.
    fn unmapped(code: &str, ed: Edition, nodes: &[Node], path: &str, out: &mut Vec<String>) {
        for n in nodes {
            if n.mandatory && n.map.is_none() {
                out.push(format!(
                    "{code}.x12d: mandatory {} at {path}/ ({ed:?} structure) has no mapping line, so render could not produce it",
                    n.id
                ));
            }
            if let (Some(children), Some(_)) = (&n.children, &n.map) {
                unmapped(code, ed, &children[1..], &format!("{path}/{}", n.id), out);
            }
        }
    }

    /// Mapped nodes that may repeat but would not give each occurrence its
    /// own array item (a repeat would merge into, or be refused by, the
    /// first one's object): every repeatable node's last binding must be an
    /// unconditional array (`name[]`, or `. name[]`, `first name[]`).
    fn merging_repeats(code: &str, ed: Edition, nodes: &[Node], path: &str, out: &mut Vec<String>) {
        for (k, n) in nodes.iter().enumerate() {
            let Some(map) = &n.map else { continue };
            let here = format!("{path}/{}", n.id);
            // (The start segment of a loop, node 0, occurs once per occurrence.)
            if map.hier.is_empty() && n.max > 1 && (k != 0 || path.is_empty()) {
                let ok = map
                    .binds
                    .last()
                    .is_some_and(|b| b.array && b.when.is_none());
                if !ok {
                    out.push(format!(
                        "{code}.x12d: {here} ({ed:?} structure) repeats (max {}) but its occurrences do not each get an array item",
                        if n.max == u32::MAX { ">1".to_string() } else { n.max.to_string() }
                    ));
                }
            }
            if let Some(children) = &n.children {
                merging_repeats(code, ed, children, &here, out);
            }
        }
    }

    /// The one check of the declarations (`sets/*.x12d`, with the blocks
    /// of `common.x12d`): each parses and compiles for both editions, each
    /// `seg`/`loop` line names a node of at least one edition, and every
    /// mandatory node is mapped. Lists every fault as `FILE:LINE: message`.
    /// The registry ([`crate::sets`]) says what each declaration says of
    /// its functional identifier, and every set type x12kit knows has a
    /// functional identifier of the standard's list.
    #[test]
    fn the_registry_agrees_with_the_declarations() {
        for d in DECLARED {
            assert_eq!(functional_id(d.code), Some(d.functional_id), "{}", d.code);
        }
        for s in &crate::sets::SET_TYPES {
            assert!(
                crate::codes::one_of(crate::codes::FUNCTIONAL_IDS, s.functional_id.as_bytes()),
                "{s:?}"
            );
        }
    }

    #[test]
    fn declarations_compile_and_resolve() {
        let mut faults = declaration_faults();
        for code in TYPES {
            for ed in [Edition::Base, Edition::V5010] {
                if let Some(d) = declaration(code, ed) {
                    assert_eq!(d.code, code);
                    unmapped(code, ed, &d.body, "", &mut faults);
                    merging_repeats(code, ed, &d.body, "", &mut faults);
                }
            }
        }
        assert!(
            faults.is_empty(),
            "bad declarations:\n{}",
            faults.join("\n")
        );
    }

    /// What the declarations test reports for a broken declaration: its
    /// file and line, from parsing, the structure notation and compiling.
    #[test]
    fn bad_declarations_name_their_file_and_line() {
        let blocks = blocks().expect("common.x12d");
        let fault = |text: &str| -> String {
            let e = dsl::parse_source(text, blocks)
                .and_then(|s| dsl::compile(&s, Edition::Base).map(|_| ()))
                .expect_err("a bad declaration");
            located("999.x12d", &e)
        };
        let good = "set 999 XX 004010 \"Test\"\nstructure\n  BEG M1 REF O>1\n  [N1 O200: N2 O2]\nmap\nseg BEG\n  01 purpose ID 2/2 M\n";
        assert!(dsl::parse_source(good, blocks).is_ok());
        let cases = [
            (
                good.replace("REF O>1", "REF X1"),
                "999.x12d:3: structure: bad requirement `X1`",
            ),
            (
                good.replace("REF O>1", "REF"),
                "999.x12d:4: structure: bad requirement `[`",
            ),
            (
                good.replace("REF O>1", "ref O1"),
                "999.x12d:3: structure: bad segment id `ref`",
            ),
            (
                good.replace("N2 O2]", "N2 O2"),
                "999.x12d:4: structure: loop N1 is not closed",
            ),
            (
                good.replace("[N1 O200:", "[N1 O200"),
                "999.x12d:4: structure: expected `:` after loop N1",
            ),
            (
                good.replace("BEG M1", "BEG M0"),
                "999.x12d:3: structure: bad max `M0`",
            ),
            (
                good.replace("2/2 M", "2/2 M\n  rule X0102"),
                "999.x12d:8: bad rule `X0102`",
            ),
            (
                good.replace("2/2 M", "2/2 M\n  rule P0100"),
                "999.x12d:8: bad rule `P0100`",
            ),
            (
                good.replace("2/2 M", "2/2 M\n  rule É0102"),
                "999.x12d:8: bad rule `É0102`",
            ),
            (
                good.replace("01 purpose", "00 purpose"),
                "999.x12d:7: bad position `00`",
            ),
            (
                good.replace("2/2 M", "3/2 M"),
                "999.x12d:7: bad length `3/2`",
            ),
            (
                good.replace("ID 2/2", "XX 2/2"),
                "999.x12d:7: bad type `XX`",
            ),
            (
                good.replace("2/2 M", "2/2 M\n  pairs 02 0 ids[] 2/2 1/48"),
                "999.x12d:8: bad count `0`",
            ),
            (
                good.replace("2/2 M", "2/2 M\n  bogus 1"),
                "999.x12d:8: unexpected `bogus` in a segment",
            ),
            (
                good.replace("seg BEG", "use nosuchblock"),
                "999.x12d:6: unknown block `nosuchblock`",
            ),
            (good.replace("map\n", ""), "999.x12d:5: unexpected `seg`"),
            (
                good.replace("structure\n", ""),
                "999.x12d:2: text outside a section",
            ),
            (
                good.replace("set 999", "sat 999"),
                "999.x12d:1: unexpected `sat`",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(fault(&text), want, "{text}");
        }
    }
}
