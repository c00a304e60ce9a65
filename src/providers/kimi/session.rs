//! A saved Kimi session's context, `~/.kimi/sessions/<work dir hash>/<session id>/context.jsonl`:
//! every message of the session as the model sees it, one a line (the user's, the assistant's
//! with their `tool_calls`, a `tool` message per result), among Kimi's own records:
//! `{"role": "_system_prompt", "content"}` (first), `{"role": "_checkpoint", "id"}` before each
//! step, `{"role": "_usage", "token_count"}` after it. The system prompt says the working
//! directory (`The current working directory is `<dir>`.`), which places paths when the stream's
//! header does not. A subagent's context is a file of its own (`subagents/<id>/context.jsonl`).

use super::{RECORDS, is_message, messages::Normalizer};
use crate::providers::{LineNormalizer, NormalizeOptions, Probe};

/// The normalizer of one saved context.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer::new(opts.cwd, true))
}

/// Recognises a line of a saved context: a message of any role, or one of Kimi's records.
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    is_message(p)
        || (!p.has("type") && p.str("role").is_some_and(|r| RECORDS.contains(&r.as_ref())))
}
