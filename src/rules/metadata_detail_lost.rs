//! TN008: metadata keeps the provider detail the contract names.

use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// Every part records the provider's raw item type in `metadata.providerType`; a Codex web
    /// search whose raw item carried a typed `action` keeps it in `metadata.action`; an OpenCode
    /// `task` whose raw state named a child session keeps it in `metadata.childSessionId`.
    /// (MCP server and tool are checked by `McpIdentity`.)
    ///
    /// ## Why
    /// Contract rule 8: metadata preserves useful provider detail without expanding the core
    /// shape — the UI links a subagent to its child session, shows the page a search opened, and
    /// debugging starts from the raw item type.
    ///
    /// ## Example
    /// Raw: OpenCode `task` part with `state.metadata.sessionId: "ses_child"`.
    /// Violation: no `metadata.childSessionId`. Conforming:
    /// `metadata: {"providerType":"tool","childSessionId":"ses_child"}`.
    pub(crate) struct MetadataDetailLost {
        code: "TN008",
        summary: "metadata keeps provider detail: raw item type, Codex web action, OpenCode child session",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let raw = cx.raw();
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        let meta = part.metadata.as_ref();
        let line = cx.first_event_line(&part.id);
        if meta
            .and_then(|m| m.provider_type.as_deref())
            .is_none_or(|t| t.trim().is_empty())
        {
            out.push(Finding::new(
                line,
                Some(&part.id),
                "metadata.providerType (the raw item type) is missing",
            ));
        }
        let Some(call) = raw.get(&part.id) else {
            continue;
        };
        if call.web_action && meta.and_then(|m| m.action.as_ref()).is_none() {
            out.push(Finding::new(
                line,
                Some(&part.id),
                "the raw web search has a typed action but metadata.action is missing",
            ));
        }
        if let Some(child) = &call.child_session {
            let kept = meta.and_then(|m| m.child_session_id.as_deref());
            if kept != Some(child.as_str()) {
                out.push(Finding::new(
                    line,
                    Some(&part.id),
                    format!("metadata.childSessionId should be `{child}`, found {kept:?}"),
                ));
            }
        }
    }
    out
}
