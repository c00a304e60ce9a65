//! What the 2.1.3xx releases added: the rows of the tools they offer (`Monitor`, `ToolSearch`, the
//! `Cron*` family, worktrees, `ListAgents`, `SendMessage`, `ScheduleWakeup`, `ReportFindings`,
//! `Workflow`), and the launch notices of work that goes on in the background (an `Agent` run
//! asynchronously, a `Bash` with `run_in_background`, a `Monitor`): the call's tool_result only
//! says it started, the background task's `task_notification` says how it ended.

use serde_json::Value;

use crate::model::ToolKind;
use crate::providers::titles;

fn s<'v>(input: &'v Value, key: &str) -> Option<&'v str> {
    input
        .get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

fn labelled(action: &str, detail: Option<&str>) -> String {
    match detail {
        Some(d) => titles::finish(&format!("{action} {d}"), action),
        None => action.to_owned(),
    }
}

/// Kind and title of a tool the recent releases offer, `None` for any other name.
pub(crate) fn describe_recent(
    name: &str,
    input: &Value,
    cwd: Option<&str>,
) -> Option<(ToolKind, String)> {
    Some(match name {
        // Runs a command (or opens a WebSocket) and streams its lines back as events.
        "Monitor" => {
            let what = s(input, "description").map(str::to_owned).or_else(|| {
                s(input, "command")
                    .map(titles::unwrap_shell)
                    .or_else(|| input.get("ws").and_then(|w| s(w, "url")).map(titles::host))
            });
            (ToolKind::Bash, labelled("Monitoring", what.as_deref()))
        }
        // Loads the schemas of deferred tools (MCP servers' tools and the rarer built-ins).
        "ToolSearch" => {
            let title = match s(input, "query") {
                Some(q) => match q.strip_prefix("select:") {
                    Some(names) => {
                        let names: Vec<&str> = names
                            .split(',')
                            .map(str::trim)
                            .filter(|n| !n.is_empty())
                            .collect();
                        titles::finish(
                            &format!("Loading tools {}", names.join(", ")),
                            "Loading tools",
                        )
                    }
                    None => titles::finish(&format!("Searching tools for {q}"), "Searching tools"),
                },
                None => "Searching tools".to_owned(),
            };
            (ToolKind::Mcp, title)
        }
        "CronCreate" => {
            let title = match (s(input, "cron"), s(input, "prompt")) {
                (Some(c), Some(p)) => {
                    titles::finish(&format!("Scheduling \"{p}\" ({c})"), "Scheduling a prompt")
                }
                (Some(c), None) => labelled("Scheduling a prompt at", Some(c)),
                (None, Some(p)) => {
                    titles::finish(&format!("Scheduling \"{p}\""), "Scheduling a prompt")
                }
                (None, None) => "Scheduling a prompt".to_owned(),
            };
            (ToolKind::Todo, title)
        }
        "CronDelete" => (
            ToolKind::Todo,
            labelled("Cancelling scheduled job", s(input, "id")),
        ),
        "CronList" => (ToolKind::Todo, "Listing scheduled jobs".to_owned()),
        "ScheduleWakeup" => {
            let title = if input.get("stop").and_then(Value::as_bool) == Some(true) {
                "Stopping the loop".to_owned()
            } else {
                match input.get("delaySeconds").and_then(Value::as_f64) {
                    Some(secs) if secs >= 0.0 => {
                        format!("Scheduling a wakeup in {}", duration(secs))
                    }
                    _ => "Scheduling a wakeup".to_owned(),
                }
            };
            (ToolKind::Todo, title)
        }
        // Creates a git worktree (or switches into one) and moves the session there.
        "EnterWorktree" => {
            let title = match (s(input, "path"), s(input, "name")) {
                (Some(p), _) => labelled("Entering worktree", Some(&titles::display_path(p, cwd))),
                (None, Some(n)) => labelled("Creating worktree", Some(n)),
                (None, None) => "Creating a worktree".to_owned(),
            };
            (ToolKind::Bash, title)
        }
        "ExitWorktree" => {
            let title = match s(input, "action") {
                Some("remove") => "Leaving and removing the worktree",
                _ => "Leaving the worktree",
            };
            (ToolKind::Bash, title.to_owned())
        }
        "ListAgents" => (ToolKind::Subagent, "Listing agents".to_owned()),
        "SendMessage" => {
            let to = s(input, "to").or_else(|| s(input, "recipient"));
            let title = match (to, s(input, "summary")) {
                (Some(t), Some(sum)) => {
                    titles::finish(&format!("Messaging {t}: {sum}"), "Sending a message")
                }
                (Some(t), None) => labelled("Messaging", Some(t)),
                (None, _) => "Sending a message".to_owned(),
            };
            (ToolKind::Subagent, title)
        }
        "Workflow" => {
            let what = s(input, "name").or_else(|| s(input, "resumeFromRunId"));
            (ToolKind::Subagent, labelled("Running workflow", what))
        }
        "ReportFindings" => {
            let n = input
                .get("findings")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            let title = match n {
                0 => "Reporting no review findings".to_owned(),
                1 => "Reporting 1 review finding".to_owned(),
                n => format!("Reporting {n} review findings"),
            };
            (ToolKind::Todo, title)
        }
        _ => return None,
    })
}

/// `600` → `10 min`, `90` → `90 s`, `3600` → `1 h`.
fn duration(secs: f64) -> String {
    let s = secs.round() as u64;
    if s >= 3600 && s.is_multiple_of(3600) {
        format!("{} h", s / 3600)
    } else if s >= 60 && s.is_multiple_of(60) {
        format!("{} min", s / 60)
    } else {
        format!("{s} s")
    }
}

/// A tool_result that only says the work was started in the background, with the background
/// task's id when it names one.
#[derive(Debug, PartialEq)]
pub(crate) struct Launch {
    pub task_id: Option<String>,
}

/// Recognise a launch notice: an async `Agent` ("Async agent launched successfully … agentId:
/// X"), a background `Bash` ("Command running in background with ID: X.", "Command was manually
/// backgrounded by user with ID: X.", "Command did not complete within its 120s timeout and was
/// moved to the background (ID: X)."), a `Monitor` ("Monitor started (task X, …"). A command
/// moved to the background once it had printed something ends with the notice, after its
/// output: a later line counts when it names the task the structured result names
/// (`backgroundTaskId`).
pub(crate) fn launch_notice(text: &str, background_task_id: Option<&str>) -> Option<Launch> {
    let t = text.trim_start();
    if let Some(launch) = notice_at(t) {
        return Some(launch);
    }
    let want = background_task_id?;
    t.lines()
        .skip(1)
        .filter_map(|l| notice_at(l.trim_start()))
        .find(|l| l.task_id.as_deref() == Some(want))
}

/// A launch notice at the start of `t`.
fn notice_at(t: &str) -> Option<Launch> {
    let first = t.lines().next().unwrap_or("");
    let id_after = |within: &str, marker: &str| {
        within.find(marker).and_then(|i| {
            within[i + marker.len()..]
                .split(|c: char| c.is_whitespace() || matches!(c, ',' | ')' | '('))
                .next()
                .map(|id| id.trim_end_matches('.'))
                .filter(|id| !id.is_empty())
                .map(str::to_owned)
        })
    };
    if t.starts_with("Async agent launched successfully") {
        return Some(Launch {
            task_id: id_after(t, "agentId: "),
        });
    }
    if t.starts_with("Command ") {
        return [
            "running in background with ID: ",
            "backgrounded by user with ID: ",
            "moved to the background (ID: ",
        ]
        .into_iter()
        .find(|m| first.contains(m))
        .map(|m| Launch {
            task_id: id_after(first, m),
        });
    }
    if t.starts_with("Monitor started (task ") {
        return Some(Launch {
            task_id: id_after(first, "(task "),
        });
    }
    None
}

/// A foreground subagent's answer in 2.1.3xx: `<tools-used-before-summary>Bash, Read</…>`, a
/// `[Subagent hand-back]` frame for the model, then the report with every line indented by two
/// spaces. Gives the report (indentation removed) and the tools the subagent used.
pub(crate) fn unwrap_hand_back(text: &str) -> Option<(String, Vec<String>)> {
    const FRAME: &str = "[Subagent hand-back]";
    const FOLLOWS: &str = "The report follows:\n";
    let frame = text.find(FRAME)?;
    let body = &text[frame..];
    let report_at = body.find(FOLLOWS)? + FOLLOWS.len();
    let report: Vec<&str> = body[report_at..]
        .lines()
        .map(|l| l.strip_prefix("  ").unwrap_or(l))
        .collect();
    let used = text[..frame]
        .split_once("<tools-used-before-summary>")
        .and_then(|(_, rest)| rest.split_once("</tools-used-before-summary>"))
        .map(|(list, _)| {
            list.split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    Some((report.join("\n").trim_end().to_owned(), used))
}

/// The exit code a background command's notification summary gives: `… completed (exit code
/// 0)`.
pub(crate) fn summary_exit_code(summary: &str) -> Option<i64> {
    let i = summary.rfind("(exit code ")?;
    summary[i + "(exit code ".len()..]
        .split(')')
        .next()?
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_tool_of_the_current_release_has_a_row() {
        let cases = [
            (
                "Monitor",
                json!({"description": "Watch the build log", "command": "tail -f log", "timeout_ms": 5000}),
                ToolKind::Bash,
                "Monitoring Watch the build log",
            ),
            (
                "Monitor",
                json!({"command": "bash -c 'tail -f log'"}),
                ToolKind::Bash,
                "Monitoring tail -f log",
            ),
            (
                "Monitor",
                json!({"ws": {"url": "wss://events.example.com/feed"}}),
                ToolKind::Bash,
                "Monitoring events.example.com",
            ),
            (
                "ToolSearch",
                json!({"query": "select:CronCreate,CronList", "max_results": 5}),
                ToolKind::Mcp,
                "Loading tools CronCreate, CronList",
            ),
            (
                "ToolSearch",
                json!({"query": "slack send"}),
                ToolKind::Mcp,
                "Searching tools for slack send",
            ),
            (
                "CronCreate",
                json!({"cron": "0 3 * * *", "prompt": "Run the nightly check"}),
                ToolKind::Todo,
                "Scheduling \"Run the nightly check\" (0 3 * * *)",
            ),
            (
                "CronDelete",
                json!({"id": "9c0c2af7"}),
                ToolKind::Todo,
                "Cancelling scheduled job 9c0c2af7",
            ),
            (
                "CronList",
                json!({}),
                ToolKind::Todo,
                "Listing scheduled jobs",
            ),
            (
                "ScheduleWakeup",
                json!({"delaySeconds": 600, "prompt": "x"}),
                ToolKind::Todo,
                "Scheduling a wakeup in 10 min",
            ),
            (
                "ScheduleWakeup",
                json!({"stop": true}),
                ToolKind::Todo,
                "Stopping the loop",
            ),
            (
                "EnterWorktree",
                json!({"name": "nightly-check"}),
                ToolKind::Bash,
                "Creating worktree nightly-check",
            ),
            (
                "EnterWorktree",
                json!({"path": "/home/dev/app/.claude/worktrees/x"}),
                ToolKind::Bash,
                "Entering worktree .claude/worktrees/x",
            ),
            (
                "ExitWorktree",
                json!({"action": "keep"}),
                ToolKind::Bash,
                "Leaving the worktree",
            ),
            (
                "ExitWorktree",
                json!({"action": "remove", "discard_changes": true}),
                ToolKind::Bash,
                "Leaving and removing the worktree",
            ),
            (
                "ListAgents",
                json!({}),
                ToolKind::Subagent,
                "Listing agents",
            ),
            (
                "SendMessage",
                json!({"to": "reviewer", "summary": "ask for a review", "message": "…"}),
                ToolKind::Subagent,
                "Messaging reviewer: ask for a review",
            ),
            (
                "Workflow",
                json!({"name": "deep-research"}),
                ToolKind::Subagent,
                "Running workflow deep-research",
            ),
            (
                "ReportFindings",
                json!({"findings": [{"file": "a.rs"}]}),
                ToolKind::Todo,
                "Reporting 1 review finding",
            ),
        ];
        for (name, input, kind, title) in cases {
            let got = describe_recent(name, &input, Some("/home/dev/app"));
            assert_eq!(got, Some((kind, title.to_owned())), "{name} {input}");
        }
        assert_eq!(describe_recent("Bash", &json!({}), None), None);
    }

    #[test]
    fn launch_notices_of_the_current_release() {
        assert_eq!(
            launch_notice(
                "Async agent launched successfully. (This tool result is internal metadata — never quote it.)\nagentId: a3cede48c24f2d1b5 (internal ID - do not mention to user.)\nThe agent is working in the background.",
                None
            ),
            Some(Launch {
                task_id: Some("a3cede48c24f2d1b5".into())
            })
        );
        assert_eq!(
            launch_notice(
                "Command running in background with ID: bbhx3zhl3. Output is being written to: ~/x/tasks/bbhx3zhl3.output.",
                None
            ),
            Some(Launch {
                task_id: Some("bbhx3zhl3".into())
            })
        );
        assert_eq!(
            launch_notice(
                "Monitor started (task b1vp3psj4, expires in 5s unless the source ends first)",
                None
            ),
            Some(Launch {
                task_id: Some("b1vp3psj4".into())
            })
        );
        assert_eq!(
            launch_notice("Five states: Uttar Pradesh, Punjab.", None),
            None
        );
        // Moved to the background after some output: the notice is the last line, and counts
        // when the structured result names the same task.
        let moved = "compiling\nstill compiling\nCommand was manually backgrounded by user with ID: b2x. Output is being written to: /tmp/b2x.output";
        assert_eq!(
            launch_notice(moved, Some("b2x")),
            Some(Launch {
                task_id: Some("b2x".into())
            })
        );
        assert_eq!(launch_notice(moved, None), None);
        assert_eq!(launch_notice(moved, Some("other")), None);
        assert_eq!(
            launch_notice(
                "Command did not complete within its 120s timeout and was moved to the background (ID: b7k). Output is being written to: /tmp/b7k.output.",
                None
            ),
            Some(Launch {
                task_id: Some("b7k".into())
            })
        );
        assert_eq!(
            summary_exit_code("Background command \"Build\" completed (exit code 0)"),
            Some(0)
        );
        assert_eq!(
            summary_exit_code("Background command \"x\" failed (exit code 2)"),
            Some(2)
        );
        assert_eq!(summary_exit_code("Monitor \"x\" stream ended"), None);
        let (report, used) = unwrap_hand_back("  <tools-used-before-summary>Bash, Read</tools-used-before-summary>\n  \n[Subagent hand-back] The text below is the final report of a subagent. The report follows:\n  Five states.\n    - indented more\n  Done.").unwrap();
        assert_eq!(report, "Five states.\n  - indented more\nDone.");
        assert_eq!(used, ["Bash", "Read"]);
        assert_eq!(unwrap_hand_back("Five states."), None);
    }

    fn stream(lines: &[&str]) -> crate::model::NormalizedDocument {
        let mut text = lines.join("\n");
        text.push('\n');
        crate::dialects::normalize_text(&text, crate::stream::Dialect::ClaudeStreamJson)
    }

    const SID: &str = r#""session_id":"s""#;

    fn tool_use(id: &str, name: &str, input: &str) -> String {
        format!(
            r#"{{"type":"assistant","message":{{"id":"m","role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"{name}","input":{input}}}]}},"parent_tool_use_id":null,{SID}}}"#
        )
    }

    fn tool_result(id: &str, text: &str, is_error: bool) -> String {
        format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{id}","type":"tool_result","content":{},"is_error":{is_error}}}]}},"parent_tool_use_id":null,{SID}}}"#,
            serde_json::Value::String(text.to_owned())
        )
    }

    /// 2.1.332: an `Agent` runs in the background; its tool_result is a launch notice, its task's
    /// notification carries the report.
    #[test]
    fn a_background_subagent_ends_with_its_task() {
        use crate::model::ToolState;
        let call = tool_use(
            "toolu_1",
            "Agent",
            r#"{"description":"Research Northern India politics","prompt":"P","subagent_type":"general-purpose"}"#,
        );
        let started = format!(
            r#"{{"type":"system","subtype":"task_started","task_id":"a3ce","tool_use_id":"toolu_1","description":"Research","is_backgrounded":true,"task_type":"local_agent",{SID}}}"#
        );
        let notice = tool_result(
            "toolu_1",
            "Async agent launched successfully. (This tool result is internal metadata.)\nagentId: a3ce (internal ID - do not mention to user.)\nThe agent is working in the background.",
            false,
        );
        let progress = format!(
            r#"{{"type":"system","subtype":"task_progress","task_id":"a3ce","tool_use_id":"toolu_1","description":"Running Count","usage":{{"total_tokens":110,"tool_uses":1,"duration_ms":297}},{SID}}}"#
        );
        let updated = format!(
            r#"{{"type":"system","subtype":"task_updated","task_id":"a3ce","patch":{{"status":"completed","end_time":1}},{SID}}}"#
        );
        let notified = format!(
            r#"{{"type":"system","subtype":"task_notification","task_id":"a3ce","tool_use_id":"toolu_1","status":"completed","summary":"Five states.","summary_is_report":true,"usage":{{"total_tokens":120,"tool_uses":2,"duration_ms":962}},{SID}}}"#
        );
        // Until the task ends, the part runs, with no output.
        let doc = stream(&[&call, &started, &notice, &progress]);
        let p = &doc.parts[0];
        assert_eq!(p.state, ToolState::Running);
        assert!(p.output.is_none());
        let meta = p.metadata.as_ref().unwrap();
        assert_eq!(meta.task_id.as_deref(), Some("a3ce"));
        assert_eq!(meta.extra["background"], true);
        assert_eq!(meta.extra["taskType"], "local_agent");
        // The task's end is the part's end; the report is the output, never the notice.
        let doc = stream(&[&call, &started, &notice, &progress, &updated, &notified]);
        let p = &doc.parts[0];
        assert_eq!(p.state, ToolState::Complete);
        assert_eq!(p.output.as_ref().unwrap(), "Five states.");
        assert_eq!(p.timing.as_ref().unwrap().elapsed_ms, Some(962));
        // The notice first (no task_started seen): still a launch, linked by its agentId.
        let doc = stream(&[&call, &notice, &notified]);
        assert_eq!(doc.parts[0].state, ToolState::Complete);
        assert_eq!(doc.parts[0].output.as_ref().unwrap(), "Five states.");
        // A failed task fails the part.
        let failed = format!(
            r#"{{"type":"system","subtype":"task_notification","task_id":"a3ce","tool_use_id":"toolu_1","status":"failed","summary":"Agent failed: API error",{SID}}}"#
        );
        let doc = stream(&[&call, &started, &notice, &failed]);
        assert_eq!(doc.parts[0].state, ToolState::Error);
        assert_eq!(
            doc.parts[0].error.as_ref().unwrap().message,
            "Agent failed: API error"
        );
    }

    /// A `run_in_background` Bash, a follow-up that stops it, and its task's end.
    #[test]
    fn background_shells_and_their_follow_ups() {
        use crate::model::ToolState;
        let run = tool_use(
            "toolu_b",
            "Bash",
            r#"{"command":"npm run build","description":"Build","run_in_background":true}"#,
        );
        let started = format!(
            r#"{{"type":"system","subtype":"task_started","task_id":"bbh","tool_use_id":"toolu_b","description":"Build","is_backgrounded":true,"task_type":"local_bash",{SID}}}"#
        );
        let notice = tool_result(
            "toolu_b",
            "Command running in background with ID: bbh. Output is being written to: ~/t/bbh.output.",
            false,
        );
        let stop = tool_use("toolu_s", "TaskStop", r#"{"task_id":"bbh"}"#);
        let stopped = tool_result(
            "toolu_s",
            "Successfully stopped task: bbh (npm run build)",
            false,
        );
        let killed = format!(
            r#"{{"type":"system","subtype":"task_notification","task_id":"bbh","tool_use_id":"toolu_b","status":"killed","summary":"Background command \"Build\" was stopped",{SID}}}"#
        );
        let doc = stream(&[&run, &started, &notice, &stop, &stopped, &killed]);
        let b = &doc.parts[0];
        assert_eq!(b.state, ToolState::Error);
        assert_eq!(
            b.error.as_ref().unwrap().code.as_deref(),
            Some("interrupted")
        );
        let s = &doc.parts[1];
        assert_eq!(s.title, "Stopping background task bbh");
        assert_eq!(s.state, ToolState::Complete);
        let meta = s.metadata.as_ref().unwrap();
        assert_eq!(meta.task_id.as_deref(), Some("bbh"));
        assert_eq!(meta.extra["taskToolUseId"], "toolu_b");
        // A background command that exits non-zero fails with its exit code.
        let exit2 = format!(
            r#"{{"type":"system","subtype":"task_notification","task_id":"bbh","tool_use_id":"toolu_b","status":"completed","summary":"Background command \"Build\" completed (exit code 2)",{SID}}}"#
        );
        let doc = stream(&[&run, &started, &notice, &exit2]);
        let b = &doc.parts[0];
        assert_eq!(b.state, ToolState::Error);
        assert_eq!(b.error.as_ref().unwrap().message, "Exit code 2");
        assert_eq!(b.metadata.as_ref().unwrap().exit_code, Some(2));
        // A foreground call's notification changes nothing it already said.
        let fg = tool_use("toolu_f", "Agent", r#"{"description":"d","prompt":"p"}"#);
        let answer = tool_result("toolu_f", "The answer.", false);
        let note = format!(
            r#"{{"type":"system","subtype":"task_notification","task_id":"t9","tool_use_id":"toolu_f","status":"completed","summary":"other",{SID}}}"#
        );
        let doc = stream(&[&fg, &answer, &note]);
        assert_eq!(doc.parts[0].output.as_ref().unwrap(), "The answer.");
    }

    /// ToolSearch answers with `tool_reference` blocks; SendMessage to nobody says so only in
    /// its structured result.
    #[test]
    fn tool_references_and_refusals_in_json() {
        use crate::model::ToolState;
        let search = tool_use("t1", "ToolSearch", r#"{"query":"select:CronList,Monitor"}"#);
        let refs = format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":[{{"type":"tool_reference","tool_name":"CronList"}},{{"type":"tool_reference","tool_name":"Monitor"}}]}}]}},"parent_tool_use_id":null,{SID}}}"#
        );
        let send = tool_use("t2", "SendMessage", r#"{"to":"reviewer","message":"hi"}"#);
        let refused = format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"t2","type":"tool_result","content":[{{"type":"text","text":"{{\"success\":false,\"message\":\"No agent named 'reviewer' is reachable.\\nUse ListAgents.\"}}"}}]}}]}},"parent_tool_use_id":null,{SID},"tool_use_result":{{"success":false,"message":"No agent named 'reviewer' is reachable.\nUse ListAgents."}}}}"#
        );
        let doc = stream(&[&search, &refs, &send, &refused]);
        assert_eq!(doc.parts[0].state, ToolState::Complete);
        assert_eq!(doc.parts[0].output.as_ref().unwrap(), "CronList\nMonitor");
        let p = &doc.parts[1];
        assert_eq!(p.state, ToolState::Error);
        assert_eq!(
            p.error.as_ref().unwrap().message,
            "No agent named 'reviewer' is reachable."
        );
        assert!(p.output.is_none());
    }
}
