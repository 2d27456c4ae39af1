#!/usr/bin/env bash
# Throughput of the C readers of libx12kit beside the Rust core, on the same
# generated input, with the same harness (best of RUNS wall-clock runs, each
# checked against the generator's counts). Prints a Markdown table.
#
# Usage: ffi/bench/run.sh [SIZE_BYTES] [RUNS]     (default 100000000 and 5)
# The input is written to target/c-bench/input-SIZE.x12 (not committed).
set -euo pipefail
cd "$(dirname "$0")/../.."
size=${1:-100000000}
runs=${2:-5}
# The target directory (honours CARGO_TARGET_DIR and .cargo/config).
target=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
out="$target/c-bench"
mkdir -p "$out"
input="$out/input-$size.x12"

cargo build --release -p x12kit-ffi
cargo build --release -p x12kit-ffi --example bench_input
gcc -std=c99 -Wall -Wextra -Werror -O2 -Iinclude ffi/bench/reader_bench.c -o "$out/reader_bench" \
  "$target/release/libx12kit.a" $(sed -n 's/^Libs.private: //p' "$target/release/x12kit.pc")

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
rust=$("$target/release/examples/bench_input" "$input" "$size" "$runs")
read -r _ segments elements pieces piece_bytes <<<"$(grep '^counts ' <<<"$rust")"
c=$("$out/reader_bench" "$input" "$segments" "$elements" "$pieces" "$piece_bytes" "$runs")
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

echo "input: $input, $(stat -c %s "$input") bytes, $segments segments, $elements elements, $pieces pieces; best of $runs runs"
echo
echo "| read | C (libx12kit.a) MB/s | Rust core MB/s | C / Rust |"
echo "| --- | ---: | ---: | ---: |"
for name in buffer_segments buffer_elements stream64k_segments stream64k_elements stream64k_split_in_c; do
  cr=$(awk -v n="$name" '$2 == n { print $3 }' <<<"$c")
  # The C-side split is compared with the Rust element walk.
  rr=$(awk -v n="${name/split_in_c/elements}" '$2 == n { print $3 }' <<<"$rust")
  echo "| \`$name\` | $cr | $rr | $(awk -v a="$cr" -v b="$rr" 'BEGIN { printf "%.2f", a / b }') |"
done
