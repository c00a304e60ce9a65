//! droid's session files, `~/.factory/sessions/<cwd slug>/<session id>.jsonl`: a
//! `session_start` line `{id, title, cwd, version: 2}`, then `message` lines `{id, parentId,
//! timestamp, message: {role, content: [blocks]}}` whose blocks are Anthropic's — an assistant's
//! `tool_use` `{id, name, input}`, a user's `tool_result` `{tool_use_id, is_error, content}` —
//! and `agent_turn_outcome` `{turnId, reason}` at each turn's end. Calls carry no time of their
//! own: a part's times are its message lines' `timestamp`s.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::tracker::{Outcome, Tracker};
use crate::model::TimeValue;
use crate::providers::{
    LineNormalizer, NormalizeOptions, PartStore, Probe, line_text, raw_to_value, report_bad_json,
};
use crate::stream::RawLine;

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
    #[serde(borrow, default)]
    reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

/// Normalizes a session file.
pub(crate) struct Normalizer {
    tracker: Tracker,
}

/// The normalizer of one session file (its cwd from `session_start`, else the options).
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::new(opts.cwd, "tool_use"),
    })
}

/// A tool_result's content as text: a string, or the text of its text blocks.
fn content_text(raw: Option<&RawValue>) -> Value {
    match raw.map(raw_to_value) {
        Some(Value::Array(blocks)) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            if texts.len() == blocks.len() {
                Value::String(texts.join("\n"))
            } else {
                Value::Array(blocks)
            }
        }
        Some(v) => v,
        None => Value::String(String::new()),
    }
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = line_text(line, store) else {
            return;
        };
        let l: Line<'_> = match serde_json::from_str(&text) {
            Ok(l) => l,
            Err(err) if err.is_data() => {
                store.warn(line.number, format!("not a droid session line: {err}"));
                return;
            }
            Err(err) => {
                report_bad_json(line, &err, store);
                return;
            }
        };
        let tracker = &mut self.tracker;
        match l.ty.as_deref() {
            Some("session_start") => tracker.set_cwd(l.cwd.as_deref()),
            Some("message") => {
                let Some(content) = l.message.and_then(|m| m.content) else {
                    return;
                };
                // Text-only messages have string content; only arrays hold tool blocks.
                let Ok(blocks) = serde_json::from_str::<Vec<Block<'_>>>(content.get()) else {
                    return;
                };
                let at = l
                    .timestamp
                    .as_deref()
                    .map(|t| TimeValue::Text(t.to_owned()));
                for b in blocks {
                    match b.ty.as_deref() {
                        Some("tool_use") => {
                            let (Some(id), Some(name)) = (b.id.as_deref(), b.name.as_deref())
                            else {
                                store.warn(line.number, "tool_use block without id or name");
                                continue;
                            };
                            let input = b.input.map(raw_to_value).unwrap_or_default();
                            tracker.call(line.number, id, name, input, at.clone(), store);
                        }
                        Some("tool_result") => {
                            let Some(id) = b.tool_use_id.as_deref() else {
                                store.warn(line.number, "tool_result block without tool_use_id");
                                continue;
                            };
                            let value = content_text(b.content);
                            let outcome = if b.is_error == Some(true) {
                                Outcome::Failed(match value {
                                    Value::String(s) => s,
                                    other => other.to_string(),
                                })
                            } else {
                                Outcome::Value(value)
                            };
                            tracker.result(line.number, id, outcome, at.clone(), store);
                        }
                        _ => {}
                    }
                }
            }
            // A turn that did not complete leaves its open calls failed.
            Some("agent_turn_outcome") => match l.reason.as_deref() {
                Some("completed") | None => {}
                Some(other) => tracker.end_turn(
                    line.number,
                    &format!("The turn ended ({other}) before the call finished"),
                    store,
                ),
            },
            Some(_) => {}
            None => store.info(line.number, "line without a `type`; skipped"),
        }
    }

    fn finish(&mut self, store: &mut PartStore) {
        self.tracker.finish(store);
    }
}

/// Recognises a session line: `session_start` with droid's session `version`, a `message`
/// line (`{id, timestamp, message}`, no `session_id`: that is `stream-json`'s), or
/// `agent_turn_outcome`.
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    match p.ty().as_ref() {
        "session_start" => p.has("id") && p.has("version"),
        "message" => p.has("message") && p.has("timestamp") && !p.has("session_id"),
        "agent_turn_outcome" => p.has("turnId"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{ToolKind, ToolState};
    use crate::stream::Dialect;

    #[test]
    fn blocks_become_parts_and_an_interrupted_turn_fails_what_is_open() {
        let doc = crate::dialects::normalize_text(
            concat!(
                r#"{"type":"session_start","id":"s","title":"t","version":2,"cwd":"/w"}"#,
                "\n",
                r#"{"type":"message","id":"m1","timestamp":"2026-12-05T08:57:26.202Z","message":{"role":"assistant","content":[{"type":"text","text":"Go."},{"type":"tool_use","id":"c1","name":"Read","input":{"file_path":"/w/a.md"}},{"type":"tool_use","id":"c2","name":"Execute","input":{"command":"sleep 9"}}]}}"#,
                "\n",
                r#"{"type":"message","id":"m2","timestamp":"2026-12-05T08:57:26.449Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","is_error":false,"content":"A"}]}}"#,
                "\n",
                r#"{"type":"message","id":"m3","timestamp":"2026-12-05T08:57:27Z","message":{"role":"assistant","content":"plain text"}}"#,
                "\n",
                r#"{"type":"agent_turn_outcome","turnId":"u1","reason":"interrupted"}"#,
                "\n",
            ),
            Dialect::DroidSession,
        );
        assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
        let c1 = &doc.parts[0];
        assert_eq!(
            (c1.kind, c1.state, c1.title.as_str()),
            (ToolKind::FileRead, ToolState::Complete, "Reading a.md")
        );
        assert_eq!(c1.output, Some(serde_json::json!("A")));
        let c2 = &doc.parts[1];
        assert_eq!(c2.state, ToolState::Error);
        assert_eq!(c2.error.as_ref().unwrap().code.as_deref(), Some("aborted"));
    }
}
