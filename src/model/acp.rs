//! The parts as real ACP (Agent Client Protocol) traffic: the JSON-RPC `session/update`
//! notifications a compliant agent sends for its tool calls (`tool_call` when a call first appears,
//! `tool_call_update` on each change), typed with the `agent-client-protocol-schema` crate, and the
//! fold of such frames back into parts.
//!
//! ACP has fields for the call's id, title, status, input and output; it has its own, coarser
//! `kind` and no field at all for the contract's `name`, `kind`, `error`, `metadata` or `timing`.
//! Those travel under `_meta` with one key, [`META_KEY`] (`"toolnorm"`), so the fold gives back
//! exactly the parts. `docs/acp.md` is the user documentation (the mapping tables, the `_meta`
//! layout); it and this file change together.

use std::collections::HashMap;

use agent_client_protocol_schema::v1 as acp;
use serde_json::{Map, Value};

use super::acp_meta::{apply_toolnorm_meta, kind_of_acp_kind, state_of_status};
use super::{NormalizedDocument, NormalizedToolPart, ToolKind, ToolState};

pub use super::acp_meta::META_KEY;
/// The JSON-RPC method of the frames.
pub const SESSION_UPDATE: &str = "session/update";
/// The session id of the frames when the document names none.
pub use super::wire::DEFAULT_SESSION_ID;

/// One frame: `{"jsonrpc":"2.0","method":"session/update","params":{sessionId, update}}`.
pub type AcpUpdateFrame = acp::JsonRpcMessage<acp::Notification<acp::SessionNotification>>;

/// The contract fields `_meta.toolnorm` carries, as its keys.
const META_FIELDS: [&str; 5] = ["name", "kind", "error", "metadata", "timing"];

/// ACP's `kind` for a contract kind (table in `docs/acp.md`). Lossy: the contract's own kind
/// travels in `_meta.toolnorm.kind`.
pub fn acp_kind(kind: ToolKind) -> acp::ToolKind {
    match kind {
        ToolKind::FileRead => acp::ToolKind::Read,
        ToolKind::FileWrite | ToolKind::FileEdit => acp::ToolKind::Edit,
        ToolKind::Bash => acp::ToolKind::Execute,
        ToolKind::WebSearch | ToolKind::Browser => acp::ToolKind::Fetch,
        ToolKind::Subagent | ToolKind::Todo => acp::ToolKind::Think,
        ToolKind::Mcp | ToolKind::Question | ToolKind::Unknown => acp::ToolKind::Other,
    }
}

/// ACP's status for a contract state: one to one.
pub fn acp_status(state: ToolState) -> acp::ToolCallStatus {
    match state {
        ToolState::Started => acp::ToolCallStatus::Pending,
        ToolState::Running => acp::ToolCallStatus::InProgress,
        ToolState::Complete => acp::ToolCallStatus::Completed,
        ToolState::Error => acp::ToolCallStatus::Failed,
    }
}

/// The contract state of an ACP status (the inverse of [`acp_status`]).
pub fn contract_state(status: acp::ToolCallStatus) -> ToolState {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().and_then(state_of_status))
        // The enum is non-exhaustive; a status added later is treated as still running.
        .unwrap_or(ToolState::Running)
}

/// The contract kind an ACP kind suggests when the agent sent no `_meta.toolnorm.kind`
/// ([`kind_of_acp_kind`]).
pub fn kind_from_acp(kind: acp::ToolKind) -> ToolKind {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(kind_of_acp_kind))
        .unwrap_or(ToolKind::Unknown)
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The `_meta` object of a frame: `{"toolnorm": {...}}` with the contract fields that changed
/// from `before` to `after` (all of them on a first appearance), and `unset` naming the fields
/// that went away.
fn meta(before: Option<&NormalizedToolPart>, after: &NormalizedToolPart) -> Option<acp::Meta> {
    let fields = |p: &NormalizedToolPart| -> [Option<Value>; 5] {
        [
            Some(Value::String(p.name.clone())),
            Some(to_value(&p.kind)),
            p.error.as_ref().map(to_value),
            p.metadata.as_ref().map(to_value),
            p.timing.as_ref().map(to_value),
        ]
    };
    let now = fields(after);
    let was = before.map(fields);
    let mut ours = Map::new();
    let mut unset = Vec::new();
    for (i, key) in META_FIELDS.iter().enumerate() {
        let old = was.as_ref().and_then(|w| w[i].as_ref());
        match (&now[i], old) {
            (Some(v), Some(o)) if v == o => {}
            (Some(v), _) => {
                ours.insert((*key).to_owned(), v.clone());
            }
            (None, Some(_)) => unset.push(Value::String((*key).to_owned())),
            (None, None) => {}
        }
    }
    if let Some(b) = before {
        if b.output.is_some() && after.output.is_none() {
            unset.push(Value::String("output".to_owned()));
        }
        if !b.input.is_null() && after.input.is_null() {
            unset.push(Value::String("input".to_owned()));
        }
    }
    if after.output == Some(Value::Null) && before.is_none_or(|b| b.output != Some(Value::Null)) {
        // `rawOutput: null` reads as "no output"; say that this one is a null output.
        ours.insert("outputNull".to_owned(), Value::Bool(true));
    }
    if !unset.is_empty() {
        ours.insert("unset".to_owned(), Value::Array(unset));
    }
    if ours.is_empty() {
        return None;
    }
    let mut m = acp::Meta::new();
    m.insert(META_KEY.to_owned(), Value::Object(ours));
    Some(m)
}

/// What a client shows of the call's result: the output as text, or the error's message.
fn display_content(part: &NormalizedToolPart) -> Vec<acp::ToolCallContent> {
    let text = match (&part.error, &part.output) {
        (Some(e), _) => e.message.clone(),
        (None, Some(Value::String(s))) => s.clone(),
        (None, Some(Value::Null)) | (None, None) => return Vec::new(),
        (None, Some(v)) => v.to_string(),
    };
    vec![acp::ToolCallContent::Content(acp::Content::new(
        acp::ContentBlock::Text(acp::TextContent::new(text)),
    ))]
}

/// The files a call touches, for a client's follow-along: the absolute paths its input names.
fn locations(part: &NormalizedToolPart) -> Vec<acp::ToolCallLocation> {
    const KEYS: [&str; 4] = ["file_path", "filePath", "path", "notebook_path"];
    let Some(obj) = part.input.as_object() else {
        return Vec::new();
    };
    KEYS.iter()
        .filter_map(|k| obj.get(*k).and_then(Value::as_str))
        .filter(|p| p.starts_with('/'))
        .map(acp::ToolCallLocation::new)
        .collect()
}

fn wrap(session_id: &str, update: acp::SessionUpdate) -> AcpUpdateFrame {
    acp::JsonRpcMessage::wrap(acp::Notification {
        method: SESSION_UPDATE.into(),
        params: Some(acp::SessionNotification::new(
            acp::SessionId::new(session_id),
            update,
        )),
    })
}

/// The frame for one change of one part, as a live agent sends it: a `tool_call` carrying the
/// whole part when `before` is `None` (its first appearance), else a `tool_call_update` carrying
/// the status and whatever changed since `before`. Folding the frames of a part's successive
/// snapshots with [`Fold`] gives back the last snapshot exactly.
pub fn part_update_frame(
    session_id: &str,
    before: Option<&NormalizedToolPart>,
    after: &NormalizedToolPart,
) -> AcpUpdateFrame {
    let terminal = after.state.is_terminal();
    let Some(before) = before else {
        let mut call = acp::ToolCall::new(
            acp::ToolCallId::new(after.id.as_str()),
            after.title.as_str(),
        )
        .kind(acp_kind(after.kind))
        .status(acp_status(after.state))
        .locations(locations(after))
        .raw_input((!after.input.is_null()).then(|| after.input.clone()))
        .raw_output(after.output.clone().filter(|v| !v.is_null()))
        .meta(meta(None, after));
        if terminal {
            call = call.content(display_content(after));
        }
        return wrap(session_id, acp::SessionUpdate::ToolCall(call));
    };
    let mut fields = acp::ToolCallUpdateFields::new().status(acp_status(after.state));
    if before.title != after.title {
        fields = fields.title(after.title.clone());
    }
    if before.kind != after.kind {
        fields = fields.kind(acp_kind(after.kind));
    }
    if before.input != after.input && !after.input.is_null() {
        fields = fields
            .raw_input(after.input.clone())
            .locations(locations(after));
    }
    if before.output != after.output {
        fields = fields.raw_output(after.output.clone().filter(|v| !v.is_null()));
    }
    if terminal && (!before.state.is_terminal() || before.output != after.output) {
        let content = display_content(after);
        if !content.is_empty() {
            fields = fields.content(content);
        }
    }
    let update = acp::ToolCallUpdate::new(acp::ToolCallId::new(after.id.as_str()), fields)
        .meta(meta(Some(before), after));
    wrap(session_id, acp::SessionUpdate::ToolCallUpdate(update))
}

pub use super::wire::document_session_id;

/// Every frame of a document, in the order of its `events` ([`super::wire::replay`]): a
/// `tool_call` at a part's first event, a `tool_call_update` at each later one. A part without
/// events (none is known) gets its `tool_call` after the others. Folding the frames gives back
/// `doc.parts`.
pub fn document_frames(doc: &NormalizedDocument) -> Vec<AcpUpdateFrame> {
    let session = document_session_id(doc);
    let mut shown: HashMap<String, NormalizedToolPart> = HashMap::new();
    super::wire::replay(doc)
        .into_iter()
        .map(|now| {
            let frame = part_update_frame(session, shown.get(&now.id), &now);
            shown.insert(now.id.clone(), now);
            frame
        })
        .collect()
}

/// Why a frame could not be folded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FoldError {
    #[error("`{0}` is not a session/update notification")]
    NotSessionUpdate(String),
    #[error("tool_call_update for `{0}`, which no tool_call announced")]
    UnknownCall(String),
    #[error("`_meta.{META_KEY}.{field}` of `{id}` does not read as the contract's: {reason}")]
    BadMeta {
        id: String,
        field: &'static str,
        reason: String,
    },
}

/// Frames folded back into parts, in order of first appearance. Where a frame has no
/// `_meta.toolnorm`, the contract's `name` is the title and its `kind` is [`kind_from_acp`].
#[derive(Debug, Default)]
pub struct Fold {
    parts: Vec<NormalizedToolPart>,
    index: HashMap<String, usize>,
}

impl Fold {
    pub fn new() -> Fold {
        Fold::default()
    }

    /// Fold one frame.
    pub fn frame(&mut self, frame: &AcpUpdateFrame) -> Result<(), FoldError> {
        let n = frame.inner();
        match &n.params {
            Some(params) if &*n.method == SESSION_UPDATE => self.update(&params.update),
            _ => Err(FoldError::NotSessionUpdate(n.method.to_string())),
        }
    }

    /// Fold one `session/update`'s update; updates that are not about tool calls are ignored.
    pub fn update(&mut self, update: &acp::SessionUpdate) -> Result<(), FoldError> {
        match update {
            acp::SessionUpdate::ToolCall(call) => self.tool_call(call),
            acp::SessionUpdate::ToolCallUpdate(u) => self.tool_call_update(u),
            _ => Ok(()),
        }
    }

    /// The part a `tool_call` announces (a repeated `tool_call` replaces it, as ACP says).
    pub fn tool_call(&mut self, call: &acp::ToolCall) -> Result<(), FoldError> {
        let id = call.tool_call_id.0.to_string();
        let mut part = NormalizedToolPart {
            id: id.clone(),
            name: call.title.clone(),
            kind: kind_from_acp(call.kind),
            title: call.title.clone(),
            input: call.raw_input.clone().unwrap_or(Value::Null),
            output: call.raw_output.clone(),
            error: None,
            state: contract_state(call.status),
            timing: None,
            metadata: None,
        };
        apply_meta(&mut part, call.meta.as_ref())?;
        match self.index.get(&id) {
            Some(&i) => self.parts[i] = part,
            None => {
                self.index.insert(id, self.parts.len());
                self.parts.push(part);
            }
        }
        Ok(())
    }

    /// Apply a `tool_call_update` to its part.
    pub fn tool_call_update(&mut self, u: &acp::ToolCallUpdate) -> Result<(), FoldError> {
        let id = u.tool_call_id.0.as_ref();
        let Some(&i) = self.index.get(id) else {
            return Err(FoldError::UnknownCall(id.to_owned()));
        };
        let part = &mut self.parts[i];
        let f = &u.fields;
        if let Some(title) = &f.title {
            part.title = title.clone();
        }
        if let Some(kind) = f.kind {
            // `_meta.toolnorm.kind`, applied below, wins over ACP's coarser kind.
            part.kind = kind_from_acp(kind);
        }
        if let Some(status) = f.status {
            part.state = contract_state(status);
        }
        if let Some(input) = &f.raw_input {
            part.input = input.clone();
        }
        if let Some(output) = &f.raw_output {
            part.output = Some(output.clone());
        }
        apply_meta(part, u.meta.as_ref())
    }

    /// The parts, in order of first appearance.
    pub fn parts(&self) -> &[NormalizedToolPart] {
        &self.parts
    }

    pub fn into_parts(self) -> Vec<NormalizedToolPart> {
        self.parts
    }
}

/// Apply `_meta.toolnorm` to a part.
fn apply_meta(part: &mut NormalizedToolPart, meta: Option<&acp::Meta>) -> Result<(), FoldError> {
    let Some(Value::Object(ours)) = meta.and_then(|m| m.get(META_KEY)) else {
        return Ok(());
    };
    apply_toolnorm_meta(part, ours).map_err(|e| FoldError::BadMeta {
        id: part.id.clone(),
        field: e.field,
        reason: e.reason,
    })
}

/// Fold a whole sequence of frames.
pub fn fold_frames(frames: &[AcpUpdateFrame]) -> Result<Vec<NormalizedToolPart>, FoldError> {
    let mut fold = Fold::new();
    for f in frames {
        fold.frame(f)?;
    }
    Ok(fold.into_parts())
}

#[cfg(test)]
#[path = "acp_tests.rs"]
mod tests;
