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

# --- `pip install ./bindings/python` (the README's install line) works in a fresh venv ---
PIPV="$HERE/dist/pip-venv"
rm -rf "$PIPV"
if "$PY" -m venv "$PIPV" \
  && (cd "$ROOT" && "$PIPV/bin/python" -m pip install -q --disable-pip-version-check ./bindings/python) \
  && (cd / && "$PIPV/bin/python" -c '
import x12kit, sys
r = x12kit.parse(b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20230101~SE*3*0001~GE*1*1~IEA*1*000000001~")
assert r.interchanges[0].groups[0].transactions[0].document["purchaseOrderNumber"] == "PO-1", r.to_dict()
assert x12kit.validate(r.input).is_valid and "site-packages" in x12kit.__file__, x12kit.__file__
'); then
  passed=$((passed + 1))
else
  echo "test.sh: pip install ./bindings/python into a fresh venv failed" >&2
  failed=$((failed + 1))
fi
rm -rf "$PIPV"

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
