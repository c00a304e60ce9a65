//! An ACP tool call → the part's fields, for agents that do not send `_meta.toolnorm`: the name
//! from ACP's `name` or an adapter's own `_meta` (`_meta.claudeCode.toolName`), the kind from the
//! name where it says more (an MCP tool, a todo or subagent tool), else from ACP's `kind`;
//! the output from `rawOutput` or the text of `content`; the error of a failed call from its
//! content or `rawOutput`. An MCP call — `mcp__server__tool` (Claude's adapter), an invocation
//! input `{server, tool, arguments}` (codex-acp), or `<server>_<tool>` after a server the client
//! declared (OpenCode) — is named by its tool, with its server in `metadata.mcp`, and gets the
//! kind and, when the agent's title only restates the tool's name, the title the native
//! normalizers give it ([`titles::mcp_kind`], [`titles::mcp`]). What ACP does not carry (timing,
//! the contract's error code, a subagent's link) stays absent, for the rules to name.

use serde_json::{Map, Value, json};

use crate::model::acp_meta::kind_of_acp_kind;
use crate::model::{McpRef, ToolError, ToolKind, ToolMetadata, ToolState};
use crate::providers::{first_line, titles};

use super::wire::ToolCallFields;

/// Everything ACP has said about one call so far: each field the latest value sent.
#[derive(Clone, Debug, Default)]
pub(crate) struct CallView {
    pub title: Option<String>,
    pub name: Option<String>,
    pub kind: Option<String>,
    pub status: Option<String>,
    pub content: Option<Vec<Value>>,
    pub raw_input: Option<Value>,
    pub raw_output: Option<Value>,
    /// Adapter `_meta` keys other than ours, merged key by key.
    pub meta: Map<String, Value>,
    /// The MCP identity of a `<server>_<tool>` name after a server the client declared, once
    /// found (the tracker splits it: it knows the declared servers).
    pub declared_mcp: Option<McpRef>,
    /// The JSON object the text of a running call's content last held: Kimi CLI sends a call's
    /// arguments so (no `rawInput`), and its result in their place when the call ends.
    pub content_input: Option<Value>,
}

impl CallView {
    /// Take what a frame says; absent fields stay as they were.
    pub fn apply(&mut self, f: &ToolCallFields) {
        let set = |dst: &mut Option<String>, src: &Option<String>| {
            if let Some(v) = src {
                *dst = Some(v.clone());
            }
        };
        set(&mut self.title, &f.title);
        set(&mut self.name, &f.name);
        set(&mut self.kind, &f.kind);
        set(&mut self.status, &f.status);
        if let Some(c) = &f.content {
            let running = matches!(f.status.as_deref(), None | Some("pending" | "in_progress"));
            if running && let Some(args) = json_object_text(c) {
                self.content_input = Some(args);
            }
            self.content = Some(c.clone());
        }
        if let Some(v) = f.raw_input.as_ref().filter(|v| !v.is_null()) {
            self.raw_input = Some(v.clone());
        }
        if let Some(v) = f.raw_output.as_ref().filter(|v| !v.is_null()) {
            self.raw_output = Some(v.clone());
        }
        if let Some(m) = &f.meta {
            for (k, v) in m {
                if k != crate::model::acp_meta::META_KEY {
                    self.meta.insert(k.clone(), v.clone());
                }
            }
        }
    }

    pub fn state(&self) -> ToolState {
        self.status
            .as_deref()
            .and_then(crate::model::acp_meta::state_of_status)
            .unwrap_or(ToolState::Started)
    }

    /// The tool's name: ACP's `name`, else an adapter's `_meta.<agent>.toolName` (Claude's) or
    /// `_meta.toolName` (Qwen Code's).
    pub fn tool_name(&self) -> Option<String> {
        let flat = self.meta.get("toolName").and_then(Value::as_str);
        self.name.clone().or(flat.map(str::to_owned)).or_else(|| {
            self.meta.values().find_map(|v| {
                v.get("toolName")
                    .or_else(|| v.get("tool_name"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
        })
    }

    /// The call an adapter says this one ran inside (`_meta.<agent>.parentToolUseId`).
    pub fn parent(&self) -> Option<String> {
        self.meta.values().find_map(|v| {
            v.get("parentToolUseId")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
    }

    /// The text blocks of `content`, joined; diffs as `path` lines.
    pub fn content_text(&self) -> Option<String> {
        let mut out: Vec<String> = Vec::new();
        for block in self.content.iter().flatten() {
            match block.get("type").and_then(Value::as_str) {
                Some("content") => {
                    if let Some(t) = block
                        .get("content")
                        .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))
                        .and_then(|c| c.get("text"))
                        .and_then(Value::as_str)
                    {
                        out.push(unfence(t));
                    }
                }
                Some("diff") => {
                    if let Some(p) = block.get("path").and_then(Value::as_str) {
                        out.push(format!("diff {p}"));
                    }
                }
                _ => {}
            }
        }
        (!out.is_empty()).then(|| out.join("\n"))
    }

    /// The diffs of `content`, as `{path, oldText, newText}`.
    fn diffs(&self) -> Vec<Value> {
        self.content
            .iter()
            .flatten()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("diff"))
            .map(|b| {
                json!({
                    "path": b.get("path").cloned().unwrap_or(Value::Null),
                    "oldText": b.get("oldText").cloned().unwrap_or(Value::Null),
                    "newText": b.get("newText").cloned().unwrap_or(Value::Null),
                })
            })
            .collect()
    }
}

/// The JSON object a content list of one text block holds, if it holds one (a call's arguments
/// streamed as its content).
fn json_object_text(content: &[Value]) -> Option<Value> {
    let [block] = content else {
        return None;
    };
    let text = block
        .get("content")
        .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))?
        .get("text")?
        .as_str()?
        .trim();
    if !(text.starts_with('{') && text.ends_with('}')) {
        return None;
    }
    serde_json::from_str::<Value>(text)
        .ok()
        .filter(Value::is_object)
}

/// A text without the markdown code fence an adapter wraps output in (```` ```console ````).
fn unfence(text: &str) -> String {
    let t = text.trim();
    match (t.strip_prefix("```"), t.ends_with("```")) {
        (Some(rest), true) if rest.len() >= 3 => {
            let body = &rest[..rest.len() - 3];
            // The fence's first line may name a language.
            body.split_once('\n')
                .map_or(body, |(_, b)| b)
                .trim_end_matches('\n')
                .to_owned()
        }
        _ => text.to_owned(),
    }
}

/// `mcp__server__tool` (Claude's spelling, kept by its adapter) → (server, tool).
fn mcp_parts(name: &str) -> Option<(String, String)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then(|| (server.to_owned(), tool.to_owned()))
}

/// An MCP invocation as some adapters pass it in `rawInput`: `{server, tool, arguments}`
/// (codex-acp) → (server, tool, arguments).
fn mcp_invocation(input: Option<&Value>) -> Option<(String, String, Value)> {
    let o = input?.as_object()?;
    let server = o.get("server")?.as_str()?;
    let tool = o.get("tool")?.as_str()?;
    let args = o.get("arguments")?;
    (!server.is_empty() && !tool.is_empty())
        .then(|| (server.to_owned(), tool.to_owned(), args.clone()))
}

/// An MCP call's identity and its own arguments (`None`: the call's `rawInput` as it is): from an
/// `mcp__server__tool` name, an invocation input, or a declared server's `<server>_<tool>`.
fn mcp_identity(view: &CallView, name: Option<&str>) -> Option<(McpRef, Option<Value>)> {
    if let Some((server, tool)) = name.and_then(mcp_parts) {
        return Some((McpRef { server, tool }, None));
    }
    if let Some((server, tool, args)) = mcp_invocation(view.raw_input.as_ref()) {
        return Some((McpRef { server, tool }, Some(args)));
    }
    view.declared_mcp.clone().map(|m| (m, None))
}

/// The contract kind of a call: from its name where that says more than ACP's kind.
fn kind(view: &CallView, name: Option<&str>, mcp: Option<&McpRef>) -> ToolKind {
    if let Some(m) = mcp {
        return titles::mcp_kind(&m.server, &m.tool);
    }
    match name.map(str::to_ascii_lowercase).as_deref() {
        Some("todowrite" | "todo_write" | "todowrite_tool" | "update_plan") => ToolKind::Todo,
        Some("task" | "agent") => ToolKind::Subagent,
        Some("websearch" | "web_search") => ToolKind::WebSearch,
        Some("webfetch" | "web_fetch") => ToolKind::Browser,
        Some("write") => ToolKind::FileWrite,
        _ => kind_of_acp_kind(view.kind.as_deref().unwrap_or("other")),
    }
}

/// The part a `plan` update makes: ACP's plan has no tool call, so (as for `codex app-server`'s
/// `turn/plan/updated`) one `todo` part per prompt turn, `plan-<turn>`, updated in place with the
/// entries as its input.
pub(crate) fn plan_update(id: &str, entries: &Value) -> crate::providers::PartUpdate {
    let list = entries.as_array().map(Vec::as_slice).unwrap_or_default();
    let done = list
        .iter()
        .filter(|e| e.get("status").and_then(Value::as_str) == Some("completed"))
        .count();
    crate::providers::PartUpdate {
        name: Some("plan".to_owned()),
        kind: Some(ToolKind::Todo),
        title: Some(titles::todo(list.len(), done)),
        input: Some(json!({"entries": entries})),
        state: Some(ToolState::Running),
        metadata: Some(ToolMetadata {
            provider_type: Some("plan".to_owned()),
            ..ToolMetadata::default()
        }),
        ..crate::providers::PartUpdate::new(id)
    }
}

/// The part's fields as derived from ACP's own: name, kind, title, input, output, error, state,
/// metadata (no timing: ACP has none).
pub(crate) struct Derived {
    pub name: String,
    pub kind: ToolKind,
    pub title: String,
    pub input: Value,
    pub output: Option<Value>,
    pub error: Option<ToolError>,
    pub state: ToolState,
    pub metadata: ToolMetadata,
}

/// Derive a part from what ACP said of the call. `declined`: the client rejected its
/// permission request.
pub(crate) fn derive(view: &CallView, declined: Option<&str>) -> Derived {
    let name = view.tool_name();
    let acp_kind = view.kind.clone().unwrap_or_else(|| "other".to_owned());
    let mcp = mcp_identity(view, name.as_deref());
    let kind = kind(view, name.as_deref(), mcp.as_ref().map(|(m, _)| m));
    let mut state = view.state();
    if declined.is_some() {
        state = ToolState::Error;
    }
    let text = view.content_text();
    // The content of a call still running is what it is about (a description), not its result.
    let output = match state {
        ToolState::Error => None,
        ToolState::Started | ToolState::Running => view.raw_output.clone(),
        ToolState::Complete => view
            .raw_output
            .clone()
            .or_else(|| {
                let diffs = view.diffs();
                (!diffs.is_empty()).then_some(Value::Array(diffs))
            })
            .or_else(|| text.clone().map(Value::String)),
    };
    let error = (state == ToolState::Error).then(|| {
        let from_output = view.raw_output.as_ref().and_then(|o| match o {
            Value::String(s) => Some(s.clone()),
            _ => ["error", "message", "stderr"]
                .iter()
                .find_map(|k| o.get(*k).and_then(Value::as_str).map(str::to_owned)),
        });
        let message = from_output
            .as_deref()
            .and_then(first_line)
            .or_else(|| text.as_deref().and_then(first_line))
            .unwrap_or_else(|| match declined {
                Some(_) => "the user declined the tool call".to_owned(),
                None => "the tool call failed".to_owned(),
            });
        ToolError {
            message,
            code: declined.map(|_| "declined".to_owned()),
            details: view
                .raw_output
                .clone()
                .or_else(|| text.clone().map(Value::String)),
        }
    });
    let mut metadata = ToolMetadata {
        provider_type: Some("tool_call".to_owned()),
        ..ToolMetadata::default()
    };
    metadata.parent_tool_use_id = view.parent();
    // An MCP tool's name is the tool's own, its server in `metadata.mcp`; its own arguments (of
    // an invocation input) are the call's input.
    let raw_name = name.clone();
    let mut name = name;
    let mut input = view.raw_input.clone().unwrap_or_else(|| json!({}));
    if let Some((m, args)) = &mcp {
        name = Some(m.tool.clone());
        if let Some(args) = args {
            input = args.clone();
        }
        metadata.mcp = Some(m.clone());
    }
    metadata
        .extra
        .insert("acpKind".to_owned(), Value::String(acp_kind.clone()));
    let name = name.unwrap_or(acp_kind);
    let sent = view.title.clone().filter(|t| !t.trim().is_empty());
    let title = match (&mcp, sent) {
        // An MCP call titled with nothing but its tool's name reads as the native ones do.
        (Some((m, _)), sent) => sent
            .filter(|t| {
                let names = [raw_name.as_deref(), Some(&m.tool)];
                !names.into_iter().flatten().any(|n| titles::restates(t, n))
                    && !titles::restates(t, &format!("{}_{}", m.server, m.tool))
            })
            .unwrap_or_else(|| titles::mcp(&m.server, &m.tool, &input)),
        (None, sent) => sent.unwrap_or_else(|| name.clone()),
    };
    Derived {
        name,
        kind,
        title,
        input,
        output,
        error,
        state,
        metadata,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(v: Value) -> CallView {
        let f: ToolCallFields = serde_json::from_value(v).unwrap();
        let mut c = CallView::default();
        c.apply(&f);
        c
    }

    #[test]
    fn an_adapter_s_tool_name_and_mcp_identity_are_read() {
        let v = view(
            json!({"toolCallId": "t", "title": "amalgm: browser_navigate",
            "kind": "other", "status": "completed",
            "_meta": {"claudeCode": {"toolName": "mcp__amalgm__browser_navigate"}},
            "content": [{"type": "content", "content": {"type": "text", "text": "ok"}}]}),
        );
        let d = derive(&v, None);
        assert_eq!(d.name, "browser_navigate");
        assert_eq!(d.kind, ToolKind::Browser);
        assert_eq!(d.metadata.mcp.unwrap().server, "amalgm");
        assert_eq!(d.output, Some(json!("ok")));
    }

    #[test]
    fn an_mcp_invocation_in_raw_input_gives_the_identity_and_the_arguments() {
        let v = view(
            json!({"toolCallId": "t", "title": "Tool: amalgm/browser_snapshot",
            "status": "completed",
            "rawInput": {"server": "amalgm", "tool": "browser_snapshot", "arguments": {"a": 1}}}),
        );
        let d = derive(&v, None);
        assert_eq!(
            (d.name.as_str(), d.kind),
            ("browser_snapshot", ToolKind::Browser)
        );
        assert_eq!(d.input, json!({"a": 1}));
        assert_eq!(d.metadata.mcp.unwrap().server, "amalgm");
    }

    #[test]
    fn fenced_output_is_unfenced_and_a_description_is_no_output() {
        assert_eq!(unfence("```console\nhello\n```"), "hello");
        assert_eq!(unfence("```\nExit code 3\nx\n```"), "Exit code 3\nx");
        assert_eq!(unfence("plain"), "plain");
        let v = view(
            json!({"toolCallId": "t", "title": "sh a", "kind": "execute",
            "status": "in_progress",
            "content": [{"type": "content", "content": {"type": "text", "text": "Run a"}}]}),
        );
        assert_eq!(derive(&v, None).output, None);
    }

    #[test]
    fn a_failed_call_takes_its_message_from_content_and_a_declined_one_says_so() {
        let v = view(
            json!({"toolCallId": "t", "title": "Run false", "kind": "execute",
            "status": "failed", "rawOutput": "Exit code 3\nboom",
            "content": [{"type": "content", "content": {"type": "text", "text": "```\nExit code 3\nboom\n```"}}]}),
        );
        let d = derive(&v, None);
        assert_eq!(d.state, ToolState::Error);
        assert_eq!(d.error.as_ref().unwrap().message, "Exit code 3");
        assert_eq!(d.output, None);
        assert_eq!(d.name, "execute", "no name sent: ACP's kind stands in");
        let v = view(json!({"toolCallId": "t", "title": "Write a", "kind": "edit"}));
        let d = derive(&v, Some("reject_once"));
        assert_eq!(d.error.unwrap().code.as_deref(), Some("declined"));
    }
}
