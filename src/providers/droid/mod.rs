//! Factory's droid: `droid exec --output-format stream-json` (`stream-json`: `system` `init`,
//! `message`, `tool_call`, `tool_result`, `completion`, `error` lines) and its session files,
//! `~/.factory/sessions/<cwd slug>/<session id>.jsonl` (`session`: `session_start`, then
//! `message` lines whose content holds Anthropic-style `tool_use` / `tool_result` blocks). Both
//! feed the `tracker::Tracker`, which names and titles calls through `tools`.

pub(crate) mod session;
pub(crate) mod stream_json;
mod tools;
mod tracker;
