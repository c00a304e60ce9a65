//! `opencode export [id]`: one pretty-printed JSON document `{info: Session, messages: [{info:
//! Message, parts: [Part]}]}` holding the final state of every part. Events point at the line
//! where each part's id appears, so `toolnorm cat` can show the part.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::tools::{Fork, OPENCODE};
use super::tracker::Tracker;
use super::wire::{ErrorWire, PartWire};
use crate::model::DiagnosticLevel;
use crate::providers::{LineNormalizer, NormalizeOptions, PartStore};
use crate::stream::{RawLine, find_bytes};

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

/// The document as its lines came: each line (as split: without `\r` or a BOM) and its `\n`, and
/// where each line starts with its number.
pub(crate) struct Normalizer {
    fork: &'static Fork,
    bytes: Vec<u8>,
    starts: Vec<(usize, u32)>,
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
        bytes: Vec::new(),
        starts: Vec::new(),
    })
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, _: &mut PartStore) {
        self.starts.push((self.bytes.len(), line.number));
        self.bytes.extend_from_slice(line.bytes);
        if !line.unterminated {
            self.bytes.push(b'\n');
        }
    }

    fn finish(&mut self, store: &mut PartStore) {
        let bytes = std::mem::take(&mut self.bytes);
        let starts = std::mem::take(&mut self.starts);
        normalize(self.fork, &bytes, starts, store);
    }
}

/// Finds the raw line where a part's id is written, moving forward through the document.
struct LineFinder<'a> {
    bytes: &'a [u8],
    /// Byte offset where each raw line starts, with its number.
    starts: Vec<(usize, u32)>,
    cursor: usize,
}

impl LineFinder<'_> {
    fn line_of(&mut self, id: &str) -> u32 {
        let needle = format!("\"{id}\"");
        let found = find_bytes(&self.bytes[self.cursor..], needle.as_bytes())
            .map(|i| i + self.cursor)
            .or_else(|| find_bytes(self.bytes, needle.as_bytes()));
        let Some(at) = found else { return 1 };
        self.cursor = at + needle.len();
        match self.starts.partition_point(|(s, _)| *s <= at) {
            0 => 1,
            i => self.starts[i - 1].1,
        }
    }
}

/// Normalize an export document (its lines start at `starts`); its cwd is the session's
/// `info.directory`.
fn normalize(fork: &'static Fork, whole: &[u8], starts: Vec<(usize, u32)>, store: &mut PartStore) {
    let bytes = whole.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(whole);
    let doc: Export<'_> = match serde_json::from_slice(bytes) {
        Ok(d) => d,
        Err(e) => {
            let level = if e.is_eof() {
                DiagnosticLevel::Error
            } else {
                DiagnosticLevel::Warning
            };
            let what = if e.is_eof() {
                "export document cut short"
            } else {
                "export is not the expected JSON"
            };
            store.diagnostic(
                u32::try_from(e.line()).unwrap_or(u32::MAX).max(1),
                level,
                format!("{what}: {e}"),
            );
            return;
        }
    };
    let cwd = doc.info.and_then(|i| i.directory);
    let mut tracker = Tracker::new(cwd.as_deref(), fork);
    tracker.scan_sessions(whole, store);
    let mut finder = LineFinder {
        bytes: whole,
        starts,
        cursor: 0,
    };
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
    let bytes = bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(bytes)
        .trim_ascii();
    bytes.first() == Some(&b'{')
        && serde_json::from_slice::<serde_json::Value>(bytes).is_ok_and(|v| {
            v.get("info").is_some() && v.get("messages").is_some_and(serde_json::Value::is_array)
        })
}

/// An export is recognised as a whole document only ([`sniff_document`]), never line by line.
pub(crate) fn sniff(_: &crate::providers::Probe<'_>) -> bool {
    false
}
