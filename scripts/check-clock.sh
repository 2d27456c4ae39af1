#!/usr/bin/env bash
# The core never reads the clock outside core/syntax/src/clock.rs (which does not
# exist on wasm32-unknown-unknown), so no path the WASM package can reach
# calls SystemTime::now / Instant::now, which panic there. Prints the
# offending lines and exits 1 when one does.
set -euo pipefail
cd "$(dirname "$0")/.."
hits=$(grep -rnE 'SystemTime::now|Instant::now|UNIX_EPOCH\)|std::time::SystemTime' core/src core/*/src --include='*.rs' |
  grep -v '^core/syntax/src/clock.rs:' || true)
if [ -n "$hits" ]; then
  echo "the core reads the clock outside core/syntax/src/clock.rs (pass \"now\" in instead):"
  echo "$hits"
  exit 1
fi
for lib in core/syntax/src/lib.rs core/src/lib.rs; do
  grep -q 'cfg(not(all(target_arch = "wasm32", target_os = "unknown")))' "$lib" ||
    { echo "$lib must compile (or re-export) the clock module only off wasm32-unknown-unknown"; exit 1; }
done
echo "clock: only core/syntax/src/clock.rs reads it, and not on wasm32"
