"""x12kit vs the Python X12 peers, in-process, on the same generated 850 files.

    bindings/python/bench/run.sh            # sets up the venvs, runs this in each

Each runner reads the same file (10 MB and 100 MB of 850s), warms up once,
then takes the best of N runs. Every measured call is checked for what it
produced (segment or set counts), so a fast wrong answer is caught.
Run as ``python bench.py <tool> <file> [repeat]``; prints one JSON line.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple


def best(fn: Callable[[], Any], repeat: int) -> Tuple[float, Any]:
    out = fn()  # warm-up
    times = []
    for _ in range(repeat):
        out = None  # free the previous result outside the timed region
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def x12kit_runs(data: bytes, path: Path, repeat: int) -> Dict[str, Any]:
    import orjson
    import x12kit

    sets = data.count(b"\nST*850*")
    segs = data.count(b"~") 
    res: Dict[str, Any] = {}

    def lazy() -> int:
        r = x12kit.parse(data)
        return sum(len(g.transactions) for g in r.interchanges[0].groups)

    def to_dict() -> int:
        d = x12kit.parse(data).to_dict()
        return sum(len(g["transactions"]) for g in d["interchanges"][0]["groups"])

    def to_dict_nodoc() -> int:
        d = x12kit.parse(data, documents=False).to_dict()
        return sum(len(g["transactions"]) for g in d["interchanges"][0]["groups"])

    def parse_json() -> int:
        return len(x12kit.parse_json(data))

    def orjson_loads() -> int:
        d = orjson.loads(x12kit.parse_json(data))
        return sum(len(g["transactions"]) for g in d["interchanges"][0]["groups"])

    def orjson_nodoc() -> int:
        d = orjson.loads(x12kit.parse_json(data, documents=False))
        return sum(len(g["transactions"]) for g in d["interchanges"][0]["groups"])

    def validate() -> int:
        v = x12kit.validate(data)
        assert v.is_valid, v.diagnostics[:3]
        return sum(len(g["transactions"]) for g in v.to_dict()["interchanges"][0]["groups"])

    def segments() -> int:
        return sum(1 for _ in x12kit.parse(data).segments())

    def stream() -> int:
        return sum(1 for _ in x12kit.iter_segments(path))

    checks = {
        "parse (lazy)": (lazy, sets),
        "parse().to_dict()": (to_dict, sets),
        "parse(documents=False).to_dict()": (to_dict_nodoc, sets),
        "orjson.loads(parse_json())": (orjson_loads, sets),
        "orjson.loads(parse_json(documents=False))": (orjson_nodoc, sets),
        "parse_json": (parse_json, None),
        "validate": (validate, sets),
        "parse().segments() (iterate)": (segments, segs),
        "iter_segments(path) (iterate)": (stream, segs),
    }
    for name, (fn, want) in checks.items():
        t, got = best(fn, repeat)
        if want is not None:
            assert got == want, f"{name}: got {got}, expected {want}"
        res[name] = t
    return res


def pyx12_runs(data: bytes, path: Path, repeat: int) -> Dict[str, Any]:
    import pyx12.x12file

    segs = data.count(b"~")

    def read() -> int:
        n = 0
        for _ in pyx12.x12file.X12Reader(str(path)):
            n += 1
        return n

    t, got = best(read, repeat)
    assert got == segs, f"pyx12 read {got} segments, expected {segs}"
    return {"pyx12 X12Reader (segments)": t}


def ansi_x12_runs(data: bytes, path: Path, repeat: int) -> Dict[str, Any]:
    from x12 import parse_x12_interchange, tokenize_x12

    sets = data.count(b"\nST*850*")

    def parse() -> int:
        i = parse_x12_interchange(tokenize_x12(data))
        return sum(len(g.transactions) for g in i.groups)

    t, got = best(parse, repeat)
    assert got == sets, f"ansi-x12 found {got} sets, expected {sets}"
    return {"ansi-x12 tokenize + parse_x12_interchange": t}


def lfh_runs(data: bytes, path: Path, repeat: int) -> Dict[str, Any]:
    from linuxforhealth.x12.io import X12SegmentReader

    segs = data.count(b"~")

    def read() -> int:
        n = 0
        with X12SegmentReader(str(path)) as r:
            for _ in r.segments():
                n += 1
        return n

    t, got = best(read, repeat)
    assert got == segs, f"linuxforhealth-x12 read {got} segments, expected {segs}"
    return {"linuxforhealth-x12 X12SegmentReader (segments)": t}


def badx12_runs(data: bytes, path: Path, repeat: int) -> Dict[str, Any]:
    from badx12 import Parser

    sets = data.count(b"\nST*850*")
    text = data.decode()

    def parse() -> int:
        doc = Parser().parse_document(text)
        return sum(len(g.transaction_sets) for g in doc.interchange.groups)

    t, got = best(parse, repeat)
    assert got == sets, f"badx12 found {got} sets, expected {sets}"
    return {"badx12 Parser.parse_document": t}


RUNNERS = {
    "x12kit": x12kit_runs,
    "pyx12": pyx12_runs,
    "ansi-x12": ansi_x12_runs,
    "linuxforhealth-x12": lfh_runs,
    "badx12": badx12_runs,
}


def main() -> None:
    tool, file = sys.argv[1], Path(sys.argv[2])
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    data = file.read_bytes()
    out: Dict[str, Any] = {"tool": tool, "file": file.name, "bytes": len(data)}
    try:
        times = RUNNERS[tool](data, file, repeat)
        out["results"] = {k: {"seconds": v, "mb_per_s": len(data) / v / 1e6} for k, v in times.items()}
    except Exception as e:  # a peer that cannot read the file is reported, not hidden
        out["error"] = f"{type(e).__name__}: {str(e)[:300]}"
    print(json.dumps(out))


if __name__ == "__main__":
    main()
