//! The one place where parts are created and updated. Every dialect feeds `PartUpdate`s into a
//! `PartStore`; the store keeps one part per id (idempotent upsert), enforces the lifecycle (state
//! only moves forward, a terminal state never reverts, output and error never both), records an
//! event for every change and collects diagnostics.

use std::collections::HashMap;

use serde_json::Value;

use crate::model::{
    Diagnostic, DiagnosticLevel, NormalizedDocument, NormalizedToolPart, PartEvent, SCHEMA_VERSION,
    Timing, ToolError, ToolKind, ToolMetadata, ToolState,
};

/// A partial update to one part. `None` leaves the field as it is.
#[derive(Clone, Debug, Default)]
pub struct PartUpdate {
    pub id: String,
    pub name: Option<String>,
    pub kind: Option<ToolKind>,
    pub title: Option<String>,
    pub input: Option<Value>,
    pub output: Option<Value>,
    pub error: Option<ToolError>,
    pub state: Option<ToolState>,
    /// Merged field by field.
    pub timing: Option<Timing>,
    /// Merged field by field (`extra` key by key).
    pub metadata: Option<ToolMetadata>,
}

impl PartUpdate {
    pub fn new(id: impl Into<String>) -> Self {
        PartUpdate {
            id: id.into(),
            ..PartUpdate::default()
        }
    }
}

/// What happened to an update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Upserted {
    Created,
    Changed,
    Unchanged,
    /// The id was unknown and the update carried no name: nothing was created.
    UnknownId,
}

#[derive(Debug, Default)]
pub struct PartStore {
    parts: Vec<NormalizedToolPart>,
    index: HashMap<String, usize>,
    events: Vec<PartEvent>,
    diagnostics: Vec<Diagnostic>,
}

fn set<T: PartialEq>(slot: &mut T, value: T) -> bool {
    if *slot != value {
        *slot = value;
        true
    } else {
        false
    }
}

fn merge_opt<T: PartialEq>(slot: &mut Option<T>, value: Option<T>) -> bool {
    match value {
        Some(v) if slot.as_ref() != Some(&v) => {
            *slot = Some(v);
            true
        }
        _ => false,
    }
}

fn merge_timing(slot: &mut Option<Timing>, update: Timing) -> bool {
    if update.is_empty() {
        return false;
    }
    let t = slot.get_or_insert_with(Timing::default);
    let mut changed = merge_opt(&mut t.started_at, update.started_at);
    changed |= merge_opt(&mut t.completed_at, update.completed_at);
    changed |= merge_opt(&mut t.elapsed_ms, update.elapsed_ms);
    changed
}

fn merge_metadata(slot: &mut Option<ToolMetadata>, update: ToolMetadata) -> bool {
    if update.is_empty() {
        return false;
    }
    let m = slot.get_or_insert_with(ToolMetadata::default);
    let mut changed = merge_opt(&mut m.provider_type, update.provider_type);
    changed |= merge_opt(&mut m.mcp, update.mcp);
    changed |= merge_opt(&mut m.action, update.action);
    changed |= merge_opt(&mut m.task_id, update.task_id);
    changed |= merge_opt(&mut m.parent_tool_use_id, update.parent_tool_use_id);
    changed |= merge_opt(&mut m.child_session_id, update.child_session_id);
    changed |= merge_opt(&mut m.session_id, update.session_id);
    changed |= merge_opt(&mut m.attachments, update.attachments);
    changed |= merge_opt(&mut m.truncated, update.truncated);
    changed |= merge_opt(&mut m.exit_code, update.exit_code);
    for (k, v) in update.extra {
        if m.extra.get(&k) != Some(&v) {
            m.extra.insert(k, v);
            changed = true;
        }
    }
    changed
}

impl PartStore {
    pub fn new() -> Self {
        PartStore::default()
    }

    pub fn get(&self, id: &str) -> Option<&NormalizedToolPart> {
        self.index.get(id).map(|&i| &self.parts[i])
    }

    pub fn contains(&self, id: &str) -> bool {
        self.index.contains_key(id)
    }

    pub fn parts(&self) -> &[NormalizedToolPart] {
        &self.parts
    }

    /// Apply an update caused by raw line `line`. A new id needs at least a name; kind defaults to
    /// `unknown`, title to the name, input to `{}`, state to `started`.
    pub fn upsert(&mut self, line: u32, update: PartUpdate) -> Upserted {
        let (idx, created) = match self.index.get(&update.id) {
            Some(&i) => (i, false),
            None => {
                let Some(name) = update.name.clone() else {
                    return Upserted::UnknownId;
                };
                let part = NormalizedToolPart {
                    id: update.id.clone(),
                    title: update.title.clone().unwrap_or_else(|| name.clone()),
                    name,
                    kind: update.kind.unwrap_or(ToolKind::Unknown),
                    input: Value::Object(Default::default()),
                    output: None,
                    error: None,
                    state: ToolState::Started,
                    timing: None,
                    metadata: None,
                };
                self.parts.push(part);
                let i = self.parts.len() - 1;
                self.index.insert(update.id.clone(), i);
                (i, true)
            }
        };
        let part = &mut self.parts[idx];
        let mut changed = false;
        if let Some(name) = update.name {
            changed |= set(&mut part.name, name);
        }
        if let Some(kind) = update.kind {
            changed |= set(&mut part.kind, kind);
        }
        if let Some(title) = update.title {
            changed |= set(&mut part.title, title);
        }
        if let Some(input) = update.input {
            changed |= set(&mut part.input, input);
        }
        // The lifecycle only moves forward; once terminal, the state is frozen.
        let mut state = part.state;
        if let Some(next) = update.state {
            if !part.state.is_terminal() && next.rank() >= part.state.rank() {
                state = next;
            }
        }
        changed |= set(&mut part.state, state);
        match part.state {
            ToolState::Complete => {
                changed |= merge_opt(&mut part.output, update.output);
                changed |= set(&mut part.error, None);
            }
            ToolState::Error => {
                changed |= merge_opt(&mut part.error, update.error);
                if part.error.is_none() {
                    part.error = Some(ToolError {
                        message: "the tool call failed".to_owned(),
                        code: None,
                        details: None,
                    });
                    changed = true;
                }
                changed |= set(&mut part.output, None);
            }
            // Output seen before the outcome (streamed deltas) is kept until the outcome decides.
            ToolState::Started | ToolState::Running => {
                changed |= merge_opt(&mut part.output, update.output);
            }
        }
        if let Some(t) = update.timing {
            changed |= merge_timing(&mut part.timing, t);
        }
        if let Some(m) = update.metadata {
            changed |= merge_metadata(&mut part.metadata, m);
        }
        if created || changed {
            self.events.push(PartEvent {
                line,
                part_id: part.id.clone(),
                state: part.state,
            });
        }
        if created {
            Upserted::Created
        } else if changed {
            Upserted::Changed
        } else {
            Upserted::Unchanged
        }
    }

    /// The provider said the turn was aborted or interrupted: every part still started or running
    /// becomes `error` with `message`.
    pub fn abort_open(&mut self, line: u32, message: &str, code: &str) {
        self.abort_open_where(line, message, code, |_| true);
    }

    /// [`abort_open`](Self::abort_open) for the open parts `which` selects (one session's).
    pub fn abort_open_where(
        &mut self,
        line: u32,
        message: &str,
        code: &str,
        which: impl Fn(&NormalizedToolPart) -> bool,
    ) {
        let open: Vec<String> = self
            .parts
            .iter()
            .filter(|p| !p.state.is_terminal() && which(p))
            .map(|p| p.id.clone())
            .collect();
        for id in open {
            let mut u = PartUpdate::new(id);
            u.state = Some(ToolState::Error);
            u.error = Some(ToolError {
                message: message.to_owned(),
                code: Some(code.to_owned()),
                details: None,
            });
            self.upsert(line, u);
        }
    }

    pub fn diagnostic(&mut self, line: u32, level: DiagnosticLevel, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic {
            line,
            level,
            message: message.into(),
        });
    }

    pub fn warn(&mut self, line: u32, message: impl Into<String>) {
        self.diagnostic(line, DiagnosticLevel::Warning, message);
    }

    pub fn info(&mut self, line: u32, message: impl Into<String>) {
        self.diagnostic(line, DiagnosticLevel::Info, message);
    }

    pub fn finish(self, provider: &str, dialect: &str) -> NormalizedDocument {
        NormalizedDocument {
            schema_version: SCHEMA_VERSION,
            provider: provider.to_owned(),
            dialect: dialect.to_owned(),
            parts: self.parts,
            events: self.events,
            diagnostics: self.diagnostics,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(id: &str, state: ToolState) -> PartUpdate {
        PartUpdate {
            name: Some("Bash".into()),
            state: Some(state),
            ..PartUpdate::new(id)
        }
    }

    #[test]
    fn upsert_is_idempotent_and_state_never_moves_back() {
        let mut s = PartStore::new();
        assert_eq!(
            s.upsert(1, named("a", ToolState::Running)),
            Upserted::Created
        );
        assert_eq!(
            s.upsert(2, named("a", ToolState::Running)),
            Upserted::Unchanged
        );
        assert_eq!(
            s.upsert(3, named("a", ToolState::Started)),
            Upserted::Unchanged
        );
        let mut done = named("a", ToolState::Complete);
        done.output = Some(Value::from("ok"));
        assert_eq!(s.upsert(4, done), Upserted::Changed);
        let mut err = named("a", ToolState::Error);
        err.error = Some(ToolError {
            message: "x".into(),
            code: None,
            details: None,
        });
        assert_eq!(s.upsert(5, err), Upserted::Unchanged);
        let p = s.get("a").unwrap();
        assert_eq!(p.state, ToolState::Complete);
        assert!(p.error.is_none());
        assert_eq!(s.events.len(), 2);
    }

    #[test]
    fn unknown_id_without_name_creates_nothing() {
        let mut s = PartStore::new();
        assert_eq!(s.upsert(1, PartUpdate::new("x")), Upserted::UnknownId);
        assert!(s.parts().is_empty());
    }

    #[test]
    fn abort_marks_open_parts_as_errors() {
        let mut s = PartStore::new();
        s.upsert(1, named("a", ToolState::Running));
        s.abort_open(2, "the turn was interrupted", "interrupted");
        let p = s.get("a").unwrap();
        assert_eq!(p.state, ToolState::Error);
        assert_eq!(
            p.error.as_ref().unwrap().code.as_deref(),
            Some("interrupted")
        );
    }
}
