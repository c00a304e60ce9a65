//! Kimi CLI's built-in tools (1.51: its agents' tool lists, `kimi_cli/agents/default/agent.yaml`
//! and `okabe/agent.yaml`, and `Think`, in the default agent's file but commented out): the kind
//! and title of a call of each, from its arguments. Every dialect that reads Kimi's calls asks
//! here: print mode's stream-json and the saved session (`kimi/messages.rs`), and `kimi acp`
//! (`acp/kimi.rs`). A tool that is none of these is an MCP server's: Kimi declares an MCP tool
//! under its own name, without its server's.

use serde_json::Value;

use crate::model::{McpRef, ToolError, ToolKind, ToolMetadata, ToolState};
use crate::providers::{PartUpdate, titles};

/// Kimi 1.51's built-in tools (the scenarios offer them; the core alone reads none).
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub const BUILTINS: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "SetTodoList",
    "Shell",
    "TaskList",
    "TaskOutput",
    "TaskStop",
    "ReadFile",
    "ReadMediaFile",
    "Glob",
    "Grep",
    "WriteFile",
    "StrReplaceFile",
    "SearchWeb",
    "FetchURL",
    "ExitPlanMode",
    "EnterPlanMode",
    "SendDMail",
    "Think",
];

fn string<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

fn number(input: &Value, key: &str) -> Option<u64> {
    input.get(key).and_then(Value::as_u64)
}

/// `label` alone, or `label detail` when there is a detail.
fn labelled(label: &str, detail: Option<&str>) -> String {
    match detail {
        Some(d) => titles::finish(&format!("{label} {}", d.trim()), label),
        None => label.to_owned(),
    }
}

/// Kind and title of a call of Kimi's built-in `tool`; `None` for a tool that is not one.
pub(crate) fn describe(tool: &str, input: &Value, cwd: Option<&str>) -> Option<(ToolKind, String)> {
    let path = |key: &str| string(input, key).map(|p| titles::display_path(p, cwd));
    Some(match tool {
        "Shell" => {
            let command = string(input, "command");
            match command {
                Some(c) if input.get("run_in_background") == Some(&Value::Bool(true)) => (
                    ToolKind::Bash,
                    titles::finish(
                        &format!("Starting in the background: {}", c.trim()),
                        "Starting a background command",
                    ),
                ),
                Some(c) => (ToolKind::Bash, titles::shell(c)),
                None => (ToolKind::Bash, "Running a shell command".to_owned()),
            }
        }
        "TaskList" => (
            ToolKind::Bash,
            if input.get("active_only") == Some(&Value::Bool(false)) {
                "Listing all background tasks".to_owned()
            } else {
                "Listing background tasks".to_owned()
            },
        ),
        "TaskOutput" => (
            ToolKind::Bash,
            labelled(
                "Reading output of background task",
                string(input, "task_id"),
            ),
        ),
        "TaskStop" => (
            ToolKind::Bash,
            labelled("Stopping background task", string(input, "task_id")),
        ),
        "ReadFile" => match path("path") {
            Some(p) => (
                ToolKind::FileRead,
                titles::read(&p, number(input, "line_offset"), number(input, "n_lines")),
            ),
            None => (ToolKind::FileRead, "Reading a file".to_owned()),
        },
        "ReadMediaFile" => match path("path") {
            Some(p) => (
                ToolKind::FileRead,
                titles::finish(&format!("Viewing {p}"), "Viewing a media file"),
            ),
            None => (ToolKind::FileRead, "Viewing a media file".to_owned()),
        },
        "Glob" => match string(input, "pattern") {
            Some(pat) => (
                ToolKind::FileRead,
                titles::glob(pat, path("directory").as_deref()),
            ),
            None => (ToolKind::FileRead, "Finding files".to_owned()),
        },
        "Grep" => match string(input, "pattern") {
            Some(pat) => (
                ToolKind::FileRead,
                titles::grep(pat, path("path").as_deref()),
            ),
            None => (ToolKind::FileRead, "Searching files".to_owned()),
        },
        "WriteFile" => match path("path") {
            Some(p) if string(input, "mode") == Some("append") => (
                ToolKind::FileWrite,
                titles::finish(&format!("Appending to {p}"), "Appending to a file"),
            ),
            Some(p) => (ToolKind::FileWrite, titles::write(&p)),
            None => (ToolKind::FileWrite, "Writing a file".to_owned()),
        },
        "StrReplaceFile" => match path("path") {
            Some(p) => (ToolKind::FileEdit, titles::edit(&p)),
            None => (ToolKind::FileEdit, "Editing a file".to_owned()),
        },
        "SearchWeb" => (
            ToolKind::WebSearch,
            titles::web_search(string(input, "query").unwrap_or("")),
        ),
        "FetchURL" => (
            ToolKind::Browser,
            titles::fetch(string(input, "url").unwrap_or("")),
        ),
        "SetTodoList" => {
            let todos = input.get("todos").and_then(Value::as_array);
            let done = todos.map_or(0, |t| {
                t.iter()
                    .filter(|t| t.get("status").and_then(Value::as_str) == Some("done"))
                    .count()
            });
            (
                ToolKind::Todo,
                titles::todo(todos.map_or(0, Vec::len), done),
            )
        }
        "Agent" => (
            ToolKind::Subagent,
            titles::subagent(string(input, "description"), string(input, "prompt")),
        ),
        "AskUserQuestion" => (
            ToolKind::Question,
            titles::questions(input.get("questions")),
        ),
        "EnterPlanMode" => (ToolKind::Todo, "Entering plan mode".to_owned()),
        "ExitPlanMode" => (ToolKind::Todo, "Presenting the plan".to_owned()),
        // The `okabe` agent's: a message back to a checkpoint, reverting the context there.
        "SendDMail" => (
            ToolKind::Todo,
            match input.get("checkpoint_id").and_then(Value::as_u64) {
                Some(id) => format!("Sending a D-Mail to checkpoint {id}"),
                None => "Sending a D-Mail to a checkpoint".to_owned(),
            },
        ),
        "Think" => (
            ToolKind::Todo,
            match string(input, "thought") {
                Some(t) => titles::finish(&format!("Thinking: {}", t.trim()), "Thinking"),
                None => "Thinking".to_owned(),
            },
        ),
        _ => return None,
    })
}

/// The update that opens a call of `name` (the model's call id `id`, its arguments `input`): a
/// built-in titled from its table, any other tool an MCP tool of `server` when the stream says
/// which (`kimi acp`'s one declared server), else of a server it does not name.
pub(crate) fn opened(
    id: &str,
    name: &str,
    input: Value,
    cwd: Option<&str>,
    server: Option<&str>,
) -> PartUpdate {
    let input = match input {
        v @ Value::Object(_) => v,
        _ => Value::Object(Default::default()),
    };
    let (kind, title, mcp) = match describe(name, &input, cwd) {
        Some((kind, title)) => (kind, title, None),
        None => (
            titles::mcp_kind(server.unwrap_or(""), name),
            titles::mcp(server.unwrap_or(""), name, &input),
            server.map(|s| McpRef {
                server: s.to_owned(),
                tool: name.to_owned(),
            }),
        ),
    };
    PartUpdate {
        name: Some(name.to_owned()),
        kind: Some(kind),
        title: Some(title),
        input: Some(input),
        state: Some(ToolState::Running),
        metadata: Some(ToolMetadata {
            provider_type: Some("function".to_owned()),
            mcp,
            ..ToolMetadata::default()
        }),
        ..PartUpdate::new(id)
    }
}

/// What a call's result message (`role: tool`) says, from its content's texts in order: Kimi
/// wraps what it tells the model beside the output in `<system>…</system>`, and an error starts
/// with `<system>ERROR: <message></system>` (the tool's output, a command's stderr, may follow).
/// The output is the texts that are not Kimi's notes, or the note alone when there is nothing
/// else (`Tool output is empty.`, a write's `File successfully overwritten.`).
pub(crate) fn outcome(texts: &[&str]) -> Result<Value, ToolError> {
    let note = |t: &str| {
        t.trim()
            .strip_prefix("<system>")
            .and_then(|t| t.strip_suffix("</system>"))
            .map(str::to_owned)
    };
    let notes: Vec<String> = texts.iter().filter_map(|t| note(t)).collect();
    let output: String = texts
        .iter()
        .filter(|t| note(t).is_none())
        .copied()
        .collect();
    if let Some(message) = notes.iter().find_map(|n| n.strip_prefix("ERROR: ")) {
        return Err(failure(message, &output));
    }
    if output.is_empty() {
        return Ok(Value::String(notes.join("\n")));
    }
    Ok(Value::String(output))
}

/// A failed call's error from Kimi's message for it (`message` of its return value, what follows
/// `ERROR: ` in the note the model gets) and the tool's output: the message's first line, the
/// output its `details`. An MCP tool's failure says only "Tool returned an error…": its output's
/// first line is the message then.
pub(crate) fn failure(message: &str, output: &str) -> ToolError {
    let message = if message.starts_with("Tool returned an error.") {
        output
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or(message)
    } else {
        message
    };
    let first = message.lines().next().unwrap_or("").trim();
    let message = if first.is_empty() {
        "the tool call failed"
    } else {
        first
    };
    ToolError {
        code: code_of(message),
        message: message.to_owned(),
        details: (!output.is_empty()).then(|| Value::String(output.to_owned())),
    }
}

/// An error's code from Kimi's message: a command's exit code (`Command failed with exit code:
/// 3.`), a tool the model made up, arguments that do not parse.
fn code_of(message: &str) -> Option<String> {
    if let Some(rest) = message.split("exit code: ").nth(1) {
        let code: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-')
            .collect();
        if !code.is_empty() {
            return Some(code);
        }
    }
    if message.starts_with("Tool `") && message.contains("not found") {
        return Some("unknown_tool".to_owned());
    }
    if message.contains("parse") && message.contains("arguments") {
        return Some("invalid_input".to_owned());
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Every built-in tool has a kind other than `unknown` and a title that is not its name,
    /// with empty input and with its key argument.
    #[test]
    fn every_builtin_tool_is_titled() {
        for tool in BUILTINS {
            let (kind, title) = describe(tool, &json!({}), None).unwrap();
            assert_ne!(kind, ToolKind::Unknown, "{tool}");
            assert!(!titles::restates(&title, tool), "{tool}: {title}");
        }
        assert!(describe("browser_navigate", &json!({}), None).is_none());
        let cases = [
            (
                "Shell",
                json!({"command": "sh greet.sh"}),
                "Running sh greet.sh",
            ),
            (
                "Shell",
                json!({"command": "sleep 9", "run_in_background": true}),
                "Starting in the background: sleep 9",
            ),
            (
                "ReadFile",
                json!({"path": "/w/notes.txt", "line_offset": 2, "n_lines": 3}),
                "Reading notes.txt (lines 2–4)",
            ),
            (
                "Grep",
                json!({"pattern": "TODO", "path": "/w/src"}),
                "Searching for \"TODO\" in src",
            ),
            (
                "Glob",
                json!({"pattern": "**/*.py"}),
                "Finding files matching **/*.py",
            ),
            (
                "WriteFile",
                json!({"path": "/w/a.txt", "content": "x", "mode": "append"}),
                "Appending to a.txt",
            ),
            ("StrReplaceFile", json!({"path": "a.txt"}), "Editing a.txt"),
            (
                "SetTodoList",
                json!({"todos": [{"title": "a", "status": "done"}, {"title": "b", "status": "pending"}]}),
                "Updating the todo list (2 items, 1 done)",
            ),
            (
                "Agent",
                json!({"description": "inspect the repo", "prompt": "p"}),
                "Inspect the repo",
            ),
            (
                "TaskOutput",
                json!({"task_id": "b1"}),
                "Reading output of background task b1",
            ),
        ];
        for (tool, input, want) in cases {
            assert_eq!(
                describe(tool, &input, Some("/w")).unwrap().1,
                want,
                "{tool}"
            );
        }
    }
}
