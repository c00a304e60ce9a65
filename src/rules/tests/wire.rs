//! Rule cases for the wire rules (TN020-TN022): an implementation's answer in ACP, AI SDK chunks
//! or AG-UI events, whose frames the rules read themselves.

use serde_json::{Value, json};

use super::{
    CLAUDE_FAILED, CLAUDE_INTERRUPTED, CLAUDE_OK, Case, bash_doc, bash_part, case, failed_part,
    with,
};
use crate::model::NormalizedDocument;
use crate::rules::FrameWire;

/// A row whose output came from `wire`'s `frames` (the wire rules read them).
fn wire_case(
    code: &'static str,
    name: &'static str,
    triggers: bool,
    raw: &'static str,
    doc: NormalizedDocument,
    wire: FrameWire,
    frames: Value,
) -> Case {
    let Value::Array(frames) = frames else {
        panic!("frames are an array");
    };
    Case {
        wire: Some((wire, frames)),
        ..case(code, name, triggers, raw, doc)
    }
}

/// The AI SDK chunks of the Bash call `t1`: opened, its input, then `result` (none: left out).
fn ai_sdk_frames(result: Option<Value>) -> Value {
    let mut frames = vec![
        json!({"type": "start"}),
        json!({"type": "tool-input-start", "toolCallId": "t1", "toolName": "Bash", "title": "Running ls -la"}),
        json!({"type": "tool-input-available", "toolCallId": "t1", "toolName": "Bash", "title": "Running ls -la", "input": {"command": "ls -la", "description": "List files"}}),
    ];
    frames.extend(result);
    frames.push(json!({"type": "finish"}));
    Value::Array(frames)
}

/// The AG-UI events of the Bash call `t1`, with `result` (none: left out) before the run ends.
fn ag_ui_frames(result: Option<Value>) -> Value {
    let mut frames = vec![
        json!({"type": "RUN_STARTED", "threadId": "s", "runId": "r"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "t1", "toolCallName": "Bash"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "t1", "delta": "{\"command\":\"ls -la\"}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "t1"}),
    ];
    frames.extend(result);
    frames.push(json!({"type": "RUN_FINISHED", "threadId": "s", "runId": "r"}));
    Value::Array(frames)
}

fn acp_update(update: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": update}})
}

pub(super) fn cases() -> Vec<Case> {
    let ok = || bash_doc(bash_part());
    vec![
        case(
            "TN020",
            "an answer in parts has no frames",
            false,
            CLAUDE_OK,
            ok(),
        ),
        wire_case(
            "TN020",
            "ai-sdk frames the consumer accepts",
            false,
            CLAUDE_OK,
            ok(),
            FrameWire::AiSdk,
            ai_sdk_frames(Some(
                json!({"type": "tool-output-available", "toolCallId": "t1", "output": "a.txt\nb.txt"}),
            )),
        ),
        wire_case(
            "TN020",
            "ai-sdk: delta before start, output of an unknown call, a chunk after finish, a bad chunk",
            true,
            CLAUDE_OK,
            ok(),
            FrameWire::AiSdk,
            json!([
                {"type": "start"},
                {"type": "tool-input-delta", "toolCallId": "t1", "inputTextDelta": "{"},
                {"type": "tool-input-start", "toolCallId": "t1", "toolName": "Bash"},
                {"type": "tool-output-available", "toolCallId": "t9", "output": 1},
                {"type": "tool-output-error", "toolCallId": "t1"},
                {"type": "finish"},
                {"type": "tool-output-available", "toolCallId": "t1", "output": "a.txt\nb.txt"}
            ]),
        ),
        wire_case(
            "TN020",
            "ag-ui: a run finished with a call open, then a result after RUN_FINISHED",
            true,
            CLAUDE_OK,
            ok(),
            FrameWire::AgUi,
            json!([
                {"type": "RUN_STARTED", "threadId": "s", "runId": "r"},
                {"type": "TOOL_CALL_START", "toolCallId": "t1", "toolCallName": "Bash"},
                {"type": "TOOL_CALL_ARGS", "toolCallId": "t2", "delta": "{}"},
                {"type": "RUN_FINISHED", "threadId": "s", "runId": "r"},
                {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "t1", "content": "a.txt"}
            ]),
        ),
        wire_case(
            "TN020",
            "acp: an update of a call no tool_call announced",
            true,
            CLAUDE_OK,
            ok(),
            FrameWire::Acp,
            json!([
                acp_update(json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"})),
                {"jsonrpc": "2.0", "method": "session/prompt", "params": {}}
            ]),
        ),
        wire_case(
            "TN021",
            "ai-sdk: every finished call has its output",
            false,
            CLAUDE_OK,
            ok(),
            FrameWire::AiSdk,
            ai_sdk_frames(Some(
                json!({"type": "tool-output-available", "toolCallId": "t1", "output": "a.txt\nb.txt"}),
            )),
        ),
        wire_case(
            "TN021",
            "ai-sdk: the turn ended, the call has no output chunk",
            true,
            CLAUDE_OK,
            bash_doc(with(
                bash_part(),
                json!({"state": "running", "output": null}),
            )),
            FrameWire::AiSdk,
            ai_sdk_frames(None),
        ),
        wire_case(
            "TN021",
            "ag-ui: the part is complete (through the slot), no TOOL_CALL_RESULT",
            true,
            CLAUDE_INTERRUPTED,
            bash_doc(bash_part()),
            FrameWire::AgUi,
            ag_ui_frames(Some(
                json!({"type": "CUSTOM", "name": "toolnorm.tool_call", "value": {"toolCallId": "t1"}, "metadata": {"toolnorm": {"state": "complete"}}}),
            )),
        ),
        wire_case(
            "TN021",
            "acp: a failed status is the result",
            false,
            CLAUDE_FAILED,
            bash_doc(failed_part()),
            FrameWire::Acp,
            json!([
                acp_update(
                    json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Running ls -la", "status": "in_progress"})
                ),
                acp_update(
                    json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "failed"})
                )
            ]),
        ),
        wire_case(
            "TN022",
            "ai-sdk: a failed call shown as output-error",
            false,
            CLAUDE_FAILED,
            bash_doc(failed_part()),
            FrameWire::AiSdk,
            ai_sdk_frames(Some(
                json!({"type": "tool-output-error", "toolCallId": "t1", "errorText": "Exit code 2"}),
            )),
        ),
        wire_case(
            "TN022",
            "ai-sdk: a failed call shown as output-available",
            true,
            CLAUDE_FAILED,
            bash_doc(with(bash_part(), json!({"output": "Exit code 2"}))),
            FrameWire::AiSdk,
            ai_sdk_frames(Some(
                json!({"type": "tool-output-available", "toolCallId": "t1", "output": "Exit code 2"}),
            )),
        ),
        wire_case(
            "TN022",
            "ai-sdk: an output chunk whose own toolMetadata carries the error",
            true,
            CLAUDE_OK,
            ok(),
            FrameWire::AiSdk,
            ai_sdk_frames(Some(
                json!({"type": "tool-output-available", "toolCallId": "t1", "output": "a.txt\nb.txt", "toolMetadata": {"kind": "bash", "error": {"message": "Exit code 2"}}}),
            )),
        ),
        wire_case(
            "TN022",
            "ag-ui: a result for a call the slot says still runs",
            true,
            CLAUDE_OK,
            bash_doc(with(bash_part(), json!({"state": "running"}))),
            FrameWire::AgUi,
            ag_ui_frames(Some(
                json!({"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "t1", "content": "a.txt\nb.txt", "metadata": {"toolnorm": {"state": "running"}}}),
            )),
        ),
        wire_case(
            "TN022",
            "acp: a failed call shown completed",
            true,
            CLAUDE_FAILED,
            bash_doc(with(bash_part(), json!({"output": "Exit code 2"}))),
            FrameWire::Acp,
            json!([
                acp_update(
                    json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Running ls -la", "status": "in_progress"})
                ),
                acp_update(
                    json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", "rawOutput": "Exit code 2"})
                )
            ]),
        ),
    ]
}
