//! What `vibe-acp` (Mistral Vibe, `@mistralai/mistral-vibe` in its `initialize` response) says of
//! a call, read with Vibe's own tool table. Vibe names the tool in `_meta.tool_name` (`bash`,
//! `read_file`, `edit`; its harness's own namespaced, `vibe.unified_harness_scratchpad`), titles a call with its own summary (`bash: sh greet.sh`) and gives ACP
//! kinds by effect (`execute`, `read`, `edit`, and `other` for its todo list, questions and
//! scratchpad, `think` for a subagent): the part gets the tool's name, a kind, and a title from
//! its `rawInput`, as a native dialect gives them.

use serde_json::Value;

use super::tools::{CallView, Derived};
use crate::model::ToolKind;
use crate::providers::titles;

/// The name `vibe-acp` gives itself in `initialize` (`agentInfo.name`).
pub(crate) const AGENT_NAME: &str = "@mistralai/mistral-vibe";

/// Vibe 3.0's built-in tools: the unified harness's (what 3.0.2 declares) and the older loop's
/// built-ins (`vibe/core/tools/builtins`). Read by the scenarios (the `cli` feature) and the
/// tests below.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) const BUILTINS: &[&str] = &[
    "bash",
    "read_file",
    "write_file",
    "edit",
    "todo",
    "skill",
    "unified_harness_scratchpad",
    "cron",
    "wait",
    "search_tool_functions",
    "run_typescript",
    "search_replace",
    "grep",
    "task",
    "ask_user_question",
    "web_fetch",
    "web_search",
];

fn string<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// `label` alone, or `label detail` when there is a detail.
fn labelled(label: &str, detail: Option<&str>) -> String {
    match detail {
        Some(d) => titles::finish(&format!("{label} {}", d.trim()), label),
        None => label.to_owned(),
    }
}

/// Kind and title of a call of Vibe's built-in `tool`; `None` for a tool that is not one.
pub(crate) fn describe(tool: &str, input: &Value, cwd: Option<&str>) -> Option<(ToolKind, String)> {
    // The model's `path` / `file_path` arrive in `rawInput` as `filePath`.
    let file = || {
        ["filePath", "path", "file_path"]
            .iter()
            .find_map(|k| string(input, k))
            .map(|p| titles::display_path(p, cwd))
    };
    let path = |key: &str| string(input, key).map(|p| titles::display_path(p, cwd));
    let action = string(input, "action");
    Some(match tool {
        "bash" => match string(input, "command") {
            Some(c) => (ToolKind::Bash, titles::shell(c)),
            None => (ToolKind::Bash, "Running a shell command".to_owned()),
        },
        // `rawInput`'s offset is the first line, counted from 1 (the model's counts from 0); a
        // read without one is of the whole file, whatever its default limit.
        "read_file" => match file() {
            Some(p) => {
                let range = input
                    .get("offset")
                    .and_then(Value::as_u64)
                    .map(|offset| (offset, input.get("limit").and_then(Value::as_u64)));
                let title = match range {
                    Some((offset, limit)) => titles::read(&p, Some(offset), limit),
                    None => titles::read(&p, None, None),
                };
                (ToolKind::FileRead, title)
            }
            None => (ToolKind::FileRead, "Reading a file".to_owned()),
        },
        "write_file" => match file() {
            Some(p) => (ToolKind::FileWrite, titles::write(&p)),
            None => (ToolKind::FileWrite, "Writing a file".to_owned()),
        },
        "edit" | "search_replace" => match file() {
            Some(p) => (ToolKind::FileEdit, titles::edit(&p)),
            None => (ToolKind::FileEdit, "Editing a file".to_owned()),
        },
        "grep" => match string(input, "pattern") {
            Some(p) => (ToolKind::FileRead, titles::grep(p, path("path").as_deref())),
            None => (ToolKind::FileRead, "Searching files".to_owned()),
        },
        "todo" => {
            let todos = input.get("todos").and_then(Value::as_array);
            match (action, todos) {
                (_, Some(t)) => {
                    let done = t
                        .iter()
                        .filter(|t| t.get("status").and_then(Value::as_str) == Some("completed"))
                        .count();
                    (ToolKind::Todo, titles::todo(t.len(), done))
                }
                (Some("read"), None) => (ToolKind::Todo, "Reading the todo list".to_owned()),
                _ => (ToolKind::Todo, titles::todo(0, 0)),
            }
        }
        "skill" => (
            ToolKind::FileRead,
            labelled("Loading skill", string(input, "name")),
        ),
        "task" => (
            ToolKind::Subagent,
            titles::subagent(None, string(input, "task")),
        ),
        "ask_user_question" => (
            ToolKind::Question,
            titles::questions(input.get("questions")),
        ),
        "web_fetch" => (
            ToolKind::Browser,
            titles::fetch(string(input, "url").unwrap_or("")),
        ),
        "web_search" => (
            ToolKind::WebSearch,
            titles::web_search(string(input, "query").unwrap_or("")),
        ),
        // The unified harness's own tools.
        "unified_harness_scratchpad" => {
            let note = string(input, "path");
            match action {
                Some("write" | "append") => (
                    ToolKind::FileWrite,
                    labelled("Writing scratchpad note", note),
                ),
                Some("list") => (ToolKind::FileRead, "Listing the scratchpad".to_owned()),
                Some("delete") => (
                    ToolKind::FileWrite,
                    labelled("Deleting scratchpad note", note),
                ),
                _ => (
                    ToolKind::FileRead,
                    labelled("Reading scratchpad note", note),
                ),
            }
        }
        "cron" => (
            ToolKind::Todo,
            match action {
                Some("list") => "Listing scheduled prompts".to_owned(),
                Some("cancel") => labelled("Cancelling scheduled prompt", string(input, "id")),
                // `schedule` / `schedule_cron`: the prompt's first line names the loop.
                Some("clear") => "Clearing scheduled prompts".to_owned(),
                _ => {
                    let name = string(input, "prompt").and_then(|p| p.lines().next());
                    let when = match (
                        string(input, "cron"),
                        input.get("interval_seconds").and_then(Value::as_u64),
                    ) {
                        (Some(c), _) => format!(" at {}", c.trim()),
                        (None, Some(s)) => format!(" every {s} s"),
                        _ => String::new(),
                    };
                    match name.map(str::trim).filter(|n| !n.is_empty()) {
                        Some(n) => {
                            titles::finish(&format!("Scheduling {n}{when}"), "Scheduling a prompt")
                        }
                        None => format!("Scheduling a prompt{when}"),
                    }
                }
            },
        ),
        "wait" => (
            ToolKind::Todo,
            match input.get("timeout_ms").and_then(Value::as_u64) {
                Some(ms) => format!("Waiting for input ({ms} ms at most)"),
                None => "Waiting for input".to_owned(),
            },
        ),
        "search_tool_functions" => (
            ToolKind::Mcp,
            match string(input, "query") {
                Some(q) => labelled("Searching tool functions for", Some(q)),
                None => "Searching tool functions".to_owned(),
            },
        ),
        "run_typescript" => (
            ToolKind::Bash,
            match string(input, "code").and_then(|c| {
                c.lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty() && !l.starts_with("//"))
            }) {
                Some(line) => {
                    titles::finish(&format!("Running TypeScript: {line}"), "Running TypeScript")
                }
                None => "Running TypeScript".to_owned(),
            },
        ),
        _ => return None,
    })
}

/// Refine the part derived from ACP's fields for a `vibe-acp` call.
pub(crate) fn refine_acp(d: &mut Derived, view: &CallView, cwd: Option<&str>) {
    let Some(tool) = view.meta.get("tool_name").and_then(Value::as_str) else {
        return;
    };
    // The harness's own tools are namespaced (`vibe.unified_harness_scratchpad`); the model
    // knows them by the last part.
    let tool = tool.rsplit('.').next().unwrap_or(tool);
    let input = match &view.raw_input {
        Some(v @ Value::Object(_)) => v.clone(),
        _ => Value::Object(Default::default()),
    };
    if let Some((kind, title)) = describe(tool, &input, cwd) {
        d.name = tool.to_owned();
        d.kind = kind;
        d.title = title;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Every built-in tool has a kind other than `unknown` and a title that is not its name.
    #[test]
    fn every_builtin_tool_is_titled() {
        for tool in BUILTINS {
            let (kind, title) = describe(tool, &json!({}), None).unwrap();
            assert_ne!(kind, ToolKind::Unknown, "{tool}");
            assert!(!titles::restates(&title, tool), "{tool}: {title}");
        }
        assert!(describe("amalgm_browser_navigate", &json!({}), None).is_none());
        let cases = [
            (
                "bash",
                json!({"command": "sh greet.sh"}),
                "Running sh greet.sh",
            ),
            (
                "read_file",
                json!({"filePath": "/w/app.log", "offset": 2, "limit": 2}),
                "Reading app.log (lines 2–3)",
            ),
            (
                "edit",
                json!({"file_path": "/w/config.py"}),
                "Editing config.py",
            ),
            (
                "todo",
                json!({"action": "write", "todos": [{"content": "a", "status": "completed"}, {"content": "b", "status": "pending"}]}),
                "Updating the todo list (2 items, 1 done)",
            ),
            (
                "unified_harness_scratchpad",
                json!({"action": "write", "path": "notes.md"}),
                "Writing scratchpad note notes.md",
            ),
            (
                "cron",
                json!({"action": "create", "interval_seconds": 60}),
                "Scheduling a prompt every 60 s",
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
