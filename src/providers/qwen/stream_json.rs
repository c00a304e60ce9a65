//! `qwen -p PROMPT --output-format stream-json` (and the elements of `--output-format json`):
//! Claude Code's stream-json shape with Qwen Code's tools. `system` `init` (`cwd`, `tools`,
//! `qwen_code_version`), `assistant` with `message.content` blocks (`text`, `thinking`,
//! `tool_use {id, name, input}`), `user` with `tool_result {tool_use_id, is_error, content}`,
//! `system` `task_started` / `task_notification` (`data.task_id`, `data.tool_use_id`) for a
//! background subagent, `stream_event` (partial messages; `content_block_start` of a
//! `tool_use`), and the closing `result` (`subtype`, `is_error`, `permission_denials
//! [{tool_name, tool_use_id, tool_input}]`). Every line carries `uuid` right after `type` (and
//! `subtype`), which Claude Code's lines never do: that is how the sniffer tells them apart.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::{ToolMetadata, ToolState};
use crate::providers::gemini::tools::Family;
use crate::providers::gemini::tracker::{Outcome, Tracker};
use crate::providers::{
    LineNormalizer, NormalizeOptions, PartStore, PartUpdate, line_text, report_bad_json,
};
use crate::stream::RawLine;

#[derive(Deserialize)]
pub(super) struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    parent_tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
    #[serde(borrow, default)]
    event: Option<Event<'a>>,
    #[serde(borrow, default)]
    data: Option<TaskData<'a>>,
    #[serde(borrow, default)]
    permission_denials: Option<Vec<Denial<'a>>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
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

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content_block: Option<Block<'a>>,
}

#[derive(Deserialize)]
struct TaskData<'a> {
    #[serde(borrow, default)]
    task_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Denial<'a> {
    #[serde(borrow, default)]
    tool_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_input: Option<&'a RawValue>,
}

/// Normalizes a Qwen Code stream-json stream; its cwd comes from the `init` line.
pub(crate) struct Normalizer {
    pub(super) tracker: Tracker,
}

pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::new(Family::Qwen, opts.cwd),
    })
}

fn blocks(raw: Option<&RawValue>) -> Vec<Block<'_>> {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
        .unwrap_or_default()
}

/// A `tool_result`'s text: a string, or its text blocks joined.
pub(super) fn result_text(raw: Option<&RawValue>) -> Option<String> {
    let v: Value = serde_json::from_str(raw?.get()).ok()?;
    match v {
        Value::String(s) => Some(s),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}

impl Normalizer {
    pub(super) fn apply(&mut self, number: u32, l: &Line<'_>, store: &mut PartStore) {
        let ts = l.timestamp.as_deref();
        let parent = l.parent_tool_use_id.as_deref();
        match l.ty.as_deref() {
            Some("system") => match l.subtype.as_deref() {
                Some("init") => self.tracker.set_cwd(l.cwd.as_deref()),
                Some("task_started") => {
                    let Some(d) = &l.data else { return };
                    if let (Some(tool), Some(task)) =
                        (d.tool_use_id.as_deref(), d.task_id.as_deref())
                        && store.contains(tool)
                    {
                        store.upsert(
                            number,
                            PartUpdate {
                                metadata: Some(ToolMetadata {
                                    task_id: Some(task.to_owned()),
                                    ..ToolMetadata::default()
                                }),
                                ..PartUpdate::new(tool)
                            },
                        );
                    }
                }
                _ => {}
            },
            Some("assistant") => {
                let content = l.message.as_ref().and_then(|m| m.content);
                for b in blocks(content) {
                    if b.ty.as_deref() != Some("tool_use") {
                        continue;
                    }
                    self.tool_use(number, &b, ToolState::Running, parent, ts, store);
                }
            }
            Some("user") => {
                let content = l.message.as_ref().and_then(|m| m.content);
                for b in blocks(content) {
                    if b.ty.as_deref() != Some("tool_result") {
                        continue;
                    }
                    let Some(id) = b.tool_use_id.as_deref() else {
                        store.warn(number, "tool_result without tool_use_id; skipped");
                        continue;
                    };
                    let text = result_text(b.content);
                    let outcome = if b.is_error == Some(true) {
                        let message = text.unwrap_or_else(|| "the tool call failed".to_owned());
                        self.tracker.failure(id, message, store)
                    } else {
                        Outcome::Done {
                            output: text.map(Value::String),
                        }
                    };
                    self.tracker.result(number, id, outcome, ts, store);
                }
            }
            Some("stream_event") => {
                let Some(ev) = &l.event else { return };
                if ev.ty.as_deref() == Some("content_block_start")
                    && let Some(b) = ev
                        .content_block
                        .as_ref()
                        .filter(|b| b.ty.as_deref() == Some("tool_use"))
                    && !b.id.as_deref().is_some_and(|id| store.contains(id))
                {
                    self.tool_use(number, b, ToolState::Started, parent, ts, store);
                }
            }
            Some("result") => {
                for d in l.permission_denials.iter().flatten() {
                    let (Some(id), Some(name)) = (d.tool_use_id.as_deref(), d.tool_name.as_deref())
                    else {
                        continue;
                    };
                    // A call whose result already said why it failed keeps that.
                    if store.get(id).is_some_and(|p| p.state.is_terminal()) {
                        continue;
                    }
                    if !store.contains(id) {
                        let input = d
                            .tool_input
                            .and_then(|r| serde_json::from_str(r.get()).ok())
                            .unwrap_or_else(|| Value::Object(Default::default()));
                        self.tracker.call(
                            number,
                            id,
                            name,
                            input,
                            ToolState::Running,
                            "tool_use",
                            ts,
                            store,
                        );
                    }
                    self.tracker.result(
                        number,
                        id,
                        Outcome::Failed {
                            message: "The permission to run the tool was denied".to_owned(),
                            code: Some("permission_denied".to_owned()),
                            details: None,
                        },
                        ts,
                        store,
                    );
                }
                match l.subtype.as_deref() {
                    Some(sub) if sub.starts_with("error") => store.abort_open(
                        number,
                        &format!("The turn ended ({sub}) before the tool finished"),
                        "aborted",
                    ),
                    _ => store.abort_open(
                        number,
                        "The turn ended before the tool finished",
                        "aborted",
                    ),
                }
            }
            _ => {}
        }
    }

    fn tool_use(
        &mut self,
        number: u32,
        b: &Block<'_>,
        state: ToolState,
        parent: Option<&str>,
        ts: Option<&str>,
        store: &mut PartStore,
    ) {
        let (Some(id), Some(name)) = (b.id.as_deref(), b.name.as_deref()) else {
            store.info(number, "tool_use block without id or name; skipped");
            return;
        };
        let input = b
            .input
            .and_then(|r| serde_json::from_str(r.get()).ok())
            .unwrap_or_else(|| Value::Object(Default::default()));
        self.tracker
            .call(number, id, name, input, state, "tool_use", ts, store);
        if let Some(p) = parent {
            store.upsert(
                number,
                PartUpdate {
                    metadata: Some(ToolMetadata {
                        parent_tool_use_id: Some(p.to_owned()),
                        ..ToolMetadata::default()
                    }),
                    ..PartUpdate::new(id)
                },
            );
        }
    }
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = line_text(line, store) else {
            return;
        };
        match serde_json::from_str::<Line<'_>>(&text) {
            Ok(l) => self.apply(line.number, &l, store),
            Err(err) if err.is_data() => store.warn(
                line.number,
                format!("not a Qwen Code stream-json line: {err}"),
            ),
            Err(err) => report_bad_json(line, &err, store),
        }
    }

    fn finish(&mut self, _: &mut PartStore) {}
}

/// Recognises a stream-json line: a Claude-shaped line whose first key after `type` (and
/// `subtype`) is `uuid` — Qwen Code's writer puts it there, Claude Code's never does — or
/// the `init` line naming Qwen Code's version.
pub(crate) fn sniff(p: &crate::providers::Probe<'_>) -> bool {
    if !matches!(
        p.ty().as_ref(),
        "system" | "assistant" | "user" | "result" | "stream_event"
    ) {
        return false;
    }
    if p.has("qwen_code_version") {
        return true;
    }
    let keys: Vec<&str> = p.keys().take(3).collect();
    let after = match keys.as_slice() {
        ["type", "subtype", third, ..] => Some(*third),
        ["type", second, ..] => Some(*second),
        _ => None,
    };
    after == Some("uuid") && p.has("session_id")
}

#[cfg(test)]
mod tests {
    use crate::model::{ToolKind, ToolState};
    use crate::providers::Probe;
    use crate::stream::Dialect;

    #[test]
    fn qwen_lines_are_told_from_claude_lines() {
        let qwen = r#"{"type":"assistant","uuid":"u","session_id":"s","parent_tool_use_id":null,"message":{"content":[]}}"#;
        let claude = r#"{"type":"assistant","message":{"content":[]},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}"#;
        assert!(super::sniff(&Probe::parse(qwen).unwrap()));
        assert!(!super::sniff(&Probe::parse(claude).unwrap()));
        let init = r#"{"type":"system","subtype":"init","uuid":"u","session_id":"s","cwd":"/w"}"#;
        assert!(super::sniff(&Probe::parse(init).unwrap()));
    }

    #[test]
    fn calls_results_and_denials() {
        let doc = crate::dialects::normalize_text(
            concat!(
                r#"{"type":"system","subtype":"init","uuid":"u","session_id":"s","cwd":"/w","qwen_code_version":"0.24.4"}"#,
                "\n",
                r#"{"type":"assistant","uuid":"a","session_id":"s","parent_tool_use_id":null,"message":{"content":[{"type":"tool_use","id":"c1","name":"read_file","input":{"file_path":"/w/a.md","offset":0,"limit":2}},{"type":"tool_use","id":"c2","name":"run_shell_command","input":{"command":"rm -rf build"}}]}}"#,
                "\n",
                r#"{"type":"user","uuid":"b","session_id":"s","parent_tool_use_id":null,"message":{"content":[{"type":"tool_result","tool_use_id":"c1","is_error":false,"content":"x"},{"type":"tool_result","tool_use_id":"c2","is_error":true,"content":"Qwen Code requires permission to use \"run_shell_command\", but that permission was declined."}]}}"#,
                "\n",
                r#"{"type":"result","subtype":"success","uuid":"r","session_id":"s","is_error":false,"permission_denials":[]}"#,
                "\n",
            ),
            Dialect::QwenStreamJson,
        );
        assert_eq!(doc.parts.len(), 2);
        assert_eq!(doc.parts[0].title, "Reading a.md (lines 1–2)");
        assert_eq!(doc.parts[0].state, ToolState::Complete);
        assert_eq!(doc.parts[1].kind, ToolKind::Bash);
        let e = doc.parts[1].error.as_ref().unwrap();
        assert_eq!(e.code.as_deref(), Some("permission_denied"));
        assert!(doc.parts[1].output.is_none());
    }
}
