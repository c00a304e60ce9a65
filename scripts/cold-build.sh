#!/usr/bin/env bash
# The first ten minutes, timed: a bare clone of this repository's HEAD (committed files only) into
# a temporary folder with a target folder of its own, then the README's two commands as a new user
# runs them, each from nothing: `cargo run --release -- verify`, then, in a second fresh clone,
# `cargo test`. Prints each one's wall time and CPU time (user + system). The crates come from
# cargo's local registry cache (download time is not counted).
#
#   scripts/cold-build.sh
#
# On a shared machine, compare CPU times, or give the command the machine: its wall time is what a
# user of an otherwise idle machine waits.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR CARGO_BUILD_BUILD_DIR
echo "cores: $(nproc); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
TIMEFORMAT="%R s wall, %U s user, %S s system"
for step in verify test; do
    git clone --quiet "$root" "$work/$step"
    cd "$work/$step"
    case $step in
    verify) cmd=(cargo run --release --quiet -- verify) ;;
    test) cmd=(cargo test --quiet) ;;
    esac
    if ! { time "${cmd[@]}" >"$work/$step.log" 2>&1; } 2>"$work/$step.time"; then
        tail -30 "$work/$step.log"
        exit 1
    fi
    echo "${cmd[*]}: $(cat "$work/$step.time")"
    cd "$root"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
