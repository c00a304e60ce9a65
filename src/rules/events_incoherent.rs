//! TN019: the document's events and parts agree, and events point into the stream.

use super::support::HashSet;

use crate::model::PartEvent;

use super::{Finding, RuleContext, declare_rule};

declare_rule! {
    /// ## What it checks
    /// Every event names a part that exists; every part has at least one event; every event's
    /// line is a line of the raw stream (1 … number of lines); events are in stream order.
    ///
    /// One exception to the order: a stream may write a call's result before the call itself
    /// (Claude transcripts do), and a normalizer can only apply the result once the call has
    /// appeared. An event may point back at an earlier line when the raw stream first shows the
    /// part's call after that line and the line names the part's id (the held-back result).
    /// Likewise a Claude background task's notification that names only its task may come before
    /// the launch notice that links the task to its call: an event may point back at a line that
    /// names the part's task when the raw stream links that task to the call after that line.
    /// Any other event pointing back is out of order.
    ///
    /// ## Why
    /// Events are how a violation, a diff or a report points back at the raw line that caused a
    /// state change. An event for a missing part, or one that points past the end of the stream,
    /// sends reviewers to the wrong place; a part without events cannot be traced at all.
    ///
    /// ## Example
    /// Violation: `events: [{"line": 40, "partId": "toolu_1", ...}]` on a 12-line stream.
    /// Conforming: the event points at the line that carried the `tool_use`; with the
    /// `tool_result` on line 2 and the `tool_use` on line 3, `running` on line 3 and then
    /// `complete` on line 2.
    pub(crate) struct EventsIncoherent {
        code: "TN019",
        summary: "every event names an existing part and a raw line; every part has an event",
        check: check,
    }
}

fn check(cx: &RuleContext<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let ids: HashSet<&str> = cx.doc.parts.iter().map(|p| p.id.as_str()).collect();
    let last = cx.input.lines.last().map_or(0, |l| l.number);
    let mut prev_line = 0;
    let mut unknown_reported = HashSet::default();
    for e in &cx.doc.events {
        if !ids.contains(e.part_id.as_str()) && unknown_reported.insert(e.part_id.as_str()) {
            out.push(Finding::new(
                Some(e.line),
                Some(&e.part_id),
                "event names a part that does not exist",
            ));
        }
        if e.line == 0 || e.line > last {
            out.push(Finding::new(
                None,
                Some(&e.part_id),
                format!(
                    "event points at line {} but the stream has {last} lines",
                    e.line
                ),
            ));
        } else if e.line < prev_line && !held_back(cx, e) {
            out.push(Finding::new(
                Some(e.line),
                Some(&e.part_id),
                format!(
                    "event on line {} comes after an event on line {prev_line}",
                    e.line
                ),
            ));
        }
        prev_line = prev_line.max(e.line);
    }
    let with_events: HashSet<&str> = cx.doc.events.iter().map(|e| e.part_id.as_str()).collect();
    for p in &cx.doc.parts {
        if !with_events.contains(p.id.as_str()) {
            out.push(Finding::new(None, Some(&p.id), "part has no events"));
        }
    }
    out
}

/// An event pointing at a line written before what it needed: allowed when the rules' own scan
/// first sees the part's call after that line and the line names the part's id (a result the
/// stream wrote before its call, applied once the call appeared), or links the part's task to
/// the call after that line and the line names the task (a notification that came before the
/// launch notice naming its task).
fn held_back(cx: &RuleContext<'_>, e: &PartEvent) -> bool {
    let Some(call) = cx.raw().get(&e.part_id) else {
        return false;
    };
    let lines = &cx.input.lines;
    let names = |needle: &str| {
        !needle.is_empty()
            && lines
                .binary_search_by_key(&e.line, |l| l.number)
                .ok()
                .and_then(|i| lines.get(i))
                .is_some_and(|l| memchr::memmem::find(l.bytes, needle.as_bytes()).is_some())
    };
    (call.line > e.line && names(&e.part_id))
        || call
            .task
            .as_ref()
            .is_some_and(|(task, linked)| *linked > e.line && names(task))
}
