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
