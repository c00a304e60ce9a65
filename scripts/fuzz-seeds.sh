#!/bin/sh
# Build the fuzz targets' seed corpora from the shipped samples, into fuzz/corpus/<target>/
# (not committed; run again after the corpus grows):
# - a dialect target (claude_stream_json, codex_exec, ...): every fixture of that dialect, its
#   raw stream cut into pieces of at most 200 lines on line boundaries;
# - fixture_reader: the same pieces with their fixture records (`zstd -dc`), and a few whole
#   fixtures as they are on disk;
# - redactor: the raw lines, 50 to a seed, plus the secret shapes of the redaction rules;
# - expectations: expectations.toml and the example entries of its header.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo build --release --quiet --bin toolnorm
bin=${CARGO_TARGET_DIR:-$root/target}/release/toolnorm
out=$root/fuzz/corpus
mkdir -p "$out"

for fixture in corpus/*/*.jsonl.zst; do
    provider=$(basename "$(dirname "$fixture")")
    name=$(basename "$fixture" .jsonl.zst)
    # The dialect as the normalizer names it (a header may leave it to the trailer or to detection).
    dialect=$("$bin" normalize "$fixture" 2>/dev/null | sed -n 's/^  "dialect": "\(.*\)",\{0,1\}$/\1/p' | head -n 1)
    [ -n "$dialect" ] || continue
    target=$(printf '%s_%s' "$provider" "$dialect" | tr '-' '_')
    # A dialect named like its provider (`acp`) gives the target its one name.
    [ "$dialect" = "$provider" ] && target=$provider
    mkdir -p "$out/$target" "$out/fixture_reader" "$out/redactor"
    "$bin" cat "$fixture" | split -l 200 -d -a 3 - "$out/$target/$name."
    zstd -dcq "$fixture" | split -l 200 -d -a 3 - "$out/fixture_reader/$name."
    "$bin" cat "$fixture" | split -l 50 -d -a 3 - "$out/redactor/$name."
done
# A few real fixtures as written, compressed (the target also compresses what is not zstd).
for fixture in $(ls corpus/*/*.jsonl.zst | head -5); do
    cp "$fixture" "$out/fixture_reader/$(basename "$fixture")"
done
printf '%s\n' 'key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' \
    '{"token":"ghp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","path":"/home/fuzz/project/a.rs"}' \
    '-----BEGIN RSA PRIVATE KEY-----' 'MIIEowIBAAKCAQEA' '-----END RSA PRIVATE KEY-----' \
    'AKIAIOSFODNN7EXAMPLE /tmp/scratch/x Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123' \
    >"$out/redactor/secrets"
# The shipped corpus has no rollout file nor export document yet: a small one of each.
mkdir -p "$out/codex_rollout" "$out/opencode_export"
cat >"$out/codex_rollout/seed.jsonl" <<'JSONL'
{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"s1","cwd":"/w"}}
{"timestamp":"2026-01-01T00:00:00.000Z","type":"turn_context","payload":{"cwd":"/w"}}
{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat a.txt\",\"workdir\":\"/w\"}","call_id":"call_1"}}
{"timestamp":"2026-01-01T00:00:01.100Z","type":"event_msg","payload":{"type":"exec_command_begin","call_id":"call_1","turn_id":"t","command":["/bin/bash","-lc","cat a.txt"],"cwd":"/w","parsed_cmd":[{"type":"read","cmd":"cat a.txt","name":"a.txt","path":"/w/a.txt"}],"source":"agent"}}
{"timestamp":"2026-01-01T00:00:01.300Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"call_1","command":["/bin/bash","-lc","cat a.txt"],"cwd":"/w","stdout":"hi\n","stderr":"","aggregated_output":"hi\n","exit_code":0,"duration":{"secs":0,"nanos":200000000},"formatted_output":"hi\n"}}
{"timestamp":"2026-01-01T00:00:01.400Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"Process exited with code 0\nOutput:\nhi\n"}}
{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}
JSONL
cat >"$out/opencode_export/seed.json" <<'JSON'
{"info":{"id":"ses_a","directory":"/w","title":"t","version":"1.18.33"},"messages":[
 {"info":{"id":"msg_u","sessionID":"ses_a","role":"user"},"parts":[{"id":"prt_t","type":"text","text":"hi"}]},
 {"info":{"id":"msg_a","sessionID":"ses_a","role":"assistant"},"parts":[
  {"id":"prt_1","sessionID":"ses_a","messageID":"msg_a","type":"tool","callID":"call_1","tool":"read","state":{"status":"completed","input":{"filePath":"/w/a.rs","offset":6,"limit":4},"output":"x","title":"a.rs","metadata":{},"time":{"start":1,"end":2}}},
  {"id":"prt_2","sessionID":"ses_a","messageID":"msg_a","type":"tool","callID":"call_2","tool":"bash","state":{"status":"running","input":{"command":"sleep 100"},"time":{"start":3}}}]},
 {"info":{"id":"msg_b","sessionID":"ses_a","role":"assistant","error":{"name":"MessageAbortedError","data":{"message":"Aborted"}}},"parts":[
  {"id":"prt_3","sessionID":"ses_a","messageID":"msg_b","type":"tool","callID":"call_3","tool":"websearch","state":{"status":"running","input":{"query":"top news"},"time":{"start":5}}}]}]}
JSON
mkdir -p "$out/expectations"
cp expectations.toml "$out/expectations/shipped.toml"
cat >"$out/expectations/entry.toml" <<'TOML'
[[known]]
fixture = "claude/spotter_*"
rule = "TN013"
reason = "why this is accepted"
provider = "claude"
issue = "https://example.invalid/1"
TOML
for d in "$out"/*/; do
    echo "$(basename "$d"): $(ls "$d" | wc -l) seeds"
done
