//! The parts as the two wires most UIs read, beside ACP (`model::acp`, feature `acp`): the AI SDK UI message
//! stream ([`ai_sdk`], the `ai` package 7.x: `uiMessageChunkSchema`, `readUIMessageStream`) and
//! AG-UI 1.0 ([`ag_ui`], `@ag-ui/core`). Each wire has an emitter (a part's successive snapshots,
//! live, or a whole document, in), a fold (its frames back into parts) and a structural check of
//! a frame against the wire's official schema. Plain serde and serde_json, no I/O: the core.
//!
//! What each wire carries natively, what travels in its extension slot (the AI SDK's
//! `toolMetadata`, AG-UI's `metadata`) and what does not survive is the table of `docs/ui-wires.md`;
//! it and these files change together.

pub mod ag_ui;
pub mod ai_sdk;
mod ext;

use std::collections::HashMap;

use serde_json::Value;

use super::{NormalizedDocument, NormalizedToolPart, ToolState};

pub use ext::{EXT_KEY, ExtError};

/// The thread / message id the frames name when the document names no session.
pub const DEFAULT_SESSION_ID: &str = "toolnorm";

/// The SSE header that marks an AI SDK UI message stream (its value is [`AI_SDK_STREAM_VERSION`]).
pub const AI_SDK_STREAM_HEADER: &str = "x-vercel-ai-ui-message-stream";
/// The value of [`AI_SDK_STREAM_HEADER`] for the stream this module writes.
pub const AI_SDK_STREAM_VERSION: &str = "v1";
/// The line an AI SDK UI message stream ends with, after its last chunk.
pub const SSE_DONE: &str = "data: [DONE]\n\n";

/// One frame of a wire as a Server-Sent Event: `data: <JSON>` and a blank line. Both wires frame
/// their events this way (an AG-UI event's `type` is inside the JSON, not an SSE `event:` field).
pub fn sse_event(json: &str) -> String {
    let mut s = String::with_capacity(json.len() + 8);
    s.push_str("data: ");
    s.push_str(json);
    s.push_str("\n\n");
    s
}

/// The session a part names, if any.
pub(crate) fn session_of(part: &NormalizedToolPart) -> Option<&str> {
    part.metadata.as_ref().and_then(|m| m.session_id.as_deref())
}

/// The session id a document's frames use: the first session a part names, else
/// [`DEFAULT_SESSION_ID`].
pub fn document_session_id(doc: &NormalizedDocument) -> &str {
    doc.parts
        .iter()
        .find_map(session_of)
        .unwrap_or(DEFAULT_SESSION_ID)
}

/// The snapshot of `part` at one of its events: the state of that event; the result fields
/// (output, error, timing) only at its last event, since the document keeps final values only.
fn snapshot(part: &NormalizedToolPart, state: ToolState, last: bool) -> NormalizedToolPart {
    if last {
        return part.clone();
    }
    NormalizedToolPart {
        state,
        output: None,
        error: None,
        timing: None,
        ..part.clone()
    }
}

/// A document replayed as the successive snapshots a live stream would have shown, in the order
/// of its `events`: each part at each of its events (its final value at its last one), then the
/// parts that have no event, whole. What every wire's `document_*` emits from.
pub fn replay(doc: &NormalizedDocument) -> Vec<NormalizedToolPart> {
    let index: HashMap<&str, usize> = doc
        .parts
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id.as_str(), i))
        .collect();
    let mut remaining = vec![0usize; doc.parts.len()];
    for e in &doc.events {
        if let Some(&i) = index.get(e.part_id.as_str()) {
            remaining[i] += 1;
        }
    }
    let mut seen = vec![false; doc.parts.len()];
    let mut out = Vec::with_capacity(doc.events.len() + doc.parts.len());
    for e in &doc.events {
        let Some(&i) = index.get(e.part_id.as_str()) else {
            continue;
        };
        remaining[i] -= 1;
        seen[i] = true;
        out.push(snapshot(&doc.parts[i], e.state, remaining[i] == 0));
    }
    for (i, part) in doc.parts.iter().enumerate() {
        if !seen[i] {
            out.push(part.clone());
        }
    }
    out
}

/// A wire a UI reads, besides ACP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wire {
    /// The AI SDK UI message stream ([`ai_sdk`]).
    AiSdk,
    /// AG-UI 1.0 events ([`ag_ui`]).
    AgUi,
}

impl Wire {
    pub const ALL: [Wire; 2] = [Wire::AiSdk, Wire::AgUi];

    /// The wire's name, as `--emit` and the protocol say it: `ai-sdk`, `ag-ui`.
    pub fn as_str(self) -> &'static str {
        match self {
            Wire::AiSdk => "ai-sdk",
            Wire::AgUi => "ag-ui",
        }
    }

    pub fn parse(name: &str) -> Option<Wire> {
        Wire::ALL.into_iter().find(|w| w.as_str() == name)
    }
}

/// One frame of either wire (serialized as the frame itself).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum WireFrame {
    AiSdk(ai_sdk::UiChunk),
    AgUi(ag_ui::AgUiEvent),
}

impl WireFrame {
    /// The frame's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            WireFrame::AiSdk(c) => c.type_name(),
            WireFrame::AgUi(e) => e.type_name(),
        }
    }
}

/// The live emitter of a wire: the frames for each change of a part, and the ones that close the
/// stream. Feed it the parts of a streaming normalizer's updates
/// ([`crate::Update::part`]) as they come.
///
/// ```
/// use toolnorm::model::wire::{Wire, WireEmitter};
/// use toolnorm::{NormalizeOptions, Normalizer};
///
/// let mut n = Normalizer::new(NormalizeOptions::default())?;
/// let mut wire = WireEmitter::new(Wire::AiSdk);
/// let line = br#"{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#;
/// let mut frames = Vec::new();
/// for u in n.push_line(line)? {
///     if let Some(part) = u.part() {
///         frames.extend(wire.part(part));
///     }
/// }
/// frames.extend(wire.finish());
/// let types: Vec<&str> = frames.iter().map(|f| f.type_name()).collect();
/// assert_eq!(types, ["start", "tool-input-start", "tool-input-available", "finish"]);
/// # Ok::<(), toolnorm::dialects::NormalizeError>(())
/// ```
pub enum WireEmitter {
    AiSdk(ai_sdk::AiSdkEmitter),
    AgUi(Box<ag_ui::AgUiEmitter>),
}

impl WireEmitter {
    pub fn new(wire: Wire) -> WireEmitter {
        match wire {
            Wire::AiSdk => WireEmitter::AiSdk(ai_sdk::AiSdkEmitter::new()),
            Wire::AgUi => WireEmitter::AgUi(Box::new(ag_ui::AgUiEmitter::new())),
        }
    }

    /// The frames for one change of a part.
    pub fn part(&mut self, part: &NormalizedToolPart) -> Vec<WireFrame> {
        match self {
            WireEmitter::AiSdk(e) => e.part(part).into_iter().map(WireFrame::AiSdk).collect(),
            WireEmitter::AgUi(e) => e.part(part).into_iter().map(WireFrame::AgUi).collect(),
        }
    }

    /// The frames that close the stream.
    pub fn finish(&mut self) -> Vec<WireFrame> {
        match self {
            WireEmitter::AiSdk(e) => e.finish().into_iter().map(WireFrame::AiSdk).collect(),
            WireEmitter::AgUi(e) => e.finish().into_iter().map(WireFrame::AgUi).collect(),
        }
    }
}

/// Every frame of a document on a wire ([`ai_sdk::document_chunks`], [`ag_ui::document_events`]).
pub fn document_frames(wire: Wire, doc: &NormalizedDocument) -> Vec<WireFrame> {
    match wire {
        Wire::AiSdk => ai_sdk::document_chunks(doc)
            .into_iter()
            .map(WireFrame::AiSdk)
            .collect(),
        Wire::AgUi => ag_ui::document_events(doc)
            .into_iter()
            .map(WireFrame::AgUi)
            .collect(),
    }
}

/// The JSON text of a value (for AG-UI's `TOOL_CALL_ARGS.delta` and the AI SDK's
/// `tool-input-delta`).
pub(crate) fn json_text(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A wire's fold, frame by frame: what the `ai-sdk` and `ag-ui` dialects drive.
pub trait WireFold: Default + Send {
    type Frame;
    /// Read one JSON value as a frame: `Ok(None)` for a frame the wire has that says nothing of
    /// tool calls, `Err` for what the wire's schema rejects.
    fn read(value: &Value) -> Result<Option<Self::Frame>, String>;
    /// Fold one frame; `Err` for a frame the wire's consumer rejects here (a call no frame
    /// opened).
    fn fold(&mut self, frame: &Self::Frame) -> Result<(), String>;
    /// The call a frame is about.
    fn call_of(frame: &Self::Frame) -> Option<&str>;
    /// The part of a call, as folded so far.
    fn part(&self, id: &str) -> Option<&NormalizedToolPart>;
}

impl WireFold for ai_sdk::AiSdkFold {
    type Frame = ai_sdk::UiChunk;
    fn read(value: &Value) -> Result<Option<Self::Frame>, String> {
        ai_sdk::read_chunk(value)
    }
    fn fold(&mut self, frame: &Self::Frame) -> Result<(), String> {
        self.chunk(frame)
    }
    fn call_of(frame: &Self::Frame) -> Option<&str> {
        frame.tool_call_id()
    }
    fn part(&self, id: &str) -> Option<&NormalizedToolPart> {
        self.get(id)
    }
}

impl WireFold for ag_ui::AgUiFold {
    type Frame = ag_ui::AgUiEvent;
    fn read(value: &Value) -> Result<Option<Self::Frame>, String> {
        ag_ui::read_event(value)
    }
    fn fold(&mut self, frame: &Self::Frame) -> Result<(), String> {
        self.event(frame)
    }
    fn call_of(frame: &Self::Frame) -> Option<&str> {
        frame.tool_call_id()
    }
    fn part(&self, id: &str) -> Option<&NormalizedToolPart> {
        self.get(id)
    }
}

/// Why a frame could not be folded: which frame (0-based in the sequence folded) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoldError {
    /// 0-based index of the frame in the sequence folded.
    pub index: usize,
    pub message: String,
}

impl std::fmt::Display for FoldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "frame {}: {}", self.index + 1, self.message)
    }
}

impl std::error::Error for FoldError {}

#[cfg(test)]
mod tests;
