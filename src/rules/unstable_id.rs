//! TN001: part ids are unique, non-empty and are the provider's own call ids.

use super::support::HashSet;

use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// Every part has a non-empty `id`, no two parts share one, and each id is the id the raw
    /// stream gives the call (Claude `tool_use.id`, Codex `item.id` / `call_id`, OpenCode
    /// `part.callID || part.id`).
    ///
    /// ## Why
    /// Contract rule 1: `id` must be stable for the whole lifecycle. The UI updates a part in place
    /// by id; an id the normalizer invented (a counter, a hash of the line) changes when the
    /// stream is re-read or resumed, and two parts with one id overwrite each other.
    ///
    /// ## Example
    /// Raw: `{"type":"tool_use","id":"toolu_01A","name":"Bash",...}`.
    /// Violation: the part's id is `tool-1`. Conforming: the part's id is `toolu_01A`.
    pub(crate) struct UnstableId {
        code: "TN001",
        summary: "part ids are unique, non-empty and the provider's own call ids",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let raw = cx.raw();
    let mut out = Vec::new();
    let mut seen = HashSet::default();
    for part in &cx.doc.parts {
        let line = cx.first_event_line(&part.id);
        if part.id.trim().is_empty() {
            out.push(Finding::new(
                line,
                None,
                format!("part `{}` has an empty id", part.name),
            ));
            continue;
        }
        if !seen.insert(part.id.as_str()) {
            out.push(Finding::new(
                line,
                Some(&part.id),
                "two parts share this id",
            ));
        }
        if raw.get(&part.id).is_none() {
            out.push(Finding::new(
                line,
                Some(&part.id),
                "id is not the id of any tool call in the raw stream (use the provider's call id)",
            ));
        }
    }
    out
}
