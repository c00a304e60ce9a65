//! `opencode export [id]`: one pretty-printed JSON document `{info: Session, messages: [{info:
//! Message, parts: [Part]}]}` holding the final state of every part. Events point at the line
//! where each part's id appears, so `toolnorm cat` can show the part.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::tools::{Fork, OPENCODE};
use super::tracker::Tracker;
use super::wire::{ErrorWire, PartWire};
use crate::providers::document::{Kept, LineFinder, report_parse_error, sniff_object};
use crate::providers::{LineNormalizer, NormalizeOptions, PartStore};
use crate::stream::RawLine;

#[derive(Deserialize)]
struct Export<'a> {
    #[serde(borrow, default)]
    info: Option<SessionInfo<'a>>,
    #[serde(borrow, default)]
    messages: Vec<Message<'a>>,
}

#[derive(Deserialize)]
struct SessionInfo<'a> {
    #[serde(borrow, default)]
    directory: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    info: Option<MessageInfo<'a>>,
    #[serde(borrow, default)]
    parts: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
struct MessageInfo<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(rename = "sessionID", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    error: Option<ErrorWire<'a>>,
}

/// The document's lines, kept until the end of the stream.
pub(crate) struct Normalizer {
    fork: &'static Fork,
    kept: Kept,
}

/// The normalizer of one stream. An export is one JSON document: its lines are kept until the
/// end of the stream, and read then.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    new_for(&OPENCODE, opts)
}

/// The normalizer of one export of a CLI built on OpenCode (`fork` names its own tools).
pub(crate) fn new_for(fork: &'static Fork, _: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        fork,
        kept: Kept::default(),
    })
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, _: &mut PartStore) {
        self.kept.push(line);
    }

    fn finish(&mut self, store: &mut PartStore) {
        let (bytes, starts) = self.kept.take();
        normalize(self.fork, &bytes, starts, store);
    }
}

/// Normalize an export document (its lines start at `starts`); its cwd is the session's
/// `info.directory`.
fn normalize(fork: &'static Fork, whole: &[u8], starts: Vec<(usize, u32)>, store: &mut PartStore) {
    let bytes = whole.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(whole);
    let doc: Export<'_> = match serde_json::from_slice(bytes) {
        Ok(d) => d,
        Err(e) => {
            report_parse_error("export", &e, store);
            return;
        }
    };
    let cwd = doc.info.and_then(|i| i.directory);
    let mut tracker = Tracker::new(cwd.as_deref(), fork);
    tracker.scan_sessions(whole, store);
    let mut finder = LineFinder::new(whole, starts);
    for message in &doc.messages {
        let mut last_line = 1;
        for raw in &message.parts {
            let part: PartWire<'_> = match serde_json::from_str(raw.get()) {
                Ok(p) => p,
                Err(e) => {
                    store.warn(last_line, format!("part is not an OpenCode Part: {e}"));
                    continue;
                }
            };
            if part.ty.as_deref() != Some("tool") {
                continue;
            }
            let key = part.id.as_deref().or(part.call_id.as_deref()).unwrap_or("");
            last_line = if key.is_empty() {
                last_line
            } else {
                finder.line_of(key)
            };
            tracker.apply(last_line, &part, store);
        }
        if let Some(info) = &message.info
            && let (Some(e), Some(id)) = (&info.error, info.id.as_deref())
            && e.is_abort()
        {
            tracker.abort(
                last_line,
                info.session_id.as_deref(),
                Some(id),
                "The message was aborted",
                store,
            );
        }
    }
}

/// Recognises an export: one JSON document with `info` and a `messages` array.
pub(crate) fn sniff_document(bytes: &[u8]) -> bool {
    sniff_object(bytes, |v| {
        v.get("info").is_some() && v.get("messages").is_some_and(serde_json::Value::is_array)
    })
}

/// An export is recognised as a whole document only ([`sniff_document`]), never line by line.
pub(crate) fn sniff(_: &crate::providers::Probe<'_>) -> bool {
    false
}
