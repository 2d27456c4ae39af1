"""Concurrency: 8 threads parse, validate and render at once; shared objects are safe."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import x12kit
from conftest import make_850


def test_eight_threads_parse_at_once() -> None:
    inputs = [make_850(50 + i, lines=5 + i) for i in range(8)]
    expected = [x12kit.parse_json(d) for d in inputs]
    expected_v = [x12kit.validate_json(d, structure=True) for d in inputs]

    def work(i: int) -> bool:
        for _ in range(20):
            d = inputs[i]
            r = x12kit.parse(d)
            assert r.to_json() == expected[i]
            assert len(r.interchanges[0].groups[0].transactions) == 50 + i
            assert x12kit.parse_json(d) == expected[i]
            assert x12kit.validate(d, structure=True).to_json() == expected_v[i]
        return True

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(work, range(8)))


def test_one_result_shared_by_threads() -> None:
    r = x12kit.parse(make_850(100))
    want = json.loads(r.to_json())

    def work(_: int) -> int:
        n = 0
        for t in r.interchanges[0].groups[0].transactions:
            n += sum(1 for _ in t.segments())
        assert r.to_dict() == want
        return n

    with ThreadPoolExecutor(8) as pool:
        counts = list(pool.map(work, range(16)))
    assert len(set(counts)) == 1 and counts[0] == 100 * 5


def test_the_gil_is_released_while_parsing() -> None:
    # While one thread runs a long parse_json, another thread keeps running Python code.
    big = make_850(20000, lines=10)
    ticks = [0]
    done = [False]

    def count() -> None:
        while not done[0]:
            ticks[0] += 1
            time.sleep(0)

    with ThreadPoolExecutor(2) as pool:
        f = pool.submit(count)
        start = time.perf_counter()
        for _ in range(3):
            x12kit.parse_json(big, documents=False)
        elapsed = time.perf_counter() - start
        done[0] = True
        f.result()
    assert elapsed > 0 and ticks[0] > 50, f"the counting thread ran {ticks[0]} times in {elapsed:.3f}s"
