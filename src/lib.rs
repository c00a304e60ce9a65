//! toolnorm: a fixture recorder and conformance harness for tool-call normalization across coding
//! agents (Claude Code, Codex, OpenCode), and the normalizers themselves as a library.
//!
//! The core — [`stream`], [`model`], [`text`], [`providers`], [`dialects`] and the streaming
//! [`normalizer`] — is pure and does no I/O. [`Normalizer`] takes an agent's raw stream one line
//! at a time and hands out the [`Update`]s each line causes; [`normalize`] is the batch path, a
//! loop over it.
//!
//! ```
//! use toolnorm::{NormalizeOptions, Normalizer, ToolState, Update};
//!
//! let stream = [
//!     r#"{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"cargo test","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
//!     r#"{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"cargo test","aggregated_output":"ok\n","exit_code":0,"status":"completed"}}"#,
//! ];
//! let mut n = Normalizer::new(NormalizeOptions::default())?;
//! let mut seen = Vec::new();
//! for line in stream {
//!     seen.extend(n.push_line(line.as_bytes())?);
//! }
//! seen.extend(n.finish()?);
//! let last = seen.iter().rev().find_map(|u| match u {
//!     Update::Part { part, .. } => Some(part),
//!     _ => None,
//! });
//! assert_eq!(last.map(|p| (p.title.as_str(), p.state)), Some(("Running cargo test", ToolState::Complete)));
//! # Ok::<(), toolnorm::dialects::NormalizeError>(())
//! ```
//!
//! ## Features
//!
//! - `cli` (default): the `toolnorm` command and the shells around the core — `cli`, `corpus`
//!   (fixtures and the recorder), `rules` and `compare` (the conformance checks), `verify` (the
//!   gate), `report`, `scenario`, `protocol`.
//! - `https-pages` (off by default): the HTTPS page server of `scenario run` (Claude Code's WebFetch
//!   fetches only https), with rustls, ring and rcgen; the npm binaries leave it out.
//! - `schema` (in `cli`): JSON Schema and TypeScript derives on the contract's types.
//! - `acp` (in `cli`): the parts as typed ACP frames (`model::acp`), with the official schema crate.
//!
//! The legacy views (`model::legacy_parts`, `model::acp_frames`) are plain serde, in the core.
//!
//! With `default-features = false` the crate is the core alone, with serde and serde_json as its
//! only dependencies.

#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod compare;
#[cfg(feature = "cli")]
pub mod corpus;
pub mod dialects;
pub(crate) mod hash;
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
pub mod timestamp;
#[cfg(feature = "cli")]
pub mod verify;

pub use model::{NormalizedDocument, NormalizedToolPart, ToolKind, ToolState};
pub use normalizer::normalize;
pub use normalizer::{DocumentBuilder, Normalizer, Update, Updates};
pub use providers::NormalizeOptions;
pub use stream::{Dialect, Input, Provider};
