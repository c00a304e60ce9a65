//! The tools Kilo adds to OpenCode's (Kilo 7.7): tracked background processes, the task board its
//! subagents share, wakeups the session schedules for itself, and the search of past sessions.
//! Every other tool id (bash, read, edit, task, …, MCP tools) is OpenCode's and reads as OpenCode's.

use serde_json::Value;

use crate::model::ToolKind;
use crate::providers::opencode::tools::{Fork, str_arg};
use crate::providers::titles;

/// Kilo's tools on top of OpenCode's.
pub(crate) static KILO: Fork = Fork { kind, title };

/// Kilo's own built-in tools and their kinds.
fn kind(tool: &str) -> Option<ToolKind> {
    Some(match tool {
        // Starts, lists, inspects and stops long-running processes (dev servers, watchers).
        "background_process" => ToolKind::Bash,
        // Notes between a session and its task subagents.
        "board_post" | "board_read" => ToolKind::Subagent,
        // The session resuming itself later.
        "schedule_wakeup" | "cancel_wakeup" => ToolKind::Todo,
        // Searches and reads the project's past sessions on this machine.
        "kilo_local_recall" => ToolKind::FileRead,
        // Offers the user a code review (actions to pick) at the end of a turn (`serve`, `acp`).
        "suggest" => ToolKind::Question,
        _ => return None,
    })
}

/// `Stopping background process 3`, or the bare action when the detail is missing.
fn labelled(action: &str, detail: Option<&str>) -> String {
    match detail {
        Some(d) => titles::finish(&format!("{action} {}", d.trim()), action),
        None => action.to_owned(),
    }
}

fn title(tool: &str, input: &Value, cwd: Option<&str>) -> String {
    let arg = |keys: &[&str]| str_arg(input, keys);
    match tool {
        "background_process" => {
            let id = arg(&["id"]);
            match arg(&["action"]) {
                Some("start") => match (arg(&["description"]), arg(&["command"])) {
                    (Some(d), _) => labelled("Starting background process:", Some(d)),
                    (None, Some(c)) => labelled(
                        "Starting background process:",
                        Some(&titles::unwrap_shell(c)),
                    ),
                    (None, None) => "Starting a background process".to_owned(),
                },
                Some("list") => "Listing background processes".to_owned(),
                Some("status") => labelled("Checking background process", id),
                Some("logs") => labelled("Reading output of background process", id),
                Some("stop") => labelled("Stopping background process", id),
                Some("restart") => labelled("Restarting background process", id),
                _ => "Managing background processes".to_owned(),
            }
        }
        "board_post" => {
            let what = arg(&["type"]).map(str::to_ascii_uppercase);
            match (what, arg(&["to"])) {
                (Some(w), Some(to)) => titles::finish(
                    &format!("Posting {w} to {}", board_recipient(to)),
                    "Posting to the task board",
                ),
                (None, Some(to)) => labelled("Posting to", Some(&board_recipient(to))),
                (_, None) => "Posting to the task board".to_owned(),
            }
        }
        "board_read" => "Reading the task board".to_owned(),
        "suggest" => match arg(&["suggest"]) {
            Some(text) => labelled("Suggesting:", Some(text)),
            None => "Suggesting a review".to_owned(),
        },
        "schedule_wakeup" => {
            let when = match (arg(&["delay"]), arg(&["when"])) {
                (Some(d), _) => Some(format!("in {}", d.trim())),
                (None, Some(w)) => Some(format!("at {}", w.trim())),
                (None, None) => None,
            };
            match (when, arg(&["reason"])) {
                (Some(w), Some(r)) => titles::finish(
                    &format!("Scheduling a wakeup {w}: {}", r.trim()),
                    "Scheduling a wakeup",
                ),
                (Some(w), None) => format!("Scheduling a wakeup {w}"),
                (None, Some(r)) => labelled("Scheduling a wakeup:", Some(r)),
                (None, None) => "Scheduling a wakeup".to_owned(),
            }
        }
        "cancel_wakeup" => match arg(&["action"]) {
            Some("list") => "Listing scheduled wakeups".to_owned(),
            _ => labelled("Cancelling wakeup", arg(&["id"])),
        },
        "kilo_local_recall" => match (arg(&["mode"]), arg(&["query"]), arg(&["sessionID"])) {
            (Some("read"), _, Some(id)) | (None, None, Some(id)) => {
                labelled("Reading past session", Some(id))
            }
            (_, Some(q), _) => titles::finish(
                &format!("Searching past sessions for \"{}\"", q.trim()),
                "Searching past sessions",
            ),
            (Some("read"), _, None) => "Reading a past session".to_owned(),
            _ => "Searching past sessions".to_owned(),
        },
        other => titles::generic(other, input, cwd),
    }
}

/// A board participant as a person reads it: `ALL` is everyone, `main` the main session.
fn board_recipient(to: &str) -> String {
    match to.trim() {
        "ALL" => "everyone".to_owned(),
        "main" => "the main session".to_owned(),
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_kilo_tool_has_a_kind_and_a_specific_title() {
        let rows: Vec<(&str, Value, ToolKind, &str)> = vec![
            (
                "background_process",
                json!({"action": "start", "command": "node server.js", "description": "Dev server"}),
                ToolKind::Bash,
                "Starting background process: Dev server",
            ),
            (
                "background_process",
                json!({"action": "start", "command": "node server.js"}),
                ToolKind::Bash,
                "Starting background process: node server.js",
            ),
            (
                "background_process",
                json!({"action": "list"}),
                ToolKind::Bash,
                "Listing background processes",
            ),
            (
                "background_process",
                json!({"action": "logs", "id": "bg_1"}),
                ToolKind::Bash,
                "Reading output of background process bg_1",
            ),
            (
                "background_process",
                json!({"action": "stop", "id": "bg_1"}),
                ToolKind::Bash,
                "Stopping background process bg_1",
            ),
            (
                "board_post",
                json!({"to": "main", "type": "result", "body": "Found it"}),
                ToolKind::Subagent,
                "Posting RESULT to the main session",
            ),
            (
                "board_read",
                json!({}),
                ToolKind::Subagent,
                "Reading the task board",
            ),
            (
                "schedule_wakeup",
                json!({"prompt": "check CI", "delay": "5m", "reason": "CI run"}),
                ToolKind::Todo,
                "Scheduling a wakeup in 5m: CI run",
            ),
            (
                "schedule_wakeup",
                json!({"prompt": "check CI", "when": "2026-09-13T14:30:00Z"}),
                ToolKind::Todo,
                "Scheduling a wakeup at 2026-09-13T14:30:00Z",
            ),
            (
                "cancel_wakeup",
                json!({"action": "list"}),
                ToolKind::Todo,
                "Listing scheduled wakeups",
            ),
            (
                "cancel_wakeup",
                json!({"action": "cancel", "id": "wk_1"}),
                ToolKind::Todo,
                "Cancelling wakeup wk_1",
            ),
            (
                "suggest",
                json!({"suggest": "Review the retry changes", "actions": [{"label": "Review", "prompt": "Review"}]}),
                ToolKind::Question,
                "Suggesting: Review the retry changes",
            ),
            (
                "kilo_local_recall",
                json!({"mode": "search", "query": "login bug"}),
                ToolKind::FileRead,
                "Searching past sessions for \"login bug\"",
            ),
            (
                "kilo_local_recall",
                json!({"mode": "read", "sessionID": "ses_1"}),
                ToolKind::FileRead,
                "Reading past session ses_1",
            ),
        ];
        for (tool, input, want_kind, want_title) in rows {
            assert_eq!(kind(tool), Some(want_kind), "{tool}");
            assert_eq!(title(tool, &input, Some("/w")), want_title, "{tool}");
        }
        // Not one of Kilo's: OpenCode's table (or the MCP split) decides.
        assert_eq!(kind("bash"), None);
        assert_eq!(kind("amalgm_browser_navigate"), None);
    }

    #[test]
    fn empty_inputs_still_say_what_happens() {
        for tool in [
            "background_process",
            "board_post",
            "board_read",
            "schedule_wakeup",
            "cancel_wakeup",
            "kilo_local_recall",
            "suggest",
        ] {
            let t = title(tool, &json!({}), None);
            assert!(!t.is_empty() && !t.contains('_'), "{tool}: {t}");
        }
    }
}
