"""Writes bench/data/850-<N>mb.edi: one interchange of 850 purchase orders (valid envelopes)."""

from __future__ import annotations

import sys
from pathlib import Path

ISA = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~"


def generate(size: int) -> bytes:
    parts = [ISA, "\n"]
    n, total, groups = 0, 0, 0
    while total < size:
        groups += 1
        group = [f"GS*PO*SENDER*RECEIVER*20230101*1200*{groups}*X*004010~\n"]
        for s in range(1, 1001):
            n += 1
            cn = f"{s:04d}"
            body = [f"BEG*00*SA*PO-{n}**20230101~", f"REF*DP*{n % 97}~", "DTM*002*20230115~",
                    f"N1*ST*STORE {n % 500}*92*{n % 500:05d}~", "N3*100 MAIN ST~", "N4*SPRINGFIELD*IL*62701~"]
            for k in range(1, 11):
                body.append(f"PO1*{k}*{k * 3}*EA*{k}.25**BP*ITEM-{k:05d}*VP*V{n % 1000}~")
                body.append(f"PID*F****WIDGET NUMBER {k}~")
            body.append("CTT*10~")
            seg = [f"ST*850*{cn}~"] + body + [f"SE*{len(body) + 2}*{cn}~"]
            group.append("\n".join(seg) + "\n")
        group.append(f"GE*1000*{groups}~\n")
        text = "".join(group)
        parts.append(text)
        total += len(text)
    parts.append(f"IEA*{groups}*000000001~\n")
    return "".join(parts).encode()


def main() -> None:
    out = Path(__file__).resolve().parent / "data"
    out.mkdir(exist_ok=True)
    for mb in (int(a) for a in sys.argv[1:] or ["10", "100"]):
        p = out / f"850-{mb}mb.edi"
        if not p.exists():
            p.write_bytes(generate(mb * 1_000_000))
        print(p)


if __name__ == "__main__":
    main()
