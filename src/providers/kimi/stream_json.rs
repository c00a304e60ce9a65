//! `kimi --print --output-format stream-json -p PROMPT`: each message of the turn as it is
//! complete (`Message.model_dump_json(exclude_none=True)`): an assistant message with its text and
//! `tool_calls`, then a `tool` message per result; between them a `PlanDisplay` (`{content,
//! file_path}`, the plan `ExitPlanMode` presents) and Kimi's notifications (`{id, category,
//! type, …, severity}`), which hold no call. The user's prompt is not printed.

use super::{is_message, messages::Normalizer};
use crate::providers::{LineNormalizer, NormalizeOptions, Probe};

/// The normalizer of one print-mode output.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer::new(opts.cwd, false))
}

/// Recognises a line of the output: an assistant or tool message, a plan display, a
/// notification.
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    let role = p.str("role");
    (is_message(p) && matches!(role.as_deref(), Some("assistant" | "tool")))
        || (p.has("content") && p.has("file_path") && p.keys().count() == 2)
        || (p.has("category") && p.has("source_kind") && p.has("severity"))
}
