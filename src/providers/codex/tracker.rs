//! The per-session state of a Codex stream, shared by every Codex dialect: [`Tracker`] keeps the
//! working directory, the output streamed ahead of an item's completion and the item types already
//! reported as unknown, and applies one thread item notification ([`Tracker::apply`]) through the
//! tool builders in [`tools`].

use crate::hash::{HashMap, HashSet};

use serde_json::Value;

use super::tools::{self, Command};
use super::wire::{ItemType, RawItem, Status, duration_ms};
use crate::model::{TimeValue, Timing, ToolMetadata, ToolState};
use crate::providers::{PartStore, PartUpdate};

/// Where in its lifecycle an item notification is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Started,
    Updated,
    Completed,
}

/// What the envelope around an item adds.
#[derive(Clone, Debug)]
pub(crate) struct Envelope {
    pub line: u32,
    pub phase: Phase,
    /// The part id to use instead of the item id (exec id reuse across runs).
    pub id: Option<String>,
    pub timing: Timing,
    /// The thread the item belongs to when it is not the main one (an app-server subagent's).
    pub session_id: Option<String>,
}

/// Output streamed before the item completes.
#[derive(Debug, Default)]
struct Provisional {
    text: String,
    /// Length of `text` when it was last written to the part.
    shown: usize,
    line: u32,
}

/// What a Codex stream tells about itself along the way.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    /// The session's working directory, for relative paths in titles.
    pub cwd: Option<String>,
    /// Item types reported once as unknown.
    unknown_types: HashSet<String>,
    provisional: HashMap<String, Provisional>,
}

impl Tracker {
    /// A tracker that knows the working directory before reading (`exec --json` never says it; a
    /// fixture's header does).
    pub(crate) fn with_cwd(cwd: Option<&str>) -> Self {
        Tracker {
            cwd: cwd.map(str::to_owned),
            ..Tracker::default()
        }
    }

    /// Append streamed output to a running part. The part shows it as provisional output, written
    /// again only when it has doubled, so a long stream of small deltas stays linear.
    pub(crate) fn push_delta(&mut self, line: u32, id: &str, delta: &str, store: &mut PartStore) {
        let p = self.provisional.entry(id.to_owned()).or_default();
        p.text.push_str(delta);
        p.line = line;
        if p.text.len() >= p.shown.saturating_mul(2).max(1) {
            p.shown = p.text.len();
            let u = PartUpdate {
                output: Some(Value::String(p.text.clone())),
                ..PartUpdate::new(id)
            };
            store.upsert(line, u);
        }
    }

    /// The streamed output of an item, consumed by its completion.
    pub(crate) fn take_provisional(&mut self, id: &str) -> Option<String> {
        self.provisional.remove(id).map(|p| p.text)
    }

    /// Apply one item notification to the store.
    pub(crate) fn apply(&mut self, env: &Envelope, item: &RawItem<'_>, store: &mut PartStore) {
        let ty = ItemType::of(&item.ty);
        if ty == ItemType::NotATool {
            return;
        }
        let Some(id) = env
            .id
            .clone()
            .or_else(|| item.id.as_deref().map(str::to_owned))
        else {
            if ty != ItemType::Unknown {
                store.info(
                    env.line,
                    format!("`{}` item without an id skipped", item.ty),
                );
            }
            return;
        };
        if ty == ItemType::Unknown {
            if self.unknown_types.insert(item.ty.to_string()) {
                store.info(env.line, format!("unknown item type `{}` skipped", item.ty));
            }
            return;
        }
        let status = item.status.as_deref().and_then(Status::parse);
        let mut timing = env.timing.clone();
        if timing.started_at.is_none() {
            timing.started_at = item.started_at_ms.map(TimeValue::Millis);
        }
        if timing.completed_at.is_none() {
            timing.completed_at = item.completed_at_ms.map(TimeValue::Millis);
        }
        if let Some(ms) = item
            .duration_ms
            .or_else(|| item.duration.and_then(duration_ms))
        {
            timing.elapsed_ms = Some(ms);
        }
        // A completion without a status is a success; an in-progress status on a completion stays open.
        let outcome = match (env.phase, status) {
            (_, Some(s)) if s != Status::Running => Some(s),
            (Phase::Completed, None) => Some(Status::Completed),
            _ => None,
        };
        let completed = env.phase == Phase::Completed;
        let mut u = match ty {
            ItemType::Command => {
                let cmd = Command::from_item(item);
                if let Some(cwd) = &cmd.cwd {
                    self.cwd.get_or_insert_with(|| cwd.clone());
                }
                let mut u = cmd.update(&id, self.cwd.as_deref());
                if let Some(s) = outcome {
                    let output = item
                        .aggregated_output
                        .as_deref()
                        .map(str::to_owned)
                        .or_else(|| self.take_provisional(&id))
                        .unwrap_or_default();
                    tools::command_outcome(&mut u, s, item.exit_code, output);
                }
                u
            }
            ItemType::FileChange => {
                let changes = item.changes.map(tools::parse_changes).unwrap_or_default();
                let mut u = tools::patch_update(&id, &changes, self.cwd.as_deref());
                if let Some(s) = outcome {
                    let diffs = tools::joined_diffs(&changes);
                    let output = if diffs.is_empty() {
                        self.take_provisional(&id)
                    } else {
                        Some(diffs)
                    };
                    tools::patch_outcome(&mut u, s, output, None);
                }
                u
            }
            ItemType::Mcp => tools::mcp_item(&id, item, outcome),
            ItemType::Dynamic => tools::dynamic_item(&id, item, outcome),
            ItemType::WebSearch => tools::web_search_item(&id, item, outcome),
            ItemType::Collab => tools::collab_item(&id, item, outcome),
            ItemType::SubAgent => match tools::subagent_activity_item(&id, item, outcome) {
                Some(u) => u,
                None => return,
            },
            ItemType::ImageView => tools::image_view_item(&id, item, outcome, self.cwd.as_deref()),
            ItemType::ImageGeneration => {
                tools::image_generation_item(&id, item, outcome, completed)
            }
            ItemType::TodoList => tools::todo_list_item(&id, item, completed),
            ItemType::Plan => tools::plan_item(&id, item, completed),
            ItemType::NotATool | ItemType::Unknown => return,
        };
        if u.state.is_none() {
            u.state = Some(ToolState::Running);
        }
        let meta = u.metadata.get_or_insert_with(ToolMetadata::default);
        meta.provider_type = Some(item.ty.to_string());
        if let Some(session) = &env.session_id {
            meta.session_id = Some(session.clone());
        }
        if !timing.is_empty() {
            u.timing = Some(timing);
        }
        if store.contains(&id) {
            // The first sighting named the part; later notifications never rename it.
            u.name = None;
        }
        store.upsert(env.line, u);
    }

    /// End of stream: show the whole streamed output of items that never completed.
    pub(crate) fn finish(&mut self, store: &mut PartStore) {
        let mut pending: Vec<(String, Provisional)> = self
            .provisional
            .drain()
            .filter(|(_, p)| p.shown < p.text.len())
            .collect();
        pending.sort_by_key(|(_, p)| p.line);
        for (id, p) in pending {
            if store.get(&id).is_some_and(|part| !part.state.is_terminal()) {
                store.upsert(
                    p.line,
                    PartUpdate {
                        output: Some(Value::String(p.text)),
                        ..PartUpdate::new(id)
                    },
                );
            }
        }
    }
}
