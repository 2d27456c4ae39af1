#!/usr/bin/env bash
# Builds the x12kit-wasm package: the release wasm32 library, then
# wasm-bindgen for the web (ESM, `init()` first), nodejs (CommonJS) and
# bundler targets into bindings/wasm/pkg/{web,node,bundler}, each with its
# .d.ts and a package.json saying its module type, then wasm-opt -O3 on each
# .wasm. Installs wasm-bindgen-cli 0.2.130 and the wasm32 target when missing.
# The wasm32 code uses 128-bit SIMD (`+simd128`: memchr's SIMD search; every
# current browser and Node >= 16.4 run it), about 17 % faster validation.
#   bindings/wasm/build.sh            # from anywhere
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
WBG=0.2.130 # == the `wasm-bindgen = "=0.2.130"` pin in bindings/wasm/Cargo.toml
export PATH="$HOME/.cargo/bin:$PATH"

rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown ||
  rustup target add wasm32-unknown-unknown
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $WBG"; then
  echo "build.sh: installing wasm-bindgen-cli $WBG (about 6 minutes)" >&2
  # Not --locked: the lockfile names a webpki-roots this registry lacks (toolchain.md, pitfall 1).
  cargo install wasm-bindgen-cli --version "$WBG" --no-default-features --locked 2>/dev/null ||
    cargo install wasm-bindgen-cli --version "$WBG" --no-default-features
fi

# wasm-opt: Debian 12's binaryen (108) cannot read what Rust 1.95 + wasm-bindgen
# 0.2.130 emit ("invalid code after misc prefix: 17"), so use binaryen from npm
# (package.json devDependency, a Node build of the same tool) unless the system one is >= 116.
[ -x "$HERE/node_modules/.bin/wasm-opt" ] || (cd "$HERE" && npm ci --no-audit --no-fund)
WASM_OPT="$HERE/node_modules/.bin/wasm-opt"
if v=$(wasm-opt --version 2>/dev/null | sed -n 's/^wasm-opt version \([0-9]*\).*/\1/p') && [ "${v:-0}" -ge 116 ]; then
  WASM_OPT=wasm-opt
fi

cd "$ROOT"
# test.sh runs its wasm32 unit tests with the same flags.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="${CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS:--C target-feature=+simd128}"
cargo build -p x12kit-wasm --target wasm32-unknown-unknown --release
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
WASM="$TARGET_DIR/wasm32-unknown-unknown/release/x12kit_wasm.wasm"
PKG="$HERE/pkg"
OPT="$TARGET_DIR/wasm32-unknown-unknown/release/x12kit_wasm.opt.wasm"
for t in web node bundler; do
  target=$t
  [ "$t" = node ] && target=nodejs
  rm -rf "$PKG/$t.tmp"
  wasm-bindgen --target "$target" --out-dir "$PKG/$t.tmp" "$WASM"
  # Recovery after a panic (README, Panics): wasm-bindgen's reinit guard
  # first in every call, stale objects as INTERNAL errors.
  if [ "$t" = bundler ]; then
    node "$HERE/scripts/patch-glue.mjs" "$PKG/$t.tmp/x12kit_wasm_bg.js" --bundler
  else
    node "$HERE/scripts/patch-glue.mjs" "$PKG/$t.tmp/x12kit_wasm.js"
  fi
  if [ "$t" = node ]; then type=commonjs; else type=module; fi
  printf '{"name":"x12kit-wasm","version":"0.1.0","type":"%s","main":"x12kit_wasm.js","types":"x12kit_wasm.d.ts","sideEffects":%s}\n' \
    "$type" "$([ "$t" = bundler ] && echo '["./x12kit_wasm.js"]' || echo false)" > "$PKG/$t.tmp/package.json"
  # The three targets get the same .wasm (only the JS glue differs): optimize it once.
  if [ "$t" = web ]; then
    # -O3 --low-memory-unused: measured in Chromium (interleaved runs) a few
    # per cent faster than -Oz and 2 KB smaller gzipped (README, Size). The
    # flag lets wasm-opt fold constant offsets into loads and stores; it
    # assumes no pointer arithmetic wraps around into the first 1 KiB of
    # memory, which holds here: Rust puts the 1 MiB stack first, growing down
    # towards 0, so only a stack overflow would reach it. Skipped when the
    # input is the one optimized last time (wasm-opt takes ~35 s).
    sum=$(sha256sum "$PKG/$t.tmp/x12kit_wasm_bg.wasm" | cut -d' ' -f1)
    [ -f "$OPT" ] && [ "$(cat "$OPT.input-sha256" 2>/dev/null)" = "$sum -O3lm" ] ||
    "$WASM_OPT" -O3 --low-memory-unused --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue --enable-simd --strip-debug --strip-producers "$PKG/$t.tmp/x12kit_wasm_bg.wasm" -o "$OPT"
    echo "$sum -O3lm" >"$OPT.input-sha256"
    RAW_WEB="$PKG/$t.tmp/x12kit_wasm_bg.wasm.raw"
    cp "$PKG/$t.tmp/x12kit_wasm_bg.wasm" "$RAW_WEB"
  else
    cmp -s "$PKG/$t.tmp/x12kit_wasm_bg.wasm" "$RAW_WEB" || { echo "build.sh: the $t .wasm differs from web's" >&2; exit 1; }
  fi
  cp "$OPT" "$PKG/$t.tmp/x12kit_wasm_bg.wasm"
  [ "$t" = web ] || { rm -rf "${PKG:?}/$t"; mv "$PKG/$t.tmp" "$PKG/$t"; }
done
rm -f "$RAW_WEB"
rm -rf "${PKG:?}/web"
mv "$PKG/web.tmp" "$PKG/web"
ls -l "$PKG"/*/x12kit_wasm_bg.wasm >&2
