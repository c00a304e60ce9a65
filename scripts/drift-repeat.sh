#!/bin/sh
# Run one `toolnorm scenario drift` N times and fail if the runs disagree: a drift whose verdict
# flips on its own teaches people to ignore it. Each run's reports go to $REPORTS/run-<i>/; a
# table of the runs (exit code, seconds, the drift.md verdict) goes to stdout and, on GitHub
# Actions, to the job summary. The runs agree when every run's drift.md says the same of every
# scenario (unchanged, changed, failed, not re-recorded).
#
#   scripts/drift-repeat.sh N CLI@VERSION [NAME...]
#
# Environment: TOOLNORM (the command to run, default `cargo run --release --quiet --features https-pages --`), REPORTS
# (default reports/drift-repeat).
# Exit status: 0 when the N runs agree (whatever they found), 1 when they differ, 2 on bad usage
# or when a run could not be made at all (toolnorm exited 2).
set -eu

TOOLNORM=${TOOLNORM:-cargo run --release --quiet --features https-pages --}
REPORTS=${REPORTS:-reports/drift-repeat}
if [ $# -lt 2 ] || ! [ "$1" -ge 1 ] 2>/dev/null; then
    echo "usage: $0 N CLI@VERSION [NAME...]" >&2
    exit 2
fi
runs=$1
cli=$2
shift 2

table="| run | exit | seconds | verdict |\n|---|---|---|---|\n"
first=""
status=0
i=1
while [ "$i" -le "$runs" ]; do
    out="$REPORTS/run-$i"
    echo "== drift $cli, run $i of $runs"
    start=$(date +%s)
    code=0
    $TOOLNORM scenario drift --cli "$cli" --reports "$out" "$@" || code=$?
    seconds=$(($(date +%s) - start))
    if [ "$code" -ge 2 ] || [ ! -f "$out/drift.md" ]; then
        echo "error: run $i of the drift of $cli failed (exit $code)" >&2
        exit 2
    fi
    verdict=$(sed -n 's/^\*\*\([A-Z]*\)\*\*: \(.*\)$/\1: \2/p' "$out/drift.md" | head -n 1)
    # What the run said of each scenario.
    said=$(grep '^## ' "$out/drift.md" | sort)
    if [ -z "$first" ]; then
        first=$said
    elif [ "$said" != "$first" ]; then
        status=1
        echo "run $i disagrees with run 1:"
        printf '%s\n' "$first" > "$REPORTS/said-1.txt"
        printf '%s\n' "$said" > "$REPORTS/said-$i.txt"
        diff "$REPORTS/said-1.txt" "$REPORTS/said-$i.txt" || true
    fi
    table="$table| $i | $code | $seconds | $verdict |\n"
    i=$((i + 1))
done

printf "%b" "$table"
if [ "$status" = 0 ]; then
    echo "$runs runs of the drift of $cli agree"
else
    echo "the runs of the drift of $cli disagree"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    printf "## Drift of %s, %s runs\n\n%b" "$cli" "$runs" "$table" >> "$GITHUB_STEP_SUMMARY"
fi
exit "$status"
