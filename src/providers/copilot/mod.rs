//! GitHub Copilot CLI: its session events, as `copilot -p PROMPT --output-format json` prints them
//! (`json`: one event per line, the ephemeral ones too — streamed shell output, partial results,
//! MCP server status — and a closing `result` line) and as it keeps them in
//! `~/.copilot/session-state/<session id>/events.jsonl` (`session`: the events that are not
//! ephemeral, from `session.start` to `session.shutdown`). Every event is `{type, data, id,
//! timestamp, parentId}`, a subagent's with its `agentId`; both dialects feed the same
//! `tracker::Tracker`, which names and titles calls through `tools`.

pub(crate) mod json;
pub(crate) mod session;
mod tools;
mod tracker;
