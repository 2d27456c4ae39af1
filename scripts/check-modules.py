#!/usr/bin/env python3
"""Fails when the modules of a crate depend on each other in a cycle.

Usage: scripts/check-modules.py [--graph] [CRATE_DIR ...]
       (default: every package of the workspace, from `cargo metadata`)

For each crate (its lib.rs, and main.rs for a binary without a library) it
reads the module tree (`mod x;` files and inline `mod x { }` blocks), the
items each module defines and the names it imports, then every path the
code names: `use` trees and qualified paths (`crate::a::B`, `super::c`,
`child::d()`). A path is resolved to the file that *defines* what it names,
through re-exports (`pub use` in a parent counts as the parent depending on
the child, not as the definition). Each resolved path is an edge from the
file that names it to the file that defines it; a `mod x;` declaration alone
is not an edge. Test code counts like any other code.

It prints each cycle (a strongly connected component of more than one file,
with one cycle through it) and exits 1 when there is one; with `--graph` it
also prints every edge. Comments and string literals are skipped, so doc
links do not count.

The crates of KNOWN have cycles that their owners are removing in work of
their own: theirs are printed, and do not fail the check (a crate of KNOWN
without a cycle is reported, so that its line is removed).
"""

import json
import os
import re
import subprocess
import sys

# Crates whose cycles are owned by work in progress elsewhere (see the docstring).
KNOWN = {}

KEYWORDS_ITEM = {"fn", "struct", "enum", "trait", "type", "const", "static", "union"}


def tokenize(text):
    """Identifiers, `::`, and single punctuation characters; comments,
    strings, chars and numbers are dropped (lifetimes too)."""
    out = []
    i, n = 0, len(text)
    ident = re.compile(r"r#[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*")
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif re.match(r'(br|r|b)?#*"', text[i:i + 8]) and (
            c == '"' or re.match(r'(br|r)#*"|b"', text[i:i + 8])
        ):
            m = re.match(r'(br|r|b)?(#*)"', text[i:])
            prefix, hashes = m.group(1) or "", m.group(2)
            i += m.end()
            if "r" in prefix:
                end = '"' + hashes
                j = text.find(end, i)
                i = n if j < 0 else j + len(end)
            else:
                while i < n and text[i] != '"':
                    i += 2 if text[i] == "\\" else 1
                i += 1
        elif c == "'" or (c == "b" and text.startswith("b'", i)):
            j = i + (2 if c == "b" else 1)
            m = re.match(r"(\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^\\'])'", text[j:])
            if m:
                i = j + m.end()
            else:
                # A lifetime or a label: skip the quote and the name.
                m = ident.match(text, j)
                i = m.end() if m else j
        elif c.isdigit():
            m = re.match(r"[0-9][0-9A-Za-z_.]*", text[i:])
            i += m.end()
            # `1..n`: leave the range dots.
            if text[i - 1] == ".":
                i -= 1
        elif c == ":" and text.startswith("::", i):
            out.append("::")
            i += 2
        else:
            m = ident.match(text, i)
            if m:
                out.append(m.group(0))
                i = m.end()
            else:
                out.append(c)
                i += 1
    return out


class Module:
    def __init__(self, path, file, parent):
        self.path = path  # tuple of names from the crate root
        self.file = file
        self.parent = parent
        self.children = {}
        self.defs = set()
        self.imports = {}  # name -> path tuple
        self.globs = []  # path tuples
        self.refs = []  # path tuples, as written

    def name(self):
        return "::".join(("crate",) + self.path)


def parse_use_tree(toks, i, prefix, out):
    """Reads a use tree at toks[i]; appends (alias, path, glob) to out;
    returns the index after it."""
    path = list(prefix)
    while i < len(toks):
        t = toks[i]
        if t == "{":
            i += 1
            while toks[i] != "}":
                i = parse_use_tree(toks, i, path, out)
                if toks[i] == ",":
                    i += 1
            return i + 1
        if t == "*":
            out.append((None, tuple(path), True))
            return i + 1
        if t == "::":
            i += 1
            continue
        if re.match(r"[A-Za-z_]", t):
            path.append(t)
            i += 1
            if i < len(toks) and toks[i] == "as":
                alias = toks[i + 1]
                out.append((alias, tuple(path), False))
                return i + 2
            if i < len(toks) and toks[i] == "::":
                continue
            out.append((path[-1] if path[-1] != "self" else path[-2], tuple(path), False))
            return i
        return i + 1
    return i


def module_file(directory, name, own_dir):
    for cand in (os.path.join(own_dir, name + ".rs"), os.path.join(own_dir, name, "mod.rs")):
        if os.path.exists(cand):
            return cand
    return None


def load(file, path, parent, own_dir, modules):
    with open(file, encoding="utf-8") as f:
        toks = tokenize(f.read())
    root = Module(path, file, parent)
    modules.append(root)
    parse_items(toks, 0, len(toks), root, own_dir, modules)
    return root


def parse_items(toks, i, end, mod, own_dir, modules):
    """Walks the tokens of a module body, recording definitions, imports,
    child modules and references."""
    depth = 0
    while i < end:
        t = toks[i]
        prev = toks[i - 1] if i > 0 else None
        if t == "mod" and i + 1 < end and re.match(r"[A-Za-z_]", toks[i + 1]) and prev != "::":
            name = toks[i + 1]
            if i + 2 < end and toks[i + 2] == ";":
                f = module_file(None, name, own_dir)
                if f:
                    sub_dir = os.path.join(own_dir, name)
                    child = load(f, mod.path + (name,), mod, sub_dir, modules)
                    mod.children[name] = child
                    mod.defs.add(name)
                i += 3
                continue
            if i + 2 < end and toks[i + 2] == "{":
                close = matching(toks, i + 2)
                child = Module(mod.path + (name,), mod.file, mod)
                modules.append(child)
                mod.children[name] = child
                mod.defs.add(name)
                parse_items(toks, i + 3, close, child, os.path.join(own_dir, name), modules)
                i = close + 1
                continue
        if t == "use" and prev not in ("::",):
            out = []
            j = parse_use_tree(toks, i + 1, [], out)
            for alias, p, glob in out:
                if glob:
                    mod.globs.append(p)
                elif alias and alias != "_":
                    mod.imports[alias] = p
                mod.refs.append(p)
            i = j
            continue
        if t in KEYWORDS_ITEM and i + 1 < end and re.match(r"[A-Za-z_]", toks[i + 1]):
            if depth == 0 or t != "fn":
                mod.defs.add(toks[i + 1])
        if t == "macro_rules" and i + 2 < end and toks[i + 1] == "!":
            mod.defs.add(toks[i + 2])
        if t == "{":
            depth += 1
        elif t == "}":
            depth -= 1
        # A qualified path: NAME :: NAME ... not preceded by `::`.
        if re.match(r"[A-Za-z_]", t) and prev != "::" and i + 1 < end and toks[i + 1] == "::":
            p = [t]
            j = i + 1
            while j + 1 < end and toks[j] == "::" and re.match(r"[A-Za-z_]", toks[j + 1]):
                p.append(toks[j + 1])
                j += 2
            mod.refs.append(tuple(p))
            i = j
            continue
        i += 1


def matching(toks, i):
    depth = 0
    for j in range(i, len(toks)):
        if toks[j] == "{":
            depth += 1
        elif toks[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


class Crate:
    def __init__(self, root_file):
        self.modules = []
        self.root = load(root_file, (), None, os.path.dirname(root_file), self.modules)
        if os.path.basename(root_file) not in ("lib.rs", "main.rs", "mod.rs"):
            # A root file named otherwise (`src/x.rs` as [lib] path) keeps
            # its submodules beside it in a folder of its name.
            pass

    def resolve(self, mod, path, seen=None):
        """The files defining what `path` (as written in `mod`) names, or []
        for names outside the crate."""
        seen = seen or set()
        key = (id(mod), path)
        if key in seen or not path:
            return []
        seen.add(key)
        head, rest = path[0], path[1:]
        if head == "crate":
            return self.walk(self.root, rest, seen)
        if head == "self":
            return self.walk(mod, rest, seen)
        if head == "super":
            m = mod
            while path and path[0] == "super":
                m = m.parent or m
                path = path[1:]
            return self.walk(m, path, seen)
        return self.lookup(mod, path, seen, local=True)

    def lookup(self, mod, path, seen, local=False):
        head, rest = path[0], path[1:]
        if head in mod.children:
            return self.walk(mod.children[head], rest, seen)
        if head in mod.imports:
            target = mod.imports[head]
            files = self.resolve(mod, target, seen)
            if not rest:
                return files
            tm = self.module_at(mod, target)
            if tm is not None:
                return self.walk(tm, rest, seen)
            return files
        if head in mod.defs:
            return [mod.file]
        for g in mod.globs:
            gm = self.module_at(mod, g)
            if gm is not None and (head in gm.defs or head in gm.imports or head in gm.children):
                return self.lookup(gm, path, seen)
        return []

    def walk(self, m, path, seen):
        if not path:
            return [m.file]
        return self.lookup(m, path, seen)

    def module_at(self, mod, path, seen=None):
        """The module a path names, or None."""
        seen = set() if seen is None else seen
        if (id(mod), path) in seen:
            return None
        seen.add((id(mod), path))
        if not path:
            return mod
        head = path[0]
        if head == "crate":
            m, path = self.root, path[1:]
        elif head == "self":
            m, path = mod, path[1:]
        elif head == "super":
            m = mod
            while path and path[0] == "super":
                m = m.parent or m
                path = path[1:]
        elif head in mod.children:
            m, path = mod.children[head], path[1:]
        elif head in mod.imports:
            m = self.module_at(mod, mod.imports[head], seen)
            if m is None:
                return None
            path = path[1:]
        else:
            return None
        for p in path:
            if p in m.children:
                m = m.children[p]
            elif p in m.imports:
                m = self.module_at(m, m.imports[p], seen)
                if m is None:
                    return None
            else:
                return None
        return m

    def edges(self):
        e = {}
        for m in self.modules:
            for p in m.refs:
                for f in self.resolve(m, p):
                    if f != m.file:
                        e.setdefault(m.file, set()).add(f)
        return e


def cycles(edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    nodes = set(edges) | {t for ts in edges.values() for t in ts}
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def one_cycle(comp, edges):
    """A shortest cycle through the first file of a component (BFS)."""
    start = comp[0]
    members = set(comp)
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, ())):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def workspace_roots(top):
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--no-deps", "--format-version", "1"],
            cwd=top, check=True, capture_output=True, text=True,
        ).stdout
    )
    roots = []
    for pkg in meta["packages"]:
        libs = [t for t in pkg["targets"] if set(t["kind"]) & {"lib", "rlib", "cdylib", "staticlib"}]
        bins = [t for t in pkg["targets"] if "bin" in t["kind"]]
        if len(libs) + len(bins) == 1:
            roots.append((pkg["name"], (libs + bins)[0]["src_path"]))
            continue
        roots.extend((pkg["name"], t["src_path"]) for t in libs)
        roots.extend((f"{pkg['name']} (bin {t['name']})", t["src_path"]) for t in bins)
    return roots


def self_test():
    """The check finds what it must: a cycle through a re-export and a
    child's `super::`, none in a parent that only declares and re-exports,
    and nothing from comments, strings or doc links."""
    import tempfile

    def edges_of(files):
        with tempfile.TemporaryDirectory() as d:
            for name, text in files.items():
                path = os.path.join(d, name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
            crate = Crate(os.path.join(d, "lib.rs"))
            e = crate.edges()
            return {(os.path.relpath(a, d), os.path.relpath(b, d)) for a in e for b in e[a]}

    cyclic = edges_of({
        "lib.rs": "mod a;\nmod b;\npub use a::A;\n",
        "a.rs": "pub struct A;\nfn f() { crate::b::g(); }\n",
        "b.rs": "use crate::A;\npub fn g() -> A { A }\n",
    })
    assert ("a.rs", "b.rs") in cyclic and ("b.rs", "a.rs") in cyclic, cyclic
    assert cycles({a: {b for x, b in cyclic if x == a} for a, _ in cyclic})
    clean = edges_of({
        "lib.rs": "mod p;\n",
        "p/mod.rs": "mod c;\nmod t;\npub use t::T;\npub fn run() { c::go() }\n",
        "p/t.rs": "pub struct T; // crate::p::run()\nconst S: &str = \"super::run\";\n",
        "p/c.rs": "/// [`super::run`]\nuse super::t::T;\npub fn go() { let _ = T; }\n",
    })
    assert ("p/c.rs", "p/t.rs") in clean, clean
    assert not cycles({a: {b for x, b in clean if x == a} for a, _ in clean}), clean
    child_up = edges_of({
        "lib.rs": "mod p;\n",
        "p/mod.rs": "mod c;\npub struct T;\npub fn run() { c::go() }\n",
        "p/c.rs": "use super::T;\npub fn go() { let _ = T; }\n",
    })
    assert ("p/c.rs", "p/mod.rs") in child_up and ("p/mod.rs", "p/c.rs") in child_up, child_up


def main():
    self_test()
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show = "--graph" in sys.argv
    top = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    if args:
        roots = []
        for d in args:
            for name in ("src/lib.rs", "src/main.rs", "lib.rs"):
                if os.path.exists(os.path.join(d, name)):
                    roots.append((d, os.path.join(d, name)))
                    break
    else:
        roots = workspace_roots(top)
    bad = 0
    for name, root in roots:
        crate = Crate(root)
        edges = crate.edges()
        rel = lambda f: os.path.relpath(f, top)
        if show:
            for a in sorted(edges):
                for b in sorted(edges[a]):
                    print(f"{name}: {rel(a)} -> {rel(b)}")
        comps = cycles(edges)
        files = len({m.file for m in crate.modules})
        if comps:
            if name.split(" ")[0] in KNOWN:
                print(f"{name}: known cycles ({KNOWN[name.split(' ')[0]]}), not failing:")
            else:
                bad += 1
            for comp in comps:
                cyc = one_cycle(comp, edges)
                print(f"{name}: a cycle through {len(comp)} files: " + " -> ".join(rel(f) for f in cyc))
                if len(comp) > len(cyc) - 1:
                    print("  in the same cycle: " + ", ".join(rel(f) for f in comp if f not in cyc))
        else:
            known = name.split(" ")[0] in KNOWN
            note = " (remove it from KNOWN in scripts/check-modules.py)" if known else ""
            print(f"{name}: {files} files, no module cycle{note}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
