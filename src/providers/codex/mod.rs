//! Codex dialects → parts: the app-server v2 notifications, `codex exec --json`, rollout files and
//! the old `{"id","msg"}` EventMsg stream. One file per dialect; the item mapping (`items`) and the
//! EventMsg handling (`event_msg`, shared by rollouts and the legacy stream) are written once.

pub(crate) mod app_server;
mod event_msg;
pub(crate) mod exec;
mod items;
pub(crate) mod legacy;
pub(crate) mod rollout;

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::{PartStore, PartUpdate};
use crate::stream::{Dialect, Input};

pub(crate) fn normalize(
    dialect: Dialect,
    input: &Input<'_>,
    cwd: Option<&str>,
    store: &mut PartStore,
) {
    let mut ctx = Ctx::default();
    // `exec --json` never says where it runs; the other dialects do.
    if dialect == Dialect::CodexExec {
        ctx.cwd = cwd.map(str::to_owned);
    }
    match dialect {
        Dialect::CodexAppServer => app_server::normalize(input, store, &mut ctx),
        Dialect::CodexExec => exec::normalize(input, store, &mut ctx),
        Dialect::CodexRollout => rollout::normalize(input, store, &mut ctx),
        Dialect::CodexLegacy => legacy::normalize(input, store, &mut ctx),
        other => store.warn(0, format!("dialect `{other}` is not a Codex dialect")),
    }
    ctx.flush_provisional(store);
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
pub(crate) struct Ctx {
    /// The session's working directory, for relative paths in titles.
    pub cwd: Option<String>,
    /// Item types reported once as unknown.
    pub unknown_types: HashSet<String>,
    provisional: HashMap<String, Provisional>,
}

impl Ctx {
    /// Append streamed output to a running part. The part shows it as provisional output, written
    /// again only when it has doubled, so a long stream of small deltas stays linear.
    pub(crate) fn push_delta(&mut self, store: &mut PartStore, line: u32, id: &str, delta: &str) {
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

    /// At the end of the stream, show the whole streamed output of items that never completed.
    fn flush_provisional(&mut self, store: &mut PartStore) {
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
