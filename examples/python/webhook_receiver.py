"""A Flask app that receives x12kit webhook deliveries and verifies them.

    X12KIT_WEBHOOK_SECRETS=new-secret,old-secret python examples/python/webhook_receiver.py

Every delivery is checked with ``x12kit.webhook.Verifier`` (HMAC-SHA256 over
``timestamp + "." + raw body``, timestamp within the tolerance, any of the
secrets so that they can be rotated) before its JSON body is trusted.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from flask import Flask, Response, request

from x12kit import webhook

Handler = Callable[[Dict[str, Any]], None]


def create_app(
    secrets: Sequence[str],
    *,
    tolerance: int = webhook.DEFAULT_TOLERANCE,
    on_event: Optional[Handler] = None,
) -> Flask:
    """The receiver app: POST /webhooks/x12kit answers 204 for a verified delivery."""
    verifier = webhook.Verifier(list(secrets), tolerance=tolerance)
    app = Flask(__name__)
    received: List[Dict[str, Any]] = []
    app.config["RECEIVED"] = received

    @app.post("/webhooks/x12kit")
    def receive() -> Tuple[Response, int]:
        body = request.get_data()  # the raw bytes: the signature covers them exactly
        try:
            verified = verifier.verify_headers(request.headers, body)
        except webhook.WebhookVerificationError as e:
            return _json({"code": e.code, "message": e.message}), 401
        event: Dict[str, Any] = json.loads(body)
        event["verifiedTimestamp"] = verified.timestamp
        received.append(event)
        if on_event is not None:
            on_event(event)
        return Response(status=204), 204

    return app


def _json(value: Dict[str, Any]) -> Response:
    return Response(json.dumps(value), mimetype="application/json")


def main() -> None:
    secrets = [s for s in os.environ.get("X12KIT_WEBHOOK_SECRETS", "").split(",") if s]
    if not secrets:
        raise SystemExit("set X12KIT_WEBHOOK_SECRETS to the signing secret(s), newest first")
    app = create_app(secrets, on_event=lambda e: print(e["type"] if "type" in e else e))
    app.run(host="127.0.0.1", port=int(os.environ.get("PORT", "8088")))


if __name__ == "__main__":
    main()
