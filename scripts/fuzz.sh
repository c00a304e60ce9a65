#!/bin/sh
# Run every fuzz target for SECONDS each (default 600), FUZZ_JOBS at a time (default 2), at the
# lowest CPU priority, and print per target: wall and CPU seconds, executions, crashes.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# cargo-fuzz (`cargo install cargo-fuzz`) needs a nightly compiler for its `-Z` flags; a stable
# toolchain does the same with RUSTC_BOOTSTRAP=1, which this script sets. The targets are built
# without a sanitizer (`--sanitizer none`: the parsing code is safe Rust but for 16-byte SSE2 and
# SSSE3 loads, stores and shuffles on bounds-checked slices and arrays, in src/stream/json_text.rs,
# src/corpus/fast_record.rs and src/corpus/writer.rs, which `cargo fuzz run fixture_reader` with
# its default address sanitizer covers; and the C of zstd is not ours),
# optimised (release: no debug assertions, so an arithmetic overflow wraps as in the shipped binary). Seeds come from
# scripts/fuzz-seeds.sh (run first when fuzz/corpus is missing); what the fuzzer finds adds to
# fuzz/corpus/<target>, a crash lands in fuzz/artifacts/<target>/ (neither is committed). Every
# crash becomes a regression test in the main crate's tests.
set -eu

seconds=${1:-600}
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/fuzz"
export RUSTC_BOOTSTRAP=1
[ -d corpus ] || sh "$root/scripts/fuzz-seeds.sh"
targets=${*:-$(cargo fuzz list)}
nice -n 19 cargo fuzz build -O --sanitizer none
mkdir -p logs

run_one() {
    t=$1
    mkdir -p "corpus/$t" "artifacts/$t"
    /usr/bin/time -f "%e %U %S" -o "logs/$t.time" nice -n 19 \
        cargo fuzz run -O --sanitizer none "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -max_len=65536 -timeout=30 -rss_limit_mb=2048 \
        -print_final_stats=1 >"logs/$t.log" 2>&1 || true
}

jobs=${FUZZ_JOBS:-2}
running=0
for t in $targets; do
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait

printf '%-20s %8s %8s %12s %8s\n' target wall_s cpu_s execs crashes
for t in $targets; do
    # GNU time writes "Command exited with non-zero status N" first when the fuzzer found a crash.
    read -r wall user sys <<EOF
$(tail -n 1 "logs/$t.time" 2>/dev/null)
EOF
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "logs/$t.log" | tail -n 1)
    crashes=$(find "artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    cpu=$(echo "$user $sys" | awk '{printf "%.0f", $1 + $2}')
    printf '%-20s %8.0f %8s %12s %8s\n' "$t" "$wall" "$cpu" "${execs:-?}" "$crashes"
done
