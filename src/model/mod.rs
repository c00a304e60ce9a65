//! The contract's types: `NormalizedToolPart` and friends, the normalized output document, and the
//! derived views (flat ACP frames, legacy UI parts; the typed ACP frames with the `acp` feature).
//! Pure data, no I/O.

#[cfg(feature = "acp")]
pub mod acp;
pub mod acp_meta;
mod document;
mod part;
#[cfg(feature = "schema")]
mod typescript;
mod views;
pub mod wire;

pub use document::{Diagnostic, DiagnosticLevel, NormalizedDocument, PartEvent, SCHEMA_VERSION};
pub use part::{
    Attachment, McpRef, NormalizedToolPart, TimeValue, Timing, ToolError, ToolKind, ToolMetadata,
    ToolState,
};
#[cfg(feature = "schema")]
pub use typescript::declarations as typescript_declarations;
pub use views::{AcpFrame, LegacyState, LegacyToolPart, acp_frames, legacy_parts};
