//! The normalizers, through the library (in the integration test binary, `tests/integration.rs`).
//! The output on the repository's corpus is frozen in one place only, `expected/` (checked by
//! `toolnorm verify`); here the corpus (`corpus/<provider>/`, read with the library) is held to
//! properties that freeze nothing, and small hand-written streams pin the edge cases of each wire
//! format.

mod acp;
mod agents;
mod claude;
mod codex;
mod corpus;
mod drift;
mod engine_example;
mod fuzz_regressions;
mod gemini;
mod opencode;
mod prefixes;
mod samples;
mod schema_check;
mod streaming;
mod update_schema;
mod wires;
