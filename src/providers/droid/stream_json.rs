//! `droid exec --output-format stream-json`: one JSON object per line, `session_id` on each.
//! `{"type":"system","subtype":"init","cwd",…}` opens it; `tool_call` `{id, toolId, toolName,
//! parameters, timestamp}` is a call (running at once), `tool_result` `{id, isError, value |
//! error: {type, message}, timestamp}` its outcome; `message` (user and assistant text) and
//! `completion` (the final answer) say nothing of tools; `error` `{source, message}` ends the run
//! early (a refused permission), leaving any call without a result failed.

use std::borrow::Cow;

use serde::Deserialize;
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
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(rename = "toolName", borrow, default)]
    tool_name: Option<Cow<'a, str>>,
    #[serde(rename = "toolId", borrow, default)]
    tool_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    parameters: Option<&'a RawValue>,
    #[serde(rename = "isError", default)]
    is_error: Option<bool>,
    #[serde(borrow, default)]
    value: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    #[serde(default)]
    timestamp: Option<f64>,
}

/// Normalizes a `stream-json` stream.
pub(crate) struct Normalizer {
    tracker: Tracker,
}

/// The normalizer of one stream (its cwd comes from the `init` line, else the options).
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::new(opts.cwd, "tool_call"),
    })
}

/// An error as the text of its `message` (a string, or `{message}`), else the raw JSON.
fn error_text(raw: Option<&RawValue>) -> String {
    match raw.map(raw_to_value) {
        Some(serde_json::Value::String(s)) => s,
        Some(v @ serde_json::Value::Object(_)) => match v.get("message").and_then(|m| m.as_str()) {
            Some(m) => m.to_owned(),
            None => v.to_string(),
        },
        Some(serde_json::Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn millis(t: Option<f64>) -> Option<TimeValue> {
    t.filter(|t| t.is_finite())
        .map(|t| TimeValue::Millis(t as i64))
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = line_text(line, store) else {
            return;
        };
        let l: Line<'_> = match serde_json::from_str(&text) {
            Ok(l) => l,
            Err(err) if err.is_data() => {
                store.warn(line.number, format!("not a droid stream-json event: {err}"));
                return;
            }
            Err(err) => {
                report_bad_json(line, &err, store);
                return;
            }
        };
        let tracker = &mut self.tracker;
        match l.ty.as_deref() {
            Some("system") => {
                if l.subtype.as_deref() == Some("init") {
                    tracker.set_cwd(l.cwd.as_deref());
                }
            }
            Some("tool_call") => {
                let (Some(id), Some(name)) = (
                    l.id.as_deref().filter(|i| !i.is_empty()),
                    l.tool_name.as_deref().or(l.tool_id.as_deref()),
                ) else {
                    store.warn(
                        line.number,
                        "tool_call without an id or a tool name; skipped",
                    );
                    return;
                };
                let input = l.parameters.map(raw_to_value).unwrap_or_default();
                tracker.call(line.number, id, name, input, millis(l.timestamp), store);
            }
            Some("tool_result") => {
                let Some(id) = l.id.as_deref().filter(|i| !i.is_empty()) else {
                    store.warn(line.number, "tool_result without an id; skipped");
                    return;
                };
                let outcome = if l.is_error == Some(true) || l.error.is_some() {
                    Outcome::Failed(error_text(l.error.or(l.value)))
                } else {
                    Outcome::Value(l.value.map(raw_to_value).unwrap_or_default())
                };
                tracker.result(line.number, id, outcome, millis(l.timestamp), store);
            }
            Some("error") => {
                let why = error_text(l.message);
                store.info(line.number, format!("the run ended early: {why}"));
                tracker.end_turn(line.number, "The run ended before the call finished", store);
            }
            // message, completion, and what later releases add: nothing about tools.
            Some(_) => {}
            None => store.info(line.number, "line without a `type`; skipped"),
        }
    }

    fn finish(&mut self, store: &mut PartStore) {
        self.tracker.finish(store);
    }
}

/// Recognises a `stream-json` line: a droid event type with its `session_id`, or the `init`
/// line, told from Claude Code's `init` by its `reasoning_effort` and the `uuid` it lacks.
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    let ty = p.ty();
    p.has("session_id")
        && (matches!(
            ty.as_ref(),
            "tool_call" | "tool_result" | "message" | "completion" | "error"
        ) || (ty == "system" && p.has("reasoning_effort") && !p.has("uuid")))
}

#[cfg(test)]
mod tests {
    use crate::model::{ToolKind, ToolState};
    use crate::stream::Dialect;

    fn run(text: &str) -> crate::model::NormalizedDocument {
        crate::dialects::normalize_text(text, Dialect::DroidStreamJson)
    }

    #[test]
    fn calls_results_failures_and_an_early_end() {
        let doc = run(concat!(
            r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["Execute"]}"#,
            "\n",
            r#"{"type":"tool_call","id":"c1","toolId":"Execute","toolName":"Execute","parameters":{"command":"sh greet.sh"},"timestamp":100,"session_id":"s"}"#,
            "\n",
            r#"{"type":"tool_result","id":"c1","toolId":"Execute","isError":false,"value":"hi\n\n\n[Process exited with code 0]","timestamp":160,"session_id":"s"}"#,
            "\n",
            // A result before its call: it waits.
            r#"{"type":"tool_result","id":"c3","toolId":"Create","isError":false,"value":"{\"success\":true}","timestamp":300,"session_id":"s"}"#,
            "\n",
            r#"{"type":"tool_call","id":"c3","toolName":"Create","parameters":{"file_path":"/w/a.txt","content":"x"},"timestamp":250,"session_id":"s"}"#,
            "\n",
            r#"{"type":"tool_call","id":"c2","toolName":"Execute","parameters":{"command":"rm -rf build"},"timestamp":400,"session_id":"s"}"#,
            "\n",
            r#"{"type":"error","source":"cli","message":"Exec ended early: insufficient permission to proceed.","timestamp":500,"session_id":"s"}"#,
            "\n",
            r#"{"type":"tool_result","id":"gone","isError":false,"value":"x","session_id":"s"}"#,
            "\n",
        ));
        let by = |id: &str| doc.parts.iter().find(|p| p.id == id).unwrap();
        let c1 = by("c1");
        assert_eq!(
            (c1.kind, c1.state, c1.title.as_str()),
            (ToolKind::Bash, ToolState::Complete, "Running sh greet.sh")
        );
        assert_eq!(c1.metadata.as_ref().unwrap().exit_code, Some(0));
        assert_eq!(c1.timing.as_ref().unwrap().elapsed_ms, Some(60));
        let c3 = by("c3");
        assert_eq!(
            (c3.state, c3.title.as_str()),
            (ToolState::Complete, "Creating a.txt")
        );
        assert_eq!(c3.output, Some(serde_json::json!({"success": true})));
        let c2 = by("c2");
        assert_eq!(c2.state, ToolState::Error);
        assert_eq!(c2.error.as_ref().unwrap().code.as_deref(), Some("aborted"));
        let messages: Vec<&str> = doc.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with("the run ended early")),
            "{messages:?}"
        );
        assert!(messages.iter().any(|m| m.contains("gone")), "{messages:?}");
    }

    #[test]
    fn bad_lines_are_diagnostics_with_their_line() {
        let doc = run(concat!(
            r#"{"type":"tool_call","id":"c1","toolName":"Read","parameters":{"file_path":"a"},"session_id":"s"}"#,
            "\n",
            "not json\n",
            r#"{"type":"tool_call","session_id":"s"}"#,
            "\n",
            r#"{"type":"tool_result","id":"c1","isError":true,"error":{"type":"tool_error","message":"Error: File not found"},"session_id":"s"}"#,
            "\n",
            r#"{"type":"tool_call","id":"c9","toolName":"Rea"#,
        ));
        assert_eq!(doc.parts.len(), 1);
        assert_eq!(
            doc.parts[0].error.as_ref().unwrap().message,
            "File not found"
        );
        let lines: Vec<u32> = doc.diagnostics.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![2, 3, 5]);
    }
}
