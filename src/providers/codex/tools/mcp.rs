//! Tools from outside Codex: MCP servers' tools (named `mcp__server__tool` to the model; their
//! result a `CallToolResult`) and the client's dynamic tools.

use serde_json::{Map, Value};

use super::{named, simple_outcome};
use crate::model::{McpRef, ToolError, ToolKind, ToolMetadata, ToolState};
use crate::providers::codex::wire::{ItemType, RawItem, Status, error_message};
use crate::providers::{PartUpdate, first_line, raw_to_value, titles};

/// `mcp__server__tool` (the model-facing name in rollouts) → `(server, tool)`.
pub(crate) fn split_mcp_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

pub(crate) fn mcp_update(id: &str, server: &str, tool: &str, args: Value) -> PartUpdate {
    let mut u = named(
        id,
        if tool.is_empty() {
            ItemType::Mcp.name()
        } else {
            tool
        },
        titles::mcp_kind(server, tool),
    );
    u.title = Some(titles::mcp(server, tool, &args));
    u.input = Some(if args.is_null() {
        Value::Object(Map::new())
    } else {
        args
    });
    let meta = u.metadata.get_or_insert_with(ToolMetadata::default);
    meta.mcp = Some(McpRef {
        server: server.to_owned(),
        tool: tool.to_owned(),
    });
    u
}

/// The text blocks of an MCP result joined, or `None` when the content is not all text.
pub(crate) fn content_text(content: &Value) -> Option<String> {
    let blocks = content.as_array()?;
    let mut texts = Vec::with_capacity(blocks.len());
    for b in blocks {
        match b {
            Value::String(s) => texts.push(s.as_str()),
            Value::Object(m) => texts.push(m.get("text").and_then(Value::as_str)?),
            _ => return None,
        }
    }
    Some(texts.join("\n"))
}

/// Settle an MCP call from its result (`{content, structuredContent|structured_content, isError?}`)
/// and error message. A failed call may carry `error: null` with the text in `result.content`.
pub(crate) fn mcp_outcome(
    u: &mut PartUpdate,
    status: Status,
    result: Option<&Value>,
    error: Option<String>,
) {
    let content = result.and_then(|r| r.get("content"));
    let text = content.and_then(content_text);
    let is_error = result
        .and_then(|r| r.get("isError").or_else(|| r.get("is_error")))
        .and_then(Value::as_bool)
        == Some(true);
    let output = match (&text, content) {
        (Some(t), _) => Some(Value::String(t.clone())),
        (None, Some(c)) if !c.is_null() => Some(c.clone()),
        _ => result
            .and_then(|r| {
                r.get("structuredContent")
                    .or_else(|| r.get("structured_content"))
            })
            .filter(|v| !v.is_null())
            .cloned(),
    };
    let attachments = content.and_then(Value::as_array).map(|blocks| {
        blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("image"))
            .map(|b| crate::model::Attachment {
                media_type: b.get("mimeType").and_then(Value::as_str).map(str::to_owned),
                size: b
                    .get("data")
                    .and_then(Value::as_str)
                    .map(|d| d.len() as u64),
                filename: None,
            })
            .collect::<Vec<_>>()
    });
    if let Some(a) = attachments.filter(|a| !a.is_empty()) {
        u.metadata
            .get_or_insert_with(ToolMetadata::default)
            .attachments = Some(a);
    }
    let status = if status == Status::Completed && (is_error || error.is_some()) {
        Status::Failed
    } else {
        status
    };
    match status {
        Status::Running => u.state = Some(ToolState::Running),
        Status::Completed => {
            u.state = Some(ToolState::Complete);
            // Image payloads are never inlined: a content list with images keeps only its text.
            u.output = match (
                u.metadata.as_ref().and_then(|m| m.attachments.as_ref()),
                &output,
            ) {
                (Some(_), Some(Value::Array(blocks))) => Some(Value::String(
                    blocks
                        .iter()
                        .filter_map(|b| b.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join("\n"),
                )),
                _ => output,
            };
        }
        Status::Failed | Status::Declined | Status::Interrupted => {
            u.state = Some(ToolState::Error);
            let (message, code) = match status {
                Status::Declined => (
                    "MCP tool call declined".to_owned(),
                    Some("declined".to_owned()),
                ),
                Status::Interrupted => (
                    "MCP tool call interrupted".to_owned(),
                    Some("interrupted".to_owned()),
                ),
                _ => (
                    error
                        .as_deref()
                        .and_then(first_line)
                        .or_else(|| text.as_deref().and_then(first_line))
                        .unwrap_or_else(|| "MCP tool call failed".to_owned()),
                    None,
                ),
            };
            let details = text.map(Value::String).or_else(|| error.map(Value::String));
            u.error = Some(ToolError {
                message,
                code,
                details,
            });
        }
    }
}

/// An `mcpToolCall` item.
pub(crate) fn mcp_item(id: &str, item: &RawItem<'_>, outcome: Option<Status>) -> PartUpdate {
    let args = item.arguments.map_or(Value::Null, raw_to_value);
    let mut u = mcp_update(
        id,
        item.server.as_deref().unwrap_or(""),
        item.tool.as_deref().unwrap_or(""),
        args,
    );
    if let Some(s) = outcome {
        let result = item.result.map(raw_to_value);
        let error = item.error.and_then(error_message);
        mcp_outcome(&mut u, s, result.as_ref(), error);
    }
    u
}

/// A `dynamicToolCall` item: a tool the client provides, run by the client.
pub(crate) fn dynamic_item(id: &str, item: &RawItem<'_>, outcome: Option<Status>) -> PartUpdate {
    let tool = item.tool.as_deref().unwrap_or("");
    let mut u = named(
        id,
        if tool.is_empty() {
            ItemType::Dynamic.name()
        } else {
            tool
        },
        ToolKind::Unknown,
    );
    let args = item.arguments.map_or(Value::Null, raw_to_value);
    u.title = Some(titles::generic(tool, &args, None));
    u.input = Some(if args.is_null() {
        Value::Object(Map::new())
    } else {
        args
    });
    if let Some(ns) = &item.namespace {
        u.metadata
            .get_or_insert_with(ToolMetadata::default)
            .extra
            .insert("namespace".to_owned(), Value::String(ns.to_string()));
    }
    if let Some(s) = outcome {
        let content = item.content_items.map_or(Value::Null, raw_to_value);
        let text = content.as_array().map(|items| {
            items
                .iter()
                .filter_map(|i| i.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        });
        let s = if s == Status::Completed && item.success == Some(false) {
            Status::Failed
        } else {
            s
        };
        let output = text.filter(|t| !t.is_empty()).map(Value::String);
        simple_outcome(&mut u, s, output, "Dynamic tool call failed");
        let first = u
            .error
            .as_ref()
            .and_then(|e| e.details.as_ref())
            .and_then(Value::as_str)
            .and_then(first_line);
        if let (Some(e), Some(t)) = (u.error.as_mut(), first) {
            e.message = t;
        }
    }
    u
}
