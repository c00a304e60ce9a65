//! The one place where parts are created and updated. Every dialect feeds `PartUpdate`s into a
//! `PartStore`; the store keeps one part per id (idempotent upsert), enforces the lifecycle (state
//! only moves forward, a terminal state never reverts, output and error never both), records an
//! event for every change and collects diagnostics.

use crate::hash::HashMap;

use serde_json::Value;

use crate::text::thousands;

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

    /// The update that ends call `id` with its result: `complete` with the output, or `error`
    /// with the error.
    pub fn ended(id: impl Into<String>, result: Result<Value, ToolError>) -> Self {
        let mut u = PartUpdate::new(id);
        match result {
            Ok(out) => {
                u.state = Some(ToolState::Complete);
                u.output = Some(out);
            }
            Err(e) => {
                u.state = Some(ToolState::Error);
                u.error = Some(e);
            }
        }
        u
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

/// The parts of one stream, one per id, with what happened to them. Collecting (the default,
/// what [`finish`](Self::finish) turns into a document) it keeps every event and diagnostic;
/// streaming (the store of a [`crate::Normalizer`]) it queues them for the normalizer to hand out
/// after each line, so what it keeps is the parts (one per tool call) and the diagnostic counts.
#[derive(Debug, Default)]
pub struct PartStore {
    parts: Vec<NormalizedToolPart>,
    index: HashMap<String, usize>,
    events: Vec<PartEvent>,
    diagnostics: Vec<Diagnostic>,
    /// Streaming: what happened since the caller last took the changes.
    streaming: bool,
    changes: Vec<Change>,
    /// How many diagnostics of each kind were seen (see [`diagnostic_kind`]), and where the first
    /// one left out was: a stream of a million bad lines keeps [`DIAGNOSTICS_PER_KIND`] of them.
    kinds: HashMap<String, KindCount>,
}

/// One thing that happened in a streaming store, in order (see [`PartStore::take_changes`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Change {
    /// A part was created (`true`) or changed: the event the document records, and the part's
    /// index.
    Event(PartEvent, usize, bool),
    /// A part was revised without an event of its own (see [`PartStore::revise`]).
    Revised(usize),
    Diagnostic(Diagnostic),
}

/// Diagnostics of one kind kept with their exact line; the rest are counted in one summary.
pub const DIAGNOSTICS_PER_KIND: usize = 10;
/// Distinct kinds kept apart; beyond that every new kind is counted under one shared summary, so
/// even a stream whose every line says something different costs a bounded amount.
pub const MAX_DIAGNOSTIC_KINDS: usize = 64;
const OTHER_KINDS: &str = "other diagnostics";

#[derive(Debug)]
struct KindCount {
    seen: u64,
    /// The first diagnostic of this kind that was left out: its line and level.
    first_left_out: Option<(u32, DiagnosticLevel)>,
}

/// What makes two diagnostics "alike": the message before its first `: ` (the detail after it
/// names the parser's complaint), with numbers and `quoted` names blanked out.
fn diagnostic_kind(message: &str) -> String {
    let head = message.split(": ").next().unwrap_or(message);
    let mut out = String::with_capacity(head.len().min(80));
    let mut quoted = false;
    let mut digits = false;
    for c in head.chars() {
        if c == '`' {
            if !quoted {
                out.push_str("`…`");
            }
            quoted = !quoted;
            continue;
        }
        if quoted {
            continue;
        }
        if c.is_ascii_digit() {
            if !digits {
                out.push('#');
            }
            digits = true;
            continue;
        }
        digits = false;
        if out.len() < 120 {
            out.push(c);
        }
    }
    out
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

    /// A store that queues its events and diagnostics as [`Change`]s instead of keeping them.
    pub(crate) fn streaming() -> Self {
        PartStore {
            streaming: true,
            ..PartStore::default()
        }
    }

    /// What happened since the last call (streaming stores; empty otherwise), in order.
    pub(crate) fn take_changes(&mut self) -> std::vec::Drain<'_, Change> {
        self.changes.drain(..)
    }

    /// The part at `index` (an index a [`Change`] names).
    pub(crate) fn part_at(&self, index: usize) -> &NormalizedToolPart {
        &self.parts[index]
    }

    /// Change a part without an event: for what a later line reveals about how every earlier
    /// part should have read (OpenCode: the stream mixes sessions, so parts name theirs). A
    /// streaming store reports it as [`Change::Revised`] when it changed the part.
    pub(crate) fn revise(&mut self, id: &str, f: impl FnOnce(&mut NormalizedToolPart)) {
        let Some(&i) = self.index.get(id) else {
            return;
        };
        let before = self.streaming.then(|| self.parts[i].clone());
        f(&mut self.parts[i]);
        if before.is_some_and(|b| b != self.parts[i]) {
            self.changes.push(Change::Revised(i));
        }
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
        if let Some(next) = update.state
            && !part.state.is_terminal()
            && next.rank() >= part.state.rank()
        {
            state = next;
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
            let event = PartEvent {
                line,
                part_id: part.id.clone(),
                state: part.state,
            };
            if self.streaming {
                self.changes.push(Change::Event(event, idx, created));
            } else {
                self.events.push(event);
            }
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

    /// Record a diagnostic. The first [`DIAGNOSTICS_PER_KIND`] of a kind are kept with their
    /// line; the rest are only counted, and [`finish`](Self::finish) adds one summary per kind.
    pub fn diagnostic(&mut self, line: u32, level: DiagnosticLevel, message: impl Into<String>) {
        let message = message.into();
        let mut kind = diagnostic_kind(&message);
        if !self.kinds.contains_key(&kind) && self.kinds.len() >= MAX_DIAGNOSTIC_KINDS {
            kind = OTHER_KINDS.to_owned();
        }
        let count = self.kinds.entry(kind).or_insert(KindCount {
            seen: 0,
            first_left_out: None,
        });
        count.seen += 1;
        if count.seen as usize <= DIAGNOSTICS_PER_KIND {
            let d = Diagnostic {
                line,
                level,
                message,
            };
            if self.streaming {
                self.changes.push(Change::Diagnostic(d));
            } else {
                self.diagnostics.push(d);
            }
        } else if count.first_left_out.is_none() {
            count.first_left_out = Some((line, level));
        }
    }

    pub fn warn(&mut self, line: u32, message: impl Into<String>) {
        self.diagnostic(line, DiagnosticLevel::Warning, message);
    }

    pub fn info(&mut self, line: u32, message: impl Into<String>) {
        self.diagnostic(line, DiagnosticLevel::Info, message);
    }

    /// At the end of a stream, the results still waiting for their call (by call id, each with
    /// its line): a warning at each one's line, in line order.
    pub fn warn_unmatched_results<T>(
        &mut self,
        pending: impl IntoIterator<Item = (String, (u32, T))>,
    ) {
        let mut orphans: Vec<(u32, String)> = pending
            .into_iter()
            .map(|(id, (line, _))| (line, id))
            .collect();
        orphans.sort();
        for (line, id) in orphans {
            self.warn(
                line,
                format!("the result of {id} has no matching call in this stream"),
            );
        }
    }

    /// The document of a collecting store: its parts, events and diagnostics, the diagnostics
    /// left out counted in one summary per kind.
    pub fn finish(mut self, provider: &str, dialect: &str) -> NormalizedDocument {
        let mut diagnostics = std::mem::take(&mut self.diagnostics);
        diagnostics.extend(self.summaries());
        NormalizedDocument {
            schema_version: SCHEMA_VERSION,
            provider: provider.to_owned(),
            dialect: dialect.to_owned(),
            parts: self.parts,
            events: self.events,
            diagnostics,
        }
    }

    /// One summary per kind of diagnostic that had some left out, in line order (what
    /// [`finish`](Self::finish) appends; a streaming normalizer hands them out at the end).
    pub(crate) fn summaries(&mut self) -> Vec<Diagnostic> {
        let mut summaries: Vec<(u32, DiagnosticLevel, String)> = std::mem::take(&mut self.kinds)
            .into_iter()
            .filter_map(|(kind, c)| {
                let (line, level) = c.first_left_out?;
                let more = c.seen - DIAGNOSTICS_PER_KIND as u64;
                let like = if kind == OTHER_KINDS {
                    "of other kinds (too many kinds to list them apart)".to_owned()
                } else {
                    format!("like this: {kind}")
                };
                let lines = if more == 1 { "line" } else { "lines" };
                Some((
                    line,
                    level,
                    format!(
                        "… and {} more {lines} {like} (from line {line} on)",
                        thousands(more)
                    ),
                ))
            })
            .collect();
        summaries.sort_by_key(|s| s.0);
        summaries
            .into_iter()
            .map(|(line, level, message)| Diagnostic {
                line,
                level,
                message,
            })
            .collect()
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
    fn diagnostics_keep_ten_of_a_kind_and_count_the_rest() {
        let mut s = PartStore::new();
        for line in 1..=100_000 {
            s.warn(
                line,
                format!("not JSON: expected value at line 1 column {line}"),
            );
        }
        s.warn(7, "invalid UTF-8 at byte 3; replaced with U+FFFD");
        let doc = s.finish("codex", "exec");
        assert_eq!(doc.diagnostics.len(), 12, "{:#?}", doc.diagnostics);
        assert_eq!(doc.diagnostics[9].line, 10);
        assert!(doc.diagnostics[10].message.starts_with("invalid UTF-8"));
        let last = &doc.diagnostics[11];
        assert_eq!(last.line, 11);
        assert_eq!(
            last.message,
            "… and 99,990 more lines like this: not JSON (from line 11 on)"
        );
    }

    #[test]
    fn distinct_kinds_are_bounded_too() {
        let mut s = PartStore::new();
        for line in 1..=100_000u32 {
            // Ids of letters only, so every message is its own kind.
            let id: String = (0..4)
                .map(|i| char::from(b'a' + (line / 26u32.pow(i) % 26) as u8))
                .collect();
            s.warn(
                line,
                format!("tool_result for {id} has no matching tool_use"),
            );
        }
        let doc = s.finish("claude", "transcript");
        assert!(doc.diagnostics.len() <= MAX_DIAGNOSTIC_KINDS * DIAGNOSTICS_PER_KIND + 1);
        assert!(
            doc.diagnostics
                .last()
                .unwrap()
                .message
                .contains("of other kinds"),
            "{:?}",
            doc.diagnostics.last()
        );
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
