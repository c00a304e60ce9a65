//! The parts as AG-UI 1.0 events (`@ag-ui/core`'s `EventSchemas`): one run (`RUN_STARTED` …
//! `RUN_FINISHED`) whose tool calls are `TOOL_CALL_START` (the call appears; `parentMessageId`
//! names the assistant message of its lane), `TOOL_CALL_ARGS` (its input as JSON text),
//! `TOOL_CALL_END` (input complete: `running`) and one `TOOL_CALL_RESULT` per finished call; a
//! `subagent` call opens a subagent run (`SUBAGENT_STARTED` … `SUBAGENT_FINISHED` /
//! `SUBAGENT_ERROR`) whose calls (those whose `metadata.parentToolUseId` names it) carry its
//! `subagentRunId`, and the run ends only once its calls have.
//!
//! AG-UI has no field for a call's title, kind, state, error, timing or metadata: they travel in
//! the events' `metadata.toolnorm` (the spec's extension slot, open by key), as the fields that
//! changed since the last event of the call; a change no tool event is due for (a title while
//! running, output still streaming, a later revision) is a `CUSTOM` event named
//! [`UPDATE_EVENT`] with the same `metadata.toolnorm`. A result's `content` is the output text;
//! `metadata.toolnorm.content` says when it is JSON text (`"json"`) or stands for no output
//! (`"none"`; a failed call's content is its error message).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ext::{self, EXT_KEY, Field};
use super::{DEFAULT_SESSION_ID, FoldError, json_text, replay, session_of};
use crate::model::{NormalizedDocument, NormalizedToolPart, ToolKind, ToolMetadata, ToolState};

/// The name of the `CUSTOM` event that carries a call's change no tool event is due for.
pub const UPDATE_EVENT: &str = "toolnorm.tool_call";

/// One AG-UI event, as `@ag-ui/core` names its fields: the run, tool call, subagent and custom
/// events this module writes. The fold skips the other event types.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AgUiEvent {
    #[serde(rename_all = "camelCase")]
    RunStarted { thread_id: String, run_id: String },
    #[serde(rename_all = "camelCase")]
    RunFinished { thread_id: String, run_id: String },
    #[serde(rename_all = "camelCase")]
    RunError {
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    ToolCallStart {
        tool_call_id: String,
        tool_call_name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subagent_run_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metadata: Option<Map<String, Value>>,
    },
    #[serde(rename_all = "camelCase")]
    ToolCallArgs {
        tool_call_id: String,
        delta: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subagent_run_id: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    ToolCallEnd {
        tool_call_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subagent_run_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metadata: Option<Map<String, Value>>,
    },
    #[serde(rename_all = "camelCase")]
    ToolCallResult {
        message_id: String,
        tool_call_id: String,
        /// A string, or an array of content parts.
        content: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subagent_run_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metadata: Option<Map<String, Value>>,
    },
    #[serde(rename_all = "camelCase")]
    Custom {
        name: String,
        value: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subagent_run_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metadata: Option<Map<String, Value>>,
    },
    #[serde(rename_all = "camelCase")]
    SubagentStarted {
        subagent_run_id: String,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_subagent_run_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    SubagentFinished { subagent_run_id: String },
    #[serde(rename_all = "camelCase")]
    SubagentError {
        subagent_run_id: String,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
}

impl AgUiEvent {
    /// The event's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            AgUiEvent::RunStarted { .. } => "RUN_STARTED",
            AgUiEvent::RunFinished { .. } => "RUN_FINISHED",
            AgUiEvent::RunError { .. } => "RUN_ERROR",
            AgUiEvent::ToolCallStart { .. } => "TOOL_CALL_START",
            AgUiEvent::ToolCallArgs { .. } => "TOOL_CALL_ARGS",
            AgUiEvent::ToolCallEnd { .. } => "TOOL_CALL_END",
            AgUiEvent::ToolCallResult { .. } => "TOOL_CALL_RESULT",
            AgUiEvent::Custom { .. } => "CUSTOM",
            AgUiEvent::SubagentStarted { .. } => "SUBAGENT_STARTED",
            AgUiEvent::SubagentFinished { .. } => "SUBAGENT_FINISHED",
            AgUiEvent::SubagentError { .. } => "SUBAGENT_ERROR",
        }
    }

    /// The tool call the event is about, if any.
    pub fn tool_call_id(&self) -> Option<&str> {
        match self {
            AgUiEvent::ToolCallStart { tool_call_id, .. }
            | AgUiEvent::ToolCallArgs { tool_call_id, .. }
            | AgUiEvent::ToolCallEnd { tool_call_id, .. }
            | AgUiEvent::ToolCallResult { tool_call_id, .. } => Some(tool_call_id),
            AgUiEvent::Custom { name, value, .. } if name == UPDATE_EVENT => {
                value.get("toolCallId").and_then(Value::as_str)
            }
            _ => None,
        }
    }

    fn metadata_mut(&mut self) -> Option<&mut Option<Map<String, Value>>> {
        match self {
            AgUiEvent::ToolCallStart { metadata, .. }
            | AgUiEvent::ToolCallEnd { metadata, .. }
            | AgUiEvent::ToolCallResult { metadata, .. }
            | AgUiEvent::Custom { metadata, .. } => Some(metadata),
            _ => None,
        }
    }

    fn ext(&self) -> Option<&Map<String, Value>> {
        let m = match self {
            AgUiEvent::ToolCallStart { metadata, .. }
            | AgUiEvent::ToolCallEnd { metadata, .. }
            | AgUiEvent::ToolCallResult { metadata, .. }
            | AgUiEvent::Custom { metadata, .. } => metadata.as_ref()?,
            _ => return None,
        };
        m.get(EXT_KEY)?.as_object()
    }
}

/// The event types `EventSchemas` has besides the ones [`AgUiEvent`] types. The fold skips them.
pub const OTHER_EVENT_TYPES: [&str; 20] = [
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    "TEXT_MESSAGE_CHUNK",
    "TOOL_CALL_CHUNK",
    "STATE_SNAPSHOT",
    "STATE_DELTA",
    "MESSAGES_SNAPSHOT",
    "ACTIVITY_SNAPSHOT",
    "ACTIVITY_DELTA",
    "RAW",
    "STEP_STARTED",
    "STEP_FINISHED",
    "REASONING_START",
    "REASONING_MESSAGE_START",
    "REASONING_MESSAGE_CONTENT",
    "REASONING_MESSAGE_END",
    "REASONING_MESSAGE_CHUNK",
    "REASONING_END",
    "REASONING_ENCRYPTED_VALUE",
];

/// One JSON value read as an event: `Ok(Some)` for a type [`AgUiEvent`] types, `Ok(None)` for
/// another type the schema has, `Err` for what it rejects (no `type`, an unknown type, fields that
/// do not read).
pub fn read_event(value: &Value) -> Result<Option<AgUiEvent>, String> {
    let Some(ty) = value.get("type").and_then(Value::as_str) else {
        return Err("an event without a string `type`".to_owned());
    };
    if OTHER_EVENT_TYPES.contains(&ty) {
        return Ok(None);
    }
    AgUiEvent::deserialize(value)
        .map(Some)
        .map_err(|e| format!("`{ty}` event: {e}"))
}

/// Events folded back into parts, in order of first appearance.
#[derive(Default)]
pub struct AgUiFold {
    parts: Vec<NormalizedToolPart>,
    index: HashMap<String, usize>,
    /// Per part: the argument text so far.
    args: Vec<String>,
}

impl AgUiFold {
    pub fn new() -> AgUiFold {
        AgUiFold::default()
    }

    fn existing(&self, id: &str, ty: &str) -> Result<usize, String> {
        self.index
            .get(id)
            .copied()
            .ok_or_else(|| format!("`{ty}` for `{id}`, which no TOOL_CALL_START opened"))
    }

    /// The part of a call, as folded so far.
    pub fn get(&self, id: &str) -> Option<&NormalizedToolPart> {
        self.index.get(id).map(|&i| &self.parts[i])
    }

    fn apply_ext(&mut self, i: usize, ext: Option<&Map<String, Value>>) -> Result<(), String> {
        match ext {
            Some(e) => ext::apply(&mut self.parts[i], e)
                .map_err(|err| format!("`{}`: metadata.{err}", self.parts[i].id)),
            None => Ok(()),
        }
    }

    /// Fold one event.
    pub fn event(&mut self, event: &AgUiEvent) -> Result<(), String> {
        let ext = event.ext();
        match event {
            AgUiEvent::ToolCallStart {
                tool_call_id,
                tool_call_name,
                ..
            } => {
                // An engine's event without toolnorm's slot names no provider type: AG-UI's is
                // a tool call.
                let metadata = ext.is_none().then(|| ToolMetadata {
                    provider_type: Some("tool_call".to_owned()),
                    ..ToolMetadata::default()
                });
                let part = NormalizedToolPart {
                    id: tool_call_id.clone(),
                    name: tool_call_name.clone(),
                    kind: ToolKind::Unknown,
                    title: tool_call_name.clone(),
                    input: Value::Null,
                    output: None,
                    error: None,
                    state: ToolState::Started,
                    timing: None,
                    metadata,
                };
                let i = match self.index.get(tool_call_id) {
                    Some(&i) => {
                        self.parts[i] = part;
                        self.args[i].clear();
                        i
                    }
                    None => {
                        self.index.insert(tool_call_id.clone(), self.parts.len());
                        self.parts.push(part);
                        self.args.push(String::new());
                        self.parts.len() - 1
                    }
                };
                self.apply_ext(i, ext)?;
            }
            AgUiEvent::ToolCallArgs {
                tool_call_id,
                delta,
                ..
            } => {
                let i = self.existing(tool_call_id, "TOOL_CALL_ARGS")?;
                self.args[i].push_str(delta);
                if let Ok(v) = serde_json::from_str::<Value>(&self.args[i]) {
                    self.parts[i].input = v;
                }
            }
            AgUiEvent::ToolCallEnd { tool_call_id, .. } => {
                let i = self.existing(tool_call_id, "TOOL_CALL_END")?;
                if self.parts[i].state == ToolState::Started {
                    self.parts[i].state = ToolState::Running;
                }
                self.apply_ext(i, ext)?;
            }
            AgUiEvent::ToolCallResult {
                tool_call_id,
                content,
                ..
            } => {
                let i = self.existing(tool_call_id, "TOOL_CALL_RESULT")?;
                let encoding = ext.and_then(|e| e.get("content")).and_then(Value::as_str);
                let output = match (encoding, content) {
                    (Some("none"), _) => None,
                    (Some("json"), Value::String(s)) => Some(
                        serde_json::from_str(s)
                            .map_err(|e| format!("`{tool_call_id}`: content is not JSON: {e}"))?,
                    ),
                    (_, c) => Some(c.clone()),
                };
                let p = &mut self.parts[i];
                p.output = output;
                p.error = None;
                p.state = ToolState::Complete;
                self.apply_ext(i, ext)?;
            }
            AgUiEvent::Custom { name, value, .. } if name == UPDATE_EVENT => {
                let id = value
                    .get("toolCallId")
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("`{UPDATE_EVENT}` without a string value.toolCallId"))?;
                let i = self.existing(id, UPDATE_EVENT)?;
                self.apply_ext(i, ext)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// The parts, in order of first appearance.
    pub fn parts(&self) -> &[NormalizedToolPart] {
        &self.parts
    }

    pub fn into_parts(self) -> Vec<NormalizedToolPart> {
        self.parts
    }
}

/// Fold a whole sequence of events.
pub fn fold_events(events: &[AgUiEvent]) -> Result<Vec<NormalizedToolPart>, FoldError> {
    let mut fold = AgUiFold::new();
    for (index, e) in events.iter().enumerate() {
        fold.event(e)
            .map_err(|message| FoldError { index, message })?;
    }
    Ok(fold.into_parts())
}

/// Every contract field, for the `CUSTOM` catch-all.
const ALL: [Field; 9] = [
    Field::Name,
    Field::Title,
    Field::Kind,
    Field::State,
    Field::Input,
    Field::Output,
    Field::Error,
    Field::Metadata,
    Field::Timing,
];

/// [`ALL`] but the input: what a live call's update may carry while its arguments are held.
const ALL_BUT_INPUT: [Field; 8] = [
    Field::Name,
    Field::Title,
    Field::Kind,
    Field::State,
    Field::Output,
    Field::Error,
    Field::Metadata,
    Field::Timing,
];

/// What a call needs for its lane and its events.
struct Call {
    lane: Option<String>,
    /// The latest input seen: a live call's arguments go out once it ends (or at the end of the
    /// stream), when they are final.
    input: Value,
    args: bool,
    ended: bool,
    result: bool,
}

/// A subagent run: its calls still open, and how it ended once its own call did.
struct Sub {
    open: usize,
    end: Option<AgUiEvent>,
    done: bool,
}

/// The events of a stream of part snapshots, live: [`AgUiEmitter::part`] for each change,
/// [`AgUiEmitter::finish`] at the end (it ends the calls and subagent runs still open, then the
/// run). `RUN_STARTED` comes before the first tool event, with the first part's session as its
/// thread. Every event it writes is folded into its own [`AgUiFold`], so each event's
/// `metadata.toolnorm` says exactly what the fold lacks: folding the events gives back the parts.
#[derive(Default)]
pub struct AgUiEmitter {
    run: Option<(String, String)>,
    /// Calls seen only `started` so far, their latest snapshot, in the order they came: a
    /// consumer keeps a call's first `TOOL_CALL_START` name and its `TOOL_CALL_ARGS` as sent, so a
    /// call goes on the wire once its name and input are final (it leaves `started`), when a call
    /// under it needs it, or at the end of the stream.
    pending: Vec<NormalizedToolPart>,
    /// Whether calls are held while `started` (live streams); a whole document's replay knows
    /// every call's final name and input from the start, and keeps the document's order.
    hold: bool,
    calls: HashMap<String, Call>,
    subs: HashMap<String, Sub>,
    fold: AgUiFold,
}

impl AgUiEmitter {
    pub fn new() -> AgUiEmitter {
        AgUiEmitter {
            hold: true,
            ..AgUiEmitter::default()
        }
    }

    fn start(&mut self, session: Option<&str>, out: &mut Vec<AgUiEvent>) {
        if self.run.is_none() {
            let thread = session.unwrap_or(DEFAULT_SESSION_ID).to_owned();
            let run = format!("{thread}:run");
            out.push(AgUiEvent::RunStarted {
                thread_id: thread.clone(),
                run_id: run.clone(),
            });
            self.run = Some((thread, run));
        }
    }

    /// Fold `event` and attach to it, in `metadata.toolnorm`, the `fields` of `after` the fold
    /// still lacks (with `pre` already in it: the content encoding of a result).
    fn emit(
        &mut self,
        mut event: AgUiEvent,
        after: &NormalizedToolPart,
        fields: &[Field],
        pre: Option<Map<String, Value>>,
        out: &mut Vec<AgUiEvent>,
    ) {
        // A start always has the slot (empty if nothing is missing): without it, the fold reads
        // the call as an engine's that names no provider type.
        let start = matches!(event, AgUiEvent::ToolCallStart { .. });
        let pre = if start {
            Some(pre.unwrap_or_default())
        } else {
            pre
        };
        let slot = |m: Map<String, Value>| Map::from_iter([(EXT_KEY.to_owned(), Value::Object(m))]);
        if let (Some(pre), Some(s)) = (pre.clone(), event.metadata_mut()) {
            *s = Some(slot(pre));
        }
        // The emitter's own events always fold: they name known calls and well-formed fields.
        let _ = self.fold.event(&event);
        let diff = ext::diff(self.fold.get(&after.id), after, fields);
        if !diff.is_empty() {
            if let Some(i) = self.fold.index.get(&after.id).copied() {
                let _ = ext::apply(&mut self.fold.parts[i], &diff);
            }
            let mut ours = pre.unwrap_or_default();
            ours.extend(diff);
            if let Some(s) = event.metadata_mut() {
                *s = Some(slot(ours));
            }
        }
        out.push(event);
    }

    /// The subagent run a new call belongs to: the active one its `parentToolUseId` names.
    fn lane_of(&self, part: &NormalizedToolPart) -> Option<String> {
        let parent = part.metadata.as_ref()?.parent_tool_use_id.as_deref()?;
        let sub = self.subs.get(parent)?;
        (sub.end.is_none() && !sub.done).then(|| parent.to_owned())
    }

    fn message_id(&self, lane: Option<&str>) -> String {
        match lane {
            Some(l) => format!("{l}:assistant"),
            None => format!(
                "{}:assistant",
                self.run
                    .as_ref()
                    .map_or(DEFAULT_SESSION_ID, |r| r.1.as_str())
            ),
        }
    }

    /// The events for one change of a part.
    pub fn part(&mut self, after: &NormalizedToolPart) -> Vec<AgUiEvent> {
        let mut out = Vec::new();
        if self.hold && after.state == ToolState::Started && !self.calls.contains_key(&after.id) {
            self.start(session_of(after), &mut out);
            match self.pending.iter_mut().find(|p| p.id == after.id) {
                Some(p) => *p = after.clone(),
                None => self.pending.push(after.clone()),
            }
            return out;
        }
        // A parent call still held goes first, so this call runs in its lane.
        if let Some(parent) = after
            .metadata
            .as_ref()
            .and_then(|m| m.parent_tool_use_id.as_deref())
            && let Some(i) = self.pending.iter().position(|p| p.id == parent)
        {
            let held = self.pending.remove(i);
            self.emit_part(&held, &mut out);
        }
        if let Some(i) = self.pending.iter().position(|p| p.id == after.id) {
            self.pending.remove(i);
        }
        self.emit_part(after, &mut out);
        out
    }

    /// The events that bring the consumer's view of a call to `after`.
    fn emit_part(&mut self, after: &NormalizedToolPart, out: &mut Vec<AgUiEvent>) {
        self.start(session_of(after), out);
        let id = after.id.clone();
        if !self.calls.contains_key(&id) {
            let lane = self.lane_of(after);
            if let Some(l) = &lane
                && let Some(s) = self.subs.get_mut(l)
            {
                s.open += 1;
            }
            let start = AgUiEvent::ToolCallStart {
                tool_call_id: id.clone(),
                tool_call_name: after.name.clone(),
                parent_message_id: Some(self.message_id(lane.as_deref())),
                subagent_run_id: lane.clone(),
                metadata: None,
            };
            self.emit(
                start,
                after,
                &[
                    Field::Title,
                    Field::Kind,
                    Field::State,
                    Field::Metadata,
                    Field::Timing,
                ],
                None,
                out,
            );
            if after.kind == ToolKind::Subagent {
                out.push(AgUiEvent::SubagentStarted {
                    subagent_run_id: id.clone(),
                    name: after.name.clone(),
                    description: Some(after.title.clone()),
                    parent_subagent_run_id: lane.clone(),
                    parent_tool_call_id: Some(id.clone()),
                });
                self.subs.insert(
                    id.clone(),
                    Sub {
                        open: 0,
                        end: None,
                        done: false,
                    },
                );
            }
            self.calls.insert(
                id.clone(),
                Call {
                    lane,
                    input: Value::Null,
                    args: false,
                    ended: false,
                    result: false,
                },
            );
        }
        let (lane, args, ended, result) = {
            let c = &self.calls[&id];
            (c.lane.clone(), c.args, c.ended, c.result)
        };
        if self.hold
            && let Some(c) = self.calls.get_mut(&id)
        {
            c.input.clone_from(&after.input);
        }
        // A live call's input can still change while it runs (a web search's query, a plan's
        // items), and a consumer keeps the arguments as sent: they go out when the call ends.
        let final_input = !self.hold || after.state.is_terminal();
        if !args && final_input && !after.input.is_null() {
            let ev = AgUiEvent::ToolCallArgs {
                tool_call_id: id.clone(),
                delta: json_text(&after.input),
                subagent_run_id: lane.clone(),
            };
            self.emit(ev, after, &[], None, out);
            if let Some(c) = self.calls.get_mut(&id) {
                c.args = true;
            }
        }
        if !ended && final_input && after.state != ToolState::Started {
            let ev = AgUiEvent::ToolCallEnd {
                tool_call_id: id.clone(),
                subagent_run_id: lane.clone(),
                metadata: None,
            };
            self.emit(
                ev,
                after,
                &[
                    Field::State,
                    Field::Title,
                    Field::Kind,
                    Field::Metadata,
                    Field::Timing,
                ],
                None,
                out,
            );
            if let Some(c) = self.calls.get_mut(&id) {
                c.ended = true;
            }
        }
        if !result && after.state.is_terminal() {
            self.result(after, lane.as_deref(), out);
        }
        // Whatever the fold still lacks; a live call's input that is held (above) is not sent.
        let held = self.calls.get(&id).is_some_and(|c| !c.args);
        let fields: &[Field] = if held { &ALL_BUT_INPUT } else { &ALL };
        let diff = ext::diff(self.fold.get(&id), after, fields);
        if !diff.is_empty() {
            let lane = lane.filter(|l| self.subs.get(l).is_some_and(|s| !s.done));
            let ev = AgUiEvent::Custom {
                name: UPDATE_EVENT.to_owned(),
                value: Value::Object(Map::from_iter([(
                    "toolCallId".to_owned(),
                    Value::String(id.clone()),
                )])),
                subagent_run_id: lane,
                metadata: None,
            };
            self.emit(ev, after, &ALL, None, out);
        }
    }

    /// The result of a call that just finished, and the end of the subagent runs it closes.
    fn result(&mut self, after: &NormalizedToolPart, lane: Option<&str>, out: &mut Vec<AgUiEvent>) {
        let id = after.id.clone();
        let (content, encoding) = match (after.state, &after.output) {
            (ToolState::Error, _) | (_, None) => (
                Value::String(
                    after
                        .error
                        .as_ref()
                        .map(|e| e.message.clone())
                        .unwrap_or_default(),
                ),
                Some("none"),
            ),
            (_, Some(Value::String(s))) => (Value::String(s.clone()), None),
            (_, Some(v)) => (Value::String(json_text(v)), Some("json")),
        };
        let pre = encoding.map(|e| Map::from_iter([("content".to_owned(), Value::from(e))]));
        let ev = AgUiEvent::ToolCallResult {
            message_id: format!("{id}:result"),
            tool_call_id: id.clone(),
            content,
            role: Some("tool".to_owned()),
            subagent_run_id: lane.map(str::to_owned),
            metadata: None,
        };
        self.emit(
            ev,
            after,
            &[
                Field::State,
                Field::Error,
                Field::Output,
                Field::Title,
                Field::Kind,
                Field::Metadata,
                Field::Timing,
            ],
            pre,
            out,
        );
        if let Some(c) = self.calls.get_mut(&id) {
            c.result = true;
        }
        if let Some(sub) = self.subs.get_mut(&id) {
            sub.end = Some(match &after.error {
                Some(e) if after.state == ToolState::Error => AgUiEvent::SubagentError {
                    subagent_run_id: id.clone(),
                    message: e.message.clone(),
                    code: e.code.clone(),
                },
                _ => AgUiEvent::SubagentFinished {
                    subagent_run_id: id.clone(),
                },
            });
            self.close_sub(&id, out);
        }
        if let Some(l) = lane {
            if let Some(s) = self.subs.get_mut(l) {
                s.open = s.open.saturating_sub(1);
            }
            self.close_sub(l, out);
        }
    }

    /// End a subagent run whose call finished and whose own calls all did.
    fn close_sub(&mut self, id: &str, out: &mut Vec<AgUiEvent>) {
        let Some(sub) = self.subs.get_mut(id) else {
            return;
        };
        if sub.open == 0
            && !sub.done
            && let Some(end) = &sub.end
        {
            out.push(end.clone());
            sub.done = true;
        }
    }

    /// The events that close the stream: `TOOL_CALL_END` for the calls still open, the end of
    /// the subagent runs still open, `RUN_FINISHED` (after a `RUN_STARTED` if no part came).
    pub fn finish(&mut self) -> Vec<AgUiEvent> {
        let mut out = Vec::new();
        self.start(None, &mut out);
        // Calls that never left `started`: on the wire as they last were (ended below).
        for held in std::mem::take(&mut self.pending) {
            self.emit_part(&held, &mut out);
        }
        let mut open: Vec<(String, Option<String>)> = self
            .calls
            .iter()
            .filter(|(_, c)| !c.ended)
            .map(|(id, c)| (id.clone(), c.lane.clone()))
            .collect();
        open.sort_by_key(|(id, _)| self.fold.index.get(id).copied());
        for (id, lane) in open {
            // The call is as the fold has it; `metadata.toolnorm.state` keeps it `started`.
            let Some(now) = self.fold.get(&id).cloned() else {
                continue;
            };
            // A live call still running: its latest arguments, then its end.
            let held = self
                .calls
                .get(&id)
                .filter(|c| !c.args && !c.input.is_null())
                .map(|c| c.input.clone());
            if let Some(input) = held {
                let ev = AgUiEvent::ToolCallArgs {
                    tool_call_id: id.clone(),
                    delta: json_text(&input),
                    subagent_run_id: lane.clone(),
                };
                self.emit(ev, &now, &[], None, &mut out);
            }
            let ev = AgUiEvent::ToolCallEnd {
                tool_call_id: id,
                subagent_run_id: lane,
                metadata: None,
            };
            self.emit(ev, &now, &[Field::State], None, &mut out);
        }
        let mut subs: Vec<(&String, &Sub)> = self.subs.iter().filter(|(_, s)| !s.done).collect();
        // Inner runs first: a run opened later ends earlier.
        subs.sort_by_key(|(id, _)| std::cmp::Reverse(self.fold.index.get(*id).copied()));
        for (id, s) in subs {
            out.push(match &s.end {
                Some(end) => end.clone(),
                None => AgUiEvent::SubagentFinished {
                    subagent_run_id: id.clone(),
                },
            });
        }
        let (thread, run) = self.run.clone().unwrap_or_default();
        out.push(AgUiEvent::RunFinished {
            thread_id: thread,
            run_id: run,
        });
        out
    }
}

/// Every event of a document: the run, the events of its parts' changes in the order of its
/// events ([`super::replay`]), the end. Folding them gives back `doc.parts`.
pub fn document_events(doc: &NormalizedDocument) -> Vec<AgUiEvent> {
    let mut e = AgUiEmitter::default();
    let mut out = Vec::new();
    e.start(Some(super::document_session_id(doc)), &mut out);
    for snap in replay(doc) {
        out.extend(e.part(&snap));
    }
    out.extend(e.finish());
    out
}
