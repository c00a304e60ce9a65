use serde_json::json;

use crate::dialects::{detect, normalize_text};
use crate::model::{DiagnosticLevel, TimeValue, ToolKind, ToolState};
use crate::stream::{Dialect, Input};

const HEADER: &str = r#"{"type": "metadata", "protocol_version": "1.10"}"#;
const TURN: &str = r#"{"timestamp": 1796665758.80, "message": {"type": "TurnBegin", "payload": {"user_input": "Run the check."}}}"#;
const CALL: &str = r#"{"timestamp": 1796665758.8600, "message": {"type": "ToolCall", "payload": {"type": "function", "id": "c1", "function": {"name": "Shell", "arguments": "{\"command\":\"echo 'check failed' >&2; exit 3\"}"}, "extras": null}}}"#;
const FAILED: &str = r#"{"timestamp": 1796665758.8652, "message": {"type": "ToolResult", "payload": {"tool_call_id": "c1", "return_value": {"is_error": true, "output": "check failed\n", "message": "Command failed with exit code: 3.", "display": [{"type": "brief", "text": "Failed with exit code: 3\ncheck failed"}], "extras": null}}}}"#;
const WRITE: &str = r##"{"timestamp": 1796665758.9, "message": {"type": "ToolCall", "payload": {"type": "function", "id": "c2", "function": {"name": "WriteFile", "arguments": "{\"path\":\"/w/CHANGELOG.md\",\"content\":\"# Changelog\\n\"}"}, "extras": null}}}"##;
const WRITTEN: &str = r#"{"timestamp": 1796665758.95, "message": {"type": "ToolResult", "payload": {"tool_call_id": "c2", "return_value": {"is_error": false, "output": "", "message": "File successfully overwritten. Current size: 12 bytes.", "display": [], "extras": null}}}}"#;
const END: &str = r#"{"timestamp": 1796665759.0, "message": {"type": "TurnEnd", "payload": {}}}"#;

/// A subagent's event under the parent call `a1` (agent `k7`).
fn sub(event: &str) -> String {
    format!(
        r#"{{"timestamp": 1796665760.0, "message": {{"type": "SubagentEvent", "payload": {{"parent_tool_call_id": "a1", "agent_id": "k7", "subagent_type": "coder", "event": {event}}}}}}}"#
    )
}

#[test]
fn the_wire_is_told_from_print_mode_and_saved_contexts() {
    let wire = format!("{HEADER}\n{TURN}\n{CALL}\n{FAILED}\n");
    assert_eq!(
        detect(&Input::from_bytes(wire.as_bytes()), None),
        Ok(Dialect::KimiWire)
    );
    // A piece of a wire.jsonl without its header, and `kimi --wire`'s JSON-RPC.
    assert_eq!(
        detect(&Input::from_bytes(CALL.as_bytes()), None),
        Ok(Dialect::KimiWire)
    );
    let rpc =
        r#"{"jsonrpc":"2.0","method":"event","params":{"type":"StepBegin","payload":{"n":1}}}"#;
    assert_eq!(
        detect(&Input::from_bytes(rpc.as_bytes()), None),
        Ok(Dialect::KimiWire)
    );
    // Kimi's other formats stay theirs; the client's own JSON-RPC lines are no wire.
    let printed = r#"{"role":"assistant","content":"","tool_calls":[{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{}"}}]}"#;
    assert_eq!(
        detect(&Input::from_bytes(printed.as_bytes()), None),
        Ok(Dialect::KimiStreamJson)
    );
    let saved = r#"{"role": "_checkpoint", "id": 0}"#;
    assert_eq!(
        detect(&Input::from_bytes(saved.as_bytes()), None),
        Ok(Dialect::KimiSession)
    );
    let prompt = r#"{"jsonrpc":"2.0","method":"prompt","id":"1","params":{"user_input":"hi"}}"#;
    assert_ne!(
        detect(&Input::from_bytes(prompt.as_bytes()), None),
        Ok(Dialect::KimiWire)
    );
}

#[test]
fn calls_end_with_is_error_and_carry_their_times() {
    let doc = normalize_text(
        &format!("{HEADER}\n{TURN}\n{CALL}\n{FAILED}\n{WRITE}\n{WRITTEN}\n{END}\n"),
        Dialect::KimiWire,
    );
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    let [shell, write] = &doc.parts[..] else {
        panic!("{:?}", doc.parts)
    };
    assert_eq!(
        (shell.name.as_str(), shell.kind, shell.state),
        ("Shell", ToolKind::Bash, ToolState::Error)
    );
    assert_eq!(shell.title, "Running echo 'check failed' >&2; exit 3");
    let e = shell.error.as_ref().unwrap();
    assert_eq!(e.message, "Command failed with exit code: 3.");
    assert_eq!(e.code.as_deref(), Some("3"));
    assert_eq!(e.details, Some(json!("check failed\n")));
    let t = shell.timing.as_ref().unwrap();
    assert_eq!(t.started_at, Some(TimeValue::Millis(1_796_665_758_860)));
    assert_eq!(t.completed_at, Some(TimeValue::Millis(1_796_665_758_865)));
    assert_eq!(t.elapsed_ms, Some(5));
    // No output: Kimi's message is what the call says.
    assert_eq!(
        (write.kind, write.title.as_str(), write.state),
        (
            ToolKind::FileWrite,
            "Writing /w/CHANGELOG.md",
            ToolState::Complete
        )
    );
    assert_eq!(
        write.output,
        Some(json!(
            "File successfully overwritten. Current size: 12 bytes."
        ))
    );
    // The working directory, which the wire does not name, places paths when it is given.
    let doc = crate::normalize(
        &Input::from_bytes(format!("{WRITE}\n").as_bytes()),
        crate::NormalizeOptions {
            dialect: Some(Dialect::KimiWire),
            cwd: Some("/w"),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(doc.parts[0].title, "Writing CHANGELOG.md");
}

#[test]
fn a_subagents_calls_are_its_parents_children() {
    let agent = r#"{"timestamp": 1796665759.5, "message": {"type": "ToolCall", "payload": {"type": "function", "id": "a1", "function": {"name": "Agent", "arguments": "{\"description\":\"count the sources\",\"prompt\":\"count\",\"subagent_type\":\"coder\"}"}, "extras": null}}}"#;
    // The subagent numbers its calls on its own: its `c1` is not the parent's.
    let inner_call = sub(
        r#"{"type": "ToolCall", "payload": {"type": "function", "id": "c1", "function": {"name": "Shell", "arguments": "{\"command\":\"ls src | wc -l\"}"}, "extras": null}}"#,
    );
    let inner_done = sub(
        r#"{"type": "ToolResult", "payload": {"tool_call_id": "c1", "return_value": {"is_error": false, "output": "1\n", "message": "Command executed successfully.", "display": [], "extras": null}}}"#,
    );
    let agent_done = r#"{"timestamp": 1796665761.0, "message": {"type": "ToolResult", "payload": {"tool_call_id": "a1", "return_value": {"is_error": false, "output": "One source.", "message": "", "display": [], "extras": null}}}}"#;
    let doc = normalize_text(
        &format!("{CALL}\n{FAILED}\n{agent}\n{inner_call}\n{inner_done}\n{agent_done}\n"),
        Dialect::KimiWire,
    );
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    let ids: Vec<&str> = doc.parts.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["c1", "a1", "k7/c1"]);
    let (agent, inner) = (&doc.parts[1], &doc.parts[2]);
    assert_eq!(
        (agent.kind, agent.title.as_str(), agent.state),
        (ToolKind::Subagent, "Count the sources", ToolState::Complete)
    );
    assert_eq!(
        (inner.title.as_str(), inner.state),
        ("Running ls src | wc -l", ToolState::Complete)
    );
    assert_eq!(inner.output, Some(json!("1\n")));
    let parent = inner
        .metadata
        .as_ref()
        .unwrap()
        .parent_tool_use_id
        .as_deref();
    assert_eq!(parent, Some("a1"));
    assert_eq!(doc.parts[0].state, ToolState::Error);
}

#[test]
fn kimi_wire_streams_arguments_in_parts() {
    let rpc = |ty: &str, payload: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"event","params":{{"type":"{ty}","payload":{payload}}}}}"#
        )
    };
    let lines = [
        r#"{"jsonrpc":"2.0","method":"initialize","id":"0","params":{"protocol_version":"1.10"}}"#
            .to_owned(),
        r#"{"jsonrpc":"2.0","id":"0","result":{"protocol_version":"1.10"}}"#.to_owned(),
        rpc("StepBegin", r#"{"n":1}"#),
        rpc(
            "ToolCall",
            r#"{"type":"function","id":"c1","function":{"name":"ReadFile","arguments":"{\"pa"},"extras":null}"#,
        ),
        rpc("ToolCallPart", r#"{"arguments_part":"th\":\"/w/notes"}"#),
        rpc("ToolCallPart", r#"{"arguments_part":".txt\"}"}"#),
        rpc(
            "ToolResult",
            r#"{"tool_call_id":"c1","return_value":{"is_error":false,"output":[{"type":"text","text":"     1\talpha\n"}],"message":"1 lines read","display":[],"extras":null}}"#,
        ),
        rpc("TurnEnd", "{}"),
    ];
    let doc = normalize_text(&lines.join("\n"), Dialect::KimiWire);
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    let p = &doc.parts[0];
    assert_eq!(p.input, json!({"path": "/w/notes.txt"}));
    assert_eq!(p.title, "Reading /w/notes.txt");
    assert_eq!(p.output, Some(json!("     1\talpha\n")));
    // JSON-RPC carries no time: none is invented.
    assert!(p.timing.is_none());
}

#[test]
fn rejections_and_interruptions_fail_the_open_calls() {
    let ask = r#"{"timestamp": 1796665758.861, "message": {"type": "ApprovalRequest", "payload": {"id": "r1", "tool_call_id": "c1", "sender": "Shell", "action": "run command", "description": "exit 3", "display": []}}}"#;
    let no = r#"{"timestamp": 1796665758.862, "message": {"type": "ApprovalResponse", "payload": {"request_id": "r1", "response": "reject", "feedback": ""}}}"#;
    let rejected = r#"{"timestamp": 1796665758.863, "message": {"type": "ToolResult", "payload": {"tool_call_id": "c1", "return_value": {"is_error": true, "output": "", "message": "The tool call is rejected by the user.", "display": [], "extras": null}}}}"#;
    let stop =
        r#"{"timestamp": 1796665759.0, "message": {"type": "StepInterrupted", "payload": {}}}"#;
    let doc = normalize_text(
        &format!("{CALL}\n{ask}\n{no}\n{rejected}\n{WRITE}\n{stop}\n"),
        Dialect::KimiWire,
    );
    let e = doc.parts[0].error.as_ref().unwrap();
    assert_eq!(
        (e.message.as_str(), e.code.as_deref()),
        ("The tool call is rejected by the user.", Some("declined"))
    );
    let e = doc.parts[1].error.as_ref().unwrap();
    assert_eq!(e.code.as_deref(), Some("interrupted"));
    assert_eq!(doc.parts[1].state, ToolState::Error);
}

#[test]
fn bad_lines_are_named_and_the_rest_reads() {
    let doc = normalize_text(
        &format!(
            "{FAILED}\n{{\"timestamp\": 1, \"message\": {{\"type\": \"ToolCa\n[1, 2]\n{CALL}\n{}\n{}\n{}\n{WRITE}\n",
            r#"{"timestamp": 2, "message": {"type": "ToolCall", "payload": {"id": 7}}}"#,
            r#"{"timestamp": 3, "message": {"type": "Teleport", "payload": {}}}"#,
            r#"{"timestamp": 4, "message": {"type": "ToolResult", "payload": {"tool_call_id": "nobody", "return_value": {"is_error": false, "output": "x"}}}}"#,
        ),
        Dialect::KimiWire,
    );
    assert_eq!(doc.parts.len(), 2);
    assert_eq!(doc.parts[0].state, ToolState::Error);
    assert_eq!(doc.parts[1].state, ToolState::Running);
    let at = |line: u32| {
        doc.diagnostics
            .iter()
            .find(|d| d.line == line)
            .unwrap_or_else(|| panic!("line {line}: {:?}", doc.diagnostics))
    };
    // A result before its call waits for it.
    assert_eq!(at(1).level, DiagnosticLevel::Info);
    assert_eq!(at(2).level, DiagnosticLevel::Warning);
    assert_eq!(at(3).level, DiagnosticLevel::Warning);
    assert!(
        at(5).message.contains("not what Kimi writes"),
        "{:?}",
        at(5)
    );
    assert!(at(6).message.contains("Teleport"));
    assert!(
        doc.diagnostics
            .iter()
            .any(|d| d.line == 7 && d.message.contains("no matching call")),
        "{:?}",
        doc.diagnostics
    );
}
