//! Qwen Code's saved sessions (`~/.qwen/projects/<project>/chats/<session>.jsonl`): one record a
//! line in a Claude-transcript-like envelope (`uuid`, `parentUuid`, `sessionId`, `timestamp`,
//! `type`, `provenance`, `cwd`, `version`) around Gemini's content: an `assistant` record's
//! `message.parts` hold `functionCall {id, name, args}`, a `tool_result` record's
//! `functionResponse {id, name, response: {output} | {error}}` beside `toolCallResult {callId,
//! status, resultDisplay}`; `system` records carry telemetry and attribution snapshots.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::ToolState;
use crate::providers::gemini::tools::Family;
use crate::providers::gemini::tracker::{Outcome, Tracker};
use crate::providers::{LineNormalizer, NormalizeOptions, PartStore, line_text, report_bad_json};
use crate::stream::RawLine;

#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Content<'a>>,
    #[serde(rename = "toolCallResult", borrow, default)]
    tool_call_result: Option<CallResult<'a>>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(borrow, default)]
    parts: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
struct CallResult<'a> {
    #[serde(rename = "callId", borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(rename = "resultDisplay", borrow, default)]
    result_display: Option<&'a RawValue>,
}

pub(crate) struct Normalizer {
    tracker: Tracker,
}

pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::new(Family::Qwen, opts.cwd),
    })
}

impl Normalizer {
    fn record(&mut self, number: u32, r: &Record<'_>, store: &mut PartStore) {
        self.tracker.set_cwd(r.cwd.as_deref());
        let ts = r.timestamp.as_deref();
        let parts: Vec<Value> = r
            .message
            .as_ref()
            .and_then(|m| m.parts.as_ref())
            .into_iter()
            .flatten()
            .filter_map(|p| serde_json::from_str(p.get()).ok())
            .collect();
        match r.ty.as_deref() {
            Some("assistant") => {
                for call in parts.iter().filter_map(|p| p.get("functionCall")) {
                    let (Some(id), Some(name)) = (
                        call.get("id").and_then(Value::as_str),
                        call.get("name").and_then(Value::as_str),
                    ) else {
                        store.warn(number, "a functionCall without id or name; skipped");
                        continue;
                    };
                    let input = call
                        .get("args")
                        .cloned()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| Value::Object(Default::default()));
                    self.tracker.call(
                        number,
                        id,
                        name,
                        input,
                        ToolState::Running,
                        "functionCall",
                        ts,
                        store,
                    );
                }
            }
            Some("tool_result") => {
                for resp in parts.iter().filter_map(|p| p.get("functionResponse")) {
                    let Some(id) = resp
                        .get("id")
                        .and_then(Value::as_str)
                        .or_else(|| r.tool_call_result.as_ref()?.call_id.as_deref())
                    else {
                        store.warn(number, "a functionResponse without id; skipped");
                        continue;
                    };
                    let response = resp.get("response");
                    let error = response
                        .and_then(|r| r.get("error"))
                        .and_then(Value::as_str);
                    let status = r
                        .tool_call_result
                        .as_ref()
                        .and_then(|c| c.status.as_deref());
                    let display = r
                        .tool_call_result
                        .as_ref()
                        .and_then(|c| c.result_display)
                        .and_then(|d| serde_json::from_str::<Value>(d.get()).ok())
                        .and_then(|d| d.as_str().map(str::to_owned));
                    let outcome =
                        if error.is_some() || matches!(status, Some("error" | "cancelled")) {
                            let message = error
                                .map(str::to_owned)
                                .or(display)
                                .unwrap_or_else(|| "the tool call failed".to_owned());
                            match self.tracker.failure(id, message, store) {
                                Outcome::Failed {
                                    message,
                                    code: None,
                                    details,
                                } if status == Some("cancelled") => Outcome::Failed {
                                    message,
                                    code: Some("cancelled".to_owned()),
                                    details,
                                },
                                other => other,
                            }
                        } else {
                            let output = response
                                .and_then(|r| r.get("output"))
                                .and_then(Value::as_str)
                                .map(str::to_owned)
                                .or(display);
                            Outcome::Done {
                                output: output.map(Value::String),
                            }
                        };
                    self.tracker.result(number, id, outcome, ts, store);
                }
            }
            _ => {}
        }
    }
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = line_text(line, store) else {
            return;
        };
        match serde_json::from_str::<Record<'_>>(&text) {
            Ok(r) => self.record(line.number, &r, store),
            Err(err) if err.is_data() => store.warn(
                line.number,
                format!("not a Qwen Code session record: {err}"),
            ),
            Err(err) => report_bad_json(line, &err, store),
        }
    }

    fn finish(&mut self, _: &mut PartStore) {}
}

/// Recognises a session record: the envelope's `sessionId` with Qwen Code's `provenance`, or a
/// Gemini-style `message.parts`.
pub(crate) fn sniff(p: &crate::providers::Probe<'_>) -> bool {
    matches!(
        p.ty().as_ref(),
        "user" | "assistant" | "tool_result" | "system"
    ) && p.has("sessionId")
        && (p.has("provenance") || p.nested_has("message", "parts"))
}

#[cfg(test)]
mod tests {
    use crate::model::ToolState;
    use crate::stream::Dialect;

    #[test]
    fn calls_and_responses_pair_by_id() {
        let doc = crate::dialects::normalize_text(
            concat!(
                r#"{"uuid":"1","sessionId":"s","timestamp":"t","type":"assistant","provenance":"assistant_output","cwd":"/w","message":{"role":"model","parts":[{"functionCall":{"id":"c1","name":"edit","args":{"file_path":"/w/a.js"}}}]}}"#,
                "\n",
                r#"{"uuid":"2","sessionId":"s","timestamp":"t","type":"tool_result","provenance":"tool_result","cwd":"/w","message":{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"edit","response":{"error":"Failed to edit, 0 occurrences found"}}}]},"toolCallResult":{"callId":"c1","status":"error"}}"#,
                "\n",
            ),
            Dialect::QwenSession,
        );
        assert_eq!(doc.parts[0].title, "Editing a.js");
        assert_eq!(doc.parts[0].state, ToolState::Error);
        assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    }
}
