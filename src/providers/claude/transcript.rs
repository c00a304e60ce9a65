//! Session transcripts (`~/.claude/projects/<project>/<session>.jsonl` and `subagents/agent-*.jsonl`):
//! one line per content block (duplicates with new uuids), the line's own `cwd` and `timestamp`,
//! `isSidechain` subagent lines, and `progress` lines whose `agent_progress` data embeds the
//! subagent's messages.

use super::tracker::{Origin, Tracker};
use super::wire::Line;
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
    super::is_line_type(&ty)
        && (has_own_fields(p)
            || matches!(
                ty.as_ref(),
                "summary" | "file-history-snapshot" | "queue-operation" | "progress"
            ))
}
