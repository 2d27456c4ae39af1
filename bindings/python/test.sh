#!/usr/bin/env bash
# The Python suite of x12kit: builds the abi3 wheel (release), installs it into
# .venv-python at the repo root, checks the stubs (mypy stubtest) and the
# examples (mypy --strict), and runs pytest (vectors, corpus, bad input,
# hypothesis, threads, 1 GB streams, webhook, examples). Idempotent; fast when warm.
# Last line: "python: N passed, N failed, N skipped".
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VENV="$ROOT/.venv-python"
PY=${PYTHON:-python3}
passed=0 failed=0 skipped=0

finish() {
  echo "python: $passed passed, $failed failed, $skipped skipped"
  [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
  exit $?
}
die() {
  echo "test.sh: $*" >&2
  failed=$((failed + 1))
  finish
}

# --- venv and tools (installed only when missing) ---
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV" || die "cannot create $VENV"
fi
VPY="$VENV/bin/python"
want=(maturin pytest hypothesis mypy typing_extensions flask)
missing=()
for p in "${want[@]}"; do
  "$VPY" -m pip show -q "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  "$VPY" -m pip install -q --disable-pip-version-check "${missing[@]}" || die "pip install ${missing[*]} failed"
fi

# --- build the wheel and install it (never PYO3_BUILD_EXTENSION_MODULE in the env: see toolchain.md) ---
rm -rf "$HERE/dist"
(cd "$HERE" && VIRTUAL_ENV="$VENV" "$VENV/bin/maturin" build --release --quiet -o "$HERE/dist" -i "$VPY") \
  || die "maturin build failed"
"$VPY" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$HERE"/dist/x12kit-*.whl \
  || die "installing the wheel failed"

# --- the committed stubs match the module (they are the interface file; drift fails) ---
if (cd "$ROOT" && "$VPY" -m mypy.stubtest x12kit); then
  passed=$((passed + 1))
else
  echo "test.sh: stubtest: bindings/python/python/x12kit/*.pyi drifted from the module" >&2
  failed=$((failed + 1))
fi

# --- the examples type-check strictly against the installed stubs ---
if (cd "$ROOT" && "$VPY" -m mypy --strict --no-incremental examples/python); then
  passed=$((passed + 1))
else
  echo "test.sh: mypy --strict examples/python failed" >&2
  failed=$((failed + 1))
fi

# --- pytest ---
report="$HERE/dist/pytest.xml"
(cd "$HERE" && "$VPY" -m pytest -q -p no:cacheprovider --junitxml="$report" tests)
[ -f "$report" ] || die "pytest wrote no report"
read -r t f e s < <("$VPY" - "$report" <<'PYEOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else list(root)
tot = lambda k: sum(int(x.get(k, 0)) for x in suites)
print(tot("tests"), tot("failures"), tot("errors"), tot("skipped"))
PYEOF
)
passed=$((passed + t - f - e - s))
failed=$((failed + f + e))
skipped=$((skipped + s))
finish
