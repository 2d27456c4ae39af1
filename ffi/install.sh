#!/usr/bin/env bash
# Installs libx12kit for C programs under a prefix:
#   PREFIX/lib/libx12kit.so, PREFIX/lib/libx12kit.a, PREFIX/include/x12kit.h,
#   PREFIX/lib/pkgconfig/x12kit.pc (the build tree's x12kit.pc with its paths rewritten).
# Usage: ffi/install.sh [PREFIX]     (default /usr/local; builds the release library first)
set -euo pipefail
prefix=${1:-/usr/local}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd) # absolute, for the .pc file
cd "$(dirname "$0")/.."
cargo build --release -p x12kit-ffi
# The target directory (honours CARGO_TARGET_DIR and .cargo/config).
target=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
install -m 0755 "$target/release/libx12kit.so" "$prefix/lib/"
install -m 0644 "$target/release/libx12kit.a" "$prefix/lib/"
install -m 0644 include/x12kit.h "$prefix/include/"
sed -e "s|^libdir=.*|libdir=$prefix/lib|" -e "s|^includedir=.*|includedir=$prefix/include|" \
  -e "s|written by ffi/build.rs for the build tree|installed by ffi/install.sh|" \
  "$target/release/x12kit.pc" >"$prefix/lib/pkgconfig/x12kit.pc"
echo "installed libx12kit $(sed -n 's/^Version: //p' "$prefix/lib/pkgconfig/x12kit.pc") under $prefix"
