//! ACP (Agent Client Protocol) traffic: the JSON-RPC messages between an editor and an ACP agent
//! (`stdio`), as the proxy recorder captures them, both directions. The dialect file only
//! reads lines; `tracker::Tracker` follows requests to their responses and tool calls through
//! their updates, and `tools` derives a part's fields from ACP's own where the agent sent no
//! `_meta.toolnorm`.

mod cline;
mod kimi;
mod openhands;
pub(crate) mod stdio;
pub(crate) mod tools;
mod tracker;
pub(crate) mod vibe;
mod wire;
