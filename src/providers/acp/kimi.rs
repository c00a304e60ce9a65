//! What `kimi acp` (Kimi CLI, `Kimi Code CLI` in its `initialize` response) says of a call, read
//! with Kimi's own tool table. Kimi titles a call `<Tool>: <key argument>` (`Shell: sh greet.sh`,
//! `ReadFile: notes.txt`) or the tool's bare name, gives no `kind` and no `rawInput`: the call's
//! arguments are the JSON text of its content while it runs, replaced by its result when it
//! ends. The part gets the tool's name, a kind, and a title from its arguments, as a native
//! dialect gives them; an MCP tool (Kimi names it by the tool's own name) gets the MCP kind and
//! title.

use serde_json::Value;

use super::tools::{CallView, Derived};
use crate::model::McpRef;
use crate::providers::kimi::tools::describe;
use crate::providers::titles;

/// The name `kimi acp` gives itself in `initialize` (`agentInfo.name`).
pub(crate) const AGENT_NAME: &str = "Kimi Code CLI";

/// Refine the part derived from ACP's fields for a `kimi acp` call. `servers`: the MCP servers
/// the client declared; a call of a tool Kimi does not have is one of theirs when there is one
/// server (Kimi does not say which server a tool is from).
pub(crate) fn refine_acp(d: &mut Derived, view: &CallView, cwd: Option<&str>, servers: &[String]) {
    let Some(title) = view.title.as_deref() else {
        return;
    };
    let tool = title.split_once(": ").map_or(title, |(t, _)| t).trim();
    let input = match (&view.raw_input, &view.content_input) {
        (Some(v @ Value::Object(_)), _) | (None, Some(v)) => v.clone(),
        _ => Value::Object(Default::default()),
    };
    if let Some((kind, title)) = describe(tool, &input, cwd) {
        d.name = tool.to_owned();
        d.kind = kind;
        d.title = title;
        d.input = input;
        return;
    }
    if let [server] = servers
        && !tool.is_empty()
        && !tool.contains(char::is_whitespace)
    {
        d.name = tool.to_owned();
        d.kind = titles::mcp_kind(server, tool);
        d.title = titles::mcp(server, tool, &input);
        d.input = input;
        d.metadata.mcp = Some(McpRef {
            server: server.clone(),
            tool: tool.to_owned(),
        });
    }
}
