//! `gemini -p PROMPT --output-format json`: one pretty-printed JSON document written when the run
//! ends, `{session_id, response, stats: {models, tools: {totalCalls, totalSuccess, totalFail,
//! byName: {<tool>: {count, success, fail, durationMs, decisions}}}, files}, error?: {type,
//! message, code}, warnings?}`. It names no call — no id, no arguments, no output — so it gives
//! no part: the normalizer says, in one diagnostic, how many calls of which tool ran and failed,
//! and the run's error if it has one. Its lines are kept until the end of the stream and read
//! then.

use serde::Deserialize;
use serde_json::Value;

use crate::model::DiagnosticLevel;
use crate::providers::{LineNormalizer, NormalizeOptions, PartStore};
use crate::stream::RawLine;

#[derive(Deserialize)]
struct Document {
    #[serde(default)]
    stats: Option<Stats>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Stats {
    #[serde(default)]
    tools: Option<Tools>,
}

#[derive(Deserialize)]
struct Tools {
    #[serde(rename = "byName", default)]
    by_name: InOrder,
}

/// An object's members in the order the agent wrote them, whatever serde_json's `Map` keeps (its
/// order depends on a feature another crate of the build may turn on).
#[derive(Default)]
struct InOrder(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for InOrder {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = InOrder;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<InOrder, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = m.next_entry::<String, Value>()? {
                    members.push(member);
                }
                Ok(InOrder(members))
            }
        }
        d.deserialize_map(Members)
    }
}

/// The document's lines, kept until the end.
#[derive(Default)]
pub(crate) struct Normalizer {
    bytes: Vec<u8>,
    first: Option<u32>,
    /// The last line kept.
    last: u32,
    /// Stop keeping lines past this many bytes (a document of statistics is small).
    over: bool,
}

/// Longest document kept, in bytes.
const MAX_DOCUMENT: usize = 16 << 20;

pub(crate) fn new(_: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer::default())
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
                "the json output is larger than 16 MiB; the rest is not read",
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
        let line = self.first.unwrap_or(1);
        let bytes = std::mem::take(&mut self.bytes);
        let doc: Document = match serde_json::from_slice(&bytes) {
            Ok(d) => d,
            Err(e) => {
                store.diagnostic(
                    ((line as usize + e.line().saturating_sub(1)) as u32).min(self.last.max(line)),
                    DiagnosticLevel::Error,
                    format!("not a Gemini CLI json document: {e}"),
                );
                return;
            }
        };
        let tools = doc.stats.and_then(|s| s.tools).map(|t| t.by_name.0);
        let summary: Vec<String> = tools
            .iter()
            .flatten()
            .map(|(name, v)| {
                let count = v.get("count").and_then(Value::as_u64).unwrap_or(0);
                let fail = v.get("fail").and_then(Value::as_u64).unwrap_or(0);
                if fail > 0 {
                    format!("{name} ×{count} ({fail} failed)")
                } else {
                    format!("{name} ×{count}")
                }
            })
            .collect();
        if !summary.is_empty() {
            store.info(
                line,
                format!(
                    "the json output counts tool calls but names none: {}",
                    summary.join(", ")
                ),
            );
        }
        if let Some(err) = doc.error {
            let msg = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("no message");
            store.info(line, format!("the run failed: {msg}"));
        }
    }
}

/// A json document is recognised whole: `session_id`, `response` or `error`, and `stats`.
pub(crate) fn sniff_document(bytes: &[u8]) -> bool {
    let bytes = bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(bytes)
        .trim_ascii();
    bytes.first() == Some(&b'{')
        && serde_json::from_slice::<Value>(bytes).is_ok_and(|v| {
            v.get("stats").is_some_and(Value::is_object)
                && (v.get("response").is_some() || v.get("error").is_some())
                && v.get("messages").is_none()
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
    fn the_statistics_are_one_diagnostic_and_no_part() {
        let text = "{\n  \"session_id\": \"s\",\n  \"response\": \"ok\",\n  \"stats\": {\"tools\": {\"byName\": {\"read_file\": {\"count\": 2, \"success\": 1, \"fail\": 1}}}}\n}\n";
        assert!(super::sniff_document(text.as_bytes()));
        let doc = crate::dialects::normalize_text(text, Dialect::GeminiJson);
        assert!(doc.parts.is_empty());
        assert_eq!(doc.diagnostics.len(), 1);
        assert!(
            doc.diagnostics[0]
                .message
                .contains("read_file ×2 (1 failed)")
        );
        let cut =
            crate::dialects::normalize_text("{\n  \"session_id\": \"s\",\n", Dialect::GeminiJson);
        assert_eq!(cut.diagnostics[0].line, 2, "the last line there is");
    }
}
