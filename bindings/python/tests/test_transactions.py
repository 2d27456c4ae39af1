"""iter_transactions: every set of the parse result, one at a time, in bounded memory."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any, Dict, List

import pytest

import x12kit
from conftest import X850, make_850
from test_stream import Generated, _peak_during, rss_mb


def sets_of(data: bytes, documents: bool = True) -> List[Dict[str, Any]]:
    """What iter_transactions must give: each set of parse()'s result with its headers."""
    out = []
    for i in x12kit.parse(data, documents=documents).to_dict()["interchanges"]:
        for g in i["groups"]:
            for t in g["transactions"]:
                out.append({"interchange": i["header"], "group": g["header"], "transaction": t})
    return out


def strip(items: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [{k: v for k, v in s.items() if k != "diagnostics"} for s in items]


@pytest.mark.parametrize("documents", [True, False])
def test_every_set_of_the_parse_result_from_bytes_a_path_and_a_file(tmp_path: Path, documents: bool) -> None:
    data = make_850(25) + b"\n" + make_850(3)
    want = sets_of(data, documents)
    p = tmp_path / "x.edi"
    p.write_bytes(data)
    for source in (data, bytearray(data), p, io.BytesIO(data), open(p, "rb")):
        it = x12kit.iter_transactions(source, documents=documents)
        got = list(it)
        assert strip(got) == want
        assert all(s["diagnostics"] == [] for s in got)
        assert it.diagnostics == []
    first = next(iter(x12kit.iter_transactions(data)))
    assert first["transaction"]["type"] == "850" and first["group"]["functionalId"] == "PO"
    assert first["transaction"]["document"]["purchaseOrderNumber"] == "PO-1"
    assert first["interchange"]["controlNumber"] == "000000001"


def test_the_diagnostics_of_each_set_and_of_the_input() -> None:
    # The second set's SE01 is wrong for validation but the parse is fine; a set without SE
    # and garbage after the IEA are parse diagnostics.
    data = make_850(3).replace(b"SE*7*0002~", b"").replace(b"IEA*1*000000001~", b"IEA*1*000000001~GARBAGE")
    items = list(x12kit.iter_transactions(data))
    whole = x12kit.parse(data)
    assert strip(items) == sets_of(data)
    it = x12kit.iter_transactions(data)
    list(it)
    assert [d.to_dict() for d in it.diagnostics] == [d.to_dict() for d in whole.diagnostics]
    codes = {d.code for d in whole.diagnostics}
    assert {"SE_MISSING", "TRAILING_DATA"} <= codes
    # Every diagnostic a set carries is one of the input's, at one of its segments.
    all_dicts = [d.to_dict() for d in whole.diagnostics]
    for s in items:
        for d in s["diagnostics"]:
            assert d in all_dicts


def test_not_x12_and_empty_inputs_give_no_set_and_their_diagnostics() -> None:
    for data in (b"", b"hello"):
        it = x12kit.iter_transactions(data)
        assert list(it) == []
        assert [d.code for d in it.diagnostics] == [d.code for d in x12kit.parse(data).diagnostics]


def test_bad_sources_and_options_are_typed_errors(tmp_path: Path) -> None:
    with pytest.raises(x12kit.InvalidType):
        x12kit.iter_transactions(X850.decode())  # type: ignore[arg-type]
    with pytest.raises(x12kit.InvalidType):
        x12kit.iter_transactions(5)  # type: ignore[arg-type]
    with pytest.raises(x12kit.InvalidType) as info:
        x12kit.iter_transactions(io.StringIO(X850.decode()))
    assert "binary" in info.value.message
    with pytest.raises(x12kit.X12kitIOError):
        x12kit.iter_transactions(tmp_path / "missing.edi")
    with pytest.raises(x12kit.InvalidArgument) as bad:
        x12kit.iter_transactions(X850, options={"document": False})
    assert bad.value.code == "INVALID_OPTIONS" and bad.value.pointer == "/document"


def test_closing_early_stops_the_reader() -> None:
    it = x12kit.iter_transactions(make_850(500))
    assert next(it)["transaction"]["controlNumber"] == "0001"
    it.close()
    assert list(it) == []


SIZE = int(os.environ.get("X12KIT_STREAM_BYTES", str(1 << 30)))


@pytest.mark.slow
def test_iter_transactions_memory_is_bounded_at_1gb() -> None:
    """A generated 1 GB stream (one interchange of 850s), read from a file object: spooled,
    mapped and handed over a set at a time, documents mapped; RSS stays bounded."""
    before = rss_mb()
    count = [0, 0]

    def run() -> None:
        for s in x12kit.iter_transactions(io.BufferedReader(Generated(SIZE), 1 << 20)):
            count[0] += 1
            count[1] += len(s["transaction"]["document"]["lines"])

    peak = _peak_during(run)
    print(f"# iter_transactions over {SIZE >> 20} MiB: {count[0]} sets, RSS +{peak - before:.0f} MB")
    assert count[0] > SIZE // 2_000, count
    assert count[1] == count[0] * 20
    assert peak - before < 96, f"iter_transactions grew RSS by {peak - before:.0f} MB over {SIZE >> 20} MB"


def test_a_set_over_the_cap_comes_without_its_segments_and_the_others_whole(tmp_path: Path) -> None:
    # The vector input: a small set, one of about 400 bytes, a small one.
    data = (Path(__file__).parents[3] / "tests/vectors/inputs/set-too-large.edi").read_bytes()
    p = tmp_path / "x.edi"
    p.write_bytes(data)
    whole = x12kit.parse(data, max_set_bytes=300).to_dict()
    want = [t for g in whole["interchanges"][0]["groups"] for t in g["transactions"]]
    assert [len(t["segments"]) for t in want] == [3, 0, 4]
    assert "document" not in want[1] and "document" in want[2]
    for source in (data, p, io.BytesIO(data)):
        for kw in ({"max_set_bytes": 300}, {"options": {"maxSetBytes": 300}}):
            it = x12kit.iter_transactions(source if not isinstance(source, io.BytesIO) else io.BytesIO(data), **kw)
            got = list(it)
            assert [s["transaction"] for s in got] == want
            assert [[d["code"] for d in s["diagnostics"]] for s in got] == [[], ["SET_TOO_LARGE"], []]
            assert [d.code for d in it.diagnostics] == ["SET_TOO_LARGE"]
    assert [len(s["transaction"]["segments"]) for s in x12kit.iter_transactions(data, max_set_bytes=0)] == [3, 14, 4]
    with pytest.raises(x12kit.InvalidArgument) as e:
        x12kit.iter_transactions(data, max_set_bytes=-1)
    assert e.value.code == "INVALID_OPTIONS"
