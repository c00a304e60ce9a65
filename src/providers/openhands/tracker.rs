//! The events both dialects carry, one conversation's state machine. An event is one JSON object
//! `{id, timestamp, source, …, kind}` where `kind` is its class; the tool-relevant ones:
//!
//! - `ActionEvent` (`tool_name`, `tool_call_id`, `action`: the validated action `{…, kind:
//!   "TerminalAction"}` or `null` when the call did not validate, `tool_call: {name, arguments}`
//!   as the model sent it): the call runs;
//! - `ObservationEvent` (`tool_call_id`, `observation: {content: [{type, text}], is_error, kind,
//!   …}`, `exit_code` for a command): its result;
//! - `AgentErrorEvent` (`tool_call_id`, `error`): a call that could not run (an unknown tool,
//!   arguments that do not validate);
//! - `UserRejectObservation` (`tool_call_id`, `rejection_reason`, `rejection_source`): a call
//!   the user or a hook refused;
//! - `ConversationErrorEvent` (`code`, `detail`): the run failed; what still runs ends with it.
//!
//! A `SystemPromptEvent` (the saved conversation's first) says the working directory in its
//! `dynamic_context` when the stream's header does not.

use serde::Deserialize;
use serde_json::Value;

use super::tools;
use crate::hash::HashMap;
use crate::model::{TimeValue, Timing, ToolMetadata, ToolState};
use crate::providers::{PartStore, PartUpdate};

/// One event, as much of it as the normalizer reads.
#[derive(Deserialize)]
pub(super) struct Event {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    tool_name: Option<String>,
    #[serde(default)]
    tool_call_id: Option<String>,
    #[serde(default)]
    action: Option<Value>,
    #[serde(default)]
    tool_call: Option<ToolCall>,
    #[serde(default)]
    observation: Option<Value>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    rejection_reason: Option<String>,
    #[serde(default)]
    rejection_source: Option<String>,
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    detail: Option<String>,
    #[serde(default)]
    dynamic_context: Option<Value>,
}

#[derive(Deserialize)]
struct ToolCall {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

/// One conversation's state.
pub(super) struct Tracker {
    cwd: Option<String>,
    /// Calls seen, by id: whether their result came.
    calls: HashMap<String, bool>,
    /// Results that came before their call (lines out of order), with their line: applied when
    /// the call comes.
    pending: HashMap<String, (u32, Event)>,
}

impl Tracker {
    pub(super) fn new(cwd: Option<&str>) -> Self {
        Tracker {
            cwd: cwd.map(str::to_owned),
            calls: HashMap::default(),
            pending: HashMap::default(),
        }
    }

    /// The stream has ended: a result whose call never came is reported at its line.
    pub(super) fn finish(&mut self, store: &mut PartStore) {
        store.warn_unmatched_results(self.pending.drain());
    }

    /// Apply one event read from raw line `line`.
    pub(super) fn event(&mut self, line: u32, ev: Event, store: &mut PartStore) {
        let ev = match ev.kind.as_deref() {
            Some("ObservationEvent" | "AgentErrorEvent" | "UserRejectObservation") => {
                match self.wait_for_call(line, ev, store) {
                    Some(ev) => ev,
                    None => return,
                }
            }
            _ => ev,
        };
        let ev = &ev;
        match ev.kind.as_deref() {
            Some("SystemPromptEvent") => self.learn_cwd(ev),
            Some("ActionEvent") => {
                self.action(line, ev, store);
                let id = ev.tool_call_id.as_deref().unwrap_or("");
                if let Some((at, result)) = self.pending.remove(id) {
                    self.event(at, result, store);
                }
            }
            Some("ObservationEvent") => {
                let Some(id) = self.result_id(line, ev, store) else {
                    return;
                };
                let Some(obs) = &ev.observation else {
                    store.warn(
                        line,
                        format!("ObservationEvent of {id} without an observation"),
                    );
                    return;
                };
                let (result, exit) = tools::outcome(obs);
                let mut u = ended(&id, result, ev.timestamp.as_deref());
                // `view` of a folder lists it: only the result says it was one.
                u.title = tools::listed_folder(obs, self.cwd.as_deref());
                if obs.get("kind").and_then(Value::as_str) == Some("TerminalObservation") {
                    let mut meta = ToolMetadata::default();
                    match exit {
                        // Still running: no exit code yet.
                        Some(-1) if u.state == Some(ToolState::Complete) => {
                            meta.extra
                                .insert("commandRunning".to_owned(), Value::Bool(true));
                        }
                        Some(_) => meta.exit_code = exit,
                        None => {}
                    }
                    if !meta.is_empty() {
                        u.metadata = Some(meta);
                    }
                }
                store.upsert(line, u);
            }
            Some("AgentErrorEvent") => {
                let Some(id) = self.result_id(line, ev, store) else {
                    return;
                };
                let error = tools::agent_error(ev.error.as_deref().unwrap_or(""));
                store.upsert(line, ended(&id, Err(error), ev.timestamp.as_deref()));
            }
            Some("UserRejectObservation") => {
                let Some(id) = self.result_id(line, ev, store) else {
                    return;
                };
                let error = tools::rejected(
                    ev.rejection_reason.as_deref(),
                    ev.rejection_source.as_deref(),
                );
                store.upsert(line, ended(&id, Err(error), ev.timestamp.as_deref()));
            }
            Some("ConversationErrorEvent") => {
                let detail = ev.detail.as_deref().and_then(crate::providers::first_line);
                let message = match detail {
                    Some(d) => format!("The conversation failed: {d}"),
                    None => "The conversation failed".to_owned(),
                };
                let code = ev.code.as_deref().unwrap_or("error");
                store.abort_open(line, &message, code);
            }
            Some(_) => {}
            None => store.info(line, "an event without a `kind`; skipped"),
        }
    }

    /// `Your current working directory is: /w` in the system prompt's dynamic context.
    fn learn_cwd(&mut self, ev: &Event) {
        if self.cwd.is_some() {
            return;
        }
        let text = ev
            .dynamic_context
            .as_ref()
            .and_then(|c| c.get("text"))
            .and_then(Value::as_str)
            .unwrap_or("");
        const SAYS: &str = "Your current working directory is: ";
        if let Some(at) = text.find(SAYS) {
            let rest = &text[at + SAYS.len()..];
            let dir = rest.lines().next().unwrap_or("").trim();
            if !dir.is_empty() {
                self.cwd = Some(dir.to_owned());
            }
        }
    }

    fn action(&mut self, line: u32, ev: &Event, store: &mut PartStore) {
        let Some(id) = ev.tool_call_id.as_deref().filter(|i| !i.is_empty()) else {
            store.warn(line, "an ActionEvent without a tool_call_id");
            return;
        };
        let name = ev
            .tool_name
            .as_deref()
            .or_else(|| ev.tool_call.as_ref().and_then(|c| c.name.as_deref()))
            .filter(|n| !n.is_empty());
        let Some(name) = name else {
            store.warn(line, format!("the ActionEvent of {id} names no tool"));
            return;
        };
        let action = ev.action.as_ref().filter(|a| a.is_object());
        let action_kind = action.and_then(|a| a.get("kind")).and_then(Value::as_str);
        let input = match action {
            Some(a) => tools::input_of(a),
            None => tools::arguments_of(
                ev.tool_call
                    .as_ref()
                    .and_then(|c| c.arguments.as_deref())
                    .unwrap_or(""),
            ),
        };
        let d = tools::describe(name, action_kind, &input, self.cwd.as_deref());
        let u = PartUpdate {
            name: Some(d.name),
            kind: Some(d.kind),
            title: Some(d.title),
            input: Some(input),
            state: Some(ToolState::Running),
            metadata: Some(ToolMetadata {
                provider_type: Some(action_kind.unwrap_or("ActionEvent").to_owned()),
                mcp: d.mcp,
                ..ToolMetadata::default()
            }),
            timing: ev.timestamp.as_ref().map(|t| Timing {
                started_at: Some(TimeValue::Text(t.clone())),
                ..Timing::default()
            }),
            ..PartUpdate::new(id)
        };
        store.upsert(line, u);
        self.calls.entry(id.to_owned()).or_insert(false);
    }

    /// A result whose call has not come yet is kept for it (`None`); else the result, to apply.
    fn wait_for_call(&mut self, line: u32, ev: Event, store: &mut PartStore) -> Option<Event> {
        let Some(id) = ev.tool_call_id.as_deref().filter(|i| !i.is_empty()) else {
            return Some(ev);
        };
        if self.calls.contains_key(id) {
            return Some(ev);
        }
        store.info(
            line,
            format!("the result of {id} came before its call; it waits for the call"),
        );
        self.pending.insert(id.to_owned(), (line, ev));
        None
    }

    /// The call a result event answers (its call seen: see [`Self::wait_for_call`]); `None` for a
    /// second result.
    fn result_id(&mut self, line: u32, ev: &Event, store: &mut PartStore) -> Option<String> {
        let kind = ev.kind.as_deref().unwrap_or("");
        let Some(id) = ev.tool_call_id.as_deref().filter(|i| !i.is_empty()) else {
            store.warn(line, format!("{kind} without a tool_call_id"));
            return None;
        };
        match self.calls.get_mut(id) {
            Some(done) if !*done => *done = true,
            _ => {
                store.info(
                    line,
                    format!("a second result for {id}; the first one stands"),
                );
                return None;
            }
        }
        Some(id.to_owned())
    }
}

/// The update that ends a call with its result, at the result's time.
fn ended(id: &str, result: Result<Value, crate::model::ToolError>, at: Option<&str>) -> PartUpdate {
    let mut u = PartUpdate::ended(id, result);
    u.timing = at.map(|t| Timing {
        completed_at: Some(TimeValue::Text(t.to_owned())),
        ..Timing::default()
    });
    u
}
