//! ACP over stdio: one JSON-RPC 2.0 message per line. Tool calls are `session/update`
//! notifications (`update.sessionUpdate` `tool_call`, then `tool_call_update`s) with `toolCallId`,
//! `title`, `kind`, `status` (`pending`, `in_progress`, `completed`, `failed`), `rawInput`,
//! `rawOutput`, `content` and `locations`; the agent's `session/request_permission` requests carry
//! a `toolCall` too, and the client's answer (`outcome.optionId`, recorded with direction `c`) may
//! reject it. The client's `initialize` response names the agent (`agentInfo`); a
//! `session/prompt` response with `stopReason: "cancelled"` or an error ends the turn.

use crate::providers::{LineNormalizer, NormalizeOptions, PartStore, Probe};
use crate::stream::RawLine;

use super::tracker::Tracker;

/// An ACP line: a `session/…` method (`session/update`, `session/prompt`, …), ACP's client
/// callbacks (`fs/…`, `terminal/…`), or an `initialize` that names a `protocolVersion`.
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    match p.str("method") {
        Some(m) => {
            m.starts_with("session/")
                || m.starts_with("fs/")
                || m.starts_with("terminal/")
                || (m == "initialize" && p.nested_has("params", "protocolVersion"))
        }
        None => false,
    }
}

/// The per-line normalizer of recorded ACP traffic.
pub(crate) fn new(_: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Tracker::new())
}

impl LineNormalizer for Tracker {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        Tracker::line(self, line, store);
    }

    fn finish(&mut self, store: &mut PartStore) {
        Tracker::finish(self, store);
    }
}

#[cfg(test)]
#[path = "stdio_tests.rs"]
mod tests;
