use serde_json::json;

use crate::dialects::{detect, normalize_text};
use crate::model::{DiagnosticLevel, ToolKind, ToolState};
use crate::stream::{Dialect, Input};

const CALLS: &str = r#"{"role":"assistant","content":[{"type":"text","text":"Running the script."}],"tool_calls":[{"type":"function","id":"Shell:0","function":{"name":"Shell","arguments":"{\"command\": \"sh greet.sh\"}"}},{"type":"function","id":"browser_navigate:1","function":{"name":"browser_navigate","arguments":"{\"url\": \"http://127.0.0.1/\"}"}}]}"#;
const FAILED: &str = r#"{"role":"tool","content":[{"type":"text","text":"<system>ERROR: Command failed with exit code: 3.</system>"},{"type":"text","text":"check failed\n"}],"tool_call_id":"Shell:0"}"#;
const OK: &str = r#"{"role":"tool","content":[{"type":"text","text":"<system>Navigated.</system>"},{"type":"text","text":"page"}],"tool_call_id":"browser_navigate:1"}"#;
const PROMPT: &str = r#"{"role": "_system_prompt", "content": "You are Kimi.\nThe current working directory is `/w`. This should be considered as the project root."}"#;
const CHECKPOINT: &str = r#"{"role": "_checkpoint", "id": 0}"#;
const USER: &str = r#"{"role":"user","content":"Run the greeting script."}"#;
const READ: &str = r#"{"role":"assistant","content":"","tool_calls":[{"type":"function","id":"r1","function":{"name":"ReadFile","arguments":"{\"path\": \"/w/src/a.py\", \"line_offset\": 2, \"n_lines\": 3}"}}]}"#;

#[test]
fn print_mode_and_saved_contexts_tell_themselves_apart() {
    let printed = format!("{CALLS}\n{FAILED}\n{OK}\n");
    assert_eq!(
        detect(&Input::from_bytes(printed.as_bytes()), None),
        Ok(Dialect::KimiStreamJson)
    );
    let saved = format!("{PROMPT}\n{CHECKPOINT}\n{USER}\n{CALLS}\n{FAILED}\n");
    assert_eq!(
        detect(&Input::from_bytes(saved.as_bytes()), None),
        Ok(Dialect::KimiSession)
    );
    // Print mode's own lines, a plan display and a notification, are its alone.
    let plan = r##"{"content":"# Plan","file_path":"/h/.kimi/plans/p.md"}"##;
    assert_eq!(
        detect(&Input::from_bytes(plan.as_bytes()), None),
        Ok(Dialect::KimiStreamJson)
    );
}

#[test]
fn calls_are_titled_and_results_end_them() {
    let doc = normalize_text(
        &format!("{CALLS}\n{FAILED}\n{OK}\n"),
        Dialect::KimiStreamJson,
    );
    let [shell, nav] = &doc.parts[..] else {
        panic!("{:?}", doc.parts)
    };
    assert_eq!(
        (shell.name.as_str(), shell.kind, shell.title.as_str()),
        ("Shell", ToolKind::Bash, "Running sh greet.sh")
    );
    assert_eq!(shell.state, ToolState::Error);
    let e = shell.error.as_ref().unwrap();
    assert_eq!(e.message, "Command failed with exit code: 3.");
    assert_eq!(e.code.as_deref(), Some("3"));
    assert_eq!(e.details, Some(json!("check failed\n")));
    // An MCP tool, named by the tool alone: its server is not in the stream.
    assert_eq!(
        (nav.kind, nav.title.as_str(), nav.state),
        (
            ToolKind::Browser,
            "Opening browser page",
            ToolState::Complete
        )
    );
    assert_eq!(nav.output, Some(json!("page")));
}

#[test]
fn a_saved_context_says_its_cwd() {
    let doc = normalize_text(
        &format!("{PROMPT}\n{CHECKPOINT}\n{USER}\n{READ}\n"),
        Dialect::KimiSession,
    );
    let p = &doc.parts[0];
    assert_eq!(
        (p.kind, p.title.as_str(), p.state),
        (
            ToolKind::FileRead,
            "Reading src/a.py (lines 2–4)",
            ToolState::Running
        )
    );
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
}

#[test]
fn broken_and_foreign_lines_are_named_and_early_results_wait() {
    let doc = normalize_text(
        &format!(
            "{FAILED}\n{{\"role\": \"assistant\", \"tool\n[1, 2]\n{CALLS}\n{{\"role\":\"tool\",\"content\":\"x\",\"tool_call_id\":\"nobody\"}}\n"
        ),
        Dialect::KimiStreamJson,
    );
    assert_eq!(doc.parts.len(), 2);
    assert_eq!(doc.parts[0].state, ToolState::Error);
    let at = |line: u32| doc.diagnostics.iter().find(|d| d.line == line).unwrap();
    assert_eq!(at(1).level, DiagnosticLevel::Info);
    assert_eq!(at(2).level, DiagnosticLevel::Warning);
    assert_eq!(at(3).level, DiagnosticLevel::Warning);
    assert!(
        doc.diagnostics
            .iter()
            .any(|d| d.line == 5 && d.message.contains("no matching call")),
        "{:?}",
        doc.diagnostics
    );
    let bad_args = r#"{"role":"assistant","content":"","tool_calls":[{"type":"function","id":"x","function":{"name":"Shell","arguments":"{\"comm"}}]}"#;
    let doc = normalize_text(bad_args, Dialect::KimiStreamJson);
    assert_eq!(doc.parts[0].title, "Running a shell command");
    assert!(doc.diagnostics[0].message.contains("not JSON"));
}
