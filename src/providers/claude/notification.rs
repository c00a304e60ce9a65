//! `<task-notification>` blocks: how Claude Code tells the model, as text, that a background task
//! (a `run_in_background` Bash, a `Monitor`, an async `Agent`) ended or had something to say.
//! stream-json also says it as a `system` `task_notification` line; a transcript only as text, in
//! a `queue-operation` enqueue's `content`, a `queued_command` attachment's `prompt` and the user
//! message that later hands it to the model:
//!
//! ```text
//! <task-notification>
//! <task-id>bt6ibneeg</task-id>
//! <tool-use-id>toolu_01…</tool-use-id>            newer releases only
//! <output-file>/tmp/claude-0/…/tasks/bt6ibneeg.output</output-file>
//! <status>completed</status>                      failed, killed, stopped; none on a Monitor's event
//! <summary>Background command "Build" completed (exit code 0)</summary>
//! <result>…</result>                              a subagent's report
//! <usage><total_tokens>…</total_tokens><tool_uses>…</tool_uses><duration_ms>…</duration_ms></usage>
//! </task-notification>
//! ```
//!
//! A carrier's text must open with a block (a message that only quotes one is not a
//! notification); several blocks may follow one another. The text comes from the stream, so
//! nothing about it is trusted: a block cut short, a tag never closed or a block naming no task is
//! a [`Problem`], never a panic, and costs nothing beyond the borrowed slices.

use std::fmt;

const OPEN: &str = "<task-notification>";
const CLOSE: &str = "</task-notification>";

/// One notification, its fields borrowed from the text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Notice<'t> {
    pub task_id: Option<&'t str>,
    pub tool_use_id: Option<&'t str>,
    /// `None` on an interim event (a Monitor's line): the task goes on.
    pub status: Option<&'t str>,
    pub summary: Option<&'t str>,
    /// A subagent's report.
    pub result: Option<&'t str>,
    pub duration_ms: Option<u64>,
}

impl Notice<'_> {
    /// How the notice names its task, for messages.
    pub(crate) fn name(&self) -> &str {
        self.task_id.or(self.tool_use_id).unwrap_or("?")
    }
}

/// Why a block could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    /// The text ends before `</task-notification>`.
    CutShort,
    /// `<tag>` without its `</tag>` before the text ends.
    Unclosed(String),
    /// Neither `<task-id>` nor `<tool-use-id>`.
    NoTask,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::CutShort => write!(f, "the block ends before `{CLOSE}`"),
            Problem::Unclosed(tag) => write!(f, "`<{tag}>` is never closed"),
            Problem::NoTask => f.write_str("it names no task (no `<task-id>`, no `<tool-use-id>`)"),
        }
    }
}

/// Whether `text` is a notification carrier: it opens (after white space) with a block.
pub(crate) fn is_carrier(text: &str) -> bool {
    text.trim_start().starts_with(OPEN)
}

/// The blocks of a carrier's text, in order (nothing when the text does not open with one).
pub(crate) fn blocks(text: &str) -> Blocks<'_> {
    Blocks {
        rest: if is_carrier(text) { text } else { "" },
    }
}

/// The iterator of [`blocks`].
pub(crate) struct Blocks<'t> {
    rest: &'t str,
}

impl<'t> Iterator for Blocks<'t> {
    type Item = Result<Notice<'t>, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        let at = self.rest.find(OPEN)?;
        let body = &self.rest[at + OPEN.len()..];
        let (notice, used) = match read_body(body) {
            Ok(read) => read,
            Err(problem) => {
                // Nothing after a block that cannot be read can be trusted to start a new one.
                self.rest = "";
                return Some(Err(problem));
            }
        };
        self.rest = &body[used..];
        Some(
            if notice.task_id.is_none() && notice.tool_use_id.is_none() {
                Err(Problem::NoTask)
            } else {
                Ok(notice)
            },
        )
    }
}

/// A block's body up to and past its `</task-notification>`: the notice and the bytes used.
fn read_body(body: &str) -> Result<(Notice<'_>, usize), Problem> {
    let mut n = Notice::default();
    let mut i = 0;
    loop {
        // Text between tags is not part of any field.
        let Some(lt) = body[i..].find('<') else {
            return Err(Problem::CutShort);
        };
        i += lt;
        let rest = &body[i..];
        if rest.starts_with(CLOSE) {
            return Ok((n, i + CLOSE.len()));
        }
        let Some(gt) = rest.find('>') else {
            return Err(Problem::CutShort);
        };
        let tag = &rest[1..gt];
        if !is_tag_name(tag) {
            // A `<` that opens no tag (in a summary's text, say): step over it.
            i += 1;
            continue;
        }
        let value_at = i + gt + 1;
        let closing = format!("</{tag}>");
        let Some(len) = body[value_at..].find(&closing) else {
            return Err(if tag == "task-notification" {
                Problem::CutShort
            } else {
                Problem::Unclosed(tag.to_owned())
            });
        };
        let value = body[value_at..value_at + len].trim();
        let mut ignored = None;
        let slot = match tag {
            "task-id" => &mut n.task_id,
            "tool-use-id" => &mut n.tool_use_id,
            "status" => &mut n.status,
            "summary" => &mut n.summary,
            "result" => &mut n.result,
            "usage" => {
                n.duration_ms = n.duration_ms.or_else(|| usage_duration(value));
                &mut ignored
            }
            _ => &mut ignored,
        };
        if slot.is_none() && !value.is_empty() {
            *slot = Some(value);
        }
        i = value_at + len + closing.len();
    }
}

/// `task-id`, `tool-use-id`, `total_tokens`: what a field's tag looks like.
fn is_tag_name(tag: &str) -> bool {
    !tag.is_empty()
        && tag.len() <= 40
        && tag
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `<duration_ms>962</duration_ms>` inside `<usage>`.
fn usage_duration(usage: &str) -> Option<u64> {
    let (_, rest) = usage.split_once("<duration_ms>")?;
    let (ms, _) = rest.split_once("</duration_ms>")?;
    ms.trim().parse().ok()
}

/// The final word a status gives, or why it gives none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// `completed`, `failed`, `killed`, `stopped`.
    Final,
    /// No status, `running`, `pending`: an event on the way; the task goes on.
    Interim,
    /// A status this reading does not know.
    Unknown,
}

pub(crate) fn outcome(status: Option<&str>) -> Outcome {
    match status {
        Some("completed" | "failed" | "killed" | "stopped") => Outcome::Final,
        None | Some("running" | "pending") => Outcome::Interim,
        Some(_) => Outcome::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<Result<Notice<'_>, Problem>> {
        blocks(text).collect()
    }

    #[test]
    fn the_shapes_of_each_release() {
        // 2.1.3x: no tool-use-id.
        let old = "<task-notification>\n<task-id>bae407b</task-id>\n<status>completed</status>\n<summary>Background command \"Start server\" completed (exit code 0)</summary>\nRead the output file to retrieve the result: /tmp/x.output\n</task-notification>";
        assert_eq!(
            all(old),
            [Ok(Notice {
                task_id: Some("bae407b"),
                status: Some("completed"),
                summary: Some("Background command \"Start server\" completed (exit code 0)"),
                ..Notice::default()
            })]
        );
        // Newer: the call's id, the output file, a subagent's report and usage.
        let agent = "<task-notification>\n<task-id>a51dda5</task-id>\n<tool-use-id>toolu_01D</tool-use-id>\n<output-file>/tmp/a.output</output-file>\n<status>completed</status>\n<summary>Agent \"Run pytest\" completed</summary>\n<result>All 206 tests passed.\nNo <errors>.</result>\n<usage><total_tokens>7898</total_tokens><tool_uses>1</tool_uses><duration_ms>8049</duration_ms></usage>\n</task-notification>\nFull transcript available at: /tmp/a.output";
        let n = all(agent).remove(0).unwrap();
        assert_eq!(n.tool_use_id, Some("toolu_01D"));
        assert_eq!(n.result, Some("All 206 tests passed.\nNo <errors>."));
        assert_eq!(n.duration_ms, Some(8049));
        assert_eq!(n.name(), "a51dda5");
        // A Monitor's event: no status.
        let event = "<task-notification>\n<task-id>bmon1</task-id>\n<summary>Monitor event: \"build\"</summary>\n<event>tick 1</event>\n</task-notification>";
        let n = all(event).remove(0).unwrap();
        assert_eq!(outcome(n.status), Outcome::Interim);
    }

    #[test]
    fn several_blocks_and_quotes() {
        let two = "<task-notification><task-id>a</task-id><status>completed</status></task-notification>\n<task-notification><task-id>b</task-id><status>killed</status></task-notification>";
        let got: Vec<_> = all(two).into_iter().map(|n| n.unwrap().task_id).collect();
        assert_eq!(got, [Some("a"), Some("b")]);
        // A message that quotes a notification is not one.
        assert!(all("see <task-notification><task-id>a</task-id></task-notification>").is_empty());
        assert!(!is_carrier("[Request interrupted by user]"));
    }

    #[test]
    fn broken_blocks_are_problems() {
        assert_eq!(
            all("<task-notification>\n<task-id>a</task-id>\n<status>compl"),
            [Err(Problem::Unclosed("status".into()))]
        );
        assert_eq!(
            all("<task-notification>\n<task-id>a</task-id>\n"),
            [Err(Problem::CutShort)]
        );
        assert_eq!(
            all("<task-notification><status>completed</status></task-notification>"),
            [Err(Problem::NoTask)]
        );
        assert_eq!(
            all("<task-notification><task-id>a</task-id><status>done-ish</status></task-notification>")
                .remove(0)
                .map(|n| outcome(n.status)),
            Ok(Outcome::Unknown)
        );
        // A stray `<` is text, not a tag.
        let n = all("<task-notification><task-id>a</task-id><summary>x < y</summary> 3<4 </task-notification>")
            .remove(0)
            .unwrap();
        assert_eq!(n.summary, Some("x < y"));
        assert!(
            Problem::Unclosed("status".into())
                .to_string()
                .contains("<status>")
        );
    }
}
