//! TN004: the title is a human line, not the raw tool name.

use super::support::{ident_is_empty, same_ident};
use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// The `title` is not the tool's name in any case or spacing: not the part's `name`, not the
    /// raw tool name (`mcp__amalgm__browser_snapshot`), not the bare MCP tool.
    ///
    /// ## Why
    /// Contract rule 4: `title` is the human line; prefer action text over raw names. A row that
    /// reads `Bash` or `browser_snapshot` tells the user nothing the icon did not already say;
    /// `Running cargo test` or `Reading browser page` does.
    ///
    /// ## Example
    /// Raw: Codex `mcpToolCall {server:"amalgm", tool:"browser_snapshot"}`.
    /// Violation: `title: "browser_snapshot"`. Conforming: `title: "Reading browser page"`.
    pub(crate) struct RawNameTitle {
        code: "TN004",
        summary: "title is action text, not the raw tool name",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let raw = cx.raw();
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        if ident_is_empty(&part.title) {
            continue; // an empty title is BadTitleShape's finding
        }
        let call = raw.get(&part.id);
        let mut names = vec![part.name.as_str()];
        names.extend(call.and_then(|c| c.name.as_deref()));
        names.extend(call.and_then(|c| c.mcp.as_ref()).map(|(_, t)| t.as_str()));
        names.extend(
            part.metadata
                .as_ref()
                .and_then(|m| m.mcp.as_ref())
                .map(|m| m.tool.as_str()),
        );
        if let Some(n) = names.into_iter().find(|n| same_ident(n, &part.title)) {
            out.push(Finding::new(
                cx.first_event_line(&part.id),
                Some(&part.id),
                format!(
                    "title `{}` is the tool name `{n}`; say what the call does",
                    part.title
                ),
            ));
        }
    }
    out
}
