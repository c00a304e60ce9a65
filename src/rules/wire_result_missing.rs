//! TN021: a call that finished has its result on the wire.

use super::wire::{Step, legacy_name};
use super::{Finding, RuleContext, declare_rule};
use crate::model::LegacyToolPart;

declare_rule! {
    /// ## What it checks
    /// When an implementation answers in a wire, every call that finished has a result frame:
    /// `tool-output-available` (not `preliminary`), `tool-output-error`, `tool-output-denied`
    /// or `tool-input-error` (AI SDK), `TOOL_CALL_RESULT` (AG-UI), a `completed` or `failed`
    /// status (ACP). A call finished when the answer's own parts say so (`complete` or `error`,
    /// e.g. through the wire's extension slot), when the raw stream marks it failed, or when the
    /// raw stream ends its turn after the call began (a call that runs in the background ends with
    /// its task, as for TN013).
    ///
    /// ## Why
    /// A consumer knows a call ended only from its result frame: without it the UI shows a
    /// spinner that never stops, whatever else the stream says. The issue is the wire mapping's,
    /// not the parts': an engine can have the right part and still never send its result.
    ///
    /// ## Example
    /// Violation: `tool-input-start` and `tool-input-available` for `t1`, then `finish`, on a raw
    /// stream whose `tool_result` for `t1` is followed by the turn's `result`.
    /// Conforming: a `tool-output-available` for `t1` before `finish`.
    pub(crate) struct WireResultMissing {
        code: "TN021",
        summary: "a finished call has its result frame on the wire",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let Some(w) = cx.wire() else {
        return Vec::new();
    };
    let raw = cx.raw();
    let tasks = raw.background_scopes();
    let mut out = Vec::new();
    for id in w.calls() {
        if w.of(id).any(|f| f.step == Step::Result) {
            continue;
        }
        let part = cx.doc.parts.iter().find(|p| p.id == id);
        let call = raw.get(id);
        let line = call.map(|c| c.line).or_else(|| cx.first_event_line(id));
        let why = if let Some(p) = part.filter(|p| p.state.is_terminal()) {
            format!(
                "the answer's part is `{}`, legacy `{}`",
                p.state.as_str(),
                legacy_name(LegacyToolPart::state_of(p).0)
            )
        } else if let Some(failed) = call.and_then(|c| c.failed_line) {
            format!("raw line {failed} marks it failed")
        } else if let Some(end) = call.and_then(|c| {
            let scope = c.scope.as_deref();
            raw.turn_ends
                .iter()
                .find(|e| e.line > c.line && e.ends(scope, c.background, &tasks))
        }) {
            format!("its turn ends on raw line {}", end.line)
        } else {
            continue;
        };
        out.push(Finding::new(
            line,
            Some(id),
            format!(
                "the call finished ({why}) but the {} answer has no result frame for it: a consumer shows it running",
                w.wire.as_str()
            ),
        ));
    }
    out
}
