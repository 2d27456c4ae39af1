#!/usr/bin/env bash
# Load benchmark of x12kit-server with oha (a real HTTP load generator),
# on a release build with the limits raised. Not a test: it prints figures.
#   examples/server/bench.sh            (DURATION=10s CONNECTIONS=64 by default; BUILD=0)
# Targets (issue 14): POST /documents/outbound >= 2,000/s with p99 < 50 ms;
# POST /parse >= 200 MB/s of X12 on 1 MB bodies; GET /transactions >= 5,000/s.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"
duration="${DURATION:-10s}"
connections="${CONNECTIONS:-64}"
command -v oha >/dev/null || cargo install oha --locked
# BUILD=0 uses the release binary already built.
[ "${BUILD:-1}" = 0 ] || cargo build --release -p x12kit-server
work="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

sed -e 's/^transactions_per_minute.*/transactions_per_minute = 1000000000/' \
    -e 's/^parse_validate_per_minute.*/parse_validate_per_minute = 1000000000/' \
    -e 's/^other_per_minute.*/other_per_minute = 1000000000/' \
    -e "s#^profile = .*#profile = \"$root/examples/partners/acme-retail.json\"#" \
    examples/server/demo.toml > "$work/bench.toml"
X12KIT_LOG=warn "${CARGO_TARGET_DIR:-target}/release/x12kit-server" --config "$work/bench.toml" \
  --listen 127.0.0.1:0 --database "$work/bench.db" > "$work/stdout" &
pid=$!
for _ in $(seq 1 100); do [ -s "$work/stdout" ] && break; sleep 0.1; done
base="$(head -1 "$work/stdout" | sed -n 's/^listening on //p')"
[ -n "$base" ] || { echo "the server did not start"; exit 1; }
auth="Authorization: Bearer x12k_demo_alpha"

printf '{"partnerId":"acme-retail","documentTypeCode":"850","payload":%s}' \
  "$(cat examples/payloads/850.json)" > "$work/outbound.json"
# About 1 MB of X12: the example purchase orders, interchange after interchange.
python3 - "$root/examples/x12/purchase-orders-850.edi" "$work/1mb.edi" <<'PY'
import sys
one = open(sys.argv[1], "rb").read()
if not one.endswith(b"\n"):
    one += b"\n"
out = bytearray()
while len(out) < 1_000_000:
    out += one
open(sys.argv[2], "wb").write(out)
PY
size=$(wc -c < "$work/1mb.edi")

summary() { # name file [bytes per request]
  python3 - "$1" "$2" "${3:-0}" <<'PY'
import json, sys
name, path, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = json.load(open(path))
s = r["summary"]
codes = r.get("statusCodeDistribution", {})
lat = r.get("latencyPercentiles", {})
line = f"{name}: {s['requestsPerSec']:.0f} req/s, p50 {lat.get('p50', 0) * 1000:.1f} ms, p99 {lat.get('p99', 0) * 1000:.1f} ms, statuses {codes}"
if size:
    line += f", {s['requestsPerSec'] * size / 1e6:.0f} MB/s of X12"
print(line)
PY
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine lowers every figure)"
echo "== POST /api/v1/documents/outbound ($connections connections, $duration)"
oha --no-tui --output-format json -z "$duration" -c "$connections" -m POST -H "$auth" \
  -T application/json -D "$work/outbound.json" "$base/api/v1/documents/outbound" > "$work/outbound.out"
summary "POST /documents/outbound" "$work/outbound.out"

echo "== POST /api/v1/parse (1 MB bodies, 4 connections, $duration)"
oha --no-tui --output-format json -z "$duration" -c 4 -m POST -H "$auth" \
  -T application/edi-x12 -D "$work/1mb.edi" "$base/api/v1/parse" > "$work/parse.out"
summary "POST /parse ($size bytes)" "$work/parse.out" "$size"

echo "== POST /api/v1/parse?documents=false (1 MB bodies, 4 connections, $duration)"
oha --no-tui --output-format json -z "$duration" -c 4 -m POST -H "$auth" \
  -T application/edi-x12 -D "$work/1mb.edi" "$base/api/v1/parse?documents=false" > "$work/parse-nodoc.out"
summary "POST /parse?documents=false ($size bytes)" "$work/parse-nodoc.out" "$size"

echo "== GET /api/v1/transactions ($connections connections, $duration)"
oha --no-tui --output-format json -z "$duration" -c "$connections" -H "$auth" \
  "$base/api/v1/transactions" > "$work/list.out"
summary "GET /transactions (limit 50)" "$work/list.out"
