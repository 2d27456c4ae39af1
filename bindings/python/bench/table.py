"""Markdown table of bench/results.jsonl (MB/s; higher is better)."""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from typing import Dict

rows: Dict[str, Dict[str, str]] = defaultdict(dict)
files = []
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.strip()
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    f = r.get("file", "?")
    if f not in files:
        files.append(f)
    if "error" in r:
        rows[f"{r['tool']}"][f] = "fails: " + r["error"][:80]
        continue
    for name, v in r["results"].items():
        rows[name][f] = f"{v['mb_per_s']:.1f}"
print("| operation | " + " | ".join(f"{f} (MB/s)" for f in files) + " |")
print("|---|" + "---:|" * len(files))
for name, vals in rows.items():
    print(f"| {name} | " + " | ".join(vals.get(f, "") for f in files) + " |")

# The targets of issue 12, as ratios within this run.
LFH = "linuxforhealth-x12 X12SegmentReader (segments)"


def ratio(a: str, b: str, f: str) -> str:
    x, y = rows.get(a, {}).get(f), rows.get(b, {}).get(f)
    try:
        return f"{float(x) / float(y):.2f}x"  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "n/a"


print()
for f in files:
    print(
        f"{f}: parse (lazy) / linuxforhealth-x12 = {ratio('parse (lazy)', LFH, f)} (target 25x); "
        f"to_dict / orjson.loads(parse_json) = {ratio('parse().to_dict()', 'orjson.loads(parse_json())', f)} (target > 1x); "
        f"to_dict / linuxforhealth-x12 = {ratio('parse().to_dict()', LFH, f)} (target 5x); "
        f"to_dict(documents=False) / linuxforhealth-x12 all kept = "
        f"{ratio('parse(documents=False).to_dict()', 'linuxforhealth-x12 X12SegmentReader, all kept (list)', f)}; "
        f"validate = {rows.get('validate', {}).get(f, 'n/a')} MB/s (target 300)"
    )
