//! TN003: `kind` is the UI bucket the tool belongs to, and `unknown` only when nothing identifies it.

use crate::model::ToolKind;

use super::support::ident;
use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// The part's `kind` agrees with what the tool is: shells (`Bash`, `bash`, Codex
    /// `commandExecution`, `shell`, `exec_command`) are `bash` — or `file_read` for a Codex command
    /// the provider itself parsed as only reads, listings or searches (its `commandActions` /
    /// `parsed_cmd`), which is what the command does; web searches are `web_search`;
    /// `Read` is `file_read`; `Write` / `Edit` / patches are `file_write` or `file_edit`;
    /// `Task` / `Agent` / Codex collab calls are `subagent`; todo tools are `todo`; question tools
    /// are `question`; MCP tools named `browser_*` are `browser`, and any other MCP tool is not
    /// `unknown`. `unknown` is only for tools nothing identifies.
    ///
    /// ## Why
    /// Contract rule 3: `kind` is the stable taxonomy the UI picks icons and groups by. A shell
    /// call filed under `unknown`, or a browser MCP tool filed under `mcp`, renders with the wrong
    /// icon and escapes the grouping users filter by.
    ///
    /// ## Example
    /// Raw: Codex `{"type":"webSearch","id":"ws_1","query":"rust"}`.
    /// Violation: `kind: "unknown"`. Conforming: `kind: "web_search"`.
    pub(crate) struct IncoherentKind {
        code: "TN003",
        summary: "kind matches the tool (shell => bash, web search => web_search, browser_* MCP => browser...)",
        check: check,
    }
}

/// Kinds a tool may have, by tool name or raw item type (as an [`ident`]).
fn expected(id: &str) -> Option<&'static [ToolKind]> {
    use ToolKind::*;
    Some(match id {
        "bash" => &[Bash],
        // Codex parses its commands (`commandActions`, `parsed_cmd`): a pure read/list/search is
        // a file read even though it ran in a shell.
        "shell" | "execcommand" | "localshellcall" | "commandexecution" | "execcommandbegin"
        | "execcommandend" => &[Bash, FileRead],
        "read" | "notebookread" => &[FileRead],
        "write" => &[FileWrite, FileEdit],
        "edit" | "multiedit" | "notebookedit" | "applypatch" | "patch" | "filechange"
        | "patchapplybegin" | "patchapplyend" => &[FileEdit, FileWrite],
        "websearch" | "websearchcall" | "websearchbegin" | "websearchend" => &[WebSearch],
        "task" | "agent" | "collabagenttoolcall" | "collabtoolcall" => &[Subagent],
        "todowrite" | "todoread" | "todolist" | "updateplan" => &[Todo],
        "askuserquestion" | "question" => &[Question],
        _ => return None,
    })
}

fn names(list: &[ToolKind]) -> String {
    list.iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(" or ")
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let raw = cx.raw();
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        let call = raw.get(&part.id);
        let mcp_tool = call
            .and_then(|c| c.mcp.as_ref().map(|(_, t)| t.clone()))
            .or_else(|| {
                part.metadata
                    .as_ref()
                    .and_then(|m| m.mcp.as_ref())
                    .map(|m| m.tool.clone())
            });
        let line = cx.first_event_line(&part.id).or(call.map(|c| c.line));
        if let Some(tool) = mcp_tool {
            if tool.starts_with("browser_") && part.kind != ToolKind::Browser {
                out.push(Finding::new(
                    line,
                    Some(&part.id),
                    format!(
                        "kind `{}` for browser MCP tool `{tool}`, expected browser",
                        part.kind.as_str()
                    ),
                ));
            } else if part.kind == ToolKind::Unknown {
                out.push(Finding::new(
                    line,
                    Some(&part.id),
                    format!("kind `unknown` for MCP tool `{tool}`; an MCP call is at least `mcp`"),
                ));
            }
            continue;
        }
        // The raw item type is the strongest evidence, then the raw name, then the part's name.
        let candidates = [
            call.and_then(|c| c.item_type.as_deref()),
            call.and_then(|c| c.name.as_deref()),
            Some(part.name.as_str()),
        ];
        let Some((what, kinds)) = candidates
            .into_iter()
            .flatten()
            .find_map(|n| expected(&ident(n)).map(|k| (n, k)))
        else {
            continue;
        };
        if !kinds.contains(&part.kind) {
            out.push(Finding::new(
                line,
                Some(&part.id),
                format!(
                    "kind `{}` for `{what}`, expected {}",
                    part.kind.as_str(),
                    names(kinds)
                ),
            ));
        }
    }
    out
}
