//! Copilot CLI's tool names → name, kind and title, and a failure's error. Built-ins are known by
//! name (Copilot CLI 1.0); an MCP call names its server and tool in its start event
//! (`mcpServerName`, `mcpToolName`: the model sees `<server>-<tool>`); anything else reads
//! through the shared generic title.

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

/// `Stopping shell 3`, or the bare action when the detail is missing.
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

/// Kind and title of a call; `mcp` is the server and tool its start event named.
pub(super) fn describe(
    name: &str,
    input: &Value,
    mcp: Option<McpRef>,
    cwd: Option<&str>,
) -> Described {
    if let Some(m) = mcp {
        return Described {
            name: m.tool.clone(),
            kind: titles::mcp_kind(&m.server, &m.tool),
            title: titles::mcp(&m.server, &m.tool, input),
            mcp: Some(m),
        };
    }
    let path = |key: &str| {
        s(input, key).map(|p| match titles::display_path(p, cwd) {
            rel if rel == "." => p.to_owned(),
            rel => rel,
        })
    };
    let scope = one_or_many(input.get("paths")).map(|p| titles::display_path(&p, cwd));
    let shell = s(input, "shellId");
    let agent = s(input, "agent_id")
        .map(str::to_owned)
        .or_else(|| one_or_many(input.get("agent_ids")));
    let (kind, title) = match name {
        "bash" | "powershell" => {
            let title = match s(input, "command") {
                Some(c) if s(input, "mode") == Some("async") => labelled(
                    "Starting in the background:",
                    Some(&titles::unwrap_shell(c)),
                ),
                Some(c) => titles::shell(c),
                None => labelled("Running:", s(input, "description")),
            };
            (ToolKind::Bash, title)
        }
        "read_bash" | "read_powershell" => {
            (ToolKind::Bash, labelled("Reading output of shell", shell))
        }
        "write_bash" | "write_powershell" => (ToolKind::Bash, labelled("Writing to shell", shell)),
        "stop_bash" | "stop_powershell" => (ToolKind::Bash, labelled("Stopping shell", shell)),
        "list_bash" | "list_powershell" => (ToolKind::Bash, "Listing shells".to_owned()),
        "view" => match path("path") {
            Some(p) => {
                let range = input.get("view_range").and_then(Value::as_array);
                let first = range.and_then(|r| r.first()).and_then(Value::as_i64);
                let last = range.and_then(|r| r.get(1)).and_then(Value::as_i64);
                let (offset, limit) = match (first, last) {
                    (Some(f), Some(l)) if f >= 1 && l >= f => {
                        (Some(f as u64), Some((l - f + 1) as u64))
                    }
                    (Some(f), _) if f >= 1 => (Some(f as u64), None),
                    _ => (None, None),
                };
                (ToolKind::FileRead, titles::read(&p, offset, limit))
            }
            None => (ToolKind::FileRead, "Reading a file".to_owned()),
        },
        "create" => match path("path") {
            Some(p) => (ToolKind::FileWrite, titles::create(&p)),
            None => (ToolKind::FileWrite, "Creating a file".to_owned()),
        },
        "edit" | "str_replace_editor" => match path("path") {
            Some(p) => (ToolKind::FileEdit, titles::edit(&p)),
            None => (ToolKind::FileEdit, "Editing a file".to_owned()),
        },
        "apply_patch" => (
            ToolKind::FileEdit,
            titles::patch(s(input, "input").or_else(|| s(input, "patch")), cwd),
        ),
        "grep" | "rg" => match s(input, "pattern") {
            Some(p) => {
                let within = scope
                    .clone()
                    .or_else(|| s(input, "glob").map(str::to_owned));
                (ToolKind::FileRead, titles::grep(p, within.as_deref()))
            }
            None => (ToolKind::FileRead, "Searching files".to_owned()),
        },
        "glob" => match s(input, "pattern") {
            Some(p) => (ToolKind::FileRead, titles::glob(p, scope.as_deref())),
            None => (ToolKind::FileRead, "Finding files".to_owned()),
        },
        "task" => (
            ToolKind::Subagent,
            titles::subagent(
                s(input, "description").or_else(|| s(input, "name")),
                s(input, "prompt"),
            ),
        ),
        "read_agent" => (
            ToolKind::Subagent,
            labelled("Reading the report of agent", agent.as_deref()),
        ),
        "write_agent" => (
            ToolKind::Subagent,
            labelled("Messaging agent", agent.as_deref()),
        ),
        "list_agents" => (ToolKind::Subagent, "Listing agents".to_owned()),
        "skill" => (
            ToolKind::FileRead,
            labelled("Loading skill", s(input, "skill")),
        ),
        // The session's own SQLite database, where Copilot keeps its todos and notes.
        "sql" => (
            ToolKind::Todo,
            match s(input, "description") {
                Some(d) => labelled("Updating the session database:", Some(d)),
                None => "Querying the session database".to_owned(),
            },
        ),
        // Past sessions, searched read-only.
        "session_store_sql" => (
            ToolKind::FileRead,
            match s(input, "description") {
                Some(d) => labelled("Searching past sessions:", Some(d)),
                None => "Searching past sessions".to_owned(),
            },
        ),
        "fetch_copilot_cli_documentation" => (
            ToolKind::FileRead,
            "Reading the Copilot CLI documentation".to_owned(),
        ),
        "report_intent" => (ToolKind::Todo, labelled("Intent:", s(input, "intent"))),
        // Plan mode: the plan, presented for approval.
        "exit_plan_mode" => (
            ToolKind::Todo,
            match s(input, "summary").or_else(|| s(input, "plan")) {
                Some(p) => labelled("Presenting the plan:", p.lines().next()),
                None => "Presenting the plan".to_owned(),
            },
        ),
        // Plan and autopilot modes: the agent says the task is done.
        "task_complete" => (
            ToolKind::Todo,
            labelled("Marking the task complete:", s(input, "summary")),
        ),
        "update_todo" => {
            let todos = s(input, "todos").unwrap_or("");
            let items = todos
                .lines()
                .filter(|l| l.trim_start().starts_with("- ["))
                .count();
            let done = todos
                .lines()
                .filter(|l| l.trim_start().starts_with("- [x]"))
                .count();
            (ToolKind::Todo, titles::todo(items, done))
        }
        "web_fetch" => (
            ToolKind::Browser,
            titles::fetch(s(input, "url").unwrap_or("")),
        ),
        "web_search" => (
            ToolKind::WebSearch,
            titles::web_search(s(input, "query").unwrap_or("")),
        ),
        "ask_user" => (
            ToolKind::Question,
            titles::question(s(input, "question"), 1),
        ),
        other => match other.split_once('-') {
            // An MCP call whose start event was lost: the model's `<server>-<tool>` name.
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

/// A failed call's `error` (`{message, code}`) as the contract's error: Copilot's `denied` is a
/// refused permission, `rejected` the user's no.
pub(super) fn error(raw: Option<Value>) -> ToolError {
    let (text, code) = match &raw {
        Some(Value::Object(o)) => (
            o.get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            o.get("code").and_then(Value::as_str),
        ),
        Some(Value::String(t)) => (t.clone(), None),
        _ => (String::new(), None),
    };
    let mut body = text.trim();
    while let Some(rest) = body.strip_prefix("Error: ") {
        body = rest.trim_start();
    }
    let first = body.lines().next().unwrap_or("").trim();
    let rest = body[first.len()..].trim_start_matches('\n');
    let code = match code {
        Some("denied") => Some("permission_denied".to_owned()),
        Some("rejected") => Some("declined".to_owned()),
        _ => None,
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
        code,
        details: (!rest.trim().is_empty()).then(|| Value::String(rest.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_builtin_has_a_kind_and_a_specific_title() {
        let rows: Vec<(&str, Value, ToolKind, &str)> = vec![
            (
                "bash",
                json!({"command": "npm test", "description": "Run the tests"}),
                ToolKind::Bash,
                "Running npm test",
            ),
            (
                "bash",
                json!({"command": "npm run dev", "mode": "async", "shellId": "dev"}),
                ToolKind::Bash,
                "Starting in the background: npm run dev",
            ),
            (
                "read_bash",
                json!({"shellId": "dev", "delay": 3}),
                ToolKind::Bash,
                "Reading output of shell dev",
            ),
            (
                "write_bash",
                json!({"shellId": "dev", "input": "q"}),
                ToolKind::Bash,
                "Writing to shell dev",
            ),
            (
                "stop_bash",
                json!({"shellId": "dev"}),
                ToolKind::Bash,
                "Stopping shell dev",
            ),
            ("list_bash", json!({}), ToolKind::Bash, "Listing shells"),
            (
                "view",
                json!({"path": "/w/src/a.rs", "view_range": [6, 9]}),
                ToolKind::FileRead,
                "Reading src/a.rs (lines 6–9)",
            ),
            (
                "view",
                json!({"path": "/w/src/a.rs", "view_range": [6, -1]}),
                ToolKind::FileRead,
                "Reading src/a.rs (from line 6)",
            ),
            (
                "create",
                json!({"path": "/w/b.md", "file_text": "x"}),
                ToolKind::FileWrite,
                "Creating b.md",
            ),
            (
                "edit",
                json!({"path": "/w/c.rs", "old_str": "a", "new_str": "b"}),
                ToolKind::FileEdit,
                "Editing c.rs",
            ),
            (
                "apply_patch",
                json!({"input": "*** Begin Patch\n*** Update File: /w/a.js\n*** End Patch"}),
                ToolKind::FileEdit,
                "Editing a.js",
            ),
            (
                "grep",
                json!({"pattern": "TODO", "paths": ["/w/src"]}),
                ToolKind::FileRead,
                "Searching for \"TODO\" in src",
            ),
            (
                "glob",
                json!({"pattern": "**/*.md"}),
                ToolKind::FileRead,
                "Finding files matching **/*.md",
            ),
            (
                "task",
                json!({"name": "counter", "description": "Count the sources", "prompt": "p", "agent_type": "explore"}),
                ToolKind::Subagent,
                "Count the sources",
            ),
            (
                "read_agent",
                json!({"agent_id": "a1"}),
                ToolKind::Subagent,
                "Reading the report of agent a1",
            ),
            (
                "write_agent",
                json!({"agent_ids": ["a1", "a2"], "message": "m"}),
                ToolKind::Subagent,
                "Messaging agent a1, a2",
            ),
            (
                "list_agents",
                json!({}),
                ToolKind::Subagent,
                "Listing agents",
            ),
            (
                "skill",
                json!({"skill": "pdf"}),
                ToolKind::FileRead,
                "Loading skill pdf",
            ),
            (
                "sql",
                json!({"description": "Insert auth todos", "query": "INSERT …"}),
                ToolKind::Todo,
                "Updating the session database: Insert auth todos",
            ),
            (
                "session_store_sql",
                json!({"description": "Find PR sessions", "query": "SELECT 1"}),
                ToolKind::FileRead,
                "Searching past sessions: Find PR sessions",
            ),
            (
                "fetch_copilot_cli_documentation",
                json!({}),
                ToolKind::FileRead,
                "Reading the Copilot CLI documentation",
            ),
            (
                "report_intent",
                json!({"intent": "Fixing the tests"}),
                ToolKind::Todo,
                "Intent: Fixing the tests",
            ),
            (
                "update_todo",
                json!({"todos": "- [x] Read\n- [ ] Fix"}),
                ToolKind::Todo,
                "Updating the todo list (2 items, 1 done)",
            ),
            (
                "web_fetch",
                json!({"url": "https://docs.rs/serde"}),
                ToolKind::Browser,
                "Fetching docs.rs/serde",
            ),
            (
                "web_search",
                json!({"query": "rust release"}),
                ToolKind::WebSearch,
                "Searching rust release",
            ),
            (
                "ask_user",
                json!({"question": "Which db?", "choices": ["a"]}),
                ToolKind::Question,
                "Asking: Which db?",
            ),
        ];
        for (name, input, kind, title) in rows {
            let d = describe(name, &input, None, Some("/w"));
            assert_eq!((d.kind, d.title.as_str()), (kind, title), "{name}");
            assert!(d.mcp.is_none(), "{name}");
        }
    }

    #[test]
    fn mcp_calls_by_their_start_event_or_their_name() {
        let m = McpRef {
            server: "amalgm".into(),
            tool: "browser_navigate".into(),
        };
        let d = describe(
            "amalgm-browser_navigate",
            &json!({"url": "x"}),
            Some(m.clone()),
            None,
        );
        assert_eq!(
            (d.name.as_str(), d.kind, d.title.as_str()),
            (
                "browser_navigate",
                ToolKind::Browser,
                "Opening browser page"
            )
        );
        assert_eq!(d.mcp, Some(m.clone()));
        assert_eq!(
            describe("amalgm-browser_navigate", &json!({}), None, None).mcp,
            Some(m)
        );
    }

    #[test]
    fn errors_keep_their_first_line_and_codes() {
        let e = error(Some(
            json!({"message": "Permission to run this tool was denied due to the following rules: `shell(rm:*)`", "code": "denied"}),
        ));
        assert_eq!(e.code.as_deref(), Some("permission_denied"));
        let e = error(Some(
            json!({"message": "Error: table todos already exists", "code": "failure"}),
        ));
        assert_eq!(
            (e.message.as_str(), e.code),
            ("table todos already exists", None)
        );
        assert_eq!(error(None).message, "the tool call failed");
    }
}
