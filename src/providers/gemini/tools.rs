//! Gemini CLI and Qwen Code tool names → the part's name, kind and title (wording from the
//! shared [`titles`]). The two CLIs share their oldest tools and their parameter names
//! (`run_shell_command {command}`, `read_file {file_path}`, `write_file`, `glob`, `grep_search`,
//! `list_directory`, `web_fetch`, `save_memory`) but differ where the fork went its own way, and
//! the table says so per [`Family`]: Gemini's `replace` / `google_web_search` / `write_todos`
//! (`{description, status}` items) / `invoke_agent` / `read_file {start_line, end_line}`, Qwen's
//! `edit` / `web_search` / `todo_write` (`{content, status}` items) / `agent` and `task` /
//! `read_file {offset, limit}` (a 0-based offset) and its `tool_call` wrapper of deferred tools.
//!
//! MCP tools: Gemini CLI declares them as `mcp_<server>_<tool>` (releases before the `mcp_`
//! prefix: the bare tool name, or `<server>__<tool>` on a clash), Qwen Code as
//! `mcp__<server>__<tool>` (Claude's spelling); both become `metadata.mcp {server, tool}`.

use serde_json::Value;

use crate::model::{McpRef, ToolKind};
use crate::providers::titles;
use crate::providers::titles::nonblank as s;

/// Which CLI of the family wrote the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    Gemini,
    Qwen,
}

/// A call's name, kind, title and MCP identity.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Described {
    pub name: String,
    pub kind: ToolKind,
    pub title: String,
    pub mcp: Option<McpRef>,
}

fn n(input: &Value, key: &str) -> Option<u64> {
    input.get(key).and_then(|v| {
        v.as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
    })
}

/// `Reading task 3`, or the bare action when the detail is missing.
fn with_detail(action: &str, detail: Option<&str>) -> String {
    match detail {
        Some(d) => titles::finish(&format!("{action} {}", d.trim()), action),
        None => action.to_owned(),
    }
}

/// The MCP server and tool of an MCP tool's declared name, if it is one. Gemini CLI's
/// `mcp_<server>_<tool>` is split at the first `_` after the prefix (a server name with `_` in
/// it is ambiguous on the wire; the tool keeps the rest).
pub(crate) fn split_mcp(family: Family, name: &str) -> Option<(&str, &str)> {
    if let Some(rest) = name.strip_prefix("mcp__") {
        let (server, tool) = rest.split_once("__")?;
        return (!server.is_empty() && !tool.is_empty()).then_some((server, tool));
    }
    if family == Family::Gemini {
        if let Some(rest) = name.strip_prefix("mcp_") {
            let (server, tool) = rest.split_once('_')?;
            return (!server.is_empty() && !tool.is_empty()).then_some((server, tool));
        }
        // Releases before the `mcp_` prefix: `<server>__<tool>` when two servers clash.
        if builtin(family, name, &Value::Null, None).is_none()
            && let Some((server, tool)) = name.split_once("__")
        {
            return (!server.is_empty() && !tool.is_empty()).then_some((server, tool));
        }
    }
    None
}

/// A call's description. `cwd` makes paths in titles relative.
pub(crate) fn describe(family: Family, name: &str, input: &Value, cwd: Option<&str>) -> Described {
    if let Some((server, tool)) = split_mcp(family, name) {
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
    // Qwen's `tool_call {name, arguments}` runs a deferred tool: it reads as that tool.
    if family == Family::Qwen
        && name == "tool_call"
        && let Some(inner) = s(input, "name").filter(|n| *n != "tool_call")
    {
        let args = match input.get("arguments") {
            Some(Value::String(text)) => serde_json::from_str(text).unwrap_or(Value::Null),
            Some(v) => v.clone(),
            None => Value::Null,
        };
        let d = describe(family, inner, &args, cwd);
        return Described {
            name: name.to_owned(),
            ..d
        };
    }
    let (kind, title) = builtin(family, name, input, cwd)
        .unwrap_or_else(|| (ToolKind::Unknown, titles::generic(name, input, cwd)));
    Described {
        name: name.to_owned(),
        kind,
        title,
        mcp: None,
    }
}

/// Kind and title of a built-in tool of `family`; `None` for a name the table does not know.
pub(crate) fn builtin(
    family: Family,
    name: &str,
    input: &Value,
    cwd: Option<&str>,
) -> Option<(ToolKind, String)> {
    // The working directory itself reads better as its path than as ".".
    let path = |key: &str| {
        s(input, key).map(|p| match titles::display_path(p, cwd) {
            rel if rel == "." => p.to_owned(),
            rel => rel,
        })
    };
    // Search scopes equal to the working directory are left out of titles altogether.
    let scope = |key: &str| s(input, key).map(|p| titles::display_path(p, cwd));
    let gemini = family == Family::Gemini;
    Some(match name {
        "run_shell_command" => (
            ToolKind::Bash,
            titles::shell(s(input, "command").unwrap_or("")),
        ),
        "list_background_processes" => (ToolKind::Bash, "Listing background processes".to_owned()),
        "read_background_output" => (
            ToolKind::Bash,
            match n(input, "pid") {
                Some(pid) => format!("Reading output of background process {pid}"),
                None => "Reading output of a background process".to_owned(),
            },
        ),
        "read_file" => match path(if input.get("absolute_path").is_some() {
            "absolute_path"
        } else {
            "file_path"
        }) {
            Some(p) => {
                let (first, count) = if gemini && input.get("start_line").is_some() {
                    let start = n(input, "start_line");
                    let end = n(input, "end_line");
                    (start, end.map(|e| e.saturating_sub(start.unwrap_or(1)) + 1))
                } else {
                    // `offset` is 0-based in both CLIs' `read_file`.
                    (n(input, "offset").map(|o| o + 1), n(input, "limit"))
                };
                (ToolKind::FileRead, titles::read(&p, first, count))
            }
            None => (ToolKind::FileRead, "Reading a file".to_owned()),
        },
        "read_many_files" => {
            let paths: Vec<&str> = input
                .get("include")
                .or_else(|| input.get("paths"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let title = match paths.as_slice() {
                [] => "Reading files".to_owned(),
                [one] => titles::read(one, None, None),
                many => titles::finish(&format!("Reading {}", many.join(", ")), "Reading files"),
            };
            (ToolKind::FileRead, title)
        }
        "write_file" => match path("file_path") {
            Some(p) => (ToolKind::FileWrite, titles::write(&p)),
            None => (ToolKind::FileWrite, "Writing a file".to_owned()),
        },
        "replace" | "edit" => match path("file_path") {
            Some(p) => (ToolKind::FileEdit, titles::edit(&p)),
            None => (ToolKind::FileEdit, "Editing a file".to_owned()),
        },
        "notebook_edit" => match path("notebook_path") {
            Some(p) => (ToolKind::FileEdit, titles::edit(&p)),
            None => (ToolKind::FileEdit, "Editing a notebook".to_owned()),
        },
        "glob" => match s(input, "pattern") {
            Some(pat) => {
                let within = scope("dir_path").or_else(|| scope("path"));
                (ToolKind::FileRead, titles::glob(pat, within.as_deref()))
            }
            None => (ToolKind::FileRead, "Finding files".to_owned()),
        },
        "grep_search" | "search_file_content" | "grep" => match s(input, "pattern") {
            Some(pat) => {
                let within = scope("dir_path")
                    .or_else(|| scope("path"))
                    .or_else(|| s(input, "include_pattern").map(str::to_owned))
                    .or_else(|| s(input, "include").map(str::to_owned))
                    .or_else(|| s(input, "glob").map(str::to_owned));
                (ToolKind::FileRead, titles::grep(pat, within.as_deref()))
            }
            None => (ToolKind::FileRead, "Searching files".to_owned()),
        },
        "list_directory" | "ls" => match path("dir_path").or_else(|| path("path")) {
            Some(p) => (ToolKind::FileRead, titles::list(&p)),
            None => (ToolKind::FileRead, "Listing files".to_owned()),
        },
        "web_fetch" => {
            // Gemini's takes a prompt with the URLs in it, Qwen's a `url`.
            let url = s(input, "url").map(str::to_owned).or_else(|| {
                s(input, "prompt").and_then(|p| {
                    p.split_whitespace()
                        .find(|w| w.starts_with("http://") || w.starts_with("https://"))
                        .map(|w| w.trim_end_matches(['.', ',', ')', '"', '\'']).to_owned())
                })
            });
            let title = match url {
                Some(u) => titles::fetch(&u),
                None => "Fetching a web page".to_owned(),
            };
            (ToolKind::Browser, title)
        }
        "google_web_search" | "web_search" => (
            ToolKind::WebSearch,
            titles::web_search(s(input, "query").unwrap_or("")),
        ),
        "write_todos" | "todo_write" => {
            let todos = input.get("todos").and_then(Value::as_array);
            let total = todos.map_or(0, Vec::len);
            let done = todos.map_or(0, |t| {
                t.iter()
                    .filter(|i| i.get("status").and_then(Value::as_str) == Some("completed"))
                    .count()
            });
            (ToolKind::Todo, titles::todo(total, done))
        }
        "save_memory" => (
            ToolKind::FileWrite,
            with_detail("Saving to memory:", s(input, "fact")),
        ),
        "ask_user" | "ask_user_question" => (
            ToolKind::Question,
            titles::questions(input.get("questions")),
        ),
        "activate_skill" => (
            ToolKind::FileRead,
            with_detail("Loading skill", s(input, "name")),
        ),
        "skill" => (
            ToolKind::FileRead,
            with_detail(
                "Loading skill",
                s(input, "skill").or_else(|| s(input, "name")),
            ),
        ),
        "get_internal_docs" => (
            ToolKind::FileRead,
            with_detail("Reading the CLI documentation", s(input, "path")),
        ),
        "enter_plan_mode" => (ToolKind::Todo, "Entering plan mode".to_owned()),
        "exit_plan_mode" => (
            ToolKind::Todo,
            match s(input, "plan_filename").or_else(|| s(input, "plan")) {
                Some(p) => titles::finish(
                    &format!(
                        "Presenting plan: {}",
                        p.lines().next().unwrap_or(p).trim_start_matches('#').trim()
                    ),
                    "Presenting a plan",
                ),
                None => "Presenting a plan".to_owned(),
            },
        ),
        "update_topic" => (
            ToolKind::Todo,
            match s(input, "title") {
                Some(t) => titles::finish(
                    &format!("Starting topic: {}", t.trim()),
                    "Updating the topic",
                ),
                None => with_detail("Updating the topic:", s(input, "strategic_intent")),
            },
        ),
        "complete_task" => (ToolKind::Subagent, "Reporting the task's result".to_owned()),
        "invoke_agent" => {
            let agent = s(input, "agent_name");
            let prompt = s(input, "prompt");
            let title = match (agent, prompt) {
                (Some(a), Some(p)) => {
                    titles::finish(&format!("{a}: {}", p.trim()), "Running a subagent")
                }
                (Some(a), None) => format!("Running subagent {a}"),
                (None, p) => titles::subagent(None, p),
            };
            (ToolKind::Subagent, title)
        }
        // Gemini CLI's subagents declared as tools of their own (before `invoke_agent`).
        "codebase_investigator" | "cli_help" | "generalist" | "browser_agent" => {
            let task = s(input, "objective")
                .or_else(|| s(input, "question"))
                .or_else(|| s(input, "request"))
                .or_else(|| s(input, "prompt"));
            let title = match task {
                Some(t) => titles::finish(&format!("{name}: {}", t.trim()), "Running a subagent"),
                None => format!("Running subagent {name}"),
            };
            (ToolKind::Subagent, title)
        }
        "agent" | "task" => (
            ToolKind::Subagent,
            titles::subagent(s(input, "description"), s(input, "prompt")),
        ),
        "list_agents" => (ToolKind::Subagent, "Listing agents".to_owned()),
        // Qwen Code's agent team (`experimental.agentTeam`) and workflows.
        "team_create" => (
            ToolKind::Subagent,
            with_detail("Creating team", s(input, "team_name")),
        ),
        "team_delete" => (ToolKind::Subagent, "Deleting the team".to_owned()),
        "team_plan_approval" => (
            ToolKind::Subagent,
            match s(input, "action") {
                Some("approve") => "Approving a teammate's plan".to_owned(),
                Some("reject") => "Rejecting a teammate's plan".to_owned(),
                _ => "Reviewing a teammate's plan".to_owned(),
            },
        ),
        "workflow" => (
            ToolKind::Subagent,
            with_detail(
                "Running workflow",
                s(input, "name").or_else(|| s(input, "scriptPath")),
            ),
        ),
        "send_message" => (
            ToolKind::Subagent,
            with_detail(
                "Messaging",
                s(input, "to").or_else(|| s(input, "recipient")),
            ),
        ),
        "tracker_create_task" | "task_create" => (
            ToolKind::Todo,
            with_detail(
                "Creating task",
                s(input, "title").or_else(|| s(input, "subject")),
            ),
        ),
        "tracker_update_task" | "task_update" => (
            ToolKind::Todo,
            with_detail(
                "Updating task",
                s(input, "id")
                    .or_else(|| s(input, "taskId"))
                    .or_else(|| s(input, "task_id")),
            ),
        ),
        "tracker_get_task" => (ToolKind::Todo, with_detail("Reading task", s(input, "id"))),
        "tracker_list_tasks" | "task_list" => (ToolKind::Todo, "Listing tasks".to_owned()),
        "tracker_add_dependency" => (ToolKind::Todo, "Adding a task dependency".to_owned()),
        "tracker_visualize" => (ToolKind::Todo, "Drawing the task graph".to_owned()),
        "task_stop" => (
            ToolKind::Bash,
            with_detail(
                "Stopping background task",
                s(input, "task_id").or_else(|| s(input, "id")),
            ),
        ),
        "monitor" => (
            ToolKind::Bash,
            match s(input, "command") {
                Some(c) => titles::finish(
                    &format!("Monitoring {}", titles::unwrap_shell(c)),
                    "Monitoring a command",
                ),
                None => with_detail("Monitoring", s(input, "description")),
            },
        ),
        "get_goal" => (ToolKind::Todo, "Reading the goal".to_owned()),
        "update_goal" | "propose_goal" => (
            ToolKind::Todo,
            match s(input, "status") {
                Some(st) => format!("Updating the goal ({st})"),
                None => "Updating the goal".to_owned(),
            },
        ),
        "cron_create" => (
            ToolKind::Todo,
            with_detail(
                "Scheduling",
                s(input, "cron").or_else(|| s(input, "schedule")),
            ),
        ),
        "cron_list" => (ToolKind::Todo, "Listing scheduled jobs".to_owned()),
        "cron_delete" => (
            ToolKind::Todo,
            with_detail("Deleting scheduled job", s(input, "id")),
        ),
        "loop_wakeup" => (ToolKind::Todo, "Scheduling a wake-up".to_owned()),
        // Claude Code's ToolSearch reads the same way.
        "tool_search" => (
            ToolKind::Mcp,
            with_detail("Searching tools for", s(input, "query")),
        ),
        "tool_call" => (ToolKind::Mcp, with_detail("Calling tool", s(input, "name"))),
        "list_mcp_resources" => (
            ToolKind::Mcp,
            with_detail(
                "Listing MCP resources of",
                s(input, "server_name").or_else(|| s(input, "server")),
            ),
        ),
        "read_mcp_resource" => (
            ToolKind::Mcp,
            with_detail("Reading MCP resource", s(input, "uri")),
        ),
        "zoom_image" | "display_image" => match path("file_path").or_else(|| path("path")) {
            Some(p) => (ToolKind::FileRead, titles::view_image(&p)),
            None => (ToolKind::FileRead, "Viewing an image".to_owned()),
        },
        "lsp" => (
            ToolKind::FileRead,
            with_detail(
                "Querying the language server:",
                s(input, "operation").or_else(|| s(input, "method")),
            ),
        ),
        "enter_worktree" => (
            ToolKind::Bash,
            with_detail(
                "Entering worktree",
                s(input, "name").or_else(|| s(input, "branch")),
            ),
        ),
        "exit_worktree" => (ToolKind::Bash, "Leaving the worktree".to_owned()),
        "report_findings" => (ToolKind::Todo, "Reporting findings".to_owned()),
        "record_artifact" => (
            ToolKind::FileWrite,
            with_detail(
                "Recording artifact",
                s(input, "path").or_else(|| s(input, "name")),
            ),
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn mcp_names_split_in_each_spelling() {
        assert_eq!(
            split_mcp(Family::Gemini, "mcp_amalgm_browser_navigate"),
            Some(("amalgm", "browser_navigate"))
        );
        assert_eq!(
            split_mcp(Family::Qwen, "mcp__amalgm__browser_snapshot"),
            Some(("amalgm", "browser_snapshot"))
        );
        assert_eq!(
            split_mcp(Family::Gemini, "amalgm__artifacts_register"),
            Some(("amalgm", "artifacts_register"))
        );
        assert_eq!(split_mcp(Family::Gemini, "read_file"), None);
        assert_eq!(split_mcp(Family::Qwen, "mcp_amalgm_x"), None);
    }

    #[test]
    fn the_forks_read_their_own_parameters() {
        let g = describe(
            Family::Gemini,
            "read_file",
            &json!({"file_path": "/w/a.md", "start_line": 3, "end_line": 5}),
            Some("/w"),
        );
        assert_eq!(g.title, "Reading a.md (lines 3–5)");
        let q = describe(
            Family::Qwen,
            "read_file",
            &json!({"file_path": "/w/a.md", "offset": 2, "limit": 3}),
            Some("/w"),
        );
        assert_eq!(q.title, "Reading a.md (lines 3–5)");
        let t = describe(
            Family::Qwen,
            "tool_call",
            &json!({"name": "web_fetch", "arguments": "{\"url\":\"https://docs.rs/serde\",\"prompt\":\"x\"}"}),
            None,
        );
        assert_eq!((t.name.as_str(), t.kind), ("tool_call", ToolKind::Browser));
        assert_eq!(t.title, "Fetching docs.rs/serde");
        let f = describe(
            Family::Gemini,
            "web_fetch",
            &json!({"prompt": "Summarize https://status.example.com/a.html."}),
            None,
        );
        assert_eq!(f.title, "Fetching status.example.com/a.html");
    }

    #[test]
    fn qwen_team_and_workflow_tools_are_subagent_work() {
        let q = |name: &str, input: Value| {
            let d = describe(Family::Qwen, name, &input, None);
            (d.kind, d.title)
        };
        let sub = |t: &str| (ToolKind::Subagent, t.to_owned());
        assert_eq!(
            q("team_create", json!({"team_name": "release"})),
            sub("Creating team release")
        );
        assert_eq!(q("team_delete", json!({})), sub("Deleting the team"));
        assert_eq!(
            q(
                "team_plan_approval",
                json!({"request_id": "r1", "action": "approve"})
            ),
            sub("Approving a teammate's plan")
        );
        assert_eq!(
            q("team_plan_approval", json!({})),
            sub("Reviewing a teammate's plan")
        );
        assert_eq!(
            q("workflow", json!({"name": "nightly"})),
            sub("Running workflow nightly")
        );
    }
}
