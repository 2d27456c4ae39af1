#!/usr/bin/env bash
# The Node suite of x12kit: installs the dev tools (npm install, only when
# node_modules is missing or package-lock.json changed), builds the addon
# (napi build --platform --release), fails when the generated binding.js /
# binding.d.ts drift from the committed ones, runs every node:test file of
# __test__/ (vectors, corpus, bad inputs, fast-check properties, async, errors,
# streams, examples, the npm pack tarball) and `tsc --noEmit --strict` on the
# TypeScript example.
# Last line: `node: N passed, N failed, N skipped`.
set -uo pipefail
cd "$(dirname "$0")"
here="$(pwd)"
root="$(cd ../.. && pwd)"
passed=0 failed=0 skipped=0

finish() {
  echo "node: $passed passed, $failed failed, $skipped skipped"
  if [ "$failed" -gt 0 ]; then exit 1; fi
  exit 0
}
fatal() {
  echo "FATAL: $*"
  failed=$((failed + 1))
  finish
}

command -v node >/dev/null || fatal "node not found (Node >= 18 is needed)"
command -v npm >/dev/null || fatal "npm not found"
echo "node $(node --version), npm $(npm --version 2>/dev/null)"

corpus="${X12KIT_CORPUS:-$(cd "$root/.." && pwd)/shared/corpus}"
if [ -d "$corpus" ]; then
  export X12KIT_CORPUS="$corpus"
elif [ "${X12KIT_REQUIRE_CORPUS:-0}" = 1 ]; then
  fatal "corpus REQUIRED but not found at $corpus"
else
  echo "corpus: not found at $corpus -- the corpus tests are SKIPPED (set X12KIT_CORPUS)"
fi

# --- dev tools: npm install only when needed (npm ci fails for @napi-rs/cli's lockfile) ---
stamp=node_modules/.x12kit-lock.sha
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -d node_modules ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "== npm install"
  npm install --no-audit --no-fund --loglevel=error || fatal "npm install failed"
  echo "$want" >"$stamp"
fi

# --- build, then the drift check of the generated loader and types ---
echo "== napi build --platform --release"
gen="$(mktemp -d)"
trap 'rm -rf "$gen"' EXIT
cp binding.js "$gen/binding.js.committed" 2>/dev/null || : >"$gen/binding.js.committed"
cp binding.d.ts "$gen/binding.d.ts.committed" 2>/dev/null || : >"$gen/binding.d.ts.committed"
if ! npx napi build --platform --release --js binding.js --dts binding.d.ts; then
  fatal "napi build failed"
fi
drift=0
for f in binding.js binding.d.ts; do
  if ! cmp -s "$f" "$gen/$f.committed"; then
    echo "DRIFT: $f differs from the committed file (commit the regenerated one):"
    diff -u "$gen/$f.committed" "$f" | head -40
    drift=1
  fi
done
if [ "$drift" = 1 ]; then failed=$((failed + 1)); else passed=$((passed + 1)); echo "ok: binding.js and binding.d.ts match the committed files"; fi

# --- node --test ---
echo "== node --test"
report="$gen/tap.txt"
node --test --test-reporter=tap --test-concurrency=1 __test__/ 2>&1 | tee "$report"
status=${PIPESTATUS[0]}
count() { grep -E "^# $1 [0-9]+" "$report" | tail -1 | awk '{print $3}'; }
# The TAP summary says `# skipped N` since Node 20 (`# skip N` before).
p="$(count pass)" f="$(count fail)" s="$(count 'skip(ped)?')" t="$(count todo)" c="$(count cancelled)"
if [ -z "$p" ]; then
  fatal "node --test printed no summary (exit $status)"
fi
passed=$((passed + p)) failed=$((failed + ${f:-0} + ${c:-0})) skipped=$((skipped + ${s:-0} + ${t:-0}))
if [ "$status" -ne 0 ] && [ "${f:-0}" = 0 ] && [ "${c:-0}" = 0 ]; then
  echo "node --test exited $status"
  failed=$((failed + 1))
fi

# --- TypeScript: the example type-checks against index.d.ts ---
echo "== tsc --noEmit --strict"
if npx tsc -p "$root/examples/node/tsconfig.json"; then
  passed=$((passed + 1)); echo "ok: tsc --strict"
else
  failed=$((failed + 1)); echo "FAILED: tsc --strict"
fi

finish
