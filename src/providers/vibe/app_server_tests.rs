//! `vibe-app-server` recordings: the entries the notifications add and patch give the parts the
//! streaming output's entries give; detection tells the protocol from its neighbours at the first
//! lines; bad input is a warning naming its line.

use serde_json::{Value, json};

use super::{check, entries, normalize};
use crate::dialects::Sniffer;
use crate::model::ToolState;
use crate::stream::{Dialect, RawLine};

/// The client's opening: `initialize`, the server's answer, `initialized`, `session/start` and
/// its answer (an empty history), `turn/start`.
fn opening() -> Vec<Value> {
    vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "clientInfo": {"name": "c", "version": "1"}, "capabilities": {"callbackKinds": ["approval"]}}}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"serverInfo": {"name": "vibe-app-server", "version": "3.0.2"}, "processId": 7}}),
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/start", "params": {
            "agentConfig": {"cwd": "/w", "autoApprove": true, "trustWorkspace": true}}}),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"lastEventId": 0, "state": {
            "format": "vibe.public-session-state/v1", "eventId": 0, "session": {"id": "s"}, "history": []}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "turn/start", "params": {
            "sessionId": "s", "message": [{"type": "text", "text": "Go."}]}}),
    ]
}

fn notification(method: &str, event: u64, params: Value) -> Value {
    let mut params = params;
    let obj = params.as_object_mut().unwrap();
    obj.insert("eventId".to_owned(), json!(event));
    obj.insert("sessionId".to_owned(), json!("s"));
    obj.insert("emittedAt".to_owned(), json!(1_000 + event));
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// The provider's test entries as the server sends them: each effect added running, then
/// patched to its end (the first one field by field, as the server diffs it, with an `append` to
/// its output text; the others by replacing the whole state), among the session's other
/// notifications.
fn recording() -> String {
    let mut lines = opening();
    let mut event = 0;
    let mut next = || {
        event += 1;
        event
    };
    for e in entries() {
        let mut added = e.clone();
        let id = e["id"].as_str().unwrap().to_owned();
        let is_effect = e["type"] == "effect";
        if is_effect {
            added["state"] = json!({"status": "running", "outputText": ""});
            added["generationStatus"] = json!("in_progress");
        }
        lines.push(notification(
            "history/entryAdded",
            next(),
            json!({"turnId": "t", "entry": added}),
        ));
        lines.push(notification(
            "session/updated",
            next(),
            json!({"patch": [{"op": "replace", "path": "/updatedAt", "value": 5}]}),
        ));
        if !is_effect {
            continue;
        }
        let state = &e["state"];
        let patch = if id == "e1" {
            json!([
                {"op": "add", "path": "/state/display", "value": state["display"]},
                {"op": "add", "path": "/state/output", "value": state["output"]},
                {"op": "append", "path": "/state/outputText", "value": state["outputText"]},
                {"op": "replace", "path": "/state/status", "value": state["status"]},
                {"op": "replace", "path": "/generationStatus", "value": "completed"}
            ])
        } else {
            json!([
                {"op": "replace", "path": "/state", "value": state},
                {"op": "replace", "path": "/generationStatus", "value": "completed"}
            ])
        };
        lines.push(notification(
            "history/entryUpdated",
            next(),
            json!({"turnId": "t", "entryId": id, "patch": patch}),
        ));
    }
    lines.push(notification(
        "turn/completed",
        next(),
        json!({"turn": {"id": "t", "sessionId": "s", "status": "completed"}}),
    ));
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

#[test]
fn a_recording_is_sniffed_and_gives_the_streaming_output_s_parts() {
    let doc = normalize(&recording(), None);
    assert_eq!(doc.dialect, "app-server");
    assert_eq!(doc.provider, "vibe");
    check(&doc);
    // The first effect's output text is its start's and the appended text.
    let e1 = &doc.parts[0];
    assert_eq!(e1.state, ToolState::Complete);
    assert_eq!(
        e1.output,
        Some(json!({"stdout": "hi\n", "stderr": "", "output": "", "truncated": false}))
    );
}

#[test]
fn a_session_s_state_holds_entries_too() {
    // `session/read`'s answer, and a `session/snapshot` notification, each with the history.
    let all: Vec<Value> = entries();
    let lines = [
        json!({"jsonrpc": "2.0", "id": 4, "method": "session/read", "params": {"sessionId": "s"}}),
        json!({"jsonrpc": "2.0", "id": 4, "result": {"state": {"eventId": 9, "session": {"id": "s"},
            "history": all[..4]}}}),
        notification(
            "session/snapshot",
            10,
            json!({"state": {"eventId": 10, "session": {"id": "s"}, "history": all[4..]}}),
        ),
    ];
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    let doc = normalize(&text, Some(Dialect::VibeAppServer));
    check(&doc);
}

/// The dialect the sniffer decides on for `lines`, and at which line it did.
fn sniffed(lines: &[String]) -> (Dialect, u32) {
    let mut s = Sniffer::new(None);
    for (i, text) in lines.iter().enumerate() {
        if let Some(verdict) = s.push(&RawLine::agent(i + 1, text)) {
            return (verdict.unwrap(), i as u32 + 1);
        }
    }
    (s.finish().unwrap(), lines.len() as u32)
}

#[test]
fn detection_tells_the_app_server_from_its_neighbours_at_the_first_lines() {
    // The opening alone (six lines: two of them Vibe's own requests) and the recording's first
    // dozen lines are Vibe's app server, though `session/start` is a `session/…` method (ACP's)
    // and every notification a `…/…` one (Codex's app server's).
    let opening: Vec<String> = opening().iter().map(Value::to_string).collect();
    assert_eq!(sniffed(&opening).0, Dialect::VibeAppServer);
    let first: Vec<String> = recording().lines().take(12).map(str::to_owned).collect();
    let (dialect, at) = sniffed(&first);
    assert_eq!(dialect, Dialect::VibeAppServer);
    assert!(at <= 12, "{at}");
    // Its neighbours stay theirs.
    let neighbours: [(&[Value], Dialect); 4] = [
        (
            &[
                json!({"jsonrpc": "2.0", "id": 1, "method": "thread/start", "params": {"cwd": "/w"}}),
                json!({"jsonrpc": "2.0", "method": "item/started", "params": {"threadId": "t", "turnId": "u",
                    "item": {"type": "commandExecution", "id": "c1", "command": "ls"}}}),
                json!({"jsonrpc": "2.0", "method": "turn/completed", "params": {"threadId": "t", "turn": {"id": "u"}}}),
            ],
            Dialect::CodexAppServer,
        ),
        (
            &[
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}),
                json!({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/w", "mcpServers": []}}),
                json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s",
                    "update": {"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "bash"}}}),
            ],
            Dialect::Acp,
        ),
        (
            &[
                json!({"jsonrpc": "2.0", "method": "event", "params": {"type": "TurnBegin", "payload": {"user_input": "Go."}}}),
                json!({"jsonrpc": "2.0", "method": "event", "params": {"type": "StepBegin", "payload": {"n": 1}}}),
            ],
            Dialect::KimiWire,
        ),
        (&entries(), Dialect::VibeStreaming),
    ];
    for (lines, dialect) in neighbours {
        let lines: Vec<String> = lines.iter().map(Value::to_string).collect();
        assert_eq!(sniffed(&lines).0, dialect, "{lines:?}");
    }
}

/// Only the calls are kept whole: a message's entry is remembered by its id, and the patches
/// that grow its text are passed over without a warning.
#[test]
fn a_message_s_patches_are_passed_over() {
    let mut lines = opening();
    let message = json!({"id": "m1", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": ""}]});
    lines.push(notification(
        "history/entryAdded",
        1,
        json!({"entry": message}),
    ));
    for (i, piece) in ["Look", "ing", " around."].iter().enumerate() {
        lines.push(notification(
            "history/entryUpdated",
            2 + i as u64,
            json!({"entryId": "m1", "patch": [
                {"op": "append", "path": "/content/0/text", "value": piece}]}),
        ));
    }
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    let doc = normalize(&text.join("\n"), Some(Dialect::VibeAppServer));
    assert!(doc.parts.is_empty());
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
}

#[test]
fn bad_input_is_a_warning_naming_its_line_never_a_panic() {
    let added = json!({"id": "e1", "sessionId": "s", "turnId": "t", "generationStatus": "in_progress",
        "type": "effect", "detail": {"toolName": "file_system.bash", "kind": "shell",
            "input": {"command": "ls"}}, "state": {"status": "running", "outputText": ""}});
    let lines = [
        "not json".to_owned(),
        "[1, 2]".to_owned(),
        notification("history/entryAdded", 1, json!({"entry": added})).to_string(),
        // No entry; an entry that is not one.
        notification("history/entryAdded", 2, json!({})).to_string(),
        notification("history/entryAdded", 3, json!({"entry": 7})).to_string(),
        // A patch to an entry nobody added; without an id; without a patch.
        notification(
            "history/entryUpdated",
            4,
            json!({"entryId": "nope", "patch": [{"op": "replace", "path": "/state/status", "value": "completed"}]}),
        )
        .to_string(),
        notification("history/entryUpdated", 5, json!({"patch": []})).to_string(),
        notification("history/entryUpdated", 6, json!({"entryId": "e1", "patch": {}})).to_string(),
        // A patch whose second operation names nothing: none of it applies.
        notification(
            "history/entryUpdated",
            7,
            json!({"entryId": "e1", "patch": [
                {"op": "replace", "path": "/state/status", "value": "completed"},
                {"op": "replace", "path": "/state/nothing/here", "value": 1}]}),
        )
        .to_string(),
        // Operations of nonsense: an unknown op, a path without its slash, `append` to an object.
        notification(
            "history/entryUpdated",
            8,
            json!({"entryId": "e1", "patch": [{"op": "frobnicate", "path": "/state"}]}),
        )
        .to_string(),
        notification(
            "history/entryUpdated",
            9,
            json!({"entryId": "e1", "patch": [{"op": "replace", "path": "state", "value": 1}]}),
        )
        .to_string(),
        notification(
            "history/entryUpdated",
            10,
            json!({"entryId": "e1", "patch": [{"op": "append", "path": "/state", "value": "x"}]}),
        )
        .to_string(),
        // A state that is not one, in an answer.
        json!({"jsonrpc": "2.0", "id": 3, "result": {"state": {"history": [1]}}}).to_string(),
        // Cut short.
        r#"{"jsonrpc":"2.0","method":"history/entryUpdated","params":{"entryId":"e1","pat"#
            .to_owned(),
    ];
    let text = lines.join("\n");
    let doc = normalize(&text, Some(Dialect::VibeAppServer));
    assert_eq!(doc.parts.len(), 1);
    // Still running: no patch applied.
    assert_eq!(doc.parts[0].state, ToolState::Running);
    let warned: Vec<u32> = doc.diagnostics.iter().map(|d| d.line).collect();
    for line in [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] {
        assert!(warned.contains(&line), "line {line}: {:?}", doc.diagnostics);
    }
    let at = |line: u32| {
        doc.diagnostics
            .iter()
            .find(|d| d.line == line)
            .map(|d| d.message.as_str())
            .unwrap_or("")
    };
    assert!(at(6).contains("nope"), "{}", at(6));
    assert!(at(9).contains("operation 1"), "{}", at(9));
    // A valid patch after the bad ones still applies.
    let done = notification(
        "history/entryUpdated",
        11,
        json!({"entryId": "e1", "patch": [{"op": "replace", "path": "/state/status", "value": "completed"}]}),
    );
    let text = format!("{}\n{done}\n", lines[..13].join("\n"));
    let doc = normalize(&text, Some(Dialect::VibeAppServer));
    assert_eq!(doc.parts[0].state, ToolState::Complete);
}
