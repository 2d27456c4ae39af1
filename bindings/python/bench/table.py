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
