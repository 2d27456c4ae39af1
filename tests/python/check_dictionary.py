#!/usr/bin/env python3
"""Independent check of x12kit's X12 dictionary (core/edi/src/documents/sets/
dictionary.x12d: the data element number at each position, and each data
element's type, lengths and name) against pyx12 (PyPI `pyx12`, BSD license,
by John Holland; shares no code or data with x12kit):

- every data element of the dictionary that pyx12's `map/dataele.xml` lists
  has the same X12 type, the same lengths in one of the editions
  (dataele.xml is one table for all versions; x12kit keeps 004010 and
  005010 lengths), and the same name (compared without case and
  punctuation; the few names pyx12 spells differently are listed below
  with the reason);
- every element a set's declaration declares (core/edi/src/documents/sets/
  <set>.x12d), looked up in the dictionary at its segment and position,
  has the type pyx12 gives that data element number and one of the
  declaration's lengths (004010 or 005010) is pyx12's;
- every segment position the dictionary describes that one of pyx12's
  maps (the 004010 and 005010 implementation maps and the envelope maps
  x12.control.00401/00501.xml) also describes uses a data element number
  those maps use there in that edition (the maps do not always agree with
  each other: some 004010 maps give GS04/GS05 the old elements 29/30, and a
  005010 map keeps ISA11 as I10).

A wrong element number at a position fails (pyx12 uses another number, or
the number's type or lengths differ from the declaration, which the core's
own test ties to the dictionary).

Usage: check_dictionary.py   (exit 1 on any mismatch)
"""
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

import pyx12

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from check_designators import SETS, blocks, expand, lines  # noqa: E402 (the .x12d reader)

ROOT = pathlib.Path(__file__).resolve().parents[2]
DICTIONARY = ROOT / "core/edi/src/documents/sets/dictionary.x12d"
MAPS = pathlib.Path(pyx12.__file__).parent / "map"

# Names pyx12 spells differently from the X12 dictionary, and why.
NAME_EXCEPTIONS = {
    # pyx12 gives 621 the name of 620 (a copy-paste in its dataele.xml).
    "621": "Implementation Segment Syntax Error Code",
    # The X12 dictionary says "Acknowledge"; pyx12 "Acknowledgment".
    "715": "Functional Group Acknowledgment Code",
}


def words(line):
    return re.findall(r'"[^"]*"|\S+', line)


def parse_dictionary():
    """(segments: id -> {pos: (base, v5010)}, elements: number -> dict)."""
    segments, elements = {}, {}
    current = None
    for raw in DICTIONARY.read_text().splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        w = words(raw.strip())
        if not raw.startswith(" "):
            current = None
            if w[0] == "segment":
                current = segments.setdefault(w[1], {})
            elif w[0] == "element":
                num, xt = w[1], w[2]
                base = v5 = None
                if xt != "C":
                    base = tuple(int(x) for x in w[3].split("/"))
                    v5 = base
                    if w[4].startswith("5010="):
                        v5 = tuple(int(x) for x in w[4][5:].split("/"))
                elements[num] = {"type": xt, "len": {base, v5}, "name": w[-1].strip('"')}
            continue
        if current is not None:
            pos = int(w[0])
            base = None if w[1] == "-" else w[1]
            v5 = base
            for a in w[2:]:
                if a.startswith("5010="):
                    v5 = None if a[5:] == "-" else a[5:]
            current[pos] = (base, v5)
    return segments, elements


def norm(name):
    return re.sub(r"[^a-z0-9]", "", name.lower())


def pyx12_elements():
    out = {}
    for e in ET.parse(MAPS / "dataele.xml").getroot():
        out[e.get("ele_num")] = (
            e.get("data_type"),
            (int(e.get("min_len")), int(e.get("max_len"))),
            e.get("name"),
        )
    return out


def pyx12_positions():
    """(edition, segment, position) -> set of data element numbers, over the maps."""
    out = {}
    for path in sorted(MAPS.glob("*.xml")):
        n = path.name
        if ".4010." in n or n == "x12.control.00401.xml":
            edition = "base"
        elif ".5010" in n or n == "x12.control.00501.xml":
            edition = "5010"
        else:
            continue
        root = ET.parse(path).getroot()
        for seg in root.iter("segment"):
            sid = seg.get("xid")
            for el in seg.findall("element"):
                num = el.findtext("data_ele")
                seq = el.findtext("seq")
                if num and seq:
                    out.setdefault((edition, sid, int(seq)), set()).add(num.strip())
    return out


def main():
    segments, elements = parse_dictionary()
    theirs = pyx12_elements()
    passed, failed = 0, []
    for num, e in sorted(elements.items()):
        if num not in theirs or e["type"] == "C":
            continue
        ty, length, name = theirs[num]
        what = f"element {num} ({e['name']})"
        if ty != e["type"]:
            failed.append(f"{what}: type {e['type']}, pyx12 says {ty}")
        elif length not in e["len"]:
            failed.append(f"{what}: lengths {sorted(e['len'])}, pyx12 says {length}")
        elif name != num and norm(name) != norm(e["name"]) and NAME_EXCEPTIONS.get(num) != name:
            failed.append(f"{what}: pyx12 names it {name!r}")
        else:
            passed += 1
    # The declarations: each element line, through the dictionary's number.
    bl = blocks()
    for f in sorted(SETS.glob("[0-9]*.x12d")):
        text = f.read_text()
        body = expand(lines(text[text.index("\nmap\n") + 5:]), bl)
        seg = None
        for _, line in body:
            w = line.split()
            if w[0] in ("seg", "loop"):
                seg = w[1].split("#")[0]
                continue
            if not re.fullmatch(r"\d\d", w[0]):
                continue
            pos = int(w[0])
            declared = {tuple(int(x) for x in w[3].split("/"))}
            declared |= {tuple(int(x) for x in a[5:].split("/")) for a in w[4:] if a.startswith("5010=")}
            where = f"{f.name}: {seg}{pos:02}"
            nums = {n for n in segments.get(seg, {}).get(pos, (None, None)) if n}
            if not nums:
                failed.append(f"{where}: no data element number in the dictionary")
                continue
            for num in sorted(nums):
                if num not in theirs:
                    continue
                ty, length, _ = theirs[num]
                if ty != w[2] or length not in declared:
                    failed.append(
                        f"{where} is {w[2]} {sorted(declared)}; element {num} is {ty} {length} in pyx12"
                    )
                else:
                    passed += 1
    positions = pyx12_positions()
    for sid, pos_map in sorted(segments.items()):
        for pos, (base, v5) in sorted(pos_map.items()):
            for edition, ours in (("base", base), ("5010", v5)):
                seen = positions.get((edition, sid, pos))
                if not seen or ours is None:
                    continue
                where = f"{sid}{pos:02} ({'004010' if edition == 'base' else '005010'})"
                if ours not in seen:
                    failed.append(f"{where}: element {ours}, pyx12's maps use {sorted(seen)}")
                else:
                    passed += 1
    for f in failed:
        print("FAIL", f)
    print(
        f"dictionary: {passed} passed, {len(failed)} failed "
        f"({len(elements)} elements, {sum(len(p) for p in segments.values())} positions; pyx12 {pyx12.__version__})"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
