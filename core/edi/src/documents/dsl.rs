//! The declaration language of the transaction sets.
//!
//! A declaration file (`sets/<code>.x12d`) has three parts:
//!
//! ```text
//! set 850 PO 004010 "Purchase Order"      # id, GS01, earliest version, name
//! structure                               # the standard segment tree (reference §6 notation)
//!   BEG M1 CUR O1 REF O>1 … [N1 O200: N2 O2 N3 O2 N4 O>1 …] [PO1 M>1: …] [CTT O1: AMT O1]
//! structure 005010                        # optional: the 5010 tree when it differs
//!   …
//! map                                     # payload mapping, nested by indentation
//! seg BEG
//!   01 purpose ID 2/2 M def=00
//!   03 purchaseOrderNumber AN 1/22 M
//! loop N1 shipTo?01=ST parties[]
//!   use party                             # a block of common.x12d
//! loop PO1 lines[]
//!   seg PO1
//!     02 quantity R 1/15 M
//! ```
//!
//! `seg`/`loop` lines name a node of the structure (`ID` or `ID#n` for the
//! n-th node with that id at that level) and how its occurrences bind to the
//! payload: nothing (fields merge into the current object), `name` (one
//! object), `name[]` (one array item per occurrence), `.` (merge into the
//! current object while none of its fields is set: `seg L1 . charges[]`
//! puts a line's first L1 on the line and the others in `charges`), optionally restricted
//! with `?NN=VALUE` (occurrences whose start segment has that value in element
//! NN, which is then fixed); `always` renders the node even without fields;
//! `@S,O` limits a node of an HL loop to those levels.
//!
//! Element lines: `NN target TYPE MIN/MAX [5010=MIN/MAX] [M|M4010|M5010] [need]
//! [def=VALUE|def=@seq|@date|@time|@sum(ID.NN)] [codes=A,B] [known=A,B] [doc="…"] [only5010]`,
//! where `M…` is the standard's designator (what the structure validation
//! of a received set requires; X and O elements are optional there, their
//! syntax notes are `rule` lines) and `need` marks an element render requires
//! of a payload although the standard does not (PO102), and target is a
//! field path (`address/city`; `stopNumber:int` on an N or R element,
//! `lineNumber:str|int` for an AN identifier render also takes as an
//! integer, mapped back as a string), `"X"` (a
//! constant), `-` (unmapped, validated only) or a derived value
//! (`@count(PO1)`, `@sum(PO1.02)`, `@sumprod(IT1.02*IT1.04)`, `@seq`,
//! `@hl.id`, `@hl.parent`, `@hl.level`, `@hl.child`). `pairs NN COUNT array
//! QMIN/QMAX IMIN/IMAX [Q=field …] [M]` declares qualifier/id pairs (M: the first pair is mandatory); `rule P0304`
//! a syntax rule; `hl CODE path[] [under=A,B] [flat]` a level of an HL loop.
//! A mapping line whose node does not exist in an edition's structure is
//! skipped for that edition (tests check each resolves in at least one).
//!
//! The X12 dictionary the declarations use (`sets/dictionary.x12d`: segment
//! names, the data element at each position, element names, types, lengths
//! and code meanings) has a language of its own: [`parse_dictionary`].

use super::model::*;
use super::syntax::{Rule, RuleKind};

/// A parsed but not yet resolved declaration file.
#[derive(Debug, Clone)]
pub struct Source {
    /// Transaction set id.
    pub code: String,
    /// GS01.
    pub functional_id: String,
    /// Earliest version.
    pub since: String,
    /// Name.
    pub name: String,
    /// Base structure notation, as (line number, text) per line.
    pub structure: Vec<(usize, String)>,
    /// 5010 structure notation, when it differs.
    pub structure_5010: Option<Vec<(usize, String)>>,
    /// Mapping lines.
    pub map: Vec<Line>,
}

/// One mapping line with its children.
#[derive(Debug, Clone)]
pub struct Line {
    /// 1-based line number in its file.
    pub number: usize,
    /// True when the line came from a block (`use`).
    pub from_block: bool,
    /// Whitespace-separated words (quotes removed).
    pub words: Vec<String>,
    /// Indented lines below.
    pub children: Vec<Line>,
}

impl Line {
    /// The line's first word (`seg`, `loop`, `01`, `rule`, …); lines are
    /// never empty (blank lines are not kept).
    pub fn keyword(&self) -> &str {
        self.words.first().map_or("", String::as_str)
    }

    /// Where the line is, for messages: `line N` of the set's file, or
    /// `common.x12d line N` for a line of a block.
    pub fn loc(&self) -> String {
        if self.from_block {
            format!("common.x12d line {}", self.number)
        } else {
            format!("line {}", self.number)
        }
    }
}

fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut had = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                had = true;
                cur.push('"');
            }
            '#' if !quoted && cur.is_empty() => break,
            c if c.is_whitespace() && !quoted => {
                if had {
                    out.push(std::mem::take(&mut cur));
                    had = false;
                }
            }
            c => {
                cur.push(c);
                had = true;
            }
        }
    }
    if had {
        out.push(cur);
    }
    out
}

fn unquote(s: &str) -> String {
    s.replace('"', "")
}

/// Parses blocks (`block NAME` + indented lines) of a common file.
pub fn parse_blocks(text: &str) -> Result<Vec<(String, Vec<Line>)>, String> {
    let lines = tree(text, 0)?;
    let mut out = Vec::new();
    for l in lines {
        match l.words.first().map(String::as_str) {
            Some("block") if l.words.len() == 2 => out.push((l.words[1].clone(), l.children)),
            _ => return Err(format!("line {}: expected `block NAME`", l.number)),
        }
    }
    Ok(out)
}

/// Builds the indentation tree of `text`'s non-empty lines.
fn tree(text: &str, first_line: usize) -> Result<Vec<Line>, String> {
    let mut flat: Vec<(usize, Line)> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let w = words(raw);
        if w.is_empty() {
            continue;
        }
        let indent = raw.len() - raw.trim_start().len();
        flat.push((
            indent,
            Line {
                number: first_line + n + 1,
                from_block: false,
                words: w,
                children: Vec::new(),
            },
        ));
    }
    fn build(flat: &[(usize, Line)], at: &mut usize, indent: usize) -> Result<Vec<Line>, String> {
        let mut out: Vec<Line> = Vec::new();
        while *at < flat.len() {
            let (ind, line) = &flat[*at];
            if *ind < indent {
                break;
            }
            if *ind > indent {
                let Some(parent) = out.last_mut() else {
                    return Err(format!("line {}: unexpected indentation", line.number));
                };
                parent.children = build(flat, at, *ind)?;
                continue;
            }
            out.push(line.clone());
            *at += 1;
        }
        Ok(out)
    }
    let mut at = 0;
    let base = flat.first().map_or(0, |f| f.0);
    build(&flat, &mut at, base)
}

/// Parses a declaration file.
pub fn parse_source(text: &str, blocks: &[(String, Vec<Line>)]) -> Result<Source, String> {
    let mut head: Option<(usize, Vec<String>)> = None;
    let mut structure: Vec<(usize, String)> = Vec::new();
    let mut structure_5010: Option<Vec<(usize, String)>> = None;
    let mut section = "";
    let mut map_start = None;
    for (n, raw) in text.lines().enumerate() {
        let w = words(raw);
        if w.is_empty() {
            continue;
        }
        let top = !raw.starts_with(' ');
        if top {
            match w[0].as_str() {
                "set" => {
                    head = Some((n + 1, w));
                    section = "";
                }
                "structure" if w.len() == 1 => section = "s",
                "structure" if w.get(1).map(String::as_str) == Some("005010") => {
                    section = "s5";
                    structure_5010 = Some(Vec::new());
                }
                "map" => {
                    map_start = Some(n + 1);
                    break;
                }
                _ => return Err(format!("line {}: unexpected `{}`", n + 1, w[0])),
            }
            continue;
        }
        let target = match (section, &mut structure_5010) {
            ("s", _) => &mut structure,
            ("s5", Some(s)) => s,
            _ => return Err(format!("line {}: text outside a section", n + 1)),
        };
        target.push((n + 1, raw.trim().to_string()));
    }
    let (set_line, head) = head.ok_or("line 1: missing `set CODE GS01 VERSION \"Name\"` line")?;
    if head.len() < 5 {
        return Err(format!(
            "line {set_line}: the `set` line is `set CODE GS01 VERSION \"Name\"`"
        ));
    }
    let map_start = map_start.ok_or(format!(
        "line {}: missing `map` section",
        text.lines().count().max(1)
    ))?;
    let body: String = text.lines().skip(map_start).collect::<Vec<_>>().join("\n");
    let mut map = tree(&body, map_start)?;
    expand(&mut map, blocks, 0)?;
    Ok(Source {
        code: head[1].clone(),
        functional_id: head[2].clone(),
        since: head[3].clone(),
        name: unquote(&head[4..].join(" ")),
        structure,
        structure_5010,
        map,
    })
}

/// Replaces `use NAME` lines by the block's lines.
fn expand(
    lines: &mut Vec<Line>,
    blocks: &[(String, Vec<Line>)],
    depth: usize,
) -> Result<(), String> {
    if depth > 8 {
        let at = lines.first().map_or_else(|| "line 1".into(), Line::loc);
        return Err(format!(
            "{at}: blocks nest too deep (a block that uses itself?)"
        ));
    }
    let mut out = Vec::with_capacity(lines.len());
    for mut l in std::mem::take(lines) {
        if l.keyword() == "use" {
            let name = l.words.get(1).ok_or(format!("{}: `use NAME`", l.loc()))?;
            let (_, b) = blocks
                .iter()
                .find(|(n, _)| n == name)
                .ok_or(format!("{}: unknown block `{name}`", l.loc()))?;
            let mut b = b.clone();
            mark(&mut b);
            expand(&mut b, blocks, depth + 1)?;
            out.extend(b);
        } else {
            expand(&mut l.children, blocks, depth)?;
            out.push(l);
        }
    }
    *lines = out;
    Ok(())
}

fn mark(lines: &mut [Line]) {
    for l in lines {
        l.from_block = true;
        mark(&mut l.children);
    }
}

/// A token of the structure notation and its line.
type Tok<'a> = (usize, &'a str);

/// Parses the reference's structure notation, given as a file's structure
/// lines (line number, text), into nodes; errors name the line.
fn parse_structure_lines(lines: &[(usize, String)]) -> Result<Vec<Node>, String> {
    let spaced: Vec<(usize, String)> = lines
        .iter()
        .map(|(n, s)| {
            let s = s
                .replace('[', " [ ")
                .replace(']', " ] ")
                .replace(':', " : ");
            (*n, s)
        })
        .collect();
    let toks: Vec<Tok<'_>> = spaced
        .iter()
        .flat_map(|(n, s)| s.split_whitespace().map(move |t| (*n, t)))
        .collect();
    let last = toks
        .last()
        .map_or(lines.first().map_or(1, |l| l.0), |t| t.0);
    let mut at = 0;
    let nodes = seq(&toks, &mut at, last)?;
    if let Some((n, t)) = toks.get(at) {
        return Err(format!("line {n}: structure: unexpected `{t}`"));
    }
    Ok(nodes)
}

fn req((n, t): Tok<'_>) -> Result<(bool, u32), String> {
    let (mandatory, rest) = if let Some(rest) = t.strip_prefix('M') {
        (true, rest)
    } else if let Some(rest) = t.strip_prefix('O') {
        (false, rest)
    } else {
        return Err(format!("line {n}: structure: bad requirement `{t}`"));
    };
    let max = if rest == ">1" {
        u32::MAX
    } else {
        match rest.parse() {
            Ok(m) if m > 0 => m,
            _ => return Err(format!("line {n}: structure: bad max `{t}`")),
        }
    };
    Ok((mandatory, max))
}

/// A segment id of the structure: 2–3 upper-case letters or digits.
fn seg_id((n, t): Tok<'_>) -> Result<&str, String> {
    if (2..=3).contains(&t.len())
        && t.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    {
        Ok(t)
    } else {
        Err(format!("line {n}: structure: bad segment id `{t}`"))
    }
}

/// Nodes up to the next `]` (or the end); `last`: the line of the last token.
fn seq(t: &[Tok<'_>], at: &mut usize, last: usize) -> Result<Vec<Node>, String> {
    let truncated = |what: &str| format!("line {last}: structure: truncated {what}");
    let mut out = Vec::new();
    while let Some(&tok) = t.get(*at).filter(|x| x.1 != "]") {
        if tok.1 == "[" {
            let id = seg_id(*t.get(*at + 1).ok_or_else(|| truncated("loop"))?)?;
            let (mandatory, max) = req(*t.get(*at + 2).ok_or_else(|| truncated("loop"))?)?;
            if t.get(*at + 3).map(|x| x.1) != Some(":") {
                return Err(format!(
                    "line {}: structure: expected `:` after loop {id}",
                    tok.0
                ));
            }
            *at += 4;
            let mut children = vec![Node {
                id: id.to_string(),
                key: id_key(id.as_bytes()),
                mandatory: true,
                max: 1,
                children: None,
                map: None,
            }];
            children.extend(seq(t, at, last)?);
            if t.get(*at).map(|x| x.1) != Some("]") {
                return Err(format!(
                    "line {}: structure: loop {id} is not closed",
                    tok.0
                ));
            }
            *at += 1;
            out.push(Node {
                id: id.to_string(),
                key: id_key(id.as_bytes()),
                mandatory,
                max,
                children: Some(children),
                map: None,
            });
        } else {
            let id = seg_id(tok)?;
            let (mandatory, max) = req(*t.get(*at + 1).ok_or_else(|| truncated("segment"))?)?;
            *at += 2;
            out.push(Node {
                id: id.to_string(),
                key: id_key(id.as_bytes()),
                mandatory,
                max,
                children: None,
                map: None,
            });
        }
    }
    Ok(out)
}

/// Line numbers of the file's own `seg`/`loop` mapping lines (not those of
/// blocks), at any depth.
pub fn own_map_lines(src: &Source) -> Vec<usize> {
    fn walk(ls: &[Line], out: &mut Vec<usize>) {
        for l in ls {
            if !l.from_block && matches!(l.keyword(), "seg" | "loop") {
                out.push(l.number);
            }
            walk(&l.children, out);
        }
    }
    let mut out = Vec::new();
    walk(&src.map, &mut out);
    out
}

/// Compiles a source for an edition. Returns the declaration and the
/// numbers of the (non-block) mapping lines that resolved.
pub fn compile(src: &Source, edition: Edition) -> Result<(SetDecl, Vec<usize>), String> {
    let text = match (edition, &src.structure_5010) {
        (Edition::V5010, Some(s)) => s,
        _ => &src.structure,
    };
    let mut body = parse_structure_lines(text)?;
    let mut resolved = Vec::new();
    attach(&mut body, &src.map, edition, &mut resolved, false)?;
    Ok((
        SetDecl {
            code: src.code.clone(),
            functional_id: src.functional_id.clone(),
            since: src.since.clone(),
            name: src.name.clone(),
            edition,
            body,
        },
        resolved,
    ))
}

/// Finds the node a `seg`/`loop` line names.
fn find(nodes: &[Node], name: &str, want_loop: bool) -> Option<usize> {
    let (id, nth) = match name.split_once('#') {
        Some((id, n)) => (id, n.parse::<usize>().ok().filter(|&n| n >= 1)?),
        None => (name, 1),
    };
    let mut candidates = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.id == id && (!want_loop || n.is_loop()));
    if nth == 1 && !want_loop {
        // Prefer a plain segment; fall back to a loop that starts with it.
        let plain: Vec<usize> = nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.id == id && !n.is_loop())
            .map(|(i, _)| i)
            .collect();
        if let Some(&i) = plain.first() {
            return Some(i);
        }
    }
    candidates.nth(nth - 1).map(|(i, _)| i)
}

fn attach(
    nodes: &mut [Node],
    lines: &[Line],
    ed: Edition,
    resolved: &mut Vec<usize>,
    in_loop: bool,
) -> Result<(), String> {
    for l in lines {
        let kw = l.keyword();
        match kw {
            "seg" | "loop" => {
                let name = l.words.get(1).ok_or(format!("{}: `{kw} ID`", l.loc()))?;
                let Some(i) = find(nodes, name, kw == "loop") else {
                    continue;
                };
                if !l.from_block {
                    resolved.push(l.number);
                }
                let node = &mut nodes[i];
                let mut map = node_map(l)?;
                if node.max == 1 {
                    // A node that does not repeat here has no further
                    // occurrences: a block's `. name[]` / `x name[]` keeps
                    // only its single binding.
                    if let Some(k) = map.binds.iter().position(|b| !b.array && b.when.is_none()) {
                        map.binds.truncate(k + 1);
                    }
                }
                if let Some(children) = node.children.as_mut() {
                    let (seg_lines, rest): (Vec<Line>, Vec<Line>) = if kw == "seg" {
                        // `seg X` naming a loop: its lines describe the start segment.
                        (
                            vec![Line {
                                number: l.number,
                                from_block: true,
                                words: vec!["seg".into(), node.id.clone()],
                                children: l.children.clone(),
                            }],
                            Vec::new(),
                        )
                    } else {
                        (Vec::new(), l.children.clone())
                    };
                    for h in rest.iter().filter(|c| c.keyword() == "hl") {
                        map.hier.push(hl_level(h)?);
                    }
                    let rest: Vec<Line> =
                        rest.into_iter().filter(|c| c.keyword() != "hl").collect();
                    attach(children, &seg_lines, ed, resolved, true)?;
                    attach(children, &rest, ed, resolved, true)?;
                    node.map = Some(map);
                } else {
                    for c in &l.children {
                        match c.keyword() {
                            "rule" => map.rules.push(rule(c)?),
                            "pairs" => map.elements.push(pairs(c)?),
                            w if w.len() == 2 && w.bytes().all(|b| b.is_ascii_digit()) => {
                                if ed == Edition::V5010 || !c.words.iter().any(|x| x == "only5010")
                                {
                                    map.elements.push(element(c, ed)?)
                                }
                            }
                            w => {
                                return Err(format!("{}: unexpected `{w}` in a segment", c.loc()));
                            }
                        }
                    }
                    map.elements.sort_by_key(|e| e.pos);
                    // Lines for the same node merge (a block plus set-specific additions).
                    match &mut node.map {
                        Some(old) if !old.elements.is_empty() && !map.elements.is_empty() => {
                            for e in map.elements {
                                old.elements.retain(|o| o.pos != e.pos);
                                old.elements.push(e);
                            }
                            old.elements.sort_by_key(|e| e.pos);
                            old.rules.extend(map.rules);
                        }
                        _ => node.map = Some(map),
                    }
                    if let Some(m) = &mut node.map {
                        m.mapped = NodeMap::mapped_positions(&m.elements);
                        m.last = NodeMap::last_position(&m.elements);
                        m.plan = super::decode::plan(&m.elements);
                    }
                }
            }
            _ => {
                return Err(format!(
                    "{}: unexpected `{kw}`{}",
                    l.loc(),
                    if in_loop { " in a loop" } else { "" }
                ));
            }
        }
    }
    Ok(())
}

fn path(s: &str) -> Vec<String> {
    s.split('/').map(str::to_string).collect()
}

fn node_map(l: &Line) -> Result<NodeMap, String> {
    let mut m = NodeMap::default();
    for w in &l.words[2..] {
        if w == "always" {
            m.always = true;
        } else if w == "." {
            // Merge into the current object (while its fields are free).
            m.binds.push(Bind {
                path: Vec::new(),
                array: false,
                when: None,
            });
        } else if let Some(levels) = w.strip_prefix('@') {
            m.levels = levels.split(',').map(str::to_string).collect();
        } else {
            let (p, when) = match w.split_once('?') {
                Some((p, cond)) => {
                    let (pos, val) = cond
                        .split_once('=')
                        .ok_or(format!("{}: `name?NN=VALUE`", l.loc()))?;
                    let pos = position(pos, &l.loc())?;
                    (p, Some((pos, val.to_string())))
                }
                None => (w.as_str(), None),
            };
            let (p, array) = match p.strip_suffix("[]") {
                Some(p) => (p, true),
                None => (p, false),
            };
            m.binds.push(Bind {
                path: path(p),
                array,
                when,
            });
        }
    }
    Ok(m)
}

fn hl_level(l: &Line) -> Result<HlLevel, String> {
    let code = l
        .words
        .get(1)
        .ok_or(format!("{}: `hl CODE path`", l.loc()))?;
    let p = l
        .words
        .get(2)
        .ok_or(format!("{}: `hl CODE path`", l.loc()))?;
    let (p, array) = match p.strip_suffix("[]") {
        Some(p) => (p, true),
        None => (p.as_str(), false),
    };
    let mut lvl = HlLevel {
        code: code.clone(),
        path: path(p),
        array,
        under: Vec::new(),
        flat: false,
    };
    for w in &l.words[3..] {
        if w == "flat" {
            lvl.flat = true;
        } else if let Some(u) = w.strip_prefix("under=") {
            lvl.under = u.split(',').map(str::to_string).collect();
        } else {
            return Err(format!("{}: unexpected `{w}`", l.loc()));
        }
    }
    Ok(lvl)
}

fn rule(l: &Line) -> Result<Rule, String> {
    let r = l.words.get(1).ok_or(format!("{}: `rule P0304`", l.loc()))?;
    let bad = || format!("{}: bad rule `{r}`", l.loc());
    // The letter is ASCII, so the digits start at byte 1.
    let kind = r
        .chars()
        .next()
        .and_then(RuleKind::from_letter)
        .ok_or_else(bad)?;
    let digits = &r.as_bytes()[1..];
    if digits.len() % 2 != 0 || digits.len() < 4 {
        return Err(bad());
    }
    let positions = digits
        .chunks(2)
        .map(|d| {
            std::str::from_utf8(d)
                .ok()?
                .parse::<u8>()
                .ok()
                .filter(|&p| p >= 1)
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(bad)?;
    Ok(Rule { kind, positions })
}

fn len(s: &str, n: &str) -> Result<(u16, u16), String> {
    let (a, b) = s.split_once('/').ok_or(format!("{n}: length `MIN/MAX`"))?;
    match (a.parse::<u16>(), b.parse::<u16>()) {
        (Ok(min), Ok(max)) if min <= max && max >= 1 => Ok((min, max)),
        _ => Err(format!("{n}: bad length `{s}`")),
    }
}

/// A 1-based element position (`01` … `99`).
fn position(s: &str, n: &str) -> Result<u8, String> {
    match s.parse::<u8>() {
        Ok(p) if (1..=99).contains(&p) => Ok(p),
        _ => Err(format!("{n}: bad position `{s}`")),
    }
}

fn xtype(s: &str, n: &str) -> Result<XType, String> {
    Ok(match s {
        "AN" => XType::AN,
        "ID" => XType::ID,
        "R" => XType::R,
        "DT" => XType::DT,
        "TM" => XType::TM,
        s if s.len() == 2 && s.starts_with('N') => {
            XType::N(s[1..].parse().map_err(|_| format!("{n}: bad type `{s}`"))?)
        }
        _ => return Err(format!("{n}: bad type `{s}`")),
    })
}

fn derive(s: &str, n: &str) -> Result<Derive, String> {
    let seg_el = |a: &str| -> Result<(String, u8), String> {
        let (id, el) = a.split_once('.').ok_or(format!("{n}: `ID.NN` in `{s}`"))?;
        Ok((id.to_string(), position(el, n)?))
    };
    let arg = |p: &str| s.strip_prefix(p).and_then(|r| r.strip_suffix(')'));
    Ok(match s {
        "@seq" => Derive::Seq,
        "@hl.id" => Derive::HlId,
        "@hl.parent" => Derive::HlParent,
        "@hl.level" => Derive::HlLevel,
        "@hl.child" => Derive::HlChild,
        "@date" => Derive::Date,
        "@time" => Derive::Time,
        _ => {
            if let Some(a) = arg("@count(") {
                Derive::Count(a.to_string())
            } else if let Some(a) = arg("@sum(") {
                let (id, el) = seg_el(a)?;
                Derive::Sum(id, el)
            } else if let Some(a) = arg("@sumprod(") {
                let (x, y) = a
                    .split_once('*')
                    .ok_or(format!("{n}: `@sumprod(A.NN*A.MM)`"))?;
                let (id, e1) = seg_el(x)?;
                let (_, e2) = seg_el(y)?;
                Derive::SumProduct(id, e1, e2)
            } else {
                return Err(format!("{n}: unknown derived value `{s}`"));
            }
        }
    })
}

fn element(l: &Line, ed: Edition) -> Result<ElDecl, String> {
    let n = &l.loc();
    let w = &l.words;
    if w.len() < 4 {
        return Err(format!("{n}: `NN target TYPE MIN/MAX …`"));
    }
    let pos = position(&w[0], n)?;
    let xt = xtype(&w[2], n)?;
    let (mut min, mut max) = len(&w[3], n)?;
    let mut ptype = match xt {
        XType::AN | XType::ID => PType::Str,
        XType::N(0) => PType::Int,
        XType::N(_) | XType::R => PType::Num,
        XType::DT => PType::Date,
        XType::TM => PType::Time,
    };
    let t = &w[1];
    let target = if t == "-" {
        Target::Unmapped
    } else if t.starts_with('"') {
        Target::Const(unquote(t))
    } else if t.starts_with('@') {
        Target::Derived(derive(t, n)?)
    } else {
        let (p, ty) = match t.split_once(':') {
            Some((p, ty)) => (p, Some(ty)),
            None => (t.as_str(), None),
        };
        if let Some(ty) = ty {
            let numeric = matches!(xt, XType::N(_) | XType::R);
            ptype = match ty {
                "int" if numeric => PType::Int,
                "num" if numeric => PType::Num,
                "str" => PType::Str,
                "str|int" if matches!(xt, XType::AN) => PType::StrOrInt,
                "int" | "num" => {
                    return Err(format!(
                        "{n}: `:{ty}` on a {} element (numbers only for N and R types)",
                        xt.name()
                    ));
                }
                _ => return Err(format!("{n}: bad field type `{ty}`")),
            };
        }
        Target::Field(path(p))
    };
    let mut e = ElDecl {
        pos,
        xtype: xt,
        min,
        max,
        mandatory: false,
        need: false,
        target,
        ptype,
        default: None,
        codes: None,
        known: None,
        doc: None,
    };
    for a in &w[4..] {
        let list = |v: &str| v.split(',').map(str::to_string).collect::<Vec<_>>();
        match a.as_str() {
            "M" => e.mandatory = true,
            "need" => e.need = true,
            "only5010" => {}
            "M5010" => e.mandatory = ed == Edition::V5010,
            "M4010" => e.mandatory = ed == Edition::Base,
            _ => {
                if let Some(v) = a.strip_prefix("5010=") {
                    if ed == Edition::V5010 {
                        (min, max) = len(v, n)?;
                        e.min = min;
                        e.max = max;
                    }
                } else if let Some(v) = a.strip_prefix("def=") {
                    e.default = Some(if v.starts_with('@') {
                        Default::Derived(derive(v, n)?)
                    } else {
                        Default::Literal(unquote(v))
                    });
                } else if let Some(v) = a.strip_prefix("codes=") {
                    e.codes = Some(list(v));
                } else if let Some(v) = a.strip_prefix("known=") {
                    e.known = Some(list(v));
                } else if let Some(v) = a.strip_prefix("doc=") {
                    e.doc = Some(unquote(v));
                } else {
                    return Err(format!("{n}: unexpected `{a}`"));
                }
            }
        }
    }
    Ok(e)
}

fn pairs(l: &Line) -> Result<ElDecl, String> {
    let n = &l.loc();
    let w = &l.words;
    if w.len() < 6 {
        return Err(format!(
            "{n}: `pairs NN COUNT array QMIN/QMAX IMIN/IMAX [Q=field …]`"
        ));
    }
    let pos = position(&w[1], n)?;
    let count: u8 = match w[2].parse() {
        Ok(c) if c >= 1 && pos as usize + 2 * c as usize - 1 <= 99 => c,
        _ => return Err(format!("{n}: bad count `{}`", w[2])),
    };
    let mandatory = w[6..].iter().any(|x| x == "M");
    let promote = w[6..]
        .iter()
        .filter(|x| *x != "M")
        .map(|p| {
            p.split_once('=')
                .map(|(q, f)| (q.to_string(), f.to_string()))
                .ok_or(format!("{n}: `QUALIFIER=field`"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ElDecl {
        pos,
        xtype: XType::AN,
        min: 1,
        max: 48,
        mandatory,
        need: false,
        target: Target::Pairs(Box::new(Pairs {
            count,
            array: path(&w[3]),
            promote,
            qualifier_len: len(&w[4], n)?,
            id_len: len(&w[5], n)?,
        })),
        ptype: PType::Str,
        default: None,
        codes: None,
        known: None,
        doc: None,
    })
}

/// Parses the dictionary file (`sets/dictionary.x12d`):
///
/// ```text
/// segment N1 "Name" 5010="Party Identification"
///   01 98                  # position and data element number
///   03 - 5010=1705         # `-`: no element there in the base edition
///   01 I01 M               # M: mandatory (segments no declaration describes)
/// element 127 AN 1/30 5010=1/50 "Reference Identification"
/// element 353 ID 2/2 "Transaction Set Purpose Code"
///   00 Original            # a code and its meaning
/// element C030 C "Position in Segment"   # a composite
/// ```
///
/// Errors name the line. Every element number a segment uses must have an
/// `element` entry, and ids and numbers are unique.
pub fn parse_dictionary(text: &str) -> Result<Dictionary, String> {
    let mut d = Dictionary::default();
    for l in tree(text, 0)? {
        let n = format!("line {}", l.number);
        match l.keyword() {
            "segment" => d.segments.push(dict_segment(&l, &n)?),
            "element" => d.elements.push(dict_element(&l, &n)?),
            w => return Err(format!("{n}: expected `segment` or `element`, not `{w}`")),
        }
    }
    for (i, s) in d.segments.iter().enumerate() {
        if d.segments[..i].iter().any(|o| o.id == s.id) {
            return Err(format!("dictionary: segment {} is listed twice", s.id));
        }
        for p in &s.positions {
            for num in p.base.iter().chain(&p.v5010) {
                if d.element(num).is_none() {
                    return Err(format!(
                        "dictionary: {}{:02} uses element {num}, which has no `element` entry",
                        s.id, p.pos
                    ));
                }
            }
        }
    }
    for (i, e) in d.elements.iter().enumerate() {
        if d.elements[..i].iter().any(|o| o.number == e.number) {
            return Err(format!("dictionary: element {} is listed twice", e.number));
        }
    }
    Ok(d)
}

fn dict_segment(l: &Line, n: &str) -> Result<DictSegment, String> {
    let w = &l.words;
    let (Some(id), Some(name)) = (w.get(1), w.get(2)) else {
        return Err(format!("{n}: `segment ID \"Name\" [5010=\"Name\"]`"));
    };
    seg_id((l.number, id))?;
    let mut name_5010 = None;
    for a in &w[3..] {
        match a.strip_prefix("5010=") {
            Some(v) => name_5010 = Some(unquote(v)),
            None => return Err(format!("{n}: unexpected `{a}`")),
        }
    }
    let mut positions: Vec<DictPosition> = Vec::new();
    for c in &l.children {
        let cn = format!("line {}", c.number);
        let w = &c.words;
        let pos = position(&w[0], &cn)?;
        let Some(num) = w.get(1) else {
            return Err(format!("{cn}: `NN ELEMENT [M] [5010=ELEMENT]`"));
        };
        let number = |s: &str| (s != "-").then(|| s.to_string());
        let mut p = DictPosition {
            pos,
            base: number(num),
            v5010: number(num),
            mandatory: false,
        };
        for a in &w[2..] {
            if a == "M" {
                p.mandatory = true;
            } else if let Some(v) = a.strip_prefix("5010=") {
                p.v5010 = number(v);
            } else {
                return Err(format!("{cn}: unexpected `{a}`"));
            }
        }
        if positions.last().is_some_and(|q| q.pos >= pos) {
            return Err(format!("{cn}: positions must increase"));
        }
        positions.push(p);
    }
    Ok(DictSegment {
        id: id.clone(),
        name: unquote(name),
        name_5010,
        positions,
    })
}

fn dict_element(l: &Line, n: &str) -> Result<DictElement, String> {
    let w = &l.words;
    let bad = || format!("{n}: `element NUMBER TYPE MIN/MAX [5010=MIN/MAX] \"Name\"`");
    let (Some(number), Some(xt)) = (w.get(1), w.get(2)) else {
        return Err(bad());
    };
    let (len, len_5010, rest) = if xt == "C" {
        ((0, 0), (0, 0), &w[3..])
    } else {
        xtype(xt, n)?;
        let base = len(w.get(3).ok_or_else(bad)?, n)?;
        match w.get(4).and_then(|a| a.strip_prefix("5010=")) {
            Some(v) => (base, len(v, n)?, &w[5..]),
            None => (base, base, &w[4..]),
        }
    };
    let name = match rest {
        [name] if name.starts_with('"') => unquote(name),
        _ => return Err(bad()),
    };
    let mut codes: Vec<(String, String)> = Vec::new();
    for c in &l.children {
        let meaning = c.words[1..].join(" ");
        if meaning.is_empty() {
            return Err(format!("line {}: `CODE Meaning`", c.number));
        }
        if codes.iter().any(|(k, _)| *k == c.words[0]) {
            return Err(format!(
                "line {}: code {} is listed twice",
                c.number, c.words[0]
            ));
        }
        codes.push((c.words[0].clone(), meaning));
    }
    Ok(DictElement {
        number: number.clone(),
        xtype: xt.clone(),
        len,
        len_5010,
        name,
        codes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_structure(s: &str) -> Result<Vec<Node>, String> {
        parse_structure_lines(&[(1, s.to_string())])
    }

    #[test]
    fn structure_notation() {
        let n = parse_structure("BEG M1 REF O>1 [N1 O200: N2 O2 [N3 O1: N4 M1]] CTT O1").unwrap();
        assert_eq!(n.len(), 4);
        assert_eq!(n[1].max, u32::MAX);
        let l = n[2].children.as_ref().unwrap();
        assert_eq!(l[0].id, "N1");
        assert_eq!(l[2].children.as_ref().unwrap()[1].id, "N4");
        assert!(parse_structure("[N1 O2 N2 O1]").is_err());
        assert!(parse_structure("BEG X1").is_err());
    }

    #[test]
    fn words_keep_quotes_and_drop_comments() {
        assert_eq!(
            words(r#"  01 "ST" ID 2/3 M doc="a b" # c"#),
            ["01", "\"ST\"", "ID", "2/3", "M", "doc=\"a b\""]
        );
    }
}
