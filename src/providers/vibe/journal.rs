//! Mistral Vibe's session journal: what every session leaves without a flag,
//! `~/.vibe/logs/session/unified/<session id>/journal/<16-digit sequence>.jsonl`, and what
//! `vibe -p … --output-dir DIR` copies to `DIR/session/journal/` (a subagent's to
//! `DIR/subagents/<session id>/journal/`). The harness's session store is event-sourced: each line
//! is one recovery-journal record, `{recovery_journal_record_version: 1, sequence,
//! previous_record_sha256, record_sha256, type, payload}`, and a later segment (a new file) starts
//! after each snapshot (`generations/<n>/`). The calls are in the records that advance the
//! session's public projection, as the history entries `--output streaming` prints (`mod.rs`):
//!
//! - `projection_delta` (`payload.delta`, a list of ops) and `session_relocated` (the same
//!   `delta`): `append_entry` and `replace_entry` carry a whole entry (an effect as it starts,
//!   `running`, and again as it ends), `set_history_entries` every entry at once,
//!   `remove_entry` drops an effect the turn left open (the part keeps what it last was), and
//!   `set_envelope` holds the session's metadata and no entry;
//! - `projection_advanced` (`payload.snapshot.history.entries`): every entry at once.
//!
//! The other records (`command_reserved`, `core_input`, `action_intent`, `action_result`,
//! process, callback and receipt records) are the runtime's own bookkeeping: the model's requests
//! and answers, the tools' raw requests and results. They hold no entry; the first model request
//! (`action_intent` of kind `completion`) says the working directory (`Absolute path: <dir>` in
//! its system prompt), which places paths when the stream's header does not.

use serde_json::Value;

use super::entry;
use crate::providers::{
    LineNormalizer, NormalizeOptions, PartStore, Probe, nonblank_line_text, report_bad_json,
};
use crate::stream::RawLine;

/// The keys every journal record has.
const RECORD_KEYS: &[&str] = &[
    "recovery_journal_record_version",
    "sequence",
    "record_sha256",
    "type",
    "payload",
];

/// The records whose payload holds history entries.
const WITH_ENTRIES: &[&str] = &[
    "projection_delta",
    "session_relocated",
    "projection_advanced",
];

/// What the system prompt writes before the working directory.
const CWD_MARK: &str = "Absolute path: ";

/// The normalizer of one journal segment.
struct Normalizer {
    /// The working directory: the stream's header's (or the caller's), else the one the first
    /// model request names.
    cwd: Option<String>,
}

pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        cwd: opts.cwd.map(str::to_owned),
    })
}

/// Recognises a journal record: its version, sequence, hash, type and payload.
pub(crate) fn sniff(p: &Probe<'_>) -> bool {
    RECORD_KEYS.iter().all(|k| p.has(k))
}

/// The working directory a model request's system prompt names, if it names one.
fn cwd_of(request: &Value) -> Option<String> {
    let messages = request
        .pointer("/model_input/messages/messages")?
        .as_array()?;
    messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("system"))
        .filter_map(|m| m.get("content")?.as_array())
        .flatten()
        .filter_map(|c| c.get("text")?.as_str())
        .find_map(|text| {
            let at = text.find(CWD_MARK)? + CWD_MARK.len();
            let dir = text[at..].lines().next()?.trim();
            // An absolute path, or one a recording folded under the home folder.
            (dir.starts_with('/') || dir.starts_with('~')).then(|| dir.to_owned())
        })
}

/// The history entries a record's payload carries, in the order it writes them; `Err` says why
/// the payload is not what its type promises.
fn entries<'v>(ty: &str, payload: &'v Value) -> Result<Vec<&'v Value>, String> {
    if ty == "projection_advanced" {
        return match payload.pointer("/snapshot/history/entries") {
            Some(Value::Array(all)) => Ok(all.iter().collect()),
            Some(_) => Err("a projection snapshot whose history entries are not a list".into()),
            // A snapshot of a session with no history yet.
            None => Ok(Vec::new()),
        };
    }
    let Some(Value::Array(ops)) = payload.get("delta") else {
        return Err(format!("a {ty} record without a delta list"));
    };
    let mut out = Vec::new();
    for op in ops {
        match op.get("op").and_then(Value::as_str) {
            Some("append_entry" | "replace_entry") => match op.get("entry") {
                Some(e) => out.push(e),
                None => return Err("an entry op without its entry".into()),
            },
            Some("set_history_entries") => match op.get("entries") {
                Some(Value::Array(all)) => out.extend(all),
                _ => return Err("set_history_entries without a list of entries".into()),
            },
            // `remove_entry`, `set_envelope`, and ops a later release adds: no entry to read.
            Some(_) => {}
            None => return Err("a projection op without an `op`".into()),
        }
    }
    Ok(out)
}

impl Normalizer {
    fn record(&mut self, line: u32, v: &Value, store: &mut PartStore) {
        let Some(ty) = v.get("type").and_then(Value::as_str) else {
            store.warn(line, "a journal record without a type");
            return;
        };
        let payload = v.get("payload").unwrap_or(&Value::Null);
        if ty == "action_intent" {
            if self.cwd.is_none()
                && payload.get("kind").and_then(Value::as_str) == Some("completion")
            {
                self.cwd = payload.get("request").and_then(cwd_of);
            }
            return;
        }
        if !WITH_ENTRIES.contains(&ty) {
            return;
        }
        let found = match entries(ty, payload) {
            Ok(found) => found,
            Err(why) => {
                store.warn(line, why);
                return;
            }
        };
        for e in found {
            entry(store, line, e, self.cwd.as_deref());
        }
    }
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = nonblank_line_text(line, store) else {
            return;
        };
        // Most records (the model's requests, tens of kilobytes each) hold no entry: their type
        // is read first, and only the records that can hold one are parsed whole.
        let wanted = match Probe::parse(&text) {
            Some(p) => {
                let ty = p.ty();
                WITH_ENTRIES.contains(&ty.as_ref())
                    || (ty == "action_intent" && self.cwd.is_none())
                    || !p.has("type")
            }
            None => true,
        };
        if !wanted {
            return;
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(v) if v.is_object() => self.record(line.number, &v, store),
            Ok(_) => store.warn(line.number, "a journal record that is not an object"),
            Err(e) => report_bad_json(line, &e, store),
        }
    }

    fn finish(&mut self, _: &mut PartStore) {}
}
