//! TN014: the legacy UI view of every part is total and consistent.

use crate::model::{LegacyState, LegacyToolPart};

use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// Every part maps to the UI's legacy `ToolPart` (`LegacyState::from` is total: `started` and
    /// `running` are `calling`, `complete` is `output-available`, `error` is `output-error`),
    /// the legacy state serializes to one of those three names, and the view is consistent:
    /// `output-error` if and only if `errorText` is present and non-empty; `output-available`
    /// never carries `errorText`.
    ///
    /// ## Why
    /// The compatibility path (contract, step 3) feeds the existing renderer from the new fields
    /// while it still speaks the old state names. The rename is only safe when every fixture maps
    /// cleanly: an `output-error` without text renders an empty error box, a success with
    /// `errorText` renders as failed in the old UI.
    ///
    /// ## Example
    /// Violation: `{"state":"error"}` with no `error` → legacy `output-error` without
    /// `errorText`. Conforming: `{"state":"error","error":{"message":"Exit code 1"}}`.
    pub(crate) struct LegacyViewInconsistent {
        code: "TN014",
        summary: "legacy state mapping is total and output-error <=> errorText",
        check: check,
    }
}

const LEGACY_NAMES: &[&str] = &["calling", "output-available", "output-error"];

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        let line = cx.first_event_line(&part.id);
        let (state, error_text) = LegacyToolPart::state_of(part);
        let name = serde_json::to_value(state).ok();
        if !name
            .as_ref()
            .and_then(|v| v.as_str())
            .is_some_and(|n| LEGACY_NAMES.contains(&n))
        {
            out.push(Finding::new(
                line,
                Some(&part.id),
                format!("legacy state serializes as {name:?}"),
            ));
        }
        let has_text = error_text.is_some_and(|t| !t.trim().is_empty());
        match state {
            LegacyState::OutputError if !has_text => out.push(Finding::new(
                line,
                Some(&part.id),
                "legacy view is `output-error` without an `errorText`",
            )),
            LegacyState::OutputAvailable | LegacyState::Calling if error_text.is_some() => out
                .push(Finding::new(
                    line,
                    Some(&part.id),
                    format!(
                        "legacy view is `{}` but carries an `errorText`",
                        name.and_then(|v| v.as_str().map(str::to_owned))
                            .unwrap_or_default()
                    ),
                )),
            _ => {}
        }
    }
    out
}
