#!/usr/bin/env bash
# Regenerates include/x12kit.h from ffi/src with cbindgen (ffi/cbindgen.toml).
# Usage: scripts/gen-header.sh            write the header
#        scripts/gen-header.sh --verify   exit 1 if the committed header differs
#                                         byte for byte from a fresh generation (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --quiet -p x12kit-ffi-header -- "$@"
