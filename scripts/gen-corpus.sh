#!/bin/sh
# Generate a scale-test corpus from the shipped fixtures (see examples/gen_corpus.rs), then
# optionally time `toolnorm verify` on it.
#
#   scripts/gen-corpus.sh OUT [FIXTURES [MB [FAIL]]]    # defaults: 10000 fixtures, 1300 MB raw, 0 failing
#   VERIFY=1 scripts/gen-corpus.sh /tmp/big 100000 10000 1000
#
# OUT gets corpus/ and expected/ (and reports/ with VERIFY=1). With VERIFY=1 it then runs
# `toolnorm verify --jobs ${JOBS:-2}` under `/usr/bin/time -v` and prints wall time and peak
# memory. Never commit OUT; delete it when done (100,000 fixtures take about 13 GB).
set -eu

out=${1:?usage: scripts/gen-corpus.sh OUT [FIXTURES [MB [FAIL]]]}
fixtures=${2:-10000}
mb=${3:-1300}
fail=${4:-0}
root=$(cd "$(dirname "$0")/.." && pwd)

cd "$root"
cargo build --release --quiet --example gen_corpus --bin toolnorm
target=${CARGO_TARGET_DIR:-$root/target}
"$target/release/examples/gen_corpus" --out "$out" --fixtures "$fixtures" --mb "$mb" \
    --fail "$fail" --samples "$root/corpus" --jobs "${JOBS:-0}"

if [ "${VERIFY:-0}" = 1 ]; then
    log="$out/verify-time.txt"
    set +e
    /usr/bin/time -v "$target/release/toolnorm" verify --jobs "${JOBS:-2}" \
        --corpus "$out/corpus" --expected "$out/expected" --reports "$out/reports" \
        --expectations /dev/null >"$out/verify-stdout.txt" 2>"$log"
    code=$?
    set -e
    echo "verify exit code: $code (1 is expected when FAIL > 0)"
    grep -E "Elapsed \(wall clock\)|Maximum resident set size|User time|System time" "$log"
fi
