//! TN011: no call the raw stream marks failed is shown as `complete`.

use crate::model::ToolState;

use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// A call the raw stream marks failed is not `complete`. Failure markers, per provider:
    /// Claude `tool_result.is_error: true`, and a background call's task ending `failed`,
    /// `killed` or `stopped` or with a non-zero `(exit code N)`, wherever the stream says so (a
    /// `system` `task_notification`, a `<task-notification>` block in a transcript's queued
    /// command or a user message, linked by `<tool-use-id>` or by the task id of the launch);
    /// Codex `status` `failed` / `declined`, a non-zero exit
    /// code, an MCP `error` or `Err` result, `patch_apply_end.success: false`; OpenCode
    /// `state.status: "error"` or a `bash` call whose `metadata.exit` is non-zero.
    ///
    /// ## Why
    /// Showing a failed command with a green tick is the worst lie a tool view can tell: the user
    /// trusts work that did not happen. The check reads the raw stream on its own, so a
    /// normalizer that drops the error flag cannot hide it.
    ///
    /// ## Example
    /// Raw: `{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":"Exit code 1"}`.
    /// Violation: part `toolu_1` has `state: "complete"`. Conforming: `state: "error"` with
    /// `error.message`.
    pub(crate) struct FailedShownComplete {
        code: "TN011",
        summary: "no call the raw stream marks failed is shown as complete",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let raw = cx.raw();
    let mut out = Vec::new();
    for part in cx
        .doc
        .parts
        .iter()
        .filter(|p| p.state == ToolState::Complete)
    {
        if let Some(line) = raw.get(&part.id).and_then(|c| c.failed_line) {
            out.push(Finding::new(
                Some(line),
                Some(&part.id),
                "the raw stream marks this call failed but the part is `complete`",
            ));
        }
    }
    out
}
