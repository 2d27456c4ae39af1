#!/usr/bin/env bash
# Instruction counts (valgrind callgrind) of x12kit and the Python X12 peers on
# one generated 850 file (default 1 MB): load-independent, unlike wall clock on
# a shared machine. Per call = Ir(warm-up + 2 calls) - Ir(warm-up + 1 call).
#   bindings/python/bench/instructions.sh [MB]      (after run.sh has set up the venvs)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=${PYTHON:-python3}
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind" >&2; exit 1; }
for v in .venv-x12kit .venv-peers .venv-lfh; do
  [ -x "$HERE/$v/bin/python" ] || { echo "instructions.sh: run bench/run.sh first ($v is missing)" >&2; exit 1; }
done
mb=${1:-1}
file=$("$PY" "$HERE/gen.py" "$mb")
ir() { # venv tool op n
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$HERE/$1/bin/python" "$HERE/bench.py" "$2" "$file" --count "$3" "$4" 2>&1 \
    | awk '/Collected :/ {print $4}'
}
count() { # venv tool op
  local a b
  a=$(ir "$1" "$2" "$3" 1); b=$(ir "$1" "$2" "$3" 2)
  [ -n "$a" ] && [ -n "$b" ] || { echo "instructions.sh: $2 / $3 failed" >&2; exit 1; }
  echo "{\"tool\": \"$2\", \"op\": \"$3\", \"bytes\": $(stat -c %s "$file"), \"instructions\": $((b - a))}"
}
out="$HERE/instructions.jsonl"; : > "$out"
for op in "parse (lazy)" "parse().to_dict()" "parse(documents=False).to_dict()" "orjson.loads(parse_json())" \
          "orjson.loads(parse_json(documents=False))" "parse_json" "validate" "validate().to_dict()"; do
  count .venv-x12kit x12kit "$op" | tee -a "$out"
done
count .venv-lfh linuxforhealth-x12 "linuxforhealth-x12 X12SegmentReader (segments)" | tee -a "$out"
count .venv-lfh linuxforhealth-x12 "linuxforhealth-x12 X12SegmentReader, all kept (list)" | tee -a "$out"
count .venv-peers ansi-x12 "ansi-x12 tokenize + parse_x12_interchange" | tee -a "$out"
count .venv-peers pyx12 "pyx12 X12Reader (segments)" | tee -a "$out"
count .venv-peers badx12 "badx12 Parser.parse_document" | tee -a "$out"
"$PY" - "$out" <<'PYEOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
peer = min((r for r in rows if r["tool"] != "x12kit"), key=lambda r: r["instructions"])
print(f"| operation | instructions per MB | vs {peer['tool']} |")
print("|---|---:|---:|")
for r in rows:
    per_mb = r["instructions"] / (r["bytes"] / 1e6)
    print(f"| {r['op']} | {per_mb / 1e6:,.0f} M | {peer['instructions'] / r['instructions']:.1f}x |")
PYEOF
