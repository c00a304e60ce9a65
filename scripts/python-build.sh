#!/usr/bin/env bash
# Build the Python package `toolnorm` (packages/python: the core normalizer behind PyO3, as an
# abi3 wheel for every CPython from 3.10 on):
#
#   scripts/python-build.sh [--out DIR] [--target TRIPLE]
#
# --out     where the wheel goes (default: target/python/wheels; an older toolnorm wheel there
#           is removed first)
# --target  a Rust target to build for instead of this machine's, as maturin takes it: on macOS
#           `universal2-apple-darwin` builds one wheel for both CPUs (with the targets
#           `aarch64-apple-darwin` and `x86_64-apple-darwin` added to rustup)
#
# maturin comes from PyPI into a virtualenv of its own (target/python/build-venv, made with
# $PYTHON, default python3). First the type stubs' TypedDicts are written from the JSON Schemas
# of the Rust types (packages/python/python/toolnorm/_types.pyi, not committed), then maturin
# builds the wheel in release mode. The Rust build goes to target/python. Prints the wheel's path.
set -euo pipefail
cd "$(dirname "$0")/.."

out="target/python/wheels"
target=""
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --target) target="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "python-build: unknown argument $1" >&2; exit 2 ;;
    esac
done

MATURIN="maturin==1.16.0"
python="${PYTHON:-python3}"
venv="target/python/build-venv"
if [ ! -x "$venv/bin/maturin" ] || [ "$("$venv/bin/maturin" --version)" != "${MATURIN/==/ }" ]; then
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$MATURIN"
fi

export CARGO_TARGET_DIR="$PWD/target/python"
manifest="packages/python/Cargo.toml"
cargo run --quiet --locked --manifest-path packages/python/stubs/Cargo.toml -- \
    packages/python/python/toolnorm/_types.pyi

mkdir -p "$out"
rm -f "$out"/toolnorm-*.whl
args=(build --release --locked --manifest-path "$manifest" --out "$out")
if [ -n "$target" ]; then
    args+=(--target "$target")
fi
"$venv/bin/maturin" "${args[@]}" >&2
wheels=("$out"/toolnorm-*.whl)
if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
    echo "python-build: expected one wheel in $out, found: ${wheels[*]}" >&2
    exit 1
fi
echo "${wheels[0]}"
