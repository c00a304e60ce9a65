//! TN018: timing is sane and taken from the source, never invented.

use crate::model::TimeValue;
use crate::stream::Dialect;
use crate::timestamp::epoch_millis;

use super::{Finding, RuleContext, declare_rule};

/// Longer than a week is not a tool call's duration but a unit mistake (seconds as ms, µs).
const MAX_ELAPSED_MS: u64 = 7 * 24 * 3600 * 1000;

declare_rule! {
    /// ## What it checks
    /// `timing.elapsedMs` is at most a week; timestamps are not negative; `completedAt` is not
    /// before `startedAt` when both are epoch milliseconds or both RFC 3339; and a dialect whose
    /// raw stream holds no timing at all (`codex exec --json`) yields no `timing`.
    ///
    /// ## Why
    /// Timing is taken from the source only. A normalizer that stamps `now()` makes every run's
    /// output differ and shows durations that measure the normalizer, not the tool; a unit
    /// mistake (seconds stored as milliseconds) shows a 3 s command as taking 50 minutes.
    ///
    /// ## Example
    /// Violation: `timing: {"startedAt": 1789365998809, "completedAt": 1789365990000}`, or any
    /// timing on a `codex exec` part. Conforming: `timing: {"elapsedMs": 12}` from Codex
    /// `durationMs: 12`.
    pub(crate) struct InventedTiming {
        code: "TN018",
        summary: "timing is sane (elapsed bounded, completedAt >= startedAt) and never invented",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for part in &cx.doc.parts {
        let Some(t) = &part.timing else { continue };
        let line = cx.first_event_line(&part.id);
        let mut say = |msg: String| out.push(Finding::new(line, Some(&part.id), msg));
        if cx.dialect == Dialect::CodexExec && !t.is_empty() {
            say("codex exec streams carry no timing, but the part has some".to_owned());
            continue;
        }
        if let Some(ms) = t.elapsed_ms
            && ms > MAX_ELAPSED_MS
        {
            say(format!("elapsedMs {ms} is longer than a week"));
        }
        for (name, v) in [
            ("startedAt", &t.started_at),
            ("completedAt", &t.completed_at),
        ] {
            if let Some(TimeValue::Millis(ms)) = v
                && *ms < 0
            {
                say(format!("{name} {ms} is negative"));
            }
        }
        if let (Some(a), Some(b)) = (&t.started_at, &t.completed_at) {
            let same_form = matches!(
                (a, b),
                (TimeValue::Millis(_), TimeValue::Millis(_))
                    | (TimeValue::Text(_), TimeValue::Text(_))
            );
            if let (true, Some(sa), Some(sb)) = (same_form, epoch_millis(a), epoch_millis(b))
                && sb < sa
            {
                say(format!("completedAt is {} ms before startedAt", sa - sb));
            }
        }
    }
    out
}
