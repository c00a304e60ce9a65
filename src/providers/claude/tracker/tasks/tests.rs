//! Background tasks in transcripts, built by hand line by line: each carrier of a
//! `<task-notification>` in each release's shape, what an interrupt ends and what it does not,
//! and untrusted notification text.

use crate::model::{DiagnosticLevel, NormalizedDocument, ToolState};
use crate::stream::Dialect;

const SID: &str = r#""sessionId":"s","isSidechain":false,"cwd":"/home/dev/app""#;

fn doc(dialect: Dialect, lines: &[String]) -> NormalizedDocument {
    let mut text = lines.join("\n");
    text.push('\n');
    crate::dialects::normalize_text(&text, dialect)
}

fn transcript(lines: &[String]) -> NormalizedDocument {
    doc(Dialect::ClaudeTranscript, lines)
}

fn json(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

fn bash(id: &str, command: &str, background: bool) -> String {
    format!(
        r#"{{"type":"assistant","message":{{"id":"m-{id}","role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"Bash","input":{{"command":"{command}","description":"Build","run_in_background":{background}}}}}]}},{SID},"timestamp":"2026-02-10T22:57:57.941Z"}}"#
    )
}

fn result(id: &str, text: &str, is_error: bool) -> String {
    format!(
        r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{id}","type":"tool_result","content":{},"is_error":{is_error}}}]}},{SID},"timestamp":"2026-02-10T22:57:59.113Z"}}"#,
        json(text)
    )
}

fn launch(id: &str, task: &str) -> String {
    result(
        id,
        &format!(
            "Command running in background with ID: {task}. Output is being written to: /tmp/claude-0/-home-dev-app/s/tasks/{task}.output"
        ),
        false,
    )
}

/// A block as a release writes it: with `<tool-use-id>` (newer) or without (2.1.3x).
fn block(task: &str, tool: Option<&str>, status: &str, summary: &str) -> String {
    let tool = tool.map_or_else(String::new, |t| format!("<tool-use-id>{t}</tool-use-id>\n"));
    format!(
        "<task-notification>\n<task-id>{task}</task-id>\n{tool}<output-file>/tmp/claude-0/-home-dev-app/s/tasks/{task}.output</output-file>\n<status>{status}</status>\n<summary>{summary}</summary>\n</task-notification>"
    )
}

fn enqueue(text: &str) -> String {
    format!(
        r#"{{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-10T22:58:10.000Z","sessionId":"s","content":{}}}"#,
        json(text)
    )
}

fn attachment(text: &str) -> String {
    format!(
        r#"{{"type":"attachment","attachment":{{"type":"queued_command","prompt":{},"commandMode":"task-notification"}},{SID},"timestamp":"2026-02-10T22:58:10.100Z"}}"#,
        json(text)
    )
}

fn attachment_blocks(text: &str) -> String {
    format!(
        r#"{{"type":"attachment","attachment":{{"type":"queued_command","prompt":[{{"type":"text","text":{}}}]}},{SID}}}"#,
        json(text)
    )
}

fn user_text(text: &str) -> String {
    format!(
        r#"{{"type":"user","message":{{"role":"user","content":{}}},{SID},"origin":{{"kind":"task-notification"}}}}"#,
        json(text)
    )
}

fn user_blocks(text: &str) -> String {
    format!(
        r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"text","text":{}}}]}},{SID},"isMeta":true}}"#,
        json(text)
    )
}

fn interrupt() -> String {
    format!(
        r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"text","text":"[Request interrupted by user]"}}]}},{SID}}}"#
    )
}

const DONE: &str = "Background command \"Build\" completed (exit code 0)";

/// Every carrier, in both release shapes, ends the background call it names.
#[test]
fn every_carrier_in_every_release_shape_ends_its_call() {
    type Carrier = fn(&str) -> String;
    let carriers: [(&str, Carrier); 5] = [
        ("queue-operation enqueue", enqueue),
        ("queued_command attachment", attachment),
        ("queued_command attachment of blocks", attachment_blocks),
        ("user message text", user_text),
        ("user message text block", user_blocks),
    ];
    for (carrier, write) in carriers {
        for tool in [Some("toolu_b"), None] {
            let lines = [
                bash("toolu_b", "npm run build", true),
                launch("toolu_b", "b1x"),
                write(&block("b1x", tool, "completed", DONE)),
            ];
            let d = transcript(&lines);
            let why = format!("{carrier}, tool-use-id {tool:?}");
            let p = &d.parts[0];
            assert_eq!(p.state, ToolState::Complete, "{why}");
            assert_eq!(p.output.as_ref().unwrap(), DONE, "{why}");
            let meta = p.metadata.as_ref().unwrap();
            assert_eq!(meta.task_id.as_deref(), Some("b1x"), "{why}");
            assert_eq!(meta.exit_code, Some(0), "{why}");
            assert_eq!(meta.extra["background"], true, "{why}");
            let last = d.events.last().unwrap();
            assert_eq!((last.line, last.state), (3, ToolState::Complete), "{why}");
            assert!(d.diagnostics.is_empty(), "{why}: {:?}", d.diagnostics);
        }
    }
}

/// The enqueue, then the attachment and the user message with the same block: one end.
#[test]
fn a_notification_seen_on_several_carriers_counts_once() {
    let b = block("b1x", None, "completed", DONE);
    let lines = [
        bash("toolu_b", "npm run build", true),
        launch("toolu_b", "b1x"),
        enqueue(&b),
        attachment(&b),
        user_text(&b),
    ];
    let d = transcript(&lines);
    assert_eq!(d.parts[0].state, ToolState::Complete);
    let ends: Vec<u32> = d
        .events
        .iter()
        .filter(|e| e.state == ToolState::Complete)
        .map(|e| e.line)
        .collect();
    assert_eq!(ends, [3]);
    assert_eq!(d.events.len(), 3);
}

/// How an interrupt is read: it ends the turn's open calls, not background work; a completed
/// notification is never undone by it; a background call with no final word stays running.
#[test]
fn an_interrupt_ends_the_turn_not_its_background_work() {
    let done = block("b1x", Some("toolu_b"), "completed", DONE);
    // A completed notification, then the interrupt.
    let d = transcript(&[
        bash("toolu_b", "npm run build", true),
        launch("toolu_b", "b1x"),
        enqueue(&done),
        interrupt(),
    ]);
    assert_eq!(d.parts[0].state, ToolState::Complete);
    assert!(d.parts[0].error.is_none());
    // The interrupt first, the task's end after it (the live recording's order).
    let d = transcript(&[
        bash("toolu_b", "npm run build", true),
        launch("toolu_b", "b1x"),
        bash("toolu_f", "sleep 60", false),
        interrupt(),
        enqueue(&done),
        user_text(&done),
    ]);
    let (b, f) = (&d.parts[0], &d.parts[1]);
    assert_eq!(b.state, ToolState::Complete);
    assert_eq!(b.output.as_ref().unwrap(), DONE);
    // The foreground call open at the interrupt ended with the turn.
    assert_eq!(f.state, ToolState::Error);
    let e = f.error.as_ref().unwrap();
    assert_eq!(
        (e.message.as_str(), e.code.as_deref()),
        ("Interrupted by the user", Some("interrupted"))
    );
    // No final word: the background call stays running, whatever the interrupt.
    let d = transcript(&[
        bash("toolu_b", "mix phx.server", true),
        launch("toolu_b", "b1x"),
        interrupt(),
    ]);
    assert_eq!(d.parts[0].state, ToolState::Running);
    // Nor does an interrupt reach the calls of a subagent that runs in the background.
    let agent = format!(
        r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"toolu_a","name":"Agent","input":{{"description":"Research","prompt":"P"}}}}]}},{SID}}}"#
    );
    let async_launch = result(
        "toolu_a",
        "Async agent launched successfully.\nagentId: a3ce (internal ID)\nThe agent is working in the background.",
        false,
    );
    let inner = r#"{"type":"progress","data":{"type":"agent_progress","message":{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_in","name":"Read","input":{"file_path":"/home/dev/app/a.md"}}]}}},"parentToolUseID":"toolu_a","sessionId":"s"}"#;
    let d = transcript(&[agent, async_launch, inner.to_owned(), interrupt()]);
    assert!(
        d.parts.iter().all(|p| p.state == ToolState::Running),
        "{:?}",
        d.parts
    );
}

/// Only the stream saying so for this call makes it an error: its task killed or stopped, failed,
/// or a command's non-zero exit.
#[test]
fn a_task_stopped_failed_or_exiting_non_zero_is_an_error() {
    let cases = [
        (
            "killed",
            "Background command \"Build\" was stopped",
            Some("interrupted"),
            None,
        ),
        ("stopped", "Build", Some("interrupted"), None),
        (
            "failed",
            "Background command \"Build\" failed",
            Some("failed"),
            None,
        ),
        (
            "completed",
            "Background command \"Build\" completed (exit code 2)",
            Some("2"),
            Some(2),
        ),
    ];
    for (status, summary, code, exit) in cases {
        let d = transcript(&[
            bash("toolu_b", "npm run build", true),
            launch("toolu_b", "b1x"),
            attachment(&block("b1x", None, status, summary)),
        ]);
        let p = &d.parts[0];
        assert_eq!(p.state, ToolState::Error, "{status}");
        assert_eq!(p.error.as_ref().unwrap().code.as_deref(), code, "{status}");
        assert_eq!(p.metadata.as_ref().unwrap().exit_code, exit, "{status}");
        assert!(p.output.is_none());
    }
}

/// A notification that names only its task and comes before the launch notice waits for it,
/// and ends the call at its own line.
#[test]
fn a_notification_before_its_launch_waits_for_it() {
    let d = transcript(&[
        bash("toolu_b", "true", true),
        enqueue(&block("b1x", None, "completed", DONE)),
        launch("toolu_b", "b1x"),
    ]);
    let p = &d.parts[0];
    assert_eq!(p.state, ToolState::Complete);
    let lines: Vec<(u32, ToolState)> = d.events.iter().map(|e| (e.line, e.state)).collect();
    assert_eq!(
        lines,
        [
            (1, ToolState::Running),
            (3, ToolState::Running),
            (2, ToolState::Complete)
        ]
    );
    // One that no call of the stream launched is said, with its line.
    let d = transcript(&[
        bash("toolu_b", "true", true),
        launch("toolu_b", "b1x"),
        enqueue(&block("zz9", None, "completed", DONE)),
    ]);
    assert_eq!(d.parts[0].state, ToolState::Running);
    assert_eq!(d.diagnostics.len(), 1);
    assert_eq!(d.diagnostics[0].line, 3);
    assert_eq!(d.diagnostics[0].level, DiagnosticLevel::Info);
    assert!(
        d.diagnostics[0].message.contains("`zz9`"),
        "{:?}",
        d.diagnostics
    );
}

/// An async Agent's notification carries its report and usage; a Monitor's events do not end
/// it; a notification quoted in a tool's output is not one.
#[test]
fn reports_events_and_quotes() {
    let agent = format!(
        r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"toolu_a","name":"Agent","input":{{"description":"Run pytest","prompt":"P"}}}}]}},{SID}}}"#
    );
    let launched = result(
        "toolu_a",
        "Async agent launched successfully.\nagentId: a51dda5 (internal ID)\nThe agent is working in the background.",
        false,
    );
    let report = "<task-notification>\n<task-id>a51dda5</task-id>\n<status>completed</status>\n<summary>Agent \"Run pytest\" completed</summary>\n<result>All 206 tests passed.</result>\n<usage><total_tokens>7898</total_tokens><tool_uses>1</tool_uses><duration_ms>8049</duration_ms></usage>\n</task-notification>";
    let d = transcript(&[agent, launched, user_text(report)]);
    let p = &d.parts[0];
    assert_eq!(p.state, ToolState::Complete);
    assert_eq!(p.output.as_ref().unwrap(), "All 206 tests passed.");
    assert_eq!(p.timing.as_ref().unwrap().elapsed_ms, Some(8049));

    let monitor = format!(
        r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"toolu_m","name":"Monitor","input":{{"description":"Watch","command":"tail -f log"}}}}]}},{SID}}}"#
    );
    let started = result(
        "toolu_m",
        "Monitor started (task bmon1, expires in 5s unless the source ends first)",
        false,
    );
    let event = "<task-notification>\n<task-id>bmon1</task-id>\n<summary>Monitor event: \"Watch\"</summary>\n<event>tick 1</event>\n</task-notification>";
    let d = transcript(&[monitor, started, enqueue(event)]);
    assert_eq!(d.parts[0].state, ToolState::Running);
    assert!(d.diagnostics.is_empty());

    let cat = result(
        "toolu_c",
        &block("b1x", Some("toolu_b"), "killed", "x"),
        false,
    );
    let d = transcript(&[
        bash("toolu_b", "npm run build", true),
        launch("toolu_b", "b1x"),
        bash("toolu_c", "cat log", false),
        cat,
    ]);
    assert_eq!(d.parts[0].state, ToolState::Running);
    assert_eq!(d.parts[1].state, ToolState::Complete);
}

/// stream-json carries a notification as text only in a user message; its failed turn ends the
/// turn's open calls, not the background ones.
#[test]
fn stream_json_user_text_and_failed_turns() {
    let sj = |l: String| l.replace(SID, r#""session_id":"s","parent_tool_use_id":null"#);
    let failed_turn =
        r#"{"type":"result","subtype":"error_during_execution","session_id":"s","is_error":true}"#;
    let d = doc(
        Dialect::ClaudeStreamJson,
        &[
            sj(bash("toolu_b", "npm run build", true)),
            sj(launch("toolu_b", "b1x")),
            sj(bash("toolu_f", "sleep 60", false)),
            failed_turn.to_owned(),
            sj(user_text(&block("b1x", Some("toolu_b"), "completed", DONE))),
        ],
    );
    assert_eq!(d.parts[0].state, ToolState::Complete);
    assert_eq!(d.parts[0].output.as_ref().unwrap(), DONE);
    assert_eq!(d.parts[1].state, ToolState::Error);
    assert_eq!(
        d.parts[1].error.as_ref().unwrap().code.as_deref(),
        Some("interrupted")
    );
}

/// Broken blocks and statuses this reading does not know are said, each with its line; the
/// call is left as it was.
#[test]
fn broken_notifications_are_diagnostics_with_their_line() {
    let d = transcript(&[
        bash("toolu_b", "npm run build", true),
        launch("toolu_b", "b1x"),
        enqueue("<task-notification>\n<task-id>b1x</task-id>\n<status>compl"),
        attachment(
            "<task-notification>\n<task-id>b1x</task-id>\n<status>finished</status>\n</task-notification>",
        ),
        user_text("<task-notification><status>completed</status></task-notification>"),
        enqueue("<task-notification>\n<task-id>b1x</task-id>\n<status>completed</status>"),
    ]);
    assert_eq!(d.parts[0].state, ToolState::Running);
    let said: Vec<(u32, bool)> = d
        .diagnostics
        .iter()
        .map(|x| (x.line, x.message.starts_with("task notification")))
        .collect();
    assert_eq!(
        said,
        [(3, true), (4, true), (5, true), (6, true)],
        "{:?}",
        d.diagnostics
    );
    assert!(
        d.diagnostics[1]
            .message
            .contains("unknown status `finished`")
    );
}

fn notice_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let pieces: &[&str] = &[
        "<task-notification>",
        "</task-notification>",
        "<task-id>b1x</task-id>",
        "<task-id>",
        "</task-id>",
        "<tool-use-id>toolu_b</tool-use-id>",
        "<tool-use-id>toolu_zz</tool-use-id>",
        "<status>completed</status>",
        "<status>killed</status>",
        "<status>",
        "</status>",
        "<summary>Background command \"Build\" completed (exit code 3)</summary>",
        "<summary>",
        "<result>report</result>",
        "<usage><duration_ms>12</duration_ms></usage>",
        "<usage><duration_ms>x",
        "<",
        ">",
        "</",
        "\n",
        "é",
    ];
    let piece = prop_oneof![
        4 => proptest::sample::select(pieces).prop_map(str::to_owned),
        1 => "<status>[a-z]{0,8}</status>",
        1 => "[ -~]{0,6}",
    ];
    proptest::collection::vec(piece, 0..16)
        .prop_map(|p| format!("<task-notification>{}", p.concat()))
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(400))]

    /// Untrusted notification text in every carrier: no panic, every diagnostic and event on a
    /// line of the stream, a notification's diagnostics on its own carrier's line, and the
    /// background call either still running or ended as a final status says.
    #[test]
    fn untrusted_notifications_never_break_the_stream(texts in proptest::collection::vec(notice_text(), 1..4)) {
        let mut lines = vec![bash("toolu_b", "npm run build", true), launch("toolu_b", "b1x")];
        for (i, t) in texts.iter().enumerate() {
            lines.push(match i % 4 {
                0 => enqueue(t),
                1 => attachment(t),
                2 => user_text(t),
                _ => user_blocks(t),
            });
        }
        let n = lines.len() as u32;
        let d = transcript(&lines);
        for x in &d.diagnostics {
            proptest::prop_assert!(x.line >= 3 && x.line <= n, "{:?}", x);
        }
        for e in &d.events {
            proptest::prop_assert!(e.line >= 1 && e.line <= n, "{:?}", e);
        }
        let p = &d.parts[0];
        proptest::prop_assert!(matches!(p.state, ToolState::Running | ToolState::Complete | ToolState::Error));
        proptest::prop_assert_eq!(p.output.is_some() && p.error.is_some(), false);
        // Directly too: every field a block gives is a piece of the text.
        for t in &texts {
            for n in crate::providers::claude::notification::blocks(t).flatten() {
                for f in [n.task_id, n.tool_use_id, n.status, n.summary, n.result].into_iter().flatten() {
                    proptest::prop_assert!(t.contains(f));
                }
            }
        }
    }
}
