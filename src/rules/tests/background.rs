//! Rule cases for Claude background tasks: their end said only by a `<task-notification>` block,
//! in the carriers a transcript writes it in (a queued command — `queue-operation` enqueue,
//! `queued_command` attachment — and a user message), naming the call or only its task; and a
//! task's end, which ends its own call and not the turn of the others.

use serde_json::json;

use super::{Case, bash_part, case, doc, failed_part, with};
use crate::stream::Dialect;

/// A transcript of 2.1.3x: a background Bash launched as task `b1x`, its task killed, said by a
/// queued block with no `<tool-use-id>`.
const KILLED_BY_TASK_ID: &str = concat!(
    r#"{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"List files","run_in_background":true}}]}}"#,
    "\n",
    r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Command running in background with ID: b1x. Output is being written to: /tmp/b1x.output","is_error":false}]}}"#,
    "\n",
    r#"{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":"<task-notification>\n<task-id>b1x</task-id>\n<status>killed</status>\n<summary>Background command \"List files\" was stopped</summary>\n</task-notification>"}"#,
    "\n"
);

/// A newer transcript: the block names the call, in a `queued_command` attachment, and the
/// command exited 2.
const EXIT_2_BY_TOOL_USE_ID: &str = concat!(
    r#"{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"List files","run_in_background":true}}]}}"#,
    "\n",
    r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Command running in background with ID: b1x. Output is being written to: /tmp/b1x.output","is_error":false}]}}"#,
    "\n",
    r#"{"type":"attachment","sessionId":"s","attachment":{"type":"queued_command","prompt":"<task-notification>\n<task-id>b1x</task-id>\n<tool-use-id>t1</tool-use-id>\n<status>completed</status>\n<summary>Background command \"List files\" completed (exit code 2)</summary>\n</task-notification>"}}"#,
    "\n"
);

/// The same failure handed to the model in a user message's text block.
const FAILED_IN_USER_TEXT: &str = concat!(
    r#"{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"List files","run_in_background":true}}]}}"#,
    "\n",
    r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"Command running in background with ID: b1x. Output is being written to: /tmp/b1x.output"}]}]}}"#,
    "\n",
    r#"{"type":"user","sessionId":"s","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"<task-notification>\n<task-id>b1x</task-id>\n<status>failed</status>\n<summary>Background command \"List files\" failed</summary>\n</task-notification>"}]}}"#,
    "\n"
);

/// A block quoted in another call's output ends nothing.
const KILLED_ONLY_QUOTED: &str = concat!(
    r#"{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"List files","run_in_background":true}}]}}"#,
    "\n",
    r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Command running in background with ID: b1x. Output is being written to: /tmp/b1x.output","is_error":false}]}}"#,
    "\n",
    r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"<task-notification>\n<task-id>b1x</task-id>\n<status>killed</status>\n</task-notification>"}]}}"#,
    "\n"
);

/// A block naming only its task, written before the launch notice that names the task.
const NOTIFIED_BEFORE_LAUNCH: &str = concat!(
    r#"{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"List files","run_in_background":true}}]}}"#,
    "\n",
    r#"{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":"<task-notification>\n<task-id>b1x</task-id>\n<status>completed</status>\n<summary>Background command \"List files\" completed (exit code 0)</summary>\n</task-notification>"}"#,
    "\n",
    r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Command running in background with ID: b1x. Output is being written to: /tmp/b1x.output","is_error":false}]}}"#,
    "\n"
);

/// The same order, but the early block is another task's.
const OTHER_TASK_BEFORE_LAUNCH: &str = concat!(
    r#"{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"List files","run_in_background":true}}]}}"#,
    "\n",
    r#"{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":"<task-notification>\n<task-id>zz9</task-id>\n<status>completed</status>\n</task-notification>"}"#,
    "\n",
    r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Command running in background with ID: b1x. Output is being written to: /tmp/b1x.output","is_error":false}]}}"#,
    "\n"
);

/// Stream-json: a background Bash `t1`, a foreground `t2` still running when `t1`'s task ends,
/// then `t2`'s result and the turn's end.
const TASK_ENDS_DURING_A_CALL: &str = concat!(
    r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"List files","run_in_background":true}}]}}"#,
    "\n",
    r#"{"type":"system","subtype":"task_started","task_id":"b1x","tool_use_id":"t1","is_backgrounded":true}"#,
    "\n",
    r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"Command running in background with ID: b1x. Output is being written to: /tmp/b1x.output"}]}}"#,
    "\n",
    r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"ls -la","description":"List files"}}]}}"#,
    "\n",
    r#"{"type":"system","subtype":"task_notification","task_id":"b1x","tool_use_id":"t1","status":"completed","summary":"Background command \"List files\" completed (exit code 0)"}"#,
    "\n",
    r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"a.txt\nb.txt"}]}}"#,
    "\n",
    r#"{"type":"result","subtype":"success"}"#,
    "\n"
);

/// Both calls of [`TASK_ENDS_DURING_A_CALL`]; `t2` ends on line 6 when `ended`.
fn task_and_call(ended: bool) -> crate::model::NormalizedDocument {
    let input =
        json!({"command": "ls -la", "description": "List files", "run_in_background": true});
    let t1 = with(bash_part(), json!({"input": input}));
    let t2 = with(bash_part(), json!({"id": "t2"}));
    let t2 = if ended {
        t2
    } else {
        with(t2, json!({"state": "running", "output": null}))
    };
    let mut events = vec![
        json!({"line": 1, "partId": "t1", "state": "running"}),
        json!({"line": 4, "partId": "t2", "state": "running"}),
        json!({"line": 5, "partId": "t1", "state": "complete"}),
    ];
    if ended {
        events.push(json!({"line": 6, "partId": "t2", "state": "complete"}));
    }
    doc(
        Dialect::ClaudeStreamJson,
        vec![t1, t2],
        serde_json::Value::Array(events),
    )
}

/// The background Bash of these transcripts, in `state`, with `events`.
fn background_doc(state: &str, events: serde_json::Value) -> crate::model::NormalizedDocument {
    let input =
        json!({"command": "ls -la", "description": "List files", "run_in_background": true});
    let part = match state {
        "complete" => with(bash_part(), json!({"input": input})),
        _ => with(failed_part(), json!({"input": input})),
    };
    doc(Dialect::ClaudeTranscript, vec![part], events)
}

fn shown_complete() -> crate::model::NormalizedDocument {
    background_doc(
        "complete",
        json!([{"line": 1, "partId": "t1", "state": "running"}, {"line": 3, "partId": "t1", "state": "complete"}]),
    )
}

fn shown_failed() -> crate::model::NormalizedDocument {
    background_doc(
        "error",
        json!([{"line": 1, "partId": "t1", "state": "running"}, {"line": 3, "partId": "t1", "state": "error"}]),
    )
}

/// Held back until the launch: `running` on lines 1 and 3, `complete` on line 2.
fn held_back() -> crate::model::NormalizedDocument {
    background_doc(
        "complete",
        json!([
            {"line": 1, "partId": "t1", "state": "running"},
            {"line": 3, "partId": "t1", "state": "running"},
            {"line": 2, "partId": "t1", "state": "complete"}
        ]),
    )
}

pub(super) fn cases() -> Vec<Case> {
    vec![
        case(
            "TN013",
            "a background task's end ends its own call, not the turn of a call still running",
            false,
            TASK_ENDS_DURING_A_CALL,
            task_and_call(true),
        ),
        case(
            "TN013",
            "a call still running when the turn ends, after a background task's end",
            true,
            TASK_ENDS_DURING_A_CALL,
            task_and_call(false),
        ),
        case(
            "TN011",
            "background task killed, said by a queued block naming only the task, shown complete",
            true,
            KILLED_BY_TASK_ID,
            shown_complete(),
        ),
        case(
            "TN011",
            "background task killed, said by a queued block, is error",
            false,
            KILLED_BY_TASK_ID,
            shown_failed(),
        ),
        case(
            "TN011",
            "background command exited 2, said by a queued_command attachment, shown complete",
            true,
            EXIT_2_BY_TOOL_USE_ID,
            shown_complete(),
        ),
        case(
            "TN011",
            "background task failed, said in a user message's text, shown complete",
            true,
            FAILED_IN_USER_TEXT,
            shown_complete(),
        ),
        case(
            "TN011",
            "a block quoted in another call's output is no failure",
            false,
            KILLED_ONLY_QUOTED,
            shown_complete(),
        ),
        case(
            "TN019",
            "notification naming only its task, before the launch that names it",
            false,
            NOTIFIED_BEFORE_LAUNCH,
            held_back(),
        ),
        case(
            "TN019",
            "event held back to a line naming another task",
            true,
            OTHER_TASK_BEFORE_LAUNCH,
            held_back(),
        ),
    ]
}
