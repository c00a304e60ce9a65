//! A saved Kimi session's context, `~/.kimi/sessions/<work dir hash>/<session id>/context.jsonl`:
//! every message of the session as the model sees it, one a line (the user's, the assistant's
//! with their `tool_calls`, a `tool` message per result), among Kimi's own records:
//! `{"role": "_system_prompt", "content"}` (first), `{"role": "_checkpoint", "id"}` before each
//! step, `{"role": "_usage", "token_count"}` after it. The system prompt says the working
//! directory (``The current working directory is `<dir>`.``), which places paths when the stream's
//! header does not. A subagent's context is a file of its own (`subagents/<id>/context.jsonl`).

use super::{RECORDS, is_message, messages::Normalizer};
use crate::providers::{LineNormalizer, NormalizeOptions, Probe};

/// The normalizer of one saved context.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer::new(opts.cwd, true))
}

/// Recognises what only a saved context holds: one of Kimi's records (the first line is its
/// `_system_prompt`) or a user's or system message. Its assistant and tool messages are print
/// mode's lines byte for byte, so they are left to `stream-json`'s sniffer: a stream is decided at
/// its first line, and a piece of a context without those lines reads as print mode's output (the
/// same parts; only the working directory the system prompt names is missing).
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    let role = p.str("role");
    (is_message(p) && matches!(role.as_deref(), Some("user" | "system")))
        || (!p.has("type") && role.is_some_and(|r| RECORDS.contains(&r.as_ref())))
}
