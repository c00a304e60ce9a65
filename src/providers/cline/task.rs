//! Cline's saved task: `~/.cline/data/sessions/<id>/<id>.messages.json`, one pretty-printed JSON
//! document `{version, sessionId, agent, origin, messages: [{id, role, content: [block], ts}],
//! system_prompt}`. An assistant message's `tool_use` blocks (`id`, `name`, `input`) are the
//! calls; a user message's `tool_result` blocks (`tool_use_id`, `content`, `is_error`) their
//! results, a result that was an object kept as its JSON text. The task file has no cwd (the
//! session's `<id>.json` beside it has), so paths are shown relative to the fixture's.

use serde::Deserialize;
use serde_json::Value;

use super::tools;
use crate::hash::HashSet;
use crate::model::{TimeValue, Timing, ToolState};
use crate::providers::document::{Kept, LineFinder, report_parse_error, sniff_object};
use crate::providers::{LineNormalizer, NormalizeOptions, PartStore, Probe};
use crate::stream::RawLine;

#[derive(Deserialize)]
struct Task {
    #[serde(default)]
    messages: Vec<Message>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    ts: Option<Value>,
}

/// The task file's lines, kept until the end of the stream.
struct Normalizer {
    cwd: Option<String>,
    kept: Kept,
}

/// The normalizer of one task file.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        cwd: opts.cwd.map(str::to_owned),
        kept: Kept::default(),
    })
}

/// Recognises a task file: one JSON document with `sessionId`, a `messages` array and the
/// `origin` of the session (`{source, mode, sessionId, version}`), which a Gemini CLI session
/// document does not have.
pub(crate) fn sniff_document(bytes: &[u8]) -> bool {
    sniff_object(bytes, |v| {
        v.get("sessionId").is_some_and(Value::is_string)
            && v.get("messages").is_some_and(Value::is_array)
            && v.get("origin").is_some_and(Value::is_object)
    })
}

/// A task file is recognised as a whole document only ([`sniff_document`]).
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
        let task: Task = match serde_json::from_slice(whole) {
            Ok(t) => t,
            Err(e) => {
                report_parse_error("Cline task file", &e, store);
                return;
            }
        };
        let mut finder = LineFinder::new(whole, starts);
        let mut open: HashSet<String> = HashSet::default();
        for message in &task.messages {
            let Some(Value::Array(blocks)) = &message.content else {
                continue;
            };
            let at = match &message.ts {
                Some(Value::Number(n)) => n.as_i64().map(TimeValue::Millis),
                Some(Value::String(t)) => Some(TimeValue::Text(t.clone())),
                _ => None,
            };
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("tool_use") if message.role.as_deref() == Some("assistant") => {
                        let (Some(id), Some(name)) = (
                            block.get("id").and_then(Value::as_str),
                            block.get("name").and_then(Value::as_str),
                        ) else {
                            store.warn(finder.line_of("tool_use"), "tool_use without id or name");
                            continue;
                        };
                        let line = finder.line_of(id);
                        let mut u = tools::opened(
                            id,
                            name,
                            block.get("input").cloned(),
                            self.cwd.as_deref(),
                            ToolState::Started,
                            "tool_use",
                            None,
                        );
                        u.timing = at.clone().map(|t| Timing {
                            started_at: Some(t),
                            ..Timing::default()
                        });
                        store.upsert(line, u);
                        open.insert(id.to_owned());
                    }
                    Some("tool_result") => {
                        let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
                            store.warn(
                                finder.line_of("tool_result"),
                                "tool_result without a tool_use_id",
                            );
                            continue;
                        };
                        let line = finder.line_of(id);
                        if !open.remove(id) {
                            store.warn(
                                line,
                                format!("tool_result for {id}, which was never called"),
                            );
                            continue;
                        }
                        let is_error = block.get("is_error") == Some(&Value::Bool(true));
                        let content = block.get("content").cloned().unwrap_or_default();
                        let mut u = crate::providers::PartUpdate::ended(
                            id,
                            tools::outcome(content, None, is_error),
                        );
                        u.timing = at.clone().map(|t| Timing {
                            completed_at: Some(t),
                            ..Timing::default()
                        });
                        store.upsert(line, u);
                    }
                    _ => {}
                }
            }
        }
    }
}
