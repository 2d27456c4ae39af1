"""Independent reference for x12kit's webhook tests, written from the specs only.

It uses nothing from x12kit: Python's own hmac, hashlib and base64 implement
the service scheme (service-api.md section 5: HMAC-SHA256 over
timestamp + "." + raw body, header "sha256=<hex>") and the Standard Webhooks
scheme (HMAC-SHA256 over id + "." + timestamp + "." + body, keyed with the
base64-decoded part of "whsec_<base64>", header "v1,<base64>").

Reads one JSON request on stdin and writes one JSON answer on stdout:
  {"op": "sign", "secret_hex": ..., "timestamp": "...", "body_hex": ...}
      -> {"signature": "sha256=..."}
  {"op": "standard_sign", "secret": "whsec_...", "id": ..., "timestamp": "...", "body_hex": ...}
      -> {"signature": "v1,..."}
  {"op": "receive", "secret_hex": ..., "whsec": ... or null, "headers": {...},
   "body_hex": ..., "now": N}
      -> {"service": bool, "standard": bool or null}
The "receive" operation is a receiver as a reader of the spec would write it.
"""

import base64
import hashlib
import hmac
import json
import sys


def service_signature(secret: bytes, timestamp: str, body: bytes) -> str:
    digest = hmac.new(secret, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return "sha256=" + digest


def standard_signature(secret: str, msg_id: str, timestamp: str, body: bytes) -> str:
    if secret.startswith("whsec_"):
        secret = secret[len("whsec_"):]
    key = base64.b64decode(secret)
    to_sign = msg_id.encode() + b"." + timestamp.encode() + b"." + body
    return "v1," + base64.b64encode(hmac.new(key, to_sign, hashlib.sha256).digest()).decode()


def receive(request: dict) -> dict:
    # Header names are case-insensitive in HTTP.
    headers = {k.lower(): v for k, v in request["headers"].items()}
    body = bytes.fromhex(request["body_hex"])
    now = int(request["now"])
    secret = bytes.fromhex(request["secret_hex"])

    timestamp = headers["x-service-timestamp"]
    fresh = abs(now - int(timestamp)) <= 300
    expected = service_signature(secret, timestamp, body)
    service_ok = fresh and hmac.compare_digest(expected, headers["x-service-signature"])

    standard_ok = None
    if request.get("whsec"):
        ts = headers["webhook-timestamp"]
        expected = standard_signature(request["whsec"], headers["webhook-id"], ts, body)
        offered = headers["webhook-signature"].split(" ")
        standard_ok = abs(now - int(ts)) <= 300 and any(
            hmac.compare_digest(expected, s) for s in offered
        )
    return {"service": service_ok, "standard": standard_ok}


def main() -> None:
    request = json.load(sys.stdin)
    op = request["op"]
    if op == "sign":
        answer = {
            "signature": service_signature(
                bytes.fromhex(request["secret_hex"]),
                request["timestamp"],
                bytes.fromhex(request["body_hex"]),
            )
        }
    elif op == "standard_sign":
        answer = {
            "signature": standard_signature(
                request["secret"],
                request["id"],
                request["timestamp"],
                bytes.fromhex(request["body_hex"]),
            )
        }
    elif op == "receive":
        answer = receive(request)
    else:
        raise SystemExit("unknown op " + op)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
