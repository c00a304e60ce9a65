//! Shapes of the Codex releases users still keep sessions from (0.5x–0.1xx rollouts, `exec
//! --json` of 0.150, app-server up to 0.90), each from a small line of the kind those releases
//! wrote, through the dialect's normalizer.

use serde_json::Value;

use crate::model::{NormalizedDocument, ToolKind, ToolState};
use crate::stream::Dialect;

fn run(dialect: Dialect, lines: &[&str]) -> NormalizedDocument {
    let mut text = lines.join("\n");
    text.push('\n');
    crate::dialects::normalize_text(&text, dialect)
}

fn rollout(lines: &[&str]) -> NormalizedDocument {
    let mut all = vec![
        r#"{"timestamp":"2026-03-01T10:00:00.000Z","type":"session_meta","payload":{"id":"s","cwd":"/home/dev/app","cli_version":"0.58.0"}}"#,
    ];
    all.extend_from_slice(lines);
    run(Dialect::CodexRollout, &all)
}

fn by<'d>(doc: &'d NormalizedDocument, id: &str) -> &'d crate::model::NormalizedToolPart {
    doc.parts
        .iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("no part {id} in {:?}", doc.parts))
}

/// 0.5x `shell`: argv in `command`, the output a JSON string with `metadata.exit_code`.
#[test]
fn shell_with_json_string_outputs() {
    let doc = rollout(&[
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls -1\"],\"workdir\":\"/home/dev/app\",\"timeout_ms\":120000}","call_id":"call_a"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_a","output":"{\"output\":\"a.txt\\nsrc\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"cat nope.txt\"]}","call_id":"call_b"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_b","output":"{\"output\":\"cat: nope.txt: No such file or directory\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.0}}"}}"#,
    ]);
    let a = by(&doc, "call_a");
    assert_eq!((a.kind, a.state), (ToolKind::Bash, ToolState::Complete));
    assert_eq!(a.title, "Running ls -1");
    assert_eq!(a.output.as_ref().unwrap(), "a.txt\nsrc\n");
    let b = by(&doc, "call_b");
    assert_eq!(b.state, ToolState::Error);
    let e = b.error.as_ref().unwrap();
    assert_eq!(
        (e.message.as_str(), e.code.as_deref()),
        ("Exit code 1", Some("1"))
    );
    assert!(b.output.is_none());
}

/// 0.6x–0.9x `shell_command`: a command string; the output plain text `Exit code: N`, `Wall
/// time`, `Output:` and the output itself.
#[test]
fn shell_command_with_plain_text_outputs() {
    let doc = rollout(&[
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"cat src/a.js\",\"workdir\":\"/home/dev/app\"}","call_id":"call_c"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_c","output":"Exit code: 0\nWall time: 0.1 seconds\nOutput:\nconsole.log(1)\n"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"npm test\"}","call_id":"call_d"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_d","output":"Exit code: 2\nWall time: 1.4 seconds\nOutput:\nnpm ERR! missing script: test\n"}}"#,
    ]);
    let c = by(&doc, "call_c");
    assert_eq!(c.state, ToolState::Complete);
    assert_eq!(c.output.as_ref().unwrap(), "console.log(1)\n");
    let d = by(&doc, "call_d");
    assert_eq!(d.state, ToolState::Error);
    let e = d.error.as_ref().unwrap();
    assert_eq!(e.code.as_deref(), Some("2"));
    assert_eq!(
        e.details.as_ref().unwrap(),
        "npm ERR! missing script: test\n"
    );
}

/// Failures only a plain-text output tells: the sandbox refused, the command could not start,
/// the tool is not offered.
#[test]
fn failures_only_in_plain_text() {
    let doc = rollout(&[
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"touch /etc/x\"]}","call_id":"s1"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"s1","output":"failed in sandbox SeatbeltSandbox with execution error: Denied"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"nosuchbin\"]}","call_id":"s2"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"s2","output":"execution error: Io(Os { code: 2, kind: NotFound, message: \"No such file or directory\" })"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"a\",\"status\":\"pending\"}]}","call_id":"s3"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"s3","output":"unsupported call: update_plan"}}"#,
    ]);
    for (id, message) in [
        (
            "s1",
            "failed in sandbox SeatbeltSandbox with execution error: Denied",
        ),
        (
            "s2",
            "execution error: Io(Os { code: 2, kind: NotFound, message: \"No such file or directory\" })",
        ),
        ("s3", "unsupported call: update_plan"),
    ] {
        let p = by(&doc, id);
        assert_eq!(p.state, ToolState::Error, "{id}");
        assert_eq!(p.error.as_ref().unwrap().message, message, "{id}");
        assert!(p.output.is_none(), "{id}");
    }
    assert_eq!(by(&doc, "s3").kind, ToolKind::Todo);
}

/// `local_shell_call` (0.2x–0.5x, codex-mini): the action carries the argv and directory.
#[test]
fn local_shell_call() {
    let doc = rollout(&[
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call","id":"lsh_1","call_id":"call_l","status":"completed","action":{"type":"exec","command":["bash","-lc","pwd"],"working_directory":"/home/dev/app","timeout_ms":10000}}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_l","output":"{\"output\":\"/home/dev/app\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}"}}"#,
    ]);
    let l = by(&doc, "call_l");
    assert_eq!((l.kind, l.state), (ToolKind::Bash, ToolState::Complete));
    assert_eq!(l.title, "Running pwd");
    assert_eq!(l.output.as_ref().unwrap(), "/home/dev/app\n");
}

/// `apply_patch` as a custom (freeform) tool call: success as a JSON string, failure as text.
#[test]
fn apply_patch_custom_tool_call() {
    let doc = rollout(&[
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"p1","name":"apply_patch","input":"*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch\n"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"p1","output":"{\"output\":\"Success. Updated the following files:\\nA notes.txt\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"p2","name":"apply_patch","input":"*** Begin Patch\n*** Update File: /home/dev/app/src/a.js\n@@\n-old\n+new\n*** End Patch\n"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"p2","output":"apply_patch verification failed: Failed to find expected lines in /home/dev/app/src/a.js:\nold"}}"#,
    ]);
    let p1 = by(&doc, "p1");
    assert_eq!(
        (p1.kind, p1.state),
        (ToolKind::FileWrite, ToolState::Complete)
    );
    assert_eq!(p1.title, "Creating notes.txt");
    let p2 = by(&doc, "p2");
    assert_eq!(p2.title, "Editing src/a.js");
    assert_eq!(p2.state, ToolState::Error);
    assert!(
        p2.error
            .as_ref()
            .unwrap()
            .message
            .starts_with("apply_patch verification failed")
    );
}

/// 0.150 `exec --json`: an opened page and a find in a page come back as `other`, the URL only
/// in the query; title and `metadata.action` keep it.
#[test]
fn exec_web_actions_reported_as_other() {
    let doc = run(
        Dialect::CodexExec,
        &[
            r#"{"type":"thread.started","thread_id":"th"}"#,
            r#"{"type":"item.started","item":{"id":"item_1","type":"web_search","query":"","action":{"type":"other"}}}"#,
            r#"{"type":"item.completed","item":{"id":"item_1","type":"web_search","query":"https://apnews.com/hub/ap-top-news","action":{"type":"other"}}}"#,
            r#"{"type":"item.completed","item":{"id":"item_2","type":"web_search","query":"'Updated' in https://apnews.com/hub/ap-top-news","action":{"type":"other"}}}"#,
        ],
    );
    let open = by(&doc, "item_1");
    assert_eq!(open.title, "Opening apnews.com");
    let action = open.metadata.as_ref().unwrap().action.as_ref().unwrap();
    assert_eq!(action["url"], "https://apnews.com/hub/ap-top-news");
    assert_eq!(action["type"], "other");
    let find = by(&doc, "item_2");
    assert_eq!(find.title, "Finding \"Updated\" on apnews.com");
    let action = find.metadata.as_ref().unwrap().action.as_ref().unwrap();
    assert_eq!(action["pattern"], "Updated");
}

/// App-server up to 0.90 numbers turns from 0 again: every turn's plan gets its own part.
#[test]
fn app_server_plans_of_turns_that_reuse_an_id() {
    let plan = |status: &str| {
        format!(
            r#"{{"method":"turn/plan/updated","params":{{"threadId":"th","turnId":"0","explanation":null,"plan":[{{"step":"a","status":"{status}"}}]}}}}"#
        )
    };
    let done = r#"{"method":"turn/completed","params":{"threadId":"th","turn":{"id":"0","items":[],"status":"completed","error":null}}}"#;
    let (p1, p2, p3) = (plan("inProgress"), plan("completed"), plan("pending"));
    let doc = run(Dialect::CodexAppServer, &[&p1, &p2, done, &p3, done, &p3]);
    let ids: Vec<&str> = doc.parts.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["plan-0", "plan-0-2", "plan-0-3"]);
    // The first turn's plan was updated in place: its last state is kept.
    assert_eq!(doc.parts[0].input["plan"][0]["status"], "completed");
    // The same stream gives the same ids again.
    let again = run(Dialect::CodexAppServer, &[&p1, &p2, done, &p3, done, &p3]);
    assert_eq!(again.parts, doc.parts);
}

/// An app-server that refused the thread (a JSON-RPC error reply): no parts, but a diagnostic.
#[test]
fn app_server_refusal_is_a_diagnostic() {
    let doc = run(
        Dialect::CodexAppServer,
        &[
            r#"{"id":0,"result":{"userAgent":"codex_cli_rs/0.88.0"}}"#,
            r#"{"id":1,"error":{"code":-32600,"message":"Invalid request: unknown variant `thread/start`"}}"#,
        ],
    );
    assert!(doc.parts.is_empty());
    let d = doc
        .diagnostics
        .iter()
        .find(|d| d.line == 2)
        .expect("a diagnostic on line 2");
    assert!(d.message.contains("refused request 1"), "{}", d.message);
    assert!(d.message.contains("-32600"), "{}", d.message);
    assert!(d.message.contains("unknown variant"), "{}", d.message);
    let _ = Value::Null;
}
