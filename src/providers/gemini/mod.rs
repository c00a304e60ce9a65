//! Gemini CLI dialects: headless stream-json (`gemini -p … --output-format stream-json`;
//! `stream_json`), the json document (`--output-format json`; `json`) and the saved sessions
//! (`~/.gemini/tmp/<project>/chats/session-*.jsonl`; `session`). Their calls go through the
//! family's `tracker::Tracker` and `tools` table, which Qwen Code's dialects (`super::qwen`)
//! share with an explicit `tools::Family`.

pub(crate) mod json;
pub(crate) mod session;
pub(crate) mod stream_json;
pub(crate) mod tools;
pub(crate) mod tracker;
