"""iter_segments / validate_stream: equal to the whole-input results, bounded memory."""

from __future__ import annotations

import io
import os
import resource
import threading
from pathlib import Path
from typing import Iterator

import pytest

import x12kit
from conftest import X850, make_850


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
def test_iter_segments_equals_parse_segments(chunk: int) -> None:
    data = make_850(30)
    whole = [(s.index, s.offset, s.raw, s.id) for s in x12kit.parse(data).segments()]
    assert [(s.index, s.offset, s.raw, s.id) for s in x12kit.iter_segments(data, chunk_size=chunk)] == whole
    assert [(s.index, s.raw) for s in x12kit.iter_segments(io.BytesIO(data), chunk_size=chunk)] == [
        (i, r) for i, _, r, _ in whole
    ]


def test_iter_segments_from_a_path_and_diagnostics(tmp_path: Path) -> None:
    p = tmp_path / "x.edi"
    data = X850.replace(b"SE*3", b"zz*1~SE*3")
    p.write_bytes(data)
    it = x12kit.iter_segments(p)
    segs = list(it)
    assert [s.id for s in segs] == ["ISA", "GS", "ST", "BEG", "zz", "SE", "GE", "IEA"]
    assert it.consumed == len(data)
    # The tokenizer's diagnostics are those parse() reports for the same bytes.
    assert [d.to_dict() for d in it.diagnostics] == [d.to_dict() for d in x12kit.parse(data).diagnostics]
    assert it.diagnostics[0].code == "SEGMENT_ID"


def test_text_file_objects_are_refused() -> None:
    with pytest.raises(x12kit.InvalidType) as info:
        list(x12kit.iter_segments(io.StringIO(X850.decode())))
    assert "binary" in info.value.message
    with pytest.raises(x12kit.InvalidType):
        x12kit.iter_segments(X850.decode())  # type: ignore[arg-type]


@pytest.mark.parametrize("chunk", [1, 5, 4096])
def test_validate_stream_is_chunk_independent(chunk: int) -> None:
    data = make_850(40).replace(b"SE*7*0003", b"SE*9*0003")
    want = x12kit.validate_stream(data).to_json()
    assert x12kit.validate_stream(io.BytesIO(data), chunk_size=chunk).to_json() == want
    v = x12kit.validate_stream(data, chunk_size=chunk)
    assert not v.is_valid and v.diagnostics[0].code == "SE01_COUNT"
    whole = x12kit.validate(data)
    assert [d.code for d in v.diagnostics] == [d.code for d in whole.diagnostics]
    counts = x12kit.validate_stream(data, retain="counts", chunk_size=chunk)
    assert counts.error_count == v.error_count
    with pytest.raises(x12kit.InvalidArgument) as info:
        x12kit.validate_stream(data, retain="some")
    assert info.value.code == "INVALID_OPTIONS" and info.value.pointer == "/retain"


class Generated(io.RawIOBase):
    """A clean binary X12 stream of about `total` bytes, generated as it is read:
    one interchange of groups (GS06 counting up) of 200 850 sets each."""

    def __init__(self, total: int) -> None:
        one = make_850(200, lines=20)
        self.head = one[: one.index(b"GS*")]
        group = one[one.index(b"GS*") : one.index(b"IEA*")]
        self.group_tail = group[group.index(b"\n") :]  # everything after the GS line
        self.total = total
        self.pieces = self._pieces()
        self.current = b""
        self.pos = 0

    def _pieces(self) -> Iterator[bytes]:
        yield self.head
        sent, groups = len(self.head), 0
        while sent < self.total:
            groups += 1
            gs = b"GS*PO*SENDER*RECEIVER*20230101*1200*%d*X*004010~" % groups
            tail = self.group_tail.replace(b"GE*200*1~", b"GE*200*%d~" % groups)
            yield gs
            yield tail
            sent += len(gs) + len(tail)
        yield b"IEA*%d*000000001~" % groups

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[no-untyped-def,override]
        while self.pos == len(self.current):
            nxt = next(self.pieces, None)
            if nxt is None:
                return 0
            self.current, self.pos = nxt, 0
        n = min(len(b), len(self.current) - self.pos)
        b[:n] = self.current[self.pos : self.pos + n]
        self.pos += n
        return n


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


SIZE = int(os.environ.get("X12KIT_STREAM_BYTES", str(1 << 30)))


def _peak_during(fn) -> float:  # type: ignore[no-untyped-def]
    peak = [rss_mb()]
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], rss_mb())
            stop.wait(0.05)

    t = threading.Thread(target=watch)
    t.start()
    try:
        fn()
    finally:
        stop.set()
        t.join()
    return peak[0]


@pytest.mark.slow
def test_validate_stream_memory_is_flat_at_1gb() -> None:
    before = rss_mb()
    result = {}

    def run() -> None:
        result["v"] = x12kit.validate_stream(io.BufferedReader(Generated(SIZE), 1 << 20), retain="counts")

    peak = _peak_during(run)
    v = result["v"]
    assert v.is_valid, v.diagnostics[:3]
    assert v.to_dict()["interchanges"][0]["groupCount"] > SIZE // 200_000
    assert peak - before < 64, f"validate_stream grew RSS by {peak - before:.0f} MB over {SIZE >> 20} MB"


@pytest.mark.slow
def test_iter_segments_memory_is_flat_at_1gb() -> None:
    before = rss_mb()
    count = [0]

    def run() -> None:
        for _ in x12kit.iter_segments(io.BufferedReader(Generated(SIZE), 1 << 20)):
            count[0] += 1

    peak = _peak_during(run)
    assert count[0] > SIZE // 40
    assert peak - before < 64, f"iter_segments grew RSS by {peak - before:.0f} MB over {SIZE >> 20} MB"
