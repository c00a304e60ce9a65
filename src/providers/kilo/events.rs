//! The `kilo serve` event stream (`/event`, `/global/event`, raw or SSE `data:` lines): OpenCode's
//! `events` format, Kilo's tools.

use super::tools::KILO;
use crate::providers::opencode;
use crate::providers::{LineNormalizer, NormalizeOptions, Probe};

/// The normalizer of one stream.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    opencode::events::new_for(&KILO, opts)
}

/// An event line, as OpenCode's sniffer knows it (reached only when Kilo is asked for).
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    opencode::events::sniff(p)
}
