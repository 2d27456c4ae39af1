"""The Python surface: inputs, lazy views, to_dict, validate, acknowledge, render, write."""

from __future__ import annotations

import array
import json
from pathlib import Path

import pytest

import x12kit
from conftest import ISA, REPO, X850, assert_documents_as_in_to_dict, assert_same, make_850

PARTNER = json.loads((REPO / "examples" / "partners" / "acme-retail.json").read_text())
PAYLOAD_850 = json.loads((REPO / "examples" / "payloads" / "850.json").read_text())


@pytest.mark.parametrize(
    "make",
    [
        lambda b: b,
        bytearray,
        memoryview,
        lambda b: b.decode(),
        lambda b: array.array("B", b),
    ],
    ids=["bytes", "bytearray", "memoryview", "str", "array"],
)
def test_every_input_type_gives_the_same_result(make, x850: bytes) -> None:  # type: ignore[no-untyped-def]
    assert x12kit.parse_json(make(x850)) == x12kit.parse_json(x850)
    assert x12kit.parse(make(x850)).to_json() == x12kit.parse_json(x850)


def test_path_input_and_str_is_never_a_file_name(tmp_path: Path, x850: bytes) -> None:
    p = tmp_path / "po.edi"
    p.write_bytes(x850)
    assert x12kit.parse_json(p) == x12kit.parse_json(x850)
    # A str is X12 text, even when it names an existing file.
    r = x12kit.parse(str(p))
    assert r.interchanges == [] and r.has_errors
    with pytest.raises(x12kit.X12kitIOError) as info:
        x12kit.parse(tmp_path / "missing.edi")
    assert info.value.code == "IO" and isinstance(info.value, OSError)


def test_bytes_input_is_kept_not_copied(x850: bytes) -> None:
    r = x12kit.parse(x850)
    assert r.input is x850


def test_tree_views_and_header_attributes(x850: bytes) -> None:
    r = x12kit.parse(x850)
    assert not r.has_errors and r.diagnostics == [] and r.segment_count == 7
    (i,) = r.interchanges
    assert (i.sender_qualifier, i.sender_id, i.receiver_id) == ("ZZ", "SENDER         ", "RECEIVER       ")
    assert (i.control_number, i.version, i.usage, i.date, i.time) == ("000000001", "00401", "P", "230101", "1200")
    assert i.header["senderId"] == i.sender_id and len(i.header) == 16
    assert i.delimiters == {"element": "*", "component": ">", "repetition": None, "segment": "~"}
    assert i.isa.id == "ISA" and i.iea is not None and i.iea[2] == "000000001"
    (g,) = i.groups
    assert (g.functional_id, g.control_number, g.version, g.sender_code) == ("PO", "1", "004010", "SENDER")
    assert g.header is not None and g.header["functionalId"] == "PO"
    assert g.gs is not None and g.ge is not None and g.ge[1] == "1"
    (t,) = g.transactions
    assert (t.type, t.control_number, t.implementation_reference) == ("850", "0001", None)
    assert t.st.id == "ST" and t.se is not None and t.se[1] == "3"
    segs = list(t.segments())
    assert [s.id for s in segs] == ["BEG"]
    assert_same(t.document, {"purpose": "00", "orderType": "SA", "purchaseOrderNumber": "PO-1", "orderDate": "2023-01-01"})


def test_segment_views(x850: bytes) -> None:
    segs = list(x12kit.parse(x850).segments())
    assert [s.id for s in segs] == ["ISA", "GS", "ST", "BEG", "SE", "GE", "IEA"]
    beg = segs[3]
    assert (beg[0], beg[1], beg[3], beg[4], beg[5]) == ("BEG", "00", "PO-1", "", "20230101")
    assert beg[-1] == "20230101" and len(beg) == 5
    assert beg.elements == ["00", "SA", "PO-1", "", "20230101"]
    assert beg.index == 3 and beg.offset == x850.index(b"BEG") and beg.raw == b"BEG*00*SA*PO-1**20230101"
    assert str(beg) == "BEG*00*SA*PO-1**20230101" and beg.terminated
    with pytest.raises(IndexError):
        beg[6]
    with pytest.raises(IndexError):
        beg[-6]
    assert beg.element(9) is None and beg.element(0) is None
    e = beg.element(3)
    assert e is not None and e.value == "PO-1" and e == "PO-1" and e.components == ["PO-1"]
    assert segs[3] == list(x12kit.parse(x850).segments())[3]


def test_components_and_repetitions() -> None:
    isa = (
        "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       "
        "*230101*1200*^*00501*000000001*0*P*:~"
    )
    x = (isa + "GS*PO*S*R*20230101*1200*1*X*005010~ST*850*0001~REF*ZZ*A:B:C^D:E~SE*3*0001~GE*1*1~IEA*1*000000001~").encode()
    ref = [s for s in x12kit.parse(x).segments() if s.id == "REF"][0]
    el = ref.element(2)
    assert el is not None and el.is_repeated and el.is_composite
    reps = el.repetitions
    assert [r.value for r in reps] == ["A:B:C", "D:E"]
    assert reps[0].components == ["A", "B", "C"] and reps[0].component(2) == "B" and reps[0].component(4) is None
    assert x12kit.parse(x).interchanges[0].delimiters["repetition"] == "^"


def test_to_dict_is_exactly_the_json_contract(x850: bytes) -> None:
    for data in [x850, make_850(20), b"", b"garbage", "ISA*00*\u00e9".encode()]:
        for documents in (True, False):
            r = x12kit.parse(data, documents=documents)
            assert_same(r.to_dict(), json.loads(x12kit.parse_json(data, documents=documents)))
            assert r.to_json() == x12kit.parse_json(data, documents=documents)


def test_transaction_document_keeps_the_contract_key_order() -> None:
    # `transaction.document` is the set's `document` of to_dict(), keys in the contract's
    # order (not sorted), for sets in every envelope shape the mapping sees.
    t = x12kit.parse(make_850(1, lines=1)).interchanges[0].groups[0].transactions[0]
    d = t.document
    assert d is not None
    assert list(d) == ["purpose", "orderType", "purchaseOrderNumber", "orderDate", "lines"]
    assert list(d["lines"][0]) != sorted(d["lines"][0])
    set_850 = "ST*850*0001~BEG*00*SA*PO-1**20230101~PO1*1*2*EA*1.25**BP*ITEM-1~ZZZ*1~CTT*1~SE*6*0001~"
    gs = "GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~"
    shapes = {
        "plain": make_850(3, lines=2).decode(),
        "crlf": make_850(2).decode().replace("~", "~\r\n"),
        "no GS": ISA + set_850 + "IEA*1*000000001~",
        "no SE": ISA + gs + set_850.replace("SE*6*0001~", "") + "GE*1*1~IEA*1*000000001~",
        "no GE or IEA": ISA + gs + set_850,
        "005010": (ISA + gs + set_850 + "GE*1*1~IEA*1*000000001~").replace("*004010~", "*005010X222~"),
        "two interchanges": X850.decode() + "\n" + (ISA + gs + set_850 + "GE*1*1~IEA*1*000000001~"),
        "unknown set between": make_850(3).decode().replace("ST*850*0002~", "ST*999*0002~"),
    }
    for name, text in shapes.items():
        data = text.encode()
        for documents in (True, False):
            r = x12kit.parse(data, documents=documents)
            seen = assert_documents_as_in_to_dict(r, x12kit.parse(data).to_dict())
            assert seen >= 1, name
    # Segments the declaration does not map are kept under `unmapped`, positions counted from ST.
    r = x12kit.parse(ISA + gs + set_850 + "GE*1*1~IEA*1*000000001~")
    (t,) = r.interchanges[0].groups[0].transactions
    assert t.document is not None and t.document["unmapped"] == [{"position": 4, "id": "ZZZ", "elements": ["1"]}]


def test_to_dict_documents_with_escapes_numbers_and_unknown_sets() -> None:
    # The mapped documents are read from the core's JSON by the binding's own reader:
    # escaped and non-ASCII text, numbers, sets without a document in between.
    odd = 'P"O\\1\x01\t\u00e9\U0001f600/'
    data = make_850(3, lines=2).decode().replace("BEG*00*SA*PO-2*", f"BEG*00*SA*{odd}*")
    data = data.replace("ST*850*0003~", "ST*999*0003~")
    for text in [data, data.replace("ST*850*0001~", "ST*997*0001~")]:
        r = x12kit.parse(text.encode())
        want = json.loads(x12kit.parse_json(text.encode()))
        assert_same(r.to_dict(), want)
        sets = [t for g in want["interchanges"][0]["groups"] for t in g["transactions"]]
        assert [("document" in t) for t in sets] == [text.count("ST*850*0001~") == 1, True, False]
    assert sets[1]["document"]["purchaseOrderNumber"] == odd
    assert isinstance(sets[1]["document"]["lines"][0]["quantity"], (int, float))


def test_options_mapping_is_the_cores_option_object(x850: bytes) -> None:
    import types

    # The core's option object (camelCase keys), as a dict or any Mapping.
    assert x12kit.parse_json(x850, options={"documents": False}) == x12kit.parse_json(x850, documents=False)
    proxy = types.MappingProxyType({"documents": False})
    assert x12kit.parse(x850, options=proxy).to_json() == x12kit.parse_json(x850, documents=False)
    assert x12kit.write(x12kit.parse(x850), options={"lineBreak": "\n"}) == x12kit.write(
        x12kit.parse(x850), line_break="\n"
    )
    # A keyword argument given (not None) wins over the same key in options.
    assert x12kit.parse_json(x850, documents=True, options={"documents": False}) == x12kit.parse_json(x850)
    assert x12kit.parse_json(x850, documents=None, options={"documents": False}) == x12kit.parse_json(
        x850, documents=False
    )
    # Not an object, an unknown key, a wrong type: the core's INVALID_OPTIONS with its pointer.
    for bad, pointer in [([True], "/"), ("documents", "/"), (3, "/"), ({"nope": 1}, "/nope"), ({"documents": "x"}, "/documents")]:
        with pytest.raises(x12kit.InvalidArgument) as info:
            x12kit.parse(x850, options=bad)  # type: ignore[arg-type]
        assert info.value.code == "INVALID_OPTIONS" and info.value.pointer == pointer, bad
    with pytest.raises(x12kit.InvalidArgument) as info:
        x12kit.validate_stream(x850, options={"retain": "some"})
    assert info.value.pointer == "/retain"
    v = x12kit.validate_stream(x850, options={"retain": "counts", "structure": True})
    assert v.to_dict()["interchanges"][0]["groups"] == []


def test_diagnostics_objects() -> None:
    x = X850.replace(b"SE*3*0001~", b"")
    r = x12kit.parse(x)
    d = r.diagnostics[0]
    assert d.severity == "error" and d.code == "SE_MISSING" and "SE" in d.message
    assert isinstance(d.segment_index, int) and d.offset is not None
    assert d.to_dict() == json.loads(x12kit.parse_json(x))["diagnostics"][0]
    assert "SE_MISSING" in repr(d) and d.code in x12kit.DIAGNOSTIC_CODES


def test_validate_and_acknowledge(x850: bytes) -> None:
    v = x12kit.validate(x850)
    assert v.is_valid and bool(v) and v.error_count == 0
    assert v.to_dict() == json.loads(x12kit.validate_json(x850))
    assert v.interchanges == v.to_dict()["interchanges"]
    s = x12kit.validate(x850, structure=True)
    assert not s.is_valid and s.diagnostics[0].ack is not None
    ack = x12kit.acknowledge(s, kind="997", now=1_700_000_000)
    assert ack.startswith(b"ISA*") and b"ST*997*0001" in ack and b"AK5*R" in ack
    assert x12kit.acknowledge(x850, kind="997", now=1_700_000_000) == ack
    ack999 = x12kit.acknowledge(x850, kind="999", date="20261124", time="0930", set_control_number=7)
    assert b"ST*999*0007" in ack999 and b"*20261124*0930*" in ack999
    read = x12kit.read_acknowledgement(ack)
    assert read == json.loads(x12kit.read_acknowledgement_json(ack))
    with pytest.raises(x12kit.InvalidArgument) as info:
        x12kit.acknowledge(x850, date="20261399", time="0930")
    assert info.value.code == "INVALID_TIMESTAMP"


def test_render_and_schemas() -> None:
    assert "850" in x12kit.DOCUMENT_TYPES and len(x12kit.DOCUMENT_TYPES) == 18
    schema = x12kit.document_schema("850")
    assert isinstance(schema, dict) and schema == json.loads(x12kit.document_schema_json("850"))
    assert x12kit.partner_schema() == json.loads(x12kit.partner_schema_json())
    out = x12kit.render("850", PAYLOAD_850, PARTNER, date="20261124", time="0930")
    assert out.startswith(b"ISA*") and b"ST*850*0001" in out and b"*20261124*0930*" in out
    same = x12kit.render(
        "850", json.dumps(PAYLOAD_850), json.dumps(PARTNER).encode(), date="20261124", time="0930"
    )
    assert same == out
    numbered = x12kit.render(
        "850", PAYLOAD_850, PARTNER, control_numbers={"interchange": 42, "transaction": 7}, now=1_700_000_000
    )
    assert b"*000000042*" in numbered and b"ST*850*0007" in numbered
    detailed = x12kit.render_document("850", PAYLOAD_850, PARTNER, date="20261124", time="0930")
    assert detailed.x12 == out and isinstance(detailed.document, dict) and isinstance(detailed.warnings, list)
    back = x12kit.parse(out).interchanges[0].groups[0].transactions[0].document
    assert back == detailed.document


def test_describe_segment_names_elements_and_codes() -> None:
    beg = x12kit.describe_segment("850", "004010", "BEG")
    assert beg is not None and beg == json.loads(x12kit.describe_segment_json("850", "004010", "BEG"))
    assert beg["segmentName"] == "Beginning Segment for Purchase Order"
    beg01 = beg["elements"][0]
    assert (beg01["number"], beg01["name"]) == ("353", "Transaction Set Purpose Code")
    assert {"code": "00", "meaning": "Original"} in beg01["meanings"]
    isa = x12kit.describe_segment("", "00501", "ISA")
    assert isa is not None and isa["set"] is None and isa["elements"][10]["number"] == "I65"
    assert x12kit.describe_segment("850", "004010", "ZZZ") is None
    assert x12kit.describe_segment_json("850", "004010", "ZZZ") == b"null"
    with pytest.raises(x12kit.InvalidArgument) as info:
        x12kit.describe_segment("850", "5010", "BEG")
    assert info.value.code == "INVALID_ARGUMENT" and isinstance(info.value, ValueError)


def test_render_errors_are_render_errors_with_problems() -> None:
    with pytest.raises(x12kit.RenderError) as info:
        x12kit.render("850", {}, PARTNER, now=1_700_000_000)
    e = info.value
    assert e.code == "INVALID_PAYLOAD" and e.kind == "rejected" and not isinstance(e, ValueError)
    assert e.problems and e.problems[0]["code"] == "MISSING_FIELD"
    assert all(set(p) == {"code", "pointer", "message", "severity"} for p in e.problems)
    with pytest.raises(x12kit.RenderError) as info:
        x12kit.render("850", PAYLOAD_850, {"id": 3}, now=1_700_000_000)
    assert info.value.code == "INVALID_PARTNER" and info.value.problems
    with pytest.raises(x12kit.RenderError) as info:
        x12kit.render("123", {}, PARTNER)
    assert info.value.code == "UNKNOWN_DOCUMENT_TYPE"
    with pytest.raises(x12kit.InvalidArgument) as info:
        x12kit.render("850", "{not json", PARTNER)
    assert info.value.code == "INVALID_JSON" and info.value.pointer == "/payload"
    with pytest.raises(x12kit.InvalidType):
        x12kit.render("850", 3, PARTNER)  # type: ignore[arg-type]


def test_write_round_trips_from_every_form(x850: bytes) -> None:
    r = x12kit.parse(x850)
    assert x12kit.write(r) == x850
    assert x12kit.write(r.to_dict()) == x850
    assert x12kit.write(r.to_json()) == x850
    assert x12kit.write(r.to_json().decode()) == x850
    assert x12kit.write(r, line_break="\n").count(b"\n") == 7
    d = r.to_dict()
    d["interchanges"][0]["groups"][0]["transactions"][0]["segments"][0]["elements"][2] = "PO*1"
    with pytest.raises(x12kit.WriteError) as info:
        x12kit.write(d)
    assert info.value.code == "CONTAINS_DELIMITER" and info.value.pointer
    with pytest.raises(x12kit.InvalidParseResult) as info2:
        x12kit.write({"interchanges": 3})
    assert info2.value.code == "INVALID_PARSE_RESULT" and isinstance(info2.value, x12kit.WriteError)
    with pytest.raises(x12kit.InvalidArgument) as info3:
        x12kit.write("{not json")
    assert info3.value.code == "INVALID_JSON"


def _ranges(f, recipe) -> bytes:  # type: ignore[no-untyped-def]
    """The input's bytes in a recipe's ranges, read from an open file."""
    out = b""
    for start, end in recipe["ranges"]:
        f.seek(start)
        out += f.read(end - start)
    return out


def test_rebuild_part_from_a_file_gives_every_part_of_the_split() -> None:
    path = REPO / "tests/vectors/inputs/split-850-five-sets.edi"
    for kw in ({}, {"max_sets": 3}, {"per": "group"}, {"renumber": {"interchange": 7, "set": 40}}):
        parts = x12kit.split(path, **kw)["parts"]
        assert parts
        with open(path, "rb") as f:
            for p in parts:
                again = x12kit.rebuild_part(p["recipe"], _ranges(f, p["recipe"]))
                assert again == p
                raw = x12kit.rebuild_part_json(p["recipe"], _ranges(f, p["recipe"]))
                assert json.loads(raw) == p


def test_rebuild_part_errors() -> None:
    data = (REPO / "tests/vectors/inputs/split-850-five-sets.edi").read_bytes()
    p = x12kit.split(data)["parts"][1]
    part = b"".join(data[a:b] for a, b in p["recipe"]["ranges"])
    with pytest.raises(x12kit.InvalidArgument) as e:
        x12kit.rebuild_part(p["recipe"], part[:-1])
    assert e.value.code == "INVALID_ARGUMENT" and isinstance(e.value, ValueError)
    with pytest.raises(x12kit.InvalidArgument) as e:
        x12kit.rebuild_part({**p["recipe"], "setsRange": 9}, part)
    assert (e.value.code, e.value.pointer) == ("INVALID_OPTIONS", "/recipe")
    with pytest.raises(x12kit.InvalidArgument) as e:
        x12kit.rebuild_part("not a recipe", part)  # type: ignore[arg-type]
    assert (e.value.code, e.value.pointer) == ("INVALID_OPTIONS", "/recipe")
    with pytest.raises(x12kit.InvalidArgument) as e:
        x12kit.rebuild_part({**p["recipe"], "ranges": [[0, -1]]}, part)
    assert (e.value.code, e.value.pointer) == ("INVALID_OPTIONS", "/recipe/ranges/0/1")
    with pytest.raises(x12kit.X12kitError):
        x12kit.rebuild_part(p["recipe"], 42)  # type: ignore[arg-type]
