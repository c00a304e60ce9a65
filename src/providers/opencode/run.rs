//! `opencode run --format json`: one `{type, timestamp, sessionID, part}` line per finished part.
//! `tool_use` lines appear only when a tool part is completed (and, from v1.2.7, errored), so every
//! call arrives already terminal. `error` lines carry a session error instead of a part.

use std::borrow::Cow;

use serde::Deserialize;

use super::tools::{Fork, OPENCODE};
use super::tracker::Tracker;
use super::wire::{ErrorWire, PartWire};
use crate::providers::{LineNormalizer, NormalizeOptions, PartStore, line_text, report_bad_json};
use crate::stream::RawLine;

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(rename = "sessionID", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    part: Option<PartWire<'a>>,
    #[serde(borrow, default)]
    error: Option<ErrorWire<'a>>,
}

/// Normalizes a `run --format json` stream.
pub(crate) struct Normalizer {
    tracker: Tracker,
}

/// The normalizer of one stream. It never says where it runs: the cwd comes from the options (a
/// fixture's header).
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    new_for(&OPENCODE, opts)
}

/// The normalizer of one stream of a CLI built on OpenCode (`fork` names its own tools).
pub(crate) fn new_for(fork: &'static Fork, opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::new(opts.cwd, fork),
    })
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let tracker = &mut self.tracker;
        tracker.scan_sessions(line.bytes, store);
        let Some(text) = line_text(line, store) else {
            return;
        };
        let l: Line<'_> = match serde_json::from_str(&text) {
            Ok(l) => l,
            Err(err) if err.is_data() => {
                store.warn(line.number, format!("not an OpenCode run event: {err}"));
                return;
            }
            Err(err) => {
                report_bad_json(line, &err, store);
                return;
            }
        };
        match l.ty.as_deref() {
            Some("tool_use") => match l.part {
                Some(part) => tracker.apply(line.number, &part, store),
                None => store.warn(line.number, "tool_use line without a part"),
            },
            Some("error") => match l.error {
                Some(e) if e.is_abort() => tracker.abort(
                    line.number,
                    l.session_id.as_deref(),
                    None,
                    "The session was aborted",
                    store,
                ),
                Some(e) => store.info(line.number, format!("session error: {}", e.summary())),
                None => store.info(line.number, "session error without details"),
            },
            // step_start, step_finish, text, reasoning: no tool state.
            Some(_) => {}
            None => store.info(line.number, "line without a `type`; skipped"),
        }
    }

    fn finish(&mut self, _: &mut PartStore) {}
}

/// Recognises a `run --format json` line: one of its event types with a session id or a part.
pub(crate) fn sniff(p: &crate::providers::Probe<'_>) -> bool {
    matches!(
        p.ty().as_ref(),
        "tool_use" | "step_start" | "step_finish" | "text" | "reasoning" | "error"
    ) && (p.has("sessionID") || p.has("part"))
}
