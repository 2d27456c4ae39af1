"""x12kit.webhook: sign, verify, rotation, tolerance, deliveries, typed failures."""

from __future__ import annotations

import json

import pytest

import x12kit
from x12kit import webhook

NOW = 1_700_000_000
BODY = b'{"event":"document.validated"}'


def test_sign_and_verify() -> None:
    sig = webhook.sign("s3cret", NOW, BODY)
    assert sig.startswith("sha256=") and len(sig) == 7 + 64
    assert webhook.sign(b"s3cret", NOW, BODY.decode()) == sig
    v = webhook.verify("s3cret", sig, str(NOW), BODY, now=NOW + 10)
    assert (v.timestamp, v.secret_index) == (NOW, 0)
    assert json.loads(v.to_json()) == {"timestamp": NOW, "secretIndex": 0}
    assert webhook.verify(["old", "s3cret"], sig, NOW, BODY, now=NOW).secret_index == 1


@pytest.mark.parametrize(
    "change, code",
    [
        ({"signature": "sha256=" + "0" * 64}, "SIGNATURE_MISMATCH"),
        ({"signature": ""}, "MISSING_SIGNATURE"),
        ({"signature": "md5=abc"}, "MALFORMED_SIGNATURE"),
        ({"timestamp": "yesterday"}, "MALFORMED_TIMESTAMP"),
        ({"now": NOW + 301}, "TIMESTAMP_OUT_OF_TOLERANCE"),
        ({"body": BODY + b" "}, "SIGNATURE_MISMATCH"),
    ],
)
def test_verification_failures_are_typed(change: dict, code: str) -> None:  # type: ignore[type-arg]
    args = {"signature": webhook.sign("k", NOW, BODY), "timestamp": str(NOW), "body": BODY, "now": NOW}
    args.update(change)
    with pytest.raises(webhook.WebhookVerificationError) as info:
        webhook.verify("k", args["signature"], args["timestamp"], args["body"], now=args["now"])
    assert info.value.code == code and info.value.kind == "rejected"
    assert isinstance(info.value, x12kit.X12kitError) and not isinstance(info.value, ValueError)


def test_config_errors() -> None:
    with pytest.raises(webhook.WebhookConfigError) as info:
        webhook.Verifier([])
    assert info.value.code == "EMPTY_SECRET" and isinstance(info.value, ValueError)
    with pytest.raises(webhook.WebhookConfigError):
        webhook.sign("", NOW, BODY)
    with pytest.raises(webhook.WebhookConfigError) as info:
        webhook.Signer("k").deliver("document.eaten", {}, now=NOW)
    assert info.value.code == "UNKNOWN_EVENT"
    with pytest.raises(x12kit.InvalidType):
        webhook.sign(3, NOW, BODY)  # type: ignore[arg-type]


def test_verifier_and_signer_deliveries() -> None:
    signer = webhook.Signer("k1")
    data = {"documentId": "doc_1", "partnerId": "p_9", "documentTypeCode": "850", "status": "validated"}
    d = signer.deliver("document.validated", data, now=NOW)
    assert d.event == "document.validated" and d.timestamp == NOW and len(d.id) == 36
    assert json.loads(d.body)["data"]["documentId"] == "doc_1"
    h = d.headers
    assert h[webhook.HEADER_SIGNATURE] == signer.sign(NOW, d.body) == d.header("x-service-signature")
    assert h[webhook.HEADER_TIMESTAMP] == str(NOW) and h[webhook.HEADER_DELIVERY_ID] == d.id
    verifier = webhook.Verifier(["k0", "k1"], tolerance=60)
    assert verifier.tolerance == 60
    v = verifier.verify(h[webhook.HEADER_SIGNATURE], h[webhook.HEADER_TIMESTAMP], d.body, now=NOW + 59)
    assert v.secret_index == 1
    lower = {k.lower(): v for k, v in h.items()}
    assert verifier.verify_headers(lower, d.body, now=NOW).timestamp == NOW
    with pytest.raises(webhook.WebhookVerificationError) as info:
        verifier.verify_headers({}, d.body, now=NOW)
    assert info.value.code == "MISSING_SIGNATURE"
    with pytest.raises(webhook.WebhookVerificationError) as info:
        verifier.verify(h[webhook.HEADER_SIGNATURE], h[webhook.HEADER_TIMESTAMP], d.body, now=NOW + 61)
    assert info.value.code == "TIMESTAMP_OUT_OF_TOLERANCE"
    with pytest.raises(webhook.WebhookConfigError) as info:
        signer.deliver("document.validated", {"documentId": 1}, now=NOW)
    assert info.value.code == "MALFORMED_BODY" and isinstance(info.value, ValueError)
