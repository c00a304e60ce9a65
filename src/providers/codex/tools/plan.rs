//! Todo lists and plans: exec's `todo_list` item, the `plan` item, and `update_plan` /
//! `turn/plan/updated` steps.

use serde_json::{Map, Value, json};

use super::{named, simple_outcome};
use crate::model::{ToolKind, ToolState};
use crate::providers::codex::wire::{RawItem, Status};
use crate::providers::{PartUpdate, raw_to_value, titles};

/// A `todo_list` item; it is done when its item completes.
pub(crate) fn todo_list_item(id: &str, item: &RawItem<'_>, completed: bool) -> PartUpdate {
    let entries = item
        .items
        .map(raw_to_value)
        .unwrap_or(Value::Array(Vec::new()));
    let total = entries.as_array().map_or(0, Vec::len);
    let done = entries.as_array().map_or(0, |a| {
        a.iter()
            .filter(|e| e.get("completed").and_then(Value::as_bool) == Some(true))
            .count()
    });
    let mut u = named(id, "todoList", ToolKind::Todo);
    u.title = Some(titles::todo(total, done));
    u.input = Some(json!({ "items": entries }));
    if completed {
        simple_outcome(&mut u, Status::Completed, None, "");
    } else {
        u.state = Some(ToolState::Running);
    }
    u
}

/// A `plan` item (plan mode's proposed plan); it is done when its item completes.
pub(crate) fn plan_item(id: &str, item: &RawItem<'_>, completed: bool) -> PartUpdate {
    let mut u = named(id, "plan", ToolKind::Todo);
    u.title = Some("Proposing a plan".to_owned());
    u.input = Some(json!({ "text": item.text.as_deref().unwrap_or("") }));
    if completed {
        simple_outcome(&mut u, Status::Completed, None, "");
    } else {
        u.state = Some(ToolState::Running);
    }
    u
}

/// Title of a todo / plan update from its steps (`update_plan`, `turn/plan/updated`).
pub(crate) fn plan_update(
    id: &str,
    name: &str,
    explanation: Option<&str>,
    steps: &Value,
) -> PartUpdate {
    let list = steps.as_array().map(Vec::as_slice).unwrap_or(&[]);
    let done = list
        .iter()
        .filter(|s| s.get("status").and_then(Value::as_str) == Some("completed"))
        .count();
    let mut u = named(id, name, ToolKind::Todo);
    u.title = Some(titles::todo(list.len(), done));
    let mut input = Map::new();
    if let Some(e) = explanation.filter(|e| !e.is_empty()) {
        input.insert("explanation".to_owned(), Value::String(e.to_owned()));
    }
    input.insert("plan".to_owned(), steps.clone());
    u.input = Some(Value::Object(input));
    u
}
