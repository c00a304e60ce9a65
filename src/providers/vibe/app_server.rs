//! `vibe-app-server`: Vibe's app protocol, JSON-RPC 2.0 over stdio, one message a line, as a
//! recording holds it (the server's messages and the client's, interleaved). The calls are in the
//! session's history entries (`PublicHistoryEntry`, the entries `--output streaming` prints, read
//! by the provider's one entry mapping in `mod.rs`):
//!
//! - `history/entryAdded` (`{eventId, sessionId, turnId, entry, emittedAt}`) adds an entry (an
//!   effect as it starts);
//! - `history/entryUpdated` (`{eventId, sessionId, turnId, entryId, patch, emittedAt}`) changes
//!   one: JSON Patch operations on it (`patch.rs`), an effect's end among them. An effect (a
//!   call) is kept by its id and read again once patched; of the other entries (the messages,
//!   whose text grows by one `append` a token) only the id is kept, and their patches are passed
//!   over, so memory follows the calls. A patch to an entry no message added, or one that does
//!   not apply, is a warning naming its line and changes nothing;
//! - the session's whole state (`PublicSessionState`, its `history` the entries so far) in the
//!   `session/snapshot` notification and in the answers to `session/start`, `session/read`,
//!   `session/resume` and the like (`result.state`): each entry read as if added.
//!
//! The other messages (the client's requests, the server's answers without a state,
//! `session/updated`, `turn/started`, `turn/completed`, statistics) hold no call.

use std::collections::HashMap;

use serde_json::Value;

use super::{entry, patch};
use crate::providers::{
    LineNormalizer, NormalizeOptions, PartStore, Probe, nonblank_line_text, report_bad_json,
};
use crate::stream::RawLine;

/// The normalizer of one recording.
struct Normalizer {
    cwd: Option<String>,
    /// Every entry so far, by id: an effect as last patched, any other as `None` (its patches
    /// are not read).
    entries: HashMap<String, Option<Value>>,
}

pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        cwd: opts.cwd.map(str::to_owned),
        entries: HashMap::new(),
    })
}

/// Recognises a line of the protocol: a notification of the server (its params have an
/// `eventId`, a `sessionId` and an `emittedAt`, as every one of Vibe's event notifications has,
/// or `runtime/updated`'s `sessionId` and `runtime`), or a message only a Vibe client sends
/// (`initialized` with params, which Codex's client sends without; `session/start` with an
/// `agentConfig`; `turn/start` with a `sessionId` and a `message`; `callback/result`). Each of
/// them but `callback/result` is also a Codex app-server or ACP method name, so this row is
/// above theirs and a recording's lines vote for it.
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    let Some(method) = p.str("method") else {
        return false;
    };
    let params = |k: &str| p.nested_has("params", k);
    match method.as_ref() {
        "initialized" => p.has("params"),
        "session/start" => params("agentConfig"),
        "turn/start" => params("sessionId") && params("message"),
        "callback/result" => params("sessionId") && params("result"),
        "runtime/updated" => params("sessionId") && params("runtime"),
        _ => params("eventId") && params("sessionId") && params("emittedAt"),
    }
}

impl Normalizer {
    /// Keep an entry (an effect whole, any other by its id) and read it.
    fn add(&mut self, store: &mut PartStore, line: u32, e: &Value) {
        if let Some(id) = e.get("id").and_then(Value::as_str) {
            let effect = e.get("type").and_then(Value::as_str) == Some("effect");
            self.entries
                .insert(id.to_owned(), effect.then(|| e.clone()));
        }
        entry(store, line, e, self.cwd.as_deref());
    }

    /// Apply a `history/entryUpdated`'s patch to the entry it names, and read the entry again.
    fn update(&mut self, store: &mut PartStore, line: u32, params: Option<&Value>) {
        let Some(id) = params
            .and_then(|p| p.get("entryId"))
            .and_then(Value::as_str)
        else {
            store.warn(line, "history/entryUpdated without an entryId");
            return;
        };
        let Some(ops) = params
            .and_then(|p| p.get("patch"))
            .and_then(Value::as_array)
        else {
            store.warn(
                line,
                format!("history/entryUpdated of {id} without a patch"),
            );
            return;
        };
        let e = match self.entries.get_mut(id) {
            Some(Some(e)) => e,
            Some(None) => return,
            None => {
                store.warn(
                    line,
                    format!("history/entryUpdated of {id}, an entry no earlier message added"),
                );
                return;
            }
        };
        match patch::apply(e, ops) {
            Ok(()) => entry(store, line, e, self.cwd.as_deref()),
            Err(why) => store.warn(
                line,
                format!("history/entryUpdated of {id} does not apply ({why}); the entry is kept as it was"),
            ),
        }
    }

    /// Read every entry of a session's state (`PublicSessionState.history`), if it has any.
    fn state(&mut self, store: &mut PartStore, line: u32, state: Option<&Value>) {
        let history = state.and_then(|s| s.get("history"));
        for e in history.and_then(Value::as_array).into_iter().flatten() {
            self.add(store, line, e);
        }
    }
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = nonblank_line_text(line, store) else {
            return;
        };
        let v = match serde_json::from_str::<Value>(&text) {
            Ok(v) => v,
            Err(e) => return report_bad_json(line, &e, store),
        };
        let n = line.number;
        if !v.is_object() {
            store.warn(n, "a message that is not a JSON object");
            return;
        }
        let params = v.get("params");
        match v.get("method").and_then(Value::as_str) {
            Some("history/entryAdded") => match params.and_then(|p| p.get("entry")) {
                Some(e) => self.add(store, n, e),
                None => store.warn(n, "history/entryAdded without an entry"),
            },
            Some("history/entryUpdated") => self.update(store, n, params),
            Some("session/snapshot") => self.state(store, n, params.and_then(|p| p.get("state"))),
            // The client's requests and the other notifications hold no entry.
            Some(_) => {}
            // An answer: a session's state in those that return one.
            None => self.state(store, n, v.pointer("/result/state")),
        }
    }

    fn finish(&mut self, _: &mut PartStore) {}
}
