//! `codex app-server` v2: JSON-RPC notifications (the `"jsonrpc"` key omitted on the wire).
//! `item/started` opens a part as running, `item/completed` is authoritative; command and patch
//! output deltas show as provisional output; an interrupted or failed turn closes open parts.
//! Client requests and the server's responses make no parts; server→client approval requests are
//! noted on the part they concern. `codex mcp-server`'s `codex/event` notifications carry core
//! EventMsgs and go to the shared EventMsg handling.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::{TimeValue, Timing, ToolMetadata, ToolState};
use crate::providers::{Direction, Input, PartStore, PartUpdate, line_text, parse_json};

use super::Ctx;
use super::event_msg::{self, Pending};
use super::items::{self, Envelope, Phase};

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Params<'a> {
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
    #[serde(borrow, default)]
    item_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    turn_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    delta: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    changes: Option<&'a RawValue>,
    #[serde(default)]
    started_at_ms: Option<i64>,
    #[serde(default)]
    completed_at_ms: Option<i64>,
    #[serde(borrow, default)]
    explanation: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    plan: Option<&'a RawValue>,
    #[serde(borrow, default)]
    turn: Option<Turn<'a>>,
    #[serde(borrow, default)]
    thread: Option<Thread<'a>>,
    #[serde(borrow, default)]
    reason: Option<Cow<'a, str>>,
    /// `codex mcp-server` wraps core EventMsgs as `codex/event` notifications.
    #[serde(borrow, default)]
    msg: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Turn<'a> {
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Thread<'a> {
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    environments: Option<Vec<Environment<'a>>>,
}

#[derive(Deserialize)]
struct Environment<'a> {
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
}

pub(super) fn normalize(input: &Input<'_>, store: &mut PartStore, ctx: &mut Ctx) {
    let mut pending = Pending::default();
    for line in &input.lines {
        // What the client sent (proxy recordings) never makes parts.
        if line.direction == Direction::ToAgent {
            continue;
        }
        let Some(text) = line_text(line, store) else {
            continue;
        };
        let Some(msg) = parse_json::<Message<'_>>(line, &text, store) else {
            continue;
        };
        // Responses to the client's requests carry no method.
        let Some(method) = msg.method.as_deref() else {
            continue;
        };
        let params: Params<'_> = match msg
            .params
            .map(|p| serde_json::from_str(p.get()))
            .transpose()
        {
            Ok(p) => p.unwrap_or_default(),
            Err(e) => {
                store.warn(
                    line.number,
                    format!("`{method}` params not understood: {e}"),
                );
                continue;
            }
        };
        let n = line.number;
        match method {
            "item/started" | "item/completed" => {
                let Some(raw) = params.item else { continue };
                let completed = method == "item/completed";
                let mut scratch = None;
                let item = match items::parse_item(raw.get(), &mut scratch) {
                    Ok(i) => i,
                    Err(e) => {
                        store.warn(n, format!("`{method}` item not understood: {e}"));
                        continue;
                    }
                };
                let timing = Timing {
                    started_at: params.started_at_ms.map(TimeValue::Millis),
                    completed_at: params
                        .completed_at_ms
                        .filter(|_| completed)
                        .map(TimeValue::Millis),
                    elapsed_ms: None,
                };
                let env = Envelope {
                    line: n,
                    phase: if completed {
                        Phase::Completed
                    } else {
                        Phase::Started
                    },
                    id: None,
                    timing,
                };
                items::apply(store, ctx, &env, &item);
            }
            "item/commandExecution/outputDelta" | "item/fileChange/outputDelta" => {
                if let (Some(id), Some(delta)) =
                    (params.item_id.as_deref(), params.delta.as_deref())
                {
                    ctx.push_delta(store, n, id, delta);
                }
            }
            "item/fileChange/patchUpdated" => {
                let (Some(id), Some(changes)) = (params.item_id.as_deref(), params.changes) else {
                    continue;
                };
                let changes = items::parse_changes(changes);
                let mut u = items::patch_update(id, &changes, ctx.cwd.as_deref());
                u.name = None;
                u.state = Some(ToolState::Running);
                store.upsert(n, u);
            }
            "item/mcpToolCall/progress" => {
                let Some(id) = params.item_id.as_deref() else {
                    continue;
                };
                let mut meta = ToolMetadata::default();
                if let Some(m) = params.message.as_deref() {
                    meta.extra.insert(
                        "progress".to_owned(),
                        Value::String(crate::providers::titles::clip(m, 200)),
                    );
                }
                store.upsert(
                    n,
                    PartUpdate {
                        state: Some(ToolState::Running),
                        metadata: Some(meta),
                        ..PartUpdate::new(id)
                    },
                );
            }
            "item/commandExecution/requestApproval" | "item/fileChange/requestApproval" => {
                // A server→client request: the call waits for the user. Noted, not a state change.
                let Some(id) = params.item_id.as_deref() else {
                    continue;
                };
                let mut meta = ToolMetadata::default();
                meta.extra
                    .insert("approvalRequested".to_owned(), Value::Bool(true));
                if let Some(r) = params.reason.as_deref() {
                    meta.extra.insert(
                        "approvalReason".to_owned(),
                        Value::String(crate::providers::titles::clip(r, 200)),
                    );
                }
                store.upsert(
                    n,
                    PartUpdate {
                        metadata: Some(meta),
                        ..PartUpdate::new(id)
                    },
                );
            }
            "turn/plan/updated" => {
                let turn = params.turn_id.as_deref().unwrap_or("turn");
                let steps = items::raw_to_value(params.plan);
                let mut u = items::plan_update(
                    &format!("plan-{turn}"),
                    "todoList",
                    params.explanation.as_deref(),
                    &steps,
                );
                u.state = Some(ToolState::Complete);
                u.metadata = Some(ToolMetadata {
                    provider_type: Some("turn/plan/updated".to_owned()),
                    ..ToolMetadata::default()
                });
                store.upsert(n, u);
            }
            "thread/started" => {
                if let Some(t) = &params.thread {
                    let cwd = t.cwd.as_deref().or_else(|| {
                        t.environments
                            .as_ref()
                            .and_then(|e| e.first())
                            .and_then(|e| e.cwd.as_deref())
                    });
                    if let Some(c) = cwd {
                        ctx.cwd = Some(c.to_owned());
                    }
                }
            }
            "codex/event" => {
                if let Some(msg) = params.msg {
                    event_msg::handle(store, ctx, &mut pending, n, None, msg);
                }
            }
            "turn/completed" => {
                let Some(turn) = &params.turn else { continue };
                match turn.status.as_deref() {
                    Some("interrupted") => {
                        store.abort_open(n, "The turn was interrupted", "interrupted")
                    }
                    Some("failed") => {
                        let why = turn
                            .error
                            .and_then(|e| serde_json::from_str::<Value>(e.get()).ok())
                            .and_then(|e| {
                                e.get("message").and_then(Value::as_str).map(str::to_owned)
                            });
                        let message = match why {
                            Some(w) => {
                                format!("The turn failed: {}", items::first_line(&w).unwrap_or(w))
                            }
                            None => "The turn failed".to_owned(),
                        };
                        store.abort_open(n, &message, "turn_failed");
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{ToolKind, ToolState};
    use crate::providers::{Dialect, Input, NormalizeOptions, normalize};

    fn run(text: &str) -> crate::model::NormalizedDocument {
        crate::providers::normalize_text(text, Dialect::CodexAppServer)
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

    #[test]
    fn client_requests_make_no_parts() {
        let text = r#"{"method":"item/completed","params":{"item":{"type":"imageView","id":"i1","path":"a.png"},"threadId":"t","turnId":"u","completedAtMs":1}}"#;
        let mut input = Input::from_bytes(text.as_bytes());
        input.lines[0].direction = crate::providers::Direction::ToAgent;
        let doc = normalize(
            &input,
            NormalizeOptions {
                dialect: Some(Dialect::CodexAppServer),
                provider: None,
            },
        )
        .unwrap();
        assert!(doc.parts.is_empty());
    }
}
