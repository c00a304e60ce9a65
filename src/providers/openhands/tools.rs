//! OpenHands' tool names → name, kind and title, and an observation's outcome. Built-ins are the
//! tools `openhands-tools` and the SDK declare (each `ToolDefinition`'s name is its class name in
//! snake case without `_tool`): the CLI's default set (`terminal`, `file_editor`,
//! `task_tracker`, `task`, and the SDK's `finish` and `think`), the other presets' tools
//! (`planning_file_editor`, `glob`, `grep`, `apply_patch`, the Gemini-style `read_file`,
//! `write_file`, `edit`, `list_directory`, the deprecated `delegate`, the browser tool set, the
//! Tom tools) and `invoke_skill`. An MCP tool keeps its own name (with one server, no prefix): the
//! action's class (`MCPToolAction`) says it is one, the stream never names its server.

use serde_json::{Map, Value};

use crate::model::{McpRef, ToolError, ToolKind};
use crate::providers::titles::nonblank as s;
use crate::providers::{first_line, titles};

/// What a call's name and input say.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Described {
    pub name: String,
    pub kind: ToolKind,
    pub title: String,
    pub mcp: Option<McpRef>,
}

/// The action class of an MCP call (`action.kind`).
pub(crate) const MCP_ACTION: &str = "MCPToolAction";

/// The server an MCP call is shown under: OpenHands' events name only the tool.
pub(crate) const MCP_SERVER: &str = "mcp";

fn n(input: &Value, key: &str) -> Option<i64> {
    input.get(key).and_then(Value::as_i64)
}

/// `action detail`, or `action` alone when there is no detail.
fn labelled(action: &str, detail: Option<&str>) -> String {
    match detail {
        Some(d) => titles::finish(&format!("{action} {}", d.trim()), action),
        None => action.to_owned(),
    }
}

/// `file_editor` (and `planning_file_editor`, the same tool limited to the plan file): its
/// `command` picks what it does.
fn file_editor(input: &Value, cwd: Option<&str>) -> (ToolKind, String) {
    let path = s(input, "path").map(|p| titles::display_path(p, cwd));
    let Some(p) = path else {
        return match s(input, "command") {
            Some("view") => (ToolKind::FileRead, "Viewing a file".to_owned()),
            Some("create") => (ToolKind::FileWrite, "Creating a file".to_owned()),
            _ => (ToolKind::FileEdit, "Editing a file".to_owned()),
        };
    };
    match s(input, "command") {
        Some("view") => {
            let range = input.get("view_range").and_then(Value::as_array);
            let at = |i: usize| range.and_then(|r| r.get(i)).and_then(Value::as_i64);
            let (start, limit) = match (at(0), at(1)) {
                // `-1` as the end: to the end of the file.
                (Some(a), Some(b)) if a >= 1 && b >= a => {
                    (Some(a as u64), Some((b - a + 1) as u64))
                }
                (Some(a), _) if a >= 1 => (Some(a as u64), None),
                _ => (None, None),
            };
            (ToolKind::FileRead, titles::read(&p, start, limit))
        }
        Some("create") => (ToolKind::FileWrite, titles::create(&p)),
        Some("insert") => (
            ToolKind::FileEdit,
            match n(input, "insert_line") {
                Some(l) => titles::finish(
                    &format!("Inserting into {p} after line {l}"),
                    "Editing a file",
                ),
                None => titles::finish(&format!("Inserting into {p}"), "Editing a file"),
            },
        ),
        Some("undo_edit") => (
            ToolKind::FileEdit,
            titles::finish(&format!("Undoing the last edit to {p}"), "Editing a file"),
        ),
        _ => (ToolKind::FileEdit, titles::edit(&p)),
    }
}

/// `task_tracker`: `plan` writes the list, `view` reads it.
fn task_tracker(input: &Value) -> String {
    if s(input, "command") == Some("view") {
        return "Reading the task list".to_owned();
    }
    let items = input.get("task_list").and_then(Value::as_array);
    let total = items.map_or(0, Vec::len);
    let done = items.map_or(0, |i| {
        i.iter()
            .filter(|t| t.get("status").and_then(Value::as_str) == Some("done"))
            .count()
    });
    titles::todo(total, done)
}

/// The deprecated `delegate`: `spawn` starts subagents, `delegate` gives them tasks.
fn delegate(input: &Value) -> String {
    match s(input, "command") {
        Some("spawn") => {
            let ids: Vec<&str> = input
                .get("ids")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            match ids.as_slice() {
                [] => "Starting subagents".to_owned(),
                ids => titles::finish(
                    &format!("Starting subagents {}", ids.join(", ")),
                    "Starting subagents",
                ),
            }
        }
        _ => {
            let tasks = input.get("tasks").and_then(Value::as_object);
            match tasks.map(|t| (t.len(), t.iter().next())) {
                Some((1, Some((id, task)))) => titles::finish(
                    &format!("Subagent {id}: {}", task.as_str().unwrap_or("").trim()),
                    "Delegating a task",
                ),
                Some((count, Some(_))) => format!("Delegating {count} tasks to subagents"),
                _ => "Delegating tasks to subagents".to_owned(),
            }
        }
    }
}

/// The browser tool set (`browser_*`), which the CLI leaves out and the SDK's default agent has.
fn browser(name: &str, input: &Value) -> Option<String> {
    let element = n(input, "index");
    let tab = s(input, "tab_id");
    Some(match name {
        "browser_navigate" => match s(input, "url") {
            Some(u) => titles::finish(
                &format!("Opening {}", titles::host(u)),
                "Opening browser page",
            ),
            None => "Opening browser page".to_owned(),
        },
        "browser_click" => match element {
            Some(i) => format!("Clicking element {i}"),
            None => "Clicking in the browser page".to_owned(),
        },
        "browser_type" => match (element, s(input, "text")) {
            (Some(i), Some(t)) => {
                titles::finish(&format!("Typing \"{t}\" into element {i}"), "Typing")
            }
            (Some(i), None) => format!("Typing into element {i}"),
            _ => "Typing in the browser page".to_owned(),
        },
        "browser_get_state" => "Reading browser page".to_owned(),
        "browser_get_content" => "Reading the browser page's content".to_owned(),
        "browser_scroll" => match s(input, "direction") {
            Some(d) => titles::finish(&format!("Scrolling the page {d}"), "Scrolling the page"),
            None => "Scrolling the page".to_owned(),
        },
        "browser_go_back" => "Going back in the browser".to_owned(),
        "browser_list_tabs" => "Listing browser tabs".to_owned(),
        "browser_switch_tab" => labelled("Switching to browser tab", tab),
        "browser_close_tab" => labelled("Closing browser tab", tab),
        "browser_get_storage" => "Reading browser storage".to_owned(),
        "browser_set_storage" => "Setting browser storage".to_owned(),
        "browser_start_recording" => "Starting a browser recording".to_owned(),
        "browser_stop_recording" => "Stopping the browser recording".to_owned(),
        _ => return None,
    })
}

/// Kind and title of a call. `action_kind` is the action's class as the event names it
/// (`TerminalAction`, `MCPToolAction`), when the call was valid.
pub(crate) fn describe(
    name: &str,
    action_kind: Option<&str>,
    input: &Value,
    cwd: Option<&str>,
) -> Described {
    if action_kind == Some(MCP_ACTION) {
        return Described {
            name: name.to_owned(),
            kind: titles::mcp_kind(MCP_SERVER, name),
            title: titles::mcp("", name, input),
            mcp: Some(McpRef {
                server: MCP_SERVER.to_owned(),
                tool: name.to_owned(),
            }),
        };
    }
    let path = |key: &str| s(input, key).map(|p| titles::display_path(p, cwd));
    let (kind, title) = match name {
        // `execute_bash` and `str_replace_editor`: the tools' names before the SDK's 1.0.
        "terminal" | "execute_bash" | "bash" => {
            if input.get("reset").and_then(Value::as_bool) == Some(true) {
                (ToolKind::Bash, "Restarting the terminal".to_owned())
            } else if input.get("is_input").and_then(Value::as_bool) == Some(true) {
                match s(input, "command") {
                    Some(c) => (
                        ToolKind::Bash,
                        titles::finish(
                            &format!("Sending {} to the running command", c.trim()),
                            "Sending input to the running command",
                        ),
                    ),
                    None => (
                        ToolKind::Bash,
                        "Reading the running command's output".to_owned(),
                    ),
                }
            } else {
                match s(input, "command") {
                    Some(c) => (ToolKind::Bash, titles::shell(c)),
                    None => (ToolKind::Bash, "Running a shell command".to_owned()),
                }
            }
        }
        "file_editor" | "str_replace_editor" => file_editor(input, cwd),
        "planning_file_editor" => {
            let (kind, title) = file_editor(input, cwd);
            match s(input, "path") {
                Some(_) => (kind, title),
                None => (kind, "Editing the plan".to_owned()),
            }
        }
        "task_tracker" => (ToolKind::Todo, task_tracker(input)),
        "task" => (
            ToolKind::Subagent,
            titles::subagent(s(input, "description"), s(input, "prompt")),
        ),
        "delegate" => (ToolKind::Subagent, delegate(input)),
        "finish" => (
            ToolKind::Todo,
            match s(input, "message").and_then(|m| m.lines().find(|l| !l.trim().is_empty())) {
                Some(m) => {
                    titles::finish(&format!("Finishing: {}", m.trim()), "Finishing the task")
                }
                None => "Finishing the task".to_owned(),
            },
        ),
        "think" => (
            ToolKind::Todo,
            match s(input, "thought") {
                Some(t) => titles::finish(&format!("Thinking: {}", t.trim()), "Thinking"),
                None => "Thinking".to_owned(),
            },
        ),
        "invoke_skill" => (
            ToolKind::FileRead,
            labelled("Loading skill", s(input, "name")),
        ),
        "apply_patch" => (ToolKind::FileEdit, titles::patch(s(input, "patch"), cwd)),
        "glob" => match s(input, "pattern") {
            Some(p) => (ToolKind::FileRead, titles::glob(p, path("path").as_deref())),
            None => (ToolKind::FileRead, "Finding files".to_owned()),
        },
        "grep" => match s(input, "pattern") {
            Some(p) => (ToolKind::FileRead, titles::grep(p, path("path").as_deref())),
            None => (ToolKind::FileRead, "Searching file contents".to_owned()),
        },
        "read_file" => match path("file_path") {
            Some(p) => {
                let offset = n(input, "offset").filter(|o| *o >= 0).map(|o| o as u64 + 1);
                let limit = n(input, "limit").filter(|l| *l > 0).map(|l| l as u64);
                (ToolKind::FileRead, titles::read(&p, offset, limit))
            }
            None => (ToolKind::FileRead, "Reading a file".to_owned()),
        },
        "write_file" => match path("file_path") {
            Some(p) => (ToolKind::FileWrite, titles::write(&p)),
            None => (ToolKind::FileWrite, "Writing a file".to_owned()),
        },
        "edit" => match path("file_path") {
            Some(p) if s(input, "old_string").is_none() => {
                (ToolKind::FileWrite, titles::create(&p))
            }
            Some(p) => (ToolKind::FileEdit, titles::edit(&p)),
            None => (ToolKind::FileEdit, "Editing a file".to_owned()),
        },
        "list_directory" => match path("dir_path") {
            Some(p) => (ToolKind::FileRead, titles::list(&p)),
            None => (ToolKind::FileRead, "Listing a directory".to_owned()),
        },
        // Theory-of-Mind: a model consulted about what the user means.
        "tom_consult" => (
            ToolKind::Subagent,
            match s(input, "custom_query").or_else(|| s(input, "reason")) {
                Some(q) => titles::finish(
                    &format!("Consulting Tom: {}", q.trim()),
                    "Consulting Tom about the user",
                ),
                None => "Consulting Tom about the user".to_owned(),
            },
        ),
        "sleeptime_compute" => (
            ToolKind::Subagent,
            "Indexing past sessions for Tom".to_owned(),
        ),
        other => match browser(other, input) {
            Some(title) => (ToolKind::Browser, title),
            None => (ToolKind::Unknown, titles::generic(other, input, cwd)),
        },
    };
    Described {
        name: name.to_owned(),
        kind,
        title,
        mcp: None,
    }
}

/// A call's input from its action (`{…, "kind": "TerminalAction"}`): the fields the model gave,
/// without the class tag and the fields left `null` (the saved events leave them out; the
/// `--json` lines write them). An MCP action's arguments are its `data`.
pub(crate) fn input_of(action: &Value) -> Value {
    let Value::Object(fields) = action else {
        return Value::Object(Map::new());
    };
    if fields.get("kind").and_then(Value::as_str) == Some(MCP_ACTION)
        && let Some(data @ Value::Object(_)) = fields.get("data")
    {
        return data.clone();
    }
    Value::Object(
        fields
            .iter()
            .filter(|(k, v)| k.as_str() != "kind" && !v.is_null())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    )
}

/// The arguments of a call the agent could not turn into an action (`tool_call.arguments`, a
/// JSON text), without OpenHands' own `security_risk` and `summary`; `{}` when they do not parse.
pub(crate) fn arguments_of(text: &str) -> Value {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(mut o)) => {
            o.remove("security_risk");
            o.remove("summary");
            Value::Object(o)
        }
        _ => Value::Object(Map::new()),
    }
}

/// The text of an observation's `content` (`[{type: "text", text}, …]`), its text blocks joined.
pub(crate) fn content_text(observation: &Value) -> String {
    let mut out = String::new();
    for block in observation
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(t) = block.get("text").and_then(Value::as_str) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(t);
        }
    }
    out
}

/// What an observation (`{content, is_error, kind, …}`) came to: its text, or an error. A
/// command's non-zero exit code fails it (OpenHands leaves `is_error` false then), with the code;
/// an MCP result drops the `[Tool 'x' executed.]` line OpenHands puts first.
pub(crate) fn outcome(observation: &Value) -> (Result<Value, ToolError>, Option<i64>) {
    let kind = observation
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut text = content_text(observation);
    if kind == "MCPToolObservation"
        && text.starts_with("[Tool '")
        && let Some((_, rest)) = text.split_once(".]")
    {
        text = rest.trim_start_matches('\n').to_owned();
    }
    let exit = observation.get("exit_code").and_then(Value::as_i64);
    let is_error = observation.get("is_error").and_then(Value::as_bool) == Some(true);
    let timed_out = observation.get("timeout").and_then(Value::as_bool) == Some(true);
    let details = (!text.is_empty()).then(|| Value::String(text.clone()));
    if is_error {
        let message = first_line(&text).unwrap_or_else(|| "the tool call failed".to_owned());
        // A one-line error says everything in its message.
        let details = details.filter(|_| message != text.trim());
        let code = if timed_out {
            Some("timeout".to_owned())
        } else {
            exit.filter(|c| *c > 0).map(|c| c.to_string())
        };
        return (
            Err(ToolError {
                message,
                code,
                details,
            }),
            exit,
        );
    }
    // `-1` without an error: the command printed nothing new for a while and was left running
    // (OpenHands' soft timeout); the call itself answered.
    if let Some(c) = exit.filter(|c| *c != 0 && *c != -1) {
        return (
            Err(ToolError {
                message: format!("Exit code {c}"),
                code: Some(c.to_string()),
                details,
            }),
            exit,
        );
    }
    (Ok(Value::String(text)), exit)
}

/// The title of a `file_editor` `view` whose result lists a folder (`Here's the files and
/// directories up to 2 levels deep in /w/src, …`): `Listing src`.
pub(crate) fn listed_folder(observation: &Value, cwd: Option<&str>) -> Option<String> {
    let kind = observation.get("kind").and_then(Value::as_str)?;
    if !matches!(
        kind,
        "FileEditorObservation" | "PlanningFileEditorObservation"
    ) || observation.get("command").and_then(Value::as_str) != Some("view")
        || observation.get("is_error").and_then(Value::as_bool) == Some(true)
    {
        return None;
    }
    let path = observation.get("path").and_then(Value::as_str)?;
    content_text(observation)
        .starts_with("Here's the files and directories")
        .then(|| titles::list(&titles::display_path(path, cwd)))
}

/// The error of an `AgentErrorEvent`: a call OpenHands could not run (a tool it does not have,
/// arguments that do not validate).
pub(crate) fn agent_error(text: &str) -> ToolError {
    let message = first_line(text).unwrap_or_else(|| "the tool call failed".to_owned());
    let code = if text.contains("not found. Available") {
        Some("unknown_tool".to_owned())
    } else if text.starts_with("Error validating") || text.contains("validation error") {
        Some("invalid_input".to_owned())
    } else {
        None
    };
    ToolError {
        message,
        code,
        details: (first_line(text).as_deref() != Some(text.trim()))
            .then(|| Value::String(text.to_owned())),
    }
}

/// The error of a `UserRejectObservation`: the user (or a `PreToolUse` hook) said no.
pub(crate) fn rejected(reason: Option<&str>, source: Option<&str>) -> ToolError {
    let hook = source == Some("hook");
    ToolError {
        message: reason
            .and_then(first_line)
            .unwrap_or_else(|| "User rejected the action".to_owned()),
        code: Some(if hook { "blocked" } else { "declined" }.to_owned()),
        details: None,
    }
}

/// Every tool OpenHands (CLI 1.16, SDK and tools 1.21) can declare to the model.
// Read by the scenarios (the `cli` feature) and the tests below.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub const BUILTINS: &[&str] = &[
    "terminal",
    "file_editor",
    "task_tracker",
    "task",
    "finish",
    "think",
    "invoke_skill",
    "planning_file_editor",
    "glob",
    "grep",
    "apply_patch",
    "read_file",
    "write_file",
    "edit",
    "list_directory",
    "delegate",
    "tom_consult",
    "sleeptime_compute",
    "browser_navigate",
    "browser_click",
    "browser_type",
    "browser_get_state",
    "browser_get_content",
    "browser_scroll",
    "browser_go_back",
    "browser_list_tabs",
    "browser_switch_tab",
    "browser_close_tab",
    "browser_get_storage",
    "browser_set_storage",
    "browser_start_recording",
    "browser_stop_recording",
];

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_builtin_has_a_kind_and_a_specific_title() {
        for name in BUILTINS {
            let d = describe(name, None, &json!({}), None);
            assert_ne!(d.kind, ToolKind::Unknown, "{name}");
            assert_ne!(d.title, titles::generic(name, &json!({}), None), "{name}");
            assert!(!titles::restates(&d.title, name), "{name}: {}", d.title);
        }
    }

    #[test]
    fn file_editor_commands() {
        let cwd = Some("/w");
        let t = |input: Value| {
            let d = describe("file_editor", Some("FileEditorAction"), &input, cwd);
            (d.kind, d.title)
        };
        assert_eq!(
            t(json!({"command": "view", "path": "/w/a.rs", "view_range": [2, 4]})),
            (ToolKind::FileRead, "Reading a.rs (lines 2–4)".to_owned())
        );
        assert_eq!(
            t(json!({"command": "create", "path": "/w/n.txt", "file_text": "x"})),
            (ToolKind::FileWrite, "Creating n.txt".to_owned())
        );
        assert_eq!(
            t(json!({"command": "str_replace", "path": "/w/n.txt", "old_str": "a"})),
            (ToolKind::FileEdit, "Editing n.txt".to_owned())
        );
        assert_eq!(
            t(json!({"command": "insert", "path": "/w/n.txt", "insert_line": 3})).1,
            "Inserting into n.txt after line 3"
        );
        assert_eq!(
            t(json!({"command": "undo_edit", "path": "/w/n.txt"})).1,
            "Undoing the last edit to n.txt"
        );
    }

    #[test]
    fn terminal_todo_task_and_mcp() {
        let d = describe("terminal", None, &json!({"command": "ls -la"}), None);
        assert_eq!(
            (d.kind, d.title.as_str()),
            (ToolKind::Bash, "Running ls -la")
        );
        let d = describe(
            "task_tracker",
            None,
            &json!({"command": "plan", "task_list": [{"title": "a", "status": "done"}, {"title": "b"}]}),
            None,
        );
        assert_eq!(d.title, "Updating the todo list (2 items, 1 done)");
        let d = describe(
            "task",
            None,
            &json!({"description": "Count files", "prompt": "p"}),
            None,
        );
        assert_eq!(
            (d.kind, d.title.as_str()),
            (ToolKind::Subagent, "Count files")
        );
        let d = describe(
            "browser_navigate",
            Some(MCP_ACTION),
            &json!({"url": "https://example.com"}),
            None,
        );
        assert_eq!(d.kind, ToolKind::Browser);
        assert_eq!(d.title, "Opening browser page");
        assert_eq!(d.mcp.unwrap().tool, "browser_navigate");
        let d = describe("made_up", None, &json!({}), None);
        assert_eq!(d.kind, ToolKind::Unknown);
    }

    #[test]
    fn a_view_that_lists_a_folder_is_retitled() {
        let obs = json!({"content": [{"type": "text", "text": "Here's the files and directories up to 2 levels deep in /w/src, excluding hidden items:\n/w/src/"}],
            "is_error": false, "command": "view", "path": "/w/src", "kind": "FileEditorObservation"});
        assert_eq!(
            listed_folder(&obs, Some("/w")).as_deref(),
            Some("Listing src")
        );
        let file = json!({"content": [{"type": "text", "text": "Here's the result of running `cat -n`"}],
            "is_error": false, "command": "view", "path": "/w/a", "kind": "FileEditorObservation"});
        assert_eq!(listed_folder(&file, Some("/w")), None);
    }

    #[test]
    fn inputs_drop_nulls_and_the_class_tag() {
        let input = input_of(&json!({"command": "ls", "timeout": null, "kind": "TerminalAction"}));
        assert_eq!(input, json!({"command": "ls"}));
        let input = input_of(&json!({"data": {"url": "u"}, "kind": "MCPToolAction"}));
        assert_eq!(input, json!({"url": "u"}));
        assert_eq!(
            arguments_of(r#"{"x": 1, "security_risk": "LOW", "summary": "s"}"#),
            json!({"x": 1})
        );
        assert_eq!(arguments_of("not json"), json!({}));
    }

    #[test]
    fn outcomes_of_exit_codes_errors_and_mcp_results() {
        let (ok, exit) = outcome(&json!({"content": [{"type": "text", "text": "hi"}],
            "is_error": false, "exit_code": 0, "kind": "TerminalObservation"}));
        assert_eq!((ok.unwrap(), exit), (json!("hi"), Some(0)));
        let (failed, _) = outcome(&json!({"content": [{"type": "text", "text": "bad"}],
            "is_error": false, "exit_code": 3, "kind": "TerminalObservation"}));
        let e = failed.unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.code.as_deref()),
            ("Exit code 3", Some("3"))
        );
        let (failed, _) = outcome(
            &json!({"content": [{"type": "text", "text": "No replacement was performed"}],
            "is_error": true, "kind": "FileEditorObservation"}),
        );
        assert_eq!(failed.unwrap_err().message, "No replacement was performed");
        let (mcp, _) = outcome(
            &json!({"content": [{"type": "text", "text": "[Tool 'x' executed.]"},
            {"type": "text", "text": "page"}], "is_error": false, "kind": "MCPToolObservation"}),
        );
        assert_eq!(mcp.unwrap(), json!("page"));
        assert_eq!(
            agent_error("Tool 'nope' not found. Available: ['terminal']")
                .code
                .as_deref(),
            Some("unknown_tool")
        );
        assert_eq!(
            rejected(None, Some("hook")).code.as_deref(),
            Some("blocked")
        );
    }
}
