//! TN013: no part is still started or running once the provider said the turn ended.

use super::{Finding, RuleContext, declare_rule};
use crate::model::PartEvent;

declare_rule! {
    /// ## What it checks
    /// When the raw stream says the turn is over, every part that began before that line is
    /// `complete` or `error` by that line (per its events). Turn ends: Claude's top-level
    /// `result` line; Codex `turn/completed` (per thread), `turn.completed` / `turn.failed`,
    /// rollout and legacy `task_complete` / `turn_aborted`; OpenCode `session.idle` and
    /// `session.status` idle (per session), `run`'s `step_finish` with reason `stop`.
    /// A Claude call that runs in the background ends with its own task (its notification),
    /// not with the turn; and its task's end ends that call only, not the turn of the others.
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
    let ends = &raw.turn_ends;
    // Turn ends come in line order from every scan; if not, every end is looked at.
    let sorted = ends.is_sorted_by_key(|e| e.line);
    let tasks = raw.background_scopes();
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        let events: Vec<&PartEvent> = cx.events_of(&part.id).collect();
        let (Some(first), Some(last)) = (events.first(), events.last()) else {
            continue;
        };
        // Events on lines in order too (they nearly always are) for the single walk below.
        let sorted = sorted && events.windows(2).all(|w| w[0].line <= w[1].line);
        let call = raw.get(&part.id);
        let scope = call.and_then(|c| c.scope.as_deref());
        let background = call.is_some_and(|c| c.background);
        // The part began before an end only if its first event is on an earlier line.
        let from = if sorted {
            ends.partition_point(|e| e.line <= first.line)
        } else {
            0
        };
        // Events up to the end being looked at: ends are visited in line order, so the events
        // are walked once.
        let mut seen = 0;
        let mut state = None;
        for end in &ends[from..] {
            if sorted && end.line > last.line && last.state.is_terminal() {
                // Every later end finds the part in its final, terminal state.
                break;
            }
            // Work that goes on in the background ends with its own task, not the turn.
            if !end.ends(scope, background, &tasks) {
                continue;
            }
            let (began, at_end) = if sorted {
                while seen < events.len() && events[seen].line <= end.line {
                    state = Some(events[seen].state);
                    seen += 1;
                }
                (true, state)
            } else {
                let upto = events.iter().take_while(|e| e.line <= end.line);
                (first.line < end.line, upto.last().map(|e| e.state))
            };
            if began && at_end.is_some_and(|s| !s.is_terminal()) {
                out.push(Finding::new(
                    Some(end.line),
                    Some(&part.id),
                    format!(
                        "part is still `{}` when the turn ends on line {}",
                        at_end.map_or("?", |s| s.as_str()),
                        end.line
                    ),
                ));
                break;
            }
        }
    }
    out
}
