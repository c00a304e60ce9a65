//! `kilo run --format json`: OpenCode's `run` lines (`{type, timestamp, sessionID, part}`), Kilo's
//! tools.

use super::tools::KILO;
use crate::providers::opencode;
use crate::providers::{LineNormalizer, NormalizeOptions, Probe};

/// The normalizer of one stream (its cwd from the options, as for OpenCode's `run`).
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    opencode::run::new_for(&KILO, opts)
}

/// A `run` line, as OpenCode's sniffer knows it (reached only when Kilo is asked for).
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    opencode::run::sniff(p)
}
