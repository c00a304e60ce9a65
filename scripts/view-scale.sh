#!/bin/sh
# Page size and first paint of `toolnorm view` on a ~100 MB transcript (thousands of calls):
# generates six 18 MB Claude sessions from a shipped fixture (examples/gen_corpus.rs, each with its
# own ids), joins their raw lines (plus the first two again) into one transcript, draws it, and
# measures the page in headless Chromium (scripts/html-paint.py).
#
#   scripts/view-scale.sh OUT        # OUT gets big.jsonl and big.html; delete it when done
set -eu
out=${1:?usage: scripts/view-scale.sh OUT}
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
cd "$root"
cargo build --quiet --example gen_corpus --bin toolnorm
mkdir -p "$out/samples/claude"
cp corpus/claude/live-claude-2.1.197-coding.jsonl.zst "$out/samples/claude/"
"$target/debug/examples/gen_corpus" --out "$out/gen" --fixtures 6 --mb 110 --samples "$out/samples" --jobs 1
: >"$out/big.jsonl"
for f in "$out"/gen/corpus/claude/*.jsonl.zst "$out"/gen/corpus/claude/gen-00000[01].jsonl.zst; do
    "$target/debug/toolnorm" cat "$f" >>"$out/big.jsonl"
done
ls -l "$out/big.jsonl"
"$target/debug/toolnorm" view "$out/big.jsonl" --out "$out/big.html"
python3 scripts/html-paint.py "$out/big.html" --runs 3
