//! Kimi CLI (`kimi-cli` on PyPI, Moonshot AI, 1.x): the messages of a turn that
//! `kimi --print --output-format stream-json -p PROMPT` prints (`stream-json`), and the context
//! it saves for each session (`session`: `~/.kimi/sessions/<work dir hash>/<session id>/
//! context.jsonl`). Both are Kimi's `Message`s, one a line, in the OpenAI chat shape (an
//! assistant message's `tool_calls`, a `tool` message per result); the saved context also holds
//! the user's messages and Kimi's own records (`_system_prompt`, `_checkpoint`, `_usage`), which
//! is what tells the two apart (a piece of a saved context
//! without any of them reads as print mode's output: the same messages). The session folder's
//! `wire.jsonl` and `kimi --wire` are Kimi's wire events (`wire`: `{type, payload}` envelopes, in
//! a timed record or a JSON-RPC message). `kimi acp` speaks ACP, read by the `acp` provider (which
//! asks `tools` here, `acp/kimi.rs`).

mod messages;
pub(crate) mod session;
pub(crate) mod stream_json;
pub(crate) mod tools;
pub(crate) mod wire;

use crate::providers::Probe;

/// The roles of Kimi's messages (what the model sees).
const ROLES: &[&str] = &["assistant", "tool", "user", "system"];

/// Kimi's own records in a saved context (never sent to the model).
const RECORDS: &[&str] = &["_system_prompt", "_checkpoint", "_usage"];

/// A message: a `role` of [`ROLES`] and what that role carries (`content`, `tool_calls`,
/// `tool_call_id`), nothing of another format's envelope (`type`), nor the `injected` flag every
/// message of Vibe's older saved sessions has (the same chat shape, the `vibe session` dialect).
fn is_message(p: &Probe<'_>) -> bool {
    !p.has("type")
        && !p.has("injected")
        && p.str("role").is_some_and(|r| ROLES.contains(&r.as_ref()))
        && (p.has("content") || p.has("tool_calls") || p.has("tool_call_id"))
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod wire_tests;
