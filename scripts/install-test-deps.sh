#!/bin/sh
# System packages the test and scenario tooling needs (Debian/Ubuntu, as root).
set -eu

# ripgrep: OpenCode's grep and glob tools call a system `rg` (it cannot download its own offline);
# the live scenarios `opencode-*-search` need it.
if ! command -v rg >/dev/null 2>&1; then
    apt-get update
    apt-get install -y ripgrep
fi
