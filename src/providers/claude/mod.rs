//! Claude Code dialects: stream-json (`claude -p --output-format stream-json --verbose`, with or
//! without partial messages) and session transcripts (`~/.claude/projects/**.jsonl`). Both share
//! the block handling in [`session`]; each dialect file says which lines carry what.

mod session;
pub(crate) mod stream_json;
mod tools;
pub(crate) mod transcript;
mod wire;

use super::PartStore;
use crate::stream::{Dialect, Input};

pub(crate) fn normalize(dialect: Dialect, input: &Input<'_>, store: &mut PartStore) {
    let mut session = session::Session::default();
    for raw in &input.lines {
        let Some(text) = super::line_text(raw, store) else {
            continue;
        };
        match serde_json::from_str::<wire::Line<'_>>(&text) {
            Ok(line) => match dialect {
                Dialect::ClaudeTranscript => {
                    transcript::line(&mut session, raw.number, &line, store)
                }
                _ => stream_json::line(&mut session, raw.number, &line, store),
            },
            Err(err) => super::report_bad_json(raw, &err, store),
        }
    }
    session.finish(store);
}

/// The line types of Claude's stream-json and transcripts.
fn is_line_type(ty: &str) -> bool {
    matches!(
        ty,
        "system"
            | "assistant"
            | "user"
            | "result"
            | "stream_event"
            | "tool_progress"
            | "tool_use_summary"
            | "rate_limit_event"
            | "summary"
            | "file-history-snapshot"
            | "queue-operation"
            | "progress"
            | "attachment"
    )
}
