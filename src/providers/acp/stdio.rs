//! ACP over stdio: one JSON-RPC 2.0 message per line. Tool calls are `session/update`
//! notifications (`update.sessionUpdate` `tool_call`, then `tool_call_update`s) with `toolCallId`,
//! `title`, `kind`, `status` (`pending`, `in_progress`, `completed`, `failed`), `rawInput`,
//! `rawOutput`, `content` and `locations`; the agent's `session/request_permission` requests carry
//! a `toolCall` too, and the client's answer (`outcome.optionId`, recorded with direction `c`) may
//! reject it. The client's `initialize` response names the agent (`agentInfo`); a
//! `session/prompt` response with `stopReason: "cancelled"` or an error ends the turn.

use crate::providers::{NormalizeOptions, PartStore, Probe};
use crate::stream::Input;

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

/// Normalize recorded ACP traffic.
pub(crate) fn normalize(input: &Input<'_>, _: &NormalizeOptions<'_>, store: &mut PartStore) {
    let mut tracker = Tracker::new();
    for line in &input.lines {
        tracker.line(line, store);
    }
    tracker.finish(store);
}

#[cfg(test)]
#[path = "stdio_tests.rs"]
mod tests;
