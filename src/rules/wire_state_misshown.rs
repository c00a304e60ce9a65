//! TN022: the wire shows each call in the legacy state its part has.

use super::wire::{Frame, legacy_name};
use super::{Finding, RuleContext, declare_rule};
use crate::model::{LegacyState, LegacyToolPart};

declare_rule! {
    /// ## What it checks
    /// When an implementation answers in a wire, the state a consumer shows each call in after
    /// the last frame that sets it, read from the wire's own fields (`calling` until a result;
    /// `output-available` for a final `tool-output-available`, `TOOL_CALL_RESULT` or ACP
    /// `completed`; `output-error` for `tool-output-error`, `tool-output-denied`,
    /// `tool-input-error`, ACP `failed`, or an AG-UI result whose `metadata.toolnorm.state` is
    /// `error`, AG-UI having no field of its own for a failure) is the legacy state the call
    /// should have:
    /// - a call shown `output-available` did not fail: neither the raw stream (a failure marker),
    ///   the answer's parts, nor the frame's own extension slot (`toolMetadata.error`,
    ///   `_meta.toolnorm.error`) says it did;
    /// - a call shown finished is not still running in the answer's parts;
    /// - a call shown `output-error` did not succeed in the answer's parts.
    ///
    /// ## Why
    /// The legacy view (`calling / output-available / output-error`) is what the UI renders. The
    /// state rename happens in the mapping to the wire, and that is where a failed call gets shown
    /// as a success (a `tool-output-available` carrying the error text) or a running call as
    /// finished.
    ///
    /// ## Example
    /// Violation: a `tool_result` with `is_error: true` answered as
    /// `{"type":"tool-output-available","toolCallId":"t1","output":"Exit code 2"}`.
    /// Conforming: `{"type":"tool-output-error","toolCallId":"t1","errorText":"Exit code 2"}`.
    pub(crate) struct WireStateMisshown {
        code: "TN022",
        summary: "the wire shows each call in the legacy state its part has",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let Some(w) = cx.wire() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for id in w.calls() {
        let Some((last, shown)) = w.of(id).filter_map(|f| f.shows.map(|s| (f, s))).last() else {
            continue;
        };
        let part = cx.doc.parts.iter().find(|p| p.id == id);
        let meant = part.map(|p| LegacyToolPart::state_of(p).0);
        let call = cx.raw().get(id);
        let line = call.map(|c| c.line).or_else(|| cx.first_event_line(id));
        let at = |f: &Frame| format!("{} frame {} (`{}`)", w.wire.as_str(), f.index + 1, f.ty);
        let message = match (shown, meant) {
            (LegacyState::OutputAvailable, _) => {
                let why = if let Some(l) = call.and_then(|c| c.failed_line) {
                    Some(format!("raw line {l} marks it failed"))
                } else if meant == Some(LegacyState::OutputError) {
                    Some("the answer's part is `error`".to_owned())
                } else if last.ext_error {
                    Some("the frame's own extension slot carries an error".to_owned())
                } else {
                    None
                };
                why.map(|why| format!("error shown as `output-available` by {}: {why}", at(last)))
            }
            (LegacyState::OutputError, Some(LegacyState::OutputAvailable)) => Some(format!(
                "success shown as `output-error` by {}: the answer's part is `complete`",
                at(last)
            )),
            (LegacyState::OutputError, Some(LegacyState::Calling)) => Some(format!(
                "running call shown finished (`output-error`) by {}: the answer's part is `{}`",
                at(last),
                part.map_or("running", |p| p.state.as_str())
            )),
            _ => None,
        };
        // A result shown `output-available` for a call the parts say still runs.
        let message = message.or_else(|| {
            (shown == LegacyState::OutputAvailable && meant == Some(LegacyState::Calling)).then(
                || {
                    format!(
                        "running call shown finished (`{}`) by {}: the answer's part is `{}`",
                        legacy_name(shown),
                        at(last),
                        part.map_or("running", |p| p.state.as_str())
                    )
                },
            )
        });
        if let Some(m) = message {
            out.push(Finding::new(line, Some(id), m));
        }
    }
    out
}
