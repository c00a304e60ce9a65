//! `codex app-server` v2: JSON-RPC notifications (the `"jsonrpc"` key omitted on the wire).
//! `item/started` opens a part as running, `item/completed` is authoritative; command and patch
//! output deltas show as provisional output; an interrupted or failed turn closes open parts.
//! Client requests and the server's responses make no parts; server→client approval requests are
//! noted on the part they concern. A question (`item/tool/requestUserInput`, a server→client
//! request) is a `question` part that the client's answer (recorded in proxy mode) completes, or
//! else `serverRequest/resolved`. Subagents (multi-agent v2) run in threads of their own: their
//! items carry the child thread as `metadata.sessionId`, and a child's interrupted or failed turn
//! closes only that child's parts. `codex mcp-server`'s `codex/event` notifications carry core
//! EventMsgs and go to the shared EventMsg handling.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::hash::{HashMap, HashSet};
use crate::model::{TimeValue, Timing, ToolError, ToolMetadata, ToolState};
use crate::providers::{
    LineNormalizer, NormalizeOptions, PartStore, PartUpdate, first_line, line_text, parse_json,
    raw_to_value,
};
use crate::stream::{Direction, RawLine};

use super::event_msg::{self, Pending};
use super::tools;
use super::tracker::{Envelope, Phase, Tracker};
use super::wire;

#[derive(Deserialize)]
struct Message<'a> {
    /// A request's (or its response's) JSON-RPC id; notifications have none.
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Params<'a> {
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
    #[serde(borrow, default)]
    item_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thread_id: Option<Cow<'a, str>>,
    /// `item/tool/requestUserInput`.
    #[serde(borrow, default)]
    questions: Option<&'a RawValue>,
    /// `serverRequest/resolved`.
    #[serde(borrow, default)]
    request_id: Option<&'a RawValue>,
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
    id: Option<Cow<'a, str>>,
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

/// What the session tells about its threads and open questions along the way.
#[derive(Default)]
struct Threads {
    /// Subagent threads (from `subAgentActivity.agentThreadId`, collab `receiverThreadIds`).
    children: HashSet<String>,
    /// Open questions: the server request's JSON-RPC id (as JSON text) → the part id.
    questions: HashMap<String, String>,
    /// How many turns of each `(thread, turn id)` have ended: releases up to 0.90 number turns
    /// from 0 again, so a turn id alone does not tell two turns' plans apart.
    ended_turns: HashMap<(String, String), u32>,
}

impl Threads {
    /// The thread to note on a part: a subagent's, never the main one.
    fn session(&self, thread: Option<&str>) -> Option<String> {
        thread
            .filter(|t| self.children.contains(*t))
            .map(str::to_owned)
    }

    /// The id of a turn's plan part: `plan-<turn>` for the first turn with that id, then
    /// `plan-<turn>-2`, `-3`, … for later turns that reuse it; a subagent's plan also names its
    /// thread. Unique across turns and the same on every run of the stream.
    fn plan_id(&self, thread: Option<&str>, turn: &str) -> String {
        let ended = self
            .ended_turns
            .get(&(thread.unwrap_or("").to_owned(), turn.to_owned()))
            .copied()
            .unwrap_or(0);
        let base = match self.session(thread) {
            Some(child) => format!("plan-{child}-{turn}"),
            None => format!("plan-{turn}"),
        };
        match ended {
            0 => base,
            k => format!("{base}-{}", k + 1),
        }
    }

    fn turn_ended(&mut self, thread: Option<&str>, turn: Option<&str>) {
        if let Some(turn) = turn {
            *self
                .ended_turns
                .entry((thread.unwrap_or("").to_owned(), turn.to_owned()))
                .or_default() += 1;
        }
    }
}

/// A JSON-RPC error reply from the server: the request it answers was refused (a thread or turn
/// that never started, so the session has no parts); said as a diagnostic rather than nothing.
fn refused(store: &mut PartStore, n: u32, id: Option<&RawValue>, error: &RawValue) {
    let err = raw_to_value(error);
    let message = err
        .get("message")
        .and_then(Value::as_str)
        .and_then(first_line)
        .unwrap_or_else(|| crate::text::clip(error.get(), 200));
    let code = err
        .get("code")
        .map(|c| format!(" (code {c})"))
        .unwrap_or_default();
    let request = id
        .map(|i| format!(" {}", i.get().trim()))
        .unwrap_or_default();
    store.warn(
        n,
        format!("the app-server refused request{request}{code}: {message}"),
    );
}

/// A JSON-RPC id as a map key (`0` and `"0"` stay apart).
fn rpc_key(id: &RawValue) -> String {
    id.get().trim().to_owned()
}

/// Normalizes an app-server stream.
pub(crate) struct Normalizer {
    tracker: Tracker,
    pending: Pending,
    threads: Threads,
}

/// The normalizer of one stream; its cwd comes from `thread/started`.
pub(crate) fn new(_: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::default(),
        pending: Pending::default(),
        threads: Threads::default(),
    })
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Normalizer {
            tracker,
            pending,
            threads,
        } = self;
        // What the client sent (proxy recordings) makes no parts; its answer to a question
        // completes the question's part.
        if line.direction == Direction::Client {
            if !threads.questions.is_empty() {
                client_answer(store, threads, line.number, line);
            }
            return;
        }
        let Some(text) = line_text(line, store) else {
            return;
        };
        let Some(msg) = parse_json::<Message<'_>>(line, &text, store) else {
            return;
        };
        // Responses to the client's requests carry no method; a refusal is said.
        let Some(method) = msg.method.as_deref() else {
            if let Some(err) = msg.error {
                refused(store, line.number, msg.id, err);
            }
            return;
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
                return;
            }
        };
        let n = line.number;
        match method {
            "item/started" | "item/completed" => {
                let Some(raw) = params.item else { return };
                let completed = method == "item/completed";
                let mut scratch = None;
                let item = match wire::parse_item(raw.get(), &mut scratch) {
                    Ok(i) => i,
                    Err(e) => {
                        store.warn(n, format!("`{method}` item not understood: {e}"));
                        return;
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
                // A subagent's thread is announced by the call that spawned it, before its items.
                match wire::ItemType::of(&item.ty) {
                    wire::ItemType::SubAgent => {
                        if let Some(t) = item.agent_thread_id.as_deref() {
                            threads.children.insert(t.to_owned());
                        }
                    }
                    wire::ItemType::Collab => {
                        for t in item.receiver_thread_ids.iter().flatten() {
                            threads.children.insert(t.to_string());
                        }
                    }
                    _ => {}
                }
                let env = Envelope {
                    line: n,
                    phase: if completed {
                        Phase::Completed
                    } else {
                        Phase::Started
                    },
                    id: None,
                    timing,
                    session_id: threads.session(params.thread_id.as_deref()),
                };
                tracker.apply(&env, &item, store);
            }
            "item/commandExecution/outputDelta" | "item/fileChange/outputDelta" => {
                if let (Some(id), Some(delta)) =
                    (params.item_id.as_deref(), params.delta.as_deref())
                {
                    tracker.push_delta(n, id, delta, store);
                }
            }
            "item/fileChange/patchUpdated" => {
                let (Some(id), Some(changes)) = (params.item_id.as_deref(), params.changes) else {
                    return;
                };
                let changes = tools::parse_changes(changes);
                let mut u = tools::patch_update(id, &changes, tracker.cwd.as_deref());
                u.name = None;
                u.state = Some(ToolState::Running);
                store.upsert(n, u);
            }
            "item/mcpToolCall/progress" => {
                let Some(id) = params.item_id.as_deref() else {
                    return;
                };
                let mut meta = ToolMetadata::default();
                if let Some(m) = params.message.as_deref() {
                    meta.extra.insert(
                        "progress".to_owned(),
                        Value::String(crate::text::clip(m, 200)),
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
                    return;
                };
                let mut meta = ToolMetadata::default();
                meta.extra
                    .insert("approvalRequested".to_owned(), Value::Bool(true));
                if let Some(r) = params.reason.as_deref() {
                    meta.extra.insert(
                        "approvalReason".to_owned(),
                        Value::String(crate::text::clip(r, 200)),
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
                let steps = params.plan.map_or(Value::Null, raw_to_value);
                let mut u = tools::plan_update(
                    &threads.plan_id(params.thread_id.as_deref(), turn),
                    "todoList",
                    params.explanation.as_deref(),
                    &steps,
                );
                u.state = Some(ToolState::Complete);
                u.metadata = Some(ToolMetadata {
                    provider_type: Some("turn/plan/updated".to_owned()),
                    session_id: threads.session(params.thread_id.as_deref()),
                    ..ToolMetadata::default()
                });
                store.upsert(n, u);
            }
            "item/tool/requestUserInput" => {
                // A server→client request: the call waits for the user's answer.
                let Some(id) = params.item_id.as_deref() else {
                    store.info(n, "`item/tool/requestUserInput` without an itemId skipped");
                    return;
                };
                let questions = match params.questions.map_or(Value::Null, raw_to_value) {
                    Value::Null => Value::Array(Vec::new()),
                    q => q,
                };
                let mut u = tools::question_update(id, "requestUserInput", questions);
                u.state = Some(ToolState::Running);
                u.metadata = Some(ToolMetadata {
                    provider_type: Some(method.to_owned()),
                    session_id: threads.session(params.thread_id.as_deref()),
                    ..ToolMetadata::default()
                });
                if store.contains(id) {
                    u.name = None;
                }
                store.upsert(n, u);
                if let Some(rid) = msg.id {
                    threads.questions.insert(rpc_key(rid), id.to_owned());
                }
            }
            "serverRequest/resolved" => {
                // Resolved without a recorded answer (a stdout-only recording): the user answered,
                // but what is not known.
                let Some(part) = params
                    .request_id
                    .and_then(|r| threads.questions.remove(&rpc_key(r)))
                else {
                    return;
                };
                store.upsert(
                    n,
                    PartUpdate {
                        state: Some(ToolState::Complete),
                        ..PartUpdate::new(part)
                    },
                );
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
                        tracker.cwd = Some(c.to_owned());
                    }
                }
            }
            "codex/event" => {
                if let Some(msg) = params.msg {
                    event_msg::handle(store, tracker, pending, n, None, msg);
                }
            }
            "turn/completed" => {
                let Some(turn) = &params.turn else { return };
                threads.turn_ended(params.thread_id.as_deref(), turn.id.as_deref());
                // A subagent's turn ending closes only its own parts; the main turn's, all.
                let child = threads.session(params.thread_id.as_deref());
                let mut abort = |message: &str, code: &str| match &child {
                    Some(c) => store.abort_open_where(n, message, code, |p| {
                        p.metadata.as_ref().and_then(|m| m.session_id.as_deref())
                            == Some(c.as_str())
                    }),
                    None => store.abort_open(n, message, code),
                };
                match turn.status.as_deref() {
                    Some("interrupted") => abort("The turn was interrupted", "interrupted"),
                    Some("failed") => {
                        let why = turn
                            .error
                            .and_then(|e| serde_json::from_str::<Value>(e.get()).ok())
                            .and_then(|e| {
                                e.get("message").and_then(Value::as_str).map(str::to_owned)
                            });
                        let message = match why {
                            Some(w) => {
                                format!("The turn failed: {}", first_line(&w).unwrap_or(w))
                            }
                            None => "The turn failed".to_owned(),
                        };
                        abort(&message, "turn_failed");
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn finish(&mut self, store: &mut PartStore) {
        self.tracker.finish(store);
    }
}

/// The client's reply to an open question: `{"id", "result": {"answers": {<question id>:
/// {"answers": [...]}}}}` completes the part with the answers; an error reply fails it.
fn client_answer(
    store: &mut PartStore,
    threads: &mut Threads,
    n: u32,
    line: &crate::providers::RawLine<'_>,
) {
    // Client lines are not the stream being normalized: unreadable ones are skipped quietly.
    let Some(text) = line.as_text() else {
        return;
    };
    let Ok(msg) = serde_json::from_str::<Message<'_>>(text) else {
        return;
    };
    if msg.method.is_some() {
        return;
    }
    let Some(part) = msg.id.and_then(|id| threads.questions.remove(&rpc_key(id))) else {
        return;
    };
    let mut u = PartUpdate::new(part.as_str());
    if let Some(err) = msg.error {
        let err = raw_to_value(err);
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .and_then(first_line)
            .unwrap_or_else(|| "The question was not answered".to_owned());
        u.state = Some(ToolState::Error);
        u.error = Some(ToolError {
            message,
            code: err.get("code").map(|c| match c {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }),
            details: None,
        });
    } else {
        let result = msg.result.map_or(Value::Null, raw_to_value);
        u.state = Some(ToolState::Complete);
        // The same shape as Claude's and OpenCode's question parts: one list of answers per
        // question, in the order asked.
        if let (Some(Value::Object(by_id)), Some(asked)) = (
            result.get("answers"),
            store.get(&part).map(|p| &p.input["questions"]),
        ) {
            let lists: Vec<Value> = asked
                .as_array()
                .into_iter()
                .flatten()
                .map(|q| {
                    q.get("id")
                        .and_then(Value::as_str)
                        .and_then(|id| by_id.get(id))
                        .and_then(|a| a.get("answers"))
                        .filter(|a| a.is_array())
                        .cloned()
                        .unwrap_or_else(|| Value::Array(Vec::new()))
                })
                .collect();
            let mut meta = crate::model::ToolMetadata::default();
            meta.extra.insert("answers".into(), Value::Array(lists));
            u.metadata = Some(meta);
        }
        u.output = match result.get("answers") {
            Some(a) => Some(a.clone()),
            None if result.is_null() => None,
            None => Some(result),
        };
    }
    store.upsert(n, u);
}

/// Recognises a JSON-RPC line of the app-server: a method with a `/`, `initialized` or `error`.
pub(crate) fn sniff(p: &crate::providers::Probe<'_>) -> bool {
    p.str("method")
        .is_some_and(|m| m.contains('/') || m == "initialized" || m == "error")
}

#[cfg(test)]
#[path = "app_server_tests.rs"]
mod tests;
