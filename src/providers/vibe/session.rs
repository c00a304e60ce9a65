//! Mistral Vibe's saved session log from before the unified harness (its `AgentLoop`; 2.25.8):
//! `~/.vibe/logs/session/session_<date>_<time>_<id>/messages.jsonl` beside a `meta.json`, every
//! message of the session as the model saw it, one a line (Vibe's `LLMMessage`): `{role, content,
//! injected, message_id, …}`, an assistant message's `tool_calls` (`{id, index, type: "function",
//! function: {name, arguments}, presentation: {kind, display: {summary, …}}}`, the arguments the
//! model's JSON text) and a `tool` message per result (`tool_call_id`, `name`, `content` as the
//! model reads it, and `tool_result: {output, duration, cancelled, presentation: {kind, display:
//! {success, …}}}` when the tool returned). A tool that failed has no `tool_result`: its
//! `content` is `<tool_error>…</tool_error>` (a command's `Return code: N` inside), a cancelled or
//! skipped one `<user_cancellation>…</user_cancellation>`. 3.0 still reads these logs (and
//! resumes them); what it writes is the journal (`journal.rs`).
//!
//! The lines are the OpenAI chat shape Kimi CLI saves too; `injected`, which Vibe writes on every
//! message, tells them apart.

use serde_json::Value;

use crate::model::{Timing, ToolError, ToolMetadata, ToolState};
use crate::providers::acp::vibe::describe;
use crate::providers::{
    LineNormalizer, NormalizeOptions, PartStore, PartUpdate, Probe, first_line, model_arguments,
    nonblank_line_text, report_bad_json, titles,
};
use crate::stream::RawLine;

/// The tags Vibe wraps a failed or cancelled call's result in.
const TOOL_ERROR: &str = "tool_error";
const CANCELLATION: &str = "user_cancellation";

/// The normalizer of one saved session log.
struct Normalizer {
    cwd: Option<String>,
}

pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        cwd: opts.cwd.map(str::to_owned),
    })
}

/// Recognises one of Vibe's messages: a `role` and the `injected` flag every message has.
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    p.has("role")
        && p.raw("injected")
            .is_some_and(|v| matches!(v.get(), "true" | "false"))
}

/// The text inside `<tag>…</tag>` when `content` opens with it.
fn tagged<'c>(content: &'c str, tag: &str) -> Option<&'c str> {
    let rest = content.trim_start().strip_prefix(&format!("<{tag}>"))?;
    Some(rest.split(&format!("</{tag}>")).next().unwrap_or(rest))
}

/// A command's exit code in a `<tool_error>` (`Return code: 3`).
fn return_code(text: &str) -> Option<i64> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Return code:"))
        .and_then(|c| c.trim().parse().ok())
}

/// The part a call of an assistant message opens; `Err` says why it opens none.
fn opened(call: &Value, cwd: Option<&str>) -> Result<PartUpdate, String> {
    let id = titles::nonblank(call, "id").ok_or("a tool call without an id")?;
    let function = call.get("function");
    let name = function
        .and_then(|f| titles::nonblank(f, "name"))
        .ok_or_else(|| format!("tool call {id} without a function name"))?;
    let arguments = function
        .and_then(|f| f.get("arguments"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let input = match model_arguments(arguments) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            return Err(format!(
                "the arguments of {id} ({name}) are not a JSON object"
            ));
        }
    };
    let presentation = call.get("presentation");
    let presented_kind = presentation.and_then(|p| titles::nonblank(p, "kind"));
    let (kind, title) = describe(name, &input, cwd).unwrap_or_else(|| {
        let summary = presentation
            .and_then(|p| p.get("display"))
            .and_then(|d| titles::nonblank(d, "summary"))
            .map(str::to_owned);
        (
            super::kind_of(presented_kind),
            summary.unwrap_or_else(|| name.to_owned()),
        )
    });
    let mut extra = serde_json::Map::new();
    if let Some(k) = presented_kind {
        extra.insert("vibeKind".to_owned(), Value::String(k.to_owned()));
    }
    Ok(PartUpdate {
        name: Some(name.to_owned()),
        kind: Some(kind),
        title: Some(title),
        input: Some(input),
        state: Some(ToolState::Started),
        metadata: Some(ToolMetadata {
            provider_type: Some("function".to_owned()),
            extra,
            ..ToolMetadata::default()
        }),
        ..PartUpdate::new(id)
    })
}

/// How a `tool` message ends its call, with the command's exit code when it names one.
fn outcome(v: &Value) -> (Result<Value, ToolError>, Option<i64>) {
    let content = match v.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    if let Some(text) = tagged(&content, CANCELLATION) {
        let message = first_line(text).unwrap_or_else(|| "cancelled".to_owned());
        return (
            Err(ToolError {
                message,
                code: Some("interrupted".to_owned()),
                details: None,
            }),
            None,
        );
    }
    if let Some(text) = tagged(&content, TOOL_ERROR) {
        let exit = return_code(text);
        let message = first_line(text).unwrap_or_else(|| "the call failed".to_owned());
        let details = (message != text.trim()).then(|| Value::String(text.trim().to_owned()));
        return (
            Err(ToolError {
                message,
                code: exit.map(|c| c.to_string()),
                details,
            }),
            exit,
        );
    }
    let Some(result) = v.get("tool_result").filter(|r| r.is_object()) else {
        return (Ok(Value::String(content)), None);
    };
    let output = result
        .get("output")
        .filter(|o| !o.is_null())
        .cloned()
        .unwrap_or(Value::String(content));
    let exit = output.get("returncode").and_then(Value::as_i64);
    if result.get("cancelled").and_then(Value::as_bool) == Some(true) {
        return (
            Err(ToolError {
                message: "cancelled".to_owned(),
                code: Some("interrupted".to_owned()),
                details: Some(output),
            }),
            exit,
        );
    }
    let success = result
        .pointer("/presentation/display/success")
        .and_then(Value::as_bool);
    if success == Some(false) || exit.is_some_and(|c| c != 0) {
        let message = output
            .get("stderr")
            .and_then(Value::as_str)
            .and_then(first_line)
            .unwrap_or_else(|| "the call failed".to_owned());
        return (
            Err(ToolError {
                message,
                code: exit.filter(|c| *c != 0).map(|c| c.to_string()),
                details: Some(output),
            }),
            exit,
        );
    }
    (Ok(output), exit)
}

impl Normalizer {
    fn message(&self, line: u32, v: &Value, store: &mut PartStore) {
        match v.get("role").and_then(Value::as_str) {
            Some("assistant") => {
                let calls = match v.get("tool_calls") {
                    Some(Value::Array(calls)) => calls.as_slice(),
                    Some(Value::Null) | None => &[],
                    Some(_) => {
                        store.warn(line, "tool_calls that are not a list");
                        return;
                    }
                };
                for call in calls {
                    match opened(call, self.cwd.as_deref()) {
                        Ok(u) => {
                            store.upsert(line, u);
                        }
                        Err(why) => store.warn(line, why),
                    }
                }
            }
            Some("tool") => {
                let Some(id) = titles::nonblank(v, "tool_call_id") else {
                    store.warn(line, "a tool message without a tool_call_id");
                    return;
                };
                if !store.contains(id) {
                    store.warn(line, format!("the result of {id}, a call never made"));
                    return;
                }
                let (result, exit_code) = outcome(v);
                let mut u = PartUpdate::ended(id, result);
                let elapsed = v
                    .pointer("/tool_result/duration")
                    .and_then(Value::as_f64)
                    .filter(|d| d.is_finite() && *d >= 0.0);
                if let Some(seconds) = elapsed {
                    u.timing = Some(Timing {
                        elapsed_ms: Some((seconds * 1000.0).round() as u64),
                        ..Timing::default()
                    });
                }
                if exit_code.is_some() {
                    u.metadata = Some(ToolMetadata {
                        exit_code,
                        ..ToolMetadata::default()
                    });
                }
                store.upsert(line, u);
            }
            Some(_) => {}
            None => store.warn(line, "a message without a role"),
        }
    }
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = nonblank_line_text(line, store) else {
            return;
        };
        match serde_json::from_str::<Value>(&text) {
            Ok(v) if v.is_object() => self.message(line.number, &v, store),
            Ok(_) => store.warn(line.number, "a message that is not an object"),
            Err(e) => report_bad_json(line, &e, store),
        }
    }

    fn finish(&mut self, _: &mut PartStore) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_return_codes() {
        assert_eq!(
            tagged(
                "<tool_error>boom\nReturn code: 3\n</tool_error>",
                TOOL_ERROR
            ),
            Some("boom\nReturn code: 3\n")
        );
        assert_eq!(tagged("fine", TOOL_ERROR), None);
        assert_eq!(return_code("boom\nReturn code: 3\nStderr: x"), Some(3));
        assert_eq!(return_code("Return code: many"), None);
    }
}
