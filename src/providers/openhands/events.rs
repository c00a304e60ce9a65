//! A saved OpenHands conversation: `~/.openhands/conversations/<id>/events/`, one file per event
//! (`event-00000-<event id>.json`, pydantic's compact JSON without `null` fields), the first a
//! `SystemPromptEvent`. `toolnorm import` joins the folder in event order, one event a line; a
//! subagent's conversation (`<id>/subagents/<sub id>/events/`) is a fixture of its own. The
//! events are read by the shared tracker (see `tracker`).

use super::{Normalizer, dumped_by_python, is_event, tracker::Tracker};
use crate::providers::{LineNormalizer, NormalizeOptions, Probe};

/// The normalizer of one saved conversation.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::new(opts.cwd),
        console: false,
    })
}

/// Recognises an event in pydantic's compact JSON (or one that does not show how it was
/// written).
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    is_event(p) && dumped_by_python(p) != Some(true)
}
