//! Views derived from the parts: the ACP frames the engine emits on the compatibility path, and
//! the legacy UI `ToolPart` with its old `calling / output-available / output-error` states. Plain
//! serde, so in the core (the JavaScript and Python packages hand them out); their JSON Schema and
//! TypeScript derives come with the `schema` feature.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
#[cfg(feature = "schema")]
use ts_rs::TS;

use super::{NormalizedToolPart, Timing, ToolError, ToolKind, ToolMetadata, ToolState};

/// The UI's pre-rename state names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[serde(rename_all = "kebab-case")]
pub enum LegacyState {
    Calling,
    OutputAvailable,
    OutputError,
}

impl From<ToolState> for LegacyState {
    /// Total by construction: every new state has exactly one legacy name.
    fn from(state: ToolState) -> Self {
        match state {
            ToolState::Started | ToolState::Running => LegacyState::Calling,
            ToolState::Complete => LegacyState::OutputAvailable,
            ToolState::Error => LegacyState::OutputError,
        }
    }
}

/// An ACP-style tool call frame (contract "Compatibility path", step 2). Every field is always
/// present so a consumer never has to guess: `rawOutput` and `error` are `null` when absent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[serde(rename_all = "camelCase")]
pub struct AcpFrame {
    pub tool_call_id: String,
    pub tool_name: String,
    pub kind: ToolKind,
    pub title: String,
    pub raw_input: Value,
    pub raw_output: Option<Value>,
    pub error: Option<ToolError>,
    pub metadata: ToolMetadata,
    pub timing: Timing,
    pub status: LegacyState,
}

impl From<&NormalizedToolPart> for AcpFrame {
    fn from(part: &NormalizedToolPart) -> Self {
        AcpFrame {
            tool_call_id: part.id.clone(),
            tool_name: part.name.clone(),
            kind: part.kind,
            title: part.title.clone(),
            raw_input: part.input.clone(),
            raw_output: part.output.clone(),
            error: part.error.clone(),
            metadata: part.metadata.clone().unwrap_or_default(),
            timing: part.timing.clone().unwrap_or_default(),
            status: part.state.into(),
        }
    }
}

/// The UI's existing `ToolPart`, fed from the new fields while the renderer still speaks the old
/// state names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct LegacyToolPart {
    pub tool_call_id: String,
    pub tool_name: String,
    pub title: String,
    pub state: LegacyState,
    pub input: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_text: Option<String>,
}

impl LegacyToolPart {
    /// The legacy state and `errorText` of `part`, as the legacy view maps them, without a copy
    /// of the part's input and output.
    pub fn state_of(part: &NormalizedToolPart) -> (LegacyState, Option<&str>) {
        (
            part.state.into(),
            part.error.as_ref().map(|e| e.message.as_str()),
        )
    }
}

impl From<&NormalizedToolPart> for LegacyToolPart {
    fn from(part: &NormalizedToolPart) -> Self {
        let (state, error_text) = LegacyToolPart::state_of(part);
        LegacyToolPart {
            tool_call_id: part.id.clone(),
            tool_name: part.name.clone(),
            title: part.title.clone(),
            state,
            input: part.input.clone(),
            output: part.output.clone(),
            error_text: error_text.map(str::to_owned),
        }
    }
}

/// The flat ACP-style frames of the compatibility path (`toolnorm normalize --emit acp-legacy`).
pub fn acp_frames(parts: &[NormalizedToolPart]) -> Vec<AcpFrame> {
    parts.iter().map(AcpFrame::from).collect()
}

/// The legacy UI parts (`toolnorm normalize --emit legacy`).
///
/// ```
/// use toolnorm::model::{LegacyState, legacy_parts};
/// use toolnorm::{Input, NormalizeOptions, normalize};
///
/// let raw = br#"{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"ls","aggregated_output":"a\n","exit_code":0,"status":"completed"}}"#;
/// let doc = normalize(&Input::from_bytes(raw), NormalizeOptions::default())?;
/// let legacy = legacy_parts(&doc.parts);
/// assert_eq!((legacy[0].tool_call_id.as_str(), legacy[0].state), ("i1", LegacyState::OutputAvailable));
/// # Ok::<(), toolnorm::dialects::NormalizeError>(())
/// ```
pub fn legacy_parts(parts: &[NormalizedToolPart]) -> Vec<LegacyToolPart> {
    parts.iter().map(LegacyToolPart::from).collect()
}
