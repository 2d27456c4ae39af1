"""Memory under sustained use: each operation in a loop on a generated 1 MB input.

Each operation runs in its own process (so rows do not share a heap), called
in a plain loop; at each checkpoint ``gc.collect()`` runs and the RSS is read
(MiB); the process's peak RSS (``VmHWM``) is reported too. This is
what ``tests/test_soak.py`` runs with its bounds. ``--threads 8`` runs the
calls on 8 threads at once (each thread makes ``calls`` calls).

    python bench/memory.py [--calls 50,300] [--mb 1] [--threads N] [op ...]
"""

from __future__ import annotations

import gc
import io
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import x12kit

REPO = Path(__file__).resolve().parents[3]
PARTNER = (REPO / "examples" / "partners" / "acme-retail.json").read_text()
FIXED: Dict[str, Any] = {"control_numbers": {"interchange": 1, "group": 1, "transaction": 1}, "date": "20231114", "time": "2213"}
NOW = 1_700_000_000


def x850(size: int) -> bytes:
    """A valid 850 interchange of at least `size` bytes: one group of sets with 10 lines each."""
    head = (
        "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       "
        "*230101*1200*U*00401*000000001*0*P*>~\nGS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~\n"
    )
    parts = [head]
    total, n = len(head), 0
    while total < size - 40 or n == 0:
        n += 1
        cn = f"{n:04d}"[-9:]
        body = [f"BEG*00*SA*PO-{n}**20230101~", f"REF*DP*{n % 97}~", "DTM*002*20230115~", f"N1*ST*STORE {n % 500}*92*{n % 500:05d}~"]
        for k in range(1, 11):
            body.append(f"PO1*{k}*{k * 3}*EA*{k}.25**BP*ITEM-{k:05d}*VP*V{n % 1000}~")
            body.append(f"PID*F****WIDGET NUMBER {k}~")
        body.append("CTT*10~")
        text = "\n".join([f"ST*850*{cn}~", *body, f"SE*{len(body) + 2}*{cn}~"]) + "\n"
        parts.append(text)
        total += len(text)
    parts.append(f"GE*{n}*1~\nIEA*1*000000001~\n")
    return "".join(parts).encode()


def payload_text(size: int) -> str:
    """The JSON text of an 850 payload of about `size` bytes."""
    lines: List[str] = []
    total = 0
    while total < size:
        i = len(lines)
        line = f'{{"lineNumber":{i + 1},"sku":"WID-{100 + i % 900}","quantity":{1 + i % 50},"unitPrice":9.25}}'
        lines.append(line)
        total += len(line) + 1
    return '{"purchaseOrderNumber":"PO-10045","shipTo":{"id":"0003947268292","name":"ACME"},"lines":[' + ",".join(lines) + "]}"


def _walk(r: x12kit.ParseResult) -> int:
    """Touches every transaction's document and segments (the lazy views)."""
    n = 0
    for i in r.interchanges:
        for g in i.groups:
            for t in g.transactions:
                n += len(t.document or {})
                n += sum(1 for _ in t.segments())
    return n


# Each op: (setup(state), call(state)); state["input"] is the 1 MB 850;
# render's input is a payload of that size, write's a parse result of that size.
def _nothing(s: Dict[str, Any]) -> None:
    pass


def _render_setup(s: Dict[str, Any]) -> None:
    s["payload"] = payload_text(len(s["input"]))


def _write_setup(s: Dict[str, Any]) -> None:
    s["json"] = x12kit.parse_json(x850(int(len(s["input"]) / 2.4)), documents=False)
    s["result"] = x12kit.parse(x850(int(len(s["input"]) / 2.4)))


def _keep_setup(s: Dict[str, Any]) -> None:
    s["kept"] = []


OPS: Dict[str, Any] = {
    "parse": (_nothing, lambda s: len(x12kit.parse(s["input"]).interchanges)),
    "parse-walk": (_nothing, lambda s: _walk(x12kit.parse(s["input"]))),
    "parse-to_dict": (_nothing, lambda s: len(x12kit.parse(s["input"]).to_dict())),
    "parse_json": (_nothing, lambda s: len(x12kit.parse_json(s["input"]))),
    "parse_json-nodocs": (_nothing, lambda s: len(x12kit.parse_json(s["input"], documents=False))),
    "iter_segments": (_nothing, lambda s: sum(1 for seg in x12kit.iter_segments(s["input"]) if seg.id == "PO1")),
    "segments": (_nothing, lambda s: sum(1 for seg in x12kit.parse(s["input"]).segments() if seg.id == "PO1")),
    "validate": (_nothing, lambda s: x12kit.validate(s["input"]).is_valid),
    "validate-structure": (_nothing, lambda s: x12kit.validate(s["input"], structure=True).is_valid),
    "validate_json": (_nothing, lambda s: len(x12kit.validate_json(s["input"]))),
    "validate_stream": (_nothing, lambda s: x12kit.validate_stream(io.BytesIO(s["input"]), chunk_size=1 << 16).is_valid),
    "acknowledge": (_nothing, lambda s: len(x12kit.acknowledge(x12kit.validate(s["input"]), kind="999", now=NOW))),
    "acknowledge-input": (_nothing, lambda s: len(x12kit.acknowledge(s["input"], kind="999", now=NOW))),
    "read_acknowledgement": (_nothing, lambda s: len(x12kit.read_acknowledgement(s["input"]))),
    "render": (_render_setup, lambda s: len(x12kit.render("850", s["payload"], PARTNER, **FIXED))),
    "render_document": (_render_setup, lambda s: len(x12kit.render_document("850", s["payload"], PARTNER, **FIXED).x12)),
    "write": (_write_setup, lambda s: len(x12kit.write(s["json"]))),
    "write-result": (_write_setup, lambda s: len(x12kit.write(s["result"]))),
    "webhook": (
        _nothing,
        lambda s: x12kit.webhook.verify("secret", x12kit.webhook.sign("secret", NOW, s["input"]), str(NOW), s["input"], now=NOW).secret_index,
    ),
    # Not a use of the API: a loop that keeps each 1 MiB result (the soak test's control).
    "keeps-results": (_keep_setup, lambda s: s["kept"].append(b"\x01" * (1 << 20))),
}
CONTROLS = {"keeps-results"}
# The mix the threads run: each call parses, validates, acknowledges and renders JSON.
MIXED = ["parse-walk", "parse_json", "validate-structure", "acknowledge", "iter_segments"]


def status(field: str) -> float:
    """A memory line of /proc/self/status, in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def rss() -> float:
    return status("VmRSS")


def peak() -> float:
    """This program's peak RSS: VmHWM, the high-water mark of the address space
    exec gave it. Not getrusage's ru_maxrss: Linux carries that across fork and
    exec, so a child of a big parent (pytest after the 1 GB stream tests)
    reports the parent's RSS at the fork as its own peak."""
    return status("VmHWM")


def measure(op: str, calls: List[int], mb: float, threads: int = 0) -> Dict[str, Any]:
    """Runs `op` in this process; RSS after gc at each checkpoint (per thread with `threads`)."""
    s: Dict[str, Any] = {"input": x850(int(mb * 1_000_000))}
    ops = MIXED if op == "mixed" else [op]
    for o in ops:
        OPS[o][0](s)
        OPS[o][1](s)  # warm-up
    gc.collect()
    start = rss()
    at: List[float] = []
    t0 = time.perf_counter()
    if threads:
        total = calls[-1]
        errors: List[BaseException] = []

        def work(k: int) -> None:
            try:
                for i in range(total):
                    OPS[ops[(i + k) % len(ops)]][1](s)
            except BaseException as e:  # reported by the parent
                errors.append(e)

        pool = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        if errors:
            raise errors[0]
        gc.collect()
        at.append(rss())
    else:
        done = 0
        for n in calls:
            while done < n:
                OPS[ops[done % len(ops)]][1](s)
                done += 1
            gc.collect()
            at.append(rss())
    seconds = time.perf_counter() - t0
    return {"op": op, "start": start, "at": at, "peak": peak(), "seconds": seconds, "input_bytes": len(s["input"]), "threads": threads}


def measure_in_child(op: str, calls: List[int], mb: float, threads: int = 0) -> Dict[str, Any]:
    """`measure` in a fresh process (its own peak RSS)."""
    args = [sys.executable, __file__, "--child", op, "--calls", ",".join(map(str, calls)), "--mb", str(mb), "--threads", str(threads)]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{op}: the child exited {out.returncode}: {out.stderr}")
    result: Dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main(argv: List[str]) -> None:
    def arg(name: str, default: str) -> str:
        if name in argv:
            i = argv.index(name)
            value = argv[i + 1]
            del argv[i : i + 2]
            return value
        return default

    child = arg("--child", "")
    calls = [int(c) for c in arg("--calls", "50,300").split(",")]
    mb = float(arg("--mb", "1"))
    threads = int(arg("--threads", "0"))
    if child:
        print(json.dumps(measure(child, calls, mb, threads)))
        return
    ops = argv or [o for o in OPS if o not in CONTROLS]
    print(f"Python {sys.version.split()[0]}, x12kit {x12kit.__version__}, inputs of {mb} MB (generated); RSS in MiB after gc.collect()")
    print("| operation | before the loop | " + " | ".join(f"after {n}" for n in calls) + " | peak | ms/call |")
    print("|---|---|" + "---|" * len(calls) + "---|---|")
    for op in ops:
        r = measure_in_child(op, calls, mb, threads)
        per_call = r["seconds"] * 1000 / (calls[-1] * max(1, threads))
        cells = " | ".join(f"{v:.0f}" for v in r["at"])
        print(f"| {op}{f' ({threads} threads)' if threads else ''} | {r['start']:.0f} | {cells} | {r['peak']:.0f} | {per_call:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
