//! OpenCode dialects: the `/event` and `/global/event` SSE stream (`events`), `opencode run
//! --format json` (`run`) and `opencode export` (`export`). All three carry the same `ToolPart`
//! snapshots (`wire`); the dialect files only unwrap their envelopes and hand every tool part to
//! the `tracker::Tracker`, which names and titles it through `tools`. CLIs built on OpenCode (Kilo)
//! write the same formats: their dialects are these normalizers with a `tools::Fork` naming the
//! tools they add.

pub(crate) mod events;
pub(crate) mod export;
pub(crate) mod run;
pub(crate) mod tools;
mod tracker;
mod wire;
