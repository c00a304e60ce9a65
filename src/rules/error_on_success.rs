//! TN007: `error` is present exactly when the part failed, and says what went wrong.

use crate::model::ToolState;

use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// `error` is set if and only if `state` is `error`, and `error.message` is a non-empty line.
    ///
    /// ## Why
    /// Contract rule 7: `error` is only failure data. An `error` on a completed part makes the UI
    /// show a failure for a call that worked; an `error` state without a message leaves the user
    /// with a red icon and nothing to read.
    ///
    /// ## Example
    /// Violation: `{"state":"complete","error":{"message":"warning: deprecated"}}` or
    /// `{"state":"error","error":{"message":""}}`.
    /// Conforming: `{"state":"error","error":{"message":"Exit code 1","code":"1"}}`.
    pub(crate) struct ErrorOnSuccess {
        code: "TN007",
        summary: "error is present exactly on failed parts and has a non-empty message",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in &cx.doc.parts {
        let failed = p.state == ToolState::Error;
        match (&p.error, failed) {
            (Some(_), false) => out.push(Finding::new(
                cx.first_event_line(&p.id),
                Some(&p.id),
                format!(
                    "part is `{}` but carries `error`; error is only failure data",
                    p.state.as_str()
                ),
            )),
            (None, true) => out.push(Finding::new(
                cx.line_of_state(&p.id, |s| s == ToolState::Error),
                Some(&p.id),
                "part is in state `error` without an `error`",
            )),
            (Some(e), true) if e.message.trim().is_empty() => out.push(Finding::new(
                cx.line_of_state(&p.id, |s| s == ToolState::Error),
                Some(&p.id),
                "`error.message` is empty",
            )),
            _ => {}
        }
    }
    out
}
