//! TN012: a part's state only moves forward, and a terminal state never changes.

use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// Along a part's events (in stream order) the state only moves forward —
    /// `started` → `running` → `complete` | `error` (steps may be skipped or repeated) — a
    /// terminal state (`complete`, `error`) never reverts nor turns into the other terminal
    /// state, and the part's final `state` is the state of its last event.
    ///
    /// ## Why
    /// The UI animates what the events say. A finished call that goes back to running spins
    /// forever; a `complete` that later becomes `error` (or the reverse) shows the user two
    /// different outcomes for one call. OpenCode re-sends old parts on compaction and Claude
    /// repeats tool blocks: a normalizer has to ignore those, not replay them.
    ///
    /// ## Example
    /// Violation: events `running` (line 3), `complete` (line 5), `running` (line 9).
    /// Conforming: `running` (line 3), `complete` (line 5).
    pub(crate) struct StateRegressed {
        code: "TN012",
        summary: "state only moves forward (started -> running -> complete|error); terminal states never change",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        let mut prev: Option<crate::model::ToolState> = None;
        let mut last_line = None;
        for e in cx.events_of(&part.id) {
            if let Some(p) = prev {
                if p.is_terminal() && e.state != p {
                    out.push(Finding::new(
                        Some(e.line),
                        Some(&part.id),
                        format!(
                            "terminal state `{}` changed to `{}`",
                            p.as_str(),
                            e.state.as_str()
                        ),
                    ));
                } else if e.state.rank() < p.rank() {
                    out.push(Finding::new(
                        Some(e.line),
                        Some(&part.id),
                        format!(
                            "state moved back from `{}` to `{}`",
                            p.as_str(),
                            e.state.as_str()
                        ),
                    ));
                }
            }
            prev = Some(e.state);
            last_line = Some(e.line);
        }
        if let Some(p) = prev
            && p != part.state
        {
            out.push(Finding::new(
                last_line,
                Some(&part.id),
                format!(
                    "final state `{}` is not the last event's state `{}`",
                    part.state.as_str(),
                    p.as_str()
                ),
            ));
        }
    }
    out
}
