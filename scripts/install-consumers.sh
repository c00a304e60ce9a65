#!/usr/bin/env bash
# Install the official consumers of the UI wires toolnorm emits, for tests/cli/consumers.rs:
# - tests/consumers/node_modules: the npm packages of tests/consumers/package-lock.json (`ai`,
#   `@ag-ui/core`, `@ag-ui/client`, ...) with `npm ci`, again whenever the lock file changed;
# - target/consumers/venv: a virtualenv with tests/consumers/requirements.txt (`ag-ui-protocol`),
#   made again whenever that file changed.
# Needs node, npm and python3 with venv (scripts/install-test-deps.sh installs them and then runs
# this). Idempotent: skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=tests/consumers
if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.toolnorm-lock" 2>/dev/null; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$dir/package-lock.json" "$dir/node_modules/.toolnorm-lock"
fi

venv=target/consumers/venv
if ! cmp -s "$dir/requirements.txt" "$venv/.toolnorm-requirements" 2>/dev/null; then
    rm -rf "$venv"
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$dir/requirements.txt"
    cp "$dir/requirements.txt" "$venv/.toolnorm-requirements"
fi
echo "install-consumers: ready ($dir/node_modules, $venv)"
