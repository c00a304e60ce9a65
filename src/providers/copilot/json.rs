//! `copilot -p PROMPT --output-format json`: the session's events, one per line, ephemeral ones
//! (`"ephemeral": true`) included, then `{"type":"result","sessionId","exitCode",…}`.

use super::tracker::Tracker;
use crate::providers::{LineNormalizer, NormalizeOptions, Probe};

/// The normalizer of one stream.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Tracker::new(opts.cwd))
}

/// Recognises a line of the stream: any session event but those only the session file keeps
/// (`session.start`, `session.shutdown`, the `system.message` prompt), or the closing `result`.
/// An ephemeral event is only ever printed, never kept: it names this dialect.
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    let ty = p.ty();
    (super::tracker::is_event(p)
        && !matches!(
            ty.as_ref(),
            "session.start" | "session.shutdown" | "system.message"
        ))
        || (ty == "result" && p.has("sessionId") && p.has("exitCode"))
}
