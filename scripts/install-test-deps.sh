#!/bin/sh
# Install what the test suite needs beyond Rust: Debian's chromium, for the headless browser test
# of the HTML report (tests/cli/html_browser.rs). Idempotent: does nothing when chromium is
# already installed. Safe on CI as root; uses sudo when run as another user and sudo exists.
set -eu

if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    echo "install-test-deps: chromium already installed: $(command -v chromium || command -v chromium-browser)"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-test-deps: apt-get not found; install Chromium with your package manager" >&2
    echo "install-test-deps: (the browser test skips with a printed reason without it)" >&2
    exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "install-test-deps: need root (or sudo) to install chromium" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# Ubuntu ships chromium as a snap stub; Debian ships the real package.
$SUDO apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core
echo "install-test-deps: installed $(chromium --version 2>/dev/null || echo chromium)"
# System packages the test and scenario tooling needs (Debian/Ubuntu, as root).
set -eu

# ripgrep: OpenCode's grep and glob tools call a system `rg` (it cannot download its own offline);
# the live scenarios `opencode-*-search` need it.
if ! command -v rg >/dev/null 2>&1; then
    apt-get update
    apt-get install -y ripgrep
fi
