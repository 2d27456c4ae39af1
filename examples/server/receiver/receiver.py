#!/usr/bin/env python3
"""A webhook receiver for the x12kit server on the standard library only (hmac).

Verifies X-Service-Signature (sha256=<hex> of HMAC-SHA256 over
"<X-Service-Timestamp>.<raw body>", any of several secrets during a rotation,
several signatures allowed in the header), rejects stale timestamps (more than
--tolerance seconds from now) and tampered bodies with 400, and deduplicates on
X-Service-Delivery-ID: a delivery seen before is answered 200 and not processed
again. Accepted deliveries are appended to --log (JSON lines), read back at
start so deduplication survives a restart. --fail-first N answers 503 to the
first N attempts of each delivery (to try the sender's retries).

Usage: receiver.py --secret S [--secret OLD] [--listen 127.0.0.1:9999] [--log FILE]
"""

import argparse
import hashlib
import hmac
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SIGNATURE = re.compile(r"^sha256=([0-9a-fA-F]{64})$")


def verify(secrets, signature_header, timestamp_header, body, tolerance, now=None):
    """Returns None when the delivery is authentic and fresh, else the reason (a code)."""
    entries = [e for e in re.split(r"[,\s]+", signature_header or "") if e]
    digests = [bytes.fromhex(m.group(1)) for m in map(SIGNATURE.match, entries) if m]
    if not digests:
        return "MISSING_SIGNATURE" if not entries else "MALFORMED_SIGNATURE"
    if not re.fullmatch(r"[0-9]{1,19}", timestamp_header or ""):
        return "MALFORMED_TIMESTAMP"
    now = time.time() if now is None else now
    if abs(now - int(timestamp_header)) > tolerance:
        return "TIMESTAMP_OUT_OF_TOLERANCE"
    signed = timestamp_header.encode() + b"." + body
    for secret in secrets:
        expected = hmac.new(secret.encode(), signed, hashlib.sha256).digest()
        if any(hmac.compare_digest(expected, d) for d in digests):
            return None
    return "SIGNATURE_MISMATCH"


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.seen = set()
        self.attempts = {}
        if args.log and os.path.exists(args.log):
            with open(args.log) as f:
                for line in f:
                    try:
                        self.seen.add(json.loads(line)["deliveryId"])
                    except (ValueError, KeyError):
                        pass


def handler(state):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def answer(self, status, obj):
            body = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            delivery = self.headers.get("X-Service-Delivery-ID", "")
            problem = verify(state.args.secret, self.headers.get("X-Service-Signature", ""),
                             self.headers.get("X-Service-Timestamp", ""), body, state.args.tolerance)
            if problem:
                print(f"rejected {delivery!r}: {problem}", file=sys.stderr, flush=True)
                return self.answer(400, {"ok": False, "code": problem})
            try:
                event = json.loads(body)
                assert event["event"] == self.headers.get("X-Service-Event") and delivery
            except (ValueError, KeyError, AssertionError):
                return self.answer(400, {"ok": False, "code": "BAD_BODY"})
            with state.lock:
                attempt = state.attempts[delivery] = state.attempts.get(delivery, 0) + 1
                if attempt <= state.args.fail_first:
                    return self.answer(503, {"ok": False, "code": "TRY_LATER"})
                fresh = delivery not in state.seen
                state.seen.add(delivery)
                if fresh:
                    # Process the event here (once per delivery id).
                    print(event["event"], event["data"]["documentId"], event["data"]["status"],
                          delivery, flush=True)
                    if state.args.log:
                        with open(state.args.log, "a") as f:
                            f.write(json.dumps({"deliveryId": delivery, "event": event["event"],
                                                "timestamp": event["timestamp"], "data": event["data"],
                                                "attempt": attempt}) + "\n")
                            f.flush()
                            os.fsync(f.fileno())
            self.answer(200, {"ok": True, "duplicate": not fresh})

    return Handler


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--listen", default="127.0.0.1:9999")
    p.add_argument("--secret", action="append", required=True)
    p.add_argument("--tolerance", type=int, default=300)
    p.add_argument("--log")
    p.add_argument("--fail-first", type=int, default=0)
    args = p.parse_args()
    host, port = args.listen.rsplit(":", 1)
    server = ThreadingHTTPServer((host, int(port)), handler(State(args)))
    print(f"listening on http://{host}:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
