//! The per-session state of a droid stream, whichever dialect: a call opens a part (one per call
//! id), its result completes or fails it. A result that comes before its call (lines out of
//! order) waits for it; one whose call never comes is reported at the end.

use serde_json::Value;

use super::tools;
use crate::hash::HashMap;
use crate::model::{TimeValue, Timing, ToolKind, ToolMetadata, ToolState};
use crate::providers::{PartStore, PartUpdate};

/// A result read from the stream: its value, or the failure's text.
#[derive(Clone, Debug)]
pub(super) enum Outcome {
    Value(Value),
    Failed(String),
}

/// A result waiting for its call.
struct Pending {
    line: u32,
    outcome: Outcome,
    at: Option<TimeValue>,
}

/// One stream's state.
pub(super) struct Tracker {
    /// The session's working directory (`init`, `session_start`), for paths in titles.
    pub cwd: Option<String>,
    /// The raw type a call comes as (`tool_call`, `tool_use`).
    provider_type: &'static str,
    /// Call id → its kind, to read its result.
    kinds: HashMap<String, ToolKind>,
    pending: HashMap<String, Pending>,
}

impl Tracker {
    pub fn new(cwd: Option<&str>, provider_type: &'static str) -> Self {
        Tracker {
            cwd: cwd.map(str::to_owned),
            provider_type,
            kinds: HashMap::default(),
            pending: HashMap::default(),
        }
    }

    /// The session says where it runs.
    pub fn set_cwd(&mut self, cwd: Option<&str>) {
        if let Some(c) = cwd.filter(|c| !c.is_empty()) {
            self.cwd = Some(c.to_owned());
        }
    }

    /// A tool call: the part opens, running (droid runs a call as soon as it is written).
    pub fn call(
        &mut self,
        line: u32,
        id: &str,
        name: &str,
        input: Value,
        at: Option<TimeValue>,
        store: &mut PartStore,
    ) {
        let input = if input.is_null() {
            Value::Object(Default::default())
        } else {
            input
        };
        let described = tools::describe(name, &input, self.cwd.as_deref());
        self.kinds.insert(id.to_owned(), described.kind);
        let mut u = PartUpdate::new(id);
        u.name = Some(described.name);
        u.kind = Some(described.kind);
        u.title = Some(described.title);
        u.input = Some(input);
        u.state = Some(ToolState::Running);
        u.metadata = Some(ToolMetadata {
            provider_type: Some(self.provider_type.to_owned()),
            mcp: described.mcp,
            ..ToolMetadata::default()
        });
        if let Some(at) = at {
            u.timing = Some(Timing {
                started_at: Some(at),
                ..Timing::default()
            });
        }
        store.upsert(line, u);
        if let Some(p) = self.pending.remove(id) {
            self.apply(p.line, id, p.outcome, p.at, store);
        }
    }

    /// A tool's result.
    pub fn result(
        &mut self,
        line: u32,
        id: &str,
        outcome: Outcome,
        at: Option<TimeValue>,
        store: &mut PartStore,
    ) {
        if self.kinds.contains_key(id) {
            self.apply(line, id, outcome, at, store);
        } else {
            store.info(
                line,
                format!("result for {id} came before its call; it waits for the call"),
            );
            self.pending
                .insert(id.to_owned(), Pending { line, outcome, at });
        }
    }

    fn apply(
        &mut self,
        line: u32,
        id: &str,
        outcome: Outcome,
        at: Option<TimeValue>,
        store: &mut PartStore,
    ) {
        let kind = self.kinds.get(id).copied().unwrap_or(ToolKind::Unknown);
        let mut u = PartUpdate::new(id);
        let mut meta = ToolMetadata::default();
        match outcome {
            Outcome::Value(v) => {
                if kind == ToolKind::Bash {
                    meta.exit_code = v.as_str().and_then(tools::exit_code);
                }
                u.state = Some(ToolState::Complete);
                u.output = Some(tools::output(&v));
            }
            Outcome::Failed(text) => {
                let error = tools::error(kind, &text);
                if kind == ToolKind::Bash {
                    meta.exit_code = error.code.as_deref().and_then(|c| c.parse().ok());
                }
                u.state = Some(ToolState::Error);
                u.error = Some(error);
            }
        }
        if !meta.is_empty() {
            u.metadata = Some(meta);
        }
        if let Some(at) = at {
            let started = store
                .get(id)
                .and_then(|p| p.timing.as_ref())
                .and_then(|t| t.started_at.clone());
            let elapsed_ms = match (&started, &at) {
                (Some(TimeValue::Millis(s)), TimeValue::Millis(e)) if e >= s => {
                    Some((e - s) as u64)
                }
                _ => None,
            };
            u.timing = Some(Timing {
                started_at: None,
                completed_at: Some(at),
                elapsed_ms,
            });
        }
        store.upsert(line, u);
    }

    /// The turn ended without a result for these calls (an error ended the run): they failed.
    pub fn end_turn(&mut self, line: u32, why: &str, store: &mut PartStore) {
        store.abort_open(line, why, "aborted");
    }

    /// End of stream: results that never found their call are reported.
    pub fn finish(&mut self, store: &mut PartStore) {
        let mut orphans: Vec<(u32, String)> =
            self.pending.drain().map(|(id, p)| (p.line, id)).collect();
        orphans.sort();
        for (line, id) in orphans {
            store.warn(
                line,
                format!("result for {id} has no matching call in this stream"),
            );
        }
    }
}
