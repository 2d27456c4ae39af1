#!/usr/bin/env bash
# Whole-process speed and peak RSS of x12kit next to `wc -l` and x12pp, in
# one run: every command runs once per round, rounds interleaved, and the
# median of the rounds is reported (on a shared machine only ratios within
# one run mean something). See benches/README.md.
#
#   benches/compare.sh FILE ROUNDS X12KIT [X12KIT_BASELINE]
#
# X12PP (default: x12pp on PATH) names the x12pp binary.
set -euo pipefail
file=${1:?file}
rounds=${2:-5}
new=${3:?x12kit binary}
old=${4:-}
x12pp=${X12PP:-x12pp}
size=$(stat -c %s "$file")
cat "$file" > /dev/null # into the page cache

declare -a names cmds
add() { names+=("$1"); cmds+=("$2"); }
add "wc -l" "wc -l $file"
add "x12pp > /dev/null" "$x12pp $file"
for bin in ${old:+old:$old} new:$new; do
    tag=${bin%%:*}
    b=${bin#*:}
    add "$tag x12kit inspect" "$b inspect --no-progress $file"
    add "$tag x12kit validate" "$b validate $file"
    add "$tag x12kit validate --stream" "$b validate --stream $file"
    add "$tag x12kit parse --no-documents" "$b parse --no-documents $file"
    add "$tag x12kit parse" "$b parse $file"
done
# The new binary's parse on the reading thread alone (no worker threads).
add "new x12kit parse --no-documents --threads 1" "$new parse --no-documents --threads 1 $file"
add "new x12kit parse --threads 1" "$new parse --threads 1 $file"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((r = 0; r < rounds; r++)); do
    for i in "${!cmds[@]}"; do
        /usr/bin/time -f "%e %M" -o "$tmp/t" ${cmds[$i]} > /dev/null 2>&1 || true
        echo "$(cat "$tmp/t")" >> "$tmp/$i"
    done
done
echo "| command | median s | MB/s | peak RSS MiB |"
echo "|---|---:|---:|---:|"
for i in "${!cmds[@]}"; do
    mid=$(((rounds + 1) / 2))
    t=$(cut -d' ' -f1 "$tmp/$i" | sort -n | sed -n "${mid}p")
    m=$(cut -d' ' -f2 "$tmp/$i" | sort -n | sed -n "${mid}p")
    awk -v n="${names[$i]}" -v size="$size" -v t="$t" -v m="$m" 'BEGIN {
        s = t; if (s < 0.005) s = 0.005
        printf "| `%s` | %.2f | %.0f | %.1f |\n", n, t, size / 1e6 / s, m / 1024
    }'
done
