"""The examples in examples/python run as tests (the webhook receiver over real HTTP on 127.0.0.1)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import x12kit
from conftest import EXAMPLES, REPO, X850, make_850

sys.path.insert(0, str(EXAMPLES))

import batch_ack  # noqa: E402
import render_document  # noqa: E402
import webhook_receiver  # noqa: E402


@pytest.fixture
def server() -> Iterator[Tuple[str, List[Dict[str, Any]]]]:
    from werkzeug.serving import make_server

    app = webhook_receiver.create_app(["new-secret", "old-secret"], tolerance=300)
    srv = make_server("127.0.0.1", 0, app)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}/webhooks/x12kit", app.config["RECEIVED"]
    finally:
        srv.shutdown()
        t.join()


def post(url: str, body: bytes, headers: Dict[str, str]) -> Tuple[int, bytes]:
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_webhook_receiver_over_http(server: Tuple[str, List[Dict[str, Any]]]) -> None:
    url, received = server
    data = {"documentId": "doc_1", "partnerId": "p_9", "documentTypeCode": "850", "status": "validated"}
    # Signed with the old secret: still accepted while both are configured (rotation).
    d = x12kit.webhook.Signer("old-secret").deliver("document.validated", data)
    status, _ = post(url, d.body, d.headers)
    assert status == 204
    assert received and received[-1]["data"]["documentId"] == "doc_1"
    # A tampered body, a wrong secret, a missing header: 401 with the core's code.
    status, body = post(url, d.body + b" ", d.headers)
    assert status == 401 and json.loads(body)["code"] == "SIGNATURE_MISMATCH"
    other = x12kit.webhook.Signer("someone-else").deliver("document.validated", data)
    status, body = post(url, other.body, other.headers)
    assert status == 401 and json.loads(body)["code"] == "SIGNATURE_MISMATCH"
    headers = {k: v for k, v in d.headers.items() if k != x12kit.webhook.HEADER_SIGNATURE}
    status, body = post(url, d.body, headers)
    assert status == 401 and json.loads(body)["code"] == "MISSING_SIGNATURE"
    stale = x12kit.webhook.Signer("new-secret").deliver("document.validated", data, now=1_000_000_000)
    status, body = post(url, stale.body, stale.headers)
    assert status == 401 and json.loads(body)["code"] == "TIMESTAMP_OUT_OF_TOLERANCE"
    assert len(received) == 1


def test_batch_ack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inbox, outbox = tmp_path / "in", tmp_path / "out"
    inbox.mkdir()
    (inbox / "a.edi").write_bytes(make_850(3))
    (inbox / "b.edi").write_bytes(X850.replace(b"SE*3*0001", b"SE*9*0001"))
    (inbox / "c.edi").write_bytes(b"not x12 at all")
    assert batch_ack.main([str(inbox), str(outbox), "--kind", "997", "--now", "1700000000"]) == 0
    # Each file's acknowledgement is the core's for that file, numbered 1, 2, ... in name order.
    acks = {}
    for n, name in enumerate(["a.edi", "b.edi", "c.edi"], start=1):
        v = x12kit.validate(inbox / name, structure=True)
        acks[name] = x12kit.acknowledge(
            v, kind="997", interchange_control_number=n, group_control_number=n, now=1_700_000_000
        )
    assert capsys.readouterr().out.splitlines() == [
        f"a.edi: valid ({len(acks['a.edi'])} bytes of acknowledgement)",
        "b.edi: 2 error(s): SEGMENT_MISSING at segment 4; SE01_COUNT at segment 4",
        "c.edi: 1 error(s): NOT_X12 at byte 0",
    ]
    assert sorted(p.name for p in outbox.iterdir()) == ["a.edi.ack", "b.edi.ack"]
    assert (outbox / "a.edi.ack").read_bytes() == acks["a.edi"]
    assert (outbox / "b.edi.ack").read_bytes() == acks["b.edi"]
    # a.edi: its three sets accepted; b.edi: its set rejected (SE01 count, a required PO1 missing).
    (ga,) = x12kit.read_acknowledgement(acks["a.edi"])["groupAcks"]
    assert (ga["kind"], ga["code"], ga["included"], ga["accepted"]) == ("997", "A", 3, 3)
    (gb,) = x12kit.read_acknowledgement(acks["b.edi"])["groupAcks"]
    assert (gb["code"], gb["accepted"], gb["transactions"][0]["status"]) == ("R", 0, "rejected")
    assert [e["code"] for e in gb["transactions"][0]["errors"]] == ["4", "5"]
    # c.edi is not X12: there is no interchange to acknowledge, so no file.
    assert acks["c.edi"] == b""
    # And as a program.
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "batch_ack.py"), str(inbox), str(tmp_path / "o2"), "--now", "1700000000"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "a.edi:" in r.stdout


def test_render_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    payload = REPO / "examples" / "payloads" / "850.json"
    partner = REPO / "examples" / "partners" / "acme-retail.json"
    out = tmp_path / "po.edi"
    assert render_document.main(["850", str(payload), str(partner), "-o", str(out), "--date", "20261124", "--time", "0930"]) == 0
    x12 = out.read_bytes()
    assert x12.startswith(b"ISA*") and not x12kit.validate(x12).diagnostics
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert render_document.main(["850", str(bad), str(partner)]) == 1
    assert "MISSING_FIELD" in capsys.readouterr().err
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "render_document.py"), "850", str(payload), str(partner)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert r.stdout.startswith("ISA*")
