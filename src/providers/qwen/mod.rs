//! Qwen Code dialects. Qwen Code is a fork of Gemini CLI that went its own way on the wire: its
//! headless stream-json (`qwen -p … --output-format stream-json`; `stream_json`) takes Claude
//! Code's shape (`system` / `assistant` / `user` / `result` lines, `tool_use` and
//! `tool_result` blocks), its `--output-format json` is the same messages as one JSON array
//! (`json`), and its saved sessions (`~/.qwen/projects/<project>/chats/<id>.jsonl`; `session`)
//! wrap Gemini's `functionCall` / `functionResponse` parts in a Claude-transcript-like
//! envelope. What they share with Gemini CLI — the tool names and their parameters, the call
//! to part mapping — is `super::gemini::tools` and `super::gemini::tracker` with
//! `Family::Qwen`; where the fork differs, the table says so.

pub(crate) mod json;
pub(crate) mod session;
pub(crate) mod stream_json;
