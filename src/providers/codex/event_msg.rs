//! The core `EventMsg` (snake_case), written once for the two places it appears: rollout files
//! (`event_msg` payloads) and the old `{"id","msg"}` stream. Begin/end pairs are joined by
//! `call_id` into one part; `item_completed` carries the newer typed items (PascalCase types).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::hash::HashMap;
use crate::model::{TimeValue, Timing, ToolMetadata, ToolState};
use crate::providers::{PartStore, PartUpdate, raw_to_value, titles};

use super::tools::{self, Command};
use super::tracker::{Envelope, Phase, Tracker};
use super::wire::{self, Status};

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    ty: Cow<'a, str>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    command: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    parsed_cmd: Option<&'a RawValue>,
    #[serde(borrow, default)]
    stdout: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    stderr: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    aggregated_output: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    formatted_output: Option<Cow<'a, str>>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(borrow, default)]
    duration: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    changes: Option<&'a RawValue>,
    #[serde(default)]
    success: Option<bool>,
    #[serde(borrow, default)]
    invocation: Option<Invocation<'a>>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    query: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    action: Option<&'a RawValue>,
    #[serde(borrow, default)]
    path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
    #[serde(default)]
    started_at_ms: Option<i64>,
    #[serde(default)]
    completed_at_ms: Option<i64>,
    #[serde(borrow, default)]
    reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    chunk: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Invocation<'a> {
    #[serde(borrow, default)]
    server: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

/// What begin events leave for their end event.
#[derive(Default)]
pub(super) struct Pending {
    /// Diffs announced by `patch_apply_begin`, shown as the patch's output once it applied.
    diffs: HashMap<String, String>,
}

/// Handle one EventMsg. `at` is the line's timestamp when the envelope has one (rollouts).
pub(super) fn handle(
    store: &mut PartStore,
    tracker: &mut Tracker,
    pending: &mut Pending,
    line: u32,
    at: Option<&str>,
    raw: &RawValue,
) {
    let ev: Event<'_> = match serde_json::from_str(raw.get()) {
        Ok(e) => e,
        Err(e) => {
            store.warn(line, format!("event not understood: {e}"));
            return;
        }
    };
    let stamp = || at.map(|t| TimeValue::Text(t.to_owned()));
    let started = |ms: Option<i64>| Timing {
        started_at: ms.map(TimeValue::Millis).or_else(stamp),
        ..Timing::default()
    };
    let ended = |ms: Option<i64>, duration: Option<&RawValue>| Timing {
        completed_at: ms.map(TimeValue::Millis).or_else(stamp),
        elapsed_ms: duration.and_then(wire::duration_ms),
        ..Timing::default()
    };
    let id = ev.call_id.as_deref().unwrap_or("");
    match ev.ty.as_ref() {
        "exec_command_begin" => {
            if id.is_empty() {
                return;
            }
            let cmd = event_command(&ev);
            if let Some(c) = &cmd.cwd {
                tracker.cwd.get_or_insert_with(|| c.clone());
            }
            let mut u = cmd.update(id, tracker.cwd.as_deref());
            u.state = Some(ToolState::Running);
            u.timing = Some(started(ev.started_at_ms));
            finish(store, line, u, "exec_command_begin");
        }
        "exec_command_output_delta" => {
            // Base64 of the raw bytes; never persisted in rollouts, streamed by the old protocol.
            let (false, Some(chunk)) = (id.is_empty(), ev.chunk.as_deref()) else {
                return;
            };
            match decode_base64(chunk.as_bytes()) {
                Ok(bytes) => tracker.push_delta(line, id, &String::from_utf8_lossy(&bytes), store),
                Err(e) => store.info(line, format!("output chunk of `{id}` is not base64: {e}")),
            }
        }
        "exec_command_end" => {
            if id.is_empty() {
                return;
            }
            let cmd = event_command(&ev);
            let mut u = if ev.command.is_some() {
                cmd.update(id, tracker.cwd.as_deref())
            } else if store.contains(id) {
                PartUpdate::new(id)
            } else {
                let mut u = tools::named(id, "commandExecution", crate::model::ToolKind::Bash);
                u.title = Some(titles::shell(""));
                u
            };
            let output = ev
                .aggregated_output
                .as_deref()
                .map(str::to_owned)
                .or_else(|| {
                    let joined = [ev.stdout.as_deref(), ev.stderr.as_deref()]
                        .into_iter()
                        .flatten()
                        .filter(|s| !s.is_empty())
                        .collect::<Vec<_>>()
                        .join("\n");
                    (!joined.is_empty()).then_some(joined)
                })
                .or_else(|| ev.formatted_output.as_deref().map(str::to_owned));
            let streamed = tracker.take_provisional(id);
            let output = output.or(streamed).unwrap_or_default();
            let status = ev
                .status
                .as_deref()
                .and_then(Status::parse)
                .unwrap_or(Status::Completed);
            tools::command_outcome(&mut u, status, ev.exit_code, output);
            u.timing = Some(ended(ev.completed_at_ms, ev.duration));
            finish(store, line, u, "exec_command_end");
        }
        "patch_apply_begin" => {
            if id.is_empty() {
                return;
            }
            let changes = ev.changes.map(tools::parse_changes).unwrap_or_default();
            let diffs = tools::joined_diffs(&changes);
            if !diffs.is_empty() {
                pending.diffs.insert(id.to_owned(), diffs);
            }
            let mut u = tools::patch_update(id, &changes, tracker.cwd.as_deref());
            u.state = Some(ToolState::Running);
            u.timing = Some(started(ev.started_at_ms));
            finish(store, line, u, "patch_apply_begin");
        }
        "patch_apply_end" => {
            if id.is_empty() {
                return;
            }
            let changes = ev.changes.map(tools::parse_changes).unwrap_or_default();
            let mut u = tools::patch_update(id, &changes, tracker.cwd.as_deref());
            if changes.is_empty() {
                u.title = None;
                u.input = None;
                u.kind = None;
            }
            let status = ev
                .status
                .as_deref()
                .and_then(Status::parse)
                .unwrap_or(match ev.success {
                    Some(false) => Status::Failed,
                    _ => Status::Completed,
                });
            let stdout = ev.stdout.as_deref().unwrap_or("");
            let stderr = ev.stderr.as_deref().unwrap_or("");
            let diffs = pending
                .diffs
                .remove(id)
                .or_else(|| Some(tools::joined_diffs(&changes)).filter(|d| !d.is_empty()));
            let output = diffs.or_else(|| (!stdout.is_empty()).then(|| stdout.to_owned()));
            let failure = if stderr.is_empty() {
                stdout.to_owned()
            } else {
                stderr.to_owned()
            };
            tools::patch_outcome(&mut u, status, output, Some(failure));
            u.timing = Some(ended(ev.completed_at_ms, ev.duration));
            finish(store, line, u, "patch_apply_end");
        }
        "mcp_tool_call_begin" | "mcp_tool_call_end" => {
            if id.is_empty() {
                return;
            }
            let inv = ev.invocation.as_ref();
            let server = inv.and_then(|i| i.server.as_deref()).unwrap_or("");
            let tool = inv.and_then(|i| i.tool.as_deref()).unwrap_or("");
            let args = inv
                .and_then(|i| i.arguments)
                .map_or(Value::Null, raw_to_value);
            let mut u = tools::mcp_update(id, server, tool, args);
            if ev.ty == "mcp_tool_call_begin" {
                u.state = Some(ToolState::Running);
                u.timing = Some(started(ev.started_at_ms));
            } else {
                // `result` is a Rust `Result`: {"Ok": CallToolResult} or {"Err": message}.
                let result = ev.result.map_or(Value::Null, raw_to_value);
                let (status, ok, err) = match &result {
                    Value::Object(m) if m.contains_key("Ok") => {
                        (Status::Completed, m.get("Ok").cloned(), None)
                    }
                    Value::Object(m) if m.contains_key("Err") => {
                        let e = m.get("Err").map(|e| match e {
                            Value::String(s) => s.clone(),
                            other => other
                                .get("message")
                                .and_then(Value::as_str)
                                .map_or_else(|| other.to_string(), str::to_owned),
                        });
                        (Status::Failed, None, e)
                    }
                    Value::Null => (Status::Completed, None, None),
                    other => (Status::Completed, Some(other.clone()), None),
                };
                tools::mcp_outcome(&mut u, status, ok.as_ref(), err);
                u.timing = Some(ended(ev.completed_at_ms, ev.duration));
            }
            // The invocation names the tool without its server prefix: it wins over a rollout's
            // `mcp__server__tool` function name.
            if tool.is_empty() {
                u.name = None;
                u.title = None;
                u.kind = None;
                u.input = None;
                u.metadata.get_or_insert_with(ToolMetadata::default).mcp = None;
            }
            upsert_keep_name_unless(store, line, u, "mcpToolCall", !tool.is_empty());
        }
        "web_search_begin" => {
            if id.is_empty() {
                return;
            }
            let mut u = tools::web_search_update(id, None, None);
            if store.contains(id) {
                u.title = None;
                u.input = None;
            }
            u.state = Some(ToolState::Running);
            u.timing = Some(started(ev.started_at_ms));
            finish(store, line, u, "web_search_begin");
        }
        "web_search_end" => {
            if id.is_empty() {
                return;
            }
            let action = ev.action.map(raw_to_value).filter(|a| !a.is_null());
            let mut u = tools::web_search_update(id, ev.query.as_deref(), action);
            tools::simple_outcome(&mut u, Status::Completed, None, "");
            u.timing = Some(ended(ev.completed_at_ms, ev.duration));
            finish(store, line, u, "web_search_end");
        }
        "view_image_tool_call" => {
            if id.is_empty() {
                return;
            }
            let path = ev.path.as_deref().unwrap_or("");
            let mut u = tools::image_view_update(id, "imageView", path, tracker.cwd.as_deref());
            tools::simple_outcome(&mut u, Status::Completed, None, "");
            u.timing = Some(started(None));
            finish(store, line, u, "view_image_tool_call");
        }
        "item_completed" | "item_started" => {
            let Some(raw_item) = ev.item else { return };
            let mut scratch = None;
            let item = match wire::parse_item(raw_item.get(), &mut scratch) {
                Ok(i) => i,
                Err(e) => {
                    store.warn(line, format!("`{}` item not understood: {e}", ev.ty));
                    return;
                }
            };
            let completed = ev.ty == "item_completed";
            let timing = Timing {
                completed_at: if completed {
                    ev.completed_at_ms.map(TimeValue::Millis).or_else(stamp)
                } else {
                    None
                },
                started_at: if completed { None } else { stamp() },
                elapsed_ms: None,
            };
            let env = Envelope {
                line,
                phase: if completed {
                    Phase::Completed
                } else {
                    Phase::Started
                },
                id: None,
                timing,
                session_id: None,
            };
            tracker.apply(&env, &item, store);
        }
        "turn_aborted" => {
            let reason = ev.reason.as_deref().unwrap_or("interrupted");
            let code = if reason == "interrupted" {
                "interrupted"
            } else {
                "aborted"
            };
            let message = if reason == "interrupted" {
                "The turn was interrupted".to_owned()
            } else {
                format!("The turn was aborted ({})", titles::words(reason))
            };
            store.abort_open(line, &message, code);
        }
        _ => {}
    }
}

/// A command from a begin/end event: argv (or a string) in `command`, actions in `parsed_cmd`.
fn event_command(ev: &Event<'_>) -> Command {
    Command {
        command: ev.command.map_or(Value::Null, raw_to_value),
        cwd: ev.cwd.as_deref().map(str::to_owned),
        actions: tools::parse_actions(ev.parsed_cmd),
        extra: Map::new(),
    }
}

/// Upsert an event's update. An event names a part only when it creates it, because the rollout's
/// `function_call` line (the model's explicit tool name) may have named it first.
fn finish(store: &mut PartStore, line: u32, mut u: PartUpdate, provider_type: &str) {
    if store.contains(&u.id) {
        u.name = None;
    } else {
        u.metadata
            .get_or_insert_with(ToolMetadata::default)
            .provider_type = Some(provider_type.to_owned());
    }
    store.upsert(line, u);
}

fn upsert_keep_name_unless(
    store: &mut PartStore,
    line: u32,
    mut u: PartUpdate,
    provider_type: &str,
    rename: bool,
) {
    if store.contains(&u.id) && !rename {
        u.name = None;
    }
    if !store.contains(&u.id) {
        u.metadata
            .get_or_insert_with(ToolMetadata::default)
            .provider_type = Some(provider_type.to_owned());
        if u.name.is_none() {
            u.name = Some(provider_type.to_owned());
        }
    }
    store.upsert(line, u);
}
/// Standard base64 with canonical padding (RFC 4648 §4), as the old protocol writes output chunks.
/// Written here so the core needs no codec crate; the messages name the first bad byte.
fn decode_base64(text: &[u8]) -> Result<Vec<u8>, String> {
    fn value(b: u8) -> Option<u32> {
        match b {
            b'A'..=b'Z' => Some(u32::from(b - b'A')),
            b'a'..=b'z' => Some(u32::from(b - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(b - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    if !text.len().is_multiple_of(4) {
        return Err(format!("Invalid input length: {}", text.len()));
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let quads = text.len() / 4;
    for (q, quad) in text.chunks_exact(4).enumerate() {
        let last = q + 1 == quads;
        let pad = if last {
            quad.iter().rev().take_while(|&&b| b == b'=').count()
        } else {
            0
        };
        if pad > 2 {
            return Err("Invalid padding".to_owned());
        }
        let mut acc = 0u32;
        for (i, &b) in quad[..4 - pad].iter().enumerate() {
            let v = value(b).ok_or_else(|| format!("Invalid symbol {b}, offset {}.", q * 4 + i))?;
            acc |= v << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        // Bits past the last whole byte must be zero (canonical encoding).
        let unused = match pad {
            1 => acc & 0xFF,
            2 => acc & 0xFFFF,
            _ => 0,
        };
        if unused != 0 {
            let at = q * 4 + 3 - pad;
            return Err(format!(
                "Invalid last symbol {}, offset {at}.",
                quad[3 - pad]
            ));
        }
        out.extend_from_slice(&bytes[1..4 - pad]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::decode_base64;

    #[test]
    fn base64_decodes_canonical_input_and_names_bad_bytes() {
        assert_eq!(decode_base64(b"aGVsbG8K").unwrap(), b"hello\n");
        assert_eq!(decode_base64(b"aGk=").unwrap(), b"hi");
        assert_eq!(decode_base64(b"YQ==").unwrap(), b"a");
        assert_eq!(decode_base64(b"").unwrap(), b"");
        assert_eq!(
            decode_base64(b"aGV-").unwrap_err(),
            "Invalid symbol 45, offset 3."
        );
        assert_eq!(
            decode_base64(b"abc").unwrap_err(),
            "Invalid input length: 3"
        );
        assert_eq!(
            decode_base64(b"YR==").unwrap_err(),
            "Invalid last symbol 82, offset 1."
        );
        assert_eq!(decode_base64(b"Y===").unwrap_err(), "Invalid padding");
    }
}
