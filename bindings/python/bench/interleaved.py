"""x12kit and linuxforhealth-x12 in one process, the cases taking turns.

    python interleaved.py <file> [rounds] [case ...]   (cases: all, or those named,
                                                        or all but those named with a leading "-")

Run by run.sh in the linuxforhealth-x12 venv (the abi3 x12kit wheel and
orjson are installed there too). Separate processes, as bench.py runs them,
meet different load on a shared machine; here every round times each case
once, in turn, and the best round of each counts, so the ratios compare
like with like. Each result is freed outside the timed region; each is
checked against the file.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict

import orjson
import x12kit
from linuxforhealth.x12.io import X12SegmentReader

path = Path(sys.argv[1])
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
data = path.read_bytes()
sets = data.count(b"\nST*850*")
segs = data.count(b"~")


def n_sets(d: Dict[str, Any]) -> int:
    return sum(len(g["transactions"]) for g in d["interchanges"][0]["groups"])


def lfh_stream() -> int:
    n = 0
    with X12SegmentReader(str(path)) as r:
        for _ in r.segments():
            n += 1
    return n


def lfh_kept() -> int:
    with X12SegmentReader(str(path)) as r:
        return len(list(r.segments()))


def json_sets(j: bytes) -> int:
    """The sets of a parse JSON (counted at the warm-up only: the timed call is parse_json alone)."""
    return j.count(b'{"type":"850","controlNumber":')


CASES: Dict[str, Callable[[], Any]] = {
    "parse (lazy)": lambda: sum(len(g.transactions) for g in x12kit.parse(data).interchanges[0].groups),
    "parse().to_dict()": lambda: n_sets(x12kit.parse(data).to_dict()),
    "parse(documents=False).to_dict()": lambda: n_sets(x12kit.parse(data, documents=False).to_dict()),
    "parse_json": lambda: x12kit.parse_json(data),
    "orjson.loads(parse_json())": lambda: n_sets(orjson.loads(x12kit.parse_json(data))),
    # valid (bench.py counts its sets; the count is not timed there either)
    "validate": lambda: sets if x12kit.validate(data).is_valid else -1,
    "linuxforhealth-x12 X12SegmentReader (segments)": lfh_stream,
    "linuxforhealth-x12 X12SegmentReader, all kept (list)": lfh_kept,
}
# Turns a case's result into the count checked at the warm-up.
COUNT: Dict[str, Callable[[Any], int]] = {"parse_json": json_sets}
named = sys.argv[3:]
unknown = [n for n in named if n.lstrip("-") not in CASES]
assert not unknown, f"unknown cases {unknown}; the cases are {list(CASES)}"
if any(not n.startswith("-") for n in named):
    CASES = {k: v for k, v in CASES.items() if k in named}
CASES = {k: v for k, v in CASES.items() if "-" + k not in named}
WANT = {name: segs if name.startswith("linuxforhealth") else sets for name in CASES}

best = {name: float("inf") for name in CASES}
for name, f in CASES.items():  # warm-up, checked
    got = COUNT.get(name, lambda x: x)(f())
    assert got == WANT[name], f"{name}: got {got}, expected {WANT[name]}"
for _ in range(rounds):
    for name, f in CASES.items():
        t = time.perf_counter()
        out = f()
        best[name] = min(best[name], time.perf_counter() - t)
        del out

lfh = best.get("linuxforhealth-x12 X12SegmentReader (segments)", float("nan"))
print(json.dumps({"tool": "interleaved", "file": path.name, "bytes": len(data), "rounds": rounds,
                  "results": {k: {"seconds": v, "mb_per_s": len(data) / v / 1e6} for k, v in best.items()}}))
print(f"| {path.name}, one process, best of {rounds} interleaved rounds | MB/s | vs linuxforhealth-x12 |")
print("|---|---:|---:|")
for name, v in best.items():
    print(f"| {name} | {len(data) / v / 1e6:.1f} | {lfh / v:.2f}x |")
