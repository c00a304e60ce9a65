//! `~/.copilot/session-state/<session id>/events.jsonl`: the session's events that are not
//! ephemeral, `session.start` (with the session's `context.cwd`) first, `session.shutdown` last.
//! An `abort` event (`{"reason":"user_initiated"}`) ends what is still running.

use super::tracker::Tracker;
use crate::providers::{LineNormalizer, NormalizeOptions, Probe};

/// The normalizer of one session file.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Tracker::new(opts.cwd))
}

/// Recognises a line of a session file: a session event that is not ephemeral (an ephemeral one
/// is only printed by `--output-format json`).
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    super::tracker::is_event(p) && !p.has("ephemeral")
}
