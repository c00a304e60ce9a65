//! Claude Code dialects: stream-json (`claude -p --output-format stream-json --verbose`, with or
//! without partial messages; `stream_json`) and session transcripts (`~/.claude/projects/**.jsonl`;
//! `transcript`). Both read the same `wire` lines and share the `tracker::Tracker`, which
//! names and titles calls through `tools`; each dialect file says which lines carry what.

mod background;
mod notification;
pub(crate) mod stream_json;
mod tools;
mod tracker;
pub(crate) mod transcript;
mod wire;

use super::{LineNormalizer, PartStore};
use crate::stream::RawLine;

/// A Claude dialect's normalizer: each line parsed once as a [`wire::Line`] and handed, with the
/// provider's one [`tracker::Tracker`], to the dialect's own reading of it.
struct Lines {
    tracker: tracker::Tracker,
    read: fn(&mut tracker::Tracker, u32, &wire::Line<'_>, &mut PartStore),
}

impl Lines {
    fn boxed(
        read: fn(&mut tracker::Tracker, u32, &wire::Line<'_>, &mut PartStore),
    ) -> Box<dyn LineNormalizer> {
        Box::new(Lines {
            tracker: tracker::Tracker::default(),
            read,
        })
    }
}

impl LineNormalizer for Lines {
    fn line(&mut self, raw: &RawLine<'_>, store: &mut PartStore) {
        let Lines { tracker, read } = self;
        each_line(raw, store, |number, l, store| {
            read(tracker, number, l, store)
        });
    }

    fn finish(&mut self, store: &mut PartStore) {
        self.tracker.finish(store);
    }
}

/// Parse one line of a Claude stream as a [`wire::Line`] and hand it to `each`; a blank line is
/// skipped and a line that is not JSON is reported.
fn each_line(
    raw: &RawLine<'_>,
    store: &mut PartStore,
    each: impl FnOnce(u32, &wire::Line<'_>, &mut PartStore),
) {
    let Some(text) = super::line_text(raw, store) else {
        return;
    };
    match serde_json::from_str::<wire::Line<'_>>(&text) {
        Ok(line) => each(raw.number, &line, store),
        Err(err) => super::report_bad_json(raw, &err, store),
    }
}

/// The line types of Claude's stream-json and transcripts.
fn is_line_type(ty: &str) -> bool {
    matches!(
        ty,
        "system"
            | "assistant"
            | "user"
            | "result"
            | "stream_event"
            | "tool_progress"
            | "tool_use_summary"
            | "rate_limit_event"
            | "summary"
            | "file-history-snapshot"
            | "queue-operation"
            | "progress"
            | "attachment"
    )
}
