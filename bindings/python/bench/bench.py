"""x12kit vs the Python X12 peers, in-process, on the same generated 850 files.

    bindings/python/bench/run.sh            # wall clock: sets up the venvs, runs this in each
    bindings/python/bench/instructions.sh   # instruction counts (callgrind), load-independent

Each tool is a set of named operations, each checked against the file
(number of sets or segments) so a fast wrong answer fails.

``python bench.py <tool> <file> [repeat]``: warms each operation up once,
then takes the best of ``repeat`` wall-clock runs; prints one JSON line.
``python bench.py <tool> <file> --count <operation> <n>``: runs the
operation once (warm-up, checked) and then ``n`` more times, for callgrind:
the difference between n=1 and n=2 is the cost of one call.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Tuple

# name -> (call, expected count or None, count of the call's result)
Op = Tuple[Callable[[], Any], Optional[int], Callable[[Any], Any]]


def same(x: Any) -> Any:
    return x


def best(fn: Callable[[], Any], repeat: int) -> Tuple[float, Any]:
    out = fn()  # warm-up
    times = []
    for _ in range(repeat):
        out = None  # free the previous result outside the timed region
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def x12kit_ops(data: bytes, path: Path) -> Dict[str, Op]:
    import orjson
    import x12kit

    sets = data.count(b"\nST*850*")
    segs = data.count(b"~")

    def lazy() -> int:
        r = x12kit.parse(data)
        return sum(len(g.transactions) for g in r.interchanges[0].groups)

    def to_dict() -> int:
        d = x12kit.parse(data).to_dict()
        return sum(len(g["transactions"]) for g in d["interchanges"][0]["groups"])

    def to_dict_nodoc() -> int:
        d = x12kit.parse(data, documents=False).to_dict()
        return sum(len(g["transactions"]) for g in d["interchanges"][0]["groups"])

    def orjson_loads() -> int:
        d = orjson.loads(x12kit.parse_json(data))
        return sum(len(g["transactions"]) for g in d["interchanges"][0]["groups"])

    def orjson_nodoc() -> int:
        d = orjson.loads(x12kit.parse_json(data, documents=False))
        return sum(len(g["transactions"]) for g in d["interchanges"][0]["groups"])

    def validate_sets(v: Any) -> int:  # counted after the timed call
        assert v.is_valid, v.diagnostics[:3]
        return sum(len(g["transactions"]) for g in v.interchanges[0]["groups"])

    def validate_dict() -> int:
        d = x12kit.validate(data).to_dict()
        return sum(len(g["transactions"]) for g in d["interchanges"][0]["groups"])

    return {
        "parse (lazy)": (lazy, sets, same),
        "parse().to_dict()": (to_dict, sets, same),
        "parse(documents=False).to_dict()": (to_dict_nodoc, sets, same),
        "orjson.loads(parse_json())": (orjson_loads, sets, same),
        "orjson.loads(parse_json(documents=False))": (orjson_nodoc, sets, same),
        "parse_json": (lambda: len(x12kit.parse_json(data)), None, same),
        "validate": (lambda: x12kit.validate(data), sets, validate_sets),
        "validate().to_dict()": (validate_dict, sets, same),
        "parse().segments() (iterate)": (lambda: sum(1 for _ in x12kit.parse(data).segments()), segs, same),
        "iter_segments(path) (iterate)": (lambda: sum(1 for _ in x12kit.iter_segments(path)), segs, same),
    }


def pyx12_ops(data: bytes, path: Path) -> Dict[str, Op]:
    import pyx12.x12file

    def read() -> int:
        n = 0
        for _ in pyx12.x12file.X12Reader(str(path)):
            n += 1
        return n

    return {"pyx12 X12Reader (segments)": (read, data.count(b"~"), same)}


def ansi_x12_ops(data: bytes, path: Path) -> Dict[str, Op]:
    from x12 import parse_x12_interchange, tokenize_x12

    def parse() -> int:
        i = parse_x12_interchange(tokenize_x12(data))
        return sum(len(g.transactions) for g in i.groups)

    return {"ansi-x12 tokenize + parse_x12_interchange": (parse, data.count(b"\nST*850*"), same)}


def lfh_ops(data: bytes, path: Path) -> Dict[str, Op]:
    from linuxforhealth.x12.io import X12SegmentReader

    def read() -> int:
        n = 0
        with X12SegmentReader(str(path)) as r:
            for _ in r.segments():
                n += 1
        return n

    def keep() -> int:
        # The same segments held at once, as to_dict() holds its tree (the reader
        # alone frees each (name, fields) pair before it makes the next).
        with X12SegmentReader(str(path)) as r:
            return len(list(r.segments()))

    return {
        "linuxforhealth-x12 X12SegmentReader (segments)": (read, data.count(b"~"), same),
        "linuxforhealth-x12 X12SegmentReader, all kept (list)": (keep, data.count(b"~"), same),
    }


def badx12_ops(data: bytes, path: Path) -> Dict[str, Op]:
    import collections
    import collections.abc

    # badx12 0.2.2 imports collections.Iterable, which Python 3.10 removed: restore the alias.
    if not hasattr(collections, "Iterable"):
        collections.Iterable = collections.abc.Iterable  # type: ignore[attr-defined]
    from badx12 import Parser

    text = data.decode()

    def parse() -> int:
        doc = Parser().parse_document(text)
        return sum(len(g.transaction_sets) for g in doc.interchange.groups)

    return {"badx12 Parser.parse_document": (parse, data.count(b"\nST*850*"), same)}


TOOLS: Dict[str, Callable[[bytes, Path], Dict[str, Op]]] = {
    "x12kit": x12kit_ops,
    "pyx12": pyx12_ops,
    "ansi-x12": ansi_x12_ops,
    "linuxforhealth-x12": lfh_ops,
    "badx12": badx12_ops,
}


def check(name: str, op: Op, out: Any) -> None:
    _, want, count = op
    got = count(out)
    if want is not None:
        assert got == want, f"{name}: got {got}, expected {want}"


def main() -> None:
    tool, file = sys.argv[1], Path(sys.argv[2])
    data = file.read_bytes()
    out: Dict[str, Any] = {"tool": tool, "file": file.name, "bytes": len(data)}
    try:
        ops = TOOLS[tool](data, file)
        if len(sys.argv) > 3 and sys.argv[3] == "--count":
            name, n = sys.argv[4], int(sys.argv[5])
            op = ops[name]
            check(name, op, op[0]())
            for _ in range(n):
                r = op[0]()
                del r
            return
        repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 3
        times = {}
        for name, op in ops.items():
            t, res = best(op[0], repeat)
            check(name, op, res)
            times[name] = t
        out["results"] = {k: {"seconds": v, "mb_per_s": len(data) / v / 1e6} for k, v in times.items()}
    except Exception as e:  # a peer that cannot read the file is reported, not hidden
        if len(sys.argv) > 3 and sys.argv[3] == "--count":
            raise
        out["error"] = f"{type(e).__name__}: {str(e)[:300]}"
    print(json.dumps(out))


if __name__ == "__main__":
    main()
