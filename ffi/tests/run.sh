#!/usr/bin/env bash
# Builds libx12kit, compiles the C test suite, the vectors runner and the C examples with
# `gcc -std=c99 -Wall -Wextra -Werror -pedantic` against both the shared and the
# static library (and the header as C++), then runs the tests and the examples
# under valgrind --leak-check=full --error-exitcode=1. Without valgrind (and
# when it cannot be installed) it falls back to AddressSanitizer + UBSan, and
# says so. The C vectors runner (ffi/tests/vectors.c) runs every case of
# tests/vectors/manifest.json; the last line printed is its count,
# `vectors: N passed, N failed, N skipped`.
#
# A soak (ffi/tests/soak.c) calls one operation of each family 1,000 times,
# natively with a check that the bytes in use stay flat, then under the same
# checker.
#
# Usage: ffi/tests/run.sh            (from anywhere; CC overrides gcc;
#                                    X12KIT_C_CHECKER=asan forces the sanitizers)
set -euo pipefail
cd "$(dirname "$0")/../.."

CC=${CC:-gcc}
CXX=${CXX:-g++}
# The target directory (honours CARGO_TARGET_DIR and .cargo/config).
target=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
lib="$target/release"
out="$target/c-tests"
mkdir -p "$out"

cargo build --release -p x12kit-ffi
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
private=$(sed -n 's/^Libs.private: //p' "$lib/x12kit.pc")
warn=(-std=c99 -Wall -Wextra -Werror -pedantic -Iinclude)
shared=(-L"$lib" -lx12kit -Wl,-rpath,"$lib")
static=("$lib/libx12kit.a" $private)

echo "== compile (${CC} -std=c99 -Wall -Wextra -Werror -pedantic)"
"$CC" --version | head -n 1
$CXX -x c++ -std=c++11 -Wall -Wextra -Werror -Iinclude -fsyntax-only include/x12kit.h
test_src=ffi/tests/test_x12kit.c
def=-DX12KIT_EXPECTED_VERSION="\"$version\""
"$CC" "${warn[@]}" -g -O1 -pthread "$def" "$test_src" -o "$out/test_shared" "${shared[@]}"
"$CC" "${warn[@]}" -g -O1 -pthread "$def" "$test_src" -o "$out/test_static" "${static[@]}"
examples=()
for src in examples/c/*.c; do
  name=$(basename "$src" .c)
  "$CC" "${warn[@]}" -O2 "$src" -o "$out/$name" "${shared[@]}"
  "$CC" "${warn[@]}" -O2 "$src" -o "$out/$name-static" "${static[@]}"
  examples+=("$name")
done
echo "built: test_shared test_static ${examples[*]} (each also -static)"

# The runner: valgrind, or ASan when valgrind is missing and cannot be installed.
want=${X12KIT_C_CHECKER:-valgrind}
if [ "$want" = valgrind ] && ! command -v valgrind >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "valgrind not found: installing it with apt-get"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends valgrind >/dev/null 2>&1 ||
    { apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends valgrind >/dev/null 2>&1; } || true
fi
if [ "$want" = valgrind ] && command -v valgrind >/dev/null 2>&1; then
  checker="valgrind $(valgrind --version)"
  # Exit code 1 on any error or leak; the examples use 99, since 1 is their own "bad input".
  run() { valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --error-exitcode="${checker_exit:-1}" "$@"; }
else
  checker="AddressSanitizer + UBSan (valgrind unavailable)"
  echo "NOTE: valgrind is not available (or X12KIT_C_CHECKER=asan); using -fsanitize=address,undefined instead"
  "$CC" "${warn[@]}" -g -O1 -pthread -fsanitize=address,undefined -fno-omit-frame-pointer "$def" "$test_src" \
    -o "$out/test_shared" "${shared[@]}"
  "$CC" "${warn[@]}" -g -O1 -pthread -fsanitize=address,undefined -fno-omit-frame-pointer "$def" "$test_src" \
    -o "$out/test_static" "${static[@]}"
  for name in "${examples[@]}"; do
    "$CC" "${warn[@]}" -g -O1 -fsanitize=address,undefined "examples/c/$name.c" -o "$out/$name" "${shared[@]}"
  done
  export UBSAN_OPTIONS=halt_on_error=1:exitcode=99
  run() { ASAN_OPTIONS="detect_leaks=1:exitcode=${checker_exit:-1}" "$@"; }
fi

echo "== C tests under $checker"
run "$out/test_shared"
run "$out/test_static"

echo "== cross-language vectors (tests/vectors) through the C library, under $checker"
# Every case of the manifest, counted here independently of the C program's
# own JSON reader: it fails unless it ran exactly that many.
manifest=tests/vectors/manifest.json
if command -v python3 >/dev/null 2>&1; then
  cases=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["cases"]))' "$manifest")
else
  cases=$(grep -c '^ *{"id": ' "$manifest") # one case per line (tests/vectors/README.md)
fi
vectors_flags=(-g -O1)
[ "$want" = valgrind ] && command -v valgrind >/dev/null 2>&1 ||
  vectors_flags+=(-fsanitize=address,undefined -fno-omit-frame-pointer)
"$CC" "${warn[@]}" "${vectors_flags[@]}" ffi/tests/vectors.c -o "$out/vectors" "${shared[@]}"
status=0
run "$out/vectors" tests/vectors "$cases" >"$out/vectors.out" 2>&1 || status=$?
grep -v '^vectors: [0-9]* passed' "$out/vectors.out" || true
vectors_summary=$(grep '^vectors: [0-9]* passed' "$out/vectors.out" || echo "vectors: 0 passed, $cases failed, 0 skipped")
[ "$status" = 0 ] || { echo "vectors: the C runner exited with $status"; echo "$vectors_summary"; exit 1; }

echo "== C examples under $checker"
checker_exit=99
sample=examples/x12/purchase-orders-850.edi
run "$out/validate_file" "$sample" | tail -n 1 | grep -q ' 0 diagnostics (0 errors): valid$'
run "$out/validate_file" --json "$sample" | grep -q '^{"valid":true,'
run "$out/validate_file" --parse-json "$sample" | grep -q '^{"interchanges":'
run "$out/validate_file" --ack "$sample" | grep -q '^AK9\*A\*2\*2\*2~$'
status=0
printf 'ST*850*1~' >"$out/not-x12.edi"
run "$out/validate_file" "$out/not-x12.edi" >"$out/not-x12.out" || status=$?
[ "$status" = 1 ] && grep -q 'error NOT_X12: ' "$out/not-x12.out" ||
  { echo "validate_file on bad input: expected exit 1 and NOT_X12, got $status"; exit 1; }
run "$out/read_segments" "$sample" >/dev/null
run "$out/read_segments" --stream 7 "$sample" >/dev/null
# Render an 850, then validate it: no diagnostics.
X12KIT_DATE=20261122 X12KIT_TIME=0930 run "$out/render_850" >"$out/rendered-850.x12"
grep -q '^ST\*850\*0001~$' "$out/rendered-850.x12"
run "$out/validate_file" "$out/rendered-850.x12" | tail -n 1 | grep -q ' 0 diagnostics (0 errors): valid$'
status=0
echo '{"lines": []}' >"$out/bad-850.json"
run "$out/render_850" "$out/bad-850.json" >/dev/null 2>"$out/bad-850.err" || status=$?
[ "$status" = 1 ] && grep -q 'MISSING_FIELD /purchaseOrderNumber' "$out/bad-850.err" ||
  { echo "render_850 on a bad payload: expected exit 1 and MISSING_FIELD, got $status"; cat "$out/bad-850.err"; exit 1; }
# The complete programs of docs/c.md (the ```c blocks with a main).
rm -f "$out"/doc-*
awk -v dir="$out" '/^```c$/ { n++; file = sprintf("%s/doc-%d.c", dir, n); inside = 1; next }
  /^```$/ { inside = 0; next } inside { print > file }' docs/c.md
docs=0
for src in "$out"/doc-*.c; do
  grep -q '^int main' "$src" || continue
  "$CC" "${warn[@]}" "$src" -o "${src%.c}" "${shared[@]}"
  status=0
  run "${src%.c}" >"${src%.c}.out" || status=$?
  [ "$status" -le 1 ] && [ -s "${src%.c}.out" ] || { echo "docs/c.md program $src: exit $status"; exit 1; }
  docs=$((docs + 1))
done
grep -q '^error SE01_COUNT: SE01 says 4 segments' "$out"/doc-*.out
grep -q '^  purchase order PO-1$' "$out"/doc-*.out
grep -q '^X-Service-Signature: sha256=fb090f6b0016619b56520638272f5b9aec18c4f1d7bb71029e4c445ad484cfac$' "$out"/doc-*.out
grep -q '^retry [0-9a-f-]\{36\} at 1700000060$' "$out"/doc-*.out
grep -q '^segment 7: SE01_COUNT SE01 says 9 segments' "$out"/doc-*.out
[ "$docs" = 4 ] || { echo "expected 4 programs in docs/c.md, found $docs"; exit 1; }
echo "C examples: ok (${examples[*]}, and the $docs programs of docs/c.md)"

echo "== soak: one operation of each family, 1,000 calls (natively: bytes in use flat; then under $checker)"
# ffi/tests/soak.c: every result freed as the header says; natively it also
# checks (mallinfo2) that nothing accumulates while the loop runs.
"$CC" "${warn[@]}" -g -O1 ffi/tests/soak.c -o "$out/soak" "${shared[@]}"
"$out/soak" "$sample" 1000
if [ "$want" = valgrind ] && command -v valgrind >/dev/null 2>&1; then
  run "$out/soak" "$sample" 1000 --no-growth-check
else
  "$CC" "${warn[@]}" -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer ffi/tests/soak.c -o "$out/soak-asan" "${shared[@]}"
  run "$out/soak-asan" "$sample" 1000 --no-growth-check
fi

echo "== install under a prefix, then build with pkg-config (shared and --static)"
if ! command -v pkg-config >/dev/null 2>&1; then
  echo "pkg-config not found: the install check is SKIPPED (apt-get install pkg-config to run it)"
  echo "$vectors_summary"
  exit 0
fi
prefix="$out/prefix"
rm -rf "$prefix"
ffi/install.sh "$prefix" >/dev/null 2>&1
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
"$CC" "${warn[@]}" examples/c/validate_file.c -o "$out/pc_shared" $(pkg-config --cflags --libs x12kit) -Wl,-rpath,"$prefix/lib"
"$CC" "${warn[@]}" examples/c/validate_file.c -o "$out/pc_static" $(pkg-config --cflags x12kit) \
  "$prefix/lib/libx12kit.a" $(pkg-config --static --libs-only-l x12kit | sed 's/-lx12kit//')
"$out/pc_shared" "$sample" >/dev/null
"$out/pc_static" "$sample" >/dev/null
ldd "$out/pc_static" | grep -q libx12kit && { echo "pc_static links libx12kit.so dynamically"; exit 1; }
echo "pkg-config $(pkg-config --modversion x12kit): ok"

# The last line: the vectors count (scripts/test.sh and CI read it).
echo "$vectors_summary"
