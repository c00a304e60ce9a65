//! `qwen -p PROMPT --output-format json`: the run's stream-json messages (`system`,
//! `assistant`, `user`, `result`) as one JSON array written when the run ends, on one line.
//! Each element is read as the stream-json line it would have been; its lines are kept until
//! the end of the stream and read then.

use serde_json::value::RawValue;

use super::stream_json::{self, Line};
use crate::model::DiagnosticLevel;
use crate::providers::gemini::tools::Family;
use crate::providers::gemini::tracker::Tracker;
use crate::providers::{LineNormalizer, NormalizeOptions, PartStore};
use crate::stream::RawLine;

/// Longest document kept, in bytes.
const MAX_DOCUMENT: usize = 64 << 20;

pub(crate) struct Normalizer {
    inner: stream_json::Normalizer,
    bytes: Vec<u8>,
    first: Option<u32>,
    /// The last line kept.
    last: u32,
    over: bool,
}

pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        inner: stream_json::Normalizer {
            tracker: Tracker::new(Family::Qwen, opts.cwd),
        },
        bytes: Vec::new(),
        first: None,
        last: 0,
        over: false,
    })
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        self.first.get_or_insert(line.number);
        if self.over {
            return;
        }
        if self.bytes.len() + line.bytes.len() > MAX_DOCUMENT {
            self.over = true;
            store.warn(
                line.number,
                "the json output is larger than 64 MiB; the rest is not read",
            );
            return;
        }
        self.bytes.extend_from_slice(line.bytes);
        // No newline after a last line that had none: a parse error at the end then points at
        // that line, not past the input.
        if !line.unterminated {
            self.bytes.push(b'\n');
        }
        self.last = line.number;
    }

    fn finish(&mut self, store: &mut PartStore) {
        let first = self.first.unwrap_or(1);
        let bytes = std::mem::take(&mut self.bytes);
        let items: Vec<&RawValue> = match serde_json::from_slice(&bytes) {
            Ok(items) => items,
            Err(e) => {
                store.diagnostic(
                    ((first as usize + e.line().saturating_sub(1)) as u32)
                        .min(self.last.max(first)),
                    DiagnosticLevel::Error,
                    format!("not a Qwen Code json array: {e}"),
                );
                return;
            }
        };
        for (i, item) in items.into_iter().enumerate() {
            match serde_json::from_str::<Line<'_>>(item.get()) {
                Ok(l) => self.inner.apply(first, &l, store),
                Err(e) => store.warn(first, format!("element {i} is not a message: {e}")),
            }
        }
    }
}

/// A json document is recognised whole: an array whose first element is a stream-json line of
/// Qwen Code (its `init`, or a line with `uuid` after `type`).
pub(crate) fn sniff_document(bytes: &[u8]) -> bool {
    let bytes = bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(bytes)
        .trim_ascii();
    if bytes.first() != Some(&b'[') {
        return false;
    }
    serde_json::from_slice::<Vec<&RawValue>>(bytes).is_ok_and(|items| {
        items.first().is_some_and(|first| {
            crate::providers::Probe::parse(first.get()).is_some_and(|p| stream_json::sniff(&p))
        })
    })
}

/// Never recognised line by line.
pub(crate) fn sniff(_: &crate::providers::Probe<'_>) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use crate::stream::Dialect;

    #[test]
    fn the_array_reads_as_its_messages() {
        let text = concat!(
            r#"[{"type":"system","subtype":"init","uuid":"u","session_id":"s","cwd":"/w","qwen_code_version":"0.24.4"},"#,
            r#"{"type":"assistant","uuid":"a","session_id":"s","message":{"content":[{"type":"tool_use","id":"c1","name":"glob","input":{"pattern":"*.md"}}]}},"#,
            r#"{"type":"user","uuid":"b","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"c1","content":"Found 1"}]}}]"#,
            "\n"
        );
        assert!(super::sniff_document(text.as_bytes()));
        let doc = crate::dialects::normalize_text(text, Dialect::QwenJson);
        assert_eq!(doc.parts.len(), 1);
        assert_eq!(doc.parts[0].title, "Finding files matching *.md");
        let cut = crate::dialects::normalize_text("[{\"type\":\"system\"", Dialect::QwenJson);
        assert_eq!(cut.diagnostics.len(), 1);
    }
}
