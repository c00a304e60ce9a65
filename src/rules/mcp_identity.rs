//! TN017: MCP calls carry their server and tool, and are named by the tool.

use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// A part the raw stream shows as an MCP call (Claude `mcp__<server>__<tool>`, Codex
    /// `mcpToolCall` / `mcp_tool_call` / `mcp_tool_call_begin`, an ACP call named
    /// `<server>_<tool>` after a server the client declared), or that claims to be one with
    /// `metadata.mcp`, has `metadata.mcp = {server, tool}` with both non-empty and equal to the
    /// raw server and tool, and its `name` is the bare tool (no `mcp__server__` prefix).
    ///
    /// ## Why
    /// Contract rule 8 and the MCP mapping: `mcp__<server>__<tool>` → `metadata.mcp`. The UI
    /// shows which server ran a tool and picks titles by tool; a name still holding the prefix,
    /// or a server lost, breaks both — and Claude server names may contain `_`, so the split must
    /// be on the first `__` after `mcp__`.
    ///
    /// ## Example
    /// Raw: `{"type":"tool_use","name":"mcp__jira__getIssue",...}`.
    /// Violation: `name: "mcp__jira__getIssue"`, no metadata. Conforming: `name: "getIssue"`,
    /// `metadata.mcp: {"server":"jira","tool":"getIssue"}`.
    pub(crate) struct McpIdentity {
        code: "TN017",
        summary: "MCP parts have metadata.mcp {server, tool} from the raw call and name == tool",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let raw = cx.raw();
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        let raw_mcp = raw.get(&part.id).and_then(|c| c.mcp.as_ref());
        let meta = part.metadata.as_ref().and_then(|m| m.mcp.as_ref());
        if raw_mcp.is_none() && meta.is_none() {
            continue;
        }
        let line = cx.first_event_line(&part.id);
        let Some(mcp) = meta else {
            out.push(Finding::new(
                line,
                Some(&part.id),
                "MCP call without metadata.mcp {server, tool}",
            ));
            continue;
        };
        if mcp.server.trim().is_empty() || mcp.tool.trim().is_empty() {
            out.push(Finding::new(
                line,
                Some(&part.id),
                "metadata.mcp has an empty server or tool",
            ));
        }
        if let Some((server, tool)) = raw_mcp
            && (&mcp.server != server || &mcp.tool != tool)
        {
            out.push(Finding::new(
                line,
                Some(&part.id),
                format!(
                    "metadata.mcp is {}/{} but the raw call is {server}/{tool}",
                    mcp.server, mcp.tool
                ),
            ));
        }
        if part.name != mcp.tool {
            out.push(Finding::new(
                line,
                Some(&part.id),
                format!("name `{}` is not the MCP tool `{}`", part.name, mcp.tool),
            ));
        }
    }
    out
}
