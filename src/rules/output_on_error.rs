//! TN006: `output` carries successful results only.

use crate::model::ToolState;

use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// A part in state `error` has no `output`: the failure payload belongs in `error`
    /// (`message`, `code`, `details`), never in `output`.
    ///
    /// ## Why
    /// Contract rule 6: `output` is only successful result data. A renderer that shows `output`
    /// as the result would present an error text as if the tool had succeeded, and the legacy
    /// view would carry both `output` and `errorText`.
    ///
    /// ## Example
    /// Violation: `{"state":"error","output":"Exit code 1\nnot found","error":{"message":"Exit code 1"}}`.
    /// Conforming: `{"state":"error","error":{"message":"Exit code 1","details":"not found"}}`.
    pub(crate) struct OutputOnError {
        code: "TN006",
        summary: "output is only successful result data (no output on an error part)",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    cx.doc
        .parts
        .iter()
        .filter(|p| p.state == ToolState::Error && p.output.is_some())
        .map(|p| {
            let line = cx.line_of_state(&p.id, |s| s == ToolState::Error);
            Finding::new(
                line,
                Some(&p.id),
                "part is in state `error` but carries `output`; put the failure in `error`",
            )
        })
        .collect()
}
