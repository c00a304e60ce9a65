//! The per-session state of a Copilot CLI event stream, whichever dialect: an assistant
//! message's `toolRequests` open parts (started), `tool.execution_start` runs them (with the MCP
//! server and tool, and the parent call of a subagent's call), `tool.execution_partial_result`
//! streams output, `tool.execution_complete` ends them (a shell's non-zero exit code fails it),
//! `subagent.started` names a task's agent, and `abort` fails whatever is still open.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::tools;
use crate::hash::HashMap;
use crate::model::{McpRef, TimeValue, Timing, ToolError, ToolKind, ToolMetadata, ToolState};
use crate::providers::{
    LineNormalizer, PartStore, PartUpdate, Probe, line_text, raw_to_value, report_bad_json,
};
use crate::stream::RawLine;

/// Whether a line is a session event: a dotted `type` with `data`, an `id` and a `timestamp`.
pub(super) fn is_event(p: &Probe<'_>) -> bool {
    p.ty().contains('.') && p.has("data") && p.has("id") && p.has("timestamp")
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
struct Data<'a> {
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(rename = "toolName", borrow, default)]
    tool_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "mcpServerName", borrow, default)]
    mcp_server: Option<Cow<'a, str>>,
    #[serde(rename = "mcpToolName", borrow, default)]
    mcp_tool: Option<Cow<'a, str>>,
    #[serde(rename = "parentToolCallId", borrow, default)]
    parent: Option<Cow<'a, str>>,
    #[serde(rename = "partialOutput", borrow, default)]
    partial_output: Option<Cow<'a, str>>,
    #[serde(default)]
    success: Option<bool>,
    #[serde(borrow, default)]
    result: Option<ResultWire<'a>>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(rename = "shellExecution", default)]
    shell: Option<ShellWire>,
    #[serde(rename = "toolRequests", borrow, default)]
    tool_requests: Option<Vec<RequestWire<'a>>>,
    #[serde(borrow, default)]
    reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    context: Option<ContextWire<'a>>,
}

#[derive(Deserialize)]
struct ResultWire<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ShellWire {
    #[serde(rename = "exitCode", default)]
    exit_code: Option<i64>,
}

#[derive(Deserialize)]
struct RequestWire<'a> {
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ContextWire<'a> {
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
}

/// What a call was opened with, to read its outcome.
struct Call {
    kind: ToolKind,
    started: Option<String>,
    /// Its outcome came: output a background shell streams later is not the call's.
    done: bool,
}

/// A completion that came before its call's start (lines out of order): its line and its text,
/// read again when the call opens.
struct Pending {
    line: u32,
    text: String,
}

/// One stream's state (both dialects' normalizer).
pub(crate) struct Tracker {
    cwd: Option<String>,
    calls: HashMap<String, Call>,
    pending: HashMap<String, Pending>,
}

impl Tracker {
    pub fn new(cwd: Option<&str>) -> Self {
        Tracker {
            cwd: cwd.map(str::to_owned),
            calls: HashMap::default(),
            pending: HashMap::default(),
        }
    }

    /// A call requested or started: the part opens (or learns its MCP identity and parent).
    #[allow(clippy::too_many_arguments)]
    fn open(
        &mut self,
        line: u32,
        id: &str,
        name: &str,
        input: Value,
        mcp: Option<McpRef>,
        parent: Option<&str>,
        state: ToolState,
        at: Option<&str>,
        store: &mut PartStore,
    ) {
        let input = if input.is_object() {
            input
        } else {
            Value::Object(Default::default())
        };
        let d = tools::describe(name, &input, mcp, self.cwd.as_deref());
        let call = self.calls.entry(id.to_owned()).or_insert(Call {
            kind: d.kind,
            started: None,
            done: false,
        });
        call.kind = d.kind;
        let mut u = PartUpdate::new(id);
        u.name = Some(d.name);
        u.kind = Some(d.kind);
        u.title = Some(d.title);
        u.input = Some(input);
        u.state = Some(state);
        u.metadata = Some(ToolMetadata {
            provider_type: Some("tool".to_owned()),
            mcp: d.mcp,
            parent_tool_use_id: parent.map(str::to_owned),
            ..ToolMetadata::default()
        });
        if state == ToolState::Running
            && let Some(at) = at
        {
            call.started = Some(at.to_owned());
            u.timing = Some(Timing {
                started_at: Some(TimeValue::Text(at.to_owned())),
                ..Timing::default()
            });
        }
        store.upsert(line, u);
        if let Some(p) = self.pending.remove(id)
            && let Ok(ev) = serde_json::from_str::<Event<'_>>(&p.text)
        {
            self.event(p.line, &p.text, &ev, store);
        }
    }

    fn complete(&mut self, line: u32, data: &Data<'_>, at: Option<&str>, store: &mut PartStore) {
        let Some(id) = data.tool_call_id.as_deref() else {
            store.warn(line, "tool.execution_complete without a toolCallId");
            return;
        };
        let Some(call) = self.calls.get_mut(id) else {
            return;
        };
        let content = data
            .result
            .as_ref()
            .and_then(|r| r.content)
            .map(raw_to_value)
            .unwrap_or(Value::String(String::new()));
        let exit = data.shell.as_ref().and_then(|s| s.exit_code);
        call.done = true;
        let mut u = PartUpdate::new(id);
        let meta = ToolMetadata {
            exit_code: exit,
            ..ToolMetadata::default()
        };
        let failed =
            data.success == Some(false) || (data.success.is_none() && data.error.is_some());
        match exit.filter(|c| *c != 0 && call.kind == ToolKind::Bash) {
            _ if failed => {
                u.state = Some(ToolState::Error);
                u.error = Some(tools::error(data.error.map(raw_to_value)));
            }
            Some(code) => {
                u.state = Some(ToolState::Error);
                u.error = Some(ToolError {
                    message: format!("Exit code {code}"),
                    code: Some(code.to_string()),
                    details: Some(content),
                });
            }
            None => {
                u.state = Some(ToolState::Complete);
                u.output = Some(content);
            }
        }
        if let Some(at) = at {
            let elapsed_ms = call
                .started
                .as_deref()
                .and_then(iso_millis)
                .zip(iso_millis(at))
                .and_then(|(s, e)| u64::try_from(e - s).ok());
            u.timing = Some(Timing {
                started_at: None,
                completed_at: Some(TimeValue::Text(at.to_owned())),
                elapsed_ms,
            });
        }
        if !meta.is_empty() {
            u.metadata = Some(meta);
        }
        store.upsert(line, u);
    }

    fn event(&mut self, line: u32, text: &str, ev: &Event<'_>, store: &mut PartStore) {
        let Some(ty) = ev.ty.as_deref() else {
            store.info(line, "event without a `type`; skipped");
            return;
        };
        let data: Data<'_> = match ev.data.map(|d| serde_json::from_str(d.get())) {
            Some(Ok(d)) => d,
            Some(Err(e)) => {
                if ty.starts_with("tool.") {
                    store.warn(
                        line,
                        format!("{ty}: its data is not what Copilot writes: {e}"),
                    );
                }
                return;
            }
            None => Data::default(),
        };
        let at = ev.timestamp.as_deref();
        match ty {
            "session.start" => {
                if let Some(cwd) = data.context.and_then(|c| c.cwd) {
                    self.cwd.get_or_insert_with(|| cwd.into_owned());
                }
            }
            "assistant.message" => {
                for r in data.tool_requests.iter().flatten() {
                    let (Some(id), Some(name)) = (r.tool_call_id.as_deref(), r.name.as_deref())
                    else {
                        continue;
                    };
                    if self.calls.contains_key(id) {
                        continue;
                    }
                    let input = r.arguments.map(raw_to_value).unwrap_or_default();
                    self.open(
                        line,
                        id,
                        name,
                        input,
                        None,
                        None,
                        ToolState::Started,
                        at,
                        store,
                    );
                }
            }
            "tool.execution_start" => {
                let (Some(id), Some(name)) =
                    (data.tool_call_id.as_deref(), data.tool_name.as_deref())
                else {
                    store.warn(line, "tool.execution_start without toolCallId or toolName");
                    return;
                };
                let mcp = match (data.mcp_server.as_deref(), data.mcp_tool.as_deref()) {
                    (Some(s), Some(t)) if !s.is_empty() && !t.is_empty() => Some(McpRef {
                        server: s.to_owned(),
                        tool: t.to_owned(),
                    }),
                    _ => None,
                };
                let input = data.arguments.map(raw_to_value).unwrap_or_default();
                let parent = data.parent.as_deref();
                self.open(
                    line,
                    id,
                    name,
                    input,
                    mcp,
                    parent,
                    ToolState::Running,
                    at,
                    store,
                );
            }
            "tool.execution_partial_result" => {
                if let (Some(id), Some(out)) =
                    (data.tool_call_id.as_deref(), data.partial_output.as_deref())
                    && self.calls.get(id).is_some_and(|c| !c.done)
                {
                    let mut u = PartUpdate::new(id);
                    u.output = Some(Value::String(out.to_owned()));
                    store.upsert(line, u);
                }
            }
            "tool.execution_complete" => match data.tool_call_id.as_deref() {
                Some(id) if !self.calls.contains_key(id) => {
                    store.info(
                        line,
                        format!(
                            "tool.execution_complete for {id} came before its call; it waits for the call"
                        ),
                    );
                    let text = text.to_owned();
                    self.pending.insert(id.to_owned(), Pending { line, text });
                }
                _ => self.complete(line, &data, at, store),
            },
            "subagent.started" => {
                if let (Some(id), Some(agent)) = (data.tool_call_id.as_deref(), &ev.agent_id)
                    && self.calls.contains_key(id)
                {
                    let mut u = PartUpdate::new(id);
                    u.metadata = Some(ToolMetadata {
                        task_id: Some(agent.to_string()),
                        ..ToolMetadata::default()
                    });
                    store.upsert(line, u);
                }
            }
            "abort" => {
                let (message, code) = match data.reason.as_deref() {
                    Some("user_initiated") => ("Interrupted by the user", "interrupted"),
                    _ => ("The turn was aborted", "aborted"),
                };
                store.abort_open(line, message, code);
            }
            _ => {}
        }
    }
}

impl LineNormalizer for Tracker {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = line_text(line, store) else {
            return;
        };
        match serde_json::from_str::<Event<'_>>(&text) {
            Ok(ev) => self.event(line.number, &text, &ev, store),
            Err(err) if err.is_data() => {
                store.warn(line.number, format!("not a Copilot CLI event: {err}"));
            }
            Err(err) => report_bad_json(line, &err, store),
        }
    }

    fn finish(&mut self, store: &mut PartStore) {
        let mut orphans: Vec<(u32, String)> =
            self.pending.drain().map(|(id, p)| (p.line, id)).collect();
        orphans.sort();
        for (line, id) in orphans {
            store.warn(
                line,
                format!("tool.execution_complete for {id} has no matching call in this stream"),
            );
        }
    }
}

/// `2026-12-05T10:21:01.036Z` as milliseconds since the epoch (Copilot's timestamps are always
/// UTC, with milliseconds); `None` for anything else.
fn iso_millis(t: &str) -> Option<i64> {
    let b = t.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> { t.get(r)?.parse().ok() };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let ms = match t.get(19..)?.strip_prefix('.') {
        Some(frac) => {
            let digits: String = frac
                .chars()
                .take_while(char::is_ascii_digit)
                .take(3)
                .collect();
            format!("{digits:0<3}").parse().ok()?
        }
        None => 0,
    };
    if !t.ends_with('Z') || !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + h) * 60 + mi) * 60_000 + s * 1000 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_times_read_as_milliseconds() {
        assert_eq!(iso_millis("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(
            iso_millis("2026-12-05T10:21:01.036Z"),
            Some(1_796_466_061_036)
        );
        assert_eq!(iso_millis("2000-03-01T00:00:01Z"), Some(951_868_801_000));
        assert_eq!(iso_millis("2026-12-05 10:21:01Z"), None);
        assert_eq!(iso_millis("2026-13-05T10:21:01.036Z"), None);
        assert_eq!(iso_millis("2026-12-05T10:21:01.036+01:00"), None);
    }
}
