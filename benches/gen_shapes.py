#!/usr/bin/env python3
"""Writes generated 850 purchase orders of a given shape, for timing the CLI
on large files (see README.md, "Files of any size"):

  python3 benches/gen_shapes.py one  /tmp/one.x12  100000000   # one interchange, groups of 1 000 sets
  python3 benches/gen_shapes.py many /tmp/many.x12 100000000   # interchanges of one group of 100 sets
  python3 benches/gen_shapes.py huge /tmp/huge.x12 50000000    # one set of about that size

Deterministic (seeded); every envelope count and control number is right.
"""
import sys, random
shape, path, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
random.seed(7)
ISA = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*{:09d}*0*P*>~\n"
def st(n, lines):
    out = [f"ST*850*{n:04d}~\n", f"BEG*00*SA*PO-{n}**20230101~\n", "REF*DP*715~\n", f"N1*ST*ACME DC {n}*92*{n}~\n", "N3*500 COMMERCE DR~\n", "N4*RENO*NV*89502*US~\n"]
    for l in range(1, lines + 1):
        out.append(f"PO1*{l}*{random.randint(1,99)}*EA*{random.randint(1,9999)/100:.2f}**VP*SKU{random.randint(1,999999)}*UP*0588{l}~\n")
        out.append("PID*F****RED WIDGET~\n")
    out.append(f"CTT*{lines}~\n")
    out.append(f"SE*{len(out) + 1 - 0:d}*{n:04d}~\n")
    return "".join(out)
with open(path, "w") as f:
    written = 0
    if shape == "one":  # one interchange, groups of 1000 sets
        f.write(ISA.format(1)); g = 0
        while written < size:
            g += 1
            f.write(f"GS*PO*SENDER*RECEIVER*20230101*1200*{g}*X*004010~\n")
            for s in range(1, 1001):
                t = st(s, random.randint(5, 15)); f.write(t); written += len(t)
            f.write(f"GE*1000*{g}~\n")
        f.write(f"IEA*{g}*000000001~\n")
    elif shape == "many":  # interchanges of one group of 100 sets
        i = 0
        while written < size:
            i += 1
            f.write(ISA.format(i)); f.write(f"GS*PO*SENDER*RECEIVER*20230101*1200*{i}*X*004010~\n")
            for s in range(1, 101):
                t = st(s, random.randint(5, 15)); f.write(t); written += len(t)
            f.write(f"GE*100*{i}~\nIEA*1*{i:09d}~\n")
    elif shape == "huge":  # one set
        f.write(ISA.format(1)); f.write("GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~\n")
        lines = size // 70
        f.write(st(1, lines)); f.write("GE*1*1~\nIEA*1*000000001~\n")
