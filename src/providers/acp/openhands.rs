//! What `openhands acp` (the OpenHands CLI, `OpenHands CLI ACP Agent` in its `initialize`
//! response) says of a call, read with OpenHands' own tool table. It names no tool: it titles a
//! command `$ <command>`, a `file_editor` call `Reading <absolute path>` or `Editing <absolute
//! path>` (a create, an insert and an undo alike), the task list `Plan updated`, and every other
//! call (an MCP tool, the `task` subagent) with nothing; its ACP kinds are `execute`, `read`,
//! `edit` and `other`. But its `rawInput` is the validated action as the SDK dumps it (with the
//! action's class in `kind`), and a result's `rawOutput` the whole `ObservationEvent` (or
//! `AgentErrorEvent`, `UserRejectObservation`), the tool's name in it: the part gets the name,
//! kind, title, input and outcome the native dialects (`openhands json`, `events`) give the
//! same call.

use serde_json::Value;

use super::tools::{CallView, Derived};
use crate::model::ToolState;
use crate::providers::openhands::tools::{
    BUILTINS, MCP_ACTION, agent_error, describe, input_of, listed_folder, outcome, rejected,
};

/// The name `openhands acp` gives itself in `initialize` (`agentInfo.name`).
pub(crate) const AGENT_NAME: &str = "OpenHands CLI ACP Agent";

/// Whether a permission request's call (`confirmation-<session id>`, titled `Confirm Agent
/// Actions`) is OpenHands asking to run the calls it has announced and not yet run, all at once:
/// no call of its own. A rejection reaches each of those calls as its result (a
/// `UserRejectObservation`).
pub(crate) fn confirms_pending_actions(call_id: &str) -> bool {
    call_id.starts_with("confirmation-")
}

/// End a `task_tracker` call still open with the task list of a `plan` update, and say so:
/// OpenHands sends that tool's result as the plan, never as an update of the call.
pub(crate) fn answered_by_plan(view: &mut CallView, entries: &Value) -> bool {
    let tracker = view
        .raw_input
        .as_ref()
        .and_then(|a| text(a, "kind"))
        .is_some_and(|k| k == "TaskTrackerAction");
    if !tracker || !matches!(view.state(), ToolState::Started | ToolState::Running) {
        return false;
    }
    view.status = Some("completed".to_owned());
    view.raw_output = Some(entries.clone());
    true
}

/// The built-in tool an action class stands for (`TerminalAction` -> `terminal`,
/// `FileEditorAction` -> `file_editor`: the class in snake case without `Action`), when it is one.
fn tool_of_action(class: &str) -> Option<String> {
    let stem = class.strip_suffix("Action")?;
    let mut name = String::with_capacity(stem.len() + 4);
    for (i, c) in stem.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                name.push('_');
            }
            name.push(c.to_ascii_lowercase());
        } else {
            name.push(c);
        }
    }
    BUILTINS.contains(&name.as_str()).then_some(name)
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// Refine the part the ACP normalizer derived from one of `openhands acp`'s calls.
pub(crate) fn refine_acp(d: &mut Derived, view: &CallView, cwd: Option<&str>) {
    let action = view.raw_input.as_ref().filter(|v| v.is_object());
    let class = action.and_then(|a| text(a, "kind"));
    // The result's event names the tool; before it, the action's class does (an MCP action
    // names no tool: its name comes with the result).
    let result = view.raw_output.as_ref().filter(|v| v.is_object());
    let name = result
        .and_then(|r| text(r, "tool_name"))
        .map(str::to_owned)
        .or_else(|| class.and_then(tool_of_action));
    let Some(name) = name else {
        return;
    };
    let input = action.map(input_of).unwrap_or_else(|| d.input.clone());
    let described = describe(&name, class, &input, cwd);
    d.name = described.name;
    d.kind = described.kind;
    d.title = described.title;
    d.input = input;
    if described.mcp.is_some() {
        d.metadata.mcp = described.mcp;
    }
    if let Some(class) = class {
        d.metadata.provider_type = Some(class.to_owned());
    }
    let Some(result) = result else {
        return;
    };
    let declined = d.error.as_ref().and_then(|e| e.code.clone());
    let ended = match text(result, "kind") {
        Some("ObservationEvent") => {
            let Some(obs) = result.get("observation").filter(|o| o.is_object()) else {
                return;
            };
            if let Some(listed) = listed_folder(obs, cwd)
                && class != Some(MCP_ACTION)
            {
                d.title = listed;
            }
            let (ended, exit) = outcome(obs);
            if text(obs, "kind") == Some("TerminalObservation") {
                match exit {
                    // Still running: no exit code yet.
                    Some(-1) if ended.is_ok() => {
                        d.metadata
                            .extra
                            .insert("commandRunning".to_owned(), Value::Bool(true));
                    }
                    Some(_) => d.metadata.exit_code = exit,
                    None => {}
                }
            }
            ended
        }
        Some("AgentErrorEvent") => Err(agent_error(text(result, "error").unwrap_or(""))),
        Some("UserRejectObservation") => Err(rejected(
            text(result, "rejection_reason"),
            text(result, "rejection_source"),
        )),
        _ => return,
    };
    match ended {
        Ok(out) => {
            d.state = ToolState::Complete;
            d.output = Some(out);
            d.error = None;
        }
        Err(mut e) => {
            // The client's own no stands over what the agent made of it.
            if declined.as_deref() == Some("declined") {
                e.code = declined;
            }
            d.state = ToolState::Error;
            d.output = None;
            d.error = Some(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::ToolKind;
    use crate::providers::acp::tools::derive;

    fn refined(view: CallView) -> Derived {
        let mut d = derive(&view, None);
        refine_acp(&mut d, &view, Some("/w"));
        d
    }

    #[test]
    fn an_action_class_names_its_built_in_tool() {
        assert_eq!(
            tool_of_action("TerminalAction").as_deref(),
            Some("terminal")
        );
        assert_eq!(
            tool_of_action("FileEditorAction").as_deref(),
            Some("file_editor")
        );
        assert_eq!(
            tool_of_action("TaskTrackerAction").as_deref(),
            Some("task_tracker")
        );
        assert_eq!(tool_of_action("MCPToolAction"), None);
        assert_eq!(tool_of_action("Terminal"), None);
        assert_eq!(tool_of_action(""), None);
    }

    #[test]
    fn a_running_command_is_titled_from_its_action() {
        let d = refined(CallView {
            title: Some("$ sh greet.sh".to_owned()),
            kind: Some("execute".to_owned()),
            status: Some("in_progress".to_owned()),
            raw_input: Some(json!({"command": "sh greet.sh", "is_input": false,
                "timeout": null, "reset": false, "kind": "TerminalAction"})),
            ..CallView::default()
        });
        assert_eq!(d.name, "terminal");
        assert_eq!(d.kind, ToolKind::Bash);
        assert_eq!(d.title, "Running sh greet.sh");
        assert_eq!(
            d.input,
            json!({"command": "sh greet.sh", "is_input": false, "reset": false})
        );
        assert_eq!(d.metadata.provider_type.as_deref(), Some("TerminalAction"));
    }

    #[test]
    fn a_non_zero_exit_code_fails_the_call_as_natively() {
        let d = refined(CallView {
            title: Some("$ sh check.sh".to_owned()),
            status: Some("completed".to_owned()),
            raw_input: Some(json!({"command": "sh check.sh", "kind": "TerminalAction"})),
            raw_output: Some(json!({"kind": "ObservationEvent", "tool_name": "terminal",
                "observation": {"kind": "TerminalObservation", "is_error": false,
                    "exit_code": 3, "content": [{"type": "text", "text": "check failed"}]}})),
            ..CallView::default()
        });
        assert_eq!(d.state, ToolState::Error);
        let e = d.error.expect("an error");
        assert_eq!(e.message, "Exit code 3");
        assert_eq!(e.code.as_deref(), Some("3"));
        assert_eq!(d.metadata.exit_code, Some(3));
    }

    #[test]
    fn an_mcp_call_untitled_by_the_agent_gets_the_native_name_and_title() {
        let d = refined(CallView {
            title: Some(String::new()),
            status: Some("completed".to_owned()),
            raw_input: Some(json!({"data": {"url": "https://example.com"},
                "kind": "MCPToolAction"})),
            raw_output: Some(
                json!({"kind": "ObservationEvent", "tool_name": "browser_navigate",
                "observation": {"kind": "MCPToolObservation", "is_error": false,
                    "content": [{"type": "text",
                        "text": "[Tool 'browser_navigate' executed.]\nopened"}]}}),
            ),
            ..CallView::default()
        });
        assert_eq!(d.name, "browser_navigate");
        assert_eq!(d.input, json!({"url": "https://example.com"}));
        assert_eq!(
            d.metadata.mcp.as_ref().map(|m| m.tool.as_str()),
            Some("browser_navigate")
        );
        assert_eq!(d.output, Some(json!("opened")));
        assert_ne!(d.title, "");
    }

    #[test]
    fn bad_frames_leave_the_derived_part_alone() {
        for (input, output) in [
            (json!("TerminalAction"), json!(null)),
            (json!({"kind": 7}), json!([1, 2])),
            (
                json!({"kind": "NoSuchAction"}),
                json!({"kind": "ObservationEvent"}),
            ),
        ] {
            let view = CallView {
                title: Some("x".to_owned()),
                raw_input: Some(input),
                raw_output: Some(output),
                ..CallView::default()
            };
            let before = derive(&view, None);
            let d = refined(view);
            assert_eq!(d.name, before.name);
            assert_eq!(d.title, before.title);
        }
        // A result event without its observation changes nothing of the outcome.
        let d = refined(CallView {
            status: Some("completed".to_owned()),
            raw_input: Some(json!({"command": "ls", "kind": "TerminalAction"})),
            raw_output: Some(json!({"kind": "ObservationEvent", "tool_name": "terminal",
                "observation": "text"})),
            ..CallView::default()
        });
        assert_eq!(d.name, "terminal");
        assert_eq!(d.state, ToolState::Complete);
    }
}

#[cfg(test)]
mod stream_tests {
    use serde_json::{Value, json};

    use crate::dialects::normalize_text;
    use crate::model::{NormalizedDocument, ToolKind, ToolState};
    use crate::stream::Dialect;

    fn run(lines: &[Value]) -> NormalizedDocument {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        normalize_text(&text, Dialect::Acp)
    }

    fn update(u: Value) -> Value {
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": u}})
    }

    fn started() -> Vec<Value> {
        vec![
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}),
            json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1,
                "agentInfo": {"name": "OpenHands CLI ACP Agent", "version": "1.16.0"}}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
                "params": {"cwd": "/w", "mcpServers": []}}),
            update(json!({"sessionUpdate": "tool_call", "toolCallId": "c1",
                "title": "Editing /w/a.md", "kind": "edit", "status": "in_progress",
                "rawInput": {"command": "create", "path": "/w/a.md", "file_text": "x",
                    "kind": "FileEditorAction"}})),
            json!({"jsonrpc": "2.0", "id": 7, "method": "session/request_permission",
                "params": {"sessionId": "s", "options": [
                    {"kind": "allow_once", "name": "Yes, proceed", "optionId": "accept"},
                    {"kind": "reject_once", "name": "Reject", "optionId": "reject"}],
                "toolCall": {"kind": "other", "status": "pending",
                    "title": "Confirm Agent Actions", "toolCallId": "confirmation-s"}}}),
        ]
    }

    /// The request to run the pending calls is no call; a rejection reaches the call as its
    /// `UserRejectObservation`.
    #[test]
    fn the_batch_confirmation_is_no_call_and_a_rejection_declines_the_call() {
        let mut lines = started();
        lines.push(json!({"jsonrpc": "2.0", "id": 7,
            "result": {"outcome": {"outcome": "selected", "optionId": "reject"}}}));
        lines.push(update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1",
            "status": "failed",
            "rawOutput": {"kind": "UserRejectObservation", "tool_name": "file_editor",
                "tool_call_id": "c1", "rejection_reason": "User rejected the proposed action.",
                "rejection_source": "user"}}),
        ));
        let doc = run(&lines);
        assert_eq!(doc.parts.len(), 1, "{:?}", doc.parts);
        let p = &doc.parts[0];
        assert_eq!(
            (p.name.as_str(), p.kind),
            ("file_editor", ToolKind::FileWrite)
        );
        assert_eq!(p.title, "Creating a.md");
        assert_eq!(p.state, ToolState::Error);
        let e = p.error.as_ref().expect("an error");
        assert_eq!(e.code.as_deref(), Some("declined"));
        assert_eq!(e.message, "User rejected the proposed action.");
    }

    /// Another agent's permission request of the same shape is still a call of its own.
    #[test]
    fn only_openhands_confirmations_are_passed_over() {
        let mut lines = started();
        lines[1] = json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1,
            "agentInfo": {"name": "another agent", "version": "1"}}});
        let doc = run(&lines);
        assert!(doc.parts.iter().any(|p| p.id == "confirmation-s"));
    }

    /// Bad frames of OpenHands' calls are diagnostics or left as ACP says, never a panic.
    #[test]
    fn bad_frames_never_panic() {
        let mut lines = started();
        lines.extend([
            update(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1",
                "status": "completed", "rawOutput": {"kind": "ObservationEvent",
                    "tool_name": 3, "observation": null}}),
            ),
            update(
                json!({"sessionUpdate": "tool_call", "toolCallId": "c2", "title": "",
                "rawInput": {"kind": "MCPToolAction", "data": "not an object"}}),
            ),
            update(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "c2",
                "status": "failed", "rawOutput": {"kind": "AgentErrorEvent", "error": 5}}),
            ),
            update(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "c3",
                "status": "failed", "rawOutput": {"kind": "AgentErrorEvent",
                    "tool_name": "glob", "error": "Tool 'glob' not found. Available: []"}}),
            ),
            json!("confirmation-"),
        ]);
        let doc = run(&lines);
        assert!(
            doc.parts
                .iter()
                .any(|p| p.id == "c1" && p.name == "file_editor")
        );
        assert!(
            doc.parts
                .iter()
                .any(|p| p.id == "c2" && p.state == ToolState::Error)
        );
    }
}
