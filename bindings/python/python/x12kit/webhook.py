"""Webhook signing and verification (the core's ``x12kit::webhook``).

The signature is ``X-Service-Signature: sha256=<hex>``, an HMAC-SHA256 over
``timestamp + "." + raw_body`` with ``X-Service-Timestamp`` in Unix seconds.

>>> from x12kit import webhook
>>> sig = webhook.sign("secret", 1700000000, b'{"event":"document.validated"}')
>>> webhook.verify("secret", sig, "1700000000", b'{"event":"document.validated"}', now=1700000010).secret_index
0
"""

from __future__ import annotations

from ._errors import WebhookConfigError, WebhookError, WebhookVerificationError
from ._x12kit import DEFAULT_TOLERANCE as DEFAULT_TOLERANCE
from ._x12kit import HEADER_DELIVERY_ID as HEADER_DELIVERY_ID
from ._x12kit import HEADER_EVENT as HEADER_EVENT
from ._x12kit import HEADER_SIGNATURE as HEADER_SIGNATURE
from ._x12kit import HEADER_TIMESTAMP as HEADER_TIMESTAMP
from ._x12kit import Delivery as Delivery
from ._x12kit import Signer as Signer
from ._x12kit import Verified as Verified
from ._x12kit import Verifier as Verifier
from ._x12kit import webhook_sign as sign
from ._x12kit import webhook_verify as verify

__all__ = [
    "sign",
    "verify",
    "Signer",
    "Verifier",
    "Verified",
    "Delivery",
    "WebhookError",
    "WebhookConfigError",
    "WebhookVerificationError",
    "HEADER_SIGNATURE",
    "HEADER_TIMESTAMP",
    "HEADER_EVENT",
    "HEADER_DELIVERY_ID",
    "DEFAULT_TOLERANCE",
]
