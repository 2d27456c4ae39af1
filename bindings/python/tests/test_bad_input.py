"""The core's bad-input table from Python: each a clear diagnostic or a typed exception."""

from __future__ import annotations

import json
from typing import Any

import pytest

import x12kit
from conftest import X850

CASES = {
    "empty": b"",
    "binary": bytes(range(256)) * 8,
    "utf16": X850.decode().encode("utf-16"),
    "json": b'{"interchanges": []}',
    "truncated": X850[: len(X850) // 2],
    "isa-only-part": X850[:50],
    "huge-element": X850.replace(b"PO-1", b"P" * 5_000_000),
    "nul-bytes": b"\x00" * 1000,
    "latin1": X850.replace(b"PO-1", b"PO-\xe9"),
    "bom-only": b"\xef\xbb\xbf",
    "only-terminators": b"~~~~~~",
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_gives_diagnostics_never_a_crash(name: str) -> None:
    data = CASES[name]
    r = x12kit.parse(data)
    out = json.loads(x12kit.parse_json(data))
    assert r.to_dict() == out
    v = x12kit.validate(data, structure=True)
    assert v.to_dict() == json.loads(x12kit.validate_json(data, structure=True))
    list(r.segments())
    # (7-byte chunks; 64 KiB for the 5 MB element: the core's stream tokenizer rescans a
    # pending segment on every feed, so tiny chunks of one huge segment are quadratic.)
    chunk = 65536 if name == "huge-element" else 7
    assert [s.raw for s in x12kit.iter_segments(data, chunk_size=chunk)] == [s.raw for s in r.segments()]
    x12kit.read_acknowledgement(data)
    x12kit.acknowledge(v, now=0)
    if name != "huge-element":
        # Everything that is not a clean interchange says why.
        assert r.diagnostics or v.diagnostics, name
        for d in list(r.diagnostics) + list(v.diagnostics):
            assert d.code in x12kit.DIAGNOSTIC_CODES and d.message


def test_huge_element_is_kept_whole() -> None:
    r = x12kit.parse(CASES["huge-element"])
    beg = next(r.interchanges[0].groups[0].transactions[0].segments())
    assert len(beg[3]) == 5_000_000


@pytest.mark.parametrize(
    "value",
    [None, 1, 1.5, object(), ["ISA"], {"a": 1}, True],
    ids=["None", "int", "float", "object", "list", "dict", "bool"],
)
def test_wrong_python_types_are_typed_errors(value: Any) -> None:
    for fn in (x12kit.parse, x12kit.parse_json, x12kit.validate, x12kit.validate_json, x12kit.read_acknowledgement):
        with pytest.raises(x12kit.InvalidType) as info:
            fn(value)
        assert info.value.code == "INVALID_ARGUMENT" and isinstance(info.value, TypeError)
    with pytest.raises(x12kit.InvalidType):
        x12kit.iter_segments(value)
    with pytest.raises(x12kit.InvalidType):
        x12kit.document_schema(value)
    with pytest.raises(x12kit.InvalidType):
        x12kit.payloads_from_csv(value, b"/purchaseOrderNumber\nPO-1\n")
    if value is not None and not isinstance(value, (bytes, str)):
        with pytest.raises(x12kit.InvalidType):
            x12kit.payloads_from_csv("850", value)
    for args in ((value, "004010", "BEG"), ("850", value, "BEG"), ("850", "004010", value)):
        with pytest.raises(x12kit.InvalidType):
            x12kit.describe_segment(*args)
        with pytest.raises(x12kit.InvalidType):
            x12kit.describe_segment_json(*args)


def test_csv_intake_reports_problems_and_refuses_unusable_calls() -> None:
    r = x12kit.payloads_from_csv("850", b"/purchaseOrderNumber,/lines/*/quantity\nPO-1,many\n")
    assert [(p["row"], p["column"], p["code"]) for p in r["problems"]] == [(2, "/lines/*/quantity", "INVALID_FIELD")]
    with pytest.raises(x12kit.RenderError) as info:
        x12kit.payloads_from_csv("851", b"x")
    assert info.value.code == "UNKNOWN_DOCUMENT_TYPE"
    with pytest.raises(x12kit.InvalidArgument) as bad:
        x12kit.payloads_from_csv("850", b"x", delimiter="|")
    assert bad.value.code == "INVALID_OPTIONS" and bad.value.pointer == "/delimiter"
    with pytest.raises(x12kit.RenderError) as partner:
        x12kit.payloads_from_csv("850", b"x", partner={"sender": {}})
    assert partner.value.code == "INVALID_PARTNER"


def test_wrong_option_types_name_the_option() -> None:
    with pytest.raises(x12kit.InvalidArgument) as info:
        x12kit.parse(X850, documents=1)  # type: ignore[arg-type]
    # (The core points at the key for unknown keys; for a wrong value type it gives "/" today.)
    assert info.value.code == "INVALID_OPTIONS" and info.value.pointer is not None
    with pytest.raises(x12kit.InvalidArgument) as info:
        x12kit.acknowledge(X850, interchange_control_number=-1)
    assert info.value.code == "INVALID_OPTIONS" and "-1" in info.value.message
    with pytest.raises(x12kit.InvalidArgument) as info:
        x12kit.render("850", {}, {}, control_numbers={"interchange": "x"})  # type: ignore[dict-item]
    assert info.value.code == "INVALID_OPTIONS"
    with pytest.raises(x12kit.InvalidType):
        x12kit.write(X850, line_break=object())  # type: ignore[arg-type]
    with pytest.raises(x12kit.InvalidType):
        x12kit.acknowledge(X850, now="soon")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        x12kit.parse(X850, document=False)  # type: ignore[call-arg]
    with pytest.raises(x12kit.InvalidArgument):
        x12kit.iter_segments(X850, chunk_size=0)
