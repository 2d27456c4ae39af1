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

Usage: tests/docs/check_docs.py [FILE.md ...]     (from anywhere)
Prints one line per block and ends with `docs: N passed, N failed, N skipped`.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARK = "@@x12kit-docs-command@@"


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
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0:
            r = re.match(r"<!--\s*not run:\s*(.*?)\s*-->", lines[j].strip())
            if r:
                reason = r.group(1)
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
            out.append((start + 1, cmds, reason))
    return out


def scratch():
    d = Path(tempfile.mkdtemp(prefix="x12kit-docs-"))
    for entry in ROOT.iterdir():
        if entry.name in (".git", "target"):
            continue
        (d / entry.name).symlink_to(entry)
    return d


def run_block(cmds, env):
    d = scratch()
    try:
        script = ["__s=0"]
        for n, (cmd, _) in enumerate(cmds):
            script.append(f"echo '{MARK} {n}'; echo '{MARK} {n}' >&2")
            # `$?` in a command is the status of the command before it.
            script.append(f"(exit $__s); {cmd}")
            script.append(f"__s=$?; echo \"{MARK} status $__s\" >&2")
        proc = subprocess.run(
            ["bash", "-c", "\n".join(script)],
            cwd=d,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=300,
        )
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

    out, err = split(proc.stdout), split(proc.stderr)
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
    for f in files:
        rel = f.relative_to(ROOT)
        for line, cmds, reason in blocks(f):
            where = f"{rel}:{line}"
            if reason is not None:
                skipped += 1
                print(f"skip {where}: {reason}")
                continue
            problems = run_block(cmds, env)
            if problems:
                failed += 1
                print(f"FAIL {where}")
                for p in problems:
                    print("  " + p)
            else:
                passed += 1
                print(f"ok   {where} ({len(cmds)} command{'s' if len(cmds) != 1 else ''})")
    print(f"docs: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
