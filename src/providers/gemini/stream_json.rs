//! `gemini -p PROMPT --output-format stream-json`: one JSON object a line, `type` one of `init`
//! (`session_id`, `model`), `message` (`role`, `content`, `delta`), `tool_use` (`tool_name`,
//! `tool_id`, `parameters`), `tool_result` (`tool_id`, `status` `success` | `error`, `output`
//! — the CLI's display text, absent when it is not text — and `error {type, message}`), `error`
//! (`severity`, `message`: a warning or a loop) and the closing `result` (`status`, `stats`, and
//! `error {type, message}` when the run failed). The call id is Gemini CLI's own
//! (`<tool>__<model call id>` since 0.5x, `<tool>-<ms>-<hex>` when the model gave none). A
//! subagent's own calls are not in the stream: `invoke_agent` is one part. An interrupted run
//! (SIGINT) ends without a `tool_result` or a `result`: its open part stays running, as nothing
//! says it ended.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::tools::Family;
use super::tracker::{Outcome, Tracker};
use crate::model::ToolState;
use crate::providers::{
    LineNormalizer, NormalizeOptions, PartStore, line_text, raw_to_value, report_bad_json,
};
use crate::stream::RawLine;

#[derive(Deserialize)]
pub(super) struct ErrorWire<'a> {
    #[serde(rename = "type", borrow, default)]
    pub ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub message: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    parameters: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    output: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    error: Option<ErrorWire<'a>>,
    #[serde(borrow, default)]
    severity: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
}

/// Normalizes a Gemini CLI stream-json stream (the stream never says its cwd: the options'
/// is used).
pub(crate) struct Normalizer {
    tracker: Tracker,
}

pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::new(Family::Gemini, opts.cwd),
    })
}

/// A `tool_result` as the tracker's outcome: `status: "error"` (or an `error` object) fails the
/// call with the error's message and type; otherwise the display text is the output.
pub(super) fn outcome(
    status: Option<&str>,
    output: Option<&str>,
    error: Option<&ErrorWire<'_>>,
) -> Outcome {
    let failed = status == Some("error") || error.is_some();
    if !failed {
        return Outcome::Done {
            output: output.map(|o| serde_json::Value::String(o.to_owned())),
        };
    }
    let message = error
        .and_then(|e| e.message.as_deref())
        .or(output)
        .unwrap_or("the tool call failed")
        .to_owned();
    Outcome::Failed {
        message,
        code: error.and_then(|e| e.ty.as_deref()).map(str::to_owned),
        details: None,
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
                store.warn(
                    line.number,
                    format!("not a Gemini CLI stream-json event: {err}"),
                );
                return;
            }
            Err(err) => {
                report_bad_json(line, &err, store);
                return;
            }
        };
        let ts = l.timestamp.as_deref();
        match l.ty.as_deref() {
            Some("tool_use") => match (l.tool_id.as_deref(), l.tool_name.as_deref()) {
                (Some(id), Some(name)) => {
                    let input = l
                        .parameters
                        .map(raw_to_value)
                        .filter(|v| !v.is_null())
                        .unwrap_or_else(|| serde_json::Value::Object(Default::default()));
                    self.tracker.call(
                        line.number,
                        id,
                        name,
                        input,
                        ToolState::Running,
                        "tool_use",
                        ts,
                        store,
                    );
                }
                _ => store.warn(
                    line.number,
                    "tool_use without tool_id or tool_name; skipped",
                ),
            },
            Some("tool_result") => match l.tool_id.as_deref() {
                Some(id) => {
                    let o = outcome(l.status.as_deref(), l.output.as_deref(), l.error.as_ref());
                    self.tracker.result(line.number, id, o, ts, store);
                }
                None => store.warn(line.number, "tool_result without tool_id; skipped"),
            },
            Some("error") => {
                let sev = l.severity.as_deref().unwrap_or("error");
                let msg = l.message.as_deref().unwrap_or("no message");
                store.info(line.number, format!("CLI {sev}: {msg}"));
            }
            Some("result") => {
                if l.status.as_deref() == Some("error") {
                    let msg = l
                        .error
                        .as_ref()
                        .and_then(|e| e.message.as_deref())
                        .unwrap_or("The run failed");
                    store.abort_open(
                        line.number,
                        &format!("The run ended before the tool finished: {msg}"),
                        "aborted",
                    );
                } else {
                    store.abort_open(
                        line.number,
                        "The run ended before the tool finished",
                        "aborted",
                    );
                }
            }
            // init, message: no tool state.
            Some(_) => {}
            None => store.info(line.number, "line without a `type`; skipped"),
        }
    }

    fn finish(&mut self, _: &mut PartStore) {}
}

/// Recognises a stream-json line from its type and the keys only Gemini CLI's lines have.
pub(crate) fn sniff(p: &crate::providers::Probe<'_>) -> bool {
    match p.ty().as_ref() {
        "tool_use" => p.has("tool_name") && p.has("tool_id"),
        "tool_result" => p.has("tool_id") && p.has("status"),
        "init" => p.has("session_id") && p.has("model") && !p.has("subtype"),
        "message" => p.has("role") && p.has("content") && p.has("timestamp") && !p.has("message"),
        "result" => p.has("stats") && p.has("status") && !p.has("subtype"),
        "error" => p.has("severity") && p.has("message"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{ToolKind, ToolState};
    use crate::stream::Dialect;

    fn run(text: &str) -> crate::model::NormalizedDocument {
        crate::dialects::normalize_text(text, Dialect::GeminiStreamJson)
    }

    #[test]
    fn a_call_and_its_results_become_parts_with_errors_apart() {
        let doc = run(concat!(
            r#"{"type":"init","timestamp":"t0","session_id":"s","model":"m"}"#,
            "\n",
            r#"{"type":"tool_use","timestamp":"t1","tool_name":"read_file","tool_id":"read_file__c1","parameters":{"file_path":"a.md"}}"#,
            "\n",
            r#"{"type":"tool_use","timestamp":"t1","tool_name":"mcp_amalgm_browser_snapshot","tool_id":"m__c2","parameters":{}}"#,
            "\n",
            r#"{"type":"tool_result","timestamp":"t2","tool_id":"read_file__c1","status":"error","output":"File not found.","error":{"type":"file_not_found","message":"File not found: a.md"}}"#,
            "\n",
            r#"{"type":"tool_result","timestamp":"t2","tool_id":"m__c2","status":"success","output":"- document"}"#,
            "\n",
            r#"{"type":"tool_result","tool_id":"nope","status":"success"}"#,
            "\n",
            r#"{"type":"result","timestamp":"t3","status":"success","stats":{}}"#,
            "\n",
        ));
        assert_eq!(doc.parts.len(), 2);
        let read = &doc.parts[0];
        assert_eq!(
            (read.kind, read.state),
            (ToolKind::FileRead, ToolState::Error)
        );
        assert_eq!(read.title, "Reading a.md");
        assert!(read.output.is_none());
        let err = read.error.as_ref().unwrap();
        assert_eq!(err.message, "File not found: a.md");
        assert_eq!(err.code.as_deref(), Some("file_not_found"));
        let mcp = &doc.parts[1];
        assert_eq!(mcp.name, "browser_snapshot");
        assert_eq!(mcp.kind, ToolKind::Browser);
        assert_eq!(
            mcp.metadata.as_ref().unwrap().mcp.as_ref().unwrap().server,
            "amalgm"
        );
        assert_eq!(mcp.state, ToolState::Complete);
        assert_eq!(doc.diagnostics.len(), 1, "{:?}", doc.diagnostics);
        assert_eq!(doc.diagnostics[0].line, 6);
    }

    #[test]
    fn an_interrupted_stream_leaves_its_call_running_and_a_failed_run_aborts_it() {
        let cut = run(
            r#"{"type":"tool_use","timestamp":"t1","tool_name":"run_shell_command","tool_id":"c","parameters":{"command":"sleep 30"}}"#,
        );
        assert_eq!(cut.parts[0].state, ToolState::Running);
        assert_eq!(cut.parts[0].title, "Running sleep 30");
        let failed = run(concat!(
            r#"{"type":"tool_use","tool_name":"run_shell_command","tool_id":"c","parameters":{"command":"x"}}"#,
            "\n",
            r#"{"type":"result","status":"error","error":{"type":"FatalTurnLimitedError","message":"limit"},"stats":{}}"#,
            "\n",
        ));
        assert_eq!(failed.parts[0].state, ToolState::Error);
        assert_eq!(
            failed.parts[0].error.as_ref().unwrap().code.as_deref(),
            Some("aborted")
        );
    }
}
