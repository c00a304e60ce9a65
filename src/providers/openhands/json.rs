//! `openhands --headless --json -t TASK`: each event the conversation records (all but the
//! system prompt) printed as `json.dumps(event.model_dump())` on a line of its own, between the
//! CLI's console lines (`Agent is working`, the summary box), which are skipped. The events are
//! read by the shared tracker (see `tracker`).

use super::{Normalizer, dumped_by_python, is_event, tracker::Tracker};
use crate::providers::{LineNormalizer, NormalizeOptions, Probe};

/// The normalizer of one `--json` output.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::new(opts.cwd),
        console: true,
    })
}

/// Recognises an event written by Python's `json.dumps` (or one that does not show how it was
/// written).
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    is_event(p) && dumped_by_python(p) != Some(false)
}
