"""No input crashes: arbitrary and mutated bytes through every entry point."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import x12kit
from conftest import X850, assert_documents_as_in_to_dict, assert_same, make_850

SEED = make_850(3, lines=2)
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def exercise(data: bytes) -> None:
    r = x12kit.parse(data)
    j = x12kit.parse_json(data)
    assert r.to_json() == j
    d = r.to_dict()
    assert_same(d, json.loads(j))
    for i in r.interchanges:
        i.header
        for g in i.groups:
            g.header
            for t in g.transactions:
                for s in t.segments():
                    s.id, len(s), s.elements
    assert_documents_as_in_to_dict(r, d)
    whole = [(s.index, s.raw) for s in r.segments()]
    assert [(s.index, s.raw) for s in x12kit.iter_segments(data, chunk_size=3)] == whole
    v = x12kit.validate(data, structure=True)
    assert v.to_dict() == json.loads(x12kit.validate_json(data, structure=True))
    x12kit.validate_stream(data, chunk_size=5)
    x12kit.read_acknowledgement(data)
    try:
        x12kit.acknowledge(v, now=1_700_000_000)
    except x12kit.X12kitError as e:  # a typed refusal is fine, a crash is not
        assert e.code != "INTERNAL", e
    try:
        x12kit.write(d)
    except x12kit.X12kitError as e:
        assert e.code != "INTERNAL", e


@FAST
@given(st.binary(max_size=2000))
def test_arbitrary_bytes(data: bytes) -> None:
    exercise(data)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    base = bytearray(draw(st.sampled_from([SEED, X850])))
    for _ in range(draw(st.integers(1, 8))):
        op = draw(st.integers(0, 2))
        at = draw(st.integers(0, len(base)))
        if op == 0 and base:
            del base[min(at, len(base) - 1)]
        elif op == 1:
            base[at:at] = draw(st.binary(min_size=1, max_size=4))
        elif base:
            base[min(at, len(base) - 1)] = draw(st.sampled_from(b"*~:^>|\n\r\x00\xff ISAGE0"))
    return bytes(base)


@FAST
@given(mutated())
def test_mutated_x12(data: bytes) -> None:
    exercise(data)


@FAST
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
                    max_leaves=20))
def test_write_and_render_arbitrary_json(value: object) -> None:
    for call in (
        lambda: x12kit.write(value if isinstance(value, (dict, list)) else {"interchanges": value}),
        lambda: x12kit.render("850", value if isinstance(value, (dict, list)) else {"x": value}, {"x": value}, now=0),
    ):
        try:
            call()
        except x12kit.X12kitError as e:
            assert e.code != "INTERNAL", e
