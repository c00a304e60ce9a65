//! TN015: every ACP frame carries the fields the compatibility path promises.

use serde_json::Value;

use crate::model::{AcpFrame, NormalizedToolPart, ToolError, ToolState};

use super::shape::{Shape, top_level};
use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// The ACP frame of every part (`AcpFrame` serialized to JSON) carries all of `toolName`
    /// (non-empty), `kind`, `title`, `rawInput` (not null), `rawOutput`, `error`, `metadata` and
    /// `timing` as keys, and an `error` part's frame has a non-null `error`. `rawOutput` may be
    /// `null` on a `complete` part: the contract's `output` is optional (a web search or a
    /// command that printed nothing has no result payload, and toolnorm never invents one).
    ///
    /// ## Why
    /// Contract, compatibility path step 2: ACP frames carry `toolName`, `kind`, `title`,
    /// `rawInput`, `rawOutput`, `error`, `metadata`, `timing`. Consumers of the frames read these
    /// keys without guessing; a failed call whose frame has no error cannot be rendered as
    /// failed, and a frame without a tool name cannot be rendered at all.
    ///
    /// ## Example
    /// Violation: a part `{"state":"error"}` without `error` → frame `"error": null`.
    /// Conforming: `{"state":"error","error":{"message":"Exit code 1"}}`.
    pub(crate) struct AcpFrameIncomplete {
        code: "TN015",
        summary: "every ACP frame carries toolName, kind, title, rawInput, rawOutput, error, metadata, timing",
        check: check,
    }
}

/// Keys that must be present in every frame, possibly `null`.
const KEYS: &[&str] = &["rawOutput", "error"];
/// Keys that must hold a value in every frame.
const ALWAYS: &[&str] = &[
    "toolName", "kind", "title", "rawInput", "metadata", "timing",
];

/// The part with its payloads (input, output, error details) replaced by `true`, or `null` where
/// they are null, and without its timing and metadata (the frame writes both as objects, empty or
/// not): the frame's keys and which of them are null do not depend on what these hold, and a
/// command's whole output is not copied and serialized only to be looked at.
fn stand_in(part: &NormalizedToolPart) -> NormalizedToolPart {
    let mark = |v: &Value| {
        if v.is_null() {
            Value::Null
        } else {
            Value::Bool(true)
        }
    };
    NormalizedToolPart {
        input: mark(&part.input),
        output: part.output.as_ref().map(mark),
        error: part.error.as_ref().map(|e| ToolError {
            message: e.message.clone(),
            code: e.code.clone(),
            details: e.details.as_ref().map(mark),
        }),
        id: part.id.clone(),
        name: part.name.clone(),
        kind: part.kind,
        title: part.title.clone(),
        state: part.state,
        // The frame always carries both as objects (empty when the part has none).
        timing: None,
        metadata: None,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        let line = cx.first_event_line(&part.id);
        // The frame's keys and the shape of each, as serialized, without building it as JSON.
        let Some(frame) = top_level(&AcpFrame::from(&stand_in(part))) else {
            out.push(Finding::new(
                line,
                Some(&part.id),
                "ACP frame does not serialize to an object",
            ));
            continue;
        };
        let shape = |k: &str| frame.iter().find(|(key, _)| key == k).map(|(_, s)| *s);
        let present = |k: &str| shape(k).is_some_and(|s| s != Shape::Null);
        let mut missing: Vec<&str> = ALWAYS.iter().copied().filter(|k| !present(k)).collect();
        missing.extend(KEYS.iter().copied().filter(|k| shape(k).is_none()));
        if shape("toolName") == Some(Shape::Str { blank: true }) {
            missing.push("toolName (empty)");
        }
        if part.state == ToolState::Error && !present("error") {
            missing.push("error");
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
