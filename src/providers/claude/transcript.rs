//! Session transcripts (`~/.claude/projects/<project>/<session>.jsonl` and `subagents/agent-*.jsonl`):
//! one line per content block (duplicates with new uuids), the line's own `cwd` and `timestamp`,
//! `isSidechain` subagent lines, `progress` lines whose `agent_progress` data embeds the
//! subagent's messages, and what was queued for the model while it worked: a background task's
//! `<task-notification>` is written as a `queue-operation` enqueue's `content`, a
//! `queued_command` attachment's `prompt` (when it comes during a turn) and the user message
//! that hands it to the model (when it starts one), in any of them or all.

use super::tracker::{Origin, Tracker};
use super::wire::{Content, Line};
use crate::model::ToolState;
use crate::providers::{LineNormalizer, NormalizeOptions, PartStore, PartUpdate};

/// The normalizer of a transcript; every line carries its own cwd.
pub(crate) fn new(_: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    super::Lines::boxed(line)
}

fn line(tracker: &mut Tracker, number: u32, line: &Line<'_>, store: &mut PartStore) {
    tracker.set_cwd(line.cwd.get());
    let sidechain = line.is_sidechain.is_true();
    // Old CLIs write subagent lines inline without naming their call: attribute them to the one
    // open Agent/Task call when there is exactly one.
    let inferred = if sidechain {
        tracker.sole_open_subagent(store)
    } else {
        None
    };
    let origin = Origin {
        line: number,
        timestamp: line.timestamp.get(),
        parent: inferred.as_deref(),
        sidechain,
    };
    match line.ty() {
        "assistant" => {
            if line.is_api_error_message.is_true() {
                return;
            }
            if let Some(msg) = line.message.get() {
                tracker.assistant(origin, msg, store);
            }
        }
        "user" => {
            if let Some(msg) = line.message.get() {
                tracker.user(origin, msg, line.structured_result(), store);
            }
        }
        "progress" => progress(tracker, number, line, store),
        // What was queued for the model while it worked: a task's notification among it.
        "queue-operation" if line.operation.get() == Some("enqueue") => {
            if let Some(text) = line.content.get() {
                tracker.notifications(number, text, store);
            }
        }
        "attachment" => {
            let Some(a) = line.attachment.get() else {
                return;
            };
            if a.ty.get() != Some("queued_command") {
                return;
            }
            match &a.prompt {
                Some(Content::Text(text)) => tracker.notifications(number, text, store),
                Some(blocks @ Content::Blocks(_)) => {
                    for b in blocks.blocks().filter(|b| b.ty() == "text") {
                        let text = b
                            .text
                            .filter(|r| r.get().contains("task-notification>"))
                            .and_then(|r| serde_json::from_str::<String>(r.get()).ok());
                        if let Some(text) = text {
                            tracker.notifications(number, &text, store);
                        }
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

fn progress(tracker: &mut Tracker, number: u32, line: &Line<'_>, store: &mut PartStore) {
    let Some(data) = line.data.get() else { return };
    match data.ty.get().unwrap_or("") {
        "agent_progress" => {
            let Some(embedded) = data.message.get() else {
                return;
            };
            let Some(msg) = embedded.message.get() else {
                return;
            };
            let origin = Origin {
                line: number,
                timestamp: embedded.timestamp.get().or(line.timestamp.get()),
                parent: line.parent_tool_use_id_camel.get(),
                sidechain: true,
            };
            match embedded.ty.get().unwrap_or("") {
                "assistant" => tracker.assistant(origin, msg, store),
                "user" => tracker.user(origin, msg, embedded.tool_use_result, store),
                _ => {}
            }
        }
        "bash_progress" => {
            // A command reporting progress is executing.
            let id = line
                .parent_tool_use_id_camel
                .get()
                .or(line.tool_use_id_camel.get());
            if let Some(id) = id.filter(|id| store.contains(id)) {
                store.upsert(
                    number,
                    PartUpdate {
                        state: Some(ToolState::Running),
                        ..PartUpdate::new(id)
                    },
                );
            }
        }
        _ => {}
    }
}

/// The fields only a transcript line has (camelCase; stream-json says `session_id`).
pub(crate) fn has_own_fields(p: &crate::providers::Probe<'_>) -> bool {
    p.has("sessionId") || p.has("parentUuid") || p.has("isSidechain")
}

/// Recognises a transcript line: a Claude line type with a transcript's own fields or types.
pub(crate) fn sniff(p: &crate::providers::Probe<'_>) -> bool {
    let ty = p.ty();
    // Qwen Code's session records wear a transcript's envelope with a `provenance` of their own.
    super::is_line_type(&ty)
        && !p.has("provenance")
        && (has_own_fields(p)
            || matches!(
                ty.as_ref(),
                "summary" | "file-history-snapshot" | "queue-operation" | "progress"
            ))
}
