"""Render an outbound X12 document from a JSON payload and a partner profile.

    python examples/python/render_document.py 850 examples/payloads/850.json \\
        examples/partners/acme-retail.json [-o po.edi] [--interchange 42]

A refused payload prints every problem (code, JSON pointer, message) and exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import List, Optional

import x12kit


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("document_type", choices=list(x12kit.DOCUMENT_TYPES))
    ap.add_argument("payload", type=Path)
    ap.add_argument("partner", type=Path)
    ap.add_argument("-o", "--output", type=Path)
    ap.add_argument("--interchange", type=int, default=1, help="ISA13 control number")
    ap.add_argument("--date", help="CCYYMMDD (default: today, UTC)")
    ap.add_argument("--time", help="HHMM (default: now, UTC)")
    args = ap.parse_args(argv)
    try:
        result = x12kit.render_document(
            args.document_type,
            json.loads(args.payload.read_text(encoding="utf-8")),
            json.loads(args.partner.read_text(encoding="utf-8")),
            control_numbers={"interchange": args.interchange, "group": args.interchange, "transaction": 1},
            date=args.date,
            time=args.time,
        )
    except x12kit.RenderError as e:
        print(f"cannot render: {e.code}: {e.message}", file=sys.stderr)
        for p in e.problems:
            print(f"  {p['severity']} {p['code']} {p['pointer']}: {p['message']}", file=sys.stderr)
        return 1
    for w in result.warnings:
        print(f"warning {w['code']} {w['pointer']}: {w['message']}", file=sys.stderr)
    if args.output:
        args.output.write_bytes(result.x12)
    else:
        sys.stdout.write(result.x12.decode("utf-8", errors="replace"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
