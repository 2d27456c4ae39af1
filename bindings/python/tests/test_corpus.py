"""Every corpus file (../shared/corpus or $X12KIT_CORPUS) through every read path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import x12kit
from conftest import assert_same, corpus_dir, corpus_files

FILES = corpus_files()


def test_the_corpus_is_there() -> None:
    assert FILES, f"no corpus files under {corpus_dir()} (set X12KIT_CORPUS)"


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(corpus_dir())) for p in FILES])
def test_corpus_file(path: Path) -> None:
    data = path.read_bytes()
    r = x12kit.parse(path)
    j = x12kit.parse_json(data)
    assert r.to_json() == j
    d = r.to_dict()
    assert_same(d, json.loads(j))
    # Lazy views agree with the contract.
    assert len(r.interchanges) == len(d["interchanges"])
    for i, di in zip(r.interchanges, d["interchanges"]):
        assert i.header == di["header"]
        for g, dg in zip(i.groups, di["groups"]):
            for t, dt in zip(g.transactions, dg["transactions"]):
                assert t.type == dt["type"] and t.control_number == dt["controlNumber"]
                assert len(list(t.segments())) == len(dt["segments"])
                if "document" in dt:
                    assert t.document == dt["document"]
    # The whole-input views equal the stream views, whatever the chunking.
    whole = [(s.index, s.raw) for s in r.segments()]
    assert [(s.index, s.raw) for s in x12kit.iter_segments(path, chunk_size=5)] == whole
    with path.open("rb") as f:
        assert [(s.index, s.raw) for s in x12kit.iter_segments(f, chunk_size=4096)] == whole
    v = x12kit.validate(data)
    assert v.to_json() == x12kit.validate_json(data)
    # Stream validation does not depend on the chunking or the source kind.
    streamed = x12kit.validate_stream(path).to_json()
    assert x12kit.validate_stream(path, chunk_size=3).to_json() == streamed
    with path.open("rb") as f:
        assert x12kit.validate_stream(f, chunk_size=1000).to_json() == streamed
    lossy = {"INVALID_UTF8"} & {dd["code"] for dd in d["diagnostics"]}
    if not r.has_errors and not lossy:
        # A clean parse writes back byte for byte (the core's own corpus rule).
        assert x12kit.write(r) == data
    x12kit.acknowledge(data, now=1_700_000_000)
