//! `claude -p --output-format stream-json --verbose` lines: `system` (init cwd, `task_*`),
//! `assistant` / `user` (with `parent_tool_use_id` for subagent lines), `stream_event` (partial
//! messages), `tool_progress` and the final `result` (permission denials, error subtypes).

use super::tracker::{Origin, TaskLine, Tracker};
use super::wire::Line;
use crate::model::ToolState;
use crate::providers::{LineNormalizer, NormalizeOptions, PartStore, PartUpdate};

/// The normalizer of a stream-json stream; its cwd comes from the `system` `init` line.
pub(crate) fn new(_: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    super::Lines::boxed(line)
}

fn line(tracker: &mut Tracker, number: u32, line: &Line<'_>, store: &mut PartStore) {
    let parent = line.parent_tool_use_id.get();
    let origin = Origin {
        line: number,
        timestamp: line.timestamp.get(),
        parent,
        sidechain: parent.is_some(),
    };
    match line.ty() {
        "assistant" => {
            if let Some(msg) = line.message.get() {
                tracker.assistant(origin, msg, store);
            }
        }
        "user" => {
            if let Some(msg) = line.message.get() {
                tracker.user(origin, msg, line.structured_result(), store);
            }
        }
        "system" => system(tracker, number, line, store),
        "stream_event" => {
            let Some(ev) = line.event.get() else { return };
            let index = ev.index.millis().unwrap_or(0);
            match ev.ty.get().unwrap_or("") {
                "message_start" => tracker.stream_message_start(parent),
                "content_block_start" => {
                    if let Some(block) = ev.content_block.get() {
                        tracker.stream_block_start(origin, index, block, store);
                    }
                }
                "content_block_delta" => {
                    if let Some(d) = ev.delta.get()
                        && d.ty.get() == Some("input_json_delta")
                    {
                        tracker.stream_input_delta(
                            parent,
                            index,
                            d.partial_json.get().unwrap_or(""),
                        );
                    }
                }
                "content_block_stop" => tracker.stream_block_stop(origin, index, store),
                _ => {}
            }
        }
        "tool_progress" => {
            // A tool reporting progress is executing.
            if let Some(id) = line.tool_use_id.get().filter(|id| store.contains(id)) {
                store.upsert(
                    number,
                    PartUpdate {
                        state: Some(ToolState::Running),
                        ..PartUpdate::new(id)
                    },
                );
            }
        }
        "result" => result(tracker, number, line, store),
        _ => {}
    }
}

fn system(tracker: &mut Tracker, number: u32, line: &Line<'_>, store: &mut PartStore) {
    match line.subtype() {
        "init" => tracker.set_cwd(line.cwd.get()),
        sub @ ("task_started" | "task_progress" | "task_updated" | "task_notification") => {
            let patch = line.patch.get();
            let status = line
                .status
                .get()
                .or_else(|| patch.and_then(|p| p.status.get()));
            let duration = line
                .usage
                .get()
                .and_then(|u| u.duration_ms.millis())
                .or(line.duration_ms.millis());
            let task = TaskLine {
                subtype: sub,
                task_id: line.task_id.get(),
                tool_use_id: line.tool_use_id.get(),
                status,
                error: patch.and_then(|p| p.error.get()),
                summary: line.summary.get(),
                report: None,
                duration_ms: duration,
                backgrounded: line.is_backgrounded.is_true(),
                task_type: line.task_type.get(),
            };
            tracker.task(number, &task, store);
        }
        _ => {}
    }
}

fn result(tracker: &mut Tracker, number: u32, line: &Line<'_>, store: &mut PartStore) {
    // Only the top-level result ends the turn; a subagent's must not.
    if line.parent_tool_use_id.get().is_some() {
        return;
    }
    for denial in line
        .permission_denials
        .iter()
        .flatten()
        .filter_map(|d| d.get())
    {
        if let Some(id) = denial.tool_use_id.get() {
            tracker.permission_denied(number, id, denial.tool_name.get(), denial.tool_input, store);
        }
    }
    // The turn's open calls end with it; background work goes on until its task ends.
    match line.subtype() {
        "error_during_execution" => {
            tracker.end_turn(
                number,
                "The turn was interrupted before the tool finished",
                "interrupted",
                store,
            );
        }
        sub if sub.starts_with("error") => {
            tracker.end_turn(
                number,
                &format!("The turn ended ({sub}) before the tool finished"),
                "aborted",
                store,
            );
        }
        _ => {}
    }
}

/// Recognises a stream-json line: a Claude line type with a session id, a parent tool use id or a
/// message, and none of a transcript's own fields (a transcript's message lines would otherwise
/// read as both, and detection holds a line two dialects accept).
pub(crate) fn sniff(p: &crate::providers::Probe<'_>) -> bool {
    super::is_line_type(&p.ty())
        && (p.has("session_id") || p.has("parent_tool_use_id") || p.has("message"))
        && !super::transcript::has_own_fields(p)
        // Qwen Code's init line, in Claude's shape, names its own CLI.
        && !p.has("qwen_code_version")
}
