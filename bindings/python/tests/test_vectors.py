"""tests/vectors: every case of manifest.json through the Python API, byte for byte."""

from __future__ import annotations

import inspect
import json
import sys
from typing import Any, Callable, Dict, List, Union

import pytest

import x12kit
from conftest import VECTORS, assert_documents_as_in_to_dict, assert_same

MANIFEST = VECTORS / "manifest.json"


def _cases() -> List[Dict[str, Any]]:
    # Read at collection time: a missing or broken manifest is a failure, never a silent skip.
    data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    assert data.get("version") == 1, "manifest version 1"
    cases: List[Dict[str, Any]] = data["cases"]
    return cases


CASES = _cases()


def snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


# How a case's options reach the function: as Python keyword arguments
# (snake_case), or as the core's own option object through `options=`.
MODE = "keywords"


def kwargs(case: Dict[str, Any]) -> Dict[str, Any]:
    opts = case.get("options")
    if MODE == "options":
        return {} if opts is None else {"options": opts}
    opts = opts or {}
    assert isinstance(opts, dict), "options must be an object"
    return {snake(k): v for k, v in opts.items()}


def warnings_of(case: Dict[str, Any]) -> None:
    """`warnings` of a render case: what render_document() reports (absent = none)."""
    args = case["args"]
    r = x12kit.render_document(
        args["documentType"],
        file_bytes(case, "payload").decode(),
        file_bytes(case, "partner").decode(),
        now=args["now"],
        **kwargs(case),
    )
    assert r.warnings == case.get("warnings", [])


def file_bytes(case: Dict[str, Any], name: str) -> bytes:
    return (VECTORS / case["args"][name]).read_bytes()


def body_of(case: Dict[str, Any]) -> bytes:
    args = case["args"]
    if "bodyFile" in args:
        return (VECTORS / args["bodyFile"]).read_bytes()
    body: str = args["body"]
    return body.encode()


def run(case: Dict[str, Any]) -> bytes:
    op = case["op"]
    args = case.get("args") or {}
    kw = kwargs(case)
    if op == "parse":
        data = file_bytes(case, "input")
        out = x12kit.parse_json(data, **kw)
        # The lazy result gives the same bytes.
        assert x12kit.parse(data, **kw).to_json() == out
        return out
    if op == "validate":
        data = file_bytes(case, "input")
        out = x12kit.validate_json(data, **kw)
        assert x12kit.validate(data, **kw).to_json() == out
        return out
    if op == "acknowledge":
        data = file_bytes(case, "input")
        out = x12kit.acknowledge(data, now=args["now"], **kw)
        # Through a Validation made with the same structure setting: the same bytes.
        if MODE == "options":
            opts = dict(kw.get("options") or {})
            structure = opts.pop("structure", True)
            guides = opts.pop("guides", None)
            ack_kw: Dict[str, Any] = {"options": opts}
        else:
            structure = kw.get("structure", True)
            guides = kw.get("guides")
            ack_kw = {k: v for k, v in kw.items() if k not in ("structure", "guides")}
        v = x12kit.validate(data, structure=structure, guides=guides)
        assert x12kit.acknowledge(v, now=args["now"], **ack_kw) == out
        return out
    if op == "readAcknowledgement":
        data = file_bytes(case, "input")
        out = x12kit.read_acknowledgement_json(data)
        assert x12kit.read_acknowledgement(data) == json.loads(out)
        return out
    if op == "render":
        payload_text = file_bytes(case, "payload").decode()
        partner_text = file_bytes(case, "partner").decode()
        call: Callable[[Any, Any], bytes] = lambda p, q: x12kit.render(
            args["documentType"], p, q, now=args["now"], **kw
        )
        out = call(payload_text, partner_text)
        try:
            payload: Union[str, Any] = json.loads(payload_text)
            partner = json.loads(partner_text)
        except ValueError:
            return out
        # The same case from dicts (converted natively) gives the same bytes.
        if isinstance(payload, (dict, list)) and isinstance(partner, dict):
            assert call(payload, partner) == out
        return out
    if op == "write":
        raw = file_bytes(case, "input")
        out = x12kit.write(raw, **kw)
        try:
            value = json.loads(raw)
        except ValueError:
            return out
        # The same from the text and from the dict (converted natively).
        assert x12kit.write(raw.decode(), **kw) == out
        if isinstance(value, dict):
            assert x12kit.write(value, **kw) == out
        return out
    if op == "documentSchema":
        if "partner" not in args:
            out = x12kit.document_schema_json(args["documentType"])
            assert x12kit.document_schema(args["documentType"]) == json.loads(out)
            return out
        # Narrowed for a partner profile, given as JSON text and as a dict.
        text = file_bytes(case, "partner").decode()
        out = x12kit.document_schema_json(args["documentType"], text)
        assert x12kit.document_schema(args["documentType"], partner=text) == json.loads(out)
        try:
            profile = json.loads(text)
        except ValueError:
            return out
        assert x12kit.document_schema_json(args["documentType"], partner=profile) == out
        return out
    if op == "partnerSchema":
        out = x12kit.partner_schema_json()
        assert x12kit.partner_schema() == json.loads(out)
        return out
    if op == "describeSegment":
        call = (args["setType"], args["version"], args["segment"])
        out = x12kit.describe_segment_json(*call)
        assert x12kit.describe_segment(*call) == json.loads(out)
        return out
    if op == "payloadsFromCsv":
        data = file_bytes(case, "input")
        out = x12kit.payloads_from_csv_json(args["documentType"], data, **kw)
        assert x12kit.payloads_from_csv(args["documentType"], data, **kw) == json.loads(out)
        return out
    if op == "split":
        data = file_bytes(case, "input")
        out = x12kit.split_json(data, **kw)
        assert x12kit.split(data, **kw) == json.loads(out)
        return out
    if op == "rebuildPart":
        data = file_bytes(case, "input")
        out = x12kit.rebuild_part_json(args["recipe"], data)
        assert x12kit.rebuild_part(args["recipe"], data) == json.loads(out)
        return out
    if op == "merge":
        inputs = [(VECTORS / rel).read_bytes() for rel in args["inputs"]]
        return x12kit.merge(inputs, **kw)
    if op == "webhookSign":
        sig = x12kit.webhook.sign(args["secret"], args["timestamp"], body_of(case))
        return sig.encode()
    if op == "webhookVerify":
        v = x12kit.webhook.verify(
            args["secrets"], args["signature"], args["timestamp"], body_of(case), now=args["now"], **kw
        )
        return bytes(v.to_json())
    raise AssertionError(f"unknown op {op!r}: the Python runner must learn it")


def check_error(case: Dict[str, Any], e: x12kit.X12kitError) -> None:
    want = case["error"]
    assert e.code == want["code"], f"{e!r}"
    assert e.kind == want["kind"]
    assert e.pointer == want.get("pointer")
    assert e.details == want.get("details", [])
    # The class of the code, and the kind's Python family.
    assert isinstance(e, x12kit.CLASS_BY_CODE[e.code])
    if e.kind == "invalid_input":
        assert isinstance(e, ValueError)


FUNCTIONS: Dict[str, Any] = {
    "parse": x12kit.parse_json,
    "validate": x12kit.validate_json,
    "acknowledge": x12kit.acknowledge,
    "render": x12kit.render,
    "write": x12kit.write,
    "webhookVerify": x12kit.webhook.verify,
    "payloadsFromCsv": x12kit.payloads_from_csv_json,
    "split": x12kit.split_json,
    "merge": x12kit.merge,
}


def unknown_option(case: Dict[str, Any]) -> Union[str, None]:
    """An option that is not a keyword of the Python function (Python raises TypeError for it)."""
    fn = FUNCTIONS.get(case["op"])
    if fn is None:
        return None
    params = inspect.signature(fn).parameters
    for k in (case.get("options") or {}):
        if snake(k) not in params:
            return str(k)
    return None


def _runs() -> List[Any]:
    """Every case with its options given as the core's object (`options=`); and every case
    whose options are an object, given as keyword arguments too."""
    out = []
    for c in CASES:
        out.append(pytest.param(c, "options", id=c["id"] + "[options]"))
        if isinstance(c.get("options") or {}, dict):
            out.append(pytest.param(c, "keywords", id=c["id"]))
    return out


@pytest.mark.parametrize("case,mode", _runs())
def test_vector(case: Dict[str, Any], mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert ("expect" in case) != ("error" in case), "a case gives expect or error"
    monkeypatch.setattr(sys.modules[__name__], "MODE", mode)
    bad = unknown_option(case) if mode == "keywords" else None
    if bad is not None:
        # Python's convention for an unknown keyword is TypeError; the core's verdict is
        # INVALID_OPTIONS at /<key>: the case must say exactly that (its "options" run
        # checks the core's error itself).
        assert case["error"]["code"] == "INVALID_OPTIONS"
        assert case["error"].get("pointer") == "/" + bad
        with pytest.raises(TypeError):
            run(case)
        return
    if "error" in case:
        with pytest.raises(x12kit.X12kitError) as info:
            run(case)
        check_error(case, info.value)
        return
    out = run(case)
    want = (VECTORS / case["expect"]).read_bytes()
    assert out == want, f"output differs from {case['expect']}"
    if case["op"] == "render":
        warnings_of(case)
    if case["op"] == "parse":
        # to_dict() is the JSON contract as Python objects: same keys in the same order, same types.
        r = x12kit.parse(file_bytes(case, "input"), **kwargs(case))
        assert_same(r.to_dict(), json.loads(out))
        # Each set's `document` (mapped whatever the documents option) is the one of the
        # contract with documents (and the case's cap on one set), keys in the same order.
        cap = (case.get("options") or {}).get("maxSetBytes")
        mapped = x12kit.parse(file_bytes(case, "input"), **({} if cap is None else {"max_set_bytes": cap}))
        assert_documents_as_in_to_dict(r, mapped.to_dict())
    if case["op"] == "validate":
        v = x12kit.validate(file_bytes(case, "input"), **kwargs(case))
        assert_same(v.to_dict(), json.loads(out))


def test_every_op_is_covered() -> None:
    ops = {c["op"] for c in CASES}
    assert ops, "the manifest has cases"
