//! Subagents: the collab tools (`spawn_agent`, `send_input`, `wait`, …, in exec's snake_case or the
//! app-server's camelCase) and multi-agent v2's `subAgentActivity` items.

use serde_json::{Map, Value};

use super::{named, simple_outcome};
use crate::model::{ToolKind, ToolMetadata};
use crate::providers::codex::wire::{ItemType, RawItem, Status, activity_kind};
use crate::providers::{PartUpdate, first_line, raw_to_value, titles};

/// `spawn_agent` → `spawnAgent`: exec's snake_case collab tools under the app-server names.
pub(crate) fn camel_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut upper = false;
    for ch in s.chars() {
        if ch == '_' {
            upper = true;
        } else if upper {
            out.extend(ch.to_uppercase());
            upper = false;
        } else {
            out.push(ch);
        }
    }
    out
}

/// Title of a collab (sub-agent) tool from the tool and its prompt.
pub(crate) fn collab_title(tool: &str, prompt: Option<&str>) -> String {
    let prompt = prompt.map(str::trim).filter(|p| !p.is_empty());
    let with = |verb: &str, fallback: &str| match prompt {
        Some(p) => titles::finish(&format!("{verb}: {p}"), fallback),
        None => fallback.to_owned(),
    };
    match camel_case(tool).as_str() {
        "spawnAgent" => titles::subagent(None, prompt),
        "sendInput" | "sendMessage" => with("Messaging subagent", "Messaging a subagent"),
        "followupTask" => with("Following up with subagent", "Following up with a subagent"),
        "wait" | "waitAgent" | "resumeAgent" => "Waiting for subagents".to_owned(),
        "closeAgent" => "Closing a subagent".to_owned(),
        "interruptAgent" => "Interrupting a subagent".to_owned(),
        "listAgents" => "Listing subagents".to_owned(),
        _ => with(
            &titles::capitalize(&titles::words(tool)),
            "Running a subagent",
        ),
    }
}

/// A `collabAgentToolCall` item (multi-agent v1 tools: spawn, message, wait, close, ...).
pub(crate) fn collab_item(id: &str, item: &RawItem<'_>, outcome: Option<Status>) -> PartUpdate {
    let tool = camel_case(item.tool.as_deref().unwrap_or(""));
    let mut u = named(
        id,
        if tool.is_empty() {
            ItemType::Collab.name()
        } else {
            &tool
        },
        ToolKind::Subagent,
    );
    u.title = Some(collab_title(&tool, item.prompt.as_deref()));
    let mut input = Map::new();
    if let Some(p) = &item.prompt {
        input.insert("prompt".to_owned(), Value::String(p.to_string()));
    }
    if let Some(m) = &item.model {
        input.insert("model".to_owned(), Value::String(m.to_string()));
    }
    // `wait` names no receiver (multi-agent v2): an empty list says nothing.
    if let Some(r) = item.receiver_thread_ids.as_ref().filter(|r| !r.is_empty()) {
        input.insert(
            "receiverThreadIds".to_owned(),
            Value::Array(r.iter().map(|s| Value::String(s.to_string())).collect()),
        );
    }
    u.input = Some(Value::Object(input));
    if let Some(child) = item.receiver_thread_ids.as_ref().and_then(|r| r.first()) {
        u.metadata
            .get_or_insert_with(ToolMetadata::default)
            .child_session_id = Some(child.to_string());
    }
    if let Some(s) = outcome {
        let states = item.agents_states.map_or(Value::Null, raw_to_value);
        let messages: Vec<String> = states
            .as_object()
            .map(|m| {
                m.values()
                    .filter_map(|s| s.get("message").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let output = (!messages.is_empty()).then(|| Value::String(messages.join("\n")));
        simple_outcome(&mut u, s, output, "Subagent call failed");
        if let Some(e) = u.error.as_mut()
            && let Some(m) = messages.first().and_then(|m| first_line(m))
            && e.code.is_none()
        {
            e.message = m;
        }
    }
    u
}

/// A `subAgentActivity` item (multi-agent v2, codex 0.171.0): `started` is the `spawn_agent` call,
/// `interacted` a `send_message` / `followup_task`, `interrupted` an `interrupt_agent` (their item
/// id is the call id). `completed` is no call: the parent's notice that the subagent finished, with
/// an id of its own (`subagent-completed-<turn>`); it makes no part (None).
pub(crate) fn subagent_activity_item(
    id: &str,
    item: &RawItem<'_>,
    outcome: Option<Status>,
) -> Option<PartUpdate> {
    let kind = activity_kind(item).unwrap_or("");
    if kind == "completed" {
        return None;
    }
    let path = item.agent_path.as_deref().filter(|p| !p.trim().is_empty());
    // `/root/version_check` → `version_check`: the task name the model gave.
    let task = path.map(|p| p.trim_end_matches('/').rsplit('/').next().unwrap_or(p));
    let named_or = |verb: &str, fallback: &str| match task.filter(|t| !t.is_empty()) {
        Some(t) => titles::finish(&format!("{verb} {t}"), fallback),
        None => fallback.to_owned(),
    };
    let title = match kind {
        "started" => titles::subagent(None, task),
        "interacted" => named_or("Messaging subagent", "Messaging a subagent"),
        "interrupted" => named_or("Interrupting subagent", "Interrupting a subagent"),
        _ => named_or("Subagent", "Subagent activity"),
    };
    let mut u = named(id, ItemType::SubAgent.name(), ToolKind::Subagent);
    u.title = Some(title);
    let mut input = Map::new();
    if let Some(p) = path {
        input.insert("agentPath".to_owned(), Value::String(p.to_owned()));
    }
    if let Some(t) = &item.agent_thread_id {
        input.insert("agentThreadId".to_owned(), Value::String(t.to_string()));
    }
    if let Some(m) = &item.model {
        input.insert("model".to_owned(), Value::String(m.to_string()));
    }
    if let Some(r) = &item.reasoning_effort {
        input.insert("reasoningEffort".to_owned(), Value::String(r.to_string()));
    }
    u.input = Some(Value::Object(input));
    let meta = u.metadata.get_or_insert_with(ToolMetadata::default);
    if let Some(t) = &item.agent_thread_id {
        meta.child_session_id = Some(t.to_string());
    }
    if !kind.is_empty() {
        meta.extra
            .insert("activity".to_owned(), Value::String(kind.to_owned()));
    }
    if let Some(s) = outcome {
        simple_outcome(&mut u, s, None, "Subagent call failed");
    }
    Some(u)
}
