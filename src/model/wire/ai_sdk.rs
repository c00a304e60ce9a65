//! The parts as an AI SDK UI message stream (the `ai` package 7.x): the chunks a server writes for
//! `useChat` / `readUIMessageStream`, one tool part (`dynamic-tool`) per toolnorm part, and the
//! fold of such chunks back into parts.
//!
//! A part's life is the chunk sequence `tool-input-start` (the call appears: state
//! `input-streaming`, with its input as one `tool-input-delta` of JSON text while it is `started`),
//! `tool-input-available` (`running`: input complete), `tool-approval-request` where the agent
//! asked permission, then `tool-output-available` (`preliminary: true` while output streams in a
//! running call; without it once `complete`), `tool-output-error` (`error`) or
//! `tool-output-denied` (an error whose code is `declined` or `permission_denied`: the user or a
//! policy refused). Every chunk says `dynamic: true` (the UI did not declare the agent's tools)
//! and `providerExecuted: true` (the agent ran the tool, not the browser). What the chunk types
//! have no field for travels in `toolMetadata`, which the consumer keeps on the tool part whole:
//! `kind`, `timing`, `metadata` and `error` (the contract's, with its code and details).

use std::collections::HashMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::ext::v;
use super::{DEFAULT_SESSION_ID, FoldError, json_text, replay, session_of};
use crate::model::{
    NormalizedDocument, NormalizedToolPart, ToolError, ToolKind, ToolMetadata, ToolState,
};

/// An optional value whose key, when present, holds it even if it is `null` (`output: null` is a
/// null output; no `output` key is none).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// One chunk of the stream, as `uiMessageChunkSchema` names its fields. Only the chunk types a
/// tool call's life uses, and the message's `start` / `finish`; the fold skips the others (text,
/// reasoning, sources, data parts).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum UiChunk {
    /// Opens the assistant message the tool parts belong to.
    #[serde(rename_all = "camelCase")]
    Start {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
    },
    /// Closes the message.
    #[serde(rename_all = "camelCase")]
    Finish {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        finish_reason: Option<String>,
    },
    /// A tool call appears; its input streams next.
    #[serde(rename_all = "camelCase")]
    ToolInputStart {
        tool_call_id: String,
        tool_name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dynamic: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_executed: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_metadata: Option<Map<String, Value>>,
    },
    /// A piece of the call's input, as JSON text.
    #[serde(rename_all = "camelCase")]
    ToolInputDelta {
        tool_call_id: String,
        input_text_delta: String,
    },
    /// The call's input is complete.
    #[serde(rename_all = "camelCase")]
    ToolInputAvailable {
        tool_call_id: String,
        tool_name: String,
        #[serde(default)]
        input: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dynamic: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_executed: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_metadata: Option<Map<String, Value>>,
    },
    /// The call's input could not be used (the fold reads it as a failed call).
    #[serde(rename_all = "camelCase")]
    ToolInputError {
        tool_call_id: String,
        tool_name: String,
        #[serde(default)]
        input: Value,
        error_text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dynamic: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_executed: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_metadata: Option<Map<String, Value>>,
    },
    /// The agent asks permission to run the call.
    #[serde(rename_all = "camelCase")]
    ToolApprovalRequest {
        approval_id: String,
        tool_call_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The call's output: still streaming with `preliminary: true`, else final.
    #[serde(rename_all = "camelCase")]
    ToolOutputAvailable {
        tool_call_id: String,
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        output: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        preliminary: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dynamic: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_executed: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_metadata: Option<Map<String, Value>>,
    },
    /// The call failed.
    #[serde(rename_all = "camelCase")]
    ToolOutputError {
        tool_call_id: String,
        error_text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dynamic: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_executed: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_metadata: Option<Map<String, Value>>,
    },
    /// The call was refused (by the user or a policy) and did not run.
    #[serde(rename_all = "camelCase")]
    ToolOutputDenied { tool_call_id: String },
}

impl UiChunk {
    /// The chunk's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            UiChunk::Start { .. } => "start",
            UiChunk::Finish { .. } => "finish",
            UiChunk::ToolInputStart { .. } => "tool-input-start",
            UiChunk::ToolInputDelta { .. } => "tool-input-delta",
            UiChunk::ToolInputAvailable { .. } => "tool-input-available",
            UiChunk::ToolInputError { .. } => "tool-input-error",
            UiChunk::ToolApprovalRequest { .. } => "tool-approval-request",
            UiChunk::ToolOutputAvailable { .. } => "tool-output-available",
            UiChunk::ToolOutputError { .. } => "tool-output-error",
            UiChunk::ToolOutputDenied { .. } => "tool-output-denied",
        }
    }

    /// The tool call the chunk is about (`None` for `start` / `finish`).
    pub fn tool_call_id(&self) -> Option<&str> {
        match self {
            UiChunk::Start { .. } | UiChunk::Finish { .. } => None,
            UiChunk::ToolInputStart { tool_call_id, .. }
            | UiChunk::ToolInputDelta { tool_call_id, .. }
            | UiChunk::ToolInputAvailable { tool_call_id, .. }
            | UiChunk::ToolInputError { tool_call_id, .. }
            | UiChunk::ToolApprovalRequest { tool_call_id, .. }
            | UiChunk::ToolOutputAvailable { tool_call_id, .. }
            | UiChunk::ToolOutputError { tool_call_id, .. }
            | UiChunk::ToolOutputDenied { tool_call_id } => Some(tool_call_id),
        }
    }
}

/// The tool part state `readUIMessageStream` gives a toolnorm state (the AI SDK's names; the
/// contract's legacy `calling` is `input-streaming` / `input-available`).
pub fn ui_state(part: &NormalizedToolPart) -> &'static str {
    match part.state {
        ToolState::Started => "input-streaming",
        ToolState::Running if part.output.is_some() => "output-available",
        ToolState::Running if approval_requested(part) => "approval-requested",
        ToolState::Running => "input-available",
        ToolState::Complete => "output-available",
        ToolState::Error if is_denied(part) => "output-denied",
        ToolState::Error => "output-error",
    }
}

/// An error whose code says the call was refused rather than failed.
pub fn is_denied(part: &NormalizedToolPart) -> bool {
    part.state == ToolState::Error
        && part
            .error
            .as_ref()
            .and_then(|e| e.code.as_deref())
            .is_some_and(|c| c == "declined" || c == "permission_denied")
}

/// The key in a part's `metadata` that says the agent asked permission for the call, and the one
/// with its reason.
pub const APPROVAL_REQUESTED: &str = "approvalRequested";
pub const APPROVAL_REASON: &str = "approvalReason";

fn approval_requested(part: &NormalizedToolPart) -> bool {
    part.metadata
        .as_ref()
        .and_then(|m| m.extra.get(APPROVAL_REQUESTED))
        == Some(&Value::Bool(true))
}

/// `toolMetadata` of a part: what the chunks have no field for.
pub fn tool_metadata(part: &NormalizedToolPart) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("kind".to_owned(), v(&part.kind));
    if let Some(t) = &part.timing {
        m.insert("timing".to_owned(), v(t));
    }
    if let Some(md) = &part.metadata {
        m.insert("metadata".to_owned(), v(md));
    }
    if let Some(e) = &part.error {
        m.insert("error".to_owned(), v(e));
    }
    m
}

/// How far the consumer's tool part has gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Streaming,
    Available,
    Output,
}

/// What the consumer was shown of one part.
struct Shown {
    part: NormalizedToolPart,
    level: Level,
    meta: Map<String, Value>,
    approval: bool,
}

/// The chunks of a stream of part snapshots, live: [`AiSdkEmitter::part`] for each change (a
/// part's first snapshot opens its tool part), [`AiSdkEmitter::finish`] at the end. The
/// message's `start` comes before the first tool chunk. Holds each part's last snapshot.
#[derive(Default)]
pub struct AiSdkEmitter {
    started: bool,
    shown: HashMap<String, Shown>,
}

impl AiSdkEmitter {
    pub fn new() -> AiSdkEmitter {
        AiSdkEmitter::default()
    }

    fn start(&mut self, session: Option<&str>, out: &mut Vec<UiChunk>) {
        if !self.started {
            self.started = true;
            out.push(UiChunk::Start {
                message_id: Some(session.unwrap_or(DEFAULT_SESSION_ID).to_owned()),
            });
        }
    }

    /// The chunks for one change of a part (nothing when the consumer would see no change).
    pub fn part(&mut self, after: &NormalizedToolPart) -> Vec<UiChunk> {
        let mut out = Vec::new();
        self.start(session_of(after), &mut out);
        let meta = tool_metadata(after);
        let id = after.id.as_str();
        let streaming = after.state == ToolState::Started;
        let input_start = |out: &mut Vec<UiChunk>| {
            out.push(UiChunk::ToolInputStart {
                tool_call_id: id.to_owned(),
                tool_name: after.name.clone(),
                title: Some(after.title.clone()),
                dynamic: Some(true),
                provider_executed: Some(true),
                tool_metadata: Some(meta.clone()),
            });
            if streaming && !after.input.is_null() {
                out.push(UiChunk::ToolInputDelta {
                    tool_call_id: id.to_owned(),
                    input_text_delta: json_text(&after.input),
                });
            }
        };
        let shown = match self.shown.get(id) {
            None => {
                input_start(&mut out);
                None
            }
            Some(s) => Some(s),
        };
        let same_call = |s: &Shown| {
            s.part.title == after.title && s.part.name == after.name && s.part.input == after.input
        };
        let mut level = shown.map_or(Level::Streaming, |s| s.level);
        if let Some(s) = shown
            && streaming
            && (!same_call(s) || s.meta != meta)
        {
            input_start(&mut out);
            level = Level::Streaming;
        }
        let denied = is_denied(after);
        if !streaming {
            let running_bare = after.state == ToolState::Running && after.output.is_none();
            let again = shown
                .is_some_and(|s| !same_call(s) || ((running_bare || denied) && s.meta != meta));
            if level < Level::Available || again {
                out.push(UiChunk::ToolInputAvailable {
                    tool_call_id: id.to_owned(),
                    tool_name: after.name.clone(),
                    input: after.input.clone(),
                    title: Some(after.title.clone()),
                    dynamic: Some(true),
                    provider_executed: Some(true),
                    tool_metadata: Some(meta.clone()),
                });
                level = Level::Available;
            }
        }
        let approval = approval_requested(after);
        if approval && !shown.is_some_and(|s| s.approval) {
            let reason = after
                .metadata
                .as_ref()
                .and_then(|m| m.extra.get(APPROVAL_REASON))
                .and_then(Value::as_str)
                .map(str::to_owned);
            out.push(UiChunk::ToolApprovalRequest {
                approval_id: format!("{id}:approval"),
                tool_call_id: id.to_owned(),
                reason,
            });
        }
        let output_due = match after.state {
            ToolState::Started => false,
            ToolState::Running => after.output.is_some(),
            ToolState::Complete | ToolState::Error => true,
        };
        if output_due {
            let changed = shown.is_none_or(|s| {
                s.part.output != after.output
                    || s.part.state != after.state
                    || s.part.error != after.error
                    || s.meta != meta
            });
            if level < Level::Output
                || changed
                || out.iter().any(|c| c.type_name() == "tool-input-available")
            {
                out.push(match after.state {
                    ToolState::Error if denied => UiChunk::ToolOutputDenied {
                        tool_call_id: id.to_owned(),
                    },
                    ToolState::Error => UiChunk::ToolOutputError {
                        tool_call_id: id.to_owned(),
                        error_text: after
                            .error
                            .as_ref()
                            .map_or_else(|| "error".to_owned(), |e| e.message.clone()),
                        dynamic: Some(true),
                        provider_executed: Some(true),
                        tool_metadata: Some(meta.clone()),
                    },
                    // The consumer's schema asks for the key: a call that ended with no output
                    // says `output: null` (folded back as no output).
                    _ => UiChunk::ToolOutputAvailable {
                        tool_call_id: id.to_owned(),
                        output: Some(after.output.clone().unwrap_or(Value::Null)),
                        preliminary: (after.state == ToolState::Running).then_some(true),
                        dynamic: Some(true),
                        provider_executed: Some(true),
                        tool_metadata: Some(meta.clone()),
                    },
                });
                level = Level::Output;
            }
        }
        let approval = approval || shown.is_some_and(|s| s.approval);
        self.shown.insert(
            id.to_owned(),
            Shown {
                part: after.clone(),
                level,
                meta,
                approval,
            },
        );
        out
    }

    /// The chunks that close the stream: the message's `start` if no part opened it, and
    /// `finish`.
    pub fn finish(&mut self) -> Vec<UiChunk> {
        let mut out = Vec::new();
        self.start(None, &mut out);
        out.push(UiChunk::Finish {
            finish_reason: None,
        });
        out
    }
}

/// Every chunk of a document: `start`, the chunks of its parts' changes in the order of its
/// events ([`super::replay`]), `finish`. Folding them gives back `doc.parts`.
pub fn document_chunks(doc: &NormalizedDocument) -> Vec<UiChunk> {
    let mut e = AiSdkEmitter::new();
    let mut out = Vec::new();
    e.start(Some(super::document_session_id(doc)), &mut out);
    for snap in replay(doc) {
        out.extend(e.part(&snap));
    }
    out.extend(e.finish());
    out
}

/// The chunk types `uiMessageChunkSchema` accepts besides the ones [`UiChunk`] types (a `data-*`
/// type is also accepted). The fold skips them.
pub const OTHER_CHUNK_TYPES: [&str; 19] = [
    "text-start",
    "text-delta",
    "text-end",
    "error",
    "tool-approval-response",
    "reasoning-start",
    "reasoning-delta",
    "reasoning-end",
    "custom",
    "source-url",
    "source-document",
    "file",
    "reasoning-file",
    "steering-message",
    "start-step",
    "finish-step",
    "reset-step",
    "abort",
    "message-metadata",
];

/// One JSON value read as a chunk: `Ok(Some)` for a chunk [`UiChunk`] types, `Ok(None)` for
/// another type the schema has, `Err` for what the schema rejects (no `type`, an unknown type, a
/// tool chunk whose fields do not read).
pub fn read_chunk(value: &Value) -> Result<Option<UiChunk>, String> {
    let Some(ty) = value.get("type").and_then(Value::as_str) else {
        return Err("a chunk without a string `type`".to_owned());
    };
    if OTHER_CHUNK_TYPES.contains(&ty) || ty.starts_with("data-") {
        return Ok(None);
    }
    UiChunk::deserialize(value)
        .map(Some)
        .map_err(|e| format!("`{ty}` chunk: {e}"))
}

/// Chunks folded back into parts, in order of first appearance, as `readUIMessageStream` builds
/// its tool parts (and with `toolMetadata` read back into the contract's fields).
#[derive(Default)]
pub struct AiSdkFold {
    parts: Vec<NormalizedToolPart>,
    index: HashMap<String, usize>,
    /// Per part: the input text streamed so far, and the last `toolMetadata`.
    text: Vec<String>,
    meta: Vec<Option<Map<String, Value>>>,
}

impl AiSdkFold {
    pub fn new() -> AiSdkFold {
        AiSdkFold::default()
    }

    fn slot(&mut self, id: &str, name: &str) -> usize {
        if let Some(&i) = self.index.get(id) {
            return i;
        }
        let i = self.parts.len();
        self.parts.push(NormalizedToolPart {
            id: id.to_owned(),
            name: name.to_owned(),
            kind: ToolKind::Unknown,
            title: name.to_owned(),
            input: Value::Null,
            output: None,
            error: None,
            state: ToolState::Started,
            timing: None,
            metadata: None,
        });
        self.text.push(String::new());
        self.meta.push(None);
        self.index.insert(id.to_owned(), i);
        i
    }

    fn existing(&self, id: &str, ty: &str) -> Result<usize, String> {
        self.index.get(id).copied().ok_or_else(|| {
            format!("`{ty}` for `{id}`, which no tool-input-start or tool-input-available opened")
        })
    }

    /// Apply `toolMetadata` (replacing the part's, as the consumer does). A `toolMetadata` with
    /// a `kind` is toolnorm's own; an engine's stream without one names no provider type, so the
    /// part's is the AI SDK's part type (`dynamic-tool`, `tool-<name>`).
    fn apply_meta(
        &mut self,
        i: usize,
        meta: Option<&Map<String, Value>>,
        dynamic: Option<bool>,
    ) -> Result<(), String> {
        let Some(m) = meta.filter(|m| m.contains_key("kind")) else {
            let p = &mut self.parts[i];
            if p.metadata.is_none() {
                let ty = if dynamic == Some(true) {
                    "dynamic-tool".to_owned()
                } else {
                    format!("tool-{}", p.name)
                };
                p.metadata = Some(ToolMetadata {
                    provider_type: Some(ty),
                    ..ToolMetadata::default()
                });
            }
            return Ok(());
        };
        let p = &mut self.parts[i];
        let bad = |f: &str, e: serde_json::Error| format!("toolMetadata.{f} of `{}`: {e}", p.id);
        p.kind = ToolKind::deserialize(&m["kind"]).map_err(|e| bad("kind", e))?;
        p.timing = m
            .get("timing")
            .map(Deserialize::deserialize)
            .transpose()
            .map_err(|e| bad("timing", e))?;
        p.metadata = m
            .get("metadata")
            .map(ToolMetadata::deserialize)
            .transpose()
            .map_err(|e| bad("metadata", e))?;
        self.meta[i] = Some(m.clone());
        Ok(())
    }

    /// The contract error a failed call's chunk implies: `toolMetadata.error` with `message`.
    fn error_of(&self, i: usize, message: Option<&str>) -> ToolError {
        let from_meta = self.meta[i]
            .as_ref()
            .and_then(|m| m.get("error"))
            .and_then(|e| ToolError::deserialize(e).ok());
        match (from_meta, message) {
            (Some(mut e), Some(m)) => {
                m.clone_into(&mut e.message);
                e
            }
            (Some(e), None) => e,
            (None, m) => ToolError {
                message: m.unwrap_or("Denied").to_owned(),
                code: m.is_none().then(|| "declined".to_owned()),
                details: None,
            },
        }
    }

    /// Fold one chunk.
    pub fn chunk(&mut self, chunk: &UiChunk) -> Result<(), String> {
        match chunk {
            UiChunk::Start { .. } | UiChunk::Finish { .. } => {}
            UiChunk::ToolInputStart {
                tool_call_id,
                tool_name,
                title,
                tool_metadata,
                dynamic,
                ..
            } => {
                let i = self.slot(tool_call_id, tool_name);
                let p = &mut self.parts[i];
                p.name.clone_from(tool_name);
                if let Some(t) = title {
                    p.title.clone_from(t);
                }
                p.state = ToolState::Started;
                p.input = Value::Null;
                p.output = None;
                p.error = None;
                self.text[i].clear();
                self.apply_meta(i, tool_metadata.as_ref(), *dynamic)?;
            }
            UiChunk::ToolInputDelta {
                tool_call_id,
                input_text_delta,
            } => {
                let i = self.existing(tool_call_id, "tool-input-delta")?;
                self.text[i].push_str(input_text_delta);
                if let Ok(v) = serde_json::from_str::<Value>(&self.text[i]) {
                    self.parts[i].input = v;
                }
            }
            UiChunk::ToolInputAvailable {
                tool_call_id,
                tool_name,
                input,
                title,
                tool_metadata,
                dynamic,
                ..
            } => {
                let i = self.slot(tool_call_id, tool_name);
                let p = &mut self.parts[i];
                p.name.clone_from(tool_name);
                if let Some(t) = title {
                    p.title.clone_from(t);
                }
                p.state = ToolState::Running;
                p.input = input.clone();
                p.output = None;
                p.error = None;
                self.apply_meta(i, tool_metadata.as_ref(), *dynamic)?;
            }
            UiChunk::ToolInputError {
                tool_call_id,
                tool_name,
                input,
                error_text,
                title,
                tool_metadata,
                dynamic,
                ..
            } => {
                let i = self.slot(tool_call_id, tool_name);
                if let Some(t) = title {
                    self.parts[i].title.clone_from(t);
                }
                self.apply_meta(i, tool_metadata.as_ref(), *dynamic)?;
                let error = self.error_of(i, Some(error_text));
                let p = &mut self.parts[i];
                p.name.clone_from(tool_name);
                p.state = ToolState::Error;
                p.input = input.clone();
                p.output = None;
                p.error = Some(error);
            }
            UiChunk::ToolApprovalRequest {
                tool_call_id,
                reason,
                ..
            } => {
                let i = self.existing(tool_call_id, "tool-approval-request")?;
                let m = self.parts[i]
                    .metadata
                    .get_or_insert_with(ToolMetadata::default);
                m.extra
                    .entry(APPROVAL_REQUESTED)
                    .or_insert(Value::Bool(true));
                if let Some(r) = reason {
                    m.extra
                        .entry(APPROVAL_REASON)
                        .or_insert_with(|| Value::String(r.clone()));
                }
            }
            UiChunk::ToolOutputAvailable {
                tool_call_id,
                output,
                preliminary,
                tool_metadata,
                ..
            } => {
                let i = self.existing(tool_call_id, "tool-output-available")?;
                self.apply_meta(i, tool_metadata.as_ref(), None)?;
                let p = &mut self.parts[i];
                p.output = output.clone().filter(|o| !o.is_null());
                p.error = None;
                p.state = if *preliminary == Some(true) {
                    ToolState::Running
                } else {
                    ToolState::Complete
                };
            }
            UiChunk::ToolOutputError {
                tool_call_id,
                error_text,
                tool_metadata,
                ..
            } => {
                let i = self.existing(tool_call_id, "tool-output-error")?;
                self.apply_meta(i, tool_metadata.as_ref(), None)?;
                let error = self.error_of(i, Some(error_text));
                let p = &mut self.parts[i];
                p.output = None;
                p.error = Some(error);
                p.state = ToolState::Error;
            }
            UiChunk::ToolOutputDenied { tool_call_id } => {
                let i = self.existing(tool_call_id, "tool-output-denied")?;
                let error = self.error_of(i, None);
                let p = &mut self.parts[i];
                p.output = None;
                p.error = Some(error);
                p.state = ToolState::Error;
            }
        }
        Ok(())
    }

    /// The part of a call, as folded so far.
    pub fn get(&self, id: &str) -> Option<&NormalizedToolPart> {
        self.index.get(id).map(|&i| &self.parts[i])
    }

    /// The parts, in order of first appearance.
    pub fn parts(&self) -> &[NormalizedToolPart] {
        &self.parts
    }

    pub fn into_parts(self) -> Vec<NormalizedToolPart> {
        self.parts
    }
}

/// Fold a whole sequence of chunks.
pub fn fold_chunks(chunks: &[UiChunk]) -> Result<Vec<NormalizedToolPart>, FoldError> {
    let mut fold = AiSdkFold::new();
    for (index, c) in chunks.iter().enumerate() {
        fold.chunk(c)
            .map_err(|message| FoldError { index, message })?;
    }
    Ok(fold.into_parts())
}
