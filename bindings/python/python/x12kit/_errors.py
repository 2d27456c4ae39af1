"""The x12kit exception tree.

Every error the core can return has a stable ``code`` (``x12kit.ERROR_CODES``)
and a ``kind``; each code maps to exactly one class here (``CLASS_BY_CODE``):

- ``X12kitError`` (base; ``code``, ``kind``, ``message``, ``pointer``, ``details``)
  - ``InvalidArgument`` (also ``ValueError``): the call itself is wrong (kind ``invalid_input``)
    - ``InvalidType`` (also ``TypeError``): an argument of the wrong Python type
    - ``InvalidParseResult`` (also ``WriteError``): ``write()`` got JSON that is not a parse result
    - ``WebhookConfigError`` (also ``WebhookError``): unusable secrets, event names, delivery ids, event data
  - ``RenderError`` (``problems``): the payload / partner / document type is refused (kind ``rejected``)
  - ``WriteError``: a value would corrupt the X12 (``CONTAINS_DELIMITER``)
  - ``WebhookError``
    - ``WebhookVerificationError``: a delivery that does not verify (kind ``rejected``)
  - ``X12kitIOError`` (also ``OSError``): reading failed (kind ``io``)
  - ``InternalError``: a bug in x12kit (a caught Rust panic), code ``INTERNAL``
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Type

__all__ = [
    "X12kitError",
    "InvalidArgument",
    "InvalidType",
    "InvalidParseResult",
    "RenderError",
    "MergeError",
    "WriteError",
    "WebhookError",
    "WebhookConfigError",
    "WebhookVerificationError",
    "X12kitIOError",
    "InternalError",
    "CLASS_BY_CODE",
]


class X12kitError(Exception):
    """An x12kit call could not complete. ``code`` is the core's stable code."""

    code: str
    kind: str
    message: str
    pointer: Optional[str]
    details: List[Dict[str, Any]]

    def __init__(
        self,
        message: str,
        *,
        code: str = "INTERNAL",
        kind: str = "internal",
        pointer: Optional[str] = None,
        details: Optional[List[Dict[str, Any]]] = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.kind = kind
        self.message = message
        self.pointer = pointer
        self.details = list(details or [])

    def __str__(self) -> str:
        at = f" {self.pointer}" if self.pointer else ""
        text = f"{self.code}{at}: {self.message}"
        if len(self.details) > 1:
            text += "".join(
                f"\n  {d.get('severity')} {d.get('code')} {d.get('pointer')}: {d.get('message')}"
                for d in self.details
            )
        return text

    def to_dict(self) -> Dict[str, Any]:
        """The error as the core's JSON shape (``code``, ``kind``, ``message``, ``pointer``?, ``details``)."""
        out: Dict[str, Any] = {"code": self.code, "kind": self.kind, "message": self.message}
        if self.pointer is not None:
            out["pointer"] = self.pointer
        out["details"] = [dict(d) for d in self.details]
        return out


class InvalidArgument(X12kitError, ValueError):
    """The call itself is wrong: malformed JSON, an unknown option, a bad value (HTTP 400)."""


class InvalidType(InvalidArgument, TypeError):
    """An argument has the wrong Python type (code ``INVALID_ARGUMENT``)."""


class WriteError(X12kitError):
    """``write()`` cannot produce X12 from this parse result."""


class InvalidParseResult(InvalidArgument, WriteError):
    """``write()`` got JSON that is not a parse result, or unusable delimiters."""


class RenderError(X12kitError):
    """A payload, partner profile or document type is refused; ``problems`` lists every problem."""

    @property
    def problems(self) -> List[Dict[str, Any]]:
        """Every problem found: dicts with ``severity``, ``code``, ``pointer``, ``message``."""
        return self.details


class GuideError(X12kitError):
    """A partner's implementation guide is unusable (``INVALID_GUIDE``); ``problems`` lists
    every problem, each at its pointer (``/guides/0/segments/BEG/...``)."""

    @property
    def problems(self) -> List[Dict[str, Any]]:
        """Every problem found: dicts with ``severity``, ``code``, ``pointer``, ``message``."""
        return self.details


class MergeError(X12kitError):
    """``merge()`` refused its inputs (``MERGE_REFUSED``); ``problems`` names each input at
    fault by its index (``/0``, ``/1``): no interchange, envelope errors, another sender,
    receiver, version or delimiters, or set control numbers that would repeat in a group."""

    @property
    def problems(self) -> List[Dict[str, Any]]:
        """Every problem found: dicts with ``severity``, ``code``, ``pointer``, ``message``."""
        return self.details


class WebhookError(X12kitError):
    """Base of the webhook errors."""


class WebhookConfigError(InvalidArgument, WebhookError):
    """An unusable secret, event name, delivery id or event data."""


class WebhookVerificationError(WebhookError):
    """A webhook delivery that does not verify: missing/malformed headers, stale timestamp, wrong signature."""


class X12kitIOError(X12kitError, OSError):
    """Reading a file or stream failed."""


class InternalError(X12kitError):
    """A bug in x12kit was caught (a Rust panic); please report the message."""


CLASS_BY_CODE: Dict[str, Type[X12kitError]] = {
    # invalid_input
    "INVALID_JSON": InvalidArgument,
    "INVALID_OPTIONS": InvalidArgument,
    "INVALID_ARGUMENT": InvalidArgument,
    "NULL_POINTER": InvalidArgument,
    "INVALID_UTF8": InvalidArgument,
    "INVALID_TIMESTAMP": InvalidArgument,
    "INVALID_CONTROL_NUMBER": InvalidArgument,
    "INVALID_PARSE_RESULT": InvalidParseResult,
    "INVALID_DELIMITERS": InvalidParseResult,
    "EMPTY_SECRET": WebhookConfigError,
    "MALFORMED_SECRET": WebhookConfigError,
    "MALFORMED_DELIVERY_ID": WebhookConfigError,
    "UNKNOWN_EVENT": WebhookConfigError,
    # rejected
    "CONTAINS_DELIMITER": WriteError,
    "UNKNOWN_DOCUMENT_TYPE": RenderError,
    "UNSUPPORTED_VERSION": RenderError,
    "INVALID_PAYLOAD": RenderError,
    "INVALID_PARTNER": RenderError,
    "INVALID_GUIDE": GuideError,
    "GUIDE_SEGMENT_NOT_USED": RenderError,
    "GUIDE_SEGMENT_MISSING": RenderError,
    "GUIDE_SEGMENT_TOO_FEW": RenderError,
    "GUIDE_SEGMENT_TOO_MANY": RenderError,
    "GUIDE_LOOP_TOO_FEW": RenderError,
    "GUIDE_LOOP_TOO_MANY": RenderError,
    "GUIDE_ELEMENT_MISSING": RenderError,
    "GUIDE_ELEMENT_NOT_USED": RenderError,
    "GUIDE_CODE_NOT_USED": RenderError,
    "GUIDE_VALUE": RenderError,
    "GUIDE_PATTERN": RenderError,
    "GUIDE_ELEMENT_TOO_SHORT": RenderError,
    "GUIDE_ELEMENT_TOO_LONG": RenderError,
    "GUIDE_NOT_APPLIED": RenderError,
    "MISSING_FIELD": RenderError,
    "INVALID_FIELD": RenderError,
    "TOO_LONG": RenderError,
    "TOO_SHORT": RenderError,
    "TOO_MANY": RenderError,
    "EMPTY_ARRAY": RenderError,
    "INVALID_CHARACTER": RenderError,
    "INVALID_CODE": RenderError,
    "UNKNOWN_FIELD": RenderError,
    "CSV_NOT_UTF8": RenderError,
    "CSV_EMPTY": RenderError,
    "CSV_MALFORMED": RenderError,
    "CSV_UNKNOWN_COLUMN": RenderError,
    "CSV_MISSING_KEY": RenderError,
    "CSV_MIXED_KEYS": RenderError,
    "CSV_CONFLICTING_VALUE": RenderError,
    "CSV_TOO_MANY_ROWS": RenderError,
    "MISSING_SIGNATURE": WebhookVerificationError,
    "MALFORMED_SIGNATURE": WebhookVerificationError,
    "MALFORMED_TIMESTAMP": WebhookVerificationError,
    "TIMESTAMP_OUT_OF_TOLERANCE": WebhookVerificationError,
    "SIGNATURE_MISMATCH": WebhookVerificationError,
    "MISSING_ID": WebhookVerificationError,
    "MERGE_REFUSED": MergeError,
    "MALFORMED_BODY": WebhookConfigError,
    # io
    "RANDOMNESS_UNAVAILABLE": X12kitIOError,
    "IO": X12kitIOError,
    # internal
    "INTERNAL": InternalError,
}

_BY_KIND: Dict[str, Type[X12kitError]] = {
    "invalid_input": InvalidArgument,
    "io": X12kitIOError,
    "internal": InternalError,
}


def _from_core(
    *,
    code: str,
    kind: str,
    message: str,
    pointer: Optional[str],
    details: List[Dict[str, Any]],
    wrong_type: bool,
) -> X12kitError:
    """Builds the exception of a core error (called by the native module)."""
    cls: Type[X12kitError]
    if wrong_type:
        cls = InvalidType
    else:
        cls = CLASS_BY_CODE.get(code) or _BY_KIND.get(kind, X12kitError)
    return cls(message, code=code, kind=kind, pointer=pointer, details=details)
