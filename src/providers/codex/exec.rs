//! `codex exec --json`: JSONL `ThreadEvent`s with snake_case items. Item ids (`item_0`, `item_1`,
//! …) restart with every run, so a stream holding several runs reuses them: a reused id that starts
//! again after its first call finished gets a new part id (`item_0#2`). The web_search item's
//! duplicated `id` key is handled by `wire::parse_item` (first wins). No timing in this dialect.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::hash::HashMap;
use crate::model::{Timing, ToolMetadata};
use crate::providers::{
    LineNormalizer, NormalizeOptions, PartStore, first_line, line_text, parse_json,
};
use crate::stream::RawLine;

use super::tracker::{Envelope, Phase, Tracker};
use super::wire;

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    ty: Cow<'a, str>,
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
    #[serde(borrow, default)]
    thread_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    error: Option<ErrorBody<'a>>,
}

#[derive(Deserialize)]
struct ErrorBody<'a> {
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
}

/// Raw item id → part id for the current run.
#[derive(Default)]
struct Ids {
    map: HashMap<String, String>,
    thread: Option<String>,
    /// Raw id → how many times it was renamed so far.
    uses: HashMap<String, u32>,
}

impl Ids {
    fn part_id(&mut self, store: &PartStore, raw: &str, phase: Phase) -> (String, bool) {
        if let Some(id) = self.map.get(raw) {
            // A fresh start of an id whose call already finished is the next run reusing it.
            let finished = store.get(id).is_some_and(|p| p.state.is_terminal());
            if !(finished && phase == Phase::Started) {
                return (id.clone(), id != raw);
            }
        }
        // Suffixes count up per raw id, so many runs stay linear.
        let n = self.uses.entry(raw.to_owned()).or_insert(0);
        let mut id = raw.to_owned();
        while store.contains(&id) {
            *n += 1;
            id = format!("{raw}#{}", *n + 1);
        }
        self.map.insert(raw.to_owned(), id.clone());
        let renamed = id != raw;
        (id, renamed)
    }
}

/// Normalizes a `codex exec --json` stream.
pub(crate) struct Normalizer {
    tracker: Tracker,
    ids: Ids,
}

/// The normalizer of one stream; `exec --json` never says its cwd, so it comes from the options.
pub(crate) fn new(opts: &NormalizeOptions<'_>) -> Box<dyn LineNormalizer> {
    Box::new(Normalizer {
        tracker: Tracker::with_cwd(opts.cwd),
        ids: Ids::default(),
    })
}

impl LineNormalizer for Normalizer {
    fn line(&mut self, line: &RawLine<'_>, store: &mut PartStore) {
        let (tracker, ids) = (&mut self.tracker, &mut self.ids);
        let Some(text) = line_text(line, store) else {
            return;
        };
        let Some(ev) = parse_json::<Event<'_>>(line, &text, store) else {
            return;
        };
        let n = line.number;
        let phase = match ev.ty.as_ref() {
            "item.started" => Phase::Started,
            "item.updated" => Phase::Updated,
            "item.completed" => Phase::Completed,
            "thread.started" => {
                ids.map.clear();
                ids.thread = ev.thread_id.as_deref().map(str::to_owned);
                return;
            }
            "turn.failed" => {
                let why = ev
                    .error
                    .as_ref()
                    .and_then(|e| e.message.as_deref())
                    .and_then(first_line);
                let message = match why {
                    Some(w) => format!("The turn failed: {w}"),
                    None => "The turn failed".to_owned(),
                };
                store.abort_open(n, &message, "turn_failed");
                return;
            }
            _ => return,
        };
        let Some(raw) = ev.item else { return };
        let mut scratch = None;
        let item = match wire::parse_item(raw.get(), &mut scratch) {
            Ok(i) => i,
            Err(e) => {
                store.warn(n, format!("`{}` item not understood: {e}", ev.ty));
                return;
            }
        };
        let ty = wire::ItemType::of(&item.ty);
        if matches!(ty, wire::ItemType::NotATool) {
            return;
        }
        let Some(raw_id) = item.id.as_deref() else {
            store.info(n, format!("`{}` item without an id skipped", item.ty));
            return;
        };
        let (id, renamed) = ids.part_id(store, raw_id, phase);
        let env = Envelope {
            line: n,
            phase,
            id: Some(id.clone()),
            timing: Timing::default(),
            session_id: None,
        };
        let created = !store.contains(&id);
        tracker.apply(&env, &item, store);
        // A reused id's part says which run (thread) it belongs to.
        if renamed
            && created
            && let Some(thread) = &ids.thread
        {
            let meta = ToolMetadata {
                session_id: Some(thread.clone()),
                ..ToolMetadata::default()
            };
            store.upsert(
                n,
                crate::providers::PartUpdate {
                    metadata: Some(meta),
                    ..crate::providers::PartUpdate::new(id)
                },
            );
        }
    }

    fn finish(&mut self, store: &mut PartStore) {
        self.tracker.finish(store);
    }
}

/// Recognises an `exec --json` event: a `thread.*`, `turn.*` or `item.*` type.
pub(crate) fn sniff(p: &crate::providers::Probe<'_>) -> bool {
    let ty = p.ty();
    ty.starts_with("thread.") || ty.starts_with("turn.") || ty.starts_with("item.")
}

#[cfg(test)]
mod tests {
    use crate::model::{ToolKind, ToolState};
    use crate::stream::Dialect;

    fn run(text: &str) -> crate::model::NormalizedDocument {
        crate::dialects::normalize_text(text, Dialect::CodexExec)
    }

    #[test]
    fn web_search_with_duplicate_id_is_one_part_with_the_first_id() {
        let doc = run(concat!(
            r#"{"type":"item.started","item":{"id":"item_1","type":"web_search","id":"ws_1","query":"","action":{"type":"other"}}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_1","type":"web_search","id":"ws_1","query":"https://apnews.com/hub","action":{"type":"open_page","url":"https://apnews.com/hub"}}}"#,
            "\n",
        ));
        assert_eq!(doc.parts.len(), 1);
        let p = &doc.parts[0];
        assert_eq!(p.id, "item_1");
        assert_eq!(p.name, "webSearch");
        assert_eq!(p.kind, ToolKind::WebSearch);
        assert_eq!(p.title, "Opening apnews.com");
        assert_eq!(p.state, ToolState::Complete);
        assert_eq!(
            p.metadata.as_ref().unwrap().action.as_ref().unwrap()["type"],
            "open_page"
        );
        assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    }

    #[test]
    fn failed_command_and_turn_failed() {
        let doc = run(concat!(
            r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'exit 3'","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'exit 3'","aggregated_output":"boom\n","exit_code":3,"status":"failed"}}"#,
            "\n",
            r#"{"type":"item.started","item":{"id":"item_1","type":"mcp_tool_call","server":"s","tool":"t","arguments":{},"result":null,"error":null,"status":"in_progress"}}"#,
            "\n",
            r#"{"type":"turn.failed","error":{"message":"context window exceeded"}}"#,
            "\n",
        ));
        let p = &doc.parts[0];
        assert_eq!(p.name, "commandExecution");
        assert_eq!(p.state, ToolState::Error);
        let e = p.error.as_ref().unwrap();
        assert_eq!(
            (e.message.as_str(), e.code.as_deref()),
            ("Exit code 3", Some("3"))
        );
        assert_eq!(e.details.as_ref().unwrap(), "boom\n");
        assert_eq!(doc.parts[1].state, ToolState::Error);
        assert_eq!(
            doc.parts[1].error.as_ref().unwrap().code.as_deref(),
            Some("turn_failed")
        );
    }

    #[test]
    fn reused_ids_across_runs_are_separate_parts() {
        let line = |id: &str, status: &str| {
            format!(
                r#"{{"type":"item.{}","item":{{"id":"{id}","type":"command_execution","command":"ls","aggregated_output":"","exit_code":{},"status":"{status}"}}}}"#,
                if status == "in_progress" {
                    "started"
                } else {
                    "completed"
                },
                if status == "in_progress" { "null" } else { "0" }
            )
        };
        let text = [
            r#"{"type":"thread.started","thread_id":"t1"}"#.to_owned(),
            line("item_0", "in_progress"),
            line("item_0", "completed"),
            line("item_0", "in_progress"),
            line("item_0", "completed"),
            r#"{"type":"thread.started","thread_id":"t2"}"#.to_owned(),
            line("item_0", "in_progress"),
            line("item_0", "completed"),
        ]
        .join("\n");
        let doc = run(&text);
        let ids: Vec<&str> = doc.parts.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["item_0", "item_0#2", "item_0#3"]);
        assert!(doc.parts.iter().all(|p| p.state == ToolState::Complete));
        assert_eq!(
            doc.parts[2]
                .metadata
                .as_ref()
                .unwrap()
                .session_id
                .as_deref(),
            Some("t2")
        );
    }

    #[test]
    fn todo_list_collab_and_file_change() {
        let doc = run(concat!(
            r#"{"type":"item.started","item":{"id":"item_0","type":"todo_list","items":[{"text":"a","completed":false},{"text":"b","completed":false}]}}"#,
            "\n",
            r#"{"type":"item.updated","item":{"id":"item_0","type":"todo_list","items":[{"text":"a","completed":true},{"text":"b","completed":false}]}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_1","type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":"t","receiver_thread_ids":["t9"],"prompt":"Check the docs","agents_states":{"t9":{"status":"completed","message":"ok"}},"status":"completed"}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"/w/a","kind":"delete"}],"status":"failed"}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_0","type":"todo_list","items":[{"text":"a","completed":true},{"text":"b","completed":true}]}}"#,
            "\n",
        ));
        let by = |id: &str| doc.parts.iter().find(|p| p.id == id).unwrap();
        assert_eq!(
            by("item_0").title,
            "Updating the todo list (2 items, 2 done)"
        );
        assert_eq!(by("item_0").state, ToolState::Complete);
        assert_eq!(by("item_1").name, "spawnAgent");
        assert_eq!(by("item_1").title, "Subagent: Check the docs");
        assert_eq!(by("item_2").title, "Deleting /w/a");
        assert_eq!(by("item_2").state, ToolState::Error);
    }

    #[test]
    fn a_recorded_cwd_makes_paths_relative() {
        let line = r#"{"type":"item.completed","item":{"id":"i","type":"file_change","changes":[{"path":"/w/src/a.js","kind":"add"}],"status":"completed"}}"#;
        let input = crate::stream::Input::from_bytes(line.as_bytes());
        let opts = |cwd| crate::providers::NormalizeOptions {
            dialect: Some(Dialect::CodexExec),
            cwd,
            ..Default::default()
        };
        let doc = crate::normalizer::normalize(&input, opts(Some("/w"))).unwrap();
        assert_eq!(doc.parts[0].title, "Creating src/a.js");
        let doc = crate::normalizer::normalize(&input, opts(None)).unwrap();
        assert_eq!(doc.parts[0].title, "Creating /w/src/a.js");
    }
}
