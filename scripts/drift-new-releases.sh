#!/bin/sh
# Drift of every release newer than the pinned ones: for Claude Code, Codex, OpenCode, Gemini CLI,
# Qwen Code, Kilo, droid and Copilot CLI, ask the npm registry for the published versions newer
# than the version the scenarios pin (`cli_version` in scenarios/<cli>-*.toml), and run `toolnorm scenario drift` on each (the
# newest MAX_PER_CLI of them, 3 by default), so a release that changes the stream is known the
# day it ships. Reports go to $REPORTS/<cli>-<version>/ (drift.md beside verify's full report);
# a summary table goes to stdout and, on GitHub Actions, to the job summary.
#
#   scripts/drift-new-releases.sh [--dry-run] [claude] [codex] [opencode] [gemini] [qwen] [kilo] [droid] [copilot]
#
# Environment: TOOLNORM (the command to run, default `cargo run --release --quiet --features https-pages --`), REPORTS
# (default reports/drift), MAX_PER_CLI (default 3), NPM (default npm).
# --dry-run lists the drift commands it would run, without running them.
# Exit status: 0 when no new release changed anything (or there was none), 1 when some drift
# changed or failed, 2 when the registry could not be asked.
set -eu

TOOLNORM=${TOOLNORM:-cargo run --release --quiet --features https-pages --}
REPORTS=${REPORTS:-reports/drift}
MAX_PER_CLI=${MAX_PER_CLI:-3}
NPM=${NPM:-npm}
dry_run=0
clis=""
for arg in "$@"; do
    case "$arg" in
        --dry-run) dry_run=1 ;;
        claude | codex | opencode | gemini | qwen | kilo | droid | copilot) clis="$clis $arg" ;;
        *) echo "usage: $0 [--dry-run] [claude] [codex] [opencode] [gemini] [qwen] [kilo] [droid] [copilot]" >&2; exit 2 ;;
    esac
done
[ -n "$clis" ] || clis="claude codex opencode gemini qwen kilo droid copilot"

package_of() {
    case "$1" in
        claude) echo "@anthropic-ai/claude-code" ;;
        codex) echo "@openai/codex" ;;
        opencode) echo "opencode-ai" ;;
        gemini) echo "@google/gemini-cli" ;;
        qwen) echo "@qwen-code/qwen-code" ;;
        kilo) echo "@kilocode/cli" ;;
        droid) echo "droid" ;;
        copilot) echo "@github/copilot" ;;
    esac
}

# The newest cli_version among the CLI's scenarios.
pinned_of() {
    sed -n 's/^cli_version *= *"\([^"]*\)".*/\1/p' scenarios/"$1"-*.toml 2>/dev/null | sort -V | tail -n 1
}

# Release versions (no pre-release) newer than $2 from the registry's JSON list on stdin, oldest
# first.
newer_than() {
    tr -d '[]" \r' | tr ',' '\n' | grep -E '^[0-9]+\.[0-9]+\.[0-9]+$' \
        | { cat; echo "$1"; } | sort -V -u | sed -n "/^$(echo "$1" | sed 's/\./\\./g')\$/,\$p" | sed 1d
}

summary="| CLI | pinned | version | drift |\n|---|---|---|---|\n"
status=0
for cli in $clis; do
    pinned=$(pinned_of "$cli")
    if [ -z "$pinned" ]; then
        echo "no scenario pins a version of $cli; skipped" >&2
        continue
    fi
    if ! list=$($NPM view "$(package_of "$cli")" versions --json); then
        echo "error: $NPM view $(package_of "$cli") versions failed" >&2
        exit 2
    fi
    versions=$(echo "$list" | newer_than "$pinned" | tail -n "$MAX_PER_CLI")
    if [ -z "$versions" ]; then
        echo "$cli: no release newer than $pinned"
        summary="$summary| $cli | $pinned | – | no newer release |\n"
        continue
    fi
    for v in $versions; do
        out="$REPORTS/$cli-$v"
        if [ "$dry_run" = 1 ]; then
            echo "$TOOLNORM scenario drift --cli $cli@$v --reports $out"
            continue
        fi
        echo "== $cli $v (pinned $pinned)"
        if $TOOLNORM scenario drift --cli "$cli@$v" --reports "$out"; then
            verdict="unchanged"
        else
            verdict="**changed** (see \`$out/drift.md\`)"
            status=1
        fi
        summary="$summary| $cli | $pinned | $v | $verdict |\n"
    done
done

if [ "$dry_run" = 0 ]; then
    printf "%b" "$summary"
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
        printf "## Drift of new releases\n\n%b" "$summary" >> "$GITHUB_STEP_SUMMARY"
    fi
fi
exit "$status"
