#!/usr/bin/env bash
# Benchmark x12kit-wasm (Node and Chromium) against @stedi/x12-tools and
# node-x12 and the native core, on the generated 10 MB 850 file:
#   bindings/wasm/bench/run.sh [FILE]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
FILE="${1:-/tmp/x12kit-bench-10mb.x12}"
if [ ! -s "$FILE" ]; then
  GEN=""
  for g in "$ROOT"/target/release/x12kit-gen "$ROOT"/target/debug/x12kit-gen; do [ -x "$g" ] && GEN=$g && break; done
  if [ -n "$GEN" ]; then "$GEN" 10000000 "$FILE"; else (cd "$ROOT" && cargo run -q -p x12kit-benches --release --bin x12kit-gen -- 10000000 "$FILE"); fi
fi
[ -d "$HERE/node_modules/node-x12" ] || (cd "$HERE" && npm ci --no-audit --no-fund)
[ -f "$HERE/../pkg/node/x12kit_wasm.js" ] || "$HERE/../build.sh"
NATIVE=$(cd "$ROOT" && cargo run -q --release -p x12kit-wasm --example native -- "$FILE")
echo "native core: $NATIVE" >&2
node "$HERE/bench.mjs" "$FILE" "$NATIVE"
