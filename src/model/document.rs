//! The normalized output document of one fixture: parts, lifecycle events and diagnostics.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(feature = "schema")]
use ts_rs::TS;

use super::{NormalizedToolPart, ToolState};

/// Version of the normalized output document. Bump it whenever the shape of the document changes
/// in a way consumers must know about.
///
/// - 1: first version.
pub const SCHEMA_VERSION: u32 = 1;

/// One change to a part: which raw line caused it and the state the part is in afterwards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[serde(rename_all = "camelCase")]
pub struct PartEvent {
    /// 1-based line of the raw stream.
    pub line: u32,
    pub part_id: String,
    pub state: ToolState,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[serde(rename_all = "lowercase")]
pub enum DiagnosticLevel {
    /// Something was skipped that a normalizer should know about (unknown event type).
    Info,
    /// Input that could not be normalized (bad JSON, result without a call).
    Warning,
    /// The stream itself is broken (truncated, undecodable).
    Error,
}

/// What could not be normalized, with the raw line it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// 1-based raw line; 0 when it concerns the whole stream.
    pub line: u32,
    pub level: DiagnosticLevel,
    pub message: String,
}

/// The normalized output of one raw stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[serde(rename_all = "camelCase")]
pub struct NormalizedDocument {
    pub schema_version: u32,
    pub provider: String,
    pub dialect: String,
    /// Final state of every tool call, in order of first appearance.
    pub parts: Vec<NormalizedToolPart>,
    pub events: Vec<PartEvent>,
    pub diagnostics: Vec<Diagnostic>,
}
