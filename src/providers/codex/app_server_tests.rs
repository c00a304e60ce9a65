//! Tests of the `codex app-server` dialect.

use crate::model::{ToolKind, ToolState};
use crate::normalizer::normalize;
use crate::providers::NormalizeOptions;
use crate::stream::{Dialect, Input};

fn run(text: &str) -> crate::model::NormalizedDocument {
    crate::dialects::normalize_text(text, Dialect::CodexAppServer)
}

#[test]
fn deltas_are_provisional_until_completed() {
    let doc = run(concat!(
        r#"{"method":"item/started","params":{"item":{"type":"commandExecution","id":"c1","command":"/bin/bash -lc 'make'","cwd":"/w","status":"inProgress","commandActions":[{"type":"unknown","command":"make"}],"aggregatedOutput":null,"exitCode":null,"durationMs":null},"threadId":"t","turnId":"u","startedAtMs":10}}"#,
        "\n",
        r#"{"method":"item/commandExecution/outputDelta","params":{"threadId":"t","turnId":"u","itemId":"c1","delta":"building\n"}}"#,
        "\n",
        r#"{"method":"item/commandExecution/outputDelta","params":{"threadId":"t","turnId":"u","itemId":"c1","delta":"done\n"}}"#,
        "\n",
    ));
    let p = &doc.parts[0];
    assert_eq!(p.state, ToolState::Running);
    assert_eq!(
        p.output.as_ref().and_then(|o| o.as_str()),
        Some("building\ndone\n")
    );
    assert_eq!(p.title, "Running make");
    let done = run(&format!(
        "{}\n{}\n",
        r#"{"method":"item/started","params":{"item":{"type":"commandExecution","id":"c1","command":"make","cwd":"/w","status":"inProgress","commandActions":[],"aggregatedOutput":null,"exitCode":null,"durationMs":null},"threadId":"t","turnId":"u","startedAtMs":10}}"#,
        r#"{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"c1","command":"make","cwd":"/w","status":"completed","commandActions":[],"aggregatedOutput":null,"exitCode":0,"durationMs":7},"threadId":"t","turnId":"u","completedAtMs":17}}"#,
    ));
    let p = &done.parts[0];
    assert_eq!(p.state, ToolState::Complete);
    assert_eq!(p.output.as_ref().and_then(|o| o.as_str()), Some(""));
    let t = p.timing.as_ref().unwrap();
    assert_eq!(t.elapsed_ms, Some(7));
}

#[test]
fn interrupted_turn_closes_open_parts() {
    let doc = run(concat!(
        r#"{"method":"item/started","params":{"item":{"type":"mcpToolCall","id":"m1","server":"s","tool":"t","status":"inProgress","arguments":{},"result":null,"error":null},"threadId":"t","turnId":"u","startedAtMs":1}}"#,
        "\n",
        r#"{"method":"item/mcpToolCall/progress","params":{"threadId":"t","turnId":"u","itemId":"m1","message":"halfway"}}"#,
        "\n",
        r#"{"method":"turn/completed","params":{"threadId":"t","turn":{"id":"u","items":[],"status":"interrupted","error":null}}}"#,
        "\n",
    ));
    let p = &doc.parts[0];
    assert_eq!(p.state, ToolState::Error);
    assert_eq!(
        p.error.as_ref().unwrap().code.as_deref(),
        Some("interrupted")
    );
    assert_eq!(p.metadata.as_ref().unwrap().extra["progress"], "halfway");
}

#[test]
fn failed_turn_closes_open_parts() {
    let doc = run(concat!(
        r#"{"method":"item/started","params":{"item":{"type":"imageView","id":"i1","path":"/w/a.png"},"threadId":"t","turnId":"u","startedAtMs":1}}"#,
        "\n",
        r#"{"method":"turn/completed","params":{"threadId":"t","turn":{"id":"u","items":[],"status":"failed","error":{"message":"quota exceeded"}}}}"#,
        "\n",
    ));
    let p = &doc.parts[0];
    assert_eq!(p.kind, ToolKind::FileRead);
    assert_eq!(p.state, ToolState::Error);
    assert_eq!(
        p.error.as_ref().unwrap().message,
        "The turn failed: quota exceeded"
    );
}

#[test]
fn file_change_patch_updated_then_declined() {
    let doc = run(concat!(
        r#"{"method":"item/started","params":{"item":{"type":"fileChange","id":"f1","changes":[],"status":"inProgress"},"threadId":"t","turnId":"u","startedAtMs":1}}"#,
        "\n",
        r#"{"method":"item/fileChange/patchUpdated","params":{"threadId":"t","turnId":"u","itemId":"f1","changes":[{"path":"/w/a.txt","kind":{"type":"update","move_path":"/w/b.txt"},"diff":"@@"}]}}"#,
        "\n",
        r#"{"id":5,"method":"item/fileChange/requestApproval","params":{"threadId":"t","turnId":"u","itemId":"f1","reason":"outside workspace"}}"#,
        "\n",
        r#"{"method":"item/completed","params":{"item":{"type":"fileChange","id":"f1","changes":[{"path":"/w/a.txt","kind":{"type":"update","move_path":"/w/b.txt"},"diff":"@@"}],"status":"declined"},"threadId":"t","turnId":"u","completedAtMs":2}}"#,
        "\n",
    ));
    let p = &doc.parts[0];
    assert_eq!(p.title, "Editing /w/a.txt → /w/b.txt");
    assert_eq!(p.state, ToolState::Error);
    assert_eq!(p.error.as_ref().unwrap().code.as_deref(), Some("declined"));
    assert_eq!(
        p.metadata.as_ref().unwrap().extra["approvalRequested"],
        true
    );
}

#[test]
fn file_change_all_adds_is_a_write_and_output_is_the_diff() {
    let doc = run(concat!(
        r#"{"method":"item/completed","params":{"item":{"type":"fileChange","id":"f1","changes":[{"path":"/w/new.txt","kind":{"type":"add"},"diff":"hello\n"}],"status":"completed"},"threadId":"t","turnId":"u","completedAtMs":2}}"#,
        "\n",
    ));
    let p = &doc.parts[0];
    assert_eq!(p.kind, ToolKind::FileWrite);
    assert_eq!(p.title, "Creating /w/new.txt");
    assert_eq!(p.output.as_ref().unwrap(), "hello\n");
}

#[test]
fn mcp_failure_without_error_object_uses_result_text() {
    let doc = run(concat!(
        r####"{"method":"item/completed","params":{"item":{"type":"mcpToolCall","id":"m1","server":"amalgm","tool":"browser_navigate","status":"failed","arguments":{"url":"https://x.dev"},"result":{"content":[{"type":"text","text":"### Error\nError: net::ERR_NAME_NOT_RESOLVED"}],"structuredContent":null},"error":null,"durationMs":3},"threadId":"t","turnId":"u","completedAtMs":2}}"####,
        "\n",
    ));
    let p = &doc.parts[0];
    assert_eq!(p.name, "browser_navigate");
    assert_eq!(p.kind, ToolKind::Browser);
    assert_eq!(p.title, "Opening browser page");
    assert_eq!(
        p.error.as_ref().unwrap().message,
        "Error: net::ERR_NAME_NOT_RESOLVED"
    );
}

#[test]
fn dynamic_collab_plan_and_web_search_items() {
    let doc = run(concat!(
        r#"{"method":"item/completed","params":{"item":{"type":"dynamicToolCall","id":"d1","namespace":null,"tool":"lookupTicket","arguments":{"id":7},"status":"failed","contentItems":[{"type":"inputText","text":"not found"}],"success":false,"durationMs":1},"threadId":"t","turnId":"u","completedAtMs":2}}"#,
        "\n",
        r#"{"method":"item/completed","params":{"item":{"type":"collabAgentToolCall","id":"a1","tool":"spawnAgent","status":"completed","senderThreadId":"t","receiverThreadIds":["t2"],"prompt":"Audit the parser","model":null,"reasoningEffort":null,"agentsStates":{"t2":{"status":"running","message":null}}},"threadId":"t","turnId":"u","completedAtMs":2}}"#,
        "\n",
        r#"{"method":"turn/plan/updated","params":{"threadId":"t","turnId":"u","explanation":null,"plan":[{"step":"a","status":"completed"},{"step":"b","status":"inProgress"}]}}"#,
        "\n",
        r#"{"method":"turn/plan/updated","params":{"threadId":"t","turnId":"u","explanation":null,"plan":[{"step":"a","status":"completed"},{"step":"b","status":"completed"}]}}"#,
        "\n",
        r#"{"method":"item/completed","params":{"item":{"type":"webSearch","id":"ws1","query":"'Updated' in https://apnews.com/x","action":{"type":"findInPage","url":"https://apnews.com/x","pattern":"Updated"},"results":null},"threadId":"t","turnId":"u","completedAtMs":2}}"#,
        "\n",
    ));
    let by = |id: &str| doc.parts.iter().find(|p| p.id == id).unwrap();
    assert_eq!(by("d1").state, ToolState::Error);
    assert_eq!(by("d1").error.as_ref().unwrap().message, "not found");
    assert_eq!(by("a1").kind, ToolKind::Subagent);
    assert_eq!(by("a1").title, "Subagent: Audit the parser");
    assert_eq!(
        by("a1")
            .metadata
            .as_ref()
            .unwrap()
            .child_session_id
            .as_deref(),
        Some("t2")
    );
    assert_eq!(
        by("plan-u").title,
        "Updating the todo list (2 items, 2 done)"
    );
    assert_eq!(
        doc.parts
            .iter()
            .filter(|p| p.kind == ToolKind::Todo)
            .count(),
        1
    );
    assert_eq!(by("ws1").title, "Finding \"Updated\" on apnews.com");
}

#[test]
fn mcp_server_codex_event_notifications() {
    let doc = run(concat!(
        r#"{"jsonrpc":"2.0","method":"codex/event","params":{"id":"1","msg":{"type":"exec_command_begin","call_id":"c","command":["bash","-lc","ls"],"cwd":"/w","parsed_cmd":[{"type":"list_files","cmd":"ls","path":null}]},"_meta":{"requestId":1}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"codex/event","params":{"id":"1","msg":{"type":"exec_command_end","call_id":"c","stdout":"a\n","stderr":"","exit_code":0,"duration":{"secs":0,"nanos":1000000}},"_meta":{"requestId":1}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"codex/event","params":{"id":"1","msg":{"type":"view_image_tool_call","call_id":"v","path":"/w/shot.png"},"_meta":{"requestId":1}}}"#,
        "\n",
    ));
    assert_eq!(doc.parts.len(), 2);
    assert_eq!(doc.parts[0].title, "Listing files");
    assert_eq!(doc.parts[0].state, ToolState::Complete);
    assert_eq!(doc.parts[1].title, "Viewing image shot.png");
    assert_eq!(doc.parts[1].kind, ToolKind::FileRead);
}

/// Lines as a proxy recording has them: `(from the client?, line)`.
fn run_proxy(lines: &[(bool, &str)]) -> crate::model::NormalizedDocument {
    let text: String = lines.iter().map(|(_, l)| format!("{l}\n")).collect();
    let mut input = Input::from_bytes(text.as_bytes());
    for (line, (client, _)) in input.lines.iter_mut().zip(lines) {
        if *client {
            line.direction = crate::stream::Direction::Client;
        }
    }
    normalize(
        &input,
        NormalizeOptions {
            dialect: Some(Dialect::CodexAppServer),
            provider: None,
            cwd: None,
        },
    )
    .unwrap()
}

const ASK: &str = r#"{"method":"item/tool/requestUserInput","id":0,"params":{"threadId":"t","turnId":"u","itemId":"call_q","questions":[{"id":"bump","header":"Bump","question":"Which version bump should the release use?","isOther":true,"isSecret":false,"options":[{"label":"Patch (Recommended)","description":"2.3.1 -> 2.3.2"},{"label":"Minor","description":"2.3.1 -> 2.4.0"}]},{"id":"push","header":"Push","question":"Push the tag?","isOther":true,"isSecret":false,"options":null}],"isBlocking":false,"autoResolutionMs":null}}"#;
const RESOLVED: &str =
    r#"{"method":"serverRequest/resolved","params":{"threadId":"t","requestId":0}}"#;

#[test]
fn a_question_is_answered_by_the_client() {
    let doc = run_proxy(&[
        (false, ASK),
        // The client's own request with the same id is not the answer.
        (true, r#"{"id":0,"method":"thread/list","params":{}}"#),
        (
            true,
            r#"{"jsonrpc":"2.0","id":0,"result":{"answers":{"bump":{"answers":["Patch (Recommended)"]},"push":{"answers":["yes"]}}}}"#,
        ),
        (false, RESOLVED),
    ]);
    assert_eq!(doc.parts.len(), 1);
    let p = &doc.parts[0];
    assert_eq!(p.id, "call_q");
    assert_eq!(p.name, "requestUserInput");
    assert_eq!(p.kind, ToolKind::Question);
    assert_eq!(
        p.title,
        "Asking 2 questions: Which version bump should the release use?"
    );
    assert_eq!(p.input["questions"][1]["id"], "push");
    assert_eq!(p.state, ToolState::Complete);
    assert_eq!(
        p.output.as_ref().unwrap()["bump"]["answers"][0],
        "Patch (Recommended)"
    );
    assert_eq!(
        p.metadata.as_ref().unwrap().extra.get("answers"),
        Some(&serde_json::json!([["Patch (Recommended)"], ["yes"]]))
    );
    let states: Vec<(u32, ToolState)> = doc.events.iter().map(|e| (e.line, e.state)).collect();
    assert_eq!(states, [(1, ToolState::Running), (3, ToolState::Complete)]);
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
}

#[test]
fn a_question_without_a_recorded_answer_or_declined() {
    // stdout only: resolved, the answers unknown.
    let doc = run_proxy(&[(false, ASK), (false, RESOLVED)]);
    assert_eq!(doc.parts[0].state, ToolState::Complete);
    assert!(doc.parts[0].output.is_none());
    // An error reply fails it.
    let doc = run_proxy(&[
        (false, ASK),
        (
            true,
            r#"{"id":0,"error":{"code":-32000,"message":"user dismissed the question"}}"#,
        ),
    ]);
    let e = doc.parts[0].error.as_ref().unwrap();
    assert_eq!(
        (e.message.as_str(), e.code.as_deref()),
        ("user dismissed the question", Some("-32000"))
    );
    // A garbage client line is skipped; an empty result completes it without output.
    let doc = run_proxy(&[
        (false, ASK),
        (true, "{not json"),
        (true, r#"{"id":0,"result":null}"#),
    ]);
    assert_eq!(doc.parts[0].state, ToolState::Complete);
    assert!(doc.parts[0].output.is_none());
    // Never answered: the interrupted turn fails it.
    let doc = run(&format!(
        "{ASK}\n{}\n",
        r#"{"method":"turn/completed","params":{"threadId":"t","turn":{"id":"u","items":[],"status":"interrupted","error":null}}}"#
    ));
    assert_eq!(doc.parts[0].state, ToolState::Error);
    // No itemId or no questions: no panic, at most a note.
    let doc = run(concat!(
        r#"{"method":"item/tool/requestUserInput","id":1,"params":{"threadId":"t","questions":"x"}}"#,
        "\n",
        r#"{"method":"item/tool/requestUserInput","id":2,"params":{"itemId":"c2"}}"#,
        "\n",
    ));
    assert_eq!(doc.parts.len(), 1);
    assert_eq!(doc.parts[0].title, "Asking a question");
}

#[test]
fn subagent_activity_and_child_threads() {
    let item = |method: &str, thread: &str, item: &str| {
        format!(
            r#"{{"method":"{method}","params":{{"item":{item},"threadId":"{thread}","turnId":"u"}}}}"#
        )
    };
    let spawn = r#"{"type":"subAgentActivity","model":"gpt-5.5","reasoningEffort":"medium","id":"call_s","kind":"started","agentThreadId":"child","agentPath":"/root/version_check","startedAtMs":1,"completedAtMs":null}"#;
    let cmd = r#"{"type":"commandExecution","id":"call_c","command":"/bin/bash -lc 'sleep 9'","cwd":"/w","status":"inProgress","commandActions":[],"aggregatedOutput":null,"exitCode":null,"durationMs":null}"#;
    let wait = r#"{"type":"collabAgentToolCall","id":"call_w","tool":"wait","status":"inProgress","senderThreadId":"main","receiverThreadIds":[],"prompt":null,"model":null,"reasoningEffort":null,"agentsStates":{}}"#;
    let done = r#"{"type":"subAgentActivity","model":null,"reasoningEffort":null,"id":"subagent-completed-u2","kind":"completed","agentThreadId":"child","agentPath":"/root/version_check"}"#;
    let msg = r#"{"type":"subAgentActivity","id":"call_m","kind":"interacted","agentThreadId":"child","agentPath":"/root/version_check"}"#;
    let stop = r#"{"type":"subAgentActivity","id":"call_i","kind":"interrupted","agentThreadId":"child","agentPath":"/root/version_check"}"#;
    let doc = run(&[
        item("item/started", "main", spawn),
        item("item/completed", "main", spawn),
        item("item/started", "main", wait),
        item("item/started", "child", cmd),
        item("item/completed", "main", done),
        item("item/completed", "main", msg),
        item("item/completed", "main", stop),
        r#"{"method":"turn/completed","params":{"threadId":"child","turn":{"id":"u2","items":[],"status":"interrupted","error":null}}}"#.to_owned(),
    ]
    .join("\n"));
    let by = |id: &str| doc.parts.iter().find(|p| p.id == id).unwrap();
    let ids: Vec<&str> = doc.parts.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["call_s", "call_w", "call_c", "call_m", "call_i"]);
    let s = by("call_s");
    assert_eq!(
        (s.name.as_str(), s.kind),
        ("subAgentActivity", ToolKind::Subagent)
    );
    assert_eq!(s.title, "Subagent: version_check");
    assert_eq!(s.state, ToolState::Complete);
    assert_eq!(s.input["agentPath"], "/root/version_check");
    assert_eq!(s.input["model"], "gpt-5.5");
    let m = s.metadata.as_ref().unwrap();
    assert_eq!(m.child_session_id.as_deref(), Some("child"));
    assert_eq!(m.session_id, None);
    assert_eq!(by("call_m").title, "Messaging subagent version_check");
    assert_eq!(by("call_i").title, "Interrupting subagent version_check");
    assert_eq!(by("call_i").state, ToolState::Complete);
    // The child's call carries its thread; the child's interrupted turn closes it alone.
    let c = by("call_c");
    assert_eq!(
        c.metadata.as_ref().unwrap().session_id.as_deref(),
        Some("child")
    );
    assert_eq!(c.state, ToolState::Error);
    assert_eq!(by("call_w").state, ToolState::Running);
    assert_eq!(by("call_w").title, "Waiting for subagents");
}

#[test]
fn client_requests_make_no_parts() {
    let text = r#"{"method":"item/completed","params":{"item":{"type":"imageView","id":"i1","path":"a.png"},"threadId":"t","turnId":"u","completedAtMs":1}}"#;
    let mut input = Input::from_bytes(text.as_bytes());
    input.lines[0].direction = crate::stream::Direction::Client;
    let doc = normalize(
        &input,
        NormalizeOptions {
            dialect: Some(Dialect::CodexAppServer),
            provider: None,
            cwd: None,
        },
    )
    .unwrap();
    assert!(doc.parts.is_empty());
}
