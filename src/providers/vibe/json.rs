//! `vibe -p PROMPT --output json`: every history entry of the session in one pretty-printed JSON
//! array, printed when the run ends (see the provider's doc). Its lines are kept until the end
//! of the stream; each part's events point at the line where its entry's id is written.

use serde_json::Value;

use super::{ENTRY_KEYS, entry};
use crate::providers::document::{Kept, LineFinder, report_parse_error};
use crate::providers::{LineNormalizer, NormalizeOptions, PartStore, Probe};
use crate::stream::RawLine;

/// The output's lines, kept until the end of the stream.
struct Normalizer {
    cwd: Option<String>,
    kept: Kept,
}

pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        cwd: opts.cwd.map(str::to_owned),
        kept: Kept::default(),
    })
}

/// Recognises the output: one JSON array whose first element is a history entry (an empty
/// array, a run that recorded nothing, names no dialect).
pub(crate) fn sniff_document(bytes: &[u8]) -> bool {
    let bytes = bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(bytes)
        .trim_ascii();
    bytes.first() == Some(&b'[')
        && serde_json::from_slice::<Vec<Value>>(bytes).is_ok_and(|entries| {
            entries
                .first()
                .is_some_and(|e| ENTRY_KEYS.iter().all(|k| e.get(k).is_some()))
        })
}

/// The output is recognised as a whole document only ([`sniff_document`]).
pub(crate) fn sniff(_: &Probe<'_>) -> bool {
    false
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, _: &mut PartStore) {
        self.kept.push(line);
    }

    fn finish(&mut self, store: &mut PartStore) {
        let (bytes, starts) = self.kept.take();
        let whole = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        if whole.trim_ascii().is_empty() {
            return;
        }
        let entries: Vec<Value> = match serde_json::from_slice(whole) {
            Ok(e) => e,
            Err(e) => {
                report_parse_error("Vibe's json output", &e, store);
                return;
            }
        };
        let mut finder = LineFinder::new(whole, starts);
        for v in &entries {
            let line = match v.get("id").and_then(Value::as_str) {
                Some(id) => finder.line_of(id),
                None => 1,
            };
            entry(store, line, v, self.cwd.as_deref());
        }
    }
}
