//! The `opencode serve` event stream: `/event` (`{type, properties}`, with a top-level `id` from
//! about v1.14) and `/global/event` (`{directory, payload}`), raw or with SSE framing (`data: `
//! lines; `event:`, `id:`, `retry:` and `:` comment lines are framing and skipped). Tool parts come
//! from `message.part.updated` in all three eras: `{part, delta?}` (≤ v1.1), `{part}` (v1.2) and
//! `{sessionID, part, time}` (v1.4+); the part is a full snapshot each time.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::tools::{Fork, OPENCODE};
use super::tracker::Tracker;
use super::wire::{ErrorWire, PartWire};
use crate::providers::{LineNormalizer, NormalizeOptions, PartStore, line_text, parse_json};
use crate::stream::RawLine;

/// `{type, properties}` from `/event`, `{directory, payload}` from `/global/event`. Event-hook logs
/// of plugins name the type `event_type`.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type", alias = "event_type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    properties: Option<&'a RawValue>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
    #[serde(borrow, default)]
    directory: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct PartProps<'a> {
    #[serde(borrow, default)]
    part: Option<PartWire<'a>>,
}

#[derive(Deserialize)]
struct SessionInfoProps<'a> {
    #[serde(borrow, default)]
    info: Option<SessionInfo<'a>>,
}

#[derive(Deserialize)]
struct SessionInfo<'a> {
    #[serde(borrow, default)]
    directory: Option<Cow<'a, str>>,
    #[serde(rename = "parentID", borrow, default)]
    parent_id: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct SessionErrorProps<'a> {
    #[serde(rename = "sessionID", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    error: Option<ErrorWire<'a>>,
}

#[derive(Deserialize)]
struct MessageProps<'a> {
    #[serde(borrow, default)]
    info: Option<MessageInfo<'a>>,
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

/// Normalizes an event stream. Its cwd comes from `/global/event`'s `directory` or the root
/// session's info.
pub(crate) struct Normalizer {
    tracker: Tracker,
}

/// The normalizer of one stream.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    new_for(&OPENCODE, opts)
}

/// The normalizer of one stream of a CLI built on OpenCode (`fork` names its own tools).
pub(crate) fn new_for(fork: &'static Fork, _: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::new(None, fork),
    })
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let tracker = &mut self.tracker;
        tracker.scan_sessions(line.bytes, store);
        let Some(text) = line_text(line, store) else {
            return;
        };
        let Some(json) = crate::providers::sse_payload(&text) else {
            return;
        };
        if json.trim().is_empty() {
            return;
        }
        let Some(env) = parse_json::<Envelope<'_>>(line, json, store) else {
            return;
        };
        if let Some(payload) = env.payload {
            // `/global/event`: the instance directory is the session's cwd.
            if tracker.cwd.is_none() {
                tracker.cwd = env.directory.as_deref().map(str::to_owned);
            }
            match serde_json::from_str::<Envelope<'_>>(payload.get()) {
                Ok(inner) => event(line.number, &inner, store, tracker),
                Err(err) => store.warn(
                    line.number,
                    format!("global event payload is not an event: {err}"),
                ),
            }
        } else {
            event(line.number, &env, store, tracker);
        }
    }

    fn finish(&mut self, _: &mut PartStore) {}
}

fn event(line: u32, env: &Envelope<'_>, store: &mut PartStore, tracker: &mut Tracker) {
    let Some(ty) = env.ty.as_deref() else {
        store.info(line, "event without a `type`; skipped");
        return;
    };
    let props = env.properties.map_or("{}", RawValue::get);
    match ty {
        "message.part.updated" => match serde_json::from_str::<PartProps<'_>>(props) {
            Ok(PartProps { part: Some(part) }) => tracker.apply(line, &part, store),
            Ok(PartProps { part: None }) => store.warn(line, "message.part.updated without a part"),
            Err(e) => store.warn(line, format!("message.part.updated: {e}")),
        },
        // A child session shares its parent's directory; the root one is what counts.
        "session.created" | "session.updated" if tracker.cwd.is_none() => {
            if let Ok(SessionInfoProps { info: Some(info) }) = serde_json::from_str(props)
                && info.parent_id.is_none()
            {
                tracker.cwd = info.directory.as_deref().map(str::to_owned);
            }
        }
        "session.error" => {
            if let Ok(p) = serde_json::from_str::<SessionErrorProps<'_>>(props) {
                match p.error {
                    Some(e) if e.is_abort() => tracker.abort(
                        line,
                        p.session_id.as_deref(),
                        None,
                        "The session was aborted",
                        store,
                    ),
                    Some(e) => store.info(line, format!("session error: {}", e.summary())),
                    None => {}
                }
            }
        }
        "message.updated" => {
            // An assistant message that ends with MessageAbortedError leaves its open tools behind.
            if let Ok(MessageProps { info: Some(info) }) = serde_json::from_str(props)
                && let (Some(e), Some(id)) = (info.error.as_ref(), info.id.as_deref())
                && e.is_abort()
            {
                tracker.abort(
                    line,
                    info.session_id.as_deref(),
                    Some(id),
                    "The message was aborted",
                    store,
                );
            }
        }
        // The experimental `packages/core` runner's tool events: parts stay the source of truth,
        // but a stream made only of these would otherwise come out silently empty.
        t if t.starts_with("session.next.tool.") && !tracker.noted_next_tool => {
            tracker.noted_next_tool = true;
            store.info(
                line,
                format!(
                    "`{t}` and the other session.next.tool.* events are not read; tool calls come from message.part.updated"
                ),
            );
        }
        // Everything else (heartbeats, server.connected, deltas, status, diffs, permissions, the
        // experimental session.next.* runner events) carries no tool state the parts lack.
        _ => {}
    }
}

/// Recognises a line of the event stream: an event envelope (`payload` + `directory`), a typed
/// event with `properties` (or a plugin hook's `event_type`), or any dotted type sent as SSE.
pub(crate) fn sniff(p: &crate::providers::Probe<'_>) -> bool {
    let ty = p.ty();
    (p.has("payload") && p.has("directory"))
        || (p.has("properties") && ty.contains('.'))
        || (p.has("properties") && p.str("event_type").is_some_and(|t| t.contains('.')))
        || (p.sse && ty.contains('.'))
}

#[cfg(test)]
mod tests {
    use crate::providers::sse_payload;

    #[test]
    fn sse_framing() {
        assert_eq!(sse_payload("data: {\"a\":1}"), Some("{\"a\":1}"));
        assert_eq!(sse_payload("data:{\"a\":1}"), Some("{\"a\":1}"));
        assert_eq!(sse_payload("event: message"), None);
        assert_eq!(sse_payload("id: 7"), None);
        assert_eq!(sse_payload(": keep-alive"), None);
        assert_eq!(sse_payload("{\"type\":\"x\"}"), Some("{\"type\":\"x\"}"));
    }
}
