//! TN015: every ACP frame carries the fields the compatibility path promises.

use serde_json::Value;

use crate::model::{AcpFrame, ToolState};

use super::support::first_line;
use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// The ACP frame of every part (`AcpFrame` serialized to JSON) carries `toolName` (non-empty),
    /// `kind`, `title`, `rawInput` (not null), `metadata` and `timing`; a `complete` part's frame
    /// carries a non-null `rawOutput` and an `error` part's frame a non-null `error`.
    ///
    /// ## Why
    /// Contract, compatibility path step 2: ACP frames carry `toolName`, `kind`, `title`,
    /// `rawInput`, `rawOutput`, `error`, `metadata`, `timing`. Consumers of the frames read these
    /// keys without guessing; a finished call whose frame has neither output nor error cannot be
    /// rendered as finished.
    ///
    /// ## Example
    /// Violation: a `complete` part with no `output` → frame `"rawOutput": null`.
    /// Conforming: `output: ""` for a command that printed nothing.
    pub(crate) struct AcpFrameIncomplete {
        code: "TN015",
        summary: "every ACP frame carries toolName, kind, title, rawInput, rawOutput|error, metadata, timing",
        check: check,
    }
}

const ALWAYS: &[&str] = &[
    "toolName", "kind", "title", "rawInput", "metadata", "timing",
];

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        let line = first_line(cx.doc, &part.id);
        let frame = match serde_json::to_value(AcpFrame::from(part)) {
            Ok(Value::Object(m)) => m,
            Ok(_) | Err(_) => {
                out.push(Finding::new(
                    line,
                    Some(&part.id),
                    "ACP frame does not serialize to an object",
                ));
                continue;
            }
        };
        let present = |k: &str| frame.get(k).is_some_and(|v| !v.is_null());
        let mut missing: Vec<&str> = ALWAYS.iter().copied().filter(|k| !present(k)).collect();
        if frame
            .get("toolName")
            .and_then(Value::as_str)
            .is_some_and(|n| n.trim().is_empty())
        {
            missing.push("toolName (empty)");
        }
        match part.state {
            ToolState::Complete if !present("rawOutput") => missing.push("rawOutput"),
            ToolState::Error if !present("error") => missing.push("error"),
            _ => {}
        }
        if !missing.is_empty() {
            out.push(Finding::new(
                line,
                Some(&part.id),
                format!(
                    "`{}` ACP frame lacks {}",
                    part.state.as_str(),
                    missing.join(", ")
                ),
            ));
        }
    }
    out
}
