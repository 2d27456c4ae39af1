"""Soak tests: memory stays flat under sustained use (issue 34).

Each public operation runs in a child process (bench/memory.py) in a plain
loop of 300 calls on a generated 1 MB input (render: a 1 MB payload; write:
a 1 MB parse result); the bounds asserted:

- the process's peak RSS stays under 200 MiB;
- the RSS after ``gc.collect()`` at call 300 is within 16 MiB of the RSS at
  call 50 (flat after the first calls);
- 8 threads making 100 mixed calls each at once (parse and walk every
  document, parse_json, validate with structure, acknowledge, iter_segments):
  peak under 200 MiB.

A control loop that keeps its results shows that the measurement sees memory
that is held. (validate_stream and iter_segments over a generated 1 GB
stream, never held, are in test_stream.py.)
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import memory  # noqa: E402  (bench/memory.py, also the table of the README)

PEAK = 200  # MiB
FLAT = 16  # MiB between call 50 and call 300
# render and render_document share one native path; render_document converts more.
SOAKED = [op for op in memory.OPS if op not in memory.CONTROLS and op != "render"]


@pytest.fixture(scope="module")
def soaked() -> Dict[str, Dict[str, Any]]:
    """Every operation measured once, two child processes at a time (two cores)."""
    with ThreadPoolExecutor(2) as pool:
        results = pool.map(lambda op: memory.measure_in_child(op, [50, 300], 1), SOAKED)
        return {r["op"]: r for r in results}


@pytest.mark.parametrize("op", SOAKED)
def test_300_calls_on_1_mb_keep_memory_flat(op: str, soaked: Dict[str, Dict[str, Any]]) -> None:
    r = soaked[op]
    at50, at300 = r["at"]
    print(f"soak {op}: RSS {r['start']:.0f} MiB before, {at50:.0f} at 50 calls, {at300:.0f} at 300, peak {r['peak']:.0f}")
    assert r["input_bytes"] >= 1_000_000
    assert r["peak"] < PEAK, f"{op}: peak RSS {r['peak']:.0f} MiB"
    assert at300 - at50 < FLAT, f"{op}: RSS grew {at300 - at50:.0f} MiB from call 50 to call 300"


def test_eight_threads_of_100_mixed_calls_on_1_mb() -> None:
    r = memory.measure_in_child("mixed", [100], 1, threads=8)
    print(f"soak 8 threads x 100: RSS {r['start']:.0f} MiB before, {r['at'][0]:.0f} after, peak {r['peak']:.0f}")
    assert r["peak"] < PEAK, f"peak RSS {r['peak']:.0f} MiB"


def test_control_the_measurement_sees_memory_a_loop_keeps() -> None:
    r = memory.measure_in_child("keeps-results", [50, 300], 1)
    assert r["at"][1] - r["at"][0] > 200 and r["peak"] > PEAK, r
