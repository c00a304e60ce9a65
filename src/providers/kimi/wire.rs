//! Kimi's wire: every event of a session as Kimi's soul sends it to its UI (`kimi_cli/wire/
//! types.py`), in two envelopes.
//!
//! - The session folder's `wire.jsonl` (`~/.kimi/sessions/<work dir hash>/<session id>/
//!   wire.jsonl`, and `subagents/<agent id>/wire.jsonl` for each subagent): a first line
//!   `{"type": "metadata", "protocol_version": "1.10"}`, then a record a line, `{"timestamp":
//!   <epoch seconds>, "message": {"type": <event>, "payload": {…}}}`, the events merged as the
//!   UI sees them (a call complete with its arguments).
//! - `kimi --wire`, JSON-RPC 2.0 over stdio: the same `{type, payload}` as the `params` of an
//!   `event` notification or a `request` (`{"jsonrpc": "2.0", "method": "event", "params": …}`),
//!   without a time, and not merged: a `ToolCall`'s arguments may come in `ToolCallPart`s after
//!   it (`{arguments_part}`, no id: the last call's). The client's own lines (`initialize`,
//!   `prompt`, responses) hold no call.
//!
//! The events read:
//!
//! - `ToolCall` `{id, function: {name, arguments}}` (the arguments the model's JSON text): a call,
//!   running, started at the record's time;
//! - `ToolResult` `{tool_call_id, return_value: {is_error, output, message, display}}`: its end,
//!   failed when `is_error` says so (the error's message Kimi's `message`, the output its
//!   details), else the output (a text, or the text parts of a list), or Kimi's message when
//!   there is no output (a write's `File successfully overwritten.`);
//! - `SubagentEvent` `{parent_tool_call_id, agent_id, subagent_type, event}`: a subagent's event,
//!   read as the subagent's own; its calls are the parent call's children
//!   (`metadata.parentToolUseId`) and their ids are `<agent id>/<call id>` (a subagent's calls
//!   are numbered on their own, and may repeat its parent's ids);
//! - `ApprovalRequest` `{id, tool_call_id}` and `ApprovalResponse` `{request_id, response}`: a
//!   call the user rejected fails with code `declined`;
//! - `StepInterrupted`: the step's calls still open fail (`interrupted`).
//!
//! Everything else (turns, steps, text, status, hooks, notifications, plan displays) holds no
//! call. A result that comes before its call waits for it; one whose call never comes is a
//! warning at the end.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use serde_json::value::RawValue;

use super::tools;
use crate::hash::{HashMap, HashSet};
use crate::model::{TimeValue, Timing, ToolState};
use crate::providers::{
    LineNormalizer, NormalizeOptions, PartStore, PartUpdate, Probe, model_arguments,
    nonblank_line_text, parse_json,
};
use crate::stream::RawLine;

/// The wire's messages (`Event | Request`), by the type names Kimi writes: what is not a call
/// is skipped without a word, a type not among them with an info.
const MESSAGES: &[&str] = &[
    "TurnBegin",
    "SteerInput",
    "TurnEnd",
    "StepBegin",
    "StepInterrupted",
    "StepRetry",
    "HookTriggered",
    "HookResolved",
    "CompactionBegin",
    "CompactionEnd",
    "MCPLoadingBegin",
    "MCPLoadingEnd",
    "StatusUpdate",
    "Notification",
    "ContentPart",
    "ToolCall",
    "ToolCallPart",
    "ToolResult",
    "ApprovalResponse",
    // Wire 1's name of `ApprovalResponse`.
    "ApprovalRequestResolved",
    "SubagentEvent",
    "PlanDisplay",
    "BtwBegin",
    "BtwEnd",
    "ApprovalRequest",
    "ToolCallRequest",
    "QuestionRequest",
    "HookRequest",
];

/// How deep subagents' events are read inside one another (a subagent's subagent is one level).
const MAX_DEPTH: usize = 8;

/// One line: a `wire.jsonl` record (or its metadata header), or a JSON-RPC message.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(default)]
    timestamp: Option<f64>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(default)]
    jsonrpc: Option<IgnoredAny>,
}

/// A wire message: its type's name and its fields.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type", borrow)]
    ty: Cow<'a, str>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Call<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    function: Function<'a>,
}

#[derive(Deserialize)]
struct Function<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct CallPart<'a> {
    #[serde(borrow, default)]
    arguments_part: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ToolResult<'a> {
    #[serde(borrow)]
    tool_call_id: Cow<'a, str>,
    return_value: ReturnValue,
}

#[derive(Deserialize)]
struct ReturnValue {
    is_error: bool,
    #[serde(default)]
    output: Value,
    #[serde(default)]
    message: Option<String>,
}

#[derive(Deserialize)]
struct Subagent<'a> {
    #[serde(borrow, default)]
    parent_tool_call_id: Option<Cow<'a, str>>,
    /// Wire 1's name of `parent_tool_call_id`.
    #[serde(borrow, default)]
    task_tool_call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    agent_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    event: Envelope<'a>,
}

#[derive(Deserialize)]
struct Approval<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    tool_call_id: Cow<'a, str>,
}

#[derive(Deserialize)]
struct ApprovalResponse<'a> {
    #[serde(borrow)]
    request_id: Cow<'a, str>,
    #[serde(borrow)]
    response: Cow<'a, str>,
}

/// Whose events these are: the session's own (no prefix), or a subagent's.
#[derive(Clone, Default)]
struct Scope {
    /// What the scope's call ids are prefixed with (`<agent id>`).
    prefix: Option<String>,
    /// The call (as normalized) that started the subagent.
    parent: Option<String>,
}

impl Scope {
    fn id(&self, id: &str) -> String {
        match &self.prefix {
            Some(p) => format!("{p}/{id}"),
            None => id.to_owned(),
        }
    }
}

/// A call seen: when it started (epoch ms), whether its result came.
struct Seen {
    started: Option<i64>,
    done: bool,
}

/// A result that came before its call.
struct Waiting {
    is_error: bool,
    message: String,
    output: String,
    at: Option<i64>,
}

/// `kimi --wire`'s last call, whose arguments may still come in `ToolCallPart`s.
struct Streaming {
    id: String,
    name: String,
    arguments: String,
    line: u32,
    /// Parts came since the call was opened: its input is read again once they are over.
    grown: bool,
    scope: Scope,
}

/// One stream's state.
pub(crate) struct Normalizer {
    cwd: Option<String>,
    calls: HashMap<String, Seen>,
    pending: HashMap<String, (u32, Waiting)>,
    streaming: Option<Streaming>,
    /// A call id as Kimi wrote it -> the last call (as normalized) of that id: a subagent's
    /// approval requests reach the parent's wire without their subagent.
    by_raw_id: HashMap<String, String>,
    /// Approval requests by id -> their call.
    approvals: HashMap<String, String>,
    /// Calls the user rejected.
    declined: HashSet<String>,
}

/// The normalizer of one wire stream.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        cwd: opts.cwd.map(str::to_owned),
        calls: HashMap::default(),
        pending: HashMap::default(),
        streaming: None,
        by_raw_id: HashMap::default(),
        approvals: HashMap::default(),
        declined: HashSet::default(),
    })
}

/// Recognises a line of the wire: `wire.jsonl`'s metadata header or one of its records (a
/// `timestamp` and a `message` envelope, no `type` of its own), or a JSON-RPC `event` or
/// `request` of `kimi --wire` (its `params` an envelope).
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    (p.str("type").as_deref() == Some("metadata") && p.has("protocol_version"))
        || (!p.has("type") && p.has("timestamp") && p.nested_has("message", "payload"))
        || (p.has("jsonrpc")
            && matches!(p.str("method").as_deref(), Some("event" | "request"))
            && p.nested_has("params", "payload"))
}

/// Epoch seconds (Kimi's `time.time()`) as epoch milliseconds.
fn millis(seconds: f64) -> Option<i64> {
    let ms = (seconds * 1000.0).round();
    (0.0..1e15).contains(&ms).then_some(ms as i64)
}

/// The texts of a tool's output: a text, or the `text` of each part of a list (an image or
/// other part holds none).
fn output_text(output: &Value) -> String {
    match output {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

impl Normalizer {
    fn event(
        &mut self,
        line: u32,
        at: Option<i64>,
        envelope: &Envelope<'_>,
        scope: &Scope,
        depth: usize,
        store: &mut PartStore,
    ) {
        let ty = envelope.ty.as_ref();
        if !MESSAGES.contains(&ty) {
            store.info(line, format!("a `{ty}` wire message; skipped"));
            return;
        }
        let Some(payload) = envelope.payload else {
            store.warn(line, format!("a `{ty}` wire message without its payload"));
            return;
        };
        let text = payload.get();
        let bad = |store: &mut PartStore, e: serde_json::Error| {
            store.warn(line, format!("a `{ty}` that is not what Kimi writes: {e}"));
        };
        match ty {
            "ToolCall" => match serde_json::from_str::<Call<'_>>(text) {
                Ok(c) => self.call(line, at, &c, scope, store),
                Err(e) => bad(store, e),
            },
            "ToolCallPart" => match serde_json::from_str::<CallPart<'_>>(text) {
                Ok(part) => match &mut self.streaming {
                    Some(s) => {
                        s.arguments
                            .push_str(part.arguments_part.as_deref().unwrap_or(""));
                        s.grown = true;
                    }
                    None => store.warn(line, "a ToolCallPart without a call before it"),
                },
                Err(e) => bad(store, e),
            },
            "ToolResult" => match serde_json::from_str::<ToolResult<'_>>(text) {
                Ok(r) => {
                    let id = scope.id(&r.tool_call_id);
                    if self.streaming.as_ref().is_some_and(|s| s.id == id) {
                        self.settle(store);
                    }
                    let v = r.return_value;
                    let waiting = Waiting {
                        is_error: v.is_error,
                        message: v.message.unwrap_or_default(),
                        output: output_text(&v.output),
                        at,
                    };
                    self.result(line, &id, waiting, store);
                }
                Err(e) => bad(store, e),
            },
            "SubagentEvent" => match serde_json::from_str::<Subagent<'_>>(text) {
                Ok(sub) => self.subagent(line, at, &sub, scope, depth, store),
                Err(e) => bad(store, e),
            },
            "ApprovalRequest" => match serde_json::from_str::<Approval<'_>>(text) {
                Ok(a) => {
                    let scoped = scope.id(&a.tool_call_id);
                    let call = if self.calls.contains_key(&scoped) {
                        scoped
                    } else {
                        self.by_raw_id
                            .get(a.tool_call_id.as_ref())
                            .cloned()
                            .unwrap_or(scoped)
                    };
                    self.approvals.insert(a.id.into_owned(), call);
                }
                Err(e) => bad(store, e),
            },
            "ApprovalResponse" | "ApprovalRequestResolved" => {
                match serde_json::from_str::<ApprovalResponse<'_>>(text) {
                    Ok(r) if r.response == "reject" => {
                        if let Some(call) = self.approvals.get(r.request_id.as_ref()) {
                            self.declined.insert(call.clone());
                        }
                    }
                    Ok(_) => {}
                    Err(e) => bad(store, e),
                }
            }
            "StepInterrupted" => {
                if scope.prefix.is_none() {
                    self.settle(store);
                }
                let prefix = scope.prefix.as_ref().map(|p| format!("{p}/"));
                store.abort_open_where(line, "the step was interrupted", "interrupted", |p| {
                    prefix.as_deref().is_none_or(|pre| p.id.starts_with(pre))
                });
            }
            "StepBegin" | "TurnEnd" if scope.prefix.is_none() => self.settle(store),
            _ => {}
        }
    }

    fn call(
        &mut self,
        line: u32,
        at: Option<i64>,
        c: &Call<'_>,
        scope: &Scope,
        store: &mut PartStore,
    ) {
        if c.id.is_empty() {
            store.warn(line, "a tool call without an id");
            return;
        }
        let name = c.function.name.as_ref();
        if name.is_empty() {
            store.warn(line, format!("tool call {} without a function name", c.id));
            return;
        }
        if scope.prefix.is_none() {
            self.settle(store);
        }
        let id = scope.id(&c.id);
        let arguments = c.function.arguments.as_deref().unwrap_or("");
        let input = model_arguments(arguments).ok();
        let complete = input.is_some();
        let mut u = self.opened(&id, name, input.unwrap_or_default(), scope);
        u.state = Some(ToolState::Running);
        if let Some(at) = at {
            u.timing = Some(Timing {
                started_at: Some(TimeValue::Millis(at)),
                ..Timing::default()
            });
        }
        store.upsert(line, u);
        self.calls.entry(id.clone()).or_insert(Seen {
            started: at,
            done: false,
        });
        self.by_raw_id.insert(c.id.clone().into_owned(), id.clone());
        // `kimi --wire` streams the arguments of the session's own calls in parts; a complete
        // call needs them only if parts come (then they are read again, whole).
        if scope.prefix.is_none() {
            let s = Streaming {
                id: id.clone(),
                name: name.to_owned(),
                arguments: arguments.to_owned(),
                line,
                grown: !complete,
                scope: scope.clone(),
            };
            self.streaming = Some(s);
        } else if !complete {
            store.warn(
                line,
                format!("the arguments of {} ({name}) are not JSON", c.id),
            );
        }
        if let Some((at_line, waiting)) = self.pending.remove(&id) {
            self.result(at_line, &id, waiting, store);
        }
    }

    /// A call's opening update (name, kind, title, input, its parent), without state or time.
    fn opened(&self, id: &str, name: &str, input: Value, scope: &Scope) -> PartUpdate {
        let mut u = tools::opened(id, name, input, self.cwd.as_deref(), None);
        u.state = None;
        if let (Some(parent), Some(meta)) = (&scope.parent, u.metadata.as_mut()) {
            meta.parent_tool_use_id = Some(parent.clone());
        }
        u
    }

    /// The streamed call's arguments are over: read them whole if parts came.
    fn settle(&mut self, store: &mut PartStore) {
        let Some(s) = self.streaming.take() else {
            return;
        };
        if !s.grown {
            return;
        }
        let input = match model_arguments(&s.arguments) {
            Ok(v) => v,
            Err(e) => {
                store.warn(
                    s.line,
                    format!("the arguments of {} ({}) are not JSON: {e}", s.id, s.name),
                );
                return;
            }
        };
        let u = self.opened(&s.id, &s.name, input, &s.scope);
        store.upsert(s.line, u);
    }

    fn result(&mut self, line: u32, id: &str, r: Waiting, store: &mut PartStore) {
        let Some(seen) = self.calls.get_mut(id) else {
            store.info(
                line,
                format!("the result of {id} came before its call; it waits for the call"),
            );
            self.pending.insert(id.to_owned(), (line, r));
            return;
        };
        if seen.done {
            store.warn(line, format!("a second result for {id}; ignored"));
            return;
        }
        seen.done = true;
        let outcome = if r.is_error {
            let mut e = tools::failure(&r.message, &r.output);
            if self.declined.contains(id) {
                e.code = Some("declined".to_owned());
            }
            Err(e)
        } else if r.output.is_empty() {
            Ok(Value::String(r.message))
        } else {
            Ok(Value::String(r.output))
        };
        let mut u = PartUpdate::ended(id, outcome);
        if let Some(at) = r.at {
            u.timing = Some(Timing {
                started_at: None,
                completed_at: Some(TimeValue::Millis(at)),
                elapsed_ms: seen
                    .started
                    .and_then(|s| u64::try_from(at.checked_sub(s)?).ok()),
            });
        }
        store.upsert(line, u);
    }

    fn subagent(
        &mut self,
        line: u32,
        at: Option<i64>,
        sub: &Subagent<'_>,
        scope: &Scope,
        depth: usize,
        store: &mut PartStore,
    ) {
        if depth >= MAX_DEPTH {
            store.warn(
                line,
                format!("subagents' events nested more than {MAX_DEPTH} deep; skipped"),
            );
            return;
        }
        let parent = sub
            .parent_tool_call_id
            .as_deref()
            .or(sub.task_tool_call_id.as_deref())
            .filter(|p| !p.is_empty());
        let agent = sub.agent_id.as_deref().filter(|a| !a.is_empty());
        let Some(prefix) = agent.or(parent) else {
            store.warn(
                line,
                "a subagent's event that names neither its agent nor its parent call; skipped",
            );
            return;
        };
        let inner = Scope {
            prefix: Some(match &scope.prefix {
                // A subagent's own subagent: its ids are unique under the whole path.
                Some(outer) => format!("{outer}/{prefix}"),
                None => prefix.to_owned(),
            }),
            parent: parent.map(|p| scope.id(p)),
        };
        self.event(line, at, &sub.event, &inner, depth + 1, store);
    }
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = nonblank_line_text(line, store) else {
            return;
        };
        let Some(l) = parse_json::<Line<'_>>(line, &text, store) else {
            return;
        };
        let (envelope, at) = match (l.message, l.method.as_deref(), l.params) {
            (Some(m), _, _) => (m, l.timestamp.and_then(millis)),
            (None, Some("event" | "request"), Some(p)) => (p, None),
            // The metadata header, the client's requests and the responses: no call.
            _ if l.ty.as_deref() == Some("metadata") || l.jsonrpc.is_some() => return,
            _ => {
                store.info(line.number, "not a wire record; skipped");
                return;
            }
        };
        match serde_json::from_str::<Envelope<'_>>(envelope.get()) {
            Ok(e) => self.event(line.number, at, &e, &Scope::default(), 0, store),
            Err(e) => store.warn(
                line.number,
                format!("a wire message without a type and payload: {e}"),
            ),
        }
    }

    fn finish(&mut self, store: &mut PartStore) {
        self.settle(store);
        store.warn_unmatched_results(self.pending.drain());
    }
}
