//! droid's tool names → name, kind and title; a result's output and a failure's error. Built-ins
//! are known by name (droid 0.215: the tools its `init` line lists); `<server>___<tool>` (three
//! underscores) is an MCP tool; anything else reads through the shared generic title.

use serde_json::Value;

use crate::model::{McpRef, ToolError, ToolKind};
use crate::providers::titles;
use crate::providers::titles::nonblank as s;

/// What a call's name and input say.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Described {
    pub name: String,
    pub kind: ToolKind,
    pub title: String,
    pub mcp: Option<McpRef>,
}

/// `amalgm___browser_navigate` → (`amalgm`, `browser_navigate`).
pub(super) fn split_mcp(name: &str) -> Option<(&str, &str)> {
    let (server, tool) = name.split_once("___")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

fn n(input: &Value, key: &str) -> Option<u64> {
    let v = input.get(key)?;
    v.as_u64()
        .or_else(|| v.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
        .or_else(|| v.as_str().and_then(|t| t.trim().parse().ok()))
}

/// `Stopping task 3`, or the bare action when the detail is missing.
fn labelled(action: &str, detail: Option<&str>) -> String {
    match detail {
        Some(d) => titles::finish(&format!("{action} {}", d.trim()), action),
        None => action.to_owned(),
    }
}

/// A string or a list of strings, joined with `, `.
fn one_or_many(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(t) if !t.trim().is_empty() => Some(t.trim().to_owned()),
        Value::Array(items) => {
            let parts: Vec<&str> = items
                .iter()
                .filter_map(Value::as_str)
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .collect();
            (!parts.is_empty()).then(|| parts.join(", "))
        }
        _ => None,
    }
}

/// TodoWrite's list: numbered lines with a status marker (`1. [completed] First task`), or
/// (older releases) an array of `{content, status}`.
fn todo_counts(todos: Option<&Value>) -> (usize, usize) {
    match todos {
        Some(Value::String(text)) => {
            let items: Vec<&str> = text.lines().filter(|l| l.contains('[')).collect();
            let done = items.iter().filter(|l| l.contains("[completed]")).count();
            (items.len(), done)
        }
        Some(Value::Array(items)) => {
            let done = items
                .iter()
                .filter(|i| i.get("status").and_then(Value::as_str) == Some("completed"))
                .count();
            (items.len(), done)
        }
        _ => (0, 0),
    }
}

/// Kind and title of a call from its name and (possibly empty) input; `cwd` makes paths
/// relative.
pub(super) fn describe(name: &str, input: &Value, cwd: Option<&str>) -> Described {
    if let Some((server, tool)) = split_mcp(name) {
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
    // The working directory itself reads better as its path than as ".".
    let path = |key: &str| {
        s(input, key).map(|p| match titles::display_path(p, cwd) {
            rel if rel == "." => p.to_owned(),
            rel => rel,
        })
    };
    let scope = |key: &str| s(input, key).map(|p| titles::display_path(p, cwd));
    let (kind, title) = match name {
        "Execute" => {
            let title = match s(input, "command") {
                Some(c) if input.get("fireAndForget").and_then(Value::as_bool) == Some(true) => {
                    labelled(
                        "Starting in the background:",
                        Some(&titles::unwrap_shell(c)),
                    )
                }
                Some(c) => titles::shell(c),
                None => match s(input, "summary") {
                    Some(sum) => labelled("Running:", Some(sum)),
                    None => "Running a shell command".to_owned(),
                },
            };
            (ToolKind::Bash, title)
        }
        "Read" => match path("file_path") {
            Some(p) => (
                ToolKind::FileRead,
                titles::read(&p, n(input, "offset"), n(input, "limit")),
            ),
            None => (ToolKind::FileRead, "Reading a file".to_owned()),
        },
        "LS" => match path("directory_path") {
            Some(p) => (ToolKind::FileRead, titles::list(&p)),
            None => (
                ToolKind::FileRead,
                "Listing the working directory".to_owned(),
            ),
        },
        "Create" => match path("file_path") {
            Some(p) => (ToolKind::FileWrite, titles::create(&p)),
            None => (ToolKind::FileWrite, "Creating a file".to_owned()),
        },
        "Edit" => match path("file_path") {
            Some(p) => (ToolKind::FileEdit, titles::edit(&p)),
            None => (ToolKind::FileEdit, "Editing a file".to_owned()),
        },
        "ApplyPatch" => (
            ToolKind::FileEdit,
            titles::patch(s(input, "input").or_else(|| s(input, "patch")), cwd),
        ),
        "Grep" => match s(input, "pattern") {
            Some(p) => {
                let within = scope("path").or_else(|| s(input, "glob_pattern").map(str::to_owned));
                (ToolKind::FileRead, titles::grep(p, within.as_deref()))
            }
            None => (ToolKind::FileRead, "Searching files".to_owned()),
        },
        "Glob" => match one_or_many(input.get("patterns")) {
            Some(p) => (
                ToolKind::FileRead,
                titles::glob(&p, scope("folder").as_deref()),
            ),
            None => (ToolKind::FileRead, "Finding files".to_owned()),
        },
        "FetchUrl" => (
            ToolKind::Browser,
            titles::fetch(s(input, "url").unwrap_or("")),
        ),
        "WebSearch" => (
            ToolKind::WebSearch,
            titles::web_search(s(input, "query").unwrap_or("")),
        ),
        "TodoWrite" => {
            let (total, done) = todo_counts(input.get("todos"));
            (ToolKind::Todo, titles::todo(total, done))
        }
        "AskUser" => {
            let questions = input
                .get("questions")
                .or_else(|| input.get("questionnaire"));
            let title = match questions {
                Some(Value::String(q)) => titles::question(Some(q.lines().next().unwrap_or(q)), 1),
                other => titles::questions(other),
            };
            (ToolKind::Question, title)
        }
        "Task" => (
            ToolKind::Subagent,
            titles::subagent(s(input, "description"), s(input, "prompt")),
        ),
        "TaskOutput" => (
            ToolKind::Subagent,
            labelled("Reading the report of task", s(input, "task_id")),
        ),
        "TaskStop" => (
            ToolKind::Subagent,
            labelled("Stopping task", s(input, "task_id")),
        ),
        // Loads the schemas of deferred tools (like Claude Code's ToolSearch).
        "ToolSearch" => {
            let title = match s(input, "query") {
                Some(q) => match q.strip_prefix("select:") {
                    Some(names) => titles::finish(
                        &format!("Loading tools {}", names.replace(',', ", ")),
                        "Loading tools",
                    ),
                    None => titles::finish(&format!("Searching tools for {q}"), "Searching tools"),
                },
                None => "Searching tools".to_owned(),
            };
            (ToolKind::Mcp, title)
        }
        "Skill" => (
            ToolKind::FileRead,
            labelled("Loading skill", s(input, "skill")),
        ),
        // Runs a script in droid's sandboxed runtime, and waits for a background one.
        "Script" => (
            ToolKind::Bash,
            match s(input, "description").or_else(|| s(input, "summary")) {
                Some(d) => labelled("Running script:", Some(d)),
                None => "Running a script".to_owned(),
            },
        ),
        "WaitForScript" => (
            ToolKind::Bash,
            labelled(
                "Waiting for script",
                s(input, "script_id").or_else(|| s(input, "id")),
            ),
        ),
        // A recurring prompt on a cron schedule (`create`, `list`, `cancel`).
        "Loop" => {
            let title = match s(input, "action") {
                Some("create") => match (s(input, "cron"), s(input, "prompt")) {
                    (Some(c), Some(p)) => {
                        titles::finish(&format!("Scheduling \"{p}\" ({c})"), "Scheduling a loop")
                    }
                    (None, Some(p)) => labelled("Scheduling", Some(&format!("\"{p}\""))),
                    (Some(c), None) => labelled("Scheduling a loop at", Some(c)),
                    (None, None) => "Scheduling a loop".to_owned(),
                },
                Some("list") => "Listing scheduled loops".to_owned(),
                Some("cancel") => labelled("Cancelling loop", s(input, "loopId")),
                _ => "Managing scheduled loops".to_owned(),
            };
            (ToolKind::Todo, title)
        }
        "ExitSpecMode" => {
            let first = s(input, "plan")
                .or_else(|| s(input, "title"))
                .and_then(|p| p.lines().map(str::trim).find(|l| !l.is_empty()))
                .map(|l| l.trim_start_matches('#').trim());
            (ToolKind::Todo, labelled("Presenting specification:", first))
        }
        "UpgradeSessionModel" => (
            ToolKind::Todo,
            labelled(
                "Switching the session's model to",
                s(input, "model").or_else(|| s(input, "modelId")),
            ),
        ),
        "GenerateImage" => (
            ToolKind::FileWrite,
            labelled("Generating an image:", s(input, "prompt")),
        ),
        "GenerateDroid" => (
            ToolKind::FileWrite,
            labelled("Generating a droid:", s(input, "description")),
        ),
        // Factory's built-in Slack integration.
        "slack_post_file" => (
            ToolKind::Mcp,
            match (path("filePath"), s(input, "channel")) {
                (Some(f), Some(c)) => {
                    titles::finish(&format!("Posting {f} to Slack {c}"), "Posting to Slack")
                }
                (Some(f), None) => labelled("Posting to Slack:", Some(&f)),
                (None, c) => labelled("Posting a file to Slack", c),
            },
        ),
        "slack_post_message" => (
            ToolKind::Mcp,
            labelled(
                "Posting to Slack",
                s(input, "channel").or_else(|| s(input, "channelId")),
            ),
        ),
        "slack_create_or_update_code_channel" => (
            ToolKind::Mcp,
            labelled(
                "Setting up Slack code channel",
                s(input, "name").or_else(|| s(input, "channel")),
            ),
        ),
        "slack_archive_code_channel" => (
            ToolKind::Mcp,
            labelled(
                "Archiving Slack code channel",
                s(input, "name").or_else(|| s(input, "channel")),
            ),
        ),
        // Factory's agent-readiness and effectiveness reports (its web service).
        "store_agent_readiness_report" => (
            ToolKind::Mcp,
            match s(input, "repo").or_else(|| s(input, "repository")) {
                Some(r) => labelled("Storing the agent readiness report of", Some(r)),
                None => "Storing the agent readiness report".to_owned(),
            },
        ),
        "get_agent_effectiveness_usage" => (
            ToolKind::Mcp,
            "Reading agent effectiveness usage".to_owned(),
        ),
        "render_agent_effectiveness_report" => (
            ToolKind::Mcp,
            "Rendering the agent effectiveness report".to_owned(),
        ),
        // Mission mode: an orchestrator's plan and its workers' runs.
        "ProposeMission" => (
            ToolKind::Todo,
            labelled(
                "Proposing mission:",
                s(input, "title").or_else(|| s(input, "name")),
            ),
        ),
        "StartMissionRun" => (ToolKind::Subagent, "Starting the mission run".to_owned()),
        "EndFeatureRun" => (
            ToolKind::Subagent,
            labelled("Ending the feature run:", s(input, "successState")),
        ),
        "DismissHandoffItems" => (ToolKind::Todo, "Dismissing handoff items".to_owned()),
        other => (ToolKind::Unknown, titles::generic(other, input, cwd)),
    };
    Described {
        name: name.to_owned(),
        kind,
        title,
        mcp: None,
    }
}

/// `[Process exited with code 3]`, the trailer droid puts after a command's output.
pub(super) fn exit_code(text: &str) -> Option<i64> {
    let at = text.rfind("[Process exited with code ")?;
    let rest = &text[at + "[Process exited with code ".len()..];
    rest.split(']').next()?.trim().parse().ok()
}

/// A successful result's value as the part's output: text as it is, except a JSON object
/// written as text (Create's and Edit's `{"success":true,…}`), which becomes the object.
pub(super) fn output(value: &Value) -> Value {
    if let Value::String(text) = value {
        let t = text.trim();
        if t.starts_with('{')
            && let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(t)
        {
            return v;
        }
    }
    value.clone()
}

/// A failed result's text (`Error: …`) as the contract's error: a command's exit code or signal,
/// a refusal of the permission level, droid's own rejections, and any other failure's first line.
pub(super) fn error(kind: ToolKind, text: &str) -> ToolError {
    let mut body = text.trim();
    // Some failures come wrapped twice (`Error: Error: The text to replace was not found …`).
    while let Some(rest) = body.strip_prefix("Error: ") {
        body = rest.trim_start();
    }
    let first = body.lines().next().unwrap_or("").trim();
    let rest = body[first.len()..].trim_start_matches('\n');
    let details = (!rest.trim().is_empty()).then(|| Value::String(rest.to_owned()));
    if kind == ToolKind::Bash {
        if let Some(code) = first
            .strip_prefix("Command failed (exit code: ")
            .and_then(|c| c.strip_suffix(')'))
            .and_then(|c| c.trim().parse::<i64>().ok())
        {
            return ToolError {
                message: format!("Exit code {code}"),
                code: Some(code.to_string()),
                details,
            };
        }
        if let Some(signal) = first.strip_prefix("Command terminated by signal:") {
            let signal = signal.trim();
            return ToolError {
                message: format!("Terminated by {signal}"),
                code: Some(signal.to_owned()),
                details,
            };
        }
    }
    let code = if first.contains("insufficient permission to proceed") {
        Some("permission_denied")
    } else if first.contains("rejected by user") || first.contains("User rejected") {
        Some("declined")
    } else if first.contains("call rejected:") {
        Some("invalid_input")
    } else {
        None
    };
    ToolError {
        message: crate::text::clip(
            if first.is_empty() {
                "the tool call failed"
            } else {
                first
            },
            300,
        ),
        code: code.map(str::to_owned),
        details,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn d(name: &str, input: Value) -> Described {
        describe(name, &input, Some("/w"))
    }

    #[test]
    fn every_builtin_has_a_kind_and_a_specific_title() {
        let rows: Vec<(&str, Value, ToolKind, &str)> = vec![
            (
                "Execute",
                json!({"command": "npm test", "summary": "Run the tests"}),
                ToolKind::Bash,
                "Running npm test",
            ),
            (
                "Execute",
                json!({"command": "npm run dev", "fireAndForget": true}),
                ToolKind::Bash,
                "Starting in the background: npm run dev",
            ),
            (
                "Read",
                json!({"file_path": "/w/src/a.rs", "offset": 6, "limit": 4}),
                ToolKind::FileRead,
                "Reading src/a.rs (lines 6–9)",
            ),
            (
                "LS",
                json!({"directory_path": "/w/src"}),
                ToolKind::FileRead,
                "Listing src",
            ),
            (
                "LS",
                json!({"directory_path": "/w"}),
                ToolKind::FileRead,
                "Listing /w",
            ),
            (
                "Create",
                json!({"file_path": "/w/b.md", "content": "x"}),
                ToolKind::FileWrite,
                "Creating b.md",
            ),
            (
                "Edit",
                json!({"file_path": "/w/c.rs", "old_str": "a", "new_str": "b"}),
                ToolKind::FileEdit,
                "Editing c.rs",
            ),
            (
                "ApplyPatch",
                json!({"input": "*** Begin Patch\n*** Add File: /w/n.txt\n+hi\n*** End Patch"}),
                ToolKind::FileEdit,
                "Creating n.txt",
            ),
            (
                "Grep",
                json!({"pattern": "TODO", "glob_pattern": "*.js"}),
                ToolKind::FileRead,
                "Searching for \"TODO\" in *.js",
            ),
            (
                "Glob",
                json!({"patterns": ["src/**/*.js", "*.ts"], "folder": "/w/app"}),
                ToolKind::FileRead,
                "Finding files matching src/**/*.js, *.ts in app",
            ),
            (
                "FetchUrl",
                json!({"url": "https://docs.rs/serde/latest"}),
                ToolKind::Browser,
                "Fetching docs.rs/serde/latest",
            ),
            (
                "WebSearch",
                json!({"query": "latest Rust release"}),
                ToolKind::WebSearch,
                "Searching latest Rust release",
            ),
            (
                "TodoWrite",
                json!({"todos": "1. [completed] Read\n2. [in_progress] Fix\n3. [pending] Test"}),
                ToolKind::Todo,
                "Updating the todo list (3 items, 1 done)",
            ),
            (
                "AskUser",
                json!({"questions": [{"question": "Which db?"}]}),
                ToolKind::Question,
                "Asking: Which db?",
            ),
            (
                "Task",
                json!({"subagent_type": "worker", "description": "Count the regions", "prompt": "p"}),
                ToolKind::Subagent,
                "Count the regions",
            ),
            (
                "TaskOutput",
                json!({"task_id": "t1"}),
                ToolKind::Subagent,
                "Reading the report of task t1",
            ),
            (
                "TaskStop",
                json!({"task_id": "t1"}),
                ToolKind::Subagent,
                "Stopping task t1",
            ),
            (
                "ToolSearch",
                json!({"query": "select:FetchUrl,WebSearch"}),
                ToolKind::Mcp,
                "Loading tools FetchUrl, WebSearch",
            ),
            (
                "Skill",
                json!({"skill": "tuistory"}),
                ToolKind::FileRead,
                "Loading skill tuistory",
            ),
            (
                "Script",
                json!({"description": "Sum the sizes"}),
                ToolKind::Bash,
                "Running script: Sum the sizes",
            ),
            (
                "WaitForScript",
                json!({"script_id": "s1"}),
                ToolKind::Bash,
                "Waiting for script s1",
            ),
            (
                "Loop",
                json!({"action": "create", "prompt": "Check CI", "cron": "*/15 * * * *"}),
                ToolKind::Todo,
                "Scheduling \"Check CI\" (*/15 * * * *)",
            ),
            (
                "Loop",
                json!({"action": "cancel", "loopId": "l1"}),
                ToolKind::Todo,
                "Cancelling loop l1",
            ),
            (
                "ExitSpecMode",
                json!({"plan": "# Add retries\n1. x"}),
                ToolKind::Todo,
                "Presenting specification: Add retries",
            ),
            (
                "UpgradeSessionModel",
                json!({"model": "gpt-5.5"}),
                ToolKind::Todo,
                "Switching the session's model to gpt-5.5",
            ),
            (
                "GenerateImage",
                json!({"prompt": "A red fox"}),
                ToolKind::FileWrite,
                "Generating an image: A red fox",
            ),
            (
                "GenerateDroid",
                json!({"description": "Reviews pull requests"}),
                ToolKind::FileWrite,
                "Generating a droid: Reviews pull requests",
            ),
            (
                "slack_post_file",
                json!({"filePath": "/w/r.md", "channel": "#eng"}),
                ToolKind::Mcp,
                "Posting r.md to Slack #eng",
            ),
            (
                "slack_post_message",
                json!({"channel": "#eng", "text": "hi"}),
                ToolKind::Mcp,
                "Posting to Slack #eng",
            ),
            (
                "slack_create_or_update_code_channel",
                json!({"name": "app"}),
                ToolKind::Mcp,
                "Setting up Slack code channel app",
            ),
            (
                "slack_archive_code_channel",
                json!({"name": "app"}),
                ToolKind::Mcp,
                "Archiving Slack code channel app",
            ),
            (
                "store_agent_readiness_report",
                json!({}),
                ToolKind::Mcp,
                "Storing the agent readiness report",
            ),
            (
                "get_agent_effectiveness_usage",
                json!({}),
                ToolKind::Mcp,
                "Reading agent effectiveness usage",
            ),
            (
                "render_agent_effectiveness_report",
                json!({}),
                ToolKind::Mcp,
                "Rendering the agent effectiveness report",
            ),
            (
                "ProposeMission",
                json!({"title": "Retry layer"}),
                ToolKind::Todo,
                "Proposing mission: Retry layer",
            ),
            (
                "StartMissionRun",
                json!({}),
                ToolKind::Subagent,
                "Starting the mission run",
            ),
            (
                "EndFeatureRun",
                json!({"successState": "success"}),
                ToolKind::Subagent,
                "Ending the feature run: success",
            ),
            (
                "DismissHandoffItems",
                json!({}),
                ToolKind::Todo,
                "Dismissing handoff items",
            ),
        ];
        for (name, input, kind, title) in rows {
            let got = d(name, input);
            assert_eq!((got.kind, got.title.as_str()), (kind, title), "{name}");
            assert!(got.mcp.is_none(), "{name}");
        }
    }

    #[test]
    fn mcp_tools_split_on_three_underscores() {
        let got = d(
            "amalgm___browser_navigate",
            json!({"url": "https://example.com"}),
        );
        assert_eq!(got.name, "browser_navigate");
        assert_eq!(got.kind, ToolKind::Browser);
        assert_eq!(got.title, "Opening browser page");
        assert_eq!(
            got.mcp,
            Some(McpRef {
                server: "amalgm".into(),
                tool: "browser_navigate".into()
            })
        );
        assert_eq!(split_mcp("a__b"), None);
        assert_eq!(split_mcp("___b"), None);
    }

    #[test]
    fn failures_read_as_errors_with_codes() {
        let e = error(
            ToolKind::Bash,
            "Error: Command failed (exit code: 3)\ncheck failed\n\n\n[Process exited with code 3]",
        );
        assert_eq!(
            (e.message.as_str(), e.code.as_deref()),
            ("Exit code 3", Some("3"))
        );
        assert_eq!(
            e.details,
            Some(Value::from(
                "check failed\n\n\n[Process exited with code 3]"
            ))
        );
        let e = error(
            ToolKind::Bash,
            "Error: Command terminated by signal: SIGTERM\nstart\n",
        );
        assert_eq!(
            (e.message.as_str(), e.code.as_deref()),
            ("Terminated by SIGTERM", Some("SIGTERM"))
        );
        let e = error(
            ToolKind::Bash,
            "Error: Exec ended early: insufficient permission to proceed. Re-run with --auto medium or --auto high.",
        );
        assert_eq!(e.code.as_deref(), Some("permission_denied"));
        assert!(e.details.is_none());
        let e = error(
            ToolKind::Bash,
            "Error: Execute call rejected: missing required parameters \"riskLevel\".",
        );
        assert_eq!(e.code.as_deref(), Some("invalid_input"));
        let e = error(
            ToolKind::Browser,
            "Error: Failed to fetch URL content from the Factory API.",
        );
        assert_eq!(
            (e.message.as_str(), e.code),
            ("Failed to fetch URL content from the Factory API.", None)
        );
        assert_eq!(error(ToolKind::Unknown, "").message, "the tool call failed");
    }

    #[test]
    fn outputs_and_exit_codes() {
        assert_eq!(
            exit_code("hello\n\n\n[Process exited with code 0]"),
            Some(0)
        );
        assert_eq!(exit_code("no trailer"), None);
        assert_eq!(
            output(&json!("{\"success\":true}")),
            json!({"success": true})
        );
        assert_eq!(output(&json!("{not json")), json!("{not json"));
        assert_eq!(output(&json!("plain")), json!("plain"));
    }
}
