//! Provider dialects → the contract's parts. Every provider folder has the same shape: `mod.rs`
//! (declarations and a little shared glue), `wire.rs` (the provider's serde wire types),
//! `tracker.rs` (the `Tracker`, the per-session state machine all its dialects feed), `tools.rs`
//! or `tools/` (tool name → the part's name, kind, title, input, output and metadata), and one
//! file per dialect with its sniffer (`sniff`) and its normalizer (a [`LineNormalizer`], made by
//! the dialect's `new`, a [`NewNormalizer`]).
//! All of them feed the shared [`PartStore`] and use the shared [`titles`]; [`crate::dialects`]
//! lists the dialects. Pure: no I/O, no printing.

pub mod acp;
pub mod ag_ui;
pub mod ai_sdk;
pub mod claude;
pub mod cline;
pub mod codex;
pub mod copilot;
pub(crate) mod document;
pub mod droid;
pub mod gemini;
pub mod kilo;
pub mod kimi;
pub mod opencode;
pub mod openhands;
pub mod probe;
pub mod qwen;
pub mod store;
pub mod titles;
pub mod vibe;
mod wire_fold;

use std::borrow::Cow;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::stream::{Dialect, Provider, RawLine};
pub use probe::Probe;
pub use store::{PartStore, PartUpdate, Upserted};

/// The options every dialect's normalizer gets.
#[derive(Clone, Copy, Debug, Default)]
pub struct NormalizeOptions<'a> {
    pub provider: Option<Provider>,
    pub dialect: Option<Dialect>,
    /// The agent's working directory, for dialects whose stream does not carry one (`codex exec
    /// --json`, `opencode run --format json`): paths in titles are shown relative to it. A
    /// fixture's header gives it; dialects that know their own cwd ignore it.
    pub cwd: Option<&'a str>,
}

/// A dialect's normalizer as a per-line state machine: it is handed the stream's lines one at a
/// time, in order, and feeds what each one says into the [`PartStore`]; [`finish`] is called once
/// after the last line. Every dialect implements it (one type per dialect file, made by the
/// registry row's [`NewNormalizer`]); the public way to drive one is [`crate::Normalizer`].
///
/// What a normalizer keeps between lines is its provider tracker's state: per-part maps (ids,
/// owners, results waiting for their call) and the session's cwd, never the lines themselves
/// (`opencode export`, one JSON document, is the exception: it keeps its document's lines until
/// [`finish`]).
///
/// [`finish`]: LineNormalizer::finish
pub trait LineNormalizer: Send {
    /// One raw line of the stream (blank lines included; a dialect skips what it does not read).
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore);
    /// The stream has ended: close what only the end decides (results that never found their
    /// call, a whole document's parts).
    fn finish(&mut self, store: &mut PartStore);
}

/// Makes a dialect's [`LineNormalizer`] for one stream (the registry row's `new`).
pub type NewNormalizer = fn(&NormalizeOptions<'_>) -> Box<dyn LineNormalizer>;

/// The JSON of one SSE line, or `None` for framing lines that carry no event (`event:`, `id:`,
/// `retry:`, comments). A line without framing is itself.
pub(crate) fn sse_payload(text: &str) -> Option<&str> {
    let t = text.trim_start();
    if let Some(rest) = t.strip_prefix("data:") {
        return Some(rest.strip_prefix(' ').unwrap_or(rest));
    }
    let is_framing = t.starts_with(':')
        || ["event:", "id:", "retry:"].iter().any(|p| t.starts_with(p))
        || matches!(t.trim_end(), "event" | "id" | "retry" | "data");
    (!is_framing).then_some(text)
}

/// The text of a line for a dialect to parse: `None` for blank lines; bytes that are not UTF-8 are
/// reported and replaced.
pub(crate) fn line_text<'a>(line: &RawLine<'a>, store: &mut PartStore) -> Option<Cow<'a, str>> {
    if line.is_blank() {
        return None;
    }
    if let Some(text) = line.as_text() {
        return Some(Cow::Borrowed(text));
    }
    // Not UTF-8: std's check says where it stops being so.
    let at = std::str::from_utf8(line.bytes).map_or_else(|e| e.valid_up_to(), str::len);
    store.warn(
        line.number,
        format!("invalid UTF-8 at byte {at}; replaced with U+FFFD"),
    );
    Some(String::from_utf8_lossy(line.bytes))
}

/// [`line_text`], `None` also for a line blank only in Unicode's sense (a no-break space, say),
/// which the readers of Kimi's and Vibe's logs pass over as blank.
pub(crate) fn nonblank_line_text<'a>(
    line: &RawLine<'a>,
    store: &mut PartStore,
) -> Option<Cow<'a, str>> {
    line_text(line, store).filter(|text| !text.trim().is_empty())
}

/// Parse one line's text as the dialect's typed (borrowed) JSON; a line that does not parse is
/// reported (see [`report_bad_json`]) and comes back as `None`, so the caller moves on.
pub(crate) fn parse_json<'t, T: serde::Deserialize<'t>>(
    line: &RawLine<'_>,
    text: &'t str,
    store: &mut PartStore,
) -> Option<T> {
    match serde_json::from_str(text) {
        Ok(v) => Some(v),
        // Valid JSON of the wrong shape: say what it is rather than "not JSON".
        Err(e) if e.classify() == serde_json::error::Category::Data => {
            let message = if e.to_string().starts_with("missing field `type`") {
                "a JSON object without `type`; skipped".to_owned()
            } else {
                format!("JSON, but not an event of this dialect: {e}")
            };
            store.warn(line.number, message);
            None
        }
        Err(e) => {
            report_bad_json(line, &e, store);
            None
        }
    }
}

/// A call's arguments as a chat-shaped message holds them, the model's JSON text
/// (`function.arguments`): blank text is no arguments, `{}`.
pub(crate) fn model_arguments(text: &str) -> serde_json::Result<Value> {
    if text.trim().is_empty() {
        Ok(Value::Object(Default::default()))
    } else {
        serde_json::from_str(text)
    }
}

/// A raw JSON value parsed into a `Value`; `Null` when it does not parse.
pub(crate) fn raw_to_value(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

/// Longest message, in characters, taken from the first line of an error text.
const ERROR_LINE_MAX: usize = 200;

/// The first meaningful line of an error text, as a one-line message: markdown heading marks are
/// dropped and a bare "Error" heading (MCP servers write `### Error`) gives way to the line after
/// it. `None` when the text has no line that is not blank.
pub(crate) fn first_line(text: &str) -> Option<String> {
    let mut lines = text
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .filter(|l| !l.is_empty());
    let first = lines.next()?;
    let line = if matches!(
        first.to_ascii_lowercase().as_str(),
        "error" | "error:" | "errors"
    ) {
        lines.next().unwrap_or(first)
    } else {
        first
    };
    Some(crate::text::clip(line, ERROR_LINE_MAX))
}

/// Report a line that is not the JSON the dialect expects, naming a cut-short last line as such.
pub(crate) fn report_bad_json(line: &RawLine<'_>, err: &serde_json::Error, store: &mut PartStore) {
    if line.unterminated && err.is_eof() {
        store.diagnostic(
            line.number,
            crate::model::DiagnosticLevel::Error,
            "truncated last line: the stream ends in the middle of a JSON value",
        );
    } else {
        store.warn(line.number, format!("not JSON: {err}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_line_skips_headings_that_only_say_error() {
        assert_eq!(first_line("  \nboom\nat x").as_deref(), Some("boom"));
        assert_eq!(
            first_line("### Error\nCould not register").as_deref(),
            Some("Could not register")
        );
        assert_eq!(first_line("## Summary\nx").as_deref(), Some("Summary"));
        assert_eq!(first_line("Error").as_deref(), Some("Error"));
        assert_eq!(first_line(" \n\t"), None);
        assert_eq!(
            first_line(&"word ".repeat(100)).unwrap().chars().count(),
            200
        );
    }

    #[test]
    fn a_line_past_utf8_is_replaced_and_says_where() {
        let line = |bytes| RawLine {
            number: 3,
            bytes,
            direction: crate::stream::Direction::Agent,
            unterminated: false,
            text: None,
        };
        let mut store = PartStore::new();
        assert!(matches!(
            line_text(&line("{\"é\":1}".as_bytes()), &mut store),
            Some(Cow::Borrowed("{\"é\":1}"))
        ));
        let text = line_text(&line(b"{\"a\xff\":1}"), &mut store).unwrap();
        assert_eq!(text, "{\"a\u{fffd}\":1}");
        // A line's known text is only taken for its own bytes: here it is some other text.
        let bad = RawLine {
            text: Some("{\"b\":2}"),
            ..line(b"{\"a\xff\":2}")
        };
        assert_eq!(line_text(&bad, &mut store).unwrap(), "{\"a\u{fffd}\":2}");
        let doc = store.finish("claude", "stream-json");
        assert_eq!(doc.diagnostics.len(), 2);
        assert_eq!(doc.diagnostics[0].line, 3);
        assert_eq!(
            doc.diagnostics[0].message,
            "invalid UTF-8 at byte 3; replaced with U+FFFD"
        );
    }
}
