"""x12kit: fast, correct X12 EDI for Python (a Rust core).

>>> import x12kit
>>> r = x12kit.parse(b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*3*0001~GE*1*1~IEA*1*000000001~")
>>> tx = r.interchanges[0].groups[0].transactions[0]
>>> tx.type, next(tx.segments())[3]
('850', 'PO-1')

The operations: ``parse`` / ``parse_json`` / ``iter_segments``, ``validate`` /
``validate_stream``, ``acknowledge`` / ``read_acknowledgement``, ``render`` /
``document_schema`` / ``partner_schema``, ``describe_segment``, ``payloads_from_csv``
(CSV intake), ``write``, and
``x12kit.webhook``.
Errors are ``X12kitError`` subclasses with the core's stable ``code``.
"""

from __future__ import annotations

from . import webhook as webhook
from ._errors import (
    CLASS_BY_CODE as CLASS_BY_CODE,
    GuideError as GuideError,
    InternalError as InternalError,
    InvalidArgument as InvalidArgument,
    InvalidParseResult as InvalidParseResult,
    InvalidType as InvalidType,
    RenderError as RenderError,
    WebhookConfigError as WebhookConfigError,
    WebhookError as WebhookError,
    WebhookVerificationError as WebhookVerificationError,
    WriteError as WriteError,
    X12kitError as X12kitError,
    X12kitIOError as X12kitIOError,
)
from ._x12kit import (
    DIAGNOSTIC_CODES as DIAGNOSTIC_CODES,
    DOCUMENT_TYPES as DOCUMENT_TYPES,
    ERROR_CODES as ERROR_CODES,
    ERROR_KINDS as ERROR_KINDS,
    Diagnostic as Diagnostic,
    Element as Element,
    Group as Group,
    Interchange as Interchange,
    ParseResult as ParseResult,
    Rendered as Rendered,
    Segment as Segment,
    SegmentIterator as SegmentIterator,
    SegmentStream as SegmentStream,
    Transaction as Transaction,
    Validation as Validation,
    __version__ as __version__,
    acknowledge as acknowledge,
    describe_segment as describe_segment,
    describe_segment_json as describe_segment_json,
    payloads_from_csv as payloads_from_csv,
    payloads_from_csv_json as payloads_from_csv_json,
    document_schema as document_schema,
    document_schema_json as document_schema_json,
    iter_segments as iter_segments,
    parse as parse,
    parse_json as parse_json,
    partner_schema as partner_schema,
    partner_schema_json as partner_schema_json,
    read_acknowledgement as read_acknowledgement,
    read_acknowledgement_json as read_acknowledgement_json,
    render as render,
    render_document as render_document,
    validate as validate,
    validate_json as validate_json,
    validate_stream as validate_stream,
    write as write,
)

__all__ = [
    "parse",
    "parse_json",
    "iter_segments",
    "validate",
    "validate_json",
    "validate_stream",
    "acknowledge",
    "read_acknowledgement",
    "read_acknowledgement_json",
    "render",
    "render_document",
    "document_schema",
    "document_schema_json",
    "partner_schema",
    "partner_schema_json",
    "describe_segment",
    "describe_segment_json",
    "payloads_from_csv",
    "payloads_from_csv_json",
    "write",
    "webhook",
    "ParseResult",
    "Interchange",
    "Group",
    "Transaction",
    "Segment",
    "Element",
    "Diagnostic",
    "SegmentIterator",
    "SegmentStream",
    "Validation",
    "Rendered",
    "X12kitError",
    "InvalidArgument",
    "InvalidType",
    "InvalidParseResult",
    "RenderError",
    "GuideError",
    "WriteError",
    "WebhookError",
    "WebhookConfigError",
    "WebhookVerificationError",
    "X12kitIOError",
    "InternalError",
    "CLASS_BY_CODE",
    "ERROR_CODES",
    "ERROR_KINDS",
    "DIAGNOSTIC_CODES",
    "DOCUMENT_TYPES",
    "__version__",
]
