"""Validate every X12 file of a folder and write its acknowledgement (TA1/997/999).

    python examples/python/batch_ack.py INBOX OUTBOX [--kind auto|997|999|ta1] [--envelope-only]

For each ``INBOX/<name>`` it writes ``OUTBOX/<name>.ack`` (nothing when there is
nothing to acknowledge) and prints one line: valid or the first problems. Large
files are fine: parsing and validation run in Rust with the GIL released.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional

import x12kit


def acknowledge_folder(
    inbox: Path, outbox: Path, *, kind: str = "auto", structure: bool = True, now: Optional[int] = None
) -> List[str]:
    """Writes the acknowledgements; returns one report line per input file."""
    outbox.mkdir(parents=True, exist_ok=True)
    lines: List[str] = []
    control = 1
    for path in sorted(p for p in inbox.iterdir() if p.is_file()):
        v = x12kit.validate(path, structure=structure)
        ack = x12kit.acknowledge(
            v,
            kind=kind,  # type: ignore[arg-type]
            interchange_control_number=control,
            group_control_number=control,
            now=now,
        )
        control += 1
        if ack:
            (outbox / (path.name + ".ack")).write_bytes(ack)
        if v.is_valid:
            lines.append(f"{path.name}: valid ({len(ack)} bytes of acknowledgement)")
        else:
            first = "; ".join(
                f"{d.code} at segment {d.segment_index}" if d.segment_index is not None else f"{d.code} at byte {d.offset}"
                for d in v.diagnostics[:3]
            )
            lines.append(f"{path.name}: {v.error_count} error(s): {first}")
    return lines


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inbox", type=Path)
    ap.add_argument("outbox", type=Path)
    ap.add_argument("--kind", default="auto", choices=["auto", "997", "999", "ta1"])
    ap.add_argument("--envelope-only", action="store_true", help="skip the set structure checks")
    ap.add_argument("--now", type=int, default=None, help="Unix seconds to date the acknowledgements")
    args = ap.parse_args(argv)
    try:
        for line in acknowledge_folder(
            args.inbox, args.outbox, kind=args.kind, structure=not args.envelope_only, now=args.now
        ):
            print(line)
    except x12kit.X12kitError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
