//! toolnorm: a fixture recorder and conformance harness for tool-call normalization across coding
//! agents (Claude Code, Codex, OpenCode).
//!
//! The core — [`stream`], [`model`], [`providers`], [`rules`], [`dialects`], [`compare`] — is
//! pure and does no I/O.
//! The shells around it — [`cli`], [`corpus`] I/O and the recorder, [`report`] writers,
//! [`scenario`] — read and write files, processes and sockets.

pub mod cli;
pub mod compare;
pub mod corpus;
pub mod dialects;
pub mod model;
pub mod protocol;
pub mod providers;
pub mod report;
pub mod rules;
pub mod scenario;
pub mod stream;
pub mod text;
pub mod verify;

pub use dialects::normalize;
pub use model::{NormalizedDocument, NormalizedToolPart, ToolKind, ToolState};
pub use providers::NormalizeOptions;
pub use stream::{Dialect, Input, Provider};
