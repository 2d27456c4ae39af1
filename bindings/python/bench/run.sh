#!/usr/bin/env bash
# Benchmark x12kit against the Python X12 peers from PyPI (not a timed test).
#   bindings/python/bench/run.sh [MB ...]        default: 10 100
# x12kit runs in a venv with the release wheel + orjson; the peers in their own
# venvs (ansi-x12 and linuxforhealth-x12 both install a top-level "x12" package).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PY=${PYTHON:-python3}
mk() { # venv packages...
  local v="$HERE/$1"; shift
  [ -x "$v/bin/python" ] || "$PY" -m venv "$v"
  for p in "$@"; do "$v/bin/python" -m pip show -q "$p" >/dev/null 2>&1 || "$v/bin/python" -m pip install -q "$p"; done
}
mk .venv-x12kit orjson maturin
mk .venv-peers pyx12 ansi-x12 badx12
mk .venv-lfh linuxforhealth-x12 orjson
# linuxforhealth-x12 0.57 imports pydantic.BaseSettings (pydantic 1).
"$HERE/.venv-lfh/bin/python" -c "import pydantic, sys; sys.exit(pydantic.VERSION >= \"2\")" || "$HERE/.venv-lfh/bin/python" -m pip install -q "pydantic<2"
rm -rf "$HERE/dist"
(cd "$ROOT/bindings/python" && VIRTUAL_ENV="$HERE/.venv-x12kit" "$HERE/.venv-x12kit/bin/maturin" build --release --quiet -o "$HERE/dist" -i "$HERE/.venv-x12kit/bin/python")
for v in .venv-x12kit .venv-lfh; do # the abi3 wheel also goes next to linuxforhealth-x12 (interleaved.py)
  "$HERE/$v/bin/python" -m pip install -q --force-reinstall --no-deps "$HERE"/dist/x12kit-*.whl
done
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(10 100)
files=$("$PY" "$HERE/gen.py" "${sizes[@]}")
out="$HERE/results.jsonl"; : > "$out"
echo "start: $(date -u +%FT%TZ) $(uptime)"
for f in $files; do
  # Best of 3 up to 10 MB, one run (after the warm-up) above: orjson.loads with the
  # GC on takes minutes per call at 100 MB.
  big=$(( $(stat -c %s "$f") > 20000000 ))
  "$HERE/.venv-x12kit/bin/python" "$HERE/bench.py" x12kit "$f" $((big ? 1 : 3)) | tee -a "$out"
  peers=(pyx12 ansi-x12); [ "$big" -eq 1 ] || peers+=(badx12) # badx12: 2 min per call at 10 MB
  for t in "${peers[@]}"; do
    timeout 900 "$HERE/.venv-peers/bin/python" "$HERE/bench.py" "$t" "$f" 1 | tee -a "$out" || echo "{\"tool\":\"$t\",\"error\":\"timeout\"}" | tee -a "$out"
  done
  timeout 900 "$HERE/.venv-lfh/bin/python" "$HERE/bench.py" linuxforhealth-x12 "$f" 1 | tee -a "$out" || true
done
"$PY" "$HERE/table.py" "$out"
# x12kit and linuxforhealth-x12 in one process, taking turns: best of 3 rounds
# up to 20 MB; above, best of 2 and without orjson.loads(parse_json()), which
# takes minutes per call there.
for f in $files; do
  if [ "$(stat -c %s "$f")" -gt 20000000 ]; then
    "$HERE/.venv-lfh/bin/python" "$HERE/interleaved.py" "$f" 2 "-orjson.loads(parse_json())" | tail -n +2
  else
    "$HERE/.venv-lfh/bin/python" "$HERE/interleaved.py" "$f" 3 | tail -n +2
  fi
done
echo "end: $(date -u +%FT%TZ) $(uptime)"
