//! TN002: `name` is the provider's explicit tool name, not a guess.

use super::support::ident;
use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// When the raw stream names the tool explicitly (Claude `tool_use.name`, OpenCode
    /// `part.tool`, Codex MCP / dynamic / collab `tool`, rollout `function_call.name`), the part's
    /// `name` is that name — compared ignoring case and separators, with an MCP prefix
    /// (`mcp__server__`, OpenCode `server_`) stripped, and with the few canonical renames the
    /// contract's examples use (Codex `shell` / `exec_command` as `Bash`, `Task` as `Agent`).
    ///
    /// ## Why
    /// Contract rule 2: `name` must not be guessed from the input when the provider gave an
    /// explicit name. A normalizer that calls `Bash` with `cat x` a `Read` hides what actually ran
    /// and breaks grouping by tool.
    ///
    /// ## Example
    /// Raw: `{"type":"tool_use","name":"Bash","input":{"command":"cat README.md"}}`.
    /// Violation: `name: "Read"`. Conforming: `name: "Bash"`.
    pub(crate) struct GuessedName {
        code: "TN002",
        summary: "name is the provider's explicit tool name, not guessed from the input",
        check: check,
    }
}

/// Names that are the same tool under a canonical spelling (compared as [`ident`]s).
const ALIASES: &[&[&str]] = &[
    &[
        "bash",
        "shell",
        "execcommand",
        "localshellcall",
        "containerexec",
        "commandexecution",
    ],
    &["applypatch", "patch", "filechange", "edit"],
    &["task", "agent"],
    &["websearch", "websearchcall"],
    &["updateplan", "todowrite", "todolist"],
];

fn same_tool(a: &str, b: &str) -> bool {
    a == b
        || ALIASES
            .iter()
            .any(|group| group.contains(&a) && group.contains(&b))
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let raw = cx.raw();
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        let Some(call) = raw.get(&part.id) else {
            continue;
        };
        let Some(raw_name) = call.name.as_deref() else {
            continue;
        };
        let name = ident(&part.name);
        let mut accepted = vec![ident(raw_name)];
        if let Some((_, tool)) = &call.mcp {
            accepted.push(ident(tool));
        }
        // OpenCode MCP tools are `<server>_<tool>` with no separate field; the part's own MCP
        // metadata says where the prefix ends.
        if let Some(mcp) = part.metadata.as_ref().and_then(|m| m.mcp.as_ref())
            && raw_name.ends_with(&mcp.tool)
        {
            accepted.push(ident(&mcp.tool));
        }
        if accepted.iter().any(|a| same_tool(a, &name)) {
            continue;
        }
        out.push(Finding::new(
            cx.first_event_line(&part.id).or(Some(call.line)),
            Some(&part.id),
            format!("name `{}` is not the raw tool name `{raw_name}`", part.name),
        ));
    }
    out
}
