#!/usr/bin/env python3
"""Runs every command shown in the README and the docs, as written.

In a fenced block of README.md, docs/*.md and bindings/*/README.md, a line starting with `$ ` is a command (a trailing `\\`
continues it on the next line); the lines after it, up to the next command or
the end of the block, are its expected output (stdout then stderr, as a
terminal shows them). Each block runs in one bash session (so `export`,
files written and `$?` carry from one command to the next) in a scratch
folder where every top-level entry of the repository is visible, with the
`x12kit` CLI (a fresh build) on the PATH. A command whose expected output is
given must print exactly that; every command must exit 0, unless the next
command of the block is `echo $?` (which then shows the status).

A block preceded by the line `<!-- not run: reason -->` is skipped, with its
reason counted and shown.

A block preceded by `<!-- run against: x12kit-server CONFIG -->` runs with a
fresh reference server started for it (`x12kit-server --config CONFIG
--listen 127.0.0.1:0` on an empty SQLite file in a temporary folder, stopped
after the block): `http://127.0.0.1:8080` in its commands is replaced by the
address the server bound, and, in expected and actual output alike, UUIDs,
prefixed ids such as `doc_<32 hex digits>`, RFC 3339 times, X12 dates/times of the envelope headers and the
`X-RateLimit-Reset` value are replaced by placeholders, since they change
from run to run; everything else must match.

`target` in the scratch folder is the cargo target directory (whatever
CARGO_TARGET_DIR says), so `target/release/...` in a command means what it
means in a clone built with the defaults. Blocks run in the order of the
file, so a block may use what an earlier block of the same file built there
(docs/c.md builds the C library in its first block).

A block preceded by `<!-- run after: SUITE -->` (python, node, wasm) uses what
that binding suite builds (AFTER below: the Python venv, whose `python` comes
first on PATH, as in a shell where it is active; the Node addon; the WASM
package); while that is not built, the block is skipped with the reason.

A command shown in a shell fence (sh, bash, shell, console, zsh) without the
`$ ` prefix is not run. Each such line must be listed in NOT_RUN below with the
reason (a long-running server, a whole test suite, build or benchmark, a
placeholder such as `prog.c` or `FILE`); an unlisted one, or a
listed one the docs no longer show, fails the check (one test: "shown
commands"). The listed ones are printed with their reasons.

Usage: tests/docs/check_docs.py [FILE.md ...]     (from anywhere)
Prints one line per block and ends with `docs: N passed, N failed, N skipped`.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARK = "@@x12kit-docs-command@@"
# Per block; generous because docs/c.md's first block makes the release build of
# the C library, minutes on a cold 2-core machine (the C suite then finds it built).
BLOCK_TIMEOUT = 1200


def default_files():
    files = [ROOT / "README.md"]
    files += sorted((ROOT / "docs").glob("*.md"))
    files += sorted(ROOT.glob("bindings/*/README.md"))
    # examples/server/README.md shows calls against a running server with
    # live ids and dates; its suite (examples/server/test.sh) makes those calls.
    return [f for f in files if f.exists()]


def blocks(path):
    """(line number, commands [(command, expected lines)], skip reason) per fenced block with commands."""
    lines = path.read_text(encoding="utf-8").split("\n")
    i, out = 0, []
    while i < len(lines):
        m = re.match(r"^(\s*)```", lines[i])
        if not m:
            i += 1
            continue
        start = i
        reason = None
        server = None
        after = None
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0:
            r = re.match(r"<!--\s*not run:\s*(.*?)\s*-->", lines[j].strip())
            if r:
                reason = r.group(1)
            r = re.match(r"<!--\s*run against:\s*x12kit-server\s+(\S+)\s*-->", lines[j].strip())
            if r:
                server = r.group(1)
            r = re.match(r"<!--\s*run after:\s*(\S+)\s*-->", lines[j].strip())
            if r:
                after = r.group(1)
        indent = m.group(1)
        i += 1
        body = []
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1
        cmds = []
        k = 0
        while k < len(body):
            if body[k].startswith("$ "):
                cmd = body[k][2:]
                while cmd.endswith("\\") and k + 1 < len(body):
                    k += 1
                    cmd = cmd + "\n" + body[k]
                expected = []
                k += 1
                while k < len(body) and not body[k].startswith("$ "):
                    expected.append(body[k])
                    k += 1
                while expected and not expected[-1].strip():
                    expected.pop()
                cmds.append((cmd, expected))
            else:
                k += 1
        if cmds:
            out.append((start + 1, cmds, reason, server, after))
    return out


def scratch(target_dir):
    d = Path(tempfile.mkdtemp(prefix="x12kit-docs-"))
    for entry in ROOT.iterdir():
        if entry.name in (".git", "target"):
            continue
        (d / entry.name).symlink_to(entry)
    # Where cargo builds, as `target` is in a clone built with the defaults.
    (d / "target").symlink_to(target_dir)
    return d


# What `<!-- run after: SUITE -->` blocks need: the file a binding suite builds,
# what it is, and the folder put first on PATH for the block (the venv's `python`).
AFTER = {
    "python": (".venv-python/bin/python", "the venv bindings/python/test.sh installs the release wheel into", ".venv-python/bin"),
    "node": ("bindings/node/x12kit.linux-x64-gnu.node", "the addon bindings/node/test.sh builds", None),
    "wasm": ("bindings/wasm/pkg/node/x12kit_wasm.js", "the package bindings/wasm/test.sh builds with build.sh", None),
}

SHELL_FENCES = ("sh", "bash", "shell", "console", "zsh")

# Commands shown in a shell fence without `$ `, which this check does not run,
# each with why: (file, the shown line's start or a pattern it matches, reason). A shown command that
# is not listed fails the check, and so does an entry the docs no longer show.
SUITE = "a whole test suite; scripts/test.sh runs it (and so CI)"
NOT_RUN = [
    ("README.md", "cargo run --release -p x12kit-server", "starts the server, which runs until stopped; "
     "examples/server/test.sh runs the server, and the `run against` blocks run a fresh one each"),
    ("README.md", "curl -H 'Authorization: Bearer x12k_demo_alpha'", "needs the server of the line before it running"),
    ("README.md", "scripts/test.sh", "the whole test run itself (CI runs it through .ci/run)"),
    # Only lines with a placeholder: FILE, JSON, `[...]` options, `...` / `…`.
    ("README.md", re.compile(r"x12kit [a-z-]+ .*(FILE|JSON|\[|\.\.\.|…)"), "the CLI's usage synopsis (FILE, N, "
     "... are placeholders); the README's and docs' `$ ` blocks run each command on real files"),
    ("README.md", "bindings/wasm/serve.sh", "serves the page until stopped; bindings/wasm/test.sh drives the page"),
    ("README.md", "bindings/wasm/test.sh", SUITE),
    ("README.md", "gcc -std=c99 prog.c", "prog.c stands for the reader's program; docs/c.md runs the same "
     "line on examples/c/validate_file.c"),
    ("bindings/node/README.md", "npm install", "installs the dev tools from the npm registry into bindings/node; "
     "bindings/node/test.sh runs it when node_modules is missing or stale"),
    ("bindings/node/README.md", "npm run build", "the addon's release build (minutes); bindings/node/test.sh runs "
     "the same napi build and fails when binding.js/binding.d.ts drift"),
    ("bindings/node/README.md", "npm test", SUITE),
    ("bindings/node/README.md", "npm pack", "writes the tarball into bindings/node; package.test.mjs (Node suite) "
     "packs it into a temporary folder and installs it"),
    ("bindings/node/README.md", "node bench/gen.mjs 10", "writes a 10 MB file for the benchmark"),
    ("bindings/node/README.md", "node bench/parse-paths.mjs", "a benchmark (best of 5 on 10 MB)"),
    ("bindings/python/README.md", "pip install ./bindings/python", "builds the release wheel (minutes); "
     "bindings/python/test.sh runs this line in a fresh venv and imports the installed module"),
    ("bindings/python/README.md", "bindings/python/test.sh", SUITE),
    ("bindings/wasm/README.md", "bindings/wasm/build.sh", "the release wasm build and wasm-opt (minutes); "
     "bindings/wasm/test.sh runs it first"),
    ("bindings/wasm/README.md", "bindings/wasm/test.sh", SUITE),
    ("bindings/wasm/README.md", "bindings/wasm/serve.sh", "serves the page until stopped; bindings/wasm/test.sh "
     "drives the page"),
    ("bindings/wasm/README.md", "bindings/wasm/bench/run.sh", "the benchmark (minutes; installs the peers from npm)"),
    ("examples/server/README.md", "X12KIT_SOAK_SECONDS=900 cargo test", "a 15-minute soak by hand (and a release "
     "build); the server suite runs the same test for 60 seconds"),
]


def shown_commands(path):
    """(line number, text) of each command shown in a shell fence without `$ `."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^\s*```\s*([A-Za-z0-9_+-]*)", lines[i])
        if not m:
            i += 1
            continue
        lang = m.group(1).lower()
        i += 1
        prompt = False
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            text = lines[i].strip()
            if lang in SHELL_FENCES:
                if text.startswith("$ "):
                    prompt = True  # what follows is its output, up to the next `$ `
                elif not prompt and text and not text.startswith("#"):
                    if out and out[-1][2] and out[-1][1].endswith("\\"):
                        out[-1] = (out[-1][0], out[-1][1] + "\n" + text, True)
                    else:
                        out.append((i + 1, text, True))
            i += 1
        i += 1
    return [(n, t) for n, t, _ in out]


def listed(text, start):
    return start.match(text) is not None if isinstance(start, re.Pattern) else text.startswith(start)


def check_shown(files):
    """Lists the shown commands not run, with their reasons; returns the problems."""
    problems, used = [], set()
    for f in files:
        rel = str(f.relative_to(ROOT)) if f.is_relative_to(ROOT) else str(f)
        for line, text in shown_commands(f):
            hit = [k for k, (where, start, _) in enumerate(NOT_RUN) if where == rel and listed(text, start)]
            if not hit:
                problems.append(f"{rel}:{line}: `{text}` is shown but not run: make it a `$ ` line, "
                                "or list it in NOT_RUN (tests/docs/check_docs.py) with the reason")
                continue
            used.add(hit[0])
            print(f"not run {rel}:{line}: `{text.splitlines()[0][:60]}`: {NOT_RUN[hit[0]][2]}")
    checked = {str(f.relative_to(ROOT)) for f in files if f.is_relative_to(ROOT)}
    for k, (where, start, _) in enumerate(NOT_RUN):
        if where in checked and k not in used:
            shown = start.pattern if isinstance(start, re.Pattern) else start
            problems.append(f"NOT_RUN lists `{shown}` in {where}, which no longer shows it: remove the entry")
    return problems


DEMO_ADDRESS = "http://127.0.0.1:8080"
VOLATILE = [
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>"),
    (re.compile(r"\b([a-z]+)_[0-9a-f]{32}\b"), r"\1_<id>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)"), "<time>"),
    (re.compile(r"(X-RateLimit-Reset: )\d+", re.I), r"\1<unix time>"),
    # Secrets the settings routes make (shown once): API keys and their prefixes, webhook
    # signing secrets, the session cookie and its CSRF token.
    (re.compile(r"x12k_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"), "x12k_<key>"),
    (re.compile(r'("prefix":")x12k_[A-Za-z0-9_-]{6}"'), r'\1x12k_<prefix>"'),
    (re.compile(r"whsec_[A-Za-z0-9+/]{43}="), "whsec_<secret>"),
    (re.compile(r"(x12kit_session=)[A-Za-z0-9_-]{43}"), r"\1<session>"),
    (re.compile(r'("csrfToken":")[A-Za-z0-9_-]{43}"'), r'\1<token>"'),
    # ISA09/ISA10 and GS04/GS05: the date and time a document was rendered.
    (re.compile(r"(ISA(?:\*[^*~]*){8}\*)\d{6}\*\d{4}"), r"\1<date>*<time>"),
    (re.compile(r"(GS(?:\*[^*~]*){3}\*)\d{8}\*\d{4}"), r"\1<date>*<time>"),
]


def normalize(lines):
    out = []
    for line in lines:
        for pattern, repl in VOLATILE:
            line = pattern.sub(repl, line)
        out.append(line)
    return out


class DemoServer:
    """A fresh x12kit-server on 127.0.0.1:0 with an empty database, for one block."""

    def __init__(self, binary, config):
        self.dir = Path(tempfile.mkdtemp(prefix="x12kit-docs-server-"))
        self.proc = subprocess.Popen(
            [binary, "--config", str(ROOT / config), "--listen", "127.0.0.1:0", "--database", str(self.dir / "db")],
            stdout=subprocess.PIPE,
            stderr=open(self.dir / "log", "wb"),
            cwd=self.dir,
        )
        first = self.proc.stdout.readline().decode("utf-8", "replace").strip()
        m = re.match(r"^listening on (http://127\.0\.0\.1:\d+)$", first)
        if not m:
            self.close()
            raise RuntimeError(f"x12kit-server did not start: first line {first!r}")
        self.address = m.group(1)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def run_block(cmds, env, target_dir, server=None):
    if server is not None:
        cmds = [(cmd.replace(DEMO_ADDRESS, server.address), expected) for cmd, expected in cmds]
    d = scratch(target_dir)
    try:
        script = ["__s=0"]
        for n, (cmd, _) in enumerate(cmds):
            # A newline first, so that output without a final newline stays its own line.
            script.append(f"echo; echo '{MARK} {n}'; echo >&2; echo '{MARK} {n}' >&2")
            # `$?` in a command is the status of the command before it.
            script.append(f"(exit $__s); {cmd}")
            script.append(f"__s=$?; echo >&2; echo \"{MARK} status $__s\" >&2")
        proc = subprocess.Popen(
            ["bash", "-c", "\n".join(script)],
            cwd=d,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            stdout, stderr = proc.communicate(timeout=BLOCK_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the block's commands and whatever they started
            proc.communicate()
            return [f"the block did not finish within {BLOCK_TIMEOUT} s"]
    finally:
        shutil.rmtree(d, ignore_errors=True)

    def split(text):
        parts, cur = {}, None
        for line in text.decode("utf-8", "replace").split("\n"):
            m = re.match(rf"^{MARK} (\d+)$", line)
            if m:
                cur = int(m.group(1))
                parts[cur] = []
            elif cur is not None:
                parts[cur].append(line)
        return parts

    out, err = split(stdout), split(stderr)
    problems = []
    for n, (cmd, expected) in enumerate(cmds):
        o = out.get(n, [])
        e = err.get(n, [])
        status = None
        while e and not e[-1].strip():
            e = e[:-1]
        if e and e[-1].startswith(MARK + " status "):
            status = int(e[-1].split()[-1])
            e = e[:-1]
        while o and not o[-1].strip():
            o = o[:-1]
        shown = o + e
        while shown and not shown[-1].strip():
            shown.pop()
        next_is_status = n + 1 < len(cmds) and cmds[n + 1][0].strip() == "echo $?"
        if status is None:
            problems.append(f"`{cmd}` did not run to its end")
        elif status != 0 and not next_is_status:
            problems.append(f"`{cmd}` exited {status}:\n    " + "\n    ".join(shown[-15:]))
        if server is not None:
            shown, expected = normalize(shown), normalize(expected)
        if expected and shown != expected:
            diff = "\n".join(
                f"    expected: {a!r}\n    got:      {b!r}"
                for a, b in zip(expected + [""] * len(shown), shown + [""] * len(expected))
                if a != b
            )
            problems.append(f"`{cmd}` printed something else:\n{diff[:3000]}")
    return problems


def main(argv):
    files = [Path(a).resolve() for a in argv] or default_files()
    build = subprocess.run(["cargo", "build", "-q", "-p", "x12kit-cli"], cwd=ROOT)
    if build.returncode != 0:
        print("docs: 0 passed, 1 failed, 0 skipped")
        return 1
    target = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=ROOT, capture_output=True, text=True
    )
    target_dir = re.search(r'"target_directory":"([^"]*)"', target.stdout).group(1)
    env = dict(os.environ)
    env["PATH"] = f"{target_dir}/debug:{env['PATH']}"
    env.pop("CLICOLOR_FORCE", None)
    env["NO_COLOR"] = "1"
    passed = failed = skipped = 0
    server_binary = None
    for f in files:
        rel = f.relative_to(ROOT) if f.is_relative_to(ROOT) else f
        for line, cmds, reason, config, after in blocks(f):
            where = f"{rel}:{line}"
            if reason is not None:
                skipped += 1
                print(f"skip {where}: {reason}")
                continue
            block_env = env
            if after is not None:
                if after not in AFTER:
                    failed += 1
                    print(f"FAIL {where}: `run after: {after}`: no such suite (one of {', '.join(AFTER)})")
                    continue
                built, what, path = AFTER[after]
                if not (ROOT / built).exists():
                    skipped += 1
                    print(f"skip {where}: needs {what} ({built}), not built yet "
                          f"(run the {after} suite before this one)")
                    continue
                if path is not None:
                    block_env = dict(env, PATH=f"{ROOT / path}:{env['PATH']}")
            server = None
            if config is not None:
                if server_binary is None:
                    build = subprocess.run(["cargo", "build", "-q", "-p", "x12kit-server"], cwd=ROOT)
                    if build.returncode != 0:
                        failed += 1
                        print(f"FAIL {where}: x12kit-server does not build")
                        continue
                    server_binary = f"{target_dir}/debug/x12kit-server"
                try:
                    server = DemoServer(server_binary, config)
                except RuntimeError as e:
                    failed += 1
                    print(f"FAIL {where}: {e}")
                    continue
            try:
                problems = run_block(cmds, block_env, target_dir, server)
            finally:
                if server is not None:
                    server.close()
            if problems:
                failed += 1
                print(f"FAIL {where}")
                for p in problems:
                    print("  " + p)
            else:
                passed += 1
                print(f"ok   {where} ({len(cmds)} command{'s' if len(cmds) != 1 else ''})")
    problems = check_shown(files)
    if problems:
        failed += 1
        print("FAIL shown commands")
        for p in problems:
            print("  " + p)
    else:
        passed += 1
        print("ok   shown commands: each one is a `$ ` line or listed above with the reason it is not run")
    print(f"docs: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
