//! Claude Code tool names → the part's `name`, `kind`, `title` and MCP identity, for every built-in
//! tool (old and new names) and for `mcp__<server>__<tool>`; and what a tool_result's text says:
//! the error of a failed call, and the trailers and reminders meant for the model. Wording comes
//! from the shared [`titles`] helpers so the same action reads the same for every provider.

use std::sync::OnceLock;

use memchr::memmem;
use serde_json::Value;

use crate::model::{McpRef, ToolError, ToolKind};
use crate::providers::{first_line, titles};

/// What a tool_use block's name and input say about the part.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Described {
    pub name: String,
    pub kind: ToolKind,
    pub title: String,
    pub mcp: Option<McpRef>,
}

fn s<'v>(input: &'v Value, key: &str) -> Option<&'v str> {
    input
        .get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

fn n(input: &Value, key: &str) -> Option<u64> {
    let v = input.get(key)?;
    v.as_u64()
        .or_else(|| v.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
        .or_else(|| {
            // Models sometimes send numbers as strings ("offset": "6").
            v.as_str().and_then(|t| t.trim().parse().ok())
        })
}

/// Split `mcp__<server>__<tool>` on the first `__` after the prefix (server names never contain
/// `__`; tool names may).
pub(crate) fn split_mcp(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

/// Kind and title of a call from its name and (possibly still empty) input. `cwd` makes paths in
/// titles relative.
pub(crate) fn describe(name: &str, input: &Value, cwd: Option<&str>) -> Described {
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
    // Search scopes equal to the working directory are left out of titles altogether.
    let scope = |key: &str| s(input, key).map(|p| titles::display_path(p, cwd));
    let (kind, title) = match name {
        // PowerShell (`CLAUDE_CODE_USE_POWERSHELL_TOOL`) takes a command as Bash does.
        "Bash" | "PowerShell" => (
            ToolKind::Bash,
            titles::shell(s(input, "command").unwrap_or("")),
        ),
        // Brief mode's message to the user (`CLAUDE_CODE_BRIEF`; `Brief` before it was renamed).
        "SendUserMessage" | "Brief" => (
            ToolKind::Todo,
            match s(input, "message").and_then(|m| m.lines().find(|l| !l.trim().is_empty())) {
                Some(m) => titles::finish(
                    &format!("Telling the user: {}", m.trim()),
                    "Messaging the user",
                ),
                None => "Messaging the user".to_owned(),
            },
        ),
        "BashOutput" | "TaskOutput" => {
            let id = s(input, "task_id")
                .or_else(|| s(input, "bash_id"))
                .or_else(|| s(input, "shell_id"));
            (
                ToolKind::Bash,
                with_detail("Reading output of background task", id),
            )
        }
        "KillShell" | "KillBash" | "TaskStop" => {
            let id = s(input, "task_id")
                .or_else(|| s(input, "shell_id"))
                .or_else(|| s(input, "bash_id"));
            (ToolKind::Bash, with_detail("Stopping background task", id))
        }
        "Read" => match path("file_path") {
            Some(p) => (
                ToolKind::FileRead,
                titles::read(&p, n(input, "offset"), n(input, "limit")),
            ),
            None => (ToolKind::FileRead, "Reading a file".to_owned()),
        },
        "NotebookRead" => match path("notebook_path") {
            Some(p) => (ToolKind::FileRead, titles::read(&p, None, None)),
            None => (ToolKind::FileRead, "Reading a notebook".to_owned()),
        },
        "Write" => match path("file_path") {
            Some(p) => (ToolKind::FileWrite, titles::write(&p)),
            None => (ToolKind::FileWrite, "Writing a file".to_owned()),
        },
        "Edit" | "MultiEdit" => match path("file_path") {
            Some(p) => (ToolKind::FileEdit, titles::edit(&p)),
            None => (ToolKind::FileEdit, "Editing a file".to_owned()),
        },
        "NotebookEdit" => match path("notebook_path") {
            Some(p) => (ToolKind::FileEdit, titles::edit(&p)),
            None => (ToolKind::FileEdit, "Editing a notebook".to_owned()),
        },
        "Glob" => match s(input, "pattern") {
            Some(pat) => (
                ToolKind::FileRead,
                titles::glob(pat, scope("path").as_deref()),
            ),
            None => (ToolKind::FileRead, "Finding files".to_owned()),
        },
        "Grep" => match s(input, "pattern") {
            Some(pat) => {
                let within = scope("path").or_else(|| s(input, "glob").map(str::to_owned));
                (ToolKind::FileRead, titles::grep(pat, within.as_deref()))
            }
            None => (ToolKind::FileRead, "Searching files".to_owned()),
        },
        "LS" => match path("path") {
            Some(p) => (ToolKind::FileRead, titles::list(&p)),
            None => (ToolKind::FileRead, "Listing files".to_owned()),
        },
        "WebFetch" => (
            ToolKind::Browser,
            titles::fetch(s(input, "url").unwrap_or("")),
        ),
        "WebSearch" => (
            ToolKind::WebSearch,
            titles::web_search(s(input, "query").unwrap_or("")),
        ),
        "Agent" | "Task" => (
            ToolKind::Subagent,
            titles::subagent(s(input, "description"), s(input, "prompt")),
        ),
        "TodoWrite" => {
            let todos = input.get("todos").and_then(Value::as_array);
            let total = todos.map_or(0, Vec::len);
            let done = todos.map_or(0, |t| {
                t.iter()
                    .filter(|i| i.get("status").and_then(Value::as_str) == Some("completed"))
                    .count()
            });
            (ToolKind::Todo, titles::todo(total, done))
        }
        "TodoRead" => (ToolKind::Todo, "Reading the todo list".to_owned()),
        "TaskCreate" => (
            ToolKind::Todo,
            with_detail("Creating task", s(input, "subject")),
        ),
        "TaskGet" => (
            ToolKind::Todo,
            with_detail("Reading task", s(input, "taskId")),
        ),
        "TaskUpdate" => {
            let what = s(input, "subject").or_else(|| s(input, "taskId"));
            let title = match (what, s(input, "status")) {
                (Some(w), Some(st)) => {
                    titles::finish(&format!("Updating task {w} ({st})"), "Updating a task")
                }
                (w, _) => with_detail("Updating task", w),
            };
            (ToolKind::Todo, title)
        }
        "TaskList" => (ToolKind::Todo, "Listing tasks".to_owned()),
        "ExitPlanMode" => (ToolKind::Todo, plan_title(input)),
        "EnterPlanMode" => (ToolKind::Todo, "Entering plan mode".to_owned()),
        "AskUserQuestion" => (
            ToolKind::Question,
            titles::questions(input.get("questions")),
        ),
        // Loads a skill's instructions (OpenCode's `skill` reads the same way).
        "Skill" => (
            ToolKind::FileRead,
            with_detail(
                "Loading skill",
                s(input, "skill").or_else(|| s(input, "command")),
            ),
        ),
        "SlashCommand" => (
            ToolKind::Unknown,
            with_detail("Running slash command", s(input, "command")),
        ),
        "ListMcpResources" | "ListMcpResourcesTool" => (
            ToolKind::Mcp,
            match s(input, "server") {
                Some(server) => titles::finish(
                    &format!("Listing MCP resources of {server}"),
                    "Listing MCP resources",
                ),
                None => "Listing MCP resources".to_owned(),
            },
        ),
        "ReadMcpResource" | "ReadMcpResourceTool" => (
            ToolKind::Mcp,
            with_detail("Reading MCP resource", s(input, "uri")),
        ),
        // API-side server tools (`server_tool_use`).
        "web_search" => (
            ToolKind::WebSearch,
            titles::web_search(s(input, "query").unwrap_or("")),
        ),
        "web_fetch" => (
            ToolKind::Browser,
            titles::fetch(s(input, "url").unwrap_or("")),
        ),
        other => super::background::describe_recent(other, input, cwd)
            .unwrap_or_else(|| (ToolKind::Unknown, titles::generic(other, input, cwd))),
    };
    Described {
        name: name.to_owned(),
        kind,
        title,
        mcp: None,
    }
}

/// `Reading task 3`, or the bare action when the detail is missing.
fn with_detail(action: &str, detail: Option<&str>) -> String {
    match detail {
        Some(d) => titles::finish(&format!("{action} {d}"), action),
        None => action.to_owned(),
    }
}

/// ExitPlanMode: the plan's first heading or line when the input has one.
fn plan_title(input: &Value) -> String {
    let first = s(input, "plan").and_then(|p| p.lines().map(str::trim).find(|l| !l.is_empty()));
    match first {
        Some(line) => {
            let line = line.trim_start_matches('#').trim();
            titles::finish(&format!("Presenting plan: {line}"), "Presenting a plan")
        }
        None => "Presenting a plan".to_owned(),
    }
}

// ---------------------------------------------------------------- results

/// What Claude Code answers a tool call with when the user interrupted it.
pub(crate) const INTERRUPTED_BY_USER: &str = "Interrupted by the user";

/// AskUserQuestion's answers (question text → labels joined with `, `) as one list of labels per
/// question in the order asked, the shape OpenCode's `metadata.answers` has. A joined answer is
/// split only when every piece is one of the question's option labels (a free-text answer may
/// hold a comma).
pub(crate) fn question_answers(
    questions: &Value,
    answers: &serde_json::Map<String, Value>,
) -> Value {
    let per_question = questions.as_array().into_iter().flatten().map(|q| {
        let text = q.get("question").and_then(Value::as_str).unwrap_or("");
        let Some(answer) = answers.get(text).and_then(Value::as_str) else {
            return Value::Array(Vec::new());
        };
        let labels: Vec<&str> = q
            .get("options")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|o| o.get("label").and_then(Value::as_str))
            .collect();
        let pieces: Vec<&str> = answer.split(", ").collect();
        let chosen = if pieces.iter().all(|p| labels.contains(p)) {
            pieces
        } else {
            vec![answer]
        };
        Value::Array(
            chosen
                .into_iter()
                .map(|c| Value::String(c.to_owned()))
                .collect(),
        )
    });
    Value::Array(per_question.collect())
}

/// Turn a failed tool_result's text into the contract's error.
pub(crate) fn classify_error(kind: ToolKind, text: &str, structured: Option<&str>) -> ToolError {
    let t = text.trim();
    let coded = |message: &str, code: &str| ToolError {
        message: message.to_owned(),
        code: Some(code.to_owned()),
        details: None,
    };
    // An interrupt, or a rejection the text then corrects: "this call was stopped while running,
    // not refused before it ran" (a host's interrupt, 2.1.3xx).
    if t.starts_with("[Request interrupted by user")
        || t.contains("this call was stopped while running")
    {
        return coded(INTERRUPTED_BY_USER, "interrupted");
    }
    if t.starts_with("Permission prompt was aborted") {
        return coded("The permission prompt was aborted", "aborted");
    }
    if structured == Some("User rejected tool use")
        || t == "User rejected tool use"
        || t.starts_with("The user doesn't want to proceed with this tool use")
        || t.starts_with("The user doesn't want to take this action")
    {
        // The same code Codex (`status: declined`) and OpenCode (a dismissed question, a
        // rejected permission) give a call the user said no to.
        return coded("Rejected by the user", "declined");
    }
    if t.starts_with("Claude requested permissions to ") || t.contains("haven't granted it yet") {
        return ToolError {
            message: first_line(t).unwrap_or_default(),
            code: Some("permission_denied".into()),
            details: None,
        };
    }
    if let Some(inner) = t.strip_prefix("<tool_use_error>") {
        let inner = inner
            .trim_end()
            .strip_suffix("</tool_use_error>")
            .unwrap_or(inner)
            .trim();
        return plain_error(inner);
    }
    if kind == ToolKind::Bash {
        let body = t.strip_prefix("Error: ").unwrap_or(t);
        if let Some(rest) = body.strip_prefix("Exit code ") {
            let (code, output) = rest.split_once('\n').unwrap_or((rest, ""));
            if let Ok(n) = code.trim().parse::<i64>() {
                return ToolError {
                    message: format!("Exit code {n}"),
                    code: Some(n.to_string()),
                    details: (!output.is_empty()).then(|| Value::String(output.to_owned())),
                };
            }
        }
    }
    // MCP servers often answer with a JSON error object as text.
    if t.starts_with('{')
        && let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(t)
        && let Some(msg) = v
            .get("message")
            .or_else(|| v.get("error"))
            .and_then(Value::as_str)
    {
        return ToolError {
            message: first_line(msg).unwrap_or_default(),
            code: None,
            details: Some(v),
        };
    }
    plain_error(t)
}

fn plain_error(t: &str) -> ToolError {
    if t.is_empty() {
        return ToolError {
            message: "The tool call failed".to_owned(),
            code: None,
            details: None,
        };
    }
    let message = first_line(t).unwrap_or_default();
    let details = (message != t).then(|| Value::String(t.to_owned()));
    ToolError {
        message,
        code: None,
        details,
    }
}

pub(crate) fn is_truncated(text: &str) -> bool {
    // Both notes say "truncated": one search for the word passes over an output that has neither
    // (nearly all of them); the notes are looked for only in one that has it.
    static WORD: OnceLock<memmem::Finder<'static>> = OnceLock::new();
    let word = WORD.get_or_init(|| memmem::Finder::new("truncated"));
    word.find(text.as_bytes()).is_some()
        && ((text.contains(" lines truncated] ...") && text.contains("... ["))
            || text.contains(
                "(Results are truncated. Consider using a more specific path or pattern.)",
            ))
}

/// Read results may end with a `<system-reminder>` meant for the model, not the user.
pub(crate) fn strip_system_reminder(text: &str) -> &str {
    if !text.trim_end().ends_with("</system-reminder>") {
        return text;
    }
    match memmem::rfind(text.as_bytes(), b"<system-reminder>") {
        Some(i) => text[..i].trim_end(),
        None => text,
    }
}

pub(crate) struct AgentTrailer {
    pub agent_id: Option<String>,
    pub duration_ms: Option<u64>,
}

/// Agent results end with `agentId: … <usage>…duration_ms: N</usage>` for the model; split it off.
pub(crate) fn split_agent_trailer(text: &str) -> Option<(String, AgentTrailer)> {
    let start = if text.starts_with("agentId: ") {
        0
    } else {
        text.rfind("\nagentId: ")? + 1
    };
    let trailer = &text[start..];
    let agent_id = trailer["agentId: ".len()..]
        .split(|c: char| c.is_whitespace())
        .next()
        .map(str::to_owned);
    let duration_ms = trailer
        .find("duration_ms: ")
        .map(|i| &trailer[i + "duration_ms: ".len()..])
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse().ok());
    Some((
        text[..start].trim_end().to_owned(),
        AgentTrailer {
            agent_id,
            duration_ms,
        },
    ))
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
