//! TN010: every tool call of the raw stream appears exactly once among the parts.

use super::support::HashMap;

use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// Every tool call the raw stream holds (found by an independent scan of the raw lines, not by
    /// the normalizer) has exactly one part with its id: no call is lost, and no call is split
    /// into two parts.
    ///
    /// ## Why
    /// A lost call is a tool the user never sees run; a duplicated one shows twice (the classic
    /// case: Claude's partial `content_block_start` and the full `assistant` message carry the
    /// same `tool_use` id, OpenCode re-sends the whole part on every update). Either way the UI
    /// lies about what the agent did.
    ///
    /// ## Example
    /// Raw: two `tool_use` blocks `toolu_1` and `toolu_2` in one assistant message.
    /// Violation: parts only for `toolu_1`. Conforming: one part each.
    pub(crate) struct LostCall {
        code: "TN010",
        summary: "every raw tool call has exactly one part (none lost, none duplicated)",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let raw = cx.raw();
    let mut out = Vec::new();
    // Parts per id, counted once: a lookup per raw call, not a pass over every part.
    let mut parts: HashMap<&str, usize> =
        HashMap::with_capacity_and_hasher(cx.doc.parts.len(), Default::default());
    for p in &cx.doc.parts {
        *parts.entry(p.id.as_str()).or_default() += 1;
    }
    for call in &raw.calls {
        let n = parts.get(call.id.as_str()).copied().unwrap_or(0);
        let what = call
            .name
            .as_deref()
            .or(call.item_type.as_deref())
            .unwrap_or("tool");
        match n {
            1 => {}
            0 => out.push(Finding::new(
                Some(call.line),
                Some(&call.id),
                format!("raw tool call `{what}` has no part"),
            )),
            n => out.push(Finding::new(
                Some(call.line),
                Some(&call.id),
                format!("raw tool call `{what}` has {n} parts; one call is one part"),
            )),
        }
    }
    out
}
