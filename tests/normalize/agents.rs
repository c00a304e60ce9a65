//! Kilo's, droid's, Copilot CLI's, Cline's, OpenHands', Kimi CLI's and Mistral Vibe's dialects on bad input: a truncated last line, lines out of
//! order, lines of another agent or no JSON at all give diagnostics with their line and the rest of
//! the stream is normalized; and, over every fixture of the three providers in the corpus, random
//! damage (a line dropped, two lines swapped, a foreign line put in, the stream cut anywhere)
//! never panics, keeps every line number inside the input and never loses a call the damage did
//! not touch.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
use toolnorm::model::DiagnosticLevel;
use toolnorm::{Dialect, Input, NormalizeOptions, NormalizedDocument, ToolState, normalize};

use crate::normalize::samples::{Sample, load_all};

fn run(dialect: Dialect, text: &str) -> NormalizedDocument {
    normalize(
        &Input::from_bytes(text.as_bytes()),
        NormalizeOptions {
            dialect: Some(dialect),
            ..NormalizeOptions::default()
        },
    )
    .expect("a forced dialect normalizes")
}

const KILO_RUNNING: &str = r#"{"type":"tool_use","timestamp":1,"sessionID":"ses_a","part":{"id":"prt_1","sessionID":"ses_a","messageID":"msg_a","type":"tool","callID":"c1","tool":"background_process","state":{"status":"running","input":{"action":"list"},"time":{"start":1}}}}"#;
const KILO_DONE: &str = r#"{"type":"tool_use","timestamp":2,"sessionID":"ses_a","part":{"id":"prt_1","sessionID":"ses_a","messageID":"msg_a","type":"tool","callID":"c1","tool":"background_process","state":{"status":"completed","input":{"action":"list"},"output":"none","time":{"start":1,"end":2}}}}"#;
const KILO_EVENT_RUNNING: &str = r#"{"type":"message.part.updated","properties":{"part":{"id":"prt_1","sessionID":"ses_a","messageID":"msg_a","type":"tool","callID":"c1","tool":"board_read","state":{"status":"running","input":{},"time":{"start":1}}}}}"#;
const KILO_EVENT_DONE: &str = r#"{"type":"message.part.updated","properties":{"part":{"id":"prt_1","sessionID":"ses_a","messageID":"msg_a","type":"tool","callID":"c1","tool":"board_read","state":{"status":"completed","input":{},"output":"[]","time":{"start":1,"end":2}}}}}"#;
const DROID_CALL: &str = r#"{"type":"tool_call","id":"c1","toolName":"Glob","parameters":{"patterns":["*.md"]},"timestamp":1,"session_id":"s"}"#;
const DROID_RESULT: &str = r#"{"type":"tool_result","id":"c1","isError":false,"value":"./a.md","timestamp":2,"session_id":"s"}"#;
const DROID_SESSION_CALL: &str = r#"{"type":"message","id":"m1","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"Glob","input":{"patterns":["*.md"]}}]}}"#;
const DROID_SESSION_RESULT: &str = r#"{"type":"message","id":"m2","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","is_error":false,"content":"./a.md"}]}}"#;
const COPILOT_START: &str = r#"{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"glob","arguments":{"pattern":"*.md"}},"id":"e1","timestamp":"2026-01-01T00:00:00.000Z","parentId":null}"#;
const CLINE_START: &str = r#"{"ts":"2026-01-01T00:00:00.000Z","type":"agent_event","event":{"type":"content_start","contentType":"tool","toolName":"read_files","toolCallId":"c1","input":{"files":[{"path":"/w/a.md"}]}}}"#;
const CLINE_END: &str = r#"{"ts":"2026-01-01T00:00:01.000Z","type":"agent_event","event":{"type":"content_end","contentType":"tool","toolName":"read_files","toolCallId":"c1","output":[{"query":"/w/a.md","result":"1 | a","success":true}],"durationMs":3}}"#;
const OPENHANDS_ACTION: &str = r#"{"id": "a1", "timestamp": "2026-01-01T00:00:00.000000", "source": "agent", "thought": [], "reasoning_content": null, "action": {"command": "view", "path": "/w/a.md", "view_range": null, "kind": "FileEditorAction"}, "tool_name": "file_editor", "tool_call_id": "c1", "tool_call": {"id": "c1", "name": "file_editor", "arguments": "{\"command\": \"view\", \"path\": \"/w/a.md\"}", "origin": "completion"}, "llm_response_id": "r1", "security_risk": "LOW", "kind": "ActionEvent"}"#;
const OPENHANDS_OBSERVATION: &str = r#"{"id": "o1", "timestamp": "2026-01-01T00:00:01.000000", "source": "environment", "tool_name": "file_editor", "tool_call_id": "c1", "observation": {"content": [{"cache_prompt": false, "type": "text", "text": "1\ta"}], "is_error": false, "command": "view", "path": "/w/a.md", "kind": "FileEditorObservation"}, "action_id": "a1", "kind": "ObservationEvent"}"#;
const OPENHANDS_SAVED_ACTION: &str = r#"{"id":"a1","timestamp":"2026-01-01T00:00:00.000000","source":"agent","thought":[],"action":{"command":"view","path":"/w/a.md","kind":"FileEditorAction"},"tool_name":"file_editor","tool_call_id":"c1","tool_call":{"id":"c1","name":"file_editor","arguments":"{\"command\": \"view\", \"path\": \"/w/a.md\"}","origin":"completion"},"llm_response_id":"r1","security_risk":"LOW","kind":"ActionEvent"}"#;
const OPENHANDS_SAVED_OBSERVATION: &str = r#"{"id":"o1","timestamp":"2026-01-01T00:00:01.000000","source":"environment","tool_name":"file_editor","tool_call_id":"c1","observation":{"content":[{"cache_prompt":false,"type":"text","text":"1\ta"}],"is_error":false,"command":"view","path":"/w/a.md","kind":"FileEditorObservation"},"action_id":"a1","kind":"ObservationEvent"}"#;
const KIMI_CALL: &str = r#"{"role":"assistant","content":[],"tool_calls":[{"type":"function","id":"c1","function":{"name":"ReadFile","arguments":"{\"path\":\"/w/a.md\"}"}}]}"#;
const KIMI_RESULT: &str = r#"{"role":"tool","content":[{"type":"text","text":"<system>1 lines read from file starting from line 1.</system>"},{"type":"text","text":"     1\ta\n"}],"tool_call_id":"c1"}"#;
const KIMI_WIRE_CALL: &str = r#"{"timestamp": 1796665698.490787, "message": {"type": "ToolCall", "payload": {"type": "function", "id": "c1", "function": {"name": "ReadFile", "arguments": "{\"path\":\"/w/a.md\"}"}, "extras": null}}}"#;
const KIMI_WIRE_RESULT: &str = r#"{"timestamp": 1796665698.4950516, "message": {"type": "ToolResult", "payload": {"tool_call_id": "c1", "return_value": {"is_error": false, "output": "     1\ta\n", "message": "1 lines read from file starting from line 1.", "display": [], "extras": null}}}}"#;
const KIMI_RPC_CALL: &str = r#"{"jsonrpc":"2.0","method":"event","params":{"type":"ToolCall","payload":{"type":"function","id":"c1","function":{"name":"ReadFile","arguments":"{\"path\":\"/w/a.md\"}"},"extras":null}}}"#;
const KIMI_RPC_RESULT: &str = r#"{"jsonrpc":"2.0","method":"event","params":{"type":"ToolResult","payload":{"tool_call_id":"c1","return_value":{"is_error":false,"output":"     1\ta\n","message":"1 lines read from file starting from line 1.","display":[],"extras":null}}}}"#;
const COPILOT_DONE: &str = r#"{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"./a.md"}},"id":"e2","timestamp":"2026-01-01T00:00:01.000Z","parentId":"e1"}"#;

/// A call and its end in each dialect that reads lines one by one.
fn pairs() -> [(Dialect, &'static str, &'static str); 13] {
    [
        (Dialect::KiloRun, KILO_RUNNING, KILO_DONE),
        (Dialect::DroidStreamJson, DROID_CALL, DROID_RESULT),
        (
            Dialect::DroidSession,
            DROID_SESSION_CALL,
            DROID_SESSION_RESULT,
        ),
        (Dialect::CopilotJson, COPILOT_START, COPILOT_DONE),
        (Dialect::CopilotSession, COPILOT_START, COPILOT_DONE),
        (Dialect::KiloEvents, KILO_EVENT_RUNNING, KILO_EVENT_DONE),
        (Dialect::ClineJson, CLINE_START, CLINE_END),
        (
            Dialect::OpenhandsJson,
            OPENHANDS_ACTION,
            OPENHANDS_OBSERVATION,
        ),
        (
            Dialect::OpenhandsEvents,
            OPENHANDS_SAVED_ACTION,
            OPENHANDS_SAVED_OBSERVATION,
        ),
        (Dialect::KimiStreamJson, KIMI_CALL, KIMI_RESULT),
        (Dialect::KimiSession, KIMI_CALL, KIMI_RESULT),
        (Dialect::KimiWire, KIMI_WIRE_CALL, KIMI_WIRE_RESULT),
        (Dialect::KimiWire, KIMI_RPC_CALL, KIMI_RPC_RESULT),
    ]
}

#[test]
fn a_truncated_last_line_is_an_error_at_its_line_and_the_rest_reads() {
    for (dialect, call, end) in pairs() {
        let text = format!("{call}\n{}", &end[..end.len() / 2]);
        let doc = run(dialect, &text);
        assert_eq!(doc.parts.len(), 1, "{dialect}");
        assert_eq!(doc.parts[0].state, ToolState::Running, "{dialect}");
        let d = doc.diagnostics.last().expect("a diagnostic");
        assert_eq!(
            (d.line, d.level),
            (2, DiagnosticLevel::Error),
            "{dialect}: {d:?}"
        );
        assert!(d.message.contains("truncated"), "{dialect}: {}", d.message);
    }
}

#[test]
fn an_end_before_its_call_is_reported_at_its_line_and_still_applied() {
    for (dialect, call, end) in pairs() {
        if matches!(dialect, Dialect::KiloRun | Dialect::KiloEvents) {
            continue;
        }
        let doc = run(dialect, &format!("{end}\n{call}\n"));
        assert_eq!(doc.parts.len(), 1, "{dialect}");
        assert_eq!(doc.parts[0].state, ToolState::Complete, "{dialect}");
        let d = &doc.diagnostics[0];
        assert_eq!(d.line, 1, "{dialect}: {:?}", doc.diagnostics);
        assert!(
            d.message.contains("before its call"),
            "{dialect}: {}",
            d.message
        );
    }
    // OpenCode's snapshots (Kilo's): a completed snapshot before a running one stays completed.
    let doc = run(Dialect::KiloRun, &format!("{KILO_DONE}\n{KILO_RUNNING}\n"));
    assert_eq!(doc.parts[0].state, ToolState::Complete);
    let doc = run(
        Dialect::KiloEvents,
        &format!("{KILO_EVENT_DONE}\n{KILO_EVENT_RUNNING}\n"),
    );
    assert_eq!(doc.parts[0].state, ToolState::Complete);
    // An end whose call never comes is reported at the end of the stream.
    for (dialect, _, end) in pairs() {
        if matches!(dialect, Dialect::KiloRun | Dialect::KiloEvents) {
            continue;
        }
        let doc = run(dialect, &format!("{end}\n"));
        assert!(doc.parts.is_empty(), "{dialect}");
        assert!(
            doc.diagnostics
                .iter()
                .any(|d| d.line == 1 && d.message.contains("no matching call")),
            "{dialect}: {:?}",
            doc.diagnostics
        );
    }
}

#[test]
fn foreign_and_broken_lines_are_diagnostics_and_the_calls_still_read() {
    for (dialect, call, end) in pairs() {
        let text = format!(
            "not json at all\n[1,2]\n{call}\n\u{1}\n{end}\n{}\n",
            FOREIGN[1]
        );
        let doc = run(dialect, &text);
        let lines: Vec<u32> = doc.diagnostics.iter().map(|d| d.line).collect();
        assert!(
            lines.contains(&1) && lines.contains(&2) && lines.contains(&4),
            "{dialect}: {lines:?}"
        );
        assert_eq!(doc.parts.len(), 1, "{dialect}");
        assert_eq!(doc.parts[0].state, ToolState::Complete, "{dialect}");
    }
}

#[test]
fn an_export_cut_short_says_where_it_ends() {
    let export = "{\n  \"info\": {\"id\": \"ses_a\"},\n  \"messages\": [\n";
    let doc = run(Dialect::KiloExport, export);
    let d = &doc.diagnostics[0];
    assert_eq!(d.level, DiagnosticLevel::Error, "{d:?}");
    assert!(d.line >= 3 && d.line <= 4, "{d:?}");
}

/// How many cases the damage property tries (each one a whole normalization).
const CASES: u32 = 96;

/// Lines put into a stream as damage: other agents', a broken one, none at all.
const FOREIGN: &[&str] = &[
    r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"session_id":"s","uuid":"u"}"#,
    r#"{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"ls"}}"#,
    r#"{"type":"tool_call","id":"x","toolNa"#,
    "\u{0}\u{1}garbage",
    "{}",
    "null",
];

fn calls(doc: &NormalizedDocument) -> BTreeMap<String, ToolState> {
    doc.parts.iter().map(|p| (p.id.clone(), p.state)).collect()
}

#[test]
fn damage_never_panics_and_spares_the_calls_it_does_not_touch() {
    let samples: Vec<&Sample> = load_all()
        .iter()
        .filter(|s| {
            matches!(
                s.provider.as_str(),
                "kilo" | "droid" | "copilot" | "cline" | "openhands" | "kimi" | "vibe"
            )
        })
        .collect();
    assert!(samples.len() >= 30, "{} fixtures", samples.len());
    let mut runner = TestRunner::new(Config {
        cases: CASES,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/normalize/agents.txt",
        ))),
        max_global_rejects: 0,
        ..Config::default()
    });
    let strategy = (
        0..samples.len(),
        0u8..4,
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        0..FOREIGN.len(),
    );
    let result = runner.run(&strategy, |(which, how, a, b, foreign)| {
        let s = &samples[which];
        let text = String::from_utf8_lossy(s.stream.bytes()).into_owned();
        let mut lines: Vec<&str> = text.lines().collect();
        if lines.is_empty() {
            return Ok(());
        }
        let (i, j) = (a.index(lines.len()), b.index(lines.len()));
        let mut touched = vec![i + 1, j + 1];
        let damaged = match how {
            0 => {
                lines.remove(i);
                lines.join("\n")
            }
            1 => {
                lines.swap(i, j);
                lines.join("\n")
            }
            2 => {
                lines.insert(i, FOREIGN[foreign]);
                touched = (i + 1..=lines.len()).collect();
                lines.join("\n")
            }
            _ => {
                let cut = a.index(text.len() + 1);
                let cut = (0..=cut)
                    .rev()
                    .find(|c| text.is_char_boundary(*c))
                    .unwrap_or(0);
                touched = (text[..cut].lines().count().max(1)..=lines.len()).collect();
                text[..cut].to_owned()
            }
        };
        let doc = normalize(
            &Input::from_bytes(damaged.as_bytes()),
            NormalizeOptions {
                dialect: Some(s.dialect),
                provider: Some(s.provider),
                cwd: s.stream.cwd.as_deref(),
            },
        )
        .map_err(|e| TestCaseError::fail(format!("{}: {e}", s.name)))?;
        let end = damaged.lines().count() as u32 + 1;
        for d in &doc.diagnostics {
            prop_assert!(
                d.line <= end,
                "{}: diagnostic at {} of {end}",
                s.name,
                d.line
            );
        }
        for e in &doc.events {
            prop_assert!(
                e.line >= 1 && e.line < end,
                "{}: event at {}",
                s.name,
                e.line
            );
        }
        // An export (a task file) is one document: damage may cost all of it.
        if matches!(
            s.dialect,
            Dialect::KiloExport | Dialect::ClineTask | Dialect::VibeJson
        ) || how == 1
        {
            return Ok(());
        }
        let before = s.normalize();
        let after = calls(&doc);
        for p in &before.parts {
            let lines_of: Vec<usize> = before
                .events
                .iter()
                .filter(|e| e.part_id == p.id)
                .map(|e| e.line as usize)
                .collect();
            // A stream that ends a turn early (droid's `error`, Copilot's `abort`) fails the
            // calls still open at that line: a cut before it changes them too.
            if lines_of.iter().any(|l| touched.contains(l)) {
                continue;
            }
            prop_assert_eq!(
                after.get(&p.id),
                Some(&p.state),
                "{}: {} after damage {} at lines {:?}",
                &s.name,
                &p.id,
                how,
                &touched
            );
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
