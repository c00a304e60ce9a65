//! Cline's tool names → name, kind and title, and a result's outcome. Built-ins are known by name
//! (Cline CLI 3.0, `@cline/core`'s default tools and its team tools); an MCP tool is declared to
//! the model as `<server>__<tool>` (a name longer than 64 characters or with other characters is
//! cut and hashed, and then names no server); anything else reads through the shared generic
//! title.
//!
//! Most built-ins take lists (`read_files.files`, `run_commands.commands`,
//! `search_codebase.queries`, `fetch_web_content.requests`) and answer with one
//! `{query, result, success, error?}` entry per item: the call failed when an entry did.

use serde_json::Value;

use crate::model::{McpRef, ToolError, ToolKind, ToolMetadata, ToolState};
use crate::providers::PartUpdate;
use crate::providers::titles;
use crate::providers::titles::nonblank as s;

/// What a call's name and input say.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Described {
    pub name: String,
    pub kind: ToolKind,
    pub title: String,
    pub mcp: Option<McpRef>,
}

/// `Reading the mailbox`, or `action detail` when there is a detail.
fn labelled(action: &str, detail: Option<&str>) -> String {
    match detail {
        Some(d) => titles::finish(&format!("{action} {}", d.trim()), action),
        None => action.to_owned(),
    }
}

/// The items of a list argument: an array, or one value given bare (Cline accepts both).
fn items<'a>(input: &'a Value, keys: &[&str]) -> Vec<&'a Value> {
    for key in keys {
        match input.get(*key) {
            Some(Value::Array(a)) => return a.iter().collect(),
            Some(v @ (Value::String(_) | Value::Object(_))) => return vec![v],
            _ => {}
        }
    }
    Vec::new()
}

/// The text of a list item: the string itself, or its `key` field.
fn item_text<'a>(item: &'a Value, keys: &[&str]) -> Option<&'a str> {
    match item {
        Value::String(t) => Some(t.as_str()),
        Value::Object(_) => keys.iter().find_map(|k| s(item, k)),
        _ => None,
    }
    .map(str::trim)
    .filter(|t| !t.is_empty())
}

/// `first`, or `first (+2 more)` when the list has more.
fn with_more(first: String, count: usize) -> String {
    match count {
        0 | 1 => first,
        n => titles::finish(&format!("{first} (+{} more)", n - 1), &first),
    }
}

fn read_title(input: &Value, cwd: Option<&str>) -> String {
    let files = match input {
        Value::String(_) | Value::Array(_) => match input {
            Value::Array(a) => a.iter().collect(),
            v => vec![v],
        },
        _ => items(input, &["files", "paths", "file_paths"]),
    };
    let Some(first) = files.first() else {
        return "Reading files".to_owned();
    };
    let Some(path) = item_text(first, &["path", "file_path", "filePath"]) else {
        return "Reading files".to_owned();
    };
    let line = |k: &str| first.get(k).and_then(Value::as_u64).filter(|n| *n >= 1);
    let (start, end) = (line("start_line"), line("end_line"));
    let limit = match (start, end) {
        (Some(s), Some(e)) if e >= s => Some(e - s + 1),
        (None, Some(e)) => Some(e),
        _ => None,
    };
    let title = titles::read(&titles::display_path(path, cwd), start, limit);
    with_more(title, files.len())
}

/// Kind and title of a call.
pub(crate) fn describe(name: &str, input: &Value, cwd: Option<&str>) -> Described {
    let path = |key: &str| s(input, key).map(|p| titles::display_path(p, cwd));
    let agent = s(input, "agentId").or_else(|| s(input, "toAgentId"));
    let (kind, title) = match name {
        "read_files" => (ToolKind::FileRead, read_title(input, cwd)),
        "search_codebase" => {
            let queries = items(input, &["queries", "query"]);
            match queries.first().and_then(|q| item_text(q, &["query"])) {
                Some(q) => (
                    ToolKind::FileRead,
                    with_more(titles::grep(q, None), queries.len()),
                ),
                None => (ToolKind::FileRead, "Searching the codebase".to_owned()),
            }
        }
        "run_commands" => {
            let commands = items(input, &["commands", "command"]);
            match commands.first().and_then(|c| item_text(c, &["command"])) {
                Some(c) => (ToolKind::Bash, with_more(titles::shell(c), commands.len())),
                None => (ToolKind::Bash, "Running shell commands".to_owned()),
            }
        }
        "fetch_web_content" => {
            let requests = items(input, &["requests", "url"]);
            match requests.first().and_then(|r| item_text(r, &["url"])) {
                Some(u) => (
                    ToolKind::Browser,
                    with_more(titles::fetch(u), requests.len()),
                ),
                None => (ToolKind::Browser, "Fetching web pages".to_owned()),
            }
        }
        "editor" => match path("path") {
            Some(p) if input.get("insert_line").is_some_and(Value::is_number) => (
                ToolKind::FileEdit,
                titles::finish(
                    &format!(
                        "Inserting into {p} at line {}",
                        input
                            .get("insert_line")
                            .and_then(Value::as_i64)
                            .unwrap_or(0)
                    ),
                    "Editing a file",
                ),
            ),
            // Without old text the editor writes the file (creating it when missing).
            Some(p) if s(input, "old_text").is_none() => (ToolKind::FileWrite, titles::write(&p)),
            Some(p) => (ToolKind::FileEdit, titles::edit(&p)),
            None => (ToolKind::FileEdit, "Editing a file".to_owned()),
        },
        // GPT and Codex models get `apply_patch` instead of `editor`.
        "apply_patch" => (
            ToolKind::FileEdit,
            titles::patch(
                s(input, "input").or_else(|| input.as_str().filter(|t| !t.trim().is_empty())),
                cwd,
            ),
        ),
        "ask_question" => (
            ToolKind::Question,
            titles::question(s(input, "question"), 1),
        ),
        "skills" => (
            ToolKind::FileRead,
            labelled("Loading skill", s(input, "skill")),
        ),
        // Yolo mode: the final answer, which ends the run.
        "submit_and_exit" => (
            ToolKind::Todo,
            "Submitting the final answer and exiting".to_owned(),
        ),
        "spawn_agent" => (ToolKind::Subagent, titles::subagent(None, s(input, "task"))),
        // Agent teams: teammates, their runs and their mailboxes.
        "team_spawn_teammate" => (ToolKind::Subagent, labelled("Starting teammate", agent)),
        "team_shutdown_teammate" => (
            ToolKind::Subagent,
            labelled("Shutting down teammate", agent),
        ),
        "team_run_task" => (
            ToolKind::Subagent,
            match (agent, s(input, "task")) {
                (Some(a), Some(t)) => {
                    titles::finish(&format!("Teammate {a}: {t}"), "Running a teammate task")
                }
                (None, Some(t)) => {
                    titles::finish(&format!("Teammate: {t}"), "Running a teammate task")
                }
                _ => labelled("Running a task on teammate", agent),
            },
        ),
        "team_cancel_run" => (
            ToolKind::Subagent,
            labelled("Cancelling teammate run", s(input, "runId")),
        ),
        "team_list_runs" => (ToolKind::Subagent, "Listing teammate runs".to_owned()),
        "team_await_runs" => (
            ToolKind::Subagent,
            match s(input, "runId") {
                Some(r) => labelled("Waiting for teammate run", Some(r)),
                None => "Waiting for teammate runs".to_owned(),
            },
        ),
        "team_send_message" => (
            ToolKind::Subagent,
            match (agent, s(input, "subject")) {
                (Some(a), Some(subj)) => {
                    titles::finish(&format!("Messaging {a}: {subj}"), "Messaging a teammate")
                }
                _ => labelled("Messaging teammate", agent),
            },
        ),
        "team_broadcast" => (
            ToolKind::Subagent,
            labelled("Messaging all teammates:", s(input, "subject")),
        ),
        "team_read_mailbox" => (ToolKind::Subagent, "Reading the team mailbox".to_owned()),
        "team_status" => (ToolKind::Subagent, "Checking the team's status".to_owned()),
        "team_cleanup" => (ToolKind::Subagent, "Cleaning up the team".to_owned()),
        "team_task" => {
            let action = s(input, "action");
            let title = s(input, "title").or_else(|| s(input, "taskId"));
            let label = match action {
                Some("create") => "Creating team task",
                Some("list") => "Listing team tasks",
                Some("claim") => "Claiming team task",
                Some("complete") => "Completing team task",
                Some("block") => "Blocking team task",
                _ => "Updating team tasks",
            };
            let detail = if action == Some("list") { None } else { title };
            (ToolKind::Todo, labelled(label, detail))
        }
        "team_mission_log" => (
            ToolKind::Todo,
            match (s(input, "kind"), s(input, "summary")) {
                (Some(k), Some(sum)) => {
                    titles::finish(&format!("Logging {k}: {sum}"), "Writing to the mission log")
                }
                _ => "Writing to the mission log".to_owned(),
            },
        ),
        "team_create_outcome" => (
            ToolKind::Todo,
            labelled("Creating team outcome", s(input, "title")),
        ),
        "team_attach_outcome_fragment" => (
            ToolKind::Todo,
            labelled("Attaching outcome section", s(input, "section")),
        ),
        "team_review_outcome_fragment" => (
            ToolKind::Todo,
            match input.get("approved").and_then(Value::as_bool) {
                Some(true) => labelled("Approving outcome fragment", s(input, "fragmentId")),
                Some(false) => labelled("Rejecting outcome fragment", s(input, "fragmentId")),
                None => labelled("Reviewing outcome fragment", s(input, "fragmentId")),
            },
        ),
        "team_finalize_outcome" => (
            ToolKind::Todo,
            labelled("Finalizing team outcome", s(input, "outcomeId")),
        ),
        "team_list_outcomes" => (ToolKind::Todo, "Listing team outcomes".to_owned()),
        other => match other.split_once("__") {
            Some((server, tool)) if !server.is_empty() && !tool.is_empty() => {
                return Described {
                    name: tool.to_owned(),
                    kind: titles::mcp_kind(server, tool),
                    title: titles::mcp(server, tool, input),
                    mcp: Some(McpRef {
                        server: server.to_owned(),
                        tool: tool.to_owned(),
                    }),
                };
            }
            _ => (ToolKind::Unknown, titles::generic(other, input, cwd)),
        },
    };
    Described {
        name: name.to_owned(),
        kind,
        title,
        mcp: None,
    }
}

/// The update that opens a call: its name, kind, title and input (an object, or `{}`), in
/// `state`, with `provider_type` and the call it ran inside.
pub(super) fn opened(
    id: &str,
    name: &str,
    input: Option<Value>,
    cwd: Option<&str>,
    state: ToolState,
    provider_type: &str,
    parent: Option<String>,
) -> PartUpdate {
    let input = match input {
        Some(v @ Value::Object(_)) => v,
        _ => Value::Object(Default::default()),
    };
    let d = describe(name, &input, cwd);
    PartUpdate {
        name: Some(d.name),
        kind: Some(d.kind),
        title: Some(d.title),
        input: Some(input),
        state: Some(state),
        metadata: Some(ToolMetadata {
            provider_type: Some(provider_type.to_owned()),
            mcp: d.mcp,
            parent_tool_use_id: parent,
            ..ToolMetadata::default()
        }),
        ..PartUpdate::new(id)
    }
}

/// The message of an error text Cline wrapped as JSON (`{"error":"…"}`), or the text itself.
fn unwrap_error(text: &str) -> String {
    let t = text.trim();
    if t.starts_with('{')
        && let Ok(Value::Object(o)) = serde_json::from_str::<Value>(t)
        && let Some(inner) = o.get("error").and_then(Value::as_str)
    {
        return inner.trim().to_owned();
    }
    t.to_owned()
}

/// A tool result's text that is a JSON document (the task file keeps object results as strings):
/// the document; any other value as it is.
pub(super) fn decode(output: Value) -> Value {
    match &output {
        Value::String(t) if t.trim_start().starts_with(['{', '[']) => {
            serde_json::from_str(t).unwrap_or(output)
        }
        _ => output,
    }
}

/// An error's code from its message: a call refused for want of approval, a tool the model made
/// up, a command's exit code.
fn code_of(message: &str) -> Option<String> {
    if message.contains("requires approval") || message.contains("was denied") {
        return Some("permission_denied".to_owned());
    }
    if message.contains("AI_NoSuchToolError") || message.contains("unavailable tool") {
        return Some("unknown_tool".to_owned());
    }
    message
        .strip_prefix("Command exited with code ")
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty())
}

/// What a finished call came to: its output, or its error. `error` is the event's own error text
/// (the stream's `content_end.error`), `is_error` the task file's flag.
pub(crate) fn outcome(
    output: Value,
    error: Option<&str>,
    is_error: bool,
) -> Result<Value, ToolError> {
    let output = decode(output);
    let make = |message: String, details: Option<Value>| {
        let message = if message.is_empty() {
            "the tool call failed".to_owned()
        } else {
            message
        };
        let first = message.lines().next().unwrap_or("").trim().to_owned();
        ToolError {
            code: code_of(&first),
            message: first,
            details,
        }
    };
    if let Some(e) = error.filter(|e| !e.trim().is_empty()) {
        return Err(make(unwrap_error(e), None));
    }
    match &output {
        // `{error}` alone: refused before it ran.
        Value::Object(o) if o.len() == 1 && o.contains_key("error") => {
            let text = o.get("error").and_then(Value::as_str).unwrap_or("");
            return Err(make(unwrap_error(text), None));
        }
        // One entry per item: the call failed when an entry did.
        Value::Array(entries) => {
            let failed: Vec<&str> = entries
                .iter()
                .filter(|e| e.get("success") == Some(&Value::Bool(false)))
                .map(|e| e.get("error").and_then(Value::as_str).unwrap_or(""))
                .collect();
            if let Some(first) = failed.first() {
                return Err(make(unwrap_error(first), Some(output.clone())));
            }
        }
        Value::Object(o) => {
            if o.get("success") == Some(&Value::Bool(false)) {
                let text = o.get("error").and_then(Value::as_str).unwrap_or("");
                return Err(make(unwrap_error(text), Some(output.clone())));
            }
            // An MCP result.
            if o.get("isError") == Some(&Value::Bool(true)) {
                let text = o
                    .get("content")
                    .and_then(Value::as_array)
                    .and_then(|c| c.first())
                    .and_then(|c| c.get("text"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                return Err(make(text.to_owned(), Some(output.clone())));
            }
        }
        Value::String(t) if is_error => return Err(make(unwrap_error(t), None)),
        _ => {}
    }
    if is_error {
        return Err(make(String::new(), Some(output)));
    }
    Ok(output)
}

/// Every tool Cline 3.0 can declare (default tools in act and plan mode, `apply_patch` for
/// GPT models, `skills`, yolo's `submit_and_exit`, `spawn_agent` and the team tools): each has a
/// specific title and kind here (tested), and the scenarios offer them all to the model.
// Read by the scenarios (the `cli` feature) and the tests below.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub const BUILTINS: &[&str] = &[
    "read_files",
    "search_codebase",
    "run_commands",
    "fetch_web_content",
    "editor",
    "apply_patch",
    "ask_question",
    "skills",
    "submit_and_exit",
    "spawn_agent",
    "team_spawn_teammate",
    "team_shutdown_teammate",
    "team_status",
    "team_task",
    "team_run_task",
    "team_cancel_run",
    "team_list_runs",
    "team_await_runs",
    "team_send_message",
    "team_broadcast",
    "team_read_mailbox",
    "team_mission_log",
    "team_cleanup",
    "team_create_outcome",
    "team_attach_outcome_fragment",
    "team_review_outcome_fragment",
    "team_finalize_outcome",
    "team_list_outcomes",
];

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_builtin_has_a_kind_and_a_specific_title() {
        for name in BUILTINS {
            let d = describe(name, &json!({}), None);
            assert_ne!(d.kind, ToolKind::Unknown, "{name}");
            assert_ne!(d.title, titles::generic(name, &json!({}), None), "{name}");
            assert!(!titles::restates(&d.title, name), "{name}: {}", d.title);
        }
    }

    #[test]
    fn list_tools_title_their_first_item() {
        let cwd = Some("/w");
        let d = describe(
            "read_files",
            &json!({"files": [{"path": "/w/a.txt", "start_line": 2, "end_line": 4}, {"path": "/w/b"}]}),
            cwd,
        );
        assert_eq!(d.title, "Reading a.txt (lines 2–4) (+1 more)");
        let d = describe("run_commands", &json!({"commands": ["ls -la"]}), cwd);
        assert_eq!(
            (d.kind, d.title.as_str()),
            (ToolKind::Bash, "Running ls -la")
        );
        let d = describe(
            "search_codebase",
            &json!({"queries": ["fn main", "x"]}),
            cwd,
        );
        assert_eq!(d.title, "Searching for \"fn main\" (+1 more)");
        let d = describe(
            "fetch_web_content",
            &json!({"requests": [{"url": "https://docs.rs/serde", "prompt": "p"}]}),
            cwd,
        );
        assert_eq!(d.title, "Fetching docs.rs/serde");
        // A bare string where a list is expected.
        let d = describe("read_files", &json!({"files": "/w/c.md"}), cwd);
        assert_eq!(d.title, "Reading c.md");
    }

    #[test]
    fn editor_writes_edits_or_inserts() {
        let cwd = Some("/w");
        let d = describe("editor", &json!({"path": "/w/n.txt", "new_text": "x"}), cwd);
        assert_eq!(
            (d.kind, d.title.as_str()),
            (ToolKind::FileWrite, "Writing n.txt")
        );
        let d = describe(
            "editor",
            &json!({"path": "/w/n.txt", "old_text": "a", "new_text": "b"}),
            cwd,
        );
        assert_eq!(
            (d.kind, d.title.as_str()),
            (ToolKind::FileEdit, "Editing n.txt")
        );
        let d = describe(
            "editor",
            &json!({"path": "/w/n.txt", "new_text": "b", "insert_line": 3}),
            cwd,
        );
        assert_eq!(d.title, "Inserting into n.txt at line 3");
    }

    #[test]
    fn mcp_tools_split_at_the_double_underscore() {
        let d = describe(
            "amalgm__browser_navigate",
            &json!({"url": "https://a.b"}),
            None,
        );
        assert_eq!(d.name, "browser_navigate");
        assert_eq!(d.kind, ToolKind::Browser);
        assert_eq!(d.mcp.unwrap().server, "amalgm");
        let d = describe("made_up", &json!({}), None);
        assert_eq!(d.kind, ToolKind::Unknown);
    }

    #[test]
    fn outcomes_of_entries_refusals_and_mcp_results() {
        let ok = outcome(
            json!([{"query": "echo", "result": "hi\n", "success": true}]),
            None,
            false,
        );
        assert!(ok.is_ok());
        let failed = outcome(
            json!([{"query": "ls x", "result": "…", "error": "Command exited with code 2", "success": false},
                   {"query": "echo ok", "result": "ok\n", "success": true}]),
            None,
            false,
        )
        .unwrap_err();
        assert_eq!(failed.message, "Command exited with code 2");
        assert_eq!(failed.code.as_deref(), Some("2"));
        assert!(failed.details.is_some());
        let refused = outcome(
            json!({"error": "Tool \"editor\" requires approval in a TTY session -- NOT a tool or system failure."}),
            Some("{\"error\":\"Tool \\\"editor\\\" requires approval in a TTY session -- NOT a tool or system failure.\"}"),
            false,
        )
        .unwrap_err();
        assert_eq!(refused.code.as_deref(), Some("permission_denied"));
        assert!(
            refused
                .message
                .starts_with("Tool \"editor\" requires approval")
        );
        let mcp = outcome(
            json!({"content": [{"type": "text", "text": "boom"}], "isError": true}),
            None,
            false,
        )
        .unwrap_err();
        assert_eq!(mcp.message, "boom");
        // The task file keeps an object result as its JSON text.
        let decoded = outcome(
            json!("{\"query\":\"edit:/a\",\"result\":\"Edited /a\",\"success\":true}"),
            None,
            false,
        )
        .unwrap();
        assert_eq!(decoded["result"], "Edited /a");
        let flagged = outcome(json!("{\"error\":\"nope\"}"), None, true).unwrap_err();
        assert_eq!(flagged.message, "nope");
    }
}
