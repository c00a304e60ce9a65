//! Background tasks and the end of a turn. A background call (an async `Agent`, a
//! `run_in_background` Bash, a `Monitor`) answers at once with a launch notice and ends with its
//! task: stream-json says how in `system` `task_*` lines ([`Tracker::task`]), a transcript (and a
//! user message in either dialect) in `<task-notification>` text ([`Tracker::notifications`]),
//! both read by the same code. A notification names its call (`<tool-use-id>`, newer releases)
//! or only its task, linked to the call through the task id the launch notice named; one that
//! comes before that link waits for it. Carriers repeat a notification (a `queue-operation`
//! enqueue, then a `queued_command` attachment or a user message): applied again it changes
//! nothing, so it counts once.
//!
//! An interrupt or a failed turn ([`Tracker::end_turn`]) ends the calls of the turn still open,
//! never work that goes on in the background: a background call ends only when the stream says
//! so for it (its task's notification, `killed` / `stopped` when it was stopped), and stays
//! `running` when nothing does.

use serde_json::Value;

use super::Tracker;
use crate::hash::HashSet;
use crate::model::{Timing, ToolError, ToolMetadata, ToolState};
use crate::providers::claude::background::summary_exit_code;
use crate::providers::claude::notification::{self, Notice, Outcome};
use crate::providers::{PartStore, PartUpdate, first_line};

/// One `system` `task_*` line's fields (or a `<task-notification>` block's, as a
/// `task_notification`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TaskLine<'a> {
    pub subtype: &'a str,
    pub task_id: Option<&'a str>,
    pub tool_use_id: Option<&'a str>,
    pub status: Option<&'a str>,
    pub error: Option<&'a str>,
    pub summary: Option<&'a str>,
    /// A subagent's report (a block's `<result>`), the output in place of the summary.
    pub report: Option<&'a str>,
    pub duration_ms: Option<u64>,
    /// `task_started` `is_backgrounded`: the call returned at once and the work goes on.
    pub backgrounded: bool,
    /// `local_agent`, `local_bash`, …
    pub task_type: Option<&'a str>,
}

/// A notification waiting for the launch notice that links its task to a call.
#[derive(Debug)]
pub(super) struct PendingNotice {
    line: u32,
    task_id: Option<String>,
    tool_use_id: Option<String>,
    status: String,
    summary: Option<String>,
    report: Option<String>,
    duration_ms: Option<u64>,
}

/// Notifications kept waiting at most; past that, one is reported as unmatched at once.
const MAX_PENDING_NOTICES: usize = 1024;

/// How deep a subagent's calls may nest under a background call and still go on with it.
const MAX_NESTING: usize = 32;

impl Tracker {
    /// `system` `task_started` / `task_progress` / `task_updated` / `task_notification`. A
    /// background call (`is_backgrounded`, or a launch notice as its result) ends with its task:
    /// complete with the notification's report or summary as output (the subagent's report, a
    /// command's exit), or an error.
    pub(crate) fn task(&mut self, line: u32, t: &TaskLine<'_>, store: &mut PartStore) {
        if let (Some(task), Some(tool)) = (t.task_id, t.tool_use_id) {
            self.tasks
                .entry(task.to_owned())
                .or_insert_with(|| tool.to_owned());
        }
        let Some(id) = t
            .tool_use_id
            .map(str::to_owned)
            .or_else(|| t.task_id.and_then(|task| self.tasks.get(task).cloned()))
        else {
            return;
        };
        if !store.contains(&id) {
            return;
        }
        if t.subtype == "task_started" && t.backgrounded {
            self.background.insert(id.clone());
        }
        let background = self.background.contains(&id);
        let mut u = PartUpdate::new(&id);
        let mut meta = ToolMetadata {
            task_id: t.task_id.map(str::to_owned),
            ..ToolMetadata::default()
        };
        if background {
            meta.extra.insert("background".into(), Value::Bool(true));
            if let Some(ty) = t.task_type {
                meta.extra
                    .insert("taskType".into(), Value::String(ty.to_owned()));
            }
        }
        u.timing = t.duration_ms.map(|ms| Timing {
            elapsed_ms: Some(ms),
            ..Timing::default()
        });
        match (t.subtype, t.status) {
            ("task_started", _) | ("task_progress", _) => u.state = Some(ToolState::Running),
            (_, Some("failed")) => {
                u.state = Some(ToolState::Error);
                u.error = Some(ToolError {
                    message: t.error.or(t.summary).map_or_else(
                        || "The task failed".to_owned(),
                        |e| first_line(e).unwrap_or_default(),
                    ),
                    code: Some("failed".to_owned()),
                    details: None,
                });
            }
            (_, Some("stopped" | "killed")) => {
                u.state = Some(ToolState::Error);
                u.error = Some(ToolError {
                    message: "The task was stopped".to_owned(),
                    code: Some("interrupted".to_owned()),
                    details: None,
                });
            }
            (sub, Some("completed")) if background => {
                let summary = t.summary.filter(|_| sub == "task_notification");
                match summary.and_then(summary_exit_code) {
                    Some(code) if code != 0 => {
                        meta.exit_code = Some(code);
                        u.state = Some(ToolState::Error);
                        u.error = Some(ToolError {
                            message: format!("Exit code {code}"),
                            code: Some(code.to_string()),
                            details: summary.map(|s| Value::String(s.to_owned())),
                        });
                    }
                    code => {
                        meta.exit_code = code;
                        u.state = Some(ToolState::Complete);
                        u.output = t
                            .report
                            .filter(|_| sub == "task_notification")
                            .or(summary)
                            .map(|s| Value::String(s.to_owned()));
                    }
                }
            }
            _ => {}
        }
        if !meta.is_empty() {
            u.metadata = Some(meta);
        }
        store.upsert(line, u);
        if t.subtype == "task_started" && t.backgrounded {
            self.resolve_notices(&id, t.task_id, store);
        }
    }

    /// A text that may carry `<task-notification>` blocks (a transcript's queued command, a
    /// user message): each final one ends its call, as a `task_notification` line would.
    pub(crate) fn notifications(&mut self, line: u32, text: &str, store: &mut PartStore) {
        for block in notification::blocks(text) {
            let n = match block {
                Ok(n) => n,
                Err(problem) => {
                    store.info(line, format!("task notification skipped: {problem}"));
                    continue;
                }
            };
            let status = match (notification::outcome(n.status), n.status) {
                (Outcome::Final, Some(status)) => status,
                (Outcome::Unknown, Some(status)) => {
                    store.info(
                        line,
                        format!(
                            "task notification for `{}` skipped: unknown status `{status}`, the task is left as it was",
                            crate::text::clip(n.name(), 80)
                        ),
                    );
                    continue;
                }
                // An event on the way (a Monitor's line): the task goes on.
                _ => continue,
            };
            match self.notice_target(&n, status, store) {
                Some(id) => self.apply_notice(line, &n, status, &id, store),
                None => self.pend_notice(line, &n, status, store),
            }
        }
    }

    /// The call a notification ends, once it can: its `<tool-use-id>`, else the call its task id
    /// was linked to. `None` while that call is not known to run in the background yet (the
    /// notification came before the launch notice) and a `completed` would say nothing of it.
    fn notice_target(&self, n: &Notice<'_>, status: &str, store: &PartStore) -> Option<String> {
        let id = n.tool_use_id.filter(|id| store.contains(id)).or_else(|| {
            n.task_id
                .and_then(|t| self.tasks.get(t))
                .map(String::as_str)
        })?;
        let waits = status == "completed"
            && !self.background.contains(id)
            && store.get(id).is_some_and(|p| !p.state.is_terminal());
        (!waits).then(|| id.to_owned())
    }

    fn apply_notice(
        &mut self,
        line: u32,
        n: &Notice<'_>,
        status: &str,
        id: &str,
        store: &mut PartStore,
    ) {
        let t = TaskLine {
            subtype: "task_notification",
            task_id: n.task_id,
            tool_use_id: Some(id),
            status: Some(status),
            summary: n.summary,
            report: n.result,
            duration_ms: n.duration_ms,
            ..TaskLine::default()
        };
        self.task(line, &t, store);
    }

    /// Keep a notification until its task is linked to a call (the first carrier's line wins).
    fn pend_notice(&mut self, line: u32, n: &Notice<'_>, status: &str, store: &mut PartStore) {
        let Some(key) = n.task_id.or(n.tool_use_id) else {
            return;
        };
        if self.notices.contains_key(key) {
            return;
        }
        if self.notices.len() >= MAX_PENDING_NOTICES {
            store.info(line, unmatched(key));
            return;
        }
        self.notices.insert(
            key.to_owned(),
            PendingNotice {
                line,
                task_id: n.task_id.map(str::to_owned),
                tool_use_id: n.tool_use_id.map(str::to_owned),
                status: status.to_owned(),
                summary: n.summary.map(str::to_owned),
                report: n.result.map(str::to_owned),
                duration_ms: n.duration_ms,
            },
        );
    }

    /// Call `id` was just shown to run in the background as task `task`: the notifications that
    /// waited for it end it now, at their own lines.
    pub(super) fn resolve_notices(&mut self, id: &str, task: Option<&str>, store: &mut PartStore) {
        if self.notices.is_empty() {
            return;
        }
        for key in task.into_iter().chain([id]) {
            let Some(p) = self.notices.remove(key) else {
                continue;
            };
            let n = Notice {
                task_id: p.task_id.as_deref(),
                tool_use_id: p.tool_use_id.as_deref(),
                status: Some(&p.status),
                summary: p.summary.as_deref(),
                result: p.report.as_deref(),
                duration_ms: p.duration_ms,
            };
            self.apply_notice(p.line, &n, &p.status, id, store);
        }
    }

    /// The turn was interrupted or failed: every call of it still open ends in error. What goes
    /// on in the background (a background call, and a subagent's calls under one) does not end
    /// with the turn.
    pub(crate) fn end_turn(&self, line: u32, message: &str, code: &str, store: &mut PartStore) {
        let goes_on: HashSet<String> = store
            .parts()
            .iter()
            .filter(|p| !p.state.is_terminal() && self.in_background(&p.id, store))
            .map(|p| p.id.clone())
            .collect();
        store.abort_open_where(line, message, code, |p| !goes_on.contains(&p.id));
    }

    /// Whether call `id` runs in the background, itself or inside a background call.
    fn in_background(&self, id: &str, store: &PartStore) -> bool {
        let mut at = Some(id);
        for _ in 0..MAX_NESTING {
            let Some(id) = at else { return false };
            if self.background.contains(id) {
                return true;
            }
            at = store
                .get(id)
                .and_then(|p| p.metadata.as_ref())
                .and_then(|m| m.parent_tool_use_id.as_deref());
        }
        false
    }

    /// End of stream: notifications whose task no call of the stream launched are reported.
    pub(super) fn finish_notices(&mut self, store: &mut PartStore) {
        let mut left: Vec<(u32, String)> =
            self.notices.drain().map(|(key, p)| (p.line, key)).collect();
        left.sort();
        for (line, key) in left {
            store.info(line, unmatched(&key));
        }
    }
}

fn unmatched(key: &str) -> String {
    format!(
        "task notification for `{}` matches no background call in this stream",
        crate::text::clip(key, 80)
    )
}

#[cfg(test)]
mod tests;
