//! TN013: no part is still started or running once the provider said the turn ended.

use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// When the raw stream says the turn is over, every part that began before that line is
    /// `complete` or `error` by that line (per its events). Turn ends: Claude's top-level
    /// `result` line; Codex `turn/completed` (per thread), `turn.completed` / `turn.failed`,
    /// rollout and legacy `task_complete` / `turn_aborted`; OpenCode `session.idle` and
    /// `session.status` idle (per session), `run`'s `step_finish` with reason `stop`.
    ///
    /// ## Why
    /// Providers do not always close interrupted calls: a Claude `tool_use` cut off by an
    /// interrupt never gets a `tool_result`, a Codex turn can end `interrupted` with items never
    /// completed. If the normalizer does not close them at the turn end, the UI shows a spinner
    /// that never stops.
    ///
    /// ## Example
    /// Raw: `tool_use` `toolu_1` on line 2, no `tool_result`, `{"type":"result",...}` on line 3.
    /// Violation: part `toolu_1` still `running` after line 3.
    /// Conforming: an event on line 3 (or earlier) moving it to `error` ("interrupted").
    pub(crate) struct RunningAfterTurnEnd {
        code: "TN013",
        summary: "no part is still started/running after the provider said the turn ended",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let raw = cx.raw();
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        let call = raw.get(&part.id);
        let scope = call.and_then(|c| c.scope.as_deref());
        let background = call.is_some_and(|c| c.background);
        for end in &raw.turn_ends {
            // Work that goes on in the background ends with its own task, not the turn.
            if background && end.scope.as_deref() != scope {
                continue;
            }
            if let (Some(a), Some(b)) = (scope, end.scope.as_deref()) {
                if a != b {
                    continue;
                }
            }
            let mut began = false;
            let mut state = None;
            for e in cx.events_of(&part.id).take_while(|e| e.line <= end.line) {
                began |= e.line < end.line;
                state = Some(e.state);
            }
            if began && state.is_some_and(|s| !s.is_terminal()) {
                out.push(Finding::new(
                    Some(end.line),
                    Some(&part.id),
                    format!(
                        "part is still `{}` when the turn ends on line {}",
                        state.map_or("?", |s| s.as_str()),
                        end.line
                    ),
                ));
                break;
            }
        }
    }
    out
}
