//! Codex tool builders, written once for every dialect: a call's name, kind, title and input, and
//! its outcome. `<tool>_update` describes a call from neutral pieces (a [`Command`], a patch's
//! changes, an MCP server and tool), `<tool>_item` builds it from a thread item with its outcome,
//! `<tool>_outcome` settles a described call, and [`function_call`] maps the model-facing tool
//! names of rollout `function_call` items onto the same builders. One file per tool family.

mod agents;
mod command;
mod function_call;
mod mcp;
mod patch;
mod plan;
mod simple;
mod web_search;

use serde_json::{Value, json};

pub(crate) use agents::{collab_item, subagent_activity_item};
pub(crate) use command::{Command, command_outcome, parse_actions};
pub(crate) use function_call::function_call;
pub(crate) use mcp::{dynamic_item, mcp_item, mcp_outcome, mcp_update};
pub(crate) use patch::{
    changes_from_patch, joined_diffs, parse_changes, patch_outcome, patch_update,
};
pub(crate) use plan::{plan_item, plan_update, todo_list_item};
pub(crate) use simple::simple_tool;
pub(crate) use web_search::{web_search_item, web_search_update};

use super::wire::{RawItem, Status};
use crate::model::{ToolError, ToolKind, ToolState};
use crate::providers::{PartUpdate, titles};

/// A new part's update with its name and kind.
pub(crate) fn named(id: &str, name: &str, kind: ToolKind) -> PartUpdate {
    PartUpdate {
        name: Some(name.to_owned()),
        kind: Some(kind),
        ..PartUpdate::new(id)
    }
}

/// Outcome of a tool with no exit code: completed → output, anything else → error.
pub(crate) fn simple_outcome(
    u: &mut PartUpdate,
    status: Status,
    output: Option<Value>,
    failure: &str,
) {
    match status {
        Status::Running => u.state = Some(ToolState::Running),
        Status::Completed => {
            u.state = Some(ToolState::Complete);
            u.output = output;
        }
        Status::Failed | Status::Declined | Status::Interrupted => {
            u.state = Some(ToolState::Error);
            let (message, code) = match status {
                Status::Declined => ("Declined".to_owned(), Some("declined".to_owned())),
                Status::Interrupted => ("Interrupted".to_owned(), Some("interrupted".to_owned())),
                _ => (
                    if failure.is_empty() {
                        "Failed".to_owned()
                    } else {
                        failure.to_owned()
                    },
                    None,
                ),
            };
            u.error = Some(ToolError {
                message,
                code,
                details: output,
            });
        }
    }
}

/// A `request_user_input` call: the questions asked (`[{id, header, question, options, …}]`).
pub(crate) fn question_update(id: &str, name: &str, questions: Value) -> PartUpdate {
    let mut u = named(id, name, ToolKind::Question);
    u.title = Some(titles::questions(Some(&questions)));
    u.input = Some(json!({ "questions": questions }));
    u
}

/// A `view_image` call: the image's path, relative to the session's cwd in the title.
pub(crate) fn image_view_update(id: &str, name: &str, path: &str, cwd: Option<&str>) -> PartUpdate {
    let mut u = named(id, name, ToolKind::FileRead);
    u.title = Some(titles::view_image(&titles::display_path(path, cwd)));
    u.input = Some(json!({ "path": path }));
    u
}

/// An `imageView` item.
pub(crate) fn image_view_item(
    id: &str,
    item: &RawItem<'_>,
    outcome: Option<Status>,
    cwd: Option<&str>,
) -> PartUpdate {
    let mut u = image_view_update(id, "imageView", item.path.as_deref().unwrap_or(""), cwd);
    if let Some(s) = outcome {
        simple_outcome(&mut u, s, None, "Viewing the image failed");
    }
    u
}

/// An `imageGeneration` item. Its status is a free string: only the item's completion is reliable.
pub(crate) fn image_generation_item(
    id: &str,
    item: &RawItem<'_>,
    outcome: Option<Status>,
    completed: bool,
) -> PartUpdate {
    let mut u = named(id, "imageGeneration", ToolKind::Unknown);
    u.title = Some(match item.revised_prompt.as_deref() {
        Some(p) if !p.trim().is_empty() => {
            titles::finish(&format!("Generating image: {p}"), "Generating an image")
        }
        _ => "Generating an image".to_owned(),
    });
    if let Some(p) = &item.revised_prompt {
        u.input = Some(json!({ "prompt": p }));
    }
    if completed {
        simple_outcome(
            &mut u,
            outcome.unwrap_or(Status::Completed),
            None,
            "Image generation failed",
        );
    } else {
        u.state = Some(ToolState::Running);
    }
    u
}
