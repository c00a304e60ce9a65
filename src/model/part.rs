//! `NormalizedToolPart` exactly as the contract's TypeScript declares it (camelCase, optional fields
//! omitted rather than `null`).

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
#[cfg(feature = "schema")]
use ts_rs::TS;

/// Lifecycle state of a tool call. The order of the variants is the order a call moves through;
/// `Complete` and `Error` are both terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[serde(rename_all = "lowercase")]
pub enum ToolState {
    Started,
    Running,
    Complete,
    Error,
}

impl ToolState {
    /// Position in the lifecycle: started 0, running 1, complete/error 2. A state may only move to a
    /// higher rank.
    pub fn rank(self) -> u8 {
        match self {
            ToolState::Started => 0,
            ToolState::Running => 1,
            ToolState::Complete | ToolState::Error => 2,
        }
    }

    pub fn is_terminal(self) -> bool {
        self.rank() == 2
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ToolState::Started => "started",
            ToolState::Running => "running",
            ToolState::Complete => "complete",
            ToolState::Error => "error",
        }
    }
}

/// The UI's small taxonomy for icons and grouping. Not the provider's tool name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    WebSearch,
    Browser,
    FileRead,
    FileWrite,
    FileEdit,
    Bash,
    Subagent,
    Mcp,
    Question,
    Todo,
    Unknown,
}

impl ToolKind {
    pub const ALL: [ToolKind; 11] = [
        ToolKind::WebSearch,
        ToolKind::Browser,
        ToolKind::FileRead,
        ToolKind::FileWrite,
        ToolKind::FileEdit,
        ToolKind::Bash,
        ToolKind::Subagent,
        ToolKind::Mcp,
        ToolKind::Question,
        ToolKind::Todo,
        ToolKind::Unknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::WebSearch => "web_search",
            ToolKind::Browser => "browser",
            ToolKind::FileRead => "file_read",
            ToolKind::FileWrite => "file_write",
            ToolKind::FileEdit => "file_edit",
            ToolKind::Bash => "bash",
            ToolKind::Subagent => "subagent",
            ToolKind::Mcp => "mcp",
            ToolKind::Question => "question",
            ToolKind::Todo => "todo",
            ToolKind::Unknown => "unknown",
        }
    }
}

/// Failure data: only present when `state` is `error`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[cfg_attr(feature = "schema", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ToolError {
    /// One human line saying what went wrong.
    pub message: String,
    /// Machine code: a shell exit code ("1"), "permission_denied", "interrupted", "declined", ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The full failure payload (command output, provider error object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// A timestamp as the provider gave it: an RFC 3339 string or epoch milliseconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[serde(untagged)]
pub enum TimeValue {
    Millis(#[cfg_attr(feature = "schema", ts(type = "number"))] i64),
    Text(String),
}

/// Timing taken from the source only; never invented.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[cfg_attr(feature = "schema", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct Timing {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<TimeValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<TimeValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", ts(type = "number"))]
    pub elapsed_ms: Option<u64>,
}

impl Timing {
    pub fn is_empty(&self) -> bool {
        self.started_at.is_none() && self.completed_at.is_none() && self.elapsed_ms.is_none()
    }
}

/// MCP identity of a call: the server and the tool without any prefix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
pub struct McpRef {
    pub server: String,
    pub tool: String,
}

/// An attachment the result carried (image, file). Never the bytes themselves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[cfg_attr(feature = "schema", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// Size in bytes of the encoded payload as it appeared in the stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", ts(type = "number"))]
    pub size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
}

/// Provider detail the UI may use later (contract rule 8), bounded (rule 9): no raw events, no
/// copies of the output.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[cfg_attr(feature = "schema", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ToolMetadata {
    /// The provider's raw item or block type (`tool_use`, `commandExecution`, `function_call`, `tool`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpRef>,
    /// Codex action (web search action, command actions) as the provider typed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Value>,
    /// Claude task id of a subagent / background task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Claude: the tool_use id of the Agent/Task call this call ran inside.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_tool_use_id: Option<String>,
    /// OpenCode: the child session a `task` spawned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_session_id: Option<String>,
    /// The session (or thread) the call belongs to, when the stream mixes several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachments: Option<Vec<Attachment>>,
    /// The output was cut by the provider (or by toolnorm's bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// Shell exit code, also on success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", ts(type = "number"))]
    pub exit_code: Option<i64>,
    /// Anything else provider-specific and small.
    #[serde(default, flatten, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

impl ToolMetadata {
    pub fn is_empty(&self) -> bool {
        *self == ToolMetadata::default()
    }
}

/// One tool call, as the UI renders it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema, TS))]
#[cfg_attr(feature = "schema", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct NormalizedToolPart {
    /// Stable for the whole lifecycle (contract rule 1).
    pub id: String,
    /// Canonical machine-ish name: `Bash`, `Read`, `webSearch`, `browser_navigate`.
    pub name: String,
    pub kind: ToolKind,
    /// The human line shown in the UI.
    pub title: String,
    /// Provider args, normalized only enough to be inspectable.
    pub input: Value,
    /// Successful result only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// Failure only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    pub state: ToolState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ToolMetadata>,
}
