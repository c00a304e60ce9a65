#!/bin/sh
# Peak memory of `toolnorm verify` against the number of fixtures: generate two corpora of the
# same fixtures' mix (scripts/gen-corpus.sh, 130 KB raw a fixture, 1% failing), verify each with
# `--jobs ${JOBS:-2}` under `/usr/bin/time -v`, and print the peak resident memory of each, the
# growth per fixture between them (bytes) and the ratio of the two peaks. The small run is the
# baseline of the large one, measured in the same run.
#
#   scripts/verify-memory.sh [OUT [SMALL [LARGE]]]   # defaults: a temporary folder, 1000, 10000
#   MAX_SLOPE=200 scripts/verify-memory.sh           # exit 1 when a fixture costs more than 200 bytes
#
# The corpora are deleted at the end unless KEEP=1 (10,000 fixtures take about 1.5 GB; 100,000
# about 13 GB).
set -eu

out=${1:-$(mktemp -d)}
small=${2:-1000}
large=${3:-10000}
root=$(cd "$(dirname "$0")/.." && pwd)

peak() { # fixtures -> "kilobytes seconds"
    n=$1
    dir="$out/corpus-$n"
    rm -rf "$dir"
    VERIFY=1 "$root/scripts/gen-corpus.sh" "$dir" "$n" $((n * 130 / 1000)) $((n / 100)) >"$out/gen-$n.txt"
    kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/verify-time.txt")
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/verify-time.txt")
    cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.1f", s }' "$dir/verify-time.txt")
    echo "$n fixtures: peak ${kb} KB, wall $wall, cpu ${cpu}s" >&2
    [ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
    echo "$kb"
}

a=$(peak "$small")
b=$(peak "$large")
slope=$(( (b - a) * 1024 / (large - small) ))
echo "peak memory: $small fixtures ${a} KB, $large fixtures ${b} KB"
echo "growth: $slope bytes per fixture; ratio large/small $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }')"
if [ -n "${MAX_SLOPE:-}" ] && [ "$slope" -gt "$MAX_SLOPE" ]; then
    echo "error: $slope bytes per fixture is over MAX_SLOPE=$MAX_SLOPE" >&2
    exit 1
fi
