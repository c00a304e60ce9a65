//! toolnorm: a fixture recorder and conformance harness for tool-call normalization across coding
//! agents (Claude Code, Codex, OpenCode).
//!
//! The core — [`stream`], [`model`], [`providers`], [`rules`], [`dialects`], [`compare`] — is
//! pure and does no I/O.
//! The shells around it — [`cli`], [`corpus`] I/O and the recorder, [`report`] writers,
//! [`scenario`] — read and write files, processes and sockets.

#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod compare;
#[cfg(feature = "cli")]
pub mod corpus;
pub mod dialects;
pub mod model;
pub mod normalizer;
#[cfg(feature = "cli")]
pub mod protocol;
pub mod providers;
#[cfg(feature = "cli")]
pub mod report;
#[cfg(feature = "cli")]
pub mod rules;
#[cfg(feature = "cli")]
pub mod scenario;
pub mod stream;
pub mod text;
#[cfg(feature = "cli")]
pub mod verify;

pub use dialects::normalize;
pub use model::{NormalizedDocument, NormalizedToolPart, ToolKind, ToolState};
pub use normalizer::{DocumentBuilder, Normalizer, Update, Updates};
pub use providers::NormalizeOptions;
pub use stream::{Dialect, Input, Provider};
