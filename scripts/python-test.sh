#!/usr/bin/env bash
# Test the Python package: build the wheel (scripts/python-build.sh, which takes the same
# arguments), install it into a fresh virtualenv (target/python/test-venv) beside the test tools
# of packages/python/requirements-test.txt (from PyPI), and run its pytest suite over the shipped
# corpus (packages/python/tests). Needs python3 with venv and pip (scripts/install-test-deps.sh).
# Afterwards the same virtualenv runs the benchmark:
#   target/python/test-venv/bin/python packages/python/bench.py
set -euo pipefail
cd "$(dirname "$0")/.."

python="${PYTHON:-python3}"
wheel="$PWD/$(bash scripts/python-build.sh ${1+"$@"})"
venv="$PWD/target/python/test-venv"
rm -rf "$venv"
"$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" -r packages/python/requirements-test.txt
# The wheel itself from the file alone, as a user without the package index would install it.
"${pip[@]}" --no-index "$wheel"
cd packages/python
TOOLNORM_WHEEL="$wheel" "$venv/bin/python" -m pytest -p no:cacheprovider -q tests
