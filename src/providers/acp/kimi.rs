//! What `kimi acp` (Kimi CLI, `Kimi Code CLI` in its `initialize` response) says of a call, read
//! with Kimi's own tool table. Kimi titles a call `<Tool>: <key argument>` (`Shell: sh greet.sh`,
//! `ReadFile: notes.txt`) or the tool's bare name, gives no `kind` and no `rawInput`: the call's
//! arguments are the JSON text of its content while it runs, replaced by its result when it
//! ends. The part gets the tool's name, a kind, and a title from its arguments, as a native
//! dialect gives them; an MCP tool (Kimi names it by the tool's own name) gets the MCP kind and
//! title.

use serde_json::Value;

use super::tools::{CallView, Derived};
use crate::model::{McpRef, ToolKind};
use crate::providers::titles;

/// The name `kimi acp` gives itself in `initialize` (`agentInfo.name`).
pub(crate) const AGENT_NAME: &str = "Kimi Code CLI";

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

/// Refine the part derived from ACP's fields for a `kimi acp` call. `servers`: the MCP servers
/// the client declared; a call of a tool Kimi does not have is one of theirs when there is one
/// server (Kimi does not say which server a tool is from).
pub(crate) fn refine_acp(d: &mut Derived, view: &CallView, cwd: Option<&str>, servers: &[String]) {
    let Some(title) = view.title.as_deref() else {
        return;
    };
    let tool = title.split_once(": ").map_or(title, |(t, _)| t).trim();
    let input = match (&view.raw_input, &view.content_input) {
        (Some(v @ Value::Object(_)), _) | (None, Some(v)) => v.clone(),
        _ => Value::Object(Default::default()),
    };
    if let Some((kind, title)) = describe(tool, &input, cwd) {
        d.name = tool.to_owned();
        d.kind = kind;
        d.title = title;
        d.input = input;
        return;
    }
    if let [server] = servers
        && !tool.is_empty()
        && !tool.contains(char::is_whitespace)
    {
        d.name = tool.to_owned();
        d.kind = titles::mcp_kind(server, tool);
        d.title = titles::mcp(server, tool, &input);
        d.input = input;
        d.metadata.mcp = Some(McpRef {
            server: server.clone(),
            tool: tool.to_owned(),
        });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Every built-in tool has a kind other than `unknown` and a title that is not its name,
    /// with empty input and with its key argument.
    #[test]
    fn every_builtin_tool_is_titled() {
        for tool in BUILTIN {
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

    /// Kimi 1.51's built-in tools (its agents' tool lists).
    pub(super) const BUILTIN: &[&str] = &[
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
}
