#!/usr/bin/env bash
# Serves the page (www/) and the package on http://127.0.0.1:${PORT:-8080}/,
# building the package first when pkg/ is missing:
#   bindings/wasm/serve.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ -f "$HERE/pkg/web/x12kit_wasm_bg.wasm" ] || "$HERE/build.sh"
exec node "$HERE/scripts/serve.mjs" "${PORT:-8080}"
