//! The normalizer both Kimi dialects share: each line a message (or a record of Kimi's, skipped).
//!
//! - an assistant message's `tool_calls` (`{type: "function", id, function: {name, arguments}}`,
//!   the arguments the model's JSON text): each a call, running;
//! - a `tool` message (`tool_call_id`, `content`: a text or a list of parts): the call's result,
//!   failed when Kimi's note in it says `ERROR:` (see [`tools::outcome`]);
//! - a saved context's `_system_prompt`: the working directory, when the header does not say it.
//!
//! A result that comes before its call (lines out of order) waits for it; one whose call never
//! comes is reported at the end.

use serde::Deserialize;
use serde_json::Value;

use super::tools;
use crate::hash::HashMap;
use crate::providers::{
    LineNormalizer, PartStore, model_arguments, nonblank_line_text, report_bad_json,
};
use crate::stream::RawLine;

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    tool_calls: Option<Vec<Value>>,
    #[serde(default)]
    tool_call_id: Option<String>,
}

/// One stream's state.
pub(super) struct Normalizer {
    cwd: Option<String>,
    /// The header named the working directory: the system prompt's does not replace it.
    cwd_given: bool,
    /// A saved context (Kimi's records and the user's messages are expected there).
    session: bool,
    /// Calls seen, by id: whether their result came.
    calls: HashMap<String, bool>,
    /// Results that came before their call, with their line.
    pending: HashMap<String, (u32, Value)>,
}

impl Normalizer {
    pub(super) fn new(cwd: Option<&str>, session: bool) -> Self {
        Normalizer {
            cwd: cwd.map(str::to_owned),
            cwd_given: cwd.is_some(),
            session,
            calls: HashMap::default(),
            pending: HashMap::default(),
        }
    }

    fn assistant(&mut self, line: u32, calls: &[Value], store: &mut PartStore) {
        for call in calls {
            let Some(id) = call
                .get("id")
                .and_then(Value::as_str)
                .filter(|i| !i.is_empty())
            else {
                store.warn(line, "a tool call without an id");
                continue;
            };
            let function = call.get("function");
            let Some(name) = function
                .and_then(|f| f.get("name"))
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
            else {
                store.warn(line, format!("tool call {id} without a function name"));
                continue;
            };
            let arguments = function
                .and_then(|f| f.get("arguments"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let input = match model_arguments(arguments) {
                Ok(v) => v,
                Err(e) => {
                    store.warn(
                        line,
                        format!("the arguments of {id} ({name}) are not JSON: {e}"),
                    );
                    Value::Object(Default::default())
                }
            };
            store.upsert(
                line,
                tools::opened(id, name, input, self.cwd.as_deref(), None),
            );
            self.calls.entry(id.to_owned()).or_insert(false);
            if let Some((at, content)) = self.pending.remove(id) {
                self.result(at, id, &content, store);
            }
        }
    }

    fn result(&mut self, line: u32, id: &str, content: &Value, store: &mut PartStore) {
        let Some(done) = self.calls.get_mut(id) else {
            store.info(
                line,
                format!("the result of {id} came before its call; it waits for the call"),
            );
            self.pending.insert(id.to_owned(), (line, content.clone()));
            return;
        };
        if *done {
            store.warn(line, format!("a second result for {id}; ignored"));
            return;
        }
        *done = true;
        let texts = texts(content);
        store.upsert(
            line,
            crate::providers::PartUpdate::ended(id, tools::outcome(&texts)),
        );
    }

    /// The working directory the system prompt names.
    fn learn_cwd(&mut self, content: Option<&Value>) {
        if self.cwd_given {
            return;
        }
        let Some(prompt) = content.and_then(Value::as_str) else {
            return;
        };
        let marker = "The current working directory is `";
        if let Some(rest) = prompt.split(marker).nth(1)
            && let Some((dir, _)) = rest.split_once('`')
            && dir.starts_with(['/', '~'])
        {
            self.cwd = Some(dir.to_owned());
        }
    }
}

/// The texts of a message's content, in order: a plain string, or the `text` of each part of a
/// list (an image or other part holds none).
fn texts(content: &Value) -> Vec<&str> {
    match content {
        Value::String(s) => vec![s.as_str()],
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => Vec::new(),
    }
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let Some(text) = nonblank_line_text(line, store) else {
            return;
        };
        let m: Message = match serde_json::from_str(&text) {
            Ok(m) => m,
            Err(err) if err.is_data() => {
                store.warn(line.number, format!("not a Kimi message: {err}"));
                return;
            }
            Err(err) => {
                report_bad_json(line, &err, store);
                return;
            }
        };
        match m.role.as_deref() {
            Some("assistant") => {
                if let Some(calls) = &m.tool_calls {
                    self.assistant(line.number, calls, store);
                }
            }
            Some("tool") => match m.tool_call_id.as_deref().filter(|i| !i.is_empty()) {
                Some(id) => {
                    let content = m.content.unwrap_or(Value::Null);
                    self.result(line.number, id, &content, store);
                }
                None => store.warn(line.number, "a tool message without a tool_call_id"),
            },
            Some("_system_prompt") if self.session => self.learn_cwd(m.content.as_ref()),
            Some("user" | "system" | "_checkpoint" | "_usage") => {}
            Some(other) if self.session || other.starts_with('_') => {
                store.info(line.number, format!("a `{other}` record; skipped"));
            }
            Some(other) => store.info(line.number, format!("a `{other}` message; skipped")),
            // A plan display or a notification (print mode): no call in them.
            None => {}
        }
    }

    fn finish(&mut self, store: &mut PartStore) {
        store.warn_unmatched_results(self.pending.drain());
    }
}
