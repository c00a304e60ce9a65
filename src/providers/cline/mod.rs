//! Cline's CLI (`cline` on npm, 3.0): the events `cline --json PROMPT` prints (`json`: one
//! `agent_event`, `hook_event` or `run_result` a line) and the task file it saves for each
//! session (`task`: `~/.cline/data/sessions/<id>/<id>.messages.json`, the conversation as
//! Anthropic-style messages). `cline --acp` speaks ACP, read by the `acp` provider (which asks `tools` here, `acp/cline.rs`). Both dialects
//! name and title calls through `tools`.

pub(crate) mod json;
pub(crate) mod task;
pub(crate) mod tools;
