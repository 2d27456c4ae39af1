#!/usr/bin/env bash
# Refreshes the dashboard screenshots the server README shows
# (examples/server/screenshots/*.png): runs the dashboard's browser test
# (tests/dashboard/dashboard.test.mjs) with its screenshots in a temporary
# folder, then copies the chosen ones here. The server and the WASM package
# must be built (cargo build -p x12kit-server; bindings/wasm/build.sh). Look
# at the images, then commit them.
#   examples/server/scripts/refresh-screenshots.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CHOSEN=(overview documents document-inspector resend-confirm partner-field-error key-created
  webhook-test upload-problem upload-done audit sign-in-locked phone-document guide-findings)
bin="${X12KIT_SERVER_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/x12kit-server}"
[ -x "$bin" ] || { echo "build the server first: cargo build -p x12kit-server"; exit 1; }
[ -f "$ROOT/bindings/wasm/pkg/web/x12kit_wasm_bg.wasm" ] || { echo "build the WASM package first: bindings/wasm/build.sh"; exit 1; }
dash="$HERE/tests/dashboard"
[ -d "$dash/node_modules/playwright-core" ] || (cd "$dash" && npm ci --no-audit --no-fund)
shots="$(mktemp -d)"
trap 'rm -rf "$shots"' EXIT
X12KIT_SCREENSHOTS="$shots" X12KIT_SERVER_BIN="$bin" node --test "$dash/dashboard.test.mjs"
mkdir -p "$HERE/screenshots"
for name in "${CHOSEN[@]}"; do
  cp "$shots/$name.png" "$HERE/screenshots/$name.png"
done
git -C "$ROOT" status --short -- examples/server/screenshots
