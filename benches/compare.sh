#!/usr/bin/env bash
# Whole-process speed and peak RSS of x12kit next to `wc -l` and x12pp, in
# one run: every command runs once per round, rounds interleaved, and the
# median of the rounds is reported (on a shared machine only ratios within
# one run mean something). See benches/README.md.
#
#   benches/compare.sh FILE ROUNDS X12KIT [X12KIT_BASELINE]
#
# X12PP (default: x12pp on PATH) names the x12pp binary; COMMANDS (default:
# all of them: inspect validate validate-stream parse-no-documents parse)
# limits the x12kit commands run, e.g. COMMANDS="inspect validate".
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
    for cmd in ${COMMANDS:-inspect validate validate-stream parse-no-documents parse}; do
        case $cmd in
        inspect) add "$tag x12kit inspect" "$b inspect --no-progress $file" ;;
        validate) add "$tag x12kit validate" "$b validate $file" ;;
        validate-stream) add "$tag x12kit validate --stream" "$b validate --stream $file" ;;
        parse-no-documents) add "$tag x12kit parse --no-documents" "$b parse --no-documents $file" ;;
        parse) add "$tag x12kit parse" "$b parse $file" ;;
        *) echo "unknown command in COMMANDS: $cmd" >&2 && exit 2 ;;
        esac
    done
done
# The new binary's parse on the reading thread alone (no worker threads),
# when parse is among the commands.
case " ${COMMANDS:-parse} " in
*" parse "* | *" parse-no-documents "*)
    add "new x12kit parse --no-documents --threads 1" "$new parse --no-documents --threads 1 $file"
    add "new x12kit parse --threads 1" "$new parse --threads 1 $file"
    ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((r = 0; r < rounds; r++)); do
    for i in "${!cmds[@]}"; do
        /usr/bin/time -f "%e %M %U %S" -o "$tmp/t" ${cmds[$i]} > /dev/null 2>&1 || true
        tail -n 1 "$tmp/t" >> "$tmp/$i"
    done
done
# Speed relative to x12pp (its time / this command's time), by wall time and
# by CPU time (user + system, which other processes on a shared machine
# inflate less than wall time).
median() { sort -n | sed -n "$(((rounds + 1) / 2))p"; }
cpu() { awk '{ print $3 + $4 }' "$1"; }
pp_wall=$(cut -d' ' -f1 "$tmp/1" | median)
pp_cpu=$(cpu "$tmp/1" | median)
echo "| command | median s | MB/s | CPU s | × x12pp (wall) | × x12pp (CPU) | peak RSS MiB |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for i in "${!cmds[@]}"; do
    t=$(cut -d' ' -f1 "$tmp/$i" | median)
    m=$(cut -d' ' -f2 "$tmp/$i" | median)
    c=$(cpu "$tmp/$i" | median)
    awk -v n="${names[$i]}" -v size="$size" -v t="$t" -v m="$m" -v c="$c" \
        -v pw="$pp_wall" -v pc="$pp_cpu" 'BEGIN {
        s = t; if (s < 0.005) s = 0.005
        cc = c; if (cc < 0.005) cc = 0.005
        printf "| `%s` | %.2f | %.0f | %.2f | %.2f | %.2f | %.1f |\n", n, t, size / 1e6 / s, c, pw / s, pc / cc, m / 1024
    }'
done
