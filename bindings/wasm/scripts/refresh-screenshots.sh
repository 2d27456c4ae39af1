#!/usr/bin/env bash
# Refreshes the committed screenshots of the page (www/screenshots/*.png):
# runs the page test (tests/page.test.mjs) with its screenshots pointed at
# that folder, then the large-file test (tests/large.test.mjs, a generated
# file of X12KIT_LARGE_BYTES bytes, 1 GB by default, about a minute) and
# keeps its two split screenshots. The package must be built (test.sh or
# build.sh). Review the images, then commit them.
#   bindings/wasm/scripts/refresh-screenshots.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HERE"
[ -f pkg/node/x12kit_wasm.js ] || { echo "build the package first (./build.sh or ./test.sh)"; exit 1; }
X12KIT_SCREENSHOTS="$HERE/www/screenshots" node --test tests/page.test.mjs
large="$(mktemp -d)"
trap 'rm -rf "$large"' EXIT
X12KIT_SCREENSHOTS="$large" node --test tests/large.test.mjs
cp "$large"/large-file-split.png "$large"/large-file-split-last.png "$HERE/www/screenshots/"
git -C "$HERE" status --short -- www/screenshots
