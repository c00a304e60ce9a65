//! `vibe -p PROMPT --output streaming`: each history entry of the session as it is done, one
//! compact JSON object a line (see the provider's doc).

use serde_json::Value;

use super::{ENTRY_KEYS, entry};
use crate::providers::{
    LineNormalizer, NormalizeOptions, PartStore, Probe, nonblank_line_text, report_bad_json,
};
use crate::stream::RawLine;

/// The normalizer of one streaming output.
struct Normalizer {
    cwd: Option<String>,
}

pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        cwd: opts.cwd.map(str::to_owned),
    })
}

/// Recognises a line of the output: a history entry (a session, a turn, a generation status
/// and a `type`).
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    ENTRY_KEYS.iter().all(|k| p.has(k)) && matches!(p.ty().as_ref(), "message" | "effect")
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = nonblank_line_text(line, store) else {
            return;
        };
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => entry(store, line.number, &v, self.cwd.as_deref()),
            Err(e) => report_bad_json(line, &e, store),
        }
    }

    fn finish(&mut self, _: &mut PartStore) {}
}
