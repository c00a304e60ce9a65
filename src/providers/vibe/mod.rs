//! Mistral Vibe's native formats. Headless mode (`vibe -p PROMPT`, 3.0's Rust harness `vibe-rs`)
//! prints the session's history entries, each as it is done (`--output streaming`, dialect
//! `streaming`, one compact entry a line) or all when the run ends (`--output json`, dialect
//! `json`, one pretty-printed array); the session journal every 3.0 session leaves holds the same
//! entries inside its records (`journal.rs`); the older loop (2.25.8) saved sessions as chat messages
//! (`session.rs`, a shape of its own). The entries are `{id, sessionId, turnId, inputEntryId,
//! createdAt, updatedAt, generationStatus, relatedEntryId, type, …}`:
//!
//! - `type: "message"` (`role`, `content` blocks): the user's prompt and the assistant's text;
//!   no call;
//! - `type: "effect"`: one tool call, `{title, detail: {toolName, kind, input, display}, state}`.
//!   `detail.toolName` is the harness's own name of the tool (`file_system.bash`,
//!   `file_system.search_replace`, `vibe.todo`, `self.wait`); the model knows it by its
//!   declared name (`bash`, `edit`, `todo`, `wait`), which the part gets, with Vibe's tool
//!   table's kind and title (`acp/vibe.rs`, shared with `vibe-acp`'s calls). `state.status` is
//!   `completed` (`output`, `outputText`, `display.success`: false for a command that exited
//!   non-zero, whose exit code is not written), `failed` (`error: {code, message}`),
//!   `cancelled` and `skipped` (`reason`), or `pending`, `running` and `blocked` (waiting for an
//!   approval) for a call the run left unfinished.
//!
//! Other entry types (`callback`, hook notices) hold no call and are skipped.
//!
//! The session journal (`journal.rs`) holds the same entries as the harness writes them, before
//! Vibe projects them for headless mode (`vibe/app_server/_unified_tool_projection.py`): the
//! model's own arguments (`path`, an `offset` counted from 0) where the output has Vibe's
//! (`filePath`, counted from 1), `detail.kind: "tool"` where the output names the kind (`shell`,
//! `file_read`), and the tool's result envelope `{type: "success" | "failure", content,
//! structured_content, error}` as `state.output`, a command's exit code (`returncode`) in it.
//! Headless mode prints a tool Vibe does not project (`self.wait`, `search_tool_functions`) so
//! too. An effect of kind `tool` is read as the harness wrote it, whichever file it is in: the
//! same name, kind and title, the arguments as the model gave them, the structured result as the
//! output, and a command that exited non-zero an error whose code is its exit code.

pub(crate) mod app_server;
pub(crate) mod journal;
pub(crate) mod json;
mod patch;
pub(crate) mod session;
pub(crate) mod streaming;

use std::borrow::Cow;

use serde_json::Value;

use crate::model::{TimeValue, Timing, ToolError, ToolKind, ToolMetadata, ToolState};
use crate::providers::acp::vibe::describe;
use crate::providers::{PartStore, PartUpdate, first_line, titles};

/// The keys every history entry has (the sniffers read them).
const ENTRY_KEYS: &[&str] = &["sessionId", "turnId", "generationStatus", "type"];

/// The name the model knows a harness tool by: `file_system.search_replace` is the model's
/// `edit`, `self.wait` its `wait`, `skill.read` its `skill`; any other namespaced name its last
/// part (`file_system.bash`: `bash`, `vibe.todo`: `todo`).
pub(crate) fn model_name(tool: &str) -> &str {
    match tool {
        "file_system.search_replace" => "edit",
        "skill.read" => "skill",
        _ => tool.rsplit('.').next().unwrap_or(tool),
    }
}

/// The kind of a tool Vibe's table does not know, from the effect's own `detail.kind`.
fn kind_of(detail_kind: Option<&str>) -> ToolKind {
    match detail_kind {
        Some("shell") => ToolKind::Bash,
        Some("file_read") => ToolKind::FileRead,
        Some("file_write") => ToolKind::FileWrite,
        Some("file_edit") => ToolKind::FileEdit,
        Some("todo") => ToolKind::Todo,
        Some("mcp") => ToolKind::Mcp,
        Some("web_search") => ToolKind::WebSearch,
        Some("web_fetch") => ToolKind::Browser,
        Some("subagent") => ToolKind::Subagent,
        _ => ToolKind::Unknown,
    }
}

fn millis(v: Option<&Value>) -> Option<TimeValue> {
    v.and_then(Value::as_i64).map(TimeValue::Millis)
}

/// How an effect ended, from its `state`: `None` while it has not (`pending`, `running`,
/// `blocked`), with the state it is in.
fn ended(name: &str, state: &Value) -> Result<Result<Value, ToolError>, ToolState> {
    let status = state.get("status").and_then(Value::as_str).unwrap_or("");
    let output = || match state.get("output") {
        Some(v) if !v.is_null() => v.clone(),
        _ => state
            .get("outputText")
            .cloned()
            .unwrap_or(Value::String(String::new())),
    };
    let reason = |fallback: &str| {
        titles::nonblank(state, "reason")
            .and_then(first_line)
            .unwrap_or_else(|| fallback.to_owned())
    };
    match status {
        "completed" => {
            let success = state
                .get("display")
                .and_then(|d| d.get("success"))
                .and_then(Value::as_bool);
            if success == Some(false) {
                let out = output();
                let stderr = out
                    .get("stderr")
                    .and_then(Value::as_str)
                    .and_then(first_line);
                let message = match (name, stderr) {
                    (_, Some(line)) => line,
                    ("bash", None) => "the command failed".to_owned(),
                    (_, None) => "the call failed".to_owned(),
                };
                Ok(Err(ToolError {
                    message,
                    code: None,
                    details: Some(out),
                }))
            } else {
                Ok(Ok(output()))
            }
        }
        "failed" => {
            let error = state.get("error");
            let message = error
                .and_then(|e| titles::nonblank(e, "message"))
                .and_then(first_line)
                .unwrap_or_else(|| "the call failed".to_owned());
            let code = error
                .and_then(|e| titles::nonblank(e, "code"))
                .map(str::to_owned);
            Ok(Err(ToolError {
                message,
                code,
                details: state.get("output").filter(|o| !o.is_null()).cloned(),
            }))
        }
        "cancelled" => Ok(Err(ToolError {
            message: reason("cancelled"),
            code: Some("interrupted".to_owned()),
            details: None,
        })),
        "skipped" => Ok(Err(ToolError {
            message: reason("skipped"),
            code: Some("declined".to_owned()),
            details: None,
        })),
        "running" => Err(ToolState::Running),
        _ => Err(ToolState::Started),
    }
}

/// The arguments Vibe's tool table reads for a call as the harness wrote it: a read's `offset` counted from 1,
/// as Vibe shows it (`_display_offset`: an offset of 0 is none); the rest as the model gave them.
fn shown_input<'v>(name: &str, input: &'v Value) -> Cow<'v, Value> {
    let offset = input.get("offset").and_then(Value::as_i64);
    if name != "read_file" || offset.is_none_or(|n| n < 0) {
        return Cow::Borrowed(input);
    }
    let mut shown = input.clone();
    if let (Some(args), Some(n)) = (shown.as_object_mut(), offset) {
        if n == 0 {
            args.remove("offset");
        } else {
            args.insert("offset".to_owned(), Value::from(n + 1));
        }
    }
    Cow::Owned(shown)
}

/// The state of a call as the harness wrote it, in the shape [`ended`] reads, with a command's exit code: the result
/// envelope's `structured_content` as the output (the envelope itself when it has none), a
/// `failure` envelope of a completed call as `failed` with its error, and a command whose
/// `returncode` is not 0 as unsuccessful. The output is moved, not copied.
fn harness_state(name: &str, mut state: Value) -> (Value, Option<i64>) {
    let completed = state.get("status").and_then(Value::as_str) == Some("completed");
    let Some(obj) = state.as_object_mut() else {
        return (state, None);
    };
    let Some(Value::Object(envelope)) = obj.get_mut("output") else {
        return (state, None);
    };
    if completed && envelope.get("type").and_then(Value::as_str) == Some("failure") {
        let error = envelope.remove("error").unwrap_or_default();
        obj.remove("output");
        obj.insert("status".to_owned(), Value::from("failed"));
        obj.entry("error").or_insert(error);
        return (state, None);
    }
    let Some(result) = envelope
        .get_mut("structured_content")
        .filter(|r| r.is_object())
        .map(Value::take)
    else {
        return (state, None);
    };
    let exit = (name == "bash")
        .then(|| result.get("returncode").and_then(Value::as_i64))
        .flatten();
    if completed && exit.is_some_and(|c| c != 0) {
        obj.insert("display".to_owned(), serde_json::json!({"success": false}));
    }
    obj.insert("output".to_owned(), result);
    (state, exit)
}

/// The part of one `effect` entry; `Err` says why the entry gives none.
fn effect(v: &Value, cwd: Option<&str>) -> Result<PartUpdate, String> {
    let id = titles::nonblank(v, "id").ok_or("an effect without an id")?;
    let detail = v.get("detail").filter(|d| d.is_object());
    let tool = detail
        .and_then(|d| titles::nonblank(d, "toolName"))
        .or_else(|| titles::nonblank(v, "title"))
        .ok_or_else(|| format!("effect {id} names no tool"))?;
    let name = model_name(tool);
    let input = match detail.and_then(|d| d.get("input")) {
        Some(i @ Value::Object(_)) => i.clone(),
        _ => Value::Object(Default::default()),
    };
    let detail_kind = detail.and_then(|d| titles::nonblank(d, "kind"));
    // As the harness wrote it: Vibe names the kind of every call it projects.
    let raw = matches!(detail_kind, None | Some("tool"));
    let shown = if raw {
        shown_input(name, &input)
    } else {
        Cow::Borrowed(&input)
    };
    let (kind, title) = describe(name, &shown, cwd).unwrap_or_else(|| {
        let summary = detail
            .and_then(|d| d.get("display"))
            .and_then(|d| titles::nonblank(d, "summary"))
            .map(str::to_owned);
        (
            kind_of(detail_kind),
            summary.unwrap_or_else(|| name.to_owned()),
        )
    });
    let state = v.get("state").cloned().unwrap_or_default();
    let (state, exit_code) = if raw {
        harness_state(name, state)
    } else {
        (state, None)
    };
    let mut extra = serde_json::Map::new();
    if let Some(k) = detail_kind {
        extra.insert("vibeKind".to_owned(), Value::String(k.to_owned()));
    }
    if name != tool {
        extra.insert("vibeTool".to_owned(), Value::String(tool.to_owned()));
    }
    // A command's output cut short: `truncated` as headless mode prints it, `was_truncated` as
    // the harness writes it.
    let output = state.get("output");
    let truncated = output
        .and_then(|o| o.get("truncated"))
        .or_else(|| {
            (raw && name == "bash")
                .then(|| output.and_then(|o| o.get("was_truncated")))
                .flatten()
        })
        .and_then(Value::as_bool)
        .filter(|t| *t);
    let mut u = match ended(name, &state) {
        Ok(Err(mut error)) if exit_code.is_some_and(|c| c != 0) => {
            let timed_out =
                state.pointer("/output/timed_out").and_then(Value::as_bool) == Some(true);
            error.code = Some(if timed_out {
                "timeout".to_owned()
            } else {
                exit_code.unwrap_or_default().to_string()
            });
            PartUpdate::ended(id, Err(error))
        }
        Ok(result) => PartUpdate::ended(id, result),
        Err(open) => PartUpdate {
            state: Some(open),
            ..PartUpdate::new(id)
        },
    };
    let done = matches!(u.state, Some(ToolState::Complete | ToolState::Error));
    u.name = Some(name.to_owned());
    u.kind = Some(kind);
    u.title = Some(title);
    u.input = Some(input);
    u.timing = Some(Timing {
        started_at: millis(v.get("createdAt")),
        completed_at: if done {
            millis(v.get("updatedAt"))
        } else {
            None
        },
        ..Timing::default()
    });
    u.metadata = Some(ToolMetadata {
        provider_type: Some("effect".to_owned()),
        truncated,
        exit_code,
        extra,
        ..ToolMetadata::default()
    });
    Ok(u)
}

/// Read one history entry, found at `line`, into `store`: an effect's part, nothing for an entry
/// that holds no call, a warning for one that is not an entry.
fn entry(store: &mut PartStore, line: u32, v: &Value, cwd: Option<&str>) {
    if !v.is_object() {
        store.warn(line, "a history entry that is not an object");
        return;
    }
    match v.get("type").and_then(Value::as_str) {
        Some("effect") => match effect(v, cwd) {
            Ok(u) => {
                store.upsert(line, u);
            }
            Err(why) => store.warn(line, why),
        },
        Some(_) => {}
        None => store.warn(line, "a history entry without a type"),
    }
}

#[cfg(test)]
mod tests;
