//! `kilo export [id]`: OpenCode's export document (`{info, messages: [{info, parts}]}`), Kilo's
//! tools.

use super::tools::KILO;
use crate::providers::opencode;
use crate::providers::{LineNormalizer, NormalizeOptions, Probe};

/// The normalizer of one export (kept whole until the end of the stream, as OpenCode's).
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    opencode::export::new_for(&KILO, opts)
}

/// An export document, as OpenCode's sniffer knows it (reached only when Kilo is asked for).
pub(crate) fn sniff_document(bytes: &[u8]) -> bool {
    opencode::export::sniff_document(bytes)
}

/// Never line by line.
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    opencode::export::sniff(p)
}
