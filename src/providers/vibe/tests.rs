use serde_json::{Value, json};

use crate::model::{ToolKind, ToolState};
use crate::providers::NormalizeOptions;
use crate::stream::{Dialect, Input};

fn normalize(text: &str, dialect: Option<Dialect>) -> crate::model::NormalizedDocument {
    let opts = NormalizeOptions {
        dialect,
        cwd: Some("/w"),
        ..NormalizeOptions::default()
    };
    crate::normalizer::normalize(&Input::from_bytes(text.as_bytes()), opts).unwrap()
}

fn effect(id: &str, tool: &str, kind: &str, input: Value, state: Value) -> Value {
    json!({"id": id, "sessionId": "s", "turnId": "t", "inputEntryId": "u", "createdAt": 1000,
        "updatedAt": 1200, "generationStatus": "completed", "relatedEntryId": null,
        "type": "effect", "title": tool,
        "detail": {"toolName": tool, "kind": kind, "input": input,
            "display": {"summary": format!("{tool}: …")}},
        "state": state})
}

fn entries() -> Vec<Value> {
    vec![
        json!({"id": "u1", "sessionId": "s", "turnId": "t", "generationStatus": "completed",
            "type": "message", "role": "user", "content": [{"type": "text", "text": "Go."}]}),
        effect(
            "e1",
            "file_system.bash",
            "shell",
            json!({"command": "sh greet.sh"}),
            json!({"status": "completed", "output": {"stdout": "hi\n", "stderr": "", "output": "", "truncated": false},
                "outputText": "hi\n", "display": {"success": true}}),
        ),
        effect(
            "e2",
            "file_system.bash",
            "shell",
            json!({"command": "exit 3"}),
            json!({"status": "completed", "output": {"stdout": "", "stderr": "check failed\n", "output": "", "truncated": false},
                "display": {"success": false}}),
        ),
        effect(
            "e3",
            "file_system.search_replace",
            "file_edit",
            json!({"filePath": "/w/config.py", "changes": []}),
            json!({"status": "failed", "error": {"code": "tool_failed", "message": "block 0: old_str not found"},
                "output": {"type": "failure"}, "display": {"success": false}}),
        ),
        effect(
            "e4",
            "vibe.todo",
            "todo",
            json!({"action": "write", "todos": [{"content": "a", "status": "completed"}, {"content": "b", "status": "pending"}]}),
            json!({"status": "completed", "output": {"todos": []}, "display": {"success": true}}),
        ),
        effect(
            "e5",
            "self.wait",
            "tool",
            json!({"timeout_ms": 1000}),
            json!({"status": "running"}),
        ),
        effect(
            "e6",
            "file_system.read_file",
            "file_read",
            json!({"filePath": "/w/a.txt"}),
            json!({"status": "skipped", "reason": "The user said no"}),
        ),
        effect(
            "e7",
            "vibe.future_tool",
            "tool",
            json!({"url": "http://x"}),
            json!({"status": "cancelled", "reason": "interrupted"}),
        ),
        json!({"id": "a1", "sessionId": "s", "turnId": "t", "generationStatus": "completed",
            "type": "message", "role": "assistant", "content": [{"type": "text", "text": "Done."}]}),
    ]
}

fn check(doc: &crate::model::NormalizedDocument) {
    let got: Vec<(&str, &str, ToolKind, ToolState, &str)> = doc
        .parts
        .iter()
        .map(|p| {
            (
                p.id.as_str(),
                p.name.as_str(),
                p.kind,
                p.state,
                p.title.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "e1",
                "bash",
                ToolKind::Bash,
                ToolState::Complete,
                "Running sh greet.sh"
            ),
            (
                "e2",
                "bash",
                ToolKind::Bash,
                ToolState::Error,
                "Running exit 3"
            ),
            (
                "e3",
                "edit",
                ToolKind::FileEdit,
                ToolState::Error,
                "Editing config.py"
            ),
            (
                "e4",
                "todo",
                ToolKind::Todo,
                ToolState::Complete,
                "Updating the todo list (2 items, 1 done)"
            ),
            (
                "e5",
                "wait",
                ToolKind::Todo,
                ToolState::Running,
                "Waiting for input (1000 ms at most)"
            ),
            (
                "e6",
                "read_file",
                ToolKind::FileRead,
                ToolState::Error,
                "Reading a.txt"
            ),
            (
                "e7",
                "future_tool",
                ToolKind::Unknown,
                ToolState::Error,
                "vibe.future_tool: …"
            ),
        ]
    );
    let error = |i: usize| doc.parts[i].error.as_ref().unwrap();
    // A command that exited non-zero: its stderr's first line (the exit code is not written).
    assert_eq!(error(1).message, "check failed");
    assert_eq!(error(1).code, None);
    assert_eq!(
        (error(2).message.as_str(), error(2).code.as_deref()),
        ("block 0: old_str not found", Some("tool_failed"))
    );
    assert_eq!(
        (error(5).message.as_str(), error(5).code.as_deref()),
        ("The user said no", Some("declined"))
    );
    assert_eq!(error(6).code.as_deref(), Some("interrupted"));
    assert_eq!(
        doc.parts[0].output,
        Some(json!({"stdout": "hi\n", "stderr": "", "output": "", "truncated": false}))
    );
    let meta = doc.parts[2].metadata.as_ref().unwrap();
    assert_eq!(meta.provider_type.as_deref(), Some("effect"));
    assert_eq!(
        meta.extra.get("vibeTool"),
        Some(&json!("file_system.search_replace"))
    );
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
}

#[test]
fn streaming_output_is_sniffed_and_read_a_line_at_a_time() {
    let text: String = entries().iter().map(|e| e.to_string() + "\n").collect();
    let doc = normalize(&text, None);
    assert_eq!(doc.dialect, "streaming");
    check(&doc);
}

#[test]
fn json_output_is_sniffed_as_one_document() {
    let text = serde_json::to_string_pretty(&entries()).unwrap() + "\n";
    let doc = normalize(&text, None);
    assert_eq!(doc.dialect, "json");
    check(&doc);
}

#[test]
fn bad_input_is_reported_not_a_panic() {
    // Streaming: a line that is not JSON, an effect without an id or a tool, an entry without a
    // type, a cut-short last line.
    let text = concat!(
        "not json\n",
        r#"{"sessionId":"s","turnId":"t","generationStatus":"completed","type":"effect","detail":{"toolName":"file_system.bash"}}"#,
        "\n",
        r#"{"id":"e1","sessionId":"s","turnId":"t","generationStatus":"completed","type":"effect","detail":7,"state":null}"#,
        "\n",
        r#"{"id":"x","sessionId":"s"}"#,
        "\n",
        r#"[1, 2]"#,
        "\n",
        r#"{"id":"e2","sessionId":"s","turnId":"t","generationStatus":"completed","type":"effect","title":"file_system.bash","detail":{"toolName":"file_system.bash","input":[1]},"state":{"status":"weird"}}"#,
        "\n",
        r#"{"id":"e3","sessionId":"s","turnId":"t","generationStatus":"comp"#,
    );
    let doc = normalize(text, Some(Dialect::VibeStreaming));
    assert_eq!(doc.parts.len(), 1);
    assert_eq!(doc.parts[0].name, "bash");
    assert_eq!(doc.parts[0].state, ToolState::Started);
    assert_eq!(doc.parts[0].title, "Running a shell command");
    assert!(doc.diagnostics.len() >= 5, "{:?}", doc.diagnostics);
    // Json: cut short, not an array, an array of odd things.
    for text in [
        "[\n {\"id\": \"e1\",",
        "{\"a\": 1}",
        "[1, \"two\", null, {\"type\": \"effect\"}]",
        "",
    ] {
        let doc = normalize(text, Some(Dialect::VibeJson));
        assert!(doc.parts.is_empty(), "{text}");
        if !text.is_empty() {
            assert!(!doc.diagnostics.is_empty(), "{text}");
        }
    }
}

#[test]
fn harness_names_are_the_models() {
    use super::model_name;
    for (harness, model) in [
        ("file_system.bash", "bash"),
        ("file_system.read_file", "read_file"),
        ("file_system.write_file", "write_file"),
        ("file_system.search_replace", "edit"),
        ("vibe.todo", "todo"),
        (
            "vibe.unified_harness_scratchpad",
            "unified_harness_scratchpad",
        ),
        ("self.wait", "wait"),
        ("skill.read", "skill"),
        ("search_tool_functions", "search_tool_functions"),
    ] {
        assert_eq!(model_name(harness), model);
        assert!(
            crate::providers::acp::vibe::BUILTINS.contains(&model),
            "{model}"
        );
    }
}

/// One recovery-journal record around `payload`.
fn record(sequence: usize, ty: &str, payload: Value) -> String {
    json!({"payload": payload, "previous_record_sha256": null, "record_sha256": "ab",
        "recovery_journal_record_version": 1, "sequence": sequence, "type": ty})
    .to_string()
}

/// A journal of the same session as [`entries`]: the turn's command, the first model request
/// (its system prompt names the working directory), then each entry appended, an effect first as
/// it runs and then replaced as it ends, with the envelope ops the harness writes beside them.
fn journal() -> String {
    let mut lines = vec![
        record(
            1,
            "command_reserved",
            json!({"method": "turn/start", "params": {"message": [{"type": "text", "text": "Go."}]}}),
        ),
        record(
            2,
            "action_intent",
            json!({"action_id": "c1", "kind": "completion", "request": {"model_input": {"messages":
                {"messages": [{"role": "system", "content": [{"type": "text",
                "text": "You help users.\n\nAbsolute path: /w\n\ngitContext: none"}]}]}}}}),
        ),
    ];
    for e in entries() {
        let n = lines.len() + 1;
        let id = e["id"].clone();
        if e["type"] == "effect" && e["state"]["status"] != "running" {
            let mut open = e.clone();
            open["state"] = json!({"status": "running", "outputText": ""});
            open["generationStatus"] = json!("in_progress");
            lines.push(record(
                n,
                "projection_delta",
                json!({"watermark": n, "delta": [{"op": "append_entry", "entry": open},
                    {"op": "set_envelope", "state": {"history": {"entries": []}}}]}),
            ));
            lines.push(record(
                n + 1,
                "projection_delta",
                json!({"watermark": n + 1, "delta": [{"op": "replace_entry", "id": id, "entry": e}]}),
            ));
        } else {
            lines.push(record(
                n,
                "projection_delta",
                json!({"watermark": n, "delta": [{"op": "append_entry", "entry": e}]}),
            ));
        }
    }
    lines.push(record(
        lines.len() + 1,
        "receipt_succeeded",
        json!({"client_command_id": "t", "response": {}}),
    ));
    lines.join("\n") + "\n"
}

fn normalize_without_cwd(text: &str, dialect: Option<Dialect>) -> crate::model::NormalizedDocument {
    let opts = NormalizeOptions {
        dialect,
        ..NormalizeOptions::default()
    };
    crate::normalizer::normalize(&Input::from_bytes(text.as_bytes()), opts).unwrap()
}

#[test]
fn the_journal_is_sniffed_and_gives_the_same_parts_as_the_output() {
    let doc = normalize_without_cwd(&journal(), None);
    assert_eq!(doc.dialect, "journal");
    // The same parts as `--output streaming`, titled from the cwd the system prompt names.
    check(&doc);
    // A call is seen as it starts and again as it ends: two events, on the lines that say so.
    let e1: Vec<(u32, ToolState)> = doc
        .events
        .iter()
        .filter(|e| e.part_id == "e1")
        .map(|e| (e.line, e.state))
        .collect();
    assert_eq!(e1, [(4, ToolState::Running), (5, ToolState::Complete)]);
    let timing = doc.parts[0].timing.as_ref().unwrap();
    assert_eq!(
        (timing.started_at.clone(), timing.completed_at.clone()),
        (
            Some(crate::model::TimeValue::Millis(1000)),
            Some(crate::model::TimeValue::Millis(1200))
        )
    );
    // A header's cwd wins over the journal's.
    let given = normalize(
        &journal().replace("Absolute path: /w", "Absolute path: /x"),
        None,
    );
    check(&given);
}

#[test]
fn the_journal_s_snapshots_and_whole_lists_hold_entries_too() {
    let all = entries();
    let text = [
        record(
            1,
            "projection_advanced",
            json!({"watermark": 1, "snapshot": {"history": {"entries": all[..3]}}}),
        ),
        record(
            2,
            "session_relocated",
            json!({"watermark": 2, "delta": [{"op": "set_history_entries", "entries": all[3..6]}]}),
        ),
        record(
            3,
            "projection_delta",
            json!({"watermark": 3, "delta": [{"op": "remove_entry", "id": "e5"},
                {"op": "append_entry", "entry": all[6]}, {"op": "append_entry", "entry": all[7]},
                {"op": "append_entry", "entry": all[8]}]}),
        ),
    ]
    .join("\n");
    check(&normalize(&text, None));
}

#[test]
fn the_journal_is_not_taken_for_the_output_nor_the_output_for_it() {
    use crate::providers::Probe;
    let first = record(1, "command_reserved", json!({"method": "turn/start"}));
    let p = Probe::parse(&first).unwrap();
    assert!(super::journal::sniff(&p));
    assert!(!super::streaming::sniff(&p));
    for e in entries() {
        let line = e.to_string();
        let p = Probe::parse(&line).unwrap();
        assert!(!super::journal::sniff(&p), "{line}");
    }
    // A journal whose records hold no entry yet is still the journal.
    assert_eq!(normalize(&(first + "\n"), None).dialect, "journal");
}

#[test]
fn bad_journal_input_is_reported_not_a_panic() {
    let e1 = &entries()[1];
    let lines = [
        "not json".to_owned(),
        "[1, 2]".to_owned(),
        json!({"recovery_journal_record_version": 1, "payload": {}}).to_string(),
        record(4, "projection_delta", json!({"delta": "many"})),
        record(5, "projection_delta", json!({"delta": [{"entry": e1}]})),
        record(6, "projection_delta", json!({"delta": [{"op": "append_entry"}]})),
        record(7, "projection_delta", json!({"delta": [{"op": "set_history_entries", "entries": 3}]})),
        record(8, "projection_advanced", json!({"snapshot": {"history": {"entries": {}}}})),
        record(9, "projection_delta", json!({"delta": [{"op": "append_entry", "entry": 5},
            {"op": "append_entry", "entry": {"type": "effect", "detail": {"toolName": "file_system.bash"}}}]})),
        record(10, "action_intent", json!({"kind": "completion", "request": {"model_input": 1}})),
        record(11, "projection_delta", json!({"delta": [{"op": "replace_entry", "id": "e1", "entry": e1}]})),
        r#"{"recovery_journal_record_version":1,"sequence":12,"record_sha256":"ab","type":"projection_delta","payload":{"delta":[{"op":"append_"#.to_owned(),
    ];
    one_complete_part_and_warnings(
        &lines,
        Dialect::VibeJournal,
        "Running sh greet.sh",
        &[1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 12],
    );
    for text in ["", "\n\n", "{}", "null"] {
        let doc = normalize(text, Some(Dialect::VibeJournal));
        assert!(doc.parts.is_empty(), "{text}");
    }
}

/// An effect as the harness writes it (the journal's, and headless mode's for a tool Vibe does not
/// project): `detail.kind` `tool`, the model's arguments, the result envelope.
fn harness_effect(id: &str, tool: &str, input: Value, status: &str, output: Value) -> Value {
    json!({"id": id, "sessionId": "s", "turnId": "t", "inputEntryId": "u", "createdAt": 1000,
        "updatedAt": 1200, "generationStatus": "completed", "relatedEntryId": null,
        "type": "effect", "title": tool,
        "detail": {"toolName": tool, "kind": "tool", "input": input,
            "display": {"summary": tool, "message": tool}},
        "state": {"status": status, "display": {"message": tool, "success": true},
            "outputText": "", "output": output}})
}

#[test]
fn calls_as_the_harness_wrote_them() {
    let envelope =
        |result: Value| json!({"type": "success", "content": [], "structured_content": result});
    let entries = [
        harness_effect(
            "r1",
            "file_system.bash",
            json!({"command": "exit 3"}),
            "completed",
            envelope(
                json!({"command": "exit 3", "returncode": 3, "stderr": "check failed\n",
                "stdout": "", "timed_out": false, "was_truncated": false}),
            ),
        ),
        harness_effect(
            "r2",
            "file_system.read_file",
            json!({"path": "app.log", "offset": 1, "limit": 2}),
            "completed",
            envelope(json!({"content": "b\nc\n", "path": "/w/app.log", "offset": 1})),
        ),
        harness_effect(
            "r3",
            "file_system.read_file",
            json!({"path": "app.log", "offset": 0}),
            "completed",
            json!({"type": "failure", "content": [],
                "error": {"code": "tool_failed", "message": "File not found at: /w/app.log"}}),
        ),
        harness_effect(
            "r4",
            "file_system.bash",
            json!({"command": "sleep 9"}),
            "completed",
            envelope(json!({"returncode": -9, "stderr": "", "timed_out": true})),
        ),
        harness_effect(
            "r5",
            "self.wait",
            json!({"timeout_ms": 1000}),
            "completed",
            envelope(json!({"reason": "timeout"})),
        ),
    ];
    let text: String = entries.iter().map(|e| e.to_string() + "\n").collect();
    for doc in [
        normalize(&text, None),
        normalize(
            &(entries
                .iter()
                .enumerate()
                .map(|(n, e)| {
                    record(
                        n + 1,
                        "projection_delta",
                        json!({"delta": [{"op": "append_entry", "entry": e}]}),
                    ) + "\n"
                })
                .collect::<String>()),
            None,
        ),
    ] {
        let got: Vec<(&str, ToolState, &str)> = doc
            .parts
            .iter()
            .map(|p| (p.name.as_str(), p.state, p.title.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("bash", ToolState::Error, "Running exit 3"),
                // The model's offset counts from 0; the title's line from 1, as Vibe shows it.
                (
                    "read_file",
                    ToolState::Complete,
                    "Reading app.log (lines 2–3)"
                ),
                ("read_file", ToolState::Error, "Reading app.log"),
                ("bash", ToolState::Error, "Running sleep 9"),
                (
                    "wait",
                    ToolState::Complete,
                    "Waiting for input (1000 ms at most)"
                ),
            ],
            "{}",
            doc.dialect
        );
        let error = |i: usize| doc.parts[i].error.as_ref().unwrap();
        assert_eq!(
            (error(0).message.as_str(), error(0).code.as_deref()),
            ("check failed", Some("3"))
        );
        assert_eq!(doc.parts[0].metadata.as_ref().unwrap().exit_code, Some(3));
        assert_eq!(
            (error(2).message.as_str(), error(2).code.as_deref()),
            ("File not found at: /w/app.log", Some("tool_failed"))
        );
        assert_eq!(error(3).code.as_deref(), Some("timeout"));
        // The input is the model's; the output the structured result.
        assert_eq!(
            doc.parts[1].input,
            json!({"path": "app.log", "offset": 1, "limit": 2})
        );
        assert_eq!(doc.parts[4].output, Some(json!({"reason": "timeout"})));
        assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    }
}

/// The older loop's saved messages (`messages.jsonl`), as 2.25.8 writes them.
const SESSION: [&str; 8] = [
    r#"{"role": "user", "content": "Go.", "injected": false, "message_id": "m1"}"#,
    r#"{"role": "assistant", "content": "Running.", "injected": false, "tool_calls": [{"id": "c1", "index": 0, "function": {"name": "bash", "arguments": "{\"command\":\"sh greet.sh\"}"}, "type": "function", "presentation": {"kind": "shell", "display": {"summary": "bash: sh greet.sh"}}}, {"id": "c2", "index": 1, "function": {"name": "bash", "arguments": "{\"command\":\"exit 3\"}"}, "type": "function"}], "message_id": "m2"}"#,
    r#"{"role": "tool", "content": "command: sh greet.sh\nreturncode: 0", "injected": false, "name": "bash", "tool_call_id": "c1", "tool_result": {"output": {"command": "sh greet.sh", "stdout": "hi\n", "stderr": "", "returncode": 0}, "duration": 0.25, "cancelled": false, "presentation": {"kind": "shell", "display": {"success": true}}}}"#,
    r#"{"role": "tool", "content": "<tool_error>bash failed: Command failed: \"exit 3\"\nReturn code: 3\nStderr: check failed\n</tool_error>", "injected": false, "name": "bash", "tool_call_id": "c2"}"#,
    r#"{"role": "assistant", "content": "", "injected": false, "tool_calls": [{"id": "c3", "function": {"name": "read_file", "arguments": "{\"path\":\"/w/a.txt\"}"}, "type": "function"}, {"id": "c4", "function": {"name": "future_tool", "arguments": "{}"}, "type": "function", "presentation": {"kind": "web_fetch", "display": {"summary": "Fetching a page"}}}]}"#,
    r#"{"role": "tool", "content": "<user_cancellation>Tool execution interrupted by user.</user_cancellation>", "injected": false, "name": "read_file", "tool_call_id": "c3"}"#,
    r#"{"role": "tool", "content": "page", "injected": false, "name": "future_tool", "tool_call_id": "c4", "tool_result": {"output": {"page": "x"}, "presentation": {"display": {"success": false}}}}"#,
    r#"{"role": "assistant", "content": "Done.", "injected": false}"#,
];

#[test]
fn the_saved_messages_of_vibe_2_are_vibe_s_not_kimi_s() {
    let doc = normalize(&(SESSION.join("\n") + "\n"), None);
    assert_eq!(
        (doc.provider.as_str(), doc.dialect.as_str()),
        ("vibe", "session")
    );
    let got: Vec<(&str, ToolKind, ToolState, &str)> = doc
        .parts
        .iter()
        .map(|p| (p.name.as_str(), p.kind, p.state, p.title.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "bash",
                ToolKind::Bash,
                ToolState::Complete,
                "Running sh greet.sh"
            ),
            ("bash", ToolKind::Bash, ToolState::Error, "Running exit 3"),
            (
                "read_file",
                ToolKind::FileRead,
                ToolState::Error,
                "Reading a.txt"
            ),
            (
                "future_tool",
                ToolKind::Browser,
                ToolState::Error,
                "Fetching a page"
            ),
        ]
    );
    let error = |i: usize| doc.parts[i].error.as_ref().unwrap();
    assert_eq!(
        (error(1).message.as_str(), error(1).code.as_deref()),
        ("bash failed: Command failed: \"exit 3\"", Some("3"))
    );
    assert_eq!(doc.parts[1].metadata.as_ref().unwrap().exit_code, Some(3));
    assert_eq!(error(2).code.as_deref(), Some("interrupted"));
    assert_eq!(
        doc.parts[0].output,
        Some(json!({"command": "sh greet.sh", "stdout": "hi\n", "stderr": "", "returncode": 0}))
    );
    assert_eq!(
        doc.parts[0].timing.as_ref().and_then(|t| t.elapsed_ms),
        Some(250)
    );
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
}

#[test]
fn bad_saved_messages_are_reported_not_a_panic() {
    let lines = [
        "not json",
        "[1]",
        r#"{"content": "x", "injected": false}"#,
        r#"{"role": "assistant", "injected": false, "tool_calls": 5}"#,
        r#"{"role": "assistant", "injected": false, "tool_calls": [{"function": {"name": "bash"}}, {"id": "a"}, {"id": "b", "function": {"name": "bash", "arguments": "[1"}}, 7]}"#,
        r#"{"role": "tool", "injected": false, "content": "x"}"#,
        r#"{"role": "tool", "injected": false, "tool_call_id": "zz", "content": "x"}"#,
        r#"{"role": "assistant", "injected": false, "tool_calls": [{"id": "c", "function": {"name": "bash", "arguments": ""}}]}"#,
        r#"{"role": "tool", "injected": false, "tool_call_id": "c", "content": null, "tool_result": {"output": null, "duration": -1}}"#,
        r#"{"role": "tool", "injected": false, "tool_call_id": "c", "content": "<tool_error>"#,
    ];
    one_complete_part_and_warnings(
        &lines,
        Dialect::VibeSession,
        "Running a shell command",
        &[1, 2, 3, 4, 5, 5, 5, 5, 6, 7, 10],
    );
}

/// Bad input among good lines: the one call they hold comes through complete with its title,
/// and the warnings name exactly the lines `warned` lists (a line once per warning).
fn one_complete_part_and_warnings(
    lines: &[impl AsRef<str>],
    dialect: Dialect,
    title: &str,
    warned: &[u32],
) {
    let text: Vec<&str> = lines.iter().map(AsRef::as_ref).collect();
    let doc = normalize(&text.join("\n"), Some(dialect));
    assert_eq!(doc.parts.len(), 1);
    assert_eq!(doc.parts[0].state, ToolState::Complete);
    assert_eq!(doc.parts[0].title, title);
    let at: Vec<u32> = doc.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(at, warned, "{:?}", doc.diagnostics);
}

#[path = "app_server_tests.rs"]
mod app_server;
