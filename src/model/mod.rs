//! The contract's types: `NormalizedToolPart` and friends, the normalized output document, and the
//! derived views (ACP frames, legacy UI parts; with the `schema` feature, as their derives are).
//! Pure data, no I/O.

#[cfg(feature = "acp")]
pub mod acp;
pub mod acp_meta;
mod document;
mod part;
#[cfg(feature = "schema")]
mod typescript;
#[cfg(feature = "schema")]
mod views;

pub use document::{Diagnostic, DiagnosticLevel, NormalizedDocument, PartEvent, SCHEMA_VERSION};
pub use part::{
    Attachment, McpRef, NormalizedToolPart, TimeValue, Timing, ToolError, ToolKind, ToolMetadata,
    ToolState,
};
#[cfg(feature = "schema")]
pub use typescript::declarations as typescript_declarations;
#[cfg(feature = "schema")]
pub use views::{AcpFrame, LegacyState, LegacyToolPart, acp_frames, legacy_parts};
