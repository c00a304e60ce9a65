//! `cline --json PROMPT`: one line per event, `{"ts", "type", …}`. The tool-relevant ones:
//!
//! - `agent_event` `content_start` with `contentType: "tool"` (`toolName`, `toolCallId`,
//!   `input`): the call runs;
//! - `agent_event` `content_update` (`update: {stream, chunk, commandIndex, query}`): a command's
//!   output as it comes;
//! - `agent_event` `content_end` (`output`, `error` when the call was refused or failed,
//!   `durationMs`): the call's end;
//! - `hook_event` `agent_start` / `agent_end` (`agentId`, `parentAgentId`): a subagent of a
//!   `spawn_agent` (or teammate) call starts and ends; the `agent_event`s in between are its own,
//!   though they do not say so;
//! - `run_result` / `run_aborted`: the run's end (an aborted run ends what still runs).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::tools;
use crate::hash::HashMap;
use crate::model::{TimeValue, Timing, ToolKind, ToolState};
use crate::providers::{
    LineNormalizer, NormalizeOptions, PartStore, PartUpdate, Probe, line_text, raw_to_value,
    report_bad_json,
};
use crate::stream::RawLine;

/// The normalizer of one stream.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        cwd: opts.cwd.map(str::to_owned),
        calls: HashMap::default(),
        agents: Vec::new(),
        spawns: Vec::new(),
        pending: HashMap::default(),
    })
}

/// Recognises a line of the stream: `ts` and one of its event types.
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    p.has("ts")
        && match p.ty().as_ref() {
            "agent_event" => p.has("event"),
            "hook_event" => p.has("hookEventName"),
            "run_result" => p.has("finishReason"),
            "run_aborted" => p.has("reason"),
            _ => false,
        }
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    ts: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    event: Option<&'a RawValue>,
    #[serde(rename = "hookEventName", borrow, default)]
    hook: Option<Cow<'a, str>>,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Option<Cow<'a, str>>,
    #[serde(rename = "parentAgentId", borrow, default)]
    parent_agent_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(rename = "contentType", borrow, default)]
    content_type: Option<Cow<'a, str>>,
    #[serde(rename = "toolName", borrow, default)]
    tool_name: Option<Cow<'a, str>>,
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    update: Option<Update<'a>>,
    #[serde(rename = "durationMs", default)]
    duration_ms: Option<f64>,
}

/// An end kept until its call starts, as the text of an [`Event`].
#[derive(serde::Serialize)]
struct PendingEnd<'a> {
    #[serde(rename = "type")]
    ty: &'a str,
    #[serde(rename = "contentType")]
    content_type: &'a str,
    #[serde(rename = "toolCallId")]
    tool_call_id: Option<&'a str>,
    output: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
    #[serde(rename = "durationMs")]
    duration_ms: Option<f64>,
}

impl<'a> From<&'a Event<'a>> for PendingEnd<'a> {
    fn from(ev: &'a Event<'a>) -> Self {
        PendingEnd {
            ty: "content_end",
            content_type: "tool",
            tool_call_id: ev.tool_call_id.as_deref(),
            output: ev.output,
            error: ev.error,
            duration_ms: ev.duration_ms,
        }
    }
}

#[derive(Deserialize)]
struct Update<'a> {
    #[serde(borrow, default)]
    chunk: Option<Cow<'a, str>>,
}

/// One open call.
struct Call {
    /// Output streamed so far (a command's chunks).
    streamed: String,
    done: bool,
}

/// One stream's state.
struct Normalizer {
    cwd: Option<String>,
    calls: HashMap<String, Call>,
    /// The agents running, innermost last: `(agentId, the call that started it)`.
    agents: Vec<(String, Option<String>)>,
    /// Subagent-starting calls still running, latest last.
    spawns: Vec<String>,
    /// Ends that came before their call (lines out of order): the line, the event's text and
    /// the line's `ts`, applied when the call starts.
    pending: HashMap<String, (u32, String, Option<String>)>,
}

impl Normalizer {
    fn hook(&mut self, l: &Line<'_>) {
        let Some(agent) = l.agent_id.as_deref() else {
            return;
        };
        match l.hook.as_deref() {
            Some("agent_start") if !self.agents.iter().any(|(a, _)| a == agent) => {
                let parent = l
                    .parent_agent_id
                    .as_deref()
                    .and_then(|_| self.spawns.last().cloned());
                self.agents.push((agent.to_owned(), parent));
            }
            Some("agent_end") => {
                if let Some(i) = self.agents.iter().rposition(|(a, _)| a == agent) {
                    self.agents.truncate(i);
                }
            }
            _ => {}
        }
    }

    /// The call that started the agent whose events these are.
    fn parent(&self) -> Option<String> {
        self.agents.last().and_then(|(_, p)| p.clone())
    }

    fn event(&mut self, line: u32, ev: &Event<'_>, ts: Option<&str>, store: &mut PartStore) {
        if ev.content_type.as_deref() != Some("tool") {
            return;
        }
        let Some(id) = ev.tool_call_id.as_deref() else {
            store.warn(line, "a tool event without a toolCallId");
            return;
        };
        match ev.ty.as_deref() {
            Some("content_start") => {
                let Some(name) = ev.tool_name.as_deref() else {
                    store.warn(line, format!("content_start of {id} without a toolName"));
                    return;
                };
                let input = ev.input.map(raw_to_value);
                let mut u = tools::opened(
                    id,
                    name,
                    input,
                    self.cwd.as_deref(),
                    ToolState::Running,
                    "tool",
                    self.parent(),
                );
                let kind = u.kind;
                u.timing = ts.map(|t| Timing {
                    started_at: Some(TimeValue::Text(t.to_owned())),
                    ..Timing::default()
                });
                store.upsert(line, u);
                self.calls.entry(id.to_owned()).or_insert(Call {
                    streamed: String::new(),
                    done: false,
                });
                if kind == Some(ToolKind::Subagent)
                    && matches!(name, "spawn_agent" | "team_run_task")
                {
                    self.spawns.push(id.to_owned());
                }
                if let Some((line, text, ts)) = self.pending.remove(id)
                    && let Ok(end) = serde_json::from_str::<Event<'_>>(&text)
                {
                    self.event(line, &end, ts.as_deref(), store);
                }
            }
            Some("content_update") => {
                let chunk = ev.update.as_ref().and_then(|u| u.chunk.as_deref());
                if let (Some(call), Some(chunk)) = (self.calls.get_mut(id), chunk)
                    && !call.done
                    && !chunk.is_empty()
                {
                    call.streamed.push_str(chunk);
                    let mut u = PartUpdate::new(id);
                    u.output = Some(Value::String(call.streamed.clone()));
                    store.upsert(line, u);
                }
            }
            Some("content_end") => {
                let Some(call) = self.calls.get_mut(id) else {
                    store.info(
                        line,
                        format!("content_end of {id} came before its call; it waits for the call"),
                    );
                    if let Ok(text) = serde_json::to_string(&PendingEnd::from(ev)) {
                        self.pending
                            .insert(id.to_owned(), (line, text, ts.map(str::to_owned)));
                    }
                    return;
                };
                call.done = true;
                self.spawns.retain(|s| s != id);
                let error = ev.error.map(raw_to_value);
                let error = match &error {
                    Some(Value::String(t)) => Some(t.as_str()),
                    Some(Value::Object(o)) => o.get("message").and_then(Value::as_str),
                    _ => None,
                };
                let output = ev.output.map(raw_to_value).unwrap_or_default();
                let mut u =
                    crate::providers::PartUpdate::ended(id, tools::outcome(output, error, false));
                u.timing = Some(Timing {
                    started_at: None,
                    completed_at: ts.map(|t| TimeValue::Text(t.to_owned())),
                    elapsed_ms: ev
                        .duration_ms
                        .filter(|d| d.is_finite() && *d >= 0.0)
                        .map(|d| d as u64),
                });
                store.upsert(line, u);
            }
            _ => {}
        }
    }
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = line_text(line, store) else {
            return;
        };
        let l: Line<'_> = match serde_json::from_str(&text) {
            Ok(l) => l,
            Err(err) if err.is_data() => {
                store.warn(line.number, format!("not a Cline --json event: {err}"));
                return;
            }
            Err(err) => {
                report_bad_json(line, &err, store);
                return;
            }
        };
        match l.ty.as_deref() {
            Some("agent_event") => {
                let Some(raw) = l.event else {
                    return;
                };
                match serde_json::from_str::<Event<'_>>(raw.get()) {
                    Ok(ev) => self.event(line.number, &ev, l.ts.as_deref(), store),
                    Err(e) => store.warn(
                        line.number,
                        format!("agent_event: its event is not what Cline writes: {e}"),
                    ),
                }
            }
            Some("hook_event") => self.hook(&l),
            Some("run_aborted") => {
                let why = l.message.as_deref().or(l.reason.as_deref()).unwrap_or("");
                let message = if why.is_empty() {
                    "The run was aborted".to_owned()
                } else {
                    format!("The run was aborted: {why}")
                };
                store.abort_open(line.number, &message, "aborted");
            }
            Some(_) => {}
            None => store.info(line.number, "event without a `type`; skipped"),
        }
    }

    fn finish(&mut self, store: &mut PartStore) {
        let mut orphans: Vec<(u32, String)> = self
            .pending
            .drain()
            .map(|(id, (line, _, _))| (line, id))
            .collect();
        orphans.sort();
        for (line, id) in orphans {
            store.warn(
                line,
                format!("content_end of {id} has no matching call in this stream"),
            );
        }
    }
}
